# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The libvirt_device module end to end against a fake libvirt (libvirt 9.0 behaviour, see
tests/unit/fixtures/libvirt/fakes.py) and a sysfs tree of the study's KVM host.

The fake is injected where the module gets libvirt from: module_utils.libvirt.conn.libvirt.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import xml.etree.ElementTree as ET

import pytest

from ansible_collections.s390x.network.plugins.module_utils.libvirt import conn as libvirt_conn
from ansible_collections.s390x.network.plugins.modules import libvirt_device
from ansible_collections.s390x.network.tests.unit.fixtures.libvirt import fakes

HOSTDEV = {'fid': 0x605}
IFACE = {'source': 'enc8200', 'mac': '12:34:56:78:9a:bc'}


@pytest.fixture
def env(host_root, run_module, monkeypatch):
    """A host with sysfs (FID 0x605 ISM, qeth 0.0.8200 layer 2 online) and a libvirt with g1, g2;
    ``env.run(args, check=False, diff=False, failed=False)`` runs the module and returns its result
    (an AssertionError when it did not fail or succeed as ``failed`` says)."""
    fakes.lab_host(str(host_root))
    fake = fakes.FakeLibvirtModule()
    monkeypatch.setattr(libvirt_conn, 'libvirt', fake)
    monkeypatch.setattr(libvirt_conn, 'HAS_LIBVIRT', True)
    fake.root = str(host_root)

    def run(args, check=False, diff=False, failed=False):
        out = run_module(libvirt_device.main, args, check_mode=check, diff=diff)
        if out.failed is not failed:
            raise AssertionError('expected %s, got %r' % ('a failure' if failed else 'success', out.result))
        return out.result

    fake.run = run
    return fake


def g1(env, xml='g1-inactive-bare.xml', **kw):
    return env.connection.add('g1', fakes.fixture(xml), **kw)


def devices(dom, tag):
    return dom.config.find('devices').findall(tag)


def test_attach_then_idempotent(env):
    dom = g1(env)
    args = {'domain': 'g1', 'hostdevs': [HOSTDEV], 'interfaces': [IFACE]}
    first = env.run(args)
    assert first['changed'] is True
    assert [(c['action'], c['device']['kind'], c['config'], c['live']) for c in first['changed_devices']] == [
        ('attach', 'hostdev', True, False),
        ('attach', 'interface', True, False),
    ]
    # libvirt got the study's XML, with AFFECT_CONFIG only (domain shut off)
    assert [(call, flags) for call, xml, flags in dom.calls] == [('attach', 2), ('attach', 2)]
    sent = ET.fromstring(dom.calls[0][1])
    assert sent.find('address/zpci').attrib == {'uid': '0x0605', 'fid': '0x00000605'}
    assert sent.find('source/address').attrib == {'domain': '0x0605', 'bus': '0x00', 'slot': '0x00', 'function': '0x0'}
    # after_xml is what libvirt stored (with its guest address)
    assert "slot=\"0x01\"" in first['after_xml'] and 'devno="0x0001"' in first['after_xml']
    assert len(devices(dom, 'hostdev')) == 1 and len(devices(dom, 'interface')) == 1
    calls = len(dom.calls)
    second = env.run(args)
    assert second['changed'] is False and second['changed_devices'] == []
    assert len(dom.calls) == calls
    assert second['before_xml'] == second['after_xml']
    check = env.run(args, check=True, diff=True)
    assert check['changed'] is False and check['diff']['prepared'] == ''


def test_check_mode_predicts_and_changes_nothing(env):
    dom = g1(env)
    result = env.run({'domain': 'g1', 'hostdevs': [HOSTDEV], 'interfaces': [IFACE]}, check=True, diff=True)
    assert result['changed'] is True
    assert dom.calls == [] and devices(dom, 'hostdev') == []
    added = [line for line in result['diff']['prepared'].splitlines() if line.startswith('+')]
    assert any('<zpci uid="0x0605" fid="0x00000605" />' in line for line in added)
    assert any('<source dev="enc8200" mode="bridge" />' in line for line in added)
    assert not [
        line for line in result['diff']['prepared'].splitlines() if line.startswith('-') and not line.startswith('---')
    ]


def test_drift_is_reported_and_fixed(env):
    dom = g1(env, 'g1-inactive-study.xml')
    args = {'domain': 'g1', 'hostdevs': [HOSTDEV], 'interfaces': [{'source': 'hs32k_0', 'mac': '12:34:56:78:9a:bc'}]}
    fakes.add_netdev(env.root, 'hs32k_0')
    assert env.run(args)['changed'] is False
    # drift: virsh detach-device --config of the hostdev
    dom.detachDeviceFlags(ET.tostring(devices(dom, 'hostdev')[0], encoding='unicode'), 2)
    report = env.run(args, check=True)
    assert report['changed'] is True
    assert [c['action'] for c in report['changed_devices']] == ['attach']
    assert env.run(args)['changed'] is True
    assert env.run(args)['changed'] is False


def test_generated_mac_is_kept(env):
    dom = g1(env)
    args = {'domain': 'g1', 'interfaces': [{'source': 'enc8200'}]}
    first = env.run(args)
    assert first['changed'] is True
    mac = devices(dom, 'interface')[0].find('mac').get('address')
    assert mac.startswith('52:54:00:')
    assert first['devices'][0]['mac'] == mac  # reported from the definition libvirt stored
    again = env.run(args)
    assert again['changed'] is False
    assert again['devices'][0]['mac'] == mac


def test_interface_update_in_place(env):
    dom = g1(env, 'g1-inactive-study.xml')
    fakes.add_netdev(env.root, 'hs32k_0')
    result = env.run(
        {'domain': 'g1', 'interfaces': [{'source': 'hs32k_0', 'mac': '12:34:56:78:9a:bc', 'mode': 'vepa'}]}
    )
    assert [(c['action'], c['fields']) for c in result['changed_devices']] == [('update', ['mode'])]
    assert dom.calls[-1][0] == 'update'
    iface = devices(dom, 'interface')[0]
    assert iface.find('source').get('mode') == 'vepa'
    assert iface.find('address').get('devno') == '0x0001'


def test_hostdev_change_is_detach_and_attach(env):
    dom = g1(env, 'g1-inactive-study.xml')
    result = env.run({'domain': 'g1', 'hostdevs': [{'fid': 0x605, 'uid': 0x42}]})
    assert [(c['action'], c['fields']) for c in result['changed_devices']] == [('replace', ['uid'])]
    assert [call for call, xml, flags in dom.calls] == ['detach', 'attach']
    assert devices(dom, 'hostdev')[0].find('address/zpci').get('uid') == '0x0042'


def test_exact_and_absent(env):
    dom = g1(env, 'g1-inactive-generated-mac.xml')
    fakes.add_netdev(env.root, 'hs32k_0')
    result = env.run({'domain': 'g1', 'state': 'exact', 'interfaces': [{'source': 'hs32k_0'}]})
    assert sorted(c['device']['kind'] for c in result['changed_devices']) == ['hostdev', 'interface']
    assert devices(dom, 'hostdev') == []
    assert [i.find('source').get('dev') for i in devices(dom, 'interface')] == ['hs32k_0']
    result = env.run({'domain': 'g1', 'state': 'absent', 'interfaces': [{'source': 'hs32k_0'}]})
    assert result['changed'] is True and devices(dom, 'interface') == []
    assert env.run({'domain': 'g1', 'state': 'absent', 'interfaces': [{'source': 'hs32k_0'}]})['changed'] is False


def test_absent_needs_no_host_function(env):
    dom = env.connection.add(
        'g1',
        fakes.fixture('g1-inactive-study.xml')
        .replace('0x00000605', '0x00000999')
        .replace("uid='0x0605'", "uid='0x0999'"),
    )
    result = env.run({'domain': 'g1', 'state': 'absent', 'hostdevs': [{'fid': '999'}]})
    assert result['changed'] is True and devices(dom, 'hostdev') == []


def test_live_auto_falls_back_to_config_with_a_warning(env):
    live = fakes.fixture('g1-live-paused.xml')
    # the running domain (id, alias, seclabel) without its interfaces
    live = live[: live.index('<interface')] + live[live.index('<serial') :]
    dom = g1(env, live_xml=live)
    result = env.run({'domain': 'g1', 'hostdevs': [HOSTDEV], 'interfaces': [IFACE]})
    assert result['domain_active'] is True
    by_kind = dict((c['device']['kind'], (c['config'], c['live'])) for c in result['changed_devices'])
    assert by_kind == {'hostdev': (True, False), 'interface': (True, True)}
    assert result['live_pending'] == ['attach hostdev fid 0x00000605']
    assert "host doesn't support passthrough" in result['warnings'][0]
    # the combined call (CONFIG|LIVE = 3) failed, then CONFIG only (2)
    assert [(call, flags) for call, xml, flags in dom.calls] == [('attach', 3), ('attach', 2), ('attach', 3)]
    assert len(dom.live.find('devices').findall('interface')) == 1
    assert len(devices(dom, 'hostdev')) == 1
    # definition is complete now: no change (auto does not chase live-only differences)
    assert env.run({'domain': 'g1', 'hostdevs': [HOSTDEV], 'interfaces': [IFACE]})['changed'] is False


def test_live_auto_does_not_replug_what_the_running_domain_has(env):
    dom = g1(env, active=True)
    # hot-plugged earlier without --config: running domain has it, definition has not
    dom.attachDeviceFlags(
        '<interface type="direct"><mac address="12:34:56:78:9a:bc"/>'
        '<source dev="enc8200" mode="bridge"/><model type="virtio"/><driver name="vhost"/>'
        '</interface>',
        1,
    )
    dom.calls = []
    result = env.run({'domain': 'g1', 'interfaces': [IFACE]})
    assert [(c['action'], c['config'], c['live']) for c in result['changed_devices']] == [('attach', True, False)]
    assert [flags for call, xml, flags in dom.calls] == [2]
    assert result['warnings'] == [] and result['live_pending'] == []


def test_combined_calls_do_not_pin_guest_addresses(env):
    """Seen with libvirt 9.0: the running domain gave a hot-plugged interface ccw devno 0x0002 while
    the definition gave it 0x0003; a combined call with the definition's address then fails with
    "no device found at address 'fe.0.0003' matching MAC address"."""
    dom = g1(env, 'g1-inactive-generated-mac.xml', live_xml=fakes.fixture('g1-live-paused.xml'))
    fakes.add_netdev(env.root, 'hs32k_p')
    args = {'domain': 'g1', 'interfaces': [{'source': 'hs32k_p', 'mac': '12:34:56:78:9a:bd'}]}
    dom.live.find('devices').remove(dom.live.find('devices').findall('interface')[1])
    first = env.run(args)
    assert [(c['config'], c['live']) for c in first['changed_devices']] == [(True, True)]
    config_devno = [
        i.find('address').get('devno')
        for i in devices(dom, 'interface')
        if i.find('mac').get('address') == '12:34:56:78:9a:bd'
    ]
    live_devno = [
        i.find('address').get('devno')
        for i in dom.live.find('devices').findall('interface')
        if i.find('mac').get('address') == '12:34:56:78:9a:bd'
    ]
    assert config_devno == ['0x0003'] and live_devno == ['0x0002']
    removed = env.run(dict(args, state='absent'))
    assert [(c['config'], c['live']) for c in removed['changed_devices']] == [(True, True)]
    assert removed['warnings'] == []
    assert '9a:bd' not in ET.tostring(dom.live, encoding='unicode')
    assert '9a:bd' not in ET.tostring(dom.config, encoding='unicode')


def test_live_true_fails_when_hotplug_is_impossible(env):
    dom = g1(env, active=True)
    result = env.run({'domain': 'g1', 'hostdevs': [HOSTDEV], 'live': 'true'}, failed=True)
    assert "host doesn't support passthrough of host PCI devices" in result['msg']
    assert devices(dom, 'hostdev') == []


def test_live_true_reconciles_live_only_drift(env):
    dom = g1(env, 'g1-inactive-study.xml', active=True, pci_passthrough=True)
    fakes.add_netdev(env.root, 'hs32k_0')
    # the running guest lost the interface, the definition still has it
    live_devices = dom.live.find('devices')
    live_devices.remove(live_devices.find('interface'))
    args = {'domain': 'g1', 'hostdevs': [HOSTDEV], 'interfaces': [{'source': 'hs32k_0', 'mac': '12:34:56:78:9a:bc'}]}
    assert env.run(dict(args, live='auto'))['changed'] is False
    result = env.run(dict(args, live=True))
    assert [(c['action'], c['config'], c['live']) for c in result['changed_devices']] == [('attach', False, True)]
    assert dom.calls[-1][2] == 1
    assert len(live_devices.findall('interface')) == 0  # the old tree object was replaced
    assert len(dom.live.find('devices').findall('interface')) == 1


def test_live_false_touches_config_only(env):
    dom = g1(env, active=True, pci_passthrough=True)
    env.run({'domain': 'g1', 'hostdevs': [HOSTDEV], 'live': 'false'})
    assert [flags for call, xml, flags in dom.calls] == [2]
    assert dom.live.find('devices').findall('hostdev') == []


# --- validation before anything is touched ---------------------------------------------------------


def assert_untouched(dom):
    assert dom.calls == []


def test_unknown_domain_lists_defined_ones(env):
    g1(env)
    env.connection.add('g2', fakes.fixture('g1-inactive-bare.xml'))
    result = env.run({'domain': 'g3', 'hostdevs': [HOSTDEV]}, failed=True)
    assert result['msg'] == 'domain: g3 is not defined on qemu:///system; defined domains: g1, g2'
    assert result['domains'] == ['g1', 'g2']


def test_fid_owned_by_other_domain(env):
    dom = g1(env)
    env.connection.add('g2', fakes.fixture('g1-inactive-study.xml'))
    result = env.run({'domain': 'g1', 'hostdevs': [HOSTDEV]}, failed=True)
    assert 'FID 0x00000605 is already given to domain g2' in result['msg']
    assert_untouched(dom)


def test_uid_collision_in_domain(env):
    dom = g1(env, 'g1-inactive-study.xml')
    fakes.add_zpci(env.root, 0x606, '0606:00:00.0')
    result = env.run({'domain': 'g1', 'hostdevs': [HOSTDEV, {'fid': 0x606, 'uid': 0x42}]}, check=False)
    assert result['changed'] is True
    calls = len(dom.calls)
    result = env.run(
        {'domain': 'g1', 'hostdevs': [{'fid': 0x606, 'uid': 0x42}, {'fid': 0x605, 'uid': 0x42}]}, failed=True
    )
    assert 'hostdevs[1].uid: 0x0042 is also used by hostdevs[0]' in result['msg']
    # the existing hostdev (fid 0x606, uid 0x42) against a new uid 0x42 on fid 0x605
    result = env.run({'domain': 'g1', 'hostdevs': [{'fid': 0x605, 'uid': 0x42}]}, failed=True)
    assert 'zPCI uid 0x0042 is used twice in g1' in result['msg']
    assert len(dom.calls) == calls


@pytest.mark.parametrize(
    'args,fragment',
    [
        ({'hostdevs': [{'fid': 0x605, 'uid': 0}]}, 'hostdevs[0].uid: 0x0 is outside 0x0001..0xffff'),
        ({'hostdevs': [{'fid': 0x605, 'uid': 0x10000}]}, 'hostdevs[0].uid: 0x10000 is outside 0x0001..0xffff'),
        ({'hostdevs': [{'fid': 'zz'}]}, 'hostdevs[0].fid'),
        ({'interfaces': [{'source': 'enc8200', 'mac': '12:34:56:78:9a'}]}, 'interfaces[0].mac'),
        ({'interfaces': [{'source': 'enc8200', 'mac': '13:34:56:78:9a:bc'}]}, 'multicast'),
        ({'hostdevs': [{'fid': 0x999}]}, 'FID 0x00000999 does not exist on this host'),
    ],
)
def test_bad_input_changes_nothing(env, args, fragment):
    dom = g1(env)
    args = dict(args, domain='g1')
    result = env.run(args, failed=True)
    assert fragment in result['msg']
    assert_untouched(dom)


def test_layer3_or_offline_qeth_source(env):
    dom = g1(env)
    fakes.add_qeth(env.root, '0.0.8300', 'enc8300', layer2=0)
    result = env.run({'domain': 'g1', 'interfaces': [{'source': 'enc8300'}]}, failed=True)
    assert 'enc8300 is qeth device 0.0.8300 in layer 3' in result['msg']
    fakes.write(os.path.join(env.root, 'sys/devices/qeth/0.0.8200/online'), '0\n')
    result = env.run({'domain': 'g1', 'interfaces': [IFACE]}, failed=True)
    assert 'which is offline' in result['msg']
    assert_untouched(dom)
    # check mode predicts: the qeth role of the same run may set it online first
    result = env.run({'domain': 'g1', 'interfaces': [IFACE]}, check=True)
    assert any('which is offline' in w for w in result.get('warnings', [])), result
    assert_untouched(dom)


def test_fid_in_standby_fails_a_run_and_is_predicted_in_check_mode(env):
    dom = g1(env)
    args = {'domain': 'g1', 'hostdevs': [HOSTDEV]}
    assert env.run(args)['changed'] is True
    calls = len(dom.calls)
    # drift: FID 0x605 powered off (the PCI function disappears, the slot stays)
    os.unlink(os.path.join(env.root, 'sys/bus/pci/devices/0605:00:00.0'))
    fakes.write(os.path.join(env.root, 'sys/bus/pci/slots/00000605/power'), '0\n')
    assert 'in standby (slot power 0)' in env.run(args, failed=True)['msg']
    # check mode: ism_passthrough of the same run powers it on; the domain's address is kept
    result = env.run(args, check=True)
    assert result['changed'] is False and any('in standby' in w for w in result['warnings'])
    assert len(dom.calls) == calls
    # a hostdev the domain does not have yet: an attach, its XML known once the FID is configured
    dom.detachDeviceFlags(ET.tostring(devices(dom, 'hostdev')[0], encoding='unicode'), 2)
    calls = len(dom.calls)
    result = env.run(args, check=True)
    assert result['changed'] is True and len(dom.calls) == calls
    assert [(c['action'], c['device']['fid'], c['device']['address'], c['xml']) for c in result['changed_devices']] == [
        ('attach', 0x605, None, None)
    ]
    assert any(
        'hostdevs[0].fid: FID 0x00000605 is in standby; the hostdev is attached once' in w for w in result['warnings']
    )


def test_missing_source_warns(env):
    g1(env)
    result = env.run({'domain': 'g1', 'interfaces': [{'source': 'vhs0'}]}, check=True)
    assert result['changed'] is True
    assert 'vhs0 does not exist on this host' in result['warnings'][0]


def test_live_choice_accepts_yaml_booleans(env):
    g1(env)
    assert env.run({'domain': 'g1', 'live': False})['changed'] is False
    assert env.run({'domain': 'g1', 'live': 'yes'}, failed=True)['msg'].startswith('value of live must be one of')


def test_transient_domain_refused(env):
    g1(env, persistent=False, active=True)
    result = env.run({'domain': 'g1', 'hostdevs': [HOSTDEV]}, failed=True)
    assert 'transient' in result['msg']


def test_missing_bindings(env, monkeypatch):
    monkeypatch.setattr(libvirt_conn, 'HAS_LIBVIRT', False)
    result = env.run({'domain': 'g1', 'hostdevs': [HOSTDEV]}, failed=True)
    assert 'libvirt-python' in result['msg'] and 'python3-libvirt' in result['msg']


def test_connection_failure_is_reported(env):
    result = env.run({'domain': 'g1', 'uri': 'qemu+ssh://nowhere/system'}, failed=True)
    assert result['msg'].startswith('open(qemu+ssh://nowhere/system): Failed to connect socket')


@pytest.mark.parametrize('name', ['../../etc/libvirt/qemu/g1', 'g1/x', 'g1\nother', ' '])
def test_a_name_that_cannot_be_a_domain_is_refused_before_libvirt_is_asked(env, name):
    g1(env)
    result = env.run({'domain': name, 'hostdevs': [{'fid': '0x605'}]}, failed=True)
    assert result['msg'].startswith('domain: ')
    assert env.opened == []  # libvirt was never asked


def test_state_names_of_earlier_releases_are_aliases(env):
    dom = g1(env)
    args = {'domain': 'g1', 'hostdevs': [HOSTDEV], 'interfaces': [IFACE]}
    assert env.run(dict(args, state='present'))['changed'] is True
    assert env.run(dict(args, state='merged'))['changed'] is False
    result = env.run({'domain': 'g1', 'state': 'absent', 'hostdevs': [HOSTDEV]})
    assert result['changed'] is True and devices(dom, 'hostdev') == []
    assert result['drift'] == [
        {'kind': 'guest', 'object': 'g1 hostdev fid 0x00000605', 'scope': 'persistent', 'difference': 'to remove'}
    ]
    assert env.run({'domain': 'g1', 'state': 'deleted', 'hostdevs': [HOSTDEV]})['changed'] is False


def test_gathered_and_rendered(env):
    g1(env)
    env.run({'domain': 'g1', 'hostdevs': [HOSTDEV], 'interfaces': [IFACE]})
    gathered = env.run({'domain': 'g1', 'state': 'gathered'})
    assert gathered['changed'] is False
    assert sorted((d['kind'], d.get('fid'), d.get('source')) for d in gathered['gathered']) == [
        ('hostdev', 0x605, None),
        ('interface', None, 'enc8200'),
    ]
    rendered = env.run(
        {
            'domain': 'g1',
            'state': 'rendered',
            'hostdevs': [{'fid': 0x606, 'address': '0606:00:00.0'}],
            'interfaces': [IFACE],
        }
    )
    assert "<zpci uid='0x0606' fid='0x00000606' />" in rendered['rendered'][0]['xml'].replace('"', "'")
    assert rendered['rendered'][1]['mac'] == '12:34:56:78:9a:bc'
    no_address = env.run({'domain': 'g1', 'state': 'rendered', 'hostdevs': [{'fid': 0x606}]}, failed=True)
    assert no_address['msg'].startswith('hostdevs[0].address: ')


def test_the_connection_is_closed_however_the_module_ends(env, monkeypatch):
    g1(env)
    closed = []
    monkeypatch.setattr(libvirt_conn.Hypervisor, 'close', lambda self: closed.append(True))
    env.run({'domain': 'g1', 'hostdevs': [HOSTDEV]})
    env.run({'domain': 'g3', 'hostdevs': [HOSTDEV]}, failed=True)
    assert closed == [True, True]


@pytest.mark.parametrize(
    'uri',
    [
        'qemu+ext:///system?command=/bin/id',
        'qemu+ssh://h/system?netcat=/tmp/x',
        'qemu+unix:///system?socket=/tmp/s',
        'qemu+ssh://h/system?keyfile=/root/k',
        'qemu+ssh://h/system?proxy=netcat',
        'qemu+ssh://-oProxyCommand=id/system',
        'qemu:///system\n',
    ],
)
def test_a_uri_that_runs_a_program_is_refused_before_libvirt_is_opened(env, uri):
    g1(env)
    for state in ('merged', 'gathered', 'deleted'):
        result = env.run({'domain': 'g1', 'uri': uri, 'state': state, 'hostdevs': [HOSTDEV]}, failed=True)
        assert result['msg'].startswith('uri: %r is not' % uri)
    assert env.opened == []


@pytest.mark.parametrize(
    'uri',
    [
        'qemu:///system',
        'qemu:///session',
        'qemu+unix:///system?mode=direct',
        'qemu+ssh://root@kvm-a.example.com:2222/system?no_tty=1',
        'qemu+tls://10.0.0.1/system',
        'qemu://kvm-a/system',
        'qemu+tcp://[fd00::1]:16509/system',
        'qemu+libssh2://u_1@h/system?sshauth=agent,privkey',
        'hail',
    ],
)
def test_an_allowed_uri_reaches_libvirt_unchanged(env, uri):
    env.connection.uri = uri
    g1(env)
    assert env.run({'domain': 'g1', 'uri': uri, 'hostdevs': [HOSTDEV]})['changed'] is True
    assert env.opened == [uri]


def network_express(env, fid=0x110, pft=0x0C, fidparm=0x01, flags=0x1003, ifname='eno4'):
    """A Network Express VF (PCI id 15b3:101e) of the host with its netdev; isolated, so its PCI
    address is not derived from the FID (here 0001:00:00.0)."""
    fakes.add_zpci(
        env.root, fid, '0001:00:00.0', pft=pft, driver='mlx5_core', vendor=0x15B3, device=0x101E, fidparm=fidparm
    )
    fakes.add_pci_netdev(env.root, ifname, '0001:00:00.0', flags)


def test_network_express_vf_is_a_zpci_hostdev_keyed_on_its_fid(env):
    dom = g1(env)
    network_express(env)
    args = {'domain': 'g1', 'hostdevs': [{'fid': 0x110, 'uid': 0x110, 'type': 'NETH'}]}
    check = env.run(args, check=True, diff=True)
    assert check['changed'] is True and dom.calls == []
    assert any('<zpci uid="0x0110" fid="0x00000110" />' in line for line in check['diff']['prepared'].splitlines())
    first = env.run(args)
    assert [(c['action'], c['device']['fid'], c['device']['address']) for c in first['changed_devices']] == [
        ('attach', 0x110, '0001:00:00.0')
    ]
    sent = ET.fromstring(dom.calls[0][1])
    assert sent.get('managed') == 'yes'
    assert sent.find('address/zpci').attrib == {'uid': '0x0110', 'fid': '0x00000110'}
    assert sent.find('source/address').attrib == {'domain': '0x0001', 'bus': '0x00', 'slot': '0x00', 'function': '0x0'}
    calls = len(dom.calls)
    assert env.run(args)['changed'] is False and len(dom.calls) == calls
    assert env.run(args, check=True)['drift'] == []


def test_network_express_type_must_match_pft(env):
    dom = g1(env)
    network_express(env, pft=0x0A)  # RoCE Express3: the same PCI id
    result = env.run({'domain': 'g1', 'hostdevs': [{'fid': 0x110, 'type': 'NETH'}]}, failed=True)
    assert result['msg'] == 'hostdevs[0].type: FID 0x00000110 is a ROC2 function on this host (pft 0x0a), not NETH'
    assert dom.calls == []


@pytest.mark.parametrize('check', [False, True])
def test_macvtap_over_neth_without_promiscuous_fidparm_is_refused(env, check):
    dom = g1(env)
    network_express(env, fidparm=0x00)
    result = env.run({'domain': 'g1', 'interfaces': [{'source': 'eno4', 'mode': 'bridge'}]}, check=check, failed=True)
    assert result['msg'].startswith(
        'interfaces[0].source: eno4 is Network Express NETH function FID 0x00000110 (0001:00:00.0) with fidparm 0x00;'
    )
    assert dom.calls == [] and devices(dom, 'interface') == []


def test_macvtap_over_promiscuous_neth(env):
    dom = g1(env)
    network_express(env, flags=0x1103)
    args = {'domain': 'g1', 'interfaces': [{'source': 'eno4', 'mode': 'bridge', 'mac': '12:34:56:78:9a:bd'}]}
    first = env.run(args)
    assert first['changed'] is True and first['warnings'] == []
    assert devices(dom, 'interface')[0].find('source').attrib == {'dev': 'eno4', 'mode': 'bridge'}
    assert env.run(args)['changed'] is False


def test_macvtap_over_neth_that_is_not_promiscuous_warns(env):
    g1(env)
    network_express(env, flags=0x1003)
    result = env.run({'domain': 'g1', 'interfaces': [{'source': 'eno4'}]})
    assert result['changed'] is True
    assert [w for w in result['warnings'] if 'promiscuous' in w] == [
        'interfaces[0].source: eno4 (Network Express NETH, FID 0x00000110) is not in promiscuous mode, which '
        'MacVTap over Network Express needs; s390x.network.ip_promisc sets it now and at boot'
    ]
