# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter smc_preflight_compare: the SMC pre-flight's predictions against what the hosts counted."""

from __future__ import annotations

DOCUMENTATION = r"""
name: smc_preflight_compare
author: s390x.network contributors (@s390x-network)
version_added: 0.1.0
short_description: Compare the SMC pre-flight's predictions with the SMC statistics of the hosts
description:
  - Takes the rows of the filter P(s390x.network.smc_preflight#filter) and, per host, the SMC-D and SMC-R
    statistics read with M(s390x.network.smcd_info), and returns per pair a verdict, V(agree), V(disagree),
    V(not observed) or V(not compared), with the reason and what the host counted.
  - The kernel counts per host, not per pair (net/smc/smc_stats.c) - successful connections per technology
    (SMC-D, SMC-R), role (client, server) and version, and TCP fallbacks per role with their decline code,
    one table for both technologies. A host's counts mix every peer it talked to, so a verdict is
    V(disagree) only when the host counted activity in the role the prediction speaks about and none of
    it can be the predicted outcome.
  - Predicted C(SMC-D) or C(SMC-R) - the client's SMC connections of that technology as client agree; client
    fallbacks with no client SMC connection of either technology (both read) disagree; SMC connections of the
    technology none of which has the predicted version, or no client activity, are V(not observed).
  - Predicted C(TCP) with code R on side S - the host of S counted a fallback as S with R (agree); only
    fallbacks with other codes as S, or SMC connections as S and no fallback as S (disagree); a code that
    smc-tools may have left out (it prints three per role) or names V([unknown]), or no activity as S, is
    V(not observed).
  - V(unknown) predictions, and C(TCP) without a decline code, are V(not compared).
options:
  _input:
    description: The pre-flight's rows (C(preflight.rows)), or its whole result (a dict with C(rows)).
    type: raw
    required: true
  stats:
    description:
      - Per inventory host, C({smcd, smcr}) with the M(s390x.network.smcd_info) result (or its C(stats)) of
        that protocol; C(smcd_info_smcd) and C(smcd_info_smcr), as the pre-flight keeps what it read in
        C(smc_preflight_live), are read too. A host or protocol not given was not read.
      - With O(variable), C(hostvars), and each host's readings are its variable of that name.
    type: dict
    required: true
  variable:
    description: The host variable in C(hostvars) that holds a host's readings, for example V(smc_preflight_live).
    type: str
"""

EXAMPLES = r"""
- name: Compare with the statistics playbooks/preflight.yml read
  ansible.builtin.set_fact:
    preflight_check: "{{ preflight.rows | s390x.network.smc_preflight_compare(hostvars, variable='smc_preflight_live') }}"

- name: Fail on a disagreement
  ansible.builtin.assert:
    that: preflight_check.summary.disagree == 0
    fail_msg: "{{ preflight_check.table }}"

- name: Readings given directly
  ansible.builtin.debug:
    msg: >-
      {{ preflight.rows | s390x.network.smc_preflight_compare({'lpar-a': {'smcd': smcd_stats, 'smcr': smcr_stats}}) }}
"""

RETURN = r"""
_value:
  description: The verdicts.
  type: dict
  contains:
    rows:
      description:
        - One per pre-flight row, with C(client), C(server), C(prediction), C(reason_name) and C(side) (of the
          prediction), C(host) and C(role) (whose counters were compared), C(protocol) (V(smcd) or V(smcr) for a
          predicted SMC-D or SMC-R), C(observed) (what the host counted in that role), C(verdict) (V(agree),
          V(disagree), V(not observed), V(not compared)) and C(reason).
      type: list
      elements: dict
    summary:
      description: Counts by verdict, C(agree), C(disagree), C(not_observed), C(not_compared).
      type: dict
    table:
      description: Text lines (pair, prediction, observed, verdict, reason), the first one the heading.
      type: list
      elements: str
"""

from collections.abc import Mapping

from ansible.errors import AnsibleFilterError

from ansible_collections.s390x.network.plugins.plugin_utils.plain_data import plain


def _readings(stats, rows, variable):
    """host -> readings (plain data), only for the hosts the rows name."""
    hosts = []
    for row in rows:
        for key in ("client", "server"):
            if isinstance(row, Mapping) and row.get(key) and row[key] not in hosts:
                hosts.append(str(row[key]))
    result = {}
    for host in hosts:
        try:
            value = stats[host]
        except KeyError:
            continue
        if variable is not None:
            # hostvars of a host that is not in the inventory is undefined, not a mapping
            if not isinstance(value, Mapping) or variable not in value:
                continue
            value = value[variable]
        result[host] = plain(value)
    return result


def smc_preflight_compare(rows, stats, variable=None):
    from ansible_collections.s390x.network.plugins.plugin_utils.smc_preflight import check as _check

    if isinstance(rows, Mapping) and "rows" in rows:
        rows = rows["rows"]
    if not isinstance(rows, (list, tuple)):
        raise AnsibleFilterError("smc_preflight_compare: the input must be the pre-flight's rows, got %r" % (rows,))
    if not isinstance(stats, Mapping):
        raise AnsibleFilterError(
            "smc_preflight_compare: stats must be a mapping (host -> readings, or hostvars with variable), got %s"
            % type(stats).__name__
        )
    if variable is not None and not isinstance(variable, str):
        raise AnsibleFilterError("smc_preflight_compare: variable must be a host variable name, got %r" % (variable,))
    rows = plain(list(rows))
    try:
        return _check.compare(rows, _readings(stats, rows, variable))
    except _check.CheckError as exc:
        raise AnsibleFilterError("smc_preflight_compare: %s" % exc)


class FilterModule(object):
    """s390x.network smc_preflight_compare filter."""

    def filters(self):
        return {"smc_preflight_compare": smc_preflight_compare}
