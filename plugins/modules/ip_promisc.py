#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: ip_promisc
short_description: Promiscuous mode of network interfaces, now and at boot (Network Express on IBM Z)
version_added: 0.2.0
description:
  - Sets or clears the promiscuous flag (C(IFF_PROMISC)) of network interfaces with
    C(ip link set dev IF promisc on|off), and writes, enables or removes a boot unit that sets it
    again whenever the interface appears
    (C(/etc/systemd/system/s390x-network-promisc-<if>.service), bound to the interface's device
    unit).
  - A bridge or MacVTap over a Network Express interface (IBM z17, LinuxONE 5) needs the interface
    in promiscuous mode. Before anything changes the module checks, for an interface on a Network
    Express NETH function (C(pft) 0x0c in sysfs), that the function's C(fidparm) is 0x01 (set by
    C(FIDPARM=01) in the IOCDS, or the DPM NIC property; Linux 6.13 and later show it), and fails
    naming the interface, FID and fidparm otherwise. NETD functions (C(pft) 0x0f) have no C(fidparm).
  - A boot unit rather than a NetworkManager property, because the lower device of a MacVTap often
    has no NetworkManager profile, and SLES 15 (wicked) and Ubuntu (netplan) have no such property;
    NetworkManager's default for C(802-3-ethernet.accept-all-mac-addresses) leaves the flag alone.
  - Drift - RV(drift) has a row when the flag is off (scope C(active)) or the boot unit is missing,
    edited or not enabled (scope C(persistent)).
author:
  - s390x.network contributors (@s390x-network)
extends_documentation_fragment:
  - s390x.network.attributes
requirements:
  - C(ip) (iproute2) and C(systemctl) on the host.
options:
  interfaces:
    description:
      - Network interface names, for example V(eno1) or V(enP1p0s0). A name the kernel accepts - 1 to
        15 characters, not V(.) or V(..), no C(/), C(:), blanks or control characters - that does not
        start with C(-).
      - With O(state=merged) every interface must exist.
    type: list
    elements: str
    required: true
  function_types:
    description:
      - When not empty, only the interfaces on a zPCI function of one of these Network Express types
        (by the C(pft) the kernel shows) are handled; the others are left alone and returned in
        RV(left_alone).
    type: list
    elements: str
    choices: [NETD, NETH]
    default: []
  state:
    description:
      - V(merged) promiscuous now and at boot.
      - V(deleted) not promiscuous now (the flag this module sets; a bridge or a packet capture that
        holds the interface promiscuous keeps it so) and no boot unit.
    type: str
    choices: [merged, deleted]
    default: merged
notes:
  - C(IFF_PROMISC) is read from C(/sys/class/net/<if>/flags) (bit 0x100).
seealso:
  - module: s390x.network.libvirt_device
  - name: Network Express (Linux on IBM Z networking)
    description: The NETH and NETD PCI functions of IBM z17 and LinuxONE 5.
    link: https://www.ibm.com/docs/en/linux-on-systems?topic=networking-network-express
"""

EXAMPLES = r"""
- name: The Network Express interface under the guests' MacVTap interfaces is promiscuous, now and at boot
  s390x.network.ip_promisc:
    interfaces: [eno4]

- name: Only check (drift), changing nothing
  s390x.network.ip_promisc:
    interfaces: [eno4]
  check_mode: true
  diff: true

- name: Of the MacVTap sources, only the Network Express ones
  s390x.network.ip_promisc:
    interfaces: [enc8200, eno4]
    function_types: [NETH, NETD]
"""

RETURN = r"""
before:
  description:
    - Per handled interface, C(active) (C(promisc)) and C(persistent) (C(unit), the boot unit's text,
      and C(enabled)); null where the interface or the unit does not exist.
  returned: always
  type: list
  elements: dict
after:
  description: The same after the run (in check mode, as it would be).
  returned: always
  type: list
  elements: dict
commands:
  description: The commands and file changes run (or that would run, in check mode).
  returned: always
  type: list
  elements: str
  sample: ["ip link set dev eno4 promisc on", "write /etc/systemd/system/s390x-network-promisc-eno4.service",
           "systemctl enable s390x-network-promisc-eno4.service"]
drift:
  description: One row per interface and scope that differs (C(kind) V(link)).
  returned: always
  type: list
  elements: dict
left_alone:
  description:
    - Interfaces left alone because of O(function_types).
    - Not C(skipped), which Ansible reserves for a task that did not run.
  returned: always
  type: list
  elements: str
functions:
  description:
    - The zPCI function behind each interface that has one (C(address), C(fid), C(pft), C(type),
      C(fidparm), C(fidparm_text)), by interface name.
  returned: always
  type: dict
rollback:
  description: After a failed step, what ran to put the flag and the unit back, and whether that worked.
  returned: on failure after a change started
  type: dict
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.s390x.network.plugins.module_utils.engine import resource as resource_engine
from ansible_collections.s390x.network.plugins.module_utils.ip.promisc_resource import (
    FUNCTION_TYPES,
    STATES,
    PromiscLinks,
)


def argument_spec():
    return dict(
        interfaces=dict(type="list", elements="str", required=True),
        function_types=dict(type="list", elements="str", choices=list(FUNCTION_TYPES), default=[]),
        state=dict(type="str", choices=list(STATES), default="merged"),
    )


def main():
    module = AnsibleModule(argument_spec=argument_spec(), supports_check_mode=True)
    resource_engine.run(module, PromiscLinks(module))


if __name__ == "__main__":
    main()
