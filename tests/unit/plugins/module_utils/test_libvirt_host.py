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


NETH, NETD, ROC2 = 0x0C, 0x0F, 0x0A


def network_express(host, fid=0x110, pft=NETH, fidparm=0x01, flags=0x1003, ifname='eno4'):
    """A Network Express VF (PCI id 15b3:101e, as RoCE Express3) bound to mlx5_core, with its netdev."""
    address = '%04x:00:00.0' % fid
    fakes.add_zpci(host, fid, address, pft=pft, driver='mlx5_core', vendor=0x15B3, device=0x101E, fidparm=fidparm)
    fakes.add_pci_netdev(host, ifname, address, flags)


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


@pytest.mark.parametrize('pft', [NETH, NETD])
def test_network_express_vfs_are_passed_through(host, pft):
    network_express(host, pft=pft)
    kind = {NETH: 'NETH', NETD: 'NETD'}[pft]
    assert libvirt_host.check_hostdev(hostdev(fid=0x110, type=kind)) == ((0x110, 0, 0, 0), [], [])
    assert libvirt_host.check_hostdev(hostdev(fid=0x110)) == ((0x110, 0, 0, 0), [], [])


@pytest.mark.parametrize('pft, wanted, shown', [(ROC2, 'NETH', 'ROC2'), (NETD, 'NETH', 'NETD'), (NETH, 'ISM', 'NETH')])
def test_the_function_type_is_what_the_kernel_says(host, pft, wanted, shown):
    # RoCE Express3 and the Network Express VFs share 15b3:101e: only pft decides
    network_express(host, pft=pft)
    address, errors, dummy = libvirt_host.check_hostdev(hostdev(fid=0x110, type=wanted))
    assert errors == [
        'hostdevs[0].type: FID 0x00000110 is a %s function on this host (pft 0x%02x), not %s' % (shown, pft, wanted)
    ]


def test_macvtap_over_neth_needs_fidparm_01(host):
    network_express(host, fidparm=0x00)
    errors, warnings = libvirt_host.check_macvtap_source(iface('eno4'))
    assert warnings == []
    assert errors == [
        'interfaces[0].source: eno4 is Network Express NETH function FID 0x00000110 (0110:00:00.0) with fidparm '
        '0x00; promiscuous mode (for a bridge or MacVTap over it) needs fidparm 0x01: set FIDPARM=01 on its '
        'FUNCTION statement in the IOCDS (or the NIC\'s promiscuous property in DPM)'
    ]
    # check mode too: an earlier task cannot change the IOCDS
    assert libvirt_host.check_macvtap_source(iface('eno4'), offline_is_error=False)[0] == errors


def test_macvtap_over_neth_on_a_kernel_without_fidparm(host):
    network_express(host, fidparm=None)
    errors = libvirt_host.check_macvtap_source(iface('eno4'))[0]
    assert len(errors) == 1 and 'fidparm not shown (no fidparm in sysfs' in errors[0]


@pytest.mark.parametrize('pft, fidparm', [(NETH, 0x01), (NETD, None)])
def test_macvtap_over_network_express_warns_while_not_promiscuous(host, pft, fidparm):
    network_express(host, pft=pft, fidparm=fidparm, flags=0x1003)
    errors, warnings = libvirt_host.check_macvtap_source(iface('eno4'))
    assert errors == [] and len(warnings) == 1
    assert warnings[0].startswith(
        'interfaces[0].source: eno4 (Network Express %s, FID 0x00000110) is not in '
        'promiscuous mode' % {NETH: 'NETH', NETD: 'NETD'}[pft]
    )
    assert 's390x.network.ip_promisc' in warnings[0]


def test_macvtap_over_promiscuous_network_express_is_fine(host):
    network_express(host, flags=0x1103)
    assert libvirt_host.check_macvtap_source(iface('eno4')) == ([], [])


def test_macvtap_over_roce_express3_has_no_promisc_rule(host):
    network_express(host, pft=ROC2, fidparm=0x00)
    assert libvirt_host.check_macvtap_source(iface('eno4')) == ([], [])
