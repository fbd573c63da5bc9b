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
    """The netlink backend (``auto`` would take the smcd that run_module's lookup finds)."""
    return run_module(smc_ueid.main, dict(args, backend=args.get("backend", "netlink")), **kwargs)


LAST_REMOVED = "Info: the System EID was activated because the last User EID was removed\n"


def smcd(kernel, version=(1, 8, 5)):
    """``smcd ueid``/``smcd seid`` as smc-tools ueid.c and seid.c print them, over the fake kernel."""
    client = smc_netlink.SmcNetlink(kernel, sys.byteorder)
    ran = []

    def run_command(argv):
        ran.append(argv[1:])
        assert argv[0] == "/usr/sbin/smcd", argv
        if version < (1, 7, 0):
            return 1, "", 'Error: Object "%s" is unknown, try "smcd help".\n' % argv[1]
        command = tuple(argv[1:3])
        try:
            if command == ("ueid", "show"):
                return 0, "".join(u.ljust(32) + "\n" for u in client.ueids()), ""
            if command == ("seid", "show"):
                seid = client.seid()
                if seid["seid"] is None:
                    return 0, "n/a\n", ""
                return 0, "%s [%s]\n" % (seid["seid"], "enabled" if seid["enabled"] else "disabled"), ""
            if command == ("ueid", "add"):
                client.add_ueid(argv[3])
            elif command == ("ueid", "del"):
                if client.remove_ueid(argv[3]):
                    return 1, "", LAST_REMOVED  # smc-tools exits 1 on the kernel's EAGAIN
            elif command == ("ueid", "flush"):
                client.flush_ueids()
            elif command == ("seid", "enable"):
                client.enable_seid()
            elif command == ("seid", "disable"):
                client.disable_seid()
            else:
                raise AssertionError(argv)
        except smc_netlink.NetlinkError as exc:
            return 1, "", "Error: %s\n" % exc
        return 0, "", ""

    run_command.ran = ran
    return run_command


def test_merged_adds_and_a_second_run_changes_nothing(run_module, kernel):
    out = run(run_module, {"config": ["PLEX1.PROD", "PLEX1.TEST  "]}, diff=True)
    assert not out.failed, out.result
    result = out.result
    assert result["changed"] is True
    assert result["commands"] == ["SMC_NETLINK_ADD_UEID PLEX1.PROD", "SMC_NETLINK_ADD_UEID PLEX1.TEST"]
    assert (result["before"], result["after"]) == ([], ["PLEX1.PROD", "PLEX1.TEST"])
    assert result["seid"] == {"system_eid": SEID, "enabled": True}
    assert result["drift"] == [
        {"kind": "ueid", "object": "ueid table", "scope": "active", "difference": "ueids none -> PLEX1.PROD,PLEX1.TEST"}
    ]
    assert result["diff"]["after"] == (
        "ueid table\n  active:\n    ueids: PLEX1.PROD,PLEX1.TEST\n    system_eid: %s\n    seid: enabled\n" % SEID
    )
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
    assert out["drift"][0]["difference"] == "ueids U1,U2 -> none, seid disabled -> enabled"


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


def test_smc_not_loaded(run_module, monkeypatch, tmp_path):
    monkeypatch.setattr(smc_netlink, "SYS_MODULE_SMC", str(tmp_path / "absent"))
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


# -- the smcd backend (smc-tools 1.7.0 and later) ----------------------------------------------------
def test_auto_takes_smcd_and_reads_and_changes_through_it(run_module, kernel):
    tool = smcd(kernel)
    out = run_module(smc_ueid.main, {"config": ["PLEX1.PROD", "PLEX1.TEST"]}, tool).result
    assert out["backend"] == "tool" and out["changed"] is True
    assert out["commands"] == ["smcd ueid add PLEX1.PROD", "smcd ueid add PLEX1.TEST"]
    assert out["drift"] == [
        {"kind": "ueid", "object": "ueid table", "scope": "active", "difference": "ueids none -> PLEX1.PROD,PLEX1.TEST"}
    ]
    assert kernel.ueids == padded("PLEX1.PROD", "PLEX1.TEST") and out["seid"] == {"system_eid": SEID, "enabled": True}
    again = run_module(smc_ueid.main, {"config": ["PLEX1.TEST"]}, tool).result
    assert again["changed"] is False and again["commands"] == [] and again["backend"] == "tool"
    gathered = run_module(smc_ueid.main, {"state": "gathered"}, tool).result
    assert gathered["gathered"] == ["PLEX1.PROD", "PLEX1.TEST"] and gathered["backend"] == "tool"
    assert ["ueid", "show"] in tool.ran and ["seid", "show"] in tool.ran


def test_smcd_removing_the_last_ueid_exits_1_and_is_a_success(run_module, kernel):
    kernel.ueids = padded("U1", "U2")
    kernel.seid_enabled = 0
    tool = smcd(kernel)
    out = run_module(smc_ueid.main, {"state": "deleted", "config": ["U1", "U2"]}, tool)
    assert not out.failed, out.result
    assert out.result["commands"] == ["smcd ueid del U1", "smcd ueid del U2"]
    assert kernel.ueids == [] and kernel.seid_enabled == 1 and out.result["seid"]["enabled"] is True


def test_smcd_check_mode_and_seid(run_module, kernel):
    kernel.ueids = padded("OLD")
    tool = smcd(kernel)
    args = {"state": "overridden", "config": ["NEW"], "seid": "disabled"}
    out = run_module(smc_ueid.main, args, tool, check_mode=True).result
    assert out["commands"] == ["smcd ueid add NEW", "smcd ueid del OLD", "smcd seid disable"]
    assert kernel.changes() == [] and all(r[1] == "show" for r in tool.ran)
    out = run_module(smc_ueid.main, args, tool).result
    assert kernel.ueids == padded("NEW") and kernel.seid_enabled == 0 and out["seid"]["enabled"] is False


def test_smcd_refusal_is_the_tool_message(run_module, kernel):
    kernel.ueids = padded("U1", "U2", "U3")
    kernel._do_smc_gen_netlink_10 = lambda attrs: errno.ERANGE
    out = run_module(smc_ueid.main, {"config": ["U9"]}, smcd(kernel))
    assert out.failed and out.result["msg"].startswith("smcd ueid add U9 failed")
    assert "ERANGE" in out.result["msg"] and kernel.ueids == padded("U1", "U2", "U3")


def test_smcd_before_1_7_falls_back_to_netlink_under_auto(run_module, kernel):
    old = smcd(kernel, version=(1, 6, 0))
    out = run_module(smc_ueid.main, {"config": ["U1"]}, old).result
    assert (
        out["backend"] == "netlink" and out["commands"] == ["SMC_NETLINK_ADD_UEID U1"] and kernel.ueids == padded("U1")
    )
    forced = run_module(smc_ueid.main, {"config": ["U1"], "backend": "tool"}, old)
    assert forced.failed and "this smcd has no ueid object (smc-tools before 1.7.0)" in forced.result["msg"]


def test_tool_backend_without_smcd_fails_and_auto_takes_netlink(run_module, kernel):
    out = run_module(smc_ueid.main, {"config": ["U1"], "backend": "tool"}, bin_paths={"smcd": None})
    assert out.failed and "smcd not found: install smc-tools" in out.result["msg"] and kernel.requests == []
    auto = run_module(smc_ueid.main, {"config": ["U1"]}, bin_paths={"smcd": None}).result
    assert auto["backend"] == "netlink" and kernel.ueids == padded("U1")


def test_smcd_on_a_kernel_whose_loaded_smc_lacks_the_family(run_module, monkeypatch, tmp_path):
    """smc-tools says "SMC module not loaded" when the family is missing; with /sys/module/smc
    there, the module adds what is really wrong instead of leaving the advice to load it."""
    (tmp_path / "smc").mkdir()
    monkeypatch.setattr(smc_netlink, "SYS_MODULE_SMC", str(tmp_path / "smc"))

    def tool(argv):
        return 1, "", "Error: SMC module not loaded\n"

    out = run_module(smc_ueid.main, {"config": ["U1"]}, tool)
    assert out.failed and "the smc module is loaded" in out.result["msg"]
    assert "lacks the generic netlink family SMC_GEN_NETLINK" in out.result["msg"]
