# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""IOCP rendering: golden fragments and the card-image layout rules."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.s390x.network.plugins.module_utils.iocp.cpc_model import normalize_cpc
from ansible_collections.s390x.network.plugins.module_utils.iocp.render import (
    card_images,
    comment_cards,
    render_fragment,
)
from ansible_collections.s390x.network.tests.unit.plugins.module_utils.cpc_samples import (
    fixture_text,
    load_cpc,
)


def model_of(name):
    model, errors, _w = normalize_cpc(load_cpc(name))
    assert errors == []
    return model


@pytest.mark.parametrize("cpc, golden", [("lab_cpc.yml", "lab.iocp"), ("large_cpc.yml", "large.iocp")])
def test_golden_fragment(cpc, golden):
    assert render_fragment(model_of(cpc)) == fixture_text(golden)


def check_layout(text):
    """Every card obeys the IOCP card rules; returns the statements' joined operands."""
    lines = text.splitlines()
    previous_continued = False
    for number, line in enumerate(lines, 1):
        assert len(line) <= 72, "line %d longer than 72 columns" % number
        continued = len(line) == 72 and line[71] != " "
        if line.startswith("*"):
            assert not previous_continued, "comment after a continued card at line %d" % number
            assert not continued, "comment card %d continued" % number
        elif previous_continued:
            assert line[:15] == " " * 15 and line[15] != " ", "line %d must start in column 16" % number
        else:
            assert line[0] == " " and line[1] != " ", "operation must start in column 2 (line %d)" % number
        previous_continued = continued
    assert not previous_continued


def test_lab_fragment_layout_and_content():
    text = render_fragment(model_of("lab_cpc.yml"))
    check_layout(text)
    assert "*  IOCP fragment for CPC ZLAB (z16, machine type 3931), CSS 0." in text
    assert " UUID     PARTITION=(LPARA,LPARB)\n" in text
    assert " CNTLUNIT CUNUMBR=F000,PATH=((CSS(0),F0)),UNIT=IQD\n" in text
    assert " IODEVICE ADDRESS=(8200,16),CUNUMBR=(F000),UNIT=IQD\n" in text
    assert "TYPE=IQD,        X\n               CHPARM=80\n" in text
    assert "*@ GUEST 605 g1\n FUNCTION FID=605,VCHID=7C8,VF=1,PART=((LPARA),(LPARA)),TYPE=ISM," in text


def test_large_fragment_layout():
    check_layout(render_fragment(model_of("large_cpc.yml")))


@pytest.mark.parametrize("size, chparm", [("16K", "00"), ("24K", "40"), ("40K", "80"), ("64K", "C0")])
def test_chparm_per_frame_size(size, chparm):
    model = model_of("lab_cpc.yml")
    model["hipersockets"][0]["frame_size"] = size
    text = render_fragment(model)
    assert "CHPARM=%s" % chparm in text.replace("X\n               ", "")


def test_card_images_break_after_commas():
    params = ["PARAM%02d=VALUE" % i for i in range(12)]
    cards = card_images("CHPID", params)
    assert cards[0].startswith(" CHPID    PARAM00=VALUE,")
    for card in cards[:-1]:
        assert len(card) == 72 and card[71] == "X"
        assert card[:71].rstrip().endswith(",")
    for card in cards[1:]:
        assert card.startswith(" " * 15) and card[15] == "P"
    joined = cards[0][10:71].rstrip() + "".join(c[15:71].rstrip() for c in cards[1:])
    assert joined == ",".join(params)


def test_card_images_split_long_parameter_at_column_71():
    long_param = "PARTITION=((CSS(0),(%s),(=)))" % ",".join("LPAR%04d" % i for i in range(20))
    cards = card_images("CHPID", ["PATH=(CSS(0),F0)", long_param, "TYPE=IQD"])
    joined = cards[0][10:71].rstrip()
    for card in cards[1:]:
        joined += card[15:71].rstrip()
    assert joined == "PATH=(CSS(0),F0),%s,TYPE=IQD" % long_param
    assert all(len(c) == 72 for c in cards[:-1])
    # at least one card is a mid-parameter split that fills column 71
    assert any(len(c[:71].rstrip()) == 71 and not c[:71].endswith(",") for c in cards[:-1])


def test_card_images_single_line():
    assert card_images("UUID", ["PARTITION=(LP1)"]) == [" UUID     PARTITION=(LP1)"]


def test_comment_cards_wrap_before_column_72():
    cards = comment_cards("word " * 40)
    assert len(cards) > 1
    assert all(c.startswith("*") and len(c) <= 71 for c in cards)


def test_candidates_any_renders_short_part():
    model = model_of("lab_cpc.yml")
    model["ism"][0]["functions"][1]["candidates"] = "*"
    assert "PART=LPARB," in render_fragment(model)


def test_no_uuid_statement_without_uid_checking():
    model = model_of("lab_cpc.yml")
    model["uid_checking"] = []
    assert "\n UUID " not in render_fragment(model)


def test_function_without_uid_has_no_uid_keyword():
    model = model_of("lab_cpc.yml")
    model["ism"][0]["functions"][1]["uid"] = None
    text = render_fragment(model).replace("X\n               ", "")
    assert "PART=((LPARB),(LPARB)),TYPE=ISM\n" in text


def test_vchid_without_functions_is_skipped():
    model = model_of("lab_cpc.yml")
    model["ism"].append({"vchid": 0x7C9, "pnet_id": None, "functions": []})
    assert "7C9" not in render_fragment(model)
