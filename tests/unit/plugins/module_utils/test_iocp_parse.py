# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Reading IOCP card images: continuation rules, statement forms, unparsed statements."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest
import yaml

from ansible_collections.s390x.network.plugins.module_utils.iocp.cpc_model import normalize_cpc
from ansible_collections.s390x.network.plugins.module_utils.iocp.parse import (
    Css,
    parse_deck,
    parse_value,
    read_cards,
    split_params,
)

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "iocp")


def fixture_text(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


def card(text, cont=False):
    assert len(text) <= 71
    return (text.ljust(71) + ("X" if cont else " ")).rstrip()


@pytest.mark.parametrize("golden, cpc", [("lab.iocp", "lab_cpc.yml"), ("large.iocp", "large_cpc.yml")])
def test_golden_fragments_parse_back_to_the_inventory(golden, cpc):
    parsed = parse_deck(fixture_text(golden))
    assert parsed["warnings"] == []
    assert parsed["unparsed"] == []
    model, errors, _w = normalize_cpc(parsed["cpc"])
    expected, _e, _w2 = normalize_cpc(yaml.safe_load(fixture_text(cpc))["cpc"])
    assert errors == []
    assert model == expected


def test_production_deck():
    parsed = parse_deck(fixture_text("production.iocp"))
    model, errors, _w = normalize_cpc(parsed["cpc"])
    assert errors == []
    assert model["name"] == "CPCX" and model["machine"] == "z16" and model["css"] == 0
    # reserved partition (*,5) and the CSS 1 partitions are not modelled
    assert [(p["name"], p["mif_id"]) for p in model["partitions"]] == [("LP1", 1), ("LP2", 2), ("LP3", 3)]
    assert model["uid_checking"] == ["LP1", "LP2"]
    chps = dict((c["chpid"], c) for c in model["hipersockets"])
    assert chps["F4"]["frame_size"] == "40K"  # older OS= keyword
    assert chps["F4"]["partitions"] == ["LP1", "LP2"]
    # two contiguous IODEVICE statements on one control unit, count with leading zero
    assert chps["F4"]["control_units"] == [{"number": "E800", "devices": {"first": "E800", "count": 48}}]
    # continued in the middle of a keyword value (operand up to column 71)
    assert chps["F5"]["frame_size"] == "64K" and chps["F5"]["pnet_id"] == "HSNETX"
    assert chps["F5"]["partitions"] == ["LP1", "LP3"]
    assert chps["F6"]["frame_size"] == "16K" and chps["F6"]["partitions"] == ["LP2"]
    assert chps["F6"]["control_units"][0]["devices"] == {"first": "EA00", "count": 1}
    ism = dict((v["vchid"], v) for v in model["ism"])
    assert ism[0x7E1]["pnet_id"] == "PNETA"
    assert ism[0x7E1]["functions"][0]["candidates"] == ["LP3", "LP1"]
    # FID=(1020,3) expands with consecutive VFs and UIDs
    assert [(f["fid"], f["vf"], f["uid"]) for f in ism[0x7E2]["functions"]] == [
        (0x1020, 10, 0x20),
        (0x1021, 11, 0x21),
        (0x1022, 12, 0x22),
        (0x1030, 20, 0x30),
    ]
    assert ism[0x7E2]["functions"][3]["candidates"] == "*"  # PART=LP2
    roce = dict((c["pchid"], c) for c in model["roce"])
    assert roce[0x33C]["type"] == "ROCE" and roce[0x33C]["functions"][0]["pnet_id"] == "NET1"
    assert [(f["fid"], f["vf"], f["port"]) for f in roce[0x33D]["functions"]] == [(0x73, 8, 2), (0x74, 9, 2)]
    assert [(u["line"], u["statement"]) for u in parsed["unparsed"]] == [
        (8, "CHPID"),
        (20, "CNTLUNIT"),
        (21, "IODEVICE"),
        (29, "FUNCTION"),
    ]
    assert parsed["unparsed"][0]["reason"] == "CHPID TYPE=FC is not modelled"
    assert parsed["warnings"] == [
        "line 5: RESOURCE partitions of CSS 1 are not modelled (model CSS 0)",
        "line 10: CHPID is spanned over CSS 0,1; only CSS 0 is modelled",
        "line 12: CHPID CHPARM=02: only the frame size bits are modelled",
    ]


def test_read_cards_ignores_sequence_columns_and_comments():
    text = "\n".join(
        [
            "* comment",
            card(" CHPID PATH=F0,", True) + "00000010",
            card("               TYPE=IQD") + "        00000020",
            "",
            ".* another comment",
        ]
    )
    statements, annotations, warnings = read_cards(text)
    assert warnings == [] and annotations == []
    assert [(s["line"], s["operation"], s["operand"]) for s in statements] == [(2, "CHPID", "PATH=F0,TYPE=IQD")]


def test_label_and_trailing_comment_field():
    statements, _a, _w = read_cards("LABEL1   CHPID PATH=F0,TYPE=IQD  remarks here\n")
    assert statements[0]["operation"] == "CHPID"
    assert statements[0]["operand"] == "PATH=F0,TYPE=IQD"


def test_quoted_blanks_do_not_end_the_operand():
    statements, _a, _w = read_cards(" ID MSG1='A B C',LSYSTEM=X\n")
    assert statements[0]["operand"] == "MSG1='A B C',LSYSTEM=X"


def test_comma_without_continuation_warns_icp131i():
    _s, _a, warnings = read_cards(" CHPID PATH=F0,\n               TYPE=IQD\n")
    assert warnings[0] == (
        "line 1: CHPID operand ends with a comma but the statement is not " "continued in column 72 (ICP131I)"
    )


def test_continuation_not_in_column_16_is_a_comment_icp116i():
    text = card(" CHPID PATH=F0,", True) + "\n" + "                TYPE=IQD\n"
    statements, _a, warnings = read_cards(text)
    assert statements[0]["operand"] == "PATH=F0,"
    assert any("does not start in column 16" in w and "ICP116I" in w for w in warnings)


def test_continuation_after_blank_ended_operand_is_a_comment_icp116i():
    text = card(" CHPID PATH=F0 a comment", True) + "\n" + card("               TYPE=IQD") + "\n"
    statements, _a, warnings = read_cards(text)
    assert statements[0]["operand"] == "PATH=F0"
    assert any("ended with a blank" in w for w in warnings)


def test_nonblank_in_columns_1_to_15_warns_icp106i():
    text = card(" CHPID PATH=F0,", True) + "\n" + "  TYPE=IQD\n"
    statements, _a, warnings = read_cards(text)
    assert statements[0]["operand"] == "PATH=F0,TYPE=IQD"
    assert any("ICP106I" in w for w in warnings)


def test_continued_at_end_of_input():
    _s, _a, warnings = read_cards(card(" CHPID PATH=F0,", True) + "\n")
    assert warnings == ["line 1: statement continued past the end of the input"]


def test_comment_card_continued_more_than_twice():
    lines = [card("* c", True), card("  c", True), card("  c", True), card("  c"), " CHPID PATH=F0,TYPE=IQD"]
    statements, _a, warnings = read_cards("\n".join(lines))
    assert [s["line"] for s in statements] == [5]
    assert warnings == ["line 1: comment card continued more than twice (ICP107I)"]


def test_tabs_are_expanded_with_a_warning():
    statements, _a, warnings = read_cards("\tCHPID PATH=F0,TYPE=IQD\n")
    assert statements[0]["operation"] == "CHPID"
    assert warnings == ["line 1: tab characters expanded to blanks (card images use blanks)"]


@pytest.mark.parametrize(
    "text, value",
    [
        ("F0", "F0"),
        ("(CSS(0),F0)", [Css(["0"]), "F0"]),
        ("((CSS(0),(A,B),(=)))", [[Css(["0"]), ["A", "B"], ["="]]]),
        ("((LP1),(LP2,LP3))", [["LP1"], ["LP2", "LP3"]]),
        ("(,NET1)", ["", "NET1"]),
        ("(1020,3)", ["1020", "3"]),
        ("'X, Y'", "'X, Y'"),
    ],
)
def test_parse_value(text, value):
    assert parse_value(text) == value


@pytest.mark.parametrize("text", ["((A)", "(A))", "A(B)"])
def test_parse_value_errors(text):
    with pytest.raises(ValueError):
        parse_value(text)


def test_split_params_flags_and_keywords():
    assert split_params("PATH=(CSS(0),F0),SHARED,TYPE=IQD") == [
        ("PATH", [Css(["0"]), "F0"]),
        ("SHARED", None),
        ("TYPE", "IQD"),
    ]


def test_syntax_error_keeps_statement_unparsed():
    parsed = parse_deck(" CHPID PATH=((CSS(0),F0),TYPE=IQD\n")
    assert parsed["unparsed"][0]["reason"].startswith("syntax not understood")
    assert parsed["warnings"][0].startswith("line 1: CHPID could not be read")


def test_unknown_statement_is_counted():
    parsed = parse_deck(" NODE CHPID=F0\n CHPID PATH=F0,TYPE=IQD,PART=LP1\n")
    assert [u["statement"] for u in parsed["unparsed"]] == ["NODE"]
    assert parsed["statements"] == 2


def test_ibm_zos_hipersockets_example():
    """The HiperSockets MFS example of the z/OS Communications Server docs (OS= keyword)."""
    text = "\n".join(
        [
            "***************************************************************",
            "* OS  values are '00'=16K, '40'=24K, '80'=40K  and 'C0'=64K.  *",
            "***************************************************************",
            " ID SYSTEM=(2064,1)",
            "*",
            " CHPID PATH=FC,TYPE=IQD,SHARED,OS=00",
            " CHPID PATH=FD,TYPE=IQD,SHARED,OS=40",
            " CNTLUNIT CUNUMBR=FC00,PATH=FC,UNIT=IQD",
            " IODEVICE ADDRESS=(2C00,16),CUNUMBR=FC00,UNIT=IQD",
            " CNTLUNIT CUNUMBR=FD00,PATH=FD,UNIT=IQD",
            " IODEVICE ADDRESS=(2C10,16),CUNUMBR=FD00,UNIT=IQD",
        ]
    )
    parsed = parse_deck(text)
    assert parsed["unparsed"] == []
    assert parsed["warnings"] == ["line 4: ID SYSTEM=2064 is not a z15/z16/z17 machine type"]
    chps = parsed["cpc"]["hipersockets"]
    assert [(c["chpid"], c["frame_size"]) for c in chps] == [("FC", "16K"), ("FD", "24K")]
    devices = {"first": "2C10", "count": 16}
    assert chps[1]["control_units"] == [{"number": "FD00", "devices": devices}]


def test_non_contiguous_second_device_range_is_unparsed():
    text = "\n".join(
        [
            " RESOURCE PART=((LP1,1))",
            " CHPID PATH=F0,TYPE=IQD,PART=LP1",
            " CNTLUNIT CUNUMBR=F000,PATH=F0,UNIT=IQD",
            " IODEVICE ADDRESS=(8200,8),CUNUMBR=F000,UNIT=IQD",
            " IODEVICE ADDRESS=(8300,8),CUNUMBR=F000,UNIT=IQD",
        ]
    )
    parsed = parse_deck(text)
    assert parsed["unparsed"][0]["line"] == 5
    assert "non-contiguous" in parsed["unparsed"][0]["reason"]


def test_function_in_two_access_partitions_is_reported():
    text = " RESOURCE PART=((LP1,1),(LP2,2))\n FUNCTION FID=5,VCHID=7C0,VF=1,PART=((LP1,LP2),(=)),TYPE=ISM\n"
    parsed = parse_deck(text)
    parsed["cpc"].update(name="X", machine="z16")
    _m, errors, _w = normalize_cpc(parsed["cpc"])
    assert any("access list of more than one partition" in e for e in errors)


def test_unknown_annotation_warns():
    parsed = parse_deck("*@ COLOUR BLUE\n")
    assert parsed["warnings"] == ["line 1: unknown *@ annotation ignored"]


def test_notpart_chpid_and_device_candidate_lists():
    text = "\n".join(
        [
            " RESOURCE PART=((LP1,1),(LP2,2))",
            " CHPID PATH=F1,TYPE=IQD,NOTPART=((LP2),(LP2))",
            " CHPID PATH=F0,TYPE=IQD,PART=(LP1,LP2)",
            " CNTLUNIT CUNUMBR=F000,PATH=F0,UNIT=IQD",
            " IODEVICE ADDRESS=(8200,8),CUNUMBR=F000,UNIT=IQD,PART=LP1",
        ]
    )
    parsed = parse_deck(text)
    assert [(u["line"], u["reason"]) for u in parsed["unparsed"]] == [
        (2, "CHPID with NOTPART or IOCLUSTER is not modelled")
    ]
    assert parsed["warnings"] == [
        "line 5: IODEVICE device candidate list PART= is not modelled; the devices are taken as "
        "accessible to all partitions of the CHPID"
    ]
    cu = parsed["cpc"]["hipersockets"][0]["control_units"][0]
    assert cu["devices"] == {"first": "8200", "count": 8}


@pytest.mark.parametrize(
    "part, partitions, warning",
    [
        ("PART=((0),(LP1,LP2))", ["LP1", "LP2"], "has an empty access list"),
        ("PART=((LP1),(LP1,LP2))", ["LP1"], "candidate list LP1,LP2 differs from the access list"),
        ("PARTITION=((CSS(0),(LP1,LP2)))", ["LP1", "LP2"], None),
        ("PART=(LP2)", ["LP2"], None),
    ],
)
def test_chpid_partition_forms(part, partitions, warning):
    parsed = parse_deck(" RESOURCE PART=((LP1,1),(LP2,2))\n CHPID PATH=F0,TYPE=IQD,%s\n" % part)
    assert parsed["cpc"]["hipersockets"][0]["partitions"] == partitions
    if warning:
        assert len(parsed["warnings"]) == 1 and warning in parsed["warnings"][0]
    else:
        assert parsed["warnings"] == []
