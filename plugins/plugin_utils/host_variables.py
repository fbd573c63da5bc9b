# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The host variables a filter that takes ``hostvars`` reads, and only those.

Reading a key of ``hostvars[host]`` templates it; a filter that looked at all of them would template
every variable of every host. Each filter names the variables it needs.
"""

from __future__ import annotations

from collections.abc import Mapping

from ansible.errors import AnsibleFilterError

from ansible_collections.s390x.network.plugins.plugin_utils.plain_data import plain


def selected_host_vars(filter_name, hostvars, hosts, names):
    """``{host: {name: plain value}}`` of the variables ``names`` that each of ``hosts`` has; a host
    that is not in ``hostvars`` has none. Errors name the filter."""
    if not isinstance(hostvars, Mapping):
        raise AnsibleFilterError(
            "%s: the input must be hostvars (a mapping), got %s" % (filter_name, type(hostvars).__name__)
        )
    if isinstance(hosts, str) or not isinstance(hosts, (list, tuple)):
        raise AnsibleFilterError("%s: hosts must be a list of inventory host names, got %r" % (filter_name, hosts))
    result = {}
    for host in (str(h) for h in hosts):
        try:
            hv = hostvars[host]
        except KeyError:
            hv = {}
        if not isinstance(hv, Mapping):
            raise AnsibleFilterError("%s: hostvars[%s] is not a mapping" % (filter_name, host))
        result[host] = dict((key, plain(hv[key])) for key in names if key in hv)
    return result


def host_var_map(filter_name, hostvars, hosts, name):
    """``{host: value}`` of the variable ``name`` of each of ``hosts`` (None where a host has none)."""
    variables = selected_host_vars(filter_name, hostvars, hosts, (name,))
    return dict((host, values.get(name)) for host, values in variables.items())
