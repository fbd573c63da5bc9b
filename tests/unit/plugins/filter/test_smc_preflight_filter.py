# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The smc_preflight filter: hostvars in, rows, table and summary out; only the variables the
pre-flight needs are read from hostvars; bad input is an AnsibleFilterError. The rules themselves are
tested in tests/unit/plugins/module_utils/test_smc_preflight.py."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
from collections.abc import Mapping

import pytest
import yaml

from ansible.errors import AnsibleFilterError

from ansible_collections.s390x.network.plugins.filter.smc_preflight import smc_preflight
from ansible_collections.s390x.network.plugins.plugin_utils.smc_preflight import VARIABLES

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
with open(os.path.join(REPO, "inventories", "lab", "group_vars", "all", "cpc.yml")) as _handle:
    LAB_CPC = yaml.safe_load(_handle)["cpc"]

RHEL88 = "4.18.0-477.10.1.el8_8.s390x"


class StrictVars(Mapping):
    """A host's variables that fail on any read of a variable the pre-flight does not need
    (hostvars templates what is read)."""

    def __init__(self, data):
        self.data = data

    def __getitem__(self, key):
        if key not in VARIABLES:
            raise AssertionError("read %s" % key)
        return self.data[key]

    def __iter__(self):
        return iter(self.data)

    def __len__(self):
        return len(self.data)

    def __contains__(self, key):
        return key in self.data


def lab_hostvars():
    return {
        "lpar-a": StrictVars(
            {
                "cpc": LAB_CPC,
                "group_names": ["lpars", "kvm_hosts"],
                "qeth_devices": [{"id": "0.0.8200"}],
                "kvm_guests": [{"name": "g1"}],
                "ansible_host": "never read",
            }
        ),
        "lpar-b": StrictVars(
            {"cpc": LAB_CPC, "group_names": ["lpars", "smc_hosts"], "qeth_devices": [{"id": "8200"}], "x": 1}
        ),
        "g1": StrictVars({"cpc": LAB_CPC, "group_names": ["kvm_guests", "smc_hosts"]}),
    }


def test_lab_with_an_assumed_kernel():
    result = smc_preflight(lab_hostvars(), ["lpar-a", "lpar-b", "g1"], assume={"kernel": RHEL88})
    assert [(r["client"], r["server"], r["prediction"]) for r in result["rows"]] == [
        ("lpar-b", "g1", "SMC-D v2"),
        ("g1", "lpar-b", "SMC-D v2"),
    ]
    assert result["summary"] == {"smc": 2, "tcp": 0, "unknown": 0}
    assert result["unresolved"] == []
    assert result["table"][0].split() == ["PAIR", "PREDICTION", "REASON", "FIX"]
    assert result["facts"]["g1"]["sources"] == [
        "cpc ZLAB guest g1",
        "smc role (smc_hosts): loads smc",
        "assumed kernel",
    ]


def test_lab_without_kernel_is_unknown():
    result = smc_preflight(lab_hostvars(), ["lpar-a", "lpar-b", "g1"])
    assert result["summary"] == {"smc": 0, "tcp": 0, "unknown": 2}
    row = result["rows"][0]
    assert row["unknown"] == ["lpar-b's kernel has SMC-D v2", "g1's kernel has SMC-D v2"]
    assert "unknown     depends on 2 facts (see why)  Check the kernel of lpar-b (uname -r;" in result["table"][1]


def test_live_facts_from_hostvars_win():
    hostvars = lab_hostvars()
    live = {"smc_sysctl": {"kernel": RHEL88, "smc_loaded": False}}
    hostvars["lpar-b"] = StrictVars(dict(hostvars["lpar-b"].data, smc_preflight_live=live))
    result = smc_preflight(hostvars, ["lpar-a", "lpar-b", "g1"], pairs=[["g1", "lpar-b"]], assume={"kernel": RHEL88})
    (row,) = result["rows"]
    assert (row["prediction"], row["reason_name"], row["reason_code"], row["side"]) == (
        "TCP",
        "SMC_CLC_DECL_PEERNOSMC",
        "0x03010000",
        "client",
    )
    assert result["summary"] == {"smc": 0, "tcp": 1, "unknown": 0}


def test_explicit_pairs_and_a_name_without_host():
    result = smc_preflight(lab_hostvars(), ["lpar-b", "g1"], pairs=[{"client": "g1", "server": "LPARX"}])
    (row,) = result["rows"]
    assert row["prediction"] == "unknown" and row["unknown"] == ["facts of LPARX"]


def test_smcd_peers_with_partition_names():
    cpc = dict(LAB_CPC, smcd_peers=[["g1", "LPARB"]])
    hostvars = {
        "lpar-b": {"cpc": cpc, "group_names": ["lpars"], "qeth_devices": [{"id": "8200"}]},
        "g1": {"cpc": cpc, "group_names": ["kvm_guests"]},
    }
    result = smc_preflight(hostvars, ["lpar-b", "g1"], assume={"kernel": RHEL88, "smc": True})
    assert [(r["client"], r["server"]) for r in result["rows"]] == [("g1", "lpar-b"), ("lpar-b", "g1")]
    # not in smc_hosts: no role manages their PNET tables, and a software PNET ID on an ISM device
    # would keep it out of SMC-D v2 (smc_find_ism_v2_device_clnt)
    assert [r["unknown"] for r in result["rows"]] == [
        ["the software PNET table of g1"],
        ["the software PNET table of lpar-b"],
    ]
    assert result["rows"][0]["why"] == (
        "Depends on facts that are not known: not predictable without the software PNET table of g1."
    )
    assume = {"kernel": RHEL88, "smc": True, "pnet_table": [], "seid": {"enabled": True}}
    result = smc_preflight(hostvars, ["lpar-b", "g1"], assume=assume)
    assert [r["prediction"] for r in result["rows"]] == ["SMC-D v2", "SMC-D v2"]
    assert "assumed seid.enabled" in result["facts"]["g1"]["sources"]


@pytest.mark.parametrize(
    "hostvars, hosts, kwargs, message",
    [
        ([], ["a"], {}, "the input must be hostvars"),
        ({}, "a", {}, "hosts must be a list"),
        ({}, ["a"], {"assume": ["kernel"]}, "assume must be a dict"),
        ({"a": {}}, ["a"], {"pairs": [["a"]]}, r"pairs\[0\]: expected"),
        ({"a": {"smc_preflight_facts": {"kernal": "6.1"}}}, ["a", "b"], {"pairs": [["a", "b"]]}, "unknown fact kernal"),
    ],
)
def test_bad_input(hostvars, hosts, kwargs, message):
    with pytest.raises(AnsibleFilterError, match=message):
        smc_preflight(hostvars, hosts, **kwargs)


def test_per_service_sizes_the_kernel_caps_are_warned():
    hostvars = lab_hostvars()
    services = [{"name": "db2", "rmem": "1M"}]
    hostvars["lpar-b"] = StrictVars(dict(hostvars["lpar-b"].data, smc_services=services))
    result = smc_preflight(hostvars, ["lpar-a", "lpar-b", "g1"], assume={"kernel": RHEL88})
    assert result["warnings"] == [
        "lpar-b: smc_services[0] (db2) rmem: 1M requested, but SMCD buffers on this kernel (RHEL 8.4+) are at most 512K"
    ]
    # RHEL 9.4 carries the SMC code of Linux 6.4: 1 MiB DMBs
    result = smc_preflight(hostvars, ["lpar-a", "lpar-b", "g1"], assume={"kernel": "5.14.0-427.13.1.el9_4.s390x"})
    assert result["warnings"] == []


def test_the_variables_are_the_roles_and_the_preflights():
    assert "smc_load_module" in VARIABLES and "qeth_devices" in VARIABLES and "interfaces_config" in VARIABLES
    assert "smc_preflight_live" in VARIABLES and len(VARIABLES) == len(set(VARIABLES))
