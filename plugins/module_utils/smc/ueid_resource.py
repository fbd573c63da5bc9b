# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""smc_ueid on the resource engine: the kernel's user EID table (and whether the system EID is
offered) is one object, changed through the ``SMC_GEN_NETLINK`` family (``smc_netlink``).

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
from ansible_collections.s390x.network.plugins.module_utils.engine.resource import Change, Resource, ResourceError, Step

STATES = ("merged", "overridden", "deleted", "gathered")
TABLE = "ueid table"
OBJECT = "smc_ueid"


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


def operation_text(operation):
    """How an operation shows in ``commands``: the netlink command and its UEID."""
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


def table_drift(before, after):
    """One row ``(smc_ueid, active, difference)`` for what differs between two states."""
    parts = ["UEID %s missing" % u for u in after["ueids"] if u not in before["ueids"]]
    parts += ["UEID %s to remove" % u for u in before["ueids"] if u not in after["ueids"]]
    if before["seid_enabled"] != after["seid_enabled"]:
        parts.append(
            "system EID %s, wanted %s" % (_seid_word(before["seid_enabled"]), _seid_word(after["seid_enabled"]))
        )
    return [(OBJECT, "active", ", ".join(parts))] if parts else []


class UeidTable(Resource):
    kind = "UEID table"
    runner_name = "smc_ueid"
    restores = "previous UEID table"

    def __init__(self, module):
        super(UeidTable, self).__init__(module)
        self.state = self.params["state"]
        self.want_seid = self.params.get("seid")
        self.config = []
        self.smc = None

    def validate(self):
        self.config, errors = normalize_config(self.params["config"], self.state, self.want_seid)
        return errors

    def read(self):
        try:
            if self.smc is None:
                self.smc = smc_netlink.SmcNetlink()
            ueids = self.smc.ueids()
            seid = self.smc.seid()
        except smc_netlink.NetlinkError as exc:
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
                text=operation_text(op),
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
        return state

    def views(self, state, changes):
        return list(state["ueids"])

    def drift(self, before, after, change):
        return table_drift(before, after)

    def diff_text(self, state, changes):
        lines = ["ueid %s\n" % u for u in state["ueids"]]
        if state["seid_enabled"] is not None:
            lines.append("seid %s %s\n" % (state["seid"], _seid_word(state["seid_enabled"])))
        return "".join(lines)

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
