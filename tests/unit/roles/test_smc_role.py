# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The smc role writes no raw inventory string into a file or a path.

* The PNET boot unit is smc_pnet's (boot_unit) and the drop-ins are smc_services' (their text and
  names checked and built in Python, tests/unit/plugins/modules/test_smc_services.py); the role has
  no template.
* No task builds a path, a find pattern or a file line from smc_dropin_name, smc_services or
  smc_smcr_interface, and every value is checked before the first task that changes the host.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest
import yaml

from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar

try:
    from ansible.template import trust_as_template
except ImportError:  # ansible-core before 2.19 templates every string it is given

    def trust_as_template(value):
        return value


from ansible_collections.s390x.network.plugins.plugin_utils.drift_report import result_drift
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


# -- the drop-ins: the smc_services module's ---------------------------------------------------------
def test_the_drop_ins_are_the_modules_and_the_checks_come_first():
    assert not os.path.exists(os.path.join(ROLE, "templates"))
    main = _tasks("main.yml")
    calls = [t for t in main if "s390x.network.smc_services" in t]
    assert len(calls) == 1 and calls[0]["register"] == "smc_services_result"
    assert calls[0]["s390x.network.smc_services"] == {
        "config": "{{ smc_services }}",
        "state": "overridden",
        "dropin_name": "{{ smc_dropin_name }}",
        "restart": "{{ smc_restart_services | bool }}",
    }
    # no other task builds a path from smc_dropin_name or smc_services
    others = yaml.safe_dump([t for t in main if t is not calls[0]])
    assert "smc_dropin_name" not in others.replace("dropin_name=smc_dropin_name", "")
    # the check runs before the first task that changes the host, with every error of the inventory
    names = [t.get("name") for t in main]
    check = [i for i, t in enumerate(main) if "ansible.builtin.assert" in t][0]
    changing = [i for i, t in enumerate(main) if any(k.startswith("s390x.network.") for k in t)]
    assert check < min(changing), names
    errors = main[check]["vars"]["smc__errors"]
    for part in ("smc_ism_plan.errors", "smc_service_plan.errors", "smc_pnet_errors(", "smc_roce_plan.errors"):
        assert part in errors


# -- the PNET boot unit ---------------------------------------------------------------------------------
def test_the_boot_unit_is_the_modules():
    assert not os.path.exists(os.path.join(ROLE, "templates", "smc-pnet.service.j2"))
    for name in os.listdir(os.path.join(ROLE, "tasks")):
        assert "smc-pnet.service" not in yaml.safe_dump(_tasks(name)), name  # no task names the unit
    calls = [t for t in _tasks("main.yml") if "s390x.network.smc_pnet" in t]
    assert len(calls) == 1 and calls[0]["register"] == "smc_pnet_result"
    assert calls[0]["s390x.network.smc_pnet"] == {
        "config": "{{ smc_pnet_config + (smc_smcr_pnet_entries | default([])) }}",
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
            "smc_services_result": {"changed": False, "drift": []},
        },
    )
    assert report == rows


# -- SMC-R: the rendezvous interface and PNET ID before they reach a path or an entry ---------------
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
    task = [t for t in _tasks("main.yml") if "ansible.builtin.assert" in t][0]
    variables = {"smc_smcr_interface": interface, "smc_smcr_pnet_id": pnet_id}
    assert _template(task["vars"]["smc__interface_ok"], variables) is ok
    assert _template(task["vars"]["smc__pnet_id_ok"], variables) is pnet_ok
    assert "smc__pnet_id_ok" in task["vars"]["smc__errors"] and "smc__interface_ok" in task["vars"]["smc__errors"]
