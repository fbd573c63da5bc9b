# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""smc_pnet with the netlink backend (the fake kernel's SMC_PNETID family), the choice of the
backend, and the order: input checks before any tool lookup, socket or table read."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import sys

import pytest

from ansible_collections.s390x.network.plugins.module_utils.smc import netlink as smc_netlink
from ansible_collections.s390x.network.plugins.modules import smc_pnet
from ansible_collections.s390x.network.tests.unit.plugins.module_utils.smc_netlink_fake import FakeSmcKernel

TABLE = [
    ["NETA", "enc8200", None, 255],
    ["NETA", None, "mlx5_0", 1],
    ["NETR", None, "mlx5_1", 2],
    ["NETB", "bond0", None, 255],
]


@pytest.fixture
def kernel(monkeypatch):
    fake = FakeSmcKernel(byteorder=sys.byteorder)
    fake.pnet = [list(e) for e in TABLE]
    monkeypatch.setattr(smc_netlink, "NetlinkSocket", lambda: fake)
    return fake


def no_command(argv):
    raise AssertionError("the netlink backend runs no command: %r" % (argv,))


def run(run_module, args, **kwargs):
    return run_module(smc_pnet.main, dict(args, backend=args.get("backend", "netlink")), no_command, **kwargs)


def table(kernel):
    return sorted(" ".join(str(x) for x in e) for e in kernel.pnet)


def test_merged_over_netlink_is_idempotent(run_module, kernel):
    config = [{"pnet_id": "neta", "interface": "enc8200"}, {"pnet_id": "NETC", "ib_device": "mlx5_3"}]
    out = run(run_module, {"config": config}, diff=True)
    assert not out.failed, out.result
    assert out.result["backend"] == "netlink" and out.result["changed"] is True
    assert out.result["commands"] == ["SMC_PNETID_ADD NETC ibname=mlx5_3 ibport=1"]
    assert ["NETC", None, "mlx5_3", 1] in kernel.pnet
    assert "    NETC: ib_device mlx5_3 port 1\n" in out.result["diff"]["after"]
    again = run(run_module, {"config": config})
    assert again.result["changed"] is False and again.result["commands"] == []


def test_moving_an_interface_rebuilds_its_old_pnet_id(run_module, kernel):
    out = run(run_module, {"config": [{"pnet_id": "NETB", "interface": "enc8200"}]})
    assert not out.failed, out.result
    assert out.result["commands"] == [
        "SMC_PNETID_DEL NETA",
        "SMC_PNETID_ADD NETA ibname=mlx5_0 ibport=1",
        "SMC_PNETID_ADD NETB ethname=enc8200",
    ]
    assert table(kernel) == sorted(
        ["NETA None mlx5_0 1", "NETR None mlx5_1 2", "NETB bond0 None 255", "NETB enc8200 None 255"]
    )


def test_check_mode_only_reads(run_module, kernel):
    out = run(
        run_module, {"state": "overridden", "config": [{"pnet_id": "NETA", "interface": "eth1"}]}, check_mode=True
    )
    assert out.result["changed"] is True and "SMC_PNETID_DEL NETB" in out.result["commands"]
    assert kernel.changes() == [] and table(kernel) == sorted(" ".join(str(x) for x in e) for e in TABLE)


def test_overridden_deleted_and_gathered(run_module, kernel):
    wanted = [{"pnet_id": "NETA", "interface": "enc8200"}, {"pnet_id": "NETR", "ib_device": "mlx5_1", "port": 2}]
    out = run(run_module, {"state": "overridden", "config": wanted})
    assert out.result["after"] == wanted
    gathered = run(run_module, {"state": "gathered"}).result
    assert gathered["gathered"] == wanted and gathered["backend"] == "netlink"
    deleted = run(run_module, {"state": "deleted", "config": [{"pnet_id": "NETR"}]}).result
    assert deleted["after"] == [{"pnet_id": "NETA", "interface": "enc8200"}]
    flushed = run(run_module, {"state": "deleted"}).result
    assert flushed["commands"] == ["SMC_PNETID_FLUSH"] and kernel.pnet == []


def test_a_move_that_fails_half_way_puts_the_old_table_back(run_module, kernel):
    original = kernel._do_smc_pnetid_2

    def refuse_netb(attrs):
        if attrs.get(1, b"").startswith(b"NETB"):
            return errno.EEXIST
        return original(attrs)

    kernel._do_smc_pnetid_2 = refuse_netb
    out = run(run_module, {"config": [{"pnet_id": "NETB", "interface": "enc8200"}]})
    assert out.failed
    assert out.result["rollback"] == {"commands": ["SMC_PNETID_ADD NETA ethname=enc8200"], "ok": True, "errors": []}
    assert table(kernel) == sorted(" ".join(str(x) for x in e) for e in TABLE)
    assert out.result["msg"].startswith("SMC_PNETID_ADD NETB ethname=enc8200 failed: File exists (EEXIST)")
    assert "IOCDS" in out.result["msg"] and out.result["backend"] == "netlink"


def test_auto_takes_smc_pnet_when_installed_and_netlink_otherwise(run_module, kernel):
    def tool(argv):
        assert argv == ["/usr/sbin/smc_pnet"]
        return 0, "NETA enc8200 n/a 255\n", ""

    with_tool = run_module(smc_pnet.main, {"state": "gathered"}, tool).result
    assert with_tool["backend"] == "tool" and kernel.requests == []
    without = run_module(smc_pnet.main, {"state": "gathered"}, no_command, bin_paths={"smc_pnet": None}).result
    assert without["backend"] == "netlink" and len(without["gathered"]) == 4


def test_tool_backend_without_smc_pnet_fails(run_module, kernel):
    out = run_module(smc_pnet.main, {"backend": "tool", "state": "gathered"}, no_command, bin_paths={"smc_pnet": None})
    assert out.failed and "smc_pnet not found: install smc-tools, or use backend netlink" in out.result["msg"]
    assert kernel.requests == []


def test_without_smc_pnet_and_without_smc_the_message_names_both(run_module, monkeypatch):
    monkeypatch.setattr(smc_netlink, "NetlinkSocket", lambda: FakeSmcKernel(loaded=False))
    out = run_module(
        smc_pnet.main, {"config": [{"pnet_id": "NETA", "interface": "eth1"}]}, no_command, bin_paths={"smc_pnet": None}
    )
    assert out.failed
    assert "smc_pnet not found (smc-tools)" in out.result["msg"] and "not loaded" in out.result["msg"]


def test_not_root(run_module, kernel):
    kernel.admin = False
    out = run(run_module, {"config": [{"pnet_id": "NETX", "interface": "eth9"}]})
    assert out.failed and "Operation not permitted (EPERM)" in out.result["msg"]
    assert out.result["rollback"]["commands"] == [] and table(kernel) == sorted(
        " ".join(str(x) for x in e) for e in TABLE
    )


# -- input first: nothing is looked up, opened or read for a list that contradicts itself ---------
class NoLookup(object):
    """``bin_paths`` for the harness: looking up any program is a test failure."""

    def get(self, name, default=None):
        raise AssertionError("%s was looked up before the input was checked" % name)


def _forbidden_host(monkeypatch):
    def no_socket():
        raise AssertionError("a netlink socket was opened before the input was checked")

    monkeypatch.setattr(smc_netlink, "NetlinkSocket", no_socket)


@pytest.mark.parametrize("backend", ["auto", "tool", "netlink"])
@pytest.mark.parametrize(
    "state,config,msg",
    [
        (
            "merged",
            [{"pnet_id": "NETA", "interface": "eth1"}, {"pnet_id": "NETB", "interface": "eth1"}],
            "interface eth1 is listed with two PNET IDs",
        ),
        (
            "merged",
            [{"pnet_id": "NETA", "ib_device": "ism0"}, {"pnet_id": "NETB", "ib_device": "ism0", "port": 1}],
            "ib_device ism0 port 1 is listed with two PNET IDs",
        ),
        (
            "overridden",
            [{"pnet_id": "NETA", "interface": "eth1"}, {"pnet_id": "neta", "interface": "eth1"}],
            "interface eth1 is listed twice",
        ),
        ("merged", [{"pnet_id": "NET_A", "interface": "eth1"}], "1 to 16 characters"),
    ],
)
def test_a_list_that_contradicts_itself_is_refused_before_any_host_access(
    run_module, monkeypatch, backend, state, config, msg
):
    """On a host without smc-tools (and without smc) the user gets the input error, not
    "smc_pnet not found" or "not loaded"; this fails when the host is read first."""
    _forbidden_host(monkeypatch)
    out = run_module(
        smc_pnet.main, {"backend": backend, "state": state, "config": config}, no_command, bin_paths=NoLookup()
    )
    assert out.failed and msg in out.result["msg"], out.result["msg"]
    assert "backend" not in out.result
