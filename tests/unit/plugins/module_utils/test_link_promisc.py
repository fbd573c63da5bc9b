# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""ip/link_promisc: the zPCI function behind a netdev, the Network Express fidparm rule, the
command and the boot unit."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest

from ansible_collections.s390x.network.plugins.module_utils.engine import unit_syntax
from ansible_collections.s390x.network.plugins.module_utils.ip import link_promisc as lp
from ansible_collections.s390x.network.tests.unit.fake_kernel import NETD, NETH, ROCE3


def test_pci_function_of_a_network_express_netdev(fake_kernel):
    fake_kernel([dict(NETH, fid=0x110, uid=0x1110, power=True, net=['eno4'], fidparm=1, flags=0x1103)])
    function = lp.pci_function('eno4')
    assert function == {'address': '1110:00:00.0', 'fid': 0x110, 'pft': 0x0C, 'type': 'NETH', 'fidparm': 1}
    assert lp.network_express_type(function) == 'NETH'
    assert lp.read_flags('eno4') == 0x1103 and lp.is_promisc(0x1103) is True and lp.is_promisc(0x1003) is False
    assert lp.promisc_problem('eno4', function) is None


def test_netdevs_without_a_zpci_function(fake_kernel):
    kernel = fake_kernel([])
    os.makedirs(kernel.path('/sys/class/net/veth0'))
    assert lp.pci_function('veth0') is None and lp.pci_function('nothere') is None
    assert lp.network_express_type(None) is None
    assert lp.promisc_problem('veth0', None) is None
    assert lp.read_flags('nothere') is None and lp.is_promisc(None) is None


@pytest.mark.parametrize(
    'kind, fidparm, problem',
    [
        (NETH, 0x01, None),
        (NETH, 0x00, 'fidparm 0x00'),
        (NETH, 0x02, 'fidparm 0x02'),
        (NETH, None, 'fidparm not shown (no fidparm in sysfs: the kernel is older than Linux 6.13)'),
        (NETD, None, None),  # FIDPARM is valid on NETH only
        (ROCE3, 0x00, None),  # same PCI id as a Network Express VF, another pft: no such rule
    ],
)
def test_the_fidparm_rule(fake_kernel, kind, fidparm, problem):
    fake_kernel([dict(kind, fid=0x110, power=True, net=['eno4'], fidparm=fidparm)])
    got = lp.promisc_problem('eno4', lp.pci_function('eno4'))
    if problem is None:
        assert got is None
    else:
        assert got.startswith('eno4 is Network Express NETH function FID 0x00000110 (0110:00:00.0) with ' + problem)
        assert 'FIDPARM=01' in got


def test_unit_and_command():
    assert lp.argv_promisc('eno4', True) == ['ip', 'link', 'set', 'dev', 'eno4', 'promisc', 'on']
    assert lp.argv_promisc('eno4', False, '/usr/sbin/ip')[-1] == 'off'
    assert lp.unit_path('en-x') == '/etc/systemd/system/s390x-network-promisc-en\\x2dx.service'
    text = lp.render_unit('en%x')
    lines = text.splitlines()
    assert 'Description=Promiscuous mode of en%%x (s390x.network.ip_promisc)' in lines
    execs = [line for line in lines if line.startswith('ExecStart=')]
    assert [unit_syntax.parse_exec_line(line) for line in execs] == [(lp.argv_promisc('en%x', True), False)]
    assert 'WantedBy=sys-subsystem-net-devices-en\\x25x.device' in lines


@pytest.mark.parametrize('name', ['-x', '', 'a b', 'a/b', '.', 'x' * 16, 'a:b', 'a\tb', None])
def test_names_ip_cannot_take(name):
    assert lp.ifname_problem(name)


def test_names_ip_takes():
    assert lp.ifname_problem('eno4') is None and lp.ifname_problem('enP4096p0s0') is None
