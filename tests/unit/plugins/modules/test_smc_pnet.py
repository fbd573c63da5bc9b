# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""smc_pnet against a fake smc_pnet that keeps a table with the kernel's rules."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest

from ansible_collections.s390x.network.plugins.modules import smc_pnet

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "smc")


class FakeSmcPnet(object):
    """smc_pnet with the kernel's rules: one PNET ID per interface/port, -d drops a whole ID."""

    def __init__(self, text=None, loaded=True):
        self.lines = []
        if text is None:
            with open(os.path.join(FIXTURES, "smc_pnet_show.txt")) as handle:
                text = handle.read()
        self.lines = [line.split() for line in text.splitlines() if line.strip()]
        self.loaded = loaded
        self.calls = []

    def __call__(self, argv):
        self.calls.append(argv)
        assert argv[0] == "/usr/sbin/smc_pnet"
        if not self.loaded:
            return 1, "", "smc_pnet: SMC module not loaded\n"
        args = argv[1:]
        if not args:
            return 0, "".join("%s\n" % " ".join(line) for line in self.lines), ""
        if args == ["-f"]:
            self.lines = []
            return 0, "", ""
        if args[0] == "-d":
            if not any(line[0] == args[1] for line in self.lines):
                return 1, "", "smc_pnet: No such file or directory\n"
            self.lines = [line for line in self.lines if line[0] != args[1]]
            return 0, "", ""
        if args[0] == "-a":
            pnet_id = args[1].upper()
            if args[2] == "-I":
                new = [pnet_id, args[3], "n/a", "255"]
                taken = [line for line in self.lines if line[1] == args[3]]
            else:
                new = [pnet_id, "n/a", args[3], args[5]]
                taken = [line for line in self.lines if line[2] == args[3] and line[3] == args[5]]
            if taken:
                return 1, "", "smc_pnet: Object exists\n"
            self.lines.append(new)
            return 0, "", ""
        raise AssertionError("unexpected smc_pnet call %r" % argv)


def changes(fake):
    return [call[1:] for call in fake.calls if len(call) > 1]


def test_merged_is_idempotent_and_reports_commands(run_module):
    fake = FakeSmcPnet()
    config = [{"pnet_id": "neta", "interface": "enc8200"}, {"pnet_id": "NETC", "ib_device": "mlx5_3"}]
    out = run_module(smc_pnet.main, {"config": config}, fake, diff=True)
    assert not out.failed, out.result
    assert out.result["changed"] is True
    assert out.result["commands"] == ["smc_pnet -a NETC -D mlx5_3 -P 1"]
    assert {"pnet_id": "NETC", "ib_device": "mlx5_3", "port": 1} in out.result["after"]
    assert "    NETC: ib_device mlx5_3 port 1\n" in out.result["diff"]["after"]
    again = run_module(smc_pnet.main, {"config": config}, fake)
    assert again.result["changed"] is False and again.result["commands"] == []


def test_moving_an_interface_rebuilds_the_old_pnet_id(run_module):
    fake = FakeSmcPnet()
    out = run_module(smc_pnet.main, {"config": [{"pnet_id": "NETB", "interface": "enc8200"}]}, fake)
    assert not out.failed, out.result
    assert changes(fake) == [["-d", "NETA"], ["-a", "NETA", "-D", "mlx5_0", "-P", "1"], ["-a", "NETB", "-I", "enc8200"]]
    assert sorted(out.result["after"], key=str) == sorted(
        [
            {"pnet_id": "NETA", "ib_device": "mlx5_0", "port": 1},
            {"pnet_id": "NETR", "ib_device": "mlx5_1", "port": 2},
            {"pnet_id": "NETB", "interface": "bond0"},
            {"pnet_id": "NETB", "interface": "enc8200"},
        ],
        key=str,
    )


def test_check_mode_runs_only_the_show(run_module):
    fake = FakeSmcPnet()
    out = run_module(
        smc_pnet.main,
        {"state": "overridden", "config": [{"pnet_id": "NETA", "interface": "eth1"}]},
        fake,
        check_mode=True,
    )
    assert out.result["changed"] is True
    assert fake.calls == [["/usr/sbin/smc_pnet"]]
    assert out.result["after"] == [{"pnet_id": "NETA", "interface": "eth1"}]
    assert "smc_pnet -d NETB" in out.result["commands"]


def test_overridden_deleted_and_gathered(run_module):
    fake = FakeSmcPnet()
    wanted = [{"pnet_id": "NETA", "interface": "enc8200"}, {"pnet_id": "NETR", "ib_device": "mlx5_1", "port": 2}]
    out = run_module(smc_pnet.main, {"state": "overridden", "config": wanted}, fake)
    assert out.result["after"] == wanted
    gathered = run_module(smc_pnet.main, {"state": "gathered"}, fake).result
    assert gathered["changed"] is False and gathered["gathered"] == wanted
    deleted = run_module(smc_pnet.main, {"state": "deleted", "config": [{"pnet_id": "NETR"}]}, fake).result
    assert deleted["after"] == [{"pnet_id": "NETA", "interface": "enc8200"}]
    flushed = run_module(smc_pnet.main, {"state": "deleted"}, fake).result
    assert flushed["commands"] == ["smc_pnet -f"] and flushed["after"] == []


@pytest.mark.parametrize(
    "config,msg",
    [
        ([{"pnet_id": "THISISWAYTOOLONG1", "interface": "eth0"}], "1 to 16 characters"),
        ([{"pnet_id": "NET_A", "interface": "eth0"}], "1 to 16 characters"),
        ([{"pnet_id": "NETA"}], "needs interface"),
        ([{"pnet_id": "NETA", "interface": "eth0", "ib_device": "mlx5_0"}], "mutually exclusive"),
    ],
)
def test_bad_input_runs_nothing(run_module, config, msg):
    fake = FakeSmcPnet()
    out = run_module(smc_pnet.main, {"config": config}, fake)
    assert out.failed and msg in out.result["msg"]
    assert fake.calls == []


def test_errors_name_the_cause(run_module):
    out = run_module(smc_pnet.main, {"state": "gathered"}, FakeSmcPnet(loaded=False))
    assert out.failed and "load the smc kernel module" in out.result["msg"]
    fake = FakeSmcPnet(text="HWNET n/a ism0 1\n")
    # the device port is taken (here: by a PNET ID the module does not manage)
    fake.lines.append(["OTHER", "n/a", "mlx5_9", "1"])
    original = fake.__call__

    def refuse(argv):
        if argv[1:2] == ["-a"]:
            fake.calls.append(argv)
            return 1, "", "smc_pnet: Object exists\n"
        return original(argv)

    out = run_module(smc_pnet.main, {"config": [{"pnet_id": "NETX", "ib_device": "ism1"}]}, refuse)
    assert out.failed and "IOCDS" in out.result["msg"]


def test_a_list_that_contradicts_itself_is_refused_before_the_table_is_read(run_module):
    # the host has no smc_pnet at all: the error is about the list, not about the tool
    def no_tool(argv):
        raise AssertionError("nothing may run: %r" % argv)

    out = run_module(
        smc_pnet.main,
        {"config": [{"pnet_id": "NETA", "interface": "eth1"}, {"pnet_id": "NETB", "interface": "eth1"}]},
        no_tool,
        bin_paths={"smc_pnet": None},
    )
    assert out.failed and "interface eth1 is listed with two PNET IDs" in out.result["msg"]


def test_drift_rows_name_the_pnet_id_and_the_entry(run_module):
    fake = FakeSmcPnet()
    out = run_module(smc_pnet.main, {"config": [{"pnet_id": "NETB", "interface": "enc8200"}]}, fake, check_mode=True)
    assert out.result["drift"] == [
        {
            "kind": "pnet",
            "object": "table",
            "scope": "active",
            "difference": "NETA ib_device mlx5_0 port 1,interface enc8200 -> ib_device mlx5_0 port 1, "
            "NETB interface bond0 -> interface bond0,interface enc8200",
        },
    ]


def test_a_move_that_fails_half_way_puts_the_old_table_back(run_module):
    fake = FakeSmcPnet()
    original = fake.__call__

    def refuse_netb(argv):
        if argv[1:3] == ["-a", "NETB"]:
            fake.calls.append(argv)
            return 1, "", "smc_pnet: Object exists\n"
        return original(argv)

    out = run_module(smc_pnet.main, {"config": [{"pnet_id": "NETB", "interface": "enc8200"}]}, refuse_netb)
    assert out.failed
    # NETA was deleted and rebuilt without enc8200; then adding it to NETB failed: back to the old table
    assert out.result["rollback"]["ok"] is True
    assert out.result["rollback"]["commands"] == ["smc_pnet -a NETA -I enc8200"]
    assert sorted(" ".join(line) for line in fake.lines) == sorted(
        ["NETA enc8200 n/a 255", "NETA n/a mlx5_0 1", "NETR n/a mlx5_1 2", "NETB bond0 n/a 255"]
    )
    assert "previous state restored" in out.result["msg"]
