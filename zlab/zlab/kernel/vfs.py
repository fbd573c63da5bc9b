# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The emulated file trees (sysfs, /proc/sys/net, /proc/modules, osrelease) as nodes.

Tree paths (what the FUSE daemon serves under its mount point):
    /sys/...            the whole /sys (emulated subtrees + passthrough to the real sysfs)
    /proc_sys_net/...   /proc/sys/net (passthrough + emulated smc/, core/{r,w}mem_max)
    /proc_modules       /proc/modules
    /osrelease          /proc/sys/kernel/osrelease
    /proc/...           /proc: sysinfo, cio_ignore, cio_settle, cmdline, modules, and the real
                        procfs's entries as links (ProcRoot)
Host paths (/sys/..., /proc/sys/net/..., /proc/modules, /proc/sys/kernel/osrelease, other
/proc/NAME) are mapped onto these by :func:`tree_path`.

A tree is built from one state snapshot; ``show`` functions read that snapshot, ``store``
functions run inside a store.transaction on the fresh state and raise OSError(errno).
"""

import errno
import hashlib
import os
import stat

from .. import profiles
from . import cio, core, ebcdic
from .spec import NETWORK_EXPRESS, PCI_IDS

ATTR_SIZE = 4096


class Node:
    kind = "node"


class Dir(Node):
    kind = "dir"

    def __init__(self, entries=None, real=None, hide=None):
        self.entries = entries if entries is not None else {}
        self.real = real  # absolute host path merged below the emulated entries, or None
        self.hide = hide  # callable(name) -> bool for real entries to hide

    def _hidden(self, name):
        return bool(self.hide and self.hide(name))

    def child(self, name):
        node = self.entries.get(name)
        if node is not None:
            return node
        if self.real and not self._hidden(name):
            p = os.path.join(self.real, name)
            if os.path.lexists(p):
                return Real(p)
        return None

    def names(self):
        out = list(self.entries)
        if self.real:
            try:
                for n in os.listdir(self.real):
                    if n not in self.entries and not self._hidden(n):
                        out.append(n)
            except OSError:
                pass
        return out

    def typed_names(self):
        """[(name, S_IFMT bits)] of every entry: the d_type readdir reports (sysfs: DT_LNK for
        links, DT_DIR for directories, DT_REG for attributes)."""
        out = [(n, node_type(e)) for n, e in self.entries.items()]
        if self.real:
            out.extend(
                (n, t)
                for n, t in real_typed_names(self.real, quiet=True)
                if n not in self.entries and not self._hidden(n)
            )
        return out


class File(Node):
    kind = "file"

    def __init__(self, mode, show=None, store=None, size=ATTR_SIZE):
        self.mode = mode
        self.show = show  # callable(st) -> bytes/str
        self.store = store  # callable(st, data: bytes) -> None, raises OSError
        self.size = size

    def render(self, st):
        if self.show is None:
            raise core.oserr(errno.EACCES)
        out = self.show(st)
        if isinstance(out, str):
            out = out.encode("latin-1")
        return out


class Link(Node):
    kind = "link"

    def __init__(self, target):
        self.target = target


class Real(Node):
    kind = "real"

    def __init__(self, path):
        self.path = path


class SelfLink(Link):
    """/proc/self or /proc/thread-self: the target depends on the caller (procfs resolves it
    from the current task). ``target`` is the fallback when the caller is unknown."""

    def __init__(self, name, raw, links):
        Link.__init__(self, os.path.join(links, name))
        self.name = name
        self.raw = raw

    def target_for(self, tid):
        """'<tgid>' or '<tgid>/task/<tid>' of the thread ``tid`` (a pid of the host's pid
        namespace, as FUSE reports the caller)."""
        try:
            with open(os.path.join(self.raw, str(int(tid)), "status"), encoding="ascii", errors="replace") as f:
                for line in f:
                    if line.startswith("Tgid:"):
                        tgid = int(line.split()[1])
                        break
                else:
                    return self.target
        except (OSError, ValueError, TypeError):
            return self.target
        if not tid or not tgid:
            return self.target
        return str(tgid) if self.name == "self" else "%d/task/%d" % (tgid, int(tid))


class ProcRoot(Dir):
    """The host's /proc: the emulated files, and every entry of the real procfs ``raw`` as a
    symlink into ``links`` (``raw`` or another procfs of the same pid namespace), so that pid
    directories and their magic links (fd/N, exe, ns/*) stay the kernel's. Real symlinks
    (mounts -> self/mounts) are copied; self and thread-self resolve per caller. ``sys`` is an
    empty directory for the lab to mount the real /proc/sys on (procps' sysctl refuses a path
    whose realpath is not under /proc/sys/)."""

    MOUNTPOINTS = ("sys",)

    def __init__(self, entries, raw, links):
        if raw:
            entries = dict({n: Dir({}) for n in self.MOUNTPOINTS}, **entries)
        Dir.__init__(self, entries)
        self.raw = raw
        self.links = links or raw

    def child(self, name):
        node = self.entries.get(name)
        if node is not None or not self.raw or name in ("", ".", "..") or "/" in name:
            return node
        if name in ("self", "thread-self"):
            return SelfLink(name, self.raw, self.links)
        p = os.path.join(self.raw, name)
        if os.path.islink(p):
            try:
                return Link(os.readlink(p))
            except OSError:
                return None
        if os.path.lexists(p):
            return Link(os.path.join(self.links, name))
        return None

    def names(self):
        return [n for n, _t in self.typed_names()]

    def typed_names(self):
        out = [(n, node_type(e)) for n, e in self.entries.items()]
        if self.raw:
            try:
                out.extend((n, stat.S_IFLNK) for n in os.listdir(self.raw) if n not in self.entries)
            except OSError:
                pass
        return out


def node_type(node):
    """S_IFMT bits of a node (lstat of a passed-through real one)."""
    if isinstance(node, Dir):
        return stat.S_IFDIR
    if isinstance(node, Link):
        return stat.S_IFLNK
    if isinstance(node, File):
        return stat.S_IFREG
    try:
        return stat.S_IFMT(os.lstat(node.path).st_mode)
    except OSError:
        return 0


def real_typed_names(path, quiet=False):
    """[(name, S_IFMT bits)] of a real directory from its entries' d_type (lstat only where
    the file system gives DT_UNKNOWN). OSError unless ``quiet``."""
    out = []
    try:
        with os.scandir(path) as it:
            for e in it:
                try:
                    if e.is_symlink():
                        t = stat.S_IFLNK
                    elif e.is_dir(follow_symlinks=False):
                        t = stat.S_IFDIR
                    elif e.is_file(follow_symlinks=False):
                        t = stat.S_IFREG
                    else:
                        t = stat.S_IFMT(e.stat(follow_symlinks=False).st_mode)
                except OSError:
                    t = 0
                out.append((e.name, t))
    except OSError:
        if not quiet:
            raise
    return out


def ro(fn):
    return File(0o444, show=fn)


def rw(show, store):
    return File(0o644, show=show, store=store)


def wo(store):
    return File(0o200, store=store)


def const(text, mode=0o444):
    return File(mode, show=lambda st: text, store=(lambda st, d: None) if mode & 0o200 else None)


def _eio(*_args):
    raise core.oserr(errno.EIO)


def proc_file(mode, show=None, store=None):
    """A procfs file: opening it is allowed to root whatever the mode; a read without a read
    operation or a write without a write operation fails with EIO (pde_read/pde_write). Size 0,
    as procfs reports."""
    return File(mode, show=show or _eio, store=store or _eio, size=0)


def tree_path(host_path):
    """Map a host path to a tree path ('/sys/..' stays; '/proc/sys/net/..' -> '/proc_sys_net/..')."""
    p = "/" + host_path.strip("/")
    if p == "/sys" or p.startswith("/sys/"):
        return p
    if p == "/proc/sys/net" or p.startswith("/proc/sys/net/"):
        return "/proc_sys_net" + p[len("/proc/sys/net") :]
    if p == "/proc/modules":
        return "/proc_modules"
    if p == "/proc/sys/kernel/osrelease":
        return "/osrelease"
    return p


# ---------------------------------------------------------------------------------------------
# builders


class Builder:
    def __init__(self, view, st):
        self.view = view
        self.st = st
        self.real_sys = view.real_sys
        self.real_net = view.real_proc_sys_net

    def R(self, rel):
        if not self.real_sys:
            return None
        return os.path.join(self.real_sys, rel) if rel else self.real_sys

    def build(self):
        root = Dir(
            {
                "sys": self.sys_root(),
                "proc_sys_net": self.proc_sys_net(),
                "proc_modules": ro(self.show_proc_modules),
                "osrelease": ro(lambda st: core.profile_of(st)["osrelease"] + "\n"),
                "proc": self.proc_root(),
            }
        )
        return root

    # ---- /proc (the top level: the files an s390 kernel has and this machine's lacks) -------
    def proc_root(self):
        entries = {
            "sysinfo": proc_file(0o444, show=self.show_sysinfo),
            "cio_ignore": proc_file(
                0o644, show=lambda st: cio.render(st.get("cio_ignore")), store=core.cio_ignore_store
            ),
            "cio_settle": proc_file(0o200, store=core.cio_settle_store),
            "cmdline": proc_file(0o444, show=self.show_cmdline),
            "modules": proc_file(0o444, show=self.show_proc_modules),
        }
        return ProcRoot(entries, getattr(self.view, "real_proc", None), getattr(self.view, "proc_links", None))

    def show_sysinfo(self, st):
        cpus = None
        online = self.R("devices/system/cpu/online")
        if online:
            try:
                with open(online, encoding="ascii") as f:
                    cpus = cio.count_cpus(f.read())
            except OSError:
                cpus = None
        return cio.sysinfo(st["spec"], cpus or os.cpu_count() or 1)

    def show_cmdline(self, st):
        """The machine's command line, with the host's cio_ignore= (zlab_cio_ignore)."""
        text = ""
        raw = getattr(self.view, "real_proc", None)
        if raw:
            try:
                with open(os.path.join(raw, "cmdline"), encoding="latin-1") as f:
                    text = f.read().rstrip("\n")
            except OSError:
                text = ""
        if st["spec"].get("cio_ignore"):
            # a kernel parameter goes before "--" (what follows is init's)
            words = text.split(" ") if text else []
            at = words.index("--") if "--" in words else len(words)
            words.insert(at, "cio_ignore=" + st["spec"]["cio_ignore"])
            text = " ".join(words)
        return text + "\n"

    # ---- /sys ---------------------------------------------------------------------------
    def sys_root(self):
        st = self.st
        catalog = set(core.profile_of(st)["modules"])
        return Dir(
            {
                "bus": Dir(
                    {"ccw": self.bus_ccw(), "ccwgroup": self.bus_ccwgroup(), "pci": self.bus_pci()}, real=self.R("bus")
                ),
                "devices": Dir(self.devices(), real=self.R("devices"), hide=lambda n: n.startswith("pci")),
                "module": Dir(self.modules(), real=self.R("module"), hide=lambda n: n in catalog),
                "kernel": Dir({"iommu_groups": self.iommu_groups()}, real=self.R("kernel")),
                "class": Dir(self.classes(), real=self.R("class")),
            },
            real=self.R(""),
        )

    def _ccw_path(self, busid):
        return "css0/%s/%s" % (self.st["ccw"][busid]["schid"], busid)

    def bus_ccw(self):
        st = self.st
        present = core.ccw_registered(st)  # blacklisted (cio_ignore) devices are not there
        devs = {b: Link("../../../devices/" + self._ccw_path(b)) for b in present}
        drivers = {}
        if core.module_present(st, "qeth"):
            ent = {
                "bind": wo(_enodev),
                "unbind": wo(_enodev),
                "uevent": wo(_noop),
                "module": Link("../../../../module/qeth"),
            }
            for b, d in present.items():
                if d.get("driver") == "qeth":
                    ent[b] = Link("../../../../devices/" + self._ccw_path(b))
            drivers["qeth"] = Dir(ent)
        return _bus_dir(devs, drivers)

    def bus_ccwgroup(self):
        st = self.st
        devs = {g: Link("../../../devices/qeth/" + g) for g in st["qeth"]}
        drivers = {}
        if core.module_present(st, "qeth"):
            ent = {
                "group": wo(lambda s, d: core.qeth_group(s, d)),
                "bind": wo(_enodev),
                "unbind": wo(_enodev),
                "uevent": wo(_noop),
                "module": Link("../../../../module/qeth"),
            }
            for g in st["qeth"]:
                ent[g] = Link("../../../../devices/qeth/" + g)
            drivers["qeth"] = Dir(ent)
        return _bus_dir(devs, drivers)

    def bus_pci(self):
        st = self.st
        devs = {}
        for ent in st["pci"].values():
            if ent["configured"] and not ent["removed"]:
                devs[ent["addr"]] = Link("../../../devices/%s/%s" % (_root_bus(ent), ent["addr"]))
        drivers = {}
        for drv, (mod, _ids) in profiles.PCI_DRIVERS.items():
            if not core.driver_present(st, drv):
                continue
            d = {
                "bind": wo(lambda s, data, drv=drv: core.pci_bind(s, drv, data)),
                "unbind": wo(lambda s, data, drv=drv: core.pci_unbind(s, drv, data)),
                "new_id": wo(lambda s, data, drv=drv: core.pci_new_id(s, drv, data)),
                "remove_id": wo(lambda s, data, drv=drv: core.pci_remove_id(s, drv, data)),
                "uevent": wo(_noop),
                "module": Link("../../../../module/" + mod),
            }
            for ent in st["pci"].values():
                if ent["configured"] and not ent["removed"] and ent["driver"] == drv:
                    d[ent["addr"]] = Link("../../../../devices/%s/%s" % (_root_bus(ent), ent["addr"]))
            drivers[drv] = Dir(d)
        slots = {}
        for key, ent in st["pci"].items():
            if not ent.get("created", True):
                continue  # a VF its PF has not created: no slot
            fid = int(key)
            slots["%08x" % fid] = Dir(
                {
                    "power": rw(
                        lambda s, fid=fid: "%d\n" % (1 if s["pci"][str(fid)]["configured"] else 0),
                        lambda s, data, fid=fid: core.pci_store_power(s, fid, data),
                    ),
                    "address": ro(lambda s, fid=fid: _slot_address(s, fid)),
                }
            )
        return Dir(
            {
                "devices": Dir(devs),
                "drivers": Dir(drivers),
                "slots": Dir(slots),
                "drivers_autoprobe": const("1\n", 0o644),
                "drivers_probe": wo(lambda s, d: core.pci_drivers_probe(s, d)),
                "rescan": wo(lambda s, d: core.pci_rescan(s, d)),
                "resource_alignment": const("\n", 0o644),
                "uevent": wo(_noop),
            }
        )

    def devices(self):
        st = self.st
        out = {"css0": self.css0(), "qeth": self.qeth_root()}
        buses = {}
        for ent in st["pci"].values():
            if ent["configured"] and not ent["removed"]:
                # one root bus per domain; a PF's VFs sit on its bus
                buses.setdefault(_root_bus(ent), {"uevent": const("", 0o644)})[ent["addr"]] = self.pci_device(ent)
        for name, entries in buses.items():
            out[name] = Dir(entries)
        if dibs_loopback(st):
            out["virtual"] = Dir(
                {"dibs": Dir({DIBS_LO_NAME: self.dibs_device(DIBS_LO_NAME, None)})}, real=self.R("devices/virtual")
            )
        return out

    def classes(self):
        out = {"net": self.class_net(), "infiniband": self.class_infiniband()}
        if dibs_present(self.st):
            out["dibs"] = self.class_dibs()
        return out

    # ---- DIBS (drivers/dibs/dibs_main.c, dibs_loopback.c; drivers/s390/net/ism_drv.c) ------------
    def class_dibs(self):
        """/sys/class/dibs: ``ism<uid>`` -> the dibs child of the ISM PCI function, ``lo`` -> the
        virtual loopback device."""
        out = {}
        for ent in dibs_ism_functions(self.st):
            name = dibs_ism_name(ent)
            out[name] = Link("../../devices/%s/%s/dibs/%s" % (_root_bus(ent), ent["addr"], name))
        if dibs_loopback(self.st):
            out[DIBS_LO_NAME] = Link("../../devices/virtual/dibs/" + DIBS_LO_NAME)
        return Dir(out)

    def dibs_device(self, name, ent):
        """A dibs device: ``gid`` (%pUb of the 16-byte GID) and ``fabric_id`` (0x%04x) from
        dibs_main.c, ``device`` for an ISM function (its parent), ``subsystem`` the class."""
        if ent is None:
            out = {
                "gid": const(_uuid_text(dibs_lo_gid(self.st)) + "\n"),
                "fabric_id": const("0x%04x\n" % DIBS_LOOPBACK_FABRIC),
                "subsystem": Link("../../../../class/dibs"),
            }
        else:
            out = {
                "gid": const(_uuid_text(dibs_ism_gid(ent)) + "\n"),
                # ism_get_chid: the function's PCHID (the VCHID of the ISM network)
                "fabric_id": const("0x%04x\n" % ent["spec"]["pchid"]),
                "device": Link("../../../" + ent["addr"]),
                "subsystem": Link("../../../../../class/dibs"),
            }
        out["uevent"] = const("", 0o644)
        return Dir(out)

    def css0(self):
        st = self.st
        out = {"uevent": const("", 0o644)}
        chps = {}
        pnets = {}
        for busid, d in st["ccw"].items():
            chps[d["chpid"]] = d["chpid_type"]
            if d.get("pnet_id"):
                pnets[d["chpid"]] = d["pnet_id"]
        for chpid, ctype in chps.items():
            # util_string: the CHPID's PNET IDs from the IOCDS, EBCDIC, 16 bytes per port
            util = ebcdic.pnet_util_string([pnets[chpid]] if chpid in pnets else [])
            out["chp0.%s" % chpid.lower()] = Dir(
                {
                    "type": const("%s\n" % core.CHP_TYPE_CODE.get(ctype, "0")),
                    "status": const("online\n", 0o644),
                    "configure": const("1\n", 0o644),
                    "shared": const("1\n"),
                    "cmg": const("unknown\n"),
                    "chid": const("%04x\n" % int(chpid, 16)),
                    "chid_external": const("0\n"),
                    "util_string": File(0o444, show=lambda st, u=util: u, size=64),
                    "uevent": const("", 0o644),
                }
            )
        for busid, d in core.ccw_registered(st).items():
            cu, dt = core.CU_BY_TYPE[d["chpid_type"]]
            dev = {
                "online": rw(
                    lambda s, b=busid: "%d\n" % s["ccw"][b]["online"],
                    lambda s, data, b=busid: _ccw_online_store(s, b, data),
                ),
                "cutype": const(cu + "\n"),
                "devtype": const(dt + "\n"),
                "availability": const("good\n", 0o644),
                "modalias": const(
                    "ccw:t%sm%sdt%sdm%s\n" % (cu[:4].upper(), cu[5:].upper(), dt[:4].upper(), dt[5:].upper())
                ),
                "cmb_enable": const("0\n", 0o644),
                "uevent": const("CCW_DEVTYPE=%s\n" % dt, 0o644),
                "subsystem": Link("../../../../bus/ccw"),
            }
            if d.get("driver"):
                dev["driver"] = Link("../../../../bus/ccw/drivers/" + d["driver"])
            if d["group"]:
                dev["group_device"] = Link("../../../qeth/" + d["group"])
            devno = busid
            out[d["schid"]] = Dir(
                {
                    busid: Dir(dev),
                    "chpids": const("%s 00 00 00 00 00 00 00\n" % d["chpid"].lower()),
                    "pimpampom": const("80 80 ff\n"),
                    "type": const("0\n"),
                    "modalias": const("css:t0\n"),
                    "dev_busid": const(devno + "\n"),
                    "uevent": const("", 0o644),
                }
            )
        return Dir(out)

    def qeth_root(self):
        out = {"uevent": const("", 0o644)}
        for gid in self.st["qeth"]:
            out[gid] = self.qeth_device(gid)
        return Dir(out)

    def qeth_device(self, gid):
        st = self.st
        card = st["qeth"][gid]
        dev = st["ccw"][gid]
        view = self.view

        def attr(name, show):
            return rw(show, lambda s, data, n=name: core.qeth_store(s, gid, n, data))

        def c(s):
            return s["qeth"][gid]

        e = {
            "online": attr("online", lambda s: "%d\n" % c(s)["online"]),
            "state": ro(lambda s: core.card_state(s, gid, view.netdev_flags(s, gid)) + "\n"),
            "card_type": ro(lambda s: core.card_type_name(s, gid) + "\n"),
            "chpid": ro(lambda s: "%s\n" % s["ccw"][gid]["chpid"]),
            "if_name": ro(lambda s: core.card_ifname(s, gid) + "\n"),
            "buffer_count": attr("buffer_count", lambda s: "%d\n" % c(s)["buffer_count"]),
            "layer2": attr("layer2", lambda s: "%d\n" % c(s)["layer2"]),
            "portno": attr("portno", lambda s: "%d\n" % c(s)["portno"]),
            "portname": attr("portname", lambda s: "no portname required\n"),
            "priority_queueing": attr("priority_queueing", lambda s: c(s)["prio"] + "\n"),
            "isolation": attr("isolation", lambda s: c(s)["isolation"] + "\n"),
            "inbuf_size": ro(
                lambda s: (
                    core.INBUF_BY_FRAME[s["ccw"][gid]["frame_size"]] if s["ccw"][gid]["chpid_type"] == "IQD" else "64k"
                )
                + "\n"
            ),
            "hw_trap": attr("hw_trap", lambda s: c(s)["hw_trap"] + "\n"),
            "performance_stats": attr("performance_stats", lambda s: "1\n"),
            "recover": wo(lambda s, data: core.qeth_store(s, gid, "recover", data)),
            "switch_attrs": ro(lambda s: ("unknown\n" if c(s)["online"] else "n/a\n")),
            "ungroup": wo(lambda s, data: core.qeth_store(s, gid, "ungroup", data)),
            "uevent": const("DRIVER=qeth\n", 0o644),
            "subsystem": Link("../../../bus/ccwgroup"),
            "driver": Link("../../../bus/ccwgroup/drivers/qeth"),
            "blkt": Dir(
                {
                    k: attr("blkt/" + k, lambda s, k=k: "%d\n" % c(s)["blkt"][k])
                    for k in ("total", "inter", "inter_jumbo")
                }
            ),
        }
        for i, b in enumerate(card["cdevs"]):
            e["cdev%d" % i] = Link("../../css0/%s/%s" % (st["ccw"][b]["schid"], b))
        if card["layer2"] == 1:

            def bstate(s):
                role = c(s)["bridge_role"]
                if role == "none" or not c(s)["online"]:
                    return "inactive\n"
                return ("active" if role == "primary" else "standby") + "\n"

            e.update(
                {
                    "bridge_role": attr("bridge_role", lambda s: c(s)["bridge_role"] + "\n"),
                    "bridge_state": ro(bstate),
                    "bridge_hostnotify": attr("bridge_hostnotify", lambda s: "%d\n" % c(s)["bridge_hostnotify"]),
                    "bridge_reflect_promisc": attr(
                        "bridge_reflect_promisc", lambda s: c(s)["bridge_reflect_promisc"] + "\n"
                    ),
                }
            )

            def vshow(s, k):
                if s["ccw"][gid]["chpid_type"] != "IQD":
                    return "n/a\n"
                if c(s)["bridge_role"] != "none":
                    return "n/a (BridgePort)\n"
                return "%d\n" % c(s)["vnicc"][k]

            e["vnicc"] = Dir({k: attr("vnicc/" + k, lambda s, k=k: vshow(s, k)) for k in core.VNICC_DEFAULTS})
        elif card["layer2"] == 0:
            e.update(
                {
                    "route4": attr("route4", lambda s: c(s)["route4"] + "\n"),
                    "route6": attr("route6", lambda s: c(s)["route6"] + "\n"),
                    "fake_broadcast": const("0\n", 0o644),
                }
            )
            if dev["chpid_type"] == "IQD":
                e["sniffer"] = attr("sniffer", lambda s: "%d\n" % c(s)["sniffer"])
                e["hsuid"] = attr("hsuid", lambda s: c(s)["hsuid"] + "\n")
        if card["online"]:
            ifn = core.ifname_for(gid)
            e["net"] = Dir({ifn: self.netdev_dir(gid, ifn)})
        return Dir(e)

    def netdev_dir(self, gid, ifn):
        real = self.R("class/net/" + ifn)
        if real and os.path.exists(real):
            return Dir({"device": Link("../../../" + gid)}, real=os.path.realpath(real))
        st = self.st
        card = st["qeth"][gid]
        dev = st["ccw"][gid]
        mtu = core.MTU_BY_FRAME[dev["frame_size"]] if dev["chpid_type"] == "IQD" else 1500
        devno = int(gid.split(".")[2], 16)
        mac = (
            "02:00:00:%02x:%02x:%02x" % ((devno >> 16) & 0xFF, (devno >> 8) & 0xFF, devno & 0xFF)
            if card["layer2"] == 1
            else "00:00:00:00:00:00"
        )
        return Dir(
            {
                "device": Link("../../../" + gid),
                "mtu": const("%d\n" % mtu, 0o644),
                "address": const(mac + "\n"),
                "operstate": const("down\n"),
                "flags": const("0x1002\n" if card["layer2"] == 1 else "0x1082\n", 0o644),
                "type": const("1\n"),
                "dev_port": const("%d\n" % card["portno"]),
                "subsystem": Link("../../../../../class/net"),
            }
        )

    def class_net(self):
        out = {}
        for gid, card in self.st["qeth"].items():
            if card["online"]:
                ifn = core.ifname_for(gid)
                real = self.R("class/net/" + ifn)
                if real and os.path.lexists(real):
                    out[ifn] = Link("../../devices/qeth/%s/net/%s" % (gid, ifn))
        for ent in core.rdma_functions(self.st):
            for ifn, _port in core.roce_netdevs(self.st, ent):
                out[ifn] = Link("../../devices/%s/%s/net/%s" % (_root_bus(ent), ent["addr"], ifn))
        return Dir(out, real=self.R("class/net"))

    def class_infiniband(self):
        """/sys/class/infiniband: the RDMA devices of the bound RoCE functions (nothing of the
        machine's shows through)."""
        out = {}
        for ent in core.rdma_functions(self.st):
            out[ent["ibdev"]] = Link("../../devices/%s/%s/infiniband/%s" % (_root_bus(ent), ent["addr"], ent["ibdev"]))
        return Dir(out)

    def roce_netdev_dir(self, ent, ifn, dev_port):
        """A RoCE or Network Express Ethernet netdev. A Network Express one has a real link (the
        pcinet hooks): its attributes (flags, address, operstate) are that link's; a RoCE one is
        sysfs only (no real netdev stands behind it)."""
        s = ent["spec"]
        own = {
            "device": Link("../../../" + ent["addr"]),
            "subsystem": Link("../../../../../class/net"),
            "dev_port": const("%d\n" % dev_port),
        }
        real = self.R("class/net/" + ifn) if s["type"] in NETWORK_EXPRESS else None
        if real and os.path.exists(real):
            return Dir(own, real=os.path.realpath(real))
        own.update(
            {
                "dev_id": const("0x0\n"),
                "address": const(core.netdev_mac(s, dev_port) + "\n"),
                "broadcast": const("ff:ff:ff:ff:ff:ff\n"),
                "mtu": const("1500\n", 0o644),
                "type": const("1\n"),
                "operstate": const("up\n"),
                "carrier": const("1\n"),
                "flags": const("0x1003\n", 0o644),
                "uevent": const("INTERFACE=%s\n" % ifn, 0o644),
            }
        )
        return Dir(own)

    def roce_ib_dir(self, ent):
        """/sys/.../<PCI address>/infiniband/<mlx4_N|mlx5_N>: the function's RDMA device, its
        ports numbered from 1, each a RoCE port (link layer Ethernet) over the port's netdev."""
        s = ent["spec"]
        ports = {}
        for ifn, dev_port in core.roce_netdevs(self.st, ent):
            mac = core.netdev_mac(s, dev_port)
            ports["%d" % (dev_port + 1)] = Dir(
                {
                    "state": const("%d: ACTIVE\n" % core.IB_PORT_ACTIVE),
                    "phys_state": const("5: LinkUp\n"),
                    "link_layer": const("Ethernet\n"),
                    "lid": const("0x0\n"),
                    "sm_lid": const("0x0\n"),
                    "gids": Dir({"0": const(_link_local_gid(mac) + "\n")}),
                    "gid_attrs": Dir(
                        {
                            "ndevs": Dir({"0": const(ifn + "\n")}),
                            "types": Dir({"0": const("IB/RoCE v1\n")}),
                        }
                    ),
                }
            )
        return Dir(
            {
                "device": Link("../../../" + ent["addr"]),
                "subsystem": Link("../../../../../class/infiniband"),
                "node_type": const("1: CA\n"),
                "node_guid": const(_guid(s) + "\n"),
                "sys_image_guid": const(_guid(s) + "\n"),
                "fw_ver": const(core.FW_VERSION.get(s["type"], "") + "\n"),
                "hca_type": const("MT%d\n" % s["device"]),
                "ports": Dir(ports),
                "uevent": const("NAME=%s\n" % ent["ibdev"], 0o644),
            }
        )

    def pci_device(self, ent):
        s = ent["spec"]
        fid = s["fid"]
        key = str(fid)

        def E(st):
            return st["pci"][key]

        cls = 0x020000 if s["type"] != "ism" else 0x000000
        util = ebcdic.pnet_util_string(s.get("pnet_ids"))
        out = {
            "vendor": const("0x%04x\n" % s["vendor"]),
            "device": const("0x%04x\n" % s["device"]),
            "subsystem_vendor": const("0x%04x\n" % s["vendor"]),
            "subsystem_device": const("0x%04x\n" % s["device"]),
            "class": const("0x%06x\n" % cls),
            "revision": const("0x00\n"),
            "irq": const("0\n"),
            "msi_bus": const("1\n", 0o644),
            # pci_enable_device: by the host drivers at probe; by vfio-pci only while a user
            # (QEMU) has the device open (vfio_pci_core_enable/disable)
            "enable": rw(
                lambda st: "%d\n"
                % (
                    1
                    if E(st)["driver"] in ("ism", "mlx5_core", "mlx4_core")
                    or (E(st)["driver"] == "vfio-pci" and E(st).get("held_by"))
                    else 0
                ),
                lambda st, d: None,
            ),
            "modalias": const(
                "pci:v%08Xd%08Xsv%08Xsd%08Xbc%02Xsc%02Xi%02X\n"
                % (s["vendor"], s["device"], s["vendor"], s["device"], cls >> 16, (cls >> 8) & 0xFF, cls & 0xFF)
            ),
            "resource": const("0x0000000000000000 0x0000000000000000 0x0000000000000000\n"),
            "config": File(0o644, show=lambda st: _config_space(s, cls), store=lambda st, d: None, size=256),
            "driver_override": rw(
                lambda st: "%s\n" % (E(st)["driver_override"] or "(null)"),
                lambda st, d: core.pci_store_override(st, E(st), d),
            ),
            "remove": wo(lambda st, d: core.pci_remove(st, E(st), d)),
            "rescan": wo(lambda st, d: core.pci_rescan(st, d)),
            "uevent": const(
                "DRIVER=%s\nPCI_CLASS=%X\nPCI_ID=%04X:%04X\nPCI_SLOT_NAME=%s\n"
                % (ent["driver"] or "", cls, s["vendor"], s["device"], ent["addr"]),
                0o644,
            ),
            "function_id": const("0x%08x\n" % fid),
            "function_handle": ro(lambda st: "0x%08x\n" % E(st)["fh"]),
            "pchid": const("0x%04x\n" % s["pchid"]),
            "pfgid": const("0x%02x\n" % s["pfgid"]),
            "vfn": const("0x%04x\n" % s["vfn"]),
            "pft": const("0x%02x\n" % s["pft"]),
            "port": const("%d\n" % s["port"]),
            "uid": const("0x%x\n" % s["uid"]),
            "uid_is_unique": ro(
                lambda st: "%d\n" % (1 if st["spec"].get("uid_checking") or st["spec"].get("role") == "guest" else 0)
            ),
            "mio_enabled": const("%d\n" % (0 if s["type"] == "ism" else 1)),
            "util_string": File(0o444, show=lambda st: util, size=64),
            "recover": wo(_noop),
            "report_error": wo(_noop),
            "segment0": const("0x00\n"),
            "segment1": const("0x00\n"),
            "segment2": const("0x00\n"),
            "segment3": const("0x00\n"),
            "subsystem": Link("../../../bus/pci"),
            "iommu_group": Link("../../../kernel/iommu_groups/%d" % ent["iommu_group"]),
        }
        if core.uid_is_unique(self.st):
            # zpci_index_show: the UID, only where it is unique (systemd names eno<index> from it)
            out["index"] = const("%d\n" % s["uid"])
        if core.shows_fidparm(self.st):
            out["fidparm"] = const("0x%02x\n" % s.get("fidparm", 0))
        out.update(self.sriov_attrs(ent))
        if ent["driver"]:
            out["driver"] = Link("../../../bus/pci/drivers/" + ent["driver"])
        if ent["driver"] == "ism" and dibs_present(self.st):
            out["dibs"] = Dir({dibs_ism_name(ent): self.dibs_device(dibs_ism_name(ent), ent)})
        if ent["driver"] in core.RDMA_DRIVERS and ent.get("ibdev"):
            out["net"] = Dir(
                {ifn: self.roce_netdev_dir(ent, ifn, port) for ifn, port in core.roce_netdevs(self.st, ent)}
            )
            out["infiniband"] = Dir({ent["ibdev"]: self.roce_ib_dir(ent)})
        return Dir(out)

    def sriov_attrs(self, ent):
        """A NETD PF's SR-IOV attributes and virtfnN links; a VF's physfn link to its PF here."""
        s = ent["spec"]
        key = str(s["fid"])
        out = {}
        pf = core.parent_pf(self.st, ent)
        if pf is not None:
            out["physfn"] = Link("../" + pf["addr"])
        if s.get("sriov_totalvfs") is None:
            return out

        def E(st):
            return st["pci"][key]

        out.update(
            {
                "sriov_totalvfs": const("%d\n" % s["sriov_totalvfs"]),
                "sriov_numvfs": rw(
                    lambda st: "%d\n" % E(st)["sriov_numvfs"], lambda st, d: core.pci_store_numvfs(st, E(st), d)
                ),
                "sriov_drivers_autoprobe": rw(
                    lambda st: "%d\n" % (1 if E(st)["sriov_autoprobe"] else 0),
                    lambda st, d: core.pci_store_autoprobe(st, E(st), d),
                ),
                "sriov_vf_device": const("%x\n" % PCI_IDS["netd"][1]),
            }
        )
        for vf in core.vfs_of(self.st, ent):
            if vf["configured"] and not vf["removed"]:
                out["virtfn%d" % (vf["spec"]["vfn"] - 1)] = Link("../" + vf["addr"])
        return out

    def iommu_groups(self):
        out = {}
        for ent in self.st["pci"].values():
            if ent["configured"] and not ent["removed"] and ent["iommu_group"] is not None:
                out[str(ent["iommu_group"])] = Dir(
                    {
                        "devices": Dir(
                            {ent["addr"]: Link("../../../../devices/%s/%s" % (_root_bus(ent), ent["addr"]))}
                        ),
                        "type": const("DMA\n"),
                        "reserved_regions": const(""),
                    }
                )
        return Dir(out)

    def modules(self):
        st = self.st
        cat = core.profile_of(st)["modules"]
        out = {}
        loaded = {m["name"]: m for m in st["modules"]}
        names = [n for n, m in cat.items() if m["builtin"]] + list(loaded)
        for name in names:
            info = cat[name]
            e = {"uevent": const("", 0o200)}
            params = dict(info["params"])
            if name in loaded:
                params.update(loaded[name].get("params") or {})
                holders = [m for m in loaded if name in cat[m]["deps"]]
                e.update(
                    {
                        "initstate": const("live\n"),
                        "refcnt": const("%d\n" % len(holders)),
                        "coresize": const("%d\n" % loaded[name].get("size", 0)),
                        "taint": const("\n"),
                        "holders": Dir({h: Link("../../" + h) for h in holders}),
                    }
                )
            if params:
                e["parameters"] = Dir({k: const("%s\n" % v) for k, v in params.items()})
            drivers = {}
            for drv in info["pci_drivers"]:
                if core.driver_present(st, drv):
                    drivers["pci:" + drv] = Link("../../../bus/pci/drivers/" + drv)
            for drv in info["ccwgroup_drivers"]:
                drivers["ccwgroup:" + drv] = Link("../../../bus/ccwgroup/drivers/" + drv)
            for drv in info["ccw_drivers"]:
                drivers["ccw:" + drv] = Link("../../../bus/ccw/drivers/" + drv)
            if drivers:
                e["drivers"] = Dir(drivers)
            out[name] = Dir(e)
        return out

    # ---- /proc ----------------------------------------------------------------------------
    def proc_sys_net(self):
        st = self.st
        entries = {}
        keys = core.profile_of(st)["smc_sysctls"]
        if st.get("smc_sysctl") is not None and keys:
            entries["smc"] = Dir(
                {
                    k: rw(lambda s, k=k: _sysctl_show(s, k), lambda s, data, k=k: smc_sysctl_store(s, k, data))
                    for k in keys
                }
            )
        # net.core.{r,w}mem_max are global sysctls of the LPAR's kernel (a child netns has a
        # read-only copy of the build machine's)
        entries["core"] = Dir(
            {
                k: rw(
                    lambda s, k=k: "%d\n" % core_sysctl_value(s, k), lambda s, data, k=k: core_sysctl_store(s, k, data)
                )
                for k in CORE_SYSCTL_MIN
            },
            real=self.real_net and os.path.join(self.real_net, "core"),
        )
        return Dir(entries, real=self.real_net, hide=lambda n: n == "smc")

    def show_proc_modules(self, st):
        lines = []
        for m in core.modules_loaded(st):
            holders = "".join(h + "," for h in m["holders"]) or "-"
            lines.append("%s %d %d %s Live 0x0000000000000000\n" % (m["name"], m["size"], m["refcnt"], holders))
        return "".join(lines)


def _root_bus(ent):
    return "pci%04x:00" % ent["domain"]


# DIBS (Linux 6.18+): include/linux/dibs.h DIBS_LOOPBACK_FABRIC; dibs_loopback.c names its device "lo";
# ism_drv.c names an ISM function's dibs device "ism%x" of the zPCI UID, or of the FID when the UID is 0.
DIBS_LOOPBACK_FABRIC = 0xFFFF
DIBS_LO_NAME = "lo"


def dibs_present(st):
    return bool(core.profile_of(st).get("dibs")) and core.module_present(st, "dibs")


def dibs_loopback(st):
    """CONFIG_DIBS_LO: dibs_init creates the loopback device (the profiles with DIBS have it)."""
    return dibs_present(st)


def dibs_ism_functions(st):
    """ISM functions the ism driver has bound: each is a dibs device (ism_probe -> dibs_dev_add)."""
    return [
        st["pci"][k]
        for k in sorted(st["pci"], key=int)
        if st["pci"][k]["configured"] and not st["pci"][k]["removed"] and st["pci"][k]["driver"] == "ism"
    ]


def dibs_ism_name(ent):
    s = ent["spec"]
    return "ism%x" % (s["uid"] or s["fid"])


def dibs_ism_gid(ent):
    """ism_read_local_gid copies the 8-byte ISM GID into the zeroed 16-byte dibs GID. The lab's
    ISM GID: a stable value of the function's PCHID (its ISM network) and FID."""
    s = ent["spec"]
    return ((0x4000 | (s["pchid"] & 0xFFF)) << 48 | (s["fid"] & 0xFFFFFFFF)).to_bytes(8, "big") + bytes(8)


def dibs_lo_gid(st):
    """uuid_gen at dibs_init: random per boot; the lab's is stable per host (a version 4 UUID)."""
    raw = bytearray(hashlib.sha256(("dibs-lo:" + str(st["spec"].get("name", ""))).encode()).digest()[:16])
    raw[6] = (raw[6] & 0x0F) | 0x40
    raw[8] = (raw[8] & 0x3F) | 0x80
    return bytes(raw)


def _uuid_text(raw):
    """%pUb: the 16 bytes in order, 8-4-4-4-12 lowercase hex."""
    h = raw.hex()
    return "%s-%s-%s-%s-%s" % (h[0:8], h[8:12], h[12:16], h[16:20], h[20:32])


def _link_local_gid(mac):
    """The RoCE GID of index 0: fe80::/64 with the EUI-64 of the port's MAC."""
    b = [int(x, 16) for x in mac.split(":")]
    eui = [b[0] ^ 0x02, b[1], b[2], 0xFF, 0xFE, b[3], b[4], b[5]]
    words = ["fe80", "0000", "0000", "0000"] + ["%02x%02x" % (eui[i], eui[i + 1]) for i in range(0, 8, 2)]
    return ":".join(words)


def _guid(s):
    v = (0x0202 << 48) | ((s["pchid"] & 0xFFFF) << 32) | (s["fid"] & 0xFFFFFFFF)
    return ":".join("%04x" % ((v >> sh) & 0xFFFF) for sh in (48, 32, 16, 0))


def _slot_address(st, fid):
    ent = st["pci"][str(fid)]
    if ent["configured"]:
        return "%s\n" % ent["addr"].rsplit(".", 1)[0]
    dom = ent["spec"]["uid"] if (st["spec"].get("uid_checking") or st["spec"].get("role") == "guest") else 0
    return "%04x:00:00\n" % dom


def _config_space(s, cls):
    b = bytearray(256)
    b[0:2] = s["vendor"].to_bytes(2, "little")
    b[2:4] = s["device"].to_bytes(2, "little")
    b[9:12] = cls.to_bytes(3, "little")
    b[0x2C:0x2E] = s["vendor"].to_bytes(2, "little")
    b[0x2E:0x30] = s["device"].to_bytes(2, "little")
    return bytes(b)


def _noop(st, data):
    return None


def _bus_dir(devs, drivers):
    """A /sys/bus/<bus> directory: its devices and drivers, autoprobe on."""
    return Dir(
        {
            "devices": Dir(devs),
            "drivers": Dir(drivers),
            "drivers_autoprobe": const("1\n", 0o644),
            "drivers_probe": wo(_noop),
            "uevent": wo(_noop),
        }
    )


def _enodev(st, data):
    raise core.oserr(errno.ENODEV)


def _ccw_online_store(st, busid, data):
    dev = st["ccw"][busid]
    val = core.kstrtouint(data, 0, 64) if not core._strip(data).startswith("force") else 1
    if dev["group"]:
        raise core.oserr(errno.EINVAL, "member of a group device")
    if val not in (0, 1):
        raise core.oserr(errno.EINVAL)
    dev["online"] = val


# ---- net.smc sysctls (proc_do*vec semantics) --------------------------------------------------


def _sysctl_show(st, key):
    if st.get("smc_sysctl") is None or key not in st["smc_sysctl"]:
        raise core.oserr(errno.ENOENT)
    value = st["smc_sysctl"][key]
    if isinstance(value, str):
        return value + "\n"
    return "%d\n" % int(value)


def _parse_long(text):
    """proc_get_long: skip whitespace, optional '-', decimal digits; returns (value, rest)."""
    s = text.lstrip(" \t\n")
    neg = s.startswith("-")
    if neg:
        s = s[1:]
    i = 0
    while i < len(s) and s[i].isdigit():
        i += 1
    if i == 0:
        raise core.oserr(errno.EINVAL)
    if i > 21:
        raise core.oserr(errno.EINVAL)
    val = int(s[:i])
    rest = s[i:]
    if rest and rest[0] not in " \t\n":
        raise core.oserr(errno.EINVAL)
    return (-val if neg else val), rest


# proc_dointvec_minmax, min SOCK_MIN_RCVBUF / SOCK_MIN_SNDBUF: 2048 + SKB_DATA_ALIGN(sizeof(struct
# sk_buff)) and twice that (256-byte cache lines on s390x); boot value from the profile
CORE_SYSCTL_MIN = {"rmem_max": 2304, "wmem_max": 4608}


def core_sysctl_value(st, key):
    val = (st.get("core_sysctl") or {}).get(key)
    if val is None:
        val = core.profile_of(st)["sysctls"]["net.core." + key]
    return int(val)


def core_sysctl_store(st, key, data):
    text = data.decode("latin-1") if isinstance(data, bytes) else str(data)
    if not text.strip(" \t\n"):
        return
    val, rest = _parse_long(text)
    if rest.strip(" \t\n") or val < CORE_SYSCTL_MIN[key] or val > profiles.INT_MAX:
        raise core.oserr(errno.EINVAL)
    st.setdefault("core_sysctl", {})[key] = val


def smc_sysctl_store(st, key, data):
    if st.get("smc_sysctl") is None:
        raise core.oserr(errno.ENOENT)
    kind, lo, hi, _default = core.profile_of(st)["smc_sysctls"][key]
    text = data.decode("latin-1") if isinstance(data, bytes) else str(data)
    if kind == "string":
        # proc_dostring keeps what precedes the first newline (at most maxlen - 1 bytes); then
        # proc_smc_hs_ctrl: empty clears, a name no BPF smc_hs_ctrl registered is EINVAL (the lab
        # has no BPF programs registered)
        name = text.split("\n", 1)[0].split("\0", 1)[0][:hi]
        if name:
            raise core.oserr(errno.EINVAL)
        st["smc_sysctl"][key] = ""
        return
    if not text.strip(" \t\n"):
        return
    val, rest = _parse_long(text)
    if rest.strip(" \t\n"):
        raise core.oserr(errno.EINVAL)
    if kind == "uint":
        if val < 0 or val > profiles.UINT_MAX:
            raise core.oserr(errno.EINVAL)
    elif kind == "jiffies":
        if abs(val) > profiles.INT_MAX // 100:
            raise core.oserr(errno.EINVAL)
    elif kind in ("int", "bool"):
        if val < -profiles.INT_MAX - 1 or val > profiles.INT_MAX:
            raise core.oserr(errno.EINVAL)
    if kind != "jiffies" and (val < lo or val > hi):
        raise core.oserr(errno.EINVAL)
    st["smc_sysctl"][key] = val
