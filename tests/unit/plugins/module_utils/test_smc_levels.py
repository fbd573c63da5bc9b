# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The SMC levels per kernel profile (plugins/module_utils/smc/levels.py), the one table that the buffer
sizing and the SMC pre-flight read."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.s390x.network.plugins.module_utils.smc import levels

K, M = 1024, 1024 * 1024


@pytest.mark.parametrize(
    "release, profile, smcd_v2, smcr_v2, dmb, net_smc_mem, loopback",
    [
        ("4.18.0-240.22.1.el8_3.s390x", "RHEL 8.0-8.3", False, None, 512 * K, False, False),
        ("4.18.0-477.10.1.el8_8.s390x", "RHEL 8.4+", True, None, 512 * K, False, False),
        ("5.3.18-24.9-default", "SLES 15 SP2", False, None, 512 * K, False, False),
        ("5.3.18-57-default", "SLES 15 SP3", True, None, 512 * K, False, False),
        ("5.14.0-362.8.1.el9_3.s390x", "RHEL 9.0-9.3", True, None, 512 * K, False, False),
        ("5.14.0-427.13.1.el9_4.s390x", "RHEL 9.4+", True, True, M, False, False),
        ("5.14.21-150500.55.19-default", "Linux 5.14", True, None, 512 * K, False, False),
        ("6.4.0-150600.23.7-default", "Linux 6.4", True, True, M, True, False),
        ("6.12.0-55.9.1.el10_0.s390x", "Linux 6.12", True, True, M, True, True),
        ("5.4.0-45-generic", "Linux 5.4", None, None, 512 * K, False, False),
        ((6, 1, 0), "Linux 6.1", True, True, M, True, False),
    ],
)
def test_kernel_levels(release, profile, smcd_v2, smcr_v2, dmb, net_smc_mem, loopback):
    level = levels.kernel_level(release)
    assert level["profile"] == profile
    assert (level["smcd_v2"], level["smcr_v2"], level["smcd_max_dmb"]) == (smcd_v2, smcr_v2, dmb)
    assert (level["net_smc_mem"], level["loopback_ism"]) == (net_smc_mem, loopback)


def test_level_text_names_the_smc_code_a_distribution_carries():
    assert levels.level_text(levels.kernel_level("5.14.0-427.13.1.el9_4.s390x")) == "RHEL 9.4+, SMC of Linux 6.4"
    assert levels.level_text(levels.kernel_level("4.18.0-477.10.1.el8_8.s390x")) == "RHEL 8.4+"
    assert levels.level_text(levels.kernel_level("6.8.0-31-generic")) == "Linux 6.8"


@pytest.mark.parametrize("release", [None, "", "garbage", "linux-6.1"])
def test_unreadable_releases(release):
    assert levels.kernel_level(release) is None


@pytest.mark.parametrize(
    "release, dibs, max_wr, ulp",
    [
        ("6.12.0", False, False, True),
        ("6.17.9", False, False, True),
        ("6.18.0", True, False, True),
        ("6.19.0", True, True, True),
        ("6.19.3", True, True, True),
        ("6.19.4", True, True, False),  # the revert of the TCP ULP in the 6.19 stable series
        ("6.19", True, True, None),  # no patch level: not known
        ((6, 19, 5), True, True, False),
        ("7.0.0-15-generic", True, True, False),  # Ubuntu 26.04
        ("7.2.0-1-s390x", True, True, False),
        ("5.16.0", False, False, False),
        ("5.17.0", False, False, True),
    ],
)
def test_dibs_work_requests_and_the_tcp_ulp(release, dibs, max_wr, ulp):
    level = levels.kernel_level(release)
    assert (level["dibs"], level["smcr_max_wr"], level["tcp_ulp"]) == (dibs, max_wr, ulp)


def test_distribution_profiles_do_not_claim_the_tcp_ulp():
    assert levels.kernel_level("5.14.0-427.13.1.el9_4.s390x")["tcp_ulp"] is None
