# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter guest_device_args: libvirt_device arguments for each guest of a KVM host."""

from __future__ import annotations

DOCUMENTATION = r"""
name: guest_device_args
author: s390x.network contributors (@s390x-network)
version_added: 0.1.0
short_description: libvirt_device arguments for each guest of a KVM host
description:
  - Turns C(kvm_guests) and the host's view of the cpc model (P(s390x.network.cpc_host#filter))
    into one C(name), C(state), C(hostdevs), C(interfaces) dict per guest.
  - A guest's hostdevs are its own C(hostdevs) entries, then the ISM functions the model gives it
    that the list does not name. A hostdev without C(uid) takes the function's UID from the model.
  - The old state names present, exact and absent become merged, overridden and deleted.
  - Fails naming the field when a hostdev FID cannot be read, and with the view's C(errors) (the
    model's errors, a FID given to two guests) when it has any.
options:
  _input:
    description: The host's C(kvm_guests).
    type: list
    elements: dict
    required: true
  view:
    description: The host's view from P(s390x.network.cpc_host#filter).
    type: dict
    required: true
  state:
    description: The state of guests that do not name one.
    type: str
    default: merged
  managed:
    description: C(managed) of hostdevs that do not say.
    type: bool
    default: true
"""

EXAMPLES = r"""
- name: Build the device arguments of each guest
  ansible.builtin.set_fact:
    guests: "{{ kvm_guests | s390x.network.guest_device_args(host_view, state='merged') }}"
"""

RETURN = r"""
_value:
  description: One dict per guest (C(name), C(state), C(hostdevs), C(interfaces)).
  type: list
  elements: dict
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.s390x.network.plugins.plugin_utils.plain_data import plain


def guest_device_args(kvm_guests, view, state="merged", managed=True):
    from ansible_collections.s390x.network.plugins.plugin_utils.cpc_host import guest_device_args as _args

    view = plain(view or {})
    if view.get("errors"):
        raise AnsibleFilterError("; ".join(view["errors"]))
    guests, errors = _args(plain(kvm_guests), view, default_state=state, managed=bool(managed))
    if errors:
        raise AnsibleFilterError("; ".join(errors))
    return guests


class FilterModule(object):
    """s390x.network guest_device_args filter."""

    def filters(self):
        return {"guest_device_args": guest_device_args}
