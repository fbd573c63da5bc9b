# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter smc_preflight_disagreements: the pairs whose statistics contradict the pre-flight, as sentences."""

from __future__ import annotations

DOCUMENTATION = r"""
name: smc_preflight_disagreements
author: s390x.network contributors (@s390x-network)
version_added: 0.1.0
short_description: The pairs whose SMC statistics contradict the pre-flight's prediction, one sentence each
description:
  - "Takes the result of P(s390x.network.smc_preflight_compare#filter) (or its C(rows)) and returns, for each
    row with the verdict V(disagree), C(client -> server (predicted PREDICTION REASON_NAME): reason)."
options:
  _input:
    description: The compare result, or its C(rows).
    type: raw
    required: true
"""

EXAMPLES = r"""
- name: Fail on a disagreement
  ansible.builtin.assert:
    that: check.summary.disagree == 0
    fail_msg: "{{ check | s390x.network.smc_preflight_disagreements | join('; ') }}"
"""

RETURN = r"""
_value:
  description: One sentence per disagreeing pair.
  type: list
  elements: str
"""

from ansible_collections.s390x.network.plugins.plugin_utils.plain_data import plain


def smc_preflight_disagreements(result):
    from ansible_collections.s390x.network.plugins.plugin_utils.smc_preflight_text import disagreements

    return disagreements(plain(result))


class FilterModule(object):
    """s390x.network smc_preflight_disagreements filter."""

    def filters(self):
        return {"smc_preflight_disagreements": smc_preflight_disagreements}
