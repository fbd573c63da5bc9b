# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Parsers of smcd/smcr stats (text and json), device and linkgroup output."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest

from ansible_collections.s390x.network.plugins.module_utils.smc.stats import (
    BUCKETS,
    StatsError,
    argv_devices,
    argv_linkgroups,
    argv_stats,
    argv_stats_json,
    expand,
    merge_json,
    parse_devices_smcd,
    printable,
    parse_devices_smcr,
    parse_linkgroups,
    parse_stats_json,
    parse_stats_text,
)

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "smc")


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


@pytest.mark.parametrize(
    "cell,value",
    [
        ("0", 0),
        ("51", 51),
        ("999", 999),
        ("358.2M", 358200000),
        ("1.234K", 1234),
        ("2.900K", 2900),
        ("30.00M", 30000000),
        ("71.64G", 71640000000),
        ("1.5T", 1500000000000),
        ("500.0K", 500000),
        ("", None),
        ("n/a", None),
        ("1.2X", None),
    ],
)
def test_expand_abbreviations(cell, value):
    assert expand(cell) == value


def test_argv_forms_follow_the_tool_option_rules():
    # smcd takes one option word; separate -d -a would let the last one win.
    assert argv_stats("smcd") == ["smcd", "stats", "show"]
    assert argv_stats("smcd", details=True) == ["smcd", "-d", "stats", "show"]
    assert argv_stats("smcr", details=True, absolute=True, reset=True) == ["smcr", "-da", "stats", "reset"]
    assert argv_stats("smcd", absolute=True) == ["smcd", "-a", "stats", "show"]
    assert argv_stats_json("smcd", absolute=True) == ["smcd", "-a", "stats", "json"]
    assert argv_devices("smcr", details=True) == ["smcr", "-d", "device"]
    assert argv_linkgroups("smcd") == ["smcd", "linkgroup"]


def test_study_appendix_9_3_details():
    stats = parse_stats_text(fixture("study_9_3_smcd_d_stats.txt"))
    conns = stats["connections"]
    assert stats["protocol"] == "smcd"
    assert conns["total"] == 51
    assert (conns["smc"], conns["smc_client"], conns["smc_server"]) == (51, 51, 0)
    assert (conns["v1"], conns["v2"]) == (0, 51)
    assert conns["handshake_errors"] == 0
    assert conns["tcp_fallback"] == 0
    assert conns["fallback_reasons"] == {}
    assert conns["avg_requests_per_conn"] == 14046725.0
    rx, tx = stats["rx"], stats["tx"]
    assert rx["bytes"] == 358191451596
    assert rx["requests"] == 358191491
    assert rx["buffer_full"] == 0 and rx["buffer_full_pct"] == 0.0
    assert rx["buffer_reuses"] == 51 and rx["buffer_downgrades"] == 0
    assert rx["buffer_usage"] is None  # smc-tools of the study had no such line
    assert rx["buffers"] == {
        "8KB": 0,
        "16KB": 0,
        "32KB": 0,
        "64KB": 51,
        "128KB": 0,
        "256KB": 0,
        "512KB": 0,
        ">512KB": 0,
    }
    assert rx["request_sizes"]["8KB"] == 358200000
    assert tx["bytes"] == 71638302336
    assert tx["buffers"]["16KB"] == 51
    assert tx["buffer_full_remote"] == 0 and tx["buffer_too_small_remote_pct"] == 0.0
    assert list(tx["request_sizes"]) == list(BUCKETS)
    assert stats["extras"] == {
        "special_socket_calls": 50,
        "cork": 0,
        "nodelay": 50,
        "sendpage": 0,
        "splice": 0,
        "urgent_data": 0,
    }


def test_study_appendix_json_refines_abbreviations():
    stats = parse_stats_text(fixture("study_9_3_smcd_d_stats.txt"))
    proto, counters = parse_stats_json(fixture("study_9_3_smcd_stats.json"))
    assert proto == "smcd" and len(counters) == 65
    merge_json(stats, counters)
    assert stats["rx"]["request_sizes"]["8KB"] == 358191490
    assert stats["rx"]["request_sizes"]["16KB"] == 1
    assert stats["tx"]["request_sizes"]["8KB"] == 358191501
    # float in smc-tools rounds to 14046725.0; the exact counters give the real average
    assert stats["connections"]["avg_requests_per_conn"] == 14046725.3
    assert stats["connections"]["total"] == 51


def test_without_details_fields_stay_unknown():
    stats = parse_stats_text(fixture("smcd_stats_fallback.txt"))
    conns = stats["connections"]
    assert conns["total"] == 3025 and conns["smc"] == 2979
    assert conns["handshake_errors"] == 3 and conns["tcp_fallback"] == 43
    assert conns["v1"] is None and conns["v2"] is None and conns["smc_client"] is None
    assert conns["fallback_reasons"] is None
    assert stats["rx"]["buffer_downgrades"] is None
    assert stats["rx"]["buffer_usage"] == 196608
    assert stats["rx"]["buffers"]["64KB"] == 2900
    assert stats["rx"]["request_sizes"]["8KB"] == 1200000000
    assert stats["rx"]["request_sizes"][">512KB"] == 890
    assert stats["extras"]["special_socket_calls"] == 2995 and stats["extras"]["cork"] is None


def test_details_fallback_reasons_per_role():
    stats = parse_stats_text(fixture("smcd_d_stats_fallback.txt"))
    conns = stats["connections"]
    assert (conns["tcp_fallback"], conns["tcp_fallback_client"], conns["tcp_fallback_server"]) == (43, 12, 31)
    assert (conns["handshake_errors_client"], conns["handshake_errors_server"]) == (1, 2)
    assert conns["fallback_reasons_by_role"] == {
        "server": {"NOSMCDEV": 19, "PEER_NO_SMC": 9, "DIFFPREFIX": 2},
        "client": {"PEER_NO_SMC": 7, "NOSMCDDEV": 5},
    }
    # only the top three per role are printed: NOISM2SUPP (1) is not there
    assert conns["fallback_reasons"] == {"NOSMCDEV": 19, "PEER_NO_SMC": 16, "DIFFPREFIX": 2, "NOSMCDDEV": 5}
    assert conns["avg_requests_per_conn"] == pytest.approx(828824.4, abs=0.1)
    assert stats["tx"]["buffer_full_remote"] == 99
    assert stats["tx"]["buffer_too_small"] == 7
    assert stats["rx"]["buffer_downgrades"] == 3


def test_json_merge_keeps_text_only_counts_and_recomputes_totals():
    stats = parse_stats_text(fixture("smcd_stats_fallback.txt"))
    dummy, counters = parse_stats_json(fixture("smcd_stats_fallback.json"))
    merge_json(stats, counters)
    conns = stats["connections"]
    assert (conns["v1"], conns["v2"]) == (2, 2977)
    assert conns["tcp_fallback"] == 43 and conns["total"] == 2979 + 3 + 43
    assert stats["rx"]["buffers"]["64KB"] == 2900
    assert stats["rx"]["request_sizes"]["16KB"] == 30000000
    assert stats["rx"]["buffer_full_pct"] == round(100.0 * 12345 / 1234567890, 2)
    assert stats["extras"]["cork"] == 4 and stats["extras"]["special_socket_calls"] == 2995
    assert stats["rx"]["buffer_downgrades"] == 3  # only in json without -d


def test_smcr_large_buffers_sum_into_the_last_bucket():
    stats = parse_stats_text(fixture("smcr_d_stats.txt"))
    assert stats["protocol"] == "smcr"
    assert stats["rx"]["buffers"][">512KB"] == 15
    proto, counters = parse_stats_json(fixture("smcr_stats.json"))
    assert proto == "smcr"
    merge_json(stats, counters)
    assert stats["rx"]["buffers"][">512KB"] == 15
    assert stats["connections"]["smc"] == 12 and stats["connections"]["v1"] == 12
    assert stats["connections"]["fallback_reasons"] == {"NOSMCRDEV": 1}


def test_empty_counters_and_partial_snippets():
    stats = parse_stats_text(fixture("smcd_stats_empty.txt"))
    assert stats["connections"]["total"] == 0
    assert stats["connections"]["avg_requests_per_conn"] == 0.0
    assert set(stats["tx"]["buffers"].values()) == {0}
    default = parse_stats_text(fixture("study_7_3_default_bufs.txt"))
    tuned = parse_stats_text(fixture("study_7_3_tuned_bufs.txt"))
    assert default["rx"]["buffers"]["64KB"] == 51 and default["tx"]["buffers"]["16KB"] == 51
    assert tuned["rx"]["buffers"]["128KB"] == 51 and tuned["tx"]["buffers"]["128KB"] == 51
    assert default["connections"]["total"] is None


def test_wider_numbers_than_the_columns_still_parse():
    text = fixture("smcd_d_stats_fallback.txt").replace(
        "  Total connections handled          3025", "  Total connections handled  12345678901234"
    )
    assert parse_stats_text(text)["connections"]["total"] == 12345678901234


def test_garbage_is_rejected():
    with pytest.raises(StatsError):
        parse_stats_text("Error: SMC module not loaded\n")
    with pytest.raises(StatsError):
        parse_stats_json("not json")
    with pytest.raises(StatsError):
        parse_stats_json('{"SMCX": {}}')
    with pytest.raises(StatsError):
        parse_stats_json('{"SMCD": {"SMC_RX_CNT": "12"}}')


def test_smcd_devices():
    devices = parse_devices_smcd(fixture("smcd_device.txt"))
    assert devices == [
        {
            "fid": 0x605,
            "type": "ISM",
            "pci_id": "0000:00:00.0",
            "pchid": 0x7C8,
            "in_use": True,
            "linkgroups": 1,
            "pnet_id": None,
            "pnet_id_by_user": False,
        },
        {
            "fid": 0x606,
            "type": "ISM",
            "pci_id": "0001:00:00.0",
            "pchid": 0x7C8,
            "in_use": False,
            "linkgroups": 0,
            "pnet_id": "NETA",
            "pnet_id_by_user": True,
        },
        {
            "fid": 0x1234,
            "type": "ISM",
            "pci_id": "0002:00:00.0",
            "pchid": 0x7C1,
            "in_use": True,
            "linkgroups": 12,
            "pnet_id": "PNETHS01",
            "pnet_id_by_user": False,
        },
    ]


@pytest.mark.parametrize("name,details", [("smcr_device.txt", False), ("smcr_d_device.txt", True)])
def test_smcr_devices(name, details):
    devices = parse_devices_smcr(fixture(name))
    assert [(d["net_dev"], d["ib_dev"], d["port"], d["port_state"]) for d in devices] == [
        ("ens1", "mlx5_0", 1, "ACTIVE"),
        ("ens2", "mlx5_1", 1, "INACTIVE"),
        (None, "mlx5_2", 2, "ACTIVE"),
    ]
    assert [d["links"] for d in devices] == [2, 0, 0]
    assert [(d["pnet_id"], d["pnet_id_by_user"]) for d in devices] == [("NETR", False), ("NETR", True), (None, False)]
    assert devices[0]["critical"] is True and devices[1]["critical"] is False
    assert devices[0]["type"] == "RoCE_Express2"
    if details:
        assert (devices[2]["fid"], devices[2]["pci_id"], devices[2]["pchid"]) == (0x103, "0005:00:00.0", 0x1CC)
    else:
        assert devices[0]["fid"] is None


def test_linkgroup_tables_and_details():
    assert parse_linkgroups(fixture("smcd_linkgroup.txt")) == [
        {"id": "00000100", "vlan": 0, "conns": 51, "pnet_id": None},
        {"id": "00000200", "vlan": 5, "conns": 3, "pnet_id": "NETA"},
    ]
    smcr = parse_linkgroups(fixture("smcr_linkgroup.txt"))
    assert smcr[0] == {"id": "06000100", "role": "CLNT", "type": "SYM", "vlan": 0, "conns": 12, "pnet_id": "NETR"}
    assert smcr[1]["vlan"] == 0x1F and smcr[1]["pnet_id"] is None
    details = parse_linkgroups(fixture("smcd_d_linkgroup.txt"))
    assert len(details) == 2
    assert details[0]["id"] == "00000100" and details[0]["peer_host"] == "lpar-b"
    assert details[0]["conns"] == 51 and details[0]["dmb"] == 3342336 and details[0]["pnet_id"] is None
    assert details[1]["vlan"] == 5 and details[1]["version"] == 1 and details[1]["sndbuf"] == 49152


def raw_fixture(name):
    with open(os.path.join(FIXTURES, name), "rb") as handle:
        return handle.read()


def as_run_command_returns(raw):
    """What AnsibleModule.run_command gives for these bytes on Python 3 (utf-8, surrogateescape)."""
    return raw.decode("utf-8", "surrogateescape")


@pytest.mark.parametrize("convert", [lambda raw: raw, as_run_command_returns])
def test_smcr_d_device_keeps_soft_roce_rows_with_arbitrary_bytes(convert):
    devices = parse_devices_smcr(convert(raw_fixture("smcr_d_device_soft_roce_garbage.bin")))
    assert [(d["net_dev"], d["ib_dev"], d["port"], d["port_state"], d["links"]) for d in devices] == [
        ("ens1", "mlx5_0", 1, "ACTIVE", 2),
        ("lo", "rxe_lo", 1, "ACTIVE", 3),
        ("eth0", "rxe_eth0", 1, "ACTIVE", 1),
        ("ens2", "mlx5_1", 1, "INACTIVE", 0),
    ]
    for soft in devices[1:3]:
        assert (soft["fid"], soft["pci_id"], soft["pchid"], soft["type"]) == (None, None, None, None)
        assert soft["critical"] is False and soft["pnet_id"] is None
    assert (devices[0]["fid"], devices[0]["pci_id"], devices[0]["pchid"]) == (0x101, "0003:00:00.0", 0x1C4)
    assert (devices[3]["pnet_id"], devices[3]["pnet_id_by_user"], devices[3]["type"]) == ("NETR", True, "RoCE_Express2")


def test_smcr_device_without_details_keeps_the_soft_roce_rows():
    devices = parse_devices_smcr(raw_fixture("smcr_device_soft_roce_garbage.txt"))
    assert [(d["ib_dev"], d["links"], d["fid"]) for d in devices] == [
        ("mlx5_0", 2, None),
        ("rxe_lo", 3, None),
        ("rxe_eth0", 1, None),
        ("mlx5_1", 0, None),
    ]
    # without -d nothing shows that the Type of a soft-RoCE device is stack garbage
    assert devices[1]["type"] == "0x7f3a"


def test_smcd_device_row_with_an_unreadable_pci_id():
    devices = parse_devices_smcd(as_run_command_returns(raw_fixture("smcd_device_unreadable_pci.bin")))
    assert [(d["fid"], d["type"], d["pci_id"], d["pchid"], d["linkgroups"]) for d in devices] == [
        (0x605, "ISM", "0605:00:00.0", 0x7C8, 1),
        (None, None, None, None, 0),
    ]


def test_smcr_device_rows_with_line_separators_of_str_splitlines():
    """\\x0c, \\x1c and U+0085 end a line for str.splitlines but not for the tool."""
    # dev.c's formats, byte for byte
    row = b"%-15s %-8s %4d  %8s  %-13s  %3s   " % (b"lo", b"rxe_lo", 1, b"ACTIVE", b"0", b"No")
    row += b"%04x  %-12s  %04x    %5d  %-16s \n" % (0xA0B, b"\x1c\x0c\xc2\x85", 0, 5, b"UEIDNET")
    header = (
        b"Net-Dev         IB-Dev   IB-P  IB-State  Type          Crit   FID   PCI-ID        PCHID  #Links  PNET-ID  \n"
    )
    devices = parse_devices_smcr(as_run_command_returns(header + row))
    assert [(d["ib_dev"], d["links"], d["pnet_id"], d["pci_id"]) for d in devices] == [("rxe_lo", 5, "UEIDNET", None)]


def test_printable_output_has_no_lone_surrogates():
    text = printable(as_run_command_returns(b"ok \xff\xfe end"))
    assert text == "ok \ufffd\ufffd end"
    text.encode("utf-8")


def _smcr_d_row(netdev, ibdev, fid, pci, pchid, links, pnet, kind=b"RoCE_Express2"):
    # dev.c's formats, byte for byte
    row = b"%-15s %-8s %4d  %8s  %-13s  %3s   " % (netdev, ibdev, 1, b"ACTIVE", kind, b"No")
    return row + b"%04x  %-12s  %04x    %5d  %-16s \n" % (fid, pci, pchid, links, pnet)


SMCR_D_HEADER = (
    b"Net-Dev         IB-Dev   IB-P  IB-State  Type          Crit   FID   PCI-ID        PCHID  #Links  PNET-ID  \n"
)


def test_a_cut_garbage_row_does_not_swallow_the_next_row():
    # the garbage ends with a newline and the rest of its row is lost: the next row stays a row
    cut = _smcr_d_row(b"lo", b"rxe_lo", 0x7FFD, b"\xe8\n", 0, 1, b"").split(b"\n")[0] + b"\n"
    text = SMCR_D_HEADER + cut + _smcr_d_row(b"ens2", b"mlx5_1", 0x102, b"0004:00:00.0", 0x1C8, 4, b"NETR")
    devices = parse_devices_smcr(text)
    assert [(d["ib_dev"], d["pci_id"], d["links"]) for d in devices] == [("mlx5_1", "0004:00:00.0", 4)]


def test_collapsed_rows_are_read_by_words_also_at_the_end():
    text = "Net-Dev IB-Dev IB-P IB-State Type Crit FID PCI-ID PCHID #Links PNET-ID\nens1 mlx5_0 1 ACTIVE RoCE_Express2 Yes 0101 0003:00:00.0 01c4 2 NETR\n"
    devices = parse_devices_smcr(text)
    assert [(d["net_dev"], d["fid"], d["pci_id"], d["links"], d["pnet_id"]) for d in devices] == [
        ("ens1", 0x101, "0003:00:00.0", 2, "NETR")
    ]
