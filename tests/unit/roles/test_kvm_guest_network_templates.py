# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kvm_guest_network role's XML templates, rendered with Ansible's own templating.

hostdev.xml.j2 / interface.xml.j2 render exactly the XML that module_utils/libvirt_xml builds
(the study's shapes), so the preview files and what the module attaches cannot drift apart.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import xml.etree.ElementTree as ET

import pytest

from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

from ansible_collections.s390x.network.plugins.module_utils import libvirt_xml as lx

TEMPLATES = os.path.join(os.path.dirname(__file__), '..', '..', '..', 'roles', 'kvm_guest_network', 'templates')


def render(name, **variables):
    with open(os.path.join(TEMPLATES, name)) as handle:
        source = handle.read()
    base = {'inventory_hostname': 'lpar-a', 'kvm_guest_network_state': 'present', 'kvm_guest_network_managed': True}
    base.update(variables)
    return Templar(loader=DataLoader(), variables=base).template(trust_as_template(source))


def shape(element):
    return (element.tag, dict(element.attrib), [shape(child) for child in element])


@pytest.mark.parametrize(
    'uid,fid,address,managed', [(0x605, 0x605, (0x605, 0, 0, 0), True), (0x1, 0xDEADBEEF, (0x1A, 0x2, 0x1F, 7), False)]
)
def test_hostdev_template_equals_module_xml(uid, fid, address, managed):
    spec = {'kind': 'hostdev', 'fid': fid, 'uid': uid, 'address': address, 'managed': managed}
    dev = lx.public_view(spec)  # what libvirt_device returns in `devices`
    rendered = ET.fromstring(render('hostdev.xml.j2', dev=dev))
    assert shape(rendered) == shape(lx.build_hostdev(spec))


@pytest.mark.parametrize('mac', ['12:34:56:78:9a:bc', None])
def test_interface_template_equals_module_xml(mac):
    spec = {
        'kind': 'interface',
        'source': 'hs32k_0',
        'mode': 'bridge',
        'mac': mac,
        'model': 'virtio',
        'driver': 'vhost',
    }
    rendered = ET.fromstring(render('interface.xml.j2', dev=lx.public_view(spec)))
    assert shape(rendered) == shape(lx.build_interface(spec))
