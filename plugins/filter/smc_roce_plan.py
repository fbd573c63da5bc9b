# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter smc_roce_plan: the RoCE functions a host powers on for SMC-R."""

from __future__ import annotations

DOCUMENTATION = r"""
name: smc_roce_plan
author: s390x.network contributors (@s390x-network)
version_added: 0.1.0
short_description: The RoCE functions a host powers on for SMC-R
description:
  - O(fids) (the smc role's C(smc_roce_fids)), when given, wins; otherwise the C(cpc.roce) and
    C(cpc.network_express) (NETH, NETD) functions of the host's partition. FIDs are integers or hex strings
    (C(1c0), C(0x1c0)), read as M(s390x.network.zpci_function) reads them.
  - O(smcr) (C(smc_smcr)) decides whether the host uses SMC-R; V(null) does when the partition has RoCE or
    Network Express functions.
options:
  _input:
    description: The host's view from P(s390x.network.cpc_host#filter).
    type: dict
    required: true
  fids:
    description: FIDs to use instead of the model's.
    type: raw
  smcr:
    description: Whether the host uses SMC-R; V(null) decides by the model.
    type: raw
"""

EXAMPLES = r"""
- name: Read the RoCE functions this host uses for SMC-R
  ansible.builtin.set_fact:
    roce_plan: "{{ host_view | s390x.network.smc_roce_plan(smc_roce_fids, smc_smcr) }}"
"""

RETURN = r"""
_value:
  description:
    - C(enabled), C(fids) (integers), C(labels) (C(0x1c0)), C(functions) (the model's functions of those FIDs,
      C(fid), C(type), C(pchid), C(port), C(pnet_id)), C(config) (zpci_function entries) and C(errors).
  type: dict
"""

from ansible_collections.s390x.network.plugins.plugin_utils.plain_data import plain


def smc_roce_plan(view, fids=None, smcr=None):
    from ansible_collections.s390x.network.plugins.plugin_utils.smc_smcr import roce_plan

    return roce_plan(plain(view or {}), plain(fids), smcr)


class FilterModule(object):
    """s390x.network smc_roce_plan filter."""

    def filters(self):
        return {"smc_roce_plan": smc_roce_plan}
