# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Whether the running kernel has SMC, decided by what the host shows, never by its release.

A distribution may build a kernel without SMC: Debian's s390x Linux 7.2 has ``# CONFIG_DIBS is not
set`` and no ``CONFIG_SMC`` at all (since 6.18 ``config SMC`` depends on ``DIBS``), so a host that
upgrades to it loses SMC-D and SMC-R without a message. The evidence, in the order it is trusted:

* ``/proc/sys/net/smc`` or ``/sys/module/smc``: SMC is loaded (or built in);
* ``/lib/modules/<release>/modules.builtin`` and ``modules.dep``: whether a module file ``smc.ko``
  is built in or installed (the distribution's ``kernel/net/smc/smc.ko``, or a rebuilt one that
  depmod prefers under ``updates/`` or ``extra/``, DKMS included); both readable without it means
  the kernel has no SMC;
* ``/boot/config-<release>`` where the distribution installs it: ``CONFIG_SMC`` (``y``/``m``, ``is
  not set`` or no line at all) and ``CONFIG_DIBS``;
* ``modprobe smc`` failing is the caller's evidence (``with_modprobe_error``).

``/sys/class/dibs`` says whether ISM and loopback devices are DIBS devices (Linux 6.18 and later);
``/proc/sys/net/ipv4/tcp_available_ulp`` whether the TCP ULP ``smc`` (removed in 7.0 and 6.19.4) is
registered. Pure Python, Python 3.6 and later.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import platform
import re

from ansible_collections.s390x.network.plugins.module_utils.engine import host_files

PROC_NET_SMC = "/proc/sys/net/smc"
SYS_MODULE_SMC = "/sys/module/smc"
SYS_CLASS_DIBS = "/sys/class/dibs"
MODULES_DIR = "/lib/modules"
BOOT_CONFIG = "/boot/config-"
TCP_ULP = "/proc/sys/net/ipv4/tcp_available_ulp"

LOADED = "loaded"
BUILTIN = "built-in"
MODULE = "module"
NOT_BUILT = "not built"
UNKNOWN = "unknown"

NO_SMC = "SMC not built into this kernel"
# a modules.dep or modules.builtin line of the module smc, wherever depmod found it:
# "kernel/net/smc/smc.ko.xz: deps", "updates/dkms/smc.ko: deps" or "kernel/net/smc/smc.ko"
_SMC_KO = re.compile(r"(?:\S*/)?smc\.ko(?:\.(?:xz|zst|gz))?(?::.*)?")
_CONFIG_LINE = re.compile(r"(?:CONFIG_(SMC|DIBS)=([ym])|# CONFIG_(SMC|DIBS) is not set)")
_RELEASE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+~-]{0,127}")


def kernel_release():
    """The running kernel's release (``uname -r``) as the host's /proc shows it."""
    return host_files.read_attr("/proc/sys/kernel/osrelease") or platform.release()


def _isdir(path):
    return os.path.isdir(host_files.path(path))


def module_tree(release):
    """``(builtin, installed, read)``: smc.ko in modules.builtin, in modules.dep, and whether both
    files could be read (None for a value not read)."""
    found = {}
    for name in ("modules.builtin", "modules.dep"):
        try:
            text = host_files.read_text("%s/%s/%s" % (MODULES_DIR, release, name))
        except (IOError, OSError):
            text = None
        found[name] = None if text is None else any(_SMC_KO.fullmatch(line.strip()) for line in text.splitlines())
    return found["modules.builtin"], found["modules.dep"]


def boot_config(release):
    """``{"SMC": "y"|"m"|"n"|None, "DIBS": ...}`` from /boot/config-<release> ("n": is not set or no
    line); None when the file is not there."""
    try:
        text = host_files.read_text(BOOT_CONFIG + release)
    except (IOError, OSError):
        text = None
    if text is None:
        return None
    out = {"SMC": "n", "DIBS": "n"}
    for line in text.splitlines():
        match = _CONFIG_LINE.fullmatch(line.strip())
        if match and match.group(1):
            out[match.group(1)] = match.group(2)
    return out


def tcp_ulp_smc():
    """Whether the TCP ULP ``smc`` is registered (it is only while smc is loaded, before 7.0 and
    6.19.4); None when the kernel does not list ULPs."""
    text = host_files.read_attr(TCP_ULP)
    if text is None:
        return None
    return "smc" in text.split()


def _not_built(release, builtin, installed, config):
    """The reason sentence for a kernel that shows no SMC, each piece of evidence named."""
    evidence = []
    if builtin is False and installed is False:
        evidence.append("no net/smc/smc.ko in %s/%s/modules.dep or modules.builtin" % (MODULES_DIR, release))
    if config is not None and config["SMC"] == "n":
        evidence.append("%s%s has no CONFIG_SMC" % (BOOT_CONFIG, release))
        if config["DIBS"] == "n":
            evidence.append("CONFIG_DIBS is not set there either (SMC depends on DIBS since Linux 6.18)")
    return "%s (%s): %s" % (NO_SMC, release, "; ".join(evidence))


def probe(release):
    """What the host shows about SMC in the running kernel ``release`` (``uname -r``): a dict with
    ``available`` (True, False, or None when nothing could be read), ``state`` (``loaded``,
    ``built-in``, ``module``, ``not built``, ``unknown``), ``reason`` (a sentence naming the
    evidence), ``dibs`` (``/sys/class/dibs`` exists) and ``tcp_ulp`` (see :func:`tcp_ulp_smc`)."""
    release = str(release or "")
    if not _RELEASE.fullmatch(release):
        raise ValueError("kernel release: expected the text of uname -r, got %r" % (release,))
    out = {"release": release, "dibs": _isdir(SYS_CLASS_DIBS), "tcp_ulp": tcp_ulp_smc()}
    if _isdir(PROC_NET_SMC) or _isdir(SYS_MODULE_SMC):
        shown = PROC_NET_SMC if _isdir(PROC_NET_SMC) else SYS_MODULE_SMC
        return dict(out, available=True, state=LOADED, reason="smc is loaded (%s exists)" % shown)
    builtin, installed = module_tree(release)
    config = boot_config(release)
    if builtin:
        return dict(out, available=True, state=BUILTIN, reason="smc is built into this kernel (modules.builtin)")
    if installed:
        return dict(out, available=True, state=MODULE, reason="the smc module is installed but not loaded")
    if (builtin is False and installed is False) or (config is not None and config["SMC"] == "n"):
        return dict(out, available=False, state=NOT_BUILT, reason=_not_built(release, builtin, installed, config))
    if config is not None:
        return dict(
            out, available=True, state=MODULE, reason="%s%s has CONFIG_SMC=%s" % (BOOT_CONFIG, release, config["SMC"])
        )
    return dict(
        out,
        available=None,
        state=UNKNOWN,
        reason="neither %s, %s, %s/%s/modules.dep nor %s%s say whether this kernel has SMC"
        % (PROC_NET_SMC, SYS_MODULE_SMC, MODULES_DIR, release, BOOT_CONFIG, release),
    )


def with_modprobe_error(support, error):
    """``support`` after ``modprobe smc`` failed with ``error`` (its stderr): a kernel whose module
    tree and configuration said nothing has no SMC either, and the reason names the failure."""
    if support["available"] is None:
        reason = "%s (%s): modprobe smc failed: %s" % (NO_SMC, support["release"], error.strip() or "no message")
        return dict(support, available=False, state=NOT_BUILT, reason=reason)
    return support
