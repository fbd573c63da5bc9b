# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The smc role writes no raw inventory string into a file or a path.

* The PNET boot unit is smc_pnet's (boot_unit), not a role template.
* The drop-ins: smc_services_plan checks the names (and smc_dropin_name) in code; the template
  renders only the text built in Python, which systemd reads back as exactly the environment given
  (Ansible's own templating, read back with the reader of test_unit_syntax).
* No task builds a path, a find pattern or a file line from smc_dropin_name, smc_services or
  smc_smcr_interface before they are checked.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re

import pytest
import yaml

from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar

try:
    from ansible.template import trust_as_template
except ImportError:  # ansible-core before 2.19 templates every string it is given

    def trust_as_template(value):
        return value


from ansible_collections.s390x.network.plugins.plugin_utils.smc_services import smc_services_plan
from ansible_collections.s390x.network.plugins.plugin_utils.drift_report import result_drift
from ansible_collections.s390x.network.tests.unit.plugins.module_utils.test_unit_syntax import (
    environment_of,
    read_unit,
)
from ansible_collections.s390x.network.tests.unit.roles.test_drift_reports import _render, _report

ROLE = os.path.join(os.path.dirname(__file__), "..", "..", "..", "roles", "smc")
DROPIN = "50-s390x-network-smc.conf"


def _load(*parts):
    with open(os.path.join(ROLE, *parts)) as handle:
        return handle.read()


def _tasks(name):
    out = []

    def walk(items):
        for task in items or []:
            out.append(task)
            walk(task.get("block"))

    walk(yaml.safe_load(_load("tasks", name)))
    return out


def _template(source, variables):
    return Templar(loader=DataLoader(), variables=variables).template(trust_as_template(source))


# -- the drop-in ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "service,environment",
    [
        ("db2", {"LD_PRELOAD": "libsmc-preload.so"}),
        (
            {"name": "app@blue:1.socket", "rmem": "1M", "wmem": 16384},
            {"LD_PRELOAD": "libsmc-preload.so", "SMC_RCVBUF": "1M", "SMC_SNDBUF": "16384"},
        ),
    ],
)
def test_the_template_writes_the_environment_built_in_python(service, environment):
    plan = smc_services_plan([service], dropin_name=DROPIN)
    assert plan["errors"] == []
    item = plan["services"][0]
    text = _template(_load("templates", "smc-dropin.conf.j2"), {"item": item, "ansible_managed": "Ansible managed"})
    directives = read_unit(text)
    assert [d[:2] for d in directives] == [("Service", "Environment")] * len(environment)
    found = {}
    for d in directives:
        found.update(environment_of(d[2]))
    assert found == environment
    assert text.startswith("#\n# Ansible managed\n#\n") and text.endswith("\n") and not text.endswith("\n\n")


def test_the_template_renders_no_raw_variable():
    source = _load("templates", "smc-dropin.conf.j2")
    expressions = re.findall(r"{{(.*?)}}", source)
    assert [e.strip(" -") for e in expressions] == ["ansible_managed | comment", "item.dropin"]
    assert "{%" not in source


def test_paths_and_patterns_come_from_the_checked_plan():
    tasks = _tasks("services.yml")
    text = yaml.safe_dump(tasks)
    assert "smc_dropin_name" not in text.replace("dropin_name=smc_dropin_name", "")
    by_module = dict((next(k for k in t if k.startswith("ansible.builtin.")), t) for t in tasks if "block" not in t)
    assert by_module["ansible.builtin.file"]["ansible.builtin.file"]["path"] in ("{{ item.dir }}", "{{ item.path }}")
    assert by_module["ansible.builtin.template"]["ansible.builtin.template"]["dest"] == "{{ item.path }}"
    find = by_module["ansible.builtin.find"]["ansible.builtin.find"]
    assert find["patterns"] == ["{{ smc_service_plan.dropin_name }}"] and find["use_regex"] is False
    removal = [t for t in tasks if t.get("register") == "smc_dropins_removed"][0]
    assert removal["ansible.builtin.file"]["path"] == "{{ item.path }}"
    assert ".stale" in removal["loop"] and "smc_services_plan(dropin_name=smc_dropin_name" in removal["loop"]
    main = _tasks("main.yml")
    plan = [t for t in main if "smc_service_plan" in (t.get("ansible.builtin.set_fact") or {})][0]
    assert "smc_services_plan(dropin_name=smc_dropin_name)" in plan["ansible.builtin.set_fact"]["smc_service_plan"]
    # the check runs before services.yml (the first task that writes a drop-in)
    names = [t.get("name") for t in main]
    assert names.index("Check smc_services, smc_dropin_name and smc_pnet_config") < names.index("Run services with SMC")
    # and before the first task that changes the host (the SMC-R and ISM functions), with the PNET entries
    check = names.index("Check smc_services, smc_dropin_name and smc_pnet_config")
    assert check < names.index("RoCE functions for SMC-R") and check < names.index(
        "ISM functions for SMC-D (and the RoCE functions)"
    )
    assert "smc_pnet_errors(" in main[check]["vars"]["smc__errors"]


def test_the_stale_drop_ins_loop_renders_from_the_plan():
    removal = [t for t in _tasks("services.yml") if t.get("register") == "smc_dropins_removed"][0]
    found = [
        {"path": "/etc/systemd/system/old.service.d/" + DROPIN},
        {"path": "/etc/systemd/system/db2.service.d/" + DROPIN},
        {"path": "/etc/systemd/system/" + DROPIN},
    ]

    def plan_filter(services, **options):
        return smc_services_plan(services, **options)

    templar = Templar(
        loader=DataLoader(),
        variables={"smc_services": ["db2"], "smc_dropin_name": DROPIN, "smc_dropins_found": {"files": found}},
    )
    templar.environment.filters["s390x.network.smc_services_plan"] = plan_filter
    loop = templar.template(trust_as_template(removal["loop"]))
    assert loop == [{"name": "old.service", "path": "/etc/systemd/system/old.service.d/" + DROPIN}]


# -- the PNET boot unit ---------------------------------------------------------------------------------
def test_the_boot_unit_is_the_modules():
    assert not os.path.exists(os.path.join(ROLE, "templates", "smc-pnet.service.j2"))
    for name in os.listdir(os.path.join(ROLE, "tasks")):
        assert "smc-pnet.service" not in yaml.safe_dump(_tasks(name)), name  # no task names the unit
    calls = [t for t in _tasks("pnet.yml") if "s390x.network.smc_pnet" in t]
    assert len(calls) == 1 and calls[0]["register"] == "smc_pnet_result"
    assert calls[0]["s390x.network.smc_pnet"] == {
        "config": "{{ smc_pnet_config }}",
        "state": "{{ smc_pnet_state }}",
        "boot_unit": "{{ 'present' if smc_pnet_persistent | bool else 'absent' }}",
    }
    # no condition on smc being loaded: the module writes the unit, checked, also then
    assert "smc_loaded" not in str(calls[0].get("when"))


def test_the_boot_unit_rows_reach_the_roles_drift_report():
    rows = [
        {"kind": "pnet", "object": "table", "scope": "active", "difference": "NETA - -> interface eth1"},
        {
            "kind": "pnet",
            "object": "/etc/systemd/system/s390x-network-smc-pnet.service",
            "scope": "persistent",
            "difference": "missing",
        },
    ]
    assert result_drift({"changed": True, "drift": rows}, "pnet") == rows
    report = _render(
        _report("smc"),
        {
            "smc_ism_result": {"skipped": True},
            "smc_sysctl_result": {"changed": False},
            "smc_pnet_result": {"changed": True, "drift": rows},
            "smc_ueid_result": {"skipped": True},
            "smc_dropins": {"changed": False, "results": []},
            "smc_dropins_removed": {"changed": False, "results": []},
        },
    )
    assert report == rows


# -- smcr.yml: the rendezvous interface and PNET ID before they reach a path or an entry ---------------
@pytest.mark.parametrize(
    "interface,ok",
    [
        ("encE000", True),
        ("", True),
        ("v$(id>x)", True),
        ("x;y", True),
        ("../../../etc", False),
        ("a/b", False),
        (".", False),
        ("..", False),
        ("eth0\n", False),
        ("a b", False),
        ("a:b", False),
        ("x" * 16, False),
    ],
)
@pytest.mark.parametrize("pnet_id,pnet_ok", [("NETA", True), ("", True), ("NETA\n", False), ("NET_A", False)])
def test_smcr_checks_interface_and_pnet_id_whole(interface, ok, pnet_id, pnet_ok):
    task = [t for t in _tasks("smcr.yml") if t.get("name", "").startswith("Check the RoCE functions")][0]
    variables = {"smc_smcr_interface": interface, "smc_smcr_pnet_id": pnet_id}
    assert _template(task["vars"]["smc__interface_ok"], variables) is ok
    assert _template(task["vars"]["smc__pnet_id_ok"], variables) is pnet_ok
    assert task["ansible.builtin.assert"]["that"][1:] == ["smc__pnet_id_ok", "smc__interface_ok"]
