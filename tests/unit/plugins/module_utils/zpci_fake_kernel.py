# -*- coding: utf-8 -*-
# Copyright (c) s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A directory tree shaped like s390x sysfs plus the kernel's write semantics for zPCI.

Used by the zpci unit tests: reads go through the real code paths (files, symlinks);
``FakeKernel.write`` applies what the kernel does on a write:
slot power 1 -> EIO unless in standby, creates the PCI device; 0 -> EIO unless
configured, removes it; driver_override stores the value (empty clears, reads
``(null)``); ``drivers/<d>/unbind`` -> ENODEV unless bound to d; ``drivers_probe``
binds an unbound device to its override, else its default driver, when registered.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import os
import shutil

from ansible_collections.s390x.network.plugins.module_utils.zpci_sysfs import ZpciError, ZpciSysfs
from ansible_collections.s390x.network.plugins.module_utils.zpci_util_string import encode_pnet_ids

ISM = {'vendor': 0x1014, 'device': 0x04ed, 'pft': 0x05, 'default_driver': 'ism'}
ROCE2 = {'vendor': 0x15b3, 'device': 0x1016, 'pft': 0x0a, 'default_driver': 'mlx5_core'}


def _write(path, data, mode='w'):
    directory = os.path.dirname(path)
    if not os.path.isdir(directory):
        os.makedirs(directory)
    with open(path, mode) as handle:
        handle.write(data)


class FakeKernel(ZpciSysfs):
    """ZpciSysfs over a temp tree, with kernel write semantics and injectable faults."""

    def __init__(self, root, functions, drivers=('ism', 'mlx5_core'), address_of=None):
        super(FakeKernel, self).__init__(str(root))
        self.functions = dict((f['fid'], dict(f)) for f in functions)
        self.faults = {}
        self.writes = []
        self.address_of = address_of or {}
        for sub in ('sys/bus/pci/slots', 'sys/bus/pci/devices', 'sys/bus/pci/drivers', 'proc'):
            os.makedirs(os.path.join(self.root, sub), exist_ok=True)
        _write(self.real('/sys/bus/pci/drivers_probe'), '')
        _write(self.real('/proc/modules'), '')
        for driver in drivers:
            self.register_driver(driver)
        for fid, spec in sorted(self.functions.items()):
            _write(self.real(self.slot_power_path(fid)), '0\n')
            if spec.get('power'):
                self._configure(fid)
                if spec.get('bound', True):
                    self._probe(self._address(fid))

    # -- helpers for tests ----------------------------------------------------------------
    def register_driver(self, driver):
        base = self.real(self.driver_dir(driver))
        os.makedirs(base, exist_ok=True)
        for name in ('bind', 'unbind', 'new_id'):
            _write(os.path.join(base, name), '')

    def _address(self, fid):
        spec = self.functions[fid]
        if fid in self.address_of:
            return self.address_of[fid]
        return '%04x:00:00.0' % spec.get('uid', fid)

    def _configure(self, fid):
        spec = self.functions[fid]
        address = self._address(fid)
        base = self.real(self.device_dir(address))
        os.makedirs(base)
        attrs = {
            'function_id': '0x%08x' % fid,
            'function_handle': '0x%08x' % (0x1000 + fid),
            'uid': '0x%x' % spec.get('uid', fid),
            'uid_is_unique': '%d' % spec.get('uid_is_unique', 1),
            'pchid': '0x%04x' % spec.get('pchid', 0x7c8),
            'pfgid': '0x%02x' % 0,
            'pft': '0x%02x' % spec['pft'],
            'vfn': '0x%04x' % spec.get('vfn', 1),
            'port': '%d' % spec.get('port', 0),
            'vendor': '0x%04x' % spec['vendor'],
            'device': '0x%04x' % spec['device'],
            'driver_override': '(null)',
        }
        for name, value in attrs.items():
            _write(os.path.join(base, name), value + '\n')
        _write(os.path.join(base, 'util_string'), encode_pnet_ids(spec.get('pnet_ids', [])), 'wb')
        group = spec.get('iommu_group', fid & 0xff)
        group_dir = self.real('/sys/kernel/iommu_groups/%d' % group)
        os.makedirs(group_dir, exist_ok=True)
        os.symlink(group_dir, os.path.join(base, 'iommu_group'))
        for name in spec.get('net', []):
            os.makedirs(os.path.join(base, 'net', name))
        _write(self.real(self.slot_power_path(fid)), '1\n')
        _write(self.real(self.slot_dir(fid) + '/address'), address.rsplit('.', 1)[0] + '\n')

    def _deconfigure(self, fid):
        address = self._address(fid)
        shutil.rmtree(self.real(self.device_dir(address)))
        os.unlink(self.real(self.slot_dir(fid) + '/address'))
        _write(self.real(self.slot_power_path(fid)), '0\n')

    def _fid_of(self, address):
        for fid in self.functions:
            if self._address(fid) == address and self.slot_power(fid):
                return fid
        return None

    def _probe(self, address):
        fid = self._fid_of(address)
        if fid is None:
            raise ZpciError('no device', None, errno.ENODEV)
        if self.driver_of(address):
            return
        override = self.driver_override(address)
        driver = override or self.functions[fid]['default_driver']
        if driver and self.driver_available(driver):
            os.symlink(self.real(self.driver_dir(driver)), self.real(self.device_dir(address) + '/driver'))

    def bound(self, fid):
        return self.driver_of(self._address(fid))

    def fail_next(self, path, err):
        self.faults[path] = err

    # -- the kernel ---------------------------------------------------------------------------
    def write(self, path, value):
        self.writes.append((path, value))
        if path in self.faults:
            err = self.faults.pop(path)
            raise ZpciError('writing %r to %s failed: %s' % (value, path, os.strerror(err)), path, err)
        value = '%s' % value
        if path.startswith('/sys/bus/pci/slots/') and path.endswith('/power'):
            fid = int(path.split('/')[5], 16)
            on = self.slot_power(fid)
            if value == '1':
                if on:
                    raise ZpciError('EIO', path, errno.EIO)
                self._configure(fid)
                self._probe(self._address(fid))
            elif value == '0':
                if not on:
                    raise ZpciError('EIO', path, errno.EIO)
                self._deconfigure(fid)
            else:
                raise ZpciError('EINVAL', path, errno.EINVAL)
            return
        if path.endswith('/driver_override'):
            _write(self.real(path), (value.strip() or '(null)') + '\n')
            return
        if path.startswith('/sys/bus/pci/drivers/') and path.endswith('/unbind'):
            driver = path.split('/')[5]
            if self.driver_of(value) != driver:
                raise ZpciError('ENODEV', path, errno.ENODEV)
            os.unlink(self.real(self.device_dir(value) + '/driver'))
            return
        if path == '/sys/bus/pci/drivers_probe':
            self._probe(value)
            return
        raise AssertionError('unexpected write to %s' % path)
