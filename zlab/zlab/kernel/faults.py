# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Injected faults (``zlab fault``): the records in ``st["faults"]`` and how one is consumed.

    st["faults"] = {
        "write":   {key: {"errno", "count", "after"}},   key: tree path (/sys/..., /proc_sys_net/...)
                                                         or, outside the emulated trees, the host
                                                         path (/etc/udev/rules.d/x.rules)
        "tool":    {name: {"exit_code" (None: run normally), "count", "after", "stderr",
                           "sleep", "half_way"}},
        "service": {name: {"argv"}},                     daemons stopped by zlab fault
        "dirs":    {host dir: pid},                      directories served by zlab.fusefs.faultdir
    }

Pure functions on those dicts (no I/O): the callers hold the state transaction.
"""

import errno
import os

# Host paths the device emulator serves (its FUSE daemon consumes their write faults; udev RUN
# programs may touch only these).
EMULATED = (
    "/sys",
    "/proc/sys/net",
    "/proc/modules",
    "/proc/sys/kernel/osrelease",
    "/proc/cio_ignore",
    "/proc/cio_settle",
    "/proc/sysinfo",
    "/proc/cmdline",
)
# Not served by zlab.fusefs.faultdir: pseudo file systems and the lab's own files in the host.
REFUSED = ("/proc", "/sys", "/dev", "/run/zlab", "/opt/zlab")
KINDS = ("write", "tool", "service")


def section(st, kind):
    """st["faults"][kind], created in a state of an older zlab."""
    return st.setdefault("faults", {}).setdefault(kind, {})


def _under(path, top):
    return path == top or path.startswith(top.rstrip("/") + "/")


def write_target(path):
    """Who makes writes to host path ``path`` fail: "emulator" (the emulated /sys and /proc
    files) or "faultdir" (any other file: its directory is served by zlab.fusefs.faultdir).
    ValueError for paths neither can serve."""
    if not path.startswith("/"):
        raise ValueError("%s: give an absolute path" % path)
    p = os.path.normpath(path)
    if any(_under(p, top) for top in EMULATED):
        return "emulator"
    for top in REFUSED:
        if _under(p, top):
            raise ValueError(
                "%s: write faults work on the emulated /sys and /proc files and on "
                "files outside %s" % (path, ", ".join(REFUSED))
            )
    if os.path.dirname(p) in ("/", "/run"):
        raise ValueError(
            "%s: its directory %s cannot be served (a file in a directory below " "it can)" % (path, os.path.dirname(p))
        )
    return "faultdir"


def new_write(errno_, count=1, after=0):
    if int(count) < 1 or int(after) < 0:
        raise ValueError("count must be >= 1, after >= 0")
    return {"errno": int(errno_), "count": int(count), "after": int(after)}


def take_write(writes, key):
    """One write to ``key``: None when it goes ahead (no fault, or one of the fault's ``after``
    writes that work), else the errno it fails with (one of ``count`` consumed)."""
    f = _take(writes, key)
    return None if f is None else int(f["errno"])


def _take(faults, key):
    """Use up one turn of the fault on ``key``: the fault when it fires, None when it lets this
    turn pass (no fault, or one of its ``after`` turns)."""
    f = faults.get(key)
    if not f:
        return None
    if f.get("after", 0) > 0:
        f["after"] -= 1
        return None
    f["count"] -= 1
    if f["count"] <= 0:
        del faults[key]
    return f


def pending_under(writes, directory):
    """Keys of pending write faults on files below ``directory``."""
    return sorted(k for k in writes if _under(k, directory) and k != directory)


def new_tool(exit_code=None, count=1, stderr="", after=0, sleep=0.0, half_way=False):
    if exit_code is None and not sleep:
        raise ValueError("tool fault: give an exit code, --sleep, or both")
    if half_way and exit_code is None:
        raise ValueError("tool fault: --half-way needs an exit code")
    if stderr and exit_code is None:
        raise ValueError("tool fault: --stderr needs an exit code")
    if int(count) < 1 or int(after) < 0 or float(sleep) < 0:
        raise ValueError("tool fault: count must be >= 1, after and sleep >= 0")
    return {
        "exit_code": None if exit_code is None else int(exit_code),
        "count": int(count),
        "stderr": stderr or "",
        "after": int(after),
        "sleep": float(sleep),
        "half_way": bool(half_way),
    }


def take_tool(tools, name):
    """One run of tool ``name``: None when it runs normally, else a copy of the fault (one of
    ``count`` consumed): ``exit_code`` None means sleep ``sleep`` s, then run normally."""
    f = _take(tools, name)
    if f is None:
        return None
    out = {
        "exit_code": f.get("exit_code"),
        "stderr": f.get("stderr", ""),
        "sleep": float(f.get("sleep", 0)),
        "half_way": bool(f.get("half_way")),
    }
    return out


def host_path(key):
    """The host path of a write fault's key (tree paths of the emulator mapped back)."""
    for tree, host in (
        ("/proc_sys_net", "/proc/sys/net"),
        ("/proc_modules", "/proc/modules"),
        ("/osrelease", "/proc/sys/kernel/osrelease"),
    ):
        if _under(key, tree):
            return host + key[len(tree) :]
    return key


def errno_name(code):
    return errno.errorcode.get(int(code), str(code))


def describe(kind, key, f):
    """One line for `zlab fault HOST list|clear`."""
    if kind == "write":
        text = "write %s %s: %d left" % (host_path(key), errno_name(f["errno"]), f["count"])
    elif kind == "tool":
        what = []
        if f.get("sleep"):
            what.append("sleep %g s" % f["sleep"])
        if f.get("exit_code") is None:
            what.append("then run")
        else:
            what.append("%sexit %d" % ("half way, " if f.get("half_way") else "", f["exit_code"]))
        text = "tool %s %s: %d left" % (key, ", ".join(what), f["count"])
        if f.get("stderr"):
            text += ", stderr %r" % f["stderr"]
    else:
        return "service %s stopped" % key
    if f.get("after"):
        text += " (after %d that work)" % f["after"]
    return text
