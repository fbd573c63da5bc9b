# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Unit tests of plugins/module_utils/libvirt/xml.py against libvirt 9.0's verbatim dumpxml output.

The fixtures in tests/unit/fixtures/libvirt were printed by `virsh dumpxml` (libvirt 9.0.0,
qemu-system-s390x 7.2, Debian 12) for an s390x domain after `virsh attach-device --config` of the
study's hostdev (6.2.2.4) and MacVTap interface (6.1.3); g1-live-paused.xml is the running domain.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import xml.etree.ElementTree as ET

import pytest

from ansible_collections.s390x.network.plugins.module_utils.libvirt import xml as lx

FIXTURES = os.path.join(os.path.dirname(__file__), '..', '..', 'fixtures', 'libvirt')

# The study, chapter 6.2.2.4 and 6.1.3, verbatim (the interface's dev= attribute is not libvirt
# syntax and is dropped by libvirt; uid 0x00605 is normalised to 0x0605).
STUDY_HOSTDEV = """<hostdev mode="subsystem" type="pci" managed="yes">
<source>
<address domain="0x0605" bus="0x00" slot="0x00" function="0x0"/>
</source>
<address type="pci">
<zpci uid="0x00605" fid="0x00000605"/>
</address>
</hostdev>"""
STUDY_INTERFACE = """<interface type="direct" dev="vhs32k_0">
    <mac address="12:34:56:78:9a:bc"/>
    <source dev="hs32k_0" mode="bridge"/>
    <model type="virtio"/>
    <driver name="vhost"/>
</interface>"""


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


def shape(element):
    """(tag, attributes, children) recursively, values normalised as libvirt does for numbers."""
    attrs = {}
    for key, value in element.attrib.items():
        number = lx._attr_int(value) if key in ('uid', 'fid', 'domain', 'bus', 'slot', 'function') else None
        attrs[key] = number if number is not None else value
    return (element.tag, attrs, [shape(child) for child in element])


def hostdev_spec(**kw):
    spec = {'fid': 0x605, 'uid': None, 'address': '0605:00:00.0', 'managed': True}
    spec.update(kw)
    return lx.hostdevs_from_params([spec], 'present')


def iface_spec(**kw):
    spec = {'source': 'hs32k_0', 'mode': 'bridge', 'mac': '12:34:56:78:9a:bc', 'model': 'virtio', 'driver': 'vhost'}
    spec.update(kw)
    return lx.interfaces_from_params([spec], 'present')


# --- parsing scalars -------------------------------------------------------------------------


@pytest.mark.parametrize(
    'value,expected',
    [
        (0x605, 0x605),
        ('0x605', 0x605),
        ('605', 0x605),
        ('0x00000605', 0x605),
        (' 0X605 ', 0x605),
        (0, 0),
        (0xFFFFFFFF, 0xFFFFFFFF),
    ],
)
def test_parse_number_accepts_int_and_hex(value, expected):
    assert lx.parse_number(value, 'fid', 0, 0xFFFFFFFF) == expected


@pytest.mark.parametrize(
    'value,fragment',
    [
        (True, 'expected an integer'),
        ('0xzz', 'not an integer'),
        ('', 'not an integer'),
        (0x100000000, 'outside'),
        (-1, 'outside'),
        (1.5, 'expected an integer'),
    ],
)
def test_parse_number_rejects(value, fragment):
    with pytest.raises(lx.DeviceSpecError) as err:
        lx.parse_number(value, 'hostdevs[0].fid', 0, 0xFFFFFFFF)
    assert 'hostdevs[0].fid' in str(err.value)
    assert fragment in str(err.value)


@pytest.mark.parametrize(
    'text,expected',
    [
        ('0605:00:00.0', (0x605, 0, 0, 0)),
        ('0000:00:01.7', (0, 0, 1, 7)),
        ('00:1f.0', (0, 0, 0x1F, 0)),
        ('FFFF:00:00.0', (0xFFFF, 0, 0, 0)),
    ],
)
def test_pci_address_round_trip(text, expected):
    assert lx.parse_pci_address(text, 'a') == expected
    assert lx.parse_pci_address(lx.format_pci_address(expected), 'a') == expected


@pytest.mark.parametrize('text', ['0605:00:00', '0605:00:20.0', '10000:00:00.0', 'x', '0605:00:00.8'])
def test_pci_address_rejects(text):
    with pytest.raises(lx.DeviceSpecError):
        lx.parse_pci_address(text, 'hostdevs[0].address')


def test_mac_normalised_and_validated():
    assert lx.normalize_mac('12:34:56:78:9A:BC', 'm') == '12:34:56:78:9a:bc'
    for bad in ('12:34:56:78:9a', '12-34-56-78-9a-bc', '12:34:56:78:9a:bc:de', 'zz:34:56:78:9a:bc', 5):
        with pytest.raises(lx.DeviceSpecError) as err:
            lx.normalize_mac(bad, 'interfaces[1].mac')
        assert 'interfaces[1].mac' in str(err.value)
    with pytest.raises(lx.DeviceSpecError) as err:
        lx.normalize_mac('13:34:56:78:9a:bd', 'interfaces[0].mac')  # libvirt: "expected unicast"
    assert 'multicast' in str(err.value)


# --- desired devices from parameters -----------------------------------------------------------


def test_uid_defaults_to_fid_and_is_required_when_fid_does_not_fit():
    assert hostdev_spec()[0]['uid'] == 0x605
    with pytest.raises(lx.DeviceSpecError) as err:
        lx.hostdevs_from_params([{'fid': 0x10000}], 'present')
    assert 'hostdevs[0].uid: required' in str(err.value)
    with pytest.raises(lx.DeviceSpecError):
        lx.hostdevs_from_params([{'fid': 0}], 'present')
    assert lx.hostdevs_from_params([{'fid': 0x10000, 'uid': '0x1'}], 'present')[0]['uid'] == 1
    # absent needs no uid
    assert lx.hostdevs_from_params([{'fid': 0x10000}], 'absent')[0]['uid'] is None


def test_hostdev_type_is_one_of_the_passed_through_function_types():
    assert [
        h['type'] for h in lx.hostdevs_from_params([{'fid': 0x110, 'type': 'NETH'}, {'fid': 0x605}], 'present')
    ] == [
        'NETH',
        None,
    ]
    for bad in ('neth', 'OSH', 'NETH ', 5):
        with pytest.raises(lx.DeviceSpecError) as err:
            lx.hostdevs_from_params([{'fid': 0x110, 'type': bad}], 'present')
        assert str(err.value) == 'hostdevs[0].type: %r is not one of ISM, ROCE, ROC2, NETH, NETD' % (bad,)
    # the type is checked on the host; the device XML is the one of every zPCI hostdev
    spec = lx.hostdevs_from_params([{'fid': 0x110, 'type': 'NETD', 'address': '0110:00:00.0'}], 'present')[0]
    assert lx.to_text(lx.build_device(spec)) == lx.to_text(lx.build_device(dict(spec, type=None)))
    assert 'type' not in lx.public_view(spec)


@pytest.mark.parametrize('uid', [0, 0x10000, '0x0', '10000'])
def test_uid_out_of_range(uid):
    with pytest.raises(lx.DeviceSpecError) as err:
        lx.hostdevs_from_params([{'fid': 0x605, 'uid': uid}], 'present')
    assert 'hostdevs[0].uid' in str(err.value) and '0x0001..0xffff' in str(err.value)


def test_duplicates_in_input_are_rejected():
    with pytest.raises(lx.DeviceSpecError) as err:
        lx.hostdevs_from_params([{'fid': 0x605}, {'fid': '605', 'uid': 7}], 'present')
    assert 'hostdevs[1].fid' in str(err.value) and 'hostdevs[0]' in str(err.value)
    with pytest.raises(lx.DeviceSpecError) as err:
        lx.hostdevs_from_params([{'fid': 0x605}, {'fid': 0x606, 'uid': 0x605}], 'present')
    assert 'hostdevs[1].uid' in str(err.value)
    with pytest.raises(lx.DeviceSpecError) as err:
        lx.interfaces_from_params(
            [{'source': 'a', 'mac': '02:00:00:00:00:01'}, {'source': 'b', 'mac': '02:00:00:00:00:01'}], 'present'
        )
    assert 'interfaces[1].mac' in str(err.value)


def test_interface_fields_validated():
    with pytest.raises(lx.DeviceSpecError) as err:
        lx.interfaces_from_params([{'source': 'enc8200', 'mode': 'bridged'}], 'present')
    assert 'interfaces[0].mode' in str(err.value) and 'passthrough' in str(err.value)
    with pytest.raises(lx.DeviceSpecError):
        lx.interfaces_from_params([{'source': 'a/b'}], 'present')
    with pytest.raises(lx.DeviceSpecError):
        lx.interfaces_from_params([{'source': 'x' * 16}], 'present')
    with pytest.raises(lx.DeviceSpecError) as err:
        lx.interfaces_from_params([{'source': 'enc8200', 'driver': 'vfio'}], 'present')
    assert 'interfaces[0].driver' in str(err.value)
    spec = lx.interfaces_from_params([{'source': 'enc8200'}], 'present')[0]
    assert (spec['mode'], spec['model'], spec['driver'], spec['mac']) == ('bridge', 'virtio', 'vhost', None)


# --- building: the study's shapes ----------------------------------------------------------------


def test_build_hostdev_matches_the_study():
    spec = hostdev_spec(address=None)[0]
    spec['address'] = (0x605, 0, 0, 0)
    built = lx.build_hostdev(spec)
    assert shape(built) == shape(ET.fromstring(STUDY_HOSTDEV))
    text = lx.to_text(built)
    assert "<zpci uid=\"0x0605\" fid=\"0x00000605\" />" in text
    assert '<address domain="0x0605" bus="0x00" slot="0x00" function="0x0" />' in text


def test_build_hostdev_unmanaged():
    built = lx.build_hostdev(hostdev_spec(managed=False)[0])
    assert built.get('managed') == 'no'


def test_build_interface_matches_the_study_minus_invalid_dev_attribute():
    built = lx.build_interface(iface_spec()[0])
    study = ET.fromstring(STUDY_INTERFACE)
    del study.attrib['dev']  # not part of libvirt's schema; libvirt drops it
    assert shape(built) == shape(study)


def test_build_interface_without_mac_lets_libvirt_generate():
    built = lx.build_interface(iface_spec(mac=None)[0])
    assert built.find('mac') is None
    assert [child.tag for child in built] == ['source', 'model', 'driver']


# --- normalising libvirt's output ----------------------------------------------------------------


def test_describe_libvirt_normalised_hostdev_and_interface():
    root = lx.parse_domain(fixture('g1-inactive-study.xml'))
    found = [desc for element, desc in lx.managed_devices(root)]
    assert found == [
        {
            'kind': 'interface',
            'source': 'hs32k_0',
            'mode': 'bridge',
            'mac': '12:34:56:78:9a:bc',
            'model': 'virtio',
            'driver': 'vhost',
        },
        {'kind': 'hostdev', 'fid': 0x605, 'uid': 0x605, 'address': (0x605, 0, 0, 0), 'managed': True},
    ]


def test_study_xml_as_libvirt_stores_it_equals_what_we_build():
    """The element libvirt prints (with its extra guest address) is the one we build: no change."""
    root = lx.parse_domain(fixture('g1-inactive-study.xml'))
    hostdevs = hostdev_spec()
    interfaces = iface_spec()
    assert lx.plan(root, hostdevs, interfaces, 'present') == []
    assert lx.plan(root, hostdevs, interfaces, 'exact') == []
    # a running domain's XML (alias, target dev macvtapN) is equally equal
    live = lx.parse_domain(fixture('g1-live-paused.xml'))
    assert lx.plan(live, [], interfaces, 'present') == []


def test_generated_mac_is_kept_when_no_mac_is_asked_for():
    root = lx.parse_domain(fixture('g1-inactive-generated-mac.xml'))
    interfaces = lx.interfaces_from_params([{'source': 'enc8200'}, {'source': 'hs32k_0'}], 'present')
    assert lx.plan(root, hostdev_spec(), interfaces, 'exact') == []
    pairs, unmatched, conflicts = lx.match_devices(root, [], interfaces)
    assert pairs[0][2]['mac'] == '52:54:00:31:35:5b'
    assert unmatched and unmatched[0][1]['kind'] == 'hostdev'


def test_plan_attach_on_bare_domain():
    root = lx.parse_domain(fixture('g1-inactive-bare.xml'))
    ops = lx.plan(root, hostdev_spec(), iface_spec(), 'present')
    assert [(op['action'], op['key']) for op in ops] == [
        ('attach', ('hostdev', 0x605)),
        ('attach', ('interface', 'hs32k_0', '12:34:56:78:9a:bc')),
    ]
    assert shape(ET.fromstring(ops[0]['xml'])) == shape(ET.fromstring(STUDY_HOSTDEV))


def test_memballoon_ccw_address_is_not_a_managed_device():
    root = lx.parse_domain(fixture('g1-inactive-bare.xml'))
    assert lx.managed_devices(root) == []
    assert lx.plan(root, [], [], 'exact') == []


def test_changed_hostdev_is_replaced_keeping_guest_address():
    root = lx.parse_domain(fixture('g1-inactive-study.xml'))
    ops = lx.plan(root, hostdev_spec(uid=0x42, managed=False), [], 'present')
    assert [(op['action'], op['fields']) for op in ops] == [('replace', ['uid', 'managed'])]
    new = ET.fromstring(ops[0]['xml'])
    assert new.get('managed') == 'no'
    addr = new.find('address')
    assert addr.get('slot') == '0x01' and addr.find('zpci').get('uid') == '0x0042'
    assert addr.find('zpci').get('fid') == '0x00000605'


def test_changed_interface_is_updated_keeping_mac_and_ccw_address():
    root = lx.parse_domain(fixture('g1-live-paused.xml'))
    ops = lx.plan(root, [], iface_spec(mode='vepa', driver='qemu'), 'present')
    assert [(op['action'], op['fields']) for op in ops] == [('update', ['mode', 'driver'])]
    new = ET.fromstring(ops[0]['xml'])
    assert new.find('mac').get('address') == '12:34:56:78:9a:bc'
    assert new.find('address').get('devno') == '0x0001'
    assert new.find('source').get('mode') == 'vepa' and new.find('driver').get('name') == 'qemu'
    assert new.find('alias') is None


def test_interface_missing_model_and_driver_gets_them_before_address():
    root = lx.parse_domain("""<domain><devices><interface type='direct'><mac address='02:00:00:00:00:01'/>
      <source dev='enc8200'/><address type='ccw' cssid='0xfe' ssid='0x0' devno='0x0003'/></interface>
      </devices></domain>""")
    desc = lx.managed_devices(root)[0][1]
    assert desc['mode'] == 'vepa' and desc['model'] is None
    ops = lx.plan(root, [], lx.interfaces_from_params([{'source': 'enc8200'}], 'present'), 'present')
    assert ops[0]['fields'] == ['mode', 'model', 'driver']
    assert [child.tag for child in ET.fromstring(ops[0]['xml'])] == ['mac', 'source', 'model', 'driver', 'address']


def test_exact_detaches_unlisted_hostdevs_and_direct_interfaces_only():
    root = lx.parse_domain(fixture('g1-inactive-generated-mac.xml'))
    ops = lx.plan(root, [], iface_spec(), 'exact')
    assert [(op['action'], op['key']) for op in ops] == [
        ('detach', ('interface', 'enc8200', '52:54:00:31:35:5b')),
        ('detach', ('hostdev', 0x605)),
    ]
    # the detach XML is libvirt's own element (with address, so libvirt finds exactly that one)
    detach = ET.fromstring(ops[0]['xml'])
    assert detach.find('address').get('devno') == '0x0002'


def test_absent_by_fid_and_by_source():
    root = lx.parse_domain(fixture('g1-inactive-generated-mac.xml'))
    hostdevs = lx.hostdevs_from_params([{'fid': '0x605'}], 'absent')
    interfaces = lx.interfaces_from_params([{'source': 'enc8200'}], 'absent')
    ops = lx.plan(root, hostdevs, interfaces, 'absent')
    assert sorted(op['key'] for op in ops) == [('hostdev', 0x605), ('interface', 'enc8200', '52:54:00:31:35:5b')]
    # MAC given: only that interface
    interfaces = lx.interfaces_from_params([{'source': 'hs32k_0', 'mac': '02:00:00:00:00:09'}], 'absent')
    assert lx.plan(root, [], interfaces, 'absent') == []
    # nothing there: nothing to do
    bare = lx.parse_domain(fixture('g1-inactive-bare.xml'))
    assert lx.plan(bare, hostdevs, interfaces, 'absent') == []


def test_mac_on_another_source_conflicts_unless_exact():
    root = lx.parse_domain(fixture('g1-inactive-study.xml'))
    moved = iface_spec(source='enc8200')
    with pytest.raises(lx.DeviceSpecError) as err:
        lx.plan(root, [], moved, 'present')
    assert 'interfaces[0].mac' in str(err.value) and 'hs32k_0' in str(err.value)
    ops = lx.plan(root, hostdev_spec(), moved, 'exact')
    assert [op['action'] for op in ops] == ['detach', 'attach']


def test_portable_leaves_out_guest_addresses_but_keeps_zpci():
    live = lx.parse_domain(fixture('g1-live-paused.xml'))
    iface = lx.managed_devices(live)[0][0]
    assert iface.find('target') is not None and iface.find('alias') is not None
    text = lx.to_text(lx.portable(iface))
    assert [child.tag for child in ET.fromstring(text)] == ['mac', 'source', 'model', 'driver']
    hostdev = [
        e for e, d in lx.managed_devices(lx.parse_domain(fixture('g1-inactive-study.xml'))) if d['kind'] == 'hostdev'
    ][0]
    address = lx.portable(hostdev).find('address')
    assert address.attrib == {'type': 'pci'}
    assert [(c.tag, c.attrib) for c in address] == [('zpci', {'uid': '0x0605', 'fid': '0x00000605'})]
    assert hostdev.find('address').get('slot') == '0x01'  # the input is not modified


# --- simulation and uniqueness ---------------------------------------------------------------------


def test_simulate_attach_then_plan_is_empty():
    root = lx.parse_domain(fixture('g1-inactive-bare.xml'))
    hostdevs, interfaces = hostdev_spec(), iface_spec()
    after = lx.simulate(root, lx.plan(root, hostdevs, interfaces, 'present'))
    assert lx.plan(after, hostdevs, interfaces, 'present') == []
    assert lx.managed_devices(root) == []  # the input is not modified


def test_simulate_replace_and_detach():
    root = lx.parse_domain(fixture('g1-inactive-generated-mac.xml'))
    ops = lx.plan(root, hostdev_spec(uid=0x700), [], 'exact')
    after = lx.simulate(root, ops)
    descs = [desc for element, desc in lx.managed_devices(after)]
    assert descs == [{'kind': 'hostdev', 'fid': 0x605, 'uid': 0x700, 'address': (0x605, 0, 0, 0), 'managed': True}]


def test_check_unique_finds_uid_fid_address_and_mac_collisions():
    root = lx.parse_domain(fixture('g1-inactive-study.xml'))
    assert lx.check_unique(root, 'g1') == []
    # a second hostdev with a new fid but uid 0x605 (libvirt: "zPCI uid 3005 is already reserved")
    other = lx.hostdevs_from_params([{'fid': 0x606, 'uid': 0x605, 'address': '0606:00:00.0'}], 'present')
    after = lx.simulate(root, lx.plan(root, other, [], 'present'))
    errors = lx.check_unique(after, 'g1')
    assert len(errors) == 1 and 'uid 0x0605 is used twice in g1' in errors[0]
    same_source = lx.hostdevs_from_params([{'fid': 0x607, 'address': '0605:00:00.0'}], 'present')
    after = lx.simulate(root, lx.plan(root, same_source, [], 'present'))
    assert any('0605:00:00.0 is passed through twice' in e for e in lx.check_unique(after, 'g1'))
    # zpci of a non-hostdev PCI device counts too
    text = fixture('g1-inactive-study.xml').replace(
        "<panic model='s390'/>",
        "<rng model='virtio'><backend model='random'>/dev/urandom</backend>"
        "<address type='pci' domain='0x0000' bus='0x00' slot='0x02' function='0x0'>"
        "<zpci uid='0x0605' fid='0x00000001'/></address></rng><panic model='s390'/>",
    )
    assert any('uid 0x0605' in e and 'rng' in e for e in lx.check_unique(lx.parse_domain(text), 'g1'))


def test_foreign_owner_named():
    g2 = lx.parse_domain(fixture('g1-inactive-study.xml').replace('<name>g1</name>', '<name>g2</name>'))
    wanted = hostdev_spec()
    wanted[0]['address'] = (0x605, 0, 0, 0)
    errors = lx.foreign_owners(wanted, [('g2', g2)])
    assert errors == [
        'hostdevs[0].fid: FID 0x00000605 is already given to domain g2; a FID can belong to one domain only'
    ]
    # same host function under another guest fid
    other = lx.hostdevs_from_params([{'fid': 0x777, 'address': '0605:00:00.0'}], 'present')
    other[0]['address'] = (0x605, 0, 0, 0)
    assert 'already passed through to domain g2' in lx.foreign_owners(other, [('g2', g2)])[0]
    assert lx.foreign_owners(lx.hostdevs_from_params([{'fid': 0x606}], 'present'), [('g2', g2)]) == []


# --- text --------------------------------------------------------------------------------------------


def test_to_text_is_canonical_for_libvirt_and_our_layout():
    root = lx.parse_domain(fixture('g1-inactive-study.xml'))
    text = lx.to_text(root)
    assert lx.to_text(lx.parse_domain(text)) == text
    assert '\n    <hostdev mode="subsystem" type="pci" managed="yes">\n      <source>' in text


def test_unified_diff_shows_only_the_device():
    before = lx.parse_domain(fixture('g1-inactive-bare.xml'))
    after = lx.simulate(before, lx.plan(before, hostdev_spec(), [], 'present'))
    diff = lx.unified_diff(lx.to_text(before), lx.to_text(after), 'domain g1')
    added = [line for line in diff.splitlines() if line.startswith('+') and not line.startswith('+++')]
    removed = [line for line in diff.splitlines() if line.startswith('-') and not line.startswith('---')]
    assert removed == []
    assert added[0][1:].strip() == '<hostdev mode="subsystem" type="pci" managed="yes">'
    assert any('zpci uid="0x0605" fid="0x00000605"' in line for line in added)
    assert diff.startswith('--- domain g1 (before)\n+++ domain g1 (after)\n')
    assert lx.unified_diff('a\n', 'a\n', 'x') == ''


def test_parse_domain_errors():
    with pytest.raises(lx.DomainXMLError):
        lx.parse_domain('<domain>')
    with pytest.raises(lx.DomainXMLError):
        lx.parse_domain('<network/>')


@pytest.mark.parametrize(
    'uri, reason',
    [
        ('qemu:///sys\x00tem', 'no blanks or control characters'),
        ('qemu:///system\u0085', 'no blanks or control characters'),
        ('qemu+ext:///system?command=/bin/id', 'transport ext (it runs the program of its command parameter)'),
        ('qemu+ssh://h/system?name=qemu+ext:///system', 'parameter name; allowed: mode, no_tty, sshauth'),
        ('qemu+ssh://h/system?no_tty', "query 'no_tty' is not PARAM=VALUE"),
        ('qemu+tls://h/system?sshauth=agent', 'sshauth is a parameter of the libssh and libssh2 transports'),
        ('qemu+ssh://h./system', "host 'h.' is not a DNS name"),
        ('qemu+ssh://h:22:23/system', "port '22:23'"),
        ('qemu:/system', 'it is not DRIVER[+TRANSPORT]://'),
    ],
)
def test_uri_allowlist_reasons(uri, reason):
    problem = lx.uri_problem(uri)
    assert problem is not None and reason in problem


@pytest.mark.parametrize(
    'uri', ['qemu:///system', 'qemu+ssh://root@h:22/system?no_tty=1&mode=direct', 'qemu+libssh://h/session', 'my-alias']
)
def test_uri_allowlist_accepts(uri):
    assert lx.uri_problem(uri) is None
