# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter result_drift: the drift rows of one registered module result."""

from __future__ import annotations

DOCUMENTATION = r"""
name: result_drift
author: s390x.network contributors (@s390x-network)
version_added: 0.1.0
short_description: The drift rows of one registered s390x.network module result
description:
  - Returns one row (C(object), C(scope), C(difference)) per object that differs, from a result a
    role registered; the module's own C(drift) rows where it returns them, else rows read from its
    C(before)/C(after) or the commands it would run. A failed result gives V(error) rows.
  - A result that is not there (pass C(result | default(none))) gives an V(error) row, so that a
    renamed register cannot make a drift report silent.
options:
  _input:
    description: The registered result, or V(null) when the role has none.
    type: raw
    required: true
  kind:
    description: What the result is about.
    type: str
    required: true
    choices: [qeth, zpci, guest, sysctl, pnet, ueid, nic, ip, dropin, dropin_removed]
"""

EXAMPLES = r"""
- name: Report the rows of the qeth role
  ansible.builtin.set_fact:
    qeth_drift: "{{ qeth_result | default(none) | s390x.network.result_drift('qeth') }}"
"""

RETURN = r"""
_value:
  description: One dict per drifted object (C(object), C(scope), C(difference)).
  type: list
  elements: dict
"""

from ansible_collections.s390x.network.plugins.plugin_utils.drift_report import result_drift


class FilterModule(object):
    """s390x.network result_drift filter."""

    def filters(self):
        return {"result_drift": result_drift}
