# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read-only sysfs checks on the KVM host before libvirt devices are attached.

zPCI is read through ``zpci_sysfs.ZpciSysfs``: a FID has a hotplug slot
``/sys/bus/pci/slots/%08x`` whose ``power`` reads 1 when configured; its PCI function is the device
whose ``function_id`` equals the FID; ``pft`` (or the PCI ids) tells ISM from RoCE and Network
Express (NETH 0x0c, NETD 0x0f, whose VFs share their PCI id with RoCE Express3); ``driver`` is the
bound driver.

A MacVTap source on a Network Express NETH function needs promiscuous mode, which the function
allows when its ``fidparm`` is 0x01 (ip.link_promisc owns that rule).

qeth (section 1): a netdev's ``/sys/class/net/<if>/device`` is the qeth group device with ``layer2``
(-1, 0, 1) and ``online`` (0, 1); the group device also reports its interface name in ``if_name``.

The paths are read below the host root (``host_files.path``); unit tests point it at a tree.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

from ansible_collections.s390x.network.plugins.module_utils.engine import host_files
from ansible_collections.s390x.network.plugins.module_utils.ip import link_promisc
from ansible_collections.s390x.network.plugins.module_utils.libvirt.xml import (
    format_fid,
    format_pci_address,
    parse_pci_address,
    DeviceSpecError,
)
from ansible_collections.s390x.network.plugins.module_utils.zpci.sysfs import NETWORK_EXPRESS_TYPES, ZpciSysfs

PASSTHROUGH_TYPES = ('ism', 'roce') + NETWORK_EXPRESS_TYPES  # zpci_sysfs.classify() names
VFIO_DRIVERS = ('vfio-pci', 'ism_vfio_pci', 'mlx5_vfio_pci')


def _sys(*parts):
    """``/sys/<parts>``, a host path."""
    return '/'.join(('/sys',) + parts)


def check_hostdev(spec, state_is_error=True):
    """Resolve and check the host side of a desired hostdev; returns (address, errors, warnings).

    The FID must have a slot, be configured (power 1), be an ISM, RoCE or Network Express function
    (of the given ``type``, by pft), match a given address, and be bound to a vfio driver unless libvirt manages the binding (managed=yes).
    ``state_is_error=False`` (check mode) makes a FID in standby or not bound to vfio a warning:
    an earlier task of the same run (ism_passthrough) configures and binds it. The address of a
    FID in standby is then None.
    """
    where = spec['param']
    fid = spec['fid']
    sysfs = ZpciSysfs()
    if not sysfs.slot_exists(fid):
        known = ', '.join(format_fid(f) for f in sysfs.list_fids()) or 'none'
        return (
            None,
            [
                '%s.fid: FID %s does not exist on this host (no /sys/bus/pci/slots/%08x); FIDs here: %s'
                % (where, format_fid(fid), fid, known)
            ],
            [],
        )
    info = sysfs.read_function(fid)
    if info['pci_address'] is None:
        state = 'in standby (slot power 0)' if info['power'] == 'off' else 'without a PCI function'
        message = (
            '%s.fid: FID %s is %s; configure it first (e.g. s390x.network.zpci_function or '
            'smc_rnics -e %x)' % (where, format_fid(fid), state, fid)
        )
        return (None, [message], []) if state_is_error else (None, [], [message])
    try:
        address = parse_pci_address(info['pci_address'], 'sysfs')
    except DeviceSpecError:
        return (
            None,
            [
                '%s.fid: FID %s has an unexpected PCI address %r in sysfs'
                % (where, format_fid(fid), info['pci_address'])
            ],
            [],
        )
    errors = []
    warnings = []
    if spec.get('address') is not None and spec['address'] != address:
        errors.append(
            '%s.address: %s does not match FID %s, which is %s on this host'
            % (where, format_pci_address(spec['address']), format_fid(fid), format_pci_address(address))
        )
    pft = 'n/a' if info['pft'] is None else '0x%02x' % info['pft']
    if info['type'] not in PASSTHROUGH_TYPES:
        what = info['pft_name'] or info['type'] or 'unknown'
        errors.append(
            '%s.fid: FID %s is a %s function (pft %s); only ISM, RoCE and Network Express functions are '
            'passed through' % (where, format_fid(fid), what, pft)
        )
    elif spec.get('type') is not None and spec['type'] != info['pft_name']:
        # Network Express VFs and RoCE Express3 share PCI id 15b3:101e: only pft tells them apart
        errors.append(
            '%s.type: FID %s is a %s function on this host (pft %s), not %s'
            % (where, format_fid(fid), info['pft_name'] or 'function of unknown type', pft, spec['type'])
        )
    if not spec['managed'] and info['driver'] not in VFIO_DRIVERS:
        bound = 'bound to %s' % info['driver'] if info['driver'] else 'not bound to a driver'
        (errors if state_is_error else warnings).append(
            '%s.managed: false needs FID %s bound to vfio-pci, but it is %s; bind it (e.g. '
            's390x.network.zpci_function driver=vfio-pci) or use managed: true' % (where, format_fid(fid), bound)
        )
    return address, errors, warnings


def qeth_device_of(netdev):
    """The qeth group device directory behind a netdev (a host path), or None when it is not a qeth
    netdev."""
    device = _sys('class', 'net', netdev, 'device')
    if all(os.path.exists(host_files.path('%s/%s' % (device, name))) for name in ('layer2', 'online')):
        return device
    qeth_dir = _sys('bus', 'ccwgroup', 'drivers', 'qeth')
    try:
        names = sorted(os.listdir(host_files.path(qeth_dir)))
    except OSError:
        return None
    for name in names:
        if host_files.read_attr('%s/%s/if_name' % (qeth_dir, name)) == netdev:
            return '%s/%s' % (qeth_dir, name)
    return None


def netdev_exists(netdev):
    return os.path.exists(host_files.path(_sys('class', 'net', netdev)))


def check_macvtap_source(spec, offline_is_error=True):
    """(errors, warnings) for a MacVTap source: a qeth source must be layer 2 and online.

    ``offline_is_error=False`` (check mode) makes an offline source a warning: an earlier task of
    the same run (the qeth role) may set it online, so it is no reason to fail a prediction.
    """
    where = spec['param']
    source = spec['source']
    qeth = qeth_device_of(source)
    if qeth is None:
        if not netdev_exists(source):
            return [], [
                '%s.source: network interface %s does not exist on this host (yet); the guest '
                'cannot start until it does' % (where, source)
            ]
        return check_promisc_source(where, source)
    busid = os.path.basename(os.path.realpath(host_files.path(qeth)))
    errors = []
    layer2 = host_files.read_attr(qeth + '/layer2')
    online = host_files.read_attr(qeth + '/online')
    if layer2 != '1':
        errors.append(
            '%s.source: %s is qeth device %s in layer %s; MacVTap for virtio needs layer 2 '
            '(set layer2=1, e.g. s390x.network.qeth_device)'
            % (where, source, busid, '3' if layer2 == '0' else 'undetermined (layer2=%s)' % layer2)
        )
    warnings = []
    if online != '1':
        (errors if offline_is_error else warnings).append(
            '%s.source: %s is qeth device %s, which is offline; set it online first' % (where, source, busid)
        )
    return errors, warnings


def check_promisc_source(where, source):
    """(errors, warnings) for a MacVTap source on a Network Express function: a NETH function must
    allow promiscuous mode (fidparm 0x01), and the interface should be promiscuous (the
    kvm_guest_network role sets it with ip_promisc before this module runs)."""
    function = link_promisc.pci_function(source)
    if link_promisc.network_express_type(function) is None:
        return [], []
    problem = link_promisc.promisc_problem(source, function)
    if problem:
        return ['%s.source: %s' % (where, problem)], []
    if link_promisc.is_promisc(link_promisc.read_flags(source)) is False:
        return [], [
            '%s.source: %s (Network Express %s, FID 0x%08x) is not in promiscuous mode, which MacVTap '
            'over Network Express needs; s390x.network.ip_promisc sets it now and at boot'
            % (where, source, link_promisc.network_express_type(function), function['fid'])
        ]
    return [], []
