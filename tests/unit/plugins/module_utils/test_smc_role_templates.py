# -*- coding: utf-8 -*-
# Copyright: s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The smc role's ism.json.j2: which ISM functions a host uses for SMC-D itself."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os

import pytest

from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

TEMPLATE = os.path.join(os.path.dirname(__file__), '..', '..', '..', '..', 'roles', 'smc', 'templates', 'ism.json.j2')

CPC = {
    'partitions': [{'name': 'LPARA', 'host': 'lpar-a'}, {'name': 'lparb', 'host': 'lpar-b'}],
    'ism': [
        {'vchid': '7C8', 'functions': [
            {'fid': 0x605, 'uid': 0x605, 'vf': 1, 'partition': 'LPARA', 'guest': 'g1'},
            {'fid': 0x606, 'uid': 0x606, 'vf': 2, 'partition': 'LPARB'},
            {'fid': '60a', 'vf': 3, 'partition': ['LPARB']},
        ]},
        {'vchid': '7C9', 'functions': [
            {'fid': 0x700, 'vf': 1, 'partition': 'LPARA'},
            {'fid': 0x701, 'vf': 2, 'partition': 'LPARB', 'guest': 'g9'},
        ]},
    ],
}


def plan(**variables):
    base = {'inventory_hostname': 'lpar-b', 'cpc': CPC, 'smc_protocol': 'smcd', 'smc_ism_fids': None,
            'smc_ism_partition': ''}
    base.update(variables)
    with open(TEMPLATE) as handle:
        source = handle.read()
    return json.loads(Templar(loader=DataLoader(), variables=base).template(trust_as_template(source)))


def test_lpar_gets_its_own_functions_not_the_guests():
    result = plan()
    assert result['partition'] == 'LPARB'
    assert result['fids'] == [0x606, 0x60a]
    assert result['labels'] == ['0x606', '0x60a']
    assert result['config'] == [
        {'fid': 0x606, 'power': 'on', 'driver': 'ism', 'expected_type': 'ism'},
        {'fid': 0x60a, 'power': 'on', 'driver': 'ism', 'expected_type': 'ism'},
    ]
    assert result['errors'] == []


def test_kvm_host_gets_only_functions_no_guest_has():
    assert plan(inventory_hostname='lpar-a')['fids'] == [0x700]


@pytest.mark.parametrize('variables', [
    {'inventory_hostname': 'g1'},            # a guest is no partition
    {'smc_protocol': 'smcr'},                # SMC-R uses RoCE, not ISM
    {'smc_ism_fids': []},                    # explicitly nothing
])
def test_hosts_without_own_functions(variables):
    result = plan(**variables)
    assert (result['fids'], result['errors']) == ([], [])


def test_cpc_undefined_gives_nothing():
    base = {'inventory_hostname': 'lpar-b', 'smc_protocol': 'smcd', 'smc_ism_fids': None, 'smc_ism_partition': ''}
    with open(TEMPLATE) as handle:
        source = handle.read()
    result = json.loads(Templar(loader=DataLoader(), variables=base).template(trust_as_template(source)))
    assert result['fids'] == []


def test_explicit_partition_and_fid_list():
    assert plan(inventory_hostname='x', smc_ism_partition='lpara')['fids'] == [0x700]
    assert plan(smc_ism_fids=['0x606', 1547, '60B'])['fids'] == [0x606, 0x60b]


@pytest.mark.parametrize('fids, fragment', [
    (['xyz'], '"xyz" is not a FID'),
    ('606', 'a list of FIDs'),
    ([{'fid': 1}], 'is not a FID'),
])
def test_bad_fid_list_names_the_variable(fids, fragment):
    result = plan(smc_ism_fids=fids)
    assert result['fids'] == []
    assert any(fragment in error and error.startswith('smc_ism_fids') for error in result['errors']), result
