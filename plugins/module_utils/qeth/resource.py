# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""qeth_device on the resource engine: qeth group devices read from sysfs and the chzdev udev
rules, changed with chzdev (planning in qeth_plan, reading in qeth_state)."""

from ansible_collections.s390x.network.plugins.module_utils.qeth import ccw_blacklist
from ansible_collections.s390x.network.plugins.module_utils.engine import host_files
from ansible_collections.s390x.network.plugins.module_utils.engine import kernel_write
from ansible_collections.s390x.network.plugins.module_utils.qeth import chzdev as chz
from ansible_collections.s390x.network.plugins.module_utils.engine.mgmt_connection import management_connection
from ansible_collections.s390x.network.plugins.module_utils.qeth.ids import (
    QethIdError,
    format_group_id,
    group_members,
    naive_group,
    parse_group_id,
)
from ansible_collections.s390x.network.plugins.module_utils.qeth.plan import (
    PlanError,
    build_desired,
    plan_delete,
    plan_device,
    plan_rollback,
    predict,
    predict_delete,
    with_defaults,
)
from ansible_collections.s390x.network.plugins.module_utils.qeth.state import (
    DeviceState,
    capable_devices,
    card_type_from_ccw,
    device_view,
    gathered_entry,
    note_blacklist,
    read_state,
    resolve_id,
)
from ansible_collections.s390x.network.plugins.module_utils.qeth.sysfs import SysfsReader
from ansible_collections.s390x.network.plugins.module_utils.qeth.udev_rules import rule_path
from ansible_collections.s390x.network.plugins.module_utils.qeth.attributes import OFFLINE_ONLY
from ansible_collections.s390x.network.plugins.module_utils.engine.resource import Change, Resource, ResourceError, Step

CHANGING_STATES = ("merged", "replaced", "overridden", "deleted")

# why an entry takes a CCW device it does not name (qeth_ids.group_members)
_IMPLIED = {
    "write": "a read device named alone takes the read device plus one as its write device",
    "data": "state rendered completes a read device to read, read+1, read+2",
}

# view keys of the active configuration compared for drift rows
_ACTIVE_KEYS = ("exists", "hidden", "online", "layer2", "buffer_count", "portno", "isolation", "attributes")


def label(index, entry):
    return "config[%d] (id %s)" % (index, entry.get("id"))


def scoped_view(entry):
    """A device view (``device_view``) as the engine's scopes: the active settings (``_ACTIVE_KEYS``)
    and the udev rule with what cio_ignore hides at boot (None: no rule)."""
    view = {}
    if "exists" in entry:
        view["active"] = dict((k, entry.get(k)) for k in _ACTIVE_KEYS)
    if "persistent" in entry:
        rule = entry["persistent"]
        view["persistent"] = None if rule is None else dict(rule, hidden_at_boot=entry.get("hidden_at_boot") or [])
    return view


class HostState(object):
    """What the module read: the devices and the blacklist."""

    def __init__(self, devices, cio):
        self.devices = devices
        self.cio = cio


class QethDevices(Resource):
    kind = "qeth device"
    drift_kind = "qeth"
    scopes = ("active", "persistent")
    runner_name = "chzdev"
    restores = "previous state"

    def __init__(self, module, reader=None):
        super(QethDevices, self).__init__(module)
        self.reader = reader or SysfsReader()
        self.config = with_defaults(self.params["config"] or [], self.params.get("device_defaults"))
        self.state = self.params["state"]
        self.scope = self.params["scope"]
        self.binary = None
        self.missing_tool = None
        self._mgmt_cache = None
        self.extra_names = sorted(set(n for e in self.config for n in (e.get("attributes") or {})))

    # -- no host -------------------------------------------------------------------------------
    def validate(self):
        errors = []
        owners = {}  # CCW device ID -> (index of the entry that takes it, how); see group_members
        for index, entry in enumerate(self.config):
            name = label(index, entry)
            try:
                members = group_members(parse_group_id(entry["id"]), complete=self.state == "rendered")
            except QethIdError as exc:
                errors.append("%s: %s" % (name, exc))
                continue
            clash = [(c, how) for c, how in members if c in owners]
            if clash:
                others = sorted(set(owners[c][0] for c, dummy in clash))
                named = [c for c, how in clash if how is None and owners[c][1] is None]
                if named:
                    why = "both name CCW device %s" % ", ".join(named)
                else:
                    implied = set(how for c, how in clash) | set(owners[c][1] for c, dummy in clash)
                    why = "both take CCW device %s; %s" % (
                        ", ".join(c for c, dummy in clash),
                        "; ".join(_IMPLIED[how] for how in sorted(_IMPLIED) if how in implied),
                    )
                errors.append(
                    "%s: names the same device as %s (%s)"
                    % (name, " and ".join(label(i, self.config[i]) for i in others), why)
                )
                continue
            owners.update((c, (index, how)) for c, how in members)
            try:
                build_desired(entry, "0.0.0000", ("0.0.0000",), None, "merged", None, name)
            except PlanError as exc:
                errors.append(str(exc))
        return errors

    def render(self):
        commands = []
        for index, entry in enumerate(self.config):
            ids = parse_group_id(entry["id"])
            if len(ids) == 1:
                ids = naive_group(ids[0])  # validate() checked that it fits
            want = build_desired(entry, ids[0], ids, None, "merged", None, label(index, entry))
            commands.extend(step.command for step in plan_device(None, want, self.scope, chz.TOOL))
        return commands

    # -- host ----------------------------------------------------------------------------------
    @staticmethod
    def _os_release():
        for path in ("/etc/os-release", "/usr/lib/os-release"):
            try:
                text = host_files.read_text(path)
            except (IOError, OSError):
                continue
            if text is not None:
                return text
        return ""

    def read(self):
        # chzdev is looked up here but needed only for a change (guard): a host without it can be
        # read, and a no-op needs no tool.
        if self.binary is None and self.state in CHANGING_STATES:
            found = self.module.get_bin_path(chz.TOOL)
            self.missing_tool = None if found else chz.TOOL
            self.binary = found or chz.TOOL
        self.reader.forget()
        cio = ccw_blacklist.read()
        return HostState(read_state(self.reader, extra_names=self.extra_names, cio=cio), cio)

    def gather(self, current):
        devices = current.devices
        if self.scope == "persistent":
            listed = [d for _b, d in sorted(devices.items()) if d.persistent is not None]
        else:
            listed = [d for _b, d in sorted(devices.items()) if d.exists]
        return [gathered_entry(d, self.scope) for d in listed]

    def plan(self, current):
        devices = current.devices
        changes = []
        errors = []
        seen = {}
        for index, entry in enumerate(self.config):
            name = label(index, entry)
            try:
                busid, ids = resolve_id(
                    entry["id"], devices, self.reader, current.cio, missing_ok=self.scope == "persistent"
                )
            except QethIdError as exc:
                if self.state == "deleted" and devices.get(parse_group_id(entry["id"])[0]) is None:
                    # neither grouped nor in a udev rule: nothing left to delete
                    self.module.warn("%s: no such qeth device configured on this host, nothing to delete" % name)
                    continue
                errors.append(
                    "%s: %s; qeth devices on this host: %s"
                    % (name, exc, ", ".join(capable_devices(devices, self.reader)) or "none")
                )
                continue
            if busid in seen:
                errors.append("%s: the same device as config[%d]" % (name, seen[busid]))
                continue
            seen[busid] = index
            dev = devices.get(busid)
            if self.state == "deleted":
                changes.append(self._delete(dev, busid, format_group_id(ids)))
                continue
            if dev is not None and dev.exists:
                card_type = dev.card_type
            else:
                card_type = card_type_from_ccw(self.reader.ccw_info(busid))
            try:
                want = build_desired(entry, busid, ids, dev, self.state, card_type, name)
            except PlanError as exc:
                errors.append(str(exc))
                continue
            change = Change(busid, plan_device(dev, want, self.scope, self.binary), want=want, label=want.group_id)
            change.names = want.touched_names() | set(want.persistent_removes)
            changes.append(change)
        if errors:
            raise ResourceError("; ".join(errors))
        if self.state == "overridden":
            listed = set(c.subject for c in changes)
            for busid, dev in sorted(devices.items()):
                if busid in listed or not dev.configured:
                    continue
                if dev.if_name and dev.if_name in self._mgmt()[0]:
                    self.module.warn(
                        "state overridden leaves qeth device %s alone: its interface %s carries the "
                        "management connection" % (dev.group_id, dev.if_name)
                    )
                    continue
                changes.append(self._delete(dev, busid, dev.group_id))
        return changes

    def _delete(self, dev, busid, group_id):
        change = Change(busid, plan_delete(dev, group_id, self.scope, self.binary), label=group_id)
        change.names = set()
        return change

    def _mgmt(self):
        if self._mgmt_cache is None:
            self._mgmt_cache = management_connection(self.module)
        return self._mgmt_cache

    def guard(self, current, changes):
        if self.missing_tool and any(change.steps for change in changes):
            message = chz.missing_tool_message(self._os_release())
            if not self.module.check_mode:
                raise ResourceError(
                    message,
                    missing_tool=self.missing_tool,
                    commands=[s.command for change in changes for s in change.steps],
                )
            self.module.warn(message)
        for change in changes:
            dev = current.devices.get(change.subject)
            if not any(s.disruptive for s in change.steps) or dev is None or not dev.if_name:
                continue
            mgmt, details = self._mgmt()
            if dev.if_name in mgmt and not self.params["allow_disruptive"]:
                conn = details.get("ssh_connection") or {}
                raise ResourceError(
                    "qeth device %s: its interface %s carries the management connection (SSH from %s to %s); "
                    "the change takes the device offline, now or at the next boot (%s), which would cut the "
                    "connection. Set allow_disruptive: true to do it anyway."
                    % (
                        change.label,
                        dev.if_name,
                        conn.get("client"),
                        conn.get("server"),
                        "; ".join(s.command for s in change.steps if s.disruptive),
                    ),
                    commands=[],
                    management_interfaces=sorted(mgmt),
                )
            want = change.want
            if (
                want is not None
                and "layer2" in want.settings
                and dev.exists
                and dev.active.get("layer2") not in (None, want.settings["layer2"])
            ):
                uppers = self.reader.netdev_uppers(dev.if_name)
                if uppers:
                    self.module.warn(
                        "qeth device %s: changing layer2 on %s, which has upper devices %s (MacVTap "
                        "guests or VLANs lose their link while it is offline)"
                        % (change.label, dev.if_name, ", ".join(uppers))
                    )

    def predict(self, current, changes):
        devices = dict(current.devices)
        for change in changes:
            if not change.steps:
                continue
            if change.want is None:
                devices[change.subject] = predict_delete(current.devices.get(change.subject), self.scope)
            else:
                devices[change.subject] = predict(
                    current.devices.get(change.subject), change.want, self.scope, DeviceState
                )
        return HostState(devices, current.cio)

    def _device(self, state, change):
        dev = state.devices.get(change.subject)
        if dev is None:
            # neither grouped nor in a udev rule
            dev = DeviceState(change.subject)
            dev.ids = tuple(change.label.split(":"))
            note_blacklist(dev, state.cio)
        return dev

    def public_view(self, state, change):
        return device_view(self._device(state, change), change.names, self.scope)

    def view(self, state, change):
        return scoped_view(self.public_view(state, change))

    def rollback(self, before, now, change, ran):
        """Restore what the steps that ran touched: the udev rule files as they were (a chzdev call
        that failed half way may have written part of the new settings into the rule), then the
        previous active state (chzdev leaves equal values alone, so only what differs is set back)."""
        steps = []
        if any(s.scope in ("both", "persistent") for s in ran):
            files = self._rule_files_step(change)
            if files is not None:
                steps.append(files)
        now_dev = now.devices.get(change.subject)
        if now_dev is None or not any(s.scope in ("both", "active") for s in ran):
            return steps
        before_dev = before.devices.get(change.subject)
        names = set(before_dev.active) - set(["online"]) if before_dev is not None else set()
        return steps + plan_rollback(before_dev, now_dev, names, self.binary)

    def batch_key(self, step):
        """chzdev applies one command line to a list of devices (``qeth ID1,ID2``): the steps of
        several devices that differ only in the device ID run as one call, so chzdev starts and
        scans the system once for them instead of once per device."""
        argv = getattr(step, "argv", None)
        if not argv or step.kind == "rollback" or chz.DEVTYPE not in argv:
            return None
        at = argv.index(chz.DEVTYPE) + 1
        return (tuple(argv[:at]), tuple(argv[at + 1 :]), step.kind, step.scope, step.disruptive)

    def merge_steps(self, steps):
        first = steps[0]
        at = first.argv.index(chz.DEVTYPE) + 1
        argv = first.argv[:at] + [",".join(s.argv[at] for s in steps)] + first.argv[at + 1 :]
        return Step(argv=argv, scope=first.scope, disruptive=first.disruptive, kind=first.kind)

    def begin(self, changes):
        self._remember_rule_files(changes)

    def _remember_rule_files(self, changes):
        """The rule files a change's persistent steps may write (the device's chzdev rule and
        41-cio-ignore.rules), as they are right before the change's first step runs (a device
        configured earlier in the run may have added its line to 41-cio-ignore.rules: a rollback
        must not take that line away)."""
        for change in changes:
            if any(s.scope in ("both", "persistent") for s in change.steps):
                paths = (rule_path(change.subject), ccw_blacklist.CIO_IGNORE_RULE)
                change.old_files = dict((p, host_files.read_text(p)) for p in paths)

    def _rule_files_step(self, change):
        """A step that writes back (or removes) the rule files that differ from what they were."""
        old = getattr(change, "old_files", None) or {}
        paths = [p for p in sorted(old) if host_files.read_text(p) != old[p]]
        if not paths:
            return None

        def act():
            step.ran = []
            for p in paths:
                if old[p] is None:
                    host_files.remove(p)
                else:
                    host_files.write_atomic(p, old[p], self.module)
                step.ran.append(host_files.change_text(p, old[p]))

        step = Step(
            action=act,
            texts=[host_files.change_text(p, old[p]) for p in paths],
            scope="persistent",
            kind="rollback",
            subject=change.subject,
        )
        return step

    def second_rollback(self, before, now, change):
        """chzdev could not put the device back: write its old attributes and ``online`` to sysfs
        directly (the interface chzdev itself writes): grouping first if the group is gone,
        offline-only attributes while offline (layer2 first), then online, then the rest."""
        files = self._rule_files_step(change)
        steps = [files] if files is not None else []
        old = before.devices.get(change.subject)
        cur = now.devices.get(change.subject)
        if old is None or not old.exists or not old.ids:
            return steps
        if cur is None or not cur.exists:
            steps.append(self._sysfs_step(("bus", "ccwgroup", "drivers", "qeth", "group"), ",".join(old.ids)))
            current = {}
        else:
            current = cur.active
        changed = dict((n, v) for n, v in old.active.items() if n != "online" and v is not None and current.get(n) != v)
        offline_only = [n for n in OFFLINE_ONLY if n in changed]
        if offline_only and current.get("online") == "1":
            steps.append(self._sysfs_step(self._attr(change.subject, "online"), "0"))
        for name in offline_only:
            steps.append(self._sysfs_step(self._attr(change.subject, name), changed[name]))
        if old.online and (current.get("online") != "1" or offline_only):
            steps.append(self._sysfs_step(self._attr(change.subject, "online"), "1"))
        for name in sorted(n for n in changed if n not in OFFLINE_ONLY):
            steps.append(self._sysfs_step(self._attr(change.subject, name), changed[name]))
        return steps

    @staticmethod
    def _attr(busid, name):
        return ("bus", "ccwgroup", "devices", busid) + tuple(name.split("/"))

    def _sysfs_step(self, parts, value):
        path = self.reader.host_path(*parts)
        return Step(
            action=lambda: kernel_write.write_value(path, "%s\n" % value),
            text="echo %s > %s" % (value, path),
            scope="active",
            kind="rollback",
        )

    def remaining(self, after, change):
        if change.want is None:
            return []
        return plan_device(after.devices.get(change.subject), change.want, self.scope, self.binary)

    def failure_message(self, change, step, rc, out, err):
        return "qeth device %s: %s" % (change.label, chz.failure_message(step.argv, rc, out, err))
