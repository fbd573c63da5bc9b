#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: libvirt_device
short_description: zPCI hostdevs and MacVTap interfaces of a KVM guest on IBM Z
version_added: 0.1.0
description:
  - Adds, checks and removes the two kinds of guest devices of the IBM study "SMC-D via ISM
    pass-through versus MacVTap HiperSockets" on an existing libvirt domain of a KVM host on IBM Z
    or LinuxONE.
  - A PCI pass-through C(<hostdev>) with a C(<zpci uid fid>) address for an ISM or RoCE function
    (the FID of the KVM host's partition), and a MacVTap C(<interface type='direct'>) on a host
    network interface, typically a layer-2 HiperSockets device, with the C(virtio) model and the
    C(vhost) driver.
  - Works on the persistent definition with libvirt device calls (attach, detach and update with
    C(VIR_DOMAIN_AFFECT_CONFIG), plus C(VIR_DOMAIN_AFFECT_LIVE) for a running domain, see O(live));
    the domain is never redefined as a whole, so other devices and settings are left alone.
  - Devices are compared as libvirt normalises them (the guest PCI or CCW address, alias, target
    device and a generated MAC that libvirt adds are ignored); hostdevs are identified by FID and
    interfaces by source device and MAC, so a second run and check mode report no change when the
    domain already has the devices.
  - Everything is validated before anything is changed; see O(hostdevs) and O(interfaces) for the
    checks.
author:
  - s390x.network contributors (@s390x-network)
extends_documentation_fragment:
  - s390x.network.attributes
requirements:
  - libvirt Python bindings on the KVM host (package C(python3-libvirt) on Red Hat Enterprise Linux,
    Debian and Ubuntu, C(python3-libvirt-python) on SUSE Linux Enterprise Server; C(libvirt-python)
    on PyPI).
options:
  domain:
    description:
      - Name of the libvirt domain (guest). It must be defined (persistent).
    type: str
    required: true
  uri:
    description:
      - libvirt connection URI.
    type: str
    default: qemu:///system
  hostdevs:
    description:
      - PCI functions (ISM or RoCE) to pass through, each identified by its FID.
      - For O(state=present) and O(state=exact) the module checks on the host that the FID exists
        (C(/sys/bus/pci/slots/<fid>)), is configured, is an ISM or RoCE function, and, with
        O(hostdevs[].managed=false), is bound to C(vfio-pci); that no other domain on the host has the
        FID or its host PCI function; and that uid and fid are unique in the domain.
      - In check mode a FID in standby or not bound to C(vfio-pci) is a warning (an earlier task of
        the same run, such as the ism_passthrough role, configures it); the prediction then uses the
        host address the domain's hostdev for that FID already has.
    type: list
    elements: dict
    default: []
    suboptions:
      fid:
        description:
          - Function ID, an integer or a hex string (V(0x605) or V(605)), 0 to 0xffffffff. It is the
            FID of the host's function and the guest's C(<zpci fid>).
        type: raw
        required: true
      uid:
        description:
          - The guest's C(<zpci uid>), which becomes the function's PCI domain in the guest; an integer
            or a hex string, 0x0001 to 0xffff, unique in the domain.
          - Defaults to the FID when that fits the range, else it is required.
        type: raw
      address:
        description:
          - Host PCI address of the function (C(DDDD:BB:SS.F), for example V(0605:00:00.0)).
          - Defaults to the address sysfs reports for the FID; when given it must match it.
        type: str
      managed:
        description:
          - Let libvirt bind the function to C(vfio-pci) when the guest starts and rebind it when the
            guest stops (C(managed='yes')). With V(false) the function must already be bound to
            C(vfio-pci).
        type: bool
        default: true
  interfaces:
    description:
      - MacVTap interfaces (C(<interface type='direct'>)), each identified by its host source device
        and MAC.
      - For O(state=present) and O(state=exact), a source that is a qeth device (HiperSockets or OSA)
        must be in layer 2 and online; a source that does not exist yet only gives a warning, and so
        does an offline one in check mode (an earlier task of the same run may set it online).
    type: list
    elements: dict
    default: []
    suboptions:
      source:
        description:
          - Host network interface, for example V(enc8200).
        type: str
        required: true
      mode:
        description:
          - MacVTap mode.
        type: str
        choices: [bridge, vepa, private, passthrough]
        default: bridge
      mac:
        description:
          - Guest MAC address (unicast). When omitted, an existing interface on the same source keeps its
            MAC and a new one gets a MAC generated by libvirt.
          - With O(state=absent), omitting it removes every direct interface on the source.
        type: str
      model:
        description:
          - NIC model.
        type: str
        default: virtio
      driver:
        description:
          - Backend driver name.
        type: str
        choices: [vhost, qemu]
        default: vhost
  state:
    description:
      - V(present) the listed devices exist as given (other devices are left alone).
      - V(absent) the listed devices do not exist (hostdevs by FID; interfaces by source, and MAC when
        given).
      - V(exact) the listed devices are the domain's only PCI hostdevs and direct interfaces; others of
        those two kinds are detached.
    type: str
    choices: [present, absent, exact]
    default: present
  live:
    description:
      - Whether changes also apply to a running domain (hot plug).
      - V(auto) makes each change of the persistent definition in the running domain too when the
        running domain needs the same change; when libvirt cannot (for example no PCI hot plug, or a
        direct interface's mode) it changes the definition only and warns that the change takes
        effect at the next guest start (see RV(live_pending)).
      - V(true) is like V(auto) but fails when libvirt cannot change the running domain, and also
        corrects differences of the running domain alone (for example a device hot-unplugged with
        C(virsh detach-device --live)).
      - V(false) changes the persistent definition only.
      - A domain that is not running has only its definition changed.
    type: str
    choices: [auto, 'true', 'false']
    default: auto
notes:
  - libvirt adds a guest PCI address (C(<address type='pci' domain bus slot function>) around the
    C(<zpci>) element) to hostdevs, a CCW address and a generated MAC to interfaces; O(state=exact)
    and the comparison ignore those.
  - A changed hostdev (uid, address or managed) is detached and attached again, because libvirt cannot
    update a hostdev of a persistent definition in place; a changed interface (mode, model, driver) is
    updated in place, keeping its MAC and address.
  - The guest sees the function at PCI address C(<uid>:00:00.0).
seealso:
  - name: libvirt domain XML, host device assignment
    description: The C(<hostdev>) element and the C(<zpci>) address extension.
    link: https://libvirt.org/formatdomain.html#host-device-assignment
  - name: libvirt domain XML, direct attachment to physical interface
    description: The C(<interface type='direct'>) element (MacVTap).
    link: https://libvirt.org/formatdomain.html#direct-attachment-to-physical-interface
"""

EXAMPLES = r"""
- name: Pass ISM FID 0x605 through to g1 and give it a MacVTap interface on the HiperSockets device
  s390x.network.libvirt_device:
    domain: g1
    hostdevs:
      - fid: 0x605
    interfaces:
      - source: enc8200
        mac: "12:34:56:78:9a:bc"

- name: Check only (report drift, change nothing)
  s390x.network.libvirt_device:
    domain: g1
    hostdevs:
      - {fid: 0x605, uid: 0x605}
  check_mode: true
  diff: true

- name: g1 has exactly these zPCI hostdevs and direct interfaces, definition only
  s390x.network.libvirt_device:
    domain: g1
    state: exact
    live: false
    hostdevs:
      - {fid: "0x00000605", address: "0605:00:00.0", managed: false}
    interfaces:
      - {source: enc8200, mode: bridge}

- name: Remove the ISM function from g1
  s390x.network.libvirt_device:
    domain: g1
    state: absent
    hostdevs:
      - fid: 0x605
"""

RETURN = r"""
before_xml:
  description: The persistent domain XML before the change (indented, canonical layout).
  returned: when the domain exists
  type: str
after_xml:
  description:
    - The persistent domain XML after the change, as libvirt reports it.
    - In check mode a prediction (devices to be attached lack the addresses libvirt would add).
  returned: when the domain exists
  type: str
changed_devices:
  description: What was (or in check mode would be) changed, in the order applied.
  returned: always
  type: list
  elements: dict
  contains:
    action:
      description: V(attach), V(detach), V(update) (interface in place) or V(replace) (hostdev detached and attached again).
      type: str
    device:
      description: The device (kind, fid, uid, address, managed; or kind, source, mode, mac, model, driver).
      type: dict
    fields:
      description: The fields that differed (update and replace).
      type: list
      elements: str
    config:
      description: Whether the persistent definition was changed.
      type: bool
    live:
      description: Whether the running domain was changed.
      type: bool
    xml:
      description:
        - The device XML passed to libvirt.
        - Null in check mode for a hostdev whose FID is in standby (its host address is not known yet).
      type: str
  sample:
    - action: attach
      device: {kind: hostdev, fid: 1541, uid: 1541, address: "0605:00:00.0", managed: true}
      fields: []
      config: true
      live: false
      xml: "<hostdev mode=\"subsystem\" type=\"pci\" managed=\"yes\">..."
devices:
  description: The desired devices, completed (resolved host address, defaults) and, for matched
    interfaces, with the MAC they have; with the device XML this module builds for them (the
    study's shapes).
  returned: always
  type: list
  elements: dict
  sample:
    - kind: hostdev
      fid: 1541
      uid: 1541
      address: "0605:00:00.0"
      managed: true
      xml: "<hostdev mode=\"subsystem\" type=\"pci\" managed=\"yes\">..."
live_pending:
  description: Changes made to the definition only, because libvirt could not apply them to the running
    domain (O(live=auto)); they take effect at the next guest start.
  returned: always
  type: list
  elements: str
domain_active:
  description: Whether the domain was running.
  returned: when the domain exists
  type: bool
"""

from ansible.module_utils.basic import AnsibleModule, missing_required_lib

from ansible_collections.s390x.network.plugins.module_utils import libvirt_conn
from ansible_collections.s390x.network.plugins.module_utils import libvirt_host
from ansible_collections.s390x.network.plugins.module_utils import libvirt_xml as lx


def argument_spec():
    return dict(
        domain=dict(type='str', required=True),
        uri=dict(type='str', default='qemu:///system'),
        hostdevs=dict(type='list', elements='dict', default=[], options=dict(
            fid=dict(type='raw', required=True),
            uid=dict(type='raw'),
            address=dict(type='str'),
            managed=dict(type='bool', default=True),
        )),
        interfaces=dict(type='list', elements='dict', default=[], options=dict(
            source=dict(type='str', required=True),
            mode=dict(type='str', choices=list(lx.MACVTAP_MODES), default='bridge'),
            mac=dict(type='str'),
            model=dict(type='str', default='virtio'),
            driver=dict(type='str', choices=list(lx.INTERFACE_DRIVERS), default='vhost'),
        )),
        state=dict(type='str', choices=list(lx.STATES), default='present'),
        live=dict(type='str', choices=['auto', 'true', 'false'], default='auto'),
    )


def merge_live(config_ops, live_ops, live_mode):
    """Decide per operation whether it affects the definition, the running domain or both.

    ``live_ops`` is the plan against the running domain (empty when it is not running or live is
    false). An operation goes live when the running domain needs the same one; with live=true the
    running domain's own differences are corrected too.
    """
    steps = []
    live_by_key = {}
    for op in live_ops:
        live_by_key[(op['action'], op['key'])] = op
    for op in config_ops:
        twin = live_by_key.pop((op['action'], op['key']), None)
        steps.append((op, True, twin is not None))
    if live_mode == 'true':
        for op in live_ops:
            if (op['action'], op['key']) in live_by_key:
                steps.append((op, False, True))
    return steps


def _calls(op, combined=False):
    """(call, device XML) pairs of one operation; ``combined``: one call for definition and running
    domain, with XML that does not pin the guest address (see libvirt_xml.portable)."""
    convert = lx.portable if combined else lx.strip_live_only
    if op['action'] == 'replace':
        return [('detach', lx.to_text(convert(op['current']))), ('attach', lx.to_text(convert(op['element'])))]
    return [(op['action'], lx.to_text(convert(op['element'])))]


def apply_step(dom, op, config, live, live_mode, warnings, live_pending):
    """Run the libvirt calls of one operation; returns (config_done, live_done)."""
    try:
        for call, xml in _calls(op, combined=config and live):
            getattr(dom, call)(xml, config=config, live=live)
        return config, live
    except libvirt_conn.LibvirtCallError as exc:
        if not (live and config and live_mode == 'auto'):
            raise
        text = '%s %s' % (op['action'], lx.key_text(op['key']))
        warnings.append('%s: the running domain could not be changed (%s); changed the definition only, '
                        'effective at the next guest start' % (text, exc.libvirt_message))
        live_pending.append(text)
    # a failed call changes nothing (libvirt applies definition and running domain together or not
    # at all): change the definition only, with its own guest address
    calls = _calls(op)
    if op['action'] == 'replace':
        # the combined detach may have succeeded before the combined attach failed
        current = lx.parse_domain(dom.xml(inactive=True))
        present = [desc for element, desc in lx.managed_devices(current) if lx.device_key(desc) == op['key']]
        if not present:
            calls = calls[1:]
    for call, xml in calls:
        getattr(dom, call)(xml, config=True, live=False)
    return True, False


def domain_name_error(name):
    """Why ``name`` cannot be a libvirt domain name (libvirt's QEMU driver refuses '/' in names, the
    XML parser control characters); None when it can."""
    if not name or not name.strip():
        return 'domain: the name is empty'
    bad = sorted(set(c for c in name if c == '/' or ord(c) < 32 or ord(c) == 127))
    if bad:
        return 'domain: %r is not a libvirt domain name (no "/" and no control characters)' % name
    return None


def run(module):
    params = module.params
    state = params['state']
    live_mode = params['live']
    result = dict(changed=False, changed_devices=[], devices=[], live_pending=[])
    name_error = domain_name_error(params['domain'])
    if name_error:
        module.fail_json(msg=name_error, **result)
    try:
        hostdevs = lx.hostdevs_from_params(params['hostdevs'], state)
        interfaces = lx.interfaces_from_params(params['interfaces'], state)
    except lx.DeviceSpecError as exc:
        module.fail_json(msg=str(exc), **result)

    if not libvirt_conn.HAS_LIBVIRT:
        module.fail_json(msg=missing_required_lib(libvirt_conn.LIBVIRT_PACKAGES),
                         exception=libvirt_conn.LIBVIRT_IMPORT_ERROR, **result)

    errors = []
    warnings = []
    standby = []  # check mode: hostdevs whose FID is in standby (no host address yet)
    pending = []  # ... of those, the ones the domain does not have yet: attaches without XML
    if state != 'absent':
        for spec in hostdevs:
            address, errs, warns = libvirt_host.check_hostdev(spec, state_is_error=not module.check_mode)
            errors.extend(errs)
            warnings.extend(warns)
            if spec['address'] is None:
                spec['address'] = address
                if address is None:
                    standby.append(spec)
        for spec in interfaces:
            errs, warns = libvirt_host.check_macvtap_source(spec, offline_is_error=not module.check_mode)
            errors.extend(errs)
            warnings.extend(warns)
    if errors:
        module.fail_json(msg='; '.join(errors), errors=errors, **result)

    name = params['domain']
    try:
        hypervisor = libvirt_conn.Hypervisor(params['uri'])
        domains = hypervisor.domains()
        dom = None
        for candidate in domains:
            if candidate.name == name:
                dom = candidate
        if dom is None:
            names = sorted(d.name for d in domains)
            module.fail_json(msg='domain: %s is not defined on %s; defined domains: %s'
                             % (name, params['uri'], ', '.join(names) or 'none'), domains=names, **result)
        if not dom.is_persistent():
            module.fail_json(msg='domain: %s is transient (not defined); this module changes persistent '
                             'definitions only' % name, **result)
        before_root = lx.parse_domain(dom.xml(inactive=True))
        # check mode, FID in standby: predict with the address the domain already has for it; a
        # hostdev the domain does not have yet is an attach whose XML is known only once the FID is
        # configured (its host address comes with the PCI function)
        for spec in standby:
            spec['address'] = lx.hostdev_address(before_root, spec['fid'])
            if spec['address'] is None:
                pending.append(spec)
                warnings.append('%s.fid: FID %s is in standby; the hostdev is attached once it is configured '
                                '(its XML is not shown in check mode)' % (spec['param'], lx.format_fid(spec['fid'])))
        planned = [spec for spec in hostdevs if not any(spec is waiting for waiting in pending)]
        active = dom.is_active()
        config_ops = lx.plan(before_root, planned, interfaces, state)
        live_ops = []
        if active and live_mode != 'false':
            live_root = lx.parse_domain(dom.xml(inactive=False))
            live_ops = lx.plan(live_root, planned, interfaces, state)

        if state != 'absent' and hostdevs:
            others = [(d.name, lx.parse_domain(d.xml(inactive=True))) for d in domains if d.name != name]
            errors.extend(lx.foreign_owners(hostdevs, others))
        predicted = lx.simulate(before_root, config_ops)
        known = set(lx.check_unique(before_root, name))
        errors.extend(e for e in lx.check_unique(predicted, name) if e not in known)
        if errors:
            module.fail_json(msg='; '.join(errors), errors=errors, **result)
    except lx.DeviceSpecError as exc:
        module.fail_json(msg=str(exc), **result)
    except (lx.DomainXMLError, libvirt_conn.LibvirtCallError) as exc:
        module.fail_json(msg=str(exc), **result)

    for warning in warnings:
        module.warn(warning)

    steps = merge_live(config_ops, live_ops, live_mode)
    result['domain_active'] = active
    changed_devices = []
    for op, config, live in steps:
        entry = {'action': op['action'], 'device': op['device'], 'fields': op['fields'], 'config': config,
                 'live': live, 'xml': op['xml']}
        changed_devices.append(entry)
    after_root = predicted
    if steps and not module.check_mode:
        done = []
        try:
            for (op, config, live), entry in zip(steps, changed_devices):
                step_warnings = []
                entry['config'], entry['live'] = apply_step(dom, op, config, live, live_mode, step_warnings,
                                                            result['live_pending'])
                for warning in step_warnings:
                    module.warn(warning)
                done.append(entry)
            after_root = lx.parse_domain(dom.xml(inactive=True))
        except (libvirt_conn.LibvirtCallError, lx.DomainXMLError) as exc:
            result['changed'] = bool(done)
            result['changed_devices'] = done
            module.fail_json(msg='%s (changes made before the failure: %d)' % (exc, len(done)), **result)
    for spec in pending:
        changed_devices.append({'action': 'attach', 'fields': [], 'config': True, 'live': False, 'xml': None,
                                'device': {'kind': lx.HOSTDEV, 'fid': spec['fid'], 'uid': spec['uid'],
                                           'address': None, 'managed': spec['managed']}})
    result['changed'] = bool(changed_devices)
    result['changed_devices'] = changed_devices
    result['devices'] = desired_view(after_root, planned, interfaces, state)
    result['before_xml'] = lx.to_text(before_root)
    result['after_xml'] = lx.to_text(after_root)
    if module._diff:
        result['diff'] = {'prepared': lx.unified_diff(result['before_xml'], result['after_xml'],
                                                      'domain %s' % name)}
    hypervisor.close()
    return result


def desired_view(root, hostdevs, interfaces, state):
    """The desired devices as returned in ``devices`` (with the MAC a matched interface has)."""
    views = []
    if state == 'absent':
        for spec in hostdevs:
            views.append({'kind': lx.HOSTDEV, 'fid': spec['fid']})
        for spec in interfaces:
            views.append({'kind': lx.INTERFACE, 'source': spec['source'], 'mac': spec['mac']})
        return views
    pairs, dummy, dummy2 = lx.match_devices(root, hostdevs, interfaces)
    for spec, element, desc in pairs:
        complete = dict(spec)
        if spec['kind'] == lx.INTERFACE and not spec['mac'] and desc is not None:
            complete['mac'] = desc['mac']
        view = lx.public_view(complete)
        view['xml'] = lx.to_text(lx.build_device(complete))
        views.append(view)
    return views


def main():
    module = AnsibleModule(argument_spec=argument_spec(), supports_check_mode=True)
    module.exit_json(**run(module))


if __name__ == '__main__':
    main()
