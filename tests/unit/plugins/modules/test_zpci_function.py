# -*- coding: utf-8 -*-
# Copyright (c) s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""zpci_function end to end over a fake sysfs with kernel write semantics."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import importlib.util
import json
import os

import pytest

from ansible.module_utils.testing import patch_module_args

from ansible_collections.s390x.network.plugins.module_utils import zpci_holders, zpci_resource
from ansible_collections.s390x.network.plugins.modules import zpci_function

_spec = importlib.util.spec_from_file_location(
    'zpci_fake_kernel', os.path.join(os.path.dirname(__file__), '..', 'module_utils', 'zpci_fake_kernel.py'))
fake = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fake)

RULES = '/etc/udev/rules.d/60-s390x-network-zpci.rules'
TMPFILES = '/etc/tmpfiles.d/s390x-network-zpci.conf'
MODLOAD = '/etc/modules-load.d/s390x-network-zpci.conf'


class Host(object):
    """A host: fake kernel, /etc below tmp, tool outputs for smcd/virsh, management interfaces."""

    def __init__(self, tmp_path, monkeypatch, functions, drivers=('ism', 'mlx5_core', 'vfio-pci')):
        self.root = str(tmp_path)
        self.kernel = fake.FakeKernel(tmp_path, functions, drivers=drivers)
        self.tools = {}
        self.mgmt = set()
        self.ran = []
        monkeypatch.setattr(zpci_function, 'ROOT', self.root)
        monkeypatch.setattr(zpci_function, 'ZpciSysfs', lambda root: self.kernel)
        monkeypatch.setattr(zpci_function, 'management_interfaces', lambda module, **kw: (set(self.mgmt), {}))
        monkeypatch.setattr(zpci_function, 'DEVICE_WAIT_SECONDS', 0)
        host = self

        def probe(run, which, proc_root, modules_path, sys_module_smc):
            def fake_run(argv):
                host.ran.append(argv)
                return host.tools.get(' '.join(argv[1:]), (1, '', 'no such command'))
            return zpci_holders.HolderProbe(fake_run, lambda name: '/usr/bin/' + name if name in ('smcd', 'virsh')
                                            else None, proc_root=proc_root, modules_path=modules_path,
                                            sys_module_smc=sys_module_smc)

        monkeypatch.setattr(zpci_function, 'HolderProbe', probe)
        self.tools['-c qemu:///system list --name --state-running'] = (0, '', '')

    def smc_in_use(self, fid, address):
        with open(self.kernel.real('/proc/modules'), 'w') as handle:
            handle.write('smc 245760 1 ism, Live 0x0\n')
        self.tools['device'] = (0, 'FID  Type  PCI-ID        PCHID  InUse  #LGs  PNET-ID  \n'
                                   '%04x ISM   %-12s  07c8   Yes       1                   \n' % (fid, address), '')

    def file(self, path):
        real = os.path.join(self.root, path.lstrip('/'))
        if not os.path.exists(real):
            return None
        with open(real) as handle:
            return handle.read()

    def run(self, capsys, check_mode=False, diff=False, **args):
        if check_mode:
            args['_ansible_check_mode'] = True
        if diff:
            args['_ansible_diff'] = True
        with patch_module_args(args):
            with pytest.raises(SystemExit) as exc:
                zpci_function.main()
        result = json.loads(capsys.readouterr().out)
        result['rc_exit'] = exc.value.code
        return result


def ism(fid, **kwargs):
    spec = dict(fake.ISM, fid=fid)
    spec.update(kwargs)
    return spec


def by_fid(records, fid):
    return [r for r in records if r['fid'] == fid][0]


def test_standby_ism_to_vfio_then_idempotent(tmp_path, monkeypatch, capsys):
    host = Host(tmp_path, monkeypatch, [ism(0x605)])
    result = host.run(capsys, config=[{'fid': 0x605, 'driver': 'vfio-pci', 'expected_type': 'ism'}])
    assert result['changed'] is True, result
    # the boot-time files first (a file system that refuses them fails the run before any change)
    assert [c.split()[0] for c in result['commands'][:3]] == ['write', 'write', 'write']
    assert result['commands'][3:7] == [
        'echo 1 > /sys/bus/pci/slots/00000605/power',
        'echo vfio-pci > /sys/bus/pci/devices/0605:00:00.0/driver_override',
        'echo 0605:00:00.0 > /sys/bus/pci/drivers/ism/unbind',
        'echo 0605:00:00.0 > /sys/bus/pci/drivers_probe',
    ]
    assert host.kernel.bound(0x605) == 'vfio-pci'
    after = by_fid(result['functions'], 0x605)
    assert after['pci_address'] == '0605:00:00.0' and after['driver'] == 'vfio-pci' and after['uid'] == 0x605
    assert after['type'] == 'ism' and after['pchid'] == '07c8' and after['pnet_id'] is None
    assert by_fid(result['before'], 0x605)['power'] == 'off'
    assert 'ATTR{function_id}=="0x00000605", ATTR{driver_override}="vfio-pci"' in host.file(RULES)
    assert host.file(TMPFILES).splitlines()[-1] == 'w /sys/bus/pci/slots/00000605/power - - - - 1'
    assert host.file(MODLOAD).splitlines()[-1] == 'vfio-pci'

    writes = len(host.kernel.writes)
    again = host.run(capsys, config=[{'fid': '605', 'driver': 'vfio-pci', 'expected_type': 'ism'}])
    assert again['changed'] is False and again['commands'] == []
    assert len(host.kernel.writes) == writes


def test_check_mode_predicts_and_changes_nothing(tmp_path, monkeypatch, capsys):
    host = Host(tmp_path, monkeypatch, [ism(0x605, power=True)])
    result = host.run(capsys, check_mode=True, diff=True, config=[{'fid': 0x605, 'driver': 'vfio-pci'}])
    assert result['changed'] is True
    assert host.kernel.writes == [] and host.file(RULES) is None
    assert host.kernel.bound(0x605) == 'ism'
    assert by_fid(result['after'], 0x605)['driver'] == 'vfio-pci'
    assert 'echo 0605:00:00.0 > /sys/bus/pci/drivers/ism/unbind' in result['commands']
    assert 'write %s' % RULES in result['commands']
    assert 'driver=ism' in result['diff'][0]['before'] and 'driver=vfio-pci' in result['diff'][0]['after']
    assert result['diff'][1]['after_header'] == RULES
    assert result['drift'] == [
        {'object': RULES, 'scope': 'persistent', 'difference': 'file differs'},
        {'object': TMPFILES, 'scope': 'persistent', 'difference': 'file differs'},
        {'object': MODLOAD, 'scope': 'persistent', 'difference': 'file differs'},
        {'object': 'zpci fid 0x605', 'scope': 'active',
         'difference': 'driver_override - -> vfio-pci, driver ism -> vfio-pci'},
    ]


def test_check_mode_on_standby_names_address_by_fid(tmp_path, monkeypatch, capsys):
    host = Host(tmp_path, monkeypatch, [ism(0x605)])
    result = host.run(capsys, check_mode=True, persistent=False, config=[{'fid': 0x605, 'driver': 'vfio-pci'}])
    assert result['commands'] == ['echo 1 > /sys/bus/pci/slots/00000605/power',
                                  'echo vfio-pci > /sys/bus/pci/devices/<address of FID 0x605>/driver_override',
                                  'echo <address of FID 0x605> > /sys/bus/pci/drivers_probe']
    assert host.kernel.slot_power(0x605) is False


def test_unknown_fid_lists_host_fids_and_changes_nothing(tmp_path, monkeypatch, capsys):
    host = Host(tmp_path, monkeypatch, [ism(0x605), ism(0x1017)])
    result = host.run(capsys, config=[{'fid': 0x605, 'driver': 'vfio-pci'}, {'fid': 0x999}])
    assert result['failed'] is True
    assert 'config[1].fid: FID 0x999 is not configured to this partition' in result['msg']
    assert 'FIDs of this host: 0x605, 0x1017' in result['msg']
    assert host.kernel.writes == []


def test_roce_with_expected_ism_fails_before_changes(tmp_path, monkeypatch, capsys):
    host = Host(tmp_path, monkeypatch, [dict(fake.ROCE2, fid=0x20e, power=True), ism(0x605)])
    result = host.run(capsys, config=[{'fid': 0x605, 'driver': 'vfio-pci'},
                                      {'fid': 0x20e, 'driver': 'vfio-pci', 'expected_type': 'ism'}])
    assert result['failed'] and result['msg'].startswith('config[1].expected_type: FID 0x20e is roce')
    assert host.kernel.writes == []


def test_conflicting_duplicate_fails(tmp_path, monkeypatch, capsys):
    host = Host(tmp_path, monkeypatch, [ism(0x605)])
    result = host.run(capsys, config=[{'fid': 0x605, 'driver': 'vfio-pci'}, {'fid': '0x605', 'driver': 'ism'}])
    assert result['failed'] and result['msg'].startswith('config[1].driver: FID 0x605 is also in config[0]')


def test_standby_function_of_wrong_type_is_powered_off_again(tmp_path, monkeypatch, capsys):
    host = Host(tmp_path, monkeypatch, [dict(fake.ROCE2, fid=0x20e)])
    result = host.run(capsys, config=[{'fid': 0x20e, 'driver': 'vfio-pci', 'expected_type': 'ism'}])
    assert result['failed'] and 'was powered off again' in result['msg']
    assert host.kernel.slot_power(0x20e) is False
    assert host.file(RULES) is None


def test_refuses_to_take_ism_from_host_smcd(tmp_path, monkeypatch, capsys):
    host = Host(tmp_path, monkeypatch, [ism(0x605, power=True), ism(0x606)])
    host.smc_in_use(0x605, '0605:00:00.0')
    result = host.run(capsys, config=[{'fid': 0x606, 'driver': 'vfio-pci'}, {'fid': 0x605, 'driver': 'vfio-pci'}])
    assert result['failed'] and 'FID 0x605: smc-d' in result['msg']
    assert result['refused'][0]['fid'] == 0x605
    assert host.kernel.writes == [] and host.kernel.bound(0x605) == 'ism'
    forced = host.run(capsys, force=True, config=[{'fid': 0x605, 'driver': 'vfio-pci'}])
    assert forced['changed'] and host.kernel.bound(0x605) == 'vfio-pci'


def test_refuses_to_unbind_from_running_guest(tmp_path, monkeypatch, capsys):
    host = Host(tmp_path, monkeypatch, [ism(0x605, power=True)])
    host.run(capsys, config=[{'fid': 0x605, 'driver': 'vfio-pci'}])
    host.tools['-c qemu:///system list --name --state-running'] = (0, 'g1\n', '')
    host.tools['-c qemu:///system dumpxml g1'] = (0, (
        "<domain><devices><hostdev mode='subsystem' type='pci' managed='yes'><source>"
        "<address domain='0x0605' bus='0x00' slot='0x00' function='0x0'/></source></hostdev>"
        "</devices></domain>"), '')
    writes = len(host.kernel.writes)
    same = host.run(capsys, config=[{'fid': 0x605, 'driver': 'vfio-pci'}])
    assert same['changed'] is False
    assert same['functions'][0]['holders'] == ['libvirt: running guest g1 has it as hostdev']
    for config in ([{'fid': 0x605, 'driver': 'ism'}], [{'fid': 0x605, 'power': 'off'}]):
        result = host.run(capsys, config=config)
        assert result['failed'] and 'libvirt: running guest g1 has it as hostdev' in result['msg']
    assert len(host.kernel.writes) == writes and host.kernel.bound(0x605) == 'vfio-pci'


def test_refuses_power_off_of_management_interface(tmp_path, monkeypatch, capsys):
    host = Host(tmp_path, monkeypatch, [dict(fake.ROCE2, fid=0x20e, power=True, net=['eno2'])])
    host.mgmt = {'eno2'}
    result = host.run(capsys, config=[{'fid': 0x20e, 'power': 'off'}])
    assert result['failed'] and 'management connection: it carries eno2' in result['msg']
    assert host.kernel.slot_power(0x20e) is True
    host.mgmt = {'eth0'}
    result = host.run(capsys, config=[{'fid': 0x20e, 'power': False}])
    assert result['changed'] and host.kernel.slot_power(0x20e) is False
    assert result['commands'][0] == 'echo 0 > /sys/bus/pci/slots/0000020e/power'


def test_check_mode_on_standby_predicts_the_binding_by_fid(tmp_path, monkeypatch, capsys):
    host = Host(tmp_path, monkeypatch, [ism(0x606)])
    result = host.run(capsys, check_mode=True, persistent=False, config=[{'fid': 0x606, 'driver': 'ism'}])
    assert result['commands'] == [
        'echo 1 > /sys/bus/pci/slots/00000606/power',
        'echo ism > /sys/bus/pci/devices/<address of FID 0x606>/driver_override',
        'echo <address of FID 0x606> > /sys/bus/pci/drivers_probe']
    assert result['drift'] == [{'object': 'zpci fid 0x606', 'scope': 'active',
                                'difference': 'power off -> on, driver_override - -> ism, driver - -> ism'}]
    assert host.kernel.writes == []


def test_ebusy_on_unbind_keeps_old_driver_and_override(tmp_path, monkeypatch, capsys):
    host = Host(tmp_path, monkeypatch, [ism(0x605, power=True)])
    host.kernel.fail_next('/sys/bus/pci/drivers/ism/unbind', errno.EBUSY)
    result = host.run(capsys, config=[{'fid': 0x605, 'driver': 'vfio-pci'}])
    assert result['failed']
    assert 'Device or resource busy' in result['msg'] and 'keeps driver ism' in result['msg']
    assert host.kernel.bound(0x605) == 'ism'
    assert host.kernel.driver_override('0605:00:00.0') is None
    # the boot-time files were written first and are back as they were (none): boot state = old state
    assert host.file(RULES) is None and host.file(TMPFILES) is None and host.file(MODLOAD) is None
    # what was written, then what put back the (cleared) override and the files
    assert [c for c in result['commands'] if c.startswith('echo')] == [
        'echo vfio-pci > /sys/bus/pci/devices/0605:00:00.0/driver_override']
    assert result['rollback']['ok'] is True
    assert [c for c in result['rollback']['commands'] if c.startswith('echo')] == [
        'echo > /sys/bus/pci/devices/0605:00:00.0/driver_override']
    assert [c for c in result['rollback']['commands'] if c.startswith('rm ')] == [
        'rm /etc/udev/rules.d/60-s390x-network-zpci.rules', 'rm /etc/tmpfiles.d/s390x-network-zpci.conf',
        'rm /etc/modules-load.d/s390x-network-zpci.conf']
    assert 'hold the old state' in result['msg'] and result['changed'] is True


def test_vfio_pci_module_is_loaded_when_missing(tmp_path, monkeypatch, capsys):
    host = Host(tmp_path, monkeypatch, [ism(0x605, power=True)], drivers=('ism',))
    calls = []

    def run_command(self, argv, **kwargs):
        calls.append(argv)
        if argv[-2:] == ['/sbin/modprobe', 'vfio-pci'][-2:] or argv[-1] == 'vfio-pci':
            host.kernel.register_driver('vfio-pci')
            return 0, '', ''
        return 1, '', 'unexpected'

    monkeypatch.setattr(zpci_function.AnsibleModule, 'run_command', run_command)
    monkeypatch.setattr(zpci_function.AnsibleModule, 'get_bin_path',
                        lambda self, name, required=False, opt_dirs=None: '/sbin/' + name)
    result = host.run(capsys, persistent=False, config=[{'fid': 0x605, 'driver': 'vfio-pci'}])
    assert ['/sbin/modprobe', 'vfio-pci'] in calls
    assert 'modprobe vfio-pci' in result['commands']
    assert host.kernel.bound(0x605) == 'vfio-pci'


def test_driver_none_then_back_to_ism(tmp_path, monkeypatch, capsys):
    host = Host(tmp_path, monkeypatch, [ism(0x605, power=True)])
    result = host.run(capsys, config=[{'fid': 0x605, 'driver': 'none'}])
    assert result['changed'] and host.kernel.bound(0x605) is None
    assert host.kernel.driver_override('0605:00:00.0') == 'none'
    assert 'ATTR{driver_override}="none"' in host.file(RULES)
    assert host.file(MODLOAD) is None
    back = host.run(capsys, config=[{'fid': 0x605, 'driver': 'ism'}])
    assert host.kernel.bound(0x605) == 'ism' and back['changed']


def test_overridden_clears_unlisted_overrides_and_rules(tmp_path, monkeypatch, capsys):
    host = Host(tmp_path, monkeypatch, [ism(0x605, power=True), ism(0x606, power=True)])
    host.run(capsys, config=[{'fid': 0x605, 'driver': 'vfio-pci'}, {'fid': 0x606, 'driver': 'vfio-pci'}])
    result = host.run(capsys, state='overridden', config=[{'fid': 0x605, 'driver': 'vfio-pci'}])
    assert result['changed']
    assert [c for c in result['commands'] if not c.startswith(('write ', 'rm '))] == [
        'echo > /sys/bus/pci/devices/0606:00:00.0/driver_override']
    assert host.kernel.driver_override('0606:00:00.0') is None
    assert host.kernel.bound(0x606) == 'vfio-pci'  # left bound until the next probe
    assert '0x00000606' not in host.file(RULES) and '0x00000605' in host.file(RULES)
    assert 'slots/00000606/power' in host.file(TMPFILES)  # left powered
    assert [r['fid'] for r in result['functions']] == [0x605, 0x606]


def test_gathered_and_rendered(tmp_path, monkeypatch, capsys):
    host = Host(tmp_path, monkeypatch, [ism(0x605, power=True, pnet_ids=['NETA']), ism(0x606)])
    gathered = host.run(capsys, state='gathered')['gathered']
    assert [(r['fid'], r['power'], r['pnet_id']) for r in gathered] == [(0x605, 'on', 'NETA'), (0x606, 'off', None)]
    rendered = host.run(capsys, state='rendered', config=[{'fid': '606', 'driver': 'vfio-pci'}])
    assert rendered['changed'] is False
    assert rendered['rendered']['commands'][0] == 'echo 1 > /sys/bus/pci/slots/00000606/power'
    assert 'ATTR{function_id}=="0x00000606"' in rendered['rendered']['files'][RULES]
    assert host.kernel.writes == []


def test_power_on_only_keeps_binding(tmp_path, monkeypatch, capsys):
    host = Host(tmp_path, monkeypatch, [ism(0x605)])
    result = host.run(capsys, persistent=False, config=[{'fid': 0x605}])
    assert result['commands'] == ['echo 1 > /sys/bus/pci/slots/00000605/power']
    assert host.kernel.bound(0x605) == 'ism'


# -- failure paths: each function ends in its old state or its new one, boot files matching -------

def test_probe_failing_after_the_unbind_puts_the_old_driver_back(tmp_path, monkeypatch, capsys):
    host = Host(tmp_path, monkeypatch, [ism(0x605, power=True)], drivers=('ism', 'vfio-pci'))
    host.kernel.fail_next('/sys/bus/pci/drivers_probe', errno.ENODEV)
    result = host.run(capsys, config=[{'fid': 0x605, 'driver': 'vfio-pci'}])
    assert result['failed'] and result['changed'] is True
    assert host.kernel.bound(0x605) == 'ism'  # never left without a driver
    assert host.kernel.driver_override('0605:00:00.0') is None
    assert 'keeps driver ism' in result['msg']
    assert [c for c in result['commands'] + result['rollback']['commands'] if c.startswith('echo')] == [
        'echo vfio-pci > /sys/bus/pci/devices/0605:00:00.0/driver_override',
        'echo 0605:00:00.0 > /sys/bus/pci/drivers/ism/unbind',
        'echo > /sys/bus/pci/devices/0605:00:00.0/driver_override',
        'echo 0605:00:00.0 > /sys/bus/pci/drivers_probe']
    assert host.file(RULES) is None  # boot state = the old state

    again = host.run(capsys, config=[{'fid': 0x605, 'driver': 'vfio-pci'}])  # a clean re-run converges
    assert not again.get('failed') and host.kernel.bound(0x605) == 'vfio-pci'


def test_modprobe_failing_leaves_no_override_behind(tmp_path, monkeypatch, capsys):
    host = Host(tmp_path, monkeypatch, [ism(0x605, power=True)], drivers=('ism',))
    monkeypatch.setattr(zpci_function.AnsibleModule, 'run_command',
                        lambda self, argv, **kw: (1, '', 'modprobe: FATAL: Module vfio-pci not found'))
    monkeypatch.setattr(zpci_function.AnsibleModule, 'get_bin_path',
                        lambda self, name, required=False, opt_dirs=None: '/sbin/' + name)
    result = host.run(capsys, persistent=False, config=[{'fid': 0x605, 'driver': 'vfio-pci'}])
    assert result['failed'] and 'modprobe vfio-pci failed' in result['msg']
    assert host.kernel.bound(0x605) == 'ism' and host.kernel.driver_override('0605:00:00.0') is None
    assert host.kernel.writes == []  # nothing was written to sysfs


@pytest.mark.parametrize('failing', [RULES, MODLOAD])
def test_a_boot_file_that_cannot_be_written_fails_before_any_function_changes(
        tmp_path, monkeypatch, capsys, failing):
    host = Host(tmp_path, monkeypatch, [ism(0x605)])
    original = zpci_resource.ZpciFunctions.write_file

    def read_only(self, path, content):
        if path == failing:
            raise OSError(errno.EROFS, 'Read-only file system')
        return original(self, path, content)
    monkeypatch.setattr(zpci_resource.ZpciFunctions, 'write_file', read_only)
    result = host.run(capsys, config=[{'fid': 0x605, 'driver': 'vfio-pci'}])
    assert result['failed'] and 'cannot write %s: Read-only file system' % failing in result['msg']
    assert result['changed'] is False  # nothing on the host differs from before
    assert host.kernel.writes == [] and host.kernel.bound(0x605) is None  # still in standby
    # files written before the failing one are put back: none is left
    assert host.file(RULES) is None and host.file(TMPFILES) is None and host.file(MODLOAD) is None
