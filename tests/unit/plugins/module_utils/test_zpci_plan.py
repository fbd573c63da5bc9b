# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Config validation and the binding plan (pure logic)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.s390x.network.plugins.module_utils.zpci.plan import (
    ZpciConfigError,
    binding_actions,
    check_host,
    check_type,
    clear_override_actions,
    isolated_vf_findings,
    needs_guard,
    normalize_config,
    power_actions,
    predict,
    sriov_actions,
)

ON_ISM = {
    'fid': 0x605,
    'power': 'on',
    'pci_address': '0605:00:00.0',
    'type': 'ism',
    'pft_name': 'ISM',
    'driver': 'ism',
    'driver_override': None,
}


def entry(**kwargs):
    base = {'fid': 0x605, 'power': 'on', 'driver': None, 'expected_type': 'any', 'index': 0}
    base.update(kwargs)
    return base


def test_normalize_defaults_and_fid_forms():
    entries = normalize_config(
        [{'fid': '0x605'}, {'fid': 0x606, 'power': True, 'driver': 'vfio-pci'}, {'fid': '607', 'power': False}]
    )
    assert [e['fid'] for e in entries] == [0x605, 0x606, 0x607]
    assert entries[0]['power'] == 'on' and entries[0]['driver'] is None and entries[0]['expected_type'] == 'any'
    assert entries[1]['power'] == 'on'
    assert entries[2]['power'] == 'off'


def test_identical_duplicates_merge():
    entries = normalize_config([{'fid': 0x605, 'driver': 'vfio-pci'}, {'fid': '605', 'driver': 'vfio-pci'}])
    assert len(entries) == 1


@pytest.mark.parametrize(
    'config, field, words',
    [
        (
            [{'fid': 0x605, 'driver': 'vfio-pci'}, {'fid': '0x605', 'driver': 'ism'}],
            'config[1].driver',
            ['also in config[0]', 'vfio-pci', 'ism'],
        ),
        ([{'fid': 'xyz'}], 'config[0].fid', ['hex string']),
        ([{'fid': 0x1FFFFFFFF}], 'config[0].fid', ['0..0xffffffff']),
        ([{'fid': 1, 'power': 'maybe'}], 'config[0].power', ['on, off']),
        ([{'fid': 1, 'driver': 'e1000'}], 'config[0].driver', ['vfio-pci, ism']),
        ([{'fid': 1, 'expected_type': 'nic'}], 'config[0].expected_type', ['ism, roce, neth, netd, any']),
        ([{'fid': 1, 'power': 'off', 'driver': 'ism'}], 'config[0].driver', ['power off']),
        ([{'fid': 1, 'driver': 'mlx5_core', 'expected_type': 'ism'}], 'config[0].driver', ['roce', 'ism']),
        ([{'fid': 1, 'driver': 'ism', 'expected_type': 'roce'}], 'config[0].driver', ['ism functions']),
        ([{'fid': 1, 'driver': 'ism', 'expected_type': 'neth'}], 'config[0].driver', ['ism functions', 'neth']),
        ([{'fid': 1, 'sriov_numvfs': -1}], 'config[0].sriov_numvfs', ['from 0 to 65535']),
        ([{'fid': 1, 'sriov_numvfs': 70000}], 'config[0].sriov_numvfs', ['from 0 to 65535']),
        ([{'fid': 1, 'sriov_numvfs': True}], 'config[0].sriov_numvfs', ['integer']),
        ([{'fid': 1, 'sriov_numvfs': '4'}], 'config[0].sriov_numvfs', ['integer']),
        ([{'fid': 1, 'sriov_drivers_autoprobe': True}], 'config[0].sriov_drivers_autoprobe', ['sriov_numvfs']),
        ([{'fid': 1, 'sriov_numvfs': 2, 'power': 'off'}], 'config[0].sriov_numvfs', ['power off']),
        ([{'fid': 1, 'sriov_numvfs': 2, 'driver': 'vfio-pci'}], 'config[0].driver', ['mlx5_core', 'vfio-pci']),
        ([{'fid': 1, 'sriov_numvfs': 2, 'expected_type': 'neth'}], 'config[0].sriov_numvfs', ['netd', 'neth']),
    ],
)
def test_normalize_errors_name_the_field(config, field, words):
    with pytest.raises(ZpciConfigError) as err:
        normalize_config(config)
    message = str(err.value)
    assert message.startswith(field)
    for word in words:
        assert word in message


def test_check_host_lists_the_fids_the_host_has():
    with pytest.raises(ZpciConfigError) as err:
        check_host(normalize_config([{'fid': 0x605}, {'fid': 0x999}]), [0x605, 0x1017])
    assert str(err.value) == (
        'config[1].fid: FID 0x999 is not configured to this partition '
        '(no /sys/bus/pci/slots/00000999); FIDs of this host: 0x605, 0x1017'
    )
    check_host(normalize_config([{'fid': 0x605}]), [0x605])


def test_roce_function_with_expected_type_ism_is_refused():
    roce = dict(ON_ISM, type='roce', pft_name='ROC2')
    with pytest.raises(ZpciConfigError) as err:
        check_type(entry(expected_type='ism'), roce)
    assert 'config[0].expected_type' in str(err.value) and 'roce' in str(err.value)
    with pytest.raises(ZpciConfigError) as err:
        check_type(entry(driver='ism'), roce)
    assert 'config[0].driver' in str(err.value)
    check_type(entry(driver='vfio-pci', expected_type='roce'), roce)
    check_type(entry(expected_type='ism'), {'type': None})  # standby: unknown yet


def test_power_actions():
    assert power_actions(entry(), {'power': 'on'}) == []
    on = power_actions(entry(), {'power': 'off'})
    assert [a['command'] for a in on] == ['echo 1 > /sys/bus/pci/slots/00000605/power']
    off = power_actions(entry(power='off'), {'power': 'on'})
    assert [(a['action'], a['value']) for a in off] == [('power_off', '0')]
    assert needs_guard(off)


def test_rebind_ism_to_vfio_in_kernel_order():
    actions = binding_actions(entry(driver='vfio-pci'), ON_ISM, lambda name: True)
    assert [a['command'] for a in actions] == [
        'echo vfio-pci > /sys/bus/pci/devices/0605:00:00.0/driver_override',
        'echo 0605:00:00.0 > /sys/bus/pci/drivers/ism/unbind',
        'echo 0605:00:00.0 > /sys/bus/pci/drivers_probe',
    ]
    assert needs_guard(actions)
    after = predict(ON_ISM, actions)
    assert after['driver'] == 'vfio-pci' and after['driver_override'] == 'vfio-pci'


def test_missing_driver_is_loaded_before_anything_is_written():
    # a modprobe that fails must not leave an override behind that sends the next probe elsewhere
    actions = binding_actions(entry(driver='vfio-pci'), dict(ON_ISM, driver=None), lambda name: False)
    assert [a['action'] for a in actions] == ['modprobe', 'set_override', 'probe']
    assert actions[0]['value'] == 'vfio-pci'
    assert not needs_guard(actions)


def test_bound_with_override_is_idempotent_and_override_only_when_missing():
    bound = dict(ON_ISM, driver='vfio-pci', driver_override='vfio-pci')
    assert binding_actions(entry(driver='vfio-pci'), bound, lambda name: True) == []
    natively = binding_actions(entry(driver='ism'), ON_ISM, lambda name: True)
    assert [a['action'] for a in natively] == ['set_override']


def test_driver_none_unbinds_and_keeps_unbound():
    actions = binding_actions(entry(driver='none'), ON_ISM)
    assert [(a['action'], a['value']) for a in actions] == [('set_override', 'none'), ('unbind', '0605:00:00.0')]
    after = predict(ON_ISM, actions, entry(driver='none'))
    assert after['driver'] is None and after['driver_override'] == 'none'


def test_standby_function_is_named_by_fid_in_commands():
    record = {'fid': 0x605, 'power': 'off'}
    actions = power_actions(entry(driver='vfio-pci'), record)
    predicted = predict(record, actions)
    binds = binding_actions(entry(driver='vfio-pci'), predicted)
    assert binds[-1]['command'] == 'echo <address of FID 0x605> > /sys/bus/pci/drivers_probe'
    assert predict(predicted, binds)['driver'] == 'vfio-pci'


def test_clear_override_only_when_set():
    assert clear_override_actions(ON_ISM) == []
    actions = clear_override_actions(dict(ON_ISM, driver_override='vfio-pci'))
    assert actions[0]['command'] == 'echo > /sys/bus/pci/devices/0605:00:00.0/driver_override'
    assert clear_override_actions({'fid': 1, 'power': 'off', 'driver_override': 'x'}) == []


def test_power_off_prediction_drops_the_device():
    after = predict(ON_ISM, power_actions(entry(power='off'), ON_ISM))
    assert after['power'] == 'off' and after['pci_address'] is None and after['driver'] is None


def _pf(numvfs, autoprobe=None, **kw):
    item = {'fid': 0x110, 'driver': 'mlx5_core', 'sriov_numvfs': numvfs}
    if autoprobe is not None:
        item['sriov_drivers_autoprobe'] = autoprobe
    item.update(kw)
    return normalize_config([item])[0]


def _pf_record(numvfs, autoprobe=True, total=4):
    return {
        'fid': 0x110,
        'power': 'on',
        'pci_address': '0001:00:00.0',
        'type': 'netd',
        'pft': 0x0F,
        'pft_name': 'NETD',
        'vfn': 0,
        'driver': 'mlx5_core',
        'sriov': {'totalvfs': total, 'numvfs': numvfs, 'drivers_autoprobe': autoprobe, 'vfs': []},
    }


def test_sriov_actions_go_through_zero_and_set_autoprobe_before_the_vfs_appear():
    path = '/sys/bus/pci/devices/0001:00:00.0/'
    assert [a['command'] for a in sriov_actions(_pf(4), _pf_record(0))] == [
        'echo 0 > %ssriov_drivers_autoprobe' % path,
        'echo 4 > %ssriov_numvfs' % path,
    ]
    assert [a['command'] for a in sriov_actions(_pf(2), _pf_record(4, autoprobe=False))] == [
        'echo 0 > %ssriov_numvfs' % path,
        'echo 2 > %ssriov_numvfs' % path,
    ]
    assert sriov_actions(_pf(4), _pf_record(4, autoprobe=False)) == []
    assert [a['action'] for a in sriov_actions(_pf(0), _pf_record(4, autoprobe=False))] == ['sriov_disable']
    assert needs_guard(sriov_actions(_pf(0), _pf_record(4, autoprobe=False)))
    assert not needs_guard(sriov_actions(_pf(4), _pf_record(0)))
    after = predict(_pf_record(0), sriov_actions(_pf(3, True), _pf_record(0)))
    assert after['sriov']['numvfs'] == 3 and after['sriov']['drivers_autoprobe'] is True


def test_sriov_in_standby_names_the_address_by_fid():
    actions = sriov_actions(_pf(2), {'fid': 0x110, 'power': 'off'})
    assert [a['command'] for a in actions] == [
        'echo 0 > /sys/bus/pci/devices/<address of FID 0x110>/sriov_drivers_autoprobe',
        'echo 2 > /sys/bus/pci/devices/<address of FID 0x110>/sriov_numvfs',
    ]


@pytest.mark.parametrize(
    'entry,record,words',
    [
        (_pf(5), _pf_record(0), ['config[0].sriov_numvfs', '5 is more than FID 0x110', 'sriov_totalvfs 4', '0 to 4']),
        (
            _pf(2),
            dict(_pf_record(0), sriov=None, type='neth', pft=0x0C, pft_name='NETH', vfn=3),
            ['config[0].sriov_numvfs', 'FID 0x110', '0x0c NETH', 'a VF'],
        ),
        (
            normalize_config([{'fid': 0x110, 'sriov_numvfs': 2}])[0],
            dict(_pf_record(0), driver=None),
            ['config[0].sriov_numvfs', 'bound to mlx5_core', 'unbound'],
        ),
    ],
)
def test_check_type_refuses_vf_counts_the_function_cannot_take(entry, record, words):
    with pytest.raises(ZpciConfigError) as err:
        check_type(entry, record)
    for word in words:
        assert word in str(err.value)


@pytest.mark.parametrize(
    'driver,kind,pft,allowed',
    [
        ('ism', 'neth', (0x0C, 'NETH'), 'mlx5_core, vfio-pci'),
        ('mlx5_core', 'ism', (0x05, 'ISM'), 'ism, ism_vfio_pci, vfio-pci'),
        ('ism_vfio_pci', 'netd', (0x0F, 'NETD'), 'mlx5_core, vfio-pci'),
    ],
)
def test_check_type_names_fid_pft_and_the_drivers_that_fit(driver, kind, pft, allowed):
    entry = normalize_config([{'fid': 0x120, 'driver': driver}])[0]
    record = {'fid': 0x120, 'type': kind, 'pft': pft[0], 'pft_name': pft[1]}
    with pytest.raises(ZpciConfigError) as err:
        check_type(entry, record)
    message = str(err.value)
    assert 'config[0].driver: %s cannot drive FID 0x120' % driver in message
    assert '0x%02x %s' % pft in message and message.endswith('drivers for it: ' + allowed)


def test_isolated_vf_findings_only_without_uid_checking():
    vf = {
        'fid': 0x130,
        'type': 'neth',
        'pft_name': 'NETH',
        'vfn': 2,
        'isolated_vf': True,
        'pci_address': '0000:00:00.0',
    }
    found = isolated_vf_findings([dict(vf, uid_is_unique=False)])
    assert len(found) == 1 and found[0].startswith('FID 0x130 (NETH VF 2 at 0000:00:00.0) is an isolated VF')
    assert isolated_vf_findings([dict(vf, uid_is_unique=True)]) == []
    assert isolated_vf_findings([dict(vf, uid_is_unique=False, isolated_vf=False)]) == []
    # RoCE and ISM VFs never have their PF in the partition: no finding for them
    assert isolated_vf_findings([dict(vf, uid_is_unique=False, type='roce')]) == []
