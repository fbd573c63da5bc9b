# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""zpci_function with z17 Network Express functions (NETH, NETD and a NETD PF's VFs) on the fake
kernel: identification by pft, driver checks, VF counts, their boot rule, drift and the guard."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.s390x.network.plugins.module_utils.zpci.persist import parse_sriov_rules
from ansible_collections.s390x.network.tests.unit.fake_kernel import ISM, NETD, NETD_PF, NETH, ROCE3
from ansible_collections.s390x.network.tests.unit.plugins.modules.test_zpci_function import (  # noqa: F401 (new_host: a fixture)
    RULES,
    by_fid,
    new_host,
)

PF = 0x110
PF_ADDR = '0110:00:00.0'


@pytest.fixture
def host(new_host):
    """An LPAR with a NETD PF 0x110 (4 VFs 0x111..0x114 defined for it), a NETH VF 0x120 without its PF
    (fidparm 1), a RoCE Express3 VF 0x130 (same PCI id as the NETH VF) and ISM 0x605."""
    functions = [
        dict(NETD_PF, fid=PF, power=True),
        dict(NETH, fid=0x120, vfn=3, fidparm=1, power=True, uid_is_unique=0, net=['ens288']),
        dict(ROCE3, fid=0x130, vfn=1, power=True),
        dict(ISM, fid=0x605, power=True),
    ]
    functions += [dict(NETD, fid=PF + n, vfn=n, pf=PF) for n in range(1, 5)]
    return new_host(functions, drivers=('ism', 'mlx5_core', 'vfio-pci'))


def test_types_come_from_pft_and_fidparm_is_reported(host):
    result = host.run(state='gathered')
    got = dict((r['fid'], r) for r in result['gathered'])
    assert (got[PF]['type'], got[PF]['pft_name'], got[PF]['vfn']) == ('netd', 'NETD', 0)
    assert (got[0x120]['type'], got[0x120]['pft'], got[0x120]['fidparm']) == ('neth', 0x0C, 1)
    # same PCI id 15b3:101e as the NETH VF, other pft
    assert got[0x130]['device_id'] == got[0x120]['device_id'] == '101e'
    assert got[0x130]['type'] == 'roce' and got[0x130]['fidparm'] is None
    assert got[PF]['sriov'] == {'totalvfs': 4, 'numvfs': 0, 'drivers_autoprobe': True, 'vfs': []}
    assert got[0x120]['isolated_vf'] is True and got[0x120]['physfn'] is None
    assert got[0x605]['sriov'] is None


def test_isolated_vf_without_uid_checking_is_a_finding_naming_the_fid(host):
    result = host.run(config=[{'fid': 0x120, 'driver': 'mlx5_core', 'expected_type': 'neth'}])
    assert result['changed'] is True  # the boot rule of the binding
    assert len(result['findings']) == 1
    assert result['findings'][0].startswith('FID 0x120 (NETH VF 3 at 0120:00:00.0) is an isolated VF')
    assert 'UID checking is off' in result['findings'][0]
    assert result['findings'][0] in result['warnings']
    assert by_fid(result['functions'], 0x120)['fidparm'] == 1


@pytest.mark.parametrize(
    'fid,driver,words',
    [
        (0x120, 'ism', ['config[0].driver: ism cannot drive FID 0x120', 'neth', '0x0c NETH', 'mlx5_core, vfio-pci']),
        (0x605, 'mlx5_core', ['FID 0x605', '0x05 ISM', 'ism, ism_vfio_pci, vfio-pci']),
        (PF, 'ism_vfio_pci', ['FID 0x110', '0x0f NETD', 'mlx5_core, vfio-pci']),
    ],
)
def test_driver_that_does_not_fit_the_pft_is_refused_before_any_write(host, fid, driver, words):
    result = host.run(config=[{'fid': fid, 'driver': driver}])
    assert result.get('failed') and host.kernel.writes == []
    for word in words:
        assert word in result['msg']


def test_netd_vfs_created_unbound_persisted_idempotent(host):
    args = dict(config=[{'fid': PF, 'driver': 'mlx5_core', 'expected_type': 'netd', 'sriov_numvfs': 2}])
    check = host.run(check_mode=True, diff=True, **args)
    assert check['changed'] is True and host.kernel.writes == []
    assert 'echo 0 > /sys/bus/pci/devices/%s/sriov_drivers_autoprobe' % PF_ADDR in check['commands']
    assert 'echo 2 > /sys/bus/pci/devices/%s/sriov_numvfs' % PF_ADDR in check['commands']
    assert 'sriov_numvfs=0' in check['diff'][0]['before'] and 'sriov_numvfs=2' in check['diff'][0]['after']

    result = host.run(**args)
    assert result['changed'] is True
    assert host.kernel.numvfs[PF] == 2
    # the VFs appeared unbound: mlx5_core did not take them
    assert host.kernel.bound(0x111) is None and host.kernel.bound(0x112) is None
    assert host.kernel.slot_power(0x113) is None  # not created
    pf = by_fid(result['functions'], PF)
    assert pf['sriov']['numvfs'] == 2 and pf['sriov']['drivers_autoprobe'] is False
    assert len(pf['sriov']['vfs']) == 2
    rules = host.file(RULES)
    assert (
        'ACTION=="bind", SUBSYSTEM=="pci", DRIVER=="mlx5_core", ATTR{function_id}=="0x00000110", '
        'ATTR{sriov_drivers_autoprobe}="0", ATTR{sriov_numvfs}="2"'
    ) in rules
    assert result['drift'][-1] == {
        'kind': 'zpci',
        'object': '0x110',
        'scope': 'active',
        'difference': 'driver_override - -> mlx5_core, sriov_numvfs 0 -> 2, sriov_drivers_autoprobe 1 -> 0',
    }

    writes = len(host.kernel.writes)
    again = host.run(**args)
    assert again['changed'] is False and again['commands'] == [] and again['drift'] == []
    assert len(host.kernel.writes) == writes

    # a VF of the PF is handed to a guest by FID; it is not isolated (its PF is here)
    vf = host.run(config=[{'fid': 0x111, 'driver': 'vfio-pci', 'expected_type': 'netd'}])
    assert host.kernel.bound(0x111) == 'vfio-pci'
    record = by_fid(vf['functions'], 0x111)
    assert record['physfn'] == PF_ADDR and record['isolated_vf'] is False and vf['findings'] == []


def test_drift_behind_ansibles_back_is_reported_and_corrected(host):
    args = dict(config=[{'fid': PF, 'driver': 'mlx5_core', 'sriov_numvfs': 2}])
    host.run(**args)
    host.kernel.create_vfs_behind_ansible(PF, 3)
    assert host.kernel.numvfs[PF] == 3
    report = host.run(check_mode=True, **args)
    assert report['changed'] is True
    assert {'kind': 'zpci', 'object': '0x110', 'scope': 'active', 'difference': 'sriov_numvfs 3 -> 2'} in report[
        'drift'
    ]
    assert report['commands'] == [
        'echo 0 > /sys/bus/pci/devices/%s/sriov_numvfs' % PF_ADDR,
        'echo 2 > /sys/bus/pci/devices/%s/sriov_numvfs' % PF_ADDR,
    ]
    fixed = host.run(**args)
    assert fixed['changed'] is True and host.kernel.numvfs[PF] == 2
    assert host.run(**args)['changed'] is False


def test_removing_vfs_a_guest_holds_is_refused_unless_forced(host):
    host.run(config=[{'fid': PF, 'driver': 'mlx5_core', 'sriov_numvfs': 2}])
    host.run(config=[{'fid': 0x112, 'driver': 'vfio-pci'}])
    with open(host.kernel.path('/sys/bus/pci/devices/0112:00:00.0/enable'), 'w') as handle:
        handle.write('1\n')  # QEMU has the VF open
    writes = len(host.kernel.writes)
    refused = host.run(config=[{'fid': PF, 'sriov_numvfs': 0}])
    assert refused.get('failed') and len(host.kernel.writes) == writes
    assert 'FID 0x110' in refused['msg'] and 'VF FID 0x112' in refused['msg']
    forced = host.run(config=[{'fid': PF, 'sriov_numvfs': 0}], force=True)
    assert forced['changed'] is True and host.kernel.numvfs[PF] == 0
    # the PF's boot rule went with its VFs; the VF's binding line stays
    assert parse_sriov_rules(host.file(RULES)) == {} and 'ATTR{function_id}=="0x00000112"' in host.file(RULES)


def test_vf_count_above_sriov_totalvfs_names_the_field_and_the_limit(host):
    result = host.run(config=[{'fid': PF, 'driver': 'mlx5_core', 'sriov_numvfs': 5}])
    assert result.get('failed') and host.kernel.writes == []
    assert 'config[0].sriov_numvfs: 5 is more than FID 0x110 offers (sriov_totalvfs 4)' in result['msg']


def test_vf_count_on_a_neth_function_is_refused(host):
    result = host.run(config=[{'fid': 0x120, 'sriov_numvfs': 1}])
    assert result.get('failed') and host.kernel.writes == []
    assert 'config[0].sriov_numvfs: FID 0x120 (pft 0x0c NETH) is a VF' in result['msg']


def test_pf_in_standby_is_powered_bound_and_given_vfs_in_one_run(new_host):
    functions = [dict(NETD_PF, fid=PF)] + [dict(NETD, fid=PF + n, vfn=n, pf=PF) for n in range(1, 3)]
    host = new_host(functions, drivers=('mlx5_core', 'vfio-pci'))
    args = dict(config=[{'fid': PF, 'driver': 'mlx5_core', 'expected_type': 'netd', 'sriov_numvfs': 2}])
    check = host.run(check_mode=True, **args)
    assert 'echo 2 > /sys/bus/pci/devices/<address of FID 0x110>/sriov_numvfs' in check['commands']
    result = host.run(**args)
    assert result['changed'] is True and host.kernel.numvfs[PF] == 2
    assert result['commands'][-1] == 'echo 2 > /sys/bus/pci/devices/%s/sriov_numvfs' % PF_ADDR
    assert host.run(**args)['changed'] is False
