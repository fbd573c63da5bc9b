# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What every part of the SMC pre-flight shares: the predictions, the error, decline code texts."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.s390x.network.plugins.module_utils.smc.clc import CODE_OF

SMCD_V2 = "SMC-D v2"
SMCD_V1 = "SMC-D v1"
SMCR_V2 = "SMC-R v2"
SMCR_V1 = "SMC-R v1"
# the technology when every branch of a prediction agrees on it but not on the version
SMCD = "SMC-D"
SMCR = "SMC-R"
TCP = "TCP"
UNKNOWN = "unknown"
PREDICTIONS = (SMCD_V2, SMCD_V1, SMCR_V2, SMCR_V1, SMCD, SMCR, TCP, UNKNOWN)
#: prediction -> technology
TECHNOLOGY = {SMCD_V2: SMCD, SMCD_V1: SMCD, SMCR_V2: SMCR, SMCR_V1: SMCR, SMCD: SMCD, SMCR: SMCR, TCP: TCP}

MACHINES_ISMV2 = ("z15", "z16", "z17")


class PreflightError(ValueError):
    """Facts or pairs that cannot be read; the message names the field."""


def code_text(name):
    """``SMC_CLC_DECL_NOSMCDEV`` -> ``0x03030000``."""
    return "0x%08x" % CODE_OF[name]
