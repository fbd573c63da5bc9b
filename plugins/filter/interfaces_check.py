# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter interfaces_check: the interface configuration of the whole inventory, checked at once."""

from __future__ import annotations

DOCUMENTATION = r"""
name: interfaces_check
author: s390x.network contributors (@s390x-network)
version_added: 0.1.0
short_description: Check the interface configuration across the inventory before any host changes
description:
  - Reads C(interfaces_config), C(qeth_devices), C(kvm_guests) and the C(cpc) model of the given hosts and
    returns the errors and warnings found across them - an MTU above what the HiperSockets frame size of
    the CHPID allows (naming both), a VLAN on a layer-3 qeth device, one address on two interfaces of one
    network, SMC peers (C(cpc.smcd_peers)) without a common IP subnet (an error where only SMC v1 exists,
    a warning otherwise), a guest's MacVTap source that is a layer-3 qeth device.
options:
  _input:
    description: C(hostvars).
    type: dict
    required: true
  hosts:
    description: The inventory hosts to check (C(groups['all'])).
    type: list
    elements: str
    required: true
"""

EXAMPLES = r"""
- name: Check the inventory
  ansible.builtin.set_fact:
    interfaces_findings: "{{ hostvars | s390x.network.interfaces_check(groups['all']) }}"
"""

RETURN = r"""
_value:
  description: The findings.
  type: dict
  contains:
    errors:
      description: One sentence per problem, naming the host and the field.
      type: list
      elements: str
    warnings:
      description: Findings that do not stop the run.
      type: list
      elements: str
    pairs:
      description:
        - The SMC peers (C(cpc.smcd_peers)) with a common subnet - C(client), C(server), C(address) (the
          server's address in that subnet) and C(network); the rendezvous connections to check.
      type: list
      elements: dict
"""


# the host variables the check reads (the rest of hostvars is never templated)
VARIABLES = ("cpc", "interfaces_config", "qeth_devices", "kvm_guests")


def interfaces_check(hostvars, hosts):
    from ansible_collections.s390x.network.plugins.plugin_utils import ip_inventory_check
    from ansible_collections.s390x.network.plugins.plugin_utils.host_variables import selected_host_vars

    variables = selected_host_vars("interfaces_check", hostvars, hosts, VARIABLES)
    errors, warnings, pairs = ip_inventory_check.check(variables, [str(h) for h in hosts])
    return {"errors": errors, "warnings": warnings, "pairs": pairs}


class FilterModule(object):
    """s390x.network interfaces_check filter."""

    def filters(self):
        return {"interfaces_check": interfaces_check}
