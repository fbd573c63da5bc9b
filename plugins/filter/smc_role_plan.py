# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter smc_role_plan: the smc role's plan for a host, failing on any wrong input."""

from __future__ import annotations

DOCUMENTATION = r"""
name: smc_role_plan
author: s390x.network contributors (@s390x-network)
version_added: 0.1.0
short_description: The smc role's plan for one host, and every check of its input
description:
  - From the host's view of the CPC model (P(s390x.network.cpc_host#filter)) and the smc role's variables, the RoCE
    functions the host powers on for SMC-R (as P(s390x.network.smc_roce_plan#filter)), its own ISM functions for
    SMC-D and the services it runs with SMC (as M(s390x.network.smc_services) takes them).
  - Fails with one message naming every wrong field, before the role's first change - the ISM FIDs, the services and
    O(dropin_name), the PNET entries as M(s390x.network.smc_pnet) would refuse them (also as lines of its boot unit
    with O(pnet_boot_unit)), and for a host that uses SMC-R its RoCE functions, O(smcr_interface) and O(smcr_pnet_id).
options:
  _input:
    description: The host's view from P(s390x.network.cpc_host#filter).
    type: dict
    required: true
  roce_fids:
    description: C(smc_roce_fids).
    type: raw
  smcr:
    description: C(smc_smcr).
    type: raw
  ism_fids:
    description: C(smc_ism_fids).
    type: raw
  protocol:
    description: C(smc_protocol).
    type: str
    default: smcd
  services:
    description: C(smc_services).
    type: list
    elements: raw
  dropin_name:
    description: C(smc_dropin_name).
    type: str
  pnet_config:
    description: C(smc_pnet_config).
    type: list
    elements: raw
  pnet_state:
    description: C(smc_pnet_state).
    type: str
    default: merged
  pnet_boot_unit:
    description: C(smc_pnet_persistent).
    type: bool
    default: true
  smcr_interface:
    description: C(smc_smcr_interface).
    type: str
  smcr_pnet_id:
    description: C(smc_smcr_pnet_id).
    type: str
"""

EXAMPLES = r"""
- name: Plan the host's SMC functions and services
  ansible.builtin.set_fact:
    plan: "{{ host_view | s390x.network.smc_role_plan(services=smc_services, dropin_name=smc_dropin_name) }}"
"""

RETURN = r"""
_value:
  description:
    - C(roce) (C(enabled), C(fids), C(labels), C(functions), C(config), C(errors)), C(ism) (C(partition), C(fids),
      C(labels), C(config), C(errors)) and C(services) (C(services), C(names), C(max_rmem), C(max_wmem), C(errors)).
  type: dict
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.s390x.network.plugins.plugin_utils.plain_data import plain


def smc_role_plan(view, **options):
    from ansible_collections.s390x.network.plugins.plugin_utils.smc_role_plan import RolePlanError
    from ansible_collections.s390x.network.plugins.plugin_utils.smc_role_plan import role_plan

    try:
        return role_plan(plain(view or {}), dict((key, plain(value)) for key, value in options.items()))
    except RolePlanError as exc:
        raise AnsibleFilterError(str(exc))


class FilterModule(object):
    """s390x.network smc_role_plan filter."""

    def filters(self):
        return {"smc_role_plan": smc_role_plan}
