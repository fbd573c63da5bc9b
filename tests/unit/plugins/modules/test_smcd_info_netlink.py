# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""smcd_info with the netlink backend: the same host state read through smc-tools (the recorded
text and JSON fixtures) and through the kernel's netlink replies (the fake kernel, filled with the
same numbers) gives the same stats, devices and link groups."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import sys

import pytest

from ansible_collections.s390x.network.plugins.module_utils.smc import netlink as smc_netlink
from ansible_collections.s390x.network.plugins.modules import smcd_info
from ansible_collections.s390x.network.tests.unit.plugins.modules.test_smcd_info import FakeTool, fixture
from ansible_collections.s390x.network.tests.unit.plugins.module_utils.smc_netlink_fake import (
    FakeSmcKernel,
    tech_from_json,
)

IFNAMES = {3: "ens1", 4: "ens2"}


@pytest.fixture
def kernel(monkeypatch):
    """The fake kernel every SmcNetlink of the test talks to (the host's byte order)."""
    fake = FakeSmcKernel(byteorder=sys.byteorder)
    monkeypatch.setattr(smc_netlink, "NetlinkSocket", lambda: fake)
    monkeypatch.setattr(smc_netlink, "interface_name", IFNAMES.get)
    return fake


def smcd_state(kernel, stats_json, fallback=None, handshake=(0, 0)):
    """The host of the smcd fixtures, as the kernel reports it."""
    counters = json.loads(fixture(stats_json))
    kernel.stats[list(counters)[0].lower()] = tech_from_json(list(counters.values())[0])
    kernel.stats["clnt_hs_err"], kernel.stats["srv_hs_err"] = handshake
    if fallback:
        kernel.fallback = fallback
    # smcd_device.txt
    kernel.dev_smcd = [
        {
            "use_cnt": 1,
            "fid": 0x0605,
            "chid": 0x07C8,
            "device": 0x04ED,
            "pci_id": "0000:00:00.0",
            "pnet_usr": 0,
            "pnetid": "",
        },
        {
            "use_cnt": 0,
            "fid": 0x0606,
            "chid": 0x07C8,
            "device": 0x04ED,
            "pci_id": "0001:00:00.0",
            "pnet_usr": 1,
            "pnetid": "NETA",
        },
        {
            "use_cnt": 12,
            "fid": 0x1234,
            "chid": 0x07C1,
            "device": 0x04ED,
            "pci_id": "0002:00:00.0",
            "pnet_usr": 0,
            "pnetid": "PNETHS01",
        },
    ]
    # smcd_linkgroup.txt and smcd_d_linkgroup.txt
    kernel.lgr_smcd = [
        {
            "id": 0x100,
            "vlan": 0,
            "conns": 51,
            "pnetid": "",
            "v2": {"ver": 2, "rel": 1, "os": 2, "host": "lpar-b", "eid": "SEID-ZLAB"},
            "sndbuf": 835584,
            "dmb": 3342336,
        },
        {"id": 0x200, "vlan": 5, "conns": 3, "pnetid": "NETA", "sndbuf": 49152, "dmb": 196608},
    ]


def smcr_state(kernel):
    """The host of the smcr fixtures."""
    kernel.stats["smcr"] = tech_from_json(json.loads(fixture("smcr_stats.json"))["SMCR"])
    kernel.fallback = {"srv_cnt": 1, "clnt_cnt": 0, "server": [(0x03030002, 1)], "client": []}
    roce = {"device": 0x1016, "vendor": 0x15B3}
    kernel.dev_smcr = [
        dict(
            roce,
            crit=1,
            fid=0x101,
            chid=0x1C4,
            pci_id="0003:00:00.0",
            ib_name="mlx5_0",
            ports={1: _port(0, "NETR", 3, 1, 2)},
        ),
        dict(
            roce,
            crit=0,
            fid=0x102,
            chid=0x1C8,
            pci_id="0004:00:00.0",
            ib_name="mlx5_1",
            ports={1: _port(1, "NETR", 4, 0, 0)},
        ),
        {
            "crit": 0,
            "fid": 0x103,
            "chid": 0x1CC,
            "device": 0x101E,
            "pci_id": "0005:00:00.0",
            "ib_name": "mlx5_2",
            "ports": {2: _port(0, "", 0, 1, 0)},
        },
    ]
    kernel.lgr_smcr = [
        {"id": 0x06000100, "role": 0, "type": 2, "vlan": 0, "conns": 12, "pnetid": "NETR"},
        {"id": 0x06000200, "role": 1, "type": 1, "vlan": 0x1F, "conns": 1, "pnetid": ""},
    ]


def _port(by_user, pnetid, ifindex, state, links):
    return {"pnet_usr": by_user, "pnetid": pnetid, "ifindex": ifindex, "state": state, "links": links}


def both(run_module, kernel, args, outputs, tool_name="smcd"):
    """Run the module with the tool and with netlink; return both results."""
    tool = FakeTool(outputs)
    by_tool = run_module(
        smcd_info.main, dict(args, backend="tool"), tool, bin_paths={tool_name: "/usr/sbin/" + tool_name}
    )
    by_netlink = run_module(
        smcd_info.main, dict(args, backend="netlink"), bin_paths={tool_name: "/usr/sbin/" + tool_name}
    )
    assert not by_tool.failed, by_tool.result
    assert not by_netlink.failed, by_netlink.result
    return by_tool.result, by_netlink.result


def assert_same(by_tool, by_netlink, keys=("stats", "devices", "linkgroups")):
    assert by_tool["backend"] == "tool" and by_netlink["backend"] == "netlink"
    assert by_netlink["source"] == "netlink" and by_tool["source"] == "json+text"
    for key in keys:
        assert by_tool.get(key) == by_netlink.get(key), key


def test_study_counters_devices_and_linkgroups_are_the_same_either_way(run_module, kernel):
    smcd_state(kernel, "study_9_3_smcd_stats.json")
    outputs = {
        "stats json": fixture("study_9_3_smcd_stats.json"),
        "-d stats show": fixture("study_9_3_smcd_d_stats.txt"),
        "device": fixture("smcd_device.txt"),
        "linkgroup": fixture("smcd_linkgroup.txt"),
    }
    by_tool, by_netlink = both(run_module, kernel, {"devices": True, "linkgroups": True}, outputs)
    assert_same(by_tool, by_netlink)
    assert by_netlink["stats"]["connections"]["total"] == 51 and by_netlink["stats"]["rx"]["buffers"]["64KB"] == 51
    assert by_netlink["commands"] == [
        "SMC_NETLINK_GET_STATS",
        "SMC_NETLINK_GET_FBACK_STATS",
        "SMC_NETLINK_GET_DEV_SMCD",
        "SMC_NETLINK_GET_LGR_SMCD",
    ]


def test_details_of_link_groups_are_the_same_either_way(run_module, kernel):
    smcd_state(kernel, "study_9_3_smcd_stats.json")
    outputs = {
        "stats json": fixture("study_9_3_smcd_stats.json"),
        "-d stats show": fixture("study_9_3_smcd_d_stats.txt"),
        "-d device": fixture("smcd_device.txt"),
        "-d linkgroup": fixture("smcd_d_linkgroup.txt"),
    }
    by_tool, by_netlink = both(run_module, kernel, {"details": True, "devices": True, "linkgroups": True}, outputs)
    assert_same(by_tool, by_netlink)
    assert by_netlink["linkgroups"][0]["peer_host"] == "lpar-b" and by_netlink["linkgroups"][0]["dmb"] == 3342336


def test_fallbacks_and_handshake_errors_are_the_same_either_way(run_module, kernel):
    fallback = {
        "srv_cnt": 31,
        "clnt_cnt": 12,
        "server": [(0x03030000, 19), (0x03010000, 9), (0x03070000, 2)],
        "client": [(0x03010000, 7), (0x03030001, 5)],
    }
    smcd_state(kernel, "smcd_stats_fallback.json", fallback, handshake=(1, 2))
    outputs = {"stats json": fixture("smcd_stats_fallback.json"), "-d stats show": fixture("smcd_d_stats_fallback.txt")}
    by_tool, by_netlink = both(run_module, kernel, {}, outputs)
    assert_same(by_tool, by_netlink, keys=("stats",))
    conns = by_netlink["stats"]["connections"]
    assert (conns["total"], conns["handshake_errors_server"], conns["tcp_fallback_server"]) == (3025, 2, 31)
    assert conns["fallback_reasons"] == {"NOSMCDEV": 19, "PEER_NO_SMC": 16, "DIFFPREFIX": 2, "NOSMCDDEV": 5}


@pytest.mark.parametrize("details,devices", [(True, "smcr_d_device.txt"), (False, "smcr_device.txt")])
def test_smcr_is_the_same_either_way(run_module, kernel, details, devices):
    smcr_state(kernel)
    option = ["-d"] if details else []
    outputs = {
        "stats json": fixture("smcr_stats.json"),
        "-d stats show": fixture("smcr_d_stats.txt"),
        " ".join(option + ["device"]): fixture(devices),
        "linkgroup": fixture("smcr_linkgroup.txt"),
    }
    args = {"protocol": "smcr", "details": details, "devices": True}
    by_tool, by_netlink = both(run_module, kernel, args, outputs, "smcr")
    assert_same(by_tool, by_netlink)
    # table form of the link groups (the details of SMC-R have no fixture)
    by_tool, by_netlink = both(run_module, kernel, {"protocol": "smcr", "linkgroups": True}, outputs, "smcr")
    assert_same(by_tool, by_netlink)
    assert [g["type"] for g in by_netlink["linkgroups"]] == ["SYM", "SINGLE"]


def test_more_than_three_fallback_reasons_come_through_netlink(run_module, kernel):
    kernel.fallback = {
        "srv_cnt": 10,
        "clnt_cnt": 0,
        "server": [(0x03030000, 4), (0x03010000, 3), (0x03070000, 2), (0x03020000, 1)],
        "client": [],
    }
    result = run_module(smcd_info.main, {"backend": "netlink"}).result
    assert result["stats"]["connections"]["fallback_reasons_by_role"]["server"] == {
        "NOSMCDEV": 4,
        "PEER_NO_SMC": 3,
        "DIFFPREFIX": 2,
        "IPSEC": 1,
    }


def test_auto_takes_the_tool_when_installed_and_netlink_otherwise(run_module, kernel):
    smcd_state(kernel, "study_9_3_smcd_stats.json")
    tool = FakeTool(
        {"stats json": fixture("study_9_3_smcd_stats.json"), "-d stats show": fixture("study_9_3_smcd_d_stats.txt")}
    )
    with_tool = run_module(smcd_info.main, {}, tool).result
    assert with_tool["backend"] == "tool" and kernel.requests == []
    without = run_module(smcd_info.main, {}, bin_paths={"smcd": None}).result
    assert without["backend"] == "netlink" and without["stats"] == with_tool["stats"]


def test_tool_backend_without_the_tool_fails(run_module, kernel):
    out = run_module(smcd_info.main, {"backend": "tool"}, bin_paths={"smcd": None})
    assert out.failed and "smcd not found" in out.result["msg"]
    assert kernel.requests == []


def test_without_tool_and_without_smc_the_message_names_both(run_module, monkeypatch):
    monkeypatch.setattr(smc_netlink, "NetlinkSocket", lambda: FakeSmcKernel(loaded=False))
    out = run_module(smcd_info.main, {}, bin_paths={"smcd": None})
    assert out.failed and out.result["backend"] == "netlink"
    assert "smcd not found (smc-tools)" in out.result["msg"]
    assert "smc kernel module is not loaded" in out.result["msg"]
    out = run_module(smcd_info.main, {"backend": "netlink"})
    assert out.failed and out.result["msg"].startswith("generic netlink family SMC_GEN_NETLINK not found")


def test_no_netlink_socket_at_all(run_module, monkeypatch):
    def refuse():
        raise smc_netlink.NetlinkError(97, "this system has no netlink sockets (Linux only)")

    monkeypatch.setattr(smc_netlink, "NetlinkSocket", refuse)
    out = run_module(smcd_info.main, {"backend": "netlink"})
    assert out.failed and "no netlink sockets" in out.result["msg"] and out.result["commands"] == []


def test_an_smc_tools_reset_baseline_is_warned_about(run_module, kernel, host_root):
    (host_root / "tmp").mkdir()
    result = run_module(smcd_info.main, {"backend": "netlink"}).result
    assert result["warnings"] == []
    (host_root / "tmp" / (".smcstats.u%d" % os.getuid())).write_text("0 0\n")
    result = run_module(smcd_info.main, {"backend": "netlink"}).result
    assert len(result["warnings"]) == 1 and "since the smc module was loaded" in result["warnings"][0]
    assert run_module(smcd_info.main, {"backend": "netlink", "absolute": True}).result["warnings"] == []


def test_a_kernel_without_fallback_statistics(run_module, kernel):
    kernel.errors[("SMC_GEN_NETLINK", 8)] = 95  # EOPNOTSUPP
    out = run_module(smcd_info.main, {"backend": "netlink"})
    assert out.failed and "SMC_NETLINK_GET_FBACK_STATS failed" in out.result["msg"]
    assert out.result["commands"] == ["SMC_NETLINK_GET_STATS", "SMC_NETLINK_GET_FBACK_STATS"]
    assert kernel.closed
