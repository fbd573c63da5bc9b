# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Path, fault and kernel-state helpers shared by every emulated tool.

All absolute paths a tool touches go through :func:`path`, which prefixes env ``ZLAB_ROOT`` (empty
inside a host; a temp dir with the FUSE fs mounted under it in conformance tests).  Messages show
the host view (:func:`host_path` strips the prefix again).
"""

import errno as _errno
import os
import sys
import time

DEFAULT_STATE_DIR = "/run/zlab/kernel"


def root():
    return os.environ.get("ZLAB_ROOT", "").rstrip("/")


# Where the FUSE daemon serves the /proc pieces at its mount root; used when
# ZLAB_ROOT is such a mount point rather than a full host tree.
_FUSE_ALIASES = (
    ("/proc/sys/net", "/proc_sys_net"),
    ("/proc/modules", "/proc_modules"),
    ("/proc/sys/kernel/osrelease", "/osrelease"),
)


def path(p):
    """Return the real location of host path ``p`` (absolute) under ``ZLAB_ROOT``."""
    if not p.startswith("/"):
        return p
    r = root()
    if r:
        for host, alias in _FUSE_ALIASES:
            if (p == host or p.startswith(host + "/")) and not os.path.exists(r + host) and os.path.exists(r + alias):
                return r + alias + p[len(host) :]
    return r + p


def host_path(p):
    """Inverse of :func:`path`: the path as the host sees it (for messages)."""
    r = root()
    if r and p.startswith(r + "/"):
        return p[len(r) :]
    return p


def state_dir():
    return os.environ.get("ZLAB_STATE_DIR", DEFAULT_STATE_DIR)


def kernel():
    """The ``zlab.kernel`` module, or None where it cannot be imported."""
    try:
        from zlab import kernel as k  # noqa: WPS433 (lazy on purpose)
    except ImportError:
        return None
    return k


def kcall(name, *args, **kwargs):
    """Call ``zlab.kernel.<name>(state_dir, *args)``; AttributeError if it does not exist."""
    k = kernel()
    if k is None:
        raise RuntimeError("zlab.kernel is not importable")
    return getattr(k, name)(state_dir(), *args, **kwargs)


def take_fault(tool):
    """Consume a fault injected for ``tool`` and sleep its ``sleep``. Returns None (no fault) or
    {"exit_code" (None: run normally now), "stderr", "half_way"}.

    ``zlab.kernel.consume_tool_fault`` may return None (no fault), an int exit code, a
    ``(exit_code, stderr)`` pair or a dict with ``exit_code``/``stderr``/``sleep``/``half_way``.
    """
    k = kernel()
    if k is None or not hasattr(k, "consume_tool_fault"):
        return None
    if not os.path.isdir(state_dir()):
        return None
    try:
        fault = k.consume_tool_fault(state_dir(), tool)
    except (OSError, ValueError):
        return None
    if fault is None or fault is False:
        return None
    out = {"exit_code": 1, "stderr": "", "sleep": 0, "half_way": False}
    if isinstance(fault, dict):
        out.update(fault)
    elif isinstance(fault, (tuple, list)):
        out["exit_code"] = fault[0]
        out["stderr"] = fault[1] if len(fault) > 1 and fault[1] else ""
    elif fault is not True:
        out["exit_code"] = int(fault)
    if out.get("sleep"):
        time.sleep(float(out["sleep"]))  # e.g. to cut the SSH connection while the tool runs
    return out


def fault_stderr(fault):
    text = fault.get("stderr") or ""
    if text:
        sys.stderr.write(text if text.endswith("\n") else text + "\n")
        sys.stderr.flush()


def tool_fault(tool):
    """Consume a fault injected for ``tool`` (sleeping first if it says so). Returns the exit code
    to use, or None when the tool is to run normally."""
    fault = take_fault(tool)
    if fault is None or fault.get("exit_code") is None:
        return None
    fault_stderr(fault)
    return int(fault["exit_code"])


def run(tool, func, argv):
    """Common entry: fault check, then ``func(argv)``; output flushed, broken pipes tolerated."""
    if argv is None:
        argv = sys.argv[1:]
    code = tool_fault(tool)
    if code is not None:
        return code
    try:
        rc = func(list(argv))
    except BrokenPipeError:
        rc = 141
    except KeyboardInterrupt:
        rc = 130
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        pass
    return 0 if rc is None else rc


def help_or_version(opt, usage, version):
    """Option ``-h``/``--help`` writes ``usage``, ``-v``/``--version`` writes ``version`` to
    stdout; True when ``opt`` was one of them (the tool then exits 0)."""
    if opt in ("-h", "--help"):
        sys.stdout.write(usage)
        return True
    if opt in ("-v", "--version"):
        sys.stdout.write(version)
        return True
    return False


def read(p, default=None):
    """Read host path ``p`` (text, trailing newline stripped); ``default`` on any OSError."""
    try:
        with open(path(p), "r", encoding="utf-8", errors="replace") as f:
            return f.read().rstrip("\n")
    except OSError:
        return default


def read_bytes(p, default=None):
    try:
        with open(path(p), "rb") as f:
            return f.read()
    except OSError:
        return default


def write(p, value):
    """Write ``value`` to host path ``p`` like ``echo value > p`` (raises OSError with the errno)."""
    data = value if value.endswith("\n") else value + "\n"
    fd = os.open(path(p), os.O_WRONLY | os.O_TRUNC)
    try:
        os.write(fd, data.encode())
    finally:
        os.close(fd)


def exists(p):
    return os.path.exists(path(p))


def isdir(p):
    return os.path.isdir(path(p))


def islink(p):
    return os.path.islink(path(p))


def listdir(p):
    try:
        return sorted(os.listdir(path(p)))
    except OSError:
        return []


def readlink(p):
    try:
        return os.readlink(path(p))
    except OSError:
        return None


def strerror(err):
    """strerror text of an OSError or errno number, as glibc prints it."""
    num = err.errno if isinstance(err, OSError) else err
    if num is None:
        return str(err)
    return os.strerror(num)


ERRNO = _errno
