# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""zpci_function on the resource engine.

The objects are the boot-time files (one change, first) and each zPCI function (one change per
FID: its power step, then its binding step). Files first: a file system that refuses them
(read-only, full) fails the run before any function changed, and the files written on the way are
put back. When a function fails, it gets its old driver_override and driver back, and the boot
files are rewritten to hold the new state of the functions that reached it and the old state of
the others, so that each function boots the way it is now.

A binding step is one step of several sysfs writes: which writes it takes (an unbind of the driver
that probed the function at power-on) and the PCI address they name are known only once the
function is configured. After power-on the kernel creates the PCI device asynchronously; the step
waits for it up to ``DEVICE_WAIT_SECONDS``.

The boot files are host files (``host_files``): each run records what it replaces in a
``FileChanges`` set, which is what the rollback puts back.
"""

import time

from ansible.module_utils.common.text.converters import to_native

from ansible_collections.s390x.network.plugins.module_utils.engine import host_files
from ansible_collections.s390x.network.plugins.module_utils.engine.drift_text import Content
from ansible_collections.s390x.network.plugins.module_utils.engine.resource import Change, Resource, ResourceError, Step
from ansible_collections.s390x.network.plugins.module_utils.zpci.holders import HOLDER_KINDS
from ansible_collections.s390x.network.plugins.module_utils.zpci.persist import (
    EXTRA_MODULES_PATH,
    HEADER,
    MODULES_LOAD_PATH,
    RULES_PATH,
    TMPFILES_PATH,
    boot_modules,
    merge,
    parse_rules,
    parse_sriov_rules,
    parse_tmpfiles,
    render_extra_modules,
    render_rules,
    render_tmpfiles,
)
from ansible_collections.s390x.network.plugins.module_utils.zpci.plan import (
    ZpciConfigError,
    binding_actions,
    check_host,
    check_type,
    clear_override_actions,
    isolated_vf_findings,
    needs_guard,
    normalize_config,
    power_actions,
    predict,
    sriov_actions,
)
from ansible_collections.s390x.network.plugins.module_utils.zpci.pci_ids import fid_text
from ansible_collections.s390x.network.plugins.module_utils.zpci.sysfs import DRIVERS_PROBE, ZpciError

FILES = (RULES_PATH, TMPFILES_PATH, MODULES_LOAD_PATH, EXTRA_MODULES_PATH)
BOOT_FILES = "boot files"
SHOWN_KEYS = ("power", "pci_address", "type", "driver", "driver_override")
DRIFT_KEYS = ("power", "driver_override", "driver")
SRIOV_KEYS = ("sriov_numvfs", "sriov_drivers_autoprobe")
DEVICE_WAIT_SECONDS = 10.0


class StepFailed(Exception):
    """A step found the host other than it must be (no device after power-on, wrong type)."""


def _sriov_values(record):
    """The PF's VF count and autoprobe as flat keys (None without SR-IOV)."""
    sriov = record.get("sriov") or {}
    return {"sriov_numvfs": sriov.get("numvfs"), "sriov_drivers_autoprobe": sriov.get("drivers_autoprobe")}


def _summary(records):
    lines = []
    for r in records:
        shown = ["%s=%s" % (k, r.get(k)) for k in SHOWN_KEYS]
        if r.get("sriov"):
            shown.extend("%s=%s" % item for item in sorted(_sriov_values(r).items()))
        lines.append("%s: %s" % (fid_text(r["fid"]), ", ".join(shown)))
    return "\n".join(lines) + ("\n" if lines else "")


def render_files(old_rules, old_tmpfiles, entries, override_unlisted, old_extra=None, extra_modules=None):
    """The boot files; ``extra_modules`` None keeps EXTRA_MODULES_PATH as ``old_extra``."""
    bindings, power, sriov = merge(
        parse_rules(old_rules), parse_tmpfiles(old_tmpfiles), entries, override_unlisted, parse_sriov_rules(old_rules)
    )
    return {
        RULES_PATH: render_rules(bindings, sriov),
        TMPFILES_PATH: render_tmpfiles(power),
        MODULES_LOAD_PATH: host_files.modules_load_text(HEADER, boot_modules(bindings)),
        EXTRA_MODULES_PATH: old_extra if extra_modules is None else render_extra_modules(extra_modules),
    }


class ZpciFunctions(Resource):
    kind = "zpci"
    drift_kind = "zpci"
    scopes = ("active", "persistent")
    runner_name = "zpci_function"
    restores = "old binding and boot files"
    rollback_continues = True
    step_errors = (ZpciError, StepFailed, IOError, OSError)

    def __init__(self, module, sysfs, probe, mgmt_reader):
        """``sysfs``: a ZpciSysfs; ``probe``: a zpci_holders.HolderProbe; ``mgmt_reader(module)`` ->
        (names of the interfaces that carry the management connection, details), as
        ``mgmt_connection.management_connection``."""
        super(ZpciFunctions, self).__init__(module)
        self.sysfs = sysfs
        self.probe = probe
        self.mgmt_reader = mgmt_reader
        self.files = host_files.FileChanges(module)
        self.entries = []
        self.fids = None
        self.changes = []
        self.notes = []
        self.findings = []
        self._mgmt = None

    # -- host files ----------------------------------------------------------------------------
    @staticmethod
    def read_file(path):
        """A boot file's content; None when it does not exist or cannot be read."""
        try:
            return host_files.read_text(path)
        except (IOError, OSError):
            return None

    def _file_step(self, path, content, kind="change"):
        return Step(
            action=lambda: self.files.write(path, content),
            scope="persistent",
            kind=kind,
            subject=path,
            text=host_files.change_text(path, content),
        )

    def _file_restore_step(self, path):
        return Step(
            action=lambda: self.files.restore(path),
            scope="persistent",
            kind="rollback",
            subject=path,
            text=self.files.restore_text(path),
        )

    # -- no host -------------------------------------------------------------------------------
    def validate(self):
        try:
            self.entries = normalize_config(self.params["config"])
        except ZpciConfigError as exc:
            return [to_native(exc)]
        if not self.entries and self.params["state"] in ("merged", "rendered"):
            return ["config: give at least one function for state %s" % self.params["state"]]
        if self.params.get("boot_modules") is not None and not self.params["persistent"]:
            return ["boot_modules: writes a boot file, which needs persistent: true"]
        return []

    def render(self):
        commands = []
        for entry in self.entries:
            record = {"fid": entry["fid"], "power": None}
            actions = power_actions(entry, record) + binding_actions(entry, record) + sriov_actions(entry, record)
            commands.extend(a["command"] for a in actions)
        extra = self.params.get("boot_modules")
        files = render_files(None, None, self.entries, False, None, extra)
        if extra is None:  # the file is left alone
            del files[EXTRA_MODULES_PATH]
        if not self.params["persistent"]:
            files = dict((path, None) for path in files)
        return {"commands": commands, "files": files}

    # -- host ----------------------------------------------------------------------------------
    def read(self):
        if self.params["state"] == "gathered":
            return {"all": self.sysfs.read_all()}
        if self.fids is None:
            host_fids = self.sysfs.list_fids()
            try:
                check_host(self.entries, host_fids)
            except ZpciConfigError as exc:
                raise ResourceError(to_native(exc))
            listed = [entry["fid"] for entry in self.entries]
            self.fids = sorted(set(listed) | set(host_fids)) if self.params["state"] == "overridden" else listed
        return {
            "functions": self.sysfs.read_functions(self.fids),
            "files": dict((path, self.read_file(path)) for path in FILES),
        }

    def gather(self, current):
        self._report_findings(current["all"])
        return current["all"]

    def _report_findings(self, records):
        self.findings = isolated_vf_findings(records)
        for finding in self.findings:
            self.module.warn(finding)

    def plan(self, current):
        functions = current["functions"]
        self._report_findings([functions[fid] for fid in self.fids])
        for entry in self.entries:
            record = functions[entry["fid"]]
            if record["power"] == "on" and not record["pci_address"]:
                raise ResourceError(
                    "config[%d].fid: FID %s is configured, but no PCI device has function_id 0x%08x"
                    % (entry["index"], fid_text(entry["fid"]), entry["fid"])
                )
            try:
                check_type(entry, record)
            except ZpciConfigError as exc:
                raise ResourceError(to_native(exc))
        changes = []
        if self.params["persistent"]:
            files = render_files(
                current["files"][RULES_PATH],
                current["files"][TMPFILES_PATH],
                self.entries,
                self.params["state"] == "overridden",
                current["files"][EXTRA_MODULES_PATH],
                self.params.get("boot_modules"),
            )
            steps = [self._file_step(path, files[path]) for path in FILES if current["files"][path] != files[path]]
            changes.append(Change(BOOT_FILES, steps, want=files))
        for entry in self.entries:
            record = functions[entry["fid"]]
            power = power_actions(entry, record)
            binding = (
                binding_actions(entry, predict(record, power) if power else record, self.sysfs.driver_available)
                if entry["power"] == "on"
                else []
            )
            sriov = sriov_actions(entry, predict(record, power + binding))
            steps = [self._power_step(entry, action) for action in power]
            if binding:
                steps.append(self._late_step(entry, binding, "bind", self._bind))
            if sriov:
                steps.append(self._late_step(entry, sriov, "sriov", self._sriov))
            change = Change(
                entry["fid"], steps, want=predict(record, power + binding + sriov, entry), label=fid_text(entry["fid"])
            )
            change.entry, change.actions = entry, power + binding + sriov
            changes.append(change)
        listed = set(entry["fid"] for entry in self.entries)
        for fid in self.fids:
            if fid not in listed:
                actions = clear_override_actions(functions[fid])
                change = Change(
                    fid,
                    [self._write_step(fid, a) for a in actions],
                    want=predict(functions[fid], actions),
                    label=fid_text(fid),
                )
                change.entry, change.actions = None, actions
                changes.append(change)
        self.changes = changes
        return changes

    def guard(self, current, changes):
        if self.params["force"]:
            return
        refusals = []
        for change in changes:
            if change.subject == BOOT_FILES or change.entry is None or not needs_guard(change.actions):
                continue
            record = current["functions"][change.subject]
            reasons = self.probe.holders(record, self.mgmt_interfaces() if record.get("net_devices") else ())
            if any(a["action"] == "sriov_disable" for a in change.actions):
                reasons = reasons + self._vf_holders(record)
            if reasons:
                refusals.append((change.subject, reasons))
        if refusals:
            lines = ["FID %s: %s" % (fid_text(fid), "; ".join(reasons)) for fid, reasons in refusals]
            raise ResourceError(
                "Refusing to unbind or power off functions in use (use force: true to override): %s"
                % " | ".join(lines),
                commands=[],
                refused=[{"fid": fid, "reasons": reasons} for fid, reasons in refusals],
            )

    def _vf_holders(self, record):
        """Holders of the VFs that removing a PF's VFs would take away, each named by its FID."""
        reasons = []
        for address in (record.get("sriov") or {}).get("vfs") or []:
            fid = self.sysfs.fid_of_address(address)
            if fid is None:
                continue
            vf = self.sysfs.read_function(fid)
            mgmt = self.mgmt_interfaces() if vf.get("net_devices") else ()
            reasons.extend("VF FID %s: %s" % (fid_text(fid), reason) for reason in self.probe.holders(vf, mgmt))
        return reasons

    def mgmt_interfaces(self):
        if self._mgmt is None:
            names, dummy = self.mgmt_reader(self.module)
            self._mgmt = set(names)
        return self._mgmt

    # -- steps ---------------------------------------------------------------------------------
    def _write_step(self, fid, action):
        return Step(
            action=lambda: self.sysfs.write(action["path"], action["value"]),
            text=action["command"],
            scope="active",
            subject=fid,
        )

    def _power_step(self, entry, action):
        fid = entry["fid"]

        def act():
            self.sysfs.write(action["path"], action["value"])
            if action["action"] != "power_on" or entry["power"] != "on":
                return
            record = self._wait_for_device(fid)
            if not record["pci_address"]:
                raise StepFailed("configured, but no PCI device has function_id 0x%08x" % fid)
            try:
                check_type(entry, record)
            except ZpciConfigError as exc:
                try:
                    self.sysfs.write(action["path"], "0")
                except ZpciError:
                    pass
                raise StepFailed("%s; FID %s was powered off again" % (to_native(exc), fid_text(fid)))

        return Step(
            action=act, text=action["command"], scope="active", subject=fid, disruptive=action["action"] == "power_off"
        )

    def _wait_for_device(self, fid):
        deadline = time.time() + DEVICE_WAIT_SECONDS
        while True:
            record = self.sysfs.read_function(fid)
            if record["pci_address"] or time.time() >= deadline:
                return record
            time.sleep(0.2)

    def _late_step(self, entry, planned, kind, run):
        """A step that plans its actions again from the function as it is when the step runs (a host
        driver may have probed it at power-on; a PF's address is known only after power-on)."""
        step = Step(
            action=lambda: run(entry, step),
            texts=[a["command"] for a in planned],
            scope="active",
            subject=entry["fid"],
            kind=kind,
        )
        return step

    def _bind(self, entry, step):
        record = self.sysfs.read_function(entry["fid"])
        actions = binding_actions(entry, record, self.sysfs.driver_available)
        step.start, step.actions, step.failed_action, step.ran = record, actions, None, []
        for action in actions:
            step.failed_action = action
            self._execute(action, step.ran)
        step.failed_action = None
        if actions and entry["driver"] != "none":
            now = self.sysfs.driver_of(record["pci_address"])
            if now != entry["driver"]:
                raise StepFailed(
                    "after %s the function is bound to %s, not %s"
                    % (", ".join(a["command"] for a in actions), now, entry["driver"])
                )

    def _sriov(self, entry, step):
        record = self.sysfs.read_function(entry["fid"])
        try:
            check_type(entry, record)
        except ZpciConfigError as exc:
            raise StepFailed(to_native(exc))
        step.start, step.ran = record, []
        for action in sriov_actions(entry, record):
            self._execute(action, step.ran)

    def _execute(self, action, ran):
        if action["action"] == "modprobe":
            modprobe = self.module.get_bin_path("modprobe", required=True)
            rc, out, err = self.module.run_command([modprobe, action["value"]], environ_update={"LC_ALL": "C"})
            ran.append(action["command"])
            if rc != 0:
                raise StepFailed("modprobe %s failed (rc=%d): %s" % (action["value"], rc, (err or out).strip()))
            return
        self.sysfs.write(action["path"], action["value"])
        ran.append(action["command"])

    def error_text(self, exc):
        return getattr(exc, "strerror", None) or to_native(exc)

    # -- failure -------------------------------------------------------------------------------
    def rollback(self, before, now, change, ran):
        if change.subject == BOOT_FILES:  # the failed write replaced nothing; put back those before it
            return [self._file_restore_step(s.subject) for s in reversed(ran[:-1])]
        steps = []
        failed = ran[-1]
        if failed.kind == "bind" and getattr(failed, "start", None) is not None:
            writes = self._binding_restore(failed)
            if writes:
                steps.append(self._restore_step(change.subject, writes))
        if failed.kind == "sriov" and getattr(failed, "start", None) is not None:
            writes = self._sriov_restore(change.entry, failed.start)
            if writes:
                steps.append(self._restore_step(change.subject, writes))
        if self.params["persistent"]:
            step = self._files_match_step(before, change)
            if step is not None:
                steps.append(step)
        return steps

    def _binding_restore(self, failed):
        """sysfs writes (path, value, command) that give the function the binding it had when the
        binding step began."""
        start, actions, broken = failed.start, failed.actions, failed.failed_action
        address = start["pci_address"]
        ran = actions if broken is None else actions[: actions.index(broken)]
        writes = []
        if any(a["action"] == "set_override" for a in ran + ([broken] if broken else [])):
            path = self.sysfs.override_path(address)
            old = start.get("driver_override")
            writes.append((path, old or "", ("echo %s > %s" % (old, path)) if old else ("echo > %s" % path)))
        current = self.sysfs.driver_of(address)
        if start.get("driver") is not None and current != start["driver"]:
            if current is not None:
                path = self.sysfs.unbind_path(current)
                writes.append((path, address, "echo %s > %s" % (address, path)))
            writes.append((DRIVERS_PROBE, address, "echo %s > %s" % (address, DRIVERS_PROBE)))
        return writes

    def _sriov_restore(self, entry, start):
        """sysfs writes that give the PF the VF count and autoprobe it had when the step began."""
        old = start.get("sriov") or {}
        back = dict(
            entry, sriov_numvfs=old.get("numvfs") or 0, sriov_drivers_autoprobe=bool(old.get("drivers_autoprobe"))
        )
        now = self.sysfs.read_function(entry["fid"])
        return [(a["path"], a["value"], a["command"]) for a in sriov_actions(back, now)]

    def _restore_step(self, fid, writes):
        step = Step(
            action=lambda: self._write_all(writes, step),
            texts=[w[2] for w in writes],
            kind="rollback",
            scope="active",
            subject=fid,
        )
        return step

    def _write_all(self, writes, step):
        step.ran = []
        for path, value, command in writes:
            self.sysfs.write(path, value)
            step.ran.append(command)

    def _files_match_step(self, before, failed_change):
        """The boot files as they were, plus the functions that reached their new state."""
        done = []
        for change in self.changes:
            if change is failed_change:
                break
            if getattr(change, "entry", None) is not None:
                done.append(change.entry)
        old = before["files"]
        wanted = render_files(
            old[RULES_PATH], old[TMPFILES_PATH], done, False, old[EXTRA_MODULES_PATH], self.params.get("boot_modules")
        )
        paths = [p for p in FILES if self.read_file(p) != wanted[p]]
        if not paths:
            return None

        def act():
            step.ran = []
            for path in paths:
                self.files.write(path, wanted[path])
                step.ran.append(host_files.change_text(path, wanted[path]))
            self.notes.append("the boot-time files hold the old state of the functions not changed")

        step = Step(
            action=act,
            texts=[host_files.change_text(p, wanted[p]) for p in paths],
            kind="rollback",
            scope="persistent",
            subject=BOOT_FILES,
        )
        return step

    def failure_message(self, change, step, rc, out, err):
        exc = step.error
        text = to_native(exc) if exc is not None else err
        if step.kind == "rollback":
            return "%s: putting back failed: %s" % (
                step.subject if step.subject == BOOT_FILES else "FID " + fid_text(step.subject),
                text,
            )
        if change.subject == BOOT_FILES:
            return "cannot write %s: %s; no function was changed" % (
                step.subject,
                getattr(exc, "strerror", None) or text,
            )
        msg = "FID %s: %s" % (fid_text(change.subject), text)
        if step.kind == "bind" and getattr(step, "start", None) is not None:
            old = step.start.get("driver")
            now = self.sysfs.driver_of(step.start["pci_address"])
            if now == old:
                msg += "; the function keeps driver %s" % now
            else:
                msg += "; the old binding could not be restored: the function has driver %s, it had %s" % (now, old)
        for note in self.notes:
            msg += "; " + note
        return msg

    # -- results -------------------------------------------------------------------------------
    def predict(self, current, changes):
        out = {"functions": dict(current["functions"]), "files": dict(current["files"])}
        for change in changes:
            if change.subject == BOOT_FILES:
                out["files"] = dict(change.want)
            else:
                out["functions"][change.subject] = change.want
        return out

    def view(self, state, change):
        if change.subject == BOOT_FILES:
            files = state["files"]
            return {"persistent": dict((p, Content(files[p]) if files[p] is not None else None) for p in FILES)}
        record = state["functions"][change.subject]
        view = dict((k, record.get(k)) for k in DRIFT_KEYS)
        entry = getattr(change, "entry", None)
        if (entry is not None and entry.get("sriov_numvfs") is not None) or record.get("sriov"):
            view.update(_sriov_values(record))
        return {"active": view}

    def views(self, state, changes):
        return [state["functions"][fid] for fid in self.fids]

    def diff(self, before_state, after_state, changes):
        fids = self.fids
        diffs = [
            {
                "before_header": "zpci functions",
                "after_header": "zpci functions",
                "before": _summary([before_state["functions"][f] for f in fids]),
                "after": _summary([after_state["functions"][f] for f in fids]),
            }
        ]
        for path in FILES:
            old, new = before_state["files"][path], after_state["files"][path]
            if old != new:
                diffs.append({"before_header": path, "after_header": path, "before": old or "", "after": new or ""})
        return diffs

    def remaining(self, after, change):
        if change.subject == BOOT_FILES:
            return [self._file_step(p, change.want[p]) for p in FILES if after["files"][p] != change.want[p]]
        record = after["functions"][change.subject]
        if change.entry is None:
            actions = clear_override_actions(record)
        else:
            actions = power_actions(change.entry, record)
            if change.entry["power"] == "on":
                actions += binding_actions(change.entry, predict(record, actions) if actions else record)
                actions += sriov_actions(change.entry, predict(record, actions))
        return [Step(action=lambda: None, text=a["command"]) for a in actions]

    def extras(self, state, changes, failed=False):
        if failed:
            return {}
        # smcd and virsh run only for what is asked and for functions the run unbinds or powers off
        # (whose holders the guard looked up already): a run that changes nothing runs neither
        guarded = set(c.subject for c in changes if getattr(c, "entry", None) is not None and needs_guard(c.actions))
        asked = tuple(self.params.get("report_holders") or ())
        functions = []
        for fid in self.fids:
            record = dict(state["functions"][fid])
            kinds = HOLDER_KINDS if fid in guarded else asked
            if kinds:
                mgmt = self.mgmt_interfaces() if record.get("net_devices") and "management" in kinds else ()
                record["holders"] = self.probe.holders(record, mgmt, kinds)
            else:
                record["holders"] = None
            functions.append(record)
        for warning in self.probe.warnings:
            self.module.warn(warning)
        # a function powered on by this run shows only now that it is an isolated VF
        for finding in isolated_vf_findings(functions):
            if finding not in self.findings:
                self.findings.append(finding)
                self.module.warn(finding)
        return {"functions": functions, "findings": list(self.findings)}
