# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter guest_pnet_findings: guests with a native ISM function and no software PNET entry."""

from __future__ import annotations

DOCUMENTATION = r"""
name: guest_pnet_findings
author: s390x.network contributors (@s390x-network)
version_added: 0.1.0
short_description: KVM guests that get a native ISM function they cannot use for SMC-D
description:
  - A KVM guest's virtio-net or MacVTap NIC has no PNET ID from the IOCDS. A native ISM function
    (one whose VCHID or function has a PNET ID) is only used by SMC-D when the guest's software PNET
    table puts its rendezvous interface under the same PNET ID (C(smc_pnet_config)); otherwise SMC-D
    falls back to TCP.
  - Returns one message per such function, naming the fix. Guests that are not in O(pnet_configs)
    are not checked.
options:
  _input:
    description: The CPC models (a list of C(cpc) dicts, as the iocds role's C(iocds_cpcs)).
    type: list
    elements: dict
    required: true
  pnet_configs:
    description:
      - Inventory host name -> that host's C(smc_pnet_config) (V(null) when it has none), for the
        hosts of the inventory (P(s390x.network.host_var_map#filter) reads it from C(hostvars), see the example).
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Fail on guests that would fall back to TCP
  ansible.builtin.fail:
    msg: "{{ findings }}"
  vars:
    pnet_configs: "{{ hostvars | s390x.network.host_var_map(groups['all'], 'smc_pnet_config') }}"
    findings: "{{ iocds_cpcs | s390x.network.guest_pnet_findings(pnet_configs) }}"
  when: findings | length > 0
"""

RETURN = r"""
_value:
  description: One message per guest function that SMC-D could not use.
  type: list
  elements: str
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.s390x.network.plugins.plugin_utils.plain_data import plain


def guest_pnet_findings(cpcs, pnet_configs):
    from ansible_collections.s390x.network.plugins.module_utils.iocp.cpc_model import guest_pnet_findings as _findings
    from ansible_collections.s390x.network.plugins.module_utils.iocp.cpc_model import normalize_cpc

    if not isinstance(pnet_configs, dict):
        raise AnsibleFilterError(
            "guest_pnet_findings: pnet_configs must map host names to smc_pnet_config, got %r"
            % type(pnet_configs).__name__
        )
    findings = []
    configs = plain(pnet_configs)
    for cpc in cpcs or []:
        model, errors, _warnings = normalize_cpc(plain(cpc))
        if errors:
            continue  # the model's own validation reports them
        findings.extend(_findings(model, configs))
    return findings


class FilterModule(object):
    """s390x.network guest_pnet_findings filter."""

    def filters(self):
        return {"guest_pnet_findings": guest_pnet_findings}
