#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
module: qeth_device
short_description: Configure qeth network devices (HiperSockets, OSA-Express) on Linux on IBM Z
version_added: 0.1.0
description:
  - Configures qeth group devices (HiperSockets and OSA-Express) with C(chzdev), in the active
    configuration (sysfs), the persistent configuration (the udev rule chzdev writes) or both.
  - Reads the current state from sysfs and the chzdev udev rules directly and runs C(chzdev) only
    for what drifted, so a run that changes nothing runs no command. Active and persistent drift are
    handled separately; a device that is right in sysfs but has no or a wrong udev rule only gets its
    persistent configuration fixed, without going offline.
  - Attributes that the kernel accepts only while the device is offline (C(layer2), C(buffer_count),
    C(portno), C(portname), C(priority_queueing)) are changed by setting the device offline with
    C(chzdev -a qeth ID online=0) and configuring it with C(chzdev -e qeth ID ...), which applies
    layer2, the other offline-only attributes, online, the rest in that order.
  - Devices that need the same C(chzdev) command line apart from their ID are changed by one call
    for all of them, as in C(chzdev -e qeth ID1,ID2,... layer2=1). C(chzdev) reads the system once
    per call, so configuring a CPC's devices costs one call per kind of change instead of one per
    device.
  - Refuses to take a device offline (or deconfigure it) that carries the management connection (the
    SSH connection Ansible uses) unless O(allow_disruptive=true).
  - If a C(chzdev) call fails half way, restores the previous state of each device of that call and
    reports the failure, the active configuration (online again with its old attributes) and the
    persistent one (its udev rule files, C(41-qeth-ID.rules) and C(41-cio-ignore.rules), as they were
    before the call). Devices changed by earlier calls of the run keep their new state.
  - On a host that hides CCW devices with the kernel's blacklist (kernel parameter
    C(cio_ignore=all,!condev), common on RHEL and SLES), a device whose CCW devices are hidden is
    configured like any other when it is named by its full ID C(read:write:data); C(chzdev) frees
    the devices now and lists them in C(/etc/udev/rules.d/41-cio-ignore.rules) for the next boot.
    A configured device that the next boot would hide again (the kernel parameter names it and
    C(41-cio-ignore.rules) does not free it) is persistent drift, corrected with
    C(chzdev -e -p --force qeth ID ...). The next boot is assumed to use the running kernel's command
    line (C(/proc/cmdline)).
author:
  - s390x.network contributors (@s390x-network)
extends_documentation_fragment:
  - s390x.network.attributes
  - s390x.network.qeth
attributes:
  check_mode:
    details: Reports the commands it would run and the state they would leave, without running them.
  idempotent:
    details: A run where nothing drifted runs no C(chzdev) at all.
options:
  config:
    description:
      - The qeth devices.
      - Required for O(state=merged), O(state=replaced), O(state=deleted) and O(state=rendered).
        With O(state=overridden) an empty list deconfigures every qeth device except the one that
        carries the management connection.
    type: list
    elements: dict
    suboptions:
      id:
        description:
          - The device, by its read device (C(0.0.8200), also C(8200)), completed to the group the
            way C(chzdev) does it, or by all three CCW devices C(0.0.8200:0.0.8201:0.0.8202).
          - A device hidden by cio_ignore needs all three (its write and data devices cannot be
            looked up until it is freed), unless it already has a udev rule.
          - With O(scope=persistent) all three may name a device the host does not have (yet), as
            C(chzdev -p) allows; its udev rule applies when the devices appear.
          - Each device once per task - two entries must not share a CCW device, under any spelling,
            and a read device named alone also takes the read device plus one (its write device;
            with O(state=rendered) also plus two). Checked before the host is read.
        type: str
        required: true
      online:
        description:
          - Whether the device is online. V(false) keeps it configured (grouped, attributes set,
            persistent rule with C(online=0)) but offline.
          - Defaults to O(device_defaults.online), else V(true).
        type: bool
      layer2:
        description:
          - Layer 2 (V(true)) or layer 3 (V(false)) mode. Offline-only attribute.
          - HiperSockets used as the source of MacVTap interfaces of KVM guests need layer 2.
        type: bool
      buffer_count:
        description:
          - Number of inbound buffers, 8 to 128. Offline-only attribute. The kernel default is 128 for
            HiperSockets and 64 for OSA; set it explicitly.
        type: int
      portno:
        description:
          - Port of the OSA adapter, 0 or 1. Offline-only attribute.
        type: int
      isolation:
        description:
          - Connection isolation on a shared OSA port. Not supported on HiperSockets.
        type: str
        choices: [none, drop, forward]
      attributes:
        description:
          - Further qeth attributes by their sysfs name, with the value C(chzdev) takes. Accepted
            names - C(portname), C(priority_queueing), C(hw_trap), C(hsuid), C(route4), C(route6),
            C(sniffer), C(ipa_takeover/enable), C(ipa_takeover/invert4), C(ipa_takeover/invert6),
            C(bridge_role), C(bridge_hostnotify), C(bridge_reflect_promisc), C(vnicc/flooding),
            C(vnicc/mcast_flooding), C(vnicc/learning), C(vnicc/learning_timeout) (60..86400),
            C(vnicc/takeover_setvmac), C(vnicc/takeover_learning), C(vnicc/bridge_invisible),
            C(vnicc/rx_bcast).
          - C(bridge_*) and C(vnicc/*) need layer 2 and cannot be combined; C(route4), C(route6),
            C(hsuid), C(sniffer), C(ipa_takeover/*) need layer 3. Booleans may be given as V(true)/V(false).
          - C(portname) and C(hsuid) are 1 to 8 characters, each a letter, a digit, C(@), C(#), C(_) or C(-).
            chzdev writes every value unescaped into its udev rule C(41-qeth-<id>.rules), so no value may
            hold a quote, a backslash, C($), C(%), blanks or control characters.
        type: dict
  device_defaults:
    description:
      - Settings for every entry of O(config) that does not give them itself; a setting the entry
        gives (not null) wins, a setting at a time (C(attributes) as a whole). A null in an entry takes
        the default. The qeth role passes C(qeth_device_defaults) here.
    type: dict
    suboptions:
      online:
        description: O(config[].online) of the entries without it.
        type: bool
      layer2:
        description: O(config[].layer2) of the entries without it.
        type: bool
      buffer_count:
        description: O(config[].buffer_count) of the entries without it.
        type: int
      portno:
        description: O(config[].portno) of the entries without it.
        type: int
      isolation:
        description: O(config[].isolation) of the entries without it.
        type: str
        choices: [none, drop, forward]
      attributes:
        description: O(config[].attributes) of the entries without it.
        type: dict
  state:
    description:
      - V(merged) sets the given attributes and leaves the others alone.
      - V(replaced) gives the listed devices exactly the given attributes; C(layer2),
        C(buffer_count), C(portno) and C(isolation) that are not given go back to their defaults
        (layer 3 and 128 buffers for HiperSockets, layer 2 and 64 buffers for OSA, port 0, no
        isolation); settings of other attributes are removed from the udev rule and reset where
        their default is known.
      - V(overridden) is V(replaced) for the listed devices and also deconfigures every other qeth
        device, except the one that carries the management connection (a warning says so).
      - V(deleted) deconfigures the listed devices (offline, ungrouped, udev rule removed).
      - V(deleted) and V(overridden) treat a device that is offline and has no udev rule as not
        configured.
      - V(gathered) returns the current configuration in RV(gathered) and changes nothing.
      - V(rendered) returns in RV(rendered) the C(chzdev) commands that configure O(config) on a
        host where the devices are not configured yet, without reading or changing the host (a
        single ID is completed as read, read+1, read+2).
    type: str
    choices: [merged, replaced, overridden, deleted, gathered, rendered]
    default: merged
  scope:
    description:
      - Which configuration to compare and change - V(active) (sysfs, lost at reboot),
        V(persistent) (the chzdev udev rule, applied at boot) or V(both).
    type: str
    choices: [both, active, persistent]
    default: both
  allow_disruptive:
    description:
      - Allow taking offline or deconfiguring a device whose network interface carries the
        management connection (found from C(SSH_CONNECTION), addresses and routes), now or at the
        next boot (a udev rule with C(online=0), or none).
      - V(state=overridden) never deconfigures that device, whatever this option says.
    type: bool
    default: false
seealso:
  - module: s390x.network.qeth_info
  - name: chzdev(8)
    description: The s390-tools command this module drives.
    link: https://github.com/ibm-s390-linux/s390-tools/blob/master/zdev/man/chzdev.8
"""

EXAMPLES = r"""
- name: HiperSockets 0.0.8200 in layer 2 with 128 buffers, active and persistent (the study's setup)
  s390x.network.qeth_device:
    config:
      - id: 0.0.8200
        layer2: true
        buffer_count: 128

- name: OSA device on port 1 with isolation, given by all three CCW devices
  s390x.network.qeth_device:
    config:
      - id: 0.0.bd00:0.0.bd01:0.0.bd02
        layer2: true
        portno: 1
        isolation: drop
        attributes:
          vnicc/learning: true

- name: Only repair the udev rules, never bounce a device
  s390x.network.qeth_device:
    scope: persistent
    config:
      - id: 0.0.8200
        layer2: true
        buffer_count: 128

- name: Exactly these qeth devices, deconfigure all others
  s390x.network.qeth_device:
    state: overridden
    config:
      - id: 0.0.8200
        layer2: true

- name: Reconfigure the device that carries the SSH connection (the play may lose the host)
  s390x.network.qeth_device:
    allow_disruptive: true
    config:
      - id: 0.0.bd00
        buffer_count: 128

- name: Show the commands without touching the host
  s390x.network.qeth_device:
    state: rendered
    config:
      - id: 0.0.8200
        layer2: true
        buffer_count: 128
  register: qeth_render

- name: Remove a device
  s390x.network.qeth_device:
    state: deleted
    config:
      - id: 0.0.8300
"""

RETURN = r"""
commands:
  description: The C(chzdev) command lines run (or, in check mode, that would run), in order.
  returned: always
  type: list
  elements: str
  sample:
    - chzdev -a qeth 0.0.8200:0.0.8201:0.0.8202 online=0
    - chzdev -e qeth 0.0.8200:0.0.8201:0.0.8202 layer2=1 buffer_count=128
before:
  description:
    - The devices the task is about, before it ran. Active values at the top level (V(null) where
      the device is not grouped), the udev rule under C(persistent) (V(null) without a rule).
    - C(hidden) lists the device's CCW devices that cio_ignore hides now; C(hidden_at_boot) those the
      next boot would hide although the device has a udev rule (both empty lists when none).
  returned: when O(state) is not V(gathered) or V(rendered)
  type: list
  elements: dict
  sample:
    - id: 0.0.8200:0.0.8201:0.0.8202
      exists: true
      if_name: enc8200
      card_type: HiperSockets
      online: true
      layer2: false
      buffer_count: 64
      portno: 0
      isolation: null
      attributes: {}
      hidden: []
      persistent: null
      hidden_at_boot: []
after:
  description: The same devices after the task (read back from the host; predicted in check mode).
  returned: when O(state) is not V(gathered) or V(rendered)
  type: list
  elements: dict
gathered:
  description:
    - The host's qeth devices as O(config) entries (they can be passed back to the module) - every
      group device with its active values for O(scope=both) and O(scope=active), every device with a
      chzdev udev rule with the rule's values for O(scope=persistent). Unset values are left out.
    - M(s390x.network.qeth_info) reports more (interface, card type, state, both configurations).
  returned: when O(state=gathered)
  type: list
  elements: dict
  sample:
    - id: 0.0.8200:0.0.8201:0.0.8202
      online: true
      layer2: true
      buffer_count: 128
      portno: 0
rendered:
  description: The C(chzdev) command lines for O(config).
  returned: when O(state=rendered)
  type: list
  elements: str
drift:
  description:
    - What differs between O(config) and the host (before the run; after a run, what the run changed),
      one row per device and configuration, for example C(online 0 -> 1) (active) or
      C(missing) (persistent, no udev rule).
  returned: when O(state) is not V(gathered) or V(rendered)
  type: list
  elements: dict
  contains:
    kind:
      description: V(qeth).
      type: str
    object:
      description: The device, its group ID.
      type: str
      sample: 0.0.8200:0.0.8201:0.0.8202
    scope:
      description: V(active) (sysfs) or V(persistent) (udev rules, cio_ignore at boot C(hidden_at_boot)).
      type: str
    difference:
      description: What differs, C(missing), C(to remove) or C(key old -> new) per setting, comma-separated.
      type: str
      sample: buffer_count 64 -> 128
rollback:
  description:
    - After a failed C(chzdev) call, the commands run to restore the device's previous state
      (C(commands)), the errors on the way (C(errors)) and whether the device is back (C(ok)).
      Rule files the failed call changed are written back first (C(write PATH) or C(rm PATH)).
      When the restoring C(chzdev) call fails too, the old attributes and C(online) are written to
      sysfs directly (listed as C(echo VALUE > /sys/...)). Returned with the failure.
  returned: on failure after a change started
  type: dict
missing_tool:
  description:
    - V(chzdev) when a change needs it and it is not installed; the task fails naming the package
      that provides it on this distribution (in check mode it warns instead). Reading the devices and
      a run with nothing to change need no C(chzdev).
  returned: when the task fails because a change needs C(chzdev)
  type: str
  sample: chzdev
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.s390x.network.plugins.module_utils.engine import resource as resource_engine
from ansible_collections.s390x.network.plugins.module_utils.qeth.resource import QethDevices


def _settings():
    return dict(
        online=dict(type="bool"),
        layer2=dict(type="bool"),
        buffer_count=dict(type="int"),
        portno=dict(type="int"),
        isolation=dict(type="str", choices=["none", "drop", "forward"]),
        attributes=dict(type="dict"),
    )


def argument_spec():
    return dict(
        config=dict(type="list", elements="dict", options=dict(id=dict(type="str", required=True), **_settings())),
        device_defaults=dict(type="dict", options=_settings()),
        state=dict(
            type="str",
            default="merged",
            choices=["merged", "replaced", "overridden", "deleted", "gathered", "rendered"],
        ),
        scope=dict(type="str", default="both", choices=["both", "active", "persistent"]),
        allow_disruptive=dict(type="bool", default=False),
    )


def main():
    module = AnsibleModule(
        argument_spec=argument_spec(),
        supports_check_mode=True,
        required_if=[
            ("state", "merged", ("config",)),
            ("state", "replaced", ("config",)),
            ("state", "deleted", ("config",)),
            ("state", "rendered", ("config",)),
        ],
    )
    resource_engine.run(module, QethDevices(module))


if __name__ == "__main__":
    main()
