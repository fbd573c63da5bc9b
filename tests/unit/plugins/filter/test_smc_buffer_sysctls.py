# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The smc_buffer_sysctls filter: the module's computation on the controller."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.s390x.network.plugins.filter.smc_buffer_sysctls import FilterModule, smc_buffer_sysctls


def test_registered_name():
    assert FilterModule().filters()["smc_buffer_sysctls"] is smc_buffer_sysctls


def test_rhel88_gets_the_study_values():
    plan = smc_buffer_sysctls("128K", kernel="4.18.0-477.10.1.el8_8.s390x")
    assert plan["method"] == "tcp"
    assert plan["sysctls"] == {"net.ipv4.tcp_rmem": "4096 262144 6291456", "net.ipv4.tcp_wmem": "4096 262144 4194304"}
    assert plan["effective_rmem"] == plan["effective_wmem"] == 131072


def test_612_with_separate_wmem_and_host_tcp_values():
    plan = smc_buffer_sysctls(262144, kernel="6.12.0", wmem="64K", tcp_rmem="4096 87380 6291456")
    assert plan["sysctls"] == {"net.smc.rmem": "262144", "net.smc.wmem": "65536"}
    assert (plan["effective_rmem"], plan["effective_wmem"]) == (262144, 65536)


def test_backport_hint_and_forced_method():
    assert smc_buffer_sysctls("128K", kernel="5.14.0-362.el9.s390x", smc_rmem_present=True)["method"] == "net.smc"
    forced = smc_buffer_sysctls("128K", kernel="6.12.0", method="tcp", tcp_rmem="4096 131072 6291456")
    assert forced["sysctls"]["net.ipv4.tcp_rmem"] == "4096 262144 6291456"


def test_smcr_cap_depends_on_buffer_type():
    assert smc_buffer_sysctls("8M", kernel="6.12.0", protocol="smcr")["effective_rmem"] == 4 * 1024 * 1024
    assert (
        smc_buffer_sysctls("8M", kernel="6.12.0", protocol="smcr", smcr_buf_type=1)["effective_rmem"] == 8 * 1024 * 1024
    )
    assert smc_buffer_sysctls("8M", kernel="6.6.0", protocol="smcr")["effective_rmem"] == 512 * 1024


@pytest.mark.parametrize("value,msg", [("10", "below the SMC minimum"), ("2G", "above"), ("much", "expected a size")])
def test_errors_are_filter_errors(value, msg):
    with pytest.raises(AnsibleFilterError) as exc:
        smc_buffer_sysctls(value, kernel="6.12.0")
    assert msg in str(exc.value)
    with pytest.raises(AnsibleFilterError):
        smc_buffer_sysctls("128K", kernel="unknown")
