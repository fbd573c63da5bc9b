# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""CCW and qeth group device identifiers: parsing, normalisation and group completion.

Pure functions, no I/O. A CCW device ID is ``<cssid>.<ssid>.<devno>`` (``0.0.8200``), written by
the kernel with a lower-case, four-digit device number. A qeth group device has three CCW devices
(read, write, data); chzdev prints it as ``read:write:data``, the kernel's ``group`` attribute takes
``read,write,data``.
"""

import re

QETH_NUM_DEVS = 3

_CCW_RE = re.compile(r"(?:([0-9a-fA-F]{1,2})\.([0-3])\.)?([0-9a-fA-F]{1,4})")


class QethIdError(ValueError):
    """A malformed CCW or qeth group device ID."""


def parse_ccw_id(text):
    """Parse ``0.0.8200``, ``0.0.820`` or ``8200`` into ``(cssid, ssid, devno)``.

    A bare device number means CSS 0, subchannel set 0 (as chzdev and znetconf accept it).
    """
    if not isinstance(text, str):
        raise QethIdError("a CCW device ID must be a string, got %r" % (text,))
    # blanks around the ID are tolerated, a newline or any other control character is not
    match = _CCW_RE.fullmatch(text.strip(" "))
    if not match:
        raise QethIdError(
            "%r is not a CCW device ID (expected <cssid>.<ssid>.<devno> such as 0.0.8200, "
            "or a device number such as 8200)" % (text,)
        )
    cssid = int(match.group(1), 16) if match.group(1) is not None else 0
    ssid = int(match.group(2)) if match.group(2) is not None else 0
    devno = int(match.group(3), 16)
    return (cssid, ssid, devno)


def format_ccw_id(parts):
    """Format ``(cssid, ssid, devno)`` the way the kernel names CCW devices."""
    cssid, ssid, devno = parts
    return "%x.%x.%04x" % (cssid, ssid, devno)


def normalize_ccw_id(text):
    """Return the kernel's spelling of a CCW device ID (``8200`` -> ``0.0.8200``)."""
    return format_ccw_id(parse_ccw_id(text))


def ccw_distance(a, b):
    """Device number distance b - a, or None when the IDs are in different CSS/subchannel sets."""
    pa, pb = parse_ccw_id(a), parse_ccw_id(b)
    if pa[:2] != pb[:2]:
        return None
    return pb[2] - pa[2]


def ccw_sort_key(text):
    return parse_ccw_id(text)


def parse_group_id(text):
    """Parse a qeth device ID: one CCW ID or exactly three joined by ``:`` or ``,``.

    Returns a tuple of normalised CCW IDs (one or three elements). Raises QethIdError with the
    reason chzdev would give (not enough / too many CCW device IDs, write not read plus one).
    """
    if not isinstance(text, str) or not text.strip(" "):
        raise QethIdError("a qeth device ID must be a non-empty string such as 0.0.8200")
    parts = re.split(r"[:,]", text.strip(" "))
    if any(not p.strip() for p in parts):
        raise QethIdError("%r has an empty CCW device ID" % (text,))
    ids = tuple(normalize_ccw_id(p) for p in parts)
    if len(ids) == 1:
        return ids
    if len(ids) < QETH_NUM_DEVS:
        raise QethIdError("%r: not enough CCW device IDs (a qeth group has read:write:data)" % (text,))
    if len(ids) > QETH_NUM_DEVS:
        raise QethIdError("%r: too many CCW device IDs (a qeth group has read:write:data)" % (text,))
    if ccw_distance(ids[0], ids[1]) != 1:
        raise QethIdError("%r: the write device must be the read device plus one" % (text,))
    if len(set(ids)) != QETH_NUM_DEVS:
        raise QethIdError("%r: the three CCW device IDs must differ" % (text,))
    if len(set(parse_ccw_id(i)[:2] for i in ids)) != 1:
        raise QethIdError("%r: all CCW devices must be in the same subchannel set" % (text,))
    return ids


def format_group_id(ids):
    """``('0.0.8200', '0.0.8201', '0.0.8202')`` -> ``0.0.8200:0.0.8201:0.0.8202``."""
    return ":".join(ids)


class CcwInfo(object):
    """What the grouping algorithm needs to know about one ungrouped CCW device."""

    __slots__ = ("devid", "chpids", "cutype", "devtype")

    def __init__(self, devid, chpids="", cutype="", devtype=""):
        self.devid = normalize_ccw_id(devid)
        self.chpids = chpids or ""
        self.cutype = cutype or ""
        self.devtype = devtype or ""

    def compat_key(self):
        return (self.chpids, self.cutype, self.devtype)

    def __repr__(self):
        return "CcwInfo(%r, %r, %r, %r)" % (self.devid, self.chpids, self.cutype, self.devtype)


def _groups_for_run(run):
    """Build read/write/data triples from one run of compatible devices (sorted by devno).

    Follows chzdev's auto-grouping: if the run is a clean sequence (read, read+1, data, ...) take
    consecutive triples; otherwise first pair up read/write devices that are one apart, then give
    each pair a data device from the remaining ones.
    """
    groups = []
    ok = True
    for start in range(0, len(run) - 1, QETH_NUM_DEVS):
        if ccw_distance(run[start].devid, run[start + 1].devid) != 1:
            ok = False
            break
    if ok:
        for start in range(0, len(run) - len(run) % QETH_NUM_DEVS, QETH_NUM_DEVS):
            groups.append(tuple(c.devid for c in run[start : start + QETH_NUM_DEVS]))
        return groups
    max_pairs = len(run) // QETH_NUM_DEVS
    pairs = []
    rest = list(run)
    i = 0
    while i < len(rest) - 1 and len(pairs) < max_pairs:
        if ccw_distance(rest[i].devid, rest[i + 1].devid) == 1:
            pairs.append((rest[i], rest[i + 1]))
            del rest[i : i + 2]
        else:
            i += 1
    for read, write in pairs:
        if not rest:
            break
        data = rest.pop(0)
        groups.append((read.devid, write.devid, data.devid))
    return groups


def auto_groups(infos):
    """All qeth groups chzdev would form from ungrouped qeth CCW devices ``infos`` (CcwInfo)."""
    ordered = sorted(infos, key=lambda c: (c.compat_key(), ccw_sort_key(c.devid)))
    groups = []
    start = 0
    while start < len(ordered):
        end = start
        while end < len(ordered) and ordered[end].compat_key() == ordered[start].compat_key():
            end += 1
        groups.extend(_groups_for_run(ordered[start:end]))
        start = end
    return groups


def complete_group(read_id, infos):
    """Complete a single read device ID to its group, the way chzdev does.

    ``infos`` are the ungrouped CCW devices bound to the qeth CCW driver. Returns the triple or
    raises QethIdError with the reason.
    """
    read_id = normalize_ccw_id(read_id)
    for group in auto_groups(infos):
        if group[0] == read_id:
            return group
    ordered = sorted(infos, key=lambda c: (c.compat_key(), ccw_sort_key(c.devid)))
    index = None
    for i, info in enumerate(ordered):
        if info.devid == read_id:
            index = i
            break
    if index is None:
        raise QethIdError("CCW device %s is not an ungrouped qeth device on this host" % read_id)
    read = ordered[index]
    if index + 1 >= len(ordered):
        raise QethIdError("no write CCW device found for read device %s" % read_id)
    write = ordered[index + 1]
    if write.compat_key() != read.compat_key():
        raise QethIdError("no compatible write CCW device (same CHPID, CU and device type) for %s" % read_id)
    if ccw_distance(read.devid, write.devid) != 1:
        raise QethIdError("the write CCW device for %s must be the read device plus one" % read_id)
    data = None
    if index + 2 < len(ordered) and ordered[index + 2].compat_key() == read.compat_key():
        data = ordered[index + 2]
    elif index > 0 and ordered[index - 1].compat_key() == read.compat_key():
        data = ordered[index - 1]
    if data is None:
        raise QethIdError("no compatible data CCW device found for read device %s" % read_id)
    return (read.devid, write.devid, data.devid)


def group_members(ids, complete=False):
    """The CCW devices a parsed qeth ID (``parse_group_id``) takes, known without the host.

    Returns ``(CCW device ID, how)`` pairs: ``how`` is None for a device the ID names, ``write``
    for the write device of a read device named alone (chzdev completes a group only with the
    read device plus one as its write device) and, with ``complete`` (state rendered, which
    completes a read device to read, read+1, read+2), ``data`` for its data device. Raises
    QethIdError for a read device that leaves no room for them.
    """
    if len(ids) != 1:
        return [(i, None) for i in ids]
    cssid, ssid, devno = parse_ccw_id(ids[0])
    if devno + 1 > 0xFFFF:
        raise QethIdError(
            "%s cannot be a read device: a qeth group's write device is the read device plus one, "
            "and %s is the highest device number" % (ids[0], ids[0])
        )
    members = [(ids[0], None), (format_ccw_id((cssid, ssid, devno + 1)), "write")]
    if complete:
        members.append((naive_group(ids[0])[2], "data"))
    return members


def naive_group(read_id):
    """read, read+1, read+2: the completion used when the host is not consulted (state rendered)."""
    cssid, ssid, devno = parse_ccw_id(read_id)
    if devno + 2 > 0xFFFF:
        raise QethIdError("%s: device number too high to complete a read:write:data group" % read_id)
    return tuple(format_ccw_id((cssid, ssid, devno + i)) for i in range(QETH_NUM_DEVS))
