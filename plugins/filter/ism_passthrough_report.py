# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter ism_passthrough_report: a KVM host's pass-through functions as the libvirt role reads them."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: ism_passthrough_report
author: s390x.network contributors (@s390x-network)
version_added: 0.1.0
short_description: A KVM host's pass-through ISM functions with what the host reported
description:
  - Per function of the plan's C(passthrough) list the inventory's C(guest), C(uid) (the host's
    when it reported one) and C(vchid), with the C(pci_address), C(iommu_group), C(driver) and
    C(pnet_id) P(s390x.network.zpci_function#module) returned, and C(managed).
extends_documentation_fragment:
  - s390x.network.ism_passthrough
options:
  result:
    description: The registered result of P(s390x.network.zpci_function#module) (its C(functions)).
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Report the PCI addresses for the libvirt role
  ansible.builtin.set_fact:
    ism_passthrough_functions: "{{ plan | s390x.network.ism_passthrough_report(result, ism_passthrough_mode) }}"
"""

RETURN = r"""
_value:
  description: One dict per function (C(fid), C(guest), C(uid), C(vchid), C(pci_address), C(iommu_group),
    C(driver), C(pnet_id), C(managed)).
  type: list
  elements: dict
"""


def ism_passthrough_report(*args, **kwargs):
    from ansible_collections.s390x.network.plugins.plugin_utils.ism_passthrough import ism_passthrough_report as _impl

    return _impl(*args, **kwargs)


class FilterModule(object):
    """s390x.network ism_passthrough_report filter."""

    def filters(self):
        return {"ism_passthrough_report": ism_passthrough_report}
