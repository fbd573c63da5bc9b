# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""SMC-R in the smc role: the RoCE functions it powers on and the PNET pairing, computed in Python with the
modules' util_string and PCI ID code, named in the inventory's terms (FID 0x1c1, PCHID 15C port 2)."""

from __future__ import annotations

import base64
import os

import pytest
import yaml

from ansible_collections.s390x.network.plugins.filter.smc_roce_plan import smc_roce_plan
from ansible_collections.s390x.network.plugins.filter.smc_smcr_pairing import smc_smcr_pairing
from ansible_collections.s390x.network.plugins.module_utils.zpci.util_string import encode_pnet_ids
from ansible_collections.s390x.network.plugins.plugin_utils.cpc_host import host_view

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))


def _smcr_cpc():
    with open(os.path.join(ROOT, "molecule", "smcr", "inventory", "group_vars", "all", "cpc.yml")) as handle:
        return yaml.safe_load(handle)["cpc"]


def _chpid(pnet_id):
    """A CHPID's util_string as slurp returns it (base64)."""
    return base64.b64encode(encode_pnet_ids([pnet_id] if pnet_id else [])).decode("ascii")


def _func(fid, address, pnet_ids=(), port=1, pchid="015c", device_id="1016"):
    return {
        "fid": fid,
        "pci_address": address,
        "pnet_ids": list(pnet_ids),
        "port": port,
        "pchid": pchid,
        "device_id": device_id,
    }


def _plan(host, **kwargs):
    return smc_roce_plan(host_view(_smcr_cpc(), host), **kwargs)


# -- the functions ----------------------------------------------------------------------------------
def test_the_plan_takes_the_partitions_roce_functions():
    plan = _plan("smcr-a")
    assert plan["enabled"] is True
    assert plan["fids"] == [0x1C0, 0x1C1]
    assert plan["labels"] == ["0x1c0", "0x1c1"]
    assert plan["config"] == [
        {"fid": 0x1C0, "power": "on", "expected_type": "roce"},
        {"fid": 0x1C1, "power": "on", "expected_type": "roce"},
    ]
    assert [(f["fid"], f["pchid"], f["port"]) for f in plan["functions"]] == [(0x1C0, 0x15C, 1), (0x1C1, 0x15C, 2)]
    assert plan["errors"] == []


def test_given_fids_are_read_as_zpci_function_reads_them():
    plan = _plan("smcr-a", fids=["1c2", "0x1C1", 0x1C0, " 1c0 "])
    assert plan["fids"] == [0x1C0, 0x1C1, 0x1C2]


def test_a_templated_null_is_null():
    assert _plan("smcr-a", fids="")["fids"] == [0x1C0, 0x1C1]
    assert _plan("smcr-a", fids="1c0")["errors"] == [
        "smc_roce_fids: a list of FIDs (integers or hex strings), got '1c0'"
    ]


def test_a_value_that_is_no_fid_is_named_with_its_index():
    plan = _plan("smcr-a", fids=["1c0", "zz"])
    assert plan["errors"] == ["smc_roce_fids[1]: 'zz' is not an integer or a hex string such as 0x605"]


@pytest.mark.parametrize("smcr,enabled", [(None, True), (False, False), ("no", False), ("yes", True)])
def test_smc_smcr_decides_and_null_follows_the_model(smcr, enabled):
    assert _plan("smcr-a", smcr=smcr)["enabled"] is enabled
    assert _plan("nohost", smcr=None)["enabled"] is False


def test_no_function_without_smcr():
    assert _plan("smcr-a", smcr=False)["config"] == []


# -- the pairing ------------------------------------------------------------------------------------
def test_ports_under_the_interfaces_iocds_pnet_id_pair():
    # smcr-a: both ports of card 15C, NETR from the IOCDS like its OSA CHPID
    plan = _plan("smcr-a")
    funcs = [_func(0x1C0, "01c0:00:00.0", ["NETR"], port=1), _func(0x1C1, "01c1:00:00.0", ["NETR"], port=2)]
    result = smc_smcr_pairing(
        funcs,
        fids=plan["fids"],
        interface="ence000",
        interface_util_string=_chpid("NETR"),
        pnet_id="",
        pnet_config=[],
        model_functions=plan["functions"],
    )
    assert result["entries"] == []
    assert result["interface_pnet_id"] == "NETR"
    assert result["interface_pnet_source"] == "iocds"
    assert result["mismatches"] == [] and result["message"] == ""
    assert [(p["label"], p["port"], p["pchid_port"]) for p in result["ports"]] == [
        ("RoCE FID 0x1c0 (PCHID 15C port 1)", 1, 1),
        ("RoCE FID 0x1c1 (PCHID 15C port 2)", 1, 2),
    ]


def test_a_port_without_pnet_id_gets_the_software_entry():
    # smcr-b: FID 1C2 has no PNET ID; smc_smcr_pnet_id NETR; the OSA interface has NETR from the IOCDS
    plan = _plan("smcr-b")
    result = smc_smcr_pairing(
        [_func(0x1C2, "01c2:00:00.0")],
        fids=plan["fids"],
        interface="ence000",
        interface_util_string=_chpid("NETR"),
        pnet_id="netr",
        pnet_config=[],
        model_functions=plan["functions"],
    )
    assert result["entries"] == [{"pnet_id": "NETR", "ib_device": "01c2:00:00.0", "port": 1}]
    assert result["ports"][0]["source"] == "software"
    assert result["mismatches"] == []


def test_neither_side_with_a_pnet_id_is_named_in_the_inventorys_terms():
    # smcr-c: card 17C, neither the OSA CHPID nor the port has a PNET ID
    plan = _plan("smcr-c")
    result = smc_smcr_pairing(
        [_func(0x2A0, "02a0:00:00.0", pchid="017c", port=None)],
        fids=plan["fids"],
        interface="ence100",
        interface_util_string=_chpid(None),
        model_functions=plan["functions"],
    )
    assert result["interface_pnet_source"] == "none"
    assert result["message"] == (
        "SMC-R would fall back to TCP (SMC_CLC_DECL_NOSMCRDEV): ence100 has no PNET ID, but RoCE FID 0x2a0 "
        "(PCHID 17C port 1) has no PNET ID; neither has a PNET ID: define one for both in the IOCDS, or set "
        "smc_smcr_pnet_id (software entries)"
    )


def test_an_iocds_port_gets_no_software_entry_nor_the_advice_of_one():
    # FID 0x23 (35) is port 2 of card 1A0 and has NETX from the IOCDS; the interface NETR from the IOCDS:
    # a software entry for the port would be refused (EEXIST), only the IOCDS can pair them.
    func = _func(0x23, "0023:00:00.0", ["NETX"], port=2, pchid="01a0")
    result = smc_smcr_pairing(
        [func], fids=[0x23], interface="ence000", interface_util_string=_chpid("NETR"), pnet_id="NETR"
    )
    assert result["entries"] == []
    message = result["message"]
    assert "RoCE FID 0x23 (PCHID 1A0 port 2) has PNET ID NETX (from the IOCDS)" in message
    assert "ence000 has PNET ID NETR (from the IOCDS)" in message
    assert "give it NETR in the IOCDS" in message
    assert "smc_smcr_pnet_id" not in message
    assert "35" not in message and "{" not in message and "port 1" not in message


def test_an_iocds_port_and_an_interface_without_one_suggest_the_interfaces_entry():
    func = _func(0x23, "0023:00:00.0", ["NETX"], port=2, pchid="01a0")
    result = smc_smcr_pairing([func], fids=[0x23], interface="ence000", interface_util_string="")
    assert result["entries"] == []
    assert "put ence000 under NETX (smc_smcr_pnet_id: NETX)" in result["message"]
    # with its own smc_pnet_config entry (which wins), that entry is what to change
    result = smc_smcr_pairing(
        [func], fids=[0x23], interface="ence000", pnet_config=[{"pnet_id": "NETR", "interface": "ence000"}]
    )
    assert result["interface_pnet_source"] == "software"
    assert "change the smc_pnet_config entry of ence000 to NETX" in result["message"]


def test_both_ports_of_a_roce_express_function_are_paired_by_their_own_field():
    # a ConnectX-3 VF (15b3:1004, mlx4) drives both card ports: util_string field n is RDMA port n
    func = _func(0x40, "0040:00:00.0", ["NETA", None], port=None, pchid="01b8", device_id="1004")
    result = smc_smcr_pairing(
        [func], fids=[0x40], interface="ence000", interface_util_string=_chpid("NETA"), pnet_id="NETA"
    )
    assert result["entries"] == [{"pnet_id": "NETA", "ib_device": "0040:00:00.0", "port": 2}]
    assert [(p["port"], p["pchid_port"], p["source"]) for p in result["ports"]] == [(1, 1, "iocds"), (2, 2, "software")]
    assert result["mismatches"] == []


def test_the_inventorys_entries_win_and_a_wrong_smcr_pnet_id_is_named():
    funcs = [_func(0x1C2, "01c2:00:00.0", port=1), _func(0x1C3, "01c3:00:00.0", port=2)]
    config = [{"pnet_id": "other", "ib_device": "01c2:00:00.0", "port": "1"}]
    result = smc_smcr_pairing(
        funcs,
        fids=[0x1C2, 0x1C3],
        interface="ence000",
        interface_util_string=_chpid("NETR"),
        pnet_id="NETQ",
        pnet_config=config,
    )
    assert result["entries"] == [{"pnet_id": "NETQ", "ib_device": "01c3:00:00.0", "port": 1}]
    message = result["message"]
    assert "FID 0x1c2's smc_pnet_config entry puts it under OTHER: change it to NETR" in message
    assert "smc_smcr_pnet_id NETQ is not the PNET ID NETR the IOCDS gives ence000: set it to NETR" in message
    assert "RoCE FID 0x1c3 (PCHID 15C port 2) has PNET ID NETQ (software PNET entry)" in message


def test_functions_that_are_not_powered_on_or_not_planned_are_left_out():
    funcs = [_func(0x1C0, None), _func(0x1C1, "01c1:00:00.0", ["NETR"]), _func(0x605, "0605:00:00.0")]
    result = smc_smcr_pairing(funcs, fids=[0x1C0, 0x1C1], interface="ence000", interface_util_string=_chpid("NETR"))
    assert [p["fid"] for p in result["ports"]] == [0x1C1]


def test_the_role_shows_the_filters_message_not_json():
    with open(os.path.join(ROOT, "roles", "smc", "tasks", "smcr_pairing.yml")) as handle:
        tasks = yaml.safe_load(handle)
    shown = [
        t.get("ansible.builtin.assert", {}).get("fail_msg") or t.get("ansible.builtin.debug", {}).get("msg")
        for t in tasks
    ]
    assert [m for m in shown if m] == ["{{ smc_smcr_pairing.message }}"] * 2
    planned = [t for t in tasks if "ansible.builtin.set_fact" in t][0]
    assert "s390x.network.smc_smcr_pairing(" in planned["vars"]["smc__pairing"]


def test_the_zpci_function_result_of_smcr_b_and_its_card_port(fake_kernel, run_module):
    """The module's own record (the util_string, port and pchid sysfs attributes) is what the filter reads:
    FID 0x1c3 is port 2 of card 15C, RDMA port 1 of its function, with NETX from the IOCDS."""
    from ansible_collections.s390x.network.plugins.modules import zpci_function
    from ansible_collections.s390x.network.tests.unit.fake_kernel import ROCE2

    fake_kernel(
        [
            dict(ROCE2, fid=0x1C2, power=True, pchid=0x15C, port=1),
            dict(ROCE2, fid=0x1C3, power=True, pchid=0x15C, port=2, pnet_ids=["NETX"]),
        ]
    )
    config = [{"fid": fid, "power": "on", "expected_type": "roce"} for fid in (0x1C2, 0x1C3)]
    result = run_module(
        zpci_function.main,
        {"persistent": False, "config": config},
        lambda argv: (1, "", "no such command"),
        bin_paths={"smcd": None},
    ).result
    assert not result.get("failed"), result.get("msg")
    assert [(f["port"], f["pchid"], f["pnet_ids"][:1]) for f in result["functions"]] == [
        (1, "015c", [None]),
        (2, "015c", ["NETX"]),
    ]
    pairing = smc_smcr_pairing(
        result["functions"],
        fids=[0x1C2, 0x1C3],
        interface="ence000",
        interface_util_string=_chpid("NETR"),
        pnet_id="NETR",
    )
    assert pairing["entries"] == [{"pnet_id": "NETR", "ib_device": "01c2:00:00.0", "port": 1}]
    assert [p["label"] for p in pairing["mismatches"]] == ["RoCE FID 0x1c3 (PCHID 15C port 2)"]
    assert (
        "FID 0x1c3 has its PNET ID from the IOCDS, which no software entry overrides: give it NETR"
        in pairing["message"]
    )
