# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""``smcd``/``smcr`` (smc-tools): argument formats and parsers for stats, device and linkgroup.

Formats, from smc-tools stats.c, dev.c, linkgroup.c and util.c (1.6.0 to 1.8.5):

* ``smcd [-d|-a|-da] stats [show|reset|json]``: the options are one word each and the last one
  wins, so details *and* absolute must be ``-da``. ``reset`` prints the counters, then resets
  them. Counters are relative to the last reset (a cache file per user in /tmp) unless ``-a``.
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
  (the bracketed columns with -d).
* ``smcd linkgroup``: ``LG-ID VLAN #Conns PNET-ID``; ``smcr linkgroup``: ``LG-ID LG-Role LG-Type
  VLAN #Conns PNET-ID``; with -d both print ``Key : value`` blocks separated by blank lines.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import re

PROTOCOLS = ("smcd", "smcr")
BUCKETS = ("8KB", "16KB", "32KB", "64KB", "128KB", "256KB", "512KB", ">512KB")
_JSON_BUCKETS = ("8K", "16K", "32K", "64K", "128K", "256K", "512K")
_MAGNITUDE = {"K": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15}
_ABBR_RE = re.compile(r"^(\d+(?:\.\d+)?)([KMGTP])?$")
_COUNT_RE = r"\s+(\d+)"
_ROLE_RE = r"(?:\s*\(client\s+(\d+),\s*server\s+(\d+)\))?"
_PCT_RE = r"(?:\s*\(\s*([0-9.]+|nan|inf|-nan)%\))?"


class StatsError(ValueError):
    """Output that cannot be understood."""


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
    match = _ABBR_RE.match(cell)
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
_REASON_RE = re.compile(r"^(\[unknown\]|[A-Z][A-Z0-9_]*)\s+(\d+)$")


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
        if re.match(r"^SMC-([DR]) Connections Summary$", line):
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
            reason = _REASON_RE.match(line)
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


def _pnet(text):
    text = (text or "").strip()
    if text.startswith("*"):
        return text[1:], True
    return text, False


def parse_devices_smcd(text):
    """Devices from ``smcd device``."""
    devices = []
    for line in (text or "").splitlines():
        words = line.split()
        if not words or words[0] == "FID":
            continue
        if len(words) < 6 or not re.match(r"^[0-9a-fA-F]+$", words[0]) or not words[5].isdigit():
            continue
        pnet_id, by_user = _pnet(words[6] if len(words) > 6 else "")
        devices.append(
            {
                "fid": int(words[0], 16),
                "type": words[1],
                "pci_id": words[2],
                "pchid": int(words[3], 16) if re.match(r"^[0-9a-fA-F]+$", words[3]) else words[3],
                "in_use": words[4] == "Yes",
                "linkgroups": int(words[5]),
                "pnet_id": pnet_id or None,
                "pnet_id_by_user": by_user,
            }
        )
    return devices


_PORT_STATES = ("ACTIVE", "INACTIVE")


def parse_devices_smcr(text):
    """Devices (one per port) from ``smcr [-d] device``."""
    devices = []
    for line in (text or "").splitlines():
        words = line.split()
        if not words or words[0] == "Net-Dev":
            continue
        # The port number is followed by the port state: anchor on that pair.
        idx = None
        for i in range(len(words) - 1):
            if words[i].isdigit() and (words[i + 1] in _PORT_STATES or words[i + 1].endswith("?")):
                idx = i
                break
        if idx is None or idx < 1 or len(words) < idx + 5:
            continue
        net_dev = words[idx - 2] if idx >= 2 else None
        rest = words[idx + 2 :]
        device = {
            "net_dev": net_dev,
            "ib_dev": words[idx - 1],
            "port": int(words[idx]),
            "port_state": words[idx + 1],
            "type": rest[0],
            "critical": rest[1] == "Yes",
            "fid": None,
            "pci_id": None,
            "pchid": None,
        }
        tail = rest[2:]
        if len(tail) >= 4 and re.match(r"^[0-9a-fA-F]{1,8}$", tail[0]) and ":" in tail[1]:
            device.update(
                fid=int(tail[0], 16),
                pci_id=tail[1],
                pchid=int(tail[2], 16) if re.match(r"^[0-9a-fA-F]+$", tail[2]) else tail[2],
            )
            tail = tail[3:]
        if not tail or not tail[0].isdigit():
            continue
        device["links"] = int(tail[0])
        pnet_id, by_user = _pnet(tail[1] if len(tail) > 1 else "")
        device["pnet_id"], device["pnet_id_by_user"] = pnet_id or None, by_user
        devices.append(device)
    return devices


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
        detail = re.match(r"^([A-Za-z#-]+)\s*:\s?(.*)$", line)
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
        if not re.match(r"^[0-9a-fA-F]{8}$", words[0]):
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
                msg="%s failed with exit code %d%s: %s" % (" ".join(argv), rc, hint, (err or out).strip()),
                rc=rc,
                stdout=out,
                stderr=err,
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
        error.stdout = out
        raise error
    stats["protocol"] = stats["protocol"] or protocol
    if counters is not None:
        merge_json(stats, counters)
    return stats, "json+text" if counters is not None else "text"
