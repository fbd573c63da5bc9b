# -*- coding: utf-8 -*-
# Copyright: s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter drift_rows: one row per drifted object from the roles' registered results."""

from __future__ import annotations

DOCUMENTATION = r"""
name: drift_rows
author: s390x.network contributors (@s390x-network)
version_added: 0.1.0
short_description: Summarise the drift the s390x.network roles found
description:
  - Takes the variables of every host (C(hostvars)) after the roles ran in check mode with diff
    (or after a correcting run) and returns one row per object that differs from the inventory.
  - Reads the results the roles register, C(qeth_result), C(ism_passthrough_result),
    C(kvm_guest_network_result), C(smc_ism_result), C(smc_sysctl_result), C(smc_pnet_result),
    C(smc_dropins) and C(smc_dropins_removed); a host without them contributes no row.
  - The scope of a row says whether the running system (V(active)), the configuration that
    survives a reboot (V(persistent)) or V(both) differ; V(error) rows are checks that failed, and
    plays of C(drift.yml) a host started (C(drift_started)) but did not finish (C(drift_finished)),
    for example because it became unreachable.
options:
  _input:
    description: C(hostvars), or any mapping of host name to that host's variables.
    type: dict
    required: true
  hosts:
    description: The host names to look at (default all keys of the input), in this order.
    type: list
    elements: str
"""

EXAMPLES = r"""
- name: Print the drift of every host
  ansible.builtin.debug:
    msg: "{{ hostvars | s390x.network.drift_rows(groups['all']) }}"
"""

RETURN = r"""
_value:
  description: One dict per drifted object.
  type: list
  elements: dict
  contains:
    host:
      description: Inventory host name.
      type: str
    object:
      description: What drifted, for example C(qeth 0.0.8200:0.0.8201:0.0.8202), C(zpci fid 0x606) or C(net.smc.rmem).
      type: str
    difference:
      description:
        - What differs, as C(key old -> new) from the module's before/after where it returns them
          (qeth devices, for example C(online 0 -> 1) or C(udev rule missing); zpci functions, for
          example C(power off -> on, driver_override - -> ism)), else what the role would run to
          correct it.
      type: str
    scope:
      description: V(active), V(persistent), V(both) or V(error).
      type: str
"""

import re

from ansible.errors import AnsibleFilterError

_CHZDEV = re.compile(r"^chzdev\s+(?P<opts>(?:-\S+\s+)*)qeth\s+(?P<id>\S+)\s*(?P<attrs>.*)$")
# the path may hold a placeholder with blanks in check mode: "<address of FID 0x606>"
_ECHO = re.compile(r"^echo\s+(?P<value>.*?)\s*>\s*(?P<path>/.*\S)\s*$")


def _registered(hvars, name):
    value = hvars.get(name)
    if not isinstance(value, dict) or value.get("skipped"):
        return None
    return value


_QETH_ACTIVE = ("exists", "hidden", "online", "layer2", "buffer_count", "portno", "isolation", "attributes")


def _changes(old, new, keys):
    """``key old -> new`` for each of ``keys`` that differs between two dicts."""
    return ["%s %s -> %s" % (key, _text(old.get(key)), _text(new.get(key)))
            for key in keys if old.get(key) != new.get(key)]


def _text(value):
    if isinstance(value, bool):
        return "1" if value else "0"
    if value is None:
        return "-"
    if isinstance(value, dict):
        return ",".join("%s=%s" % (k, _text(v)) for k, v in sorted(value.items())) or "{}"
    if isinstance(value, list):
        return ",".join(_text(v) for v in value) or "none"
    return str(value)


def _qeth_state_rows(res):
    """Rows from qeth_device's before/after: what differs per device, active and persistent."""
    before = dict((dev.get("id"), dev) for dev in res.get("before") or [] if isinstance(dev, dict))
    rows = []
    for dev in res.get("after") or []:
        if not isinstance(dev, dict):
            continue
        old = before.get(dev.get("id"), {})
        active = _changes(old, dev, _QETH_ACTIVE)
        if active:
            rows.append(("qeth " + str(dev.get("id")), ", ".join(active), "active"))
        old_rule, new_rule = old.get("persistent"), dev.get("persistent")
        if old_rule != new_rule:
            if old_rule is None or new_rule is None:
                what = "udev rule missing" if old_rule is None else "udev rule to remove"
            else:
                what = "udev rule " + ", ".join(_changes(old_rule, new_rule, sorted(set(old_rule) | set(new_rule))))
            rows.append(("qeth " + str(dev.get("id")), what, "persistent"))
        if old.get("hidden_at_boot") and not dev.get("hidden_at_boot"):
            rows.append(("qeth " + str(dev.get("id")),
                         "cio_ignore hides %s at boot (not freed in 41-cio-ignore.rules)"
                         % ",".join(old["hidden_at_boot"]), "persistent"))
    return rows


def _qeth_rows(res):
    if res.get("before") is not None and res.get("after") is not None:
        rows = _qeth_state_rows(res)
        if rows:
            return rows
    rows = []
    for cmd in res.get("commands") or []:
        match = _CHZDEV.match(cmd)
        if not match:
            rows.append(("qeth", cmd, "both"))
            continue
        opts = match.group("opts").split()
        if "-p" in opts:
            scope = "persistent"
        elif "-a" in opts:
            scope = "active"
        else:
            scope = "both"
        verb = "deconfigure" if "-d" in opts else "set"
        what = match.group("attrs") or ("deconfigured" if verb == "deconfigure" else "configured")
        rows.append(("qeth " + match.group("id"), what, scope))
    return rows


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


def _pnet_rows(res):
    return [("smc_pnet", cmd, "active") for cmd in res.get("commands") or []]


def _file_loop_rows(res, action):
    rows = []
    for item in res.get("results") or []:
        if isinstance(item, dict) and item.get("changed"):
            path = item.get("dest") or item.get("path") or item.get("item")
            rows.append((str(path), action, "persistent"))
    return rows


_SOURCES = (
    ("qeth_result", _qeth_rows),
    ("ism_passthrough_result", _zpci_rows),
    ("kvm_guest_network_result", _libvirt_rows),
    ("smc_ism_result", _zpci_rows),
    ("smc_sysctl_result", _sysctl_rows),
    ("smc_pnet_result", _pnet_rows),
    ("smc_dropins", lambda r: _file_loop_rows(r, "drop-in differs")),
    ("smc_dropins_removed", lambda r: _file_loop_rows(r, "drop-in to remove")),
)


# what a failed check is about, by registered variable (loop items add their name)
_FAILURE_LABELS = {
    "qeth_result": "qeth",
    "ism_passthrough_result": "zpci",
    "kvm_guest_network_result": "guest",
    "smc_ism_result": "zpci",
    "smc_sysctl_result": "smc sysctl",
    "smc_pnet_result": "smc_pnet",
}


def _failure_rows(var, res):
    rows = []
    items = res.get("results") if isinstance(res.get("results"), list) else [res]
    for item in items:
        if isinstance(item, dict) and item.get("failed"):
            label = _FAILURE_LABELS.get(var, var)
            if isinstance(item.get("item"), dict) and item["item"].get("name"):
                label = "%s %s" % (label, item["item"]["name"])
            rows.append((label, "check failed: %s" % item.get("msg", "unknown error"), "error"))
    return rows


_STAGES = {"qeth": "qeth check", "kvm": "ISM pass-through and guest check", "smc": "SMC check"}


def _unfinished_rows(hvars):
    """Error rows for the drift.yml plays a host started but did not finish (unreachable, or stopped)."""
    finished = hvars.get("drift_finished") or []
    rows = []
    for stage in hvars.get("drift_started") or []:
        if stage not in finished:
            rows.append((_STAGES.get(stage, stage), "did not finish: host unreachable or the play failed "
                         "(see the log above)", "error"))
    return rows


def drift_rows(hostvars, hosts=None):
    """Rows of drift per host, from the registered results of the roles."""
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
        found = []
        for var, reader in _SOURCES:
            res = _registered(hvars, var)
            if res is None:
                continue
            if res.get("changed"):
                found.extend(reader(res))
            found.extend(_failure_rows(var, res))
        found.extend(_unfinished_rows(hvars))
        rows.extend({"host": host, "object": obj, "difference": difference, "scope": scope}
                    for obj, difference, scope in found)
    return rows


class FilterModule(object):
    """s390x.network drift summary filter."""

    def filters(self):
        return {"drift_rows": drift_rows}
