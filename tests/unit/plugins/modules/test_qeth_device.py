# -*- coding: utf-8 -*-
# Copyright (c) s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""qeth_device end to end on a fake host: exact chzdev command lines (YAML-described cases in
fixtures/qeth_device_*.yml), idempotence, drift, check mode, safety, rollback, bad input."""

from __future__ import annotations

import glob
import importlib.util
import os
import shutil
import tempfile

import pytest
import yaml

from ansible.module_utils import basic
from ansible.module_utils.testing import patch_module_args

from ansible_collections.s390x.network.plugins.module_utils import qeth_sysfs
from ansible_collections.s390x.network.plugins.modules import qeth_device

HERE = os.path.dirname(__file__)
_SPEC = importlib.util.spec_from_file_location("qeth_fake_host", os.path.join(HERE, "fixtures", "qeth_fake_host.py"))
fake = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(fake)


class Exit(Exception):
    def __init__(self, result):
        Exception.__init__(self, result)
        self.result = result


class Fail(Exception):
    def __init__(self, result):
        Exception.__init__(self, result)
        self.result = result


class Env(object):
    def __init__(self, host):
        self.host = host
        self.ssh = None            # (client, server) or None
        self.addrs = []            # lines of `ip -o addr show`
        self.routes = {}           # client -> dev
        self.warnings = []
        self.tools = {"chzdev": "/usr/sbin/chzdev", "ip": "/usr/sbin/ip", "lszdev": None}
        self.other_calls = []
        self.stdin = []

    def build(self, spec):
        for item in spec.get("devices", []):
            self.host.add_devices(item["first"], item.get("count", 3), chpid=item.get("chpid", "F0"),
                                  hipersockets=item.get("hipersockets", True))
        for item in spec.get("groups", []):
            ids = item["ids"]
            self.host.group(ids)
            for name, value in (item.get("attrs") or {}).items():
                self.host.write(ids[0], name, str(value))
            if item.get("online"):
                self.host.write(ids[0], "online", "1")
        for item in spec.get("rules", []):
            self.host.write_rule(item["ids"][0], item["ids"], dict((k, str(v)) for k, v in item["settings"].items()))
        if spec.get("ssh"):
            self.ssh = spec["ssh"]
            for line in spec.get("ip_addr", []):
                self.addrs.append(line)
            self.routes.update(spec.get("routes", {}))


@pytest.fixture
def env(tmp_path, monkeypatch):
    host = fake.FakeQethHost(tmp_path)
    state = Env(host)
    monkeypatch.setattr(qeth_sysfs, "HOST_ROOT", str(tmp_path))

    def exit_json(self, **kw):
        raise Exit(kw)

    def fail_json(self, msg, **kw):
        kw["msg"] = msg
        raise Fail(kw)

    def get_bin_path(self, name, required=False, opt_dirs=None):
        return state.tools.get(name)

    def run_command(self, args, data=None, environ_update=None, **kw):
        state.stdin.append(data)
        if args[0].endswith("chzdev"):
            return state.host.chzdev(args)
        state.other_calls.append(list(args))
        if args[0].endswith("ip") and args[1:3] == ["-o", "addr"]:
            return 0, "\n".join(state.addrs) + "\n", ""
        if args[0].endswith("ip") and args[1:3] == ["route", "get"]:
            dev = state.routes.get(args[3])
            return (0, "%s dev %s src 10.0.0.5 uid 0\n    cache\n" % (args[3], dev), "") if dev else (2, "", "unreachable")
        return 127, "", "not faked"

    monkeypatch.setattr(basic.AnsibleModule, "exit_json", exit_json)
    monkeypatch.setattr(basic.AnsibleModule, "fail_json", fail_json)
    monkeypatch.setattr(basic.AnsibleModule, "warn", lambda self, text: state.warnings.append(text))
    monkeypatch.setattr(basic.AnsibleModule, "get_bin_path", get_bin_path)
    monkeypatch.setattr(basic.AnsibleModule, "run_command", run_command)
    monkeypatch.delenv("SSH_CONNECTION", raising=False)
    state.monkeypatch = monkeypatch
    return state


def run(env, params, check=False, diff=False):
    if env.ssh:
        env.monkeypatch.setenv("SSH_CONNECTION", "%s 51000 %s 22" % (env.ssh[0], env.ssh[1]))
    args = dict(params)
    if check:
        args["_ansible_check_mode"] = True
    if diff:
        args["_ansible_diff"] = True
    env.host.calls = []
    with patch_module_args(args):
        try:
            qeth_device.main()
        except Exit as exc:
            exc.result["failed"] = False
            exc.result["chzdev_calls"] = [" ".join([os.path.basename(c[0])] + c[1:]) for c in env.host.calls]
            return exc.result
        except Fail as exc:
            exc.result["failed"] = True
            exc.result["chzdev_calls"] = [" ".join([os.path.basename(c[0])] + c[1:]) for c in env.host.calls]
            return exc.result
    raise AssertionError("module returned without exit_json/fail_json")


def _cases():
    cases = []
    for path in sorted(glob.glob(os.path.join(HERE, "fixtures", "qeth_device_*.yml"))):
        with open(path) as handle:
            data = yaml.safe_load(handle)
        for case in data["cases"]:
            cases.append(pytest.param(case, id="%s:%s" % (os.path.basename(path)[len("qeth_device_"):-4], case["name"])))
    return cases


def _check_host(host, expected):
    for busid, want in (expected or {}).items():
        if want is None:
            assert not host.exists(busid), "%s should not be grouped" % busid
            continue
        for name, value in want.items():
            if name == "rule":
                settings = host.read_rule_settings(busid)
                if value is None:
                    assert settings is None, "%s should have no udev rule" % busid
                else:
                    assert settings is not None, "%s should have a udev rule" % busid
                    for key, val in value.items():
                        assert settings.get(key) == (None if val is None else str(val)), (busid, key, settings)
            else:
                assert host.read(busid, name) == str(value), (busid, name, host.read(busid, name))


@pytest.mark.parametrize("case", _cases())
def test_yaml_case(env, case):
    env.build(case.get("host", {}))
    for fault in case.get("faults", []):
        env.host.faults.append(dict(fault))
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
    _check_host(env.host, expect.get("host"))
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
    assert not env.host.exists("0.0.8200")
    assert result["after"][0]["layer2"] is True and result["after"][0]["online"] is True
    assert result["after"][0]["persistent"]["buffer_count"] == 128
    assert "not configured" in result["diff"]["before"]
    assert "layer2=1" in result["diff"]["after"]
    real = run(env, {"config": [{"id": "0.0.8200", "layer2": True, "buffer_count": 128}]})
    assert real["commands"] == result["commands"]
    keys = ("id", "online", "layer2", "buffer_count", "exists")
    assert [dict((k, d[k]) for k in keys) for d in real["after"]] == \
        [dict((k, d[k]) for k in keys) for d in result["after"]]
    for key in ("online", "layer2", "buffer_count"):
        assert real["after"][0]["persistent"][key] == result["after"][0]["persistent"][key]


def test_drift_active_and_persistent_detected_separately(env):
    env.build(HS)
    params = {"config": [{"id": "0.0.8200", "layer2": True, "buffer_count": 128}]}
    assert not run(env, params)["failed"]
    # behind our back: buffer_count 64 in sysfs (offline, change, online) and the rule deleted
    env.host.write("0.0.8200", "online", "0")
    env.host.write("0.0.8200", "buffer_count", "64")
    env.host.write("0.0.8200", "online", "1")
    os.unlink(env.host.rule_path("0.0.8200"))
    check = run(env, params, check=True)
    assert check["commands"] == [
        "chzdev -a qeth 0.0.8200:0.0.8201:0.0.8202 online=0",
        "chzdev -e qeth 0.0.8200:0.0.8201:0.0.8202 layer2=1 buffer_count=128",
    ]
    assert check["before"][0]["buffer_count"] == 64 and check["before"][0]["persistent"] is None
    fixed = run(env, params)
    assert fixed["chzdev_calls"] == check["commands"]
    assert env.host.read("0.0.8200", "buffer_count") == "128"
    assert env.host.read_rule_settings("0.0.8200")["buffer_count"] == "128"
    assert run(env, params)["chzdev_calls"] == []


def test_management_interface_refused_then_allowed(env):
    env.build({"devices": [{"first": "0.0.bd00", "count": 3, "hipersockets": False, "chpid": "85"}],
               "groups": [{"ids": ["0.0.bd00", "0.0.bd01", "0.0.bd02"], "online": True}],
               "ssh": ["10.0.0.1", "10.0.0.5"],
               "ip_addr": ["2: encbd00    inet 10.0.0.5/24 brd 10.0.0.255 scope global encbd00\\"],
               "routes": {"10.0.0.1": "encbd00"}})
    params = {"config": [{"id": "0.0.bd00", "buffer_count": 128}]}
    refused = run(env, params)
    assert refused["failed"]
    assert "encbd00" in refused["msg"] and "allow_disruptive" in refused["msg"]
    assert refused["chzdev_calls"] == []
    assert env.host.read("0.0.bd00", "buffer_count") == "64"
    # an online-settable change on the same device is not disruptive: allowed
    iso = run(env, {"config": [{"id": "0.0.bd00", "isolation": "drop"}], "scope": "active"})
    assert not iso["failed"], iso.get("msg")
    assert iso["commands"] == ["chzdev -e -a qeth 0.0.bd00:0.0.bd01:0.0.bd02 isolation=drop"]
    allowed = run(env, dict(params, allow_disruptive=True))
    assert not allowed["failed"], allowed.get("msg")
    assert env.host.read("0.0.bd00", "buffer_count") == "128"


def test_management_interface_via_proc_route_without_ip(env):
    env.tools["ip"] = None
    env.build({"devices": [{"first": "0.0.bd00", "count": 3, "hipersockets": False}],
               "groups": [{"ids": ["0.0.bd00", "0.0.bd01", "0.0.bd02"], "online": True}],
               "ssh": ["10.0.0.1", "10.0.0.5"]})
    proc = os.path.join(env.host.root, "proc", "net")
    os.makedirs(proc)
    with open(os.path.join(proc, "route"), "w") as handle:
        handle.write("Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
                     "encbd00\t0000000A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n")
    refused = run(env, {"config": [{"id": "0.0.bd00", "layer2": False}]})
    assert refused["failed"] and "encbd00" in refused["msg"]


def test_overridden_spares_management_device(env):
    env.build({"devices": [{"first": "0.0.8200", "count": 6},
                           {"first": "0.0.bd00", "count": 3, "hipersockets": False, "chpid": "85"}],
               "groups": [{"ids": ["0.0.bd00", "0.0.bd01", "0.0.bd02"], "online": True},
                          {"ids": ["0.0.8203", "0.0.8204", "0.0.8205"], "online": True}],
               "ssh": ["10.0.0.1", "10.0.0.5"],
               "ip_addr": ["3: encbd00    inet 10.0.0.5/24 scope global encbd00"],
               "routes": {"10.0.0.1": "encbd00"}})
    result = run(env, {"state": "overridden", "allow_disruptive": False,
                       "config": [{"id": "0.0.8200", "layer2": True, "buffer_count": 128}]})
    assert not result["failed"], result.get("msg")
    assert result["commands"] == [
        "chzdev -e qeth 0.0.8200:0.0.8201:0.0.8202 layer2=1 buffer_count=128 portno=0",
        "chzdev -d -a -y qeth 0.0.8203:0.0.8204:0.0.8205",
    ]
    assert not env.host.exists("0.0.8203")
    assert any("encbd00" in w for w in env.warnings)
    assert env.host.exists("0.0.bd00")


def test_missing_chzdev_names_package(env):
    env.tools["chzdev"] = None
    env.build(HS)
    with open(os.path.join(env.host.root, "etc", "os-release"), "w") as handle:
        handle.write('NAME="Red Hat Enterprise Linux"\nID="rhel"\nID_LIKE="fedora"\nPRETTY_NAME="RHEL 9.4"\n')
    result = run(env, {"config": [{"id": "0.0.8200"}]})
    assert result["failed"] and "s390utils-base" in result["msg"]
    with open(os.path.join(env.host.root, "etc", "os-release"), "w") as handle:
        handle.write('ID=ubuntu\nID_LIKE=debian\n')
    result = run(env, {"config": [{"id": "0.0.8200"}]})
    assert result["failed"] and "s390-tools" in result["msg"]
    # reading needs no chzdev
    assert not run(env, {"state": "gathered"})["failed"]


def test_gathered_lists_configured_devices(env):
    env.build({"devices": [{"first": "0.0.8200", "count": 6}],
               "groups": [{"ids": ["0.0.8200", "0.0.8201", "0.0.8202"], "online": True,
                           "attrs": {"layer2": "1"}}],
               "rules": [{"ids": ["0.0.8200", "0.0.8201", "0.0.8202"],
                          "settings": {"layer2": 1, "buffer_count": 128, "online": 1}},
                         {"ids": ["0.0.8203", "0.0.8204", "0.0.8205"], "settings": {"online": 1}}]})
    result = run(env, {"state": "gathered"})
    assert result["changed"] is False and result["chzdev_calls"] == []
    assert result["gathered"] == [{"id": "0.0.8200:0.0.8201:0.0.8202", "online": True, "layer2": True,
                                   "buffer_count": 128, "portno": 0}]
    pers = run(env, {"state": "gathered", "scope": "persistent"})["gathered"]
    assert pers == [{"id": "0.0.8200:0.0.8201:0.0.8202", "online": True, "layer2": True, "buffer_count": 128},
                    {"id": "0.0.8203:0.0.8204:0.0.8205", "online": True}]
    # what gathered returns is valid config, and applying it changes nothing
    again = run(env, {"config": result["gathered"], "scope": "active"})
    assert not again["failed"], again.get("msg")
    assert again["commands"] == []


def test_rollback_restores_previous_active_state(env):
    env.build({"devices": [{"first": "0.0.8200", "count": 3}],
               "groups": [{"ids": ["0.0.8200", "0.0.8201", "0.0.8202"], "online": True,
                           "attrs": {"layer2": "0", "buffer_count": "64"}}]})
    # the sysfs write of buffer_count fails after chzdev already set online=0 and layer2=1
    env.host.write_faults["buffer_count"] = 5  # EIO
    params = {"config": [{"id": "0.0.8200", "layer2": True, "buffer_count": 128}]}
    result = run(env, params)
    assert result["failed"]
    assert "exit code 17" in result["msg"] and "restored" in result["msg"]
    # the failed call left the device offline with layer2=1: only that is undone
    assert result["rollback"] == {"ok": True, "errors": [], "commands": [
        "chzdev -e -a qeth 0.0.8200:0.0.8201:0.0.8202 layer2=0"]}
    assert env.host.read("0.0.8200", "online") == "1"
    assert env.host.read("0.0.8200", "layer2") == "0"
    assert env.host.read("0.0.8200", "buffer_count") == "64"
    assert env.host.read_rule_settings("0.0.8200") is None
    assert result["after"][0]["online"] is True and result["after"][0]["layer2"] is False


def test_tool_fault_before_any_change_needs_no_rollback(env):
    env.build({"devices": [{"first": "0.0.8200", "count": 3}],
               "groups": [{"ids": ["0.0.8200", "0.0.8201", "0.0.8202"], "online": True,
                           "attrs": {"layer2": "0", "buffer_count": "64"}}]})
    env.host.faults.append({"when": "online=0", "rc": 17, "stderr": "Error: injected\n"})
    result = run(env, {"config": [{"id": "0.0.8200", "layer2": True, "buffer_count": 128}]})
    assert result["failed"] and "exit code 17" in result["msg"]
    assert result["rollback"] == {"ok": True, "errors": [], "commands": []}
    assert env.host.read("0.0.8200", "online") == "1"


def test_rollback_after_offline_half_succeeded(env):
    env.build({"devices": [{"first": "0.0.8200", "count": 3}],
               "groups": [{"ids": ["0.0.8200", "0.0.8201", "0.0.8202"], "online": True,
                           "attrs": {"layer2": "0", "buffer_count": "64"}}]})
    params = {"config": [{"id": "0.0.8200", "layer2": True, "buffer_count": 128}]}
    # chzdev -e (the online half) fails like a zlab fault "exit 17 on online"
    real = env.host.chzdev
    state = {"n": 0}

    def flaky(argv):
        if "-e" in argv and state["n"] == 0:
            state["n"] += 1
            env.host.calls.append(list(argv))
            return 17, "", "Error: Could not set online='1'\n"
        return real(argv)
    env.host.chzdev = flaky
    result = run(env, params)
    assert result["failed"]
    assert result["rollback"]["ok"] is True
    # the offline half worked, the online half changed nothing: just back online
    assert result["rollback"]["commands"] == ["chzdev -e -a qeth 0.0.8200:0.0.8201:0.0.8202"]
    assert env.host.read("0.0.8200", "online") == "1"
    assert env.host.read("0.0.8200", "layer2") == "0"
    assert env.host.read("0.0.8200", "buffer_count") == "64"


def test_layer2_change_warns_about_macvtap(env):
    env.build({"devices": [{"first": "0.0.8200", "count": 3}],
               "groups": [{"ids": ["0.0.8200", "0.0.8201", "0.0.8202"], "online": True}]})
    netdir = env.host.sys("class", "net", "enc8200")
    os.makedirs(netdir)
    os.symlink("../macvtap0", os.path.join(netdir, "upper_macvtap0"))
    result = run(env, {"config": [{"id": "0.0.8200", "layer2": True}]})
    assert not result["failed"], result.get("msg")
    assert any("macvtap0" in w for w in env.warnings)


def test_sixteen_devices_one_call_each_and_noop(env):
    env.build({"devices": [{"first": "0.0.8200", "count": 48}]})
    config = [{"id": "0.0.%04x" % (0x8200 + 3 * i), "layer2": True, "buffer_count": 128} for i in range(16)]
    first = run(env, {"config": config})
    assert not first["failed"], first.get("msg")
    assert len(first["chzdev_calls"]) == 16
    again = run(env, {"config": config})
    assert again["chzdev_calls"] == [] and again["changed"] is False


def test_persistent_change_that_keeps_management_device_down_after_boot_is_refused(env):
    env.build({"devices": [{"first": "0.0.bd00", "count": 3, "hipersockets": False}],
               "groups": [{"ids": ["0.0.bd00", "0.0.bd01", "0.0.bd02"], "online": True}],
               "ssh": ["10.0.0.1", "10.0.0.5"],
               "ip_addr": ["2: encbd00    inet 10.0.0.5/24 scope global encbd00"],
               "routes": {"10.0.0.1": "encbd00"}})
    for params in ({"scope": "persistent", "config": [{"id": "0.0.bd00", "online": False}]},
                   {"state": "deleted", "scope": "persistent", "config": [{"id": "0.0.bd00"}]},
                   {"state": "deleted", "config": [{"id": "0.0.bd00"}]}):
        env.host.write_rule("0.0.bd00", ("0.0.bd00", "0.0.bd01", "0.0.bd02"), {"online": "1"})
        result = run(env, params)
        assert result["failed"] and "next boot" in result["msg"], params
        assert result["chzdev_calls"] == []
    # a rule that keeps it online is fine
    ok = run(env, {"scope": "persistent", "config": [{"id": "0.0.bd00", "layer2": True}]})
    assert not ok["failed"], ok.get("msg")
    assert ok["commands"] == ["chzdev -e -p qeth 0.0.bd00:0.0.bd01:0.0.bd02 layer2=1"]


def test_warns_when_chzdev_succeeds_but_the_device_still_differs(env):
    env.build(HS)
    env.host.chzdev = lambda argv: (env.host.calls.append(list(argv)) or (0, "QETH device configured\n", ""))
    result = run(env, {"config": [{"id": "0.0.8200", "layer2": True}]})
    assert not result["failed"] and result["changed"] is True
    assert any("still differs after chzdev" in w for w in env.warnings)


def test_isolation_none_is_ignored_on_hipersockets(env):
    env.build({"devices": [{"first": "0.0.8200", "count": 3}],
               "groups": [{"ids": ["0.0.8200", "0.0.8201", "0.0.8202"], "online": True, "attrs": {"layer2": "1"}}],
               "rules": [{"ids": ["0.0.8200", "0.0.8201", "0.0.8202"], "settings": {"online": 1, "layer2": 1}}]})
    result = run(env, {"config": [{"id": "0.0.8200", "layer2": True, "isolation": "none"}]})
    assert result["commands"] == [] and result["changed"] is False


def test_diff_shows_both_scopes(env):
    env.build({"devices": [{"first": "0.0.8200", "count": 3}],
               "groups": [{"ids": ["0.0.8200", "0.0.8201", "0.0.8202"], "online": True, "attrs": {"buffer_count": "64"}}]})
    result = run(env, {"config": [{"id": "0.0.8200", "buffer_count": 128}]}, diff=True)
    assert result["diff"]["before"] == ("qeth 0.0.8200:0.0.8201:0.0.8202\n"
                                        "  active:     online=1 buffer_count=64\n"
                                        "  persistent: (no udev rule)\n")
    assert result["diff"]["after"] == ("qeth 0.0.8200:0.0.8201:0.0.8202\n"
                                       "  active:     online=1 buffer_count=128\n"
                                       "  persistent: online=1 buffer_count=128\n")


# -- property: from any starting state, one run converges and a second run has nothing to do ------

try:
    from hypothesis import HealthCheck, given, settings as hsettings, strategies as st
    HAS_HYPOTHESIS = True
except ImportError:  # pragma: no cover
    HAS_HYPOTHESIS = False

if HAS_HYPOTHESIS:
    _OSA_IDS = ["0.0.bd00", "0.0.bd01", "0.0.bd02"]

    @hsettings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(grouped=st.booleans(), online=st.booleans(),
           cur=st.fixed_dictionaries({"layer2": st.sampled_from(["0", "1"]), "buffer_count": st.sampled_from(["64", "128"]),
                                      "portno": st.sampled_from(["0", "1"]), "isolation": st.sampled_from(["none", "drop"])}),
           rule=st.one_of(st.none(), st.fixed_dictionaries({"online": st.sampled_from(["0", "1"]),
                                                            "layer2": st.sampled_from(["0", "1"]),
                                                            "buffer_count": st.sampled_from(["64", "128"])})),
           want=st.fixed_dictionaries({}, optional={"layer2": st.booleans(), "buffer_count": st.sampled_from([64, 128, 100]),
                                                    "portno": st.sampled_from([0, 1]),
                                                    "isolation": st.sampled_from(["none", "drop", "forward"])}),
           want_online=st.booleans(), state=st.sampled_from(["merged", "replaced"]),
           scope=st.sampled_from(["both", "active", "persistent"]))
    def test_any_start_converges_in_one_run(env, grouped, online, cur, rule, want, want_online, state, scope):
        root = tempfile.mkdtemp()
        try:
            host = fake.FakeQethHost(root)
            env.host = host
            env.monkeypatch.setattr(qeth_sysfs, "HOST_ROOT", root)
            host.add_devices("0.0.bd00", 3, chpid="85", hipersockets=False)
            if grouped:
                host.group(_OSA_IDS)
                for name, value in cur.items():
                    host.write("0.0.bd00", name, value)
                if online:
                    host.write("0.0.bd00", "online", "1")
            if rule is not None:
                host.write_rule("0.0.bd00", _OSA_IDS, rule)
            before_sysfs = dict((n, host.read("0.0.bd00", n)) for n in ("online",) + tuple(cur)) if grouped else None
            before_rule = host.read_rule_settings("0.0.bd00")
            params = {"state": state, "scope": scope, "config": [dict(want, id="0.0.bd00", online=want_online)]}
            first = run(env, params)
            assert not first["failed"], (first.get("msg"), first.get("commands"))
            assert first["chzdev_calls"] == first["commands"]
            second = run(env, params)
            assert not second["failed"], second.get("msg")
            assert second["commands"] == [], (first["commands"], second["commands"])
            if scope == "active":
                assert host.read_rule_settings("0.0.bd00") == before_rule
            if scope == "persistent":
                now = dict((n, host.read("0.0.bd00", n)) for n in ("online",) + tuple(cur)) if host.exists("0.0.bd00") else None
                assert now == before_sysfs
        finally:
            shutil.rmtree(root, ignore_errors=True)


def test_when_the_chzdev_rollback_fails_too_sysfs_puts_the_device_back_online(env):
    env.build({"devices": [{"first": "0.0.8200", "count": 3}],
               "groups": [{"ids": ["0.0.8200", "0.0.8201", "0.0.8202"], "online": True,
                           "attrs": {"layer2": "1", "buffer_count": "64"}}]})
    real = env.host.chzdev
    calls = []

    def failing(argv):
        calls.append(argv)
        if len(calls) in (2, 3):  # the configure step and the chzdev rollback
            env.host.calls.append(list(argv))
            return 17, "", "Error: Could not write file\n"
        return real(argv)
    env.host.chzdev = failing
    result = run(env, {"config": [{"id": "0.0.8200", "layer2": True, "buffer_count": 128}]})
    assert result["failed"]
    rollback = result["rollback"]
    assert rollback["ok"] is True and len(rollback["errors"]) == 1  # chzdev failed, sysfs did it
    assert rollback["commands"] == ["chzdev -e -a qeth 0.0.8200:0.0.8201:0.0.8202",
                                    "echo 1 > /sys/bus/ccwgroup/devices/0.0.8200/online"]
    assert env.host.read("0.0.8200", "online") == "1"  # never left offline
    assert env.host.read("0.0.8200", "buffer_count") == "64"
    assert "previous active state restored" in result["msg"]
