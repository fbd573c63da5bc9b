# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""``smcd``/``smcr`` (smc-tools): argument formats and parsers for stats, device and linkgroup.

Formats, from smc-tools stats.c, dev.c, linkgroup.c and util.c (1.6.0 to 1.8.5):

* ``smcd [-d|-a|-da] stats [show|reset|json]``: the options are one word each and the last one
  wins, so details *and* absolute must be ``-da``. ``reset`` prints the counters, then resets
  them. Counters are relative to the last reset (a cache file per user in /tmp) unless ``-a``.
  Before 1.8.7 that file is ``/tmp/.smcstats.u<uid>``, opened with ``O_CREAT`` and locked with
  ``flock`` by every run without ``-a`` and by ``reset``: a file another user created there first
  makes the command fail or wait forever. TMPDIR does not move it; ``-a`` without ``reset`` never
  opens it. ``smcd -v`` prints the release.
* Text: ``SMC-D Connections Summary`` (``SMC-R`` for smcr) with ``Total connections handled``,
  ``SMC connections`` (``(client N, server N)`` and ``v1``/``v2`` lines with -d), ``Handshake
  errors``, ``Avg requests per SMC conn`` (``%14.1f``), ``TCP fallback`` (with -d: up to three
  reasons per ``Server``/``Client`` as ``%-12s %12d``); ``RX Stats``/``TX Stats`` with ``Data
  transmitted (Bytes) N (abbr)``, ``Total requests``, ``Buffer usage (Bytes)`` (1.8.4+),
  ``Buffer full N (x.xx%)`` and, for TX, ``Buffer full (remote)``, ``Buffer too small``,
  ``Buffer too small (remote)``, with -d ``Buffer downgrades``/``Buffer reuses``, then a
  ``8KB 16KB ... >512KB`` header and ``Bufs``/``Reqs`` rows of ``%6s`` cells abbreviated by
  get_abbreviated (``358.2M``: 1000-based K/M/G/T/P); ``Extras`` with ``Special socket calls``
  (and ``cork``, ``nodelay``, ``sendpage``, ``splice``, ``urgent data`` with -d).
* JSON (``stats json``): one line ``{"SMCD": {"SMC_INT_TX_BUF_8K": n, ...}}`` with the raw
  per-technology counters (exact buffer and request histograms, no fallback or handshake
  error counts). ``INT`` = buffer sizes (``Bufs``), ``USR`` = request sizes (``Reqs``).
* ``smcd device``: ``FID  Type  PCI-ID  PCHID  InUse  #LGs  PNET-ID`` rows
  (``%04x %-4s  %-12s  %04x   %-4s  %5d  %-16s``, a PNET ID set by smc_pnet starts with ``*``).
  ``smcr device``: ``Net-Dev IB-Dev IB-P IB-State Type Crit [FID PCI-ID PCHID] #Links PNET-ID``
  (the bracketed columns with -d). For a device without a PCI function (soft-RoCE) dev.c prints an
  uninitialised struct in FID, PCI-ID, PCHID and Type: zeros in a fresh process, arbitrary bytes
  (not UTF-8, blanks, even a newline) once link groups were dumped before. The device readers take
  the output as bytes (``run_command`` text is turned back into the bytes it was decoded from with
  ``surrogateescape``), cut rows at the byte widths of the printf formats and split lines at newline
  bytes only; such a row keeps its other columns and has None for FID, PCI-ID, PCHID and Type.
  linkgroup.c clears its structs, so the link group tables have no such bytes.
* ``smcd linkgroup``: ``LG-ID VLAN #Conns PNET-ID``; ``smcr linkgroup``: ``LG-ID LG-Role LG-Type
  VLAN #Conns PNET-ID``; with -d both print ``Key : value`` blocks separated by blank lines.

The same fields from the kernel's netlink replies (``smc_netlink``), mapped the way smc-tools maps
them before it prints (stats.c ``print_as_text``/``print_as_json``, dev.c
``show_dev_smcd_info``/``show_devs_smcr_details``, linkgroup.c ``show_lgr_smc*_info``): the
``stats json`` counter names from the ``SMC_NLA_STATS_T_*`` nests, handshake errors from
``SMC_NLA_STATS_*_HS_ERR_CNT``, TCP fallbacks and their reason names (``get_fbackstr``: the
``SMC_CLC_DECL_*`` codes) from ``SMC_NETLINK_GET_FBACK_STATS``; ``InUse`` is ``IS_CRIT``, ``#LGs``
``USE_CNT``, the type by PCI device ID, an SMC-R row per valid port, the LG-ID ``%08x`` of the
u32. What the two paths give differently: netlink has every fallback reason (the text the top
three per role), full IB device names (the text cuts them at 8 characters), None for a counter the
kernel does not put (smc-tools prints 0), and counts since the module was loaded (no reset).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import re

from ansible_collections.s390x.network.plugins.module_utils.smc import clc as smc_clc

PROTOCOLS = ("smcd", "smcr")
BUCKETS = ("8KB", "16KB", "32KB", "64KB", "128KB", "256KB", "512KB", ">512KB")
_JSON_BUCKETS = ("8K", "16K", "32K", "64K", "128K", "256K", "512K")
_MAGNITUDE = {"K": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15}
_ABBR_RE = re.compile(r"(\d+(?:\.\d+)?)([KMGTP])?")
_COUNT_RE = r"\s+(\d+)"
_ROLE_RE = r"(?:\s*\(client\s+(\d+),\s*server\s+(\d+)\))?"
_PCT_RE = r"(?:\s*\(\s*([0-9.]+|nan|inf|-nan)%\))?"


class StatsError(ValueError):
    """Output that cannot be understood."""


#: where smc-tools keep the counters of the last ``stats reset`` (stats.c ``open_cache_file``: a fixed
#: path per user id, not taken from TMPDIR); every ``stats`` run without ``-a`` opens it, ``reset`` too
TOOL_BASELINE = "/tmp/.smcstats.u%d"
#: the first smc-tools release without the denial of service through that file
SAFE_BASELINE_RELEASE = (1, 8, 7)
_VERSION_RE = re.compile(r"smc-tools-([0-9]+)\.([0-9]+)(?:\.([0-9]+))?")


def argv_version(protocol):
    """``smcd -v``: prints ``smcd utility, smc-tools-1.8.5`` on stderr and exits 255, without netlink."""
    return [protocol, "-v"]


def parse_tool_version(output):
    """``(major, minor, patch)`` from the ``-v`` output; None when it names no release."""
    match = _VERSION_RE.search(printable(output))
    if not match:
        return None
    return tuple(int(part or 0) for part in match.groups())


def tool_version(run, protocol):
    """The smc-tools release of ``protocol``'s tool, asked with ``-v`` (None when it does not say)."""
    dummy, out, err = run(argv_version(protocol), False)
    return parse_tool_version(printable(err) + printable(out))


def version_text(version):
    return "unknown" if version is None else ".".join(str(part) for part in version)


def baseline_is_safe(version):
    """Whether a ``stats`` run that uses the reset baseline may run: only with smc-tools 1.8.7 or later
    (an unknown release counts as older)."""
    return version is not None and tuple(version) >= SAFE_BASELINE_RELEASE


def unsafe_baseline_message(protocol, version, uid):
    return (
        "%s is smc-tools %s: releases before %s keep the statistics reset baseline in %s, a fixed path in /tmp "
        "that any local user can create first and so block or fail the command (denial of service, fixed in "
        "smc-tools %s)"
        % (
            protocol,
            version_text(version),
            version_text(SAFE_BASELINE_RELEASE),
            TOOL_BASELINE % uid,
            version_text(SAFE_BASELINE_RELEASE),
        )
    )


def options(details=False, absolute=False):
    """The single option word smcd/smcr understand for this combination."""
    if details and absolute:
        return ["-da"]
    if details:
        return ["-d"]
    if absolute:
        return ["-a"]
    return []


def argv_stats(protocol, details=False, absolute=False, reset=False):
    return [protocol] + options(details, absolute) + ["stats", "reset" if reset else "show"]


def argv_stats_json(protocol, absolute=False):
    return [protocol] + options(False, absolute) + ["stats", "json"]


def argv_devices(protocol, details=False):
    return [protocol] + options(details, False) + ["device"]


def argv_linkgroups(protocol, details=False):
    return [protocol] + options(details, False) + ["linkgroup"]


def expand(cell):
    """``358.2M`` -> 358200000, ``51`` -> 51; None for something else."""
    cell = (cell or "").strip()
    match = _ABBR_RE.fullmatch(cell)
    if not match:
        return None
    number, suffix = match.group(1), match.group(2)
    if suffix is None:
        return int(float(number)) if "." in number else int(number)
    return int(round(float(number) * _MAGNITUDE[suffix]))


def _empty_direction(tx):
    data = {
        "bytes": None,
        "requests": None,
        "buffer_usage": None,
        "buffer_full": None,
        "buffer_full_pct": None,
        "buffer_downgrades": None,
        "buffer_reuses": None,
        "buffers": None,
        "request_sizes": None,
    }
    if tx:
        data.update(
            {
                "buffer_full_remote": None,
                "buffer_full_remote_pct": None,
                "buffer_too_small": None,
                "buffer_too_small_pct": None,
                "buffer_too_small_remote": None,
                "buffer_too_small_remote_pct": None,
            }
        )
    return data


def empty_stats(protocol=None):
    return {
        "protocol": protocol,
        "connections": {
            "total": None,
            "smc": None,
            "smc_client": None,
            "smc_server": None,
            "v1": None,
            "v2": None,
            "handshake_errors": None,
            "handshake_errors_client": None,
            "handshake_errors_server": None,
            "tcp_fallback": None,
            "tcp_fallback_client": None,
            "tcp_fallback_server": None,
            "fallback_reasons": None,
            "fallback_reasons_by_role": None,
            "avg_requests_per_conn": None,
        },
        "rx": _empty_direction(False),
        "tx": _empty_direction(True),
        "extras": {
            "special_socket_calls": None,
            "cork": None,
            "nodelay": None,
            "sendpage": None,
            "splice": None,
            "urgent_data": None,
        },
    }


def _pct(text):
    if text is None:
        return None
    try:
        return float(text)
    except ValueError:
        return None


# (label regex, handler) for the lines of a direction section.
_DIRECTION_LINES = (
    (re.compile(r"^Data transmitted \(Bytes\)" + _COUNT_RE), ("bytes",)),
    (re.compile(r"^Total requests" + _COUNT_RE), ("requests",)),
    (re.compile(r"^Buffer usage \(Bytes\)" + _COUNT_RE), ("buffer_usage",)),
    (re.compile(r"^Buffer full \(remote\)" + _COUNT_RE + _PCT_RE), ("buffer_full_remote", "buffer_full_remote_pct")),
    (re.compile(r"^Buffer full" + _COUNT_RE + _PCT_RE), ("buffer_full", "buffer_full_pct")),
    (
        re.compile(r"^Buffer too small \(remote\)" + _COUNT_RE + _PCT_RE),
        ("buffer_too_small_remote", "buffer_too_small_remote_pct"),
    ),
    (re.compile(r"^Buffer too small" + _COUNT_RE + _PCT_RE), ("buffer_too_small", "buffer_too_small_pct")),
    (re.compile(r"^Buffer downgrades" + _COUNT_RE), ("buffer_downgrades",)),
    (re.compile(r"^Buffer reuses" + _COUNT_RE), ("buffer_reuses",)),
)
_SUMMARY_LINES = (
    (re.compile(r"^Total connections handled" + _COUNT_RE), "total"),
    (re.compile(r"^SMC connections" + _COUNT_RE + _ROLE_RE), "smc"),
    (re.compile(r"^v1" + _COUNT_RE), "v1"),
    (re.compile(r"^v2" + _COUNT_RE), "v2"),
    (re.compile(r"^Handshake errors" + _COUNT_RE + _ROLE_RE), "handshake_errors"),
    (re.compile(r"^TCP fallback" + _COUNT_RE + _ROLE_RE), "tcp_fallback"),
)
_AVG_RE = re.compile(r"^Avg requests per SMC conn\s+([0-9.]+|nan|-nan|inf)")
_EXTRA_LINES = (
    (re.compile(r"^Special socket calls" + _COUNT_RE), "special_socket_calls"),
    (re.compile(r"^cork" + _COUNT_RE), "cork"),
    (re.compile(r"^nodelay" + _COUNT_RE), "nodelay"),
    (re.compile(r"^sendpage" + _COUNT_RE), "sendpage"),
    (re.compile(r"^splice" + _COUNT_RE), "splice"),
    (re.compile(r"^urgent data" + _COUNT_RE), "urgent_data"),
)
_REASON_RE = re.compile(r"(\[unknown\]|[A-Z][A-Z0-9_]*)\s+(\d+)")


def parse_stats_text(text):
    """Stats dict (see empty_stats) from ``smcd``/``smcr [-d] stats`` text output.

    Fields the output does not show (e.g. v1/v2 without -d) stay None. Unknown lines are ignored,
    so partial output (like the study's ``[...]`` snippets) parses too.
    """
    stats = empty_stats()
    conns = stats["connections"]
    section = None
    role = None
    header = None
    seen = False
    for raw in (text or "").splitlines():
        line = raw.strip()
        if not line:
            continue
        if re.fullmatch(r"SMC-([DR]) Connections Summary", line):
            stats["protocol"] = "smcd" if "SMC-D" in line else "smcr"
            section, seen = "summary", True
            continue
        if line in ("RX Stats", "TX Stats"):
            section, header, seen = line[:2].lower(), None, True
            continue
        if line == "Extras":
            section, seen = "extras", True
            continue
        if section == "summary":
            if line in ("Server", "Client"):
                role = line.lower()
                continue
            avg = _AVG_RE.match(line)
            if avg:
                conns["avg_requests_per_conn"] = _pct(avg.group(1))
                continue
            matched = False
            for regex, name in _SUMMARY_LINES:
                match = regex.match(line)
                if match:
                    conns[name] = int(match.group(1))
                    if name != "total" and name not in ("v1", "v2") and match.lastindex and match.lastindex >= 3:
                        suffix = "_client", "_server"
                        key = "smc" if name == "smc" else name
                        conns[key + suffix[0]] = int(match.group(2))
                        conns[key + suffix[1]] = int(match.group(3))
                    if name == "tcp_fallback":
                        role = None
                        if match.lastindex and match.lastindex >= 3:
                            conns["fallback_reasons"] = {}
                            conns["fallback_reasons_by_role"] = {"server": {}, "client": {}}
                    matched = True
                    break
            if matched:
                continue
            reason = _REASON_RE.fullmatch(line)
            if reason and role is not None and conns["fallback_reasons_by_role"] is not None:
                name, count = reason.group(1), int(reason.group(2))
                conns["fallback_reasons_by_role"][role][name] = count
                conns["fallback_reasons"][name] = conns["fallback_reasons"].get(name, 0) + count
            continue
        if section in ("rx", "tx"):
            direction = stats[section]
            words = line.split()
            if all(w in BUCKETS for w in words) and words:
                header = words
                continue
            if words[0] in ("Bufs", "Reqs") and header:
                cells = words[1:]
                values = dict((bucket, expand(cell)) for bucket, cell in zip(header, cells))
                key = "buffers" if words[0] == "Bufs" else "request_sizes"
                direction[key] = dict((b, values.get(b)) for b in BUCKETS)
                continue
            for regex, names in _DIRECTION_LINES:
                match = regex.match(line)
                if match:
                    direction[names[0]] = int(match.group(1))
                    if len(names) > 1:
                        direction[names[1]] = _pct(match.group(2))
                    break
            continue
        if section == "extras":
            for regex, name in _EXTRA_LINES:
                match = regex.match(line)
                if match:
                    stats["extras"][name] = int(match.group(1))
                    break
    if not seen:
        raise StatsError("no smcd/smcr stats found in the output")
    return stats


def parse_stats_json(text):
    """``(protocol, counters)`` from ``stats json`` output."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise StatsError("stats json: not JSON (%s)" % exc)
    if not isinstance(data, dict) or len(data) != 1:
        raise StatsError("stats json: expected one object {\"SMCD\"|\"SMCR\": {...}}")
    key = list(data)[0]
    if key not in ("SMCD", "SMCR") or not isinstance(data[key], dict):
        raise StatsError("stats json: unexpected top-level key %r" % key)
    counters = {}
    for name, value in data[key].items():
        if isinstance(value, bool) or not isinstance(value, int):
            raise StatsError("stats json: %s is not an integer" % name)
        counters[name] = value
    return key.lower(), counters


def _histogram(counters, prefix):
    names = ["%s_%s" % (prefix, b) for b in _JSON_BUCKETS]
    if not all(n in counters for n in names):
        return None
    result = dict((bucket, counters[name]) for bucket, name in zip(BUCKETS, names))
    result[">512KB"] = counters.get("%s_1024K" % prefix, 0) + counters.get("%s_G_1024K" % prefix, 0)
    return result


def merge_json(stats, counters):
    """Overlay exact counters from ``stats json`` onto text-parsed stats (in place, returned).

    The JSON has no handshake error or fallback counts; those stay from the text, and the totals
    that depend on them are recomputed from the exact SMC counts.
    """
    conns = stats["connections"]
    get = counters.get
    for direction, name in (("rx", "RX"), ("tx", "TX")):
        data = stats[direction]
        buffers = _histogram(counters, "SMC_INT_%s_BUF" % name)
        requests = _histogram(counters, "SMC_USR_%s_BUF" % name)
        if buffers is not None:
            data["buffers"] = buffers
        if requests is not None:
            data["request_sizes"] = requests
        for field, key in (
            ("bytes", "SMC_%s_BYTES" % name),
            ("requests", "SMC_%s_CNT" % name),
            ("buffer_usage", "SMC_%s_RMB_USAGE" % name),
            ("buffer_full", "SMC_INT_%s_BUF_FULL_CNT" % name),
            ("buffer_downgrades", "SMC_INT_%s_BUF_DGRADE_CNT" % name),
            ("buffer_reuses", "SMC_INT_%s_BUF_REUSE_CNT" % name),
        ):
            if get(key) is not None:
                data[field] = get(key)
        if direction == "tx":
            for field, key in (
                ("buffer_full_remote", "SMC_INT_TX_BUF_FULL_PEER_CNT"),
                ("buffer_too_small", "SMC_INT_TX_BUF_SIZE_SM_CNT"),
                ("buffer_too_small_remote", "SMC_INT_TX_BUF_SIZE_SM_PEER_CNT"),
            ):
                if get(key) is not None:
                    data[field] = get(key)
        reqs = data["requests"]
        for field in ("buffer_full", "buffer_full_remote", "buffer_too_small", "buffer_too_small_remote"):
            if field in data and data[field] is not None and reqs is not None:
                data[field + "_pct"] = round(100.0 * data[field] / reqs, 2) if reqs else 0.0
    names = ("SMC_CLNT_V1_SUCC_CNT", "SMC_CLNT_V2_SUCC_CNT", "SMC_SRV_V1_SUCC_CNT", "SMC_SRV_V2_SUCC_CNT")
    if all(get(n) is not None for n in names):
        c1, c2, s1, s2 = [get(n) for n in names]
        conns.update(smc=c1 + c2 + s1 + s2, smc_client=c1 + c2, smc_server=s1 + s2, v1=c1 + s1, v2=c2 + s2)
        if conns["handshake_errors"] is not None and conns["tcp_fallback"] is not None:
            conns["total"] = conns["smc"] + conns["handshake_errors"] + conns["tcp_fallback"]
        rx, tx = get("SMC_RX_CNT"), get("SMC_TX_CNT")
        if rx is not None and tx is not None:
            conns["avg_requests_per_conn"] = round(float(rx + tx) / conns["smc"], 1) if conns["smc"] else 0.0
    extras = stats["extras"]
    for field, key in (
        ("cork", "SMC_CORK_CNT"),
        ("nodelay", "SMC_NDLY_CNT"),
        ("sendpage", "SMC_SENDPAGE_CNT"),
        ("splice", "SMC_SPLICE_CNT"),
        ("urgent_data", "SMC_URG_DATA_CNT"),
    ):
        if get(key) is not None:
            extras[field] = get(key)
    if all(extras[f] is not None for f in ("cork", "nodelay", "sendpage", "splice", "urgent_data")):
        extras["special_socket_calls"] = sum(
            extras[f] for f in ("cork", "nodelay", "sendpage", "splice", "urgent_data")
        )
    return stats


# Device tables, from dev.c (1.6.0 to 1.8.5; ``%-.15s``/``%-.8s`` when a name is longer). The widths
# are bytes: a name that is not ASCII keeps its columns only when read as bytes.
#   smcd: "%04x " "%-4s  " "%-12s  " "%04x   " "%-4s  " "%5d " " %-16s "
#   smcr: "%-15s " "%-8s " "%4d  " "%8s  " "%-13s  " "%3s   " ["%04x  " "%-12s  " "%04x    "] "%5d " " %-16s "
# dev.c fills a stack struct it never clears, only from the attributes the kernel sends: for a device
# without a PCI function (soft-RoCE) FID, PCI-ID, PCHID and Type print whatever the stack held (zeros on a
# fresh process, arbitrary bytes once a link group was dumped before).
_SMCD_ROW = re.compile(
    br"(?P<fid>[0-9a-f]{4,8}) (?P<type>\S+) +(?P<pci>.*)  (?P<pchid>[0-9a-f]{4})   (?P<crit>Yes |No  )  "
    br"(?P<count> *-?[0-9]+)  (?P<pnet>\S*) *",
    re.S,
)
_SMCR_HEAD = (
    br"(?P<netdev>.{15}) (?P<ibdev>.{8}) (?P<port> *[0-9]+)  (?P<state>.{8})  (?P<type>.{13})  (?P<crit>Yes| No)   "
)
_SMCR_TAIL = br"(?P<count> *-?[0-9]+)  (?P<pnet>\S*) *"
_SMCR_ROW = re.compile(_SMCR_HEAD + _SMCR_TAIL, re.S)
_SMCR_ROW_DETAILS = re.compile(
    _SMCR_HEAD + br"(?P<fid>[0-9a-f]{4,8})  (?P<pci>.*)  (?P<pchid>[0-9a-f]{4})    " + _SMCR_TAIL, re.S
)
_PCI_ADDRESS_RE = re.compile(r"[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]")
_NAME_RE = re.compile(r"[^\s/]+")
_TYPE_RE = re.compile(r"[A-Za-z0-9_]+")
_STATE_RE = re.compile(r"[A-Z]+|0x[0-9a-f]+\?")
_PORT_STATES = ("ACTIVE", "INACTIVE")
# A row cut by a newline byte in an unreadable column is joined with at most this many next lines.
_MAX_JOIN = 3


def as_bytes(output):
    """Tool output as the bytes it printed. AnsibleModule.run_command decodes with surrogateescape
    on Python 3, so bytes that are not UTF-8 come back unchanged."""
    if output is None:
        return b""
    if isinstance(output, bytes):
        return output
    return output.encode("utf-8", "surrogateescape")


def printable(output):
    """Tool output as text that can be returned to the controller (bytes that are not UTF-8 as U+FFFD)."""
    return as_bytes(output).decode("utf-8", "replace")


def _text(raw, grammar=_NAME_RE):
    """A column's bytes as text when it is UTF-8 and matches ``grammar``; None when blank or unreadable."""
    try:
        text = raw.decode("utf-8").strip()
    except UnicodeDecodeError:
        return None
    if not text or not grammar.fullmatch(text):
        return None
    return text


def _pci_function(match):
    """``(fid, pci_id, pchid)`` when the PCI-ID column holds a PCI address, else ``(None, None, None)``:
    the FID and PCHID of a device without a PCI function are no function's."""
    pci_id = _text(match.group("pci"), _PCI_ADDRESS_RE)
    if pci_id is None:
        return None, None, None
    return int(match.group("fid"), 16), pci_id, int(match.group("pchid"), 16)


def _device_rows(output, is_header, patterns):
    """(regex match or None, line, details) per device row of a table. A row that a newline byte in an
    unreadable column cut in two is joined with the next lines, as long as those are no rows of their
    own. ``patterns(details)`` gives the regexes to try, in order."""
    lines = as_bytes(output).split(b"\n")
    details = None

    def match(candidate):
        for pattern in patterns(details):
            found = pattern.fullmatch(candidate.rstrip(b"\r"))
            if found:
                return found
        return None

    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if not line.strip():
            continue
        if is_header(line):
            details = b"PCI-ID" in line
            continue
        found = match(line)
        joined = 0
        while found is None and joined < _MAX_JOIN and index + joined < len(lines):
            following = lines[index + joined]
            if not following.strip() or is_header(following) or match(following):
                break
            joined += 1
            found = match(b"\n".join(lines[index - 1 : index + joined]))
        if found is not None:
            index += joined
        yield found, line, details


def _pnet(text):
    text = (text or "").strip()
    if text.startswith("*"):
        return text[1:], True
    return text, False


def _pnet_column(raw):
    pnet_id, by_user = _pnet(_text(raw) or "")
    return pnet_id or None, by_user


def parse_devices_smcd(text):
    """Devices from ``smcd [-d] device`` (str or bytes). A row whose FID, PCI-ID or PCHID cannot be
    read is kept with those fields None."""
    devices = []
    for match, dummy, dummy in _device_rows(
        text, lambda line: line.split()[:1] == [b"FID"], lambda details: (_SMCD_ROW,)
    ):
        if match is None:
            continue
        fid, pci_id, pchid = _pci_function(match)
        pnet_id, by_user = _pnet_column(match.group("pnet"))
        devices.append(
            {
                "fid": fid,
                "type": _text(match.group("type"), _TYPE_RE) if pci_id else None,
                "pci_id": pci_id,
                "pchid": pchid,
                "in_use": match.group("crit") == b"Yes ",
                "linkgroups": int(match.group("count")),
                "pnet_id": pnet_id,
                "pnet_id_by_user": by_user,
            }
        )
    return devices


def _smcr_patterns(details):
    if details is None:  # no header: a -d row has the three PCI columns
        return (_SMCR_ROW_DETAILS, _SMCR_ROW)
    return (_SMCR_ROW_DETAILS,) if details else (_SMCR_ROW,)


def _smcr_type(raw, pci_id, details):
    """The Type column: None for ``0`` (no PCI device ID was sent) and, with -d, for a device without a
    PCI function, whose Type is as unreadable as its FID."""
    kind = _text(raw, _TYPE_RE)
    if kind == "0" or (details and pci_id is None):
        return None
    return kind


def parse_devices_smcr(text):
    """Devices (one per port) from ``smcr [-d] device`` (str or bytes). With ``-d`` also FID, PCI-ID
    and PCHID; a device without a PCI function (soft-RoCE) is kept with those fields None, also when
    the tool printed arbitrary bytes there. Rows whose blanks were collapsed (copied text) are read
    by their words."""
    devices = []
    for match, line, header_details in _device_rows(text, lambda line: line.startswith(b"Net-Dev"), _smcr_patterns):
        if match is None:
            device = _smcr_words(printable(line), header_details)
            if device is not None:
                devices.append(device)
            continue
        details = "fid" in match.groupdict()
        fid, pci_id, pchid = _pci_function(match) if details else (None, None, None)
        pnet_id, by_user = _pnet_column(match.group("pnet"))
        devices.append(
            {
                "net_dev": _text(match.group("netdev")),
                "ib_dev": _text(match.group("ibdev")),
                "port": int(match.group("port")),
                "port_state": _text(match.group("state"), _STATE_RE),
                "type": _smcr_type(match.group("type"), pci_id, details),
                "critical": match.group("crit") == b"Yes",
                "fid": fid,
                "pci_id": pci_id,
                "pchid": pchid,
                "links": int(match.group("count")),
                "pnet_id": pnet_id,
                "pnet_id_by_user": by_user,
            }
        )
    return devices


def _smcr_words(line, details):
    """An ``smcr device`` row whose blanks were collapsed, anchored on the port number and state; with
    ``details`` (None: unknown) the PCI columns, of which an empty PCI-ID leaves one word fewer."""
    words = line.split()
    idx = None
    for i in range(len(words) - 1):
        if words[i].isdigit() and (words[i + 1] in _PORT_STATES or words[i + 1].endswith("?")):
            idx = i
            break
    if idx is None or idx < 1 or len(words) < idx + 5:
        return None
    rest = words[idx + 2 :]
    tail = rest[2:]
    device = {
        "net_dev": words[idx - 2] if idx >= 2 else None,
        "ib_dev": words[idx - 1],
        "port": int(words[idx]),
        "port_state": words[idx + 1],
        "type": None if rest[0] == "0" else rest[0],
        "critical": rest[1] == "Yes",
        "fid": None,
        "pci_id": None,
        "pchid": None,
    }
    if len(tail) >= 4 and _PCI_ADDRESS_RE.fullmatch(tail[1]) and re.fullmatch(r"[0-9a-f]{4,8}", tail[0]):
        device["fid"], device["pci_id"], device["pchid"] = int(tail[0], 16), tail[1], int(tail[2], 16)
        tail = tail[3:]
    elif details and len(tail) >= 3:
        tail = tail[2:]
    if not tail or not tail[0].lstrip("-").isdigit():
        return None
    device["links"] = int(tail[0])
    pnet_id, by_user = _pnet(tail[1] if len(tail) > 1 else "")
    device["pnet_id"], device["pnet_id_by_user"] = pnet_id or None, by_user
    return device


def _int_auto(text):
    try:
        return int(text, 0)
    except ValueError:
        return int(text, 16)


_DETAIL_KEYS = {
    "LG-ID": "id",
    "LG-Role": "role",
    "LG-Type": "type",
    "VLAN": "vlan",
    "PNET-ID": "pnet_id",
    "Version": "version",
    "Peer-Rel": "peer_release",
    "Peer-Host": "peer_host",
    "Peer-OS": "peer_os",
    "Direct": "direct",
    "EID": "eid",
    "#Conns": "conns",
    "Sndbuf": "sndbuf",
    "RMB": "rmb",
    "DMB": "dmb",
}


def parse_linkgroups(text):
    """Link groups from ``smcd|smcr [-d] linkgroup`` (table or ``Key : value`` blocks)."""
    groups = []
    current = None
    for line in (text or "").splitlines():
        if not line.strip():
            if current:
                groups.append(current)
            current = None
            continue
        detail = re.fullmatch(r"([A-Za-z#-]+)\s*:\s?(.*)", line)
        if detail and detail.group(1) in _DETAIL_KEYS:
            key, value = _DETAIL_KEYS[detail.group(1)], detail.group(2).strip()
            if key == "id" and current:
                groups.append(current)
                current = None
            current = current or {}
            if key in ("vlan",):
                value = int(value, 16) if value else 0
            elif key in ("version", "peer_release", "conns"):
                value = int(value) if value.lstrip("-").isdigit() else value
            elif key in ("sndbuf", "rmb", "dmb"):
                number = value.split()[0] if value else ""
                value = int(number) if number.lstrip("-").isdigit() else value
            elif key == "direct":
                value = value == "Yes"
            elif key == "pnet_id":
                value = value or None
            current[key] = value
            continue
        words = line.split()
        if words[0] == "LG-ID":
            continue
        if not re.fullmatch(r"[0-9a-fA-F]{8}", words[0]):
            continue
        if len(words) >= 5 and words[1] in ("CLNT", "SERV"):
            group = {
                "id": words[0],
                "role": words[1],
                "type": words[2],
                "vlan": _int_auto(words[3]),
                "conns": int(words[4]),
                "pnet_id": words[5] if len(words) > 5 else None,
            }
        elif len(words) >= 3:
            group = {
                "id": words[0],
                "vlan": _int_auto(words[1]),
                "conns": int(words[2]),
                "pnet_id": words[3] if len(words) > 3 else None,
            }
        else:
            continue
        groups.append(group)
    if current:
        groups.append(current)
    return groups


def command_runner(module, tool, commands):
    """``run(argv, required=True)`` for ``tool`` (the argv's first word is replaced by its path):
    runs with LC_ALL=C, records the command line in ``commands`` and fails the module with the
    tool's message when a required command fails."""

    def run(argv, required=True):
        argv = [tool] + argv[1:]
        commands.append(" ".join(argv))
        rc, out, err = module.run_command(argv, environ_update={"LC_ALL": "C"})
        if rc != 0 and required:
            hint = " (is the smc module loaded?)" if "not loaded" in (err or "") else ""
            module.fail_json(
                msg="%s failed with exit code %d%s: %s" % (" ".join(argv), rc, hint, printable(err or out).strip()),
                rc=rc,
                stdout=printable(out),
                stderr=printable(err),
                commands=commands,
            )
        return rc, out, err

    return run


def read_stats(run, protocol, absolute=False, reset=False):
    """The counters of ``protocol``, with the same fields whatever the smc-tools version.

    The text is always read with ``-d``: only that output has the client/server split, v1/v2,
    the fallback reasons and the buffer downgrades and reuses, and every version prints it.
    ``stats json`` (1.8.4+) then refines the abbreviated cells. It runs first because a
    ``reset`` in the text command must come after it. Returns ``(stats, source)``; raises
    StatsError (with ``stdout``) when the text cannot be parsed.
    """
    counters = None
    rc, out, dummy = run(argv_stats_json(protocol, absolute), False)
    if rc == 0:
        try:
            json_proto, counters = parse_stats_json(out)
        except StatsError:
            counters = None
        else:
            if json_proto != protocol:
                counters = None
    dummy, out, dummy = run(argv_stats(protocol, True, absolute, reset), True)
    try:
        stats = parse_stats_text(out)
    except StatsError as exc:
        error = StatsError("cannot parse %s stats output: %s" % (protocol, exc))
        error.stdout = printable(out)
        raise error
    stats["protocol"] = stats["protocol"] or protocol
    if counters is not None:
        merge_json(stats, counters)
    return stats, "json+text" if counters is not None else "text"


# -- the same fields from the kernel's netlink replies ------------------------------------------
#: SMC_CLC_DECL_* codes and the names smc-tools prints for them
FALLBACK_REASONS = smc_clc.TOOL_NAME
UNKNOWN_REASON = "[unknown]"
#: PCI device IDs smc-tools names (others print as %#x)
PCI_DEVICE_TYPES = {0x1004: "RoCE_Express", 0x1016: "RoCE_Express2", 0x101E: "RoCE_Express3", 0x04ED: "ISM"}
LGR_TYPES = {0: "NONE", 1: "SINGLE", 2: "SYM", 3: "ASYMP", 4: "ASYML"}
PEER_OS = {1: "ZOS", 2: "LINUX", 3: "AIX"}
_NL_BUCKETS = ("8k", "16k", "32k", "64k", "128k", "256k", "512k", "1024k", "g_1024k")
_NL_JSON_BUCKETS = _JSON_BUCKETS + ("1024K", "G_1024K")
_NL_RMB_COUNTERS = (
    ("size_sm_peer_cnt", "SIZE_SM_PEER_CNT"),
    ("size_sm_cnt", "SIZE_SM_CNT"),
    ("full_peer_cnt", "FULL_PEER_CNT"),
    ("full_cnt", "FULL_CNT"),
    ("reuse_cnt", "REUSE_CNT"),
    ("alloc_cnt", "ALLOC_CNT"),
    ("dgrade_cnt", "DGRADE_CNT"),
)
_NL_TECH_COUNTERS = (
    ("clnt_v1_succ", "SMC_CLNT_V1_SUCC_CNT"),
    ("clnt_v2_succ", "SMC_CLNT_V2_SUCC_CNT"),
    ("srv_v1_succ", "SMC_SRV_V1_SUCC_CNT"),
    ("srv_v2_succ", "SMC_SRV_V2_SUCC_CNT"),
    ("sendpage_cnt", "SMC_SENDPAGE_CNT"),
    ("urg_data_cnt", "SMC_URG_DATA_CNT"),
    ("splice_cnt", "SMC_SPLICE_CNT"),
    ("cork_cnt", "SMC_CORK_CNT"),
    ("ndly_cnt", "SMC_NDLY_CNT"),
    ("rx_bytes", "SMC_RX_BYTES"),
    ("tx_bytes", "SMC_TX_BYTES"),
    ("rx_cnt", "SMC_RX_CNT"),
    ("tx_cnt", "SMC_TX_CNT"),
    ("rx_rmb_usage", "SMC_RX_RMB_USAGE"),
    ("tx_rmb_usage", "SMC_TX_RMB_USAGE"),
)


def _c_hex(value):
    """C's ``%#x``: ``0`` for zero, ``0x1f`` otherwise."""
    return "%#x" % value if value else "0"


def _trim(text):
    return (text or "").strip()


def counters_from_netlink(tech):
    """The ``stats json`` counters (smc-tools' names) of one ``SMC_NLA_STATS_*_TECH`` nest; a
    counter the kernel did not put is left out."""
    counters = {}
    tech = tech or {}

    def put(key, value):
        if value is not None:
            counters[key] = value

    for direction in ("TX", "RX"):
        low = direction.lower()
        for prefix, nest in (("SMC_INT", tech.get(low + "_rmb_size")), ("SMC_USR", tech.get(low + "pload_size"))):
            for bucket, name in zip(_NL_BUCKETS, _NL_JSON_BUCKETS):
                put("%s_%s_BUF_%s" % (prefix, direction, name), (nest or {}).get(bucket))
        rmb = tech.get(low + "_rmb_stats") or {}
        for field, name in _NL_RMB_COUNTERS:
            put("SMC_INT_%s_BUF_%s" % (direction, name), rmb.get(field))
    for field, name in _NL_TECH_COUNTERS:
        put(name, tech.get(field))
    return counters


def fallback_reason_name(code):
    return FALLBACK_REASONS.get(code, UNKNOWN_REASON)


def _reasons(codes):
    names = {}
    for code, count in sorted((codes or {}).items()):
        name = fallback_reason_name(code)
        names[name] = names.get(name, 0) + count
    return names


def stats_from_netlink(protocol, nl_stats, fallback):
    """Stats dict (see empty_stats) from ``SmcNetlink.stats()`` and ``fallback_stats()``."""
    if protocol not in PROTOCOLS:
        raise StatsError("protocol: expected smcd or smcr, got %r" % (protocol,))
    stats = empty_stats(protocol)
    conns = stats["connections"]
    nl_stats = nl_stats or {}
    client, server = nl_stats.get("clnt_hs_err_cnt"), nl_stats.get("srv_hs_err_cnt")
    if client is not None and server is not None:
        conns.update(handshake_errors=client + server, handshake_errors_client=client, handshake_errors_server=server)
    if fallback is not None:
        by_role = {"server": _reasons(fallback.get("server")), "client": _reasons(fallback.get("client"))}
        reasons = {}
        for role in ("server", "client"):
            for name, count in by_role[role].items():
                reasons[name] = reasons.get(name, 0) + count
        conns.update(
            tcp_fallback=fallback["client_total"] + fallback["server_total"],
            tcp_fallback_client=fallback["client_total"],
            tcp_fallback_server=fallback["server_total"],
            fallback_reasons=reasons,
            fallback_reasons_by_role=by_role,
        )
    return merge_json(stats, counters_from_netlink(nl_stats.get(protocol + "_tech")))


def _port_state(state):
    if state in (0, 1):
        return ("INACTIVE", "ACTIVE")[state]
    return "%s?" % _c_hex(state or 0)


def _device_type(pci_device):
    """The type smc-tools prints for a PCI device ID; None without one (a device without a PCI function),
    which the tool prints as ``0`` or as whatever its stack held."""
    if not pci_device:
        return None
    return PCI_DEVICE_TYPES.get(pci_device, _c_hex(pci_device))


def _port_pnet(port):
    port = port or {}
    return _trim(port.get("pnetid")) or None, bool(port.get("pnet_usr"))


def devices_from_netlink(protocol, devices, details=False, ifname=None):
    """Devices as ``parse_devices_smcd``/``parse_devices_smcr`` give them, from
    ``SmcNetlink.devices_smcd()``/``devices_smcr()``; ``ifname(index)`` names a net device."""
    result = []
    for dev in devices or []:
        if protocol == "smcd":
            pnet_id, by_user = _port_pnet(dev.get("port"))
            result.append(
                {
                    "fid": dev.get("pci_fid"),
                    "type": _device_type(dev.get("pci_device")),
                    "pci_id": dev.get("pci_id"),
                    "pchid": dev.get("pci_chid"),
                    "in_use": bool(dev.get("is_crit")),
                    "linkgroups": dev.get("use_cnt"),
                    "pnet_id": pnet_id,
                    "pnet_id_by_user": by_user,
                }
            )
            continue
        for index, key in enumerate(("port", "port2")):
            port = dev.get(key)
            if not port or not port.get("valid"):
                continue
            pnet_id, by_user = _port_pnet(port)
            row = {
                "net_dev": ifname(port.get("netdev")) if ifname and port.get("netdev") else None,
                "ib_dev": dev.get("ib_name"),
                "port": index + 1,
                "port_state": _port_state(port.get("state")),
                "type": _device_type(dev.get("pci_device")),
                "critical": bool(dev.get("is_crit")),
                "fid": None,
                "pci_id": None,
                "pchid": None,
                "links": port.get("lnk_cnt"),
                "pnet_id": pnet_id,
                "pnet_id_by_user": by_user,
            }
            if details:
                row.update(fid=dev.get("pci_fid"), pci_id=dev.get("pci_id"), pchid=dev.get("pci_chid"))
            result.append(row)
    return result


def linkgroups_from_netlink(protocol, groups, details=False):
    """Link groups as ``parse_linkgroups`` gives them (table or ``-d`` keys), from
    ``SmcNetlink.linkgroups_smcd()``/``linkgroups_smcr()``."""
    result = []
    for lgr in groups or []:
        group = {"id": "%08x" % (lgr.get("id") or 0)}
        if protocol == "smcr":
            group["role"] = "SERV" if lgr.get("role") else "CLNT"
            group["type"] = LGR_TYPES.get(lgr.get("type"), "%s?" % _c_hex(lgr.get("type") or 0))
        group["vlan"] = lgr.get("vlan_id")
        group["pnet_id"] = _trim(lgr.get("pnetid")) or None
        if details:
            v2 = lgr.get("v2_common")
            group["version"] = v2.get("ver") if v2 else 1
            if v2:
                peer_os = v2.get("os")
                group.update(
                    peer_release=v2.get("rel"),
                    peer_host=_trim(v2.get("peer_host")),
                    peer_os=PEER_OS.get(peer_os, "Unknown (%s)" % _c_hex(peer_os or 0)),
                )
                if protocol == "smcr":
                    group["direct"] = bool((lgr.get("v2") or {}).get("direct"))
                group["eid"] = _trim(v2.get("neg_eid"))
            group["sndbuf"] = lgr.get("sndbuf_alloc")
            group["rmb" if protocol == "smcr" else "dmb"] = lgr.get("rmb_alloc" if protocol == "smcr" else "dmb_alloc")
        group["conns"] = lgr.get("conns_num")
        result.append(group)
    return result


def read_stats_netlink(smc, protocol):
    """``(stats, "netlink")`` from an ``smc_netlink.SmcNetlink``."""
    return stats_from_netlink(protocol, smc.stats(), smc.fallback_stats()), "netlink"
