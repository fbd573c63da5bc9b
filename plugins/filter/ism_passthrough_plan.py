# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter ism_passthrough_plan: a KVM host's view of the CPC model, checked for the ism_passthrough role."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: ism_passthrough_plan
author: s390x.network contributors (@s390x-network)
version_added: 0.1.0
short_description: A KVM host's view of the CPC model, or a failure naming what the inventory lacks
description:
  - Returns the view of P(s390x.network.cpc_host#filter) unchanged when the role can use it, and fails otherwise -
    no C(cpc) model, the view's errors (a FID given to two guests, an unknown partition), no partition for the host.
options:
  _input:
    description: The host's view from P(s390x.network.cpc_host#filter).
    type: dict
    required: true
  hostname:
    description: The host, for the message.
    type: str
    required: true
"""

EXAMPLES = r"""
- name: Read this host's ISM functions from the inventory
  ansible.builtin.set_fact:
    plan: "{{ cpc | s390x.network.cpc_host(inventory_hostname) | s390x.network.ism_passthrough_plan(inventory_hostname) }}"
"""

RETURN = r"""
_value:
  description: The view (C(partition), C(passthrough) ...), as P(s390x.network.cpc_host#filter) returns it.
  type: dict
"""


def ism_passthrough_plan(*args, **kwargs):
    from ansible_collections.s390x.network.plugins.plugin_utils.ism_passthrough import ism_passthrough_plan as _impl

    return _impl(*args, **kwargs)


class FilterModule(object):
    """s390x.network ism_passthrough_plan filter."""

    def filters(self):
        return {"ism_passthrough_plan": ism_passthrough_plan}
