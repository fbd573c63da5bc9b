#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: ip_interfaces
short_description: IP addresses, routes, MTU and VLANs of qeth, OSA and guest interfaces through NetworkManager or netplan
version_added: 0.1.0
description:
  - Manages one NetworkManager connection profile per interface (and per VLAN on it) with C(nmcli), and
    activates it, so the configuration applies now and at every boot - the way RHEL 8/9/10, SLES 16 and
    hosts of other distributions that run NetworkManager configure their interfaces.
  - An interface is named by its qeth device ID (O(config[].device), resolved to its interface name on the
    host through the device's C(if_name)), by its MAC address (O(config[].mac), for a KVM guest's NIC whose
    address the MacVTap definition gives) or by its name.
  - Every string field is refused, naming it, when it holds a NUL, newline or other control or format
    character.
  - Before anything changes, it refuses an entry that names no existing interface, an MTU above the
    interface's maximum (C(max_mtu); a HiperSockets device's maximum follows the frame size of its CHPID),
    a VLAN on a layer-3 qeth device and, unless O(allow_disruptive=true), re-activating or deleting the
    profile of the interface that carries the management connection (the SSH session of this run).
  - A profile is changed only in the properties that differ, then re-activated (C(nmcli connection up)) when
    it changed, is not the device's active profile, or the device's addresses or MTU differ from it. A
    failing step puts the profile back (or deletes the one the run added) and re-activates it.
  - The host's network configuration decides the backend. NetworkManager running - C(nmcli), as above. No
    NetworkManager running, and the C(netplan) command and C(/etc/netplan) present (Ubuntu) - the module writes
    one netplan file that the collection owns, C(/etc/netplan/60-s390x-network.yaml) (mode 0600), and applies
    it with C(netplan apply).
  - On netplan hosts the file holds, per interface, C(addresses), C(routes) and C(mtu) under C(ethernets) (the
    interface name is the netplan ID) and each VLAN under C(vlans) with C(id) and C(link). It is built as data
    and written as JSON (which is YAML), compared with the file's parsed data (not its text), and applied when
    it changed or the device's addresses or MTU differ from it. When C(netplan apply) fails, the previous file
    is put back (removed when there was none) and applied again. O(config[].connection) and
    O(config[].autoconnect=false) are NetworkManager settings and are refused there; an interface name must be
    a plain one (letters, digits, C(_), C(.), C(-)), since netplan writes it into systemd-networkd's
    C(Name=) glob. Netplan merges an interface defined in several files and appends their address lists - keep
    the addresses of a managed interface out of the other netplan files. O(state=deleted) removes the
    interface's part of the file (the whole file when nothing is left), applies, and flushes the interface's
    global addresses. The management connection is guarded as with NetworkManager.
  - C(netplan apply) needs systemd as PID 1 (it runs C(systemctl daemon-reload)). Where PID 1 is something else
    (C(/proc/1/comm); a container) the module runs what C(netplan apply) does for systemd-networkd without
    systemctl - C(netplan generate), C(networkctl reload), C(networkctl reconfigure) of the configured interfaces
    - and fails before anything changes when C(networkctl) is missing.
  - SLES 15 (wicked) is not supported; the module fails there, naming the host's stack (its C(/etc/os-release)
    or C(/usr/sbin/wicked)). SLES 16 runs NetworkManager.
author:
  - s390x.network contributors (@s390x-network)
extends_documentation_fragment:
  - s390x.network.attributes
requirements:
  - NetworkManager running on the host and C(nmcli), or netplan (C(netplan), netplan.io 0.106 or newer) with
    systemd as PID 1 (or systemd-networkd running and C(networkctl)); C(ip) (iproute2).
options:
  state:
    description:
      - V(merged) sets the properties the entries give and keeps the others of an existing profile.
      - V(replaced) sets every managed property of the named profiles; what an entry leaves out goes back to
        the default (no addresses - IPv4 disabled, IPv6 ignored -, no routes, automatic MTU).
      - V(deleted) deletes the profiles of the named interfaces and VLANs (the VLANs first), which takes their
        addresses off.
      - V(gathered) returns the profiles of the named interfaces (all Ethernet and VLAN profiles without
        O(config)) as entries; on netplan hosts the interfaces of the collection's netplan file.
      - V(rendered) returns the C(nmcli) commands for the entries without reading the host (also for netplan
        hosts, which it cannot tell apart without reading the host).
    type: str
    choices: [merged, replaced, deleted, gathered, rendered]
    default: merged
  config:
    description: One entry per interface.
    type: list
    elements: dict
    default: []
    suboptions:
      device:
        description:
          - The qeth device (its read device ID, V(0.0.8200) or V(8200)) whose interface this is.
          - Give exactly one of O(config[].device), O(config[].mac) and O(config[].name).
        type: str
      mac:
        description: The MAC address of the interface (a KVM guest's NIC).
        type: str
      name:
        description:
          - The interface name, checked with the kernel's grammar (1 to 15 bytes, not C(.) or C(..), no
            C(/), C(:), white space, control or format characters); not C(-) first (nmcli would read it as
            an option), not C(*) (nmcli's wildcard) and not the loopback interface C(lo). Any other name the
            kernel accepts is data in nmcli's argument list. A name found through O(config[].device) or
            O(config[].mac) is checked the same way, and an interface whose type is loopback is refused.
        type: str
      connection:
        description:
          - The name of the NetworkManager profile; the interface name by default.
          - Printable text of at most 242 bytes, not starting with C(-).
        type: str
      addresses:
        description:
          - The IPv4 and IPv6 addresses with their prefix length (V(10.50.0.2/24)). An empty list removes all
            (IPv4 disabled).
        type: list
        elements: str
      routes:
        description:
          - Static routes over the interface; C(via) must be in one of its subnets. O(config[].routes[].to)
            V(default) is the default route.
        type: list
        elements: dict
        suboptions:
          to:
            description: Destination network (V(10.60.0.0/24)) or V(default).
            type: str
            required: true
          via:
            description: Next hop.
            type: str
          metric:
            description: Route metric (0-4294967295).
            type: int
      mtu:
        description: MTU (68-65535, at most the interface's maximum).
        type: int
      autoconnect:
        description: Whether NetworkManager activates the profile at boot and when the device appears.
        type: bool
        default: true
      vlans:
        description:
          - 802.1Q VLANs on the interface (layer-2 devices only), each a profile C(IF.ID) of type VLAN.
        type: list
        elements: dict
        suboptions:
          id:
            description: VLAN ID, 1-4094.
            type: int
            required: true
          connection:
            description: The profile name; C(IF.ID) by default.
            type: str
          addresses:
            description: As O(config[].addresses).
            type: list
            elements: str
          routes:
            description: As O(config[].routes).
            type: list
            elements: dict
            suboptions:
              to:
                description: Destination network or V(default).
                type: str
                required: true
              via:
                description: Next hop.
                type: str
              metric:
                description: Route metric.
                type: int
          mtu:
            description: MTU of the VLAN (at most its parent's maximum).
            type: int
          autoconnect:
            description: As O(config[].autoconnect).
            type: bool
            default: true
  allow_disruptive:
    description:
      - Allow re-activating or deleting the profile of the interface that carries the management connection
        (or of a VLAN on it). Re-activation takes its addresses off for a moment and replaces them with the
        profile's.
    type: bool
    default: false
  if_missing:
    description:
      - What to do with an entry whose interface does not exist. V(fail) stops before anything changes;
        V(warn) skips the entry, warns and lists it in RV(missing) - for a KVM guest's NIC that appears
        only when the guest starts with the definition that has it.
    type: str
    choices: [fail, warn]
    default: fail
seealso:
  - module: s390x.network.qeth_device
  - module: community.general.nmcli
"""

EXAMPLES = r"""
- name: The HiperSockets interface of qeth device 0.0.8200 on the rendezvous subnet
  s390x.network.ip_interfaces:
    config:
      - device: 0.0.8200
        addresses: [10.50.0.11/24]
        mtu: 32768

- name: A guest's MacVTap NIC, found by its MAC address, with a route
  s390x.network.ip_interfaces:
    config:
      - mac: "12:34:56:78:9a:bc"
        addresses: [10.50.0.12/24]
        routes:
          - {to: 10.60.0.0/24, via: 10.50.0.1}

- name: A VLAN on a layer-2 OSA interface
  s390x.network.ip_interfaces:
    config:
      - device: 0.0.1000
        vlans:
          - {id: 100, addresses: [192.168.100.5/24]}

- name: What NetworkManager has for the interface
  s390x.network.ip_interfaces:
    state: gathered
    config:
      - device: 0.0.8200
  register: ip
"""

RETURN = r"""
before:
  description:
    - Per managed profile, before the run - C(interface), C(connection) (the profile name), C(profile) (the
      managed properties as nmcli names them, null without a profile) and C(active) (the device's
      C(addresses), C(mtu) and whether the profile is the active one).
    - On netplan hosts, per interface C(interface), C(file), C(netplan) (its mapping in the file, null when
      it has none) and C(active) (C(addresses), C(mtu)), then the file itself (C(file), C(present), C(network) -
      its parsed data).
  returned: when state is merged, replaced or deleted
  type: list
  elements: dict
  sample:
    - interface: enc8200
      connection: enc8200
      profile: {"ipv4.method": "manual", "ipv4.addresses": "10.50.0.11/24", "802-3-ethernet.mtu": "auto"}
      active: {"addresses": ["10.50.0.11/24"], "mtu": 32768, "profile_active": true}
after:
  description: The same after the run (in check mode, as it would be).
  returned: when state is merged, replaced or deleted
  type: list
  elements: dict
commands:
  description:
    - The C(nmcli) commands that ran (in check mode, would run), in order; on netplan hosts
      C(write /etc/netplan/60-s390x-network.yaml) (or C(rm) or C(chmod 0600) of it), C(netplan apply) (without
      systemd as PID 1 C(netplan generate), C(networkctl reload), C(networkctl reconfigure IF...)) and, for
      V(deleted), C(ip address flush).
  returned: always
  type: list
  elements: str
  sample: ["nmcli connection modify uuid 0c5d... ipv4.addresses '10.50.0.11/24'", "nmcli connection up uuid 0c5d..."]
drift:
  description:
    - One row per interface and scope that differs (C(kind) V(ip), C(object) the interface, C(scope)
      V(persistent) (the profile, or the netplan stanza) or V(active) (the device), C(difference)
      C(missing), C(to remove) or C(key old -> new) per setting, comma-separated); an interface that is not there (O(if_missing=warn)) is C(missing).
  returned: always
  type: list
  elements: dict
  sample: [{"kind": "ip", "object": "enc8200", "scope": "active", "difference": "addresses none -> 10.50.0.11/24"}]
diff:
  description:
    - Before and after as text (with C(--diff)) - per interface its active values and its profile, one
      line per value (its key, a colon, the value); on a netplan host the file.
  returned: when diff mode is on
  type: dict
interfaces:
  description: How each entry was resolved - the entry's device, MAC or name and the interface it names.
  returned: when state is merged, replaced or deleted
  type: dict
  sample: {"device 0.0.8200": "enc8200", "mac 12:34:56:78:9a:bc": "eth0"}
missing:
  description: The entries skipped because their interface does not exist (O(if_missing=warn)), with the reason.
  returned: when state is merged or replaced
  type: list
  elements: dict
  sample: [{"entry": "mac 12:34:56:78:9a:bc", "reason": "config[0].mac: no network interface has the address 12:34:56:78:9a:bc"}]
rollback:
  description: After a failed step, what ran to put the profile back (C(commands)), the errors and C(ok).
  returned: on failure after a change started
  type: dict
rendered:
  description: The commands for the entries (state rendered); an interface named by device or MAC shows as C({device ID}).
  returned: when state is rendered
  type: list
  elements: str
gathered:
  description: The profiles as O(config) entries (C(name), C(connection), C(addresses), C(routes), C(mtu), C(autoconnect), C(vlan)).
  returned: when state is gathered
  type: list
  elements: dict
backend:
  description: V(netplan) when the host was configured through netplan (absent on NetworkManager hosts).
  returned: on netplan hosts
  type: str
netplan_file:
  description: The netplan file the collection owns.
  returned: on netplan hosts
  type: str
  sample: /etc/netplan/60-s390x-network.yaml
management_interfaces:
  description: The interfaces that carry the management connection, when the module refused because of them.
  returned: on that refusal
  type: list
  elements: str
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.s390x.network.plugins.module_utils.engine import resource as resource_engine
from ansible_collections.s390x.network.plugins.module_utils.ip.resource import STATES, IpInterfacesOnHost


def main():
    route = dict(to=dict(type="str", required=True), via=dict(type="str"), metric=dict(type="int"))
    common = dict(
        connection=dict(type="str"),
        addresses=dict(type="list", elements="str"),
        routes=dict(type="list", elements="dict", options=route),
        mtu=dict(type="int"),
        autoconnect=dict(type="bool", default=True),
    )
    vlan = dict(common, id=dict(type="int", required=True))
    entry = dict(
        common,
        device=dict(type="str"),
        mac=dict(type="str"),
        name=dict(type="str"),
        vlans=dict(type="list", elements="dict", options=vlan),
    )
    module = AnsibleModule(
        argument_spec=dict(
            state=dict(type="str", default="merged", choices=list(STATES)),
            config=dict(type="list", elements="dict", default=[], options=entry),
            allow_disruptive=dict(type="bool", default=False),
            if_missing=dict(type="str", default="fail", choices=["fail", "warn"]),
        ),
        supports_check_mode=True,
    )
    resource_engine.run(module, IpInterfacesOnHost(module))


if __name__ == "__main__":
    main()
