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
    needs_guard,
    normalize_config,
    power_actions,
    predict,
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
        ([{'fid': 1, 'expected_type': 'nic'}], 'config[0].expected_type', ['ism, roce, any']),
        ([{'fid': 1, 'power': 'off', 'driver': 'ism'}], 'config[0].driver', ['power off']),
        ([{'fid': 1, 'driver': 'mlx5_core', 'expected_type': 'ism'}], 'config[0].driver', ['roce', 'ism']),
        ([{'fid': 1, 'driver': 'ism', 'expected_type': 'roce'}], 'config[0].driver', ['ism functions']),
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
