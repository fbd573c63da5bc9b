# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""SMC-R over Network Express (z17 / LinuxONE 5): the host view and the smc role's plan take a
partition's NETH/NETD functions like RoCE functions, the pairing names them by PCHID, and the SMC
pre-flight treats them as SMC-R v2 capable and names a missing Network Express RNIC; a z16 RoCE
pair is predicted as before."""

import base64
import copy
import os

import yaml

from ansible_collections.s390x.network.plugins.module_utils.iocp.cpc_model import normalize_cpc
from ansible_collections.s390x.network.plugins.module_utils.zpci.util_string import encode_pnet_ids
from ansible_collections.s390x.network.plugins.plugin_utils import smc_preflight as pf
from ansible_collections.s390x.network.plugins.plugin_utils.cpc_host import host_view
from ansible_collections.s390x.network.plugins.plugin_utils.smc_role_plan import role_plan
from ansible_collections.s390x.network.plugins.plugin_utils.smc_smcr import roce_plan, smcr_pairing

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
NEW = "5.14.0-427.13.1.el9_4.s390x"  # SMC-D v2 and SMC-R v2


def _z17_fixture():
    with open(os.path.join(REPO, "tests", "unit", "fixtures", "iocp", "z17_cpc.yml")) as handle:
        return yaml.safe_load(handle)["cpc"]


def _cpc(machine="9176", rdma=True):
    """Two Linux partitions sharing OSA CHPID E0 (PNET ID NETWORK1); with ``rdma`` each has a VF of a
    RoCE card (z16) or of a Network Express port (z17) under NETWORK1; no ISM."""
    cpc = {
        "name": "ZNEXT" if machine in ("9176", "z17") else "ZPREV",
        "machine": machine,
        "uid_checking": "*",
        "partitions": [{"name": "LNX1", "mif_id": 1, "host": "lnx1"}, {"name": "LNX2", "mif_id": 2, "host": "lnx2"}],
        "osa": [
            {
                "chpid": "E0",
                "pchid": "1C0",
                "type": "OSD",
                "partitions": ["LNX1", "LNX2"],
                "control_unit": "E000",
                "devices": {"first": "1000", "count": 6},
                "pnet_id": "NETWORK1",
            }
        ],
    }
    functions = [
        {"fid": 0x10, "uid": 0x10, "vf": 1, "partition": "LNX1"},
        {"fid": 0x11, "uid": 0x11, "vf": 2, "partition": "LNX2"},
    ]
    if rdma and machine in ("9176", "z17"):
        cpc["network_express"] = [{"pchid": 0x314, "type": "NETH", "pnet_id": "NETWORK1", "functions": functions}]
    elif rdma:
        for func in functions:
            func.update(port=1, pnet_id="NETWORK1")
        cpc["roce"] = [{"pchid": 0x15C, "type": "ROC2", "functions": functions}]
    return cpc


def _hostvars(cpc, devno, address):
    return {
        "cpc": cpc,
        "group_names": ["lpars", "smc_hosts"],
        "qeth_devices": [{"id": "0.0.%s" % devno}],
        "smc_ueids": ["PLEX1"],
        "smc_preflight_interface": {"interface": "enc%s" % devno, "address": address},
    }


def _facts(cpc):
    return {
        "lnx1": pf.inventory_host_facts("lnx1", _hostvars(cpc, "1000", "10.1.1.1/24"), assume={"kernel": NEW}),
        "lnx2": pf.inventory_host_facts("lnx2", _hostvars(cpc, "1003", "10.1.1.2/24"), assume={"kernel": NEW}),
    }


def _with_ipv4(facts):
    """The facts with each RDMA port's interface holding an IPv4 address (a RoCEv2 GID), as live facts tell."""
    facts = copy.deepcopy(facts)
    for host in facts.values():
        for port in host["roce"]:
            port["ipv4"] = True
    return facts


# -- the host view and the smc role's plan ---------------------------------------------------------
def test_the_view_lists_the_partitions_network_express_functions_with_the_ports_pnet_id():
    view = host_view(_z17_fixture(), "lnx1")
    assert view["errors"] == []
    rdma = [
        (f["fid"], f["type"], f["pft"], f["pchid"], f["port"], f["pnet_id"])
        for f in view["functions"]
        if f["type"] != "ism"
    ]
    assert rdma == [
        (0x10, "neth", 0x0C, 0x314, None, "NETWORK1"),
        (0x12, "neth", 0x0C, 0x318, None, "NETWORK2"),
        (0x21, "netd", 0x0F, 0x330, None, "NETWORK3"),
    ]
    lnx2 = host_view(_z17_fixture(), "lnx2")
    assert [(f["fid"], f["type"]) for f in lnx2["functions"] if f["type"] != "ism"] == [(0x11, "neth"), (0x20, "netd")]


def test_the_role_powers_on_the_network_express_functions_as_rdma_functions():
    view = host_view(_z17_fixture(), "lnx2")
    plan = roce_plan(view)
    assert plan["enabled"] is True and plan["errors"] == []
    assert plan["fids"] == [0x11, 0x20]
    assert [(f["fid"], f["type"], f["pchid"], f["port"], f["pnet_id"]) for f in plan["functions"]] == [
        (0x11, "neth", 0x314, None, "NETWORK1"),
        (0x20, "netd", 0x330, None, "NETWORK3"),
    ]
    whole = role_plan(view, {"dropin_name": "50-smc.conf", "protocol": "smcr", "ism_fids": []})
    assert whole["functions"] == {
        "needed": True,
        "config": [
            {"fid": 0x11, "power": "on", "expected_type": "neth"},
            {"fid": 0x20, "power": "on", "expected_type": "netd"},
        ],
    }
    assert whole["sysctl"]["protocol"] == "smcr" and whole["steps"]["smcr"] is True


def test_the_expected_type_of_a_fid_is_its_pft_type_in_the_model():
    z17 = host_view(_z17_fixture(), "lnx1")
    types = dict((e["fid"], e["expected_type"]) for e in roce_plan(z17, fids=[0x10, 0x21, 0x99])["config"])
    # a FID the model does not hold on a Network Express machine: NETH or NETD, not checked
    assert types == {0x10: "neth", 0x21: "netd", 0x99: "any"}
    z16 = host_view(_cpc(machine="z16"), "lnx1")
    types = dict((e["fid"], e["expected_type"]) for e in roce_plan(z16, fids=[0x10, 0x99])["config"])
    assert types == {0x10: "roce", 0x99: "roce"}
    assert roce_plan(host_view(None, "lnx1"), fids=[0x10], smcr=True)["config"][0]["expected_type"] == "any"


def test_a_z17_partition_without_network_express_has_no_smcr_to_plan():
    view = host_view(_cpc(rdma=False), "lnx1")
    plan = roce_plan(view)
    assert (plan["enabled"], plan["fids"], plan["config"]) == (False, [], [])


def _ne_record(fid, pnet_ids, pft=0x0C):
    """zpci_function's record of a powered-on Network Express VF (15b3:101e, like RoCE Express3)."""
    return {
        "fid": fid,
        "pci_address": "%04x:00:00.0" % fid,
        "pnet_ids": list(pnet_ids),
        "port": None,
        "pchid": "0314",
        "pft": pft,
        "device_id": "101e",
    }


def test_the_pairing_names_a_network_express_port_by_its_pchid():
    chpid = base64.b64encode(encode_pnet_ids(["NETWORK1"])).decode("ascii")
    paired = smcr_pairing(
        [_ne_record(0x10, ["NETWORK1"])], fids=[0x10], interface="enc1000", interface_util_string=chpid
    )
    assert paired["message"] == "" and paired["entries"] == []
    (port,) = paired["ports"]
    assert (port["network_express"], port["pchid_port"], port["source"]) == (True, None, "iocds")
    assert port["label"] == "Network Express FID 0x10 (PCHID 314)"
    other = smcr_pairing(
        [_ne_record(0x10, ["NETWORK9"])], fids=[0x10], interface="enc1000", interface_util_string=chpid
    )
    assert "Network Express FID 0x10 (PCHID 314) has PNET ID NETWORK9 (from the IOCDS)" in other["message"]
    # a RoCE Express3 VF has the same PCI id; its pft (ROC2) makes it RoCE
    roce = smcr_pairing(
        [dict(_ne_record(0x10, ["NETWORK1"], pft=0x0A), port=2)],
        fids=[0x10],
        interface="enc1000",
        interface_util_string=chpid,
    )
    assert roce["ports"][0]["label"] == "RoCE FID 0x10 (PCHID 314 port 2)"


# -- the SMC pre-flight ----------------------------------------------------------------------------
def test_the_preflight_takes_neth_as_an_smcr_v2_capable_rnic():
    facts = _facts(_cpc())
    assert facts["lnx1"]["partition"] == "LNX1" and facts["lnx1"]["machine"] == "z17"
    assert facts["lnx1"]["roce"] == [{"fid": 0x10, "port": 1, "pnet_id": "NETWORK1", "v2": True}]
    (row,) = pf.predict(facts, [["lnx1", "lnx2"]])
    # Network Express is RoCE v2 capable from the model: only the RoCE interface's address stays open
    assert row["prediction"] == pf.SMCR, row["why"]
    assert row["unknown"] == [
        "lnx1's FID 0x10 port 1 interface has an IPv4 address (RoCEv2 GID)",
        "lnx2's FID 0x11 port 1 interface has an IPv4 address (RoCEv2 GID)",
    ]
    (row,) = pf.predict(_with_ipv4(facts), [["lnx1", "lnx2"]])
    assert (row["prediction"], row["reason_name"]) == (pf.SMCR_V2, None), row["why"]
    assert "lnx1 proposes SMC-R v2 with FID 0x10 port 1" in row["why"] and "uses FID 0x11 port 1" in row["why"]


def test_a_z17_pair_without_a_network_express_rnic_names_the_cause():
    facts = _facts(_cpc(rdma=False))
    assert facts["lnx1"]["roce"] == [] and facts["lnx1"]["ism"] == []
    (row,) = pf.predict(facts, [["lnx1", "lnx2"]])
    assert (row["prediction"], row["reason_name"], row["side"]) == (pf.TCP, "SMC_CLC_DECL_NOSMCDEV", "client")
    assert (
        "no Network Express RNIC (TYPE=NETH/NETD) in partition LNX1 (lnx1); RoCE Express is not supported on z17"
        in row["why"]
    )
    assert "has no RoCE port" not in row["why"]
    assert "a Network Express function (cpc.network_express, TYPE=NETH or NETD)" in row["fix"]


def test_the_machine_may_be_given_by_its_linuxone_name():
    facts = _facts(_cpc(rdma=False))
    for host in facts.values():
        host["machine"] = "LinuxONE 5"
    (row,) = pf.predict(facts, [["lnx1", "lnx2"]])
    assert "no Network Express RNIC (TYPE=NETH/NETD) in partition LNX1 (lnx1)" in row["why"]


def test_roce_on_a_z17_is_the_models_error_and_the_model_is_not_used():
    cpc = _cpc(machine="z16")
    cpc["machine"] = "z17"
    _model, errors, _warnings = normalize_cpc(cpc)
    assert errors and all("is not supported on z17" in e for e in errors)
    facts = pf.inventory_host_facts("lnx1", _hostvars(cpc, "1000", "10.1.1.1/24"))
    assert facts["roce"] is None
    # the pre-flight's source line carries the model's own messages, one line, naming each ROC2 function
    (line,) = [s for s in facts["sources"] if s.startswith("cpc model of lnx1")]
    assert line == "cpc model of lnx1 not used: " + "; ".join(errors)
    assert "\n" not in line
    for fid in ("0x10", "0x11"):
        assert "RoCE PCHID 15C FID %s: type ROC2 (RoCE Express) is not supported on z17" % fid in line
    assert "use Network Express (network_express, FUNCTION TYPE=NETH or TYPE=NETD)" in line


def test_a_z16_roce_pair_is_unchanged():
    facts = _facts(_cpc(machine="z16"))
    assert facts["lnx1"]["roce"] == [{"fid": 0x10, "port": 1, "pnet_id": "NETWORK1", "v2": True}]
    (row,) = pf.predict(_with_ipv4(facts), [["lnx1", "lnx2"]])
    assert (row["prediction"], row["reason_name"]) == (pf.SMCR_V2, None), row["why"]
    facts = _facts(_cpc(machine="z16", rdma=False))
    (row,) = pf.predict(facts, [["lnx1", "lnx2"]])
    assert (row["prediction"], row["reason_name"], row["side"]) == (pf.TCP, "SMC_CLC_DECL_NOSMCDEV", "client")
    assert "lnx1 has no RoCE port" in row["why"] and "Network Express" not in row["why"]
    assert "a RoCE function (cpc.roce)" in row["fix"]


def test_a_roce_express_function_stays_smcr_v1_only():
    cpc = _cpc(machine="z16")
    cpc["roce"][0]["type"] = "ROCE"
    for func in cpc["roce"][0]["functions"]:
        del func["port"]
    facts = _facts(cpc)
    assert [p["v2"] for p in facts["lnx1"]["roce"]] == [False]


def test_zpci_function_powers_on_the_planned_functions_and_the_pairing_reads_its_records(fake_kernel, run_module):
    """lnx2's plan (NETH VF 0x11 on PCHID 314, NETD PF 0x20 on PCHID 330) run by zpci_function on the fake
    kernel: each function passes its expected_type, and the pairing reads the module's records."""
    from ansible_collections.s390x.network.plugins.modules import zpci_function
    from ansible_collections.s390x.network.tests.unit.fake_kernel import NETD_PF, NETH

    fake_kernel(
        [
            dict(NETH, fid=0x11, power=False, pchid=0x314, pnet_ids=["NETWORK1"]),
            dict(NETD_PF, fid=0x20, power=False, pchid=0x330, pnet_ids=["NETWORK3"]),
        ]
    )
    plan = roce_plan(host_view(_z17_fixture(), "lnx2"))
    result = run_module(
        zpci_function.main,
        {"persistent": False, "config": plan["config"]},
        lambda argv: (1, "", "no such command"),
        bin_paths={"smcd": None},
    ).result
    assert not result.get("failed"), result.get("msg")
    assert [(f["fid"], f["power"], f["type"]) for f in result["functions"]] == [
        (0x11, "on", "neth"),
        (0x20, "on", "netd"),
    ]
    chpid = base64.b64encode(encode_pnet_ids(["NETWORK1"])).decode("ascii")
    pairing = smcr_pairing(
        result["functions"],
        fids=plan["fids"],
        interface="enc1003",
        interface_util_string=chpid,
        model_functions=plan["functions"],
    )
    assert [(p["label"], p["pnet_id"]) for p in pairing["ports"]] == [
        ("Network Express FID 0x11 (PCHID 314)", "NETWORK1"),
        ("Network Express FID 0x20 (PCHID 330)", "NETWORK3"),
    ]
    assert [p["fid"] for p in pairing["mismatches"]] == [0x20]


def test_a_roce_express3_function_under_a_network_express_fid_is_refused(fake_kernel, run_module):
    # same PCI id 15b3:101e: only the pft tells them apart, and the plan's expected_type checks it
    from ansible_collections.s390x.network.plugins.modules import zpci_function
    from ansible_collections.s390x.network.tests.unit.fake_kernel import ROCE3

    fake_kernel([dict(ROCE3, fid=0x11, power=False, pchid=0x314)])
    plan = roce_plan(host_view(_z17_fixture(), "lnx2"), fids=[0x11])
    result = run_module(
        zpci_function.main,
        {"persistent": False, "config": plan["config"]},
        lambda argv: (1, "", "no such command"),
        bin_paths={"smcd": None},
    ).result
    assert result.get("failed") and "FID 0x11 is roce" in result["msg"] and "not neth" in result["msg"], result
