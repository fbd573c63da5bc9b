# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""SMC buffer sizing rules per kernel family (docs/smc-sizing.md) and sysctl ranges."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest
from hypothesis import given, strategies as st

from ansible_collections.s390x.network.plugins.module_utils.smc import sizing as sz

RHEL88 = "4.18.0-477.10.1.el8_8.s390x"
SLES15SP5 = "5.14.21-150500.53-default"
RHEL9 = "5.14.0-284.11.1.el9_2.s390x"
UBUNTU2304 = "6.2.0-20-generic"
LINUX612 = "6.12.0"


@pytest.mark.parametrize(
    "text,size",
    [
        (131072, 131072),
        ("131072", 131072),
        ("128K", 131072),
        ("128k", 131072),
        ("128KiB", 131072),
        ("128KB", 131072),
        ("1M", 1048576),
        ("1 MiB", 1048576),
        ("2G", 2147483648),
        ("16384B", 16384),
    ],
)
def test_parse_size(text, size):
    assert sz.parse_size(text) == size


@pytest.mark.parametrize("bad", ["", "12Q", "-5", "1.5M", None, True, [1], "128 K B"])
def test_parse_size_rejects(bad):
    with pytest.raises(sz.SizingError) as exc:
        sz.parse_size(bad, "rmem")
    assert "rmem" in str(exc.value)


def test_kernel_release_parsing():
    assert sz.parse_kernel_release(RHEL88) == (4, 18, 0)
    assert sz.parse_kernel_release("6.12") == (6, 12, 0)
    assert sz.parse_kernel_release((6, 5)) == (6, 5, 0)
    with pytest.raises(sz.SizingError):
        sz.parse_kernel_release("linux")


def test_the_study_rule_on_rhel_8_8():
    # RHEL 8.8 defaults: tcp_rmem[1] 131072 -> 64 KiB RMBs, tcp_wmem[1] 16384 -> 16 KiB send buffers
    assert sz.effective_buffer(sz.requested_from_tcp(131072), RHEL88)["size"] == 64 * 1024
    assert sz.effective_buffer(sz.requested_from_tcp(16384), RHEL88)["size"] == 16 * 1024
    # the study's tuning: 262144 -> 128 KiB
    assert sz.effective_buffer(sz.requested_from_tcp(262144), RHEL88)["size"] == 128 * 1024
    plan = sz.plan_buffers(RHEL88, "128K", "128K")
    assert plan["method"] == "tcp"
    assert plan["sysctls"] == {"net.ipv4.tcp_rmem": "4096 262144 6291456", "net.ipv4.tcp_wmem": "4096 262144 4194304"}
    assert (plan["effective_rmem"], plan["effective_wmem"]) == (131072, 131072)
    assert any("every TCP socket" in w for w in plan["warnings"])


@pytest.mark.parametrize("kernel", [SLES15SP5, RHEL9])
def test_5_14_uses_tcp_and_keeps_host_min_max(kernel):
    plan = sz.plan_buffers(kernel, "256K", "64K", tcp_rmem="4096\t87380\t6291456", tcp_wmem="8192 65536 16777216")
    assert plan["method"] == "tcp"
    assert plan["sysctls"]["net.ipv4.tcp_rmem"] == "4096 524288 6291456"
    assert plan["sysctls"]["net.ipv4.tcp_wmem"] == "8192 131072 16777216"
    assert plan["effective_rmem"] == 256 * 1024 and plan["effective_wmem"] == 64 * 1024


def test_tcp_method_min_max_options_and_raising_the_max():
    plan = sz.plan_buffers(RHEL88, "1M", None, tcp_rmem="4096 131072 1048576", tcp_rmem_min=8192)
    assert plan["sysctls"] == {"net.ipv4.tcp_rmem": "8192 2097152 2097152"}
    assert any("raised the TCP maximum" in w for w in plan["warnings"])
    with pytest.raises(sz.SizingError) as exc:
        sz.plan_buffers(RHEL88, "64K", None, tcp_rmem_min="1M")
    assert "tcp_rmem_min" in str(exc.value)


def test_pre_5_16_smcd_buffers_stop_at_512k():
    plan = sz.plan_buffers(SLES15SP5, "1M", None)
    assert plan["effective_rmem"] == 512 * 1024
    assert any("at most 512K" in w for w in plan["warnings"])


def test_6_2_uses_net_smc():
    plan = sz.plan_buffers(UBUNTU2304, "128K", "128K")
    assert plan["method"] == "net.smc"
    assert plan["sysctls"] == {"net.smc.rmem": "131072", "net.smc.wmem": "131072"}
    assert plan["warnings"] == []


def test_6_12_caps_per_protocol():
    smcd = sz.plan_buffers(LINUX612, "2M", "96K", protocol="smcd")
    assert smcd["effective_rmem"] == 1024 * 1024 and smcd["details"]["rmem"]["capped"]
    assert smcd["effective_wmem"] == 128 * 1024 and smcd["details"]["wmem"]["rounded"]
    assert len(smcd["warnings"]) == 2
    smcr = sz.plan_buffers(LINUX612, "2M", None, protocol="smcr")
    assert smcr["effective_rmem"] == 2 * 1024 * 1024 and smcr["warnings"] == []
    assert sz.buffer_cap(LINUX612, "smcr", smcr_buf_type=0) == 4 * 1024 * 1024
    assert sz.buffer_cap(LINUX612, "smcr", smcr_buf_type=1) == 512 * 1024 * 1024
    assert sz.buffer_cap("6.10", "smcr") == 512 * 1024


def test_presence_beats_the_release():
    assert sz.decide_method(RHEL9, smc_rmem_present=True) == "net.smc"
    assert sz.decide_method(UBUNTU2304, smc_rmem_present=False) == "tcp"
    assert sz.decide_method("6.0.19") == "tcp" and sz.decide_method("6.1.0") == "net.smc"


@pytest.mark.parametrize(
    "rmem,msg", [("10", "below the SMC minimum"), ("2G", "above the largest value"), ("lots", "expected a size")]
)
def test_bad_sizes(rmem, msg):
    with pytest.raises(sz.SizingError) as exc:
        sz.plan_buffers(LINUX612, rmem, None)
    assert msg in str(exc.value) and "rmem" in str(exc.value)


def test_settings_ranges():
    assert sz.validate_setting("net.smc.smcr_testlink_time", "10") == ("smcr_testlink_time", 10)
    assert sz.validate_setting("autocorking_size", "64K") == ("autocorking_size", 65536)
    assert sz.validate_setting("limit_smc_hs", 1) == ("limit_smc_hs", 1)
    for key, value in (
        ("smcr_buf_type", 3),
        ("smcr_max_links_per_lgr", 0),
        ("smcr_max_conns_per_lgr", 256),
        ("limit_smc_hs", 2),
        ("smcr_max_send_wr", 1),
        ("smcr_testlink_time", -1),
    ):
        with pytest.raises(sz.SizingError) as exc:
            sz.validate_setting(key, value)
        assert key in str(exc.value) and "range" in str(exc.value)
    with pytest.raises(sz.SizingError) as exc:
        sz.validate_setting("net.smc.turbo", 1)
    assert "unknown key" in str(exc.value) and "autocorking_size" in str(exc.value)
    with pytest.raises(sz.SizingError):
        sz.validate_setting("smcr_buf_type", "two")


def test_settings_work_request_ranges_and_hs_ctrl():
    # net/smc/smc_sysctl.c (6.19): smcr_max_{send,recv}_wr 2..2048 (smcr_max_wr_min/_max), hs_ctrl a
    # proc_dostring of SMC_HS_CTRL_NAME_MAX 16 holding a bpf_obj_name_cpy name
    assert sz.validate_setting("smcr_max_send_wr", 2) == ("smcr_max_send_wr", 2)
    assert sz.validate_setting("net.smc.smcr_max_recv_wr", "2048") == ("smcr_max_recv_wr", 2048)
    with pytest.raises(sz.SizingError) as exc:
        sz.validate_setting("smcr_max_recv_wr", 2049)
    assert "range 2..2048" in str(exc.value)
    assert sz.validate_setting("net.smc.hs_ctrl", "smc_ctl.v2") == ("hs_ctrl", "smc_ctl.v2")
    assert sz.validate_setting("hs_ctrl", "") == ("hs_ctrl", "")
    assert sz.validate_setting("hs_ctrl", "a" * 15) == ("hs_ctrl", "a" * 15)
    for bad in ("a" * 16, "bad name", "x/y", "ctl\n", 1, True):
        with pytest.raises(sz.SizingError) as exc:
            sz.validate_setting("hs_ctrl", bad)
        assert "settings.hs_ctrl" in str(exc.value) and "at most 15" in str(exc.value)


def test_current_effective_from_live_values():
    live = {"net.ipv4.tcp_rmem": "4096\t131072\t6291456", "net.ipv4.tcp_wmem": "4096\t16384\t4194304"}
    assert sz.current_effective(RHEL88, "tcp", live) == (65536, 16384)
    assert sz.current_effective(LINUX612, "net.smc", {"net.smc.rmem": "65536"}) == (65536, None)


@given(
    st.integers(min_value=sz.SMC_BUF_MIN_SIZE, max_value=sz.INT_MAX // 2),
    st.sampled_from([RHEL88, SLES15SP5, "5.16.0", UBUNTU2304, "6.5.0", LINUX612]),
    st.sampled_from(["smcd", "smcr"]),
    st.integers(min_value=0, max_value=2),
)
def test_effective_size_is_16k_power_of_two_within_cap(requested, kernel, protocol, buf_type):
    eff = sz.effective_buffer(requested, kernel, protocol, buf_type)
    size = eff["size"]
    assert size >= sz.SMC_BUF_MIN_SIZE and size % sz.SMC_BUF_MIN_SIZE == 0
    units = size // sz.SMC_BUF_MIN_SIZE
    assert units & (units - 1) == 0
    assert size <= eff["cap"]
    if not eff["capped"]:
        assert size >= requested and size < 2 * requested + sz.SMC_BUF_MIN_SIZE
        assert eff["rounded"] == (size != requested)
    else:
        assert size == eff["cap"] and requested > eff["cap"]


@given(st.integers(min_value=sz.SMC_BUF_MIN_SIZE, max_value=sz.INT_MAX // 4))
def test_tcp_method_round_trip(buffer_size):
    # the TCP default the plan writes makes the old kernels request exactly the wanted size
    plan = sz.plan_buffers(RHEL88, buffer_size, None, tcp_rmem="4096 131072 %d" % sz.INT_MAX)
    middle = int(plan["sysctls"]["net.ipv4.tcp_rmem"].split()[1])
    assert sz.requested_from_tcp(middle) == buffer_size
    assert plan["effective_rmem"] == sz.effective_buffer(buffer_size, RHEL88)["size"]


@pytest.mark.parametrize(
    "file_value, live_value, expected",
    [
        ("4096 262144 33554432", "4096 131072 6291456", "4096 262144 33554432"),
        (None, "4096 131072 6291456", "4096 131072 6291456"),
        ("4096 nonsense", "4096 131072 6291456", "4096 131072 6291456"),
        (None, None, None),
    ],
)
def test_tcp_triplet_basis_prefers_the_owned_file(file_value, live_value, expected):
    assert sz.tcp_triplet_basis(file_value, live_value, "net.ipv4.tcp_rmem") == expected


RHEL94 = "5.14.0-427.13.1.el9_4.s390x"


def test_rhel_9_4_allocates_the_1m_dmbs_of_its_smc_code():
    # RHEL 9.4 carries the SMC code of Linux 6.4 (1 MiB DMBs) on a 5.14 kernel without net.smc.rmem
    assert sz.buffer_cap(RHEL94, "smcd") == 1024 * 1024
    plan = sz.plan_buffers(RHEL94, "1M", None)
    assert plan["method"] == "tcp" and plan["effective_rmem"] == 1024 * 1024
    assert not any("at most" in w for w in plan["warnings"])
    assert sz.plan_buffers(RHEL94, "2M", None)["warnings"][-1] == (
        "rmem: 2M requested, but SMCD buffers on this kernel (RHEL 9.4+, SMC of Linux 6.4) are at most 1M"
    )
    # RHEL 9.0-9.3 and SMC-R (512K before 6.11) stay as they were
    assert sz.buffer_cap(RHEL9, "smcd") == 512 * 1024
    assert sz.buffer_cap(RHEL94, "smcr") == 512 * 1024
    assert sz.decide_method(RHEL94) == "tcp"


@pytest.mark.parametrize(
    "kernel, protocol, sizes, capped",
    [
        (RHEL88, "smcd", {"rmem": "1M", "wmem": "512K"}, ["rmem"]),
        (RHEL94, "smcd", {"rmem": "1M", "wmem": "1M"}, []),
        (RHEL94, "smcd", {"rmem": "2M", "wmem": "1m"}, ["rmem"]),
        (RHEL94, "smcr", {"rmem": "1M"}, ["rmem"]),
        (LINUX612, "smcr", {"rmem": "4M", "wmem": "8M"}, ["wmem"]),
        (UBUNTU2304, "smcd", {}, []),
    ],
)
def test_service_sizes_above_the_kernels_buffers_warn(kernel, protocol, sizes, capped):
    services = ["plain", dict(sizes, name="db")]
    warnings = sz.service_size_warnings(kernel, services, protocol)
    assert [w.split(":")[0] for w in warnings] == ["smc_services[1] (db) %s" % key for key in capped]
    assert all("%s buffers on this kernel" % protocol.upper() in w for w in warnings)
