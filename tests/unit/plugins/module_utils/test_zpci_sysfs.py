# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""zPCI sysfs: FID forms, slot -> PCI address resolution, attribute formats."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import os
import shutil

import pytest

from ansible_collections.s390x.network.plugins.module_utils.engine import host_files
from ansible_collections.s390x.network.plugins.module_utils.zpci.sysfs import (
    ZpciError,
    ZpciSysfs,
    classify,
    slot_name,
)
from ansible_collections.s390x.network.tests.unit.fake_kernel import ISM, ROCE2


def test_slot_name_is_eight_lowercase_hex_digits():
    assert slot_name(0x605) == '00000605'
    assert slot_name(0xABCDEF01) == 'abcdef01'
    assert ZpciSysfs.slot_power_path(0x1017) == '/sys/bus/pci/slots/00001017/power'


def test_classify_by_pft_then_ids():
    assert classify(0x05) == 'ism'
    assert classify(0x0A) == 'roce'
    assert classify(0x02) == 'roce'
    assert classify(0x0B) == 'nvme'
    assert classify(None, '1014', '04ed') == 'ism'
    assert classify(None, '15b3', '1016') == 'roce'
    # Network Express by pft; 15b3:101e alone (RoCE Express3 or Network Express) is no type
    assert classify(0x0C, '15b3', '101e') == 'neth'
    assert classify(0x0F, '15b3', '101e') == 'netd'
    assert classify(0x0A, '15b3', '101e') == 'roce'
    assert classify(None, '15b3', '101e') == 'other'
    assert classify(None, '15b3', '1234') == 'other'
    assert classify(0x33, '1014', '0999') == 'other'


def test_list_fids_only_takes_fid_slots(fake_kernel):
    kernel = fake_kernel([dict(ISM, fid=0x606), dict(ISM, fid=0x605)])
    os.makedirs(kernel.path('/sys/bus/pci/slots/1-2'))  # a non-s390 slot name
    assert kernel.list_fids() == [0x605, 0x606]


def test_standby_function_has_only_fid_and_power(fake_kernel):
    kernel = fake_kernel([dict(ISM, fid=0x605)])
    record = kernel.read_function(0x605)
    assert record['power'] == 'off'
    assert record['pci_address'] is None
    assert record['type'] is None
    assert record['driver'] is None


def test_reads_configured_ism_function(fake_kernel):
    kernel = fake_kernel([dict(ISM, fid=0x605, power=True, pchid=0x7C8, vfn=1, iommu_group=3)])
    record = kernel.read_function(0x605)
    assert record['pci_address'] == '0605:00:00.0'
    assert record['uid'] == 0x605
    assert record['uid_is_unique'] is True
    assert record['pchid'] == '07c8'
    assert record['pft'] == 5 and record['pft_name'] == 'ISM' and record['type'] == 'ism'
    assert record['vfn'] == 1
    assert record['pnet_id'] is None
    assert record['driver'] == 'ism'
    assert record['driver_override'] is None
    assert record['iommu_group'] == 3
    assert record['vendor_id'] == '1014' and record['device_id'] == '04ed'


def test_address_is_found_by_function_id_not_guessed(fake_kernel):
    # Without UID checking the domain is allocated (0000, 0001...), unrelated to the FID.
    kernel = fake_kernel(
        [dict(ISM, fid=0x605, power=True, uid_is_unique=0), dict(ISM, fid=0x606, power=True, uid_is_unique=0)],
        address_of={0x605: '0001:00:00.0', 0x606: '0000:00:00.0'},
    )
    assert kernel.find_address(0x605) == '0001:00:00.0'
    assert kernel.find_address(0x606) == '0000:00:00.0'
    assert kernel.read_function(0x605)['uid_is_unique'] is False


def test_stale_slot_address_falls_back_to_a_scan(fake_kernel):
    kernel = fake_kernel([dict(ISM, fid=0x605, power=True)])
    with open(kernel.path('/sys/bus/pci/slots/00000605/address'), 'w') as handle:
        handle.write('0999:00:00\n')
    assert kernel.find_address(0x605) == '0605:00:00.0'


def test_roce_express_pnet_id_of_its_port(fake_kernel):
    spec = dict(ROCE2, fid=0x10A, power=True, pft=0x02, port=2, pnet_ids=['NETA', 'NETB'], net=['ens1d1'])
    kernel = fake_kernel([spec])
    record = kernel.read_function(0x10A)
    assert record['type'] == 'roce' and record['pft_name'] == 'ROCE'
    assert record['pnet_ids'] == ['NETA', 'NETB', None, None]
    assert record['pnet_id'] == 'NETB'
    assert record['net_devices'] == ['ens1d1']
    assert record['driver'] == 'mlx5_core'


def test_roce2_uses_first_field(fake_kernel):
    kernel = fake_kernel([dict(ROCE2, fid=0x20E, power=True, port=1, pnet_ids=['NETR'])])
    assert kernel.read_function(0x20E)['pnet_id'] == 'NETR'


def test_override_reads_null_as_none_and_unbound_device(fake_kernel):
    kernel = fake_kernel([dict(ISM, fid=0x605, power=True, bound=False)])
    assert kernel.driver_override('0605:00:00.0') is None
    assert kernel.driver_of('0605:00:00.0') is None
    ZpciSysfs().write('/sys/bus/pci/devices/0605:00:00.0/driver_override', 'vfio-pci')
    assert kernel.driver_override('0605:00:00.0') == 'vfio-pci'


def test_real_write_reports_errno(host_root):
    sysfs = ZpciSysfs()
    with pytest.raises(ZpciError) as err:
        sysfs.write('/sys/bus/pci/slots/00000605/power', '1')
    assert err.value.errno == 2
    assert str(err.value) == 'cannot open /sys/bus/pci/slots/00000605/power: No such file or directory'
    os.makedirs(host_files.path('/sys/bus/pci/slots/00000605'))
    with open(host_files.path('/sys/bus/pci/slots/00000605/power'), 'w') as handle:
        handle.write('0\n')
    sysfs.write('/sys/bus/pci/slots/00000605/power', '1')
    with open(host_files.path('/sys/bus/pci/slots/00000605/power')) as handle:
        assert handle.read() == '1\n'
    assert (host_root / 'sys' / 'bus' / 'pci' / 'slots' / '00000605' / 'power').read_text() == '1\n'


def test_a_refused_write_names_the_value_and_the_kernel_error(fake_kernel):
    kernel = fake_kernel([dict(ISM, fid=0x605, power=True)])
    with pytest.raises(ZpciError) as err:  # EIO: the function is configured already
        ZpciSysfs().write('/sys/bus/pci/slots/00000605/power', '1')
    assert err.value.errno == errno.EIO and err.value.path == '/sys/bus/pci/slots/00000605/power'
    assert str(err.value) == "writing '1' to /sys/bus/pci/slots/00000605/power failed: Input/output error"
    assert kernel.writes == [('/sys/bus/pci/slots/00000605/power', '1')]


def test_enabled_reads_the_enable_count(fake_kernel, set_host_root, tmp_path):
    kernel = fake_kernel([dict(ISM, fid=0x605, power=True)])
    assert kernel.read_function(0x605)['enabled'] is None  # no enable attribute
    enable = kernel.path('/sys/bus/pci/devices/0605:00:00.0/enable')
    for text, expected in (('0\n', False), ('1\n', True), ('2\n', True)):
        with open(enable, 'w') as handle:
            handle.write(text)
        assert kernel.read_function(0x605)['enabled'] is expected
    set_host_root(tmp_path)  # another host, with the function in standby
    assert fake_kernel([dict(ISM, fid=0x605)]).read_function(0x605)['enabled'] is None


def _add_dibs_layout(kernel, address, name, pchid):
    """What a Linux 6.18+ kernel adds for a bound ISM function and the loopback (drivers/dibs/dibs_main.c:
    class "dibs", attributes gid and fabric_id; drivers/s390/net/ism_drv.c: the dibs device "ism%x" of
    the UID as a child of the PCI function; drivers/dibs/dibs_loopback.c: "lo" without a parent)."""
    child = kernel.path(kernel.device_dir(address) + '/dibs/' + name)
    os.makedirs(child)
    for attr, value in (
        ('fabric_id', '0x%04x' % pchid),
        ('gid', '00000605-0000-4000-0000-000000000000'),
        ('uevent', ''),
    ):
        with open(os.path.join(child, attr), 'w') as handle:
            handle.write(value + '\n')
    os.symlink(kernel.path(kernel.device_dir(address)), os.path.join(child, 'device'))
    lo = kernel.path('/sys/devices/virtual/dibs/lo')
    os.makedirs(lo)
    with open(os.path.join(lo, 'fabric_id'), 'w') as handle:
        handle.write('0xffff\n')
    os.makedirs(kernel.path('/sys/class/dibs'))
    os.symlink(child, kernel.path('/sys/class/dibs/' + name))
    os.symlink(lo, kernel.path('/sys/class/dibs/lo'))


def test_a_dibs_kernel_reads_the_same_ism_function(fake_kernel, host_root):
    # DIBS moved the ISM device below /sys/class/dibs, but the zPCI function is still a PCI device
    # bound to the PCI driver ism: every field reads as before, the dibs child is no net device.
    spec = dict(ISM, fid=0x605, power=True, pchid=0x7C8, vfn=1, iommu_group=3)
    before = fake_kernel([spec]).read_function(0x605)
    for sub in ('sys', 'proc', 'etc'):
        shutil.rmtree(str(host_root / sub))
    kernel = fake_kernel([spec])
    _add_dibs_layout(kernel, '0605:00:00.0', 'ism605', 0x7C8)
    after = kernel.read_function(0x605)
    assert after == before
    assert after['driver'] == 'ism' and after['net_devices'] == [] and after['type'] == 'ism'
    assert kernel.find_address(0x605) == '0605:00:00.0'
    assert kernel.listdir('/sys/bus/pci/devices') == ['0605:00:00.0']
