# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every cross-object validation rule: a case that triggers it and its message."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.s390x.network.plugins.module_utils.iocp.cpc_model import normalize_cpc
from ansible_collections.s390x.network.plugins.module_utils.iocp.validate import (
    smcd_check,
    smcd_pairs,
)
from ansible_collections.s390x.network.tests.unit.plugins.module_utils.cpc_samples import load_cpc


@pytest.fixture
def lab():
    return load_cpc("lab_cpc.yml")


def errors_of(cpc):
    _m, errors, _w = normalize_cpc(cpc)
    return errors


def warnings_of(cpc):
    _m, _e, warnings = normalize_cpc(cpc)
    return warnings


def fn(fid, vf, partition, **kw):
    item = {"fid": fid, "uid": kw.pop("uid", fid), "vf": vf, "partition": partition}
    item.update(kw)
    return item


def test_fixtures_are_valid():
    assert errors_of(load_cpc("lab_cpc.yml")) == []
    assert errors_of(load_cpc("large_cpc.yml")) == []


def test_duplicate_fid(lab):
    lab["ism"][0]["functions"].append(fn(0x605, 3, "LPARA", uid=0x700))
    assert errors_of(lab) == [
        "ISM VCHID 7C8 FID 0x605: fid is a duplicate FID, already defined in ISM VCHID 7C8 FID 0x605"
    ]


def test_duplicate_fid_across_ism_and_roce(lab):
    lab["roce"] = [{"pchid": "15C", "functions": [fn(0x606, 1, "LPARB", port=1, uid=0x900)]}]
    assert errors_of(lab) == [
        "RoCE PCHID 15C FID 0x606: fid is a duplicate FID, already defined in ISM VCHID 7C8 FID 0x606"
    ]


def test_fid_in_access_list_of_two_partitions(lab):
    lab["ism"].append({"vchid": "7C9", "functions": [fn(0x605, 1, "LPARB", uid=0x705)]})
    errors = errors_of(lab)
    assert (
        "ISM VCHID 7C9 FID 0x605: fid is in the access list of more than one partition "
        "(LPARB here, LPARA in ISM VCHID 7C8 FID 0x605)" in errors
    )


def test_fid_partition_list(lab):
    lab["ism"][0]["functions"][0]["partition"] = ["LPARA", "LPARB"]
    assert (
        "ISM VCHID 7C8 FID 0x605: partition puts the FID in the access list of more than one "
        "partition (LPARA, LPARB); a FID belongs to exactly one partition" in errors_of(lab)
    )


@pytest.mark.parametrize("uid, shown", [(0, "0x0"), (0x10000, "0x10000"), ("1FFFF", "0x1FFFF")])
def test_uid_outside_range(lab, uid, shown):
    lab["ism"][0]["functions"][0]["uid"] = uid
    assert errors_of(lab) == ["ISM VCHID 7C8 FID 0x605: uid %s is outside 0001-FFFF" % shown]


def test_uid_duplicated_within_partition_with_uid_checking(lab):
    lab["ism"].append({"vchid": "7C9", "functions": [fn(0x705, 1, "LPARA", uid=0x605)]})
    assert errors_of(lab) == [
        "ISM VCHID 7C9 FID 0x705: uid 0x0605 is duplicated within partition LPARA which has UID "
        "checking (also ISM VCHID 7C8 FID 0x605)"
    ]


def test_uid_duplicate_through_candidate_list(lab):
    # FID 0x606 may be reconfigured to LPARA, which has UID checking: its UID must not clash there
    lab["ism"][0]["functions"][1]["uid"] = 0x605
    lab["ism"][0]["functions"][1]["candidates"] = ["LPARA"]
    assert errors_of(lab) == [
        "ISM VCHID 7C8 FID 0x606: uid 0x0605 is duplicated within partition LPARA which has UID "
        "checking (also ISM VCHID 7C8 FID 0x605)"
    ]


def test_uid_duplicate_allowed_without_uid_checking(lab):
    lab["uid_checking"] = ["LPARB"]
    lab["ism"].append({"vchid": "7C9", "functions": [fn(0x705, 1, "LPARA", uid=0x605)]})
    assert errors_of(lab) == []


def test_uid_missing_in_uid_checking_partition_warns(lab):
    del lab["ism"][0]["functions"][1]["uid"]
    assert errors_of(lab) == []
    assert warnings_of(lab) == [
        "ISM VCHID 7C8 FID 0x606: uid is not set but partition LPARB has UID checking; IOCP assigns "
        "an arbitrary UID, so the PCI address is not predictable"
    ]


@pytest.mark.parametrize("vf", [0, 256, 1000])
def test_vf_outside_range(lab, vf):
    lab["ism"][0]["functions"][1]["vf"] = vf
    assert errors_of(lab) == ["ISM VCHID 7C8 FID 0x606: vf %d is outside 1-255" % vf]


def test_vf_not_a_number(lab):
    lab["ism"][0]["functions"][1]["vf"] = "one"
    assert errors_of(lab) == ["ISM VCHID 7C8 FID 0x606: vf 'one' is not a decimal number"]


def test_vf_duplicated_within_vchid(lab):
    lab["ism"][0]["functions"][1]["vf"] = 1
    assert errors_of(lab) == ["ISM VCHID 7C8 FID 0x606: vf 1 is duplicated within the VCHID (also FID 0x605)"]


def test_same_vf_on_different_vchids_is_fine(lab):
    lab["ism"].append({"vchid": "7C9", "functions": [fn(0x705, 1, "LPARA", uid=0x705)]})
    assert errors_of(lab) == []


def test_roce_vf_duplicated_per_port(lab):
    lab["roce"] = [
        {
            "pchid": "15C",
            "functions": [
                fn(0x2001, 1, "LPARA", port=1),
                fn(0x2002, 1, "LPARB", port=1),
                fn(0x2003, 1, "LPARB", port=2),
            ],
        }
    ]
    assert errors_of(lab) == ["RoCE PCHID 15C FID 0x2002: vf 1 is duplicated on this PCHID/port (also FID 0x2001)"]


def test_more_than_32_ism_vchids(lab):
    lab["uid_checking"] = []
    del lab["smcd_peers"]
    lab["ism"] = [{"vchid": 0x700 + i, "functions": [fn(0x1000 + i, 1, "LPARA")]} for i in range(33)]
    assert errors_of(lab) == ["cpc: ism defines 33 ISM VCHIDs, more than the 32 a CPC supports"]
    lab["ism"] = lab["ism"][:32]
    assert errors_of(lab) == []


def test_vchid_defined_twice(lab):
    lab["ism"].append({"vchid": 0x7C8, "functions": [fn(0x705, 3, "LPARA")]})
    assert "ISM VCHID 7C8: vchid is defined twice (also ISM VCHID 7C8)" in errors_of(lab)


def test_vchid_without_functions_warns(lab):
    lab["ism"].append({"vchid": "7C9", "functions": []})
    assert "ISM VCHID 7C9: functions is empty; a VCHID without FUNCTIONs is not rendered" in warnings_of(lab)


def test_iqd_vchid_clashes_with_ism_vchid(lab):
    lab["hipersockets"][0]["vchid"] = "7C8"
    assert errors_of(lab) == ["HiperSockets CHPID F0: vchid 7C8 is already used by ISM VCHID 7C8"]


def test_chpid_number_clash_iqd_and_osa(lab):
    lab["osa"] = [
        {"chpid": "F0", "pchid": "1C0", "control_unit": "E000", "devices": "1E00-1E02", "partitions": ["LPARA"]}
    ]
    assert errors_of(lab) == [
        "OSA CHPID F0: chpid F0 is already defined as HiperSockets CHPID F0 (CHPID number and type clash in CSS 0)"
    ]


def test_chpid_defined_twice(lab):
    second = dict(lab["hipersockets"][0], control_unit="F100", devices="8300-830F")
    lab["hipersockets"].append(second)
    assert errors_of(lab) == [
        "HiperSockets CHPID F0: chpid F0 is already defined as HiperSockets CHPID F0 (CHPID number "
        "and type clash in CSS 0)"
    ]


def test_pchid_used_twice(lab):
    lab["osa"] = [
        {"chpid": "E0", "pchid": "15C", "control_unit": "E000", "devices": "1E00-1E02", "partitions": ["LPARA"]}
    ]
    lab["roce"] = [{"pchid": "15C", "functions": [fn(0x2001, 1, "LPARA", port=1)]}]
    assert errors_of(lab) == ["RoCE PCHID 15C: pchid 15C is already used by OSA CHPID E0"]


def test_device_ranges_overlap(lab):
    lab["hipersockets"].append(
        {"chpid": "F1", "control_unit": "F100", "devices": {"first": "820E", "count": 4}, "partitions": ["LPARA"]}
    )
    assert errors_of(lab) == [
        "HiperSockets CHPID F1 control unit F100: devices 820E-8211 overlap the device numbers of "
        "HiperSockets CHPID F0 control unit F000"
    ]


def test_device_ranges_overlap_iqd_and_osa(lab):
    lab["osa"] = [
        {"chpid": "E0", "pchid": "1C0", "control_unit": "E000", "devices": "81FF-8201", "partitions": ["LPARA"]}
    ]
    assert errors_of(lab) == [
        "HiperSockets CHPID F0 control unit F000: devices 8200-820F overlap the device numbers of "
        "OSA CHPID E0 control unit E000"
    ]


def test_adjacent_device_ranges_do_not_overlap(lab):
    lab["hipersockets"].append(
        {"chpid": "F1", "control_unit": "F100", "devices": {"first": "8210", "count": 16}, "partitions": ["LPARA"]}
    )
    assert errors_of(lab) == []


def test_control_unit_number_used_twice(lab):
    lab["hipersockets"].append({"chpid": "F1", "control_unit": "F000", "devices": "8300-830F", "partitions": ["LPARA"]})
    assert errors_of(lab) == [
        "HiperSockets CHPID F1 control unit F000: control unit number F000 is already used by "
        "HiperSockets CHPID F0 control unit F000"
    ]


def _cus(count):
    return [
        {"number": "%04X" % (0xA000 + i), "devices": {"first": "%04X" % (0x4000 + 4 * i), "count": 4}}
        for i in range(count)
    ]


def test_more_than_64_control_units_per_iqd_chpid(lab):
    chp = lab["hipersockets"][0]
    del chp["control_unit"], chp["devices"]
    chp["control_units"] = _cus(65)
    assert errors_of(lab) == ["HiperSockets CHPID F0: control_units has 65 control units, more than 64 per IQD CHPID"]
    chp["control_units"] = _cus(64)
    assert errors_of(lab) == []


def test_too_many_iqd_subchannels(lab):
    # 12 CHPIDs x 4 CUs x 256 devices x 2 partitions = 24576 valid subchannels
    lab["hipersockets"] = [
        {
            "chpid": "%02X" % (0xE0 + c),
            "partitions": ["LPARA", "LPARB"],
            "control_units": [
                {
                    "number": "%04X" % (0x1000 * (c + 1) + u),
                    "devices": {"first": "%04X" % (0x1000 * (c + 1) + 0x100 * u), "count": 256},
                }
                for u in range(4)
            ],
        }
        for c in range(12)
    ]
    assert errors_of(lab) == [
        "cpc: hipersockets define 24576 valid IQD subchannels (devices x partitions), more than 12288"
    ]


def test_few_iqd_devices_warn(lab):
    lab["hipersockets"][0]["devices"] = {"first": "8200", "count": 2}
    assert (
        "HiperSockets CHPID F0 control unit F000: devices count 2 is below 3; a qeth device "
        "needs read, write and data subchannels" in warnings_of(lab)
    )


@pytest.mark.parametrize("pnet", ["neta", "NET-A", "A" * 17, "", 5])
def test_pnet_id_syntax(lab, pnet):
    lab["ism"][0]["pnet_id"] = pnet
    errors = errors_of(lab)
    assert "ISM VCHID 7C8: pnet_id %r is not a valid PNET ID (1-16 characters, A-Z 0-9)" % (pnet,) in errors


@pytest.mark.parametrize("pnet", ["A", "NETA", "A" * 16, "0123456789ABCDEF"])
def test_pnet_id_syntax_ok(lab, pnet):
    lab["ism"][0]["pnet_id"] = pnet
    assert errors_of(lab) == []


def test_pnet_id_on_iqd_chpid_syntax(lab):
    lab["hipersockets"][0]["pnet_id"] = "hs net"
    assert errors_of(lab) == [
        "HiperSockets CHPID F0: pnet_id 'hs net' is not a valid PNET ID (1-16 characters, A-Z 0-9)"
    ]


def test_pnet_id_reused_on_two_ism_vchids(lab):
    lab["ism"][0]["pnet_id"] = "NETA"
    lab["ism"].append({"vchid": "7C9", "pnet_id": "NETA", "functions": [fn(0x705, 1, "LPARA")]})
    errors = errors_of(lab)
    assert (
        "ISM VCHID 7C9: pnet_id NETA is already used by ISM VCHID 7C8; PNET IDs must be unique "
        "per ISM VCHID" in errors
    )


def test_pnet_id_reused_on_two_iqd_chpids(lab):
    lab["hipersockets"][0]["pnet_id"] = "HSNET"
    lab["hipersockets"].append(
        {"chpid": "F1", "pnet_id": "HSNET", "control_unit": "F100", "devices": "8300-830F", "partitions": ["LPARA"]}
    )
    assert errors_of(lab) == [
        "HiperSockets CHPID F1: pnet_id HSNET is already used by HiperSockets CHPID F0; PNET IDs "
        "must be unique per IQD CHPID"
    ]


def test_smcd_peers_on_different_vchids(lab):
    lab["ism"][0]["functions"].pop()
    lab["ism"].append({"vchid": "7C9", "functions": [fn(0x606, 1, "LPARB")]})
    assert errors_of(lab) == [
        "smcd_peers g1 <-> LPARB: pnet_id/vchid cannot use SMC-D: FIDs on different VCHIDs (7C8 vs 7C9)"
    ]


def test_smcd_peers_native_and_non_native(lab):
    lab["ism"][0]["functions"][1]["pnet_id"] = "NETA"
    assert errors_of(lab) == [
        "smcd_peers g1 <-> LPARB: pnet_id/vchid cannot use SMC-D: VCHID 7C8: one native (PNET ID "
        "NETA) and one non-native"
    ]


def test_smcd_peers_native_with_different_pnet_ids(lab):
    lab["ism"][0]["functions"][0]["pnet_id"] = "NETA"
    lab["ism"][0]["functions"][1]["pnet_id"] = "NETB"
    assert errors_of(lab) == [
        "smcd_peers g1 <-> LPARB: pnet_id/vchid cannot use SMC-D: VCHID 7C8: native with different "
        "PNET IDs (NETA vs NETB)"
    ]


def test_smcd_peers_native_same_pnet_id_ok(lab):
    lab["ism"][0]["pnet_id"] = "NETA"
    assert errors_of(lab) == []


def test_smcd_peer_without_ism(lab):
    lab["ism"][0]["functions"].pop()
    assert errors_of(lab) == ["smcd_peers g1 <-> LPARB: pnet_id/vchid cannot use SMC-D: no ISM function"]


def test_smcd_peer_unknown_name(lab):
    lab["smcd_peers"] = [["g1", "g9"]]
    assert errors_of(lab) == ["smcd_peers[0]: names g9 which is neither a partition nor a guest with an ISM function"]


@pytest.mark.parametrize("group", [["g1"], "g1,LPARB", [1, 2]])
def test_smcd_peer_group_shape(lab, group):
    lab["smcd_peers"] = [group]
    assert errors_of(lab) == ["smcd_peers[0]: must be a list of at least two partition or guest names"]


def test_implicit_pairs_on_a_shared_chpid_warn(lab):
    del lab["smcd_peers"]
    lab["ism"][0]["functions"].pop()
    lab["ism"].append({"vchid": "7C9", "functions": [fn(0x606, 1, "LPARB")]})
    assert errors_of(lab) == []
    assert warnings_of(lab) == [
        "ism: LPARB <-> g1 share a HiperSockets CHPID but cannot use SMC-D (FIDs on different "
        "VCHIDs (7C9 vs 7C8)); list them in smcd_peers to make this an error"
    ]


def test_implicit_pairs_need_a_shared_chpid(lab):
    del lab["smcd_peers"]
    lab["hipersockets"][0]["partitions"] = ["LPARA"]
    lab["ism"][0]["functions"].pop()
    lab["ism"].append({"vchid": "7C9", "functions": [fn(0x606, 1, "LPARB")]})
    assert warnings_of(lab) == []


def test_duplicate_partition_and_mif(lab):
    lab["partitions"].append({"name": "LPARA", "mif_id": 2})
    errors = errors_of(lab)
    assert "partition LPARA: name is defined twice" in errors
    assert "partition LPARA: mif_id 2 is already used by partition LPARB" in errors


def test_smcd_check_and_pairs():
    assert smcd_check({(1, None)}, {(1, None)}) == (True, "non-native", 1)
    assert smcd_check({(1, "A")}, {(1, "A"), (2, None)}) == (True, "native", 1)
    assert smcd_check(set(), {(1, None)}) == (False, "no ISM function", None)
    model, _e, _w = normalize_cpc(load_cpc("large_cpc.yml"))
    pairs = dict(((p["a"], p["b"]), p) for p in smcd_pairs(model))
    assert pairs[("LNXA", "ZOS1")]["smcd"] is True
    assert pairs[("LNXA", "ZOS1")]["vchid"] == 0x7C1
    assert pairs[("LNXB", "g1")]["smcd"] is True
    assert pairs[("LNXA", "LNXB")]["smcd"] is False
    assert pairs[("LNXA", "LNXB")]["reason"] == "FIDs on different VCHIDs (7C1 vs 7C0)"
