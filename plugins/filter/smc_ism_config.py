# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter smc_ism_config: the ISM functions a host uses for SMC-D itself."""

from __future__ import annotations

DOCUMENTATION = r"""
name: smc_ism_config
author: s390x.network contributors (@s390x-network)
version_added: 0.1.0
short_description: The ISM functions a host powers on and binds to ism for its own SMC-D
description:
  - O(fids) (the smc role's C(smc_ism_fids)), when given, wins; otherwise the ISM functions of the
    host's partition that no guest has, for SMC-D. A host that is no partition (a KVM guest) gets
    its ISM function from its KVM host and gets none here.
options:
  _input:
    description: The host's view from P(s390x.network.cpc_host#filter).
    type: dict
    required: true
  fids:
    description: FIDs to use instead of the model's (integers or hex strings).
    type: raw
  protocol:
    description: The SMC protocol; only C(smcd) takes functions from the model.
    type: str
    default: smcd
    choices: [smcd, smcr]
"""

EXAMPLES = r"""
- name: Read the ISM functions this host uses for SMC-D
  ansible.builtin.set_fact:
    ism_plan: "{{ host_view | s390x.network.smc_ism_config(smc_ism_fids, smc_protocol) }}"
"""

RETURN = r"""
_value:
  description: C(partition), C(fids), C(labels) (C(0x606)), C(config) (zpci_function entries) and C(errors).
  type: dict
"""

from ansible_collections.s390x.network.plugins.plugin_utils.cpc_host import smc_ism_config as _config
from ansible_collections.s390x.network.plugins.plugin_utils.plain_data import plain


def smc_ism_config(view, fids=None, protocol="smcd"):
    return _config(plain(view or {}), plain(fids), protocol)


class FilterModule(object):
    """s390x.network smc_ism_config filter."""

    def filters(self):
        return {"smc_ism_config": smc_ism_config}
