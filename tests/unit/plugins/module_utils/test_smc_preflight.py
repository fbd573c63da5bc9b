# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The SMC pre-flight (plugins/plugin_utils/smc_preflight/): the kernel's CLC decisions per pair, facts from
the inventory and from the hosts, and what stays unknown. Each case asserts the exact prediction,
decline code and side; the expected values follow net/smc/af_smc.c (smc_find_proposal_devices,
smc_listen_find_device) as written down in docs/smc-preflight.md."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import os

import pytest
import yaml

from ansible_collections.s390x.network.plugins.module_utils.smc import clc as smc_clc
from ansible_collections.s390x.network.plugins.module_utils.smc import levels as smc_levels
from ansible_collections.s390x.network.plugins.module_utils.smc import sizing as smc_sizing
from ansible_collections.s390x.network.plugins.module_utils.smc import stats as smc_stats
from ansible_collections.s390x.network.plugins.plugin_utils import smc_preflight as pf
from ansible_collections.s390x.network.plugins.module_utils.smc.stats import parse_devices_smcd, parse_devices_smcr

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
FIXTURES = os.path.join(REPO, "tests", "unit", "fixtures", "smc")

NEW = "5.14.0-427.13.1.el9_4.s390x"  # SMC-D v2 and SMC-R v2
RHEL83 = "4.18.0-240.el8.s390x"  # before SMC-D v2 (RHEL 8.4)


def host(*layers, **changes):
    """An LPAR on CPC CPCA with one non-native ISMv2 function on VCHID 7C8 and a HiperSockets
    interface without a PNET ID in 10.1.1.0/24; each layer (then ``changes``) replaces top-level
    facts, ``rendezvous`` entries are merged."""
    facts = {
        "cpc": "CPCA",
        "machine": "z16",
        "kernel": NEW,
        "smc": True,
        "ism": [{"fid": 0x606, "vchid": 0x7C8, "pnet_id": None, "v2": True}],
        "roce": [],
        "pnet_table": [],
        "rendezvous": {"interface": "enc8200", "address": "10.1.1.2/24", "pnet_id": None},
        "netdev_pnet_ids": [],
        "seid": {"enabled": True},
        "ueids": [],
        "ipsec": False,
    }
    for layer in layers + (changes,):
        layer = copy.deepcopy(layer)
        rendezvous = layer.pop("rendezvous", None)
        facts.update(layer)
        if rendezvous:
            facts["rendezvous"] = dict(facts["rendezvous"], **rendezvous)
    return facts


def native(pnet, vchid=0x7C8, fid=0x606):
    return [{"fid": fid, "vchid": vchid, "pnet_id": pnet, "v2": True}]


NATIVE_LPAR = dict(ism=native("NETA"), rendezvous={"pnet_id": "NETA"}, netdev_pnet_ids=["NETA"])
GUEST = dict(
    ism=native("NETA", fid=0x605),
    rendezvous={"interface": "eth0", "address": "10.1.1.3/24", "pnet_id": None, "kind": "virtio"},
    netdev_pnet_ids=[],
)
ROCE = [{"name": "mlx5_0", "port": 1, "pnet_id": "NETR", "v2": True, "ipv4": True}]
ROCE_LPAR = dict(
    ism=[], roce=ROCE, rendezvous={"interface": "encb000", "pnet_id": "NETR", "kind": "osa"}, netdev_pnet_ids=["NETR"]
)

# (case, client facts, server facts, prediction, reason name, side)
CASES = [
    (
        "native ISM in a guest, virtio interface without smc_pnet entry",
        host(GUEST),
        host(NATIVE_LPAR),
        pf.TCP,
        "SMC_CLC_DECL_NOSMCDEV",
        "client",
    ),
    (
        "the same guest as server: the LPAR proposes its CHID and the guest matches it for SMC-D v2",
        host(NATIVE_LPAR),
        host(GUEST),
        pf.SMCD_V2,
        None,
        None,
    ),
    (
        "the same guest as server without SMC-D v2: the guest finds no ISM for its interface",
        host(NATIVE_LPAR, kernel=RHEL83),
        host(GUEST, kernel=RHEL83),
        pf.TCP,
        "SMC_CLC_DECL_NOSMCDDEV",
        "server",
    ),
    (
        "the guest with its smc_pnet entry and no SMC-D v2: SMC-D v1",
        host(GUEST, kernel=RHEL83, pnet_table=[{"pnet_id": "NETA", "interface": "eth0"}]),
        host(NATIVE_LPAR, kernel=RHEL83),
        pf.SMCD_V1,
        None,
        None,
    ),
    ("non-native ISMv2 pair", host(), host(rendezvous={"address": "10.1.1.3/24"}), pf.SMCD_V2, None, None),
    (
        "non-native ISM pair on kernels without SMC-D v2",
        host(kernel=RHEL83),
        host(kernel=RHEL83),
        pf.TCP,
        "SMC_CLC_DECL_NOSMCDEV",
        "client",
    ),
    (
        "non-native ISMv2 pair across subnets",
        host(),
        host(rendezvous={"address": "10.9.9.9/16"}),
        pf.SMCD_V2,
        None,
        None,
    ),
    (
        "PNET ID mismatch between two LPARs, no SMC-D v2: v1 impossible",
        host(NATIVE_LPAR, kernel=RHEL83),
        host(kernel=RHEL83, ism=native("NETB"), rendezvous={"pnet_id": "NETA"}, netdev_pnet_ids=["NETA"]),
        pf.TCP,
        "SMC_CLC_DECL_NOSMCDDEV",
        "server",
    ),
    (
        "PNET ID mismatch between two LPARs with SMC-D v2: the CHID matches",
        host(NATIVE_LPAR),
        host(ism=native("NETB"), rendezvous={"pnet_id": "NETA"}, netdev_pnet_ids=["NETA", "NETB"]),
        pf.SMCD_V2,
        None,
        None,
    ),
    (
        "different subnets with only v1",
        host(NATIVE_LPAR, kernel=RHEL83),
        host(NATIVE_LPAR, kernel=RHEL83, rendezvous={"address": "10.1.2.2/24"}),
        pf.TCP,
        "SMC_CLC_DECL_DIFFPREFIX",
        "server",
    ),
    (
        "same network, different prefix length, only v1",
        host(NATIVE_LPAR, kernel=RHEL83),
        host(NATIVE_LPAR, kernel=RHEL83, rendezvous={"address": "10.1.1.9/16"}),
        pf.TCP,
        "SMC_CLC_DECL_DIFFPREFIX",
        "server",
    ),
    (
        "native pair in one subnet without v2: SMC-D v1",
        host(NATIVE_LPAR, kernel=RHEL83),
        host(NATIVE_LPAR, kernel=RHEL83, rendezvous={"address": "10.1.1.7/24"}),
        pf.SMCD_V1,
        None,
        None,
    ),
    (
        "native pair in one subnet with v2: the server tries SMC-D v2 first",
        host(NATIVE_LPAR),
        host(NATIVE_LPAR, rendezvous={"address": "10.1.1.7/24"}),
        pf.SMCD_V2,
        None,
        None,
    ),
    (
        "SMC-D v2 across subnets with a common UEID, system EID disabled on the server",
        host(ueids=["PLEX1.PROD"]),
        host(ueids=["PLEX1.PROD"], seid={"enabled": False}, rendezvous={"address": "192.168.5.5/24"}),
        pf.SMCD_V2,
        None,
        None,
    ),
    (
        "system EID disabled and no common UEID",
        host(ueids=["PLEX1.TEST"]),
        host(ueids=["PLEX1.PROD"], seid={"enabled": False}),
        pf.TCP,
        "SMC_CLC_DECL_NOSMCDDEV",
        "server",
    ),
    (
        "system EIDs of two machines (live values) and no UEID",
        host(seid={"enabled": True, "value": "IBM-SYSZ-ISMSEID00000000C0DE8561"}),
        host(seid={"enabled": True, "value": "IBM-SYSZ-ISMSEID00000000BEEF3931"}),
        pf.TCP,
        "SMC_CLC_DECL_NOSMCDDEV",
        "server",
    ),
    (
        "client offers no EID (no SEID, no UEID; s390 kernels keep the SEID while no UEID is defined)",
        host(seid={"enabled": False}),
        host(),
        pf.TCP,
        "SMC_CLC_DECL_NOUEID",
        "server",
    ),
    (
        "RoCE pair with matching PNET IDs on OSA: SMC-R v1",
        host(ROCE_LPAR, cpc="CPCA"),
        host(ROCE_LPAR, cpc="CPCB", rendezvous={"address": "10.1.1.77/24"}),
        pf.SMCR_V1,
        None,
        None,
    ),
    (
        "RoCE pair with a common UEID: SMC-R v2 across subnets",
        host(ROCE_LPAR, ueids=["PLEX1"]),
        host(ROCE_LPAR, cpc="CPCB", ueids=["PLEX1"], rendezvous={"address": "10.7.7.7/24"}),
        pf.SMCR_V2,
        None,
        None,
    ),
    (
        "RoCE pair in different subnets without UEID",
        host(ROCE_LPAR),
        host(ROCE_LPAR, cpc="CPCB", rendezvous={"address": "10.7.7.7/24"}),
        pf.TCP,
        "SMC_CLC_DECL_DIFFPREFIX",
        "server",
    ),
    (
        "RoCE on the client, the server's interface under another PNET ID",
        host(ROCE_LPAR),
        host(cpc="CPCB", roce=ROCE, rendezvous={"interface": "encb000", "pnet_id": "NETX"}, ism=[]),
        pf.TCP,
        "SMC_CLC_DECL_NOSMCDEV",
        "server",
    ),
    ("smc not loaded on the server", host(), host(smc=False), pf.TCP, "SMC_CLC_DECL_PEERNOSMC", "client"),
    ("smc not loaded on the client", host(smc=False), host(), pf.TCP, "SMC_CLC_DECL_PEERNOSMC", "server"),
    (
        "different VCHIDs",
        host(),
        host(ism=[{"fid": 0x700, "vchid": 0x7C9, "pnet_id": None, "v2": True}]),
        pf.TCP,
        "SMC_CLC_DECL_NOSMCD2DEV",
        "server",
    ),
    (
        "the same VCHID number on two CPCs",
        host(cpc="CPCA"),
        host(cpc="CPCB"),
        pf.TCP,
        "SMC_CLC_DECL_NOSMCD2DEV",
        "server",
    ),
    (
        "server without any ISM device, client with SMC-D v2 only",
        host(),
        host(ism=[]),
        pf.TCP,
        "SMC_CLC_DECL_NOISM2SUPP",
        "server",
    ),
    (
        "client without ISM and RoCE",
        host(ism=[]),
        host(),
        pf.TCP,
        "SMC_CLC_DECL_NOSMCDEV",
        "client",
    ),
    ("IPsec on the client", host(ipsec=True), host(), pf.TCP, "SMC_CLC_DECL_IPSEC", "client"),
    ("IPsec on the server", host(), host(ipsec=True), pf.TCP, "SMC_CLC_DECL_IPSEC", "server"),
    (
        "v1 with different VLANs",
        host(NATIVE_LPAR, kernel=RHEL83, rendezvous={"interface": "enc8200.10"}),
        host(NATIVE_LPAR, kernel=RHEL83, rendezvous={"interface": "enc8200.20"}),
        pf.TCP,
        "SMC_CLC_DECL_NOSMCDDEV",
        "server",
    ),
    (
        "a software PNET entry for an interface with a hardware PNET ID is ignored",
        host(NATIVE_LPAR, kernel=RHEL83, pnet_table=[{"pnet_id": "NETB", "interface": "enc8200"}]),
        host(NATIVE_LPAR, kernel=RHEL83, rendezvous={"address": "10.1.1.9/24"}),
        pf.SMCD_V1,
        None,
        None,
    ),
    (
        "a native ISM whose PNET ID no interface has is not proposed for v2",
        host(ism=native("NETZ")),
        host(ism=native("NETZ", fid=0x607)),
        pf.TCP,
        "SMC_CLC_DECL_NOSMCDEV",
        "client",
    ),
    (
        "server kernel before SMC v2, v2-only proposal: TCP, code not modelled",
        host(),
        host(kernel=RHEL83),
        pf.TCP,
        None,
        "server",
    ),
]


@pytest.mark.parametrize("case, client, server, prediction, reason, side", CASES, ids=[c[0] for c in CASES])
def test_pair(case, client, server, prediction, reason, side):
    (row,) = pf.predict({"c": client, "s": server}, [{"client": "c", "server": "s"}])
    assert (row["prediction"], row["reason_name"], row["side"]) == (prediction, reason, side), row["why"]
    if reason:
        assert row["reason_code"] == "0x%08x" % smc_clc.CODE_OF[reason]
        assert row["fix"]
    else:
        assert row["reason_code"] is None
    assert row["unknown"] == [] and row["possible"] == []
    assert row["why"]


@pytest.mark.parametrize(
    "case, why, fix",
    [
        (
            "native ISM in a guest",
            "FID 0x605 (VCHID 7C8) has the PNET ID NETA, which no interface of c has",
            "{pnet_id: NETA, interface: eth0}",
        ),
        ("PNET ID mismatch between two LPARs, no", "FID 0x606 (VCHID 7C8): NETB", "Make the PNET IDs of s's"),
        ("system EID disabled", "c and s share no EID", "offer the system EID on both (smc_seid: enabled)"),
        ("the same VCHID number", "runs on another CPC than c", "one VCHID of the same CPC"),
        ("v1 with different VLANs", "c and s use different VLANs (10, 20)", "in one VLAN"),
        (
            "non-native ISM pair on kernels",
            "c's kernel 4.18.0-240.el8.s390x has no SMC-D v2",
            "which SMC-D v2 only uses",
        ),
        ("different subnets with only v1", "one IP subnet with the same prefix length", "SMC-D v2, which works across"),
    ],
)
def test_why_and_fix_name_the_cause(case, why, fix):
    _case, client, server, _p, _r, _s = [c for c in CASES if c[0].startswith(case)][0]
    (row,) = pf.predict({"c": client, "s": server}, [["c", "s"]])
    assert why in row["why"]
    assert fix in row["fix"]


def test_codes_are_the_kernels():
    # net/smc/smc_clc.h (the values the brief names and the ones the rules return)
    assert pf.code_text("SMC_CLC_DECL_NOSMCDEV") == "0x03030000"
    assert pf.code_text("SMC_CLC_DECL_PEERNOSMC") == "0x03010000"
    assert pf.code_text("SMC_CLC_DECL_IPSEC") == "0x03020000"
    assert pf.code_text("SMC_CLC_DECL_NOSMCDDEV") == "0x03030001"
    assert pf.code_text("SMC_CLC_DECL_NOSMCRDEV") == "0x03030002"
    assert pf.code_text("SMC_CLC_DECL_NOISM2SUPP") == "0x03030003"
    assert pf.code_text("SMC_CLC_DECL_NOSMCD2DEV") == "0x03030007"
    assert pf.code_text("SMC_CLC_DECL_NOUEID") == "0x03030008"
    assert pf.code_text("SMC_CLC_DECL_MODEUNSUPP") == "0x03040000"
    assert pf.code_text("SMC_CLC_DECL_DIFFPREFIX") == "0x03070000"
    assert pf.code_text("SMC_CLC_DECL_GETVLANERR") == "0x03080000"
    assert pf.code_text("SMC_CLC_DECL_ISMVLANERR") == "0x03090000"
    assert pf.code_text("SMC_CLC_DECL_NOACTLINK") == "0x030a0000"
    assert pf.code_text("SMC_CLC_DECL_NOSRVLINK") == "0x030b0000"
    assert pf.code_text("SMC_CLC_DECL_MAX_DMB") == "0x030d0000"
    assert pf.code_text("SMC_CLC_DECL_PEERDECL") == "0x05000000"
    assert len(smc_clc.CODE_OF) == len(smc_clc.DECLINE_CODES)  # each name once
    # the netlink statistics name the codes as smc-tools does, from the same table
    assert smc_stats.FALLBACK_REASONS[0x03030000] == "NOSMCDEV" and 0x03030008 not in smc_stats.FALLBACK_REASONS


def test_server_declines_are_counted_as_peerdecl_by_the_client():
    (row,) = pf.predict({"c": host(), "s": host(ism=[])}, [["c", "s"]])
    assert "c counts SMC_CLC_DECL_PEERDECL" in row["why"]


def test_unknown_kernel_gives_every_outcome_and_what_to_check():
    client = host(kernel=None)
    (row,) = pf.predict({"c": client, "s": host()}, [["c", "s"]])
    assert row["prediction"] == pf.UNKNOWN
    assert (row["reason_code"], row["reason_name"], row["side"]) == (None, None, None)
    assert row["unknown"] == ["c's kernel has SMC-D v2"]
    outcomes = dict((p["outcome"], p["if"]) for p in row["possible"])
    assert outcomes == {
        "SMC-D v2": ["c's kernel has SMC-D v2: yes"],
        "TCP (SMC_CLC_DECL_NOSMCDEV 0x03030000, client)": ["c's kernel has SMC-D v2: no"],
    }
    assert "smcd info" in row["fix"]


def test_unknown_that_does_not_matter_is_not_reported():
    # the client falls back before anything of the server's kernel or addresses matters
    (row,) = pf.predict({"c": host(ism=[]), "s": host(kernel=None, rendezvous={"address": None})}, [["c", "s"]])
    assert (row["prediction"], row["reason_name"]) == (pf.TCP, "SMC_CLC_DECL_NOSMCDEV")
    assert row["unknown"] == []


def test_unknown_subnet_only_matters_for_v1():
    no_address = {"address": None}
    (v2,) = pf.predict({"c": host(rendezvous=no_address), "s": host(rendezvous=no_address)}, [["c", "s"]])
    assert v2["prediction"] == pf.SMCD_V2
    (v1,) = pf.predict(
        {
            "c": host(NATIVE_LPAR, kernel=RHEL83, rendezvous=no_address),
            "s": host(NATIVE_LPAR, kernel=RHEL83, rendezvous=no_address),
        },
        [["c", "s"]],
    )
    assert v1["prediction"] == pf.UNKNOWN
    assert v1["unknown"] == ["c and s have their rendezvous addresses in one IP subnet (same prefix length)"]
    assert [p["outcome"] for p in v1["possible"]] == [
        "SMC-D v1",
        "TCP (SMC_CLC_DECL_DIFFPREFIX 0x03070000, server)",
    ]


def test_unknown_device_list_blocks_the_prediction():
    (row,) = pf.predict({"c": host(ism=None), "s": host()}, [["c", "s"]])
    assert row["prediction"] == pf.UNKNOWN
    assert row["unknown"] == ["the ISM devices of c"]
    assert row["possible"] == [{"outcome": "not predictable without the ISM devices of c", "if": []}]
    assert "smcd_info" in row["fix"]


def test_unknown_smc_on_the_server():
    (row,) = pf.predict({"c": host(), "s": host(smc=None)}, [["c", "s"]])
    assert row["prediction"] == pf.UNKNOWN
    assert [p["outcome"] for p in row["possible"]] == ["SMC-D v2", "TCP (SMC_CLC_DECL_PEERNOSMC 0x03010000, client)"]


@pytest.mark.parametrize(
    "release, smcd_v2, smcr_v2",
    [
        ("4.18.0-477.10.1.el8_8.s390x", True, None),  # RHEL 8.8 (the study)
        ("4.18.0-305.el8.s390x", True, None),  # RHEL 8.4
        ("4.18.0-240.22.1.el8_3.s390x", False, None),  # RHEL 8.3
        ("5.3.18-57-default", True, None),  # SLES 15 SP3
        ("5.3.18-24.9-default", False, None),  # SLES 15 SP2
        ("5.14.21-150500.55.19-default", True, None),  # SLES 15 SP5
        ("5.14.0-362.8.1.el9_3.s390x", True, None),  # RHEL 9.3
        ("5.14.0-427.13.1.el9_4.s390x", True, True),  # RHEL 9.4
        ("5.10.0", True, None),
        ("5.15.0-91-generic", True, None),
        ("5.16.0", True, True),
        ("6.8.0-31-generic", True, True),
        ("5.4.0-45-generic", None, None),
        (None, None, None),
        ("garbage", None, None),
    ],
)
def test_kernel_releases(release, smcd_v2, smcr_v2):
    assert pf.kernel_smcd_v2(release) is smcd_v2
    assert pf.kernel_smcr_v2(release) is smcr_v2


@pytest.mark.parametrize(
    "facts, message",
    [
        ({"kernal": "6.1"}, "unknown fact kernal"),
        ({"smc": "yes"}, "facts of h.smc: expected true, false or null"),
        ({"ism": [{"pnet_id": "NETA"}]}, r"facts of h\.ism\[0\]\.vchid: required"),
        ({"ism": [{"vchid": "7C8", "pnet_id": "net a"}]}, "is not a PNET ID"),
        ({"rendezvous": {"address": "10.1.1.1/33"}}, "is not an IP address with prefix length"),
        ({"pnet_table": [{"pnet_id": "NETA"}]}, "names neither an interface nor an ib_device"),
        ({"roce": [{"port": 3}]}, "port: 3 is not 1 or 2"),
    ],
)
def test_bad_facts_name_the_field(facts, message):
    with pytest.raises(pf.PreflightError, match=message):
        pf.normalize_facts("h", facts)


def test_bad_pairs():
    with pytest.raises(pf.PreflightError, match="pairs\\[0\\]: expected"):
        pf.predict({}, [{"client": "a"}])
    with pytest.raises(pf.PreflightError, match="client and server are both a"):
        pf.predict({"a": host()}, [["a", "a"]])


def test_pair_with_a_host_without_facts():
    (row,) = pf.predict({"a": host()}, [["a", "TSTP1"]])
    assert row["prediction"] == pf.UNKNOWN and row["unknown"] == ["facts of TSTP1"]


# -- facts from the inventory --------------------------------------------------------------------
def _load(path):
    with open(os.path.join(REPO, path)) as handle:
        return yaml.safe_load(handle)


LAB_CPC = _load("inventories/lab/group_vars/all/cpc.yml")["cpc"]
LAB = {
    "lpar-a": {"cpc": LAB_CPC, "group_names": ["lpars", "kvm_hosts"], "qeth_devices": [{"id": "0.0.8200"}]},
    "lpar-b": {
        "cpc": LAB_CPC,
        "group_names": ["lpars", "smc_hosts"],
        "qeth_devices": [{"id": "8200"}],
        "interfaces_config": _load("inventories/lab/host_vars/lpar-b.yml")["interfaces_config"],
    },
    "g1": {
        "cpc": LAB_CPC,
        "group_names": ["kvm_guests", "smc_hosts"],
        "interfaces_config": _load("inventories/lab/host_vars/g1.yml")["interfaces_config"],
    },
}


def test_lab_facts_from_the_model():
    lpar_b = pf.inventory_host_facts("lpar-b", LAB["lpar-b"])
    assert lpar_b["cpc"] == "ZLAB" and lpar_b["machine"] == "z16" and lpar_b["smc"] is True
    assert lpar_b["ism"] == [{"name": "0606:00:00.0", "fid": 0x606, "vchid": 0x7C8, "pnet_id": "", "v2": True}]
    assert lpar_b["rendezvous"] == {
        "interface": "enc8200",
        "pnet_id": "",
        "kind": "hipersockets",
        "addresses": ["10.50.0.11/24"],  # interfaces_config
    }
    assert lpar_b["pnet_table"] == [] and lpar_b["ueids"] == [] and lpar_b["seid"]["enabled"] is True
    assert lpar_b["kernel"] is None
    g1 = pf.inventory_host_facts("g1", LAB["g1"])
    assert g1["ism"] == [{"fid": 0x605, "vchid": 0x7C8, "pnet_id": "", "v2": True}]
    assert g1["rendezvous"] == {"interface": None, "pnet_id": "", "kind": "virtio", "addresses": ["10.50.0.12/24"]}
    assert g1["netdev_pnet_ids"] == []
    # the KVM host passes its only function to g1 and is no SMC host
    lpar_a = pf.inventory_host_facts("lpar-a", LAB["lpar-a"])
    assert lpar_a["ism"] == [] and lpar_a["smc"] is None and lpar_a["pnet_table"] is None


def test_lab_pairs_and_predictions():
    pairs, unresolved = pf.inventory_pairs(LAB, list(LAB))
    assert pairs == [{"client": "lpar-b", "server": "g1"}, {"client": "g1", "server": "lpar-b"}]
    assert unresolved == []
    assume = {"kernel": "4.18.0-477.10.1.el8_8.s390x"}
    facts = dict((h, pf.inventory_host_facts(h, v, assume=assume)) for h, v in LAB.items())
    rows = pf.predict(facts, pairs)
    assert [r["prediction"] for r in rows] == [pf.SMCD_V2, pf.SMCD_V2]
    lines = pf.table(rows)
    assert lines[0].split() == ["PAIR", "PREDICTION", "REASON", "FIX"]
    assert lines[1].split()[:4] == ["lpar-b", "->", "g1", "SMC-D"]
    assert pf.summary(rows) == {"smc": 2, "tcp": 0, "unknown": 0}


EXAMPLE_CPCS = _load("inventories/example/group_vars/all/cpcs.yml")


def _example(host, groups, **extra):
    cpc = EXAMPLE_CPCS["cpc_proda"] if host in ("kvmp1", "dbp1", "app1", "app2") else EXAMPLE_CPCS["cpc_prodb"]
    hvars = {"cpc": cpc, "group_names": groups}
    hvars.update(extra)
    return hvars


EXAMPLE = {
    "kvmp1": _example("kvmp1", ["lpars", "kvm_hosts"], qeth_devices=[{"id": "0.0.8200"}, {"id": "0.0.1000"}]),
    "dbp1": _example("dbp1", ["lpars", "smc_hosts"], qeth_devices=[{"id": "0.0.8203"}, {"id": "0.0.1003"}]),
    "app1": _example("app1", ["kvm_guests", "smc_hosts"]),
    "app2": _example("app2", ["kvm_guests", "smc_hosts"]),
    "kvmp2": _example("kvmp2", ["lpars", "kvm_hosts"], qeth_devices=[{"id": "0.0.8200"}]),
    "dbp2": _example(
        "dbp2",
        ["lpars", "smc_hosts"],
        qeth_devices=[{"id": "0.0.8203"}],
        smc_pnet_config=[{"pnet_id": "PNETB", "interface": "enc8203"}],
    ),
    "app3": _example("app3", ["kvm_guests", "smc_hosts"], smc_pnet_config=[{"pnet_id": "PNETB", "interface": "enc1"}]),
}


def test_example_inventory():
    pairs, unresolved = pf.inventory_pairs(EXAMPLE, list(EXAMPLE))
    assert pairs == [
        {"client": "app1", "server": "dbp1"},
        {"client": "dbp1", "server": "app1"},
        {"client": "app2", "server": "dbp1"},
        {"client": "dbp1", "server": "app2"},
        {"client": "app3", "server": "dbp2"},
        {"client": "dbp2", "server": "app3"},
    ]
    assert unresolved == []
    app3 = pf.inventory_host_facts("app3", EXAMPLE["app3"])
    assert app3["rendezvous"] == {"interface": "enc1", "pnet_id": "", "kind": "virtio"}
    assert app3["ism"] == [{"fid": 0x1017, "vchid": 0x7E1, "pnet_id": "PNETB", "v2": True}]
    dbp2 = pf.inventory_host_facts("dbp2", EXAMPLE["dbp2"])
    assert dbp2["rendezvous"] == {"interface": "enc8203", "pnet_id": "", "kind": "hipersockets"}
    # without the kernel releases nothing v2 is known; with a RHEL 9.4 kernel every pair is SMC-D v2
    facts = dict((h, pf.inventory_host_facts(h, v)) for h, v in EXAMPLE.items())
    assert set(r["prediction"] for r in pf.predict(facts, pairs)) == {pf.UNKNOWN}
    facts = dict((h, pf.inventory_host_facts(h, v, assume={"kernel": NEW})) for h, v in EXAMPLE.items())
    assert [r["prediction"] for r in pf.predict(facts, pairs)] == [pf.SMCD_V2] * 6


def test_example_native_guest_without_v2_needs_its_subnet():
    # app3 -> dbp2 on kernels without SMC-D v2: both have PNETB by smc_pnet, so SMC-D v1 if the
    # addresses share a subnet; the addresses come from smc_preflight_interface
    app3 = dict(EXAMPLE["app3"], smc_preflight_interface={"interface": "enc1", "address": "10.20.0.3/24"})
    dbp2 = dict(EXAMPLE["dbp2"], smc_preflight_interface={"interface": "enc8203", "address": "10.20.0.2/24"})
    facts = {
        "app3": pf.inventory_host_facts("app3", app3, assume={"kernel": RHEL83}),
        "dbp2": pf.inventory_host_facts("dbp2", dbp2, assume={"kernel": RHEL83}),
    }
    (row,) = pf.predict(facts, [["app3", "dbp2"]])
    assert row["prediction"] == pf.SMCD_V1, row["why"]
    facts["app3"]["pnet_table"] = []  # the smc_pnet entry lost (not persisted)
    (row,) = pf.predict(facts, [["app3", "dbp2"]])
    assert (row["prediction"], row["reason_name"], row["side"]) == (pf.TCP, "SMC_CLC_DECL_NOSMCDEV", "client")
    assert "{pnet_id: PNETB, interface: enc1}" in row["fix"]


def test_rendezvous_addresses_from_the_interfaces_role():
    # lpar-b's enc8200 (qeth device "8200") and g1's NIC (by MAC) in inventories/lab
    lpar_b = pf.inventory_host_facts("lpar-b", LAB["lpar-b"])
    assert lpar_b["rendezvous"]["interface"] == "enc8200"
    assert lpar_b["rendezvous"]["addresses"] == ["10.50.0.11/24"]
    assert "interfaces_config: rendezvous addresses" in lpar_b["sources"]
    g1 = pf.inventory_host_facts("g1", LAB["g1"])
    assert (g1["rendezvous"]["kind"], g1["rendezvous"]["addresses"]) == ("virtio", ["10.50.0.12/24"])
    # another subnet on g1: SMC-D v2 does not need one subnet
    other = dict(LAB["g1"], interfaces_config=[{"mac": "12:34:56:78:9a:bc", "addresses": ["10.51.0.12/24"]}])
    facts = {
        "lpar-b": pf.inventory_host_facts("lpar-b", LAB["lpar-b"], assume={"kernel": NEW}),
        "g1": pf.inventory_host_facts("g1", other, assume={"kernel": NEW}),
    }
    assert facts["g1"]["rendezvous"]["addresses"] == ["10.51.0.12/24"]
    (row,) = pf.predict(facts, [["g1", "lpar-b"]])
    assert row["prediction"] == pf.SMCD_V2, row["why"]
    # an address given to the pre-flight wins over the inventory's
    given = dict(LAB["lpar-b"], smc_preflight_interface={"interface": "enc8200", "address": "10.60.0.11/24"})
    assert pf.inventory_host_facts("lpar-b", given)["rendezvous"]["addresses"] == "10.60.0.11/24"


def test_interface_override_takes_the_chpid_pnet_id():
    cpc = copy.deepcopy(LAB_CPC)
    cpc["hipersockets"][0]["pnet_id"] = "NETHS"
    hvars = dict(LAB["lpar-b"], cpc=cpc, smc_preflight_interface={"interface": "enc8200.5", "address": "10.5.0.2/24"})
    facts = pf.inventory_host_facts("lpar-b", hvars)
    assert facts["rendezvous"] == {
        "interface": "enc8200.5",
        "addresses": "10.5.0.2/24",
        "pnet_id": "NETHS",
        "kind": "hipersockets",
    }
    assert pf.normalize_facts("lpar-b", facts)["rendezvous"]["vlan"] == 5
    assert facts["netdev_pnet_ids"] == ["NETHS"]


def test_facts_override_and_assume():
    hvars = dict(LAB["lpar-b"], smc_preflight_facts={"kernel": "6.8.0", "ueids": ["A"]}, smc_preflight_ipsec=True)
    facts = pf.inventory_host_facts("lpar-b", hvars, assume={"kernel": "4.18.0", "machine": "z15"})
    assert facts["kernel"] == "6.8.0" and facts["ueids"] == ["A"] and facts["ipsec"] is True
    assert facts["machine"] == "z16"  # known from the model; assume fills only what is not known
    bare = pf.inventory_host_facts("nowhere", {}, assume={"kernel": "4.18.0"})
    assert bare["kernel"] == "4.18.0" and bare["ism"] is None and bare["smc"] is None


def _fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


def test_live_facts_win():
    live = {
        "smc_sysctl": {"changed": False, "kernel": "6.8.0-31-generic", "smc_loaded": False},
        "smcd_info_smcd": {"devices": parse_devices_smcd(_fixture("smcd_device.txt"))},
        "smcd_info_smcr": {"devices": parse_devices_smcr(_fixture("smcr_d_device.txt"))},
        "smc_pnet": {"gathered": [{"pnet_id": "NETA", "interface": "enc8200"}]},
        "smc_ueid": {"after": ["PLEX1"], "seid": {"system_eid": "IBM-SYSZ-ISMSEID00000000C0DE8561", "enabled": False}},
        "ansible_facts": {
            "kernel": "ignored, smc_sysctl said it",
            "enc8200": {
                "ipv4": {"address": "10.1.1.2", "netmask": "255.255.255.0"},
                "ipv6": [{"address": "fd00::2", "prefix": "64", "scope": "global"}],
            },
        },
    }
    facts = pf.inventory_host_facts("lpar-b", LAB["lpar-b"], live=live)
    assert facts["kernel"] == "6.8.0-31-generic" and facts["smc"] is False
    assert facts["ism"] == [
        {"name": "0000:00:00.0", "fid": 0x605, "vchid": 0x7C8, "pnet_id": "", "pnet_id_user": None, "v2": True},
        {"name": "0001:00:00.0", "fid": 0x606, "vchid": 0x7C8, "pnet_id": "", "pnet_id_user": "NETA", "v2": True},
        {
            "name": "0002:00:00.0",
            "fid": 0x1234,
            "vchid": 0x7C1,
            "pnet_id": "PNETHS01",
            "pnet_id_user": None,
            "v2": True,
        },
    ]
    assert [(r["name"], r["port"], r["pnet_id"], r["pnet_id_user"], r["active"], r["v2"]) for r in facts["roce"]] == [
        ("mlx5_0", 1, "NETR", None, True, True),
        ("mlx5_1", 1, "", "NETR", False, True),
        ("mlx5_2", 2, "", None, True, True),
    ]
    assert facts["pnet_table"] == [{"pnet_id": "NETA", "interface": "enc8200"}]
    assert facts["ueids"] == ["PLEX1"]
    assert facts["seid"] == {"enabled": False, "value": "IBM-SYSZ-ISMSEID00000000C0DE8561"}
    assert facts["rendezvous"]["addresses"] == ["10.1.1.2/24", "fd00::2/64"]
    assert "live smc_sysctl" in facts["sources"]
    # a failed or skipped module run gives nothing
    failed = pf.inventory_host_facts(
        "lpar-b", LAB["lpar-b"], live={"smc_sysctl": {"failed": True, "msg": "x"}, "smc_pnet": {"skipped": True}}
    )
    assert failed["kernel"] is None and failed["smc"] is True and failed["pnet_table"] == []


def test_live_software_pnet_on_a_non_native_ism_enables_v1():
    # 0001:00:00.0 got NETA by smc_pnet; the interface has NETA from the table: SMC-D v1 with it
    live = {"smcd_info_smcd": {"devices": parse_devices_smcd(_fixture("smcd_device.txt"))}}
    client = pf.inventory_host_facts(
        "lpar-b",
        dict(LAB["lpar-b"], smc_pnet_config=[{"pnet_id": "NETA", "interface": "enc8200"}]),
        live=live,
        assume={"kernel": RHEL83},
    )
    client["rendezvous"]["addresses"] = ["10.1.1.2/24"]
    server = host(NATIVE_LPAR, kernel=RHEL83)
    server["cpc"] = "ZLAB"
    (row,) = pf.predict({"lpar-b": client, "peer": server}, [["lpar-b", "peer"]])
    assert row["prediction"] == pf.SMCD_V1
    assert "0001:00:00.0 (VCHID 7C8)" in row["why"]


# -- branches that agree on the technology ---------------------------------------------------------
ROCE_NO_IPV4 = [
    {"name": "mlx5_0", "port": 1, "pnet_id": "NETR", "v2": True}
]  # whether it has an IPv4 address: not known


def test_smcr_v2_or_v1_depending_on_an_address_is_smcr():
    client = host(ROCE_LPAR, roce=ROCE_NO_IPV4, ueids=["PLEX1"])
    server = host(ROCE_LPAR, cpc="CPCB", ueids=["PLEX1"], rendezvous={"address": "10.1.1.77/24"})
    (row,) = pf.predict({"c": client, "s": server}, [["c", "s"]])
    assert (row["prediction"], row["reason_name"], row["side"]) == (pf.SMCR, None, None)
    assert row["alternatives"] == ["v2", "v1"]
    assert row["unknown"] == ["c's mlx5_0 port 1 interface has an IPv4 address (RoCEv2 GID)"]
    assert [p["outcome"] for p in row["possible"]] == [pf.SMCR_V2, pf.SMCR_V1]
    assert row["why"].startswith("SMC-R (v2 or v1, depending on c's mlx5_0 port 1 interface has an IPv4 address")
    assert "`ip addr` of the RoCE interface on c" in row["fix"]
    assert pf.summary([row]) == {"smc": 1, "tcp": 0, "unknown": 0}
    assert "v2 or v1, depending on 1 fact (see why)" in pf.table([row])[1]


def test_nosmcrdev_or_nosmcdev_is_a_certain_fallback():
    client = host(ROCE_LPAR, roce=ROCE_NO_IPV4, ueids=["PLEX1"])
    server = host(
        cpc="CPCB", roce=ROCE, ism=[], ueids=["PLEX1"], rendezvous={"interface": "encb000", "pnet_id": "NETX"}
    )
    (row,) = pf.predict({"c": client, "s": server}, [["c", "s"]])
    assert (row["prediction"], row["reason_name"], row["reason_code"], row["side"]) == (pf.TCP, None, None, "server")
    assert row["alternatives"] == ["SMC_CLC_DECL_NOSMCRDEV", "SMC_CLC_DECL_NOSMCDEV"]
    assert [p["outcome"] for p in row["possible"]] == [
        "TCP (SMC_CLC_DECL_NOSMCRDEV 0x03030002, server)",
        "TCP (SMC_CLC_DECL_NOSMCDEV 0x03030000, server)",
    ]
    assert row["why"].startswith("TCP (SMC_CLC_DECL_NOSMCRDEV or SMC_CLC_DECL_NOSMCDEV, depending on c's mlx5_0")
    # the fixes of both fallbacks, then what decides between them
    assert "Give s a RoCE Express2+ port" in row["fix"] and "Give s an active RoCE port" in row["fix"]
    assert "To know which applies, check `ip addr` of the RoCE interface on c." in row["fix"]
    # preflight_fail_on_fallback fails on summary.tcp
    assert pf.summary([row]) == {"smc": 0, "tcp": 1, "unknown": 0}
    assert "SMC_CLC_DECL_NOSMCRDEV or SMC_CLC_DECL_NOSMCDEV (server), depending on 1 fact" in pf.table([row])[1]


def test_branches_of_different_technologies_stay_unknown():
    (row,) = pf.predict({"c": host(kernel=None), "s": host()}, [["c", "s"]])
    assert row["prediction"] == pf.UNKNOWN and row["alternatives"] == []


def test_a_guest_without_an_ism_function_in_the_model_is_tcp():
    # g2 is a KVM guest (kvm_guests) that the model gives no ISM function: no SMC device, whatever its kernel
    hostvars = dict(LAB, g2={"cpc": LAB_CPC, "group_names": ["kvm_guests", "smc_hosts"]})
    g2 = pf.inventory_host_facts("g2", hostvars["g2"])
    assert (g2["ism"], g2["roce"], g2["rendezvous"]["kind"]) == ([], [], "virtio")
    assert "cpc ZLAB guest g2 (no ISM function)" in g2["sources"]
    facts = dict((h, pf.inventory_host_facts(h, v)) for h, v in hostvars.items())
    (row,) = pf.predict(facts, [["g2", "lpar-b"]])
    assert (row["prediction"], row["reason_name"], row["side"]) == (pf.TCP, "SMC_CLC_DECL_NOSMCDEV", "client")
    assert row["unknown"] == [] and "g2 has no ISM device" in row["why"]
    # as server, lpar-b's kernel decides what it proposes: TCP either way
    (row,) = pf.predict(facts, [["lpar-b", "g2"]])
    assert row["prediction"] == pf.TCP, row["why"]
    assert row["unknown"] == ["lpar-b's kernel has SMC-D v2", "g2's kernel has SMC-D v2"]


# -- role defaults from the roles' argument_specs -------------------------------------------------
def test_role_defaults_come_from_the_argument_specs(tmp_path, monkeypatch):
    from ansible_collections.s390x.network.plugins.plugin_utils.smc_preflight import role_input

    assert pf.inventory_host_facts("lpar-b", LAB["lpar-b"])["smc"] is True  # smc_load_module: true
    for role in ("smc", "qeth", "interfaces"):
        spec = _load("roles/%s/meta/argument_specs.yml" % role)
        if role == "smc":
            options = spec["argument_specs"]["main"]["options"]
            options["smc_load_module"]["default"] = False
            options["smc_seid"]["default"] = "disabled"
            options["smc_ueids"]["default"] = ["PLEX9"]
        (tmp_path / role / "meta").mkdir(parents=True)
        (tmp_path / role / "meta" / "argument_specs.yml").write_text(yaml.safe_dump(spec))
    monkeypatch.setattr(role_input, "ROLES_DIR", str(tmp_path))
    facts = pf.inventory_host_facts("lpar-b", LAB["lpar-b"])
    assert facts["smc"] is None and "smc role (smc_hosts): loads smc" not in facts["sources"]
    assert facts["ueids"] == ["PLEX9"] and facts["seid"]["enabled"] is False
    # a value the host sets wins over the default
    facts = pf.inventory_host_facts("lpar-b", dict(LAB["lpar-b"], smc_load_module=True, smc_ueids=[]))
    assert facts["smc"] is True and facts["ueids"] == [] and facts["seid"]["enabled"] is True


def test_a_role_without_its_argument_specs_is_an_error(tmp_path, monkeypatch):
    from ansible_collections.s390x.network.plugins.plugin_utils.smc_preflight import role_input

    monkeypatch.setattr(role_input, "ROLES_DIR", str(tmp_path))
    with pytest.raises(pf.PreflightError, match="cannot read the defaults of the smc role"):
        pf.inventory_host_facts("lpar-b", LAB["lpar-b"])


# -- one table of kernel levels with the buffer sizing --------------------------------------------
RHEL94 = "5.14.0-427.13.1.el9_4.s390x"
RHEL88 = "4.18.0-477.10.1.el8_8.s390x"


def test_per_service_sizes_above_the_kernels_buffers_warn():
    services = [{"name": "db", "rmem": "1M", "wmem": "64K"}]
    hvars = dict(LAB["lpar-b"], smc_services=services)
    assert pf.service_warnings("lpar-b", hvars, RHEL94) == []  # RHEL 9.4: SMC of 6.4, 1 MiB DMBs
    (warning,) = pf.service_warnings("lpar-b", hvars, RHEL88)
    assert warning == (
        "lpar-b: smc_services[0] (db) rmem: 1M requested, but SMCD buffers on this kernel (RHEL 8.4+) are at most 512K"
    )
    big = dict(hvars, smc_services=[{"name": "db", "rmem": "2M"}])
    assert "at most 1M" in pf.service_warnings("lpar-b", big, RHEL94)[0]
    # SMC-R buffers stay at 512K before 6.11
    smcr = dict(hvars, smc_protocol="smcr")
    assert (
        "SMCR buffers on this kernel (RHEL 9.4+, SMC of Linux 6.4) are at most 512K"
        in pf.service_warnings("lpar-b", smcr, RHEL94)[0]
    )
    # no kernel known, or not an smc host: nothing to say
    assert pf.service_warnings("lpar-b", hvars, None) == []
    assert pf.service_warnings("lpar-a", dict(LAB["lpar-a"], smc_services=services), RHEL88) == []


@pytest.mark.parametrize("release", [RHEL88, "4.18.0-240.el8.s390x", "5.14.0-284.11.1.el9_2.s390x", RHEL94, "6.8.0"])
def test_the_preflight_and_the_sizing_read_one_table(release):
    level = smc_levels.kernel_level(release)
    assert (pf.kernel_smcd_v2(release), pf.kernel_smcr_v2(release)) == (level["smcd_v2"], level["smcr_v2"])
    assert smc_sizing.buffer_cap(release, "smcd") == level["smcd_max_dmb"]


NO_SMC_72 = {
    "available": False,
    "reason": "SMC not built into this kernel (7.2.0-1-s390x): no net/smc/smc.ko in /lib/modules/7.2.0-1-s390x/"
    "modules.dep or modules.builtin; /boot/config-7.2.0-1-s390x has no CONFIG_SMC; CONFIG_DIBS is not set there "
    "either (SMC depends on DIBS since Linux 6.18)",
}


@pytest.mark.parametrize("side", ["client", "server"])
def test_a_kernel_without_smc_is_tcp_with_the_hosts_reason(side):
    hosts = {"c": host(NATIVE_LPAR), "s": host(NATIVE_LPAR)}
    name = "c" if side == "client" else "s"
    hosts[name] = host(NATIVE_LPAR, kernel="7.2.0-1-s390x", kernel_smc=NO_SMC_72)
    (row,) = pf.predict(hosts, [["c", "s"]])
    assert (row["prediction"], row["reason_name"]) == ("TCP", "SMC_CLC_DECL_PEERNOSMC")
    assert row["side"] == ("server" if side == "client" else "client")
    assert row["why"].startswith("%s: SMC not built into this kernel (7.2.0-1-s390x): " % name)
    assert "CONFIG_DIBS is not set there either (SMC depends on DIBS since Linux 6.18)" in row["why"]
    assert row["fix"].startswith("Boot a kernel on %s that has SMC" % name)
    assert row["unknown"] == []


def test_a_kernel_without_smc_wins_over_an_smc_fact_and_needs_no_reason_text():
    facts = pf.normalize_facts("c", host(kernel_smc={"available": False, "reason": None}))
    assert facts["smc"] is False and facts["kernel_smc"] == {"available": False, "reason": ""}
    (row,) = pf.predict({"c": host(kernel_smc={"available": False}), "s": host()}, [["c", "s"]])
    assert row["why"].startswith("c: SMC not built into this kernel. ")
    # a kernel that has SMC, or an unknown one, changes nothing
    (row,) = pf.predict({"c": host(NATIVE_LPAR, kernel_smc={"available": True}), "s": host(NATIVE_LPAR)}, [["c", "s"]])
    assert row["prediction"] != "TCP"


def test_kernel_smc_must_be_the_modules_dict():
    with pytest.raises(pf.PreflightError, match=r"facts of c.kernel_smc: expected the kernel_smc dict"):
        pf.normalize_facts("c", host(kernel_smc="no"))
    with pytest.raises(pf.PreflightError, match=r"facts of c.kernel_smc.available: expected true, false or null"):
        pf.normalize_facts("c", host(kernel_smc={"available": "no"}))


def test_live_kernel_smc_from_a_failed_smcd_info():
    live = {
        "smc_sysctl": {"failed": True, "msg": "x"},
        "smcd_info_smcd": {
            "failed": True,
            "msg": NO_SMC_72["reason"],
            "kernel_smc": dict(NO_SMC_72, state="not built"),
        },
    }
    facts = pf.inventory_host_facts("lpar-b", LAB["lpar-b"], live=live)
    assert facts["kernel_smc"] == NO_SMC_72 and "live kernel_smc" in facts["sources"]
    assert pf.normalize_facts("lpar-b", facts)["smc"] is False
