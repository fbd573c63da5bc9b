# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""ip_interfaces' entries without a host (plugins/module_utils/ip/config.py) and the nmcli
command lines and parsers (plugins/module_utils/ip/nm_cli.py), with output as NetworkManager 1.42 prints it."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.s390x.network.plugins.module_utils.ip import config as cfg
from ansible_collections.s390x.network.plugins.module_utils.ip import nm_cli


def entry(**item):
    base = {"autoconnect": True}
    base.update(item)
    return cfg.normalize_entry(base, 0)


def test_a_qeth_device_id_in_short_form_is_completed():
    assert entry(device="8200", addresses=["10.50.0.11/24"])["device"] == "0.0.8200"


@pytest.mark.parametrize(
    "item, message",
    [
        ({}, "config[0]: name the interface with exactly one of device (qeth device ID), mac or name; got none"),
        ({"device": "8200", "name": "eth0"}, "exactly one of device (qeth device ID), mac or name; got device, name"),
        ({"name": "eth0", "addresses": ["10.50.0.11"]}, "config[0].addresses[0]: '10.50.0.11' has no prefix length"),
        (
            {"name": "eth0", "addresses": ["10.50.0.0/24"]},
            "10.50.0.0 is the network or broadcast address of 10.50.0.0/24",
        ),
        (
            {"name": "eth0", "addresses": ["10.50.0.1/24", "10.50.0.1/16"]},
            "config[0].addresses[1]: 10.50.0.1 is given twice",
        ),
        ({"name": "eth0", "mtu": 67}, "config[0].mtu: 67 is outside 68..65535"),
        ({"name": "eth0", "vlans": [{"id": 4095}]}, "config[0].vlans[0].id: 4095 is outside 1..4094"),
        ({"name": "eth0", "vlans": [{"id": 5}, {"id": 5}]}, "config[0].vlans[1].id: VLAN 5 is given twice"),
        ({"mac": "12:34:56"}, "config[0].mac: '12:34:56' is not a MAC address"),
        ({"name": "a/b"}, "config[0].name: 'a/b' is not a network interface name"),
        ({"device": "x.y"}, "config[0].device: 'x.y' is not a qeth device ID"),
        (
            {"name": "eth0", "addresses": ["10.50.0.11/24"], "routes": [{"to": "10.60.0.0/24", "via": "10.51.0.1"}]},
            "config[0].routes[0].via: 10.51.0.1 is in none of the interface's subnets (10.50.0.0/24)",
        ),
        (
            {"name": "eth0", "routes": [{"to": "10.60.0.1/24"}]},
            "config[0].routes[0].to: '10.60.0.1/24' is not a network",
        ),
        ({"name": "eth0", "routes": [{"to": "10.60.0.0/24", "via": "fe80::1"}]}, "via fe80::1 is not an IPv4 address"),
    ],
)
def test_bad_entries_are_refused_naming_the_field(item, message):
    with pytest.raises(cfg.ConfigError) as err:
        entry(**item)
    assert message in str(err.value)


def test_merged_sets_only_what_the_entry_gives():
    props = cfg.wanted_properties(entry(device="8200", mtu=32768), "enc8200")
    assert props == {
        "connection.id": "enc8200",
        "connection.type": "802-3-ethernet",
        "connection.interface-name": "enc8200",
        "connection.autoconnect": "yes",
        "802-3-ethernet.mtu": "32768",
    }


def test_replaced_resets_what_the_entry_leaves_out():
    props = cfg.wanted_properties(entry(name="eth0", addresses=["fd00::5/64"]), "eth0", replace=True)
    assert props["ipv4.method"] == "disabled" and props["ipv4.addresses"] is None
    assert props["ipv6.method"] == "manual" and props["ipv6.addresses"] == "fd00::5/64"
    assert props["ipv4.routes"] is None and props["ipv6.routes"] is None
    assert props["802-3-ethernet.mtu"] == "auto"


def test_routes_and_vlans_in_nmcli_syntax():
    item = entry(
        name="encbd00",
        vlans=[
            {
                "id": 100,
                "addresses": ["192.168.100.5/24"],
                "routes": [{"to": "default", "via": "192.168.100.1"}, {"to": "10.9.0.0/16", "metric": 20}],
            }
        ],
    )
    vlan = item["vlans"][0]
    props = cfg.wanted_properties(vlan, "encbd00.100", ctype=cfg.VLAN, parent="encbd00", vlan_id=100)
    assert props["ipv4.routes"] == "0.0.0.0/0 192.168.100.1, 10.9.0.0/16 20"
    assert props["vlan.parent"] == "encbd00" and props["vlan.id"] == "100"
    assert props["connection.type"] == "vlan"


def test_routes_as_nmcli_prints_them_become_routes_entries():
    assert cfg.parse_route_text("10.60.0.0/24 10.50.0.1 10") == {"to": "10.60.0.0/24", "via": "10.50.0.1", "metric": 10}
    assert cfg.parse_route_text("10.9.0.0/16 20") == {"to": "10.9.0.0/16", "metric": 20}
    assert cfg.parse_route_text("fd00:1::/64 fd00::1") == {"to": "fd00:1::/64", "via": "fd00::1"}
    assert "connection.uuid" not in nm_cli.managed_fields(cfg.VLAN) and "vlan.id" in nm_cli.managed_fields(cfg.VLAN)
    assert nm_cli.managed_fields(cfg.ETHERNET)[-1] == "802-3-ethernet.mtu"


def test_values_as_nmcli_prints_them_compare_equal():
    wanted = {"ipv4.addresses": "10.50.0.2/24, 10.50.0.3/24", "802-3-ethernet.mtu": "auto", "ipv4.gateway": None}
    have = {"ipv4.addresses": "10.50.0.2/24,10.50.0.3/24", "802-3-ethernet.mtu": "0", "ipv4.gateway": "--"}
    assert cfg.differing(wanted, have) == []
    assert cfg.differing({"ipv4.routes": "10.9.0.0/16 20"}, {"ipv4.routes": "10.9.0.0/16 0.0.0.0 20"}) == []
    assert cfg.differing({"802-3-ethernet.mtu": "9000"}, {"802-3-ethernet.mtu": "auto"}) == ["802-3-ethernet.mtu"]
    assert cfg.differing({"connection.id": "enc8200"}, {}) == ["connection.id"]


# nmcli 1.42 output, as read in a lab host
PROFILE = """connection.id:enc8200
connection.uuid:08493fcd-5c5f-4f2d-aae0-0d8e1bb61b62
connection.type:802-3-ethernet
connection.interface-name:enc8200
connection.autoconnect:yes
ipv4.method:manual
ipv4.addresses:10.50.0.2/24, 10.50.0.3/24
ipv4.gateway:
ipv4.routes:10.60.0.0/24 10.50.0.1 10, 10.70.0.0/16 10.50.0.1
ipv6.method:ignore
ipv6.addresses:
802-3-ethernet.mtu:8192
"""
LIST = """enc8200:08493fcd-5c5f-4f2d-aae0-0d8e1bb61b62:802-3-ethernet:enc8200
lo:30a6c983-9280-4592-a297-983b7ad160f3:loopback:lo
Wired connection 1:5c0a0e1e-1111-4c4c-8888-0123456789ab:802-3-ethernet:
"""


def test_terse_profile_and_list():
    props = nm_cli.parse_terse(PROFILE)
    assert props["ipv4.routes"] == "10.60.0.0/24 10.50.0.1 10, 10.70.0.0/16 10.50.0.1"
    assert props["ipv4.gateway"] is None and props["802-3-ethernet.mtu"] == "8192"
    rows = nm_cli.parse_list_profiles(LIST)
    assert rows[0] == {
        "name": "enc8200",
        "uuid": "08493fcd-5c5f-4f2d-aae0-0d8e1bb61b62",
        "type": "802-3-ethernet",
        "device": "enc8200",
    }
    assert rows[2]["name"] == "Wired connection 1" and rows[2]["device"] is None
    assert nm_cli.split_terse_row(r"a\:b:c") == ["a:b", "c"]


def test_command_lines():
    props = {
        "connection.id": "enc8200",
        "connection.type": "802-3-ethernet",
        "connection.interface-name": "enc8200",
        "ipv4.method": "manual",
        "ipv4.addresses": "10.50.0.11/24",
        "ipv4.gateway": None,
    }
    assert nm_cli.argv_add(props) == [
        "nmcli", "connection", "add", "type", "802-3-ethernet", "con-name", "enc8200", "ifname", "enc8200",
        "ipv4.method", "manual", "ipv4.addresses", "10.50.0.11/24", "ipv4.gateway", "",
    ]  # fmt: skip
    assert nm_cli.argv_modify(("uuid", "U"), {"802-3-ethernet.mtu": "auto"}) == [
        "nmcli", "connection", "modify", "uuid", "U", "802-3-ethernet.mtu", "auto",
    ]  # fmt: skip
    assert nm_cli.argv_up(("id", "enc8200")) == [
        "nmcli",
        "connection",
        "up",
        "id",
        "enc8200",
    ]
    assert nm_cli.argv_show_profile("U", "802-3-ethernet")[3].rsplit(",", maxsplit=1)[-1] == "802-3-ethernet.mtu"
    assert "vlan.id" in nm_cli.argv_show_profile("U", "vlan")[3]
    assert nm_cli.parse_device_state("GENERAL.STATE:100 (connected)\nGENERAL.CON-UUID:U\n") == (100, "U")
    assert nm_cli.parse_version("nmcli tool, version 1.42.4") == (1, 42)
