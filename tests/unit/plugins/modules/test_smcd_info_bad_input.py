# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""smcd_info, bad input: every option is a choice or a boolean, refused naming the option and the
allowed values before the kernel's SMC support is probed or smc-tools are looked up."""

from __future__ import absolute_import, division, print_function

import pytest

from ansible_collections.s390x.network.plugins.modules import smcd_info
from ansible_collections.s390x.network.tests.unit.plugins.modules.host_guard import HostGuard

CASES = [
    ("unknown protocol", {"protocol": "smc"}, ["protocol", "smcd, smcr", "got: smc"]),
    ("unknown backend", {"backend": "kernel"}, ["backend", "auto, tool, netlink", "got: kernel"]),
    ("details not a boolean", {"details": "maybe"}, ["details", "bool"]),
    ("devices not a boolean", {"devices": "all"}, ["devices", "bool"]),
    ("linkgroups not a boolean", {"linkgroups": [True]}, ["linkgroups", "bool"]),
    ("absolute not a boolean", {"absolute": "2"}, ["absolute", "bool"]),
    ("an option it does not have", {"reset": True}, ["Unsupported parameters", "reset"]),
]


@pytest.mark.parametrize("what,args,fragments", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("check_mode", [False, True])
def test_bad_input_is_refused_before_the_host_is_read(monkeypatch, run_module, what, args, fragments, check_mode):
    HostGuard(monkeypatch, run_module).refuses(smcd_info.main, args, fragments, check_mode=check_mode)
