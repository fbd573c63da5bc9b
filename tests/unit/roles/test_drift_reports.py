# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every role drift.yml runs reports its drift from results the role really registers, without
a task of its own, and a result that is missing (a renamed register, a role that stopped) is an
error row, never "no drift"; only a step a later registered result shows the role passed is none."""

from __future__ import annotations

import glob
import os

import pytest
import yaml

from ansible_collections.s390x.network.plugins.plugin_utils.drift_report import (
    ROLE_PLANS,
    ROLE_RESULTS,
    drift_rows,
    role_drift,
)

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
DRIFT_ROLES = ("qeth", "network_express", "ism_passthrough", "kvm_guest_network", "interfaces", "nic_tuning", "smc")
# the smc role's results in the order it registers them (a module added to the role adds one)
SMC_RESULTS = ROLE_RESULTS["smc"]
with open(os.path.join(ROOT, "playbooks", "vars", "plays.yml")) as _handle:
    PLAYS = yaml.safe_load(_handle)["s390x_network_plays"]


def _tasks(role):
    out = []

    def walk(items):
        for task in items or []:
            out.append(task)
            for key in ("block", "rescue", "always"):
                walk(task.get(key))

    for path in sorted(glob.glob(os.path.join(ROOT, "roles", role, "tasks", "*.yml"))):
        with open(path) as handle:
            walk(yaml.safe_load(handle))
    return out


def _unregistered(role, tasks):
    """Result names the report reads that the role does not register or set (empty when consistent)."""
    known = set(t["register"] for t in tasks if t.get("register"))
    for task in tasks:
        known.update((task.get("ansible.builtin.set_fact") or {}).keys())
    names = [name for name, _kind in ROLE_RESULTS[role]] + list(ROLE_PLANS.get(role, ()))
    return [name for name in names if name not in known]


def test_these_are_the_roles_drift_yml_runs():
    # drift.yml runs the roles of each entry of playbooks/vars/plays.yml (test_role_order.py)
    named = [r for play in PLAYS for r in play["roles"]]
    assert tuple(named) == DRIFT_ROLES == tuple(ROLE_RESULTS)


@pytest.mark.parametrize("role", DRIFT_ROLES)
def test_the_report_reads_results_the_role_registers(role):
    assert ROLE_RESULTS[role], "%s: the report reads no result" % role
    assert _unregistered(role, _tasks(role)) == []


@pytest.mark.parametrize("role", DRIFT_ROLES)
def test_the_role_defines_its_report_without_a_task(role):
    name = "%s_drift" % role
    with open(os.path.join(ROOT, "roles", role, "vars", "main.yml")) as handle:
        variables = yaml.safe_load(handle)
    assert variables[name] == "{{ hostvars[inventory_hostname] | s390x.network.role_drift('%s') }}" % role
    assert [t.get("name") for t in _tasks(role) if name in (t.get("ansible.builtin.set_fact") or {})] == []


def test_the_planning_steps_are_registered_by_their_roles():
    assert set(ROLE_PLANS) <= set(ROLE_RESULTS)
    tasks = _tasks("smc")
    assert _unregistered("smc", tasks) == []
    renamed = [dict(t, register="smc_planned") if t.get("register") == "smc_plan" else t for t in tasks]
    assert _unregistered("smc", renamed) == ["smc_plan"]


def test_a_renamed_register_is_caught_by_the_check_and_by_the_report():
    tasks = _tasks("qeth")
    renamed = [dict(t, register="qeth_results") if t.get("register") == "qeth_result" else t for t in tasks]
    assert _unregistered("qeth", renamed) == ["qeth_result"]
    # at run time: the role registered none of its results -> the summary's "reported nothing" row
    assert role_drift({"qeth_results": {"changed": True}}, "qeth") is None
    rows = drift_rows({"lpar-a": {"qeth_results": {"changed": True}}}, plays=PLAYS[:1], groups={"lpars": ["lpar-a"]})
    assert [(r["host"], r["kind"], r["object"], r["scope"]) for r in rows] == [("lpar-a", "role", "qeth", "error")]
    assert rows[0]["difference"].startswith("reported nothing")


def test_a_role_that_stopped_half_way_names_the_results_it_did_not_reach():
    variables = {
        "smc_ism_result": {"changed": False, "drift": []},
        "smc_sysctl_result": {"failed": True, "msg": "net.smc.rmem: Permission denied"},
    }
    rows = role_drift(variables, "smc")
    not_reached = [(kind, name, "error") for name, kind in SMC_RESULTS[2:]]
    assert [(r["kind"], r["object"], r["scope"]) for r in rows] == [("sysctl", "sysctl", "error")] + not_reached
    assert [name for name, _kind in SMC_RESULTS[2:4]] == ["smc_pnet_result", "smc_ueid_result"]
    assert "Permission denied" in rows[0]["difference"]
    assert all("stopped before" in r["difference"] for r in rows[1:])


def test_a_step_the_host_did_not_need_is_no_row_when_a_later_one_ran():
    # the smc role registers smc_pnet_result and smc_ueid_result only on a host that needs them
    # (and the results after them in ROLE_RESULTS, which every host registers)
    later = dict((name, {"changed": False, "drift": []}) for name, _kind in SMC_RESULTS[5:])
    variables = dict(
        later,
        smc_ism_result={"skipped": True},
        smc_sysctl_result={"changed": False, "drift": []},
        smc_services_result={"changed": True, "drift": [{"object": "db2.service", "difference": "d"}]},
    )
    rows = role_drift(variables, "smc")
    assert [(r["kind"], r["object"]) for r in rows] == [("dropin", "db2.service")]
    for name in list(later) + ["smc_services_result"]:
        del variables[name]
    rows = role_drift(variables, "smc")
    assert [(r["object"], r["scope"]) for r in rows] == [(name, "error") for name, _kind in SMC_RESULTS[2:]]
    assert [name for name, _kind in SMC_RESULTS[2:5]] == ["smc_pnet_result", "smc_ueid_result", "smc_services_result"]


def test_a_role_of_the_shop_reports_through_its_own_variable():
    assert role_drift(
        {"tls_drift": [{"kind": "file", "object": "/etc/x", "scope": "active", "difference": "d"}]}, "tls"
    )
    assert role_drift({"tls_drift": "no list"}, "tls") is None
    plays = [{"name": "TLS", "groups": ["lpars"], "roles": ["tls"]}]
    rows = drift_rows({"h": {}}, plays=plays, groups={"lpars": ["h"]})
    assert [(r["kind"], r["object"], r["scope"]) for r in rows] == [("role", "tls", "error")]


def test_the_report_of_a_clean_run_is_empty_and_complete():
    variables = dict((name, {"changed": False, "drift": []}) for name, _kind in SMC_RESULTS)
    variables.update(
        smc_ism_result={"skipped": True},
        smc_pnet_result={"changed": False, "commands": [], "drift": []},
        smc_ueid_result={"skipped": True},
    )
    assert role_drift(variables, "smc") == []
    assert drift_rows({"g1": variables}, plays=PLAYS, groups={"smc_hosts": ["g1"]}) == []
