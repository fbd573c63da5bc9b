# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""apply_persistent: what udev/systemd do at boot from the files under a host root.

Order (as on a systemd host): modprobe.d (blacklists, options) -> modules-load.d ->
sysctl.d/sysctl.conf (net.smc.* only reach the kernel if smc is loaded by then) -> udev coldplug
of subsystems (RUN programs of ``SUBSYSTEM=="subsystem"`` rules: chzdev's 41-cio-ignore.rules
frees devices from the cio_ignore blacklist on the ccw bus's add event) -> udev coldplug
of CCW devices (chzdev's 41-qeth-*.rules: group, attributes, online) -> tmpfiles.d ``w`` lines
for /sys (e.g. slot power) -> PCI rules (ATTR{driver_override} and their RUN programs, see
udevrun.py) and driverctl's /etc/driverctl.d are kept in the state and applied whenever a PCI
function is added; ATTR{sriov_*} assignments of ACTION=="bind" rules whenever a driver binds one.
"""

import errno
import glob
import os
import re

from . import core, hooks, store, udevrun

_UDEV_DIRS = ("etc/udev/rules.d", "run/udev/rules.d", "usr/lib/udev/rules.d", "lib/udev/rules.d")
_SYSCTL_DIRS = ("etc/sysctl.d", "run/sysctl.d", "usr/local/lib/sysctl.d", "usr/lib/sysctl.d", "lib/sysctl.d")
_MODLOAD_DIRS = (
    "etc/modules-load.d",
    "run/modules-load.d",
    "usr/local/lib/modules-load.d",
    "usr/lib/modules-load.d",
    "lib/modules-load.d",
)
_MODPROBE_DIRS = (
    "etc/modprobe.d",
    "run/modprobe.d",
    "usr/local/lib/modprobe.d",
    "usr/lib/modprobe.d",
    "lib/modprobe.d",
)
_TMPFILES_DIRS = ("etc/tmpfiles.d", "run/tmpfiles.d", "usr/lib/tmpfiles.d")
SRIOV_ATTRS = ("sriov_drivers_autoprobe", "sriov_numvfs")


def _collect(root, dirs, suffix):
    """systemd conf-file semantics: same file name in an earlier dir overrides later ones;
    processed in lexical order of the file name."""
    chosen = {}
    for d in dirs:
        for p in glob.glob(os.path.join(root, d, "*" + suffix)):
            name = os.path.basename(p)
            if name not in chosen:
                chosen[name] = p
    out = []
    for name in sorted(chosen):
        p = chosen[name]
        try:
            if os.path.realpath(p) == "/dev/null" or os.path.getsize(p) == 0:
                continue
        except OSError:
            continue
        out.append(p)
    return out


def _lines(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return []
    text = text.replace("\\\n", "")
    return text.splitlines()


def parse_modprobe(root):
    blacklist, options = [], {}
    for p in _collect(root, _MODPROBE_DIRS, ".conf"):
        for line in _lines(p):
            line = line.split("#", 1)[0].strip()
            toks = line.split()
            if len(toks) >= 2 and toks[0] == "blacklist":
                blacklist.append(toks[1].replace("-", "_"))
            elif len(toks) >= 3 and toks[0] == "options":
                mod = toks[1].replace("-", "_")
                options[mod] = (options.get(mod, "") + " " + " ".join(toks[2:])).strip()
    return blacklist, options


def parse_modules_load(root):
    mods = []
    for p in _collect(root, _MODLOAD_DIRS, ".conf"):
        for line in _lines(p):
            line = line.strip()
            if not line or line[0] in "#;":
                continue
            mods.append(line.split()[0])
    return mods


def parse_sysctl(root):
    """[(key, value, ignore_errors)] in application order (sysctl.d then /etc/sysctl.conf)."""
    files = _collect(root, _SYSCTL_DIRS, ".conf")
    conf = os.path.join(root, "etc/sysctl.conf")
    if os.path.isfile(conf) and not any(os.path.realpath(f) == os.path.realpath(conf) for f in files):
        files.append(conf)
    out = []
    for p in files:
        for line in _lines(p):
            line = line.strip()
            if not line or line[0] in "#;" or "=" not in line:
                continue
            key, val = line.split("=", 1)
            key = key.strip()
            ignore = key.startswith("-")
            key = key.lstrip("-").replace("/", ".")
            out.append((key, val.strip(), ignore))
    return out


_KV = re.compile(r'(\w+)(\{[^}]*\})?\s*(==|!=|\+=|-=|:=|=)\s*"((?:[^"\\]|\\.)*)"')


def parse_udev_line(line):
    line = line.strip()
    if not line or line.startswith("#"):
        return None
    return [(k, (a or "")[1:-1] if a else None, op, v) for k, a, op, v in _KV.findall(line)]


def udev_rules(root):
    files = _collect(root, _UDEV_DIRS, ".rules")
    out = []
    for p in files:
        for line in _lines(p):
            toks = parse_udev_line(line)
            if toks:
                out.append((p, toks))
    return out


def parse_driverctl(root):
    out = {}
    for p in sorted(glob.glob(os.path.join(root, "etc/driverctl.d", "pci-*"))):
        name = os.path.basename(p)[4:]
        lines = [x.strip() for x in _lines(p) if x.strip()]
        if lines:
            out[name] = lines[0]
    return out


def parse_tmpfiles_writes(root):
    out = []
    for p in _collect(root, _TMPFILES_DIRS, ".conf"):
        for line in _lines(p):
            toks = line.split(None, 6)
            if len(toks) >= 7 and toks[0] in ("w", "w+") and toks[1].startswith("/sys/"):
                out.append((toks[1], toks[6]))
    return out


def apply(view, root):
    """Apply persistent configuration under ``root``; returns (non_emulated_sysctls, log).
    Runs in the caller's process: writes go through ``view`` (so errnos, faults and hooks behave
    as for any writer)."""
    log = []
    st_dir = view.state_dir
    blacklist, options = parse_modprobe(root)
    rules = udev_rules(root)
    pci_rules = []
    for path, toks in rules:
        assigns = [(a, v) for k, a, op, v in toks if k == "ATTR" and op in ("=", ":=") and a == "driver_override"]
        # a PF's VFs, written on the bind event of its driver (in rule order)
        sriov = [(a, v) for k, a, op, v in toks if k == "ATTR" and op in ("=", ":=") and a in SRIOV_ATTRS]
        # RUN programs (not RUN{builtin}); udev runs them after all rules of the event
        runs = [(op, v) for k, a, op, v in toks if k == "RUN" and op in ("=", "+=", ":=") and a in (None, "program")]
        subs = [v for k, _a, op, v in toks if k == "SUBSYSTEM" and op == "=="]
        is_pci = bool(subs) and "pci" in subs[0].split("|")
        if (assigns and (not subs or is_pci)) or ((runs or sriov) and is_pci):
            match = {}
            for k, a, op, v in toks:
                if op != "==":
                    continue
                if k in ("KERNEL", "ACTION", "DRIVER"):
                    match[k] = v
                elif k in ("ATTR", "ATTRS") and a:
                    match[a] = v
            rule = {"match": match, "run": runs, "file": os.path.relpath(path, root)}
            if assigns:
                rule["driver_override"] = assigns[-1][1]
            if sriov:
                rule["assign"] = sriov
            pci_rules.append(rule)
    with store.transaction(st_dir) as st:
        st["persist"] = {
            "blacklist": blacklist,
            "options": options,
            "pci_rules": pci_rules,
            "driverctl": parse_driverctl(root),
            "skipped": [],
        }
    other = []
    # modules-load.d
    for mod in parse_modules_load(root):
        try:
            with hooks.transaction(st_dir) as st:
                core.load_module(st, mod, explicit=True)
        except core.ModuleError as exc:
            log.append("modules-load: %s: %s" % (mod, exc.reason))
    view.invalidate()
    # sysctl
    for key, val, ignore in parse_sysctl(root):
        if key.startswith("net.smc."):
            path = "/proc/sys/net/smc/" + key[len("net.smc.") :]
            try:
                view.write(path, (val + "\n").encode())
            except OSError as exc:
                if not ignore:
                    log.append("sysctl %s=%s: %s" % (key, val, os.strerror(exc.errno or errno.EIO)))
        elif key == "kernel.osrelease":
            log.append("sysctl %s: read-only" % key)
        else:
            other.append((key, val))
    # udev coldplug of the subsystems (udevadm trigger --type=subsystems), before the devices
    with hooks.transaction(st_dir) as st:
        for path, toks in rules:
            for name in _subsystem_event(toks, ("ccw",)):
                for k, a, op, val in toks:
                    if k != "RUN" or op not in ("=", "+=", ":=") or a not in (None, "program"):
                        continue
                    status, msgs = udevrun.run_subsystem(st, name, val)
                    line = "%s: %s: RUN '%s': exit %d%s" % (
                        os.path.basename(path),
                        name,
                        val,
                        status,
                        "".join("; " + m for m in msgs),
                    )
                    udevrun.log(st, line)
                    if status:
                        log.append("udev " + line)
    view.invalidate()
    # udev coldplug of PCI functions configured at IPL
    with hooks.transaction(st_dir) as st:
        core.coldplug_pci(st)
    view.invalidate()
    # udev coldplug of ccw/ccwgroup: process rules in order
    for path, toks in rules:
        for key, attr, op, val in toks:
            if key != "ATTR" or op not in ("=", ":=") or not attr:
                continue
            target = _udev_attr_path(toks, attr)
            if target is None:
                continue
            try:
                if view.exists(target):
                    view.write(target, (val + "\n").encode() if not val.endswith("\n") else val.encode())
            except OSError as exc:
                if not (attr.endswith("]group") and exc.errno == errno.EINVAL):
                    log.append(
                        "udev %s: %s=%s: %s" % (os.path.basename(path), attr, val, os.strerror(exc.errno or errno.EIO))
                    )
    # tmpfiles.d writes to /sys
    for path, arg in parse_tmpfiles_writes(root):
        try:
            view.write(path, arg.encode())
        except OSError as exc:
            log.append("tmpfiles %s: %s" % (path, os.strerror(exc.errno or errno.EIO)))
    with store.transaction(st_dir) as st:
        st["persist"]["skipped"] = log
    view.invalidate()
    return other, log


def _subsystem_event(toks, names):
    """The subsystems of ``names`` whose add event the rule ``toks`` matches (a rule matching
    only ACTION, SUBSYSTEM=="subsystem" and KERNEL)."""
    keys = {k for k, _a, op, _v in toks if op in ("==", "!=")}
    if "SUBSYSTEM" not in keys or not keys <= {"ACTION", "SUBSYSTEM", "KERNEL"}:
        return []
    out = []
    for name in names:
        ok = True
        for k, _a, op, v in toks:
            if op not in ("==", "!="):
                continue
            have = {"ACTION": "add", "SUBSYSTEM": "subsystem", "KERNEL": name}[k]
            hit = core._glob_match(v, have)  # pylint: disable=protected-access
            if hit != (op == "=="):
                ok = False
        if ok:
            out.append(name)
    return out


def _udev_attr_path(toks, attr):
    """Map a udev ATTR assignment to a sysfs path (chzdev's bracket form or the device's own)."""
    m = re.match(r"^\[([^\]]+)\](.+)$", attr)
    if m:
        where, name = m.group(1), m.group(2)
        if where.startswith("drivers/"):
            bus, drv = where[len("drivers/") :].split(":", 1)
            return "/sys/bus/%s/drivers/%s/%s" % (bus, drv, name)
        if "/" in where:
            bus, dev = where.split("/", 1)
            return "/sys/bus/%s/devices/%s/%s" % (bus, dev, name)
        return None
    subs = [v for k, _a, op, v in toks if k == "SUBSYSTEM" and op == "=="]
    kern = [v for k, _a, op, v in toks if k == "KERNEL" and op == "=="]
    if subs and kern and subs[0] in ("ccwgroup", "ccw") and "|" not in kern[0] and "*" not in kern[0]:
        return "/sys/bus/%s/devices/%s/%s" % (subs[0], kern[0], attr)
    return None


__all__ = [
    "apply",
    "parse_sysctl",
    "parse_modules_load",
    "parse_modprobe",
    "udev_rules",
    "parse_driverctl",
    "parse_tmpfiles_writes",
]
