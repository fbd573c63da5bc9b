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

import yaml

from ansible_collections.s390x.network.plugins.plugin_utils.drift_report import result_drift, role_drift
from ansible_collections.s390x.network.tests.unit.role_results import clean_results

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
        "restart": "{{ smc_restart_services }}",
    }
    # no other task builds a path from smc_dropin_name or smc_services; the plan only checks the name
    plan = [i for i, t in enumerate(main) if "s390x.network.smc_plan" in t]
    others = [t for t in main if t is not calls[0]]
    for task in others:
        if "s390x.network.smc_plan" in task:
            task = dict(task, **{"s390x.network.smc_plan": dict(task["s390x.network.smc_plan"], dropin_name=None)})
        assert "smc_dropin_name" not in yaml.safe_dump(task), task.get("name")
    # the plan, which fails on every wrong value, comes before the first task that changes the host
    names = [t.get("name") for t in main]
    changing = [i for i, t in enumerate(main) if any(k.startswith("s390x.network.") for k in t) and i not in plan]
    assert plan == [0] and plan[0] < min(changing), names
    assert main[0]["register"] == "smc_plan"
    args = main[0]["s390x.network.smc_plan"]
    for option, variable in (
        ("services", "smc_services"),
        ("dropin_name", "smc_dropin_name"),
        ("pnet_config", "smc_pnet_config"),
    ):
        assert args[option] == "{{ %s }}" % variable


# -- the PNET boot unit ---------------------------------------------------------------------------------
def test_the_boot_unit_is_the_modules():
    assert not os.path.exists(os.path.join(ROLE, "templates", "smc-pnet.service.j2"))
    for name in os.listdir(os.path.join(ROLE, "tasks")):
        assert "smc-pnet.service" not in yaml.safe_dump(_tasks(name)), name  # no task names the unit
    calls = [t for name in ("main.yml", "steps.yml") for t in _tasks(name) if "s390x.network.smc_pnet" in t]
    assert len(calls) == 1 and calls[0]["register"] == "smc_pnet_result"
    assert calls[0]["s390x.network.smc_pnet"] == {
        "config": "{{ smc_pnet_config + smc_smcr_pnet_entries }}",
        "state": "{{ smc_pnet_state }}",
        "boot_unit": "{{ 'present' if smc_pnet_persistent | bool else 'absent' }}",
    }
    # no condition on smc being loaded: the module writes the unit, checked, also then
    assert calls[0]["when"] == "'pnet' in smc__steps"
    steps = yaml.safe_load(_load("vars", "main.yml"))["smc__steps"]
    pnet_clause = steps[steps.index("['pnet']") : steps.index("['ueid']")]
    assert "smc_plan.steps.pnet" in pnet_clause and "smc_loaded" not in pnet_clause


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
    skipped = {"skipped": True}
    report = role_drift(
        clean_results(
            "smc", smc_ism_result=skipped, smc_pnet_result={"changed": True, "drift": rows}, smc_ueid_result=skipped
        ),
        "smc",
    )
    assert report == rows
