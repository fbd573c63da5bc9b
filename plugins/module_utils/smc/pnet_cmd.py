# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""``smc_pnet`` (smc-tools): argument formats, output parsing and the commands for a wanted table.

The tool's forms (smc-tools smc_pnet.c; getopt, so option order is free):

* ``smc_pnet`` -- show the table, one line per entry: ``"%s %s %s %d"`` = PNET ID, network
  interface or ``n/a``, IB/ISM device or ``n/a``, port (255 for interface entries);
* ``smc_pnet -a PNETID -I IFACE`` / ``smc_pnet -a PNETID -D DEVICE -P PORT`` -- add an entry;
* ``smc_pnet -d PNETID`` -- delete *every* entry of that PNET ID (there is no way to delete a
  single entry); ``smc_pnet -f`` -- flush the table.

Kernel rules (net/smc/smc_pnet.c) this file plans around: a PNET ID is 1-16 characters a-z,
A-Z, 0-9, stored upper case; an interface or a device port belongs to at most one PNET ID
(adding it again fails with EEXIST), so moving one means deleting its old PNET ID and adding
back that ID's other entries. PNET IDs from the IOCDS (hardware) take precedence: the kernel
ignores a software entry for such a network interface and refuses one for such a device.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

if "ifname_problem" not in globals():  # imported in the collection; in the restore program it precedes
    from ansible_collections.s390x.network.plugins.module_utils.ip.ifname import ifname_problem

TOOL = "smc_pnet"
PNET_ID_RE = re.compile(r"[A-Za-z0-9]{1,16}")
#: an RDMA or ISM device name: IB_DEVICE_NAME_MAX (64) bytes with the NUL, no blanks
IBDEV_MAX = 63
IBDEV_BAD_BYTES = frozenset(b" \t\n\v\f\r\x00")
PORTS = (1, 2)
ETH_PORT = 255
STATES = ("merged", "overridden", "deleted", "gathered")


class PnetError(ValueError):
    """Bad input, naming the field and what is allowed."""


def _name_bytes(name):
    try:
        return name.encode("utf-8")
    except UnicodeError:  # a lone surrogate: not a name the kernel can hold
        return None


def ifname_ok(name):
    """Whether ``name`` is a network interface name by the collection's one rule (the kernel's
    dev_valid_name, and no control or format character: ``ip/ifname.py``)."""
    return ifname_problem(name) is None


def ibdev_ok(name):
    """Whether ``name`` (str) can be an RDMA or ISM device name: 1 to 63 bytes, no blanks or NUL."""
    data = _name_bytes(name)
    return data is not None and 0 < len(data) <= IBDEV_MAX and not IBDEV_BAD_BYTES.intersection(bytearray(data))


def normalize_entry(item, index=0, allow_bare=False):
    """Validate one ``config`` item -> ``{pnet_id, interface, ib_device, port}``.

    ``allow_bare``: an item with only ``pnet_id`` (used by state deleted: the whole ID).
    """
    where = "config[%d]" % index
    if not isinstance(item, dict):
        raise PnetError("%s: expected a dict with pnet_id and interface or ib_device, got %r" % (where, item))
    unknown = set(item) - set(("pnet_id", "interface", "ib_device", "port"))
    if unknown:
        raise PnetError(
            "%s: unknown keys %s; allowed: pnet_id, interface, ib_device, port" % (where, ", ".join(sorted(unknown)))
        )
    pnet_id = item.get("pnet_id")
    if not isinstance(pnet_id, str) or not PNET_ID_RE.fullmatch(pnet_id):
        raise PnetError("%s.pnet_id: %r is not a PNET ID (1 to 16 characters a-z, A-Z, 0-9)" % (where, pnet_id))
    pnet_id = pnet_id.upper()
    interface = item.get("interface")
    ib_device = item.get("ib_device")
    port = item.get("port")
    if interface is not None and ib_device is not None:
        raise PnetError("%s: give either interface or ib_device, not both" % where)
    if interface is None and ib_device is None:
        if allow_bare:
            if port is not None:
                raise PnetError("%s.port: only valid with ib_device" % where)
            return {"pnet_id": pnet_id, "interface": None, "ib_device": None, "port": None}
        raise PnetError("%s: needs interface (a network interface) or ib_device (an RDMA/ISM device)" % where)
    if interface is not None:
        if not isinstance(interface, str) or not ifname_ok(interface):
            raise PnetError("%s.interface: %s" % (where, ifname_problem(interface)))
        if port is not None:
            raise PnetError("%s.port: only valid with ib_device" % where)
        return {"pnet_id": pnet_id, "interface": interface, "ib_device": None, "port": None}
    if not isinstance(ib_device, str) or not ibdev_ok(ib_device):
        raise PnetError("%s.ib_device: %r is not a device name (1-63 bytes, no blanks or NUL)" % (where, ib_device))
    if port is None:
        port = 1
    if isinstance(port, bool):
        port = None
    elif isinstance(port, str) and re.fullmatch(r"[0-9]+", port):
        port = int(port)
    if port not in PORTS:
        raise PnetError("%s.port: expected 1 or 2, got %r" % (where, item.get("port")))
    return {"pnet_id": pnet_id, "interface": None, "ib_device": ib_device, "port": port}


def entry_key(entry):
    """What an entry attaches: ``('eth', name)`` or ``('ib', device, port)``."""
    if entry["interface"] is not None:
        return ("eth", entry["interface"])
    return ("ib", entry["ib_device"], entry["port"])


def parse_table(text):
    """Entries from ``smc_pnet`` output (lines that are not entries are ignored)."""
    entries = []
    for line in (text or "").splitlines():
        parts = line.split()
        if len(parts) != 4 or not PNET_ID_RE.fullmatch(parts[0]) or not re.fullmatch(r"[0-9]+", parts[3]):
            continue
        eth, ib, port = parts[1], parts[2], int(parts[3])
        if eth != "n/a":
            entries.append({"pnet_id": parts[0].upper(), "interface": eth, "ib_device": None, "port": None})
        elif ib != "n/a":
            entries.append({"pnet_id": parts[0].upper(), "interface": None, "ib_device": ib, "port": port})
    return entries


def argv_show(tool=TOOL):
    return [tool]


def argv_add(entry, tool=TOOL):
    if entry["interface"] is not None:
        return [tool, "-a", entry["pnet_id"], "-I", entry["interface"]]
    return [tool, "-a", entry["pnet_id"], "-D", entry["ib_device"], "-P", str(entry["port"])]


def argv_delete(pnet_id, tool=TOOL):
    return [tool, "-d", pnet_id]


def argv_flush(tool=TOOL):
    return [tool, "-f"]


def _sort(entries):
    return sorted(entries, key=lambda e: (e["pnet_id"], entry_key(e)))


def plan(state, config, current, tool=TOOL):
    """Commands (argv lists) that turn ``current`` into the table ``state``/``config`` asks for.

    Returns ``(commands, after)`` where ``after`` is the table the commands leave.
    ``config`` items must be normalised already (normalize_entry).
    """
    if state not in STATES:
        raise PnetError("state: expected one of %s, got %r" % (", ".join(STATES), state))
    current = list(current)
    if state == "gathered":
        return [], _sort(current)

    if state == "deleted":
        if not config:
            return ([argv_flush(tool)] if current else []), []
        drop_ids = set(e["pnet_id"] for e in config if e["interface"] is None and e["ib_device"] is None)
        drop_keys = set(
            (e["pnet_id"], entry_key(e)) for e in config if e["interface"] is not None or e["ib_device"] is not None
        )
        target = [e for e in current if e["pnet_id"] not in drop_ids and (e["pnet_id"], entry_key(e)) not in drop_keys]
    elif state == "overridden":
        target = []
        seen = set()
        for entry in config:
            if entry_key(entry) in seen:
                raise PnetError("config: %s is listed twice" % _describe(entry))
            seen.add(entry_key(entry))
            target.append(entry)
        if not target:
            return ([argv_flush(tool)] if current else []), []
    else:  # merged
        wanted = {}
        for entry in config:
            key = entry_key(entry)
            if key in wanted and wanted[key]["pnet_id"] != entry["pnet_id"]:
                raise PnetError("config: %s is listed with two PNET IDs" % _describe(entry))
            wanted[key] = entry
        target = [e for e in current if entry_key(e) not in wanted] + list(wanted.values())

    return _commands(current, target, tool), _sort(target)


def _describe(entry):
    if entry["interface"] is not None:
        return "interface %s" % entry["interface"]
    return "ib_device %s port %d" % (entry["ib_device"], entry["port"])


def _commands(current, target, tool):
    """Delete every PNET ID whose entry set changes or that goes away, then add what is missing."""

    def by_id(entries):
        result = {}
        for e in entries:
            result.setdefault(e["pnet_id"], set()).add(entry_key(e))
        return result

    cur_ids, tgt_ids = by_id(current), by_id(target)
    # An ID must be rebuilt when it loses an entry (no single-entry delete exists).
    rebuild = set(pid for pid, keys in cur_ids.items() if not keys <= tgt_ids.get(pid, set()))
    commands = [argv_delete(pid, tool) for pid in sorted(rebuild)]
    present = set((e["pnet_id"], entry_key(e)) for e in current if e["pnet_id"] not in rebuild)
    for entry in _sort(target):
        if (entry["pnet_id"], entry_key(entry)) not in present:
            commands.append(argv_add(entry, tool))
    return commands


def to_config(entries):
    """Entries as ``config`` items (the ``gathered`` form: no null keys)."""
    result = []
    for e in _sort(entries):
        if e["interface"] is not None:
            result.append({"pnet_id": e["pnet_id"], "interface": e["interface"]})
        else:
            result.append({"pnet_id": e["pnet_id"], "ib_device": e["ib_device"], "port": e["port"]})
    return result
