# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""nmcli, wrapped once: the command lines the modules run and the parsers of what it prints.

Facts relied on (nmcli(1), nm-settings-nmcli(5)):

* ``-t`` (terse) prints ``FIELD:VALUE`` lines for ``connection show ID`` / ``device show IF`` and
  ``VALUE:VALUE`` rows for lists; a ``:`` inside a value is escaped as ``\\:`` and a ``\\`` as
  ``\\\\``. An unset property prints as empty (``--`` in older releases).
* ``-g FIELDS`` (``--get-values``) prints the values only, one line per field, unescaped for a
  single field.
* Multi-valued properties (``ipv4.addresses``, ``ipv4.routes``) are given and printed as one value
  with ``,`` between the items; a route is ``DEST[/PREFIX] [NEXT_HOP] [METRIC]``. An empty string
  resets a property.
* ``connection modify`` changes the profile on disk only; the device gets it on ``connection up``
  (re-activation) or ``device reapply`` (in place, without taking the device down, for the
  properties NetworkManager can change on a live device).
* Exit codes: 0 success, 2 invalid input, 3 timeout, 4 activation failed, 8 NetworkManager not
  running, 10 connection/device does not exist.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.s390x.network.plugins.module_utils.ip import ifname as ip_ifname

NMCLI = "nmcli"

_NM_VERSION_RE = re.compile(r"version\s+(\d+)\.(\d+)")

# The profile properties the interfaces module manages, in the order it shows them.
PROFILE_FIELDS = (
    "connection.id",
    "connection.uuid",
    "connection.type",
    "connection.interface-name",
    "connection.autoconnect",
    "ipv4.method",
    "ipv4.addresses",
    "ipv4.gateway",
    "ipv4.routes",
    "ipv6.method",
    "ipv6.addresses",
    "ipv6.gateway",
    "ipv6.routes",
    "802-3-ethernet.mtu",
    "vlan.parent",
    "vlan.id",
)
# Fields of the settings a profile of that type has (nmcli refuses fields of absent settings).
TYPE_FIELDS = {
    "802-3-ethernet": tuple(f for f in PROFILE_FIELDS if not f.startswith("vlan.")),
    "vlan": PROFILE_FIELDS,
}


def ifname_problem(name):
    """Why the interface name ``name`` cannot be given to nmcli; None when it can.

    The kernel's grammar (ip_ifname), and two nmcli rules: a value with a leading ``-`` can be taken
    for one of nmcli's own options (``--ask``), and ``ifname *`` makes a profile for any interface.
    """
    problem = ip_ifname.ifname_problem(name)
    if problem:
        return problem
    if name.startswith("-"):
        return "%r starts with - (nmcli would read it as an option)" % name
    if name == "*":
        return "'*' is nmcli's wildcard for any interface, not an interface name"
    return None


def managed_fields(ctype):
    """The properties a profile of type ``ctype`` has that a run may set (all but its UUID)."""
    return [f for f in TYPE_FIELDS.get(ctype, TYPE_FIELDS["802-3-ethernet"]) if f != "connection.uuid"]


def argv_running(tool=NMCLI):
    """Exit code 0 when NetworkManager runs, 8 when it does not."""
    return [tool, "-t", "-f", "RUNNING", "general"]


def argv_version(tool=NMCLI):
    return [tool, "--version"]


def parse_version(text):
    """``nmcli tool, version 1.46.0`` -> (1, 46); None when not found."""
    match = _NM_VERSION_RE.search(text or "")
    return (int(match.group(1)), int(match.group(2))) if match else None


def terse_value(value):
    """A value of nmcli's terse output (``\\:`` escapes ``:``); ``--`` and empty are None."""
    value = value.replace("\\:", ":").replace("\\\\", "\\").strip()
    return None if value in ("", "--") else value


def parse_terse(text):
    """``nmcli -t -f ...`` multiline output -> {field: value or None}."""
    values = {}
    for line in (text or "").splitlines():
        match = re.fullmatch(r"([^:]+):(.*)", line)
        if match:
            values[match.group(1).strip()] = terse_value(match.group(2))
    return values


def split_terse_row(line):
    """One row of ``nmcli -t -f A,B connection show`` -> [A, B] (escaped ``:`` kept in values)."""
    fields, current, escaped = [], [], False
    for char in line:
        if escaped:
            current.append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == ":":
            fields.append("".join(current))
            current = []
        else:
            current.append(char)
    fields.append("".join(current))
    return fields


def argv_list_profiles(tool=NMCLI):
    return [tool, "-t", "-f", "NAME,UUID,TYPE,DEVICE", "connection", "show"]


def parse_list_profiles(text):
    """Rows of ``argv_list_profiles`` -> list of dict(name, uuid, type, device or None)."""
    rows = []
    for line in (text or "").splitlines():
        if not line.strip():
            continue
        parts = split_terse_row(line)
        if len(parts) < 4:
            continue
        name, uuid, ctype, device = parts[0], parts[1], parts[2], ":".join(parts[3:])
        rows.append({"name": name, "uuid": uuid, "type": ctype, "device": device or None})
    return rows


def argv_show_profile(uuid, ctype, tool=NMCLI):
    """The managed properties of one profile (by UUID: names need not be unique)."""
    fields = TYPE_FIELDS.get(ctype, TYPE_FIELDS["802-3-ethernet"])
    return [tool, "-t", "-f", ",".join(fields), "connection", "show", "uuid", uuid]


def argv_device_show(ifname, tool=NMCLI):
    return [tool, "-t", "-f", "GENERAL.STATE,GENERAL.CONNECTION,GENERAL.CON-UUID", "device", "show", ifname]


def parse_device_state(text):
    """(state number or None, active profile UUID or None) from ``argv_device_show``."""
    values = parse_terse(text)
    match = re.match(r"^(\d+)", values.get("GENERAL.STATE") or "")
    return (int(match.group(1)) if match else None), values.get("GENERAL.CON-UUID")


def split_list(value):
    """A multi-valued property as printed (``a, b`` or ``a,b``) -> list of items."""
    if not value:
        return []
    return [item.strip() for item in value.split(",") if item.strip()]


def argv_add(values, tool=NMCLI):
    """``nmcli connection add type T con-name ID ifname IF PROPERTY VALUE ...``.

    ``values``: {property: value}; ``connection.type``, ``connection.id`` and
    ``connection.interface-name`` go first as ``type``/``con-name``/``ifname``.
    """
    argv = [
        tool,
        "connection",
        "add",
        "type",
        values["connection.type"],
        "con-name",
        values["connection.id"],
        "ifname",
        values["connection.interface-name"],
    ]
    for name in PROFILE_FIELDS:
        if name in ("connection.type", "connection.id", "connection.interface-name", "connection.uuid"):
            continue
        if name in values:
            argv += [name, "" if values[name] is None else str(values[name])]
    return argv


def argv_modify(ref, values, tool=NMCLI):
    """``nmcli connection modify uuid UUID PROPERTY VALUE ...`` (None resets a property)."""
    argv = [tool, "connection", "modify"] + list(ref)
    for name in PROFILE_FIELDS:
        if name in values and name != "connection.uuid":
            argv += [name, "" if values[name] is None else str(values[name])]
    return argv


def argv_up(ref, tool=NMCLI):
    return [tool, "connection", "up"] + list(ref)


def argv_delete(ref, tool=NMCLI):
    return [tool, "connection", "delete"] + list(ref)
