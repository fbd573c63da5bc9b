# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""qeth_device end to end on the fake kernel: exact chzdev command lines (YAML-described cases in
fixtures/qeth_device_*.yml), idempotence, drift, check mode, safety, rollback, bad input.

There is no chzdev emulator. A chzdev call succeeds and leaves its device the way the module
predicted it (``QethDevices.predict``, which is built on the planner's model of chzdev), written
through the fake kernel's sysfs and rule files; so "the host afterwards" and "a second run is a
no-op" check that the plan, the prediction and the reader agree. The order in which chzdev applies
attributes and what it refuses are the planner's tests (test_qeth_plan.py). A test that needs
another outcome scripts the call: exit code, stderr and what it left on the host.
"""

from __future__ import absolute_import, division, print_function

import glob
import os
import shutil
import tempfile

import pytest
import yaml

from ansible_collections.s390x.network.plugins.module_utils.qeth import ccw_blacklist
from ansible_collections.s390x.network.plugins.module_utils.qeth.plan import with_defaults
from ansible_collections.s390x.network.plugins.module_utils.qeth.resource import QethDevices
from ansible_collections.s390x.network.plugins.module_utils.qeth.udev_rules import rule_path
from ansible_collections.s390x.network.plugins.modules import qeth_device

HERE = os.path.dirname(__file__)


def ok(**attrs):
    """A scripted chzdev call that exits 0 after these sysfs writes (in this order)."""
    return 0, "", attrs


def fails(rc, stderr, **attrs):
    """A scripted chzdev call that exits ``rc`` after these sysfs writes (in this order)."""
    return rc, stderr, attrs


class Chzdev(object):
    """chzdev as the module runs it: records every call of a run.

    ``script``: call number (1-based, per run) -> (rc, stderr, {attribute: value}) from ok()/fails(),
    or a function of the argv that does the call's work and returns (rc, stdout, stderr);
    ``faults``: {"when": "online=0" or "*", "rc", "stderr"}: the first call naming ``when`` fails and
    changes nothing. Any other call succeeds and leaves its device as the module predicted.
    """

    def __init__(self, env):
        self.env = env
        self.calls = []
        self.script = {}
        self.faults = []
        self.predicted = None

    def __call__(self, argv):
        self.calls.append(list(argv))
        group_ids = argv[argv.index("qeth") + 1].split(",")
        busid = group_ids[0].split(":")[0]
        scripted = self.script.pop(len(self.calls), None)
        if callable(scripted):
            return scripted(argv)
        if scripted is not None:
            rc, stderr, attrs = scripted
            for name, value in attrs.items():
                self.env.kernel.qeth_write(busid, name, value)
            return rc, "", stderr
        for fault in list(self.faults):
            if fault["when"] == "*" or fault["when"] in argv[1:]:
                self.faults.remove(fault)
                return fault["rc"], "", fault.get("stderr", "")
        return 0, "".join(self.configure(group_id) for group_id in group_ids), ""

    def configure(self, group_id):
        """One device of the call, left as the module predicted it."""
        dev = self.predicted.devices[group_id.split(":")[0]]
        self.env.kernel.qeth_configure(
            dev.ids or tuple(group_id.split(":")), dict(dev.active) if dev.exists else None, dev.persistent
        )
        return "QETH device %s configured\n" % group_id


class Env(object):
    def __init__(self, kernel, run_module):
        self.kernel = kernel
        self.run_module = run_module
        self.chzdev = Chzdev(self)
        self.ssh = None  # (client, server) or None
        self.addrs = []  # lines of `ip -o addr show`
        self.routes = {}  # client -> dev
        self.warnings = []  # of every run of the test
        self.tools = {"chzdev": "/usr/sbin/chzdev", "ip": "/usr/sbin/ip", "lszdev": None}

    def build(self, spec):
        for item in spec.get("devices", []):
            self.kernel.add_ccw_devices(
                item["first"],
                item.get("count", 3),
                chpid=item.get("chpid", "F0"),
                hipersockets=item.get("hipersockets", True),
            )
        for item in spec.get("groups", []):
            ids = item["ids"]
            self.kernel.qeth_group(ids)
            for name, value in (item.get("attrs") or {}).items():
                self.kernel.qeth_write(ids[0], name, str(value))
            if item.get("online"):
                self.kernel.qeth_write(ids[0], "online", "1")
        for item in spec.get("rules", []):
            self.kernel.write_rule(item["ids"][0], item["ids"], dict((k, str(v)) for k, v in item["settings"].items()))
        if spec.get("ssh"):
            self.ssh = spec["ssh"]
            for line in spec.get("ip_addr", []):
                self.addrs.append(line)
            self.routes.update(spec.get("routes", {}))

    def run_command(self, argv):
        if argv[0].endswith("chzdev"):
            return self.chzdev(argv)
        if argv[0].endswith("ip") and argv[1:3] == ["-o", "addr"]:
            return 0, "\n".join(self.addrs) + "\n", ""
        if argv[0].endswith("ip") and argv[1:3] == ["route", "get"]:
            dev = self.routes.get(argv[3])
            return (
                (0, "%s dev %s src 10.0.0.5 uid 0\n    cache\n" % (argv[3], dev), "") if dev else (2, "", "unreachable")
            )
        return 127, "", "not faked"

    def rule_file(self, busid):
        return self.kernel.path(rule_path(busid))


@pytest.fixture
def env(fake_kernel, run_module, monkeypatch):
    state = Env(fake_kernel(), run_module)
    original = QethDevices.predict

    def predict(resource, current, changes):
        state.chzdev.predicted = original(resource, current, changes)
        return state.chzdev.predicted

    monkeypatch.setattr(QethDevices, "predict", predict)
    monkeypatch.delenv("SSH_CONNECTION", raising=False)
    state.monkeypatch = monkeypatch
    return state


def run(env, params, check=False, diff=False):
    if env.ssh:
        env.monkeypatch.setenv("SSH_CONNECTION", "%s 51000 %s 22" % (env.ssh[0], env.ssh[1]))
    env.chzdev.calls = []
    result = env.run_module(
        qeth_device.main, params, env.run_command, check_mode=check, diff=diff, bin_paths=env.tools
    ).result
    env.warnings.extend(result["warnings"])
    result["chzdev_calls"] = [" ".join([os.path.basename(c[0])] + c[1:]) for c in env.chzdev.calls]
    return result


def _cases():
    cases = []
    for path in sorted(glob.glob(os.path.join(HERE, "fixtures", "qeth_device_*.yml"))):
        with open(path) as handle:
            data = yaml.safe_load(handle)
        for case in data["cases"]:
            cases.append(
                pytest.param(case, id="%s:%s" % (os.path.basename(path)[len("qeth_device_") : -4], case["name"]))
            )
    return cases


def _check_host(kernel, expected):
    for busid, want in (expected or {}).items():
        if want is None:
            assert not kernel.qeth_exists(busid), "%s should not be grouped" % busid
            continue
        for name, value in want.items():
            if name == "rule":
                settings = kernel.rule_settings(busid)
                if value is None:
                    assert settings is None, "%s should have no udev rule" % busid
                else:
                    assert settings is not None, "%s should have a udev rule" % busid
                    for key, val in value.items():
                        assert settings.get(key) == (None if val is None else str(val)), (busid, key, settings)
            else:
                assert kernel.qeth_read(busid, name) == str(value), (busid, name, kernel.qeth_read(busid, name))


@pytest.mark.parametrize("case", _cases())
def test_yaml_case(env, case):
    env.build(case.get("host", {}))
    for fault in case.get("faults", []):
        env.chzdev.faults.append(dict(fault))
    result = run(env, case["params"], check=case.get("check_mode", False), diff=case.get("diff", False))
    expect = case["expect"]
    if expect.get("failed"):
        assert result["failed"], result
        for part in expect.get("msg_contains", []):
            assert part in result["msg"], (part, result["msg"])
    else:
        assert not result["failed"], result.get("msg")
    if "commands" in expect:
        assert result.get("commands", []) == expect["commands"]
    if "rendered" in expect:
        assert result["rendered"] == expect["rendered"]
    if "chzdev_calls" in expect:
        assert result["chzdev_calls"] == expect["chzdev_calls"]
    elif not case.get("check_mode") and "commands" in expect and not expect.get("failed"):
        # what the module reports is exactly what ran
        assert result["chzdev_calls"] == expect["commands"]
    if "changed" in expect:
        assert result["changed"] == expect["changed"]
    if "rollback" in expect:
        assert result["rollback"]["commands"] == expect["rollback"]
        assert result["rollback"]["ok"] is True
    for part in expect.get("warnings_contain", []):
        assert any(part in w for w in env.warnings), (part, env.warnings)
    _check_host(env.kernel, expect.get("host"))
    if expect.get("idempotent"):
        again = run(env, case["params"])
        assert not again["failed"], again.get("msg")
        assert again["changed"] is False
        assert again["commands"] == []
        assert again["chzdev_calls"] == []


# -- behaviour not easily put in YAML ------------------------------------------------------------

HS = {"devices": [{"first": "0.0.8200", "count": 3}]}


def test_check_mode_predicts_and_changes_nothing(env):
    env.build(HS)
    result = run(env, {"config": [{"id": "0.0.8200", "layer2": True, "buffer_count": 128}]}, check=True, diff=True)
    assert result["changed"] is True
    assert result["chzdev_calls"] == []
    assert not env.kernel.qeth_exists("0.0.8200")
    assert result["after"][0]["layer2"] is True and result["after"][0]["online"] is True
    assert result["after"][0]["persistent"]["buffer_count"] == 128
    assert result["diff"]["before"] == "0.0.8200:0.0.8201:0.0.8202\n  active:\n    exists: 0\n  persistent: (none)\n"
    assert "    layer2: 1\n" in result["diff"]["after"]
    real = run(env, {"config": [{"id": "0.0.8200", "layer2": True, "buffer_count": 128}]})
    assert real["commands"] == result["commands"]
    keys = ("id", "online", "layer2", "buffer_count", "exists")
    assert [dict((k, d[k]) for k in keys) for d in real["after"]] == [
        dict((k, d[k]) for k in keys) for d in result["after"]
    ]
    for key in ("online", "layer2", "buffer_count"):
        assert real["after"][0]["persistent"][key] == result["after"][0]["persistent"][key]


def test_drift_active_and_persistent_detected_separately(env):
    env.build(HS)
    params = {"config": [{"id": "0.0.8200", "layer2": True, "buffer_count": 128}]}
    assert not run(env, params)["failed"]
    # behind our back: buffer_count 64 in sysfs (offline, change, online) and the rule deleted
    env.kernel.qeth_write("0.0.8200", "online", "0")
    env.kernel.qeth_write("0.0.8200", "buffer_count", "64")
    env.kernel.qeth_write("0.0.8200", "online", "1")
    os.unlink(env.rule_file("0.0.8200"))
    check = run(env, params, check=True)
    assert check["commands"] == [
        "chzdev -a qeth 0.0.8200:0.0.8201:0.0.8202 online=0",
        "chzdev -e qeth 0.0.8200:0.0.8201:0.0.8202 layer2=1 buffer_count=128",
    ]
    assert check["before"][0]["buffer_count"] == 64 and check["before"][0]["persistent"] is None
    fixed = run(env, params)
    assert fixed["chzdev_calls"] == check["commands"]
    assert env.kernel.qeth_read("0.0.8200", "buffer_count") == "128"
    assert env.kernel.rule_settings("0.0.8200")["buffer_count"] == "128"
    assert run(env, params)["chzdev_calls"] == []


def test_management_interface_refused_then_allowed(env):
    env.build(
        {
            "devices": [{"first": "0.0.bd00", "count": 3, "hipersockets": False, "chpid": "85"}],
            "groups": [{"ids": ["0.0.bd00", "0.0.bd01", "0.0.bd02"], "online": True}],
            "ssh": ["10.0.0.1", "10.0.0.5"],
            "ip_addr": ["2: encbd00    inet 10.0.0.5/24 brd 10.0.0.255 scope global encbd00\\"],
            "routes": {"10.0.0.1": "encbd00"},
        }
    )
    params = {"config": [{"id": "0.0.bd00", "buffer_count": 128}]}
    refused = run(env, params)
    assert refused["failed"]
    assert "encbd00" in refused["msg"] and "allow_disruptive" in refused["msg"]
    assert refused["chzdev_calls"] == []
    assert env.kernel.qeth_read("0.0.bd00", "buffer_count") == "64"
    # an online-settable change on the same device is not disruptive: allowed
    iso = run(env, {"config": [{"id": "0.0.bd00", "isolation": "drop"}], "scope": "active"})
    assert not iso["failed"], iso.get("msg")
    assert iso["commands"] == ["chzdev -e -a qeth 0.0.bd00:0.0.bd01:0.0.bd02 isolation=drop"]
    allowed = run(env, dict(params, allow_disruptive=True))
    assert not allowed["failed"], allowed.get("msg")
    assert env.kernel.qeth_read("0.0.bd00", "buffer_count") == "128"


def test_management_interface_via_proc_route_without_ip(env):
    env.tools["ip"] = None
    env.build(
        {
            "devices": [{"first": "0.0.bd00", "count": 3, "hipersockets": False}],
            "groups": [{"ids": ["0.0.bd00", "0.0.bd01", "0.0.bd02"], "online": True}],
            "ssh": ["10.0.0.1", "10.0.0.5"],
        }
    )
    proc = env.kernel.path("/proc/net")
    os.makedirs(proc)
    with open(os.path.join(proc, "route"), "w") as handle:
        handle.write(
            "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
            "encbd00\t0000000A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n"
        )
    refused = run(env, {"config": [{"id": "0.0.bd00", "layer2": False}]})
    assert refused["failed"] and "encbd00" in refused["msg"]


def test_overridden_spares_management_device(env):
    env.build(
        {
            "devices": [
                {"first": "0.0.8200", "count": 6},
                {"first": "0.0.bd00", "count": 3, "hipersockets": False, "chpid": "85"},
            ],
            "groups": [
                {"ids": ["0.0.bd00", "0.0.bd01", "0.0.bd02"], "online": True},
                {"ids": ["0.0.8203", "0.0.8204", "0.0.8205"], "online": True},
            ],
            "ssh": ["10.0.0.1", "10.0.0.5"],
            "ip_addr": ["3: encbd00    inet 10.0.0.5/24 scope global encbd00"],
            "routes": {"10.0.0.1": "encbd00"},
        }
    )
    result = run(
        env,
        {
            "state": "overridden",
            "allow_disruptive": False,
            "config": [{"id": "0.0.8200", "layer2": True, "buffer_count": 128}],
        },
    )
    assert not result["failed"], result.get("msg")
    assert result["commands"] == [
        "chzdev -e qeth 0.0.8200:0.0.8201:0.0.8202 layer2=1 buffer_count=128 portno=0",
        "chzdev -d -a -y qeth 0.0.8203:0.0.8204:0.0.8205",
    ]
    assert not env.kernel.qeth_exists("0.0.8203")
    assert any("encbd00" in w for w in env.warnings)
    assert env.kernel.qeth_exists("0.0.bd00")


def test_missing_chzdev_names_package(env):
    env.tools["chzdev"] = None
    env.build(HS)
    with open(env.kernel.path("/etc/os-release"), "w") as handle:
        handle.write('NAME="Red Hat Enterprise Linux"\nID="rhel"\nID_LIKE="fedora"\nPRETTY_NAME="RHEL 9.4"\n')
    result = run(env, {"config": [{"id": "0.0.8200"}]})
    assert result["failed"] and "s390utils-base" in result["msg"]
    with open(env.kernel.path("/etc/os-release"), "w") as handle:
        handle.write('ID=ubuntu\nID_LIKE=debian\n')
    result = run(env, {"config": [{"id": "0.0.8200"}]})
    assert result["failed"] and "s390-tools" in result["msg"]
    # the failure names the tool (the qeth role installs it then) and what would have run
    assert result["missing_tool"] == "chzdev"
    assert result["commands"] == ["chzdev -e qeth 0.0.8200:0.0.8201:0.0.8202"]
    # check mode plans the commands and warns
    result = run(env, {"config": [{"id": "0.0.8200"}]}, check=True)
    assert not result["failed"] and result["changed"]
    assert any("s390-tools" in w for w in env.warnings)
    # reading needs no chzdev
    assert not run(env, {"state": "gathered"})["failed"]


def test_a_no_op_needs_no_chzdev(env):
    env.build(HS)
    assert run(env, {"config": [{"id": "0.0.8200", "layer2": True}]})["changed"]
    env.tools["chzdev"] = None
    result = run(env, {"config": [{"id": "0.0.8200", "layer2": True}]})
    assert not result["failed"] and not result["changed"], result.get("msg")
    assert "missing_tool" not in result


def test_gathered_lists_configured_devices(env):
    env.build(
        {
            "devices": [{"first": "0.0.8200", "count": 6}],
            "groups": [{"ids": ["0.0.8200", "0.0.8201", "0.0.8202"], "online": True, "attrs": {"layer2": "1"}}],
            "rules": [
                {
                    "ids": ["0.0.8200", "0.0.8201", "0.0.8202"],
                    "settings": {"layer2": 1, "buffer_count": 128, "online": 1},
                },
                {"ids": ["0.0.8203", "0.0.8204", "0.0.8205"], "settings": {"online": 1}},
            ],
        }
    )
    result = run(env, {"state": "gathered"})
    assert result["changed"] is False and result["chzdev_calls"] == []
    assert result["gathered"] == [
        {"id": "0.0.8200:0.0.8201:0.0.8202", "online": True, "layer2": True, "buffer_count": 128, "portno": 0}
    ]
    pers = run(env, {"state": "gathered", "scope": "persistent"})["gathered"]
    assert pers == [
        {"id": "0.0.8200:0.0.8201:0.0.8202", "online": True, "layer2": True, "buffer_count": 128},
        {"id": "0.0.8203:0.0.8204:0.0.8205", "online": True},
    ]
    # what gathered returns is valid config, and applying it changes nothing
    again = run(env, {"config": result["gathered"], "scope": "active"})
    assert not again["failed"], again.get("msg")
    assert again["commands"] == []


def online_group_8200(attrs):
    """A host with the devices 0.0.8200-0.0.8202, grouped and online with ``attrs``."""
    return {
        "devices": [{"first": "0.0.8200", "count": 3}],
        "groups": [{"ids": ["0.0.8200", "0.0.8201", "0.0.8202"], "online": True, "attrs": attrs}],
    }


def test_rollback_restores_previous_active_state(env):
    env.build(online_group_8200({"layer2": "0", "buffer_count": "64"}))
    # chzdev sets online=0 (first call), then layer2=1, and the sysfs write of buffer_count fails
    env.chzdev.script = {
        1: ok(online="0"),
        2: fails(17, "Error: Could not set buffer_count='128': Input/output error\n", layer2="1"),
        3: ok(layer2="0", online="1"),
    }
    params = {"config": [{"id": "0.0.8200", "layer2": True, "buffer_count": 128}]}
    result = run(env, params)
    assert result["failed"]
    assert "exit code 17" in result["msg"] and "restored" in result["msg"]
    # the failed call left the device offline with layer2=1: only that is undone
    assert result["rollback"] == {
        "ok": True,
        "errors": [],
        "commands": ["chzdev -e -a qeth 0.0.8200:0.0.8201:0.0.8202 layer2=0"],
    }
    assert env.kernel.qeth_read("0.0.8200", "online") == "1"
    assert env.kernel.qeth_read("0.0.8200", "layer2") == "0"
    assert env.kernel.qeth_read("0.0.8200", "buffer_count") == "64"
    assert env.kernel.rule_settings("0.0.8200") is None
    assert result["after"][0]["online"] is True and result["after"][0]["layer2"] is False


def test_a_chzdev_call_that_wrote_part_of_the_rule_gets_the_old_rule_back(env):
    ids = ["0.0.8200", "0.0.8201", "0.0.8202"]
    old = {"online": "1", "layer2": "1", "buffer_count": "64"}
    env.build(dict(online_group_8200({"layer2": "1", "buffer_count": "64"}), rules=[{"ids": ids, "settings": old}]))
    with open(env.rule_file("0.0.8200")) as handle:
        old_text = handle.read()

    def half_way(argv):
        # as chzdev -e with both configurations that stops after the first setting: layer2=0
        # reached the device and the rule, buffer_count=128 did not
        env.kernel.qeth_write("0.0.8200", "layer2", "0")
        env.kernel.write_rule("0.0.8200", ids, dict(old, layer2="0"))
        return 17, "", "Error: Could not set buffer_count\n"

    env.chzdev.script = {1: ok(online="0"), 2: half_way, 3: ok(layer2="1", online="1")}
    result = run(env, {"config": [{"id": "0.0.8200", "layer2": False, "buffer_count": 128}]})
    assert result["failed"] and "previous state restored" in result["msg"]
    assert env.chzdev.calls[1][1:3] == ["-e", "qeth"]  # active and persistent in one call
    assert result["rollback"]["commands"] == [
        "write /etc/udev/rules.d/41-qeth-0.0.8200.rules",
        "chzdev -e -a qeth 0.0.8200:0.0.8201:0.0.8202 layer2=1",
    ]
    with open(env.rule_file("0.0.8200")) as handle:
        assert handle.read() == old_text
    assert [env.kernel.qeth_read("0.0.8200", n) for n in ("online", "layer2", "buffer_count")] == ["1", "1", "64"]


def test_tool_fault_before_any_change_needs_no_rollback(env):
    env.build(online_group_8200({"layer2": "0", "buffer_count": "64"}))
    env.chzdev.faults.append({"when": "online=0", "rc": 17, "stderr": "Error: injected\n"})
    result = run(env, {"config": [{"id": "0.0.8200", "layer2": True, "buffer_count": 128}]})
    assert result["failed"] and "exit code 17" in result["msg"]
    assert result["rollback"] == {"ok": True, "errors": [], "commands": []}
    assert env.kernel.qeth_read("0.0.8200", "online") == "1"


def test_rollback_after_offline_half_succeeded(env):
    env.build(online_group_8200({"layer2": "0", "buffer_count": "64"}))
    params = {"config": [{"id": "0.0.8200", "layer2": True, "buffer_count": 128}]}
    # chzdev -e (the online half) fails like a zlab fault "exit 17 on online"; chzdev -e -a puts it online
    env.chzdev.script = {1: ok(online="0"), 2: fails(17, "Error: Could not set online='1'\n"), 3: ok(online="1")}
    result = run(env, params)
    assert result["failed"]
    assert result["rollback"]["ok"] is True
    # the offline half worked, the online half changed nothing: just back online
    assert result["rollback"]["commands"] == ["chzdev -e -a qeth 0.0.8200:0.0.8201:0.0.8202"]
    assert env.kernel.qeth_read("0.0.8200", "online") == "1"
    assert env.kernel.qeth_read("0.0.8200", "layer2") == "0"
    assert env.kernel.qeth_read("0.0.8200", "buffer_count") == "64"


def test_layer2_change_warns_about_macvtap(env):
    env.build(
        {
            "devices": [{"first": "0.0.8200", "count": 3}],
            "groups": [{"ids": ["0.0.8200", "0.0.8201", "0.0.8202"], "online": True}],
        }
    )
    netdir = env.kernel.path("/sys/class/net/enc8200")
    os.makedirs(netdir)
    os.symlink("../macvtap0", os.path.join(netdir, "upper_macvtap0"))
    result = run(env, {"config": [{"id": "0.0.8200", "layer2": True}]})
    assert not result["failed"], result.get("msg")
    assert any("macvtap0" in w for w in env.warnings)


def _group_id(busid):
    first = int(busid.split(".")[-1], 16)
    return ":".join("0.0.%04x" % (first + i) for i in range(3))


def test_sixteen_devices_with_the_same_settings_take_one_chzdev_call_then_none(env):
    env.build({"devices": [{"first": "0.0.8200", "count": 48}]})
    busids = ["0.0.%04x" % (0x8200 + 3 * i) for i in range(16)]
    config = [{"id": b, "layer2": True, "buffer_count": 128} for b in busids]
    check = run(env, {"config": config}, check=True)
    first = run(env, {"config": config})
    assert not first["failed"], first.get("msg")
    listed = ",".join(_group_id(b) for b in busids)
    assert first["chzdev_calls"] == ["chzdev -e qeth %s layer2=1 buffer_count=128" % listed]
    assert check["commands"] == first["commands"] == first["chzdev_calls"]
    for busid in busids:
        assert [env.kernel.qeth_read(busid, n) for n in ("online", "layer2", "buffer_count")] == ["1", "1", "128"]
        assert env.kernel.rule_settings(busid)["buffer_count"] == "128"
    assert len(first["before"]) == len(first["after"]) == 16
    assert len([r for r in first["drift"] if r["scope"] == "active"]) == 16
    again = run(env, {"config": config})
    assert again["chzdev_calls"] == [] and again["changed"] is False


def test_device_defaults_fill_what_an_entry_does_not_give(env):
    env.build({"devices": [{"first": "0.0.8200", "count": 9}]})
    config = [{"id": "0.0.8200"}, {"id": "0.0.8203", "buffer_count": 64}, {"id": "0.0.8206", "online": False}]
    defaults = {"layer2": True, "buffer_count": 128, "online": True}
    first = run(env, {"config": config, "device_defaults": defaults})
    assert not first["failed"], first.get("msg")
    wanted = {"0.0.8200": ["1", "1", "128"], "0.0.8203": ["1", "1", "64"], "0.0.8206": ["0", "1", "128"]}
    for busid, values in wanted.items():
        assert [env.kernel.qeth_read(busid, n) for n in ("online", "layer2", "buffer_count")] == values
    again = run(env, {"config": config, "device_defaults": defaults})
    assert again["chzdev_calls"] == [] and again["changed"] is False
    # without defaults an entry leaves what it does not name alone, and online defaults to true
    same = run(env, {"config": [{"id": "0.0.8200"}, {"id": "0.0.8206", "online": False}]})
    assert same["chzdev_calls"] == [] and same["changed"] is False


def test_with_defaults_fills_nulls_and_copies_the_defaults():
    defaults = {"layer2": True, "attributes": {"hw_trap": "arm"}, "portno": None}
    config = [{"id": "a", "layer2": None, "portno": 1}, {"id": "b", "layer2": False, "attributes": {}}]
    merged = with_defaults(config, defaults)
    assert merged == [
        {"id": "a", "layer2": True, "portno": 1, "attributes": {"hw_trap": "arm"}},
        {"id": "b", "layer2": False, "attributes": {}},
    ]
    assert merged[0]["attributes"] is not defaults["attributes"]
    assert with_defaults(config, None) is config and with_defaults(config, {"portno": None}) is config


def test_device_defaults_are_checked_like_the_entries(env):
    env.build({"devices": [{"first": "0.0.8200", "count": 3}]})
    result = run(env, {"config": [{"id": "0.0.8200"}], "device_defaults": {"isolation": "off"}})
    assert result["failed"] and "isolation" in result["msg"] and "none, drop, forward" in result["msg"]
    result = run(env, {"config": [{"id": "0.0.8200"}], "device_defaults": {"id": "0.0.8203"}})
    assert result["failed"] and "id" in result["msg"]


def test_devices_share_a_call_only_where_the_command_line_is_the_same(env):
    env.build(
        {
            "devices": [{"first": "0.0.8200", "count": 12}],
            # 0.0.8209 is online with other buffers: it needs a bounce, the others one call
            "groups": [
                {
                    "ids": ["0.0.8209", "0.0.820a", "0.0.820b"],
                    "online": True,
                    "attrs": {"layer2": 1, "buffer_count": 64},
                }
            ],
        }
    )
    config = [
        {"id": "0.0.8200", "layer2": True, "buffer_count": 128},
        {"id": "0.0.8203", "layer2": True, "buffer_count": 64},
        {"id": "0.0.8206", "layer2": True, "buffer_count": 128},
        {"id": "0.0.8209", "layer2": True, "buffer_count": 128},
    ]
    result = run(env, {"config": config})
    assert not result["failed"], result.get("msg")
    assert result["chzdev_calls"] == [
        "chzdev -e qeth 0.0.8200:0.0.8201:0.0.8202,0.0.8206:0.0.8207:0.0.8208 layer2=1 buffer_count=128",
        "chzdev -e qeth 0.0.8203:0.0.8204:0.0.8205 layer2=1 buffer_count=64",
        "chzdev -a qeth 0.0.8209:0.0.820a:0.0.820b online=0",
        "chzdev -e qeth 0.0.8209:0.0.820a:0.0.820b layer2=1 buffer_count=128",
    ]
    assert run(env, {"config": config})["chzdev_calls"] == []


def test_a_shared_call_that_fails_half_way_puts_each_of_its_devices_back(env):
    env.build(
        {
            "devices": [{"first": "0.0.8200", "count": 9}],
            "groups": [{"ids": ["0.0.8206", "0.0.8207", "0.0.8208"], "online": False, "attrs": {"layer2": 0}}],
        }
    )
    config = [{"id": b, "layer2": True, "buffer_count": 128} for b in ("0.0.8200", "0.0.8203", "0.0.8206")]

    def first_device_only(argv):
        # chzdev configured the first device of its list, then failed on the second
        env.chzdev.configure(argv[argv.index("qeth") + 1].split(",")[0])
        return 17, "", "Error: Could not set buffer_count='128': Input/output error\n"

    def ungroup(argv):
        env.kernel.qeth_write("0.0.8200", "online", "0")
        env.kernel.qeth_ungroup("0.0.8200")
        return 0, "", ""

    env.chzdev.script = {1: first_device_only, 2: ungroup}
    result = run(env, {"config": config})
    assert result["failed"] and "exit code 17" in result["msg"]
    # the message names every device of the call
    assert "0.0.8200:0.0.8201:0.0.8202, 0.0.8203:0.0.8204:0.0.8205, 0.0.8206:0.0.8207:0.0.8208" in result["msg"]
    rollback = result["rollback"]
    assert rollback["ok"] is True and rollback["errors"] == []
    # the first device was configured: its rule goes and it is ungrouped; the others were untouched
    assert rollback["commands"] == [
        "rm /etc/udev/rules.d/41-qeth-0.0.8200.rules",
        "chzdev -d -a -y qeth 0.0.8200:0.0.8201:0.0.8202",
    ]
    assert result["changed"] is False
    assert not env.kernel.qeth_exists("0.0.8200") and env.kernel.rule_settings("0.0.8200") is None
    assert not env.kernel.qeth_exists("0.0.8203")
    assert env.kernel.qeth_read("0.0.8206", "online") == "0" and env.kernel.qeth_read("0.0.8206", "layer2") == "0"


def test_persistent_change_that_keeps_management_device_down_after_boot_is_refused(env):
    env.build(
        {
            "devices": [{"first": "0.0.bd00", "count": 3, "hipersockets": False}],
            "groups": [{"ids": ["0.0.bd00", "0.0.bd01", "0.0.bd02"], "online": True}],
            "ssh": ["10.0.0.1", "10.0.0.5"],
            "ip_addr": ["2: encbd00    inet 10.0.0.5/24 scope global encbd00"],
            "routes": {"10.0.0.1": "encbd00"},
        }
    )
    for params in (
        {"scope": "persistent", "config": [{"id": "0.0.bd00", "online": False}]},
        {"state": "deleted", "scope": "persistent", "config": [{"id": "0.0.bd00"}]},
        {"state": "deleted", "config": [{"id": "0.0.bd00"}]},
    ):
        env.kernel.write_rule("0.0.bd00", ("0.0.bd00", "0.0.bd01", "0.0.bd02"), {"online": "1"})
        result = run(env, params)
        assert result["failed"] and "next boot" in result["msg"], params
        assert result["chzdev_calls"] == []
    # a rule that keeps it online is fine
    ok = run(env, {"scope": "persistent", "config": [{"id": "0.0.bd00", "layer2": True}]})
    assert not ok["failed"], ok.get("msg")
    assert ok["commands"] == ["chzdev -e -p qeth 0.0.bd00:0.0.bd01:0.0.bd02 layer2=1"]


def test_warns_when_chzdev_succeeds_but_the_device_still_differs(env):
    env.build(HS)
    env.chzdev.script = {1: ok()}  # exit 0, nothing changed
    result = run(env, {"config": [{"id": "0.0.8200", "layer2": True}]})
    assert not result["failed"] and result["changed"] is True
    assert any("still differs after chzdev" in w for w in env.warnings)


def test_isolation_none_is_ignored_on_hipersockets(env):
    env.build(
        {
            "devices": [{"first": "0.0.8200", "count": 3}],
            "groups": [{"ids": ["0.0.8200", "0.0.8201", "0.0.8202"], "online": True, "attrs": {"layer2": "1"}}],
            "rules": [{"ids": ["0.0.8200", "0.0.8201", "0.0.8202"], "settings": {"online": 1, "layer2": 1}}],
        }
    )
    result = run(env, {"config": [{"id": "0.0.8200", "layer2": True, "isolation": "none"}]})
    assert result["commands"] == [] and result["changed"] is False


def test_diff_shows_both_scopes(env):
    env.build(online_group_8200({"buffer_count": "64"}))
    result = run(env, {"config": [{"id": "0.0.8200", "buffer_count": 128}]}, diff=True)
    active = "0.0.8200:0.0.8201:0.0.8202\n  active:\n    exists: 1\n    online: 1\n    layer2: 0\n"
    assert result["diff"]["before"] == active + "    buffer_count: 64\n    portno: 0\n  persistent: (none)\n"
    assert result["diff"]["after"] == (
        active + "    buffer_count: 128\n    portno: 0\n  persistent:\n    online: 1\n    buffer_count: 128\n"
    )


# -- property: from any starting state, one run converges and a second run has nothing to do ------

try:
    from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

    HAS_HYPOTHESIS = True
except ImportError:  # pragma: no cover
    HAS_HYPOTHESIS = False

if HAS_HYPOTHESIS:
    _OSA_IDS = ["0.0.bd00", "0.0.bd01", "0.0.bd02"]

    @hsettings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(
        grouped=st.booleans(),
        online=st.booleans(),
        cur=st.fixed_dictionaries(
            {
                "layer2": st.sampled_from(["0", "1"]),
                "buffer_count": st.sampled_from(["64", "128"]),
                "portno": st.sampled_from(["0", "1"]),
                "isolation": st.sampled_from(["none", "drop"]),
            }
        ),
        rule=st.one_of(
            st.none(),
            st.fixed_dictionaries(
                {
                    "online": st.sampled_from(["0", "1"]),
                    "layer2": st.sampled_from(["0", "1"]),
                    "buffer_count": st.sampled_from(["64", "128"]),
                }
            ),
        ),
        want=st.fixed_dictionaries(
            {},
            optional={
                "layer2": st.booleans(),
                "buffer_count": st.sampled_from([64, 128, 100]),
                "portno": st.sampled_from([0, 1]),
                "isolation": st.sampled_from(["none", "drop", "forward"]),
            },
        ),
        want_online=st.booleans(),
        state=st.sampled_from(["merged", "replaced"]),
        scope=st.sampled_from(["both", "active", "persistent"]),
    )
    def test_any_start_converges_in_one_run(
        env, set_host_root, fake_kernel, grouped, online, cur, rule, want, want_online, state, scope
    ):
        root = tempfile.mkdtemp()
        try:
            set_host_root(root)
            host = env.kernel = fake_kernel()
            host.add_ccw_devices("0.0.bd00", 3, chpid="85", hipersockets=False)
            if grouped:
                host.qeth_group(_OSA_IDS)
                for name, value in cur.items():
                    host.qeth_write("0.0.bd00", name, value)
                if online:
                    host.qeth_write("0.0.bd00", "online", "1")
            if rule is not None:
                host.write_rule("0.0.bd00", _OSA_IDS, rule)
            before_sysfs = (
                dict((n, host.qeth_read("0.0.bd00", n)) for n in ("online",) + tuple(cur)) if grouped else None
            )
            before_rule = host.rule_settings("0.0.bd00")
            params = {"state": state, "scope": scope, "config": [dict(want, id="0.0.bd00", online=want_online)]}
            first = run(env, params)
            assert not first["failed"], (first.get("msg"), first.get("commands"))
            assert first["chzdev_calls"] == first["commands"]
            second = run(env, params)
            assert not second["failed"], second.get("msg")
            assert second["commands"] == [], (first["commands"], second["commands"])
            if scope == "active":
                assert host.rule_settings("0.0.bd00") == before_rule
            if scope == "persistent":
                now = (
                    dict((n, host.qeth_read("0.0.bd00", n)) for n in ("online",) + tuple(cur))
                    if host.qeth_exists("0.0.bd00")
                    else None
                )
                assert now == before_sysfs
        finally:
            shutil.rmtree(root, ignore_errors=True)


def test_when_the_chzdev_rollback_fails_too_sysfs_puts_the_device_back_online(env):
    env.build(online_group_8200({"layer2": "1", "buffer_count": "64"}))
    # the configure step and the chzdev rollback fail after the first call took the device offline
    env.chzdev.script = {
        1: ok(online="0"),
        2: fails(17, "Error: Could not write file\n"),
        3: fails(17, "Error: Could not write file\n"),
    }
    result = run(env, {"config": [{"id": "0.0.8200", "layer2": True, "buffer_count": 128}]})
    assert result["failed"]
    rollback = result["rollback"]
    assert rollback["ok"] is True and len(rollback["errors"]) == 1  # chzdev failed, sysfs did it
    assert rollback["commands"] == [
        "chzdev -e -a qeth 0.0.8200:0.0.8201:0.0.8202",
        "echo 1 > /sys/bus/ccwgroup/devices/0.0.8200/online",
    ]
    assert env.kernel.qeth_read("0.0.8200", "online") == "1"  # never left offline
    assert env.kernel.qeth_read("0.0.8200", "buffer_count") == "64"
    assert "previous state restored" in result["msg"]


@pytest.mark.parametrize("attr, value, layer2", [("hsuid", "AB_1-#@z", False), ("portname", "OSA#@_-1", True)])
def test_a_name_attribute_is_one_chzdev_argument_and_reads_back_from_the_rule(env, attr, value, layer2):
    env.build(HS)
    result = run(env, {"config": [{"id": "0.0.8200", "layer2": layer2, "attributes": {attr: value}}]})
    assert not result["failed"], result.get("msg")
    assert len(env.chzdev.calls) == 1
    assert env.chzdev.calls[0].count("%s=%s" % (attr, value)) == 1
    with open(env.rule_file("0.0.8200")) as handle:
        lines = handle.read().splitlines()
    assert 'ATTR{[ccwgroup/0.0.8200]%s}="%s"' % (attr, value) in lines
    assert env.kernel.rule_settings("0.0.8200")[attr] == value


@pytest.mark.parametrize("value", ['",RUN+="/bin/sh', "A\\", "A\nB", "%k$name"])
def test_a_value_that_would_change_the_udev_rule_never_reaches_chzdev(env, value):
    env.build(HS)
    result = run(env, {"config": [{"id": "0.0.8200", "layer2": False, "attributes": {"hsuid": value}}]})
    assert result["failed"] and result["msg"].startswith("config[0] (id 0.0.8200): attributes.hsuid")
    assert env.chzdev.calls == [] and not os.path.exists(env.rule_file("0.0.8200"))


def test_a_failed_call_keeps_what_an_earlier_call_of_the_run_wrote_into_41_cio_ignore_rules(env):
    env.build({"devices": [{"first": "0.0.8200", "count": 6}]})
    cio_rule = env.kernel.path(ccw_blacklist.CIO_IGNORE_RULE)
    os.makedirs(os.path.dirname(cio_rule), exist_ok=True)
    line = 'ACTION=="add", SUBSYSTEM=="subchannel", ENV{FREE}="%s"\n'

    def first(argv):
        env.chzdev.configure(argv[argv.index("qeth") + 1])
        with open(cio_rule, "w") as handle:
            handle.write(line % "0.0.8200")
        return 0, "", ""

    def second(argv):
        with open(cio_rule, "a") as handle:
            handle.write(line % "0.0.8203")
        return 17, "", "Error: Could not set buffer_count='64'\n"

    env.chzdev.script = {1: first, 2: second}
    config = [{"id": "0.0.8200", "buffer_count": 128}, {"id": "0.0.8203", "buffer_count": 64}]
    result = run(env, {"config": config})
    assert result["failed"] and result["changed"] is True and result["rollback"]["ok"] is True
    assert result["rollback"]["commands"] == ["write %s" % ccw_blacklist.CIO_IGNORE_RULE]
    # the first device stays configured, and so does its line for the next boot
    with open(cio_rule) as handle:
        assert handle.read() == line % "0.0.8200"
    assert env.kernel.qeth_read("0.0.8200", "buffer_count") == "128"
