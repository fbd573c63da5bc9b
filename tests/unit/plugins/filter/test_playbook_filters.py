# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The filters that replaced Jinja loops in the iocds role and verify.yml."""

from __future__ import annotations

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.s390x.network.plugins.filter.host_var_map import host_var_map
from ansible_collections.s390x.network.plugins.filter.smc_preflight_disagreements import (
    smc_preflight_disagreements,
)


class _HostVars(dict):
    """hostvars: reading a variable templates it, so the test counts what is read."""

    def __init__(self, data):
        super().__init__((host, _Vars(values)) for host, values in data.items())


class _Vars(dict):
    read = []

    def __getitem__(self, key):
        _Vars.read.append(key)
        return super().__getitem__(key)


def test_host_var_map_reads_one_variable_of_each_host():
    _Vars.read = []
    hostvars = _HostVars({"g1": {"smc_pnet_config": [{"pnet_id": "NETA", "interface": "eth0"}], "other": 1}, "h2": {}})
    assert host_var_map(hostvars, ["g1", "h2", "gone"], "smc_pnet_config") == {
        "g1": [{"pnet_id": "NETA", "interface": "eth0"}],
        "h2": None,
        "gone": None,
    }
    assert _Vars.read == ["smc_pnet_config"]


@pytest.mark.parametrize("hosts,name", [("g1", "smc_pnet_config"), (["g1"], "")])
def test_host_var_map_refuses_what_is_no_host_list_or_name(hosts, name):
    with pytest.raises(AnsibleFilterError):
        host_var_map({}, hosts, name)


def test_disagreements_are_the_sentences_verify_yml_prints():
    result = {
        "rows": [
            {
                "client": "a",
                "server": "b",
                "prediction": "SMC-D",
                "reason_name": None,
                "verdict": "agree",
                "reason": "x",
            },
            {
                "client": "smcr-b",
                "server": "smcr-c",
                "prediction": "TCP",
                "reason_name": "SMC_CLC_DECL_NOSMCDEV",
                "verdict": "disagree",
                "reason": "smcr-c counted 5 fallbacks as server, none with NOSMCDEV: NOSMCRDEV 5",
            },
            {
                "client": "c",
                "server": "d",
                "prediction": "SMC-R",
                "reason_name": "",
                "verdict": "disagree",
                "reason": "y",
            },
        ]
    }
    assert smc_preflight_disagreements(result) == [
        "smcr-b -> smcr-c (predicted TCP SMC_CLC_DECL_NOSMCDEV): smcr-c counted 5 fallbacks as server, none with "
        "NOSMCDEV: NOSMCRDEV 5",
        "c -> d (predicted SMC-R): y",
    ]
    assert smc_preflight_disagreements(result["rows"][:1]) == []
