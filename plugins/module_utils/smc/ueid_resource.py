# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""smc_ueid on the resource engine: the kernel's user EID table (and whether the system EID is
offered) is one object, changed with ``smcd ueid``/``smcd seid`` (smc-tools, ``ueid_cmd``) or
directly through the ``SMC_GEN_NETLINK`` family (``smc_netlink``), whose commands the tool sends.
The backend is chosen when the table is first read (``auto``: the tool when it is installed and
knows ``ueid``, else netlink), as smc_pnet and smcd_info choose theirs.

Kernel rules the plan follows (net/smc/smc_clc.c): at most 4 UEIDs (``ERANGE`` beyond); adding one
that is there is ``EEXIST``, removing one that is not ``ENOENT``; when the last UEID goes (REMOVE
or FLUSH) the kernel enables the system EID again; the system EID can be disabled only while at
least one UEID is defined. The table and the flag are global, not per network namespace.

The plan removes before it adds (so that a table of 4 can be replaced), but keeps one old UEID
until the first new one is in, so the table never empties on the way and the system EID setting
is not changed behind the user's back. The system EID setting is applied last.
"""

import functools

from ansible_collections.s390x.network.plugins.module_utils.smc import netlink as smc_netlink
from ansible_collections.s390x.network.plugins.module_utils.smc import ueid_cmd
from ansible_collections.s390x.network.plugins.module_utils.engine.resource import Change, Resource, ResourceError, Step

STATES = ("merged", "overridden", "deleted", "gathered")
BACKENDS = ("auto", "tool", "netlink")
TABLE = "ueid table"


def normalize_config(config, state, seid=None):
    """``(ueids, errors)``: the UEIDs of ``config`` as the kernel stores them, and what is wrong
    with the list itself (errors name the item)."""
    ueids, errors = [], []
    for index, item in enumerate(config or []):
        try:
            ueid = smc_netlink.normalize_ueid(item)
        except ValueError as exc:
            errors.append("config[%d]: %s" % (index, exc))
            continue
        if ueid in ueids:
            errors.append("config[%d]: %s is listed twice" % (index, ueid))
            continue
        ueids.append(ueid)
    if state in ("merged", "overridden") and len(ueids) > smc_netlink.SMC_MAX_UEID:
        errors.append("config: %d UEIDs; the kernel holds at most %d" % (len(ueids), smc_netlink.SMC_MAX_UEID))
    if seid == "disabled" and (state == "overridden" and not ueids or state == "deleted" and not config):
        errors.append("seid: disabled needs at least one UEID, and state %s leaves none" % state)
    return ueids, errors


def target_ueids(state, config, current):
    """The table ``state`` makes of ``current`` with ``config`` (normalized)."""
    if state == "merged":
        return list(current) + [u for u in config if u not in current]
    if state == "overridden":
        return list(config)
    if state == "deleted":
        return [] if not config else [u for u in current if u not in config]
    return list(current)


def plan_operations(state, config, current, seid_enabled, want_seid=None):
    """``(operations, target, target_seid_enabled)``.

    ``operations``: ``("add", ueid)``, ``("remove", ueid)``, ``("flush",)``, ``("enable_seid",)``,
    ``("disable_seid",)`` in the order to send them. ``seid_enabled``: the host's flag (None when
    the host has no system EID); ``want_seid``: ``enabled``, ``disabled`` or None (keep it).
    """
    target = target_ueids(state, config, current)
    if len(target) > smc_netlink.SMC_MAX_UEID:
        raise ValueError(
            "the table would hold %d UEIDs (%s); the kernel holds at most %d"
            % (len(target), ", ".join(target), smc_netlink.SMC_MAX_UEID)
        )
    removes = [u for u in current if u not in target]
    adds = [u for u in target if u not in current]
    if state == "deleted" and not config and current:
        operations = [("flush",)]
    elif removes and adds and len(removes) == len(current):
        # keep one old UEID until a new one is in: the table never empties on the way
        operations = [("remove", u) for u in removes[:-1]] + [("add", adds[0]), ("remove", removes[-1])]
        operations += [("add", u) for u in adds[1:]]
    else:
        operations = [("remove", u) for u in removes] + [("add", u) for u in adds]
    enabled = seid_enabled
    if current and not target and enabled is not None:
        enabled = True  # the kernel enables the system EID when the last UEID goes
    if want_seid is not None:
        if seid_enabled is None:
            raise ValueError("seid: this host has no system EID (no ISMv2-capable SMC-D); leave seid unset")
        wanted = want_seid == "enabled"
        if not wanted and not target:
            raise ValueError("seid: disabled needs at least one UEID, and the table would have none")
        if wanted != enabled:
            operations.append(("enable_seid",) if wanted else ("disable_seid",))
            enabled = wanted
    return operations, target, enabled


TOOL_ARGS = {
    "add": ["ueid", "add"],
    "remove": ["ueid", "del"],
    "flush": ["ueid", "flush"],
    "enable_seid": ["seid", "enable"],
    "disable_seid": ["seid", "disable"],
}


def operation_text(operation, backend="netlink"):
    """How an operation shows in ``commands``: the netlink command, or the smcd command line,
    with its UEID."""
    if backend == "tool":
        return ueid_cmd.argv_text(TOOL_ARGS[operation[0]] + list(operation[1:]))
    names = {
        "add": "SMC_NETLINK_ADD_UEID",
        "remove": "SMC_NETLINK_REMOVE_UEID",
        "flush": "SMC_NETLINK_FLUSH_UEID",
        "enable_seid": "SMC_NETLINK_ENABLE_SEID",
        "disable_seid": "SMC_NETLINK_DISABLE_SEID",
    }
    return " ".join([names[operation[0]]] + list(operation[1:]))


def apply_operation(smc, operation):
    kind = operation[0]
    if kind == "add":
        smc.add_ueid(operation[1])
    elif kind == "remove":
        smc.remove_ueid(operation[1])
    elif kind == "flush":
        smc.flush_ueids()
    elif kind == "enable_seid":
        smc.enable_seid()
    else:
        smc.disable_seid()


def _seid_word(enabled):
    return {True: "enabled", False: "disabled"}.get(enabled, "unknown")


class UeidTable(Resource):
    kind = "UEID table"
    drift_kind = "ueid"
    scopes = ("active",)
    runner_name = "smc_ueid"
    restores = "previous UEID table"

    def __init__(self, module):
        super(UeidTable, self).__init__(module)
        self.state = self.params["state"]
        self.want_seid = self.params.get("seid")
        self.config = []
        self.smc = None
        self.backend = None

    def validate(self):
        self.config, errors = normalize_config(self.params["config"], self.state, self.want_seid)
        return errors

    def _run(self, argv):
        return self.module.run_command(argv, environ_update={"LC_ALL": "C"})

    def _read_with(self, backend):
        if backend == "tool":
            self.smc = ueid_cmd.SmcdUeid(self._run, self.tool)
        else:
            self.smc = smc_netlink.SmcNetlink()
        self.backend = backend
        return self.smc.ueids(), self.smc.seid()

    def read(self):
        wanted = self.params.get("backend") or "auto"
        self.tool = None
        if wanted != "netlink":
            self.tool = self.module.get_bin_path(ueid_cmd.TOOL, opt_dirs=["/usr/sbin", "/sbin"])
            if self.tool is None and wanted == "tool":
                raise ResourceError("smcd not found: install smc-tools (1.7.0 or later), or use backend netlink")
        try:
            try:
                ueids, seid = self._read_with("tool" if self.tool is not None else "netlink")
            except ueid_cmd.UnsupportedTool:
                if wanted == "tool":
                    raise
                ueids, seid = self._read_with("netlink")  # smc-tools before 1.7.0
        except (smc_netlink.NetlinkError, ueid_cmd.ToolError) as exc:
            raise ResourceError(str(exc), commands=[])
        return {"ueids": ueids, "seid": seid["seid"], "seid_enabled": seid["enabled"]}

    def gather(self, current):
        return list(current["ueids"])

    def _operations(self, state, config, current, want_seid):
        try:
            return plan_operations(state, config, current["ueids"], current["seid_enabled"], want_seid)
        except ValueError as exc:
            raise ResourceError(str(exc))

    def _steps(self, operations, kind="change"):
        return [
            Step(
                action=functools.partial(apply_operation, self.smc, op),
                text=operation_text(op, self.backend),
                scope="active",
                kind=kind,
            )
            for op in operations
        ]

    def plan(self, current):
        operations, target, enabled = self._operations(self.state, self.config, current, self.want_seid)
        want = {"ueids": target, "seid": current["seid"], "seid_enabled": enabled}
        return [Change(TABLE, self._steps(operations), want=want)]

    def predict(self, current, changes):
        return changes[0].want if changes[0].steps else current

    def view(self, state, change):
        return {
            "active": {
                "ueids": list(state["ueids"]),
                "system_eid": state["seid"],
                "seid": _seid_word(state["seid_enabled"]),
            }
        }

    def views(self, state, changes):
        return list(state["ueids"])

    def extras(self, state, changes, failed=False):
        return {"seid": {"system_eid": state["seid"], "enabled": state["seid_enabled"]}}

    def rollback(self, before, now, change, ran):
        want = None if before["seid_enabled"] is None else _seid_word(before["seid_enabled"])
        if not before["ueids"]:
            want = None  # the kernel enables it with the last UEID gone
        try:
            operations, dummy, dummy = plan_operations(
                "overridden", before["ueids"], now["ueids"], now["seid_enabled"], want
            )
        except ValueError:
            return []
        return self._steps(operations, kind="rollback")

    def remaining(self, after, change):
        try:
            operations, dummy, dummy = plan_operations(
                self.state, self.config, after["ueids"], after["seid_enabled"], self.want_seid
            )
        except ValueError:
            return []
        return self._steps(operations)

    def error_text(self, exc):
        text = str(exc)
        if isinstance(exc, smc_netlink.NetlinkError) and not isinstance(exc, smc_netlink.FamilyNotFound):
            return text.split(" failed: ", 1)[-1]
        return text

    def failure_message(self, change, step, rc, out, err):
        return "%s failed: %s" % (step.command, (err or out).strip())

    def close(self):
        if self.smc is not None:
            self.smc.close()
            self.smc = None
