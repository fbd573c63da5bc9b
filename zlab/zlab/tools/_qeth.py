"""qeth device model shared by chzdev, lszdev, znetconf and lsqeth (s390-tools zdev semantics).

Reads the emulated sysfs through ``_paths``:
- ``/sys/bus/ccw/devices/<id>``: ``online``, ``cutype``, ``group_device`` link, subchannel
  ``../chpids``;
- ``/sys/bus/ccw/drivers/qeth/<id>``: ccw devices bound to the qeth ccw driver;
- ``/sys/bus/ccwgroup/drivers/qeth/<busid>``: group devices (links ``cdev0..2``), attributes;
- ``/sys/bus/ccwgroup/drivers/qeth/group``: grouping.
"""

import os
import re

from . import _paths

CCW_DEVICES = "/sys/bus/ccw/devices"
QETH_CCW_DRV = "/sys/bus/ccw/drivers/qeth"
QETH_GROUP_DRV = "/sys/bus/ccwgroup/drivers/qeth"
GROUP_FILE = QETH_GROUP_DRV + "/group"
NUM_DEVS = 3


def _rng(a, b):
    return ("range", a, b)


def _strs(*vals):
    return ("strs",) + vals


# Known qeth device attributes of zdev (order of qeth_subtype dev_attribs).
ATTRS = [
    ("online", {"accept": [_rng(0, 1)], "mandatory": True, "defval": "0"}),
    ("layer2", {"accept": [_rng(-1, 1)], "defval": "-1"}),
    ("portname", {"accept": None, "defval": ""}),
    ("priority_queueing", {"accept": [_strs("prio_queueing_vlan", "prio_queueing_skb",
                                            "prio_queueing_prec", "no_prio_queueing",
                                            "no_prio_queueing:0", "no_prio_queueing:1",
                                            "no_prio_queueing:2", "no_prio_queueing:3")],
                           "defval": "no_prio_queueing"}),
    ("buffer_count", {"accept": [_rng(8, 128)]}),
    ("portno", {"accept": [_rng(0, 1)], "defval": "0"}),
    ("hsuid", {"accept": None, "defval": ""}),
    ("recover", {"accept": [("num", 1)], "writeonly": True, "activeonly": True}),
    ("isolation", {"accept": [_strs("none", "drop", "forward")], "defval": "none"}),
    ("performance_stats", {"accept": [_rng(0, 1)], "defval": "1"}),
    ("hw_trap", {"accept": [_strs("arm", "disarm", "trap")], "defval": "disarm"}),
    ("route4", {"accept": [_strs("primary_router", "secondary_router", "primary_connector",
                                 "secondary_connector", "multicast_router", "no_router")],
                "defval": "no_router"}),
    ("route6", {"accept": [_strs("primary_router", "secondary_router", "primary_connector",
                                 "secondary_connector", "multicast_router", "no_router")],
                "defval": "no_router"}),
    ("ipa_takeover/enable", {"accept": [_rng(0, 1)], "defval": "0"}),
    ("ipa_takeover/add4", {"accept": None, "defval": ""}),
    ("ipa_takeover/add6", {"accept": None, "defval": ""}),
    ("ipa_takeover/del4", {"accept": None}),
    ("ipa_takeover/del6", {"accept": None}),
    ("ipa_takeover/invert4", {"accept": [_rng(0, 1)], "defval": "0"}),
    ("ipa_takeover/invert6", {"accept": [_rng(0, 1)], "defval": "0"}),
    ("rxip/add4", {"accept": None, "defval": ""}),
    ("rxip/add6", {"accept": None, "defval": ""}),
    ("rxip/del4", {"accept": None}),
    ("rxip/del6", {"accept": None}),
    ("sniffer", {"accept": [_rng(0, 1)], "defval": "0"}),
    ("vipa/add4", {"accept": None, "defval": ""}),
    ("vipa/add6", {"accept": None, "defval": ""}),
    ("vipa/del4", {"accept": None}),
    ("vipa/del6", {"accept": None}),
    ("bridge_role", {"accept": [_strs("primary", "secondary", "none")], "defval": "none"}),
    ("bridge_hostnotify", {"accept": [_rng(0, 1)], "defval": "0"}),
    ("bridge_reflect_promisc", {"accept": [_strs("none", "primary", "secondary")],
                                "defval": "none"}),
    ("vnicc/flooding", {"accept": [_rng(0, 1)], "defval": "0"}),
    ("vnicc/mcast_flooding", {"accept": [_rng(0, 1)], "defval": "0"}),
    ("vnicc/learning", {"accept": [_rng(0, 1)], "defval": "0"}),
    ("vnicc/learning_timeout", {"accept": [_rng(60, 86400)], "defval": "600"}),
    ("vnicc/takeover_setvmac", {"accept": [_rng(0, 1)], "defval": "0"}),
    ("vnicc/takeover_learning", {"accept": [_rng(0, 1)], "defval": "0"}),
    ("vnicc/bridge_invisible", {"accept": [_rng(0, 1)], "defval": "0"}),
    ("vnicc/rx_bcast", {"accept": [_rng(0, 1)], "defval": "1"}),
    ("early", {"accept": [_rng(0, 1)], "internal": True, "defval": "0"}),
]
ATTR = dict(ATTRS)
# Attributes whose active value is a list that reads empty when unset.
_LISTISH = ("ipa_takeover/add4", "ipa_takeover/add6", "rxip/add4", "rxip/add6", "vipa/add4",
            "vipa/add6", "ipa_takeover/del4", "ipa_takeover/del6", "rxip/del4", "rxip/del6",
            "vipa/del4", "vipa/del6")


def check_value(name, value):
    """True if ``value`` is acceptable for known attribute ``name`` (attrib_check_value)."""
    acc = ATTR[name].get("accept")
    if not acc:
        return True
    for a in acc:
        if a[0] == "range":
            n = _parse_num(value)
            if n is not None and a[1] <= n <= a[2]:
                return True
        elif a[0] == "num":
            n = _parse_num(value)
            if n is not None and n == a[1]:
                return True
        elif a[0] == "strs":
            if value in a[1:]:
                return True
    return False


def acceptable_lines(name):
    acc = ATTR[name].get("accept")
    if not acc:
        return ["All values are accepted"]
    res = []
    for a in acc:
        if a[0] == "range":
            res.append("- Integers in the range %d - %d" % (a[1], a[2]))
        elif a[0] == "num":
            res.append("- Integer %d" % a[1])
        else:
            res.extend("- Text string '%s'" % s for s in a[1:])
    return res


def _parse_num(value):
    try:
        return int(value, 10)
    except ValueError:
        return None


# ---- ids ----------------------------------------------------------------------------------------

_CCW_RE = re.compile(r"^(?:([0-9a-fA-F]{1,2})\.([0-3])\.)?(?:0x)?([0-9a-fA-F]{1,4})$")


def parse_ccw_id(text):
    """Normalise a CCW device id (``8200``, ``0.0.8200``) to ``0.0.8200``; None if invalid."""
    m = _CCW_RE.match(text.strip())
    if not m:
        return None
    css = int(m.group(1), 16) if m.group(1) else 0
    ssid = int(m.group(2)) if m.group(2) else 0
    return "%x.%x.%04x" % (css, ssid, int(m.group(3), 16))


def parse_group_id(text):
    """``a:b:c`` / ``a,b,c`` / ``a`` -> list of normalised ccw ids, None if invalid."""
    parts = re.split(r"[:,]", text)
    res = []
    for p in parts:
        n = parse_ccw_id(p)
        if n is None:
            return None
        res.append(n)
    return res


def devno(ccwid):
    return int(ccwid.rsplit(".", 1)[1], 16)


def ccw_key(ccwid):
    css, ssid, dev = ccwid.split(".")
    return (int(css, 16), int(ssid, 16), int(dev, 16))


def fmt_id(ids):
    return ":".join(ids)


# ---- ccw devices --------------------------------------------------------------------------------

def ccw_info(ccwid):
    base = CCW_DEVICES + "/" + ccwid
    info = {"id": ccwid, "exists": _paths.isdir(base)}
    if not info["exists"]:
        return info
    info["grouped"] = _paths.exists(base + "/group_device") or _paths.islink(base + "/group_device")
    info["online"] = _paths.read(base + "/online", "0")
    info["cutype"] = _paths.read(base + "/cutype", "")
    info["devtype"] = _paths.read(base + "/devtype", "")
    info["chpids"] = chpids_of(ccwid)
    drv = _paths.readlink(base + "/driver")
    info["driver"] = os.path.basename(drv) if drv else None
    return info


def chpids_of(ccwid):
    """The subchannel's ``chpids`` (e.g. ``f0 00 00 00 00 00 00 00``) or ''."""
    real = os.path.realpath(_paths.path(CCW_DEVICES + "/" + ccwid))
    try:
        with open(os.path.join(os.path.dirname(real), "chpids"), encoding="utf-8") as f:
            return f.read().strip()
    except OSError:
        return ""


def first_chpid(ccwid):
    parts = chpids_of(ccwid).split()
    for p in parts:
        if p and p != "00":
            return p.lower()
    return parts[0].lower() if parts else ""


def qeth_ccw_ids():
    """CCW device ids bound to the qeth ccw driver (all, grouped or not), sorted."""
    ids = [n for n in _paths.listdir(QETH_CCW_DRV) if "." in n and parse_ccw_id(n) == n]
    return sorted(ids, key=ccw_key)


def ungrouped_infos():
    infos = []
    for cid in qeth_ccw_ids():
        info = ccw_info(cid)
        if info["exists"] and not info["grouped"]:
            infos.append(info)
    infos.sort(key=lambda i: (i["chpids"], i["cutype"], ccw_key(i["id"])))
    return infos


def _compatible(a, b):
    return a["chpids"] == b["chpids"] and a["cutype"] == b["cutype"]


def groupable_ids():
    """Canonical auto-detected groups (qeth_auto_add_ids): consecutive compatible triples."""
    infos = ungrouped_infos()
    groups = []
    i = 0
    while i < len(infos):
        j = i
        while j + 1 < len(infos) and _compatible(infos[i], infos[j + 1]):
            j += 1
        run = infos[i:j + 1]
        k = 0
        while k + NUM_DEVS <= len(run):
            r, w, d = run[k], run[k + 1], run[k + 2]
            if devno(w["id"]) == devno(r["id"]) + 1:
                groups.append([r["id"], w["id"], d["id"]])
                k += NUM_DEVS
            else:
                k += 1
        i = j + 1
    return groups


def auto_group(ccwid):
    """qeth_auto_get_devid: returns (ids, None, 0) or (None, message, exit_code)."""
    for g in groupable_ids():
        if g[0] == ccwid:
            return g, None, 0
    infos = ungrouped_infos()
    idx = next((n for n, i in enumerate(infos) if i["id"] == ccwid), None)
    if idx is None:
        return None, "Read CCW device not found", 28
    if idx + 1 >= len(infos):
        return None, "Write CCW device not found", 28
    r, w = infos[idx], infos[idx + 1]
    if not _compatible(r, w):
        return None, "No compatible write CCW device found", 29
    if devno(w["id"]) != devno(r["id"]) + 1:
        return None, "Write CCW device ID must be read plus one", 29
    d = infos[idx + 2] if idx + 2 < len(infos) else None
    if d is None or not _compatible(r, d):
        d = infos[idx - 1] if idx > 0 else None
    if d is None:
        return None, "Data CCW device not found", 28
    if not _compatible(r, d):
        return None, "No compatible data CCW device found", 29
    return [r["id"], w["id"], d["id"]], None, 0


# ---- group devices ------------------------------------------------------------------------------

def group_dir(busid):
    return QETH_GROUP_DRV + "/" + busid


def group_exists(busid):
    return _paths.isdir(group_dir(busid))


def group_ids(busid):
    """Full id list of an existing group device, from its cdev0..2 links."""
    ids = []
    for n in range(NUM_DEVS):
        link = _paths.readlink(group_dir(busid) + "/cdev%d" % n)
        if not link:
            break
        ids.append(os.path.basename(link))
    return ids or None


def group_of_ccw(ccwid):
    """Bus id of the group device that contains ccw device ``ccwid``, or None."""
    link = _paths.readlink(CCW_DEVICES + "/" + ccwid + "/group_device")
    if link:
        return os.path.basename(link)
    if group_exists(ccwid):
        return ccwid
    return None


def existing_groups():
    """Bus ids of the existing qeth group devices, sorted."""
    res = []
    for n in _paths.listdir(QETH_GROUP_DRV):
        if "." in n and parse_ccw_id(n) == n:
            res.append(n)
    return sorted(res, key=ccw_key)


def read_attr(busid, name):
    return _paths.read(group_dir(busid) + "/" + name)


def attr_path(busid, name):
    return group_dir(busid) + "/" + name


def active_settings(busid):
    """Readable known attributes of an existing group device, zdev order: list of (name, value)."""
    res = []
    for name, meta in ATTRS:
        if meta.get("writeonly") or meta.get("internal"):
            continue
        value = read_attr(busid, name)
        if value is None:
            continue
        if name in _LISTISH and value == "":
            continue
        res.append((name, value))
    return res


def if_name(busid):
    name = read_attr(busid, "if_name")
    if name:
        return name
    names = _paths.listdir(group_dir(busid) + "/net")
    return names[0] if names else ""


def is_online(busid):
    return read_attr(busid, "online") == "1"
