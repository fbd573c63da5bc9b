# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Kernel state semantics operating on the state dict (pure Python, no I/O except tcp_mem).

Every function that changes state takes the state dict ``st`` (inside a store.transaction) and
raises OSError(errno) exactly where the kernel's store function would return -errno. Checks come
before changes so a failed call leaves the state untouched.
"""

import errno
import os
import re
import threading

from .. import profiles, smc_counters
from . import cio
from .spec import NETWORK_EXPRESS, busid_devno

FORMAT = 1

# ---------------------------------------------------------------------------------------------
# errors


def oserr(code, what=""):
    return OSError(code, os.strerror(code) + (": " + what if what else ""))


class ModuleError(OSError):
    """reason: not_found | builtin | in_use | not_loaded"""

    def __init__(self, code, reason, name, detail=""):
        OSError.__init__(self, code, "%s: %s%s" % (reason, name, (" " + detail) if detail else ""))
        self.reason = reason
        self.module = name
        self.detail = detail


# ---------------------------------------------------------------------------------------------
# work queued for after the transaction committed (kernel.hooks runs it): netdev-up/-down hooks
# and the RUN programs of udev rules, whose writes are stores of their own
# Entries: (state_dir, "netdev", args) | (state_dir, "udev-run", event).

_pending = threading.local()


def _queue(st, kind, data):
    lst = getattr(_pending, "hooks", None)
    if lst is None:
        lst = _pending.hooks = []
    lst.append((st.get("_state_dir"), kind, data))


def queue_hook(st, args):
    """``STATE_DIR/hooks/<args[0]> args[1:]`` (the lab's real netdevs)."""
    _queue(st, "netdev", list(args))


def queue_udev_run(st, ent, runs, depth):
    """The rest of ``ent``'s add event: its RUN programs ``[(rules file, value)]``, then
    :func:`udev_add_finish`. ``depth``: 1, or the depth of the event whose RUN program caused
    this one plus 1 (events deeper than 4 run no RUN programs)."""
    _queue(
        st,
        "udev-run",
        {"fid": str(ent["spec"]["fid"]), "addr": ent["addr"], "runs": [list(r) for r in runs], "depth": depth},
    )


def take_hooks():
    lst = getattr(_pending, "hooks", None) or []
    _pending.hooks = []
    return lst


# ---------------------------------------------------------------------------------------------
# helpers


def profile_of(st):
    return profiles.get(st["spec"]["kernel_profile"])


def kernel_version(st):
    return tuple(profile_of(st)["version"])


def ifname_for(busid):
    css, ssid, devno = busid.split(".")
    if css == "0" and ssid == "0":
        return "enc%x" % int(devno, 16)
    return "enc%s.%s.%s" % (css, ssid, devno)


MTU_BY_FRAME = {"16K": 8192, "24K": 16384, "40K": 32768, "64K": 57344}
INBUF_BY_FRAME = {"16K": "16k", "24K": "24k", "40K": "40k", "64K": "64k"}
CU_BY_TYPE = {
    "IQD": ("1731/05", "1732/05"),
    "OSD": ("1731/01", "1732/01"),
    "OSX": ("1731/02", "1732/02"),
    "OSM": ("1731/02", "1732/03"),
}
CHP_TYPE_CODE = {"IQD": "24", "OSD": "11", "OSX": "15", "OSM": "16"}
VNICC_DEFAULTS = {
    "bridge_invisible": 0,
    "flooding": 0,
    "learning": 0,
    "learning_timeout": 600,
    "mcast_flooding": 0,
    "rx_bcast": 1,
    "takeover_learning": 0,
    "takeover_setvmac": 0,
}


def read_tcp_mem1(st, which):
    """net.ipv4.tcp_{r,w}mem[1] of the host's netns (passthrough proc), the profile's kernel
    default otherwise."""
    base = (st.get("host") or {}).get("real_proc_sys_net") or os.environ.get("ZLAB_REAL_PROC_SYS_NET", "/proc/sys/net")
    try:
        with open(os.path.join(base, "ipv4", which), encoding="ascii") as f:
            return int(f.read().split()[1])
    except (OSError, ValueError, IndexError):
        return profiles.tcp_mem1_default(profile_of(st), which)


# ---------------------------------------------------------------------------------------------
# boot


def empty_smc_stats():
    keys = smc_counters.TECH_COUNTERS
    out = {}
    for proto in ("SMCD", "SMCR"):
        out[proto] = {
            proto: {k: 0 for k in keys},
            "CLNT_HS_ERR_CNT": 0,
            "SRV_HS_ERR_CNT": 0,
            "CLNT_FBACK_CNT": 0,
            "SRV_FBACK_CNT": 0,
            "FBACK_RSN": {"clnt": [], "srv": []},
        }
    return out


def new_state(spec_dict, old=None):
    """Fresh state of a freshly IPLed host (see docs/contributing.md, "Kernel internals")."""
    st = {
        "format": FORMAT,
        "generation": (old or {}).get("generation", 0),
        "boot_id": (old or {}).get("boot_id", 0) + 1,
        "spec": spec_dict,
        "host": dict((old or {}).get("host") or {}),
        "ccw": {},
        "qeth": {},
        "pci": {},
        "iommu_next": 0,
        "modules": [],
        "pci_dynids": {},
        "smc_sysctl": None,
        "pnet": [],
        "ueids": [],
        "seid_enabled": 1,
        "smc_stats": empty_smc_stats(),
        "linkgroups": {"SMCD": [], "SMCR": []},
        "smc_sockets": [],
        "faults": {"write": {}, "tool": {}, "service": {}, "dirs": {}},
        "persist": {"blacklist": [], "options": {}, "pci_rules": [], "driverctl": {}, "skipped": []},
        # the real links of PCI netdevs the pcinet hooks were asked for (pci_links): none in a new
        # network namespace
        "pci_links": {},
    }
    # cio_ignore= of the kernel command line: blacklisted devices get no subchannel device
    st["cio_ignore"], _rc = cio.apply_list([], spec_dict.get("cio_ignore"), "add")
    for i, c in enumerate(spec_dict.get("ccw") or []):
        st["ccw"][c["devno"]] = {
            "chpid": c["chpid"],
            "chpid_type": c["chpid_type"],
            "frame_size": c["frame_size"],
            "ports": c.get("ports", 1),
            "schid": "0.0.%04x" % i,
            "online": 0,
            "group": None,
            "card_type": c.get("card_type"),
            "layer_enforced": c.get("layer_enforced"),
            "pnet_id": c.get("pnet_id"),
            "registered": not cio.is_blacklisted(st["cio_ignore"], cio.busid_key(c["devno"])),
        }
    for p in spec_dict.get("pci") or []:
        st["pci"][str(p["fid"])] = new_pci_entry(p)
    return st


# A PCI function in standby: what power-on sets up, power-off takes away again.
_STANDBY = {
    "configured": False,
    "domain": None,
    "addr": None,
    "driver": None,
    "driver_override": None,
    "iommu_group": None,
    "removed": False,
    "fh": 0,
    "ibdev": None,
    "sriov_numvfs": 0,
    "sriov_autoprobe": True,
}


def new_pci_entry(p):
    # a VF of a PF in this partition has no slot until the PF creates it (``created``)
    return dict(_STANDBY, spec=dict(p), held_by=None, created=p.get("pf") is None)


def boot_actions(st):
    """What the kernel + udev coldplug do after IPL: autoload drivers for present devices,
    configure FIDs that the spec marks configured (e.g. guest pass-through)."""
    if any(d.get("registered", True) for d in st["ccw"].values()):
        load_module(st, "qeth", explicit=False)
    before = set(loaded_names(st))
    for key in sorted(st["pci"], key=int):
        ent = st["pci"][key]
        if ent["spec"].get("state") == "configured":
            pci_configure(st, ent)
    st["boot_autoload"] = [n for n in loaded_names(st) if n not in before]


# ---------------------------------------------------------------------------------------------
# modules


def _catalog(st):
    return profile_of(st)["modules"]


def is_builtin(st, name):
    m = _catalog(st).get(profiles.module_name(name))
    return bool(m and m["builtin"])


def loaded_names(st):
    return [m["name"] for m in st["modules"]]


def module_present(st, name):
    """Loaded or built in."""
    name = profiles.module_name(name)
    return is_builtin(st, name) or name in loaded_names(st)


def modules_loaded(st):
    """Loaded loadable modules, most recent first, as /proc/modules lists them."""
    out = []
    for m in reversed(st["modules"]):
        holders = [x["name"] for x in st["modules"] if m["name"] in _catalog(st)[x["name"]]["deps"]]
        out.append(
            {
                "name": m["name"],
                "refcnt": len(holders),
                "holders": holders,
                "params": dict(m.get("params") or {}),
                "size": m.get("size", 0),
            }
        )
    return out


def driver_present(st, drv):
    """Is PCI driver ``drv`` registered (its module loaded or built in)?"""
    mod = profiles.PCI_DRIVERS.get(drv, (None,))[0]
    return bool(mod) and module_present(st, mod)


def _module_size(name):
    """A plausible, stable module size (multiple of 4 KiB)."""
    return 4096 * (4 + (sum(ord(c) * (i + 1) for i, c in enumerate(name)) % 60))


def load_module(st, name, params=None, explicit=True):
    """modprobe semantics: loads dependencies first; no-op if loaded or built in.
    Raises ModuleError(ENOENT, 'not_found')."""
    name = profiles.module_name(name)
    cat = _catalog(st)
    if name not in cat:
        raise ModuleError(errno.ENOENT, "not_found", name)
    info = cat[name]
    if explicit and name not in st.setdefault("explicit_modules", []):
        st["explicit_modules"].append(name)
    if info["builtin"] or name in loaded_names(st):
        return False
    for dep in info["deps"]:
        load_module(st, dep, explicit=False)
    prm = dict(info["params"])
    opt = (st.get("persist") or {}).get("options", {}).get(name, "")
    prm.update(_parse_params(opt))
    if params:
        prm.update(params if isinstance(params, dict) else _parse_params(params))
    st["modules"].append({"name": name, "params": prm, "size": _module_size(name)})
    _module_loaded_effects(st, name, prm)
    return True


def _parse_params(text):
    out = {}
    for tok in str(text or "").split():
        if "=" in tok:
            k, v = tok.split("=", 1)
            out[k] = v
        else:
            out[tok] = "Y"
    return out


def _module_loaded_effects(st, name, prm):
    if name == "smc":
        prof = profile_of(st)
        if prof["smc_sysctls"]:
            st["smc_sysctl"] = profiles.smc_sysctl_defaults(
                prof, read_tcp_mem1(st, "tcp_wmem"), read_tcp_mem1(st, "tcp_rmem")
            )
        else:
            st["smc_sysctl"] = {}
    if name == "vfio_pci" and prm.get("ids"):
        for tok in prm["ids"].split(","):
            m = re.match(r"^\s*([0-9a-fA-F]{1,4}):([0-9a-fA-F]{1,4})", tok)
            if m:
                _add_dynid(
                    st,
                    "vfio-pci",
                    [int(m.group(1), 16), int(m.group(2), 16), 0xFFFFFFFF, 0xFFFFFFFF, 0, 0, 0],
                    attach=False,
                )
    for drv in _catalog(st)[name]["pci_drivers"]:
        pci_driver_attach(st, drv)
    if _catalog(st)[name]["ccw_drivers"]:
        for busid, dev in st["ccw"].items():
            dev["driver"] = "qeth"


def unload_module(st, name):
    """modprobe -r/rmmod semantics for one module. Raises ModuleError (builtin, not_loaded,
    in_use with the holders in .detail)."""
    name = profiles.module_name(name)
    cat = _catalog(st)
    if name not in cat:
        raise ModuleError(errno.ENOENT, "not_found", name)
    if cat[name]["builtin"]:
        raise ModuleError(errno.EPERM, "builtin", name)
    if name not in loaded_names(st):
        raise ModuleError(errno.ENOENT, "not_loaded", name)
    holders = [m["name"] for m in st["modules"] if name in cat[m["name"]]["deps"]]
    if holders:
        raise ModuleError(errno.EBUSY, "in_use", name, ",".join(holders))
    if name == "smc" and st.get("smcd_in_use"):
        raise ModuleError(errno.EBUSY, "in_use", name)
    # a device QEMU has open holds a reference on vfio-pci (its unbind would block: see pci_unbind)
    held = [e["addr"] for e in st["pci"].values() if e.get("held_by") and e["driver"] in cat[name]["pci_drivers"]]
    if held:
        raise ModuleError(errno.EBUSY, "in_use", name)
    for drv in cat[name]["pci_drivers"]:
        for ent in st["pci"].values():
            if ent["driver"] == drv:
                ent["driver"] = None
        st["pci_dynids"].pop(drv, None)
    if cat[name]["ccw_drivers"]:
        for busid in list(st["qeth"]):
            card = st["qeth"][busid]
            if card["online"]:
                qeth_set_offline(st, busid)
            _ungroup(st, busid)
        for dev in st["ccw"].values():
            dev["driver"] = None
    if name == "smc":
        st["smc_sysctl"] = None
        st["pnet"] = []
        st["ueids"], st["seid_enabled"] = [], 1  # smc_clc_init sets up the table again
    st["modules"] = [m for m in st["modules"] if m["name"] != name]
    if name in (st.get("explicit_modules") or []):
        st["explicit_modules"].remove(name)
    return True


# ---------------------------------------------------------------------------------------------
# CCW / ccwgroup / qeth

_ID_RE = re.compile(r"^\s*([0-9a-fA-F]{1,2})\.([0-9a-fA-F])\.([0-9a-fA-F]{1,4})")


def _parse_ccw_id(tok):
    """ccwgroup's __get_next_id: sscanf '%2x.%1x.%04x', at most 19 chars."""
    if len(tok) + 1 > 20:
        return None
    m = _ID_RE.match(tok)
    if not m:
        return None
    return "%x.%x.%04x" % (int(m.group(1), 16), int(m.group(2), 16), int(m.group(3), 16))


def qeth_group(st, data):
    """Write to /sys/bus/ccwgroup/drivers/qeth/group (ccwgroup_create_dev with 3 devices)."""
    text = data.decode("latin-1") if isinstance(data, bytes) else str(data)
    nl = text.find("\n")
    if nl >= 0 and "," not in text[nl:]:
        text = text[:nl]
    parts = text.split(",")
    ids = []
    for i, tok in enumerate(parts):
        if i >= 3:
            if i == 3 and tok == "" and len(parts) == 4:
                break  # "a,b,c," leaves an empty rest, which the kernel accepts
            raise oserr(errno.EINVAL, "trailing data")
        busid = _parse_ccw_id(tok)
        if busid is None:
            raise oserr(errno.EINVAL, "malformed bus id %r" % tok)
        dev = st["ccw"].get(busid)
        if dev is None or not dev.get("registered", True) or dev.get("driver") != "qeth":
            raise oserr(errno.EINVAL, "no such ccw device %s" % busid)
        first = st["ccw"][ids[0]] if ids else dev
        if CU_BY_TYPE[dev["chpid_type"]] != CU_BY_TYPE[first["chpid_type"]]:
            raise oserr(errno.EINVAL, "device types differ")
        if dev["group"] is not None or busid in ids:
            raise oserr(errno.EINVAL, "%s already grouped" % busid)
        ids.append(busid)
    if len(ids) < 3:
        raise oserr(errno.EINVAL, "need 3 devices")
    gid = ids[0]
    first = st["ccw"][gid]
    iqd = first["chpid_type"] == "IQD"
    card = {
        "cdevs": ids,
        "online": 0,
        "layer2": -1,
        "buffer_count": 128 if iqd else 64,
        "portno": 0,
        "isolation": "none",
        "prio": "disabled",
        "hw_trap": "disarm",
        "bridge_role": "none",
        "bridge_hostnotify": 0,
        "bridge_reflect_promisc": "none",
        "vnicc": dict(VNICC_DEFAULTS),
        "registered": False,
        "ever_online": False,
        "performance_stats": 0,
        "blkt": {"total": 0, "inter": 0, "inter_jumbo": 0},
        "route4": "no",
        "route6": "no",
        "sniffer": 0,
        "hsuid": "",
        "layer_enforced": first.get("layer_enforced"),
    }
    if card["layer_enforced"] is not None:
        card["layer2"] = int(card["layer_enforced"])
    if not iqd:
        card["blkt"] = {"total": 250, "inter": 5, "inter_jumbo": 15}
    for b in ids:
        st["ccw"][b]["group"] = gid
    st["qeth"][gid] = card
    return gid


def _ungroup(st, gid):
    card = st["qeth"].pop(gid)
    for b in card["cdevs"]:
        if b in st["ccw"]:
            st["ccw"][b]["group"] = None
            st["ccw"][b]["online"] = 0


def qeth_ungroup(st, gid, data=b"1"):
    card = _card(st, gid)
    if card["online"]:
        raise oserr(errno.EINVAL, "device is online")
    _ungroup(st, gid)


def _card(st, gid):
    card = st["qeth"].get(gid)
    if card is None:
        raise oserr(errno.ENODEV, gid)
    return card


def _strip(data):
    text = data.decode("latin-1") if isinstance(data, bytes) else str(data)
    return text


def kstrtouint(data, base=10, bits=32):
    """Kernel kstrtouint: optional '+', digits (0x prefix for base 0/16), one trailing newline."""
    s = _strip(data)
    if s.endswith("\n"):
        s = s[:-1]
    if s.startswith("+"):
        s = s[1:]
    b = base
    if base in (0, 16) and s[:2].lower() == "0x":
        s = s[2:]
        b = 16
    elif base == 0 and len(s) > 1 and s[0] == "0":
        b = 8
    elif base == 0:
        b = 10
    if not s or not re.match(r"^[0-9a-fA-F]+$", s):
        raise oserr(errno.EINVAL)
    try:
        val = int(s, b)
    except ValueError:
        raise oserr(errno.EINVAL)
    if val >= (1 << bits):
        raise oserr(errno.ERANGE)
    return val


def kstrtobool(data):
    s = _strip(data)
    if not s:
        raise oserr(errno.EINVAL)
    c = s[0].lower()
    if c in "y1":
        return True
    if c in "n0":
        return False
    if c == "o" and len(s) > 1:
        if s[1].lower() == "n":
            return True
        if s[1].lower() == "f":
            return False
    raise oserr(errno.EINVAL)


def sysfs_streq(data, word):
    s = _strip(data)
    if s.endswith("\n"):
        s = s[:-1]
    return s == word


def card_state(st, gid, netdev_flags=None):
    card = st["qeth"][gid]
    if not card["online"]:
        return "DOWN"
    if netdev_flags is None:
        return "SOFTSETUP"
    up, carrier = netdev_flags
    if up:
        return "UP (LAN %s)" % ("ONLINE" if carrier else "OFFLINE")
    return "SOFTSETUP"


def card_ifname(st, gid):
    card = st["qeth"][gid]
    if card["registered"]:
        return ifname_for(gid)
    return "(unnamed net_device)" if kernel_version(st) >= (5, 0) else ""


def card_type_name(st, gid):
    card = st["qeth"][gid]
    dev = st["ccw"][gid]
    if dev.get("card_type"):
        return dev["card_type"]
    if dev["chpid_type"] == "IQD":
        return "HiperSockets"
    if dev["chpid_type"] == "OSD":
        return "OSD_10GIG" if card["ever_online"] else "OSD_Express"
    if dev["chpid_type"] == "OSX":
        return "OSX_10GIG"
    return "OSM_1000"


def effective_layer(st, gid):
    card = st["qeth"][gid]
    if card["layer2"] != -1:
        return card["layer2"]
    return 0 if st["ccw"][gid]["chpid_type"] == "IQD" else 1


def qeth_set_online(st, gid):
    card = _card(st, gid)
    if card["online"]:
        return
    devs = [st["ccw"][b] for b in card["cdevs"]]
    # The read/write channel pair must be consecutive and share the CHPID; the kernel gets an
    # IDX ACTIVATE failure otherwise [I]: EIO.
    if busid_devno(card["cdevs"][1]) != busid_devno(card["cdevs"][0]) + 1 or len({d["chpid"] for d in devs}) != 1:
        raise oserr(errno.EIO, "IDX ACTIVATE failed")
    if card["layer2"] == -1:
        card["layer2"] = effective_layer(st, gid)
    load_module(st, "qeth_l2" if card["layer2"] == 1 else "qeth_l3", explicit=False)
    card["online"] = 1
    card["ever_online"] = True
    card["registered"] = True
    for d in devs:
        d["online"] = 1
    dev = st["ccw"][gid]
    mtu = MTU_BY_FRAME[dev["frame_size"]] if dev["chpid_type"] == "IQD" else 1500
    queue_hook(st, ["netdev-up", gid, ifname_for(gid), dev["chpid"], card["layer2"], mtu])


def qeth_set_offline(st, gid):
    card = _card(st, gid)
    if not card["online"]:
        return
    card["online"] = 0
    for b in card["cdevs"]:
        st["ccw"][b]["online"] = 0
    queue_hook(st, ["netdev-down", gid, ifname_for(gid)])


def qeth_store_online(st, gid, data):
    _card(st, gid)
    val = kstrtouint(data, 0, 64)
    if val == 1:
        qeth_set_online(st, gid)
    elif val == 0:
        qeth_set_offline(st, gid)
    else:
        raise oserr(errno.EINVAL)


def _need_down(card):
    if card["online"]:
        raise oserr(errno.EPERM, "device is online")


def qeth_store(st, gid, attr, data):
    """Stores of qeth group device attributes (qeth_core_sys.c, qeth_l2_sys.c)."""
    card = _card(st, gid)
    dev = st["ccw"][gid]
    ctype = dev["chpid_type"]
    if attr == "online":
        return qeth_store_online(st, gid, data)
    if attr == "ungroup":
        return qeth_ungroup(st, gid, data)
    if attr == "buffer_count":
        cnt = kstrtouint(data, 10)
        _need_down(card)
        card["buffer_count"] = max(8, min(128, cnt))
        return
    if attr == "layer2":
        val = kstrtouint(data, 16)
        if val not in (0, 1):
            raise oserr(errno.EINVAL)
        _need_down(card)
        if card["layer2"] == val:
            return
        if card["layer_enforced"] is not None:
            raise oserr(errno.EOPNOTSUPP)
        card["layer2"] = val
        card["registered"] = False  # a pristine netdev replaces the old one
        card["vnicc"] = dict(VNICC_DEFAULTS)
        card["bridge_role"] = "none"
        return
    if attr == "portno":
        _need_down(card)
        m = re.match(r"^\s*(?:0[xX])?([0-9a-fA-F]*)", _strip(data))
        portno = int(m.group(1), 16) if m and m.group(1) else 0
        if portno > 15 or portno > max(dev.get("ports", 1) - 1, 0):
            raise oserr(errno.EINVAL)
        card["portno"] = portno
        return
    if attr == "portname":
        return
    if attr == "priority_queueing":
        if ctype == "IQD":
            raise oserr(errno.EOPNOTSUPP)
        _need_down(card)
        table = {
            "prio_queueing_prec": "by precedence",
            "prio_queueing_skb": "by skb-priority",
            "prio_queueing_tos": "by type of service",
            "prio_queueing_vlan": "by VLAN headers",
            "no_prio_queueing:0": "always queue 0",
            "no_prio_queueing:1": "always queue 1",
            "no_prio_queueing:2": "always queue 2",
            "no_prio_queueing:3": "always queue 3",
            "no_prio_queueing": "disabled",
        }
        for word, shown in table.items():
            if sysfs_streq(data, word):
                if word == "prio_queueing_vlan" and effective_layer(st, gid) == 0:
                    raise oserr(errno.EOPNOTSUPP)
                card["prio"] = shown
                return
        raise oserr(errno.EINVAL)
    if attr == "isolation":
        if ctype not in ("OSD", "OSX"):
            raise oserr(errno.EOPNOTSUPP, "Adapter does not support QDIO data connection isolation")
        for word in ("none", "forward", "drop"):
            if sysfs_streq(data, word):
                card["isolation"] = word
                return
        raise oserr(errno.EINVAL)
    if attr == "hw_trap":
        if sysfs_streq(data, "arm"):
            card["hw_trap"] = "arm"
        elif sysfs_streq(data, "disarm"):
            card["hw_trap"] = "disarm"
        elif sysfs_streq(data, "trap") and card["online"] and card["hw_trap"] == "arm":
            pass
        else:
            raise oserr(errno.EINVAL)
        return
    if attr == "performance_stats":
        kstrtobool(data)
        return
    if attr == "recover":
        kstrtobool(data)
        if not card["online"]:
            raise oserr(errno.EPERM)
        return
    if attr.startswith("blkt/"):
        key = attr.split("/", 1)[1]
        val = kstrtouint(data, 10)
        limit = {"total": 5000, "inter": 1000, "inter_jumbo": 1000}[key]
        if val > limit:
            raise oserr(errno.EINVAL)
        _need_down(card)
        card["blkt"][key] = val
        return
    if attr in ("bridge_role",):
        if any(card["vnicc"][k] != v for k, v in VNICC_DEFAULTS.items()):
            raise oserr(errno.EBUSY)
        for word in ("primary", "secondary", "none"):
            if sysfs_streq(data, word):
                card["bridge_role"] = word
                return
        raise oserr(errno.EINVAL)
    if attr == "bridge_hostnotify":
        card["bridge_hostnotify"] = 1 if kstrtobool(data) else 0
        return
    if attr == "bridge_reflect_promisc":
        for word in ("none", "primary", "secondary"):
            if sysfs_streq(data, word):
                card["bridge_reflect_promisc"] = word
                return
        raise oserr(errno.EINVAL)
    if attr.startswith("vnicc/"):
        key = attr.split("/", 1)[1]
        if ctype != "IQD":
            raise oserr(errno.EOPNOTSUPP)
        if card["bridge_role"] != "none":
            raise oserr(errno.EBUSY)
        if key == "learning_timeout":
            val = kstrtouint(data, 10)
            if val < 60 or val > 86400:
                raise oserr(errno.EINVAL)
            card["vnicc"][key] = val
            return
        card["vnicc"][key] = 1 if kstrtobool(data) else 0
        return
    if attr in ("route4", "route6"):
        for word in (
            "primary_router",
            "secondary_router",
            "primary_connector",
            "secondary_connector",
            "multicast_router",
            "no_router",
        ):
            if sysfs_streq(data, word):
                card[attr] = "no" if word == "no_router" else word.replace("_", " ")
                return
        raise oserr(errno.EINVAL)
    if attr == "sniffer":
        val = kstrtouint(data, 10)
        if val > 1 or ctype != "IQD":
            raise oserr(errno.EINVAL if val > 1 else errno.EOPNOTSUPP)
        card["sniffer"] = val
        return
    if attr == "hsuid":
        if ctype != "IQD":
            raise oserr(errno.EPERM)
        _need_down(card)
        text = _strip(data).strip()
        if len(text) > 8:
            raise oserr(errno.EINVAL)
        card["hsuid"] = text
        return
    raise oserr(errno.EACCES)


# ---------------------------------------------------------------------------------------------
# zPCI


def pci_addr(domain):
    return "%04x:00:00.0" % domain


def pci_by_addr(st, addr):
    for ent in st["pci"].values():
        if ent["configured"] and not ent["removed"] and ent["addr"] == addr:
            return ent
    return None


def _alloc_domain(st, ent):
    """The PCI domain of a function that gets a bus of its own (zpci_alloc_domain): its UID with UID
    checking, else the lowest free one, so generated domains follow the order of power-on. Since
    Linux 6.13 an isolated VF (its PF not in the partition) always gets a bus of its own."""
    used = {e["domain"] for e in st["pci"].values() if e["configured"] and e is not ent}
    if st["spec"].get("uid_checking") or st["spec"].get("role") == "guest":
        dom = ent["spec"]["uid"]
        if dom in used:
            raise oserr(errno.EEXIST, "Domain %04x is already assigned" % dom)
        return dom
    dom = 0
    while dom in used:
        dom += 1
    return dom


def pci_configure(st, ent):
    """Slot power 1 (enable_slot): EIO unless in standby."""
    if ent["configured"]:
        raise oserr(errno.EIO, "not in standby")
    if not ent["created"]:
        raise oserr(errno.ENODEV, "VF not created by its PF")
    pf = parent_pf(st, ent)
    if pf is not None:
        # a VF of a PF in this partition sits on the PF's bus: devfn from its VF number
        dom = pf["domain"]
        addr = "%04x:00:%02x.%x" % (dom, ent["spec"]["vfn"] >> 3, ent["spec"]["vfn"] & 7)
    else:
        dom = _alloc_domain(st, ent)
        addr = pci_addr(dom)
    ent["configured"] = True
    ent["domain"] = dom
    ent["addr"] = addr
    ent["fh"] = 0x80000000 | (ent["spec"]["fid"] & 0x00FFFFFF)
    ent["driver"] = None
    ent["driver_override"] = None
    ent["removed"] = False
    pci_device_add(st, ent)


def pci_device_add(st, ent):
    """device_add + uevent: in-kernel probe, then udev (rules, driverctl, modalias autoload)."""
    ent["iommu_group"] = st["iommu_next"]
    st["iommu_next"] += 1
    pci_probe(st, ent)
    _udev_add(st, ent)


def _udev_add(st, ent):
    """The add uevent seen by udev: override rules, driverctl, RUN programs, modalias autoload,
    probe."""
    persist = st.get("persist") or {}
    addr = ent["addr"]
    drvctl = (persist.get("driverctl") or {}).get(addr)
    runs = []
    for rule in persist.get("pci_rules") or []:
        if _pci_rule_matches(st, ent, rule):
            if "driver_override" in rule:
                ent["driver_override"] = rule["driver_override"] or None
            for op, value in rule.get("run") or []:
                if op in ("=", ":="):
                    runs = []
                runs.append((rule.get("file", "?"), value))
    if drvctl:
        ent["driver_override"] = drvctl
        if ent["driver"] and ent["driver"] != drvctl:
            ent["driver"] = None
        mod = profiles.PCI_DRIVERS.get(drvctl, (None,))[0]
        if mod:
            try:
                load_module(st, mod, explicit=False)
            except ModuleError:
                pass
        pci_probe(st, ent)
    # RUN programs of the matching rules, in order, after all rules (before 80-drivers.rules'
    # RUN{builtin}="kmod load $env{MODALIAS}": rules files sort before it). Their writes are
    # stores of their own: they run after this change committed, and the rest of the event
    # after them.
    depth = st.get("_udev_run_depth", 0)
    if runs and depth < 4:
        queue_udev_run(st, ent, runs, depth + 1)
        return
    udev_add_finish(st, ent)


def udev_add_finish(st, ent):
    """The end of an add event: modalias autoload by udev (skipped for blacklisted modules),
    then probe."""
    persist = st.get("persist") or {}
    if ent["driver"] is None:
        for drv, (mod, ids) in sorted(profiles.PCI_DRIVERS.items()):
            if (
                (ent["spec"]["vendor"], ent["spec"]["device"]) in ids
                and mod not in persist.get("blacklist", [])
                and not module_present(st, mod)
            ):
                try:
                    load_module(st, mod, explicit=False)
                except ModuleError:
                    pass
    if ent["driver"] is None:
        pci_probe(st, ent)


def coldplug_pci(st):
    """udev coldplug at boot for functions configured at IPL: drivers built into the kernel
    probed before udev ran and keep their device; module drivers were only loaded by udev, i.e.
    after the rules (driver_override, driverctl, blacklist) applied: replay that order."""
    auto = st.pop("boot_autoload", None) or []
    blacklist = set((st.get("persist") or {}).get("blacklist") or [])
    if blacklist & set(auto):
        explicit = set(st.get("explicit_modules") or [])
        for name in reversed(auto):
            if name in explicit or name not in loaded_names(st):
                continue
            for ent in st["pci"].values():
                if ent["driver"] in _catalog(st)[name]["pci_drivers"]:
                    ent["driver"] = None
            try:
                unload_module(st, name)
            except ModuleError:
                pass
    for key in sorted(st["pci"], key=int):
        ent = st["pci"][key]
        if not ent["configured"] or ent["removed"]:
            continue
        drv = ent["driver"]
        mod = profiles.PCI_DRIVERS.get(drv, (None,))[0] if drv else None
        if drv and not is_builtin(st, mod):
            ent["driver"] = None
        _udev_add(st, ent)


def _pci_rule_matches(st, ent, rule, event="add"):
    for key, want in rule["match"].items():
        if key == "ACTION":
            have = event
        elif key == "KERNEL":
            have = ent["addr"]
        elif key == "DRIVER":
            have = ent["driver"] or ""
        else:
            have = pci_attr_value(st, ent, key)
            if have is None:
                return False
            have = have.rstrip("\n")
        if not _glob_match(want, have):
            return False
    return True


def _glob_match(pattern, value):
    import fnmatch

    return any(fnmatch.fnmatchcase(value, alt) for alt in pattern.split("|"))


def pci_attr_value(st, ent, name):
    s = ent["spec"]
    vals = {
        "vendor": "0x%04x" % s["vendor"],
        "device": "0x%04x" % s["device"],
        "function_id": "0x%08x" % s["fid"],
        "uid": "0x%x" % s["uid"],
        "pchid": "0x%04x" % s["pchid"],
        "pft": "0x%02x" % s["pft"],
        "vfn": "0x%04x" % s["vfn"],
        "port": "%d" % s["port"],
    }
    return vals.get(name)


def shows_fidparm(st):
    """Linux 6.13 added the fidparm attribute."""
    return kernel_version(st) >= (6, 13)


def parent_pf(st, ent):
    """The configured PF in this partition a VF belongs to (its ``physfn``), or None."""
    pf_fid = ent["spec"].get("pf")
    if pf_fid is None:
        return None
    pf = st["pci"].get(str(pf_fid))
    return pf if pf is not None and pf["configured"] and not pf["removed"] else None


def vfs_of(st, pf):
    """The VF entries whose PF is ``pf``, by VF number."""
    fid = pf["spec"]["fid"]
    return sorted((e for e in st["pci"].values() if e["spec"].get("pf") == fid), key=lambda e: e["spec"]["vfn"])


def pci_store_numvfs(st, ent, data):
    """sriov_numvfs_store (drivers/pci/iov.c): ERANGE above sriov_totalvfs, nothing for the same
    count, ENOENT without a bound driver, EBUSY from N to M; 0 -> N configures the VFs 1..N (probed
    only with sriov_drivers_autoprobe 1 or a driver_override, pci_device_can_probe), N -> 0 removes
    them (EBUSY while a guest holds one)."""
    want = kstrtouint(data, 10, 16)
    have = ent["sriov_numvfs"]
    total = ent["spec"].get("sriov_totalvfs") or 0
    if want > total:
        raise oserr(errno.ERANGE, "more than sriov_totalvfs")
    if want == have:
        return
    if not ent["driver"]:
        raise oserr(errno.ENOENT, "no driver bound to the PF")
    if want and have:
        raise oserr(errno.EBUSY, "%d VFs already enabled" % have)
    vfs = vfs_of(st, ent)
    if want:
        for vf in vfs[:want]:
            vf["created"] = True
            pci_configure(st, vf)
    else:
        held = [vf for vf in vfs if vf["configured"] and vf.get("held_by")]
        if held:
            raise oserr(errno.EBUSY, "VF in use by %s" % held[0]["held_by"])
        for vf in vfs:
            if vf["configured"]:
                vf.update(_STANDBY)
            vf["created"] = False
    ent["sriov_numvfs"] = want


def pci_store_autoprobe(st, ent, data):
    ent["sriov_autoprobe"] = kstrtobool(data)


def _can_probe(st, ent):
    """pci_device_can_probe: a VF of a PF with sriov_drivers_autoprobe 0 binds only through its
    driver_override."""
    pf = parent_pf(st, ent)
    return pf is None or pf["sriov_autoprobe"] or bool(ent["driver_override"])


def pci_unconfigure(st, ent):
    """Slot power 0 (disable_slot): EIO unless configured, EBUSY with VFs enabled."""
    if not ent["configured"]:
        raise oserr(errno.EIO, "not configured")
    if ent["spec"].get("num_vfs") or ent["sriov_numvfs"]:
        raise oserr(errno.EBUSY, "VFs enabled")
    if ent.get("held_by"):
        raise oserr(errno.EBUSY, "in use by %s" % ent["held_by"])
    ent.update(_STANDBY)


def pci_store_power(st, fid, data):
    ent = st["pci"].get(str(fid))
    if ent is None:
        raise oserr(errno.ENODEV)
    m = re.match(r"^\s*(\d*)", _strip(data))  # simple_strtoul(buf, NULL, 10)
    power = (int(m.group(1)) if m.group(1) else 0) & 0xFF
    if power == 0:
        pci_unconfigure(st, ent)
    elif power == 1:
        pci_configure(st, ent)
    else:
        raise oserr(errno.EINVAL, "Illegal value specified for power")


def _driver_matches(st, ent, drv):
    if not driver_present(st, drv):
        return False
    ov = ent["driver_override"]
    if ov:
        return ov == drv
    ids = profiles.PCI_DRIVERS[drv][1]
    key = (ent["spec"]["vendor"], ent["spec"]["device"])
    if key in ids:
        return True
    for dyn in st["pci_dynids"].get(drv, []):
        if dyn[0] == key[0] and dyn[1] == key[1]:
            return True
    return False


def _bind(st, ent, drv):
    """``drv`` binds ``ent``: mlx4_core/mlx5_core register the function's RDMA device under the
    next free ``mlx4_<n>``/``mlx5_<n>`` name (ib_device names are allocated lowest-free per name
    pattern) and its Ethernet netdev(s)."""
    ent["driver"] = drv
    ent["ibdev"] = None
    _udev_bind(st, ent)
    if drv in RDMA_DRIVERS:
        prefix = RDMA_DRIVERS[drv]
        used = {
            e.get("ibdev")
            for e in st["pci"].values()
            if e is not ent and e.get("driver") == drv and e["configured"] and not e["removed"]
        }
        n = 0
        while "%s_%d" % (prefix, n) in used:
            n += 1
        ent["ibdev"] = "%s_%d" % (prefix, n)


def _udev_bind(st, ent):
    """The bind uevent seen by udev: ATTR assignments of rules matching ACTION=="bind" (and the
    driver), such as a PF's sriov_drivers_autoprobe and sriov_numvfs; a failing write is logged by
    udev and the rule goes on."""
    for rule in (st.get("persist") or {}).get("pci_rules") or []:
        if rule["match"].get("ACTION") != "bind" or not rule.get("assign"):
            continue
        if not _pci_rule_matches(st, ent, rule, event="bind"):
            continue
        for attr, value in rule["assign"]:
            store = {"sriov_numvfs": pci_store_numvfs, "sriov_drivers_autoprobe": pci_store_autoprobe}.get(attr)
            if store is None:
                continue
            try:
                store(st, ent, value.encode())
            except OSError as exc:
                st["persist"].setdefault("skipped", []).append(
                    "udev %s: %s=%s: %s" % (rule.get("file", "?"), attr, value, os.strerror(exc.errno or errno.EIO))
                )


def pci_probe(st, ent):
    """device_attach: first matching registered driver binds (no-op when already bound)."""
    if ent["driver"] or not ent["configured"] or ent["removed"] or not _can_probe(st, ent):
        return
    order = ["vfio-pci", "ism", "mlx5_core", "mlx4_core"]
    if ent["driver_override"]:
        order = [ent["driver_override"]]
    for drv in order:
        if drv in profiles.PCI_DRIVERS and _driver_matches(st, ent, drv):
            _bind(st, ent, drv)
            return


def pci_driver_attach(st, drv):
    for key in sorted(st["pci"], key=int):
        ent = st["pci"][key]
        if (
            ent["configured"]
            and not ent["removed"]
            and ent["driver"] is None
            and _driver_matches(st, ent, drv)
            and _can_probe(st, ent)
        ):
            _bind(st, ent, drv)


def _addr_arg(data):
    s = _strip(data)
    if s.endswith("\n"):
        s = s[:-1]
    return s


def pci_bind(st, drv, data):
    ent = pci_by_addr(st, _addr_arg(data))
    if ent is None or not _driver_matches(st, ent, drv) or not _can_probe(st, ent):
        raise oserr(errno.ENODEV)
    if ent["driver"]:
        raise oserr(errno.EBUSY)
    _bind(st, ent, drv)


def pci_unbind(st, drv, data):
    ent = pci_by_addr(st, _addr_arg(data))
    if ent is None or ent["driver"] != drv:
        raise oserr(errno.ENODEV)
    if ent.get("held_by") and drv == "vfio-pci":
        # vfio-pci's remove waits for the user to release the device; report busy instead [I]
        raise oserr(errno.EBUSY)
    ent["driver"] = None


def pci_drivers_probe(st, data):
    ent = pci_by_addr(st, _addr_arg(data))
    if ent is None:
        raise oserr(errno.ENODEV)
    pci_probe(st, ent)


def pci_store_override(st, ent, data):
    s = _strip(data)
    if len(s) >= 4096:
        raise oserr(errno.EINVAL)
    nl = s.find("\n")
    if nl >= 0:
        s = s[:nl]
    ent["driver_override"] = s or None


def _parse_id_line(data):
    s = _strip(data)
    toks = s.split()
    vals = []
    for t in toks[:7]:
        m = re.match(r"^(?:0[xX])?([0-9a-fA-F]+)", t)
        if not m:
            break
        vals.append(int(m.group(1), 16))
        if m.end() != len(t):
            break
    return vals


def _add_dynid(st, drv, idv, attach=True):
    lst = st["pci_dynids"].setdefault(drv, [])
    for d in lst:
        if d[:2] == idv[:2]:
            raise oserr(errno.EEXIST)
    lst.append(idv)
    if attach:
        pci_driver_attach(st, drv)


def pci_new_id(st, drv, data):
    vals = _parse_id_line(data)
    if len(vals) < 2:
        raise oserr(errno.EINVAL)
    full = vals + [0xFFFFFFFF, 0xFFFFFFFF, 0, 0, 0][len(vals) - 2 :]
    _add_dynid(st, drv, full[:7])


def pci_remove_id(st, drv, data):
    vals = _parse_id_line(data)
    if len(vals) < 2:
        raise oserr(errno.EINVAL)
    lst = st["pci_dynids"].get(drv, [])
    for d in lst:
        if d[:2] == vals[:2]:
            lst.remove(d)
            return
    raise oserr(errno.ENODEV)


def pci_remove(st, ent, data):
    m = re.match(r"^\s*(\d+)", _strip(data))
    if not m:
        raise oserr(errno.EINVAL)
    if int(m.group(1)):
        if ent.get("held_by") and ent["driver"] == "vfio-pci":
            # the driver's remove waits for QEMU to release the device, as for unbind [I]
            raise oserr(errno.EBUSY, "in use by %s" % ent["held_by"])
        ent["removed"] = True
        ent["driver"] = None


def pci_rescan(st, data):
    m = re.match(r"^\s*(\d+)", _strip(data))
    if not m:
        raise oserr(errno.EINVAL)
    if int(m.group(1)):
        for key in sorted(st["pci"], key=int):
            ent = st["pci"][key]
            if ent["configured"] and ent["removed"]:
                ent["removed"] = False
                pci_device_add(st, ent)


def set_pci_functions(st, functions):
    """Guest start: replace the PCI functions; each appears configured at domain = uid."""
    from .spec import HostSpec

    spec = dict(st["spec"])
    spec["pci"] = functions
    norm = HostSpec.from_dict(spec).to_dict()
    st["spec"]["pci"] = norm["pci"]
    st["pci"] = {}
    for p in norm["pci"]:
        ent = new_pci_entry(p)
        st["pci"][str(p["fid"])] = ent
    for key in sorted(st["pci"], key=int):
        ent = st["pci"][key]
        if ent["spec"].get("state", "configured") != "standby" or st["spec"].get("role") == "guest":
            pci_configure(st, ent)


# ---------------------------------------------------------------------------------------------
# RoCE Express: the mlx4/mlx5 functions' netdevs and RDMA devices

# PCI driver -> RDMA device name prefix
RDMA_DRIVERS = {"mlx4_core": "mlx4", "mlx5_core": "mlx5"}
# `ethtool -i` firmware-version per kind of function. smc_rnics (smc-tools 1.8.5) tells a ROC2
# function's generation by the major version: 14 (ConnectX-4 Lx) RoCE Express2, 22 (ConnectX-6 Dx)
# RoCE Express3. The minor parts are the lab's.
FW_VERSION = {"roce": "2.42.5000", "roce2": "14.32.1020", "roce3": "22.36.1010"}
# enum ib_port_state: IB_PORT_ACTIVE (the ports/N/state attribute reads "4: ACTIVE")
IB_PORT_ACTIVE = 4


def uid_is_unique(st):
    return bool(st["spec"].get("uid_checking") or st["spec"].get("role") == "guest")


def rdma_functions(st):
    """The configured RoCE functions a mlx driver has bound (they have an RDMA device), by FID."""
    out = []
    for key in sorted(st["pci"], key=int):
        ent = st["pci"][key]
        if ent["configured"] and not ent["removed"] and ent["driver"] in RDMA_DRIVERS and ent.get("ibdev"):
            out.append(ent)
    return out


def rdma_ports(ent):
    """Ports of the function's RDMA device: a RoCE Express (mlx4) VF drives both ports of its card,
    a RoCE Express2/3 (mlx5) VF one (one FID per port)."""
    return 2 if ent["spec"]["type"] == "roce" else 1


def roce_netdevs(st, ent):
    """[(ifname, dev_port)]: the Ethernet netdev of each port as systemd's net_id names a PCI
    function on s390: ``eno<UID>`` (the function's ``index``, set when uid_is_unique) or else
    ``ens<FID>`` (its hotplug slot), both decimal, ``d<dev_port>`` for the second port."""
    s = ent["spec"]
    base = ("eno%d" % s["uid"]) if uid_is_unique(st) else ("ens%d" % s["fid"])
    return [(base if i == 0 else "%sd%d" % (base, i), i) for i in range(rdma_ports(ent))]


def netdev_mac(s, dev_port):
    """A locally administered MAC per RoCE or Network Express port: 02:<PCHID>:<FID low 16 bits>:<port>."""
    return "02:%02x:%02x:%02x:%02x:%02x" % (
        (s["pchid"] >> 8) & 0xFF,
        s["pchid"] & 0xFF,
        (s["fid"] >> 8) & 0xFF,
        s["fid"] & 0xFF,
        dev_port,
    )


def pci_links(st):
    """{ifname: [PCHID, MAC, FID]} (hex strings): the netdevs of the Network Express functions
    mlx5_core has bound. The lab backs each with a real link on its port's segment, so functions
    on one port (of any partition or guest) reach each other; other RoCE netdevs are sysfs only."""
    out = {}
    for ent in rdma_functions(st):
        s = ent["spec"]
        if s["type"] not in NETWORK_EXPRESS:
            continue
        for ifname, dev_port in roce_netdevs(st, ent):
            out[ifname] = ["%04x" % s["pchid"], netdev_mac(s, dev_port), "%x" % s["fid"]]
    return out


def sync_pci_links(st):
    """Queue the pcinet-down/-up hooks that make the real links follow :func:`pci_links` (a
    function bound, unbound, powered off, removed or taken by another driver), at the end of a
    change."""
    have = st.get("pci_links") or {}
    want = pci_links(st)
    if have == want:
        return
    for ifname in sorted(have):
        if want.get(ifname) != have[ifname]:
            queue_hook(st, ["pcinet-down", ifname] + have[ifname])
    for ifname in sorted(want):
        if have.get(ifname) != want[ifname]:
            queue_hook(st, ["pcinet-up", ifname] + want[ifname])
    st["pci_links"] = want


def hardware_pnet(ent, index):
    """The IOCDS PNET ID of port ``index`` (0-based: the util_string's 16-byte field), or None."""
    pnets = ent["spec"].get("pnet_ids") or []
    return pnets[index] if index < len(pnets) and pnets[index] else None


def netdev_info(st, ifname):
    """``ethtool -i`` of a RoCE netdev: {driver, version, firmware-version, bus-info}, or None."""
    for ent in rdma_functions(st):
        for name, _port in roce_netdevs(st, ent):
            if name == ifname:
                return {
                    "driver": ent["driver"],
                    "version": core_release(st),
                    "firmware-version": FW_VERSION.get(ent["spec"]["type"], ""),
                    "bus-info": ent["addr"],
                }
    return None


def core_release(st):
    return profile_of(st)["osrelease"]


def smcr_devices(st):
    """RoCE devices SMC-R knows (``smcr device``; the kernel's SMC_NETLINK_GET_DEV_SMCR): every
    RDMA device of a bound mlx function once smc is loaded, with its ports (PNET ID from the IOCDS,
    else the software table's, link counts from the SMC-R link groups)."""
    out = []
    if not smc_loaded(st):
        return out
    links = []
    for lg in st["linkgroups"]["SMCR"]:
        for link in lg.get("links") or []:
            links.append((lg, link))
    for ent in rdma_functions(st):
        s = ent["spec"]
        ports = []
        for ifname, dev_port in roce_netdevs(st, ent):
            port = dev_port + 1
            hw = hardware_pnet(ent, dev_port)
            user = [
                e["pnet_id"] for e in st["pnet"] if e.get("ib") in (ent["addr"], ent["ibdev"]) and e.get("port") == port
            ]
            on_port = [
                lk for _lg, lk in links if lk.get("ib_dev") == ent["ibdev"] and int(lk.get("ib_port", 1)) == port
            ]
            ports.append(
                {
                    "port": port,
                    "netdev": ifname,
                    "state": 1,
                    "valid": True,
                    "links": len(on_port),
                    "pnet_id": hw or (user[0] if user else None),
                    "pnet_user": bool(user and not hw),
                }
            )
        critical = any(
            str(lg.get("type", "SINGLE")) in ("SINGLE", "ASYML") for lg, lk in links if lk.get("ib_dev") == ent["ibdev"]
        )
        out.append(
            {
                "ib_dev": ent["ibdev"],
                "fid": s["fid"],
                "pci_id": ent["addr"],
                "pchid": s["pchid"],
                "vendor": s["vendor"],
                "device": s["device"],
                "critical": critical,
                "ports": ports,
            }
        )
    return out


# ---------------------------------------------------------------------------------------------
# SMC (netlink-ish)


def smc_loaded(st):
    return module_present(st, "smc")


def _need_smc(st):
    if not smc_loaded(st):
        raise oserr(errno.ENOENT, "smc not loaded")


def pnet_add(st, pnet_id, eth=None, ib=None, port=None):
    _need_smc(st)
    pid = str(pnet_id or "").upper()
    if not re.match(r"^[A-Z0-9]{1,16}$", pid):
        raise oserr(errno.EINVAL, "invalid PNET ID")
    if bool(eth) == bool(ib):
        raise oserr(errno.EINVAL, "need exactly one of eth/ib")
    if ib:
        known = [e["addr"] for e in st["pci"].values() if e["configured"] and not e["removed"]]
        known += [e["ibdev"] for e in rdma_functions(st)]
        if ib not in known and not re.match(r"^mlx\d_\d+$", ib):
            raise oserr(errno.ENODEV, ib)
        port = 1 if port is None else int(port)
        if port < 1 or port > 2:
            raise oserr(errno.EINVAL, "port")
    for e in st["pnet"]:
        if (eth and e.get("eth") == eth) or (ib and e.get("ib") == ib and e.get("port") == port):
            raise oserr(errno.EEXIST)
    if ib:
        # smc_pnet_apply_ib: a port whose PNET ID the IOCDS set keeps it
        for ent in st["pci"].values():
            if not ent["configured"] or ent["removed"] or ib not in (ent["addr"], ent.get("ibdev")):
                continue
            if ent["spec"]["type"] == "ism" and ent["spec"].get("pnet_ids"):
                raise oserr(errno.EEXIST, "hardware PNET ID")
            if ent["spec"]["type"] != "ism" and hardware_pnet(ent, port - 1):
                raise oserr(errno.EEXIST, "hardware PNET ID")
    st["pnet"].append({"pnet_id": pid, "eth": eth, "ib": ib, "port": 255 if eth else port})


def pnet_del(st, pnet_id):
    _need_smc(st)
    pid = str(pnet_id or "").upper()
    before = len(st["pnet"])
    st["pnet"] = [e for e in st["pnet"] if e["pnet_id"] != pid]
    if len(st["pnet"]) == before:
        raise oserr(errno.ENOENT, pid)


# ---- user EIDs and the system EID (net/smc/smc_clc.c, smc_ism.c) -----------------------------

SMC_MAX_UEID = 4
SMC_MAX_EID_LEN = 32


def ueid_valid(entry):
    """smc_clc_ueid_valid over the 32 bytes the kernel gets: blanks only as trailing padding, the
    first character A-Z or 0-9, the others A-Z, 0-9, '.' or '-' (the characters that have the
    same meaning in EBCDIC, in which the EID travels in CLC messages)."""
    text = entry.rstrip(" \t\n\v\f\r")
    if not text or len(entry) != SMC_MAX_EID_LEN:
        return False
    return re.fullmatch(r"[A-Z0-9][A-Z0-9.-]*", text) is not None


def _ueid_entry(ueid):
    """The entry SMC_NETLINK_ADD/REMOVE_UEID carries: 32 bytes (blank padded; smc-tools pads with
    "%-32s"), anything else is EINVAL as nla_len != SMC_MAX_EID_LEN + 1."""
    entry = str(ueid if ueid is not None else "")
    if len(entry) < SMC_MAX_EID_LEN:
        entry = entry.ljust(SMC_MAX_EID_LEN)
    if len(entry) != SMC_MAX_EID_LEN:
        raise oserr(errno.EINVAL, "UEID longer than %d characters" % SMC_MAX_EID_LEN)
    return entry


def ueid_list(st):
    _need_smc(st)
    return list(st.setdefault("ueids", []))


def ueid_add(st, ueid):
    _need_smc(st)
    entry = _ueid_entry(ueid)
    if not ueid_valid(entry):
        raise oserr(errno.EINVAL, entry)
    table = st.setdefault("ueids", [])
    if len(table) >= SMC_MAX_UEID:
        raise oserr(errno.ERANGE)
    if entry in table:
        raise oserr(errno.EEXIST, entry)
    table.append(entry)


def ueid_remove(st, ueid=None):
    """One UEID (``ueid``) or all (None, the flush). ENOENT when nothing matched; EAGAIN (a success:
    the change is made) when the table became empty, as the system EID is then enabled again."""
    _need_smc(st)
    table = st.setdefault("ueids", [])
    entry = None if ueid is None else _ueid_entry(ueid)
    kept = [e for e in table if entry is not None and e != entry]
    if len(kept) == len(table):
        raise oserr(errno.ENOENT, entry or "")
    st["ueids"] = kept
    if not kept:
        st["seid_enabled"] = 1
        raise oserr(errno.EAGAIN, "system EID enabled")


def ueid_flush(st):
    """smc_nl_flush_ueid: always 0."""
    try:
        ueid_remove(st, None)
    except OSError as exc:
        if exc.errno not in (errno.ENOENT, errno.EAGAIN):
            raise


def system_eid(st):
    """smc_ism_create_system_eid: "IBM-SYSZ-ISMSEID00000000", the CPU identification's last 4 hex
    digits and the machine type; None while no ISM device is registered (not ISMv2 capable)."""
    if not smcd_devices(st):
        return None
    cpc = st["spec"].get("cpc") or {}
    mtype, _model = cio.MACHINES.get(str(cpc.get("machine") or "z16").lower(), cio.MACHINES["z16"])
    ident = int(cio._digest(cpc.get("name") or "ZLAB", mtype)[:4], 16)
    return "IBM-SYSZ-ISMSEID00000000%04X%s" % (ident, mtype)


def seid_show(st):
    """(system EID or None, enabled 0/1 or None)."""
    _need_smc(st)
    seid = system_eid(st)
    return (seid, st.setdefault("seid_enabled", 1)) if seid else (None, None)


def seid_set(st, enabled):
    _need_smc(st)
    if not enabled and not st.setdefault("ueids", []):
        raise oserr(errno.ENOENT, "no UEID defined")
    st["seid_enabled"] = 1 if enabled else 0


def smcd_devices(st):
    """ISM devices registered with SMC (ism driver bound and smc loaded)."""
    out = []
    if not smc_loaded(st):
        return out
    for key in sorted(st["pci"], key=int):
        ent = st["pci"][key]
        if ent["configured"] and not ent["removed"] and ent["driver"] == "ism":
            s = ent["spec"]
            user = [e["pnet_id"] for e in st["pnet"] if e.get("ib") == ent["addr"]]
            pnet = (s.get("pnet_ids") or [None])[0] or (user[0] if user else None)
            lgs = [lg for lg in st["linkgroups"]["SMCD"] if lg.get("device") == ent["addr"]]
            out.append(
                {
                    "fid": s["fid"],
                    "type": "ISM",
                    "pci_id": ent["addr"],
                    "pchid": s["pchid"],
                    "in_use": bool(lgs),
                    "lgs": len(lgs),
                    "pnet_id": pnet,
                    "pnet_user_set": bool(user and not s.get("pnet_ids")),
                    "vfn": s["vfn"],
                    "pft": s["pft"],
                }
            )
    return out


# ---------------------------------------------------------------------------------------------
# cio_ignore (/proc/cio_ignore, /proc/cio_settle)


def defer_errno(st, code):
    """A store that keeps its changes and still fails the write (the kernel applies the valid
    items of a cio_ignore list and returns EINVAL for the others)."""
    st["_deferred_errno"] = code


def ccw_registered(st):
    return {b: d for b, d in st["ccw"].items() if d.get("registered", True)}


def css_eval_free(st):
    """css_schedule_eval_cond(CSS_EVAL_NOT_ONLINE) after a free: every device no longer on the
    blacklist gets its subchannel and ccw device; udev loads the driver by modalias."""
    new = []
    for busid in sorted(st["ccw"]):
        dev = st["ccw"][busid]
        if not dev.get("registered", True) and not cio.is_blacklisted(st.get("cio_ignore"), cio.busid_key(busid)):
            dev.update(registered=True, online=0, group=None)
            new.append(dev)
    if not new:
        return
    if "qeth" not in (st.get("persist") or {}).get("blacklist", []) and not module_present(st, "qeth"):
        try:
            load_module(st, "qeth", explicit=False)
        except ModuleError:
            pass
    for dev in new:
        dev["driver"] = "qeth" if module_present(st, "qeth") else None


def ccw_purge(st):
    """ccw_purge_blacklisted(): unregister every offline device on the blacklist (its
    subchannel too); a group device loses its member and is removed (ccwgroup_remove_ccwdev)."""
    for busid in sorted(st["ccw"]):
        dev = st["ccw"][busid]
        if (
            not dev.get("registered", True)
            or dev["online"]
            or not cio.is_blacklisted(st.get("cio_ignore"), cio.busid_key(busid))
        ):
            continue
        gid = dev.get("group")
        if gid and gid in st["qeth"]:
            if st["qeth"][gid]["online"]:
                continue
            _ungroup(st, gid)
        dev["registered"] = False


def cio_ignore_store(st, data):
    """Write to /proc/cio_ignore: free/add LIST, purge; EINVAL for anything else and (after the
    valid items took effect) for a list with invalid items."""
    cmd, arg = cio.parse_write(data)
    if cmd is None:
        raise oserr(errno.EINVAL, "cio_ignore: not free, add or purge")
    if cmd == "purge":
        ccw_purge(st)
        return
    st["cio_ignore"], rc = cio.apply_list(st.get("cio_ignore"), arg, cmd)
    if cmd == "free":
        css_eval_free(st)
    if rc:
        defer_errno(st, rc)


def cio_settle_store(st, data):
    """Write to /proc/cio_settle: waits for pending css work (none: the emulated css evaluates
    synchronously)."""
    return None
