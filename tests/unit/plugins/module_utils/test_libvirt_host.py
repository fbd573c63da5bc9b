# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Unit tests of plugins/module_utils/libvirt/host.py on sysfs trees laid out as the kernel does."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest

from ansible_collections.s390x.network.plugins.module_utils.libvirt import host as libvirt_host
from ansible_collections.s390x.network.plugins.module_utils.libvirt import xml as lx
from ansible_collections.s390x.network.tests.unit.fixtures.libvirt import fakes


@pytest.fixture
def host(host_root):
    return str(host_root)


def hostdev(**kw):
    item = {'fid': 0x605}
    item.update(kw)
    return lx.hostdevs_from_params([item], 'present')[0]


def iface(source='enc8200'):
    return lx.interfaces_from_params([{'source': source}], 'present')[0]


def test_fid_resolves_to_its_pci_address(host):
    fakes.lab_host(host)
    # a second function whose address sorts first, to make sure the FID decides, not the order
    fakes.add_zpci(host, 0x606, '0001:00:00.0')
    assert libvirt_host.check_hostdev(hostdev()) == ((0x605, 0, 0, 0), [], [])
    assert libvirt_host.check_hostdev(hostdev(fid=0x606, uid=7)) == ((1, 0, 0, 0), [], [])


def test_given_address_must_match(host):
    fakes.lab_host(host)
    address, errors, dummy = libvirt_host.check_hostdev(hostdev(address='0606:00:00.0'))
    assert errors == [
        'hostdevs[0].address: 0606:00:00.0 does not match FID 0x00000605, which is 0605:00:00.0 on this host'
    ]
    assert libvirt_host.check_hostdev(hostdev(address='0605:00:00.0'))[1] == []


def test_unknown_fid_lists_the_host_fids(host):
    fakes.lab_host(host)
    fakes.add_zpci(host, 0x1017, '1017:00:00.0', power=0)
    address, errors, dummy = libvirt_host.check_hostdev(hostdev(fid=0x999))
    assert address is None
    assert errors == [
        'hostdevs[0].fid: FID 0x00000999 does not exist on this host (no '
        '/sys/bus/pci/slots/00000999); FIDs here: 0x00000605, 0x00001017'
    ]


def test_standby_fid(host):
    fakes.add_zpci(host, 0x605, '0605:00:00.0', power=0)
    address, errors, warnings = libvirt_host.check_hostdev(hostdev())
    assert address is None and 'in standby (slot power 0)' in errors[0] and warnings == []
    # check mode: an earlier task of the run configures it
    address, errors, warnings = libvirt_host.check_hostdev(hostdev(), state_is_error=False)
    assert address is None and errors == [] and 'in standby (slot power 0)' in warnings[0]


@pytest.mark.parametrize('pft,ok', [(0x05, True), (0x02, True), (0x0A, True), (0x0B, False)])
def test_only_ism_and_roce_functions(host, pft, ok):
    fakes.add_zpci(host, 0x605, '0605:00:00.0', pft=pft, vendor=0x15B3, device=0x1016)
    errors = libvirt_host.check_hostdev(hostdev())[1]
    assert (errors == []) is ok
    if not ok:
        assert 'NVMe' in errors[0] and 'pft 0x0b' in errors[0]


def test_unmanaged_needs_vfio_pci(host):
    fakes.lab_host(host)
    errors = libvirt_host.check_hostdev(hostdev(managed=False))[1]
    assert errors == [
        'hostdevs[0].managed: false needs FID 0x00000605 bound to vfio-pci, but it is bound '
        'to ism; bind it (e.g. s390x.network.zpci_function driver=vfio-pci) or use managed: true'
    ]
    fakes.add_zpci(host, 0x606, '0606:00:00.0', driver='vfio-pci')
    assert libvirt_host.check_hostdev(hostdev(fid=0x606, managed=False))[1] == []
    fakes.add_zpci(host, 0x607, '0607:00:00.0', driver=None)
    assert 'not bound to a driver' in libvirt_host.check_hostdev(hostdev(fid=0x607, managed=False))[1][0]
    address, errors, warnings = libvirt_host.check_hostdev(hostdev(fid=0x607, managed=False), state_is_error=False)
    assert address == (0x607, 0, 0, 0) and errors == [] and 'not bound to a driver' in warnings[0]


def test_qeth_layer2_online_source_is_fine(host):
    fakes.lab_host(host)
    assert libvirt_host.check_macvtap_source(iface()) == ([], [])


def test_qeth_layer3_source_is_refused(host):
    fakes.add_qeth(host, '0.0.8200', 'enc8200', layer2=0)
    errors, warnings = libvirt_host.check_macvtap_source(iface())
    assert errors == [
        'interfaces[0].source: enc8200 is qeth device 0.0.8200 in layer 3; MacVTap for virtio '
        'needs layer 2 (set layer2=1, e.g. s390x.network.qeth_device)'
    ]


def test_qeth_found_through_if_name_without_device_link(host):
    fakes.add_qeth(host, '0.0.8200', 'enc8200', layer2=-1, netdev_link=False)
    errors = libvirt_host.check_macvtap_source(iface())[0]
    assert 'undetermined (layer2=-1)' in errors[0]


def test_offline_qeth_source(host):
    # offline: no netdev, but the group device still remembers its name in if_name on some kernels
    fakes.add_qeth(host, '0.0.8200', 'enc8200', layer2=1, online=1, netdev_link=False)
    fakes.write(os.path.join(host, 'sys/devices/qeth/0.0.8200/online'), '0\n')
    errors = libvirt_host.check_macvtap_source(iface())[0]
    assert errors == ['interfaces[0].source: enc8200 is qeth device 0.0.8200, which is offline; set it online first']
    errors, warnings = libvirt_host.check_macvtap_source(iface(), offline_is_error=False)
    assert errors == [] and warnings == [
        'interfaces[0].source: enc8200 is qeth device 0.0.8200, which is offline; set it online first'
    ]


def test_non_qeth_and_missing_sources(host):
    fakes.add_netdev(host, 'bond0')
    assert libvirt_host.check_macvtap_source(iface('bond0')) == ([], [])
    errors, warnings = libvirt_host.check_macvtap_source(iface('enc9999'))
    assert errors == [] and 'enc9999 does not exist on this host' in warnings[0]
