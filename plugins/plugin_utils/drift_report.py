# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Drift rows (kind, object, scope, difference) from the roles' module results, and the fleet summary.

Every changing module of the collection runs on the resource engine and returns its own ``drift``
rows, each with its ``kind``; the only rows made here are the error rows and those of the SMC
buffer rule. ``ROLE_RESULTS`` names the results each role registers: a role's report is read from
them when it is asked for (``role_drift``; the roles define ``<role>_drift`` with it), so a run
spends no task on reports nobody reads. The summary concatenates the reports of the roles a host ran
(``drift_expected``) and turns every missing result into an error row.
"""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.s390x.network.plugins.module_utils.smc.sizing import (
    SMC_SYSCTL_PREFIX,
    TCP_KEYS,
    SizingError,
    parse_size,
    parse_tcp_triplet,
    requested_from_tcp,
)


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


def _row(obj, difference, scope, kind=None):
    return {"kind": kind, "object": obj, "scope": scope, "difference": difference}


def wanted_buffer_sizes(buffer_size, rmem=None, wmem=None):
    """The SMC buffer size in bytes the inventory wants per direction: ``smc_rmem``/``smc_wmem``
    when set, else ``smc_buffer_size``; an empty string leaves the direction alone (None), as the
    smc role then does not pass it to smc_sysctl."""
    wanted = {}
    for name, value in (("rmem", rmem), ("wmem", wmem)):
        variable = "smc_%s" % name
        if value is None:
            value, variable = buffer_size, "smc_buffer_size"
        if value is None or str(value).strip() == "":
            wanted[name] = None
            continue
        try:
            wanted[name] = parse_size(value, variable)
        except SizingError as exc:
            raise AnsibleFilterError("result_drift: %s" % exc)
    return wanted


def _requested_size(result, name):
    """The SMC buffer size smc_sysctl asks the kernel for (its ``sysctls``): ``net.smc.<name>``,
    or half the default of ``net.ipv4.tcp_<name>`` on kernels without it; None when not set."""
    sysctls = result.get("sysctls") if isinstance(result.get("sysctls"), dict) else {}
    if sysctls.get(SMC_SYSCTL_PREFIX + name) is not None:
        return SMC_SYSCTL_PREFIX + name, int(sysctls[SMC_SYSCTL_PREFIX + name])
    if sysctls.get(TCP_KEYS[name]) is not None:
        return TCP_KEYS[name], requested_from_tcp(parse_tcp_triplet(sysctls[TCP_KEYS[name]], TCP_KEYS[name])[1])
    return SMC_SYSCTL_PREFIX + name, None


def buffer_rows(result, buffer_size, rmem=None, wmem=None):
    """Rows for an SMC buffer that smc_sysctl asks the kernel for in another size than the inventory
    wants (``wanted_buffer_sizes``): the one rule drift.yml and verify.yml judge the buffers by,
    next to the sysctl rows of the module's own result."""
    rows = []
    for name, want in sorted(wanted_buffer_sizes(buffer_size, rmem, wmem).items()):
        if want is None:
            continue
        key, requested = _requested_size(result, name)
        if requested != want:
            rows.append(
                _row(
                    key,
                    "SMC %s buffer: %s requested, %d bytes wanted"
                    % (
                        {"rmem": "receive", "wmem": "send"}[name],
                        "none" if requested is None else "%d bytes" % requested,
                        want,
                    ),
                    "active",
                )
            )
    return rows


def result_drift(result, kind, buffer_size=None, rmem=None, wmem=None):
    """Drift rows of one registered module result (``kind``, ``object``, ``scope``, ``difference``).

    ``kind``: the kind of the role's module (the ``kind`` of its error rows). A module's rows keep
    the kind they carry. A result that is not there (``None``: the role's register was not
    found) is an error row.
    For ``sysctl`` with ``buffer_size`` (and ``rmem``/``wmem``, the role's variables): also the
    rows of ``buffer_rows``.
    """
    if not isinstance(kind, str) or not kind.isidentifier():
        raise AnsibleFilterError("result_drift: kind must be a word such as qeth, zpci or dropin, got %r" % (kind,))
    rows = _result_rows(result, kind)
    if kind == "sysctl" and buffer_size is not None and isinstance(result, dict):
        if not (result.get("failed") or result.get("skipped")) and result.get("method"):
            rows.extend(buffer_rows(result, buffer_size, rmem, wmem))
    for row in rows:
        row["kind"] = row["kind"] or kind
    return rows


def _result_rows(result, kind):
    if not isinstance(result, dict):
        return [_row(kind, "no result: the role registered none under the name it reports", "error")]
    failures = _failure_rows(kind, result)
    if failures or result.get("skipped"):
        return [_row(o, d, s) for o, d, s in failures]
    if isinstance(result.get("drift"), list):
        return [
            _row(r.get("object"), r.get("difference"), r.get("scope"), r.get("kind"))
            for r in result["drift"]
            if isinstance(r, dict)
        ]
    if isinstance(result.get("results"), list):  # a loop: one result per item
        rows = []
        for item in result["results"]:
            if isinstance(item, dict) and not item.get("skipped"):
                rows.extend(_result_rows(item, kind))
        return rows
    if not result.get("changed"):
        return []
    return [_row(kind, "the result has no drift rows (module older than the role?)", "error")]


# The results each role registers, in the order it runs them, with the kind of their module. Every
# register named here is checked against the role's tasks (tests/unit/roles/test_drift_reports.py).
ROLE_RESULTS = {
    "qeth": (("qeth_result", "qeth"),),
    "ism_passthrough": (("ism_passthrough_result", "zpci"),),
    "kvm_guest_network": (("kvm_guest_network_promisc_result", "link"), ("kvm_guest_network_result", "guest")),
    "interfaces": (("interfaces_result", "ip"),),
    "nic_tuning": (("nic_tuning_result", "nic"),),
    "smc": (
        ("smc_ism_result", "zpci"),
        ("smc_sysctl_result", "sysctl"),
        ("smc_pnet_result", "pnet"),
        ("smc_ueid_result", "ueid"),
        ("smc_services_result", "dropin"),
    ),
}


def role_drift(variables, role):
    """The drift rows of ``role`` from the results it registered in ``variables`` (a host's
    variables: ``hostvars[host]``); a result that is not there, with none after it, is an error row
    (the role stopped), and None when the role registered none of them (it did not run). A role
    that is not one of the collection's gives its own report, the variable ``<role>_drift``, or
    None."""
    if role not in ROLE_RESULTS:
        report = _get(variables, "%s_drift" % role)
        return report if isinstance(report, list) else None
    results = [(name, kind, _get(variables, name)) for name, kind in ROLE_RESULTS[role]]
    if all(result is None for _name, _kind, result in results):
        return None  # the role did not run: the summary's "reported nothing" row
    # a result missing before one the role registered later is a step the host did not need (the
    # role runs some steps only where the inventory asks for them); after the last one, the role stopped
    last = max(index for index, (_name, _kind, result) in enumerate(results) if result is not None)
    rows = []
    for index, (name, kind, result) in enumerate(results):
        if result is not None:
            rows.extend(result_drift(result, kind))
        elif index > last:
            rows.append(_row(name, "no result: the role stopped before this step", "error", kind))
    return rows


def _get(variables, name):
    try:
        return variables.get(name)
    except AttributeError:
        raise AnsibleFilterError(
            "role_drift: expected a host's variables (hostvars[host]), got %s" % type(variables).__name__
        )


def drift_rows(hostvars, hosts=None):
    """Rows of drift per host: the results of every role in the host's ``drift_expected``
    (``role_drift``), and an error row for each role that reported nothing."""
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
            report = role_drift(hvars, role)
            if report is None:
                rows.append(
                    {
                        "host": host,
                        "kind": "role",
                        "object": role,
                        "scope": "error",
                        "difference": "reported nothing: host unreachable or the role did not finish "
                        "(see the log above)",
                    }
                )
                continue
            rows.extend(dict(row, host=host) for row in report if isinstance(row, dict))
    return rows
