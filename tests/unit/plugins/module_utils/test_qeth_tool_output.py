# -*- coding: utf-8 -*-
# Copyright (c) s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""lszdev, lsqeth and chzdev helpers: real output layouts (the study's appendix 9.1, the slides,
upstream formats) and the chzdev argv forms."""

from __future__ import annotations

import os

import pytest

from ansible_collections.s390x.network.plugins.module_utils import qeth_chzdev as chz
from ansible_collections.s390x.network.plugins.module_utils.qeth_lsqeth import parse_long, parse_proc_format
from ansible_collections.s390x.network.plugins.module_utils.qeth_lszdev import (
    lszdev_argv, parse_pairs, parse_table, persistence, split_merged, yes_no)

FIX = os.path.join(os.path.dirname(__file__), "..", "modules", "fixtures")


def _text(name):
    with open(os.path.join(FIX, name)) as handle:
        return handle.read()


def test_lsqeth_study_appendix_9_1():
    devices = parse_long(_text("qeth_lsqeth_study_9_1.txt"))
    assert len(devices) == 1
    dev = devices[0]
    assert dev["if_name"] == "hs32k_0"
    assert dev["card_type"] == "HiperSockets"
    assert (dev["cdev0"], dev["cdev1"], dev["cdev2"]) == ("0.0.8200", "0.0.8201", "0.0.8202")
    assert dev["chpid"] == "FC"
    assert dev["layer2"] == "1" and dev["buffer_count"] == "128"
    assert dev["state"] == "UP (LAN ONLINE)"
    assert dev["portname"] == "no portname required"
    assert dev["vnicc/learning_timeout"] == "600"
    assert len(dev) == 26  # the device name and 25 attribute lines


def test_lsqeth_upstream_long_layout_two_devices_and_lists():
    devices = parse_long(_text("qeth_lsqeth_long.txt"))
    assert [d["if_name"] for d in devices] == ["encbd00", "enc8200"]
    assert devices[0]["priority_queueing"] == "always queue 2"
    assert devices[0]["isolation"] == "drop"
    assert devices[1]["ipa"] == ["10.1.0.0/16 inv", "10.2.0.0/16"]
    assert devices[1]["route4"] == "no"


def test_lsqeth_long_ipv6_values_keep_colons():
    text = ("Device name                      : enc8200\n" + "-" * 75 + "\n"
            "        vipa                     : fd00::1\n"
            "                                   fd00::2\n")
    assert parse_long(text)[0]["vipa"] == ["fd00::1", "fd00::2"]


def _long_device(name, attrs):
    # lsqeth.c through util_rec: "%-32s : %s" for the name, 8 blanks + "%-24s : %s" per attribute
    text = "%-32s : %s\n" % ("Device name", name) + "-" * 75 + "\n"
    return text + "".join("        %-24s : %s\n" % item for item in attrs) + "\n"


@pytest.mark.parametrize("unnamed", ["(unnamed net_device)", ""])
@pytest.mark.parametrize("first", [True, False])
def test_lsqeth_long_device_never_online_is_its_own_device(unnamed, first):
    online = _long_device("enc8200", [("card_type", "HiperSockets"), ("cdev0", "0.0.8200"), ("online", "1")])
    never = _long_device(unnamed, [("card_type", "OSD_10GIG"), ("cdev0", "0.0.bd00"), ("online", "0")])
    devices = parse_long(never + online if first else online + never)
    assert sorted((d["cdev0"], d["if_name"]) for d in devices) == [("0.0.8200", "enc8200"), ("0.0.bd00", None)]


def test_lsqeth_p_unnamed_interface_keeps_the_columns():
    widths = (26, 5, 16, 14, 4, 6, 10, 4, 4, 5, 5)  # lsqeth -p column widths, joined by one blank

    def line(cells):
        return " ".join("%-*s" % (w, c) for w, c in zip(widths, cells)).rstrip() + "\n"
    text = line(("devices", "CHPID", "interface", "cardtype", "port", "chksum", "prio-q'ing", "rtr4", "rtr6",
                 "lay'2", "cnt"))
    text += "-" * 110 + "\n"
    text += line(("0.0.bd00/0.0.bd01/0.0.bd02", "x85", "(unnamed net_device)", "OSD_10GIG", "0", "sw",
                  "always_q_2", "n/a", "n/a", "1", "64"))
    text += line(("0.0.8200/0.0.8201/0.0.8202", "xF0", "enc8200", "HiperSockets", "0", "sw", "always_q_2",
                  "n/a", "n/a", "1", "128"))
    rows = parse_proc_format(text)
    assert [(r["if_name"], r["card_type"], r["buffer_count"]) for r in rows] == [
        ("", "OSD_10GIG", "64"), ("enc8200", "HiperSockets", "128")]


def test_lsqeth_p_slides_layout():
    rows = parse_proc_format(_text("qeth_lsqeth_p_slides.txt"))
    assert [r["if_name"] for r in rows] == ["encbd00", "encf500"]
    assert rows[0]["chpid"] == "85" and rows[0]["card_type"] == "OSD_10GIG"
    assert rows[0]["ids"] == ["0.0.bd00"]
    assert rows[1]["priority_queueing"] == "always_q_0"
    assert rows[1]["buffer_count"] == "64" and rows[1]["layer2"] == "1"


def test_lsqeth_p_upstream_layout_with_blank_interface_and_spaced_card_type():
    rows = parse_proc_format(_text("qeth_lsqeth_p_upstream.txt"))
    assert len(rows) == 3
    assert rows[0]["ids"] == ["0.0.8200", "0.0.8201", "0.0.8202"]
    assert rows[0]["chpid"] == "F0" and rows[0]["buffer_count"] == "128"
    assert rows[2]["if_name"] == "" and rows[2]["card_type"] == "Virt.NIC QDIO"
    assert rows[2]["portno"] == "0" and rows[2]["checksumming"] == "n/a"


def test_lszdev_pairs():
    rows = parse_pairs(_text("qeth_lszdev_pairs.txt"))
    assert [r["ID"] for r in rows] == ["0.0.1240:0.0.1241:0.0.1242", "0.0.8200:0.0.8201:0.0.8202",
                                       "0.0.bd00:0.0.bd01:0.0.bd02"]
    assert rows[0]["NAMES"] == "" and yes_no(rows[0]["ON"]) is False
    assert yes_no(rows[1]["PERS"]) is True
    assert rows[2]["ATTR:portname"] == 'weird "name" \\ here'
    assert split_merged(rows[2]["ATTR:layer2"]) == ("1", None)
    assert split_merged("128") == ("128", "128")
    assert split_merged("-") == (None, None)
    assert yes_no("maybe") is None


@pytest.mark.parametrize("cell, expected", [("yes", (True, False)), ("no", (False, False)),
                                            ("auto", (False, True)), ("yes/no", (True, False)), (None, (None, False))])
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
    assert chz.enable_argv("/usr/sbin/chzdev", gid, [("layer2", "1"), ("buffer_count", "128")]) == \
        ["/usr/sbin/chzdev", "-e", "qeth", gid, "layer2=1", "buffer_count=128"]
    assert chz.enable_argv("chzdev", gid, [], "persistent") == ["chzdev", "-e", "-p", "qeth", gid]
    assert chz.offline_argv("chzdev", gid, [("layer2", "1")], "active") == \
        ["chzdev", "-a", "qeth", gid, "online=0", "layer2=1"]
    assert chz.disable_argv("chzdev", gid, "both", yes=True) == ["chzdev", "-d", "-y", "qeth", gid]
    assert chz.remove_argv("chzdev", gid, ["hw_trap", "vnicc/learning"]) == \
        ["chzdev", "-p", "qeth", gid, "-r", "hw_trap", "-r", "vnicc/learning"]
    assert chz.render(["/usr/sbin/chzdev", "-e", "qeth", gid, "hsuid=a b"]) == \
        "chzdev -e qeth %s 'hsuid=a b'" % gid


def test_chzdev_failure_message():
    msg = chz.failure_message(["/sbin/chzdev", "-e", "qeth", "0.0.8200"], 9, "",
                              "QETH device 0.0.8200:0.0.8201:0.0.8202 configure failed\n"
                              "    Error: Cannot set buffer_count='128' while online='1' (*)\n")
    assert "exit code 9 (invalid configuration)" in msg
    assert "Cannot set buffer_count='128' while online='1'" in msg
    assert chz.describe_exit(123) == "exit code 123"


@pytest.mark.parametrize("os_release, package", [
    ('NAME="Red Hat Enterprise Linux"\nID="rhel"\nID_LIKE="fedora"\nPRETTY_NAME="Red Hat Enterprise Linux 8.8 (Ootpa)"\n',
     "s390utils-base"),
    ('NAME="SLES"\nVERSION="15-SP5"\nID="sles"\nID_LIKE="suse"\n', "s390-tools"),
    ("NAME=\"Ubuntu\"\nID=ubuntu\nID_LIKE=debian\n", "s390-tools"),
    ("ID=rocky\nID_LIKE='rhel centos fedora'\n", "s390utils-base"),
])
def test_package_per_distribution(os_release, package):
    message = chz.missing_tool_message(os_release)
    assert "chzdev was not found" in message
    assert "install the package %s" % package in message


def test_package_unknown_distribution_names_all():
    message = chz.missing_tool_message("")
    assert "s390utils-base on Red Hat Enterprise Linux" in message
    assert "s390-tools on SUSE Linux Enterprise Server and Ubuntu" in message
