#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
module: qeth_info
short_description: Report the qeth network devices (HiperSockets, OSA-Express) of a Linux on IBM Z host
version_added: 0.1.0
description:
  - Lists every qeth group device with its active attributes (sysfs) and its persistent
    configuration (the udev rule C(chzdev) writes).
  - Also lists devices that only have a udev rule, and, when C(lszdev) is installed, adds what it
    reports (online, persistent, names).
  - Changes nothing.
author:
  - s390x.network contributors (@s390x-network)
extends_documentation_fragment:
  - s390x.network.attributes.info_module
  - s390x.network.qeth
options:
  ids:
    description:
      - Report only these devices, by read device (C(0.0.8200)) or full ID. All devices when not given.
    type: list
    elements: str
  attributes:
    description:
      - Further sysfs attributes to read for every device, for example C(vnicc/learning) or C(bridge_role).
      - A name is made of letters, digits, C(_), C(.) and C(-), in parts separated by one C(/) that do
        not start with a dot.
    type: list
    elements: str
    default: []
  use_lszdev:
    description:
      - Run C(lszdev) once (if installed) and add its view of each device as C(lszdev).
    type: bool
    default: true
seealso:
  - module: s390x.network.qeth_device
"""

EXAMPLES = r"""
- name: Read the qeth devices
  s390x.network.qeth_info:
  register: qeth

- name: Check the study's HiperSockets setup
  ansible.builtin.assert:
    that:
      - dev.layer2 == true
      - dev.buffer_count == 128
      - dev.persistent.buffer_count == 128
  vars:
    dev: "{{ qeth.devices | selectattr('busid', 'equalto', '0.0.8200') | first }}"

- name: Read VNIC characteristics too
  s390x.network.qeth_info:
    ids: [0.0.bd00]
    attributes: [vnicc/learning, bridge_role]
"""

RETURN = r"""
devices:
  description: One entry per qeth device, sorted by bus ID.
  returned: always
  type: list
  elements: dict
  contains:
    id:
      description: The group ID, C(read:write:data).
      type: str
      sample: 0.0.8200:0.0.8201:0.0.8202
    busid:
      description: The bus ID (read device).
      type: str
      sample: 0.0.8200
    exists:
      description: Whether the group device exists in the active configuration.
      type: bool
    if_name:
      description: The network interface, while online.
      type: str
      sample: enc8200
    card_type:
      description: The kernel's card type.
      type: str
      sample: HiperSockets
    chpid:
      description: The CHPID, two hex digits.
      type: str
      sample: F0
    online:
      description: Whether the device is online.
      type: bool
    state:
      description: The qeth state, for example C(UP (LAN ONLINE)) or C(DOWN).
      type: str
    layer2:
      description: Layer 2 mode (V(null) while undetermined).
      type: bool
    buffer_count:
      description: Number of inbound buffers.
      type: int
    portno:
      description: OSA port number.
      type: int
    isolation:
      description: Connection isolation (V(null) where not supported, as on HiperSockets).
      type: str
    inbuf_size:
      description: Inbound buffer size, for example C(40k).
      type: str
    attributes:
      description: Values of the attributes asked for with O(attributes).
      type: dict
    persistent:
      description:
        - The settings in the device's chzdev udev rule (attribute -> value as in the rule, with
          C(online), C(layer2), C(buffer_count) and C(portno) as typed values), or V(null) without a rule.
      type: dict
    hidden:
      description:
        - The device's CCW devices that the kernel's blacklist (C(/proc/cio_ignore)) hides now; they
          are not in C(/sys/bus/ccw/devices) until freed. Empty when none is hidden.
      type: list
      elements: str
      sample: [0.0.8200, 0.0.8201, 0.0.8202]
    hidden_at_boot:
      description:
        - For a device with a udev rule, its CCW devices that the next boot blacklists (the kernel
          parameter C(cio_ignore=) of the running kernel names them and C(41-cio-ignore.rules) does
          not free them), so the device would not come back after a reboot. Empty when none is.
      type: list
      elements: str
    lszdev:
      description:
        - What lszdev reports (C(online), C(persistent), C(names)), when it ran.
        - C(auto_configured) is true when lszdev shows the device as C(auto) (no persistent
          configuration, but an auto-configuration rule from the firmware's I/O configuration).
      type: dict
lszdev_available:
  description: Whether lszdev was found and ran successfully.
  returned: always
  type: bool
cio_ignore:
  description: The kernel's CCW device blacklist, now and at the next boot.
  returned: always
  type: dict
  contains:
    ignored:
      description: The ranges in C(/proc/cio_ignore), V(null) when the host has no such file.
      type: list
      elements: str
      sample: [0.0.0000-0.0.81ff, 0.0.8203-0.0.ffff]
    kernel_parameter:
      description: The values of C(cio_ignore=) in the running kernel's command line (C(/proc/cmdline)).
      type: list
      elements: str
      sample: ["all,!condev"]
    freed_at_boot:
      description: The lists that C(41-cio-ignore.rules) frees when the ccw subsystem appears at boot.
      type: list
      elements: str
      sample: [8200-8205]
    ignored_at_boot:
      description:
        - The blacklist the next boot leaves, as ranges (the kernel parameter, then the free lists);
          V(null) without a C(cio_ignore=) parameter. Assumes the next boot uses the running
          kernel's command line.
      type: list
      elements: str
"""

import re

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.s390x.network.plugins.module_utils.qeth import ccw_blacklist
from ansible_collections.s390x.network.plugins.module_utils.qeth.ids import QethIdError, ccw_sort_key, parse_group_id
from ansible_collections.s390x.network.plugins.module_utils.qeth.lszdev import (
    lszdev_argv,
    parse_pairs,
    persistence,
    yes_no,
)
from ansible_collections.s390x.network.plugins.module_utils.qeth.state import read_state
from ansible_collections.s390x.network.plugins.module_utils.qeth.sysfs import SysfsReader

_TYPED_INT = ("buffer_count", "portno")
# a qeth sysfs attribute below the group device, such as layer2 or vnicc/learning
_ATTRIBUTE_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*(?:/[A-Za-z0-9_][A-Za-z0-9_.-]*)*")


def _typed(name, value):
    if value is None:
        return None
    if name == "layer2" or name == "online":
        return value == "1" if value in ("0", "1") else None
    if name in _TYPED_INT:
        try:
            return int(value)
        except ValueError:
            return value
    return value


def check_input(params):
    """(read devices to report, None for all; errors) from the parameters, without the host."""
    wanted, errors = None, []
    if params["ids"]:
        wanted = set()
        for index, text in enumerate(params["ids"]):
            try:
                wanted.add(parse_group_id(text)[0])
            except QethIdError as exc:
                errors.append("ids[%d]: %s" % (index, exc))
    for index, name in enumerate(params["attributes"]):
        if not isinstance(name, str) or not _ATTRIBUTE_RE.fullmatch(name):
            errors.append(
                "attributes[%d]: %r is not a sysfs attribute name (letters, digits, _ . - in parts separated "
                "by one /, not starting with a dot, such as vnicc/learning)" % (index, name)
            )
    return wanted, errors


def device_entry(dev, attributes):
    active = dev.active if dev.exists else {}
    entry = {
        "id": dev.group_id,
        "busid": dev.busid,
        "exists": dev.exists,
        "if_name": dev.info.get("if_name"),
        "card_type": dev.info.get("card_type"),
        "chpid": dev.info.get("chpid"),
        "online": dev.online,
        "state": dev.info.get("state"),
        "layer2": _typed("layer2", active.get("layer2")),
        "buffer_count": _typed("buffer_count", active.get("buffer_count")),
        "portno": _typed("portno", active.get("portno")),
        "isolation": active.get("isolation"),
        "inbuf_size": dev.info.get("inbuf_size"),
        "attributes": dict((name, active.get(name)) for name in attributes),
        "persistent": None,
        "hidden": list(dev.hidden),
        "hidden_at_boot": list(dev.hidden_at_boot) if dev.persistent is not None else [],
    }
    if dev.persistent is not None:
        entry["persistent"] = dict(
            (k, _typed(k, v) if k in ("online", "layer2") + _TYPED_INT else v) for k, v in dev.persistent.items()
        )
    return entry


def main():
    module = AnsibleModule(
        argument_spec=dict(
            ids=dict(type="list", elements="str"),
            attributes=dict(type="list", elements="str", default=[]),
            use_lszdev=dict(type="bool", default=True),
        ),
        supports_check_mode=True,
    )
    wanted, errors = check_input(module.params)
    if errors:
        module.fail_json(msg="; ".join(errors))
    attributes = module.params["attributes"]

    reader = SysfsReader()
    cio = ccw_blacklist.read()
    devices = read_state(reader, extra_names=attributes, cio=cio)

    lszdev_rows = {}
    lszdev_ok = False
    if module.params["use_lszdev"]:
        binary = module.get_bin_path("lszdev")
        if binary:
            rc, out, _err = module.run_command(lszdev_argv(binary), environ_update={"LC_ALL": "C"})
            if rc == 0:
                lszdev_ok = True
                for row in parse_pairs(out):
                    ident = row.get("ID", "")
                    try:
                        busid = parse_group_id(ident)[0]
                    except QethIdError:
                        continue
                    persistent, auto = persistence(row.get("PERS"))
                    lszdev_rows[busid] = {
                        "online": yes_no(row.get("ON")),
                        "persistent": persistent,
                        "auto_configured": auto,
                        "names": row.get("NAMES", "").split() if row.get("NAMES") else [],
                    }

    result = []
    for busid in sorted(devices, key=ccw_sort_key):
        if wanted is not None and busid not in wanted:
            continue
        entry = device_entry(devices[busid], attributes)
        if busid in lszdev_rows:
            entry["lszdev"] = lszdev_rows[busid]
        result.append(entry)
    module.exit_json(changed=False, devices=result, lszdev_available=lszdev_ok, cio_ignore=cio.as_dict())


if __name__ == "__main__":
    main()
