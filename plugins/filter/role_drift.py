# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter role_drift: the drift rows of one of the collection's roles on one host."""

from __future__ import annotations

DOCUMENTATION = r"""
name: role_drift
author: s390x.network contributors (@s390x-network)
version_added: 0.1.0
short_description: The drift rows of one s390x.network role on one host
description:
  - Returns the rows (C(kind), C(object), C(scope), C(difference)) of everything the role found
    different from the inventory, read from the module results the role registered (for the
    smc role C(smc_ism_result), C(smc_sysctl_result), C(smc_pnet_result), C(smc_ueid_result) and
    C(smc_services_result)) with the rules of P(s390x.network.result_drift#filter).
  - A result the role did not register (it stopped before that step) is an V(error) row, and so is
    a result that carries C(unreachable) or C(failed) instead of rows, and the failure of the smc
    role's planning step C(smc_plan); when the role registered none of its results (it did not run
    on the host) the filter returns V(null).
  - The roles define C(<role>_drift) with this filter (for example C(qeth_drift)), evaluated only
    when a play reads it; P(s390x.network.drift_rows#filter) uses the same rules for a fleet.
  - For a role that is not one of the collection's, returns that role's own C(<role>_drift)
    variable when it is a list, else V(null).
options:
  _input:
    description: The host's variables, C(hostvars[inventory_hostname]).
    type: raw
    required: true
  role:
    description: The role's short name, for example V(qeth) or V(smc).
    type: str
    required: true
"""

EXAMPLES = r"""
- name: Show what the qeth role found different on this host
  ansible.builtin.debug:
    msg: "{{ hostvars[inventory_hostname] | s390x.network.role_drift('qeth') }}"
"""

RETURN = r"""
_value:
  description: One dict per drifted object and scope (C(kind), C(object), C(scope), C(difference)), or V(null).
  type: list
  elements: dict
"""


def role_drift(*args, **kwargs):
    from ansible_collections.s390x.network.plugins.plugin_utils.drift_report import role_drift as _impl

    return _impl(*args, **kwargs)


class FilterModule(object):
    """s390x.network role_drift filter."""

    def filters(self):
        return {"role_drift": role_drift}
