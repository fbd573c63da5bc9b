# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Management connection: SSH_CONNECTION, ip output, /proc fallbacks, stacked devices."""

from __future__ import absolute_import, division, print_function

import os

import pytest

from ansible_collections.s390x.network.plugins.module_utils.engine import mgmt_connection as mc

IP_ADDR = """\
1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever preferred_lft forever
1: lo    inet6 ::1/128 scope host noprefixroute \\       valid_lft forever preferred_lft forever
2: encbd00    inet 10.0.0.5/24 brd 10.0.0.255 scope global encbd00\\       valid_lft forever preferred_lft forever
2: encbd00    inet6 fd00::5/64 scope global \\       valid_lft forever preferred_lft forever
3: enc8200    inet 192.168.20.1/24 brd 192.168.20.255 scope global enc8200\\       valid_lft forever preferred_lft forever
7: bond0    inet 172.16.0.9/16 scope global bond0
9: veth1@if8    inet 10.9.0.2/30 scope global veth1
"""

PROC_ROUTE = """\
Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT
encbd00\t00000000\t0100000A\t0003\t0\t0\t100\t00000000\t0\t0\t0
encbd00\t0000000A\t00000000\t0001\t0\t0\t100\t00FFFFFF\t0\t0\t0
enc8200\t0014A8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0
enc8300\t0014A8C0\t00000000\t0000\t0\t0\t0\t00FFFFFF\t0\t0\t0
"""

IF_INET6 = """\
00000000000000000000000000000001 01 80 10 80       lo
fd000000000000000000000000000005 02 40 00 80  encbd00
fe800000000000000000000000000001 03 40 20 80  enc8200
"""


def test_parse_ssh_connection():
    assert mc.parse_ssh_connection("10.0.0.1 51234 10.0.0.5 22") == {
        "client": "10.0.0.1",
        "client_port": 51234,
        "server": "10.0.0.5",
        "server_port": 22,
    }
    assert mc.parse_ssh_connection("fd00::1 40000 fd00:0::5 2222")["server"] == "fd00::5"
    assert mc.parse_ssh_connection("fe80::1%enc8200 40000 fe80::2%enc8200 22")["client"] == "fe80::1"
    for bad in (None, "", "10.0.0.1 22", "a b c d", "10.0.0.1 x 10.0.0.5 22"):
        assert mc.parse_ssh_connection(bad) is None


def test_parse_ip_addr():
    entries = mc.parse_ip_addr(IP_ADDR)
    assert ("encbd00", "10.0.0.5", 24) in entries
    assert ("encbd00", "fd00::5", 64) in entries
    assert ("veth1", "10.9.0.2", 30) in entries
    assert mc.interfaces_with_address(entries, "10.0.0.5") == {"encbd00"}
    assert mc.interfaces_with_address(entries, "fd00:0:0::5") == {"encbd00"}
    assert mc.interfaces_with_address(entries, "10.0.0.6") == set()
    assert mc.interfaces_with_address(entries, "nonsense") == set()


def test_parse_ip_route_get():
    assert mc.parse_ip_route_get("10.0.0.1 dev encbd00 src 10.0.0.5 uid 0 \n    cache \n") == "encbd00"
    assert mc.parse_ip_route_get("8.8.8.8 via 10.0.0.1 dev encbd00 src 10.0.0.5 uid 0\n") == "encbd00"
    assert mc.parse_ip_route_get("local 10.0.0.5 dev lo table local src 10.0.0.5 uid 0\n") == "lo"
    assert mc.parse_ip_route_get("RTNETLINK answers: Network is unreachable\n") is None


def test_proc_net_route_longest_prefix():
    routes = mc.parse_proc_net_route(PROC_ROUTE)
    assert routes[0]["gateway"] == "10.0.0.1" and routes[1]["destination"] == "10.0.0.0"
    assert routes[1]["mask"] == "255.255.255.0"
    assert mc.route_interface(routes, "10.0.0.1") == "encbd00"  # connected /24
    assert mc.route_interface(routes, "192.168.20.7") == "enc8200"  # enc8300's route is down
    assert mc.route_interface(routes, "8.8.8.8") == "encbd00"  # default route
    assert mc.route_interface(routes, "fd00::1") is None
    assert mc.route_interface([], "10.0.0.1") is None


def test_if_inet6():
    entries = mc.parse_if_inet6(IF_INET6)
    assert ("encbd00", "fd00::5", 64) in entries
    assert mc.interfaces_with_address(entries, "fe80::1") == {"enc8200"}


def test_environ_of_ancestor(host_root):
    proc = host_root / "proc"
    for pid, ppid, env in (
        (300, 200, b"PATH=/usr/bin\0"),
        (200, 100, b"SSH_CONNECTION=10.0.0.1 5 10.0.0.5 22\0X=1\0"),
        (100, 1, b""),
    ):
        (proc / str(pid)).mkdir(parents=True)
        (proc / str(pid) / "status").write_text("Name:\tx\nPPid:\t%d\n" % ppid)
        (proc / str(pid) / "environ").write_bytes(env)
    found = mc.find_ssh_connection({}, pid=300)
    assert found["client"] == "10.0.0.1" and found["server"] == "10.0.0.5"
    assert mc.find_ssh_connection({"SSH_CONNECTION": "10.1.1.1 1 10.1.1.2 22"}, 300)["server"] == "10.1.1.2"
    assert mc.find_ssh_connection({}, pid=100) is None
    assert mc.parse_environ(b"A=1\0B=x=y\0junk\0") == {"A": "1", "B": "x=y"}


def test_lower_devices(host_root):
    net = host_root / "sys" / "class" / "net"
    for name in ("br0", "bond0", "encbd00", "encbe00", "vlan10"):
        (net / name).mkdir(parents=True)
    os.mkdir(str(net / "br0" / "brif"))
    os.symlink("../../bond0", str(net / "br0" / "brif" / "bond0"))
    os.symlink("../bond0", str(net / "br0" / "lower_bond0"))
    os.symlink("../encbd00", str(net / "bond0" / "lower_encbd00"))
    os.symlink("../encbe00", str(net / "bond0" / "lower_encbe00"))
    os.symlink("../encbd00", str(net / "vlan10" / "lower_encbd00"))
    assert mc.lower_devices("br0") == {"bond0", "encbd00", "encbe00"}
    assert mc.lower_devices("vlan10") == {"encbd00"}
    assert mc.lower_devices("encbd00") == set()
    assert mc.lower_devices("nosuch") == set()


class FakeModule(object):
    def __init__(self, outputs, has_ip=True):
        self.outputs = outputs
        self.has_ip = has_ip
        self.calls = []

    def get_bin_path(self, name, required=False):
        return "/usr/sbin/ip" if self.has_ip and name == "ip" else None

    def run_command(self, argv, **kw):
        self.calls.append(argv)
        return self.outputs.get(tuple(argv[1:]), (1, "", "error"))


def test_management_interfaces_with_ip(host_root):
    module = FakeModule(
        {
            ("-o", "addr", "show"): (0, IP_ADDR, ""),
            ("route", "get", "10.0.0.1"): (0, "10.0.0.1 dev encbd00 src 10.0.0.5\n", ""),
        }
    )
    env = {"SSH_CONNECTION": "10.0.0.1 51234 10.0.0.5 22"}
    names = mc.management_interfaces(module, environ=env)
    assert names == {"encbd00"}
    assert ["/usr/sbin/ip", "-o", "addr", "show"] in module.calls


def test_management_interfaces_bond_adds_its_lowers(host_root):
    net = host_root / "sys" / "class" / "net" / "bond0"
    net.mkdir(parents=True)
    os.symlink("../encbd00", str(net / "lower_encbd00"))
    module = FakeModule(
        {
            ("-o", "addr", "show"): (0, IP_ADDR, ""),
            ("route", "get", "172.16.0.1"): (0, "172.16.0.1 dev bond0 src 172.16.0.9\n", ""),
        }
    )
    env = {"SSH_CONNECTION": "172.16.0.1 40000 172.16.0.9 22"}
    assert mc.management_interfaces(module, env) == {"bond0", "encbd00"}


def test_management_interfaces_proc_fallback(host_root):
    (host_root / "proc" / "net").mkdir(parents=True)
    (host_root / "proc" / "net" / "route").write_text(PROC_ROUTE)
    (host_root / "proc" / "net" / "if_inet6").write_text(IF_INET6)
    module = FakeModule({}, has_ip=False)
    env = {"SSH_CONNECTION": "192.168.20.9 1 192.168.20.1 22"}
    names, details = mc.management_connection(module, env)
    assert names == {"enc8200"} and details["method"] == "proc"
    assert mc.management_interfaces(module, {"SSH_CONNECTION": "fd00::9 1 fd00::5 22"}) == {"encbd00"}


def test_no_ssh_no_interfaces(host_root):
    module = FakeModule({})
    names, details = mc.management_connection(module, {})
    assert names == set() and details["method"] == "no SSH connection found"
    assert module.calls == []


@pytest.mark.parametrize("client", ["127.0.0.1"])
def test_loopback_is_never_reported(host_root, client):
    module = FakeModule(
        {
            ("-o", "addr", "show"): (0, IP_ADDR, ""),
            ("route", "get", client): (0, "local %s dev lo table local\n" % client, ""),
        }
    )
    assert mc.management_interfaces(module, {"SSH_CONNECTION": "%s 1 127.0.0.1 22" % client}) == set()
