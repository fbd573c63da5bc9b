#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

# The documentation of the action plugin plugins/action/smc_plan.py, which does the work on the
# controller; this file is never sent to a host.

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: smc_plan
short_description: Plan the SMC functions and services of one host from the CPC model, and check every input
version_added: 0.1.0
description:
  - Computes on the controller, from the CPC model O(cpc) and the smc role's variables, what the smc role configures
    on the host O(host) - the RoCE or Network Express (NETH, NETD) functions it powers on for SMC-R, its own ISM functions for SMC-D (those of its
    partition that no KVM guest has, or O(ism_fids)) and the services it runs with SMC - and returns them as
    RV(roce), RV(ism) and RV(services).
  - Also returns what the role's module tasks pass - RV(functions) for M(s390x.network.zpci_function), RV(sysctl)
    for M(s390x.network.smc_sysctl) - and which optional steps the inventory asks for (RV(steps)), so that those
    tasks template plain values.
  - Fails with one message naming every wrong field before anything is changed - the CPC model, the ISM FIDs, the
    services and O(dropin_name), the PNET entries as M(s390x.network.smc_pnet) would refuse them (also as lines of
    its boot unit with O(pnet_boot_unit)), and for a host that uses SMC-R its RoCE functions, O(smcr_interface) and
    O(smcr_pnet_id).
  - The smc role runs it as its first task and registers the result as C(smc_plan); it is the role's input check.
author:
  - s390x.network contributors (@s390x-network)
attributes:
  action:
    description: Runs on the controller as an action plugin.
    support: full
  async:
    description: Runs on the controller only.
    support: none
  bypass_host_loop:
    description: Runs once for every host of the play.
    support: none
  check_mode:
    description: Changes nothing, so it runs unchanged in check mode.
    support: full
  diff_mode:
    description: Changes nothing, so there is no diff to return.
    support: none
  idempotent:
    description: Never changes anything.
    support: full
  platform:
    description: Runs on the controller; the host is only named.
    support: full
    platforms: all
options:
  cpc:
    description:
      - The CPC model (the C(cpc) inventory variable described in docs/inventory.md); null when the inventory has
        none, so that only O(ism_fids), O(roce_fids) and O(services) are planned.
      - When not given, the host's variable C(cpc), or null when the host has none.
    type: raw
  host:
    description: The inventory name of the host, found in C(cpc.partitions[].host). Defaults to the current host.
    type: str
  partition:
    description: The host's partition name, when C(cpc.partitions) does not name the host (C(smc_ism_partition)).
    type: str
    default: ""
  roce_fids:
    description: The RoCE FIDs the host uses for SMC-R (C(smc_roce_fids)).
    type: raw
  smcr:
    description: Whether the host uses SMC-R (C(smc_smcr); null decides from the model).
    type: raw
  ism_fids:
    description: The ISM FIDs the host uses itself (C(smc_ism_fids)); null takes those of its partition.
    type: raw
  protocol:
    description: The SMC flavour the host is sized for (C(smc_protocol)).
    type: str
    choices: [smcd, smcr]
    default: smcd
  services:
    description: The services the host runs with SMC, as M(s390x.network.smc_services) takes them (C(smc_services)).
    type: list
    elements: raw
    default: []
  dropin_name:
    description: The name of the services' systemd drop-in (C(smc_dropin_name)).
    type: str
    required: true
  pnet_config:
    description: The PNET table entries, as M(s390x.network.smc_pnet) takes them (C(smc_pnet_config)).
    type: list
    elements: raw
    default: []
  pnet_state:
    description: How the PNET entries are applied (C(smc_pnet_state)).
    type: str
    choices: [merged, overridden, deleted]
    default: merged
  pnet_boot_unit:
    description: Whether the entries are also written as lines of the boot unit (C(smc_pnet_persistent)).
    type: bool
    default: true
  smcr_interface:
    description: The interface SMC-R pairs with its RoCE ports (C(smc_smcr_interface)).
    type: str
    default: ""
  smcr_pnet_id:
    description: The PNET ID written into the software PNET entries of SMC-R (C(smc_smcr_pnet_id)).
    type: str
    default: ""
  rmem:
    description:
      - The SMC receive buffer size (C(smc_rmem)); null or an empty string sets none. M(s390x.network.smc_sysctl)
        checks it.
    type: raw
  wmem:
    description:
      - The SMC send buffer size (C(smc_wmem)); null or an empty string sets none. M(s390x.network.smc_sysctl) checks
        it.
    type: raw
  tcp_rmem_min:
    description:
      - Minimum of C(net.ipv4.tcp_rmem) on kernels without C(net.smc.rmem)
        (C(smc_tcp_rmem_min)); null or an empty string sets none.
    type: raw
  tcp_rmem_max:
    description:
      - Maximum of C(net.ipv4.tcp_rmem) on kernels without C(net.smc.rmem)
        (C(smc_tcp_rmem_max)); null or an empty string sets none.
    type: raw
  tcp_wmem_min:
    description:
      - Minimum of C(net.ipv4.tcp_wmem) on kernels without C(net.smc.wmem)
        (C(smc_tcp_wmem_min)); null or an empty string sets none.
    type: raw
  tcp_wmem_max:
    description:
      - Maximum of C(net.ipv4.tcp_wmem) on kernels without C(net.smc.wmem)
        (C(smc_tcp_wmem_max)); null or an empty string sets none.
    type: raw
  raise_core_mem_max:
    description:
      - Whether C(net.core.rmem_max)/C(wmem_max) are raised to the largest service buffer size above the kernel
        default of 212992 bytes (C(smc_raise_core_mem_max)).
    type: bool
    default: true
  settings:
    description:
      - Other C(net.smc.*) settings (C(smc_settings)), each checked against its kernel range as
        M(s390x.network.smc_sysctl) checks it; an error names C(smc_settings.<key>) and the range.
    type: dict
    default: {}
  smcr_max_send_wr:
    description:
      - C(net.smc.smcr_max_send_wr) (Linux 6.19; C(smc_smcr_max_send_wr)), 2 to 2048; null or an empty string sets none.
        An error names the variable and the range; a kernel without the key gets a warning from
        M(s390x.network.smc_sysctl), not the value.
    type: raw
  smcr_max_recv_wr:
    description:
      - C(net.smc.smcr_max_recv_wr) (Linux 6.19; C(smc_smcr_max_recv_wr)), 2 to 2048, as O(smcr_max_send_wr).
    type: raw
  install_packages:
    description: Whether the role may install smc-tools when M(s390x.network.smc_sysctl) reports them missing.
    type: bool
    default: true
  ueids:
    description:
      - The user-defined EIDs (C(smc_ueids)); only whether there are any is planned here (null and an empty string
        are none). M(s390x.network.smc_ueid) checks them.
    type: raw
    default: []
  ueid_state:
    description: How the UEIDs are applied (C(smc_ueid_state)).
    type: str
    choices: [merged, overridden, deleted]
    default: merged
  seid:
    description: What to do with the system EID (C(smc_seid)).
    type: str
    choices: [enabled, disabled, unchanged]
    default: unchanged
seealso:
  - module: s390x.network.zpci_function
  - module: s390x.network.smc_services
  - module: s390x.network.smc_pnet
"""

EXAMPLES = r"""
- name: Plan the ISM functions and services of this host
  s390x.network.smc_plan:
    services:
      - name: db2.service
        rmem: 1M
    dropin_name: 50-s390x-network-smc.conf
  register: plan

- name: Show the ISM functions the host uses for SMC-D
  ansible.builtin.debug:
    msg: "{{ plan.ism.labels }}"
"""

RETURN = r"""
roce:
  description: The RDMA functions for SMC-R (C(cpc.roce) and C(cpc.network_express)).
  returned: success
  type: dict
  contains:
    enabled:
      description: Whether the host uses SMC-R.
      type: bool
    fids:
      description: The RoCE FIDs.
      type: list
      elements: int
    labels:
      description: The RoCE FIDs as hex strings.
      type: list
      elements: str
    functions:
      description: The functions of the model, with their type (C(roce), C(roc2), C(neth), C(netd)), PCHIDs,
        PNET IDs and ports (null for Network Express, whose PCHID is the port).
      type: list
      elements: dict
    config:
      description: The RoCE entries of M(s390x.network.zpci_function)'s O(s390x.network.zpci_function#module:config).
      type: list
      elements: dict
ism:
  description: The host's own ISM functions for SMC-D.
  returned: success
  type: dict
  contains:
    partition:
      description: The host's partition, or null for a host that is no partition.
      type: str
    fids:
      description: The ISM FIDs.
      type: list
      elements: int
    labels:
      description: The ISM FIDs as hex strings.
      type: list
      elements: str
    config:
      description: The ISM entries of M(s390x.network.zpci_function)'s O(s390x.network.zpci_function#module:config).
      type: list
      elements: dict
services:
  description: The services that run with SMC.
  returned: success
  type: dict
  contains:
    services:
      description: The services, normalised as M(s390x.network.smc_services) takes them.
      type: list
      elements: dict
    names:
      description: The unit names.
      type: list
      elements: str
    max_rmem:
      description: The largest receive buffer size of the services, in bytes.
      type: int
    max_wmem:
      description: The largest send buffer size of the services, in bytes.
      type: int
functions:
  description: What the role passes to M(s390x.network.zpci_function).
  returned: success
  type: dict
  contains:
    needed:
      description: Whether the host has ISM or RoCE functions to configure.
      type: bool
    config:
      description: The ISM entries of RV(ism.config) and then the RoCE entries of RV(roce.config).
      type: list
      elements: dict
sysctl:
  description:
    - What the role passes to M(s390x.network.smc_sysctl); null values are not passed.
    - C(protocol) is V(smcr) for a host that uses RoCE and no ISM function, else O(protocol); C(core_rmem_max) and
      C(core_wmem_max) are the largest service sizes where they are above 212992 and O(raise_core_mem_max) is on.
    - C(settings) is O(settings) with O(smcr_max_send_wr) and O(smcr_max_recv_wr) where they are set.
  returned: success
  type: dict
  sample:
    rmem: 128K
    wmem: 128K
    protocol: smcd
    tcp_rmem_min: null
    tcp_rmem_max: null
    tcp_wmem_min: null
    tcp_wmem_max: null
    core_rmem_max: 1048576
    core_wmem_max: null
    settings:
      smcr_max_send_wr: 64
steps:
  description:
    - The optional steps the inventory asks of the host - C(tools) (installing smc-tools, when
      M(s390x.network.smc_sysctl) then reports them missing), C(smcr) (the SMC-R pairing), C(pnet) (PNET entries,
      an overridden table or the boot unit to remove) and C(ueid) (UEIDs or a SEID setting, applied while smc is
      loaded).
  returned: success
  type: dict
  sample:
    tools: true
    smcr: false
    pnet: false
    ueid: false
"""
