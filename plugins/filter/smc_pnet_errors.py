# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter smc_pnet_errors: the smc_pnet module's checks of PNET entries, on the controller."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: smc_pnet_errors
author: s390x.network contributors (@s390x-network)
version_added: 0.1.0
short_description: What the smc_pnet module would refuse in a list of PNET entries
description:
  - Runs the checks P(s390x.network.smc_pnet#module) applies to its O(s390x.network.smc_pnet#module:config)
    (PNET ID, interface and device names, port) and, with O(boot_unit), those of its boot unit's lines,
    so that a role can refuse bad entries before its first task changes a host.
  - Returns the messages, each naming the entry and field; an empty list when every entry is valid.
options:
  _input:
    description: The entries (the smc role's C(smc_pnet_config)).
    type: list
    elements: dict
    required: true
  state:
    description: The state the entries are for; V(deleted) accepts an entry with only C(pnet_id).
    type: str
    default: merged
  boot_unit:
    description: Whether the entries also go into the boot unit.
    type: bool
    default: true
  name:
    description: The name the messages give the list.
    type: str
    default: smc_pnet_config
"""

EXAMPLES = r"""
- name: Check the PNET entries before anything changes
  ansible.builtin.assert:
    that: (smc_pnet_config | s390x.network.smc_pnet_errors(state=smc_pnet_state)) | length == 0
    fail_msg: "{{ smc_pnet_config | s390x.network.smc_pnet_errors(state=smc_pnet_state) | join('; ') }}"
"""

RETURN = r"""
_value:
  description: One message per refused entry.
  type: list
  elements: str
"""

from ansible_collections.s390x.network.plugins.module_utils.smc.pnet_cmd import PnetError, normalize_entry
from ansible_collections.s390x.network.plugins.module_utils.smc.pnet_unit import exec_line_of
from ansible_collections.s390x.network.plugins.module_utils.engine.unit_syntax import UnitSyntaxError
from ansible_collections.s390x.network.plugins.plugin_utils.plain_data import plain


def smc_pnet_errors(entries, state="merged", boot_unit=True, name="smc_pnet_config"):
    entries = plain(entries)
    if not isinstance(entries, list):
        return ["%s: expected a list of entries, got %r" % (name, entries)]
    errors = []
    for index, item in enumerate(entries):
        try:
            entry = normalize_entry(item, index, allow_bare=(state == "deleted"))
            if boot_unit and state != "deleted" and (entry["interface"] or entry["ib_device"]):
                exec_line_of(entry, "config[%d]" % index)
        except (PnetError, UnitSyntaxError) as exc:
            errors.append(
                "%s%s" % (name, str(exc)[len("config") :] if str(exc).startswith("config") else ": " + str(exc))
            )
    return errors


class FilterModule(object):
    """s390x.network smc_pnet_errors filter."""

    def filters(self):
        return {"smc_pnet_errors": smc_pnet_errors}
