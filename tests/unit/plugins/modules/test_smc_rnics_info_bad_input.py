# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""smc_rnics_info, bad input: refused with a message that names the field and what is allowed,
before smc_rnics is looked up or run."""

from __future__ import absolute_import, division, print_function

import pytest

from ansible_collections.s390x.network.plugins.modules import smc_rnics_info
from ansible_collections.s390x.network.tests.unit.plugins.modules.host_guard import HostGuard

HEX = "an integer or a hex string such as 0x605"

CASES = [
    ("fid not hex", {"fid": "zz"}, ["fid: 'zz' is not " + HEX]),
    ("fid empty", {"fid": ""}, ["fid: '' is not " + HEX]),
    ("fid with a blank inside", {"fid": "6 05"}, ["fid: '6 05' is not " + HEX]),
    ("fid negative", {"fid": -1}, ["fid: -1 is outside 0x0000..0xffffffff"]),
    ("fid above 32 bits", {"fid": 0x100000000}, ["fid: 0x100000000 is outside 0x0000..0xffffffff"]),
    ("fid hex string above 32 bits", {"fid": "0x100000000"}, ["fid: 0x100000000 is outside"]),
    ("fid boolean", {"fid": True}, ["fid: expected " + HEX]),
    ("fid float", {"fid": 1541.0}, ["fid: expected " + HEX]),
    ("fid list", {"fid": ["605"]}, ["fid: expected " + HEX]),
    ("all not a boolean", {"all": "every"}, ["all", "bool"]),
    ("raw_ids not a boolean", {"raw_ids": "raw"}, ["raw_ids", "bool"]),
    ("ib_device not a boolean", {"ib_device": "mlx5_0"}, ["ib_device", "bool"]),
    ("unknown option", {"fids": ["605"]}, ["Unsupported parameters", "fids"]),
]


@pytest.mark.parametrize("name,args,fragments", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_refused_before_smc_rnics_is_looked_up(monkeypatch, run_module, name, args, fragments):
    HostGuard(monkeypatch, run_module).refuses(smc_rnics_info.main, args, fragments)


def test_the_guard_sees_a_module_that_looks_up_the_tool(monkeypatch, run_module):
    guard = HostGuard(monkeypatch, run_module)
    with pytest.raises(AssertionError):
        guard.run(smc_rnics_info.main, {"fid": "0x605"})
    assert guard.accesses == [("tool lookup", "smc_rnics")]
