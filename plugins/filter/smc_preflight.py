# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter smc_preflight: predict SMC-D / SMC-R / TCP fallback for pairs of inventory hosts."""

from __future__ import annotations

DOCUMENTATION = r"""
name: smc_preflight
author: s390x.network contributors (@s390x-network)
version_added: 0.1.0
short_description: Predict what each pair of SMC peers negotiates, or why it falls back to TCP
description:
  - For each pair (client, server) of inventory hosts, replays the decisions the Linux kernel takes in the
    SMC CLC handshake (net/smc/af_smc.c, smc_pnet.c, smc_clc.c, smc_ism.c) and predicts C(SMC-D v2),
    C(SMC-D v1), C(SMC-R v2), C(SMC-R v1) or C(TCP) with the kernel's C(SMC_CLC_DECL_*) decline code, the
    side that records it and a fix. docs/smc-preflight.md lists the rules and their sources.
  - The facts of a host come from the C(cpc) model (its ISM and RoCE functions, PNET IDs, guests with ISM
    functions, HiperSockets and OSA CHPIDs), the smc role's variables (C(smc_pnet_config), C(smc_ueids),
    C(smc_seid), C(smc_load_module), membership of C(smc_hosts)), the pre-flight's own variables
    (C(smc_preflight_interface), C(smc_preflight_ipsec), C(smc_preflight_facts)) and, when the host
    variable C(smc_preflight_live) holds them, the results of the read-only module runs of
    playbooks/preflight.yml, which win over the inventory.
  - A prediction that depends on a fact nobody gave is V(unknown), with every outcome it could have and
    what to check; nothing is guessed. When every outcome it could have is of one technology, the prediction
    is that technology, V(SMC-D), V(SMC-R) or V(TCP), and the outcomes stay in C(why) and C(possible), so a
    certain fallback is counted as one.
  - The roles' variables it reads have the defaults of the roles' C(meta/argument_specs.yml).
  - Per-service buffer sizes (C(smc_services)) of C(smc_hosts) members above what the host's kernel allocates
    are returned as warnings; the kernel levels are those the buffer sizing of M(s390x.network.smc_sysctl) uses.
options:
  _input:
    description: C(hostvars).
    type: dict
    required: true
  hosts:
    description: The inventory hosts to consider (C(groups['all'])).
    type: list
    elements: str
    required: true
  pairs:
    description:
      - Pairs to predict, each C({client, server}) or C([client, server]) of inventory host names.
      - Default, every ordered pair of each C(cpc.smcd_peers) group (partition names mapped to their hosts);
        without C(smcd_peers), every ordered pair of the hosts in the C(smc_hosts) group.
    type: list
    elements: raw
  assume:
    description:
      - Facts for hosts that neither the inventory nor the host give, for example the C(kernel) release
        of hosts that could not be reached. Only facts that are still not known are filled (in C(seid) and
        C(rendezvous), entry by entry).
    type: dict
"""

EXAMPLES = r"""
- name: Predict every pair of cpc.smcd_peers
  ansible.builtin.set_fact:
    preflight: "{{ hostvars | s390x.network.smc_preflight(groups['all']) }}"

- name: Print the table
  ansible.builtin.debug:
    msg: "{{ preflight.table }}"

- name: One pair, assuming a kernel where the hosts were not reachable
  ansible.builtin.debug:
    msg: >-
      {{ hostvars | s390x.network.smc_preflight(groups['all'], pairs=[['g1', 'lpar-b']],
         assume={'kernel': '4.18.0-477.10.1.el8_8.s390x'}) }}
"""

RETURN = r"""
_value:
  description: The predictions.
  type: dict
  contains:
    rows:
      description:
        - One per pair, with C(client), C(server), C(prediction) (V(SMC-D v2), V(SMC-D v1), V(SMC-R v2),
          V(SMC-R v1), V(TCP), V(unknown), or V(SMC-D), V(SMC-R) when the version depends on facts that are not
          known), C(reason_code) (hex string such as V(0x03030000)),
          C(reason_name) (such as V(SMC_CLC_DECL_NOSMCDEV)), C(side) (V(client) or V(server), the host whose
          statistics count the fallback under that code), C(why) and C(fix) (sentences), C(unknown) (the
          facts the prediction depends on), C(possible) (each outcome with its conditions, when there is more than
          one) and C(alternatives) (what a technology-only prediction leaves open, the versions or decline codes).
      type: list
      elements: dict
    table:
      description: Text lines (pair, prediction, reason, fix), the first one the heading.
      type: list
      elements: str
    summary:
      description: Counts of the rows, C(smc), C(tcp) and C(unknown).
      type: dict
    unresolved:
      description: Names in C(cpc.smcd_peers) that map to no inventory host.
      type: list
      elements: str
    facts:
      description: The facts used per host (C(sources) says where they came from).
      type: dict
    warnings:
      description: Per-service buffer sizes that a host's kernel caps, one sentence each, naming the host.
      type: list
      elements: str
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.s390x.network.plugins.plugin_utils.plain_data import plain


def smc_preflight(hostvars, hosts, pairs=None, assume=None):
    from ansible_collections.s390x.network.plugins.plugin_utils import smc_preflight as _pf
    from ansible_collections.s390x.network.plugins.plugin_utils.host_variables import selected_host_vars

    # the host variables the pre-flight reads (the rest of hostvars is never templated)
    variables = selected_host_vars("smc_preflight", hostvars, hosts, _pf.VARIABLES)
    hosts = [str(h) for h in hosts]
    assume = plain(assume) if assume is not None else {}
    if not isinstance(assume, dict):
        raise AnsibleFilterError("smc_preflight: assume must be a dict of facts, got %r" % (assume,))
    unresolved = []
    if pairs is None:
        pairs, unresolved = _pf.inventory_pairs(variables, hosts)
    pairs = plain(pairs)
    facts = {}
    warnings = []
    indexes = []  # the cpc models, each read once for all hosts
    try:
        for host in hosts:
            hv = variables[host]
            live = hv.get("smc_preflight_live")
            facts[host] = _pf.inventory_host_facts(host, hv, live=live, assume=assume, indexes=indexes)
            warnings.extend(_pf.service_warnings(host, hv, facts[host].get("kernel")))
        rows = _pf.predict(facts, pairs)
    except _pf.PreflightError as exc:
        raise AnsibleFilterError("smc_preflight: %s" % exc)
    return {
        "rows": rows,
        "table": _pf.table(rows),
        "summary": _pf.summary(rows),
        "unresolved": unresolved,
        "facts": facts,
        "warnings": warnings,
    }


class FilterModule(object):
    """s390x.network smc_preflight filter."""

    def filters(self):
        return {"smc_preflight": smc_preflight}
