# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""SMC buffer sizing rules per kernel, and the ranges of the ``net.smc.*`` sysctls.

Pure Python (no Ansible imports): used by the ``smc_sysctl`` module on the managed host and
by the ``smc_buffer_sysctls`` filter on the controller, so both compute the same thing.
docs/smc-sizing.md gives the rule per kernel with its upstream sources; in short:

* The kernel allocates SMC buffers (send buffer and RMB/DMB) in sizes of 16 KiB x 2^n: the
  requested size is rounded up to the next such size (``smc_compress_bufsize``), then capped
  (SMC-D: 1 MiB since 5.16, 512 KiB before; SMC-R: 512 KiB before 6.11, afterwards 512 MiB
  with an upper bound of 4 MiB for physically contiguous buffers, ``smcr_buf_type`` 0). Which
  of these a kernel release has comes from the profiles of ``levels`` (RHEL 9.4 carries the SMC
  code of 6.4 on a 5.14 kernel).
* Where the requested size comes from:

  - no ``net.smc.rmem`` (upstream < 6.1, e.g. RHEL 8.8 4.18 and RHEL 9 5.14; the module looks
    for the sysctl rather than trusting the release, as backports differ):
    half of the TCP socket's initial buffer, i.e. ``net.ipv4.tcp_{r,w}mem[1] / 2``
    (at least 16 KiB), read at every socket creation;
  - ``net.smc.{r,w}mem`` present (6.1+): that value itself. 6.1-6.4 initialise it from
    ``tcp_{r,w}mem[1]`` when the smc module creates the network namespace state (module load);
    6.5+ (and stable backports of 833bac7ec392) initialise it to 64 KiB and cap it at INT_MAX/2.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.s390x.network.plugins.module_utils.smc.levels import kernel_level, level_text

KIB = 1024
MIB = 1024 * KIB
GIB = 1024 * MIB
INT_MAX = 2**31 - 1
UINT_MAX = 2**32 - 1
# HZ of s390 kernels (CONFIG_HZ_100): proc_dointvec_jiffies refuses seconds > INT_MAX / HZ.
S390_HZ = 100

SMC_BUF_MIN_SIZE = 16 * KIB
# TCP defaults of a kernel that nobody tuned (net/ipv4/tcp.c tcp_init): used when the host's
# values are not known (the controller-side filter).
TCP_RMEM_DEFAULT = (4096, 131072, 6291456)
TCP_WMEM_DEFAULT = (4096, 16384, 4194304)

METHOD_NET_SMC = "net.smc"
METHOD_TCP = "tcp"
METHODS = (METHOD_NET_SMC, METHOD_TCP)
PROTOCOLS = ("smcd", "smcr")

# First upstream release of net.smc.rmem/wmem (the other releases and the distribution profiles
# are in levels.py).
V_NET_SMC_MEM = (6, 1)  # 0227f058aa29 "Unbind r/w buffer size from clcsock ..."

# Compressed buffer sizes: 0 -> 16 KiB ... n -> 16 KiB << n.
SMCD_DMBE_SIZES = 6  # 1 MiB
SMCR_RMBE_SIZES_OLD = 5  # 512 KiB
SMCR_RMBE_SIZES = 15  # 512 MiB
LEGACY_SG_LIMIT = 512 * KIB  # SG_MAX_SINGLE_ALLOC pages before 5.16 (128 x 4 KiB on s390x)
PHYS_CONT_LIMIT = 4 * MIB  # PAGE_SIZE << MAX_PAGE_ORDER on s390x (4 KiB pages, order 10)

# The net.smc.* sysctls this collection knows and their accepted ranges (what the kernel's proc
# handler accepts; out of range -> EINVAL; the strictest over the kernels that have the key), from
# net/smc/smc_sysctl.c and Documentation/networking/smc-sysctl.rst. Whether a host has a key is read
# from /proc/sys/net/smc, never from its release (distributions backport); ``since`` (the first
# upstream release) is documentation only.
SMC_SYSCTLS = {
    "autocorking_size": {
        "min": 0,
        "max": UINT_MAX,
        "since": (5, 18),
        "default": 64 * KIB,
        "size": True,
        "doc": "bytes of data to cork before sending (proc_douintvec)",
    },
    "smcr_buf_type": {
        "min": 0,
        "max": 2,
        "since": (6, 0),
        "default": 0,
        "size": False,
        "doc": "SMC-R buffers: 0 physically contiguous, 1 virtually contiguous, 2 mixed",
    },
    "smcr_testlink_time": {
        "min": 0,
        "max": INT_MAX // S390_HZ,
        "since": (6, 1),
        "default": 30,
        "size": False,
        "doc": "seconds between SMC-R TEST_LINK probes, 0 disables",
    },
    "wmem": {
        "min": SMC_BUF_MIN_SIZE,
        "max": INT_MAX // 2,
        "since": V_NET_SMC_MEM,
        "default": 64 * KIB,
        "size": True,
        "doc": "initial SMC send buffer size",
    },
    "rmem": {
        "min": SMC_BUF_MIN_SIZE,
        "max": INT_MAX // 2,
        "since": V_NET_SMC_MEM,
        "default": 64 * KIB,
        "size": True,
        "doc": "initial SMC receive buffer (RMB/DMB) size",
    },
    "smcr_max_links_per_lgr": {
        "min": 1,
        "max": 2,
        "since": (6, 8),
        "default": 2,
        "size": False,
        "doc": "SMC-R v2.1 links per link group",
    },
    "smcr_max_conns_per_lgr": {
        "min": 16,
        "max": 255,
        "since": (6, 8),
        "default": 255,
        "size": False,
        "doc": "SMC-R v2.1 connections per link group",
    },
    "limit_smc_hs": {
        "min": 0,
        "max": 1,
        "since": (6, 12),
        "default": 0,
        "size": False,
        "doc": "1 limits new SMC handshakes when the handshake workqueue is congested",
    },
    "smcr_max_send_wr": {
        "min": 2,
        "max": 2048,
        "since": (6, 19),
        "default": 16,
        "size": False,
        "doc": "SMC-R work requests per send queue",
    },
    "smcr_max_recv_wr": {
        "min": 2,
        "max": 2048,
        "since": (6, 19),
        "default": 48,
        "size": False,
        "doc": "SMC-R work requests per receive queue",
    },
    # A string (proc_dostring, SMC_HS_CTRL_NAME_MAX 16 with the NUL): the name of a registered BPF
    # struct_ops smc_hs_ctrl, or empty for none. Names pass bpf_obj_name_cpy (alphanumerics, "_",
    # "."); an unregistered name is EINVAL. Only with CONFIG_SMC_HS_CTRL_BPF (net/smc/smc_sysctl.c).
    "hs_ctrl": {
        "min": 0,
        "max": 15,
        "since": (6, 19),
        "default": "",
        "size": False,
        "string": r"[A-Za-z0-9_.]{0,15}",
        "doc": "name of the BPF smc_hs_ctrl that decides SMC per connection, empty for none",
    },
}
SMC_SYSCTL_PREFIX = "net.smc."
TCP_KEYS = {"rmem": "net.ipv4.tcp_rmem", "wmem": "net.ipv4.tcp_wmem"}
# Limits the kernel puts on each of the three tcp_{r,w}mem values (proc_dointvec_minmax, >= 1).
TCP_VALUE_MIN = 1
TCP_VALUE_MAX = INT_MAX

_SIZE_RE = re.compile(r"\s*(\d+)\s*(?:([kmg])(?:i?b)?|b)?\s*", re.IGNORECASE)
_SIZE_FACTORS = {None: 1, "k": KIB, "m": MIB, "g": GIB}
_RELEASE_RE = re.compile(r"^\s*(\d+)\.(\d+)(?:\.(\d+))?")


class SizingError(ValueError):
    """Bad input: the message names the field and what is allowed."""


def parse_size(value, name="size"):
    """Bytes from an int or a string like ``131072``, ``128K``, ``128KiB``, ``1M``, ``1MB``.

    Suffixes are binary (K = 1024). Raises SizingError naming ``name``.
    """
    if isinstance(value, bool) or value is None:
        raise SizingError("%s: expected a size in bytes or with a K/M/G suffix, got %r" % (name, value))
    if isinstance(value, int):
        if value < 0:
            raise SizingError("%s: size must not be negative, got %d" % (name, value))
        return value
    if isinstance(value, float) and value.is_integer() and value >= 0:
        return int(value)
    match = _SIZE_RE.fullmatch(str(value))
    if not match:
        raise SizingError(
            "%s: expected a size in bytes or with a K/M/G suffix (e.g. 131072, 128K, 1M), got %r" % (name, value)
        )
    suffix = match.group(2).lower() if match.group(2) else None
    return int(match.group(1)) * _SIZE_FACTORS[suffix]


def buffer_size(value, name):
    """An SMC buffer size (``rmem``/``wmem``) in bytes: ``parse_size`` within 16K..INT_MAX/2."""
    size = parse_size(value, name)
    if size < SMC_BUF_MIN_SIZE:
        raise SizingError("%s: %d bytes is below the SMC minimum of %d (16K)" % (name, size, SMC_BUF_MIN_SIZE))
    if size > SMC_SYSCTLS[name]["max"]:
        raise SizingError(
            "%s: %d bytes is above the largest value the kernel accepts (%d)" % (name, size, SMC_SYSCTLS[name]["max"])
        )
    return size


def tcp_value(value, name):
    """One value of a ``tcp_[rw]mem`` triplet in bytes: ``parse_size`` within 1..INT_MAX."""
    number = parse_size(value, name)
    if not TCP_VALUE_MIN <= number <= TCP_VALUE_MAX:
        raise SizingError("%s: must be between %d and %d, got %d" % (name, TCP_VALUE_MIN, TCP_VALUE_MAX, number))
    return number


def format_size(size):
    """``131072`` -> ``128K``; sizes that are not whole KiB stay in bytes."""
    for factor, suffix in ((GIB, "G"), (MIB, "M"), (KIB, "K")):
        if size and size % factor == 0:
            return "%d%s" % (size // factor, suffix)
    return str(size)


def parse_kernel_release(release):
    """``4.18.0-477.10.1.el8_8.s390x`` -> ``(4, 18, 0)``."""
    if isinstance(release, (tuple, list)):
        parts = [int(p) for p in release] + [0, 0]
        return tuple(parts[:3])
    match = _RELEASE_RE.match(str(release or ""))
    if not match:
        raise SizingError("kernel release %r: expected MAJOR.MINOR[.PATCH][-suffix]" % (release,))
    return (int(match.group(1)), int(match.group(2)), int(match.group(3) or 0))


def compress_bufsize(size, max_comp):
    """Compressed notation of the buffer the kernel tries first (``smc_compress_bufsize``)."""
    if size <= SMC_BUF_MIN_SIZE:
        return 0
    units = (size - 1) >> 14
    comp = units.bit_length()  # ilog2(units) + 1
    return min(comp, max_comp)


def uncompress_bufsize(comp):
    return 1 << (comp + 14)


def smc_level(kernel):
    """The SMC level (``levels.kernel_level``) of a release string or tuple; SizingError when unreadable."""
    parse_kernel_release(kernel)
    return kernel_level(kernel)


def buffer_cap(kernel, protocol, smcr_buf_type=0):
    """Largest SMC buffer (bytes) the kernel hands out for ``protocol`` on ``kernel`` (a release
    string, matched against the distribution profiles, or an upstream version tuple)."""
    level = smc_level(kernel)
    if protocol not in PROTOCOLS:
        raise SizingError("protocol: expected one of %s, got %r" % (", ".join(PROTOCOLS), protocol))
    if protocol == "smcd":
        return min(level["smcd_max_dmb"], uncompress_bufsize(SMCD_DMBE_SIZES))
    if not level["smcr_large_rmb"]:
        return uncompress_bufsize(SMCR_RMBE_SIZES_OLD)
    if int(smcr_buf_type or 0) == 0:
        return PHYS_CONT_LIMIT
    return uncompress_bufsize(SMCR_RMBE_SIZES)


def effective_buffer(requested, kernel, protocol="smcd", smcr_buf_type=0):
    """What the kernel allocates for a requested SMC buffer size.

    Returns a dict: ``size`` (bytes), ``requested``, ``rounded`` (True when the request was
    not a 16 KiB x 2^n size), ``capped`` (True when the protocol's maximum applies) and ``cap``.
    """
    requested = int(requested)
    cap = buffer_cap(kernel, protocol, smcr_buf_type)
    max_comp = compress_bufsize(cap, 63)
    comp = compress_bufsize(requested, 63)
    size = uncompress_bufsize(min(comp, max_comp))
    return {
        "requested": requested,
        "size": size,
        "cap": cap,
        "capped": comp > max_comp,
        "rounded": uncompress_bufsize(comp) != requested,
    }


def has_net_smc_mem(kernel):
    """Whether a kernel of that release has ``net.smc.rmem``/``wmem`` (by its profile)."""
    return smc_level(kernel)["net_smc_mem"]


def decide_method(kernel, smc_rmem_present=None):
    """``net.smc`` or ``tcp``: presence of /proc/sys/net/smc/rmem wins (distribution backports);
    without that knowledge (smc not loaded, or the controller) the kernel release decides."""
    if smc_rmem_present is not None:
        return METHOD_NET_SMC if smc_rmem_present else METHOD_TCP
    return METHOD_NET_SMC if has_net_smc_mem(kernel) else METHOD_TCP


def requested_from_tcp(tcp_default):
    """SMC buffer size requested by a kernel without net.smc.rmem for a TCP default value."""
    return max(int(tcp_default), SMC_BUF_MIN_SIZE) // 2


def tcp_default_for(buffer_size):
    """TCP default (middle) value that makes a kernel without net.smc.rmem request ``buffer_size``."""
    return 2 * int(buffer_size)


def parse_tcp_triplet(value, name):
    """``"4096 131072 6291456"`` (or a list) -> (4096, 131072, 6291456)."""
    if isinstance(value, (list, tuple)):
        parts = list(value)
    else:
        parts = str(value).split()
    if len(parts) != 3:
        raise SizingError("%s: expected three values (min default max), got %r" % (name, value))
    result = []
    for part in parts:
        number = parse_size(part, name)
        if not TCP_VALUE_MIN <= number <= TCP_VALUE_MAX:
            raise SizingError(
                "%s: each value must be between %d and %d, got %d" % (name, TCP_VALUE_MIN, TCP_VALUE_MAX, number)
            )
        result.append(number)
    return tuple(result)


def tcp_min_above_default(name, low, size):
    """The error of a TCP minimum above the TCP default that buffer ``name`` of ``size`` needs."""
    return "tcp_%s_min: %d is above the TCP default %d that %s=%d needs" % (
        name,
        low,
        tcp_default_for(size),
        name,
        size,
    )


def tcp_triplet_basis(file_value, live_value, name):
    """The TCP triplet whose minimum and maximum a new setting keeps.

    The value from the sysctl.d file the module owns wins over the live one when it parses: a
    live minimum/maximum changed behind the module's back is drift to undo. A missing or
    unreadable file value falls back to the live value (None when there is neither).
    """
    if file_value is not None:
        try:
            parse_tcp_triplet(file_value, name)
            return file_value
        except SizingError:
            pass
    return live_value


def format_tcp_triplet(values):
    return " ".join(str(int(v)) for v in values)


def validate_setting(key, value):
    """Validate one ``net.smc.*`` setting (short key or with prefix) -> (short_key, value): an int,
    or the text of a string key (``hs_ctrl``)."""
    short = key[len(SMC_SYSCTL_PREFIX) :] if str(key).startswith(SMC_SYSCTL_PREFIX) else str(key)
    spec = SMC_SYSCTLS.get(short)
    if spec is None:
        raise SizingError("settings: unknown key %r; known net.smc keys: %s" % (key, ", ".join(sorted(SMC_SYSCTLS))))
    field = "settings.%s" % short
    if spec.get("string"):
        text = "" if value is None else value
        if not isinstance(text, str) or not re.fullmatch(spec["string"], text):
            raise SizingError(
                "%s: expected a name of at most %d letters, digits, '_' or '.' (empty for none), got %r"
                % (field, spec["max"], value)
            )
        return short, text
    if spec["size"]:
        number = parse_size(value, field)
    else:
        if isinstance(value, bool) or not (isinstance(value, int) or re.fullmatch(r"\s*-?\d+\s*", str(value))):
            raise SizingError(
                "%s: expected an integer between %d and %d, got %r" % (field, spec["min"], spec["max"], value)
            )
        number = int(value)
    if not spec["min"] <= number <= spec["max"]:
        raise SizingError("%s: %d is outside the kernel's range %d..%d" % (field, number, spec["min"], spec["max"]))
    return short, number


def plan_buffers(
    kernel,
    rmem=None,
    wmem=None,
    method=None,
    protocol="smcd",
    smcr_buf_type=0,
    tcp_rmem=None,
    tcp_wmem=None,
    tcp_rmem_min=None,
    tcp_rmem_max=None,
    tcp_wmem_min=None,
    tcp_wmem_max=None,
    smc_rmem_present=None,
):
    """Sysctls that make ``kernel`` use SMC buffers of ``rmem``/``wmem`` bytes.

    ``tcp_rmem``/``tcp_wmem``: the host's current triplets (kept for min/max unless
    ``tcp_*_min``/``tcp_*_max`` are given; kernel defaults when None).
    Returns a dict: ``method``, ``sysctls`` (full key -> value string), ``effective_rmem``,
    ``effective_wmem`` (None when not requested), ``details`` and ``warnings``.
    Raises SizingError for bad input.
    """
    release = kernel
    kernel = parse_kernel_release(kernel)
    if protocol not in PROTOCOLS:
        raise SizingError("protocol: expected one of %s, got %r" % (", ".join(PROTOCOLS), protocol))
    if method is None:
        method = decide_method(release, smc_rmem_present)
    if method not in METHODS:
        raise SizingError("method: expected one of %s, got %r" % (", ".join(METHODS), method))
    wanted = {}
    for name, value in (("rmem", rmem), ("wmem", wmem)):
        if value is None:
            continue
        wanted[name] = buffer_size(value, name)

    sysctls = {}
    warnings = []
    details = {}
    limits = {
        "rmem": (tcp_rmem, tcp_rmem_min, tcp_rmem_max, TCP_RMEM_DEFAULT),
        "wmem": (tcp_wmem, tcp_wmem_min, tcp_wmem_max, TCP_WMEM_DEFAULT),
    }
    for name in ("rmem", "wmem"):
        if name not in wanted:
            continue
        size = wanted[name]
        if method == METHOD_NET_SMC:
            sysctls[SMC_SYSCTL_PREFIX + name] = str(size)
            requested = size
        else:
            current, low, high, default = limits[name]
            current = parse_tcp_triplet(current, TCP_KEYS[name]) if current is not None else default
            low = tcp_value(low, "tcp_%s_min" % name) if low is not None else current[0]
            high = tcp_value(high, "tcp_%s_max" % name) if high is not None else current[2]
            middle = tcp_default_for(size)
            if low > middle:
                raise SizingError(tcp_min_above_default(name, low, size))
            if high < middle:
                warnings.append(
                    "%s: raised the TCP maximum %d to the new TCP default %d" % (TCP_KEYS[name], high, middle)
                )
                high = middle
            sysctls[TCP_KEYS[name]] = format_tcp_triplet((low, middle, high))
            requested = requested_from_tcp(middle)
            warnings.append(
                "%s changes the default buffer of every TCP socket on the host, not only "
                "SMC (this kernel has no net.smc.%s)" % (TCP_KEYS[name], name)
            )
        eff = effective_buffer(requested, release, protocol, smcr_buf_type)
        details[name] = eff
        if eff["capped"]:
            warnings.append(_capped_text(name, size, release, protocol, eff["cap"]))
        elif eff["rounded"]:
            warnings.append(
                "%s: %d bytes is not 16K x 2^n; the kernel rounds it up to %s" % (name, size, format_size(eff["size"]))
            )
    return {
        "method": method,
        "kernel": "%d.%d.%d" % kernel,
        "protocol": protocol,
        "sysctls": sysctls,
        "effective_rmem": details["rmem"]["size"] if "rmem" in details else None,
        "effective_wmem": details["wmem"]["size"] if "wmem" in details else None,
        "details": details,
        "warnings": warnings,
    }


def _capped_text(name, size, release, protocol, cap):
    return "%s: %s requested, but %s buffers on this kernel (%s) are at most %s" % (
        name,
        format_size(size),
        protocol.upper(),
        level_text(smc_level(release)),
        format_size(cap),
    )


def service_size_warnings(kernel, services, protocol="smcd", smcr_buf_type=0):
    """Warnings for per-service buffer sizes (the smc role's ``smc_services``: dicts with ``name`` and
    ``rmem``/``wmem``, sizes as ``parse_size`` reads them) above what ``kernel`` allocates for
    ``protocol``: the kernel hands out the smaller buffer without an error."""
    cap = buffer_cap(kernel, protocol, smcr_buf_type)
    warnings = []
    for index, service in enumerate(services or []):
        if not isinstance(service, dict):
            continue
        for key in ("rmem", "wmem"):
            if service.get(key) is None:
                continue
            size = parse_size(service[key], "smc_services[%d].%s" % (index, key))
            if size > cap:
                where = "smc_services[%d] (%s) %s" % (index, service.get("name"), key)
                warnings.append(_capped_text(where, size, kernel, protocol, cap))
    return warnings


def current_effective(kernel, method, live, protocol="smcd", smcr_buf_type=0):
    """Effective SMC buffer sizes from live sysctl values (full key -> value string).

    Returns ``(rmem, wmem)``; an entry is None when the value it depends on is unknown.
    """
    result = []
    for name in ("rmem", "wmem"):
        requested = None
        if method == METHOD_NET_SMC:
            raw = live.get(SMC_SYSCTL_PREFIX + name)
            if raw is not None and str(raw).strip().isdigit():
                requested = int(raw)
        else:
            raw = live.get(TCP_KEYS[name])
            if raw is not None:
                try:
                    requested = requested_from_tcp(parse_tcp_triplet(raw, TCP_KEYS[name])[1])
                except SizingError:
                    requested = None
        if requested is None:
            result.append(None)
        else:
            result.append(effective_buffer(requested, kernel, protocol, smcr_buf_type)["size"])
    return tuple(result)
