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
                "%s:%s:%s:%s" % (p["connection.id"], u, p["connection.type"], self._device_of(u))
                for u, p in sorted(self.profiles.items())
            ]
            return 0, "".join(r + "\n" for r in rows), ""
        if args[:2] == ["-t", "-f"] and args[3:5] == ["connection", "show"]:
            props = self.profiles.get(args[6])
            if props is None:
                return 10, "", "Error: no such connection profile.\n"
            return 0, "".join("%s:%s\n" % (f, props.get(f) or "") for f in args[2].split(",")), ""
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
                dev = self.devices[props["connection.interface-name"]]
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
    assert {"object": "ip enc8200", "scope": "persistent", "difference": "profile enc8200 missing"} in out.result[
        "drift"
    ]
    assert nm.devices["enc8200"]["addresses"] == ["10.60.0.1/24"] and nm.devices["enc8200"]["mtu"] == 16384
    assert "ipv4.addresses=10.60.0.1/24" in out.result["diff"]["after"]
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
        "object": "ip enc8200",
        "scope": "active",
        "difference": "addresses: 10.60.0.9/24 -> 10.60.0.1/24",
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
        {"object": "ip mac 12:34:56:78:9a:bc", "scope": "active", "difference": "interface missing"}
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
