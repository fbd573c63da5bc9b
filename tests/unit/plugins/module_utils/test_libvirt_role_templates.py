# -*- coding: utf-8 -*-
# Copyright: s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kvm_guest_network role's templates, rendered with Ansible's own templating.

* guest_args.json.j2 turns kvm_guests + cpc.ism into libvirt_device arguments;
* hostdev.xml.j2 / interface.xml.j2 render exactly the XML that module_utils/libvirt_xml builds
  (the study's shapes), so the preview files and what the module attaches cannot drift apart.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import xml.etree.ElementTree as ET

import pytest

from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

from ansible_collections.s390x.network.plugins.module_utils import libvirt_xml as lx

TEMPLATES = os.path.join(os.path.dirname(__file__), '..', '..', '..', '..', 'roles', 'kvm_guest_network',
                         'templates')

CPC = {
    'partitions': [{'name': 'LPARA', 'host': 'lpar-a'}, {'name': 'LPARB', 'host': 'lpar-b'}],
    'ism': [{'vchid': '7C8', 'pnet_id': None, 'functions': [
        {'fid': 0x605, 'uid': 0x605, 'vf': 1, 'partition': 'LPARA', 'guest': 'g1'},
        {'fid': 0x606, 'uid': 0x606, 'vf': 2, 'partition': 'LPARB'},
        {'fid': 0x607, 'uid': 0x1607, 'vf': 3, 'partition': 'LPARA', 'guest': 'g2'},
        {'fid': 0x608, 'uid': 0x608, 'vf': 4, 'partition': 'LPARB', 'guest': 'g1'},
    ]}],
}


def render(name, **variables):
    with open(os.path.join(TEMPLATES, name)) as handle:
        source = handle.read()
    base = {'inventory_hostname': 'lpar-a', 'kvm_guest_network_state': 'present',
            'kvm_guest_network_managed': True}
    base.update(variables)
    return Templar(loader=DataLoader(), variables=base).template(trust_as_template(source))


def guest_args(**variables):
    return json.loads(render('guest_args.json.j2', **variables))


def test_design_data_model_for_lpar_a():
    guests = guest_args(cpc=CPC, kvm_guests=[
        {'name': 'g1', 'hostdevs': [{'fid': 0x605}], 'macvtap': [{'source': 'enc8200', 'mac': '12:34:56:78:9a:bc'}]}])
    assert guests == [{'name': 'g1', 'state': 'merged',
                       'hostdevs': [{'fid': 0x605, 'uid': 0x605, 'address': None, 'managed': True}],
                       'interfaces': [{'source': 'enc8200', 'mac': '12:34:56:78:9a:bc'}]}]


def test_cpc_functions_of_this_partition_are_added():
    guests = guest_args(cpc=CPC, kvm_guests=[{'name': 'g1'}, {'name': 'g2', 'macvtap': [{'source': 'enc8200'}]}])
    # 0x608 is assigned to g1 too, but in LPARB: not this host's function
    assert guests[0]['hostdevs'] == [{'fid': 0x605, 'uid': 0x605, 'address': None, 'managed': True}]
    assert guests[1]['hostdevs'] == [{'fid': 0x607, 'uid': 0x1607, 'address': None, 'managed': True}]
    on_b = guest_args(cpc=CPC, kvm_guests=[{'name': 'g1'}], inventory_hostname='lpar-b')
    assert [h['fid'] for h in on_b[0]['hostdevs']] == [0x608]


def test_partition_names_match_in_any_case_and_as_a_list():
    cpc = {'partitions': [{'name': 'lpara', 'host': 'lpar-a'}, {'name': 'LparB', 'host': 'lpar-b'}],
           'ism': [{'vchid': '7C8', 'functions': [
               {'fid': 0x605, 'partition': 'LparA', 'guest': 'g1'},
               {'fid': 0x606, 'partition': ['LPARA'], 'guest': 'g1'},
               {'fid': 0x607, 'partition': 'lparb', 'guest': 'g1'},
               {'fid': 0x608, 'guest': 'g1'}]}]}
    guests = guest_args(cpc=cpc, kvm_guests=[{'name': 'g1'}])
    assert [h['fid'] for h in guests[0]['hostdevs']] == [0x605, 0x606, 0x608]
    on_b = guest_args(cpc=cpc, kvm_guests=[{'name': 'g1'}], inventory_hostname='lpar-b')
    assert [h['fid'] for h in on_b[0]['hostdevs']] == [0x607, 0x608]


def test_explicit_entry_wins_and_hex_strings_become_integers():
    guests = guest_args(cpc=CPC, kvm_guest_network_managed=False, kvm_guests=[
        {'name': 'g1', 'state': 'exact',
         'hostdevs': [{'fid': '0x605', 'uid': 7, 'managed': True}, {'fid': '00000999', 'address': '0999:00:00.0'}]}])
    assert guests[0]['state'] == 'overridden'  # the name of earlier releases, mapped
    assert guests[0]['hostdevs'] == [
        {'fid': 0x605, 'uid': 7, 'address': None, 'managed': True},
        {'fid': 0x999, 'uid': None, 'address': '0999:00:00.0', 'managed': False}]


def test_no_cpc_and_no_guests():
    assert guest_args(kvm_guests=[]) == []
    assert guest_args(kvm_guests=[{'name': 'g1'}]) == [
        {'name': 'g1', 'state': 'merged', 'hostdevs': [], 'interfaces': []}]


def shape(element):
    return (element.tag, dict(element.attrib), [shape(child) for child in element])


@pytest.mark.parametrize('uid,fid,address,managed', [
    (0x605, 0x605, (0x605, 0, 0, 0), True), (0x1, 0xdeadbeef, (0x1a, 0x2, 0x1f, 7), False)])
def test_hostdev_template_equals_module_xml(uid, fid, address, managed):
    spec = {'kind': 'hostdev', 'fid': fid, 'uid': uid, 'address': address, 'managed': managed}
    dev = lx.public_view(spec)        # what libvirt_device returns in `devices`
    rendered = ET.fromstring(render('hostdev.xml.j2', dev=dev))
    assert shape(rendered) == shape(lx.build_hostdev(spec))


@pytest.mark.parametrize('mac', ['12:34:56:78:9a:bc', None])
def test_interface_template_equals_module_xml(mac):
    spec = {'kind': 'interface', 'source': 'hs32k_0', 'mode': 'bridge', 'mac': mac, 'model': 'virtio',
            'driver': 'vhost'}
    rendered = ET.fromstring(render('interface.xml.j2', dev=lx.public_view(spec)))
    assert shape(rendered) == shape(lx.build_interface(spec))
