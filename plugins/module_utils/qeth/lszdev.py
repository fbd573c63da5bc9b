# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""lszdev (s390-tools zdev): its command line and output parsers.

``lszdev qeth --columns ID,ON,PERS,NAMES --pairs`` prints one line per device,
``KEY="VALUE"`` pairs separated by one blank; values are always double-quoted and ``\\``, ``"``
and newlines inside are backslash-escaped (zdev/src/table.c, misc.c quote_str). Column names may
carry a colon (``ATTR:layer2``). The table form (no ``--pairs``) left-aligns columns padded to the
widest cell and separates them by blanks; the last column is not padded and may be empty.
Without ``-a``/``-p`` an ``ATTR:`` value joins the active and persistent values with ``/`` when they
differ (``-`` for unset), so callers that need one side ask with ``-a`` or ``-p``.
"""

import re

DEFAULT_COLUMNS = ("ID", "ON", "PERS", "NAMES")

_PAIR = re.compile(r'([^\s=]+)="((?:[^"\\]|\\.)*)"|([^\s=]+)=(\S*)')


def lszdev_argv(binary, columns=DEFAULT_COLUMNS, scope="both", devtype="qeth"):
    argv = [binary, devtype, "--columns", ",".join(columns), "--pairs"]
    if scope == "active":
        argv.append("--active")
    elif scope == "persistent":
        argv.append("--persistent")
    return argv


def parse_pairs_line(line):
    result = {}
    for quoted_key, quoted_value, bare_key, bare_value in _PAIR.findall(line):
        if quoted_key:
            result[quoted_key] = re.sub(r"\\(.)", r"\1", quoted_value)
        else:
            result[bare_key] = bare_value
    return result


def parse_pairs(text):
    """Rows of ``--pairs`` output as a list of dicts (column name -> value)."""
    rows = []
    for line in (text or "").splitlines():
        if line.strip():
            row = parse_pairs_line(line)
            if row:
                rows.append(row)
    return rows


def parse_table(text):
    """Rows of the table form (with its heading line) as a list of dicts.

    Column boundaries come from the heading: each heading starts where its column starts.
    """
    lines = [l for l in (text or "").splitlines() if l.strip()]
    if not lines:
        return []
    heading = lines[0]
    starts = [m.start() for m in re.finditer(r"\S+", heading)]
    names = heading.split()
    rows = []
    for line in lines[1:]:
        row = {}
        for index, name in enumerate(names):
            begin = starts[index]
            end = starts[index + 1] if index + 1 < len(starts) else None
            cell = line[begin:end] if end is not None else line[begin:]
            row[name] = cell.strip()
        rows.append(row)
    return rows


def yes_no(value):
    """lszdev ON/PERS cells: ``yes``/``no``; with a scope split ``yes/no``: first part wins."""
    if value is None:
        return None
    first = value.split("/")[0].strip().lower()
    if first == "yes":
        return True
    if first == "no":
        return False
    return None


def persistence(value):
    """lszdev PERS cell as (persistent, auto_configured).

    lszdev prints ``auto`` for a device that has no persistent configuration but an
    auto-configuration rule (from firmware I/O configuration, under /run/udev/rules.d).
    """
    if value is not None and value.split("/")[0].strip().lower() == "auto":
        return (False, True)
    return (yes_no(value), False)


def split_merged(value):
    """Split a merged ATTR cell ``act/pers`` into (active, persistent); ``-`` means unset."""
    if value is None:
        return (None, None)
    parts = value.split("/")
    if len(parts) == 1:
        single = None if parts[0] == "-" else parts[0]
        return (single, single)
    act = None if parts[0] == "-" else parts[0]
    pers = None if parts[1] == "-" else parts[1]
    return (act, pers)
