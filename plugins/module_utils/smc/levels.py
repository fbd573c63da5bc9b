# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""SMC feature levels per kernel profile: the one table that buffer sizing (``sizing``, on the
host and on the controller) and the SMC pre-flight (controller) read.

A kernel release is matched against the distribution profiles below first; a release that none
of them matches gets the upstream level of its MAJOR.MINOR. Each level says:

* ``smcd_v2``, ``smcr_v2``: the kernel has the SMC-D v2 / SMC-R v2 (and UEID) code: True, False,
  or None when it is not known (a distribution kernel before the upstream release may backport);
* ``smcd_max_dmb``: the largest SMC-D buffer (DMB) the kernel allocates, in bytes;
* ``smcr_large_rmb``: SMC-R buffers above 512 KiB (``SMCR_RMBE_SIZES`` 15, Linux 6.11);
* ``net_smc_mem``: ``net.smc.rmem``/``wmem`` exist (Linux 6.1); without them the SMC buffer
  request is half of ``tcp_[rw]mem[1]``;
* ``loopback_ism``: the kernel's SMC code has loopback-ism (Linux 6.10, build option
  ``CONFIG_SMC_LO``, from 6.18 ``CONFIG_DIBS_LO``, so a True here says the code is there, not that
  it is built);
* ``dibs``: ISM functions and the loopback are DIBS devices (Linux 6.18, drivers/dibs):
  ``/sys/class/dibs/ism<uid>`` and ``/sys/class/dibs/lo``, and ``config SMC`` depends on ``DIBS``, so
  a kernel built without ``CONFIG_DIBS`` has no SMC at all;
* ``smcr_max_wr``: ``net.smc.smcr_max_send_wr``/``smcr_max_recv_wr`` (Linux 6.19) and ``hs_ctrl``
  (6.19, build option ``CONFIG_SMC_HS_CTRL_BPF``);
* ``tcp_ulp``: the TCP ULP ``smc`` (``setsockopt(TCP_ULP, "smc")``, Linux 5.17 to 6.19.3; the revert
  reached 7.0 and 6.19.4): True, False, or None (a 6.19 release without its patch level, or a
  distribution kernel).

The table documents what upstream releases have; a managed host is never judged by it where the
host can be read: whether a kernel has SMC, DIBS devices or a ``net.smc`` key is read from the host
(``kernel_support``, ``smcd_devices``, ``/proc/sys/net/smc``), as distributions build without SMC
(Debian's s390x 7.2) or backport keys.

Pure Python without Ansible imports; runs on the managed host (Python 3.6 and later).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

KIB = 1024
MIB = 1024 * KIB

# Upstream releases that brought each feature (docs/smc-sizing.md, docs/smc-preflight.md):
V_SMCD_V2 = (5, 10)  # SMC-Dv2 ("SMC for Linux on IBM Z and LinuxONE", linux-on-z blog)
V_SMCD_1M = (5, 16)  # 67161779a9ea "net/smc: Allow SMC-D 1MB DMB allocations"
V_SMCR_V2 = (5, 16)  # SMC-Rv2 and "net/smc: add support for user defined EIDs"
V_NET_SMC_MEM = (6, 1)  # 0227f058aa29 "net/smc: Unbind r/w buffer size from clcsock ..."
V_LOOPBACK_ISM = (6, 10)  # CONFIG_SMC_LO
V_SMCR_LARGE = (6, 11)  # 2f4b101c542e "net/smc: change SMCR_RMBE_SIZES from 5 to 15"
V_TCP_ULP = (5, 17)  # d7cd421da9da "net/smc: Introduce TCP ULP support"
V_DIBS = (6, 18)  # "dibs: Create class dibs"; CONFIG_SMC_LO became CONFIG_DIBS_LO
V_SMCR_MAX_WR = (6, 19)  # net.smc.smcr_max_send_wr/smcr_max_recv_wr, hs_ctrl
V_TCP_ULP_GONE = (7, 0)  # Revert "net/smc: Introduce TCP ULP support" (CVE-2026-46330)
TCP_ULP_GONE_619 = 4  # the revert in the 6.19 stable series: 6.19.4

SMCD_DMB_OLD = 512 * KIB  # SG_MAX_SINGLE_ALLOC pages before 5.16 (128 x 4 KiB on s390x)
SMCD_DMB_1M = MIB

_RELEASE_RE = re.compile(r"^\s*(\d+)\.(\d+)")
_PATCH_RE = re.compile(r"^\s*\d+\.\d+\.(\d+)")


def _features(
    smcd_v2,
    smcr_v2,
    smcd_max_dmb,
    net_smc_mem,
    smcr_large_rmb=False,
    loopback_ism=False,
    dibs=False,
    smcr_max_wr=False,
    tcp_ulp=None,
):
    return {
        "smcd_v2": smcd_v2,
        "smcr_v2": smcr_v2,
        "smcd_max_dmb": smcd_max_dmb,
        "smcr_large_rmb": smcr_large_rmb,
        "net_smc_mem": net_smc_mem,
        "loopback_ism": loopback_ism,
        "dibs": dibs,
        "smcr_max_wr": smcr_max_wr,
        "tcp_ulp": tcp_ulp,
    }


# Distribution kernels whose SMC code is not that of their upstream MAJOR.MINOR:
# (profile, release pattern with the build number as group 1, first build, last build, SMC code of, features).
# Sources:
# * RHEL 8.4 (4.18.0-305) and SLES 15 SP3 (5.3.18-57) have SMC-Dv2, RHEL 8.0-8.3 and SLES 15 SP2 do not:
#   "SMC for Linux on IBM Z and LinuxONE" (linux-on-z blog). Their DMBs stay at 512 KiB (the 1 MiB
#   change reached the 4.19/5.4/5.10 stable trees in 2024 only, after these releases).
# * RHEL 9.4 (5.14.0-427) carries the SMC code of Linux 6.4: CentOS Stream 9 merge request "Upgrade the
#   SMC driver to latest from upstream, e.g. kernel 6.4" (RHEL-11199); so SMC-Rv2, UEIDs and 1 MiB DMBs.
#   It has no net.smc.rmem/wmem: the smc-sysctl.rst of the RHEL 9 kernel-doc lists five net.smc keys
#   without them (docs/lab-profiles.md), so its SMC buffer request stays half of tcp_[rw]mem[1].
# * RHEL 9.0-9.3 (5.14.0 before 427): 5.14 SMC code; SMC-Rv2 not known.
DISTRIBUTION_PROFILES = (
    ("RHEL 8.0-8.3", r"4\.18\.0-(\d+)\S*\.el8", 0, 304, None, _features(False, None, SMCD_DMB_OLD, False)),
    ("RHEL 8.4+", r"4\.18\.0-(\d+)\S*\.el8", 305, None, None, _features(True, None, SMCD_DMB_OLD, False)),
    ("SLES 15 SP2", r"5\.3\.18-(\d+)", 0, 56, None, _features(False, None, SMCD_DMB_OLD, False)),
    ("SLES 15 SP3", r"5\.3\.18-(\d+)", 57, None, None, _features(True, None, SMCD_DMB_OLD, False)),
    ("RHEL 9.0-9.3", r"5\.14\.0-(\d+)\S*\.el9", 0, 426, None, _features(True, None, SMCD_DMB_OLD, False)),
    ("RHEL 9.4+", r"5\.14\.0-(\d+)\S*\.el9", 427, None, (6, 4), _features(True, True, SMCD_DMB_1M, False)),
)
_PROFILES = tuple(
    (name, re.compile(pattern), first, last, code, feats)
    for name, pattern, first, last, code, feats in DISTRIBUTION_PROFILES
)


def _tcp_ulp(version, patch=None):
    """The TCP ULP ``smc`` of an upstream release: 5.17 to 6.19.3."""
    if version < V_TCP_ULP or version >= V_TCP_ULP_GONE:
        return False
    if version[:2] == V_SMCR_MAX_WR:
        return None if patch is None else patch < TCP_ULP_GONE_619
    return True


def upstream_features(version, patch=None):
    """The level of an upstream kernel ``(major, minor)`` (``patch``: the third number, when known).
    Before SMC-Dv2 (5.10) and SMC-Rv2 (5.16) the answer is None: distribution kernels backport, so
    an older release says nothing."""
    return _features(
        True if version >= V_SMCD_V2 else None,
        True if version >= V_SMCR_V2 else None,
        SMCD_DMB_1M if version >= V_SMCD_1M else SMCD_DMB_OLD,
        version >= V_NET_SMC_MEM,
        smcr_large_rmb=version >= V_SMCR_LARGE,
        loopback_ism=version >= V_LOOPBACK_ISM,
        dibs=version >= V_DIBS,
        smcr_max_wr=version >= V_SMCR_MAX_WR,
        tcp_ulp=_tcp_ulp(version, patch),
    )


def _version(release):
    if isinstance(release, (tuple, list)):
        return (int(release[0]), int(release[1])) if len(release) >= 2 else None
    match = _RELEASE_RE.match(str(release or ""))
    return (int(match.group(1)), int(match.group(2))) if match else None


def kernel_level(release):
    """The SMC level of a kernel release (``uname -r``, or a ``(major, minor[, patch])`` tuple, which
    is read as upstream): a dict with ``profile`` (a distribution profile's name, or ``Linux X.Y``),
    ``smc_code`` (the upstream release whose SMC code it carries; None for a distribution profile
    that backports single features) and the features of the module docstring. None when the
    release cannot be read."""
    version = _version(release)
    if version is None:
        return None
    if not isinstance(release, (tuple, list)):
        text = str(release).strip()
        for name, pattern, first, last, code, feats in _PROFILES:
            match = pattern.match(text)
            if match and int(match.group(1)) >= first and (last is None or int(match.group(1)) <= last):
                return dict(feats, profile=name, smc_code=code)
    patch = None
    if isinstance(release, (tuple, list)):
        patch = int(release[2]) if len(release) >= 3 else None
    else:
        match = _PATCH_RE.match(str(release))
        patch = int(match.group(1)) if match else None
    return dict(upstream_features(version, patch), profile="Linux %d.%d" % version, smc_code=version)


def level_text(level):
    """``RHEL 9.4+, SMC of Linux 6.4``, ``RHEL 8.4+`` or ``Linux 6.8``."""
    code = level["smc_code"]
    if code is None or level["profile"] == "Linux %d.%d" % code:
        return level["profile"]
    return "%s, SMC of Linux %d.%d" % (level["profile"], code[0], code[1])
