# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Reading qeth state from a sysfs tree in the kernel's layout plus chzdev rules; ID resolution."""

from __future__ import absolute_import, division, print_function

import os

import pytest

from ansible_collections.s390x.network.plugins.module_utils.qeth import ccw_blacklist
from ansible_collections.s390x.network.plugins.module_utils.qeth.ids import QethIdError
from ansible_collections.s390x.network.plugins.module_utils.qeth.state import (
    capable_devices,
    card_type_from_ccw,
    device_view,
    read_state,
    resolve_id,
)
from ansible_collections.s390x.network.plugins.module_utils.qeth.sysfs import SysfsReader

IDS = ("0.0.8200", "0.0.8201", "0.0.8202")


@pytest.fixture
def host(fake_kernel):
    h = fake_kernel()
    h.add_ccw_devices("0.0.8200", 6)
    h.add_ccw_devices("0.0.bd00", 3, chpid="85", hipersockets=False)
    return h


def test_reader_sees_groups_and_ungrouped(host):
    host.qeth_group(IDS)
    host.qeth_write("0.0.8200", "layer2", "1")
    host.qeth_write("0.0.8200", "online", "1")
    reader = SysfsReader()
    assert reader.group_busids() == ["0.0.8200"]
    raw = reader.read_group("0.0.8200", extra_names=["vnicc/learning", "nosuch"])
    assert raw["online"] == "1" and raw["state"] == "UP (LAN ONLINE)"
    assert raw["cdevs"] == list(IDS)
    assert raw["if_name"] == "enc8200"
    assert raw["extra"] == {"vnicc/learning": "0", "nosuch": None}
    assert reader.group_of_ccw("0.0.8201") == "0.0.8200"
    assert reader.group_of_ccw("0.0.8203") is None
    ungrouped = [i.devid for i in reader.ungrouped_qeth_ccw()]
    assert ungrouped == ["0.0.8203", "0.0.8204", "0.0.8205", "0.0.bd00", "0.0.bd01", "0.0.bd02"]
    info = reader.ccw_info("0.0.bd00")
    assert info.chpids == "80/85 00 00 00 00 00 00 00" and info.cutype == "1731/01"
    assert card_type_from_ccw(info) == "OSA"
    assert card_type_from_ccw(reader.ccw_info("0.0.8203")) == "HiperSockets"
    assert reader.read_group("0.0.9999") is None


def test_if_name_from_net_dir_when_file_missing(host):
    host.qeth_group(IDS)
    host.qeth_write("0.0.8200", "online", "1")
    os.unlink(os.path.join(host.qeth_dir("0.0.8200"), "if_name"))
    assert SysfsReader().read_group("0.0.8200")["if_name"] == "enc8200"


def test_if_name_of_a_never_online_device_is_none(host):
    # the kernel prints netdev_name() of a netdev that was never registered
    host.qeth_group(IDS)
    with open(os.path.join(host.qeth_dir("0.0.8200"), "if_name"), "w") as handle:
        handle.write("(unnamed net_device)\n")
    assert SysfsReader().read_group("0.0.8200")["if_name"] is None


def test_read_state_merges_active_and_rules(host):
    host.qeth_group(IDS)
    host.qeth_write("0.0.8200", "buffer_count", "64")
    host.write_rule("0.0.8200", IDS, {"layer2": "1", "buffer_count": "128", "online": "1", "vnicc/learning": "1"})
    host.write_rule("0.0.8203", ("0.0.8203", "0.0.8204", "0.0.8205"), {"online": "1"})
    devices = read_state(SysfsReader())
    dev = devices["0.0.8200"]
    assert dev.exists and not dev.online
    assert dev.active["buffer_count"] == "64"
    assert "layer2" not in dev.active  # -1: undetermined while offline
    assert dev.active["vnicc/learning"] == "0"  # read because the rule names it
    assert dev.persistent["buffer_count"] == "128"
    assert dev.card_type == "HiperSockets" and dev.info["chpid"] == "F0"
    only_rule = devices["0.0.8203"]
    assert not only_rule.exists and only_rule.group_id == "0.0.8203:0.0.8204:0.0.8205"
    view = device_view(dev, scope="both")
    assert view["buffer_count"] == 64 and view["layer2"] is None and view["online"] is False
    assert view["persistent"] == {
        "online": True,
        "layer2": True,
        "buffer_count": 128,
        "portno": None,
        "isolation": None,
        "attributes": {"vnicc/learning": "1"},
    }
    assert device_view(dev, scope="persistent").get("buffer_count") is None


def test_resolve_id(host):
    host.qeth_group(IDS)
    reader = SysfsReader()
    devices = read_state(reader)
    assert resolve_id("0.0.8200", devices, reader) == ("0.0.8200", IDS)
    assert resolve_id("8203", devices, reader) == ("0.0.8203", ("0.0.8203", "0.0.8204", "0.0.8205"))
    assert resolve_id("0.0.bd00", devices, reader)[1] == ("0.0.bd00", "0.0.bd01", "0.0.bd02")
    with pytest.raises(QethIdError, match="belongs to qeth device 0.0.8200:0.0.8201:0.0.8202"):
        resolve_id("0.0.8202", devices, reader)
    with pytest.raises(QethIdError, match="already in qeth device"):
        resolve_id("0.0.8203:0.0.8204:0.0.8200", devices, reader)
    with pytest.raises(QethIdError, match="does not exist"):
        resolve_id("0.0.9000:0.0.9001:0.0.9002", devices, reader)
    # the persistent configuration only (chzdev -p) may name a device the host does not have
    absent = ("0.0.9000", "0.0.9001", "0.0.9002")
    assert resolve_id("0.0.9000:0.0.9001:0.0.9002", devices, reader, missing_ok=True) == ("0.0.9000", absent)
    with pytest.raises(QethIdError, match="already in qeth device"):
        resolve_id("0.0.8203:0.0.8204:0.0.8200", devices, reader, missing_ok=True)
    with pytest.raises(QethIdError, match="not an ungrouped qeth device"):
        resolve_id("0.0.9000", devices, reader)
    assert capable_devices(devices, reader) == [
        "0.0.8200:0.0.8201:0.0.8202",
        "0.0.8203:0.0.8204:0.0.8205",
        "0.0.bd00:0.0.bd01:0.0.bd02",
    ]


def test_empty_host(host_root):
    reader = SysfsReader()
    assert reader.group_busids() == [] and reader.ungrouped_qeth_ccw() == []
    assert read_state(reader) == {}


# -- devices hidden by cio_ignore ---------------------------------------------------------------


def _hidden_host(fake_kernel, rule_free=None):
    """8200-8202 on the blacklist (no CCW device in sysfs), 8203-8205 freed; booted with cio_ignore=all."""
    h = fake_kernel()
    h.add_ccw_devices("0.0.8203", 3)
    with open(h.path("/proc/cio_ignore"), "w") as handle:
        handle.write("0.0.0000-0.0.8202\n0.0.8206-0.0.ffff\n0.1.0000-0.1.ffff\n")
    with open(h.path("/proc/cmdline"), "w") as handle:
        handle.write("root=/dev/dasda1 cio_ignore=all,!condev\n")
    if rule_free:
        with open(h.path("/etc/udev/rules.d/41-cio-ignore.rules"), "w") as handle:
            handle.write(
                'ACTION=="add", SUBSYSTEM=="subsystem", KERNEL=="ccw", RUN{program}+="/bin/sh -c '
                '\'echo free %s > /proc/cio_ignore\'"\n' % rule_free
            )
    return h


def test_hidden_device_by_full_id_resolves(fake_kernel):
    _hidden_host(fake_kernel)
    reader = SysfsReader()
    devices = read_state(reader)
    assert resolve_id("0.0.8200:0.0.8201:0.0.8202", devices, reader, ccw_blacklist.read()) == ("0.0.8200", IDS)


def test_hidden_device_by_read_id_asks_for_the_full_id(fake_kernel):
    _hidden_host(fake_kernel)
    reader = SysfsReader()
    with pytest.raises(QethIdError, match=r"hidden by cio_ignore.*0\.0\.8200:0\.0\.8201:0\.0\.8202"):
        resolve_id("0.0.8200", read_state(reader), reader, ccw_blacklist.read())


def test_a_device_that_is_neither_present_nor_hidden_is_still_an_error(fake_kernel):
    h = _hidden_host(fake_kernel)
    with open(h.path("/proc/cio_ignore"), "w") as handle:
        handle.write("0.0.8206-0.0.ffff\n")
    reader = SysfsReader()
    with pytest.raises(QethIdError, match="0.0.8200 does not exist"):
        resolve_id("0.0.8200:0.0.8201:0.0.8202", read_state(reader), reader, ccw_blacklist.read())


@pytest.mark.parametrize(
    "rule_free, at_boot",
    [
        (None, ["0.0.8203", "0.0.8204", "0.0.8205"]),
        ("8200-8202", ["0.0.8203", "0.0.8204", "0.0.8205"]),
        ("8203-8205", []),
        ("0.0.8203,0.0.8205", ["0.0.8204"]),
    ],
)
def test_configured_device_hidden_at_boot(fake_kernel, rule_free, at_boot):
    h = _hidden_host(fake_kernel, rule_free)
    h.write_rule("0.0.8203", ("0.0.8203", "0.0.8204", "0.0.8205"), {"online": "1"})
    dev = read_state(SysfsReader())["0.0.8203"]
    assert dev.hidden == []
    assert dev.hidden_at_boot == at_boot
    view = device_view(dev)
    assert view["hidden"] == [] and view["hidden_at_boot"] == at_boot


def test_rule_of_a_hidden_device_is_read_and_reported_hidden(fake_kernel):
    h = _hidden_host(fake_kernel)
    h.write_rule("0.0.8200", IDS, {"online": "1", "layer2": "1"})
    reader = SysfsReader()
    devices = read_state(reader)
    dev = devices["0.0.8200"]
    assert not dev.exists and dev.hidden == list(IDS) and dev.hidden_at_boot == list(IDS)
    # a single ID names it through its rule
    assert resolve_id("0.0.8200", devices, reader, ccw_blacklist.read()) == ("0.0.8200", IDS)
    assert device_view(dev, scope="active")["hidden"] == list(IDS)
    assert "hidden_at_boot" not in device_view(dev, scope="active")
