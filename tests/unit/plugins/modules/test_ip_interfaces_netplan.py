# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""ip_interfaces on a netplan host (Ubuntu): no NetworkManager running, the netplan command and
/etc/netplan present. A fake ``netplan apply`` gives the devices the addresses and MTU of the
collection's file; the file is parsed back as YAML. With Debian's netplan.io installed, the file
is also run through the real ``netplan generate`` and ``netplan get``."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import shutil
import stat
import subprocess

import pytest
import yaml

from ansible_collections.s390x.network.plugins.modules import ip_interfaces

FILE = "etc/netplan/60-s390x-network.yaml"


class FakeNetplanHost(object):
    def __init__(self, root):
        self.root = root
        self.devices = {}
        self.calls = []
        self.fail_apply = []  # exit codes of the next netplan apply calls
        self.applied = None
        self.generated = None
        (root / "etc/netplan").mkdir(parents=True)
        (root / "proc/1").mkdir(parents=True)
        (root / "proc/1/comm").write_text("systemd\n")

    def add_qeth(self, busid, ifname, layer2=True, mtu=1492):
        group = self.root / "sys/bus/ccwgroup/devices" / busid
        group.mkdir(parents=True)
        (group / "if_name").write_text(ifname + "\n")
        net = self.root / "sys/class/net" / ifname
        (net / "device").mkdir(parents=True)
        (net / "device" / "layer2").write_text("1\n" if layer2 else "0\n")
        (net / "type").write_text("1\n")
        self.devices[ifname] = {"addresses": [], "mtu": mtu, "max_mtu": 65535}

    def file(self):
        path = self.root / FILE
        return yaml.safe_load(path.read_text()) if path.exists() else None

    def changing(self):
        return [c for c in self.calls if c[0].endswith(("netplan", "networkctl")) or c[1:3] == ["address", "flush"]]

    def run(self, argv):
        self.calls.append(argv)
        prog = argv[0].split("/")[-1]
        args = argv[1:]
        if prog == "nmcli" and args == ["-t", "-f", "RUNNING", "general"]:
            return 8, "", "Error: NetworkManager is not running.\n"
        if prog == "netplan" and args == ["apply"] or prog == "networkctl" and args == ["reload"]:
            if self.fail_apply:
                return self.fail_apply.pop(0), "", "%s: the configuration could not be applied (injected)\n" % prog
            self._apply()
            return 0, "", ""
        if prog == "netplan" and args == ["generate"]:
            self.generated = self.file()
            return 0, "", ""
        if prog == "networkctl" and args[:1] == ["reconfigure"]:
            assert all(name in self.devices for name in args[1:]), args
            return 0, "", ""
        if prog == "ip" and args[:4] == ["-d", "-j", "addr", "show"]:
            dev = self.devices.get(args[5])
            if dev is None:
                return 1, "", 'Device "%s" does not exist.\n' % args[5]
            info = [
                {"family": "inet6" if ":" in a else "inet", "local": a.split("/")[0], "prefixlen": int(a.split("/")[1])}
                for a in dev["addresses"]
            ]
            link = {"ifname": args[5], "mtu": dev["mtu"], "max_mtu": dev["max_mtu"], "addr_info": info}
            return 0, json.dumps([link]), ""
        if prog == "ip" and args[:3] == ["address", "flush", "dev"]:
            self.devices[args[3]]["addresses"] = []
            return 0, "", ""
        raise AssertionError("unexpected command %s" % argv)

    def _apply(self):
        data = self.file() or {"network": {}}
        if (self.root / FILE).exists():
            assert stat.S_IMODE(os.stat(str(self.root / FILE)).st_mode) == 0o600
        self.applied = data
        net = data["network"]
        for section in ("ethernets", "vlans"):
            for name, stanza in (net.get(section) or {}).items():
                dev = self.devices.setdefault(name, {"addresses": [], "mtu": 1500, "max_mtu": 65535})
                dev["addresses"] = list(stanza.get("addresses") or [])
                if "mtu" in stanza:
                    dev["mtu"] = stanza["mtu"]


@pytest.fixture
def host(host_root, monkeypatch):
    monkeypatch.delenv("SSH_CONNECTION", raising=False)
    fake = FakeNetplanHost(host_root)
    fake.add_qeth("0.0.8200", "enc8200")
    fake.add_qeth("0.0.1000", "enc1000")
    return fake


def run(run_module, host, config, **kwargs):
    args = {"config": config}
    args.update(kwargs.pop("args", {}))
    return run_module(ip_interfaces.main, args, run_command=host.run, **kwargs)


WANT = [
    {
        "device": "8200",
        "addresses": ["10.60.0.1/24", "fd00:60::1/64"],
        "mtu": 16384,
        "routes": [{"to": "10.61.0.0/24", "via": "10.60.0.2", "metric": 50}],
    }
]
WANT_FILE = {
    "network": {
        "version": 2,
        "ethernets": {
            "enc8200": {
                "addresses": ["10.60.0.1/24", "fd00:60::1/64"],
                "mtu": 16384,
                "routes": [{"to": "10.61.0.0/24", "via": "10.60.0.2", "metric": 50}],
            }
        },
    }
}


def test_the_file_is_written_0600_and_applied_then_nothing_changes(run_module, host):
    out = run(run_module, host, WANT, diff=True)
    assert not out.failed, out.result
    assert out.result["commands"] == ["write /etc/netplan/60-s390x-network.yaml", "netplan apply"]
    assert [c for c in host.calls if c[0].endswith("netplan")] == [["/usr/sbin/netplan", "apply"]]
    assert host.file() == WANT_FILE
    assert stat.S_IMODE(os.stat(str(host.root / FILE)).st_mode) == 0o600
    assert host.devices["enc8200"] == {
        "addresses": WANT_FILE["network"]["ethernets"]["enc8200"]["addresses"],
        "mtu": 16384,
        "max_mtu": 65535,
    }
    assert {"kind": "ip", "object": "enc8200", "scope": "persistent", "difference": "missing"} in out.result["drift"]
    assert out.result["backend"] == "netplan" and out.result["interfaces"] == {"device 0.0.8200": "enc8200"}
    assert out.result["diff"]["before"] == "" and json.loads(out.result["diff"]["after"]) == WANT_FILE
    host.calls = []
    again = run(run_module, host, WANT)
    assert again.result["changed"] is False and again.result["commands"] == [] and again.result["drift"] == []
    assert host.changing() == []


def test_the_file_is_compared_as_data_not_text(run_module, host):
    (host.root / FILE).write_text(yaml.safe_dump(WANT_FILE, default_flow_style=False))
    os.chmod(str(host.root / FILE), 0o600)
    run(run_module, host, [{"device": "8200", "mtu": 1492}])  # applies the file as it is (devices differ)
    (host.root / FILE).write_text(
        "# edited by hand\nnetwork:\n  version: 2\n  ethernets:\n    enc8200:\n      mtu: 16384\n"
        "      addresses: [10.60.0.1/24, 'fd00:60:0::1/64']\n      routes:\n"
        "        - {via: 10.60.0.2, to: 10.61.0.0/24, metric: 50}\n"
    )
    host.devices["enc8200"].update(addresses=["10.60.0.1/24", "fd00:60::1/64"], mtu=16384)
    host.calls = []
    out = run(run_module, host, WANT)
    assert out.result["changed"] is False and host.changing() == []


def test_a_file_others_can_read_is_made_0600_without_applying(run_module, host):
    run(run_module, host, WANT)
    os.chmod(str(host.root / FILE), 0o644)
    host.calls = []
    out = run(run_module, host, WANT)
    assert out.result["commands"] == ["chmod 0600 /etc/netplan/60-s390x-network.yaml"]
    assert out.result["drift"] == [
        {"kind": "ip", "object": "/" + FILE, "scope": "persistent", "difference": "mode 0644 -> 0600"}
    ]
    assert stat.S_IMODE(os.stat(str(host.root / FILE)).st_mode) == 0o600 and host.changing() == []
    os.chmod(str(host.root / FILE), 0o644)
    run(run_module, host, [{"device": "8200", "mtu": 9000}])  # rewritten: 0600 as well
    assert stat.S_IMODE(os.stat(str(host.root / FILE)).st_mode) == 0o600


def test_an_address_changed_behind_ansibles_back_is_applied_again_without_writing(run_module, host):
    run(run_module, host, WANT)
    host.devices["enc8200"]["addresses"] = ["10.60.0.9/24"]
    out = run(run_module, host, WANT)
    assert out.result["commands"] == ["netplan apply"]
    assert {
        "kind": "ip",
        "object": "enc8200",
        "scope": "active",
        "difference": "addresses 10.60.0.9/24 -> 10.60.0.1/24,fd00:60::1/64",
    } in out.result["drift"]
    assert host.devices["enc8200"]["addresses"] == ["10.60.0.1/24", "fd00:60::1/64"]


def test_merged_keeps_what_the_entry_leaves_out_and_replaced_drops_it(run_module, host):
    run(run_module, host, WANT)
    out = run(run_module, host, [{"device": "8200", "mtu": 8192}])
    assert out.result["commands"] == ["write /etc/netplan/60-s390x-network.yaml", "netplan apply"]
    assert {"kind": "ip", "object": "enc8200", "scope": "persistent", "difference": "mtu 16384 -> 8192"} in out.result[
        "drift"
    ]
    assert host.file()["network"]["ethernets"]["enc8200"]["addresses"] == ["10.60.0.1/24", "fd00:60::1/64"]
    run(run_module, host, [{"device": "8200", "mtu": 8192}], args={"state": "replaced"})
    assert host.file()["network"]["ethernets"]["enc8200"] == {"mtu": 8192}


def test_check_mode_writes_nothing(run_module, host):
    out = run(run_module, host, WANT, check_mode=True, diff=True)
    assert out.result["changed"] is True
    assert out.result["commands"] == ["write /etc/netplan/60-s390x-network.yaml", "netplan apply"]
    assert not (host.root / FILE).exists() and host.changing() == []
    assert json.loads(out.result["diff"]["after"]) == WANT_FILE


def test_a_vlan_gets_its_link_and_a_layer3_parent_is_refused(run_module, host):
    out = run(run_module, host, [{"device": "1000", "vlans": [{"id": 100, "addresses": ["192.168.100.5/24"]}]}])
    assert not out.failed, out.result
    assert host.file()["network"] == {
        "version": 2,
        "ethernets": {"enc1000": {}},
        "vlans": {"enc1000.100": {"id": 100, "link": "enc1000", "addresses": ["192.168.100.5/24"]}},
    }
    assert host.devices["enc1000.100"]["addresses"] == ["192.168.100.5/24"]
    host.add_qeth("0.0.8300", "enc8300", layer2=False)
    host.calls = []
    refused = run(run_module, host, [{"device": "8300", "vlans": [{"id": 7}]}])
    assert refused.failed and host.changing() == []
    assert refused.result["msg"].startswith("config[0].vlans[id=7]: enc8300 is a layer-3 qeth device")


def test_a_failed_apply_puts_the_previous_file_back_and_applies_it(run_module, host):
    run(run_module, host, WANT)
    before = (host.root / FILE).read_text()
    host.fail_apply = [1]
    out = run(run_module, host, [{"device": "8200", "addresses": ["10.60.0.5/24"]}])
    assert out.failed
    assert out.result["msg"].startswith(
        "ip /etc/netplan/60-s390x-network.yaml: netplan apply failed (exit code 1): netplan: the configuration"
    )
    assert out.result["rollback"] == {
        "commands": ["write /etc/netplan/60-s390x-network.yaml", "netplan apply"],
        "ok": True,
        "errors": [],
    }
    assert (host.root / FILE).read_text() == before
    assert host.devices["enc8200"]["addresses"] == ["10.60.0.1/24", "fd00:60::1/64"]


def test_a_failed_first_apply_removes_the_new_file(run_module, host):
    host.fail_apply = [1]
    out = run(run_module, host, WANT)
    assert out.failed and out.result["rollback"]["commands"] == [
        "rm /etc/netplan/60-s390x-network.yaml",
        "netplan apply",
    ]
    assert not (host.root / FILE).exists()


def test_the_interface_of_the_ssh_connection_is_refused_before_anything_runs(run_module, host, monkeypatch):
    run(run_module, host, WANT)
    monkeypatch.setenv("SSH_CONNECTION", "10.60.0.2 51000 10.60.0.1 22")
    monkeypatch.setattr(
        "ansible_collections.s390x.network.plugins.module_utils.engine.mgmt_connection.management_connection",
        lambda module: (
            set(["enc8200"]),
            {"ssh_connection": {"client": "10.60.0.2", "server": "10.60.0.1"}},
        ),
    )
    host.calls = []
    before = (host.root / FILE).read_text()
    out = run(run_module, host, [{"device": "8200", "addresses": ["10.60.0.7/24"]}])
    assert out.failed and out.result["commands"] == [] and host.changing() == []
    assert out.result["msg"] == (
        "ip enc8200: it carries the management connection (SSH from 10.60.0.2 to 10.60.0.1); write "
        "/etc/netplan/60-s390x-network.yaml; netplan apply would re-apply it with the netplan file's addresses. "
        "Set allow_disruptive: true to do it anyway."
    )
    assert (host.root / FILE).read_text() == before
    # an entry for another interface is not refused
    other = run(run_module, host, [{"device": "1000", "mtu": 1400}])
    assert not other.failed, other.result
    forced = run(run_module, host, [{"device": "8200", "addresses": ["10.60.0.7/24"]}], args={"allow_disruptive": True})
    assert forced.result["changed"] is True and host.devices["enc8200"]["addresses"] == ["10.60.0.7/24"]


def test_deleted_removes_the_stanza_the_empty_file_and_the_addresses(run_module, host):
    run(run_module, host, WANT)
    out = run(run_module, host, [{"device": "8200"}], args={"state": "deleted"})
    assert out.result["commands"] == [
        "rm /etc/netplan/60-s390x-network.yaml",
        "netplan apply",
        "ip address flush dev enc8200 scope global",
    ]
    assert not (host.root / FILE).exists() and host.devices["enc8200"]["addresses"] == []
    assert run(run_module, host, [{"device": "8200"}], args={"state": "deleted"}).result["changed"] is False


def test_gathered_reads_the_file(run_module, host):
    run(run_module, host, WANT + [{"device": "1000", "vlans": [{"id": 5, "mtu": 1400}]}])
    gathered = run(run_module, host, [], args={"state": "gathered"}).result["gathered"]
    assert gathered == [
        {"name": "enc1000", "addresses": [], "routes": [], "mtu": None},
        {
            "name": "enc8200",
            "addresses": ["10.60.0.1/24", "fd00:60::1/64"],
            "routes": [{"to": "10.61.0.0/24", "via": "10.60.0.2", "metric": 50}],
            "mtu": 16384,
        },
        {"name": "enc1000.5", "addresses": [], "routes": [], "mtu": 1400, "vlan": {"parent": "enc1000", "id": 5}},
    ]


def test_an_unreadable_owned_file_is_refused_before_anything_changes(run_module, host):
    (host.root / FILE).write_text("network: [\n")
    out = run(run_module, host, WANT)
    assert out.failed and host.changing() == []
    assert out.result["msg"].startswith("/etc/netplan/60-s390x-network.yaml (the file this collection owns) is not")


def test_without_systemd_as_pid1_the_networkd_steps_of_netplan_apply_run(run_module, host):
    (host.root / "proc/1/comm").write_text("python3\n")
    (host.root / "run/systemd/system").mkdir(parents=True)  # netplan generate writes a unit there
    out = run(run_module, host, WANT + [{"device": "1000", "vlans": [{"id": 5}]}])
    assert not out.failed, out.result
    assert out.result["commands"] == [
        "write /etc/netplan/60-s390x-network.yaml",
        "netplan generate",
        "networkctl reload",
        "networkctl reconfigure enc8200 enc1000",
    ]
    assert host.devices["enc8200"]["addresses"] == ["10.60.0.1/24", "fd00:60::1/64"]
    assert "enc1000.5" in host.devices  # networkctl reload creates the VLAN
    host.fail_apply = [1]
    failed = run(run_module, host, [{"device": "8200", "mtu": 9000}])
    assert failed.failed and failed.result["rollback"]["commands"] == [
        "write /etc/netplan/60-s390x-network.yaml",
        "netplan generate",
        "networkctl reload",
        "networkctl reconfigure enc8200",
    ]
    assert host.file()["network"]["ethernets"]["enc8200"]["mtu"] == 16384


def test_without_systemd_as_pid1_and_networkd_nothing_is_written(run_module, host):
    (host.root / "proc/1/comm").write_text("python3\n")
    out = run(run_module, host, WANT, bin_paths={"nmcli": None, "networkctl": None})
    assert out.failed and host.changing() == [] and not (host.root / FILE).exists()
    assert out.result["msg"] == (
        "/etc/netplan/60-s390x-network.yaml needs applying, but PID 1 is python3, not systemd, which netplan apply "
        "needs for systemctl daemon-reload, and networkctl (systemd-networkd) is not installed: nothing was changed"
    )


# -- other stacks ----------------------------------------------------------------------------------
def test_sles15_with_wicked_is_refused_naming_the_stack(run_module, host_root):
    (host_root / "etc/netplan").mkdir(parents=True)  # even with netplan installed
    (host_root / "etc/os-release").write_text(
        'NAME="SLES"\nVERSION_ID="15.6"\nPRETTY_NAME="SUSE Linux Enterprise Server 15 SP6"\nID="sles"\n'
    )
    calls = []

    def stopped(argv):
        calls.append(argv)
        return 8, "", "Error: NetworkManager is not running.\n"

    out = run_module(ip_interfaces.main, {"config": WANT}, run_command=stopped)
    assert out.failed
    assert out.result["msg"].startswith(
        "NetworkManager is not running (nmcli exit code 8: Error: NetworkManager is not running.) and this host is "
        "configured by SUSE Linux Enterprise Server 15 SP6 (wicked), which ip_interfaces does not manage (SLES 15 "
        "(wicked) is not supported"
    )
    assert calls == [["/usr/sbin/nmcli", "-t", "-f", "RUNNING", "general"]]


class NmcliPathChosen(Exception):
    pass


def test_networkmanager_running_keeps_the_nmcli_path_on_a_netplan_host(run_module, host):
    def nm_running(argv):
        if argv[0].endswith("nmcli"):
            if argv[1:] == ["-t", "-f", "RUNNING", "general"]:
                return 0, "running\n", ""
            # only the nmcli path reads the profiles: enough to show the choice
            raise NmcliPathChosen(argv)
        return host.run(argv)

    with pytest.raises(NmcliPathChosen) as chosen:
        run_module(ip_interfaces.main, {"config": WANT}, run_command=nm_running)
    assert chosen.value.args[0][1:] == ["-t", "-f", "NAME,UUID,TYPE,DEVICE", "connection", "show"]
    assert host.changing() == [] and not (host.root / FILE).exists()
    out = run(run_module, host, WANT, bin_paths={"nmcli": None})
    assert out.result["backend"] == "netplan" and (host.root / FILE).exists()


# -- hostile input ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "entry, message",
    [
        ({"name": "a$(id)"}, "config[0].name: 'a$(id)' cannot be a netplan interface ID"),
        ({"name": "x;y"}, "config[0].name: 'x;y' cannot be a netplan interface ID"),
        ({"name": "en[0-9]"}, "config[0].name: 'en[0-9]' cannot be a netplan interface ID"),
        ({"name": "e?"}, "config[0].name: 'e?' cannot be a netplan interface ID"),
        ({"name": 'a"b'}, "config[0].name: 'a\"b' cannot be a netplan interface ID"),
        ({"name": "enc8200", "connection": "c"}, "config[0].connection: netplan hosts have no NetworkManager"),
        ({"name": "enc8200", "autoconnect": False}, "config[0].autoconnect: netplan brings every interface"),
        ({"name": "enc8200", "vlans": [{"id": 3, "connection": "v"}]}, "config[0].vlans[id=3].connection"),
    ],
)
def test_what_netplan_cannot_hold_is_refused_before_anything_changes(run_module, host, entry, message):
    out = run(run_module, host, [entry])
    assert out.failed and message in out.result["msg"], out.result
    assert host.changing() == [] and not (host.root / FILE).exists()


@pytest.mark.parametrize(
    "entry",
    [
        {"name": "enc8200", "addresses": ["10.0.0.1/24\nnetwork: {}"]},
        {"name": "enc8200", "addresses": ["10.0.0.1/24 #"]},
        {"name": "enc8200", "routes": [{"to": "10.1.0.0/24", "via": "10.1.0.1\n  x: y"}]},
        {"name": "enc8200\nx"},
    ],
)
def test_yaml_syntax_in_a_value_is_refused_before_anything_changes(run_module, host, entry):
    out = run(run_module, host, [entry])
    assert out.failed and out.result["msg"].startswith("config[0].")
    assert host.calls == [] and not (host.root / FILE).exists()


def test_a_name_read_from_the_host_that_netplan_cannot_hold_is_refused(run_module, host):
    host.add_qeth("0.0.8400", "a$(id>x)")
    out = run(run_module, host, [{"device": "8400", "addresses": ["10.80.0.1/24"]}])
    assert out.failed and host.changing() == []
    assert out.result["msg"].startswith("config[0].device: 'a$(id>x)' cannot be a netplan interface ID")


# -- the real netplan ------------------------------------------------------------------------------
NETPLAN = shutil.which("netplan") or shutil.which("netplan", path="/usr/sbin:/sbin")


@pytest.mark.skipif(NETPLAN is None, reason="netplan (Debian's netplan.io) is not installed")
def test_the_real_netplan_reads_the_file_back_as_written(run_module, host, tmp_path):
    config = WANT + [{"device": "1000", "vlans": [{"id": 100, "addresses": ["192.168.100.5/24"], "mtu": 1400}]}]
    assert not run(run_module, host, config).failed
    root = tmp_path / "netplan-root"
    (root / "etc/netplan").mkdir(parents=True)
    shutil.copy2(str(host.root / FILE), str(root / FILE))
    generate = subprocess.run(
        [NETPLAN, "generate", "--root-dir", str(root)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False
    )
    assert generate.returncode == 0, generate.stderr
    assert b"too open" not in generate.stderr  # the file is 0600
    got = subprocess.run(
        [NETPLAN, "get", "--root-dir", str(root), "all"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True
    )
    assert yaml.safe_load(got.stdout)["network"] == host.file()["network"]
    network = (root / "run/systemd/network/10-netplan-enc8200.network").read_text()
    assert "Address=10.60.0.1/24" in network and "Address=fd00:60::1/64" in network
    assert "Gateway=10.60.0.2" in network and "Destination=10.61.0.0/24" in network
    vlan = (root / "run/systemd/network/10-netplan-enc1000.100.netdev").read_text()
    assert "Id=100" in vlan
