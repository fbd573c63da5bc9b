# -*- coding: utf-8 -*-
# Copyright: s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Drift rows (object, scope, difference) from the roles' module results, and the fleet summary.

Modules on the resource engine return their own ``drift`` rows; for the others the rows are read
from their ``before``/``after`` or, where they return neither, from the commands they would run.
Each role reports its rows in the host variable ``<role>_drift``; the summary concatenates the
reports of the roles a host ran (``drift_expected``) and turns every missing one into an error row.
"""

from __future__ import annotations

import re

from ansible.errors import AnsibleFilterError

from ansible_collections.s390x.network.plugins.module_utils.drift_text import changes as _changes
from ansible_collections.s390x.network.plugins.module_utils.drift_text import value_text as _text

# the path may hold a placeholder with blanks in check mode: "<address of FID 0x606>"
_ECHO = re.compile(r"^echo\s+(?P<value>.*?)\s*>\s*(?P<path>/.*\S)\s*$")


_ZPCI_ACTIVE = ("power", "driver_override", "driver")


def _zpci_state_rows(res):
    """Rows from zpci_function's before/after (per FID) and its file commands (persistent)."""
    before = dict((fn.get("fid"), fn) for fn in res.get("before") or [] if isinstance(fn, dict))
    rows = []
    for fn in res.get("after") or []:
        if not isinstance(fn, dict) or not isinstance(fn.get("fid"), int):
            continue
        active = _changes(before.get(fn["fid"], {}), fn, _ZPCI_ACTIVE)
        if active:
            rows.append(("zpci fid 0x%x" % fn["fid"], ", ".join(active), "active"))
    for cmd in res.get("commands") or []:
        verb, dummy, path = cmd.partition(" ")
        if verb in ("write", "rm") and path.startswith("/etc/"):
            rows.append((path, "file differs" if verb == "write" else "file to remove", "persistent"))
    return rows


def _zpci_rows(res):
    if res.get("before") is not None and res.get("after") is not None:
        rows = _zpci_state_rows(res)
        if rows:
            return rows
    rows = []
    for cmd in res.get("commands") or []:
        match = _ECHO.match(cmd)
        if match and match.group("path").startswith("/sys/"):
            rows.append(("zpci " + match.group("path"), "write " + match.group("value"), "active"))
        else:
            rows.append(("zpci", cmd, "persistent"))
    return rows


def _libvirt_rows(res):
    rows = []
    for item in res.get("results") or [res]:
        if not isinstance(item, dict) or item.get("skipped"):
            continue
        domain = (item.get("item") or {}).get("name") or item.get("invocation", {}).get("module_args", {}).get("domain", "?")
        for dev in item.get("changed_devices") or []:
            device = dev.get("device") or {}
            if device.get("kind") == "hostdev":
                label = "hostdev fid 0x%x" % int(device.get("fid", 0))
            else:
                label = "interface %s" % (device.get("source") or device.get("mac") or "?")
            fields = ", ".join(dev.get("fields") or [])
            scope = "both" if dev.get("live") else "persistent"
            rows.append(("guest %s %s" % (domain, label), (dev.get("action") or "change") + (" (" + fields + ")" if fields else ""), scope))
    return rows


def _sysctl_rows(res):
    rows = []
    before = res.get("before") or {}
    after = res.get("after") or {}
    for part, scope in (("file", "persistent"), ("live", "active")):
        old = before.get(part) or {}
        new = after.get(part) or {}
        for key in sorted(set(old) | set(new)):
            if old.get(key) != new.get(key):
                rows.append((key, "%s -> %s" % (_text(old.get(key)), _text(new.get(key))), scope))
    return rows


def _file_loop_rows(res, action):
    rows = []
    for item in res.get("results") or []:
        if isinstance(item, dict) and item.get("changed"):
            path = item.get("dest") or item.get("path") or item.get("item")
            rows.append((str(path), action, "persistent"))
    return rows


# legacy readers for modules that return no ``drift`` rows themselves, by result kind
_READERS = {
    "qeth": None,  # qeth_device returns its drift rows
    "zpci": _zpci_rows,
    "guest": _libvirt_rows,
    "sysctl": _sysctl_rows,
    "pnet": None,  # smc_pnet returns its drift rows
    "dropin": lambda r: _file_loop_rows(r, "drop-in differs"),
    "dropin_removed": lambda r: _file_loop_rows(r, "drop-in to remove"),
}


def _failure_rows(kind, res):
    rows = []
    items = res.get("results") if isinstance(res.get("results"), list) else [res]
    for item in items:
        if isinstance(item, dict) and item.get("failed"):
            label = kind
            if isinstance(item.get("item"), dict) and item["item"].get("name"):
                label = "%s %s" % (label, item["item"]["name"])
            rows.append((label, "check failed: %s" % item.get("msg", "unknown error"), "error"))
    return rows


def _row(obj, difference, scope):
    return {"object": obj, "scope": scope, "difference": difference}


def result_drift(result, kind):
    """Drift rows of one registered module result (``object``, ``scope``, ``difference``).

    A result that is not there (``None``: the role's register was not found) is an error row.
    """
    if kind not in _READERS:
        raise AnsibleFilterError("result_drift: kind must be one of %s, got %r" % (", ".join(sorted(_READERS)), kind))
    if not isinstance(result, dict):
        return [_row(kind, "no result: the role registered none under the name it reports", "error")]
    failures = _failure_rows(kind, result)
    if failures or result.get("skipped"):
        return [_row(o, d, s) for o, d, s in failures]
    if isinstance(result.get("drift"), list):
        return [_row(r.get("object"), r.get("difference"), r.get("scope")) for r in result["drift"]
                if isinstance(r, dict)]
    if not result.get("changed"):
        return []
    if _READERS[kind] is None:
        return [_row(kind, "the result has no drift rows (module older than the role?)", "error")]
    return [_row(o, d, s) for o, d, s in _READERS[kind](result)]


def drift_rows(hostvars, hosts=None):
    """Rows of drift per host: the report ``<role>_drift`` of every role in the host's
    ``drift_expected``, and an error row for each report that is not there."""
    try:
        names = list(hosts) if hosts is not None else sorted(hostvars.keys())
    except Exception as exc:  # pragma: no cover - defensive: hostvars is lazy in Ansible
        raise AnsibleFilterError("drift_rows: cannot list the hosts: %s" % exc)
    rows = []
    for host in names:
        try:
            hvars = hostvars[host]
        except KeyError:
            continue
        for role in hvars.get("drift_expected") or []:
            report = hvars.get("%s_drift" % role)
            if not isinstance(report, list):
                rows.append({"host": host, "object": "role %s" % role, "scope": "error",
                             "difference": "reported nothing: host unreachable or the role did not finish "
                                           "(see the log above)"})
                continue
            rows.extend(dict(row, host=host) for row in report if isinstance(row, dict))
    return rows
