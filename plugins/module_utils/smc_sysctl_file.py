# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The files ``smc_sysctl`` owns: a sysctl.d drop-in and a modules-load.d entry, plus /proc/sys.

Pure functions render and parse file content; small helpers read and write files and
/proc/sys entries. The sysctl.d file is owned whole: one canonical ``key = value`` line per
setting, sorted by key, after a fixed header. ``systemd-sysctl`` applies it at boot after
``systemd-modules-load`` has loaded ``smc`` (which creates /proc/sys/net/smc), which is why
the module also writes the modules-load.d entry.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import os
import tempfile

from ansible_collections.s390x.network.plugins.module_utils.kernel_write import write_value

HEADER = (
    "# Managed by Ansible (s390x.network.smc_sysctl): SMC buffer sizes and net.smc settings.\n"
    "# Local changes are overwritten on the next run.\n"
)
MODULES_LOAD_HEADER = "# Managed by Ansible (s390x.network.smc_sysctl): load SMC at boot.\n"
PROC_SYS = "/proc/sys"


def normalize_value(value):
    """sysctl values compare by their whitespace-separated words (tcp_rmem prints tabs)."""
    return " ".join(str(value).split())


def render(sysctls):
    """Canonical file content for ``{full key: value}``."""
    lines = [HEADER]
    for key in sorted(sysctls):
        lines.append("%s = %s\n" % (key, normalize_value(sysctls[key])))
    return "".join(lines)


def parse(text):
    """``{key: value}`` from sysctl.d content (comments, blank lines, ``-`` prefixes tolerated)."""
    result = {}
    for raw in (text or "").splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if "=" not in line:
            continue
        key, value = line.split("=", 1)
        key = key.strip().lstrip("-").strip().replace("/", ".")
        result[key] = normalize_value(value.strip().strip('"'))
    return result


def render_modules_load(modules):
    return MODULES_LOAD_HEADER + "".join("%s\n" % m for m in modules)


def proc_path(key, proc_sys=None):
    """``net.smc.rmem`` -> ``/proc/sys/net/smc/rmem``."""
    return os.path.join(proc_sys or PROC_SYS, *key.split("."))


def read_file(path):
    """Content of ``path`` or None when it does not exist."""
    try:
        with open(path, "r") as handle:
            return handle.read()
    except (IOError, OSError) as exc:
        if exc.errno == errno.ENOENT:
            return None
        raise


def write_file_atomic(path, content, mode=0o644):
    """Replace ``path`` with ``content`` (temporary file in the same directory, then rename)."""
    directory = os.path.dirname(path) or "."
    if not os.path.isdir(directory):
        os.makedirs(directory, 0o755)
    fd, tmp = tempfile.mkstemp(prefix=".%s." % os.path.basename(path), dir=directory)
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write(content)
        os.chmod(tmp, mode)
        os.rename(tmp, path)
    except Exception:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def remove_file(path):
    """Remove ``path``; True when it existed."""
    try:
        os.unlink(path)
        return True
    except (IOError, OSError) as exc:
        if exc.errno == errno.ENOENT:
            return False
        raise


def read_live(keys, proc_sys=None):
    """``{key: value or None}`` from /proc/sys (None when the key does not exist)."""
    result = {}
    for key in keys:
        content = read_file(proc_path(key, proc_sys))
        result[key] = normalize_value(content) if content is not None else None
    return result


def write_live(key, value, proc_sys=None):
    """Write one sysctl (one checked, unbuffered write); raises OSError with the kernel's errno
    (EINVAL when out of range)."""
    write_value(proc_path(key, proc_sys), "%s\n" % normalize_value(value))
