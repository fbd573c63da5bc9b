# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Normalisation and field validation of the ``cpc`` data model."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

import pytest

from ansible_collections.s390x.network.plugins.module_utils.iocp.cpc_model import (
    iqd_devices,
    normalize_cpc,
    partition_by_host,
    partition_functions,
)
from ansible_collections.s390x.network.tests.unit.plugins.module_utils.cpc_samples import load_cpc


@pytest.fixture
def lab():
    return load_cpc("lab_cpc.yml")


def test_lab_normalises_without_findings(lab):
    model, errors, warnings = normalize_cpc(lab)
    assert errors == []
    assert warnings == []
    assert model["name"] == "ZLAB"
    assert model["machine"] == "z16"
    assert model["css"] == 0
    assert model["uid_checking"] == ["LPARA", "LPARB"]
    assert model["partitions"] == [
        {"name": "LPARA", "mif_id": 1, "host": "lpar-a"},
        {"name": "LPARB", "mif_id": 2, "host": "lpar-b"},
    ]
    assert model["hipersockets"] == [
        {
            "chpid": "F0",
            "frame_size": "40K",
            "vchid": None,
            "pnet_id": None,
            "partitions": ["LPARA", "LPARB"],
            "control_units": [{"number": "F000", "devices": {"first": "8200", "count": 16}}],
        }
    ]
    ism = model["ism"][0]
    assert ism["vchid"] == 0x7C8 and ism["pnet_id"] is None
    assert ism["functions"][0] == {
        "fid": 0x605,
        "uid": 0x605,
        "vf": 1,
        "partition": "LPARA",
        "candidates": ["LPARA"],
        "pnet_id": None,
        "guest": "g1",
    }
    assert model["smcd_peers"] == [["g1", "LPARB"]]


def test_input_is_not_modified(lab):
    before = copy.deepcopy(lab)
    normalize_cpc(lab)
    assert lab == before


@pytest.mark.parametrize(
    "raw, expected",
    [
        (0x605, 0x605),
        ("605", 0x605),
        ("0x605", 0x605),
        ("0X605", 0x605),
        (" 7c8 ", 0x7C8),
    ],
)
def test_fid_uid_vchid_accept_int_or_hex_string(lab, raw, expected):
    lab["ism"][0]["vchid"] = raw
    lab["ism"][0]["functions"][0]["fid"] = raw
    lab["ism"][0]["functions"][1]["fid"] = 0x999
    lab["ism"][0]["functions"][0]["uid"] = raw
    model, errors, _w = normalize_cpc(lab)
    assert errors == []
    assert model["ism"][0]["vchid"] == expected
    assert model["ism"][0]["functions"][0]["fid"] == expected
    assert model["ism"][0]["functions"][0]["uid"] == expected


@pytest.mark.parametrize("raw", ["xyz", "", "0x", True, 1.5, -1])
def test_bad_fid_is_an_error_naming_the_field(lab, raw):
    lab["ism"][0]["functions"][0]["fid"] = raw
    _m, errors, _w = normalize_cpc(lab)
    assert any("function 0: fid" in e and "is not a number" in e for e in errors), errors


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("f0", "F0"),
        ("0xF0", "F0"),
        ("5", "05"),
    ],
)
def test_chpid_is_upper_case_two_digit_hex(lab, raw, expected):
    lab["hipersockets"][0]["chpid"] = raw
    model, errors, _w = normalize_cpc(lab)
    assert errors == []
    assert model["hipersockets"][0]["chpid"] == expected


def test_integer_chpid_is_read_as_its_value_with_a_warning(lab):
    lab["hipersockets"][0]["chpid"] = 10
    model, errors, warnings = normalize_cpc(lab)
    assert errors == []
    assert model["hipersockets"][0]["chpid"] == "0A"
    assert any("chpid was given as the integer 10" in w for w in warnings)


@pytest.mark.parametrize(
    "devices, expected",
    [
        ({"first": "8200", "count": 16}, {"first": "8200", "count": 16}),
        ({"first": "0.0.8200", "count": "3"}, {"first": "8200", "count": 3}),
        ({"first": "c0"}, {"first": "00C0", "count": 1}),
        ("8200-820F", {"first": "8200", "count": 16}),
    ],
)
def test_device_forms(lab, devices, expected):
    lab["hipersockets"][0]["devices"] = devices
    model, errors, _w = normalize_cpc(lab)
    assert errors == []
    assert model["hipersockets"][0]["control_units"][0]["devices"] == expected


@pytest.mark.parametrize(
    "devices, message",
    [
        ({"first": "8200", "count": 257}, "devices.count 257 is outside 1-256"),
        ({"first": "8200", "count": 0}, "devices.count 0 is outside 1-256"),
        ({"first": "FFF0", "count": 32}, "runs past device number FFFF"),
        ("820F-8200", "ends before it starts"),
        (None, "devices is required"),
    ],
)
def test_device_errors(lab, devices, message):
    lab["hipersockets"][0]["devices"] = devices
    _m, errors, _w = normalize_cpc(lab)
    assert any(message in e and "HiperSockets CHPID F0 control unit F000" in e for e in errors), errors


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("40K", "40K"),
        ("40k", "40K"),
        ("64KB", "64K"),
        (16, "16K"),
        ("24 K", "24K"),
        (None, "16K"),
    ],
)
def test_frame_size_forms(lab, raw, expected):
    if raw is None:
        del lab["hipersockets"][0]["frame_size"]
    else:
        lab["hipersockets"][0]["frame_size"] = raw
    model, errors, _w = normalize_cpc(lab)
    assert errors == []
    assert model["hipersockets"][0]["frame_size"] == expected


@pytest.mark.parametrize("raw", ["32K", "8K", "40M", "big"])
def test_frame_size_not_allowed(lab, raw):
    lab["hipersockets"][0]["frame_size"] = raw
    _m, errors, _w = normalize_cpc(lab)
    assert errors == ["HiperSockets CHPID F0: frame_size %r is not one of 16K, 24K, 40K, 64K" % raw]


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("*", ["LPARA", "LPARB"]),
        (True, ["LPARA", "LPARB"]),
        (False, []),
        ([], []),
        (["lparb", "LPARA"], ["LPARA", "LPARB"]),
        ("LPARB", ["LPARB"]),
    ],
)
def test_uid_checking_forms(lab, raw, expected):
    lab["uid_checking"] = raw
    model, errors, _w = normalize_cpc(lab)
    assert errors == []
    assert model["uid_checking"] == expected


def test_uid_checking_unknown_partition(lab):
    lab["uid_checking"] = ["LPARA", "LPARX"]
    _m, errors, _w = normalize_cpc(lab)
    assert errors == ["cpc: uid_checking names partition LPARX which is not in cpc.partitions"]


def test_partition_names_are_upper_cased_everywhere(lab):
    lab["partitions"][0]["name"] = "lpara"
    lab["hipersockets"][0]["partitions"] = ["lpara", "LPARB"]
    lab["ism"][0]["functions"][0]["partition"] = "lpara"
    model, errors, _w = normalize_cpc(lab)
    assert errors == []
    assert model["partitions"][0]["name"] == "LPARA"
    assert model["ism"][0]["functions"][0]["partition"] == "LPARA"


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("name", "1ABC", "cpc: name '1ABC' is not a CPC name"),
        ("name", "TOOLONGNAME", "is not a CPC name"),
        ("machine", "z14", "cpc: machine 'z14' is not one of z15, z16, z17"),
        ("css", 6, "cpc: css 6 is outside 0-5"),
        ("css", "x", "cpc: css 'x' is not a decimal number"),
        ("partitions", None, "cpc: partitions is required"),
        ("partitions", "LPARA", "cpc: partitions must be a list"),
        ("hipersockets", {"chpid": "F0"}, "cpc: hipersockets must be a list"),
    ],
)
def test_top_level_field_errors(lab, field, value, message):
    lab[field] = value
    _m, errors, _w = normalize_cpc(lab)
    assert any(message in e for e in errors), errors


def test_not_a_mapping():
    model, errors, warnings = normalize_cpc(["ZLAB"])
    assert model == {}
    assert errors == ["cpc: must be a mapping (see docs/cpc-model.md)"]
    assert warnings == []


@pytest.mark.parametrize(
    "mif, message",
    [
        (0, "mif_id 0 is not a MIF image id 1-F"),
        (16, "mif_id 16 is not a MIF image id 1-F"),
        ("G", "mif_id 'G' is not a MIF image id 1-F"),
        (None, "mif_id None is not a MIF image id 1-F"),
    ],
)
def test_mif_id_errors(lab, mif, message):
    lab["partitions"][1]["mif_id"] = mif
    _m, errors, _w = normalize_cpc(lab)
    assert "partition LPARB: " + message in errors


def test_mif_id_hex_string(lab):
    lab["partitions"][1]["mif_id"] = "B"
    model, errors, _w = normalize_cpc(lab)
    assert errors == [] and model["partitions"][1]["mif_id"] == 11


@pytest.mark.parametrize("name", ["1LPAR", "LPAR-A", "LONGNAME9", ""])
def test_partition_name_errors(lab, name):
    lab["partitions"][1]["name"] = name
    _m, errors, _w = normalize_cpc(lab)
    assert any(e.startswith("partition 1: name") for e in errors), errors


def test_unknown_partition_references(lab):
    lab["hipersockets"][0]["partitions"] = ["LPARA", "LPARC"]
    lab["ism"][0]["functions"][1]["partition"] = "LPARD"
    _m, errors, _w = normalize_cpc(lab)
    assert "HiperSockets CHPID F0: partitions names partition LPARC which is not in cpc.partitions" in errors
    assert "ISM VCHID 7C8 FID 0x606: partition names partition LPARD which is not in cpc.partitions" in errors


def test_unknown_keys_warn(lab):
    lab["ism"][0]["functions"][0]["fidd"] = 1
    lab["colour"] = "blue"
    _m, errors, warnings = normalize_cpc(lab)
    assert errors == []
    assert any(w.startswith("cpc: colour is not a known field") for w in warnings)
    assert any("FID 0x605: fidd is not a known field" in w for w in warnings)


@pytest.mark.parametrize("guest", ["my guest", "", "x" * 49, 5])
def test_guest_name_errors(lab, guest):
    lab["ism"][0]["functions"][0]["guest"] = guest
    _m, errors, _w = normalize_cpc(lab)
    assert any("FID 0x605: guest" in e for e in errors), errors


def test_control_units_list_and_single_form_are_the_same(lab):
    single, _e, _w = normalize_cpc(lab)
    del lab["hipersockets"][0]["control_unit"]
    del lab["hipersockets"][0]["devices"]
    lab["hipersockets"][0]["control_units"] = [{"number": "f000", "devices": "8200-820f"}]
    listed, errors, _w = normalize_cpc(lab)
    assert errors == []
    assert listed == single


def test_control_units_cannot_mix_forms(lab):
    lab["hipersockets"][0]["control_units"] = [{"number": "F001", "devices": "8300-830F"}]
    _m, errors, _w = normalize_cpc(lab)
    assert "HiperSockets CHPID F0: control_units cannot be combined with control_unit/devices" in errors


def test_vchid_pnet_id_is_inherited_by_functions(lab):
    lab["ism"][0]["pnet_id"] = "NETA"
    model, errors, _w = normalize_cpc(lab)
    assert errors == []
    assert [f["pnet_id"] for f in model["ism"][0]["functions"]] == ["NETA", "NETA"]
    assert model["ism"][0]["pnet_id"] == "NETA"


def test_mixed_function_pnet_ids_leave_vchid_pnet_unset(lab):
    lab["ism"][0]["pnet_id"] = "NETA"
    lab["ism"][0]["functions"][1]["pnet_id"] = None
    model, _e, _w = normalize_cpc(lab)
    assert model["ism"][0]["pnet_id"] is None
    assert [f["pnet_id"] for f in model["ism"][0]["functions"]] == ["NETA", None]


def test_candidates_include_the_access_partition(lab):
    lab["ism"][0]["functions"][1]["candidates"] = ["LPARA"]
    model, errors, _w = normalize_cpc(lab)
    assert errors == []
    assert model["ism"][0]["functions"][1]["candidates"] == ["LPARB", "LPARA"]


def test_roce_port_required_for_roc2(lab):
    lab["roce"] = [{"pchid": "15C", "functions": [{"fid": 0x2001, "vf": 1, "partition": "LPARA"}]}]
    _m, errors, _w = normalize_cpc(lab)
    assert "RoCE PCHID 15C FID 0x2001: port is required" in errors


def test_roce_port_range(lab):
    func = {"fid": 0x2001, "vf": 1, "port": 3, "partition": "LPARA"}
    lab["roce"] = [{"pchid": "15C", "functions": [func]}]
    _m, errors, _w = normalize_cpc(lab)
    assert "RoCE PCHID 15C FID 0x2001: port 3 is not 1 or 2" in errors


def test_osa_type(lab):
    lab["osa"] = [
        {
            "chpid": "E0",
            "pchid": "1C0",
            "type": "OSX",
            "control_unit": "E000",
            "devices": "1E00-1E02",
            "partitions": ["LPARA"],
        }
    ]
    _m, errors, _w = normalize_cpc(lab)
    assert "OSA CHPID E0: type 'OSX' is not one of OSD" in errors


def test_iqd_devices_helper(lab):
    model, _e, _w = normalize_cpc(lab)
    devices = list(iqd_devices(model))
    assert len(devices) == 16
    assert devices[0] == {
        "devno": "8200",
        "busid": "0.0.8200",
        "chpid": "F0",
        "frame_size": "40K",
        "control_unit": "F000",
        "partitions": ["LPARA", "LPARB"],
    }
    assert devices[-1]["busid"] == "0.0.820f"


def test_partition_functions_helper(lab):
    model, _e, _w = normalize_cpc(lab)
    funcs = partition_functions(model, "LPARA")
    assert [(f["fid"], f["type"], f["vchid"], f["guest"]) for f in funcs] == [(0x605, "ISM", 0x7C8, "g1")]
    assert partition_functions(model, "LPARX") == []


def test_partition_by_host_helper(lab):
    lab["partitions"].append({"name": "LPARC", "mif_id": 3})
    model, _e, _w = normalize_cpc(lab)
    hosts = partition_by_host(model)
    assert sorted(hosts) == ["lpar-a", "lpar-b"]
    assert hosts["lpar-b"]["name"] == "LPARB"


def _native_guest_cpc(pnet="PNETB"):
    return {
        "name": "PRODB",
        "machine": "z17",
        "css": 0,
        "partitions": [{"name": "KVMP2", "mif_id": 1, "host": "kvmp2"}, {"name": "DBP2", "mif_id": 2}],
        "ism": [
            {
                "vchid": "7E1",
                "pnet_id": pnet,
                "functions": [
                    {"fid": 0x1017, "uid": 0x17, "vf": 1, "partition": "KVMP2", "guest": "app3"},
                    {"fid": 0x1018, "uid": 0x18, "vf": 2, "partition": "DBP2"},
                ],
            }
        ],
    }


def test_a_guest_with_a_native_ism_function_needs_a_software_pnet_entry():
    from ansible_collections.s390x.network.plugins.module_utils.iocp.cpc_model import guest_pnet_findings

    model, errors, _w = normalize_cpc(_native_guest_cpc())
    assert errors == []
    (finding,) = guest_pnet_findings(model, {"app3": None})
    assert finding.startswith("ism VCHID 7E1 fid 0x1017: guest app3 gets a native ISM function (PNET ID PNETB)")
    assert "{pnet_id: PNETB, interface:" in finding and "pnet_id: null" in finding
    # an entry under another PNET ID, or for a device port only, does not help
    unhelpful = [{"pnet_id": "NETX", "interface": "enc1"}, {"pnet_id": "PNETB", "ib_device": "ism0"}]
    assert len(guest_pnet_findings(model, {"app3": unhelpful})) == 1
    # the entry that helps (PNET IDs compare case-insensitively, the kernel stores them upper case)
    assert guest_pnet_findings(model, {"app3": [{"pnet_id": "pnetb", "interface": "enc1"}]}) == []
    # a guest the inventory does not manage is not checked; a non-native ISMv2 function needs nothing
    assert guest_pnet_findings(model, {}) == []
    model2, _e, _w = normalize_cpc(_native_guest_cpc(pnet=None))
    assert guest_pnet_findings(model2, {"app3": None}) == []


def test_the_example_inventory_gives_its_native_ism_guest_a_pnet_entry():
    import os
    import yaml
    from ansible_collections.s390x.network.plugins.filter.guest_pnet_findings import guest_pnet_findings

    inv = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "inventories", "example")
    with open(os.path.join(inv, "group_vars", "all", "cpcs.yml")) as handle:
        cpcs = yaml.safe_load(handle)
    configs = {}
    for name in os.listdir(os.path.join(inv, "host_vars")):
        with open(os.path.join(inv, "host_vars", name)) as handle:
            configs[name[:-4]] = (yaml.safe_load(handle) or {}).get("smc_pnet_config")
    assert guest_pnet_findings([v for k, v in sorted(cpcs.items()) if k.startswith("cpc_")], configs) == []
    configs["app3"] = None
    assert len(guest_pnet_findings([cpcs["cpc_prodb"]], configs)) == 1


def test_roce_adapter_is_a_known_field_and_warnings_name_the_pchid(lab):
    """zlab's README asks for adapter: express3 on a ROC2 entry: no warning for it, and a warning
    for a key that is really unknown names the PCHID, not the entry's index."""
    card = {"pchid": "17C", "type": "ROC2", "adapter": "express3"}
    card["functions"] = [{"fid": 0x2A0, "uid": 0x2A0, "vf": 1, "port": 1, "partition": "LPARA"}]
    lab["roce"] = [card, {"pchid": "1A0", "type": "ROCE", "functions": [], "colour": "blue"}]
    model, errors, warnings = normalize_cpc(lab)
    assert errors == []
    assert [r["adapter"] for r in model["roce"]] == ["express3", None]
    assert [w for w in warnings if w.startswith("RoCE PCHID 17C") or "RoCE 0" in w] == []
    assert [w.split(" is not")[0] for w in warnings if "is not a known field" in w] == ["RoCE PCHID 1A0: colour"]


@pytest.mark.parametrize(
    "rtype,adapter,message",
    [
        ("ROCE", "express3", "RoCE PCHID 17C: adapter express3 does not fit type ROCE"),
        ("ROC2", "express", "RoCE PCHID 17C: adapter express does not fit type ROC2"),
        ("ROC2", "express9", "RoCE PCHID 17C: adapter 'express9' is not one of express, express2, express3"),
    ],
)
def test_roce_adapter_must_fit_the_type(lab, rtype, adapter, message):
    lab["roce"] = [{"pchid": "17C", "type": rtype, "adapter": adapter, "functions": []}]
    _m, errors, _w = normalize_cpc(lab)
    assert any(e.startswith(message) for e in errors), errors
