# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kernel's SMC decline codes (``SMC_CLC_DECL_*`` in net/smc/smc_clc.h), once for every user:
the pre-flight names them as the kernel does, the netlink statistics as smc-tools prints them.

Each entry: kernel name, code, the name smc-tools (smc-tools' ``smcd stats`` reason table) prints
for it, or None for the codes it does not know (it prints ``[unknown]`` for those).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DECLINE_CODES = (
    ("SMC_CLC_DECL_MEM", 0x01010000, "MEMORY"),
    ("SMC_CLC_DECL_TIMEOUT_CL", 0x02010000, "TIMEOUT_CL"),
    ("SMC_CLC_DECL_TIMEOUT_AL", 0x02020000, "TIMEOUT_AL"),
    ("SMC_CLC_DECL_CNFERR", 0x03000000, "CNF_ERR"),
    ("SMC_CLC_DECL_PEERNOSMC", 0x03010000, "PEER_NO_SMC"),
    ("SMC_CLC_DECL_IPSEC", 0x03020000, "IPSEC"),
    ("SMC_CLC_DECL_NOSMCDEV", 0x03030000, "NOSMCDEV"),
    ("SMC_CLC_DECL_NOSMCDDEV", 0x03030001, "NOSMCDDEV"),
    ("SMC_CLC_DECL_NOSMCRDEV", 0x03030002, "NOSMCRDEV"),
    ("SMC_CLC_DECL_NOISM2SUPP", 0x03030003, "NOISM2SUPP"),
    ("SMC_CLC_DECL_NOV2EXT", 0x03030004, "NOV2EXT"),
    ("SMC_CLC_DECL_NOV2DEXT", 0x03030005, "NOV2DEXT"),
    ("SMC_CLC_DECL_NOSEID", 0x03030006, "NOSEID"),
    ("SMC_CLC_DECL_NOSMCD2DEV", 0x03030007, "NOSMCD2DEV"),
    ("SMC_CLC_DECL_NOUEID", 0x03030008, None),
    ("SMC_CLC_DECL_RELEASEERR", 0x03030009, None),
    ("SMC_CLC_DECL_MAXCONNERR", 0x0303000A, None),
    ("SMC_CLC_DECL_MAXLINKERR", 0x0303000B, None),
    ("SMC_CLC_DECL_MODEUNSUPP", 0x03040000, "MODEUNSUPP"),
    ("SMC_CLC_DECL_RMBE_EC", 0x03050000, "RMBE_EC"),
    ("SMC_CLC_DECL_OPTUNSUPP", 0x03060000, "OPTUNSUPP"),
    ("SMC_CLC_DECL_DIFFPREFIX", 0x03070000, "DIFFPREFIX"),
    ("SMC_CLC_DECL_GETVLANERR", 0x03080000, "GETVLANERR"),
    ("SMC_CLC_DECL_ISMVLANERR", 0x03090000, "ISMVLANERR"),
    ("SMC_CLC_DECL_NOACTLINK", 0x030A0000, "NOACTLINK"),
    ("SMC_CLC_DECL_NOSRVLINK", 0x030B0000, "NOSRVLINK"),
    ("SMC_CLC_DECL_VERSMISMAT", 0x030C0000, "VERSMISMAT"),
    ("SMC_CLC_DECL_MAX_DMB", 0x030D0000, "MAX_DMB"),
    ("SMC_CLC_DECL_NOROUTE", 0x030E0000, None),
    ("SMC_CLC_DECL_NOINDIRECT", 0x030F0000, None),
    ("SMC_CLC_DECL_SYNCERR", 0x04000000, "SYNCERR"),
    ("SMC_CLC_DECL_PEERDECL", 0x05000000, "PEERDECL"),
    ("SMC_CLC_DECL_INTERR", 0x09990000, None),
    ("SMC_CLC_DECL_ERR_RTOK", 0x09990001, None),
    ("SMC_CLC_DECL_ERR_RDYLNK", 0x09990002, None),
    ("SMC_CLC_DECL_ERR_REGBUF", 0x09990003, None),
)
#: kernel name -> code
CODE_OF = dict((name, code) for name, code, _tool in DECLINE_CODES)
#: code -> the name smc-tools prints (only the codes it knows)
TOOL_NAME = dict((code, tool) for _name, code, tool in DECLINE_CODES if tool is not None)
