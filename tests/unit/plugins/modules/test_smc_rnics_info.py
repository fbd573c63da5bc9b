# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""smc_rnics_info: argv, parsing, and the tool's errors."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

from ansible_collections.s390x.network.plugins.modules import smc_rnics_info

FIXTURES = os.path.join(os.path.dirname(__file__), '..', '..', 'fixtures', 'smc_rnics')


def load(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


def run(run_module, outcome, binary='/usr/sbin/smc_rnics', **args):
    calls = []

    def run_command(argv):
        calls.append(argv)
        return outcome

    return run_module(smc_rnics_info.main, args, run_command, bin_paths={'smc_rnics': binary}).result, calls


def test_lists_functions(run_module):
    result, calls = run(run_module, (0, load('v1.8.5_all.txt'), ''), all=True)
    assert calls == [['/usr/sbin/smc_rnics', '-a']]
    assert result['changed'] is False and result['layout'] == 'v1.8.5'
    assert [f['fid'] for f in result['functions']] == [0x605, 0x606, 0x12345, 0x700]
    assert result['functions'][1]['power'] is False


def test_study_layout_and_fid_filter(run_module):
    result, calls = run(run_module, (0, load('v1.8.4_study_host.txt'), ''), fid='0x605')
    assert calls == [['/usr/sbin/smc_rnics', '605']]
    assert result['layout'] == 'v1.8.4'
    assert result['functions'][0]['pci_id'] == '0605:00:00.0'


def test_tool_error_is_passed_on(run_module):
    result, dummy = run(run_module, (1, '', 'Error: s390/s390x supported only\n'))
    assert result['failed'] and result['msg'] == 'Error: s390/s390x supported only' and result['rc'] == 1


def test_not_listed_fid(run_module):
    result, dummy = run(run_module, (8, load('v1.8.5.txt').splitlines()[0] + '\n', ''), fid=0x999)
    assert result['failed'] and 'FID 999 is not listed' in result['msg']


def test_bad_fid_and_missing_tool(run_module):
    result, calls = run(run_module, (0, '', ''), fid='zz')
    assert result['failed'] and result['msg'].startswith('fid: ') and calls == []
    result, calls = run(run_module, (0, '', ''), binary=None)
    assert result['failed'] and 'install smc-tools' in result['msg']


def test_unparsable_output(run_module):
    result, dummy = run(run_module, (0, 'something else\n', ''))
    assert result['failed'] and 'not a smc_rnics header' in result['msg']


def test_network_express_kinds(run_module):
    result, dummy = run(run_module, (0, load('v1.8.5_network_express.txt'), ''))
    assert [(f['fid'], f['kind']) for f in result['functions']] == [
        (0x10, 'NETH'),
        (0x11, 'NETH'),
        (0x20, 'NETD'),
        (0x21, 'NETD'),
        (0x30, 'ROC2'),
        (0x605, 'ISM'),
    ]
    assert 'warnings' not in result or not result['warnings']


def test_unreadable_pft_warns_and_points_to_all(run_module):
    err = 'cat: pft: No such file or directory\ncat: pft: No such file or directory\n'
    result, dummy = run(run_module, (0, load('v1.8.5_pft_unreadable.txt'), err))
    assert result['functions'] == []
    assert any('all=true' in w for w in result['warnings'])
    result, dummy = run(run_module, (0, load('v1.8.5_pft_unreadable_all.txt'), err), all=True)
    assert [f['kind'] for f in result['functions']] == ['unknown', 'unknown']
    assert not any('all=true' in w for w in result['warnings'])
