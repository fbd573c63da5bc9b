# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""smc_pnet on the resource engine: the software PNET table is one object (its commands must run
in the planned order: every PNET ID that is rebuilt is deleted before anything is added).

Two backends run the same plan: ``smc_pnet`` (smc-tools) or the kernel's ``SMC_PNETID`` generic
netlink family (``smc_netlink``), whose ADD/DEL/FLUSH are what ``smc_pnet -a/-d/-f`` send. The
backend is chosen when the table is first read, after ``validate()``: input that contradicts
itself is refused before any tool is looked up or any socket opened.
"""

import functools

from ansible_collections.s390x.network.plugins.module_utils import smc_netlink
from ansible_collections.s390x.network.plugins.module_utils.resource_engine import Change, Resource, ResourceError, Step
from ansible_collections.s390x.network.plugins.module_utils.smc_pnet_cmd import (
    TOOL,
    PnetError,
    argv_show,
    normalize_entry,
    parse_table,
    plan,
    to_config,
)

TABLE = "table"
BACKENDS = ("auto", "tool", "netlink")


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


def table_drift(before, after):
    """(object, scope, difference) rows per PNET ID between two tables (config items)."""

    def keyed(entries):
        return dict(((e["pnet_id"], _entry_text(e)), e) for e in entries)

    old, new = keyed(before), keyed(after)
    rows = []
    for pnet_id in sorted(set(k[0] for k in list(old) + list(new))):
        missing = sorted(text for pid, text in new if pid == pnet_id and (pid, text) not in old)
        extra = sorted(text for pid, text in old if pid == pnet_id and (pid, text) not in new)
        parts = ["%s missing" % t for t in missing] + ["%s to remove" % t for t in extra]
        if parts:
            rows.append(("smc_pnet %s" % pnet_id, "active", ", ".join(parts)))
    return rows


class PnetTable(Resource):
    kind = "PNET table"
    runner_name = "smc_pnet"

    def __init__(self, module):
        super(PnetTable, self).__init__(module)
        self.state = self.params["state"]
        self.tool = None
        self.smc = None
        self.backend = None
        self.config = []

    def validate(self):
        errors = []
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
        return to_config(current)

    def plan(self, current):
        try:
            commands, target = plan(self.state, self.config, current)
        except PnetError as exc:
            raise ResourceError(str(exc))
        return [Change(TABLE, self._steps(commands), want=target)]

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
            Step(argv=[self.tool] + argv[1:], text=" ".join([TOOL] + argv[1:]), scope="active", kind=kind)
            for argv in commands
        ]

    def predict(self, current, changes):
        return changes[0].want if changes[0].steps else current

    def view(self, state, change):
        return to_config(state)

    def views(self, state, changes):
        return to_config(state)

    def drift(self, before, after, change):
        return table_drift(before, after)

    def diff_text(self, state, changes):
        return "".join(
            "%s\n" % " ".join("%s=%s" % (k, v) for k, v in sorted(item.items())) for item in to_config(state)
        )

    def rollback(self, before, now, change, ran):
        """Back to the table as it was: the table has no single-entry delete, so a run that stopped
        between deleting a PNET ID and adding its entries back would leave them out."""
        commands, _target = plan("overridden", before, now) if before else plan("deleted", [], now)
        return self._steps(commands, kind="rollback")

    def remaining(self, after, change):
        commands, _target = plan(self.state, self.config, after)
        return self._steps(commands)

    def extras(self, state, changes, failed=False):
        return {"backend": self.backend}

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
