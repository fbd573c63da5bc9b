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
  - Returns one row (C(kind), C(object), C(scope), C(difference)) per object that differs, from a
    result a role registered - the module's own C(drift) rows, which carry their C(kind). A failed
    result, or one whose host was unreachable, gives V(error) rows, and so does a result that is
    not skipped and carries no C(drift) rows (every module of the collection returns them).
  - A result that is not there (pass C(result | default(none))) gives an V(error) row, so that a
    renamed register cannot make a drift report silent.
options:
  _input:
    description: The registered result, or V(null) when the role has none.
    type: raw
    required: true
  kind:
    description:
      - The kind of the role's module (for example V(qeth), V(zpci), V(sysctl)), the C(kind) of the
        error rows and of rows that carry none.
    type: str
    required: true
  buffer_size:
    description:
      - With O(kind=sysctl), the smc role's C(smc_buffer_size); adds a row for each SMC buffer that the
        M(s390x.network.smc_sysctl) result asks the kernel for in another size than the inventory wants.
      - The size wanted per direction is O(rmem) (O(wmem)) when set, else O(buffer_size); an empty string leaves
        that direction alone (not compared), as the role then leaves it alone. drift.yml (through the role's
        report) and verify.yml judge the buffers with this one rule.
    type: raw
  rmem:
    description: With O(buffer_size), the smc role's C(smc_rmem) (V(null) when not set).
    type: raw
  wmem:
    description: With O(buffer_size), the smc role's C(smc_wmem) (V(null) when not set).
    type: raw
"""

EXAMPLES = r"""
- name: Report the rows of the qeth role
  ansible.builtin.set_fact:
    qeth_drift: "{{ qeth_result | default(none) | s390x.network.result_drift('qeth') }}"

- name: The SMC buffer sysctls, judged against the sizes the inventory wants
  ansible.builtin.set_fact:
    smc_buffer_rows: >-
      {{ smc_sysctl_result | default(none) | s390x.network.result_drift('sysctl', buffer_size=smc_buffer_size,
         rmem=smc_rmem | default(none), wmem=smc_wmem | default(none)) }}
"""

RETURN = r"""
_value:
  description: One dict per drifted object and scope (C(kind), C(object), C(scope), C(difference)).
  type: list
  elements: dict
"""


def result_drift(*args, **kwargs):
    from ansible_collections.s390x.network.plugins.plugin_utils.drift_report import result_drift as _impl

    return _impl(*args, **kwargs)


class FilterModule(object):
    """s390x.network result_drift filter."""

    def filters(self):
        return {"result_drift": result_drift}
