# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The nic_tuning role: its drift report reads the result it registers (a renamed register is an
error row, never "no drift"), its argument spec documents every default, and the module call
passes every role variable through."""

from __future__ import annotations

import os

import yaml

from ansible_collections.s390x.network.plugins.plugin_utils.drift_report import drift_rows, result_drift, role_drift
from ansible_collections.s390x.network.tests.unit.roles.test_drift_reports import _tasks, _unregistered

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
ROLE = os.path.join(ROOT, "roles", "nic_tuning")


def _yaml(*parts):
    with open(os.path.join(ROLE, *parts)) as handle:
        return yaml.safe_load(handle)


def test_the_report_reads_the_result_the_role_registers():
    assert _unregistered("nic_tuning", _tasks("nic_tuning")) == []
    renamed = [
        dict(t, register="nic_result") if t.get("register") == "nic_tuning_result" else t for t in _tasks("nic_tuning")
    ]
    assert _unregistered("nic_tuning", renamed) == ["nic_tuning_result"]


def test_report_rows():
    rows = [{"kind": "nic", "object": "eth0", "scope": "active", "difference": "channels.combined 1 -> 4"}]
    assert role_drift({"nic_tuning_result": {"changed": True, "drift": rows}}, "nic_tuning") == rows
    assert role_drift({"nic_tuning_result": {"skipped": True}}, "nic_tuning") == []
    assert role_drift({}, "nic_tuning") is None  # the role did not run: "reported nothing"
    failed = role_drift({"nic_tuning_result": {"failed": True, "msg": "config[0] (eth0).rings.rx: ..."}}, "nic_tuning")
    assert failed == [
        {"kind": "nic", "object": "nic", "scope": "error", "difference": "check failed: config[0] (eth0).rings.rx: ..."}
    ]
    # a changed result without rows (an older module) is not read as "no drift"
    assert result_drift({"changed": True}, "nic")[0]["scope"] == "error"
    variables = {"nic_tuning_result": {"changed": True, "drift": rows}}
    plays = [{"name": "NIC tuning", "groups": ["kvm_guests"], "roles": ["nic_tuning"]}]
    assert drift_rows({"g1": variables}, plays=plays, groups={"kvm_guests": ["g1"]}) == [dict(rows[0], host="g1")]


def test_argument_spec_documents_every_default():
    defaults = _yaml("defaults", "main.yml")
    options = _yaml("meta", "argument_specs.yml")["argument_specs"]["main"]["options"]
    assert sorted(options) == sorted(defaults)
    for name, value in defaults.items():
        assert options[name].get("default") == value, name


def test_the_module_call_passes_every_setting():
    calls = [t for t in _tasks("nic_tuning") if "s390x.network.nic_tuning" in t]
    assert len(calls) == 2  # the call, and the one after an irqbalance restart
    for call in calls:
        assert call["s390x.network.nic_tuning"] == {
            "config": "{{ nic_tuning_interfaces }}",
            "state": "{{ nic_tuning_state }}",
            "persistent": "{{ nic_tuning_persistent | bool }}",
            "persist_method": "{{ nic_tuning_persist_method }}",
            "allow_disruptive": "{{ nic_tuning_allow_disruptive | bool }}",
        }
    restart = [t for t in _tasks("nic_tuning") if t.get("ansible.builtin.include_tasks") == "irqbalance.yml"]
    assert restart and "not ansible_check_mode" in restart[0]["when"]
    assert [t for t in _tasks("nic_tuning") if "ansible.builtin.service" in t]
