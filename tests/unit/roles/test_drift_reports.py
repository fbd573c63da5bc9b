# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every role drift.yml runs reports its drift, from results the role really registers, and a
report whose result is missing (a renamed register) is an error row, never "no drift"."""

from __future__ import annotations

import glob
import os
import re

import jinja2
import pytest
import yaml

from ansible_collections.s390x.network.plugins.plugin_utils.drift_report import drift_rows, result_drift

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
DRIFT_ROLES = ("qeth", "ism_passthrough", "kvm_guest_network", "interfaces", "nic_tuning", "smc")
_RESULT = re.compile(r"(\w+) \| default\(none\) \| s390x\.network\.result_drift\('(\w+)'[,)]")


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


def _report(role):
    name = "%s_drift" % role
    reports = [t for t in _tasks(role) if name in (t.get("ansible.builtin.set_fact") or {})]
    assert len(reports) == 1, "%s: one task sets %s, found %d" % (role, name, len(reports))
    return reports[0]["ansible.builtin.set_fact"][name]


def _checked_names(role, tasks):
    """Result names the report reads that the role does not register or set (empty when consistent)."""
    known = set(t["register"] for t in tasks if t.get("register"))
    for task in tasks:
        known.update((task.get("ansible.builtin.set_fact") or {}).keys())
    return [name for name, _kind in _RESULT.findall(_report(role)) if name not in known]


def _render(expression, variables):
    env = jinja2.Environment(undefined=jinja2.Undefined)
    env.filters["s390x.network.result_drift"] = result_drift
    return yaml.safe_load(env.from_string(expression).render(**variables))


def test_these_are_the_roles_drift_yml_runs():
    # drift.yml runs the roles of each entry of playbooks/vars/plays.yml (test_role_order.py)
    with open(os.path.join(ROOT, "playbooks", "vars", "plays.yml")) as handle:
        plays = yaml.safe_load(handle)["s390x_network_plays"]
    named = [r for play in plays for r in play["roles"]]
    assert tuple(named) == DRIFT_ROLES


@pytest.mark.parametrize("role", DRIFT_ROLES)
def test_the_report_reads_results_the_role_registers(role):
    expression = _report(role)
    assert _RESULT.findall(expression), "%s: the report reads no result" % role
    assert _checked_names(role, _tasks(role)) == []


def test_a_renamed_register_is_caught_by_the_check_and_by_the_report():
    tasks = _tasks("qeth")
    renamed = [dict(t, register="qeth_results") if t.get("register") == "qeth_result" else t for t in tasks]
    assert _checked_names("qeth", renamed) == ["qeth_result"]
    # at run time: the report rendered without the result it names
    report = _render(_report("qeth"), {})
    rows = drift_rows({"lpar-a": {"drift_expected": ["qeth"], "qeth_drift": report}})
    assert rows == [
        {
            "host": "lpar-a",
            "kind": "qeth",
            "object": "qeth",
            "scope": "error",
            "difference": "no result: the role registered none under the name it reports",
        }
    ]


def test_the_report_of_a_clean_run_is_empty_and_complete():
    report = _render(
        _report("smc"),
        {
            "smc_ism_result": {"skipped": True},
            "smc_sysctl_result": {"changed": False},
            "smc_pnet_result": {"changed": False, "commands": []},
            "smc_ueid_result": {"skipped": True},
            "smc_services_result": {"changed": False, "drift": []},
        },
    )
    assert report == []
    assert drift_rows({"g1": {"drift_expected": ["smc"], "smc_drift": report}}) == []
