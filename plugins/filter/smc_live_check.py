# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter smc_live_check: the live SMC connection of each pair, planned and judged (verify.yml)."""

from __future__ import annotations

DOCUMENTATION = r"""
name: smc_live_check
author: s390x.network contributors (@s390x-network)
version_added: 0.1.0
short_description: Plan a live SMC connection per pair of SMC peers and judge what the kernels negotiated
description:
  - The pairs are every pair of each C(cpc.smcd_peers) group, with the server's address in the subnet the peers
    share (C(interfaces_findings.pairs) of the interfaces role; without it, the same check over O(hosts)), then every
    other pair of hosts that both use SMC-R (the smc role's C(smc_plan.roce.enabled)) with the server's address in
    the first subnet they share. Peers without a common subnet are V(not checked).
  - Returns the plan - which host listens (on which address, for how many connections) and which host connects
    to which - and, from the results the play registered (C(verify_smc_live_server) of the listener through
    M(ansible.builtin.async_status), C(verify_smc_live_clients) of the clients' loop of M(s390x.network.smc_check)),
    one row per pair with what the kernels negotiated.
  - A pair disagrees when its connection is not what the pre-flight predicts (O(preflight); technology, version,
    fallback reason), when a buffer is not of the size the smc role sets (per direction C(smc_rmem)/C(smc_wmem),
    else C(smc_buffer_size), as the host's kernel allocates it for the connection's technology), or when the two
    ends disagree; it fails when no connection could be made or read. A pair with a host without SMC is
    V(not checked), with the reason.
options:
  _input:
    description: C(hostvars).
    type: dict
    required: true
  hosts:
    description: The hosts of the play (C(ansible_play_hosts_all)); a pair with another host is not checked.
    type: list
    elements: str
    required: true
  preflight:
    description: The rows of P(s390x.network.smc_preflight#filter) for the pairs (C(pairs) of this filter's plan).
    type: list
    elements: dict
  timeout:
    description: Seconds a client may take per connection; a listener waits that long for each connection of the
      busiest client, and once more (at most 120).
    type: int
    default: 20
"""

EXAMPLES = r"""
- name: Plan the connections
  ansible.builtin.set_fact:
    smc_live: "{{ hostvars | s390x.network.smc_live_check(ansible_play_hosts_all) }}"

- name: Judge them, after the listeners and the clients ran
  ansible.builtin.debug:
    msg: "{{ (hostvars | s390x.network.smc_live_check(ansible_play_hosts_all, preflight=rows)).table }}"
"""

RETURN = r"""
_value:
  description: The plan and the verdicts.
  type: dict
  contains:
    pairs:
      description: The pairs to connect, C(client), C(server), C(address), C(network), C(kind) (V(smcd_peers), V(smcr)).
      type: list
      elements: dict
    unplanned:
      description: Pairs that cannot be connected (a host outside the play, SMC-R peers without a common subnet), with C(reason).
      type: list
      elements: dict
    listen:
      description: Per listening host, C(address), C(connections) and C(timeout).
      type: dict
    connect:
      description: Per client host, the list of C(server) and C(address) to connect to.
      type: dict
    rows:
      description:
        - One per pair, C(client), C(server), C(address), C(mode), C(version), C(fallback) (per side), C(buffers) (per
          side, C(rmbe_size), C(peer_rmbe_size), C(sndbuf_size)), C(link_group), C(prediction), C(status) (V(agree),
          V(disagree), V(failed), V(not checked)), C(findings) and C(notes) (what was not compared, and why).
      type: list
      elements: dict
    table:
      description: Text lines, the heading first.
      type: list
      elements: str
    disagreements:
      description: One sentence per pair that disagrees or failed, naming the pair.
      type: list
      elements: str
    unchecked:
      description: One sentence per pair that was not checked, naming the pair and the reason.
      type: list
      elements: str
    summary:
      description: Counts by status, C(agree), C(disagree), C(failed), C(not_checked).
      type: dict
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.s390x.network.plugins.plugin_utils.plain_data import plain


def smc_live_check(hostvars, hosts, preflight=None, timeout=None):
    from ansible_collections.s390x.network.plugins.plugin_utils import smc_live_table
    from ansible_collections.s390x.network.plugins.plugin_utils.host_variables import host_var_map, selected_host_vars
    from ansible_collections.s390x.network.plugins.plugin_utils.smc_preflight.common import PreflightError
    from ansible_collections.s390x.network.plugins.plugin_utils.smc_preflight.role_input import role_defaults

    if timeout is None:
        timeout = smc_live_table.DEFAULT_TIMEOUT
    variables = selected_host_vars("smc_live_check", hostvars, hosts, smc_live_table.VARIABLES)
    hosts = [str(h) for h in hosts]
    try:
        timeout = int(timeout)
    except (TypeError, ValueError):
        raise AnsibleFilterError("smc_live_check: timeout must be a number of seconds, got %r" % (timeout,))
    if not 1 <= timeout <= smc_live_table.MAX_TIMEOUT:
        raise AnsibleFilterError(
            "smc_live_check: timeout between 1 and %d seconds, got %d" % (smc_live_table.MAX_TIMEOUT, timeout)
        )
    preflight = plain(preflight) if preflight is not None else []
    if isinstance(preflight, dict):
        preflight = preflight.get("rows") or []
    if not isinstance(preflight, list):
        raise AnsibleFilterError("smc_live_check: preflight must be the rows of smc_preflight, got %r" % (preflight,))
    try:
        defaults = role_defaults("smc")
    except PreflightError as exc:
        raise AnsibleFilterError("smc_live_check: %s" % exc)
    result = smc_live_table.plan(variables, hosts, timeout)
    # the registered results of the hosts that listened or connected (a skipped one is not read)
    for name, ran in (
        (smc_live_table.SERVER_RESULT, result["listen"]),
        (smc_live_table.CLIENT_RESULTS, result["connect"]),
    ):
        for host, value in host_var_map("smc_live_check", hostvars, sorted(ran), name).items():
            if value is not None:
                variables.setdefault(host, {})[name] = value
    result.update(smc_live_table.compare(result, variables, preflight, defaults))
    return result


class FilterModule(object):
    """s390x.network smc_live_check filter."""

    def filters(self):
        return {"smc_live_check": smc_live_check}
