# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Pure domain-XML logic for zPCI hostdevs and MacVTap (direct) interfaces.

Everything here works on strings and xml.etree.ElementTree elements only: no libvirt, no sysfs.
It builds the device XML of the IBM study (hostdev with <zpci uid fid>, interface type='direct'),
normalises what libvirt's ``dumpxml`` prints for those devices (libvirt 9.0 wraps <zpci> in an
``<address type='pci' domain= bus= slot= function=>``, gives interfaces a ccw address, a generated
MAC and, while running, an alias and a target dev), keys devices (hostdev: guest FID; interface:
source netdev + MAC), plans attach/detach/update operations, simulates them for check mode and
renders a unified diff.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import difflib
import ipaddress
import re
import sys
import xml.etree.ElementTree as ET

from ansible_collections.s390x.network.plugins.module_utils.ip import ifname as ip_ifname
from ansible_collections.s390x.network.plugins.module_utils.zpci.pci_ids import FID_MAX, parse_hex_id

HOSTDEV = 'hostdev'
INTERFACE = 'interface'

UID_MIN = 0x0001
UID_MAX = 0xFFFF
FID_MIN = 0

MACVTAP_MODES = ('bridge', 'vepa', 'private', 'passthrough')
#: function types a hostdev may name (the pft names of zpci.sysfs.PFT_NAMES that are passed through)
HOSTDEV_TYPES = ('ISM', 'ROCE', 'ROC2', 'NETH', 'NETD')
INTERFACE_DRIVERS = ('vhost', 'qemu')
STATES = ('present', 'absent', 'exact')

_MAC_RE = re.compile(r'[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}')
_PCI_RE = re.compile(r'(?:([0-9a-fA-F]{1,8}):)?([0-9a-fA-F]{1,2}):([0-9a-fA-F]{1,2})\.([0-7])')
_MODEL_RE = re.compile(r'[A-Za-z0-9_.-]+')
# libvirt keeps a domain's definition and state in files named after it (<name>.xml, .log, .pid);
# a file name has at most NAME_MAX = 255 bytes
DOMAIN_NAME_MAX_BYTES = 255 - len('.xml')

# Namespaces that appear in real domain XML, registered so that serialised text stays readable.
for _prefix, _uri in (
    ('qemu', 'http://libvirt.org/schemas/domain/qemu/1.0'),
    ('libosinfo', 'http://libosinfo.org/xmlns/libvirt/domain/1.0'),
):
    ET.register_namespace(_prefix, _uri)


class DeviceSpecError(ValueError):
    """Bad device input; the message names the field and the allowed values."""


class DomainXMLError(ValueError):
    """The domain XML cannot be parsed or is inconsistent (e.g. duplicate uid/fid)."""


# ---------------------------------------------------------------------------------------------
# scalar parsing and formatting


def parse_number(value, field, minimum, maximum):
    """An int, or a string that is hexadecimal (``0x605`` or ``605``: FIDs/UIDs are hex by habit).

    YAML already turns an unquoted ``0x605`` into the int 1541, so strings are read as hex only.
    """
    try:
        return parse_hex_id(value, maximum, minimum)
    except ValueError as exc:
        raise DeviceSpecError('%s: %s' % (field, exc))


def _attr_int(text):
    """libvirt attribute value (``0x0605``, ``0x00000605``, ``5``) -> int, None when unparsable."""
    if text is None:
        return None
    text = text.strip().lower()
    try:
        if text.startswith('0x'):
            return int(text[2:], 16)
        return int(text, 10)
    except ValueError:
        return None


def format_uid(uid):
    return '0x%04x' % uid


def format_fid(fid):
    return '0x%08x' % fid


def parse_pci_address(value, field):
    """``0605:00:00.0`` (domain may be omitted: 0) -> (domain, bus, slot, function)."""
    if not isinstance(value, str):
        raise DeviceSpecError('%s: expected a PCI address such as 0605:00:00.0, got %r' % (field, value))
    match = _PCI_RE.fullmatch(value)
    if not match:
        raise DeviceSpecError('%s: %r is not a PCI address DDDD:BB:SS.F such as 0605:00:00.0' % (field, value))
    domain = int(match.group(1), 16) if match.group(1) else 0
    if domain > 0xFFFF:
        raise DeviceSpecError('%s: PCI domain 0x%x is above 0xffff' % (field, domain))
    slot = int(match.group(3), 16)
    if slot > 0x1F:
        raise DeviceSpecError('%s: PCI slot 0x%x is above 0x1f' % (field, slot))
    return (domain, int(match.group(2), 16), slot, int(match.group(4)))


def format_pci_address(address):
    if address is None:
        return None
    return '%04x:%02x:%02x.%x' % address


def normalize_mac(value, field):
    if not isinstance(value, str) or not _MAC_RE.fullmatch(value):
        raise DeviceSpecError('%s: %r is not a MAC address like 12:34:56:78:9a:bc' % (field, value))
    mac = value.strip().lower()
    if int(mac[:2], 16) & 1:
        raise DeviceSpecError(
            '%s: %s is a multicast address; a guest NIC needs a unicast MAC (first octet even)' % (field, mac)
        )
    if mac == '00:00:00:00:00:00':
        raise DeviceSpecError('%s: 00:00:00:00:00:00 is not usable' % field)
    return mac


def domain_name_problem(name):
    """Why ``name`` cannot be a libvirt domain name; None when it can.

    libvirt refuses a name with "/" (VIR_DOMAIN_DEF_FEATURE_NAME_SLASH, unsupported by the QEMU
    driver) and one with a newline when a domain is defined; XML cannot carry other control
    characters; the definition is kept in the file <name>.xml.
    """
    if not isinstance(name, str) or not name.strip():
        return 'the name is empty'
    if any(c == '/' or ord(c) < 32 or ord(c) == 127 for c in name):
        return '%r is not a libvirt domain name (no "/" and no control characters)' % name
    size = len(name.encode('utf-8'))
    if size > DOMAIN_NAME_MAX_BYTES:
        return (
            'the name has %d bytes; a libvirt domain name has at most %d (libvirt keeps the definition '
            'in the file <name>.xml)' % (size, DOMAIN_NAME_MAX_BYTES)
        )
    return None


#: the hypervisor driver this module works with (KVM on IBM Z)
URI_DRIVERS = ('qemu',)
#: transports that open a socket (local, SSH, TLS, TCP); never ``ext`` (runs the program of its
#: ``command`` parameter)
URI_TRANSPORTS = ('unix', 'ssh', 'libssh', 'libssh2', 'tls', 'tcp')
#: the QEMU driver's instances (``/embed`` starts an in-process driver on a directory: refused)
URI_PATHS = ('/system', '/session')
#: query parameters and their values; every other one is refused, among them ``command`` (ext),
#: ``netcat`` and ``socket`` (a program and a path on the remote host), ``keyfile``,
#: ``known_hosts`` and ``pkipath`` (local files), ``proxy``, ``no_verify`` and ``name``
URI_PARAMS = {
    'mode': ('auto', 'legacy', 'direct'),
    'no_tty': ('0', '1'),
}
URI_SSHAUTH = ('agent', 'privkey', 'password', 'keyboard-interactive')
URI_EXAMPLES = 'qemu:///system, qemu:///session, qemu+ssh://[USER@]HOST[:PORT]/system, qemu+tls://HOST/system'
_URI_ALIAS_RE = re.compile(r'[A-Za-z0-9_][A-Za-z0-9_-]{0,63}')
_URI_RE = re.compile(
    r'(?P<driver>[a-z0-9]+)(?:\+(?P<transport>[a-z0-9]+))?://'
    r'(?:(?P<user>[^@/?]*)@)?(?P<host>\[[^\]/?]*\]|[^:/?]*)(?::(?P<port>[^/?]*))?'
    r'(?P<path>/[^?]*)(?:\?(?P<query>.*))?'
)
_URI_USER_RE = re.compile(r'[A-Za-z0-9_][A-Za-z0-9_.-]{0,31}')
_HOST_LABEL = r'[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?'
_URI_HOST_RE = re.compile(r'%s(?:\.%s)*' % (_HOST_LABEL, _HOST_LABEL))
_URI_PORT_RE = re.compile(r'[1-9][0-9]{0,4}')


def uri_problem(uri):
    """Why ``uri`` cannot be the libvirt connection URI of this module; None when it can.

    An allowlist, checked before libvirt is opened (libvirt runs programs for some URIs while it
    opens them): driver ``qemu``; no transport (local, or TLS to a host), ``unix`` (local) or one of
    ``ssh``, ``libssh``, ``libssh2``, ``tls``, ``tcp`` to a host; path ``/system`` or
    ``/session``; only the query parameters of URI_PARAMS and ``sshauth``. User names are
    ``[A-Za-z0-9_][A-Za-z0-9_.-]*`` (no leading ``-``), hosts are DNS names, IPv4 addresses or
    bracketed IPv6 addresses, ports 1..65535; no percent-encoding, fragment or other character.
    A URI alias of the libvirt client configuration (``uri_aliases`` of libvirt.conf, letters,
    digits, ``_`` and ``-``) is accepted as well: the administrator of the host defines what it
    stands for.
    """
    if not isinstance(uri, str) or not uri:
        return '%r is not a libvirt connection URI (such as %s) or URI alias' % (uri, URI_EXAMPLES)
    if any(c.isspace() or ord(c) < 32 or 127 <= ord(c) < 160 for c in uri):
        return (
            '%r is not a libvirt connection URI (such as %s) or URI alias: not empty, no blanks or control '
            'characters' % (uri, URI_EXAMPLES)
        )
    if ':' not in uri:
        if _URI_ALIAS_RE.fullmatch(uri):
            return None
        return '%r is not a libvirt URI alias (letters, digits, _ and -, at most 64) nor a URI such as %s' % (
            uri,
            URI_EXAMPLES,
        )
    reason = _uri_reason(uri)
    if reason is None:
        return None
    return '%r is not an allowed libvirt connection URI: %s (allowed: %s)' % (uri, reason, URI_EXAMPLES)


def _uri_reason(uri):
    bad = sorted(set(c for c in uri if not (c.isalnum() and ord(c) < 128) and c not in '+:/@.[]_-?=&,'))
    if bad:
        return 'the character%s %s %s not allowed (no percent-encoding, fragments or quoting)' % (
            '' if len(bad) == 1 else 's',
            ' '.join(repr(c) for c in bad),
            'is' if len(bad) == 1 else 'are',
        )
    match = _URI_RE.fullmatch(uri)
    if not match:
        return 'it is not DRIVER[+TRANSPORT]://[[USER@]HOST[:PORT]]/PATH[?PARAM=VALUE&...]'
    driver, transport = match.group('driver'), match.group('transport')
    user, host, port = match.group('user'), match.group('host'), match.group('port')
    if driver not in URI_DRIVERS:
        return 'driver %s; allowed: %s' % (driver, ', '.join(URI_DRIVERS))
    if transport is not None and transport not in URI_TRANSPORTS:
        return 'transport %s%s; allowed: none, %s' % (
            transport,
            ' (it runs the program of its command parameter)' if transport == 'ext' else '',
            ', '.join(URI_TRANSPORTS),
        )
    local = transport == 'unix' or (transport is None and not host)
    if local and (user is not None or host or port is not None):
        return 'a local connection (no transport, or unix) names no user, host or port'
    if not local:
        reason = _uri_host_reason(user, host, port)
        if reason:
            return reason
    if match.group('path') not in URI_PATHS:
        return 'path %s; allowed: %s' % (match.group('path'), ', '.join(URI_PATHS))
    query = match.group('query')
    if query is not None:
        seen = set()
        for item in query.split('&'):
            name, equals, value = item.partition('=')
            if name in seen:
                return 'the parameter %s is given twice' % name
            seen.add(name)
            reason = _uri_param_reason(name, value if equals else None, transport)
            if reason:
                return reason
    return None


def _uri_host_reason(user, host, port):
    if not host:
        return 'a remote transport needs a host'
    if user is not None and not _URI_USER_RE.fullmatch(user):
        return 'user %r: letters, digits, _ . - (not first), at most 32' % user
    if host.startswith('['):
        try:
            ipaddress.IPv6Address(host[1:-1])
        except ValueError:
            return 'host %s is not an IPv6 address in brackets' % host
    elif not _URI_HOST_RE.fullmatch(host) or len(host) > 253:
        return 'host %r is not a DNS name or IPv4 address' % host
    if port is not None and not (_URI_PORT_RE.fullmatch(port) and int(port) <= 65535):
        return 'port %r is not 1..65535' % port
    return None


def _uri_param_reason(name, value, transport):
    allowed = sorted(list(URI_PARAMS) + ['sshauth'])
    if name not in allowed:
        return 'parameter %s; allowed: %s' % (name, ', '.join(allowed))
    if value is None:
        return 'query %r is not PARAM=VALUE' % name
    if name == 'sshauth':
        if transport not in ('libssh', 'libssh2'):
            return 'sshauth is a parameter of the libssh and libssh2 transports'
        if any(method not in URI_SSHAUTH for method in value.split(',')):
            return 'sshauth %r; allowed: a comma list of %s' % (value, ', '.join(URI_SSHAUTH))
        return None
    if value not in URI_PARAMS[name]:
        return 'parameter %s=%s; allowed values: %s' % (name, value, ', '.join(URI_PARAMS[name]))
    return None


# ---------------------------------------------------------------------------------------------
# desired devices from module parameters


def _collect(errors, parse, *args):
    """``parse(*args)``; a DeviceSpecError goes to ``errors`` and gives None."""
    try:
        return parse(*args)
    except DeviceSpecError as exc:
        errors.append(str(exc))
        return None


def hostdevs_from_params(items, state):
    """Validate and complete the ``hostdevs`` option. Returns a list of dicts.

    Each dict: fid, uid, address (tuple or None = resolve on the host), managed, type (the
    function type the host must show, None: ISM or RoCE or Network Express). Raises
    DeviceSpecError naming every problem of every item (separated by ``; ``).
    """
    result = []
    errors = []
    seen_fid = {}
    seen_uid = {}
    seen_addr = {}
    for index, item in enumerate(items or []):
        where = 'hostdevs[%d]' % index
        if not isinstance(item, dict):
            errors.append('%s: expected a dict with fid, uid, address, managed' % where)
            continue
        if item.get('fid') is None:
            errors.append('%s.fid: required (the FID, e.g. 0x605)' % where)
            continue
        problems = []
        fid = _collect(problems, parse_number, item['fid'], where + '.fid', FID_MIN, FID_MAX)
        uid = None
        if item.get('uid') is not None:
            uid = _collect(problems, parse_number, item['uid'], where + '.uid', UID_MIN, UID_MAX)
        elif state != 'absent':
            if fid is not None and not UID_MIN <= fid <= UID_MAX:
                problems.append('%s.uid: required because fid 0x%x does not fit a uid (0x0001..0xffff)' % (where, fid))
            else:
                uid = fid
        address = None
        if item.get('address') is not None:
            address = _collect(problems, parse_pci_address, item['address'], where + '.address')
        managed = item.get('managed')
        managed = True if managed is None else bool(managed)
        ftype = item.get('type')
        if ftype is not None and ftype not in HOSTDEV_TYPES:
            problems.append('%s.type: %r is not one of %s' % (where, ftype, ', '.join(HOSTDEV_TYPES)))
        if fid is not None:
            if fid in seen_fid:
                problems.append(
                    '%s.fid: 0x%x is also given in %s; a FID can be passed through once' % (where, fid, seen_fid[fid])
                )
            seen_fid.setdefault(fid, where)
        if uid is not None:
            if uid in seen_uid:
                problems.append(
                    '%s.uid: 0x%04x is also used by %s; uids are unique per domain' % (where, uid, seen_uid[uid])
                )
            seen_uid.setdefault(uid, where)
        if address is not None:
            if address in seen_addr:
                problems.append(
                    '%s.address: %s is also given in %s' % (where, format_pci_address(address), seen_addr[address])
                )
            seen_addr.setdefault(address, where)
        errors.extend(problems)
        if not problems:
            result.append(
                {
                    'kind': HOSTDEV,
                    'fid': fid,
                    'uid': uid,
                    'address': address,
                    'managed': managed,
                    'type': ftype,
                    'param': where,
                }
            )
    if errors:
        raise DeviceSpecError('; '.join(errors))
    return result


def netdev_name_problem(source):
    """Why ``source`` cannot be a network interface name (ip_ifname: the kernel's dev_valid_name,
    without control or format characters, which domain XML cannot carry either); None when it can."""
    return ip_ifname.ifname_problem(source)


def interfaces_from_params(items, state):
    """Validate and complete the ``interfaces`` option. Returns a list of dicts.

    Each dict: source, mode, mac (None = keep the existing one / let libvirt generate), model, driver.
    Raises DeviceSpecError naming every problem of every item (separated by ``; ``).
    """
    result = []
    errors = []
    seen_mac = {}
    for index, item in enumerate(items or []):
        where = 'interfaces[%d]' % index
        if not isinstance(item, dict):
            errors.append('%s: expected a dict with source, mode, mac, model, driver' % where)
            continue
        problems = []
        source = item.get('source')
        problem = netdev_name_problem(source)
        if problem:
            problems.append('%s.source: %s' % (where, problem))
        mode = item.get('mode') or 'bridge'
        if mode not in MACVTAP_MODES:
            problems.append('%s.mode: %r is not one of %s' % (where, mode, ', '.join(MACVTAP_MODES)))
        mac = None
        if item.get('mac') is not None:
            mac = _collect(problems, normalize_mac, item['mac'], where + '.mac')
            if mac is not None and mac in seen_mac:
                problems.append('%s.mac: %s is also given in %s' % (where, mac, seen_mac[mac]))
            if mac is not None:
                seen_mac.setdefault(mac, where)
        model = item.get('model') or 'virtio'
        if not isinstance(model, str) or not _MODEL_RE.fullmatch(model):
            problems.append(
                '%s.model: %r is not a libvirt NIC model name such as virtio (letters, digits, _ . -)' % (where, model)
            )
        driver = item.get('driver') or 'vhost'
        if driver not in INTERFACE_DRIVERS:
            problems.append('%s.driver: %r is not one of %s' % (where, driver, ', '.join(INTERFACE_DRIVERS)))
        errors.extend(problems)
        if not problems:
            result.append(
                {
                    'kind': INTERFACE,
                    'source': source,
                    'mode': mode,
                    'mac': mac,
                    'model': model,
                    'driver': driver,
                    'param': where,
                }
            )
    if errors:
        raise DeviceSpecError('; '.join(errors))
    return result


# ---------------------------------------------------------------------------------------------
# building device XML (the study's shapes, chapters 6.1.3 and 6.2.2.4)


def build_hostdev(spec):
    """<hostdev mode='subsystem' type='pci' managed='yes'> with source address and <zpci uid fid>."""
    if spec.get('address') is None:
        raise DeviceSpecError(
            '%s.address: the host PCI address of fid 0x%x is not known' % (spec.get('param', 'hostdev'), spec['fid'])
        )
    domain, bus, slot, function = spec['address']
    hostdev = ET.Element('hostdev', {'mode': 'subsystem', 'type': 'pci', 'managed': 'yes' if spec['managed'] else 'no'})
    source = ET.SubElement(hostdev, 'source')
    ET.SubElement(
        source,
        'address',
        {'domain': '0x%04x' % domain, 'bus': '0x%02x' % bus, 'slot': '0x%02x' % slot, 'function': '0x%x' % function},
    )
    address = ET.SubElement(hostdev, 'address', {'type': 'pci'})
    ET.SubElement(address, 'zpci', {'uid': format_uid(spec['uid']), 'fid': format_fid(spec['fid'])})
    return hostdev


def build_interface(spec):
    """<interface type='direct'> with mac (when given), source dev/mode, model and driver."""
    interface = ET.Element('interface', {'type': 'direct'})
    if spec.get('mac'):
        ET.SubElement(interface, 'mac', {'address': spec['mac']})
    ET.SubElement(interface, 'source', {'dev': spec['source'], 'mode': spec['mode']})
    ET.SubElement(interface, 'model', {'type': spec['model']})
    ET.SubElement(interface, 'driver', {'name': spec['driver']})
    return interface


def build_device(spec):
    return build_hostdev(spec) if spec['kind'] == HOSTDEV else build_interface(spec)


# ---------------------------------------------------------------------------------------------
# reading domain XML


def parse_domain(text):
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise DomainXMLError('cannot parse domain XML: %s' % exc)
    if root.tag != 'domain':
        raise DomainXMLError('expected a <domain> document, got <%s>' % root.tag)
    return root


def devices_element(root):
    devices = root.find('devices')
    if devices is None:
        devices = ET.SubElement(root, 'devices')
    return devices


def _zpci_of(element):
    zpci = element.find('address/zpci')
    if zpci is None:
        return None, None
    return _attr_int(zpci.get('uid')), _attr_int(zpci.get('fid'))


def describe_hostdev(element):
    """Normalised view of a PCI hostdev (None for other hostdevs).

    Compared fields: fid, uid (from <address type='pci'><zpci/>), host source address, managed.
    Ignored: the guest PCI address libvirt assigns, alias, driver, rom, boot order.
    """
    if element.tag != 'hostdev' or element.get('mode', 'subsystem') != 'subsystem' or element.get('type') != 'pci':
        return None
    uid, fid = _zpci_of(element)
    address = None
    src = element.find('source/address')
    if src is not None:
        parts = [_attr_int(src.get(name, '0')) for name in ('domain', 'bus', 'slot', 'function')]
        if None not in parts:
            address = tuple(parts)
    return {
        'kind': HOSTDEV,
        'fid': fid,
        'uid': uid,
        'address': address,
        'managed': element.get('managed', 'no') == 'yes',
    }


def describe_interface(element):
    """Normalised view of a direct (MacVTap) interface (None for other interfaces).

    Compared fields: source dev, source mode, MAC, model type, driver name.
    Ignored: ccw/pci address, alias, target dev (macvtapN while running).
    """
    if element.tag != 'interface' or element.get('type') != 'direct':
        return None
    source = element.find('source')
    mac = element.find('mac')
    model = element.find('model')
    driver = element.find('driver')
    return {
        'kind': INTERFACE,
        'source': source.get('dev') if source is not None else None,
        # libvirt's default for a direct interface without mode is vepa
        'mode': (source.get('mode') if source is not None else None) or 'vepa',
        'mac': mac.get('address').lower() if mac is not None and mac.get('address') else None,
        'model': model.get('type') if model is not None else None,
        'driver': driver.get('name') if driver is not None else None,
    }


def managed_devices(root):
    """[(element, description)] of the domain's PCI hostdevs and direct interfaces, in order."""
    result = []
    for element in list(devices_element(root)):
        desc = describe_hostdev(element) if element.tag == 'hostdev' else describe_interface(element)
        if desc is not None:
            result.append((element, desc))
    return result


def hostdev_address(root, fid):
    """The host PCI address of the domain's hostdev for ``fid`` (a tuple), or None."""
    for dummy, desc in managed_devices(root):
        if desc['kind'] == HOSTDEV and desc['fid'] == fid and desc['address'] is not None:
            return desc['address']
    return None


def find_device(root, key):
    """The description of the domain's managed device with ``key`` (see device_key), or None."""
    for dummy, desc in managed_devices(root):
        if device_key(desc) == key:
            return desc
    return None


def device_key(desc):
    if desc['kind'] == HOSTDEV:
        return (HOSTDEV, desc['fid'])
    return (INTERFACE, desc['source'], desc['mac'])


def key_text(key):
    if key[0] == HOSTDEV:
        return 'hostdev fid %s' % (format_fid(key[1]) if key[1] is not None else '(none)')
    if key[2]:
        return 'interface %s mac %s' % (key[1], key[2])
    return 'interface %s' % key[1]


def public_view(desc):
    """A description as returned to the user (addresses as text, no internal keys)."""
    if desc['kind'] == HOSTDEV:
        return {
            'kind': HOSTDEV,
            'fid': desc['fid'],
            'uid': desc['uid'],
            'address': format_pci_address(desc['address']),
            'managed': desc['managed'],
        }
    return {
        'kind': INTERFACE,
        'source': desc['source'],
        'mode': desc['mode'],
        'mac': desc['mac'],
        'model': desc['model'],
        'driver': desc['driver'],
    }


# ---------------------------------------------------------------------------------------------
# planning


def _hostdev_differences(desired, current):
    diffs = []
    if desired['uid'] != current['uid']:
        diffs.append('uid')
    if desired['address'] != current['address']:
        diffs.append('address')
    if desired['managed'] != current['managed']:
        diffs.append('managed')
    return diffs


def _interface_differences(desired, current):
    return [name for name in ('mode', 'model', 'driver') if desired[name] != current[name]]


def _patched_hostdev(element, desired):
    """A copy of an existing hostdev with the desired fields (keeps libvirt's guest address)."""
    new = copy.deepcopy(element)
    new.set('managed', 'yes' if desired['managed'] else 'no')
    source = new.find('source')
    if source is None:
        source = ET.SubElement(new, 'source')
    src = source.find('address')
    if src is None:
        src = ET.SubElement(source, 'address')
    domain, bus, slot, function = desired['address']
    src.attrib.clear()
    src.attrib.update(
        {'domain': '0x%04x' % domain, 'bus': '0x%02x' % bus, 'slot': '0x%02x' % slot, 'function': '0x%x' % function}
    )
    zpci = new.find('address/zpci')
    if zpci is None:
        address = new.find('address')
        if address is None:
            address = ET.SubElement(new, 'address', {'type': 'pci'})
        zpci = ET.SubElement(address, 'zpci')
    zpci.set('uid', format_uid(desired['uid']))
    zpci.set('fid', format_fid(desired['fid']))
    for alias in new.findall('alias'):
        new.remove(alias)
    return new


def _patched_interface(element, desired):
    """A copy of an existing interface with mode, model and driver name set (keeps MAC, address)."""
    new = copy.deepcopy(element)
    new.find('source').set('mode', desired['mode'])
    for name, attr in (('model', 'type'), ('driver', 'name')):
        child = new.find(name)
        if child is None:
            child = ET.Element(name)
            # libvirt's order: mac, source, target, model, driver, alias, address
            anchor = [c for c in list(new) if c.tag in ('alias', 'address', 'rom', 'boot')]
            if anchor:
                new.insert(list(new).index(anchor[0]), child)
            else:
                new.append(child)
        child.set(attr, desired[name])
    for alias in new.findall('alias'):
        new.remove(alias)
    return new


def strip_live_only(element):
    """Device XML as sent back to libvirt: without alias (it names a live-only identity)."""
    new = copy.deepcopy(element)
    for alias in new.findall('alias'):
        new.remove(alias)
    return new


def portable(element):
    """Device XML for one libvirt call that changes the definition and the running domain together.

    The definition and the running domain may have given the device different guest addresses
    (a ccw devno, a PCI slot), so the address is left out: libvirt then finds an interface by its
    MAC and a hostdev by its host source address, and picks a free guest address when attaching.
    A hostdev keeps ``<address type='pci'><zpci uid fid/></address>``.
    """
    new = strip_live_only(element)
    for address in new.findall('address'):
        zpci = address.find('zpci')
        if new.tag == 'hostdev' and zpci is not None:
            address.attrib.clear()
            address.set('type', 'pci')
            for child in list(address):
                if child is not zpci:
                    address.remove(child)
        else:
            new.remove(address)
    for target in new.findall('target'):
        new.remove(target)
    return new


def _op(action, desc, xml_element, current=None, fields=None):
    return {
        'action': action,
        'kind': desc['kind'],
        'key': device_key(desc),
        'device': public_view(desc),
        'xml': to_text(xml_element),
        'element': xml_element,
        'current': current,
        'fields': fields or [],
    }


def match_devices(root, hostdevs, interfaces):
    """Pair desired devices with existing ones.

    hostdevs by FID; interfaces with a MAC by source+MAC, then interfaces without MAC by source in
    document order (each existing interface is used once). Returns (pairs, unmatched_existing,
    mac_conflicts) where pairs is [(desired, element or None, description or None)].
    """
    existing = managed_devices(root)
    used = set()
    pairs = []
    conflicts = []
    by_fid = {}
    for idx, (element, desc) in enumerate(existing):
        if desc['kind'] == HOSTDEV and desc['fid'] is not None and desc['fid'] not in by_fid:
            by_fid[desc['fid']] = idx
    for spec in hostdevs:
        idx = by_fid.get(spec['fid'])
        if idx is None:
            pairs.append((spec, None, None))
        else:
            used.add(idx)
            pairs.append((spec, existing[idx][0], existing[idx][1]))
    with_mac = [s for s in interfaces if s['mac']]
    without_mac = [s for s in interfaces if not s['mac']]
    for spec in with_mac:
        found = None
        for idx, (element, desc) in enumerate(existing):
            if idx in used or desc['kind'] != INTERFACE or desc['mac'] != spec['mac']:
                continue
            if desc['source'] == spec['source']:
                found = idx
            else:
                conflicts.append((spec, desc))
            break
        if found is None:
            pairs.append((spec, None, None))
        else:
            used.add(found)
            pairs.append((spec, existing[found][0], existing[found][1]))
    for spec in without_mac:
        found = None
        for idx, (element, desc) in enumerate(existing):
            if idx not in used and desc['kind'] == INTERFACE and desc['source'] == spec['source']:
                found = idx
                break
        if found is None:
            pairs.append((spec, None, None))
        else:
            used.add(found)
            pairs.append((spec, existing[found][0], existing[found][1]))
    unmatched = [(element, desc) for idx, (element, desc) in enumerate(existing) if idx not in used]
    return pairs, unmatched, conflicts


def plan(root, hostdevs, interfaces, state):
    """Operations that bring the domain definition ``root`` to the desired state.

    Returns a list of operation dicts (action attach|detach|update|replace, kind, key, device,
    xml, element, current, fields), detaches first, then replaces and updates, then attaches.
    """
    if state not in STATES:
        raise DeviceSpecError('state: %r is not one of %s' % (state, ', '.join(STATES)))
    if state == 'absent':
        return _plan_absent(root, hostdevs, interfaces)
    pairs, unmatched, conflicts = match_devices(root, hostdevs, interfaces)
    detaches, changes, attaches = [], [], []
    for spec, desc in conflicts:
        if state != 'exact':
            raise DeviceSpecError(
                '%s.mac: %s is already used by the domain\'s direct interface on %s, not %s; remove that '
                'interface first (state absent) or use state exact'
                % (spec['param'], spec['mac'], desc['source'], spec['source'])
            )
    if state == 'exact':
        for element, desc in unmatched:
            detaches.append(_op('detach', desc, strip_live_only(element), current=element))
    for spec, element, desc in pairs:
        if element is None:
            attaches.append(_op('attach', spec, build_device(spec)))
            continue
        if spec['kind'] == HOSTDEV:
            fields = _hostdev_differences(spec, desc)
            if fields:
                # libvirt cannot update a hostdev in place: detach the old one, attach the new one
                changes.append(_op('replace', spec, _patched_hostdev(element, spec), current=element, fields=fields))
        else:
            fields = _interface_differences(spec, desc)
            if fields:
                merged = dict(spec)
                merged['mac'] = desc['mac']
                changes.append(_op('update', merged, _patched_interface(element, spec), current=element, fields=fields))
    return detaches + changes + attaches


def _plan_absent(root, hostdevs, interfaces):
    ops = []
    existing = managed_devices(root)
    fids = set(spec['fid'] for spec in hostdevs)
    for element, desc in existing:
        if desc['kind'] == HOSTDEV and desc['fid'] in fids:
            ops.append(_op('detach', desc, strip_live_only(element), current=element))
        elif desc['kind'] == INTERFACE:
            for spec in interfaces:
                if spec['source'] == desc['source'] and (spec['mac'] is None or spec['mac'] == desc['mac']):
                    ops.append(_op('detach', desc, strip_live_only(element), current=element))
                    break
    return ops


def simulate(root, ops):
    """A copy of ``root`` with the operations applied (for check mode and validation).

    Devices libvirt would complete (guest PCI/ccw address, generated MAC) stay incomplete here.
    """
    new_root = copy.deepcopy(root)
    devices = devices_element(new_root)
    # map the original elements onto their copies by position
    originals = list(devices_element(root))
    copies = list(devices)
    index = dict((id(orig), pos) for pos, orig in enumerate(originals))
    for op in ops:
        if op['action'] in ('detach', 'replace', 'update'):
            pos = index.get(id(op['current']))
            if pos is None:
                continue
            target = copies[pos]
            if op['action'] == 'detach':
                devices.remove(target)
            else:
                children = list(devices)
                devices.insert(children.index(target), copy.deepcopy(op['element']))
                devices.remove(target)
        elif op['action'] == 'attach':
            _insert_device(devices, copy.deepcopy(op['element']))
    return new_root


def _insert_device(devices, element):
    """Insert after the last device of the same kind (libvirt groups devices by type)."""
    same = [pos for pos, child in enumerate(list(devices)) if child.tag == element.tag]
    if same:
        devices.insert(same[-1] + 1, element)
    else:
        devices.append(element)


# ---------------------------------------------------------------------------------------------
# validation over a whole domain or host


def check_unique(root, domain_name='the domain'):
    """uid and fid of every <zpci> unique, host PCI addresses of hostdevs unique, MACs unique."""
    errors = []
    uids, fids, sources, macs = {}, {}, {}, {}
    for element in list(devices_element(root)):
        label = element.tag
        uid, fid = _zpci_of(element)
        if element.tag == 'hostdev':
            desc = describe_hostdev(element)
            if desc is not None and desc['address'] is not None:
                label = 'hostdev %s' % format_pci_address(desc['address'])
                if desc['address'] in sources:
                    errors.append(
                        'host PCI address %s is passed through twice in %s'
                        % (format_pci_address(desc['address']), domain_name)
                    )
                sources[desc['address']] = label
        elif element.tag == 'interface':
            mac = element.find('mac')
            if mac is not None and mac.get('address'):
                value = mac.get('address').lower()
                if value in macs:
                    errors.append('MAC %s is used by two interfaces in %s' % (value, domain_name))
                macs[value] = label
        if uid is not None:
            if uid in uids:
                errors.append(
                    'zPCI uid %s is used twice in %s (%s and %s); uids must be unique per domain'
                    % (format_uid(uid), domain_name, uids[uid], label)
                )
            uids[uid] = label
        if fid is not None:
            if fid in fids:
                errors.append(
                    'zPCI fid %s is used twice in %s (%s and %s); fids must be unique per domain'
                    % (format_fid(fid), domain_name, fids[fid], label)
                )
            fids[fid] = label
    return errors


def foreign_owners(hostdevs, other_domains):
    """Errors for desired hostdevs whose FID or host address another domain already has.

    ``other_domains``: iterable of (name, parsed root).
    """
    errors = []
    for name, root in other_domains:
        for element, desc in managed_devices(root):
            if desc['kind'] != HOSTDEV:
                continue
            for spec in hostdevs:
                if desc['fid'] is not None and desc['fid'] == spec['fid']:
                    errors.append(
                        '%s.fid: FID %s is already given to domain %s; a FID can belong to one '
                        'domain only' % (spec['param'], format_fid(spec['fid']), name)
                    )
                elif spec.get('address') is not None and desc['address'] == spec['address']:
                    errors.append(
                        '%s.address: host function %s (fid %s) is already passed through to '
                        'domain %s'
                        % (spec['param'], format_pci_address(spec['address']), format_fid(spec['fid']), name)
                    )
    return errors


# ---------------------------------------------------------------------------------------------
# text


def _strip_whitespace(element):
    if element.text is not None and not element.text.strip():
        element.text = None
    if element.tail is not None and not element.tail.strip():
        element.tail = None
    for child in element:
        _strip_whitespace(child)


#: the comment at the top of a devices document (XML comments cannot hold "--" nor end with "-")
DEVICES_COMMENT = (
    ' The device XML of one guest, written from the result of s390x.network.libvirt_device (its devices_xml). '
    'Changes here are not read back. Each child element is one device for virsh attach-device. '
)


def xml_comment(text):
    """An ElementTree comment with ``text``; refuses what would end the comment early or make the
    document invalid ("--", a trailing "-", control characters)."""
    if '--' in text or text.endswith('-') or any(ord(c) < 32 and c not in '\n\t' for c in text):
        raise ValueError('%r cannot be the text of an XML comment' % text)
    return ET.Comment(text)


def devices_document(elements, comment=DEVICES_COMMENT):
    """``<devices>`` holding copies of ``elements`` after ``comment``, as text (one XML document,
    built by ElementTree: every value an attribute or text it escapes)."""
    root = ET.Element('devices')
    root.append(xml_comment(comment))
    for element in elements:
        root.append(copy.deepcopy(element))
    return to_text(root) + '\n'


def to_text(element):
    """Element -> XML text, indented by two spaces (single canonical layout for diffs)."""
    element = copy.deepcopy(element)
    _strip_whitespace(element)
    _indent(element)
    if sys.version_info < (3, 8):
        _keep_attribute_order(element)
    return ET.tostring(element, encoding='unicode')


class _InOrder(str):
    """An attribute name that sorts by its position in the element."""

    def __new__(cls, name, position):
        obj = str.__new__(cls, name)
        obj.position = position
        return obj

    def __lt__(self, other):
        return self.position < getattr(other, 'position', -1)


def _keep_attribute_order(element):
    # ElementTree before Python 3.8 writes attributes sorted by name; with names that sort by their
    # position the text is the same on every Python (the layout of diffs and returned XML).
    for node in element.iter():
        items = list(node.attrib.items())
        node.attrib.clear()
        for position, (name, value) in enumerate(items):
            node.attrib[_InOrder(name, position)] = value


def _indent(element, level=0):
    # ElementTree.indent exists only on Python 3.9+ ElementTree; this keeps the layout identical
    pad = '\n' + '  ' * level
    children = list(element)
    if children:
        if not element.text or not element.text.strip():
            element.text = pad + '  '
        for child in children:
            _indent(child, level + 1)
            if not child.tail or not child.tail.strip():
                child.tail = pad + '  '
        if not children[-1].tail or not children[-1].tail.strip():
            children[-1].tail = pad


def unified_diff(before, after, name):
    """Unified diff of two XML texts (already in the canonical layout)."""
    lines = difflib.unified_diff(
        before.splitlines(True), after.splitlines(True), fromfile='%s (before)' % name, tofile='%s (after)' % name
    )
    text = ''.join(line if line.endswith('\n') else line + '\n' for line in lines)
    return text
