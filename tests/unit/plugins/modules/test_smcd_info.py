# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""smcd_info against recorded smcd/smcr output."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import sys

import pytest

from ansible_collections.s390x.network.plugins.module_utils.smc import netlink as smc_netlink
from ansible_collections.s390x.network.plugins.module_utils.smc import stats as smc_stats
from ansible_collections.s390x.network.plugins.modules import smc_stats_reset, smcd_info
from ansible_collections.s390x.network.tests.unit.plugins.module_utils.smc_netlink_fake import FakeSmcKernel

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "smc")


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


class FakeTool(object):
    """smcd/smcr answering from fixtures by the argv it gets; ``-v`` as smc.c ``version()`` does
    (stderr, exit 255) with ``version`` (None: a tool that prints no release)."""

    def __init__(self, outputs, version="1.8.7"):
        self.outputs = outputs
        self.version = version
        self.calls = []

    def __call__(self, argv):
        self.calls.append(argv)
        key = " ".join(argv[1:])
        if key == "-v" and self.version is not None:
            return 255, "", "%s utility, smc-tools-%s\n" % (os.path.basename(argv[0]), self.version)
        if key not in self.outputs:
            return 255, "", "Usage: smcd stats [show | reset]\n"
        return 0, self.outputs[key], ""


def test_study_details_with_json(run_module):
    tool = FakeTool(
        {"stats json": fixture("study_9_3_smcd_stats.json"), "-d stats show": fixture("study_9_3_smcd_d_stats.txt")}
    )
    out = run_module(smcd_info.main, {}, tool)
    assert not out.failed, out.result
    res = out.result
    assert res["changed"] is False and res["source"] == "json+text"
    assert res["commands"] == ["/usr/sbin/smcd -v", "/usr/sbin/smcd stats json", "/usr/sbin/smcd -d stats show"]
    assert res["tool_version"] == "1.8.7"
    conns = res["stats"]["connections"]
    assert (conns["total"], conns["smc"], conns["v2"], conns["tcp_fallback"]) == (51, 51, 51, 0)
    assert res["stats"]["rx"]["buffers"]["64KB"] == 51
    assert res["stats"]["rx"]["request_sizes"]["8KB"] == 358191490


def _keys(value, path=""):
    """Every key path of a nested dict, with whether its value is null."""
    out = set()
    for key, item in value.items():
        if isinstance(item, dict) and key not in ("fallback_reasons", "fallback_reasons_by_role"):
            out |= _keys(item, path + key + ".")
        else:
            out.add((path + key, item is None))
    return out


def test_same_fields_with_and_without_stats_json(run_module):
    """A tool without ``stats json`` (smc-tools before 1.8.4) gives every field, v1/v2 included."""
    text_only = FakeTool({"-d stats show": fixture("study_9_3_smcd_d_stats.txt")})
    old = run_module(smcd_info.main, {}, text_only).result
    new = run_module(
        smcd_info.main,
        {},
        FakeTool(
            {"stats json": fixture("study_9_3_smcd_stats.json"), "-d stats show": fixture("study_9_3_smcd_d_stats.txt")}
        ),
    ).result
    assert old["source"] == "text" and new["source"] == "json+text"
    assert (old["stats"]["connections"]["v1"], old["stats"]["connections"]["v2"]) == (0, 51)
    assert set(k for k, dummy in _keys(old["stats"])) == set(k for k, dummy in _keys(new["stats"]))
    # null only for what that version does not count: buffer usage came with smc-tools 1.8.4
    old_nulls = set(k for k, null in _keys(old["stats"]) if null)
    new_nulls = set(k for k, null in _keys(new["stats"]) if null)
    assert old_nulls - new_nulls == {"rx.buffer_usage", "tx.buffer_usage"}
    assert [c[1:] for c in text_only.calls] == [["-v"], ["stats", "json"], ["-d", "stats", "show"]]


def test_old_tool_without_json_falls_back_to_text(run_module):
    tool = FakeTool({"-d stats show": fixture("smcd_stats_fallback.txt")})
    res = run_module(smcd_info.main, {}, tool).result
    assert res["source"] == "text"
    assert res["stats"]["connections"]["tcp_fallback"] == 43
    assert res["stats"]["rx"]["request_sizes"]["8KB"] == 1200000000


def test_absolute_devices_linkgroups_smcr(run_module):
    tool = FakeTool(
        {
            "-a stats json": fixture("smcr_stats.json"),
            "-da stats show": fixture("smcr_d_stats.txt"),
            "-d device": fixture("smcr_d_device.txt"),
            "-d linkgroup": fixture("smcr_linkgroup.txt"),
        }
    )
    res = run_module(
        smcd_info.main,
        {"protocol": "smcr", "details": True, "absolute": True, "devices": True, "linkgroups": True},
        tool,
        bin_paths={"smcr": "/usr/sbin/smcr"},
    ).result
    assert res["changed"] is False
    assert [c[1:] for c in tool.calls] == [
        ["-a", "stats", "json"],
        ["-da", "stats", "show"],
        ["-d", "device"],
        ["-d", "linkgroup"],
    ]
    assert res["stats"]["protocol"] == "smcr"
    assert res["devices"][0]["ib_dev"] == "mlx5_0" and res["devices"][0]["fid"] == 0x101
    assert res["linkgroups"][0]["role"] == "CLNT"


def test_info_module_has_no_reset(run_module):
    out = run_module(smcd_info.main, {"reset": True}, FakeTool({}))
    assert out.failed and "reset" in out.result["msg"]


def test_failures_are_explained(run_module):
    def not_loaded(argv):
        if argv[1:] == ["-v"]:  # answered before the tool opens netlink
            return 255, "", "smcd utility, smc-tools-1.8.7\n"
        return 1, "", "Error: SMC module not loaded\n"

    out = run_module(smcd_info.main, {}, not_loaded)
    assert out.failed and "smc module loaded" in out.result["msg"]
    out = run_module(smcd_info.main, {}, FakeTool({"-d stats show": "garbage\n"}))
    assert out.failed and "cannot parse" in out.result["msg"]


def test_reset_returns_the_counters_before_the_reset(run_module):
    tool = FakeTool(
        {"stats json": fixture("smcd_stats_fallback.json"), "-d stats reset": fixture("smcd_stats_fallback.txt")}
    )
    res = run_module(smc_stats_reset.main, {}, tool).result
    assert res["changed"] is True
    assert [c[1:] for c in tool.calls] == [["-v"], ["stats", "json"], ["-d", "stats", "reset"]]
    assert res["stats"]["connections"]["tcp_fallback"] == 43


def test_reset_in_check_mode_reads_only(run_module):
    tool = FakeTool(
        {"stats json": fixture("smcd_stats_fallback.json"), "-d stats show": fixture("smcd_stats_fallback.txt")}
    )
    res = run_module(smc_stats_reset.main, {}, tool, check_mode=True).result
    assert all("reset" not in c for c in tool.calls)
    assert res["changed"] is True


def test_reset_of_smcr_fails_with_the_tools_message(run_module):
    def not_loaded(argv):
        if argv[1:] == ["-v"]:  # answered before the tool opens netlink
            return 255, "", "smcd utility, smc-tools-1.8.7\n"
        return 1, "", "Error: SMC module not loaded\n"

    out = run_module(smc_stats_reset.main, {"protocol": "smcr"}, not_loaded, bin_paths={"smcr": "/usr/sbin/smcr"})
    assert out.failed and "smc module loaded" in out.result["msg"]
    assert out.result["commands"][-1] == "/usr/sbin/smcr -d stats reset"


def test_a_kernel_without_smc_is_named_before_any_tool_runs(run_module, host_root):
    release = "7.2.0-1-s390x"
    (host_root / "proc/sys/kernel").mkdir(parents=True)
    (host_root / "proc/sys/kernel/osrelease").write_text(release + "\n")
    tree = host_root / "lib/modules" / release
    tree.mkdir(parents=True)
    (tree / "modules.dep").write_text("kernel/drivers/infiniband/sw/rxe/rdma_rxe.ko.xz:\n")
    (tree / "modules.builtin").write_text("kernel/net/ipv4/tcp_cubic.ko\n")
    tool = FakeTool({})
    out = run_module(smcd_info.main, {"devices": True}, tool)
    assert out.failed and tool.calls == []
    assert out.result["msg"].startswith("SMC not built into this kernel (7.2.0-1-s390x): no net/smc/smc.ko in ")
    assert out.result["kernel_smc"]["available"] is False and out.result["kernel_smc"]["state"] == "not built"


def test_devices_add_the_dibs_view_of_sysfs(run_module, host_root):
    (host_root / "proc/sys/kernel").mkdir(parents=True)
    (host_root / "proc/sys/kernel/osrelease").write_text("7.0.0-15-generic\n")
    (host_root / "sys/module/smc").mkdir(parents=True)
    lo = host_root / "sys/devices/virtual/dibs/lo"
    lo.mkdir(parents=True)
    (lo / "fabric_id").write_text("0xffff\n")
    (lo / "gid").write_text("3f0c2a9e-6d1b-4c8a-9e7f-0a1b2c3d4e5f\n")
    (host_root / "sys/class/dibs").mkdir(parents=True)
    os.symlink(str(lo), str(host_root / "sys/class/dibs/lo"))
    tool = FakeTool(
        {
            "stats json": fixture("study_9_3_smcd_stats.json"),
            "-d stats show": fixture("study_9_3_smcd_d_stats.txt"),
            "device": "FID  Type  PCI-ID        PCHID  InUse  #LGs  PNET-ID\n",
        }
    )
    out = run_module(smcd_info.main, {"devices": True}, tool)
    assert not out.failed, out.result
    assert out.result["kernel_smc"]["state"] == "loaded" and out.result["kernel_smc"]["dibs"] is True
    assert out.result["smcd_devices"]["layout"] == "dibs"
    assert [(d["name"], d["type"], d["fabric_id"]) for d in out.result["smcd_devices"]["devices"]] == [
        ("lo", "loopback", 0xFFFF)
    ]


# -- smc-tools before 1.8.7: the reset baseline is a fixed file in /tmp ------------------------------


class NoNetlink(object):
    """A kernel whose SMC netlink family does not answer; records that it was asked."""

    def __init__(self):
        self.asked = 0

    def __call__(self):
        self.asked += 1
        raise smc_netlink.NetlinkError(2, "generic netlink family SMC_GEN_NETLINK not found")


@pytest.mark.parametrize("version", ["1.8.5", "1.8.6", None])
def test_old_tool_is_not_run_with_its_baseline_auto_falls_back_to_absolute(run_module, monkeypatch, version):
    no_netlink = NoNetlink()
    monkeypatch.setattr(smc_netlink, "NetlinkSocket", no_netlink)
    tool = FakeTool(
        {
            "-a stats json": fixture("smcd_stats_fallback.json"),
            "-da stats show": fixture("smcd_stats_fallback.txt"),
            "device": fixture("smcd_device.txt"),
        },
        version=version,
    )
    out = run_module(smcd_info.main, {"devices": True}, tool)
    assert not out.failed, out.result
    assert no_netlink.asked == 1
    # never a stats run without -a: that one opens /tmp/.smcstats.u<uid>
    assert [c[1:] for c in tool.calls] == [["-v"], ["-a", "stats", "json"], ["-da", "stats", "show"], ["device"]]
    assert out.result["backend"] == "tool" and out.result["tool_version"] == (version or "unknown")
    assert out.result["stats"]["connections"]["tcp_fallback"] == 43 and len(out.result["devices"]) == 3
    assert len(out.result["warnings"]) == 1
    assert "before 1.8.7" in out.result["warnings"][0] and "ran with -a" in out.result["warnings"][0]


def test_old_tool_and_a_kernel_that_answers_reads_through_netlink(run_module, monkeypatch):
    kernel = FakeSmcKernel(byteorder=sys.byteorder)
    monkeypatch.setattr(smc_netlink, "NetlinkSocket", lambda: kernel)
    tool = FakeTool({}, version="1.8.5")
    out = run_module(smcd_info.main, {}, tool)
    assert not out.failed, out.result
    assert [c[1:] for c in tool.calls] == [["-v"]]
    assert out.result["backend"] == "netlink" and out.result["tool_version"] == "1.8.5"
    assert out.result["commands"][0] == "/usr/sbin/smcd -v" and "SMC_NETLINK_GET_STATS" in out.result["commands"]
    assert len(out.result["warnings"]) == 1 and "netlink interface instead" in out.result["warnings"][0]


def test_old_tool_with_backend_tool_fails_naming_the_ways_out(run_module, monkeypatch):
    no_netlink = NoNetlink()
    monkeypatch.setattr(smc_netlink, "NetlinkSocket", no_netlink)
    tool = FakeTool({}, version="1.8.5")
    out = run_module(smcd_info.main, {"backend": "tool"}, tool)
    assert out.failed and no_netlink.asked == 0
    assert [c[1:] for c in tool.calls] == [["-v"]]
    for words in ("smc-tools 1.8.5", "/tmp/.smcstats.u", "absolute=true", "1.8.7 or later"):
        assert words in out.result["msg"]


def test_absolute_needs_no_version_and_runs_with_a(run_module):
    tool = FakeTool(
        {"-a stats json": fixture("smcd_stats_fallback.json"), "-da stats show": fixture("smcd_stats_fallback.txt")},
        version="1.8.5",
    )
    out = run_module(smcd_info.main, {"absolute": True, "backend": "tool"}, tool)
    assert not out.failed and "tool_version" not in out.result
    assert [c[1:] for c in tool.calls] == [["-a", "stats", "json"], ["-da", "stats", "show"]]


@pytest.mark.parametrize("check_mode", [False, True])
@pytest.mark.parametrize("version", ["1.8.5", "1.8.6", None])
def test_reset_with_an_old_tool_is_refused_before_stats_runs(run_module, check_mode, version):
    tool = FakeTool({"stats json": "{}", "-d stats reset": "", "-d stats show": ""}, version=version)
    out = run_module(smc_stats_reset.main, {}, tool, check_mode=check_mode)
    assert out.failed and [c[1:] for c in tool.calls] == [["-v"]]
    assert "/tmp/.smcstats.u" in out.result["msg"] and "1.8.7 or later" in out.result["msg"]
    assert out.result["tool_version"] == (version or "unknown")


@pytest.mark.parametrize(
    "printed, version",
    [
        ("smcd utility, smc-tools-1.8.5\n", (1, 8, 5)),
        ("smcr utility, smc-tools-1.8.7\n", (1, 8, 7)),
        ("smcd utility, smc-tools-1.10\n", (1, 10, 0)),
        ("Usage: smcd [ OPTIONS ] OBJECT\n", None),
        ("", None),
    ],
)
def test_tool_version(printed, version):
    assert smc_stats.parse_tool_version(printed) == version
    assert smc_stats.baseline_is_safe(version) is (version is not None and version >= (1, 8, 7))
