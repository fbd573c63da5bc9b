# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Drift rows (object, scope, difference) from the roles' module results, and the fleet summary.

Every changing module of the collection runs on the resource engine and returns its own ``drift``
rows; the only rows made here are those of the smc role's drop-in files (``ansible.builtin.template``
loops) and the error rows. Each role reports its rows in the host variable ``<role>_drift``; the summary concatenates the
reports of the roles a host ran (``drift_expected``) and turns every missing one into an error row.
"""

from __future__ import annotations

from ansible.errors import AnsibleFilterError


def _file_loop_rows(res, action):
    rows = []
    for item in res.get("results") or []:
        if isinstance(item, dict) and item.get("changed"):
            path = item.get("dest") or item.get("path") or item.get("item")
            rows.append((str(path), action, "persistent"))
    return rows


# by result kind: None for the modules that return their drift rows, else how to read the result
_READERS = {
    "qeth": None,  # qeth_device returns its drift rows
    "zpci": None,  # zpci_function returns its drift rows
    "guest": None,  # libvirt_device returns its drift rows (one result per guest)
    "sysctl": None,  # smc_sysctl returns its drift rows
    "pnet": None,  # smc_pnet returns its drift rows
    "ueid": None,  # smc_ueid returns its drift rows
    "nic": None,  # nic_tuning returns its drift rows
    "ip": None,  # ip_interfaces returns its drift rows
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
        return [
            _row(r.get("object"), r.get("difference"), r.get("scope")) for r in result["drift"] if isinstance(r, dict)
        ]
    if _READERS[kind] is None and isinstance(result.get("results"), list):  # a loop: one result per item
        rows = []
        for item in result["results"]:
            if isinstance(item, dict) and not item.get("skipped"):
                rows.extend(result_drift(item, kind))
        return rows
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
                rows.append(
                    {
                        "host": host,
                        "object": "role %s" % role,
                        "scope": "error",
                        "difference": "reported nothing: host unreachable or the role did not finish "
                        "(see the log above)",
                    }
                )
                continue
            rows.extend(dict(row, host=host) for row in report if isinstance(row, dict))
    return rows
