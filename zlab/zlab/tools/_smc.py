# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Shared parts of the emulated smc-tools (smcd, smcr, smc_pnet, smcss, smc_rnics).

The smc-tools version decides a few layouts (``smc_rnics`` PFT/VF columns and ``smcd stats``
``Buffer usage`` lines came with 1.8.4/1.8.5).  It is taken from env ``ZLAB_SMC_TOOLS_VERSION``,
else from the host file ``/etc/zlab/smc-tools-version``, else 1.8.5.
"""

import os

from .. import smc_counters
from . import _paths

DEFAULT_VERSION = "1.8.5"


def version():
    v = os.environ.get("ZLAB_SMC_TOOLS_VERSION")
    if not v:
        v = (_paths.read("/etc/zlab/smc-tools-version") or "").strip()
    return v or DEFAULT_VERSION


def version_tuple():
    out = []
    for p in version().split("."):
        try:
            out.append(int(p))
        except ValueError:
            out.append(0)
    return tuple(out)


def contains(prefix, word):
    """smc-tools' contains(): True when ``prefix`` is a (non-empty) prefix of ``word``."""
    return bool(prefix) and word.startswith(prefix)


def abbreviated(num, max_digs=6):
    """get_abbreviated() of smc-tools util.c (e.g. 358191491 -> ``358.2M``)."""
    num = int(num)
    if num == 0:
        return "0"
    leading = len("%d" % num)
    if leading < 4:
        return ("%d" % num)[:max_digs]

    def digs(lp):
        full = lp % 3
        if full == 0:
            full = 3
        places = max_digs - full - 2
        if places <= 0:
            places = 0
            full = max_digs - 1
        return full, places

    def mag(lp):
        if lp < 7:
            return "K", 1000.0
        if lp < 10:
            return "M", 1000000.0
        if lp < 13:
            return "G", 1000000000.0
        factor = float(1000 ** (lp // 3))
        if lp < 16:
            return "T", factor
        if lp < 19:
            return "P", factor
        return "?", factor

    full, places = digs(leading)
    m, factor = mag(leading)
    tmp = num / factor
    if tmp + 5 * 10 ** (-1 - places) >= 10**full:
        if places > 0:
            places -= 1
        else:
            leading += 1
            full, places = digs(leading)
            m, factor = mag(leading)
    text = "%*.*f%s" % (max_digs - 1, places, num / factor, m)
    return text[:max_digs]


# ---- kernel state access ------------------------------------------------------------------------


def kernel_available():
    return _paths.kernel() is not None and os.path.isdir(_paths.state_dir())


def smc_loaded():
    """Is the ``smc`` module present (loaded or built in)?  False without a kernel state."""
    if not kernel_available():
        return False
    k = _paths.kernel()
    for fn in ("smc_loaded", "module_present"):
        if hasattr(k, fn):
            try:
                return bool(
                    getattr(k, fn)(_paths.state_dir(), "smc")
                    if fn == "module_present"
                    else getattr(k, fn)(_paths.state_dir())
                )
            except (OSError, ValueError, KeyError):
                return False
    try:
        names = [m["name"] if isinstance(m, dict) else m for m in _paths.kcall("modules_loaded")]
    except (OSError, AttributeError, RuntimeError):
        return False
    return "smc" in names


# Upstream versions of what ``smcd info`` shows (net/smc): the SMC_GEN_NETLINK family with
# SMC_NETLINK_GET_SYS_INFO and the device dumps (5.11), SMC_NLA_SYS_IS_SMCR_V2 (SMC-Rv2, 5.16),
# SMC_RELEASE 1, shown as 2.1 (6.6).
SYS_INFO_SINCE = (5, 11)
SMCR_V2_SINCE = (5, 16)
RELEASE_1_SINCE = (6, 6)
# RHEL 8.6/9.0 and SLES 15 SP4 carry SMC-Rv2 (the z16 support); a profile with the SMC-R v2.1
# sysctls (upstream 6.8) carries the v2.1 code.
_SMCR_V2_BACKPORT = ("RedHat", "Suse")


def smc_level():
    """The upstream version whose net/smc the host's kernel profile carries: its own version,
    raised for the enterprise kernels by what they backport."""
    prof = _paths.kcall("profile")
    level = tuple(prof["version"])
    if prof.get("family") in _SMCR_V2_BACKPORT:
        level = max(level, SMCR_V2_SINCE)
    if "smcr_max_links_per_lgr" in (prof.get("smc_sysctls") or {}):
        level = max(level, (6, 8))
    return level


def host_name():
    """The nodename ``smc_clc_init`` copies when smc loads: the host's name (the lab sets it)."""
    return str(_paths.kcall("state")["spec"]["name"])


TECH_KEYS = smc_counters.TECH_COUNTERS + smc_counters.RMB_USAGE_COUNTERS
OLD_TECH_KEYS = smc_counters.TECH_COUNTERS  # before smc-tools 1.8.4 (no RMB usage)
MAX_FBACK = 30


def tech_keys():
    return TECH_KEYS if version_tuple() >= (1, 8, 4) else OLD_TECH_KEYS


def empty_stats():
    return {
        "tech": {k: 0 for k in TECH_KEYS},
        "clnt_hs_err": 0,
        "srv_hs_err": 0,
        "clnt_fback": 0,
        "srv_fback": 0,
        "rsn_srv": [],
        "rsn_clnt": [],
    }


def _rsn_list(x):
    out = []
    for item in x or []:
        if isinstance(item, dict):
            code = item.get("code", item.get("fback_code", 0))
            cnt = item.get("count", item.get("cnt", 0))
        else:
            code, cnt = item[0], item[1]
        out.append([int(code), int(cnt)])
    return out


def normalize_stats(raw, proto):
    """Turn ``zlab.kernel.smc_stats(state_dir, proto)`` into this module's stats dict.

    Accepts ``{"SMCD": {...counters}, "CLNT_HS_ERR_CNT": n, ..., "FBACK_RSN": {"clnt": [...],
    "srv": [...]}}`` (kernel layout), the bare counters dict, or the full per-proto mapping.
    """
    st = empty_stats()
    if not raw:
        return st
    if (
        proto in raw
        and isinstance(raw[proto], dict)
        and proto not in raw[proto]
        and any(k in raw[proto] for k in ("CLNT_HS_ERR_CNT", "FBACK_RSN"))
    ):
        raw = raw[proto]
    counters = raw.get(proto) if isinstance(raw.get(proto), dict) else raw
    for k in TECH_KEYS:
        try:
            st["tech"][k] = int(counters.get(k, 0) or 0)
        except (TypeError, ValueError):
            st["tech"][k] = 0
    st["clnt_hs_err"] = int(raw.get("CLNT_HS_ERR_CNT", 0) or 0)
    st["srv_hs_err"] = int(raw.get("SRV_HS_ERR_CNT", 0) or 0)
    st["clnt_fback"] = int(raw.get("CLNT_FBACK_CNT", 0) or 0)
    st["srv_fback"] = int(raw.get("SRV_FBACK_CNT", 0) or 0)
    rsn = raw.get("FBACK_RSN") or {}
    st["rsn_clnt"] = _rsn_list(rsn.get("clnt"))[:MAX_FBACK]
    st["rsn_srv"] = _rsn_list(rsn.get("srv"))[:MAX_FBACK]
    return st


def read_stats(proto):
    """Kernel statistics of ``proto`` ("SMCD"/"SMCR")."""
    try:
        raw = _paths.kcall("smc_stats", proto)
    except TypeError:
        raw = _paths.kcall("smc_stats")
    return normalize_stats(raw, proto)
