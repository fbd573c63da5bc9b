# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter smc_services_plan: the smc role's smc_services normalised."""

from __future__ import annotations

DOCUMENTATION = r"""
name: smc_services_plan
author: s390x.network contributors (@s390x-network)
version_added: 0.1.0
short_description: The services the smc role runs with SMC, normalised
description:
  - Each entry of C(smc_services) is a unit name or a dict with C(name), C(rmem) and C(wmem).
    Names without C(.service) or C(.socket) get C(.service) and must then be systemd unit names
    (checked with the unit-name grammar); sizes are bytes or a number with a K or M suffix
    (binary, as C(smc_run) reads them), at least 16K.
  - With O(dropin_name), also the path and the text of each service's drop-in (built in Python with
    systemd's quoting), and with O(found) the drop-ins of services no longer listed.
options:
  _input:
    description: The role's C(smc_services).
    type: list
    elements: raw
    required: true
  dropin_name:
    description: The drop-in's file name, C([A-Za-z0-9_][A-Za-z0-9_.-]*.conf) (an error otherwise).
    type: str
  found:
    description: Paths of the files named O(dropin_name) below C(/etc/systemd/system).
    type: list
    elements: str
"""

EXAMPLES = r"""
- name: Read the services to run with SMC
  ansible.builtin.set_fact:
    plan: "{{ smc_services | s390x.network.smc_services_plan }}"
"""

RETURN = r"""
_value:
  description: >-
    C(services) (C(name), C(rmem), C(wmem), C(rmem_bytes), C(wmem_bytes); with O(dropin_name) also
    C(dir), C(path) and C(dropin)), C(names), C(max_rmem), C(max_wmem), C(errors) naming the entry and
    field; with O(dropin_name) C(dropin_name), with O(found) C(stale) (C(name), C(path)).
  type: dict
"""

from ansible_collections.s390x.network.plugins.module_utils.smc.services import smc_services_plan as _plan
from ansible_collections.s390x.network.plugins.plugin_utils.plain_data import plain


def smc_services_plan(services, **options):
    """``dropin_name`` (checked even when null) and ``found`` only when given."""
    return _plan(plain(services), **dict((key, plain(value)) for key, value in options.items()))


class FilterModule(object):
    """s390x.network smc_services_plan filter."""

    def filters(self):
        return {"smc_services_plan": smc_services_plan}
