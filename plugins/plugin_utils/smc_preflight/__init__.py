# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The SMC pre-flight (docs/smc-preflight.md): what two SMC peers will negotiate, or why they fall
back to TCP, and whether the hosts' counters agree.

The filters use this surface: ``inventory_pairs`` and ``inventory_host_facts`` (``role_input``: the
inventory's and the roles' variables), ``predict`` (``predict``: the kernel's decisions replayed by
``client``, ``server`` and ``replay``, on facts ``facts`` normalises, some from ``model`` and
``live``), ``table`` and ``summary`` (``table``); ``check`` compares predictions with counters."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.s390x.network.plugins.plugin_utils.smc_preflight.common import (  # noqa: F401
    PREDICTIONS,
    SMCD,
    SMCD_V1,
    SMCD_V2,
    SMCR,
    SMCR_V1,
    SMCR_V2,
    TCP,
    UNKNOWN,
    PreflightError,
    code_text,
)
from ansible_collections.s390x.network.plugins.plugin_utils.smc_preflight.facts import (  # noqa: F401
    kernel_smcd_v2,
    kernel_smcr_v2,
    normalize_facts,
)
from ansible_collections.s390x.network.plugins.plugin_utils.smc_preflight.predict import (  # noqa: F401
    predict,
    predict_pair,
)
from ansible_collections.s390x.network.plugins.plugin_utils.smc_preflight.role_input import (  # noqa: F401
    VARIABLES,
    inventory_host_facts,
    inventory_pairs,
    service_warnings,
)
from ansible_collections.s390x.network.plugins.plugin_utils.smc_preflight.table import summary, table  # noqa: F401
