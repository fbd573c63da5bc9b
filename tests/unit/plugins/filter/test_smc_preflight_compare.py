# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The smc_preflight_compare filter: pre-flight rows and readings (directly or from hostvars) in,
verdicts out; bad input is an AnsibleFilterError. The rules themselves are tested in
tests/unit/plugins/module_utils/test_smc_preflight_check.py."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from collections.abc import Mapping

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.s390x.network.plugins.filter.smc_preflight_compare import FilterModule, smc_preflight_compare
from ansible_collections.s390x.network.plugins.module_utils.smc.stats import empty_stats

ROWS = [
    {"client": "a", "server": "b", "prediction": "SMC-R v1", "reason_name": None, "side": None},
    {"client": "b", "server": "a", "prediction": "TCP", "reason_name": "SMC_CLC_DECL_NOSMCDEV", "side": "client"},
]


def reading(protocol, client=0, client_fallbacks=None):
    stats = empty_stats(protocol)
    reasons = dict(client_fallbacks or {})
    stats["connections"].update(
        smc_client=client,
        smc_server=0,
        v1=client,
        v2=0,
        tcp_fallback_client=sum(reasons.values()),
        tcp_fallback_server=0,
        fallback_reasons_by_role={"client": reasons, "server": {}},
    )
    return {"changed": False, "failed": False, "stats": stats}


class HostVars(Mapping):
    """hostvars: a host's variables; reading a variable other than the one asked for fails."""

    def __init__(self, data, allowed):
        self.data = data
        self.allowed = allowed

    def __getitem__(self, host):
        return Vars(self.data[host], self.allowed)

    def __iter__(self):
        return iter(self.data)

    def __len__(self):
        return len(self.data)


class Vars(HostVars):
    def __getitem__(self, key):
        if key != self.allowed:
            raise AssertionError("read %s" % key)
        return self.data[key]

    def __contains__(self, key):
        return key in self.data


def test_readings_from_hostvars():
    hostvars = HostVars(
        {
            "a": {"smc_preflight_live": {"smcd_info_smcd": reading("smcd"), "smcd_info_smcr": reading("smcr", 8)}},
            "b": {
                "smc_preflight_live": {
                    "smcd_info_smcd": reading("smcd", 0, {"NOSMCDEV": 2}),
                    "smcd_info_smcr": {"failed": True, "msg": "smcr not found"},
                }
            },
            "c": {"unrelated": 1},
        },
        "smc_preflight_live",
    )
    out = smc_preflight_compare(ROWS, hostvars, variable="smc_preflight_live")
    assert [(r["client"], r["server"], r["verdict"], r["reason"]) for r in out["rows"]] == [
        ("a", "b", "agree", "a counted 8 SMC-R client connections"),
        ("b", "a", "agree", "b counted 2 fallbacks as client with NOSMCDEV"),
    ]
    assert out["summary"] == {"agree": 2, "disagree": 0, "not_observed": 0, "not_compared": 0}
    assert out["table"][0].split() == ["PAIR", "PREDICTION", "OBSERVED", "VERDICT", "REASON"]


def test_readings_given_directly_and_the_whole_preflight_result():
    stats = {"a": {"smcd": reading("smcd"), "smcr": reading("smcr", 0, {"PEERDECL": 3})}}
    out = smc_preflight_compare({"rows": ROWS, "summary": {}}, stats)
    assert [(r["verdict"], r["reason"]) for r in out["rows"]] == [
        ("disagree", "a counted no SMC client connection, but 3 client fallbacks: PEERDECL 3"),
        ("not observed", "the statistics of b were not read"),
    ]


def test_a_host_without_the_variable_was_not_read():
    hostvars = HostVars({"a": {}}, "smc_preflight_live")
    out = smc_preflight_compare(ROWS[:1], hostvars, variable="smc_preflight_live")
    assert [(r["verdict"], r["reason"]) for r in out["rows"]] == [("not observed", "the statistics of a were not read")]


@pytest.mark.parametrize(
    "rows, stats, kwargs, message",
    [
        ("rows", {}, {}, "must be the pre-flight's rows"),
        (ROWS, [], {}, "stats must be a mapping"),
        (ROWS, {}, {"variable": 3}, "variable must be a host variable name"),
        ([{"client": "a", "server": "b", "prediction": "SMC-X"}], {}, {}, "unknown prediction"),
    ],
)
def test_bad_input(rows, stats, kwargs, message):
    with pytest.raises(AnsibleFilterError, match=message):
        smc_preflight_compare(rows, stats, **kwargs)


def test_registered():
    assert FilterModule().filters() == {"smc_preflight_compare": smc_preflight_compare}
