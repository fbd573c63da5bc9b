# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""smc_rnics argv and both output layouts.

Most fixtures in tests/unit/fixtures/smc_rnics were printed with bash printf and the format strings of
smc-tools v1.8.5 (``%4x  %-5s  %-12s  %-4s   %-15s  %-4s  %-3s  %-4s  %-17s  %s``) and v1.8.4
(``%8x  %-5s  %-12s  %-4s   %-14s %-4s  %-17s  %s``); v1.8.4_study_host.txt is the study's
sample (chapter 6.2.2.3) in that layout, study_collapsed.txt the same as the study's text shows it.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import subprocess

import pytest

from ansible_collections.s390x.network.plugins.module_utils.smc.rnics import (
    SmcRnicsError,
    build_argv,
    disable_argv,
    enable_argv,
    error_message,
    parse,
)

FIXTURES = os.path.join(os.path.dirname(__file__), '..', '..', 'fixtures', 'smc_rnics')
F185 = '%4x  %-5s  %-12s  %-4s   %-15s  %-4s  %-3s  %-4s  %-17s  %s\n'
H185 = 'FID   Power  PCI_ID        PCHID  Type             PFT   VF   PPrt  PNET_ID            Net-Dev'


def load(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


def row(functions, fid, port=None):
    found = [f for f in functions if f['fid'] == fid and (port is None or f['port'] == port)]
    assert len(found) == 1
    return found[0]


def test_study_sample_old_layout():
    layout, functions = parse(load('v1.8.4_study_host.txt'))
    assert layout == 'v1.8.4'
    assert functions == [
        {
            'fid': 0x605,
            'power': True,
            'pci_id': '0605:00:00.0',
            'pchid': '07c8',
            'type': 'ISM',
            'pft': 0x05,
            'kind': 'ISM',
            'vf': None,
            'vfn': None,
            'port': None,
            'pnet_id': None,
            'pnet_id_user_set': False,
            'net_device': None,
            'ib_device': None,
        }
    ]


def test_study_sample_with_collapsed_blanks():
    layout, functions = parse(load('study_collapsed.txt'))
    assert functions[0]['pci_id'] == '0605:00:00.0' and functions[0]['pchid'] == '07c8'
    assert functions[0]['pnet_id'] is None and functions[0]['net_device'] is None


def test_old_layout_all():
    dummy, functions = parse(load('v1.8.4_all.txt'))
    assert len(functions) == 6
    assert row(functions, 0x605)['pnet_id'] == 'NETA'
    assert row(functions, 0x10A, 0)['net_device'] == 'ens1'
    assert row(functions, 0x10A, 1)['pnet_id'] == 'PNETB'
    soft = row(functions, 0x20E)
    assert soft['pnet_id'] == 'SOFTNETID' and soft['pnet_id_user_set'] is True
    standby = row(functions, 0x3007)
    assert standby['power'] is False and standby['pci_id'] is None and standby['type'] is None


def test_v185_layout():
    layout, functions = parse(load('v1.8.5.txt'))
    assert layout == 'v1.8.5'
    ism = row(functions, 0x605)
    assert (ism['pft'], ism['kind'], ism['vf'], ism['port'], ism['pnet_id']) == (0x05, 'ISM', True, None, None)
    assert row(functions, 0x1017)['pnet_id'] == 'PNETIDLONG123456'
    long_soft = row(functions, 0x20E)
    assert long_soft['pnet_id'] == 'SOFTPNETIDLONG16' and long_soft['pnet_id_user_set']
    assert long_soft['net_device'] == 'eno20' and long_soft['type'] == 'RoCE_Express3'
    blank_type = row(functions, 0x311)
    assert blank_type['type'] is None and blank_type['pft'] == 0x0A and blank_type['port'] == 0
    assert blank_type['kind'] == 'ROC2'
    netd = row(functions, 0x400)
    assert netd['vf'] is False and netd['net_device'] is None and netd['type'] == 'Network_Express'
    assert (netd['pft'], netd['kind']) == (0x0F, 'NETD')
    assert row(functions, 0x10A, 1)['net_device'] == 'ens1d1'


def test_v185_all_with_standby_overflowing_fid_and_unknown_type():
    dummy, functions = parse(load('v1.8.5_all.txt'))
    assert row(functions, 0x606)['power'] is False
    wide = row(functions, 0x12345)
    assert wide['pci_id'] == '2345:00:00.0' and wide['pnet_id'] == 'PNETZ' and wide['pchid'] == '07c9'
    unknown = row(functions, 0x700)
    assert unknown['type'] == '1014:044b' and unknown['pft'] == 0x0B and unknown['vf'] is False
    assert unknown['kind'] == 'NVMe'


def test_raw_ids_layout():
    dummy, functions = parse(load('v1.8.5_raw.txt'))
    ism = row(functions, 0x605)
    assert (ism['type'], ism['pft'], ism['kind'], ism['vfn'], ism['vf']) == ('1014:04ed', 0x05, 'ISM', 1, True)
    assert row(functions, 0x20E)['vfn'] == 17


def test_ib_device_layout():
    dummy, functions = parse(load('v1.8.5_ibdev.txt'))
    assert row(functions, 0x10A, 2)['ib_device'] == 'mlx4_0'
    assert row(functions, 0x10A, 2)['net_device'] is None
    assert row(functions, 0x605)['ib_device'] is None


def test_rows_printed_by_bash_printf_with_unusual_values():
    """Fresh rows from the upstream format string, beyond the fixtures."""
    rows = [
        (
            'ffffffff',
            '1',
            'ffff:00:00.0',
            '0fff',
            'Network_Express',
            'NETH',
            'y',
            '1',
            'ABCDEFGHIJKLMNOP*',
            'enP65535p0s0',
        ),
        ('0', '0', '', '', '', '', '', '', '', ''),
    ]
    text = H185 + '\n' + '-' * 100 + '\n'
    for values in rows:
        text += subprocess.check_output(
            ['bash', '-c', 'printf "$0" "$@"', F185, '0x' + values[0]] + list(values[1:])
        ).decode()
    dummy, functions = parse(text)
    first = row(functions, 0xFFFFFFFF)
    assert first['pnet_id'] == 'ABCDEFGHIJKLMNOP' and first['pnet_id_user_set'] and first['port'] == 1
    assert first['net_device'] == 'enP65535p0s0' and first['pci_id'] == 'ffff:00:00.0'
    assert row(functions, 0)['power'] is False


def _old_release_table(pnet_width, rows):
    """Header and rows as smc-tools before 1.8.5 print them (PNET_ID 16 wide before 1.8.0, then 17)."""
    header = '     FID  Power  PCI_ID        PCHID  Type           PPrt  %-*s  Net-Dev\n' % (pnet_width, 'PNET_ID')
    fmt = '%%8x  %%-5s  %%-12s  %%-4s   %%-14s %%-4s  %%-%ds  %%s\n' % pnet_width
    return (
        header
        + '-' * 90
        + '\n'
        + ''.join(
            subprocess.check_output(['bash', '-c', 'printf "$0" "$@"', fmt] + list(values)).decode() for values in rows
        )
    )


def test_v1_3_to_v1_7_layout_pnet_16_wide():
    text = _old_release_table(
        16,
        [
            ('0x8ca', '1', '000a:00:00.0', '01c8', 'RoCE_Express2', '0', 'NET25', 'enP10p0s0'),
            ('0x605', '1', '0605:00:00.0', '07c8', 'ISM', 'n/a', 'n/a', 'n/a'),
        ],
    )
    layout, functions = parse(text)
    assert layout == 'v1.8.4'
    assert row(functions, 0x8CA)['net_device'] == 'enP10p0s0' and row(functions, 0x8CA)['pnet_id'] == 'NET25'
    assert row(functions, 0x605)['net_device'] is None and row(functions, 0x605)['type'] == 'ISM'


def test_port_minus_one_of_releases_before_1_8_4_is_no_port():
    """Up to 1.8.3 smc_rnics subtracted one from a RoCE port attribute of 0 and printed -1."""
    dummy, functions = parse(
        _old_release_table(
            17,
            [
                ('0x8ca', '1', '000a:00:00.0', '01c8', 'RoCE_Express2', '-1', 'NET25', 'enP10p0s0'),
                ('0x8cb', '1', '000b:00:00.0', '01c8', 'RoCE_Express2', '1', 'NET25', 'enP11p0s0'),
            ],
        )
    )
    assert row(functions, 0x8CA)['port'] is None and row(functions, 0x8CA)['net_device'] == 'enP10p0s0'
    assert row(functions, 0x8CB)['port'] == 1


def test_unknown_future_layout_uses_header_positions():
    header = 'FID   Power  PCI_ID        PCHID  Type             PPrt  Net-Dev'
    line = ' 605  1      0605:00:00.0  07c8   ISM              n/a   n/a'
    layout, functions = parse(header + '\n' + line + '\n')
    assert layout == 'generic'
    assert functions[0]['pci_id'] == '0605:00:00.0' and functions[0]['type'] == 'ISM'


@pytest.mark.parametrize(
    'text', ['', 'Error: s390/s390x supported only\n', 'FID Power Bogus\n 605 1 x\n', H185 + '\n' + ' 605  7      zz\n']
)
def test_garbage_is_an_error(text):
    with pytest.raises(SmcRnicsError):
        parse(text)


def test_argv():
    assert build_argv() == ['smc_rnics']
    assert build_argv('/usr/sbin/smc_rnics', all_functions=True, raw_ids=True, ib_device=True, fid=0x605) == [
        '/usr/sbin/smc_rnics',
        '-a',
        '-r',
        '-I',
        '605',
    ]
    assert enable_argv(0x605) == ['smc_rnics', '-e', '605']
    assert disable_argv(0x1017, '/sbin/smc_rnics') == ['/sbin/smc_rnics', '-d', '1017']


def test_error_message_prefers_the_tools_words():
    assert error_message(5, '', 'Error: FID 605 does not exist\n') == 'Error: FID 605 does not exist'
    assert 'FID 605 is not listed' in error_message(8, '', '', 0x605)
    assert error_message(9, '', '') == 'smc_rnics exited with code 9 and printed nothing'


# -- Network Express and pft (the real smc_rnics scripts, see the fixtures' README) -------------


def kinds(functions):
    return dict((f['fid'], (f['pft'], f['kind'], f['type'], f['vf'], f['port'])) for f in functions)


def test_v185_network_express_rows_are_told_apart_by_pft():
    layout, functions = parse(load('v1.8.5_network_express.txt'))
    assert layout == 'v1.8.5'
    assert kinds(functions) == {
        0x10: (0x0C, 'NETH', 'Network_Express', True, 0),
        0x11: (0x0C, 'NETH', 'Network_Express', True, 1),
        0x20: (0x0F, 'NETD', 'Network_Express', False, 0),
        0x21: (0x0F, 'NETD', 'Network_Express', True, 0),
        0x30: (0x0A, 'ROC2', None, True, 0),
        0x605: (0x05, 'ISM', 'ISM', True, None),
    }
    neth = row(functions, 0x11)
    assert (neth['pci_id'], neth['pchid'], neth['pnet_id'], neth['net_device']) == (
        '0011:00:00.0',
        '0318',
        'NETWORK2',
        'eno11',
    )


def test_v185_all_keeps_unknown_types_and_standby():
    dummy, functions = parse(load('v1.8.5_network_express_all.txt'))
    assert len(functions) == 8
    cnw = row(functions, 0x700)
    assert (cnw['pft'], cnw['kind'], cnw['type'], cnw['vf']) == (0x0D, 'CNW', '1014:044b', False)
    standby = row(functions, 0x999)
    assert standby['power'] is False and standby['kind'] == 'unknown' and standby['pft'] is None


def test_v185_raw_ids_identify_by_pft_not_by_the_shared_pci_id():
    dummy, functions = parse(load('v1.8.5_network_express_raw.txt'))
    shared = [f for f in functions if f['type'] == '15b3:101e']
    assert sorted((f['fid'], f['kind'], f['vfn']) for f in shared) == [
        (0x10, 'NETH', 1),
        (0x11, 'NETH', 2),
        (0x21, 'NETD', 1),
        (0x30, 'ROC2', 17),
    ]
    netd_pf = row(functions, 0x20)
    assert (netd_pf['kind'], netd_pf['vfn'], netd_pf['vf']) == ('NETD', 0, False)


def test_v185_ib_device_layout_with_network_express():
    dummy, functions = parse(load('v1.8.5_network_express_ibdev.txt'))
    assert [(f['fid'], f['kind'], f['port']) for f in functions if f['kind'] in ('NETH', 'NETD')] == [
        (0x10, 'NETH', 1),
        (0x11, 'NETH', 1),
        (0x20, 'NETD', 1),
        (0x21, 'NETD', 1),
    ]


def test_v184_names_a_network_express_vf_by_its_pci_id_so_the_kind_is_unknown():
    layout, functions = parse(load('v1.8.4_network_express.txt'))
    assert layout == 'v1.8.4'
    found = kinds(functions)
    assert found[0x10] == (None, 'unknown', 'Mlx_0x101e', None, 0)
    assert found[0x21] == (None, 'unknown', 'RoCE_Express3', None, 0)
    assert found[0x605] == (0x05, 'ISM', 'ISM', None, None)
    assert len(functions) == 6


def test_old_layout_kinds_only_from_unshared_type_names():
    dummy, functions = parse(load('v1.8.4_all.txt'))
    assert row(functions, 0x10A, 0)['kind'] == 'ROCE' and row(functions, 0x20E)['kind'] == 'ROC2'


def test_v185_unreadable_pft():
    """v1.8.5 lists nothing without -a when pft cannot be read; with -a a blank PFT."""
    layout, functions = parse(load('v1.8.5_pft_unreadable.txt'))
    assert layout == 'v1.8.5' and functions == []
    dummy, functions = parse(load('v1.8.5_pft_unreadable_all.txt'))
    assert kinds(functions) == {
        0x20E: (None, 'unknown', '15b3:1016', True, 0),
        0x605: (None, 'unknown', '1014:04ed', True, None),
    }
    assert row(functions, 0x605)['pnet_id'] == 'NETA' and row(functions, 0x20E)['net_device'] == 'eno20'
    dummy, functions = parse(load('v1.8.5_pft_unreadable_raw.txt'))
    assert [(f['fid'], f['pft'], f['vfn']) for f in functions] == [(0x20E, None, 17), (0x605, None, 1)]


@pytest.mark.parametrize(
    'printed, pft', [('ROC', 2), ('ROC2', 10), ('NETH', 12), ('NETD', 15), ('0x0f', 15), ('', None)]
)
def test_pft_cells(printed, pft):
    text = H185 + '\n' + F185 % (0x42, '1', '0042:00:00.0', '0100', 'X', printed, 'y', '0', 'P', 'eth0')
    assert parse(text)[1][0]['pft'] == pft


def test_a_new_column_of_a_later_release_is_kept():
    header = 'FID   Power  PCI_ID        PCHID  Type             PFT   VF   Topo  PPrt  PNET_ID            Net-Dev'
    line = '  10  1      0010:00:00.0  0314   Network_Express  NETH  y    3     0     NETWORK1           eno10'
    layout, functions = parse(header + '\n' + line + '\n')
    assert layout == 'generic'
    assert functions[0]['kind'] == 'NETH' and functions[0]['extra'] == {'topo': '3'}
    assert functions[0]['net_device'] == 'eno10' and functions[0]['port'] == 0
