# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Who holds a function: smcd device, libvirt domains, open VFIO groups, management interfaces."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

from ansible_collections.s390x.network.plugins.module_utils.zpci.holders import (
    HolderProbe,
    hostdev_addresses,
    parse_smcd_device,
    smcd_users,
    vfio_group_users,
    virsh_dumpxml_argv,
    virsh_list_argv,
)

# smc-tools dev.c: header printf pieces, then rows "%04x %-4s  %-12s  %04x   %-4s  %5d  %-16s"
SMCD_HEADER = 'FID  Type  PCI-ID        PCHID  InUse  #LGs  PNET-ID  '


def smcd_row(fid, pci, pchid, in_use, lgs, pnet=''):
    return '%04x %-4s  %-12s  %04x   %-4s  %5d  %-16s ' % (fid, 'ISM', pci, pchid, in_use, lgs, pnet)


SMCD_OUT = (
    '\n'.join(
        [
            SMCD_HEADER,
            smcd_row(0x605, '0605:00:00.0', 0x7C8, 'Yes', 2),
            smcd_row(0x1017, '1017:00:00.0', 0x7E1, 'No', 0, '*NETA'),
            smcd_row(0x12345, '2345:00:00.0', 0x7E1, 'No', 0, 'PNETLONG12345678'),
        ]
    )
    + '\n'
)

DOMAIN = """<domain type='qemu'><name>g1</name><devices>
<hostdev mode='subsystem' type='pci' managed='yes'>
  <source><address domain='0x0605' bus='0x00' slot='0x00' function='0x0'/></source>
  <address type='pci' domain='0x0000' bus='0x00' slot='0x01' function='0x0'><zpci uid='0x0605' fid='0x00000605'/></address>
</hostdev>
<hostdev mode='subsystem' type='usb'><source><vendor id='0x1'/></source></hostdev>
</devices></domain>"""


def test_parse_smcd_device():
    devices = parse_smcd_device(SMCD_OUT)
    assert [d['fid'] for d in devices] == [0x605, 0x1017, 0x12345]
    assert devices[0]['in_use'] is True and devices[0]['link_groups'] == 2 and devices[0]['pnet_id'] is None
    assert devices[1]['pnet_id'] == 'NETA' and devices[1]['pnet_id_user_set'] is True
    assert devices[2]['pnet_id'] == 'PNETLONG12345678'
    assert smcd_users(devices, 0x605, '0605:00:00.0')
    assert not smcd_users(devices, 0x1017, '1017:00:00.0')
    assert smcd_users(devices, 0x999, '0605:00:00.0')  # matched by address


def test_hostdev_addresses():
    assert hostdev_addresses(DOMAIN) == ['0605:00:00.0']
    assert hostdev_addresses('<not xml') == []


def test_virsh_argv():
    assert virsh_list_argv('/usr/bin/virsh') == [
        '/usr/bin/virsh',
        '-c',
        'qemu:///system',
        'list',
        '--name',
        '--state-running',
    ]
    assert virsh_dumpxml_argv('g1') == ['virsh', '-c', 'qemu:///system', 'dumpxml', 'g1']


def _fake_proc(root, pid, target):
    fd_dir = root / 'proc' / str(pid) / 'fd'
    fd_dir.mkdir(parents=True)
    os.symlink(target, str(fd_dir / '7'))


def test_vfio_group_users(host_root):
    _fake_proc(host_root, 4242, '/dev/vfio/3')
    _fake_proc(host_root, 17, '/dev/null')
    (host_root / 'proc' / 'self').mkdir()
    assert vfio_group_users(3) == [4242]
    assert vfio_group_users(4) == []
    assert vfio_group_users(None) == []


def make_probe(root, smc_loaded=True, commands=None, which=('smcd', 'virsh')):
    (root / 'proc').mkdir(exist_ok=True)
    modules = root / 'proc' / 'modules'
    modules.write_text('smc 245760 1 ism, Live 0x0\n' if smc_loaded else 'ism 1 0 - Live 0x0\n')
    calls = []
    outputs = commands or {}

    def run(argv):
        calls.append(argv)
        key = ' '.join(argv[1:])
        return outputs.get(key, (1, '', 'unexpected'))

    probe = HolderProbe(run, lambda name: ('/usr/bin/' + name) if name in which else None)
    return probe, calls


RECORD = {'fid': 0x605, 'pci_address': '0605:00:00.0', 'driver': 'ism', 'iommu_group': 3, 'net_devices': []}


def test_holders_smcd_in_use(host_root):
    probe, calls = make_probe(
        host_root,
        commands={'device': (0, SMCD_OUT, ''), '-c qemu:///system list --name --state-running': (0, '\n', '')},
    )
    reasons = probe.holders(RECORD)
    assert reasons == ['smc-d: the host uses it for SMC-D (smcd device InUse/link groups)']
    probe.holders(RECORD)
    assert calls.count(['/usr/bin/smcd', 'device']) == 1  # cached


def test_holders_smc_built_in_is_seen_through_sys_module(host_root):
    # CONFIG_SMC=y: no line in /proc/modules, but /sys/module/smc exists
    probe, calls = make_probe(
        host_root,
        smc_loaded=False,
        commands={'device': (0, SMCD_OUT, ''), '-c qemu:///system list --name --state-running': (0, '\n', '')},
    )
    (host_root / 'sys' / 'module' / 'smc').mkdir(parents=True)
    assert probe.holders(RECORD) == ['smc-d: the host uses it for SMC-D (smcd device InUse/link groups)']
    assert ['/usr/bin/smcd', 'device'] in calls


def test_holders_without_smc_module_does_not_run_smcd(host_root):
    probe, calls = make_probe(host_root, smc_loaded=False, which=())
    assert probe.holders(RECORD) == []
    assert calls == []


def test_holders_running_guest_and_open_vfio_group(host_root):
    _fake_proc(host_root, 999, '/dev/vfio/3')
    probe, dummy = make_probe(
        host_root,
        commands={
            'device': (0, SMCD_HEADER + '\n', ''),
            '-c qemu:///system list --name --state-running': (0, 'g1\n\n', ''),
            '-c qemu:///system dumpxml g1': (0, DOMAIN, ''),
        },
    )
    record = dict(RECORD, driver='vfio-pci')
    assert probe.holders(record) == [
        'libvirt: running guest g1 has it as hostdev',
        'vfio: /dev/vfio/3 is open by pid 999',
    ]


def test_holders_management_interface(host_root):
    probe, dummy = make_probe(host_root, smc_loaded=False, which=())
    record = dict(RECORD, driver='mlx5_core', net_devices=['eno2', 'eno3'])
    assert probe.holders(record, {'eno3', 'lo'}) == ['management connection: it carries eno3']


def test_failing_tools_are_warnings(host_root):
    probe, dummy = make_probe(host_root, commands={})
    assert probe.holders(RECORD) == []
    assert len(probe.warnings) == 2
    assert probe.warnings[0].startswith('smcd device failed')


def test_holders_enabled_vfio_device_is_in_use(host_root):
    # QEMU in another PID namespace: no /proc entry here, but vfio-pci enabled the device
    probe, dummy = make_probe(host_root, smc_loaded=False, which=())
    record = dict(RECORD, driver='vfio-pci', enabled=True)
    assert probe.holders(record) == ['vfio: the device is enabled, a VFIO user (QEMU) has it open']
    assert probe.holders(dict(record, enabled=False)) == []
    assert probe.holders(dict(record, driver='ism')) == []  # host drivers enable at probe
    _fake_proc(host_root, 42, '/dev/vfio/3')
    assert probe.holders(record) == ['vfio: /dev/vfio/3 is open by pid 42']


def test_holders_of_some_kinds_run_only_their_tool(host_root):
    _fake_proc(host_root, 999, '/dev/vfio/3')
    commands = {
        'device': (0, SMCD_OUT, ''),
        '-c qemu:///system list --name --state-running': (0, 'g1\n', ''),
        '-c qemu:///system dumpxml g1': (0, DOMAIN, ''),
    }
    probe, calls = make_probe(host_root, commands=commands)
    assert probe.holders(RECORD, kinds=('smc-d',)) == [
        'smc-d: the host uses it for SMC-D (smcd device InUse/link groups)'
    ]
    assert calls == [['/usr/bin/smcd', 'device']]
    assert probe.holders(RECORD, kinds=()) == [] and len(calls) == 1
    record = dict(RECORD, driver='vfio-pci', net_devices=['eno3'])
    assert probe.holders(record, {'eno3'}, kinds=('vfio', 'management')) == [
        'vfio: /dev/vfio/3 is open by pid 999',
        'management connection: it carries eno3',
    ]
    assert len(calls) == 1  # no virsh
    assert probe.holders(record, {'eno3'}, kinds=('libvirt',)) == ['libvirt: running guest g1 has it as hostdev']
    assert ['/usr/bin/virsh', '-c', 'qemu:///system', 'list', '--name', '--state-running'] in calls
