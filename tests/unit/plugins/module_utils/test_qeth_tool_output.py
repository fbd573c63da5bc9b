# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""lszdev and chzdev helpers: real output layouts (the study's appendix 9.1, the slides,
upstream formats) and the chzdev argv forms."""

from __future__ import absolute_import, division, print_function

import os

import pytest

from ansible_collections.s390x.network.plugins.module_utils.qeth import chzdev as chz
from ansible_collections.s390x.network.plugins.module_utils.qeth.lszdev import (
    lszdev_argv,
    parse_pairs,
    parse_table,
    persistence,
    split_merged,
    yes_no,
)

FIX = os.path.join(os.path.dirname(__file__), "..", "modules", "fixtures")


def _text(name):
    with open(os.path.join(FIX, name)) as handle:
        return handle.read()


def test_lszdev_pairs():
    rows = parse_pairs(_text("qeth_lszdev_pairs.txt"))
    assert [r["ID"] for r in rows] == [
        "0.0.1240:0.0.1241:0.0.1242",
        "0.0.8200:0.0.8201:0.0.8202",
        "0.0.bd00:0.0.bd01:0.0.bd02",
    ]
    assert rows[0]["NAMES"] == "" and yes_no(rows[0]["ON"]) is False
    assert yes_no(rows[1]["PERS"]) is True
    assert rows[2]["ATTR:portname"] == 'weird "name" \\ here'
    assert split_merged(rows[2]["ATTR:layer2"]) == ("1", None)
    assert split_merged("128") == ("128", "128")
    assert split_merged("-") == (None, None)
    assert yes_no("maybe") is None


@pytest.mark.parametrize(
    "cell, expected",
    [
        ("yes", (True, False)),
        ("no", (False, False)),
        ("auto", (False, True)),
        ("yes/no", (True, False)),
        (None, (None, False)),
    ],
)
def test_lszdev_pers_cell(cell, expected):
    # lszdev prints "auto" for a device with only an auto-configuration rule
    assert persistence(cell) == expected


def test_lszdev_table_from_the_slides():
    rows = parse_table(_text("qeth_lszdev_table.txt"))
    assert rows == [
        {"TYPE": "qeth", "ID": "0.0.1240:0.0.1241:0.0.1242", "ON": "no", "PERS": "no", "NAMES": ""},
        {"TYPE": "qeth", "ID": "0.0.bd00:0.0.bd01:0.0.bd02", "ON": "yes", "PERS": "yes", "NAMES": "encbd00"},
    ]
    assert parse_table("") == []


def test_lszdev_argv():
    assert lszdev_argv("/usr/sbin/lszdev") == ["/usr/sbin/lszdev", "qeth", "--columns", "ID,ON,PERS,NAMES", "--pairs"]
    assert lszdev_argv("lszdev", ("ID", "ATTR:layer2"), "active")[-1] == "--active"


def test_chzdev_argv_forms():
    gid = "0.0.8200:0.0.8201:0.0.8202"
    assert chz.enable_argv("/usr/sbin/chzdev", gid, [("layer2", "1"), ("buffer_count", "128")]) == [
        "/usr/sbin/chzdev",
        "-e",
        "qeth",
        gid,
        "layer2=1",
        "buffer_count=128",
    ]
    assert chz.enable_argv("chzdev", gid, [], "persistent") == ["chzdev", "-e", "-p", "qeth", gid]
    assert chz.offline_argv("chzdev", gid, [("layer2", "1")], "active") == [
        "chzdev",
        "-a",
        "qeth",
        gid,
        "online=0",
        "layer2=1",
    ]
    assert chz.disable_argv("chzdev", gid, "both", yes=True) == ["chzdev", "-d", "-y", "qeth", gid]
    assert chz.remove_argv("chzdev", gid, ["hw_trap", "vnicc/learning"]) == [
        "chzdev",
        "-p",
        "qeth",
        gid,
        "-r",
        "hw_trap",
        "-r",
        "vnicc/learning",
    ]
    assert chz.render(["/usr/sbin/chzdev", "-e", "qeth", gid, "hsuid=a b"]) == "chzdev -e qeth %s 'hsuid=a b'" % gid


def test_chzdev_failure_message():
    msg = chz.failure_message(
        ["/sbin/chzdev", "-e", "qeth", "0.0.8200"],
        9,
        "",
        "QETH device 0.0.8200:0.0.8201:0.0.8202 configure failed\n"
        "    Error: Cannot set buffer_count='128' while online='1' (*)\n",
    )
    assert "exit code 9 (invalid configuration)" in msg
    assert "Cannot set buffer_count='128' while online='1'" in msg
    assert chz.describe_exit(123) == "exit code 123"


@pytest.mark.parametrize(
    "os_release, package",
    [
        (
            'NAME="Red Hat Enterprise Linux"\nID="rhel"\nID_LIKE="fedora"\nPRETTY_NAME="Red Hat Enterprise Linux 8.8 (Ootpa)"\n',
            "s390utils-base",
        ),
        ('NAME="SLES"\nVERSION="15-SP5"\nID="sles"\nID_LIKE="suse"\n', "s390-tools"),
        ("NAME=\"Ubuntu\"\nID=ubuntu\nID_LIKE=debian\n", "s390-tools"),
        ("ID=rocky\nID_LIKE='rhel centos fedora'\n", "s390utils-base"),
    ],
)
def test_package_per_distribution(os_release, package):
    message = chz.missing_tool_message(os_release)
    assert "chzdev was not found" in message
    assert "install the package %s" % package in message


def test_package_unknown_distribution_names_all():
    message = chz.missing_tool_message("")
    assert "s390utils-base on Red Hat Enterprise Linux" in message
    assert "s390-tools on SUSE Linux Enterprise Server and Ubuntu" in message
