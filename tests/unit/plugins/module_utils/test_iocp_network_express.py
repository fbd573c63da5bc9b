# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""z17 / LinuxONE 5 and Network Express: every IOCP rule renders or rejects a statement.

The rules and their IOCP messages (ICP182I, ICP201I, ICP210I, ICP217I, ICP219I) are listed in
docs/iocp-sources.md; the sample CPC is tests/unit/fixtures/iocp/z17_cpc.yml."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re

import pytest
import yaml

from ansible_collections.s390x.network.plugins.module_utils.iocp.compare import compare_models
from ansible_collections.s390x.network.plugins.module_utils.iocp.cpc_model import (
    FUNCTION_PFT,
    normalize_cpc,
    partition_functions,
    smcr_functions,
)
from ansible_collections.s390x.network.plugins.module_utils.iocp.parse import parse_deck
from ansible_collections.s390x.network.plugins.module_utils.iocp.render import card_images, render_fragment
from ansible_collections.s390x.network.plugins.module_utils.iocp.report import render_dot, render_report
from ansible_collections.s390x.network.tests.unit.plugins.module_utils.cpc_samples import (
    fixture_text,
    load_cpc,
)
from ansible_collections.s390x.network.tests.unit.plugins.module_utils.test_iocp_render import check_layout


@pytest.fixture
def z17():
    return load_cpc("z17_cpc.yml")


def normalized(cpc):
    model, errors, warnings = normalize_cpc(cpc)
    return model, errors, warnings


def errors_of(cpc):
    return normalize_cpc(cpc)[1]


def rendered(cpc):
    """The fragment of a valid ``cpc`` with continuations joined (one statement per line)."""
    model, errors, _w = normalize_cpc(cpc)
    assert errors == []
    text = render_fragment(model)
    check_layout(text)
    return joined(text)


def joined(text):
    """Card images with each continued statement on one line."""
    return re.sub(r" *X\n {15}", "", text)


def port_of(cpc, pchid):
    return [p for p in cpc["network_express"] if p["pchid"] == pchid][0]


def func_of(cpc, fid):
    return [f for p in cpc["network_express"] for f in p["functions"] if f["fid"] == fid][0]


DECK_HEAD = """ ID       MSG1='T',SYSTEM=(9175,1),LSYSTEM=ZNEXT
 RESOURCE PARTITION=((CSS(0),(LP01,1),(LP02,2)))
"""


def cards(*statements):
    """Card images of statements written on one line (``"FUNCTION FID=10,..."``)."""
    lines = []
    for statement in statements:
        operation, operand = statement.split(" ", 1)
        params, depth, current = [], 0, ""
        for char in operand:
            depth += {"(": 1, ")": -1}.get(char, 0)
            if char == "," and depth == 0:
                params.append(current)
                current = ""
            else:
                current += char
        lines += card_images(operation, params + [current])
    return "\n".join(lines) + "\n"


def parsed_model(*statements):
    parsed = parse_deck(DECK_HEAD + cards(*statements))
    model, errors, warnings = normalize_cpc(parsed["cpc"])
    return model, errors, parsed["warnings"] + warnings, parsed


# -- the sample CPC: golden fragment, round trip, both machine types -------------------------------


def test_z17_golden_fragment(z17):
    model, errors, warnings = normalized(z17)
    assert errors == [] and warnings == []
    assert model["machine"] == "z17" and model["machine_type"] == "9176"
    assert render_fragment(model) == fixture_text("z17.iocp")
    check_layout(fixture_text("z17.iocp"))


def test_z17_render_parse_render_is_byte_for_byte():
    parsed = parse_deck(fixture_text("z17.iocp"))
    assert parsed["unparsed"] == [] and parsed["warnings"] == []
    model, errors, _w = normalize_cpc(parsed["cpc"])
    assert errors == []
    assert render_fragment(model) == fixture_text("z17.iocp")
    assert model == normalize_cpc(load_cpc("z17_cpc.yml"))[0]
    assert compare_models(normalize_cpc(load_cpc("z17_cpc.yml"))[0], model) == []


def test_neth_with_fidparm_and_osh_on_one_port(z17):
    text = rendered(z17)
    assert (
        " CHPID    PATH=(CSS(0),D0),PCHID=314,SHARED,PARTITION=((CSS(0),(ZOS1),(=))),TYPE=OSH,PNETID=NETWORK1\n"
        " CNTLUNIT CUNUMBR=D000,PATH=((CSS(0),D0)),UNIT=OSA,UNITADD=((00,3))\n"
        " IODEVICE ADDRESS=(D000,3),CUNUMBR=(D000),UNIT=OSA\n"
        " FUNCTION FID=10,PCHID=314,VF=1,PART=((LNX1),(LNX1)),PNETID=NETWORK1,TYPE=NETH,FIDPARM=01,UID=0010\n"
    ) in text
    assert "*@ CARD 314 NX01\n" in text and "*@ CARD 318 NX01\n" in text


def test_netd_pf_and_vf(z17):
    text = rendered(z17)
    assert " FUNCTION FID=20,PCHID=330,PF,PART=((LNX2),(LNX2)),PNETID=NETWORK3,TYPE=NETD,UID=0020\n" in text
    assert " FUNCTION FID=21,PCHID=330,VF=1,PART=((LNX1),(LNX1)),PNETID=NETWORK3,TYPE=NETD,UID=0021\n" in text


def test_no_port_keyword_on_network_express(z17):
    text = rendered(z17)
    netx = [line for line in text.splitlines() if line.startswith(" FUNCTION") and ",TYPE=NET" in line]
    assert len(netx) == 5 and not any("PORT=" in line for line in netx)


@pytest.mark.parametrize(
    "machine, generation, mtype",
    [
        ("z17", "z17", "9175"),
        ("9175", "z17", "9175"),
        ("9176", "z17", "9176"),
        (9176, "z17", "9176"),
        ("LinuxONE 5", "z17", "9175"),
        ("linuxone5", "z17", "9175"),
        ("z16", "z16", "3931"),
        ("3932", "z16", "3932"),
        ("LinuxONE 4", "z16", "3931"),
        ("8562", "z15", "8562"),
    ],
)
def test_machine_names_and_types(z17, machine, generation, mtype):
    z17["machine"] = machine
    if generation != "z17":
        z17.pop("network_express")
    model, errors, _w = normalized(z17)
    assert errors == []
    assert (model["machine"], model["machine_type"]) == (generation, mtype)
    text = render_fragment(model)
    assert "SYSTEM=(%s,1)" % mtype in text
    assert "(%s, machine type %s)" % (generation, mtype) in text
    again = normalize_cpc(parse_deck(text)["cpc"])[0]
    assert (again["machine"], again["machine_type"]) == (generation, mtype)


def test_unknown_machine_names_the_accepted_values(z17):
    z17["machine"] = "z18"
    assert (
        "cpc: machine 'z18' is not one of z15, z16, z17, linuxone3, linuxone4, linuxone5, linuxoneiii or a machine "
        "type 3931, 3932, 8561, 8562, 9175, 9176" in errors_of(z17)
    )


# -- which machine has which adapter ---------------------------------------------------------------

ROCE = [{"pchid": 0x15C, "type": "ROC2", "functions": [{"fid": 0x2001, "vf": 1, "port": 1, "partition": "LNX1"}]}]


@pytest.mark.parametrize("machine", ["z17", "9176", "LinuxONE 5"])
def test_roce_is_refused_on_z17_naming_network_express(z17, machine):
    z17.update(machine=machine, roce=ROCE)
    mtype = "9176" if machine == "9176" else "9175"
    assert errors_of(z17) == [
        "RoCE PCHID 15C FID 0x2001: type ROC2 (RoCE Express) is not supported on z17 (machine type %s); use "
        "Network Express (network_express, FUNCTION TYPE=NETH or TYPE=NETD)" % mtype
    ]


def test_roce_renders_on_z16(z17):
    z17.update(machine="z16", roce=ROCE)
    z17.pop("network_express")
    assert " FUNCTION FID=2001,PCHID=15C,PORT=1,VF=1,PART=((LNX1),(LNX1)),TYPE=ROC2\n" in rendered(z17)


def test_network_express_is_refused_before_z17(z17):
    z17["machine"] = "z16"
    errors = errors_of(z17)
    assert len(errors) == 3
    assert errors[0] == (
        "Network Express PCHID 314: type NETH (Network Express) is not supported on z16 (machine type 3931); it "
        "needs a z17 or LinuxONE 5 (machine type 9175 or 9176)"
    )


def test_iqd_ism_and_osd_are_unchanged_on_z17(z17):
    text = rendered(z17)
    assert "TYPE=IQD,CHPARM=80\n" in text
    assert " FUNCTION FID=1001,VCHID=7C0,VF=1,PART=((LNX1),(LNX1)),TYPE=ISM,UID=1001\n" in text
    assert "PARTITION=((CSS(0),(LNX1,LNX2),(=))),TYPE=OSD\n" in text


# -- the FUNCTION keywords of NETH and NETD ---------------------------------------------------------


@pytest.mark.parametrize("pchid, fid, ntype", [(0x314, 0x10, "NETH"), (0x330, 0x21, "NETD")])
def test_port_keyword_is_refused(z17, pchid, fid, ntype):
    func_of(z17, fid)["port"] = 1
    assert errors_of(z17) == [
        "Network Express PCHID %03X FID 0x%x: port 1 is not allowed on TYPE=%s: the PCHID is the port (PORT=, "
        "ICP201I)" % (pchid, fid, ntype)
    ]


def test_port_keyword_in_a_deck_is_refused():
    _m, errors, _w, _p = parsed_model("FUNCTION FID=10,PCHID=314,PORT=2,VF=1,PART=((LP01)),TYPE=NETH")
    assert errors == [
        "Network Express PCHID 314 FID 0x10: port '2' is not allowed on TYPE=NETH: the PCHID is the port "
        "(PORT=, ICP201I)"
    ]


def test_pf_is_refused_on_neth(z17):
    func = func_of(z17, 0x11)
    func.pop("vf")
    func["pf"] = True
    assert errors_of(z17) == [
        "Network Express PCHID 314 FID 0x11: pf true is not allowed on TYPE=NETH: only a NETD port has a PF "
        "(PF, ICP201I)"
    ]


def test_pf_and_vf_exclude_each_other(z17):
    func_of(z17, 0x20)["vf"] = 5
    assert errors_of(z17) == [
        "Network Express PCHID 330 FID 0x20: pf true and vf 5 exclude each other: a FUNCTION is the PF or a VF "
        "(PF, VF, ICP182I)"
    ]


def test_pf_and_vf_in_a_deck_are_refused():
    _m, errors, _w, _p = parsed_model("FUNCTION FID=20,PCHID=330,PF,VF=3,PART=((LP01)),TYPE=NETD")
    assert errors == [
        "Network Express PCHID 330 FID 0x20: pf true and vf 3 exclude each other: a FUNCTION is the PF or a VF "
        "(PF, VF, ICP182I)"
    ]


@pytest.mark.parametrize(
    "fid, hint",
    [(0x11, ""), (0x21, ", or pf: true for the port's physical function")],
)
def test_vf_is_required(z17, fid, hint):
    func_of(z17, fid).pop("vf")
    assert errors_of(z17) == [
        "Network Express PCHID %s FID 0x%x: vf is required (VF=%s; ICP219I)"
        % ("314" if fid == 0x11 else "330", fid, hint)
    ]


def test_pf_must_be_a_boolean(z17):
    func_of(z17, 0x20)["pf"] = "yes"
    errors = errors_of(z17)
    assert "Network Express PCHID 330 FID 0x20: pf 'yes' is not true or false" in errors


@pytest.mark.parametrize("value, shown", [("01", "01"), ("00", "00"), (1, "01"), (0, "00"), ("0x01", "01")])
def test_fidparm_values_render(z17, value, shown):
    func_of(z17, 0x11)["fidparm"] = value
    assert "PNETID=NETWORK1,TYPE=NETH,FIDPARM=%s,UID=0011\n" % shown in rendered(z17)


@pytest.mark.parametrize("value", ["02", 2, "1F", "on", True])
def test_fidparm_other_values_are_refused(z17, value):
    func_of(z17, 0x11)["fidparm"] = value
    assert errors_of(z17) == [
        "Network Express PCHID 314 FID 0x11: fidparm %r is not 00 or 01 (FIDPARM, ICP210I)" % (value,)
    ]


def test_fidparm_is_refused_on_netd(z17):
    func_of(z17, 0x21)["fidparm"] = "01"
    assert errors_of(z17) == [
        "Network Express PCHID 330 FID 0x21: fidparm 01 is not allowed on TYPE=NETD: FIDPARM is for NETH only "
        "(ICP210I)"
    ]


def test_two_pnet_ids_on_a_port_are_refused():
    _m, errors, _w, _p = parsed_model("FUNCTION FID=10,PCHID=314,VF=1,PART=((LP01)),PNETID=(NETA,NETB),TYPE=NETH")
    assert errors == [
        "Network Express PCHID 314 FID 0x10: pnet_id has 2 PNET IDs (NETA, NETB); TYPE=NETH takes one, the "
        "port's (PNETID, ICP217I)"
    ]


def test_functions_of_a_port_carry_one_pnet_id(z17):
    func_of(z17, 0x11)["pnet_id"] = "OTHER"
    assert errors_of(z17) == [
        "Network Express PCHID 314 FID 0x11: pnet_id OTHER differs from NETWORK1 of FID 0x10 on the same PCHID; a "
        "port has one PNET ID (PNETID)",
    ]


def test_osh_and_neth_pnet_ids_must_agree(z17):
    port_of(z17, 0x314)["osh"]["pnet_id"] = "NETWORK9"
    assert errors_of(z17) == [
        "Network Express PCHID 314 OSH CHPID D0: pnet_id NETWORK9 differs from NETWORK1 of NETH FID 0x10 on the "
        "same PCHID; the OSH CHPID and the NETH functions of a port carry the same PNET ID (PNETID)"
    ]


def test_pnet_id_syntax(z17):
    port_of(z17, 0x318)["pnet_id"] = "net-2"
    assert "Network Express PCHID 318: pnet_id 'net-2' is not a valid PNET ID (1-16 characters, A-Z 0-9)" in (
        errors_of(z17)
    )


@pytest.mark.parametrize("fid, vf, ok", [(0x11, 123, True), (0x11, 0, True), (0x11, 124, False), (0x21, 127, True)])
def test_vf_range_per_type(z17, fid, vf, ok):
    func_of(z17, fid)["vf"] = vf
    if ok:
        assert ",VF=%d," % vf in rendered(z17)
    else:
        assert errors_of(z17) == ["Network Express PCHID 314 FID 0x11: vf 124 is outside 0-123 per port for TYPE=NETH"]


def test_netd_vf_above_127_is_refused(z17):
    func_of(z17, 0x21)["vf"] = 128
    assert errors_of(z17) == ["Network Express PCHID 330 FID 0x21: vf 128 is outside 0-127 per port for TYPE=NETD"]


def test_vf_is_unique_per_port_not_per_card(z17):
    func_of(z17, 0x11)["vf"] = 1
    assert errors_of(z17) == ["Network Express PCHID 314 FID 0x11: vf 1 is duplicated on this port (also FID 0x10)"]
    func_of(z17, 0x11)["vf"] = 2
    func_of(z17, 0x12)["vf"] = 2  # PCHID 318, the other port of card NX01
    assert errors_of(z17) == []


def test_one_pf_per_port(z17):
    port_of(z17, 0x330)["functions"].append({"fid": 0x22, "uid": 0x22, "pf": True, "partition": "LNX1"})
    assert errors_of(z17) == [
        "Network Express PCHID 330: pf is set on FIDs 0x20, 0x22; a port has one physical function"
    ]


def test_uid_and_fid_rules_cover_network_express(z17):
    func_of(z17, 0x11)["uid"] = 0x1002  # ISM FID 0x1002 of LNX2 has it, and every partition has UID checking
    assert errors_of(z17) == [
        "Network Express PCHID 314 FID 0x11: uid 0x1002 is duplicated within partition LNX2 which has UID checking "
        "(also ISM VCHID 7C0 FID 0x1002)"
    ]
    func_of(z17, 0x11).update(uid=0x11, fid=0x1001)
    assert "fid is in the access list of more than one partition" in errors_of(z17)[0]


# -- ports, cards and the OSH CHPID -----------------------------------------------------------------


def test_type_is_required_and_checked(z17):
    port_of(z17, 0x318).pop("type")
    assert "Network Express PCHID 318: type is required: NETH (hybrid mode) or NETD (direct mode)" in errors_of(z17)
    port_of(z17, 0x318)["type"] = "ROC2"
    assert "Network Express PCHID 318: type 'ROC2' is not NETH (hybrid mode) or NETD (direct mode)" in errors_of(z17)


def test_mode_names_are_the_types(z17):
    port_of(z17, 0x314)["type"] = "hybrid"
    port_of(z17, 0x318)["type"] = "Hybrid"
    port_of(z17, 0x330)["type"] = "direct"
    assert render_fragment(normalize_cpc(z17)[0]) == fixture_text("z17.iocp")


def test_both_ports_of_a_card_run_in_one_mode(z17):
    port_of(z17, 0x318).update(type="NETD")
    assert errors_of(z17) == [
        "Network Express card NX01: type is NETD and NETH on PCHIDs 314, 318; both ports of a card run in one mode "
        "(NETH hybrid or NETD direct)"
    ]


def test_a_card_has_two_ports(z17):
    port_of(z17, 0x330).update(card="NX01", type="NETH")
    port_of(z17, 0x330)["functions"] = [{"fid": 0x20, "vf": 1, "partition": "LNX2"}]
    assert errors_of(z17) == [
        "Network Express card NX01: card names 3 ports (PCHIDs 314, 318, 330); a Network Express card has 2"
    ]


def test_card_label_syntax(z17):
    port_of(z17, 0x330)["card"] = "card two"
    assert errors_of(z17) == [
        "Network Express PCHID 330: card 'card two' is not a card label (1-32 characters A-Z a-z 0-9 _ . -)"
    ]


def test_osh_only_on_a_hybrid_port(z17):
    port_of(z17, 0x330)["osh"] = {"chpid": "D1", "partitions": ["ZOS1"]}
    assert errors_of(z17) == [
        "Network Express PCHID 330 OSH CHPID D1: CHPID TYPE=OSH needs a port in hybrid mode (type NETH); this port "
        "is NETD (direct mode)"
    ]


def test_osh_for_a_linux_partition_is_a_warning(z17):
    port_of(z17, 0x314)["osh"]["partitions"] = ["ZOS1", "LNX1"]
    _m, errors, warnings = normalized(z17)
    assert errors == []
    assert warnings == [
        "Network Express PCHID 314 OSH CHPID D0: partitions LNX1 (lnx1) run Linux, which does not support OSH; "
        "Linux uses the port's NETH functions"
    ]


def test_osh_without_control_units_and_without_functions(z17):
    port = port_of(z17, 0x314)
    port["functions"] = []
    for key in ("control_unit", "devices"):
        port["osh"].pop(key)
    text = rendered(z17)
    assert (
        " CHPID    PATH=(CSS(0),D0),PCHID=314,SHARED,PARTITION=((CSS(0),(ZOS1),(=))),TYPE=OSH,PNETID=NETWORK1\n" in text
    )
    assert "CUNUMBR=D000" not in text
    again = normalize_cpc(parse_deck(render_fragment(normalize_cpc(z17)[0]))["cpc"])[0]
    assert again["network_express"][0]["osh"]["control_units"] == []


def test_osh_chpid_clashes_and_device_overlaps(z17):
    port_of(z17, 0x314)["osh"]["chpid"] = "F0"
    assert errors_of(z17) == [
        "Network Express PCHID 314 OSH CHPID F0: chpid F0 is already defined as HiperSockets CHPID F0 (CHPID number "
        "and type clash in CSS 0)"
    ]
    port_of(z17, 0x314)["osh"].update(chpid="D0", devices={"first": "8201", "count": 3})
    assert errors_of(z17) == [
        "Network Express PCHID 314 OSH CHPID D0 control unit D000: devices 8201-8203 overlap the device numbers of "
        "HiperSockets CHPID F0 control unit F000"
    ]


def test_pchid_is_one_port(z17):
    z17["osa"][0]["pchid"] = 0x330
    assert errors_of(z17) == ["Network Express PCHID 330: pchid 330 is already used by OSA CHPID E0"]


def test_port_without_functions_or_osh_is_not_rendered(z17):
    port_of(z17, 0x318)["functions"] = []
    model, errors, warnings = normalized(z17)
    assert errors == []
    assert warnings == ["Network Express PCHID 318: has no functions and no osh; a port without them is not rendered"]
    assert "PCHID=318" not in render_fragment(model)


def test_unknown_keys_are_named(z17):
    func_of(z17, 0x10)["promisc"] = True
    port_of(z17, 0x314)["osh"]["chparm"] = "02"
    warnings = normalized(z17)[2]
    assert warnings[0].startswith("Network Express PCHID 314 FID 0x10: promisc is not a known field")
    assert warnings[1].startswith("Network Express PCHID 314 OSH CHPID D0: chparm is not a known field")


# -- reading decks: IBM's example, mixed modes --------------------------------------------------------


def test_ibm_example_statements():
    model, errors, warnings, parsed = parsed_model(
        "FUNCTION FID=10,VF=1,PCHID=314,PART=((LP01),(LP02)),PNETID=NETWORK1,TYPE=NETH",
        "CHPID PCHID=314,PATH=(CSS(0,1,2,3),D0),TYPE=OSH,SHARED,PNETID=NETWORK1",
    )
    assert parsed["unparsed"] == []
    assert errors == ["Network Express PCHID 314 OSH CHPID D0: partitions must name at least one partition"]
    assert warnings[0] == "line 5: CHPID is spanned over CSS 0,1,2,3; only CSS 0 is modelled"
    port = model["network_express"][0]
    assert (port["pchid"], port["type"], port["pnet_id"], port["osh"]["chpid"]) == (0x314, "NETH", "NETWORK1", "D0")
    assert port["functions"][0]["candidates"] == ["LP01", "LP02"]


def test_a_deck_with_two_modes_on_one_pchid_keeps_the_second():
    _m, errors, warnings, parsed = parsed_model(
        "FUNCTION FID=10,VF=1,PCHID=314,PART=((LP01)),TYPE=NETH",
        "FUNCTION FID=11,PF,PCHID=314,PART=((LP02)),TYPE=NETD",
    )
    assert errors == []
    assert warnings == [
        "line 4: FUNCTION TYPE=NETD on PCHID 314, which has TYPE=NETH FUNCTIONs: both ports of a Network Express "
        "card run in one mode; the statement is not modelled"
    ]
    assert [u["reason"] for u in parsed["unparsed"]] == ["FUNCTION TYPE=NETD on a PCHID of another mode"]


def test_compare_reads_network_express_fields(z17):
    inventory = normalize_cpc(z17)[0]
    func_of(z17, 0x10).pop("fidparm")
    func_of(z17, 0x20).update(pf=False, vf=9)
    deck_model = normalize_cpc(parse_deck(render_fragment(normalize_cpc(z17)[0]))["cpc"])[0]
    assert [(d["object"], d["field"], d["inventory"], d["deck"]) for d in compare_models(inventory, deck_model)] == [
        ("FID 0x10", "fidparm", "01", None),
        ("FID 0x20", "vf", "PF", 9),
    ]
    deck_model["network_express"][0]["osh"]["partitions"] = ["LNX2"]
    assert [d["message"] for d in compare_models(inventory, deck_model)][0] == (
        "CHPID D0: partitions is ZOS1 in the inventory but LNX2 in the deck"
    )


# -- the pictures and the model API for SMC-R ---------------------------------------------------------


def test_report_and_topology(z17):
    model, errors, warnings = normalized(z17)
    report = render_report(model, errors, warnings)
    assert "## Network Express (NETH hybrid, NETD direct; one PCHID per port)" in report
    assert "| 314 | NX01 | NETH | 0x10 | 0010 | 1 | 01 | LNX1 | NETWORK1 | D0 (ZOS1) |" in report
    assert "| 330 | NX02 | NETD | 0x20 | 0020 | PF | - | LNX2 | NETWORK3 | - |" in report
    dot = render_dot(model)
    assert '"netx_314" [shape=box' in dot and "card NX01" in dot
    assert '"netx_330" -> "part_LNX2" [label="FID 0x20 PF"];' in dot
    assert '"netx_314" -> "part_LNX1" [label="FID 0x10 VF 1 FIDPARM 01"];' in dot
    assert '"chpid_D0" -> "part_ZOS1" [arrowhead=none];' in dot


def test_smcr_functions_of_every_kind(z17):
    model = normalize_cpc(z17)[0]
    lnx1 = smcr_functions(model, "LNX1")
    assert [(f["fid"], f["type"], f["pft"], f["pchid"], f["port"], f["pnet_id"], f["card"]) for f in lnx1] == [
        (0x10, "NETH", 0x0C, 0x314, None, "NETWORK1", "NX01"),
        (0x12, "NETH", 0x0C, 0x318, None, "NETWORK2", "NX01"),
        (0x21, "NETD", 0x0F, 0x330, None, "NETWORK3", "NX02"),
    ]
    assert [(f["fid"], f["pf"]) for f in smcr_functions(model, "LNX2")] == [(0x11, False), (0x20, True)]
    assert len(smcr_functions(model)) == 5
    assert [f["type"] for f in partition_functions(model, "LNX1")] == ["ISM", "NETH", "NETH", "NETD"]
    z16 = load_cpc("large_cpc.yml")
    roce = smcr_functions(normalize_cpc(z16)[0])
    assert [(f["fid"], f["type"], f["pft"], f["port"], f["pnet_id"]) for f in roce] == [
        (0x2001, "ROC2", 0x0A, 1, "OSANET1"),
        (0x2002, "ROC2", 0x0A, 1, "OSANET1"),
    ]
    assert FUNCTION_PFT == {"ROCE": 0x02, "ISM": 0x05, "ROC2": 0x0A, "NETH": 0x0C, "NETD": 0x0F}


def test_the_examples_in_docs_cpc_model_are_valid():
    path = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "docs", "cpc-model.md")
    with open(path) as handle:
        text = handle.read()
    blocks = [b.split("```", 1)[0] for b in text.split("```yaml\n")[1:]]
    models = [yaml.safe_load(b)["cpc"] for b in blocks if b.startswith("cpc:")]
    assert len(models) == 2
    for cpc in models:
        _model, errors, warnings = normalize_cpc(cpc)
        assert errors == [] and warnings == []
    assert [p["type"] for p in normalize_cpc(models[1])[0]["network_express"]] == ["NETH", "NETH", "NETD"]
