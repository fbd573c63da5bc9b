# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The smc-tools readers against output recorded from the real tools on a real kernel
(tests/unit/fixtures/smc/real-6.12/README.md: smc-tools 1.8.5, Debian 13 s390x 6.12 with
loopback-ism; one SMC-D v2 connection, one fallback with SMC_CLC_DECL_PEERNOSMC, soft-RoCE on lo)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

from ansible_collections.s390x.network.plugins.module_utils.smc import stats

REAL = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "smc", "real-6.12")


def real(name):
    with open(os.path.join(REAL, name)) as handle:
        return handle.read()


SOFT_ROCE = {
    "net_dev": "lo",
    "ib_dev": "rxe_lo",
    "port": 1,
    "port_state": "ACTIVE",
    "type": None,  # printed as 0: the kernel sent no PCI device ID
    "critical": False,
    "fid": None,
    "pci_id": None,
    "pchid": None,
    "links": 0,
    "pnet_id": None,
    "pnet_id_by_user": False,
}


def test_a_soft_roce_device_is_one_row_without_a_pci_function():
    # smcr -d device prints FID 0000, an empty PCI-ID and PCHID 0000 for a device without a PCI function
    assert stats.parse_devices_smcr(real("smcr-d-device.txt")) == [SOFT_ROCE]
    assert stats.parse_devices_smcr(real("smcr-device.txt")) == [SOFT_ROCE]


def test_loopback_ism_is_no_smcd_device():
    assert real("smcd-device.txt") == real("smcd-d-device.txt") == ""
    assert stats.parse_devices_smcd(real("smcd-device.txt")) == []


def test_the_fallback_counts_in_both_summaries():
    smcd = stats.parse_stats_text(real("smcd-stats.txt"))["connections"]
    smcr = stats.parse_stats_text(real("smcr-stats.txt"))["connections"]
    assert (smcd["total"], smcd["smc"], smcd["tcp_fallback"]) == (3, 2, 1)
    assert (smcr["total"], smcr["smc"], smcr["tcp_fallback"]) == (1, 0, 1)


def test_the_detailed_smcd_statistics():
    parsed = stats.parse_stats_text(real("smcd-d-stats.txt"))
    conns = parsed["connections"]
    assert (conns["smc_client"], conns["smc_server"], conns["v1"], conns["v2"]) == (1, 1, 0, 2)
    assert conns["fallback_reasons_by_role"] == {"server": {}, "client": {"PEER_NO_SMC": 1}}
    assert parsed["rx"]["bytes"] == 4096 and parsed["tx"]["bytes"] == 4096


def test_the_json_statistics_agree_with_the_text():
    protocol, counters = stats.parse_stats_json(real("smcd-stats-json.txt"))
    assert protocol == "smcd"
    assert counters["SMC_INT_RX_BUF_64K"] == 2 and counters["SMC_USR_TX_BUF_8K"] == 1
    text = stats.parse_stats_text(real("smcd-stats.txt"))
    merged = stats.merge_json(text, counters)
    assert merged["connections"]["smc"] == 2


def test_loopback_ism_link_groups():
    groups = stats.parse_linkgroups(real("smcd-linkgroup.txt"))
    assert [(g["id"], g["conns"], g["pnet_id"]) for g in groups] == [("00000100", 1, None), ("00000200", 1, None)]
    detailed = stats.parse_linkgroups(real("smcd-d-linkgroup.txt"))
    assert [(g["version"], g["eid"], g["sndbuf"], g["dmb"]) for g in detailed] == [
        (2, "IBM-SYSZ-ISMSEID0000000000008561", 0, 65536)
    ] * 2
    assert stats.parse_linkgroups(real("smcr-linkgroup.txt")) == []
