# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Names of the per-technology SMC statistics counters (SMC-D and SMC-R alike), as smc-tools'
``stats json`` prints them: one list for the emulated kernel's counters and the smcd/smcr shims.
No imports: the kernel and the tools both read it."""

TECH_COUNTERS = []
for _pfx in ("SMC_INT_TX_BUF_", "SMC_INT_RX_BUF_", "SMC_USR_TX_BUF_", "SMC_USR_RX_BUF_"):
    for _sz in ("8K", "16K", "32K", "64K", "128K", "256K", "512K", "1024K", "G_1024K"):
        TECH_COUNTERS.append(_pfx + _sz)
for _d in ("TX", "RX"):
    for _k in (
        "BUF_SIZE_SM_PEER_CNT",
        "BUF_SIZE_SM_CNT",
        "BUF_FULL_PEER_CNT",
        "BUF_FULL_CNT",
        "BUF_REUSE_CNT",
        "BUF_ALLOC_CNT",
        "BUF_DGRADE_CNT",
    ):
        TECH_COUNTERS.append("SMC_INT_%s_%s" % (_d, _k))
TECH_COUNTERS += [
    "SMC_CLNT_V1_SUCC_CNT",
    "SMC_CLNT_V2_SUCC_CNT",
    "SMC_SRV_V1_SUCC_CNT",
    "SMC_SRV_V2_SUCC_CNT",
    "SMC_SENDPAGE_CNT",
    "SMC_URG_DATA_CNT",
    "SMC_SPLICE_CNT",
    "SMC_CORK_CNT",
    "SMC_NDLY_CNT",
    "SMC_RX_BYTES",
    "SMC_TX_BYTES",
    "SMC_RX_CNT",
    "SMC_TX_CNT",
]
# Buffer usage, printed by smc-tools from 1.8.4.
RMB_USAGE_COUNTERS = ["SMC_RX_RMB_USAGE", "SMC_TX_RMB_USAGE"]
