# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""smc_ueid against the fake kernel's SMC_GEN_NETLINK UEID and SEID commands (the rules of
net/smc/smc_clc.c: 4 UEIDs at most, the system EID offered again when the last UEID goes and
disabled only while a UEID exists)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import sys

import pytest

from ansible_collections.s390x.network.plugins.module_utils.smc import netlink as smc_netlink
from ansible_collections.s390x.network.plugins.module_utils.smc.ueid_resource import plan_operations
from ansible_collections.s390x.network.plugins.modules import smc_ueid
from ansible_collections.s390x.network.tests.unit.plugins.module_utils.smc_netlink_fake import FakeSmcKernel

SEID = "IBM-SYSZ-ISMSEID00000000C0DE8561"


def padded(*ueids):
    return [u.encode().ljust(32) for u in ueids]


@pytest.fixture
def kernel(monkeypatch):
    fake = FakeSmcKernel(byteorder=sys.byteorder)
    monkeypatch.setattr(smc_netlink, "NetlinkSocket", lambda: fake)
    return fake


def run(run_module, args, **kwargs):
    return run_module(smc_ueid.main, args, **kwargs)


def test_merged_adds_and_a_second_run_changes_nothing(run_module, kernel):
    out = run(run_module, {"config": ["PLEX1.PROD", "PLEX1.TEST  "]}, diff=True)
    assert not out.failed, out.result
    result = out.result
    assert result["changed"] is True
    assert result["commands"] == ["SMC_NETLINK_ADD_UEID PLEX1.PROD", "SMC_NETLINK_ADD_UEID PLEX1.TEST"]
    assert (result["before"], result["after"]) == ([], ["PLEX1.PROD", "PLEX1.TEST"])
    assert result["seid"] == {"system_eid": SEID, "enabled": True}
    assert result["drift"] == [
        {"object": "smc_ueid", "scope": "active", "difference": "UEID PLEX1.PROD missing, UEID PLEX1.TEST missing"}
    ]
    assert result["diff"]["after"] == "ueid PLEX1.PROD\nueid PLEX1.TEST\nseid %s enabled\n" % SEID
    assert kernel.ueids == padded("PLEX1.PROD", "PLEX1.TEST") and kernel.closed
    again = run(run_module, {"config": ["PLEX1.TEST"]}).result
    assert again["changed"] is False and again["commands"] == [] and again["drift"] == []


def test_check_mode_sends_nothing(run_module, kernel):
    kernel.ueids = padded("OLD")
    out = run(run_module, {"state": "overridden", "config": ["NEW"], "seid": "disabled"}, check_mode=True)
    assert out.result["changed"] is True
    assert out.result["commands"] == [
        "SMC_NETLINK_ADD_UEID NEW",
        "SMC_NETLINK_REMOVE_UEID OLD",
        "SMC_NETLINK_DISABLE_SEID",
    ]
    assert out.result["after"] == ["NEW"] and out.result["seid"]["enabled"] is False
    assert kernel.changes() == [] and kernel.ueids == padded("OLD") and kernel.seid_enabled == 1


def test_replacing_a_full_table_never_empties_it(run_module, kernel):
    """4 old, 4 new: removes first (the kernel holds 4), but one old stays until a new one is in,
    so the disabled system EID is not switched on behind the user's back."""
    kernel.ueids = padded("A1", "A2", "A3", "A4")
    kernel.seid_enabled = 0
    out = run(run_module, {"state": "overridden", "config": ["B1", "B2", "B3", "B4"]})
    assert not out.failed, out.result
    assert out.result["commands"] == [
        "SMC_NETLINK_REMOVE_UEID A1",
        "SMC_NETLINK_REMOVE_UEID A2",
        "SMC_NETLINK_REMOVE_UEID A3",
        "SMC_NETLINK_ADD_UEID B1",
        "SMC_NETLINK_REMOVE_UEID A4",
        "SMC_NETLINK_ADD_UEID B2",
        "SMC_NETLINK_ADD_UEID B3",
        "SMC_NETLINK_ADD_UEID B4",
    ]
    assert kernel.ueids == padded("B1", "B2", "B3", "B4") and kernel.seid_enabled == 0
    assert out.result["seid"]["enabled"] is False


def test_deleting_the_last_ueid_offers_the_system_eid_again(run_module, kernel):
    kernel.ueids = padded("U1", "U2")
    kernel.seid_enabled = 0
    out = run(run_module, {"state": "deleted", "config": ["U1", "U2"]}).result
    assert out["commands"] == ["SMC_NETLINK_REMOVE_UEID U1", "SMC_NETLINK_REMOVE_UEID U2"]  # the last one: EAGAIN
    assert out["after"] == [] and out["seid"]["enabled"] is True and kernel.seid_enabled == 1
    assert out["drift"][0]["difference"] == "UEID U1 to remove, UEID U2 to remove, system EID disabled, wanted enabled"


def test_deleted_without_config_flushes(run_module, kernel):
    kernel.ueids = padded("U1", "U2")
    out = run(run_module, {"state": "deleted"}).result
    assert out["commands"] == ["SMC_NETLINK_FLUSH_UEID"] and kernel.ueids == []
    assert run(run_module, {"state": "deleted"}).result["changed"] is False


def test_gathered(run_module, kernel):
    kernel.ueids = padded("U2", "U1")
    out = run(run_module, {"state": "gathered"}).result
    assert out["gathered"] == ["U2", "U1"] and out["changed"] is False and kernel.changes() == []


def test_seid_enabled_again(run_module, kernel):
    kernel.ueids = padded("U1")
    kernel.seid_enabled = 0
    out = run(run_module, {"config": ["U1"], "seid": "enabled"}).result
    assert out["commands"] == ["SMC_NETLINK_ENABLE_SEID"] and kernel.seid_enabled == 1


@pytest.mark.parametrize(
    "args,msg",
    [
        ({"config": ["plex1"]}, "config[0]: 'plex1' has lower case letters; the kernel takes upper case only (PLEX1)"),
        ({"config": ["A", "A "]}, "config[1]: A is listed twice"),
        ({"config": [".A"]}, "first character must be A-Z or 0-9"),
        ({"config": ["A" * 33]}, "at most 32"),
        ({"state": "overridden", "config": ["A", "B", "C", "D", "E"]}, "5 UEIDs; the kernel holds at most 4"),
        ({"state": "overridden", "config": [], "seid": "disabled"}, "seid: disabled needs at least one UEID"),
        ({"state": "deleted", "seid": "disabled"}, "seid: disabled needs at least one UEID"),
        ({"config": ["PLEX1\n"]}, "config[0]: 'PLEX1\\n': the first character must be A-Z or 0-9"),
        ({"config": ["A", "PLEX1\tX"]}, "config[1]: 'PLEX1\\tX': the first character"),
        ({"config": ["PLEX\rB"]}, "config[0]: 'PLEX\\rB'"),
        ({"config": ["PL\x00EX"]}, "config[0]: 'PL\\x00EX'"),
        ({"config": ["$(ID)"]}, "config[0]: '$(ID)'"),
        ({"config": ["A;B"]}, "config[0]: 'A;B'"),
        ({"config": ["%N"]}, "config[0]: '%N'"),
        ({"config": ["-A"]}, "config[0]: '-A'"),
        ({"config": ["../A"]}, "config[0]: '../A'"),
        ({"config": ['A"B']}, "config[0]: 'A\"B'"),
    ],
)
def test_bad_input_is_refused_before_the_kernel_is_asked(run_module, monkeypatch, args, msg):
    def no_socket():
        raise AssertionError("a netlink socket was opened before the input was checked")

    monkeypatch.setattr(smc_netlink, "NetlinkSocket", no_socket)
    out = run(run_module, args)
    assert out.failed and msg in out.result["msg"], out.result["msg"]


def test_a_table_the_host_would_overfill_is_refused_before_any_change(run_module, kernel):
    kernel.ueids = padded("U1", "U2", "U3")
    out = run(run_module, {"config": ["U4", "U5"]})
    assert out.failed and "the table would hold 5 UEIDs (U1, U2, U3, U4, U5)" in out.result["msg"]
    assert kernel.changes() == []


def test_seid_on_a_host_without_system_eid(run_module, kernel):
    kernel.seid = None
    out = run(run_module, {"config": ["U1"], "seid": "disabled"})
    assert out.failed and "no system EID" in out.result["msg"] and kernel.changes() == []
    out = run(run_module, {"config": ["U1"]}).result
    assert out["changed"] is True and out["seid"] == {"system_eid": None, "enabled": None}


def test_a_failure_half_way_puts_the_old_table_back(run_module, kernel):
    kernel.ueids = padded("A1")
    original = kernel._do_smc_gen_netlink_10

    def refuse_b2(attrs):
        if attrs.get(1, b"").startswith(b"B2 "):
            return errno.ENOMEM
        return original(attrs)

    kernel._do_smc_gen_netlink_10 = refuse_b2
    out = run(run_module, {"state": "overridden", "config": ["B1", "B2"]})
    assert out.failed
    assert out.result["msg"].startswith("SMC_NETLINK_ADD_UEID B2 failed: Cannot allocate memory (ENOMEM)")
    assert out.result["commands"] == [
        "SMC_NETLINK_ADD_UEID B1",
        "SMC_NETLINK_REMOVE_UEID A1",
        "SMC_NETLINK_ADD_UEID B2",
    ]
    assert out.result["rollback"] == {
        "commands": ["SMC_NETLINK_ADD_UEID A1", "SMC_NETLINK_REMOVE_UEID B1"],
        "ok": True,
        "errors": [],
    }
    assert kernel.ueids == padded("A1") and out.result["after"] == ["A1"]
    assert "previous UEID table restored" in out.result["msg"]


def test_smc_not_loaded(run_module, monkeypatch):
    monkeypatch.setattr(smc_netlink, "NetlinkSocket", lambda: FakeSmcKernel(loaded=False))
    out = run(run_module, {"config": ["U1"]})
    assert out.failed and "smc kernel module is not loaded" in out.result["msg"]


def test_not_root(run_module, kernel):
    kernel.admin = False
    out = run(run_module, {"config": ["U1"]})
    assert out.failed and "Operation not permitted (EPERM)" in out.result["msg"] and kernel.ueids == []


@pytest.mark.parametrize(
    "state,config,current,enabled,want,operations,target,after",
    [
        ("merged", ["B"], ["A"], True, None, [("add", "B")], ["A", "B"], True),
        ("overridden", ["B"], ["A"], False, None, [("add", "B"), ("remove", "A")], ["B"], False),
        ("overridden", [], ["A"], False, None, [("remove", "A")], [], True),
        ("deleted", [], [], True, None, [], [], True),
        ("deleted", ["A"], ["A", "B"], False, "enabled", [("remove", "A"), ("enable_seid",)], ["B"], True),
        ("merged", ["A"], [], True, "disabled", [("add", "A"), ("disable_seid",)], ["A"], False),
        ("merged", [], ["A"], None, None, [], ["A"], None),
    ],
)
def test_plan(state, config, current, enabled, want, operations, target, after):
    assert plan_operations(state, config, current, enabled, want) == (operations, target, after)
