# -*- coding: utf-8 -*-
# Copyright: s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Parsers for lsqeth (s390-tools zconf/qeth) output.

Long form (``lsqeth [IFACE]``): per device a line ``Device name : <if>`` (key padded to 32
columns, ``:`` separator), a line of dashes, then ``        <attribute> : <value>`` lines;
multi-valued attributes continue on lines with an empty key. Devices are separated by a blank line.
Attributes whose sysfs file reads empty or ``n/a`` are left out. Layouts where tabs replace the
padding (as in copied output) parse the same.

``lsqeth -p`` (the old /proc format): a dashed line, a heading
``devices CHPID interface cardtype port chksum prio-q'ing rtr4 rtr6 lay'2 cnt``, a dashed line, then
one row per device with the CCW IDs joined by ``/`` and the CHPID prefixed with ``x``.
"""

from __future__ import annotations

import re

from ansible_collections.s390x.network.plugins.module_utils.qeth_sysfs import UNNAMED_NETDEV

_SEP = re.compile(r"\s:(?:\s|$)")
# search, not match: copied output may have the shell prompt in front ("host# lsqeth Device name ...")
_DEVICE_NAME = re.compile(r"(?:^|\s)Device name\s*:?(?:\s+(?P<name>.*?))?\s*$")


def parse_long(text):
    """List of dicts, one per device; ``if_name`` holds the device name.

    Keys and values are split at the first blank-colon-blank (tabs count as blanks), so values
    with colons (IPv6 addresses, ``no portname required``) stay whole. A line without a key
    continues the previous multi-valued attribute (``ipa``, ``vipa``, ``parp``).
    """
    devices = []
    current = None
    last_key = None
    for raw in (text or "").splitlines():
        if not raw.strip() or re.match(r"^\s*-{3,}\s*$", raw):
            continue
        named = _DEVICE_NAME.search(raw)
        if named:
            name = named.group("name")
            current = {"if_name": None if name in (None, "", UNNAMED_NETDEV) else name}
            devices.append(current)
            last_key = None
            continue
        if current is None:
            continue
        match = _SEP.search(raw)
        key = raw[:match.start()].strip() if match else ""
        value = raw[match.end():].strip() if match else raw.strip()
        if not key:
            if last_key is not None and value:
                previous = current[last_key]
                if not isinstance(previous, list):
                    previous = [previous]
                previous.append(value)
                current[last_key] = previous
            continue
        current[key] = value
        last_key = key
    return devices


_CARD_TYPE = re.compile(r"^(OSD_|OSX|OSM|OSN|HiperSockets|Virt\.NIC|GuestLAN|unknown)")

_P_HEADINGS = {
    "devices": "devices", "chpid": "chpid", "interface": "if_name", "i'face": "if_name",
    "cardtype": "card_type", "port": "portno", "chksum": "checksumming",
    "prio-q'ing": "priority_queueing", "rtr4": "route4", "rtr6": "route6", "lay'2": "layer2",
    "cnt": "buffer_count",
}


def _split_by_heading(line, starts):
    """Cells of a fixed-width row, or None when the row does not line up with the heading."""
    for pos in starts[1:]:
        if pos <= len(line) and line[pos - 1] != " ":
            return None
    cells = []
    for index, pos in enumerate(starts):
        end = starts[index + 1] if index + 1 < len(starts) else len(line)
        cells.append(line[pos:end].strip() if pos < len(line) else "")
    return cells


def _split_by_blanks(line, fields):
    cells = line.split()
    if "card_type" in fields and "if_name" in fields:
        ci = fields.index("card_type")
        ii = fields.index("if_name")
        extra = len(cells) - len(fields)
        if extra < 0 and ii < len(cells) and _CARD_TYPE.match(cells[ii]):
            cells.insert(ii, "")
            extra += 1
        if extra > 0:
            cells[ci:ci + extra + 1] = [" ".join(cells[ci:ci + extra + 1])]
    return cells


def parse_proc_format(text):
    """``lsqeth -p`` rows as dicts with the sysfs attribute names as keys.

    Columns are taken from the heading (versions differ: older ones have no ``chksum`` column).
    Rows that line up with the heading (lsqeth's fixed-width output) are cut at the heading's
    column starts, so an empty interface cell or a card type with a blank (``Virt.NIC QDIO``) stays
    in its column; reformatted rows are split at blanks.
    """
    rows = []
    fields = None
    starts = None
    for raw in (text or "").splitlines():
        line = raw.rstrip()
        if not line.strip() or set(line.strip()) <= set("- "):
            continue
        if line.split()[0].lower() == "devices":
            fields = [_P_HEADINGS.get(h.lower(), h.lower()) for h in line.split()]
            starts = [m.start() for m in re.finditer(r"\S+", line)]
            continue
        if fields is None:
            continue
        if UNNAMED_NETDEV in line:
            # 20 characters overflow the interface column; blank it to its width to realign the row
            width = 16
            if "if_name" in fields and fields.index("if_name") + 1 < len(starts):
                index = fields.index("if_name")
                width = starts[index + 1] - starts[index] - 1
            line = line.replace(UNNAMED_NETDEV, " " * width, 1)
        cells = _split_by_heading(line, starts)
        if cells is None:
            cells = _split_by_blanks(line, fields)
        row = dict(zip(fields, cells))
        row["ids"] = [c for c in row.get("devices", "").split("/") if c and c != "..."]
        chpid = row.get("chpid", "")
        if chpid.lower().startswith("x"):
            row["chpid"] = chpid[1:].upper()
        rows.append(row)
    return rows
