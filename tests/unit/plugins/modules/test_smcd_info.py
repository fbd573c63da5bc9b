# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""smcd_info against recorded smcd/smcr output."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

from ansible_collections.s390x.network.plugins.modules import smcd_info

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "smc")


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


class FakeTool(object):
    """smcd/smcr answering from fixtures by the argv it gets."""

    def __init__(self, outputs):
        self.outputs = outputs
        self.calls = []

    def __call__(self, argv):
        self.calls.append(argv)
        key = " ".join(argv[1:])
        if key not in self.outputs:
            return 255, "", "Usage: smcd stats [show | reset]\n"
        return 0, self.outputs[key], ""


def test_study_details_with_json(run_module):
    tool = FakeTool(
        {"stats json": fixture("study_9_3_smcd_stats.json"), "-d stats show": fixture("study_9_3_smcd_d_stats.txt")}
    )
    out = run_module(smcd_info.main, {"details": True}, tool)
    assert not out.failed, out.result
    res = out.result
    assert res["changed"] is False and res["source"] == "json+text"
    assert res["commands"] == ["/usr/sbin/smcd stats json", "/usr/sbin/smcd -d stats show"]
    conns = res["stats"]["connections"]
    assert (conns["total"], conns["smc"], conns["v2"], conns["tcp_fallback"]) == (51, 51, 51, 0)
    assert res["stats"]["rx"]["buffers"]["64KB"] == 51
    assert res["stats"]["rx"]["request_sizes"]["8KB"] == 358191490


def test_old_tool_without_json_falls_back_to_text(run_module):
    tool = FakeTool({"stats show": fixture("smcd_stats_fallback.txt")})
    res = run_module(smcd_info.main, {}, tool).result
    assert res["source"] == "text"
    assert res["stats"]["connections"]["tcp_fallback"] == 43
    assert res["stats"]["rx"]["request_sizes"]["8KB"] == 1200000000


def test_reset_absolute_devices_linkgroups_smcr(run_module):
    tool = FakeTool(
        {
            "-a stats json": fixture("smcr_stats.json"),
            "-da stats reset": fixture("smcr_d_stats.txt"),
            "-d device": fixture("smcr_d_device.txt"),
            "-d linkgroup": fixture("smcr_linkgroup.txt"),
        }
    )
    res = run_module(
        smcd_info.main,
        {"protocol": "smcr", "details": True, "absolute": True, "reset": True, "devices": True, "linkgroups": True},
        tool,
        bin_paths={"smcr": "/usr/sbin/smcr"},
    ).result
    assert res["changed"] is True
    assert [c[1:] for c in tool.calls] == [
        ["-a", "stats", "json"],
        ["-da", "stats", "reset"],
        ["-d", "device"],
        ["-d", "linkgroup"],
    ]
    assert res["stats"]["protocol"] == "smcr"
    assert res["devices"][0]["ib_dev"] == "mlx5_0" and res["devices"][0]["fid"] == 0x101
    assert res["linkgroups"][0]["role"] == "CLNT"


def test_check_mode_does_not_reset(run_module):
    tool = FakeTool(
        {"stats json": fixture("smcd_stats_fallback.json"), "stats show": fixture("smcd_stats_fallback.txt")}
    )
    res = run_module(smcd_info.main, {"reset": True}, tool, check_mode=True).result
    assert all("reset" not in c for c in tool.calls)
    assert res["changed"] is True


def test_failures_are_explained(run_module):
    def not_loaded(argv):
        return 1, "", "Error: SMC module not loaded\n"

    out = run_module(smcd_info.main, {}, not_loaded)
    assert out.failed and "smc module loaded" in out.result["msg"]
    out = run_module(smcd_info.main, {}, FakeTool({"stats show": "garbage\n"}))
    assert out.failed and "cannot parse" in out.result["msg"]
