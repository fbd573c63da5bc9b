# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter ism_passthrough_config: zpci_function entries of a KVM host's pass-through functions."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: ism_passthrough_config
author: s390x.network contributors (@s390x-network)
version_added: 0.1.0
short_description: zpci_function entries for the ISM functions a KVM host passes through
description:
  - One entry per function of the plan's C(passthrough) list, powered on and expected to be ISM; in
    C(static) mode bound to C(vfio-pci) too (in C(managed) mode libvirt binds it when the guest starts).
  - Fails naming the entry when a FID is not an integer, and the mode when it is not one of the choices.
extends_documentation_fragment:
  - s390x.network.ism_passthrough
"""

EXAMPLES = r"""
- name: Power on and bind the functions
  s390x.network.zpci_function:
    config: "{{ plan | s390x.network.ism_passthrough_config(ism_passthrough_mode) }}"
"""

RETURN = r"""
_value:
  description: C(config) entries of P(s390x.network.zpci_function#module).
  type: list
  elements: dict
"""


def ism_passthrough_config(*args, **kwargs):
    from ansible_collections.s390x.network.plugins.plugin_utils.ism_passthrough import ism_passthrough_config as _impl

    return _impl(*args, **kwargs)


class FilterModule(object):
    """s390x.network ism_passthrough_config filter."""

    def filters(self):
        return {"ism_passthrough_config": ism_passthrough_config}
