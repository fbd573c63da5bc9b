# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""One host's view of the cpc model and the role arguments built from it (filters cpc_host,
guest_device_args, smc_ism_config, smc_services_plan). The roles' own use of them runs in
tests/unit/roles and the molecule scenarios."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.s390x.network.plugins.filter.cpc_host import cpc_host
from ansible_collections.s390x.network.plugins.filter.guest_device_args import guest_device_args
from ansible_collections.s390x.network.plugins.plugin_utils.cpc_host import smc_ism_config
from ansible_collections.s390x.network.plugins.module_utils.smc.services import smc_services_plan

PARTITIONS = [{'name': 'LPARA', 'mif_id': 1, 'host': 'lpar-a'}, {'name': 'lparb', 'mif_id': 2, 'host': 'lpar-b'}]

CPC = {
    'name': 'CPC1',
    'machine': 'z16',
    'partitions': PARTITIONS,
    'ism': [
        {
            'vchid': '7C8',
            'functions': [
                {'fid': 0x605, 'uid': 0x605, 'vf': 1, 'partition': 'LPARA', 'guest': 'g1'},
                {'fid': 0x606, 'uid': 0x606, 'vf': 2, 'partition': 'LPARB'},
                {'fid': 0x607, 'uid': 0x1607, 'vf': 3, 'partition': 'LPARA', 'guest': 'g2'},
                {'fid': 0x608, 'uid': 0x608, 'vf': 4, 'partition': 'LPARB', 'guest': 'g1'},
                {'fid': '60a', 'vf': 5, 'partition': ['LPARB']},
            ],
        },
        {
            'vchid': '7C9',
            'functions': [
                {'fid': 0x700, 'vf': 1, 'partition': 'LPARA'},
                {'fid': 0x701, 'vf': 2, 'partition': 'LPARB', 'guest': 'g9'},
            ],
        },
    ],
    'hipersockets': [
        {
            'chpid': 'F0',
            'frame_size': '40K',
            'partitions': ['LPARA', 'LPARB'],
            'control_units': [{'number': 'F000', 'devices': {'first': '8200', 'count': 3}}],
        }
    ],
}


_SAMPLE = object()


def view(host='lpar-a', cpc=_SAMPLE, **kwargs):
    return cpc_host(copy.deepcopy(CPC if cpc is _SAMPLE else cpc), host, **kwargs)


def guest_args(kvm_guests, host='lpar-a', cpc=_SAMPLE, **kwargs):
    return guest_device_args(kvm_guests, view(host, cpc), **kwargs)


# ---- the view ------------------------------------------------------------------------------


def test_view_of_a_kvm_host():
    got = view()
    assert (got['defined'], got['partition'], got['errors']) == (True, 'LPARA', [])
    assert [(f['fid'], f['guest']) for f in got['passthrough']] == [(0x605, 'g1'), (0x607, 'g2')]
    assert got['own_ism_fids'] == [0x700]
    assert sorted(got['guests']) == ['g1', 'g2']
    assert got['passthrough'][1] == {
        'fid': 0x607,
        'uid': 0x1607,
        'vchid': 0x7C8,
        'type': 'ism',
        'pnet_id': None,
        'guest': 'g2',
    }
    assert [(d['busid'], d['frame_size'], d['mtu']) for d in got['hipersockets']] == [
        ('0.0.8200', '40K', 32768),
        ('0.0.8201', '40K', 32768),
        ('0.0.8202', '40K', 32768),
    ]


def test_view_of_a_host_that_is_no_partition():
    got = view('g1')
    assert (got['partition'], got['functions'], got['own_ism_fids'], got['hipersockets']) == (None, [], [], [])
    # a KVM host that is not in cpc.partitions passes through what the model gives its guests
    assert sorted(f['fid'] for f in got['guests']['g1']) == [0x605, 0x608]


def test_no_model():
    got = view(cpc=None)
    assert (got['defined'], got['partition'], got['errors'], got['passthrough']) == (False, None, [], [])


def test_partition_is_named_in_any_case_and_must_exist():
    assert view('x', partition='lparb')['own_ism_fids'] == [0x606, 0x60A]
    assert view('x', partition='LPARZ')['errors'] == ['partition LPARZ: not in cpc.partitions (LPARA, LPARB)']


def test_model_errors_are_reported_not_guessed_around():
    broken = copy.deepcopy(CPC)
    broken['ism'][0]['functions'].append({'fid': 0x609, 'vf': 9, 'guest': 'g1'})
    got = view(cpc=broken)
    assert got['errors'] == [
        'ISM VCHID 7C8 FID 0x609: partition is required (the partition whose access list holds the FID)'
    ]
    assert got['passthrough'] == []


@pytest.mark.parametrize(
    'guests_by_host, expected',
    [
        (
            {'lpar-a': [{'name': 'g2', 'hostdevs': [{'fid': 0x605}]}]},
            [
                'FID 0x605 is assigned to more than one guest (g1 in cpc.ism[].functions[].guest, g2 in kvm_guests[].hostdevs[] '
                'of lpar-a); each FID can belong to one LPAR or guest only'
            ],
        ),
        (
            {
                'lpar-a': [{'name': 'g5', 'hostdevs': [{'fid': '999'}]}],
                'lpar-b': [{'name': 'g6', 'hostdevs': [{'fid': 0x999}]}],
            },
            [
                'FID 0x999 is assigned to more than one guest (g5 in kvm_guests[].hostdevs[] of lpar-a, g6 in '
                'kvm_guests[].hostdevs[] of lpar-b); each FID can belong to one LPAR or guest only'
            ],
        ),
        # the guest that owns the FID in the model may name it; a deleted guest gives it up
        (
            {
                'lpar-a': [
                    {'name': 'g1', 'hostdevs': [{'fid': 0x605}]},
                    {'name': 'g3', 'state': 'absent', 'hostdevs': [{'fid': 0x605}]},
                ]
            },
            [],
        ),
        ({'lpar-a': [{'name': 'g3', 'state': 'deleted', 'hostdevs': [{'fid': 0x607}]}]}, []),
    ],
)
def test_a_fid_belongs_to_one_guest(guests_by_host, expected):
    assert view(guests_by_host=guests_by_host)['errors'] == expected


def test_guests_by_host_must_be_a_mapping():
    with pytest.raises(AnsibleFilterError, match='guests_by_host must map host names'):
        view(guests_by_host=['g1'])


# ---- guest_device_args -----------------------------------------------------------------------


def test_guest_declared_in_the_model_only():
    guests = guest_args([{'name': 'g1', 'macvtap': [{'source': 'enc8200', 'mac': '12:34:56:78:9a:bc'}]}])
    assert guests == [
        {
            'name': 'g1',
            'state': 'merged',
            'hostdevs': [{'fid': 0x605, 'uid': 0x605, 'address': None, 'managed': True}],
            'interfaces': [{'source': 'enc8200', 'mac': '12:34:56:78:9a:bc'}],
        }
    ]


def test_functions_of_this_partition_only():
    guests = guest_args([{'name': 'g1'}, {'name': 'g2', 'macvtap': [{'source': 'enc8200'}]}])
    # 0x608 is given to g1 too, but in LPARB: not this host's function
    assert guests[0]['hostdevs'] == [{'fid': 0x605, 'uid': 0x605, 'address': None, 'managed': True}]
    assert guests[1]['hostdevs'] == [{'fid': 0x607, 'uid': 0x1607, 'address': None, 'managed': True}]
    assert [h['fid'] for h in guest_args([{'name': 'g1'}], host='lpar-b')[0]['hostdevs']] == [0x608]


def test_own_entries_add_options_and_win():
    guests = guest_args(
        [
            {
                'name': 'g1',
                'state': 'exact',
                'hostdevs': [
                    {'fid': '0x605', 'uid': 7, 'managed': True},
                    {'fid': '00000999', 'address': '0999:00:00.0'},
                    {'fid': '606'},
                ],
            }
        ],
        managed=False,
    )
    assert guests[0]['state'] == 'overridden'  # the name of earlier releases, mapped
    assert guests[0]['hostdevs'] == [
        {'fid': 0x605, 'uid': 7, 'address': None, 'managed': True},
        {'fid': 0x999, 'uid': None, 'address': '0999:00:00.0', 'managed': False},
        # a function of another partition named explicitly keeps the model's UID
        {'fid': 0x606, 'uid': 0x606, 'address': None, 'managed': False},
    ]


def test_a_network_express_vf_named_by_fid_and_type():
    # kvm_guests names the VF and its type, which libvirt_device checks against the pft the KVM
    # host shows
    guests = guest_args(
        [{'name': 'g2', 'hostdevs': [{'fid': '0x110', 'type': 'NETH'}], 'macvtap': [{'source': 'eno4'}]}]
    )
    assert guests[0]['hostdevs'] == [
        {'fid': 0x110, 'uid': None, 'address': None, 'managed': True, 'type': 'NETH'},
        {'fid': 0x607, 'uid': 0x1607, 'address': None, 'managed': True},
    ]
    assert guests[0]['interfaces'] == [{'source': 'eno4'}]


@pytest.mark.parametrize(
    'state, expected', [(None, 'merged'), ('present', 'merged'), ('absent', 'deleted'), ('overridden', 'overridden')]
)
def test_state_names(state, expected):
    guest = {'name': 'g1'}
    if state:
        guest['state'] = state
    assert guest_args([guest], state='merged')[0]['state'] == expected


def test_no_model_and_no_guests():
    assert guest_args([], cpc=None) == []
    assert guest_args([{'name': 'g1'}], cpc=None) == [
        {'name': 'g1', 'state': 'merged', 'hostdevs': [], 'interfaces': []}
    ]


@pytest.mark.parametrize(
    'guests, message',
    [
        (
            [{'name': 'g1', 'hostdevs': [{'fid': 'zz'}]}],
            "kvm_guests[0].hostdevs[0].fid: 'zz' is not an integer or a hex string such as 0x605",
        ),
        ([{'hostdevs': []}], 'kvm_guests[0]: each guest is a dict with a name'),
        ([{'name': 'g1', 'hostdevs': ['605']}], 'kvm_guests[0].hostdevs[0]: each hostdev is a dict with fid'),
    ],
)
def test_bad_guest_entries_name_the_field(guests, message):
    with pytest.raises(AnsibleFilterError) as err:
        guest_args(guests)
    assert message in str(err.value)


# ---- smc_ism_config ----------------------------------------------------------------------------


def test_lpar_uses_its_own_functions_not_the_guests():
    result = smc_ism_config(view('lpar-b'))
    assert result == {
        'partition': 'LPARB',
        'fids': [0x606, 0x60A],
        'labels': ['0x606', '0x60a'],
        'errors': [],
        'config': [
            {'fid': 0x606, 'power': 'on', 'driver': 'ism', 'expected_type': 'ism'},
            {'fid': 0x60A, 'power': 'on', 'driver': 'ism', 'expected_type': 'ism'},
        ],
    }
    assert smc_ism_config(view('lpar-a'))['fids'] == [0x700]


@pytest.mark.parametrize(
    'host, fids, protocol',
    [
        ('g1', None, 'smcd'),  # a guest is no partition: its function comes from its KVM host
        ('lpar-b', None, 'smcr'),  # SMC-R uses RoCE, not ISM
        ('lpar-b', [], 'smcd'),  # explicitly nothing
    ],
)
def test_hosts_without_own_functions(host, fids, protocol):
    result = smc_ism_config(view(host), fids, protocol)
    assert (result['fids'], result['errors']) == ([], [])


def test_no_model_gives_nothing():
    assert smc_ism_config(view(cpc=None)) == {'partition': None, 'fids': [], 'labels': [], 'config': [], 'errors': []}


def test_fid_list_wins():
    assert smc_ism_config(view('lpar-b'), ['0x606', 1547, '60B'])['fids'] == [0x606, 0x60B]


def test_model_errors_stop_smcd_from_the_model():
    broken = copy.deepcopy(CPC)
    broken['ism'][0]['functions'][1]['vf'] = 1  # a VF used twice on one VCHID
    result = smc_ism_config(view('lpar-b', cpc=broken))
    assert result['fids'] == [] and len(result['errors']) == 1 and 'vf' in result['errors'][0]


@pytest.mark.parametrize(
    'fids, fragment',
    [
        (['xyz'], "smc_ism_fids: 'xyz' is not an integer or a hex string"),
        ('606', 'smc_ism_fids: a list of FIDs'),
        ([{'fid': 1}], 'smc_ism_fids: expected an integer or a hex string'),
    ],
)
def test_bad_fid_list_names_the_variable(fids, fragment):
    result = smc_ism_config(view('lpar-b'), fids)
    assert result['fids'] == []
    assert any(error.startswith(fragment) for error in result['errors']), result


# ---- smc_services_plan -------------------------------------------------------------------------


def test_services_are_unit_names_with_sizes_in_bytes():
    plan = smc_services_plan(
        ['db2', {'name': 'nginx.socket', 'rmem': '1M', 'wmem': '256k'}, {'name': 'app@1', 'rmem': 65536}]
    )
    assert plan['errors'] == []
    assert plan['names'] == ['db2.service', 'nginx.socket', 'app@1.service']
    assert plan['services'][1] == {
        'name': 'nginx.socket',
        'rmem': '1M',
        'wmem': '256k',
        'rmem_bytes': 1048576,
        'wmem_bytes': 262144,
    }
    assert plan['services'][0] == {'name': 'db2.service', 'rmem': None, 'wmem': None, 'rmem_bytes': 0, 'wmem_bytes': 0}
    assert (plan['max_rmem'], plan['max_wmem']) == (1048576, 262144)
    assert smc_services_plan([]) == {'services': [], 'errors': [], 'names': [], 'max_rmem': 0, 'max_wmem': 0}


@pytest.mark.parametrize(
    'entry, message',
    [
        ({'name': 'bad name'}, "smc_services[0].name: 'bad name' is not a systemd unit name"),
        ({'name': 'a', 'rmem': '8K'}, 'smc_services[0].rmem: 8K is below the SMC minimum of 16K'),
        (
            {'name': 'a', 'wmem': '1G'},
            "smc_services[0].wmem: '1G' is not a size (bytes, or a number with k, K, m or M)",
        ),
        ({'name': 'a', 'wmem': True}, 'smc_services[0].wmem: True is not a size'),
        ({'name': 'a', 'sndbuf': 1}, 'smc_services[0]: unknown keys sndbuf (allowed: name, rmem, wmem)'),
    ],
)
def test_bad_services_name_the_entry_and_field(entry, message):
    errors = smc_services_plan([entry])['errors']
    assert len(errors) == 1 and errors[0].startswith(message), errors


def test_guest_device_args_stops_on_the_errors_of_the_view():
    """The kvm_guest_network role builds the arguments in one step: the view's errors stop it."""
    guests_by_host = {'lpar-a': [{'name': 'g1'}], 'lpar-b': [{'name': 'g9', 'hostdevs': [{'fid': 0x605}]}]}
    bad = view(guests_by_host=guests_by_host)
    assert bad['errors']
    with pytest.raises(AnsibleFilterError) as err:
        guest_device_args([{'name': 'g1'}], bad)
    assert str(err.value) == '; '.join(bad['errors'])
    with pytest.raises(AnsibleFilterError, match='partition LPARZ: not in cpc.partitions'):
        guest_device_args([{'name': 'g1'}], view('x', partition='LPARZ'))
