# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter drift_rows: one row per drifted object from the roles' registered results."""

from __future__ import annotations

DOCUMENTATION = r"""
name: drift_rows
author: s390x.network contributors (@s390x-network)
version_added: 0.1.0
short_description: Summarise the drift the s390x.network roles reported
description:
  - Takes the variables of every host (C(hostvars)) after the roles ran in check mode with diff
    (or after a correcting run) and returns one row per object that differs from the inventory.
  - The reports a host owes come from the inventory, not from what the host registered - the roles
    of every entry of O(plays) whose groups the host is in (O(groups)). Each is read from the module
    results the role registered with the rules of P(s390x.network.role_drift#filter) and the rows
    are concatenated; a role that is not one of the collection's reports through its own host
    variable C(<role>_drift).
  - An owed report that is not there (the host was unreachable from the start or became unreachable
    before the role, the role did not run) gives an V(error) row, and so does each result a role
    that stopped half way did not register and each result that carries C(unreachable) or
    C(failed) instead of rows. A missing report is never read as no drift.
  - The scope of a row says whether the running system (V(active)) or the configuration that
    survives a reboot (V(persistent)) differs; V(error) rows are checks that failed or were not made.
options:
  _input:
    description: C(hostvars), or any mapping of host name to that host's variables.
    type: dict
    required: true
  hosts:
    description:
      - The hosts the checks ran on, in this order (drift.yml passes its first play's
        C(ansible_play_hosts_all), which C(--limit) restricts and which keeps the hosts that became
        unreachable).
      - Default every host of the groups of O(plays).
    type: list
    elements: str
  plays:
    description:
      - The entries that name which roles run on which groups, C(s390x_network_plays) of the
        collection's C(playbooks/vars/plays.yml) (each with the lists C(groups) and C(roles)).
    type: list
    elements: dict
    required: true
  groups:
    description: The inventory's groups (C(groups)), group name to host names.
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Print the drift of every host
  ansible.builtin.debug:
    msg: "{{ hostvars | s390x.network.drift_rows(ansible_play_hosts_all, plays=s390x_network_plays, groups=groups) }}"
"""

RETURN = r"""
_value:
  description: One dict per drifted object.
  type: list
  elements: dict
  contains:
    host:
      description: Inventory host name.
      type: str
    kind:
      description:
        - What kind of object drifted, for example V(qeth), V(zpci), V(guest), V(sysctl), V(pnet),
          V(ueid), V(nic), V(ip), V(dropin); V(role) for a role that reported nothing, V(plan) for a
          role's planning step that failed.
      type: str
    object:
      description: Its plain name, for example C(0.0.8200:0.0.8201:0.0.8202) (qeth) or C(0x606) (zpci).
      type: str
    difference:
      description:
        - What differs in this scope, in one wording for every module - C(missing) (the object is
          not there), C(to remove), or C(key old -> new) per setting, comma-separated (for example
          C(power off -> on, driver_override - -> ism)); C(PATH differs) for a file.
      type: str
    scope:
      description: V(active), V(persistent) or V(error).
      type: str
"""


def drift_rows(*args, **kwargs):
    from ansible_collections.s390x.network.plugins.plugin_utils.drift_report import drift_rows as _impl

    return _impl(*args, **kwargs)


class FilterModule(object):
    """s390x.network drift summary filter."""

    def filters(self):
        return {"drift_rows": drift_rows}
