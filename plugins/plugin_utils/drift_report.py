# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Drift rows (kind, object, scope, difference) from the roles' module results, and the fleet summary.

Every changing module of the collection runs on the resource engine and returns its own ``drift``
rows, each with its ``kind``; the only rows made here are the error rows and those of the SMC
buffer rule. ``ROLE_RESULTS`` names the results each role registers: a role's report is read from
them when it is asked for (``role_drift``; the roles define ``<role>_drift`` with it), so a run
spends no task on reports nobody reads. The summary takes the reports a host owes from the inventory
(the entries of playbooks/vars/plays.yml whose groups it is in), concatenates them and turns every
report or result that is missing into an error row.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

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
    """Error rows of a result (or its loop items) that failed or whose host was unreachable: such
    a result carries a message instead of the module's rows."""
    rows = []
    items = res.get("results") if isinstance(res.get("results"), list) else [res]
    for item in items:
        if isinstance(item, dict) and (item.get("failed") or item.get("unreachable")):
            label = kind
            if isinstance(item.get("item"), dict) and item["item"].get("name"):
                label = "%s %s" % (label, item["item"]["name"])
            rows.append((label, _failure_text(item), "error"))
    if not rows and (res.get("failed") or res.get("unreachable")):  # a loop whose items do not say
        rows.append((kind, _failure_text(res), "error"))
    return rows


def _failure_text(result):
    what = "host unreachable" if result.get("unreachable") else "check failed"
    # one line for the table: ssh's message ends in a line break on some ansible-core releases
    return "%s: %s" % (what, " ".join(str(result.get("msg") or "unknown error").split()))


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
    # every module of the collection returns drift rows, also when nothing differs: a result without
    # them is not the module's (or a module older than the role), never "no drift"
    return [
        _row(kind, "the result has no drift rows (not the module's result, or a module older than the role)", "error")
    ]


# The results each role registers, in the order it runs them, with the kind of their module. Every
# register named here is checked against the role's tasks (tests/unit/roles/test_drift_reports.py).
ROLE_RESULTS = {
    "qeth": (("qeth_result", "qeth"),),
    "network_express": (("network_express_result", "zpci"),),
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


# Steps that run before a role's modules and return no drift rows (the smc role's plan, an action
# on the controller that checks the role's input): when one failed, the modules after it fail for
# want of its result, and its own message, which names the wrong field, is an error row too.
ROLE_PLANS = {"smc": ("smc_plan",)}


def role_drift(variables, role):
    """The drift rows of ``role`` from the results it registered in ``variables`` (a host's
    variables: ``hostvars[host]``); a result that is not there, with none after it, is an error row
    (the role stopped), a failed planning step (``ROLE_PLANS``) is one too, and None when the role
    registered none of them (it did not run). A role that is not one of the collection's gives its own report, the variable ``<role>_drift``, or
    None."""
    if role not in ROLE_RESULTS:
        report = _get(variables, "%s_drift" % role)
        return report if isinstance(report, list) else None
    plan_rows = []
    for name in ROLE_PLANS.get(role, ()):
        plan = _get(variables, name)
        if isinstance(plan, dict):
            plan_rows.extend(_row(name, text, scope, "plan") for _label, text, scope in _failure_rows("plan", plan))
    results = [(name, kind, _get(variables, name)) for name, kind in ROLE_RESULTS[role]]
    if all(result is None for _name, _kind, result in results):
        return plan_rows or None  # None: the role did not run, the summary's "reported nothing" row
    # a result missing before one the role registered later is a step the host did not need (the
    # role runs some steps only where the inventory asks for them); after the last one, the role stopped
    last = max(index for index, (_name, _kind, result) in enumerate(results) if result is not None)
    rows = plan_rows
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


def _entries(plays):
    """The (groups, roles) of each entry of drift.yml's list, checked."""
    if not isinstance(plays, list):
        raise AnsibleFilterError(
            "drift_rows: plays must be the list of entries (s390x_network_plays), got %r" % (plays,)
        )
    for index, entry in enumerate(plays):
        if not (
            isinstance(entry, Mapping)
            and isinstance(entry.get("groups"), list)
            and isinstance(entry.get("roles"), list)
        ):
            raise AnsibleFilterError(
                "drift_rows: plays[%d] must have the lists groups and roles, got %r" % (index, entry)
            )
    return [(entry["groups"], entry["roles"]) for entry in plays]


def owed_reports(plays, groups, host):
    """The roles whose reports ``host`` owes: those of every entry of ``plays`` (drift.yml's
    ``s390x_network_plays``: ``groups``, ``roles``) whose groups the host is in, read from the
    inventory's ``groups`` (group name -> host names), in the entries' order, each role once."""
    owed = []
    for entry_groups, roles in _entries(plays):
        if any(host in (groups.get(group) or ()) for group in entry_groups):
            owed.extend(role for role in roles if role not in owed)
    return owed


def drift_rows(hostvars, hosts=None, plays=None, groups=None):
    """Rows of drift per host: the reports each host owes by the inventory (``owed_reports``: the
    entries of ``plays`` whose ``groups`` it is in), each read from the results its role registered
    (``role_drift``), and an error row for each owed report the host did not give (unreachable from
    the start or on the way, a role that did not run). ``hosts``: the hosts the checks ran on
    (drift.yml's ``ansible_play_hosts_all``), in this order; default every host of the entries'
    groups. What a host owes never comes from what it registered: a host that is gone registered
    nothing more."""
    entries = _entries(plays)
    if not isinstance(groups, Mapping):
        raise AnsibleFilterError(
            "drift_rows: groups must map each inventory group to its hosts (groups), got %r" % (groups,)
        )
    if hosts is None:
        hosts = []
        for entry_groups, _roles in entries:
            for group in entry_groups:
                hosts.extend(host for host in groups.get(group) or () if host not in hosts)
    elif isinstance(hosts, str) or not isinstance(hosts, Sequence):
        raise AnsibleFilterError("drift_rows: hosts must be a list of host names, got %r" % (hosts,))
    rows = []
    for host in hosts:
        try:
            hvars = hostvars[host]
        except KeyError:  # not in hostvars: it registered nothing
            hvars = {}
        for role in owed_reports(plays, groups, host):
            report = role_drift(hvars, role)
            if report is None:
                rows.append(
                    {
                        "host": host,
                        "kind": "role",
                        "object": role,
                        "scope": "error",
                        "difference": "reported nothing: host unreachable or the role did not run or finish "
                        "(see the log above)",
                    }
                )
                continue
            rows.extend(dict(row, host=host) for row in report if isinstance(row, dict))
    return rows
