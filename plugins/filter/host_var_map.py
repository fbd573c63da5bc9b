# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter host_var_map: one host variable of every given host, as a mapping."""

from __future__ import annotations

DOCUMENTATION = r"""
name: host_var_map
author: s390x.network contributors (@s390x-network)
version_added: 0.1.0
short_description: One variable of each inventory host, host name -> value
description:
  - Reads the variable O(name) of each host in O(hosts) from C(hostvars) and returns host name -> its value, V(null)
    for a host without it. Only that variable is read (templated) of each host.
options:
  _input:
    description: C(hostvars).
    type: dict
    required: true
  hosts:
    description: The inventory hosts (C(groups['all'])).
    type: list
    elements: str
    required: true
  name:
    description: The variable to read.
    type: str
    required: true
"""

EXAMPLES = r"""
- name: Check the software PNET entries of every host
  ansible.builtin.debug:
    msg: "{{ iocds_cpcs | s390x.network.guest_pnet_findings(hostvars | s390x.network.host_var_map(groups['all'], 'smc_pnet_config')) }}"
"""

RETURN = r"""
_value:
  description: Host name -> the value of its variable (V(null) when it has none).
  type: dict
"""

from ansible.errors import AnsibleFilterError


def host_var_map(hostvars, hosts, name):
    from ansible_collections.s390x.network.plugins.plugin_utils.host_variables import host_var_map as _map

    if not isinstance(name, str) or not name:
        raise AnsibleFilterError("host_var_map: name must be a variable name, got %r" % (name,))
    return _map("host_var_map", hostvars, hosts, name)


class FilterModule(object):
    """s390x.network host_var_map filter."""

    def filters(self):
        return {"host_var_map": host_var_map}
