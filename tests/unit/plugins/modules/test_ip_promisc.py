# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ip_promisc module end to end on a fake kernel: Network Express NETH and NETD VFs with their
netdevs (fake_kernel.py), ``ip link set`` and ``systemctl`` answered the way they change the host."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest

from ansible_collections.s390x.network.plugins.module_utils.engine import host_files
from ansible_collections.s390x.network.plugins.module_utils.ip import link_promisc
from ansible_collections.s390x.network.plugins.modules import ip_promisc
from ansible_collections.s390x.network.tests.unit.fake_kernel import NETD, NETH, ROCE3

UNIT = '/etc/systemd/system/s390x-network-promisc-eno4.service'
WANTS = '/etc/systemd/system/sys-subsystem-net-devices-eno4.device.wants/s390x-network-promisc-eno4.service'


def function(fid, kind, net, **extra):
    spec = dict(kind, fid=fid, uid=fid, power=True, net=[net])
    spec.update(extra)
    return spec


@pytest.fixture
def host(fake_kernel, run_module):
    """NETH FID 0x110 (fidparm 0x01) as eno4, NETH 0x111 (fidparm 0x00) as eno5, NETH 0x112 without
    fidparm (a kernel before 6.13) as eno6, NETD 0x120 as eno7, RoCE Express3 0x130 as eno8; systemd
    runs. ``host.run(args, check=False, diff=False)`` returns the ModuleExit; ``host.commands`` the
    argvs the module ran."""
    kernel = fake_kernel(
        [
            function(0x110, NETH, 'eno4', fidparm=0x01),
            function(0x111, NETH, 'eno5', fidparm=0x00),
            function(0x112, NETH, 'eno6'),
            function(0x120, NETD, 'eno7'),
            function(0x130, ROCE3, 'eno8', fidparm=0x00),
        ]
    )
    os.makedirs(kernel.path('/run/systemd/system'))
    kernel.commands = []
    kernel.fail = None  # the systemctl verb that fails

    def answer(argv):
        kernel.commands.append(argv)
        name = os.path.basename(argv[0])
        if kernel.fail and argv[1] == kernel.fail:
            return 1, '', 'Failed to %s unit: Access denied' % argv[1]
        if name == 'ip' and argv[1:4] == ['link', 'set', 'dev'] and argv[5] == 'promisc':
            flags = kernel.netdev_flags(argv[4])
            kernel.set_netdev_flags(argv[4], flags | 0x100 if argv[6] == 'on' else flags & ~0x100)
            return 0, '', ''
        if name == 'systemctl' and argv[1] == 'daemon-reload':
            return 0, '', ''
        if name == 'systemctl' and argv[1] in ('enable', 'disable'):
            ifname = argv[2][len('s390x-network-promisc-') : -len('.service')]
            link = host_files.path(link_promisc.wants_link(ifname))
            if argv[1] == 'enable':
                os.makedirs(os.path.dirname(link), exist_ok=True)
                os.symlink(link_promisc.unit_path(ifname), link)
            elif os.path.lexists(link):
                os.unlink(link)
            return 0, '', ''
        raise AssertionError('unexpected command %r' % (argv,))

    def run(args, check=False, diff=False):
        return run_module(ip_promisc.main, args, run_command=answer, check_mode=check, diff=diff)

    kernel.run = run
    return kernel


def test_sets_promisc_now_and_at_boot_then_nothing(host):
    out = host.run({'interfaces': ['eno4']})
    assert not out.failed, out.result
    assert out.result['changed'] is True
    assert host.commands == [
        ['/usr/sbin/ip', 'link', 'set', 'dev', 'eno4', 'promisc', 'on'],
        ['/usr/sbin/systemctl', 'daemon-reload'],
        ['/usr/sbin/systemctl', 'enable', 's390x-network-promisc-eno4.service'],
    ]
    assert out.result['commands'][1] == 'write %s' % UNIT
    assert host.netdev_flags('eno4') & 0x100
    unit = host_files.read_text(UNIT)
    assert 'ExecStart=ip link set dev eno4 promisc on' in unit.splitlines()
    assert 'BindsTo=sys-subsystem-net-devices-eno4.device' in unit.splitlines()
    assert 'WantedBy=sys-subsystem-net-devices-eno4.device' in unit.splitlines()
    assert os.path.lexists(host_files.path(WANTS))
    assert out.result['functions']['eno4']['type'] == 'NETH'
    assert out.result['functions']['eno4']['fid'] == 0x110
    assert [(r['object'], r['scope']) for r in out.result['drift']] == [('eno4', 'active'), ('eno4', 'persistent')]
    host.commands[:] = []
    again = host.run({'interfaces': ['eno4']}, check=True, diff=True)
    assert again.result['changed'] is False and again.result['drift'] == [] and host.commands == []
    assert host.run({'interfaces': ['eno4']}).result['changed'] is False and host.commands == []


def test_check_mode_predicts_and_changes_nothing(host):
    out = host.run({'interfaces': ['eno4']}, check=True, diff=True)
    assert out.result['changed'] is True
    assert host.commands == [] and not host.netdev_flags('eno4') & 0x100
    assert host_files.read_text(UNIT) is None
    assert out.result['commands'] == [
        'ip link set dev eno4 promisc on',
        'write %s' % UNIT,
        'systemctl daemon-reload',
        'systemctl enable s390x-network-promisc-eno4.service',
    ]
    assert 'promisc: 0' in out.result['diff']['before'] and 'promisc: 1' in out.result['diff']['after']
    assert out.result['after'][0]['persistent']['enabled'] is True
    assert out.result['after'][0]['persistent']['unit'].splitlines()[0].startswith('# Managed by')


@pytest.mark.parametrize(
    'ifname, fid, shown',
    [
        ('eno5', 0x111, 'fidparm 0x00'),
        ('eno6', 0x112, 'fidparm not shown (no fidparm in sysfs: the kernel is older than Linux 6.13)'),
    ],
)
def test_neth_without_promiscuous_fidparm_is_refused_before_any_change(host, ifname, fid, shown):
    out = host.run({'interfaces': ['eno4', ifname]})
    assert out.failed
    msg = out.result['msg']
    assert msg.startswith('interfaces[1]: %s is Network Express NETH function FID 0x%08x' % (ifname, fid)), msg
    assert shown in msg and 'FIDPARM=01' in msg
    assert host.commands == [] and not host.netdev_flags('eno4') & 0x100


def test_netd_and_other_functions_have_no_fidparm_rule(host):
    out = host.run({'interfaces': ['eno7', 'eno8']})
    assert not out.failed, out.result
    assert host.netdev_flags('eno7') & 0x100 and host.netdev_flags('eno8') & 0x100


def test_function_types_leave_other_interfaces_alone(host):
    out = host.run({'interfaces': ['eno8', 'eno4', 'lo0'], 'function_types': ['NETH', 'NETD']})
    assert not out.failed, out.result
    assert out.result['left_alone'] == ['eno8', 'lo0'] and 'skipped' not in out.result
    assert [argv[4] for argv in host.commands if os.path.basename(argv[0]) == 'ip'] == ['eno4']
    assert not host.netdev_flags('eno8') & 0x100


def test_drift_is_reported_and_corrected(host):
    host.run({'interfaces': ['eno4']})
    # behind the module's back: promiscuous mode off, the unit disabled
    host.set_netdev_flags('eno4', host.netdev_flags('eno4') & ~0x100)
    os.unlink(host_files.path(WANTS))
    host.commands[:] = []
    report = host.run({'interfaces': ['eno4']}, check=True)
    assert report.result['changed'] is True and host.commands == []
    assert sorted((r['kind'], r['object'], r['scope']) for r in report.result['drift']) == [
        ('link', 'eno4', 'active'),
        ('link', 'eno4', 'persistent'),
    ]
    active = [r for r in report.result['drift'] if r['scope'] == 'active'][0]
    assert active['difference'] == 'promisc 0 -> 1'
    fixed = host.run({'interfaces': ['eno4']})
    assert [os.path.basename(a[0]) + ' ' + a[1] for a in host.commands] == ['ip link', 'systemctl enable']
    assert fixed.result['changed'] is True and host.netdev_flags('eno4') & 0x100
    assert host.run({'interfaces': ['eno4']}, check=True).result['changed'] is False


def test_edited_unit_is_rewritten(host):
    host.run({'interfaces': ['eno4']})
    host_files.write_atomic(UNIT, host_files.read_text(UNIT).replace('promisc on', 'promisc off'))
    report = host.run({'interfaces': ['eno4']}, check=True)
    assert [(r['scope'], r['difference']) for r in report.result['drift']] == [('persistent', 'unit differs')]
    host.run({'interfaces': ['eno4']})
    assert 'ExecStart=ip link set dev eno4 promisc on' in host_files.read_text(UNIT).splitlines()


def test_deleted_clears_the_flag_and_removes_the_unit(host):
    host.run({'interfaces': ['eno4']})
    host.commands[:] = []
    out = host.run({'interfaces': ['eno4'], 'state': 'deleted'})
    assert not out.failed, out.result
    assert host.commands == [
        ['/usr/sbin/ip', 'link', 'set', 'dev', 'eno4', 'promisc', 'off'],
        ['/usr/sbin/systemctl', 'disable', 's390x-network-promisc-eno4.service'],
        ['/usr/sbin/systemctl', 'daemon-reload'],
    ]
    assert host_files.read_text(UNIT) is None and not os.path.lexists(host_files.path(WANTS))
    assert not host.netdev_flags('eno4') & 0x100
    host.commands[:] = []
    assert host.run({'interfaces': ['eno4'], 'state': 'deleted'}).result['changed'] is False
    assert host.commands == []


def test_missing_interface_fails_naming_it(host):
    out = host.run({'interfaces': ['eno9']})
    assert out.failed and out.result['msg'] == 'interfaces[0]: network interface eno9 does not exist on this host'


@pytest.mark.parametrize(
    'name, expected',
    [
        ('-eno4', "'-eno4' starts with - (ip would read it as an option)"),
        ('eno4 x', 'is not a network interface name'),
        ('a/b', 'is not a network interface name'),
        ('x' * 16, 'is not a network interface name'),
        ('eno4\n', 'is not a network interface name'),
        ('..', 'is not a network interface name'),
    ],
)
def test_bad_names_are_refused_before_the_host_is_read(host, name, expected):
    out = host.run({'interfaces': ['eno4', name]})
    assert out.failed and out.result['msg'].startswith('interfaces[1]: ') and expected in out.result['msg']
    assert host.commands == []


def test_a_failed_step_puts_the_flag_and_the_unit_back(host):
    host.fail = 'enable'
    out = host.run({'interfaces': ['eno4']})
    assert out.failed
    assert 'systemctl enable s390x-network-promisc-eno4.service failed' in out.result['msg']
    assert out.result['rollback']['ok'] is True
    assert out.result['rollback']['commands'] == [
        'rm %s' % UNIT,
        'ip link set dev eno4 promisc off',
        'systemctl daemon-reload',
    ]
    assert not host.netdev_flags('eno4') & 0x100
    assert host_files.read_text(UNIT) is None
    assert out.result['changed'] is False  # back where it was
