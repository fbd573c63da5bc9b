#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: smc_ueid
short_description: Manage the user-defined EIDs (UEIDs) of SMC v2
version_added: 0.1.0
description:
  - Manages the kernel's table of user-defined Enterprise IDs (UEIDs). SMC v2 peers (SMC-Dv2 across
    ISM, SMC-Rv2) only connect when they share an EID, either the system EID (SEID) that the kernel
    derives from the machine, or a UEID both sides define; UEIDs let systems on different machines, or
    groups of systems on one machine, be set apart.
  - Resource-module style, O(config) lists UEIDs and O(state) says what to do with them. The module reads
    the table first and sends only the changes needed; O(seid) also decides whether the system EID is offered.
  - Two backends send the same kernel commands of the generic netlink family C(SMC_GEN_NETLINK)
    (C(SMC_NETLINK_DUMP_UEID), C(_ADD_UEID), C(_REMOVE_UEID), C(_FLUSH_UEID), C(_DUMP_SEID), C(_ENABLE_SEID),
    C(_DISABLE_SEID)), see O(backend) - C(smcd ueid show|add|del|flush) and C(smcd seid show|enable|disable) of
    smc-tools 1.7.0 and later, or the module itself over a netlink socket, without smc-tools. Both need a kernel
    whose SMC has that family (upstream 5.11 and later, or a distribution backport); on a kernel whose C(smc)
    is loaded but lacks it the module says so instead of suggesting C(modprobe smc).
  - As M(s390x.network.smc_pnet) and M(s390x.network.smcd_info), V(auto) prefers the tool, so that the module
    sees the kernel the way smc-tools and the other modules see it (on the emulated lab of this collection,
    whose hosts share a kernel without SMC, only the tools reach the emulated kernel).
  - The table lives in the kernel only, for the whole system (not per network namespace), and is empty after
    a reboot or after C(smc) is unloaded; run the module at every boot (the C(s390x.network.smc) role applies
    C(smc_ueids) at every run).
author:
  - s390x.network contributors (@s390x-network)
extends_documentation_fragment:
  - s390x.network.attributes
options:
  config:
    description:
      - UEIDs, 1 to 32 characters; the first A-Z or 0-9, the others A-Z, 0-9, C(.) or C(-), as the kernel accepts
        them. Trailing blanks are ignored (the kernel pads with blanks); lower case is refused, as the kernel refuses it.
      - At most 4 (the kernel's limit) in the table.
    type: list
    elements: str
    default: []
  state:
    description:
      - V(merged) adds the UEIDs of O(config) and keeps the others.
      - V(overridden) makes the table exactly O(config) (empty O(config) removes every UEID).
      - V(deleted) removes the UEIDs of O(config); empty O(config) removes every UEID.
      - V(gathered) changes nothing and returns the table as RV(gathered).
      - When the last UEID goes, the kernel offers the system EID again.
    type: str
    choices: [merged, overridden, deleted, gathered]
    default: merged
  seid:
    description:
      - V(disabled) stops offering the system EID, so that only peers with a common UEID connect; the kernel allows
        that only while at least one UEID is defined. V(enabled) offers it again.
      - Unset, the setting is left as it is (the kernel's default is enabled).
      - Only on hosts that have a system EID (ISMv2-capable SMC-D); elsewhere the module fails when it is set.
    type: str
    choices: [enabled, disabled]
  backend:
    description:
      - V(tool) runs C(smcd ueid)/C(smcd seid) (smc-tools 1.7.0 or later) and fails when C(smcd) is not installed
        or has no C(ueid) object.
      - V(netlink) asks the kernel directly over a generic netlink socket; no smc-tools needed.
      - V(auto) takes the tool when C(smcd) is installed and knows C(ueid), netlink otherwise.
    type: str
    choices: [auto, tool, netlink]
    default: auto
notes:
  - Needs the C(smc) kernel module loaded (for example by M(s390x.network.smc_sysctl)); the module never loads it.
  - Changing the table needs root (CAP_NET_ADMIN), whichever backend.
seealso:
  - module: s390x.network.smc_pnet
  - module: s390x.network.smcd_info
"""

EXAMPLES = r"""
- name: Only peers with the UEID PLEX1.PROD connect with SMC v2
  s390x.network.smc_ueid:
    config:
      - PLEX1.PROD
    seid: disabled

- name: Exactly these UEIDs
  s390x.network.smc_ueid:
    state: overridden
    config: [PLEX1.PROD, PLEX1.TEST]

- name: Remove every UEID (the system EID is offered again)
  s390x.network.smc_ueid:
    state: deleted

- name: Read the table
  s390x.network.smc_ueid:
    state: gathered
  register: ueids
"""

RETURN = r"""
before:
  description: The UEIDs before the run.
  returned: when O(state) is not V(gathered)
  type: list
  elements: str
  sample: []
after:
  description: The UEIDs after the run (in check mode, as they would be).
  returned: when O(state) is not V(gathered)
  type: list
  elements: str
  sample: ["PLEX1.PROD"]
gathered:
  description: The UEIDs, as O(config).
  returned: when O(state=gathered)
  type: list
  elements: str
seid:
  description:
    - The system EID (C(system_eid), null on hosts without one) and whether it is offered (C(enabled)) after the
      run (in check mode, as it would be).
  returned: when O(state) is not V(gathered)
  type: dict
  sample: {"system_eid": "IBM-SYSZ-ISMSEID00000000C0DE8561", "enabled": false}
commands:
  description:
    - The commands run (or that would run, in check mode), with their UEID - C(smcd) command lines with the tool
      backend, netlink command names with the netlink backend.
  returned: always
  type: list
  elements: str
  sample: ["SMC_NETLINK_ADD_UEID PLEX1.PROD", "SMC_NETLINK_DISABLE_SEID"]
backend:
  description: V(tool) when C(smcd) was run, V(netlink) when the kernel was asked directly.
  returned: once the table was read
  type: str
  sample: tool
drift:
  description:
    - What differs between the parameters and the table, one row (C(kind) V(ueid), C(object) C(ueid table),
      C(scope) V(active), C(difference) such as C(ueids none -> PLEX1.PROD, seid enabled -> disabled));
      after a run, what it changed.
  returned: when O(state) is not V(gathered)
  type: list
  elements: dict
rollback:
  description:
    - After a failed command, the commands sent to restore the previous table and whether that worked. Returned
      with the failure.
  returned: on failure after a change started
  type: dict
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.s390x.network.plugins.module_utils.engine import resource as resource_engine
from ansible_collections.s390x.network.plugins.module_utils.smc.pnet_resource import report_backend
from ansible_collections.s390x.network.plugins.module_utils.smc.ueid_resource import BACKENDS, STATES, UeidTable


def main():
    module = AnsibleModule(
        argument_spec=dict(
            config=dict(type="list", elements="str", default=[]),
            state=dict(type="str", default="merged", choices=list(STATES)),
            seid=dict(type="str", choices=["enabled", "disabled"]),
            backend=dict(type="str", default="auto", choices=list(BACKENDS)),
        ),
        supports_check_mode=True,
    )
    resource = UeidTable(module)
    resource_engine.run(report_backend(module, resource), resource)


if __name__ == "__main__":
    main()
