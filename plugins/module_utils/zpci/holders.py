# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Who holds a zPCI function: the host's SMC-D, a running libvirt guest, an open VFIO group.

Commands (argument formats declared here, once):

* ``smcd device``: header ``FID  Type  PCI-ID        PCHID  InUse  #LGs  PNET-ID``, rows
  ``%04x %-4s  %-12s  %04x   %-4s  %5d  %-16s`` (smc-tools dev.c); InUse ``Yes`` means
  link groups use the ISM device. Only meaningful while the ``smc`` module is loaded.
* ``virsh -c qemu:///system list --name --state-running`` and ``virsh -c qemu:///system
  dumpxml NAME``: running domains and their ``<hostdev type='pci'>`` source addresses.

The VFIO check needs no tool: a process that has ``/dev/vfio/<iommu group>`` open (QEMU
started by libvirt or by hand) holds every function of that group (``/proc/<pid>/fd/*`` link to
it); and vfio-pci enables a device (its ``enable`` attribute reads 1) only while a user has it open.
Whether ``smc`` is loaded: ``/sys/module/smc`` (loaded or built in) or a line in ``/proc/modules``.
Those host paths are read below the host root (``host_files.path``).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re
from xml.etree import ElementTree

from ansible_collections.s390x.network.plugins.module_utils.engine import host_files

SMCD_DEVICE_ARGV = ['smcd', 'device']
# what holds a function, in the order holders() reports them
HOLDER_KINDS = ('smc-d', 'libvirt', 'vfio', 'management')
VIRSH_URI = 'qemu:///system'


def virsh_list_argv(virsh='virsh'):
    return [virsh, '-c', VIRSH_URI, 'list', '--name', '--state-running']


def virsh_dumpxml_argv(name, virsh='virsh'):
    return [virsh, '-c', VIRSH_URI, 'dumpxml', name]


def smcd_device_argv(smcd='smcd'):
    return [smcd, 'device']


def parse_smcd_device(output):
    """Rows of ``smcd device`` as dicts: fid, type, pci_id, pchid, in_use, link_groups, pnet_id."""
    devices = []
    for line in (output or '').splitlines():
        tokens = line.split()
        if not tokens or tokens[0] == 'FID' or not re.fullmatch(r'[0-9a-fA-F]+', tokens[0]):
            continue
        if len(tokens) < 6:
            continue
        try:
            groups = int(tokens[5])
        except ValueError:
            continue
        pnet = tokens[6] if len(tokens) > 6 else None
        user_set = False
        if pnet and pnet.startswith('*'):
            pnet = pnet[1:]
            user_set = True
        devices.append(
            {
                'fid': int(tokens[0], 16),
                'type': tokens[1],
                'pci_id': tokens[2],
                'pchid': tokens[3].lower(),
                'in_use': tokens[4] == 'Yes',
                'link_groups': groups,
                'pnet_id': pnet or None,
                'pnet_id_user_set': user_set,
            }
        )
    return devices


def smcd_users(devices, fid, address):
    """True when the host's SMC-D uses the function (by FID or PCI address)."""
    for device in devices:
        if device['fid'] == fid or (address and device['pci_id'] == address):
            if device['in_use'] or device['link_groups'] > 0:
                return True
    return False


def hostdev_addresses(domain_xml):
    """PCI addresses (``DDDD:BB:SS.F``) of the pci hostdevs in a libvirt domain XML."""
    try:
        root = ElementTree.fromstring(domain_xml)
    except ElementTree.ParseError:
        return []
    result = []
    for hostdev in root.iter('hostdev'):
        if hostdev.get('type') != 'pci':
            continue
        source = hostdev.find('source')
        if source is None:
            continue
        address = source.find('address')
        if address is None:
            continue
        try:
            parts = [int(address.get(name, '0'), 0) for name in ('domain', 'bus', 'slot', 'function')]
        except ValueError:
            continue
        result.append('%04x:%02x:%02x.%x' % tuple(parts))
    return result


def vfio_group_users(group):
    """PIDs of processes with ``/dev/vfio/<group>`` open."""
    if group is None:
        return []
    target = '/dev/vfio/%d' % group
    proc_root = host_files.path('/proc')
    pids = []
    try:
        entries = os.listdir(proc_root)
    except OSError:
        return []
    for entry in entries:
        if not entry.isdigit():
            continue
        fd_dir = os.path.join(proc_root, entry, 'fd')
        try:
            fds = os.listdir(fd_dir)
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(os.path.join(fd_dir, fd)) == target:
                    pids.append(int(entry))
                    break
            except OSError:
                continue
    return sorted(pids)


class HolderProbe(object):
    """Finds holders with a ``run(argv) -> (rc, out, err)`` and ``which(name) -> path|None``.

    Results of commands are cached for the run of one module.
    """

    def __init__(self, run, which):
        self.run = run
        self.which = which
        self._smcd = None
        self._guests = None
        self.warnings = []

    def _smc_loaded(self):
        # /sys/module/smc exists for a loaded module and for smc built into the kernel (which
        # /proc/modules does not list); /proc/modules alone would miss the built-in case.
        if os.path.isdir(host_files.path('/sys/module/smc')):
            return True
        try:
            with open(host_files.path('/proc/modules')) as handle:
                return any(line.split(' ', 1)[0] == 'smc' for line in handle)
        except (IOError, OSError):
            return False

    def smcd_devices(self):
        if self._smcd is None:
            self._smcd = []
            smcd = self.which('smcd')
            if not self._smc_loaded():
                return self._smcd
            if not smcd:
                self.warnings.append(
                    'smcd (smc-tools) is not installed: cannot tell whether the host uses ISM functions for SMC-D'
                )
                return self._smcd
            rc, out, err = self.run(smcd_device_argv(smcd))
            if rc != 0:
                self.warnings.append('smcd device failed (rc=%d): %s' % (rc, (err or out).strip()))
            else:
                self._smcd = parse_smcd_device(out)
        return self._smcd

    def running_guests(self):
        """{domain name: [hostdev addresses]} of running libvirt domains."""
        if self._guests is None:
            self._guests = {}
            virsh = self.which('virsh')
            if not virsh:
                return self._guests
            rc, out, err = self.run(virsh_list_argv(virsh))
            if rc != 0:
                self.warnings.append('virsh list failed (rc=%d): %s' % (rc, (err or out).strip()))
                return self._guests
            for name in out.splitlines():
                name = name.strip()
                if not name:
                    continue
                rc, xml, err = self.run(virsh_dumpxml_argv(name, virsh))
                if rc == 0:
                    self._guests[name] = hostdev_addresses(xml)
        return self._guests

    def holders(self, record, mgmt_interfaces=(), kinds=HOLDER_KINDS):
        """Reasons (strings) why changing this function's binding or power would hurt.

        ``kinds``: which of HOLDER_KINDS to look for; only ``smc-d`` runs smcd and only
        ``libvirt`` runs virsh."""
        reasons = []
        address = record.get('pci_address')
        if not address:
            return reasons
        driver = record.get('driver')
        if 'smc-d' in kinds and driver == 'ism' and smcd_users(self.smcd_devices(), record['fid'], address):
            reasons.append('smc-d: the host uses it for SMC-D (smcd device InUse/link groups)')
        guests = self.running_guests() if 'libvirt' in kinds else {}
        for name, addresses in sorted(guests.items()):
            if address in addresses:
                reasons.append('libvirt: running guest %s has it as hostdev' % name)
        if 'vfio' in kinds and driver in ('vfio-pci', 'ism_vfio_pci'):
            pids = vfio_group_users(record.get('iommu_group'))
            if pids:
                reasons.append(
                    'vfio: /dev/vfio/%s is open by pid %s'
                    % (record.get('iommu_group'), ', '.join(str(pid) for pid in pids))
                )
            elif record.get('enabled'):
                # vfio-pci enables the device only while a user has it open; that user may
                # run in another PID namespace (a container), where /proc does not show it
                reasons.append('vfio: the device is enabled, a VFIO user (QEMU) has it open')
        mgmt = (
            sorted(set(record.get('net_devices') or []) & set(mgmt_interfaces or [])) if 'management' in kinds else []
        )
        if mgmt:
            reasons.append('management connection: it carries %s' % ', '.join(mgmt))
        return reasons
