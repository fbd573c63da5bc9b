# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""smc_sysctl, bad input: refused with a message that names the field and what is allowed, before
anything of the host is read (not even the kernel release) or modprobe is looked up."""

from __future__ import absolute_import, division, print_function

import pytest

from ansible_collections.s390x.network.plugins.modules import smc_sysctl
from ansible_collections.s390x.network.tests.unit.plugins.modules.host_guard import HostGuard

SIZE = "expected a size in bytes or with a K/M/G suffix"

CASES = [
    # -- rmem, wmem ----------------------------------------------------------------------------
    ("rmem not a size", {"rmem": "lots"}, ["rmem: " + SIZE, "128K"]),
    ("rmem hex", {"rmem": "0x4000"}, ["rmem: " + SIZE]),
    ("rmem negative", {"rmem": -1}, ["rmem: size must not be negative, got -1"]),
    ("rmem boolean", {"rmem": True}, ["rmem: " + SIZE]),
    ("rmem fraction", {"rmem": 16384.5}, ["rmem: " + SIZE]),
    ("rmem below 16K", {"rmem": "8K"}, ["rmem: 8192 bytes is below the SMC minimum of 16384 (16K)"]),
    ("rmem above INT_MAX/2", {"rmem": "1G"}, ["rmem: 1073741824 bytes is above the largest value", "1073741823"]),
    ("wmem not a size", {"wmem": "1 T"}, ["wmem: " + SIZE]),
    ("wmem below 16K", {"wmem": 16383}, ["wmem: 16383 bytes is below the SMC minimum"]),
    # -- settings ------------------------------------------------------------------------------
    ("settings unknown key", {"settings": {"turbo": 1}}, ["settings: unknown key 'turbo'", "autocorking_size"]),
    ("settings rmem", {"settings": {"rmem": 131072}}, ["settings.rmem: use the rmem option"]),
    ("settings prefixed wmem", {"settings": {"net.smc.wmem": 131072}}, ["settings.net.smc.wmem: use the wmem option"]),
    (
        "settings below range",
        {"settings": {"smcr_max_conns_per_lgr": 15}},
        ["settings.smcr_max_conns_per_lgr: 15 is outside the kernel's range 16..255"],
    ),
    ("settings above range", {"settings": {"smcr_buf_type": 3}}, ["settings.smcr_buf_type: 3 is outside", "0..2"]),
    (
        "settings not an integer",
        {"settings": {"limit_smc_hs": "yes"}},
        ["settings.limit_smc_hs: expected an integer between 0 and 1, got 'yes'"],
    ),
    ("settings boolean", {"settings": {"limit_smc_hs": True}}, ["settings.limit_smc_hs: expected an integer"]),
    ("settings fraction", {"settings": {"smcr_testlink_time": "1.5"}}, ["settings.smcr_testlink_time: expected"]),
    (
        "settings testlink time above INT_MAX/HZ",
        {"settings": {"smcr_testlink_time": 21474837}},
        ["settings.smcr_testlink_time: 21474837 is outside the kernel's range 0..21474836"],
    ),
    (
        "settings size key not a size",
        {"settings": {"autocorking_size": "big"}},
        ["settings.autocorking_size: " + SIZE],
    ),
    (
        "settings size above 32 bits",
        {"settings": {"autocorking_size": "4G"}},
        ["settings.autocorking_size: 4294967296"],
    ),
    (
        "one sysctl in two spellings",
        {"settings": {"autocorking_size": "64K", "net.smc.autocorking_size": "128K"}},
        ["settings.net.smc.autocorking_size: names the same sysctl net.smc.autocorking_size as settings."],
    ),
    ("settings not a mapping", {"settings": ["autocorking_size"]}, ["settings", "dict"]),
    # -- TCP limits ----------------------------------------------------------------------------
    ("tcp_rmem_min not a size", {"rmem": "128K", "tcp_rmem_min": "small"}, ["tcp_rmem_min: " + SIZE]),
    ("tcp_rmem_min 0", {"rmem": "128K", "tcp_rmem_min": 0}, ["tcp_rmem_min: must be between 1 and 2147483647"]),
    ("tcp_wmem_max above INT_MAX", {"wmem": "128K", "tcp_wmem_max": "2G"}, ["tcp_wmem_max: must be between 1 and"]),
    (
        "tcp_rmem_min above the TCP default",
        {"rmem": "128K", "tcp_rmem_min": "1M"},
        ["tcp_rmem_min: 1048576 is above the TCP default 262144 that rmem=131072 needs"],
    ),
    (
        "tcp_wmem_min above tcp_wmem_max",
        {"wmem": "64K", "tcp_wmem_min": 65536, "tcp_wmem_max": 32768},
        ["tcp_wmem_min: 65536 is above tcp_wmem_max 32768"],
    ),
    (
        "tcp_rmem_min without rmem",
        {"wmem": "128K", "tcp_rmem_min": 4096},
        ["tcp_rmem_min: used only with rmem", "give rmem or leave tcp_rmem_min out"],
    ),
    (
        "tcp_wmem_max without wmem, and not even valid",
        {"tcp_wmem_max": "huge"},
        ["tcp_wmem_max: " + SIZE, "tcp_wmem_max: used only with wmem"],
    ),
    (
        "TCP limit with method net.smc",
        {"rmem": "128K", "method": "net.smc", "tcp_rmem_max": "6M"},
        ["tcp_rmem_max: used only with method tcp or auto, not net.smc"],
    ),
    # -- net.core maxima -----------------------------------------------------------------------
    ("core_rmem_max 0", {"core_rmem_max": 0}, ["core_rmem_max: must be between 1 and 2147483647 bytes, got 0"]),
    ("core_wmem_max too big", {"core_wmem_max": "2G"}, ["core_wmem_max: must be between 1 and 2147483647 bytes"]),
    ("core_wmem_max not a size", {"core_wmem_max": "max"}, ["core_wmem_max: " + SIZE]),
    # -- choices and types ---------------------------------------------------------------------
    ("state choice", {"state": "replaced"}, ["state", "merged, deleted"]),
    ("protocol choice", {"protocol": "smc"}, ["protocol", "smcd, smcr"]),
    ("method choice", {"method": "proc"}, ["method", "auto, net.smc, tcp"]),
    ("apply not a boolean", {"apply": "later"}, ["apply", "bool"]),
    ("load_module not a boolean", {"load_module": "later"}, ["load_module", "bool"]),
    ("require_smc not a boolean", {"require_smc": "later"}, ["require_smc", "bool"]),
    ("unknown option", {"rmem_size": "128K"}, ["Unsupported parameters", "rmem_size"]),
    # -- every problem in one message ----------------------------------------------------------
    (
        "all problems of the task",
        {"rmem": "1K", "wmem": "x", "settings": {"turbo": 1}, "core_rmem_max": 0, "file": "smc"},
        ["rmem: 1024", "wmem: " + SIZE, "settings: unknown key 'turbo'", "core_rmem_max: ", "file: 'smc'"],
    ),
]


# -- files: names in /etc/sysctl.d and /etc/modules-load.d, nothing else ------------------------------
FILE_NAMES = [
    ("absolute path", "/etc/ld.so.conf.d/x.conf"),
    ("traversal", "../../../etc/modprobe.d/x.conf"),
    ("subdirectory", "a/x.conf"),
    ("without .conf", "90-smc"),
    ("only .conf", ".conf"),
    ("leading dot", ".x.conf"),
    ("leading dash", "-x.conf"),
    ("glob", "*.conf"),
    ("newline", "x.conf\n"),
    ("newline inside", "x\n.conf"),
    ("CR", "x\r.conf"),
    ("quote", 'x".conf'),
    ("single quote", "x'.conf"),
    ("backslash", "x\\.conf"),
    ("command substitution", "$(id).conf"),
    ("backticks", "`id`.conf"),
    ("semicolon", "x;y.conf"),
    ("specifier", "%n.conf"),
    ("blank", "x y.conf"),
    ("empty", ""),
    ("overlong", "x" * 251 + ".conf"),
]
for _option, _directory, _old in (
    ("file", "/etc/sysctl.d", "/etc/sysctl.d/90-smc.conf"),
    ("modules_load_file", "/etc/modules-load.d", "/etc/modules-load.d/smc.conf"),
):
    for _label, _value in FILE_NAMES + [("the old absolute default", _old)]:
        CASES.append(
            (
                "%s %s" % (_option, _label),
                {_option: _value},
                [
                    "%s: %s" % (_option, repr(_value) if len(_value) <= 80 else ""),
                    "is not a file name of the form [A-Za-z0-9_][A-Za-z0-9_.-]*.conf",
                    "it names a file in %s" % _directory,
                ],
            )
        )


@pytest.mark.parametrize("name,args,fragments", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_refused_before_the_host_is_read(monkeypatch, run_module, name, args, fragments):
    HostGuard(monkeypatch, run_module).refuses(smc_sysctl.main, args, fragments)


@pytest.mark.parametrize("name,args,fragments", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_refused_in_check_mode_too(monkeypatch, run_module, name, args, fragments):
    HostGuard(monkeypatch, run_module).refuses(smc_sysctl.main, args, fragments, check_mode=True)


@pytest.mark.parametrize("option", ["file", "modules_load_file"])
def test_a_nul_byte_in_a_file_name_is_refused_before_the_host_is_read(monkeypatch, run_module, option):
    """AnsibleModule itself refuses a top-level string with NUL when it logs the invocation (syslog);
    where it does not, the module's check names the field. Either way nothing is read or written."""
    guard = HostGuard(monkeypatch, run_module)
    result = guard.run(smc_sysctl.main, {option: "x\x00.conf"})
    assert result.get("failed") and guard.accesses == [], result
    assert result["msg"].startswith(option + ": ") or "embedded null character" in result["msg"], result["msg"]


@pytest.mark.parametrize("state", ["merged", "deleted"])
def test_the_guard_sees_a_module_that_reads_the_host(monkeypatch, run_module, state):
    guard = HostGuard(monkeypatch, run_module)
    with pytest.raises(AssertionError):
        guard.run(smc_sysctl.main, {"state": state, "rmem": "128K", "tcp_rmem_min": 4096})
    assert guard.accesses
