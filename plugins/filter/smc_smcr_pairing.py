# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter smc_smcr_pairing: the PNET pairing of the SMC-R rendezvous interface and the RoCE ports."""

from __future__ import annotations

DOCUMENTATION = r"""
name: smc_smcr_pairing
author: s390x.network contributors (@s390x-network)
version_added: 0.1.0
short_description: Plan software PNET entries for SMC-R and check that the RoCE ports pair with the rendezvous interface
description:
  - SMC-R uses a RoCE port only under the PNET ID of the interface that carries the rendezvous. A port's PNET ID
    is the one the IOCDS gives it (the function's utility string), else its software PNET entry; the interface's
    is its CHPID's utility string, else its software entry.
  - Plans software entries under O(pnet_id) for the interface and the RDMA ports that have no PNET ID (none for a
    port whose PNET ID comes from the IOCDS, the kernel refuses those), unless O(pnet_config) has one.
  - Names ports as the inventory does, FID in hex and the card's PCHID and port (port 2 of a card is RDMA port 1
    of an Express2/3 function), and says per port how to make it pair.
options:
  _input:
    description: The C(functions) of the M(s390x.network.zpci_function) result.
    type: list
    elements: dict
    required: true
  fids:
    description: The RoCE FIDs of P(s390x.network.smc_roce_plan#filter).
    type: list
    elements: int
  interface:
    description: The rendezvous interface (the smc role's C(smc_smcr_interface)); empty for none.
    type: str
    default: ""
  interface_util_string:
    description: The C(util_string) of the interface's CHPID, raw or base64 (C(slurp)'s C(content)); empty for none.
    type: raw
  pnet_id:
    description: PNET ID for software entries (C(smc_smcr_pnet_id)); empty plans none.
    type: str
    default: ""
  pnet_config:
    description: The software PNET entries of the inventory (C(smc_pnet_config)); they win over planned ones.
    type: list
    elements: dict
  model_functions:
    description: The C(functions) of P(s390x.network.smc_roce_plan#filter) (card and port where sysfs has none).
    type: list
    elements: dict
"""

EXAMPLES = r"""
- name: Plan the software PNET entries for SMC-R and check the pairing
  ansible.builtin.set_fact:
    pairing: >-
      {{ smc_ism_result.functions | s390x.network.smc_smcr_pairing(fids=roce_plan.fids, interface='encE000',
         interface_util_string=chpid_util.content, pnet_id='NETR', pnet_config=smc_pnet_config,
         model_functions=roce_plan.functions) }}
"""

RETURN = r"""
_value:
  description:
    - C(entries) (software PNET entries to add), C(interface), C(interface_pnet_id), C(interface_pnet_source)
      (V(iocds), V(software), V(none)), C(ports) (per RDMA port C(fid), C(pci_address), C(port), C(pchid),
      C(pchid_port), C(label), C(pnet_id), C(source)), C(mismatches) (ports under another PNET ID than the
      interface) and C(message) (empty when every port pairs).
  type: dict
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.s390x.network.plugins.plugin_utils.plain_data import plain


def smc_smcr_pairing(
    functions,
    fids=None,
    interface="",
    interface_util_string=None,
    pnet_id="",
    pnet_config=None,
    model_functions=None,
):
    from ansible_collections.s390x.network.plugins.plugin_utils.smc_smcr import smcr_pairing

    functions = plain(functions)
    if functions is not None and not isinstance(functions, list):
        raise AnsibleFilterError(
            "smc_smcr_pairing: the input must be the zpci_function functions, got %r" % (functions,)
        )
    return smcr_pairing(
        functions or [],
        fids=plain(fids),
        interface=interface,
        interface_util_string=interface_util_string,
        pnet_id=pnet_id,
        pnet_config=plain(pnet_config),
        model_functions=plain(model_functions),
    )


class FilterModule(object):
    """s390x.network smc_smcr_pairing filter."""

    def filters(self):
        return {"smc_smcr_pairing": smc_smcr_pairing}
