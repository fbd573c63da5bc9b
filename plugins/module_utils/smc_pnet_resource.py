# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""smc_pnet on the resource engine: the software PNET table is one object (its commands must run
in the planned order: every PNET ID that is rebuilt is deleted before anything is added)."""

from __future__ import annotations

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

    def read(self):
        if self.tool is None:
            self.tool = self.module.get_bin_path(TOOL, opt_dirs=["/usr/sbin", "/sbin"])
            if self.tool is None:
                raise ResourceError("smc_pnet not found: install smc-tools")
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
        """Steps of smc_pnet argvs (planned with the tool's name; run by the path found)."""
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

    def failure_message(self, change, step, rc, out, err):
        return "%s failed with exit code %d%s: %s" % (step.command, rc, _hint(err), (err or out).strip())
