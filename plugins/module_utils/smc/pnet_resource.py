# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""smc_pnet on the resource engine: the software PNET table is one object (its commands must run
in the planned order: every PNET ID that is rebuilt is deleted before anything is added).

Two backends run the same plan: ``smc_pnet`` (smc-tools) or the kernel's ``SMC_PNETID`` generic
netlink family (``smc_netlink``), whose ADD/DEL/FLUSH are what ``smc_pnet -a/-d/-f`` send. The
backend is chosen when the table is first read, after ``validate()``: input that contradicts
itself is refused before any tool is looked up or any socket opened.

With ``boot_unit: present`` the module also owns the boot unit that adds the entries again at boot
(``smc_pnet_unit``): a second object, changed after the table, whose entries follow ``state`` as the
table's do (merged adds to the entries of earlier runs, overridden replaces them, deleted removes
them; the unit goes when no entry remains); ``absent`` removes it. The unit is planned from the
checked ``config`` and the unit file alone, so it is written also when ``smc`` is not loaded; the
table is then left alone (the kernel has none) with a warning.

Where ``smc_pnet`` is not found (the lookup of ``backend: auto``) the unit runs the collection's
restore program instead (``smc_pnet_unit``): three files - the program, its data and the unit -
each its own change and drift row, written program first and unit last (removed in the reverse
order), so that the unit never names a file that is not there yet; a failure puts every file of
the run and the link back. A unit that could not work is refused before anything changes: no
usable interpreter path, a name the program cannot send, or a kernel without SMC.
"""

import functools
import os
import sys

from ansible_collections.s390x.network.plugins.module_utils.engine import host_files
from ansible_collections.s390x.network.plugins.module_utils.smc import netlink as smc_netlink
from ansible_collections.s390x.network.plugins.module_utils.smc import pnet_restore
from ansible_collections.s390x.network.plugins.module_utils.smc import pnet_unit as smc_pnet_unit
from ansible_collections.s390x.network.plugins.module_utils.engine import unit_syntax
from ansible_collections.s390x.network.plugins.module_utils.engine.drift_text import Content
from ansible_collections.s390x.network.plugins.module_utils.engine.resource import (
    Change,
    Resource,
    ResourceError,
    Step,
    render_argv,
)
from ansible_collections.s390x.network.plugins.module_utils.smc.pnet_cmd import (
    TOOL,
    PnetError,
    argv_show,
    normalize_entry,
    parse_table,
    plan,
    to_config,
)

TABLE = "table"
UNIT = "boot unit"
PROGRAM = "restore program"
DATA = "restore data"
#: the files of the boot unit besides the unit file: subject -> (path, key in the unit dict)
BOOT_FILES = {PROGRAM: (smc_pnet_unit.PROGRAM_PATH, "program"), DATA: (smc_pnet_unit.DATA_PATH, "data")}
BACKENDS = ("auto", "tool", "netlink")
BOOT_UNIT = ("unchanged", "present", "absent")
SYSTEMD_RUNNING = "/run/systemd/system"
#: where smc shows when it is loaded (the module, or its sysctls on a kernel that has them)
SMC_PRESENT = ("/sys/module/smc", "/proc/sys/net/smc")


def smc_loaded():
    return any(os.path.isdir(host_files.path(p)) for p in SMC_PRESENT)


def netlink_text(argv):
    """How a planned ``smc_pnet`` argv shows in ``commands`` when it is sent over netlink."""
    args = list(argv[1:])
    if args == ["-f"]:
        return "SMC_PNETID_FLUSH"
    if args[0] == "-d":
        return "SMC_PNETID_DEL %s" % args[1]
    if args[2] == "-I":
        return "SMC_PNETID_ADD %s ethname=%s" % (args[1], args[3])
    return "SMC_PNETID_ADD %s ibname=%s ibport=%s" % (args[1], args[3], args[5])


def netlink_apply(smc, argv):
    """Send a planned ``smc_pnet`` argv (``-a ID -I IF``, ``-a ID -D DEV -P N``, ``-d ID``, ``-f``)."""
    args = list(argv[1:])
    if args == ["-f"]:
        smc.pnet_flush()
    elif args[0] == "-d":
        smc.pnet_delete(args[1])
    elif args[2] == "-I":
        smc.pnet_add(args[1], interface=args[3])
    else:
        smc.pnet_add(args[1], ib_device=args[3], port=int(args[5]))


def _hint(err):
    if "not loaded" in (err or ""):
        return " (load the smc kernel module first)"
    if "exists" in (err or "").lower():
        return (
            " (the interface or device port belongs to another PNET ID, or the device has a PNET ID "
            "from the IOCDS, which wins over software entries)"
        )
    return ""


def _entry_text(entry):
    if entry.get("interface") is not None:
        return "interface %s" % entry["interface"]
    return "ib_device %s port %s" % (entry.get("ib_device"), entry.get("port"))


def table_view(entries):
    """A table (config items) as the engine's active scope: PNET ID -> its entries."""
    table = {}
    for entry in entries:
        table.setdefault(entry["pnet_id"], []).append(_entry_text(entry))
    return dict((pnet_id, sorted(texts)) for pnet_id, texts in sorted(table.items()))


def unit_view(unit):
    """The boot unit as the engine's persistent scope (None: no file and not enabled)."""
    if unit["text"] is None and not unit["enabled"]:
        return None
    return {
        "entries": sorted("%s %s" % (e["pnet_id"], _entry_text(e)) for e in to_config(unit["entries"])),
        "enabled": unit["enabled"],
        "file": Content(unit["text"]) if unit["text"] is not None else None,
    }


class PnetTable(Resource):
    kind = "PNET table"
    drift_kind = "pnet"
    scopes = ("active", "persistent")
    runner_name = "smc_pnet"

    def __init__(self, module):
        super(PnetTable, self).__init__(module)
        self.state = self.params["state"]
        self.tool = None
        self.smc = None
        self.backend = None
        self.config = []
        self.boot_unit = self.params.get("boot_unit") or "unchanged"
        self.table_skipped = False
        self.systemctl = None
        self.files = host_files.FileChanges(module)
        self.old_link = None
        self.unit_tool = False  # not looked up yet

    @property
    def manages_unit(self):
        return self.boot_unit != "unchanged" and self.state != "gathered"

    def validate(self):
        errors = []
        if self.params.get("boot_unit") is not None and self.boot_unit not in BOOT_UNIT:
            errors.append("boot_unit: expected one of %s, got %r" % (", ".join(BOOT_UNIT), self.boot_unit))
        for index, item in enumerate(self.params["config"] or []):
            try:
                self.config.append(
                    normalize_entry(
                        dict((k, v) for k, v in item.items() if v is not None),
                        index,
                        allow_bare=(self.state == "deleted"),
                    )
                )
            except PnetError as exc:
                errors.append(str(exc))
        if not errors:
            try:  # what the list alone contradicts (an interface under two PNET IDs), before the host
                plan(self.state, self.config, [])
            except PnetError as exc:
                errors.append(str(exc))
        if not errors and self.boot_unit == "present" and self.state != "gathered":
            # every entry must also fit on a line of the boot unit, whether or not smc is loaded
            for index, entry in enumerate(self.config):
                if entry["interface"] is None and entry["ib_device"] is None:
                    continue
                try:
                    smc_pnet_unit.exec_line_of(entry, "config[%d]" % index)
                except unit_syntax.UnitSyntaxError as exc:
                    errors.append(str(exc))
        return errors

    def _run(self, argv):
        return self.module.run_command([self.tool] + argv[1:], environ_update={"LC_ALL": "C"})

    def _choose_backend(self):
        """``tool`` when smc_pnet is wanted and found, else ``netlink`` (``auto``: the tool first)."""
        wanted = self.params.get("backend") or "auto"
        if wanted != "netlink":
            self.tool = self.module.get_bin_path(TOOL, opt_dirs=["/usr/sbin", "/sbin"])
            if self.tool is not None:
                self.backend = "tool"
                return
            if wanted == "tool":
                raise ResourceError("smc_pnet not found: install smc-tools, or use backend netlink")
        try:
            self.smc = smc_netlink.SmcNetlink()
        except smc_netlink.NetlinkError as exc:
            raise ResourceError(self._netlink_message(exc))
        self.backend = "netlink"

    def _netlink_message(self, exc):
        if (self.params.get("backend") or "auto") == "auto":
            return "smc_pnet not found (smc-tools) and the kernel's SMC_PNETID netlink interface failed: %s" % exc
        return str(exc)

    def read(self):
        state = {"table": None, "unit": None}
        if self.manages_unit:
            try:
                state["unit"] = smc_pnet_unit.read_unit()
            except (IOError, OSError) as exc:
                raise ResourceError(
                    "cannot read the boot unit %s: %s" % (smc_pnet_unit.UNIT_PATH, exc.strerror or exc), commands=[]
                )
        if self.manages_unit and not smc_loaded():
            # no kernel table to read or change; the boot unit is planned from config and the file
            self.table_skipped = True
            return state
        state["table"] = self._read_table()
        return state

    def _read_table(self):
        if self.backend is None:
            self._choose_backend()
        if self.backend == "netlink":
            try:
                return self.smc.pnet_table()
            except smc_netlink.NetlinkError as exc:
                raise ResourceError(self._netlink_message(exc), commands=[])
        rc, out, err = self._run(argv_show())
        if rc != 0:
            raise ResourceError(
                "smc_pnet failed with exit code %d%s: %s" % (rc, _hint(err), (err or out).strip()),
                rc=rc,
                stdout=out,
                stderr=err,
                commands=[],
            )
        return parse_table(out)

    def gather(self, current):
        return to_config(current["table"])

    def plan(self, current):
        changes = []
        if current["table"] is not None:
            try:
                commands, target = plan(self.state, self.config, current["table"])
            except PnetError as exc:
                raise ResourceError(str(exc))
            changes.append(Change(TABLE, self._steps(commands), want=target))
        elif self.config or self.state == "overridden":
            self.module.warn(
                "smc is not loaded: the PNET table was not read or changed (the kernel has none); "
                "the boot unit adds the entries when the host boots with smc"
            )
        if self.manages_unit:
            want = self._unit_want(current["unit"])
            if current["unit"]["link"] == "" and want["enabled"]:
                raise ResourceError(
                    "%s exists and is not a symbolic link; remove it to let the module enable the boot unit"
                    % smc_pnet_unit.WANTS_LINK
                )
            changes.extend(self._unit_changes(current, want))
        return changes

    def _steps(self, commands, kind="change"):
        """Steps of smc_pnet argvs (planned with the tool's name; run by the path found, or sent as
        the netlink command they stand for)."""
        if self.backend == "netlink":
            return [
                Step(
                    action=functools.partial(netlink_apply, self.smc, argv),
                    text=netlink_text(argv),
                    scope="active",
                    kind=kind,
                )
                for argv in commands
            ]
        return [
            Step(argv=[self.tool] + argv[1:], text=render_argv([TOOL] + argv[1:]), scope="active", kind=kind)
            for argv in commands
        ]

    # -- the boot unit -------------------------------------------------------------------------
    def _unit_form(self):
        """``tool`` where smc_pnet is found (the lookup of ``backend: auto``), else ``netlink``: the
        restore program. ``backend: tool`` without smc_pnet is refused as for the table."""
        if self.unit_tool is False:
            self.unit_tool = self.tool or self.module.get_bin_path(TOOL, opt_dirs=["/usr/sbin", "/sbin"])
        if self.unit_tool is not None:
            return "tool"
        if (self.params.get("backend") or "auto") == "tool":
            raise ResourceError("smc_pnet not found: install smc-tools, or use backend netlink")
        return "netlink"

    def _unit_want(self, unit):
        """The boot unit this run leaves: its entries (``state`` applied to the unit's entries, as
        to the table), its form, its files and whether it is enabled."""
        entries = []
        if self.boot_unit == "present":
            try:
                dummy, entries = plan(self.state, self.config, unit["entries"])
            except PnetError as exc:
                raise ResourceError("%s: %s" % (smc_pnet_unit.UNIT_PATH, exc))
        form = self._unit_form() if entries else None
        program = data = python = None
        if form == "netlink":
            python = smc_pnet_unit.interpreter()
            if python is None:
                raise ResourceError(
                    "boot unit: smc_pnet (smc-tools) is not installed, and the restore program needs a Python "
                    "interpreter at a plain absolute path (A-Z, a-z, 0-9, '_', '.', '+', '-' components); the "
                    "module runs in %r. Install smc-tools or set ansible_python_interpreter" % (sys.executable,)
                )
            for index, entry in enumerate(entries):
                try:
                    pnet_restore.restore_check(entry, index)
                except PnetError as exc:
                    raise ResourceError(
                        "boot unit: smc_pnet (smc-tools) is not installed, and the restore program cannot add "
                        "%s: %s" % (pnet_restore.restore_describe(entry), exc)
                    )
            program, data = smc_pnet_unit.program_text(), pnet_restore.restore_data_text(entries)
        text = smc_pnet_unit.render(entries, python)
        return {
            "text": text,
            "entries": entries,
            "foreign": False,
            "enabled": text is not None,
            "link": smc_pnet_unit.UNIT_PATH if text is not None else None,
            "program": program,
            "data": data,
            "form": form,
        }

    def _check_kernel(self, current):
        """Refuse a program-form unit on a kernel that has no SMC: the program could never add an
        entry. Warn when the module tree cannot be read (a container, an image being built)."""
        if current["table"] is not None and self.backend == "netlink":
            return  # the table was just read through SMC_PNETID
        release = smc_pnet_unit.kernel_release()
        installed = smc_pnet_unit.smc_installed(release)
        tree = "%s/%s" % (smc_pnet_unit.MODULES_DIR, release)
        if installed is None:
            self.module.warn(
                "boot unit: smc_pnet (smc-tools) is not installed and %s/modules.dep cannot be read: whether "
                "kernel %s has SMC, which the restore program needs at boot, is not known" % (tree, release)
            )
        elif not installed:
            raise ResourceError(
                "boot unit: smc_pnet (smc-tools) is not installed, and kernel %s has no SMC for the restore "
                "program (smc is not loaded, so the SMC_PNETID generic netlink family is not registered, and "
                "%s/modules.dep and modules.builtin list no net/smc/smc.ko): the unit could not add the "
                "entries. Install smc-tools or boot a kernel with SMC" % (release, tree)
            )

    def _unit_changes(self, current, want):
        """The changes of the boot unit's files: program and data before the unit that names them;
        the unit first when it stops naming them."""
        unit = current["unit"]
        changes = [
            Change(subject, self._subject_steps(subject, unit, want), want=want, label=BOOT_FILES[subject][0])
            for subject in (PROGRAM, DATA)
        ]
        unit_change = Change(UNIT, self._subject_steps(UNIT, unit, want), want=want, label=smc_pnet_unit.UNIT_PATH)
        if want["form"] == "netlink" and any(c.steps for c in changes + [unit_change]):
            self._check_kernel(current)
        if want["form"] == "netlink":
            return changes + [unit_change]
        return [unit_change] + changes[::-1]

    def _subject_steps(self, subject, unit, want, kind="change"):
        if subject in BOOT_FILES:
            path, key = BOOT_FILES[subject]
            if unit[key] == want[key]:
                return []
            return [self._file_step(path, want[key], kind)]
        return self._unit_steps(unit, want, kind)

    def _unit_steps(self, unit, want, kind="change"):
        steps = []
        if want["text"] is not None:
            if unit["text"] != want["text"]:
                steps.append(self._file_step(smc_pnet_unit.UNIT_PATH, want["text"], kind))
            if not unit["enabled"]:
                steps.append(self._link_step(smc_pnet_unit.UNIT_PATH, kind))
        else:
            if unit["enabled"]:
                steps.append(self._link_step(None, kind))
            if unit["text"] is not None:
                steps.append(self._file_step(smc_pnet_unit.UNIT_PATH, None, kind))
        if steps and os.path.isdir(host_files.path(SYSTEMD_RUNNING)):
            if self.systemctl is None:
                self.systemctl = self.module.get_bin_path("systemctl")
            if self.systemctl is not None:  # systemd reads the changed file now, not at the next reload
                steps.append(Step(argv=[self.systemctl, "daemon-reload"], scope="persistent", kind=kind))
        return steps

    def _file_step(self, path, text, kind):
        if kind == "rollback":

            def restore():
                self.files.restore(path)
                if self.files.old[path] is None and path != smc_pnet_unit.UNIT_PATH:
                    _remove_empty_dir(os.path.dirname(path))

            return Step(
                action=restore,
                text=self.files.restore_text(path),
                scope="persistent",
                kind=kind,
            )

        def apply():
            self.files.write(path, text)
            if text is None and path != smc_pnet_unit.UNIT_PATH:
                _remove_empty_dir(os.path.dirname(path))

        return Step(action=apply, text=host_files.change_text(path, text), scope="persistent", kind=kind)

    def _link_step(self, target, kind):
        link = smc_pnet_unit.WANTS_LINK

        def apply():
            if self.old_link is None:
                self.old_link = smc_pnet_unit.link_target() or False
            smc_pnet_unit.set_link(target)

        if target is None:
            return Step(action=apply, text="rm %s" % link, scope="persistent", kind=kind)
        return Step(action=apply, text="ln -s %s %s" % (target, link), scope="persistent", kind=kind)

    # -- results -------------------------------------------------------------------------------
    def predict(self, current, changes):
        state = dict(current)
        for change in changes:
            if change.subject == TABLE and change.steps:
                state["table"] = change.want
            elif change.subject == UNIT or change.subject in BOOT_FILES:
                state["unit"] = change.want
        return state

    def view(self, state, change):
        if change.subject == UNIT:
            return {"persistent": unit_view(state["unit"])}
        if change.subject in BOOT_FILES:
            text = state["unit"][BOOT_FILES[change.subject][1]]
            return {"persistent": {"file": Content(text)} if text is not None else None}
        return {"active": table_view(to_config(state["table"] or []))}

    def views(self, state, changes):
        return to_config(state["table"] or [])

    def diff(self, before_state, after_state, changes):
        table = super(PnetTable, self).diff(before_state, after_state, changes)
        if not self.manages_unit:
            return table
        unit = [
            dict(
                before_header=smc_pnet_unit.UNIT_PATH,
                before=before_state["unit"]["text"] or "",
                after_header=smc_pnet_unit.UNIT_PATH,
                after=after_state["unit"]["text"] or "",
            ),
            dict(
                before_header=smc_pnet_unit.WANTS_LINK,
                before="%s\n" % before_state["unit"]["link"] if before_state["unit"]["link"] else "",
                after_header=smc_pnet_unit.WANTS_LINK,
                after="%s\n" % after_state["unit"]["link"] if after_state["unit"]["link"] else "",
            ),
        ]
        for path, key in (BOOT_FILES[PROGRAM], BOOT_FILES[DATA]):
            if before_state["unit"][key] is not None or after_state["unit"][key] is not None:
                unit.append(
                    dict(
                        before_header=path,
                        before=before_state["unit"][key] or "",
                        after_header=path,
                        after=after_state["unit"][key] or "",
                    )
                )
        return ([table] if before_state["table"] is not None else []) + unit

    def rollback(self, before, now, change, ran):
        """Back to the table as it was: the table has no single-entry delete, so a run that stopped
        between deleting a PNET ID and adding its entries back would leave them out. The boot unit:
        its files (unit, program, data: all of this run, whichever failed) and its link as they were."""
        if change.subject == UNIT or change.subject in BOOT_FILES:
            steps = [self._file_step(path, None, "rollback") for path in reversed(self.files.changed)]
            if self.old_link is not None:
                steps.append(self._link_step(self.old_link or None, "rollback"))
            return steps
        before, now = before["table"], now["table"]
        commands, _target = plan("overridden", before, now) if before else plan("deleted", [], now)
        return self._steps(commands, kind="rollback")

    def remaining(self, after, change):
        if change.subject == UNIT or change.subject in BOOT_FILES:
            return [s for s in self._subject_steps(change.subject, after["unit"], change.want) if s.argv is None]
        commands, _target = plan(self.state, self.config, after["table"])
        return self._steps(commands)

    def extras(self, state, changes, failed=False):
        result = {"backend": self.backend}
        if self.manages_unit and state["unit"] is not None:
            unit = state["unit"]
            result["boot_unit"] = {
                "path": smc_pnet_unit.UNIT_PATH,
                "present": unit["text"] is not None,
                "enabled": unit["enabled"],
                "entries": to_config(unit["entries"]),
            }
            if unit.get("form") == "netlink":
                result["boot_unit"]["restore"] = {
                    "interpreter": smc_pnet_unit.restore_argv(unit["text"])[0],
                    "program": smc_pnet_unit.PROGRAM_PATH,
                    "data": smc_pnet_unit.DATA_PATH,
                }
        if self.table_skipped:
            result["table_skipped"] = True
        return result

    def close(self):
        if self.smc is not None:
            self.smc.close()
            self.smc = None

    def error_text(self, exc):
        """The kernel's answer without the command name the step already shows."""
        text = str(exc)
        if isinstance(exc, smc_netlink.NetlinkError) and not isinstance(exc, smc_netlink.FamilyNotFound):
            return text.split(" failed: ", 1)[-1]
        return text

    def failure_message(self, change, step, rc, out, err):
        if step.argv is None:  # a netlink command: err is the kernel's answer
            return "%s failed: %s%s" % (step.command, (err or out).strip(), _hint(err))
        return "%s failed with exit code %d%s: %s" % (step.command, rc, _hint(err), (err or out).strip())


def _remove_empty_dir(directory):
    """Remove the collection's directory of a removed file when nothing else is in it."""
    try:
        os.rmdir(host_files.path(directory))
    except (IOError, OSError):
        pass  # not empty, or gone: nothing to tidy


def report_backend(module, resource):
    """Every exit of ``module`` carries ``backend`` once ``resource`` has chosen it (the engine's
    gathered and early failure exits have no hook for module fields)."""
    exit_json, fail_json = module.exit_json, module.fail_json

    def with_backend(result):
        if resource.backend is not None:
            result.setdefault("backend", resource.backend)
        return result

    module.exit_json = lambda **result: exit_json(**with_backend(result))
    module.fail_json = lambda msg, **result: fail_json(msg=msg, **with_backend(result))
    return module
