# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""smc_stats_reset, bad input: refused with a message that names the field and what is allowed,
before smcd or smcr is looked up or run (a reset cannot be taken back)."""

from __future__ import absolute_import, division, print_function

import pytest

from ansible_collections.s390x.network.plugins.modules import smc_stats_reset
from ansible_collections.s390x.network.tests.unit.plugins.modules.host_guard import HostGuard

CASES = [
    ("protocol smc", {"protocol": "smc"}, ["value of protocol must be one of: smcd, smcr, got: smc"]),
    ("protocol upper case", {"protocol": "SMCD"}, ["value of protocol must be one of: smcd, smcr, got: SMCD"]),
    ("protocol empty", {"protocol": ""}, ["value of protocol must be one of: smcd, smcr"]),
    ("protocol a list", {"protocol": ["smcd", "smcr"]}, ["protocol", "smcd, smcr"]),
    ("unknown option", {"protocols": "smcd"}, ["Unsupported parameters", "protocols"]),
    ("a show option that is not there", {"protocol": "smcd", "show_only": True}, ["Unsupported parameters"]),
]


@pytest.mark.parametrize("name,args,fragments", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_refused_before_the_tool_is_looked_up(monkeypatch, run_module, name, args, fragments):
    HostGuard(monkeypatch, run_module).refuses(smc_stats_reset.main, args, fragments)


@pytest.mark.parametrize("name,args,fragments", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_refused_in_check_mode_too(monkeypatch, run_module, name, args, fragments):
    HostGuard(monkeypatch, run_module).refuses(smc_stats_reset.main, args, fragments, check_mode=True)


@pytest.mark.parametrize("protocol", ["smcd", "smcr"])
def test_the_guard_sees_a_module_that_looks_up_the_tool(monkeypatch, run_module, protocol):
    guard = HostGuard(monkeypatch, run_module)
    with pytest.raises(AssertionError):
        guard.run(smc_stats_reset.main, {"protocol": protocol})
    assert guard.accesses == [("tool lookup", protocol)]
