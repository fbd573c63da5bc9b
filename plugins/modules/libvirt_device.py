#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
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
  - A PCI pass-through C(<hostdev>) with a C(<zpci uid fid>) address for an ISM, RoCE or Network
    Express (NETH, NETD) function (the FID of the KVM host's partition), and a MacVTap
    C(<interface type='direct'>) on a host network interface, typically a layer-2 HiperSockets device
    or a Network Express interface, with the C(virtio) model and the C(vhost) driver.
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
      - Checked before libvirt is asked, the way libvirt checks a name it keeps its definition file
        under - not empty, no C(/), no control characters, at most 251 bytes (C(<name>.xml) fits a
        file name).
    type: str
    required: true
  uri:
    description:
      - libvirt connection URI of the QEMU driver, or a URI alias of the libvirt client configuration
        (C(uri_aliases) in C(libvirt.conf); letters, digits, C(_) and C(-)).
      - Checked against an allowlist before libvirt is opened, because libvirt runs programs for some
        URIs while it opens them. Allowed - driver C(qemu); no transport (V(qemu:///system), or TLS to a
        host), C(unix) (local), or C(ssh), C(libssh), C(libssh2), C(tls), C(tcp) to a host
        (V(qemu+ssh://USER@HOST:PORT/system)); path C(/system) or C(/session); the query parameters
        C(mode) (V(auto), V(legacy), V(direct)), C(no_tty) (V(0), V(1)) and, for libssh and libssh2,
        C(sshauth) (V(agent), V(privkey), V(password), V(keyboard-interactive)).
      - Refused - the C(ext) transport and the parameters C(command), C(netcat), C(socket),
        C(keyfile), C(known_hosts), C(pkipath), C(proxy), C(no_verify), C(name) and any other, a user or
        host starting with C(-), percent-encoding, fragments, blanks and control characters.
    type: str
    default: qemu:///system
  hostdevs:
    description:
      - PCI functions (ISM, RoCE or Network Express) to pass through, each identified by its FID,
        never by its host PCI address (that of an isolated Network Express VF changes across reboots
        without UID checking; the module reads it from sysfs on every run).
      - For O(state=merged) and O(state=overridden) the module checks on the host that the FID exists
        (C(/sys/bus/pci/slots/<fid>)), is configured, is an ISM, RoCE or Network Express function (of
        O(hostdevs[].type) when given, by the C(pft) the kernel shows), and, with
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
      type:
        description:
          - The function type the host must show for the FID (C(pft) in sysfs) - V(ISM), V(ROCE)
            (RoCE Express), V(ROC2) (RoCE Express2 and 3), V(NETH) or V(NETD) (Network Express in
            hybrid or direct mode). A Network Express VF and a RoCE Express3 function have the same
            PCI id; only C(pft) tells them apart.
          - When omitted, any ISM, RoCE or Network Express function is accepted.
        type: str
        choices: [ISM, ROCE, ROC2, NETH, NETD]
  interfaces:
    description:
      - MacVTap interfaces (C(<interface type='direct'>)), each identified by its host source device
        and MAC.
      - For O(state=merged) and O(state=overridden), a source that is a qeth device (HiperSockets or OSA)
        must be in layer 2 and online; a source that does not exist yet only gives a warning, and so
        does an offline one in check mode (an earlier task of the same run may set it online).
      - A source on a Network Express NETH function must allow promiscuous mode (C(fidparm) 0x01 in
        sysfs, from C(FIDPARM=01) in the IOCDS; Linux 6.13 and later show it), else the module fails
        naming the interface, FID and fidparm; a source that is not promiscuous gives a warning
        (M(s390x.network.ip_promisc) sets it now and at boot, the kvm_guest_network role runs it first).
    type: list
    elements: dict
    default: []
    suboptions:
      source:
        description:
          - Host network interface, for example V(enc8200). A name the kernel accepts - 1 to 15
            characters, not V(.) or V(..), no C(/), C(:), blanks or control characters.
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
          - With O(state=deleted), omitting it removes every direct interface on the source.
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
      - V(merged) the listed devices exist as given (other devices are left alone).
      - V(deleted) the listed devices do not exist (hostdevs by FID; interfaces by source, and MAC when
        given).
      - V(overridden) the listed devices are the domain's only PCI hostdevs and direct interfaces; others
        of those two kinds are detached.
      - V(gathered) changes nothing and returns the domain's PCI hostdevs and direct interfaces as
        RV(gathered).
      - V(rendered) returns the device XML for the listed devices as RV(rendered), without connecting
        to libvirt or reading the host (a hostdev then needs its O(hostdevs[].address)).
      - V(present), V(absent) and V(exact) are the names of earlier releases for V(merged), V(deleted)
        and V(overridden); they still work.
    type: str
    choices: [merged, overridden, deleted, gathered, rendered, present, absent, exact]
    default: merged
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
    C(<zpci>) element) to hostdevs, a CCW address and a generated MAC to interfaces; O(state=overridden)
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
    state: overridden
    live: false
    hostdevs:
      - {fid: "0x00000605", address: "0605:00:00.0", managed: false}
    interfaces:
      - {source: enc8200, mode: bridge}

- name: Pass a Network Express NETH VF through to g2 (the host checks that FID 0x110 is NETH)
  s390x.network.libvirt_device:
    domain: g2
    hostdevs:
      - {fid: 0x110, uid: 0x110, type: NETH}

- name: Remove the ISM function from g1
  s390x.network.libvirt_device:
    domain: g1
    state: deleted
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
devices_xml:
  description:
    - The device XML of RV(devices) as one C(<devices>) document (built with ElementTree, every value
      escaped), for a file to review or to attach from; the kvm_guest_network role writes it.
    - Null for O(state=deleted).
  returned: when the domain exists
  type: str
  sample: "<devices>\n  <!-- The device XML of one guest ... -->\n  <hostdev mode=\"subsystem\" ...</devices>\n"
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
before:
  description: The domain's PCI hostdevs and direct interfaces in its definition before the run.
  returned: when the domain exists
  type: list
  elements: dict
after:
  description: The same after the run (in check mode, as it would be).
  returned: when the domain exists
  type: list
  elements: dict
commands:
  description: The libvirt device calls made (or that would be, in check mode), one per operation.
  returned: always
  type: list
  elements: str
  sample: ["attach hostdev fid 0x00000605 in g1 (definition and running domain)"]
drift:
  description:
    - One row per device and scope that differs (C(kind) V(guest), C(object) such as
      C(g1 hostdev fid 0x00000605), C(scope) V(persistent) (the definition) or V(active) (the running
      domain), C(difference) C(missing), C(to remove) or C(key old -> new) per setting, comma-separated).
  returned: always
  type: list
  elements: dict
rollback:
  description:
    - After a failed call, what ran to put the old device back (a replace whose detach went through)
      and whether that worked.
  returned: on failure after a change started
  type: dict
gathered:
  description: The domain's PCI hostdevs and direct interfaces (same form as RV(before)).
  returned: when O(state=gathered)
  type: list
  elements: dict
rendered:
  description: The listed devices with the device XML this module would pass to libvirt.
  returned: when O(state=rendered)
  type: list
  elements: dict
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.s390x.network.plugins.module_utils.libvirt import xml as lx
from ansible_collections.s390x.network.plugins.module_utils.engine import resource as resource_engine
from ansible_collections.s390x.network.plugins.module_utils.libvirt.resource import STATES, DomainDevices


def argument_spec():
    return dict(
        domain=dict(type='str', required=True),
        uri=dict(type='str', default='qemu:///system'),
        hostdevs=dict(
            type='list',
            elements='dict',
            default=[],
            options=dict(
                fid=dict(type='raw', required=True),
                uid=dict(type='raw'),
                address=dict(type='str'),
                managed=dict(type='bool', default=True),
                type=dict(type='str', choices=list(lx.HOSTDEV_TYPES)),
            ),
        ),
        interfaces=dict(
            type='list',
            elements='dict',
            default=[],
            options=dict(
                source=dict(type='str', required=True),
                mode=dict(type='str', choices=list(lx.MACVTAP_MODES), default='bridge'),
                mac=dict(type='str'),
                model=dict(type='str', default='virtio'),
                driver=dict(type='str', choices=list(lx.INTERFACE_DRIVERS), default='vhost'),
            ),
        ),
        state=dict(type='str', choices=list(STATES), default='merged'),
        live=dict(type='str', choices=['auto', 'true', 'false'], default='auto'),
    )


def main():
    module = AnsibleModule(argument_spec=argument_spec(), supports_check_mode=True)
    resource_engine.run(module, DomainDevices(module))


if __name__ == '__main__':
    main()
