#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

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
  - Refuses to take a device offline (or deconfigure it) that carries the management connection (the
    SSH connection Ansible uses) unless O(allow_disruptive=true).
  - If a C(chzdev) call fails half way, restores the device's previous active state (online again
    with its old attributes) and reports the failure.
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
        type: str
        required: true
      online:
        description:
          - Whether the device is online. V(false) keeps it configured (grouped, attributes set,
            persistent rule with C(online=0)) but offline.
        type: bool
        default: true
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
rollback:
  description:
    - After a failed C(chzdev) call, the commands run to restore the device's previous active state
      and whether that worked. Returned with the failure.
  returned: on failure after a change started
  type: dict
"""

import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.s390x.network.plugins.module_utils import ccw_blacklist
from ansible_collections.s390x.network.plugins.module_utils import qeth_chzdev as chz
from ansible_collections.s390x.network.plugins.module_utils.mgmt_connection import management_connection
from ansible_collections.s390x.network.plugins.module_utils.qeth_ids import (
    QethIdError, format_group_id, naive_group, parse_group_id)
from ansible_collections.s390x.network.plugins.module_utils.qeth_plan import (
    PlanError, build_desired, plan_delete, plan_device, plan_rollback, predict, predict_delete)
from ansible_collections.s390x.network.plugins.module_utils.qeth_state import (
    DeviceState, capable_devices, card_type_from_ccw, device_view, gathered_entry, note_blacklist, read_state,
    resolve_id, settings_text)
from ansible_collections.s390x.network.plugins.module_utils.qeth_sysfs import SysfsReader

CHANGING_STATES = ("merged", "replaced", "overridden", "deleted")


def argument_spec():
    return dict(
        config=dict(type="list", elements="dict", options=dict(
            id=dict(type="str", required=True),
            online=dict(type="bool", default=True),
            layer2=dict(type="bool"),
            buffer_count=dict(type="int"),
            portno=dict(type="int"),
            isolation=dict(type="str", choices=["none", "drop", "forward"]),
            attributes=dict(type="dict"),
        )),
        state=dict(type="str", default="merged",
                   choices=["merged", "replaced", "overridden", "deleted", "gathered", "rendered"]),
        scope=dict(type="str", default="both", choices=["both", "active", "persistent"]),
        allow_disruptive=dict(type="bool", default=False),
    )


def _label(index, entry):
    return "config[%d] (id %s)" % (index, entry.get("id"))


def _extra_names(config):
    names = set()
    for entry in config:
        names.update((entry.get("attributes") or {}).keys())
    return sorted(names)


def _read_os_release(root):
    for path in (os.path.join(root, "etc", "os-release"), os.path.join(root, "usr", "lib", "os-release")):
        try:
            with open(path, "r") as handle:
                return handle.read()
        except (IOError, OSError):
            continue
    return ""


def _blank(busid, group_id, cio=None):
    """A device the host has neither grouped nor in a udev rule."""
    dev = DeviceState(busid)
    dev.ids = tuple(group_id.split(":"))
    return note_blacklist(dev, cio)


def _diff_text(views_by_busid, devices, names_by_busid, scope, cio=None):
    lines = []
    for busid in sorted(views_by_busid):
        dev = devices.get(busid)
        if dev is None:
            hidden = cio.hidden_now(views_by_busid[busid].split(":")) if cio is not None else []
            lines.append("qeth %s: not configured%s" % (
                views_by_busid[busid], "; hidden by cio_ignore: %s" % ",".join(hidden) if hidden else ""))
            continue
        names = names_by_busid.get(busid)
        lines.append("qeth %s" % dev.group_id)
        if scope in ("both", "active"):
            text = settings_text(dev.active, names) if dev.exists else "(not grouped)"
            if dev.hidden:
                text += "; hidden by cio_ignore: %s" % ",".join(dev.hidden)
            lines.append("  active:     %s" % text)
        if scope in ("both", "persistent"):
            text = settings_text(dev.persistent, names) if dev.persistent is not None else "(no udev rule)"
            if dev.persistent is not None and dev.hidden_at_boot:
                text += "; hidden at boot by cio_ignore: %s" % ",".join(dev.hidden_at_boot)
            lines.append("  persistent: %s" % text)
    return "\n".join(lines) + ("\n" if lines else "")


def render(module, config, scope):
    """state=rendered: commands for a host where the devices are not configured, host untouched."""
    commands = []
    errors = []
    for index, entry in enumerate(config):
        label = _label(index, entry)
        try:
            ids = parse_group_id(entry["id"])
            if len(ids) == 1:
                ids = naive_group(ids[0])
            want = build_desired(entry, ids[0], ids, None, "merged", None, label)
        except (QethIdError, PlanError) as exc:
            errors.append("%s: %s" % (label, exc) if isinstance(exc, QethIdError) else str(exc))
            continue
        commands.extend(step.command for step in plan_device(None, want, scope, chz.TOOL))
    if errors:
        module.fail_json(msg="; ".join(errors))
    module.exit_json(changed=False, rendered=commands, commands=[])


class Runner(object):
    def __init__(self, module):
        self.module = module
        self.executed = []

    def run(self, step):
        rc, out, err = self.module.run_command(step.argv, environ_update={"LC_ALL": "C"})
        self.executed.append(step.command)
        return rc, out, err


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
    params = module.params
    state = params["state"]
    scope = params["scope"]
    config = params["config"] or []
    allow_disruptive = params["allow_disruptive"]

    # Input checks that need no host: malformed IDs and attribute values.
    errors = []
    for index, entry in enumerate(config):
        label = _label(index, entry)
        try:
            parse_group_id(entry["id"])
        except QethIdError as exc:
            errors.append("%s: %s" % (label, exc))
            continue
        try:
            build_desired(entry, "0.0.0000", ("0.0.0000",), None, "merged", None, label)
        except PlanError as exc:
            errors.append(str(exc))
    if errors:
        module.fail_json(msg="; ".join(errors))

    if state == "rendered":
        render(module, config, scope)
        return

    reader = SysfsReader()
    root = reader.root
    binary = None
    if state in CHANGING_STATES:
        binary = module.get_bin_path(chz.TOOL)
        if not binary:
            module.fail_json(msg=chz.missing_tool_message(_read_os_release(root)))

    cio = ccw_blacklist.read(root)
    devices = read_state(reader, root, extra_names=_extra_names(config), cio=cio)

    if state == "gathered":
        if scope == "persistent":
            listed = [d for _b, d in sorted(devices.items()) if d.persistent is not None]
        else:
            listed = [d for _b, d in sorted(devices.items()) if d.exists]
        gathered = [gathered_entry(d, scope) for d in listed]
        module.exit_json(changed=False, gathered=gathered, commands=[])

    # Resolve IDs against the host; build the desired state of every listed device.
    wants = []
    seen = {}
    for index, entry in enumerate(config):
        label = _label(index, entry)
        try:
            busid, ids = resolve_id(entry["id"], devices, reader, cio)
        except QethIdError as exc:
            if state == "deleted" and devices.get(parse_group_id(entry["id"])[0]) is None:
                # neither grouped nor in a udev rule: nothing left to delete
                module.warn("%s: no such qeth device configured on this host, nothing to delete" % label)
                continue
            errors.append("%s: %s; qeth devices on this host: %s"
                          % (label, exc, ", ".join(capable_devices(devices, reader)) or "none"))
            continue
        if busid in seen:
            errors.append("%s: the same device as config[%d]" % (label, seen[busid]))
            continue
        seen[busid] = index
        dev = devices.get(busid)
        if state == "deleted":
            wants.append((busid, ids, None, entry))
            continue
        if dev is not None and dev.exists:
            card_type = dev.card_type
        else:
            card_type = card_type_from_ccw(reader.ccw_info(busid))
        try:
            want = build_desired(entry, busid, ids, dev, state, card_type, label)
        except PlanError as exc:
            errors.append(str(exc))
            continue
        wants.append((busid, ids, want, entry))
    if errors:
        module.fail_json(msg="; ".join(errors))

    # Plan.
    plans = []          # (busid, group_id, steps, kind "configure"|"delete", Desired or None)
    names_by_busid = {}
    for busid, ids, want, entry in wants:
        dev = devices.get(busid)
        if want is None:
            group_id = format_group_id(ids)
            plans.append((busid, group_id, plan_delete(dev, group_id, scope, binary), "delete", None))
            names_by_busid[busid] = set()
        else:
            plans.append((busid, want.group_id, plan_device(dev, want, scope, binary), "configure", want))
            names_by_busid[busid] = want.touched_names() | set(want.persistent_removes)

    mgmt = None
    mgmt_details = {}

    def mgmt_names():
        return management_connection(module, proc_root=os.path.join(root, "proc"), sys_root=os.path.join(root, "sys"))

    if state == "overridden":
        listed = set(b for b, _i, _w, _e in wants)
        for busid, dev in sorted(devices.items()):
            if busid in listed or not dev.configured:
                continue
            if mgmt is None:
                mgmt, mgmt_details = mgmt_names()
            if dev.if_name and dev.if_name in mgmt:
                module.warn("state overridden leaves qeth device %s alone: its interface %s carries the "
                            "management connection" % (dev.group_id, dev.if_name))
                continue
            plans.append((busid, dev.group_id, plan_delete(dev, dev.group_id, scope, binary),
                          "delete", None))
            names_by_busid[busid] = set()

    # Safety: no disruptive step on the management interface without allow_disruptive.
    for busid, group_id, steps, kind, want in plans:
        dev = devices.get(busid)
        if not any(s.disruptive for s in steps) or dev is None or not dev.if_name:
            continue
        if mgmt is None:
            mgmt, mgmt_details = mgmt_names()
        if dev.if_name in mgmt and not allow_disruptive:
            conn = mgmt_details.get("ssh_connection") or {}
            module.fail_json(
                msg="qeth device %s: its interface %s carries the management connection (SSH from %s to %s); "
                    "the change takes the device offline, now or at the next boot (%s), which would cut the "
                    "connection. Set allow_disruptive: true to do it anyway."
                    % (group_id, dev.if_name, conn.get("client"), conn.get("server"),
                       "; ".join(s.command for s in steps if s.disruptive)),
                commands=[], management_interfaces=sorted(mgmt))
        if want is not None and "layer2" in want.settings and dev.exists and \
                dev.active.get("layer2") not in (None, want.settings["layer2"]):
            uppers = reader.netdev_uppers(dev.if_name)
            if uppers:
                module.warn("qeth device %s: changing layer2 on %s, which has upper devices %s (MacVTap "
                            "guests or VLANs lose their link while it is offline)"
                            % (group_id, dev.if_name, ", ".join(uppers)))

    before_views = {}
    for busid, group_id, steps, kind, want in plans:
        dev = devices.get(busid)
        before_views[busid] = device_view(dev if dev is not None else _blank(busid, group_id, cio),
                                          names_by_busid.get(busid, ()), scope)
    all_steps = [s for _b, _g, steps, _k, _w in plans for s in steps]
    commands = [s.command for s in all_steps]
    changed = bool(all_steps)

    predicted = dict(devices)
    for busid, group_id, steps, kind, want in plans:
        if not steps:
            continue
        if kind == "delete":
            predicted[busid] = predict_delete(devices.get(busid), scope)
        else:
            predicted[busid] = predict(devices.get(busid), want, scope, DeviceState)

    diff = None
    if module._diff:
        diff = {"before": _diff_text(dict((b, g) for b, g, _s, _k, _w in plans), devices, names_by_busid, scope,
                                     cio),
                "after": _diff_text(dict((b, g) for b, g, _s, _k, _w in plans), predicted, names_by_busid, scope),
                "before_header": "qeth devices (before)", "after_header": "qeth devices (after)"}

    def views(state_map):
        out = []
        for busid, group_id, _s, _k, _w in plans:
            dev = state_map.get(busid)
            out.append(device_view(dev if dev is not None else _blank(busid, group_id, cio),
                                   names_by_busid.get(busid, ()), scope))
        return out

    result = dict(changed=changed, commands=commands, before=[before_views[b] for b, _g, _s, _k, _w in plans])
    if diff is not None:
        result["diff"] = diff
    if module.check_mode or not changed:
        result["after"] = views(predicted)
        module.exit_json(**result)

    # Apply, device by device; on a failure restore that device's previous active state.
    reader.forget()
    runner = Runner(module)
    for busid, group_id, steps, kind, want in plans:
        for step in steps:
            rc, out, err = runner.run(step)
            if rc == 0:
                continue
            failure = chz.failure_message(step.argv, rc, out, err)
            before_dev = devices.get(busid)
            now = read_state(reader, root, extra_names=_extra_names(config)).get(busid)
            rollback = {"commands": [], "ok": True, "errors": []}
            touched_active = any(s.scope in ("both", "active") for s in steps[:steps.index(step) + 1])
            if touched_active and now is not None:
                names = set(before_dev.active) - set(["online"]) if before_dev is not None else set()
                for rstep in plan_rollback(before_dev, now, names, binary):
                    rrc, rout, rerr = module.run_command(rstep.argv, environ_update={"LC_ALL": "C"})
                    rollback["commands"].append(rstep.command)
                    if rrc != 0:
                        rollback["ok"] = False
                        rollback["errors"].append(chz.failure_message(rstep.argv, rrc, rout, rerr))
                        break
            after_devices = read_state(reader, root, extra_names=_extra_names(config))
            result["after"] = views(after_devices)
            result["commands"] = runner.executed
            result["changed"] = True
            result["rollback"] = rollback
            msg = "qeth device %s: %s" % (group_id, failure)
            if rollback["commands"]:
                msg += "; previous active state %s (%s)" % (
                    "restored" if rollback["ok"] else "NOT restored",
                    "; ".join(rollback["commands"]))
            module.fail_json(msg=msg, rc=rc, stdout=out, stderr=err, **result)

    after_devices = read_state(reader, root, extra_names=_extra_names(config))
    result["after"] = views(after_devices)
    result["commands"] = runner.executed
    for busid, group_id, steps, kind, want in plans:
        if want is None or not steps:
            continue
        left = plan_device(after_devices.get(busid), want, scope, binary)
        if left:
            module.warn("qeth device %s still differs after chzdev ran; the next run would run: %s"
                        % (group_id, "; ".join(s.command for s in left)))
    if diff is not None:
        diff["after"] = _diff_text(dict((b, g) for b, g, _s, _k, _w in plans), after_devices, names_by_busid, scope)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
