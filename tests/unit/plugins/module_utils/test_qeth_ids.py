# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""qeth IDs: parsing, normalisation and chzdev-style group completion."""

from __future__ import absolute_import, division, print_function

import pytest

from ansible_collections.s390x.network.plugins.module_utils.qeth.ids import (
    CcwInfo,
    QethIdError,
    auto_groups,
    complete_group,
    format_group_id,
    naive_group,
    normalize_ccw_id,
    parse_group_id,
)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("0.0.8200", "0.0.8200"),
        ("8200", "0.0.8200"),
        ("0.0.BD00", "0.0.bd00"),
        ("bd00", "0.0.bd00"),
        ("0.1.0001", "0.1.0001"),
        ("fe.0.1", "fe.0.0001"),
        (" 0.0.8200 ", "0.0.8200"),
        ("820", "0.0.0820"),
    ],
)
def test_normalize(text, expected):
    assert normalize_ccw_id(text) == expected


@pytest.mark.parametrize("text", ["", "0.0.82zz", "0.4.8200", "1.0.0.8200", "0.0.12345", "0x8200", "0.0.", None, 8200])
def test_malformed(text):
    with pytest.raises(QethIdError):
        normalize_ccw_id(text)


def test_group_forms():
    assert parse_group_id("0.0.8200") == ("0.0.8200",)
    triple = ("0.0.8200", "0.0.8201", "0.0.8202")
    assert parse_group_id("0.0.8200:0.0.8201:0.0.8202") == triple
    assert parse_group_id("0.0.8200,0.0.8201,0.0.8202") == triple
    assert parse_group_id("8200:8201:8202") == triple
    assert format_group_id(triple) == "0.0.8200:0.0.8201:0.0.8202"
    # the data device may be anywhere on the CHPID
    assert parse_group_id("0.0.8200:0.0.8201:0.0.81ff")[2] == "0.0.81ff"


@pytest.mark.parametrize(
    "text, reason",
    [
        ("0.0.8200:0.0.8201", "not enough"),
        ("0.0.8200:0.0.8201:0.0.8202:0.0.8203", "too many"),
        ("0.0.8200:0.0.8202:0.0.8201", "plus one"),
        ("0.0.8200:0.0.8201:0.0.8201", "must differ"),
        ("0.0.8200:0.0.8201:0.1.8202", "subchannel set"),
        ("0.0.8200::0.0.8202", "empty"),
    ],
)
def test_group_errors(text, reason):
    with pytest.raises(QethIdError) as err:
        parse_group_id(text)
    assert reason in str(err.value)


def _infos(first, count, chpid="80/f0", cu="1731/05", dev="1732/05"):
    base = int(first.split(".")[-1], 16)
    return [CcwInfo("0.0.%04x" % (base + i), chpid, cu, dev) for i in range(count)]


def test_auto_groups_consecutive_triples():
    groups = auto_groups(_infos("0.0.8200", 7))
    assert groups == [("0.0.8200", "0.0.8201", "0.0.8202"), ("0.0.8203", "0.0.8204", "0.0.8205")]


def test_auto_groups_separate_chpids_and_types():
    infos = (
        _infos("0.0.8200", 3)
        + _infos("0.0.9000", 3, chpid="80/f1")
        + _infos("0.0.bd00", 3, chpid="80/85", cu="1731/01", dev="1732/01")
    )
    groups = auto_groups(infos)
    assert sorted(groups) == [
        ("0.0.8200", "0.0.8201", "0.0.8202"),
        ("0.0.9000", "0.0.9001", "0.0.9002"),
        ("0.0.bd00", "0.0.bd01", "0.0.bd02"),
    ]


def test_auto_groups_pairs_first_when_not_a_clean_sequence():
    # 8200, 8202, 8203, 8205: read/write pairs one apart are (8202, 8203); data = first remaining
    infos = [CcwInfo(i, "80/f0", "1731/05", "1732/05") for i in ("0.0.8200", "0.0.8202", "0.0.8203", "0.0.8205")]
    assert auto_groups(infos) == [("0.0.8202", "0.0.8203", "0.0.8200")]


def test_complete_group_like_chzdev():
    infos = _infos("0.0.8200", 6)
    assert complete_group("0.0.8203", infos) == ("0.0.8203", "0.0.8204", "0.0.8205")
    assert complete_group("8200", infos) == ("0.0.8200", "0.0.8201", "0.0.8202")
    # not the start of a canonical group: read+1 as write, next compatible as data
    assert complete_group("0.0.8201", infos) == ("0.0.8201", "0.0.8202", "0.0.8203")
    # last two devices: data taken from before the read device
    assert complete_group("0.0.8204", infos) == ("0.0.8204", "0.0.8205", "0.0.8203")


def test_complete_group_errors():
    infos = _infos("0.0.8200", 3)
    with pytest.raises(QethIdError, match="not an ungrouped qeth device"):
        complete_group("0.0.9999", infos)
    with pytest.raises(QethIdError, match="no write"):
        complete_group("0.0.8202", infos)
    mixed = _infos("0.0.8200", 1) + _infos("0.0.8201", 2, chpid="80/f1")
    with pytest.raises(QethIdError, match="compatible write"):
        complete_group("0.0.8200", mixed)


def test_naive_group():
    assert naive_group("0.0.8200") == ("0.0.8200", "0.0.8201", "0.0.8202")
    with pytest.raises(QethIdError):
        naive_group("0.0.fffe")
