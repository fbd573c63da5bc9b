# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter cpc_host: one inventory host's view of the cpc model."""

from __future__ import annotations

DOCUMENTATION = r"""
name: cpc_host
author: s390x.network contributors (@s390x-network)
version_added: 0.1.0
short_description: What one inventory host owns in the cpc model
description:
  - Normalises and validates the C(cpc) model (docs/cpc-model.md) and returns the part of it that
    one inventory host works with, so that roles never parse the model themselves.
  - The host's partition is the C(cpc.partitions) entry whose C(host) is the host, unless
    O(partition) names one. A host that is no partition (a KVM guest) gets no functions.
  - A FID is given to a guest in C(cpc.ism[].functions[].guest); C(kvm_guests[].hostdevs) only adds
    options. A FID that two guests claim, in the model or in any host's C(kvm_guests), is an error.
options:
  _input:
    description: The C(cpc) model as written in the inventory, or V(null) when there is none.
    type: raw
    required: true
  host:
    description: The inventory host name (C(inventory_hostname)).
    type: str
    required: true
  partition:
    description: The partition name when it is not found through C(cpc.partitions[].host).
    type: str
  guests_by_host:
    description: Inventory host name -> that host's C(kvm_guests), for the FID ownership check.
    type: dict
"""

EXAMPLES = r"""
- name: Read this host's part of the model
  ansible.builtin.set_fact:
    host_view: >-
      {{ cpc | default(none) | s390x.network.cpc_host(inventory_hostname,
         guests_by_host=dict(groups['all'] | zip(groups['all'] | map('extract', hostvars)
                                                 | map(attribute='kvm_guests', default=[])))) }}
"""

RETURN = r"""
_value:
  description: The host's view.
  type: dict
  contains:
    defined:
      description: Whether a model was given.
      type: bool
    partition:
      description: The host's partition (upper case), V(null) for a host that is no partition.
      type: str
    errors:
      description: Model errors, an unknown O(partition), FIDs given to two guests.
      type: list
      elements: str
    warnings:
      description: Model warnings.
      type: list
      elements: str
    functions:
      description: ISM and RoCE functions of the partition (C(fid), C(uid), C(type), C(pnet_id), C(guest)).
      type: list
      elements: dict
    passthrough:
      description: The partition's ISM functions that are given to guests.
      type: list
      elements: dict
    own_ism_fids:
      description: The partition's ISM FIDs no guest has.
      type: list
      elements: int
    guests:
      description: Guest name -> the ISM functions the model gives it (of this partition when the host is one).
      type: dict
    hipersockets:
      description: The partition's HiperSockets devices (C(busid), C(chpid), C(frame_size), C(mtu)).
      type: list
      elements: dict
    ism_uids:
      description: C(fid) and C(uid) of every ISM function of the CPC.
      type: list
      elements: dict
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.s390x.network.plugins.plugin_utils.plain_data import plain


def cpc_host(cpc, host, partition=None, guests_by_host=None):
    from ansible_collections.s390x.network.plugins.plugin_utils.cpc_host import host_view

    guests = plain(guests_by_host) if guests_by_host is not None else {}
    if not isinstance(guests, dict):
        raise AnsibleFilterError(
            "cpc_host: guests_by_host must map host names to kvm_guests, got %s" % type(guests_by_host).__name__
        )
    return host_view(plain(cpc), str(host), partition=partition or None, guests_by_host=guests)


class FilterModule(object):
    """s390x.network cpc_host filter."""

    def filters(self):
        return {"cpc_host": cpc_host}
