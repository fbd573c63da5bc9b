# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""zPCI functions in sysfs: paths, attribute formats, reading and writing.

Facts (kernel arch/s390/pci/pci_sysfs.c, drivers/pci/hotplug/s390_pci_hpc.c):

* one hotplug slot per FID: ``/sys/bus/pci/slots/%08x``; ``power`` reads 1 when the
  function is configured, 0 in standby; writing 1 configures it (EIO unless in
  standby), 0 deconfigures it (EIO unless configured, EBUSY for a PF with VFs).
  The slot's ``address`` (``DDDD:BB:dd``) names the PCI device once it exists.
* the device ``/sys/bus/pci/devices/DDDD:BB:dd.f`` has ``function_id`` (``0x%08x``),
  ``uid`` (``0x%x``), ``uid_is_unique`` (``%d``), ``pchid`` (``0x%04x``, the VCHID for
  ISM), ``pft`` (``0x%02x``), ``vfn`` (``0x%04x``), ``port`` (``%d``) and the 64 byte
  EBCDIC ``util_string`` (PNET IDs). ``driver_override`` reads ``(null)`` when unset.
  Since Linux 6.13 also ``fidparm`` (``0x%02x``; on a Network Express NETH function 0x01 means it
  supports promiscuous mode).
* a physical function the partition manages (Network Express NETD) has the SR-IOV attributes
  ``sriov_totalvfs``, ``sriov_numvfs`` (0 -> N creates VFs, N -> 0 removes them, N -> M is EBUSY,
  above the total ERANGE, ENOENT unless a driver such as mlx5_core is bound) and
  ``sriov_drivers_autoprobe`` (0: the VFs appear unbound); each VF links to it through ``physfn``.
* UID checking: ``uid_is_unique`` of every device, and ``/sys/firmware/clp/uid_checking`` (newer
  kernels, readable without a configured function). Without it PCI domains are generated in the
  order functions appear; a VF whose PF is not in the partition (an isolated VF, Linux 6.13) gets
  a domain of its own that is then not stable across reboot or hot plug.
* ``enable`` (``%d``, the pci_enable_device count): host drivers (ism, mlx5_core) enable the
  device at probe; vfio-pci only while a user (QEMU) has the device open.
* binding: write the driver name to ``driver_override``, unbind from the current
  driver (``drivers/<name>/unbind``), then write the address to ``/sys/bus/pci/drivers_probe``.

The PCI address is never derived from the FID: it is the device whose
``function_id`` equals the FID (the slot's ``address`` narrows the search).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import os
import re

from ansible_collections.s390x.network.plugins.module_utils.zpci.pci_ids import slot_name
from ansible_collections.s390x.network.plugins.module_utils.engine import host_files
from ansible_collections.s390x.network.plugins.module_utils.engine import kernel_write
from ansible_collections.s390x.network.plugins.module_utils.zpci.util_string import pnet_ids

SYS_PCI = '/sys/bus/pci'
SLOTS_DIR = SYS_PCI + '/slots'
DEVICES_DIR = SYS_PCI + '/devices'
DRIVERS_DIR = SYS_PCI + '/drivers'
DRIVERS_PROBE = SYS_PCI + '/drivers_probe'
UID_CHECKING = '/sys/firmware/clp/uid_checking'

# PCI function types (CLP "pft"), as the kernel prints them in ``pft``.
PFT_NAMES = {
    0x02: 'ROCE',
    0x05: 'ISM',
    0x0A: 'ROC2',
    0x0B: 'NVMe',
    0x0C: 'NETH',
    0x0D: 'CNW',
    0x0F: 'NETD',
}
# Function type as this collection names it (``expected_type``): Network Express functions are
# ``neth`` (hybrid mode) and ``netd`` (direct mode), told apart from RoCE by ``pft`` alone.
PFT_TYPES = {
    0x02: 'roce',
    0x05: 'ism',
    0x0A: 'roce',
    0x0B: 'nvme',
    0x0C: 'neth',
    0x0F: 'netd',
}
NETWORK_EXPRESS_TYPES = ('neth', 'netd')
# Fallback when ``pft`` is missing: vendor:device ids one product has alone. 15b3:101e is not
# here: RoCE Express3 and Network Express VFs both show it.
PCI_ID_TYPES = {
    ('1014', '04ed'): 'ism',
    ('15b3', '1003'): 'roce',
    ('15b3', '1004'): 'roce',
    ('15b3', '1016'): 'roce',
}
# Which drivers fit which function type (None: any type).
DRIVER_TYPES = {
    'vfio-pci': None,
    'ism': ('ism',),
    'ism_vfio_pci': ('ism',),
    'mlx5_core': ('roce', 'neth', 'netd'),
}
# Kernel module that provides a driver, for modprobe.
DRIVER_MODULES = {
    'vfio-pci': 'vfio-pci',
    'ism': 'ism',
    'ism_vfio_pci': 'ism_vfio_pci',
    'mlx5_core': 'mlx5_core',
}

_SLOT_RE = re.compile(r'[0-9a-f]{8}')
_VIRTFN_RE = re.compile(r'virtfn[0-9]+')
_ADDRESS_RE = re.compile(r'[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]')


class ZpciError(Exception):
    """A sysfs operation failed; ``errno`` and ``path`` tell which."""

    def __init__(self, message, path=None, err=None):
        super(ZpciError, self).__init__(message)
        self.path = path
        self.errno = err


def is_pci_address(text):
    return bool(text) and bool(_ADDRESS_RE.fullmatch(text))


def classify(pft, vendor=None, device=None):
    """Return the collection's type name for a function: ``ism``, ``roce``, ``neth``, ``netd``, ``nvme`` or
    ``other``."""
    if pft is not None and pft in PFT_TYPES:
        return PFT_TYPES[pft]
    if vendor and device:
        return PCI_ID_TYPES.get((vendor, device), 'other')
    return 'other'


#: what reading a function's attribute answers when it has no value to read
_NO_VALUE = (errno.ENOENT, errno.ENOTDIR, errno.ENODEV, errno.EINVAL, errno.EIO, errno.EOPNOTSUPP)


def _text(data):
    """An attribute's bytes as stripped text (None stays None)."""
    return None if data is None else data.decode('utf-8', 'replace').strip()


def _override(text):
    """driver_override as read: None when no driver is forced ('' or '(null)')."""
    return None if text in (None, '', '(null)') else text


def _link_name(dir_fd, name):
    """Basename of the target of the link ``name`` in an open directory, None when there is none."""
    try:
        return os.path.basename(os.readlink(name, dir_fd=dir_fd))
    except (IOError, OSError):
        return None


def _int_or_none(text, base):
    if text is None or text == '':
        return None
    try:
        return int(text, base)
    except ValueError:
        return None


def _hex_attr(text):
    """Parse ``0x%x`` style attributes."""
    if text is None:
        return None
    value = text.strip().lower()
    if value.startswith('0x'):
        value = value[2:]
    return _int_or_none(value, 16)


class ZpciSysfs(object):
    """Reads and writes zPCI state by host path (``/sys/...``), below the host root
    (``host_files.path``)."""

    # -- paths --------------------------------------------------------------
    @staticmethod
    def slot_dir(fid):
        return '%s/%s' % (SLOTS_DIR, slot_name(fid))

    @staticmethod
    def slot_power_path(fid):
        return '%s/%s/power' % (SLOTS_DIR, slot_name(fid))

    @staticmethod
    def device_dir(address):
        return '%s/%s' % (DEVICES_DIR, address)

    @staticmethod
    def override_path(address):
        return '%s/%s/driver_override' % (DEVICES_DIR, address)

    @staticmethod
    def unbind_path(driver):
        return '%s/%s/unbind' % (DRIVERS_DIR, driver)

    @staticmethod
    def driver_dir(driver):
        return '%s/%s' % (DRIVERS_DIR, driver)

    @staticmethod
    def sriov_path(address, name):
        """``sriov_numvfs``, ``sriov_totalvfs`` or ``sriov_drivers_autoprobe`` of a PF."""
        return '%s/%s/%s' % (DEVICES_DIR, address, name)

    # -- primitive I/O ------------------------------------------------------
    def read_text(self, path):
        """Return the stripped content of an attribute, None when it does not exist."""
        # not host_files.read_attr: a PCI function's attributes also answer EIO and EOPNOTSUPP
        return _text(self.read_bytes(path))

    def read_bytes(self, path):
        return self.read_bytes_at(None, host_files.path(path))

    @staticmethod
    def read_bytes_at(dir_fd, name):
        """read_bytes of ``name`` relative to an open directory (one path walk for all of a
        function's attributes instead of one per attribute); with ``dir_fd`` None, ``name`` is a
        path below the host root."""
        try:
            return host_files.read_kernel_file(name, dir_fd)
        except (IOError, OSError) as exc:
            if exc.errno in _NO_VALUE:
                return None
            raise

    def exists(self, path):
        return os.path.exists(host_files.path(path))

    def listdir(self, path):
        try:
            return sorted(os.listdir(host_files.path(path)))
        except (IOError, OSError):
            return []

    def readlink_name(self, path):
        """Basename of a symlink target, None when the link does not exist."""
        try:
            return os.path.basename(os.readlink(host_files.path(path)))
        except (IOError, OSError):
            return None

    def write(self, path, value):
        """Write one value (and a newline) to a sysfs attribute with ``kernel_write.write_value``.

        Raises ZpciError with the errno, as the kernel reported it.
        """
        data = value if isinstance(value, bytes) else (u'%s\n' % value).encode('utf-8')
        try:
            kernel_write.write_value(path, data)
        except (IOError, OSError) as exc:
            if exc.filename is not None:  # open() failed
                raise ZpciError('cannot open %s: %s' % (path, os.strerror(exc.errno)), path, exc.errno)
            raise ZpciError('writing %r to %s failed: %s' % (value, path, os.strerror(exc.errno)), path, exc.errno)

    # -- slots ----------------------------------------------------------------
    def list_fids(self):
        """FIDs this partition has (configured or standby), ascending."""
        fids = []
        for name in self.listdir(SLOTS_DIR):
            if _SLOT_RE.fullmatch(name):
                fids.append(int(name, 16))
        return sorted(fids)

    def slot_exists(self, fid):
        return self.exists(self.slot_dir(fid))

    def slot_power(self, fid):
        """True when configured, False in standby, None when the slot does not exist."""
        value = self.read_text(self.slot_power_path(fid))
        if value is None:
            return None
        return value == '1'

    def find_address(self, fid, device_names=None):
        """Return the PCI address of a configured FID (None when no device has it).

        Looks first at devices below the slot's ``address`` (``DDDD:BB:dd``), then at
        every PCI device; a device matches when its ``function_id`` equals the FID.
        ``device_names``: the listing of the PCI devices when the caller has one.
        """
        wanted = fid
        names = self.listdir(DEVICES_DIR) if device_names is None else device_names
        prefix = self.read_text(self.slot_dir(fid) + '/address')
        ordered = names
        if prefix:
            first = [n for n in names if n.startswith(prefix + '.')]
            ordered = first + [n for n in names if n not in first]
        for name in ordered:
            if _hex_attr(self.read_text('%s/%s/function_id' % (DEVICES_DIR, name))) == wanted:
                return name
        return None

    # -- devices --------------------------------------------------------------
    def driver_of(self, address):
        return self.readlink_name(self.device_dir(address) + '/driver')

    def driver_override(self, address):
        return _override(self.read_text(self.override_path(address)))

    def iommu_group(self, address):
        name = self.readlink_name(self.device_dir(address) + '/iommu_group')
        return _int_or_none(name, 10)

    def net_devices(self, address):
        return self.listdir(self.device_dir(address) + '/net')

    def driver_available(self, driver):
        return self.exists(self.driver_dir(driver))

    def read_function(self, fid, device_names=None):
        """Return everything known about one FID as a dict (see the module's RETURN).
        ``device_names``: a listing of the PCI devices taken for this read (see read_functions)."""
        power = self.slot_power(fid)
        record = {
            'fid': fid,
            'slot': slot_name(fid),
            'power': None if power is None else ('on' if power else 'off'),
            'pci_address': None,
            'uid': None,
            'uid_is_unique': None,
            'pchid': None,
            'pft': None,
            'pft_name': None,
            'type': None,
            'vfn': None,
            'port': None,
            'pnet_id': None,
            'pnet_ids': [],
            'vendor_id': None,
            'device_id': None,
            'driver': None,
            'driver_override': None,
            'iommu_group': None,
            'enabled': None,
            'net_devices': [],
            'fidparm': None,
            'physfn': None,
            'isolated_vf': None,
            'sriov': None,
        }
        if not power:
            return record
        address = self.find_address(fid, device_names)
        if address is None:
            return record
        base = self.device_dir(address)
        try:
            dir_fd = os.open(host_files.path(base), os.O_RDONLY | os.O_DIRECTORY)
        except (IOError, OSError):
            return record  # the function went away since find_address saw it
        try:
            return self._read_device(record, address, base, dir_fd)
        finally:
            os.close(dir_fd)

    def _read_device(self, record, address, base, dir_fd):
        def attr(name):
            return _text(self.read_bytes_at(dir_fd, name))

        record['pci_address'] = address
        record['uid'] = _hex_attr(attr('uid'))
        unique = attr('uid_is_unique')
        record['uid_is_unique'] = None if unique is None else unique.strip() == '1'
        pchid = _hex_attr(attr('pchid'))
        record['pchid'] = None if pchid is None else '%04x' % pchid
        pft = _hex_attr(attr('pft'))
        record['pft'] = pft
        record['pft_name'] = None if pft is None else PFT_NAMES.get(pft, '0x%02x' % pft)
        vendor = _hex_attr(attr('vendor'))
        device = _hex_attr(attr('device'))
        record['vendor_id'] = None if vendor is None else '%04x' % vendor
        record['device_id'] = None if device is None else '%04x' % device
        record['type'] = classify(pft, record['vendor_id'], record['device_id'])
        record['vfn'] = _hex_attr(attr('vfn'))
        record['port'] = _int_or_none(attr('port'), 10)
        raw = self.read_bytes_at(dir_fd, 'util_string')
        ids = pnet_ids(raw) if raw else []
        record['pnet_ids'] = ids
        index = 0
        if pft == 0x02 and record['port']:
            # RoCE Express (one function, two ports): the field of the function's port.
            index = record['port'] - 1
        record['pnet_id'] = ids[index] if 0 <= index < len(ids) else None
        record['driver'] = _link_name(dir_fd, 'driver')
        record['driver_override'] = _override(attr('driver_override'))
        record['iommu_group'] = _int_or_none(_link_name(dir_fd, 'iommu_group'), 10)
        enable = attr('enable')
        record['enabled'] = None if enable is None else enable.strip() not in ('', '0')
        record['net_devices'] = self.net_devices(address)
        record['fidparm'] = _hex_attr(attr('fidparm'))
        record['physfn'] = _link_name(dir_fd, 'physfn')
        record['isolated_vf'] = bool(record['vfn']) and record['physfn'] is None
        total = _int_or_none(attr('sriov_totalvfs'), 10)
        if total is not None:
            autoprobe = attr('sriov_drivers_autoprobe')
            record['sriov'] = {
                'totalvfs': total,
                'numvfs': _int_or_none(attr('sriov_numvfs'), 10),
                'drivers_autoprobe': None if autoprobe is None else autoprobe.strip() == '1',
                'vfs': sorted(_link_name(dir_fd, name) for name in os.listdir(dir_fd) if _VIRTFN_RE.fullmatch(name)),
            }
        return record

    def uid_checking(self):
        """UID checking of the partition from /sys/firmware/clp (None when the kernel lacks it)."""
        value = self.read_text(UID_CHECKING)
        return None if value is None else value == '1'

    def fid_of_address(self, address):
        """The FID of the PCI device at ``address`` (None when there is none)."""
        return _hex_attr(self.read_text('%s/%s/function_id' % (DEVICES_DIR, address)))

    def read_functions(self, fids):
        """read_function of each FID (a dict by FID), with one listing of the PCI devices for all of
        them. A function powered on after the listing is not in it: read it again with
        read_function."""
        names = self.listdir(DEVICES_DIR)
        return dict((fid, self.read_function(fid, names)) for fid in fids)

    def read_all(self):
        names = self.listdir(DEVICES_DIR)
        return [self.read_function(fid, names) for fid in self.list_fids()]
