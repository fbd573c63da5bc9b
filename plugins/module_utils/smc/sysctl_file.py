# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The files ``smc_sysctl`` owns: a sysctl.d drop-in and a modules-load.d entry, plus /proc/sys.

Pure functions render and parse file content; small helpers read /proc/sys entries and write one
(``kernel_write``), by host path below the host root (``host_files``, which also writes the files).
The sysctl.d file is owned whole: one canonical ``key = value`` line per setting, sorted by key,
after a fixed header. ``systemd-sysctl`` applies it at boot after ``systemd-modules-load`` has
loaded ``smc`` (which creates /proc/sys/net/smc), which is why the module also writes the
modules-load.d entry (``host_files.modules_load_text`` with ``MODULES_LOAD_HEADER``). A sysctl
``a.b.c`` is the file ``/proc/sys/a/b/c``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.s390x.network.plugins.module_utils.engine import host_files
from ansible_collections.s390x.network.plugins.module_utils.engine import kernel_write

HEADER = (
    "# Managed by Ansible (s390x.network.smc_sysctl): SMC buffer sizes and net.smc settings.\n"
    "# Local changes are overwritten on the next run.\n"
)
MODULES_LOAD_HEADER = "# Managed by Ansible (s390x.network.smc_sysctl): load SMC at boot.\n"


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


def proc_path(key):
    """``net.smc.rmem`` -> ``/proc/sys/net/smc/rmem`` (a host path)."""
    return "/proc/sys/" + "/".join(key.split("."))


def read_live(keys):
    """``{key: value or None}`` from /proc/sys (None when the key does not exist)."""
    result = {}
    for key in keys:
        content = host_files.read_attr(proc_path(key))
        result[key] = normalize_value(content) if content is not None else None
    return result


def write_live(key, value):
    """Write one sysctl (one checked, unbuffered write); raises OSError with the kernel's errno
    (EINVAL when out of range)."""
    kernel_write.write_value(proc_path(key), "%s\n" % normalize_value(value))
