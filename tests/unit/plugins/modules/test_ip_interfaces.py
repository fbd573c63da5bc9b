# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""ip_interfaces against a fake NetworkManager (nmcli as NetworkManager 1.42 answers, profiles that
become the device's addresses on ``connection up``) and a sysfs tree with one qeth interface."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

from ansible_collections.s390x.network.plugins.modules import ip_interfaces

FIELDS_ETH = (
    "connection.id connection.uuid connection.type connection.interface-name connection.autoconnect ipv4.method "
    "ipv4.addresses ipv4.gateway ipv4.routes ipv6.method ipv6.addresses ipv6.gateway ipv6.routes 802-3-ethernet.mtu"
).split()


def terse(value):
    """A value as nmcli -t prints it: ``\\`` and ``:`` escaped with a backslash."""
    return value.replace("\\", "\\\\").replace(":", "\\:")


class FakeNM(object):
    """Profiles {uuid: props}, devices {ifname: dict(addresses, mtu, max_mtu, active)}."""

    def __init__(self, root):
        self.root = root
        self.profiles = {}
        self.devices = {}
        self.calls = []
        self.fail = {}  # verb -> exit code of its next call
        self.count = 0

    def add_qeth(self, busid, ifname, layer2=True, online=True, mtu=32768):
        group = self.root / "sys/bus/ccwgroup/devices" / busid
        group.mkdir(parents=True)
        (group / "if_name").write_text((ifname if online else "") + "\n")
        net = self.root / "sys/class/net" / ifname
        (net / "device").mkdir(parents=True)
        (net / "device" / "layer2").write_text("1\n" if layer2 else "0\n")
        (net / "address").write_text("06:00:f0:01:82:00\n")
        (net / "type").write_text("1\n")
        if online:
            self.devices[ifname] = {"addresses": [], "mtu": mtu, "max_mtu": 65535, "active": None}

    def changing(self):
        return [c for c in self.calls if c[:2] == ["nmcli", "connection"] and c[2] in ("add", "modify", "up", "delete")]

    def run(self, argv):
        self.calls.append(argv)
        prog = argv[0].split("/")[-1]
        if prog == "ip":
            return self._ip(argv[1:])
        args = argv[1:]
        if args == ["-t", "-f", "RUNNING", "general"]:
            return 0, "running\n", ""
        if args == ["-t", "-f", "NAME,UUID,TYPE,DEVICE", "connection", "show"]:
            rows = [
                ":".join(terse(v) for v in (p["connection.id"], u, p["connection.type"], self._device_of(u)))
                for u, p in sorted(self.profiles.items())
            ]
            return 0, "".join(r + "\n" for r in rows), ""
        if args[:2] == ["-t", "-f"] and args[3:5] == ["connection", "show"]:
            props = self.profiles.get(args[6])
            if props is None:
                return 10, "", "Error: no such connection profile.\n"
            return 0, "".join("%s:%s\n" % (f, terse(props.get(f) or "")) for f in args[2].split(",")), ""
        if args[:2] == ["-t", "-f"] and args[3:5] == ["device", "show"]:
            dev = self.devices.get(args[5])
            if dev is None:
                return 10, "", "Error: Device not found.\n"
            state = "100 (connected)" if dev["active"] else "30 (disconnected)"
            return 0, "GENERAL.STATE:%s\nGENERAL.CONNECTION:\nGENERAL.CON-UUID:%s\n" % (state, dev["active"] or ""), ""
        verb = args[1] if args[:1] == ["connection"] else None
        if verb in self.fail:
            return self.fail.pop(verb), "", "Error: %s failed (injected).\n" % verb
        if verb == "add":
            return self._add(args[2:])
        if verb in ("modify", "up", "delete"):
            uuid = self._ref(args[2], args[3])
            if uuid is None:
                return 10, "", "Error: unknown connection '%s'.\n" % args[3]
            if verb == "modify":
                rest = args[4:]
                for i in range(0, len(rest), 2):
                    self.profiles[uuid][rest[i]] = rest[i + 1] or None
            elif verb == "up":
                props = self.profiles[uuid]
                # NetworkManager creates a VLAN's interface when it activates the profile
                dev = self.devices.setdefault(
                    props["connection.interface-name"], {"addresses": [], "mtu": 1500, "max_mtu": 65535, "active": None}
                )
                addresses = (props.get("ipv4.addresses") or "") + "," + (props.get("ipv6.addresses") or "")
                dev["addresses"] = [a.strip() for a in addresses.split(",") if a.strip()]
                if (props.get("802-3-ethernet.mtu") or "auto") not in ("auto", "0"):
                    dev["mtu"] = int(props["802-3-ethernet.mtu"])
                dev["active"] = uuid
            else:
                props = self.profiles.pop(uuid)
                dev = self.devices.get(props["connection.interface-name"])
                if dev and dev["active"] == uuid:
                    dev.update(active=None, addresses=[])
            return 0, "", ""
        raise AssertionError("unexpected command %s" % argv)

    def _device_of(self, uuid):
        for name, dev in self.devices.items():
            if dev["active"] == uuid:
                return name
        return ""

    def _ref(self, kind, value):
        for uuid, props in self.profiles.items():
            if (kind == "uuid" and uuid == value) or (kind == "id" and props["connection.id"] == value):
                return uuid
        return None

    def _add(self, args):
        props = dict((f, None) for f in FIELDS_ETH)
        props.update({"connection.type": args[1], "connection.id": args[3], "connection.interface-name": args[5]})
        rest = args[6:]
        for i in range(0, len(rest), 2):
            props[rest[i]] = rest[i + 1] or None
        self.count += 1
        uuid = "0000000%d-0000-4000-8000-000000000000" % self.count
        props["connection.uuid"] = uuid
        props.setdefault("802-3-ethernet.mtu", "auto")
        self.profiles[uuid] = props
        return 0, "Connection '%s' (%s) successfully added.\n" % (args[3], uuid), ""

    def _ip(self, args):
        if args[:4] == ["-d", "-j", "addr", "show"]:
            dev = self.devices.get(args[5])
            if dev is None:
                return 1, "", 'Device "%s" does not exist.\n' % args[5]
            info = [
                {
                    "family": "inet6" if ":" in a else "inet",
                    "local": a.split("/")[0],
                    "prefixlen": int(a.split("/")[1]),
                    "scope": "global",
                }
                for a in dev["addresses"]
            ]
            link = {
                "ifname": args[5],
                "mtu": dev["mtu"],
                "max_mtu": dev["max_mtu"],
                "operstate": "UP",
                "addr_info": info,
            }
            return 0, json.dumps([link]), ""
        if args[:3] == ["-o", "addr", "show"]:
            lines = []
            for name, dev in sorted(self.devices.items()):
                for a in dev["addresses"]:
                    lines.append("3: %s    inet %s scope global %s\\       valid_lft forever" % (name, a, name))
            return 0, "\n".join(lines) + "\n", ""
        if args[:2] == ["route", "get"]:
            dev = "enc8200" if args[2].startswith("10.60.0.") else "mgmt0"
            return 0, "%s dev %s src 10.209.1.11 uid 0\n" % (args[2], dev), ""
        raise AssertionError("unexpected ip %s" % args)


@pytest.fixture
def nm(host_root, monkeypatch):
    monkeypatch.delenv("SSH_CONNECTION", raising=False)
    fake = FakeNM(host_root)
    fake.add_qeth("0.0.8200", "enc8200")
    return fake


def run(run_module, nm, config, **kwargs):
    args = {"config": config}
    args.update(kwargs.pop("args", {}))
    return run_module(ip_interfaces.main, args, run_command=nm.run, **kwargs)


WANT = [{"device": "8200", "addresses": ["10.60.0.1/24"], "mtu": 16384}]


def test_a_new_profile_is_added_and_activated_then_nothing_changes(run_module, nm):
    out = run(run_module, nm, WANT, diff=True)
    assert not out.failed, out.result
    assert out.result["commands"] == [
        "nmcli connection add type 802-3-ethernet con-name enc8200 ifname enc8200 connection.autoconnect yes "
        "ipv4.method manual ipv4.addresses 10.60.0.1/24 ipv4.gateway '' ipv6.method ignore ipv6.addresses '' "
        "ipv6.gateway '' 802-3-ethernet.mtu 16384",
        "nmcli connection up id enc8200",
    ]
    assert out.result["interfaces"] == {"device 0.0.8200": "enc8200"}
    assert {"kind": "ip", "object": "enc8200", "scope": "persistent", "difference": "missing"} in out.result["drift"]
    assert nm.devices["enc8200"]["addresses"] == ["10.60.0.1/24"] and nm.devices["enc8200"]["mtu"] == 16384
    assert "    ipv4.addresses: 10.60.0.1/24\n" in out.result["diff"]["after"]
    again = run(run_module, nm, WANT)
    assert again.result["changed"] is False and again.result["commands"] == [] and again.result["drift"] == []


def test_only_the_differing_properties_are_modified_and_an_address_changed_behind_the_back_is_put_back(run_module, nm):
    run(run_module, nm, WANT)
    nm.devices["enc8200"]["addresses"] = ["10.60.0.9/24"]  # ip address replace behind Ansible's back
    out = run(run_module, nm, [dict(WANT[0], mtu=8192)])
    uuid = list(nm.profiles)[0]
    assert out.result["commands"] == [
        "nmcli connection modify uuid %s 802-3-ethernet.mtu 8192" % uuid,
        "nmcli connection up uuid %s" % uuid,
    ]
    assert {
        "kind": "ip",
        "object": "enc8200",
        "scope": "active",
        "difference": "addresses 10.60.0.9/24 -> 10.60.0.1/24, mtu 16384 -> 8192",
    } in out.result["drift"]
    assert nm.devices["enc8200"]["addresses"] == ["10.60.0.1/24"]


def test_check_mode_changes_nothing(run_module, nm):
    out = run(run_module, nm, WANT, check_mode=True)
    assert out.result["changed"] is True and len(out.result["commands"]) == 2
    assert nm.changing() == [] and nm.profiles == {}


def test_a_failed_activation_puts_the_old_profile_back_and_activates_it(run_module, nm):
    run(run_module, nm, WANT)
    uuid = list(nm.profiles)[0]
    nm.fail["up"] = 4
    out = run(run_module, nm, [{"device": "8200", "addresses": ["10.60.0.5/24"]}])
    assert out.failed
    assert "nmcli connection up uuid %s failed (exit code 4)" % uuid in out.result["msg"]
    assert out.result["rollback"]["ok"] is True
    assert out.result["rollback"]["commands"] == [
        "nmcli connection modify uuid %s ipv4.addresses 10.60.0.1/24" % uuid,
        "nmcli connection up uuid %s" % uuid,
    ]
    assert nm.profiles[uuid]["ipv4.addresses"] == "10.60.0.1/24"
    assert nm.devices["enc8200"]["addresses"] == ["10.60.0.1/24"]


def test_a_failed_activation_of_a_new_profile_deletes_it(run_module, nm):
    nm.fail["up"] = 4
    out = run(run_module, nm, WANT)
    assert out.failed and out.result["rollback"]["ok"] is True
    assert out.result["rollback"]["commands"] == ["nmcli connection delete uuid 00000001-0000-4000-8000-000000000000"]
    assert nm.profiles == {} and nm.devices["enc8200"]["addresses"] == []


def test_the_interface_of_the_ssh_connection_is_refused_before_anything_runs(run_module, nm, monkeypatch):
    run(run_module, nm, WANT)
    monkeypatch.setenv("SSH_CONNECTION", "10.60.0.2 51000 10.60.0.1 22")
    nm.calls = []
    out = run(run_module, nm, [{"device": "8200", "addresses": ["10.60.0.7/24"]}])
    assert out.failed and out.result["commands"] == []
    assert out.result["msg"].startswith(
        "ip enc8200: it carries the management connection (SSH from 10.60.0.2 to 10.60.0.1)"
    )
    assert out.result["management_interfaces"] == ["enc8200"] and nm.changing() == []
    forced = run(run_module, nm, [{"device": "8200", "addresses": ["10.60.0.7/24"]}], args={"allow_disruptive": True})
    assert forced.result["changed"] is True and nm.devices["enc8200"]["addresses"] == ["10.60.0.7/24"]


@pytest.mark.parametrize(
    "config, message",
    [
        ([{"device": "8200", "mtu": 65535}], None),
        ([{"device": "8201"}], "config[0].device: qeth device 0.0.8201 does not exist (not grouped)"),
        ([{"mac": "02:00:00:00:00:01"}], "config[0].mac: no network interface has the address 02:00:00:00:00:01"),
    ],
)
def test_what_the_host_refuses_is_refused_before_anything_runs(run_module, nm, config, message):
    nm.devices["enc8200"]["max_mtu"] = 32768
    out = run(run_module, nm, config)
    assert out.failed and nm.changing() == []
    assert out.result["msg"] == (message or "config[0].mtu: 65535 is above the maximum MTU 32768 of enc8200")


def test_a_vlan_on_a_layer3_qeth_device(run_module, host_root, monkeypatch):
    monkeypatch.delenv("SSH_CONNECTION", raising=False)
    nm = FakeNM(host_root)
    nm.add_qeth("0.0.8200", "enc8200", layer2=False)
    out = run(run_module, nm, [{"device": "8200", "vlans": [{"id": 10}]}])
    assert out.failed and nm.changing() == []
    assert out.result["msg"] == (
        "config[0].vlans[id=10]: enc8200 is a layer-3 qeth device; VLANs need a layer-2 device (qeth layer2: true)"
    )


def test_a_missing_guest_nic_is_a_warning_and_a_drift_row_with_if_missing_warn(run_module, nm):
    out = run(
        run_module, nm, [{"mac": "12:34:56:78:9a:bc", "addresses": ["10.50.0.12/24"]}], args={"if_missing": "warn"}
    )
    assert not out.failed and out.result["changed"] is False
    assert out.result["drift"] == [
        {"kind": "ip", "object": "mac 12:34:56:78:9a:bc", "scope": "active", "difference": "missing"}
    ]
    assert out.result["missing"][0]["entry"] == "mac 12:34:56:78:9a:bc"


def test_deleted_takes_the_profile_and_its_address_off(run_module, nm):
    run(run_module, nm, WANT)
    out = run(run_module, nm, [{"device": "8200"}], args={"state": "deleted"})
    assert out.result["commands"] == ["nmcli connection delete uuid 00000001-0000-4000-8000-000000000000"]
    assert nm.profiles == {} and nm.devices["enc8200"]["addresses"] == []
    assert run(run_module, nm, [{"device": "8200"}], args={"state": "deleted"}).result["changed"] is False


def test_gathered_and_rendered(run_module, nm):
    run(run_module, nm, [dict(WANT[0], routes=[{"to": "10.61.0.0/24", "via": "10.60.0.2", "metric": 50}])])
    gathered = run(run_module, nm, [{"device": "8200"}], args={"state": "gathered"}).result["gathered"]
    assert gathered == [
        {
            "name": "enc8200",
            "connection": "enc8200",
            "addresses": ["10.60.0.1/24"],
            "routes": [{"to": "10.61.0.0/24", "via": "10.60.0.2", "metric": 50}],
            "mtu": 16384,
            "autoconnect": True,
        }
    ]
    rendered = run(run_module, nm, [{"name": "eth1", "addresses": ["10.1.0.1/24"]}], args={"state": "rendered"})
    assert rendered.result["rendered"][-1] == "nmcli connection up id eth1"
    assert nm.calls[-1][:2] != ["nmcli", "connection"] or nm.calls[-1][2] == "show"


def test_a_host_without_networkmanager_is_refused_with_the_reason(run_module, nm):
    def stopped(argv):
        if argv[1:] == ["-t", "-f", "RUNNING", "general"]:
            return 8, "", "Error: NetworkManager is not running.\n"
        return nm.run(argv)

    out = run_module(ip_interfaces.main, {"config": WANT}, run_command=stopped)
    assert out.failed and out.result["msg"].startswith(
        "NetworkManager is not running (nmcli exit code 8: Error: NetworkManager is not running.)"
    )
    assert "SLES 15 (wicked)" in out.result["msg"]
    missing = run_module(ip_interfaces.main, {"config": WANT}, run_command=nm.run, bin_paths={"nmcli": None})
    assert missing.failed and missing.result["msg"].startswith("nmcli not found: this module configures interfaces")


def test_a_device_still_activating_is_read_once_it_is_activated(run_module, nm, monkeypatch):
    run(run_module, nm, WANT)
    states = iter(["70 (ip-config)", "70 (ip-config)"])
    real = nm.run

    def activating(argv):
        if argv[1:4] == ["-t", "-f", "GENERAL.STATE,GENERAL.CONNECTION,GENERAL.CON-UUID"]:
            state = next(states, None)
            if state is not None:
                return 0, "GENERAL.STATE:%s\nGENERAL.CON-UUID:\n" % state, ""
        return real(argv)

    monkeypatch.setattr("time.sleep", lambda s: None)
    out = run_module(ip_interfaces.main, {"config": WANT}, run_command=activating)
    assert out.result["changed"] is False and out.result["commands"] == []


# -- hostile input -------------------------------------------------------------------------------
# Every string field: refused naming the field before any command runs, or passed to nmcli as one
# argv element holding exactly the value (never a shell line).


def add_plain(nm, ifname, arphrd="1"):
    """A network interface that is not a qeth device (``arphrd``: /sys/class/net/IF/type)."""
    net = nm.root / "sys/class/net" / ifname
    net.mkdir(parents=True)
    (net / "type").write_text(arphrd + "\n")
    (net / "address").write_text("02:00:00:00:00:09\n")
    nm.devices[ifname] = {"addresses": [], "mtu": 1500, "max_mtu": 65535, "active": None}


def nmcli_calls(nm):
    return [c for c in nm.calls if c[0].endswith("nmcli") and c[1:3] == ["connection", "add"]]


REFUSED = [
    ({"name": "eth0\n"}, "config[0].name: 'eth0\\n' is not a network interface name"),
    ({"name": "eth\r0"}, "config[0].name: 'eth\\r0' is not a network interface name"),
    ({"name": "e\x00"}, "config[0].name: 'e\\x00' is not a network interface name"),
    ({"name": "e\u202e1"}, "control or format character"),
    ({"name": "../x"}, "config[0].name: '../x' is not a network interface name"),
    ({"name": "/etc/x"}, "config[0].name: '/etc/x' is not a network interface name"),
    ({"name": "a b"}, "config[0].name: 'a b' is not a network interface name"),
    ({"name": "a:1"}, "config[0].name: 'a:1' is not a network interface name"),
    ({"name": ".."}, "config[0].name: '..' is not a network interface name"),
    ({"name": "x" * 16}, "it has 16 bytes"),
    ({"name": "\u00e9" * 8}, "it has 16 bytes"),
    ({"name": "\u00e0"}, "holds the byte 0xa0, which the kernel takes for white space"),  # UTF-8 c3 a0
    ({"name": "-a"}, "config[0].name: '-a' starts with - (nmcli would read it as an option)"),
    ({"name": "*"}, "config[0].name: '*' is nmcli's wildcard"),
    ({"name": "lo"}, "config[0].name: lo is the loopback interface"),
    ({"name": "enc8200", "connection": "c\n"}, "config[0].connection: 'c\\n' has a control or format character"),
    ({"name": "enc8200", "connection": "c\r"}, "config[0].connection: 'c\\r' has a control or format character"),
    ({"name": "enc8200", "connection": "c\x00d"}, "config[0].connection: 'c\\x00d' has a control or format"),
    ({"name": "enc8200", "connection": "c\x1b[2J"}, "config[0].connection: 'c\\x1b[2J' has a control or format"),
    ({"name": "enc8200", "connection": "--ask"}, "config[0].connection: '--ask' starts with -"),
    ({"name": "enc8200", "connection": "x" * 243}, "config[0].connection: the connection name has 243 bytes"),
    ({"device": "8200\n"}, "config[0].device: '8200\\n' has a control or format character"),
    ({"device": "8200;id"}, "config[0].device: '8200;id' is not a qeth device ID"),
    ({"mac": "02:00:00:00:00:01\n"}, "config[0].mac: '02:00:00:00:00:01\\n' has a control or format character"),
    ({"mac": "02:00:00:00:00:01\x00"}, "config[0].mac: '02:00:00:00:00:01\\x00' has a control or format"),
    ({"name": "enc8200", "addresses": ["10.0.0.1/24\n"]}, "config[0].addresses[0]: '10.0.0.1/24\\n' has a control"),
    ({"name": "enc8200", "addresses": ["10.0.0.1/24;id"]}, "config[0].addresses[0]: '10.0.0.1/24;id' is not an"),
    ({"name": "enc8200", "addresses": ["$(id)/24"]}, "config[0].addresses[0]: '$(id)/24' is not an IPv4 or IPv6"),
    ({"name": "enc8200", "routes": [{"to": "10.1.0.0/24\x00"}]}, "config[0].routes[0].to: '10.1.0.0/24\\x00' has"),
    ({"name": "enc8200", "routes": [{"to": "10.1.0.0/24", "via": "10.1.0.1\r"}]}, "config[0].routes[0].via: "),
    ({"name": "enc8200", "vlans": [{"id": 5, "connection": "v\nx"}]}, "config[0].vlans[0].connection: 'v\\nx' has"),
    (
        {"name": "abcdefghijklmn", "vlans": [{"id": 10}]},
        "config[0].vlans[0].id: the VLAN interface 'abcdefghijklmn.10'",
    ),
]


@pytest.mark.parametrize("entry, message", REFUSED)
def test_hostile_input_is_refused_naming_the_field_before_anything_runs(run_module, nm, entry, message):
    for state in ("merged", "deleted", "rendered"):
        nm.calls = []
        out = run(run_module, nm, [entry], args={"state": state})
        assert out.failed, out.result
        assert message in out.result["msg"]
        assert nm.calls == []  # not even a read: the input is checked first


ACCEPTED_NAMES = ["a$(id>x)", "x;reboot", "p%n", 'q"r', "s'\\", "`id`", "a<b&c", '">x', "]]>", "-"[1:] + "n-1"]


@pytest.mark.parametrize("ifname", ACCEPTED_NAMES)
def test_hostile_but_kernel_legal_names_are_data_in_nmcli_argv(run_module, nm, ifname):
    add_plain(nm, ifname)
    connection = 'c;$(id)`x`"\'%n\\'
    out = run(run_module, nm, [{"name": ifname, "connection": connection, "addresses": ["10.70.0.1/24"]}])
    assert not out.failed, out.result
    add = nmcli_calls(nm)
    assert len(add) == 1
    assert add[0][3:9] == ["type", "802-3-ethernet", "con-name", connection, "ifname", ifname]
    uuid = list(nm.profiles)[0]
    assert nm.profiles[uuid]["connection.interface-name"] == ifname
    assert nm.devices[ifname]["addresses"] == ["10.70.0.1/24"]
    assert ["connection", "up", "id", connection] in [c[1:] for c in nm.calls]
    # a second run reads the profile back through nmcli's terse output: nothing to do
    again = run(run_module, nm, [{"name": ifname, "connection": connection, "addresses": ["10.70.0.1/24"]}])
    assert again.result["changed"] is False, again.result["commands"]


def test_a_kernel_legal_name_read_from_the_host_is_data(run_module, host_root, monkeypatch):
    monkeypatch.delenv("SSH_CONNECTION", raising=False)
    nm = FakeNM(host_root)
    nm.add_qeth("0.0.8200", "a$(id>x);`b`")
    out = run(run_module, nm, [{"device": "8200", "addresses": ["10.60.0.1/24"], "vlans": [{"id": 7}]}])
    assert not out.failed, out.result
    adds = nmcli_calls(nm)
    assert [a[6:9] for a in adds] == [
        ["a$(id>x);`b`", "ifname", "a$(id>x);`b`"],
        ["a$(id>x);`b`.7", "ifname", "a$(id>x);`b`.7"],
    ]
    assert out.result["interfaces"] == {"device 0.0.8200": "a$(id>x);`b`"}


@pytest.mark.parametrize(
    "hostname, message",
    [
        (
            "-a",
            "config[0].device: device 0.0.8200 resolves to an interface this module cannot pass to nmcli: '-a' starts",
        ),
        ("abcdefghijklmno", "config[0].device: the VLAN interface of VLAN 10 on abcdefghijklmno: "),
    ],
)
def test_a_name_read_from_the_host_that_nmcli_cannot_take_is_refused_naming_the_field(
    run_module, host_root, monkeypatch, hostname, message
):
    monkeypatch.delenv("SSH_CONNECTION", raising=False)
    nm = FakeNM(host_root)
    nm.add_qeth("0.0.8200", hostname)
    out = run(run_module, nm, [{"device": "8200", "vlans": [{"id": 10}]}])
    assert out.failed and out.result["msg"].startswith(message), out.result["msg"]
    assert nm.changing() == []


@pytest.mark.parametrize("state", ["merged", "replaced", "deleted"])
def test_an_interface_of_type_loopback_is_refused_naming_the_field(run_module, nm, state):
    add_plain(nm, "lo0", arphrd="772")
    out = run(run_module, nm, [{"name": "lo0", "addresses": ["127.0.0.2/8"]}], args={"state": state})
    assert out.failed and nm.changing() == []
    assert out.result["msg"] == (
        "config[0].name: lo0 is a loopback interface (type 772); ip_interfaces manages Ethernet interfaces and "
        "VLANs, not loopback"
    )
