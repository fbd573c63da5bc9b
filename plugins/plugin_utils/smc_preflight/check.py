# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""SMC pre-flight against the hosts' counters: does what the kernels counted contradict the prediction?

``compare(rows, stats)`` takes the rows of ``smc_preflight.predict`` and, per host, what
``smcd_info`` read for SMC-D and SMC-R, and returns per pair a verdict: ``agree``, ``disagree``,
``not observed`` (the host counted nothing the prediction speaks about) or ``not compared`` (the
prediction is ``unknown`` or names no decline code), with the reason and what was observed.

How the kernel counts (facts, not code; the code here is our own), net/smc/smc_stats.h,
smc_stats.c and af_smc.c (Linux 6.18):

* Successful handshakes per technology (``struct smc_stats`` has one ``smc_stats_tech`` for SMC-D
  and one for SMC-R, chosen by the type of the accepted proposal), per role and version
  (``SMC_STAT_CLNT_SUCC_INC``/``SMC_STAT_SERV_SUCC_INC``: ``clnt_v1_succ_cnt`` ... ``srv_v2_succ_cnt``).
  ``smcd stats`` shows the SMC-D ones, ``smcr stats`` the SMC-R ones.
* TCP fallbacks (``smc_stat_fallback``): per network namespace, not per technology, one table of
  decline codes for the server role (``smc->listen_smc``) and one for the client role
  (``struct smc_stats_rsn``, up to 30 codes each), read with ``SMC_NETLINK_GET_FBACK_STATS``.
  ``smcd stats`` and ``smcr stats`` show the same fallbacks, smc-tools only the three most frequent
  codes per role, under its own names (``NOSMCDEV``; ``[unknown]`` for codes it does not know).
* A server that declines counts its code as server; the client counts ``SMC_CLC_DECL_PEERDECL``.

Counters are per host, not per pair: a host's counts mix every peer it talked to, and a pair may
have had no connection at all. So a verdict is ``disagree`` only when the host counted activity in
the role the prediction speaks about and none of it can be the predicted outcome:

* ``SMC-D``/``SMC-R`` (client host, client role; with a version or, where the prediction leaves
  it open, without): SMC connections of that technology as client agree (``not observed`` when
  none of them has the predicted version); none of them but client
  fallbacks and no client SMC connection of either technology (both read) disagree; else
  ``not observed``.
* ``TCP`` with code R on side S (the host of S, role S): a fallback with R agrees; fallbacks as S
  that are all other codes (every one listed) disagree; SMC connections as S and no fallback as S
  disagree; a code smc-tools may have left out (more than three codes) or printed as ``[unknown]``,
  or no activity as S, is ``not observed``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.s390x.network.plugins.module_utils.smc.clc import CODE_OF, TOOL_NAME

AGREE = "agree"
DISAGREE = "disagree"
NOT_OBSERVED = "not observed"
NOT_COMPARED = "not compared"
VERDICTS = (AGREE, DISAGREE, NOT_OBSERVED, NOT_COMPARED)

PROTOCOLS = ("smcd", "smcr")
ROLES = ("client", "server")
LABEL = {"smcd": "SMC-D", "smcr": "SMC-R"}
#: prediction -> (protocol, version); the technology alone when the prediction leaves the version open
SMC_PREDICTIONS = {
    "SMC-D v2": ("smcd", "v2"),
    "SMC-D v1": ("smcd", "v1"),
    "SMC-R v2": ("smcr", "v2"),
    "SMC-R v1": ("smcr", "v1"),
    "SMC-D": ("smcd", None),
    "SMC-R": ("smcr", None),
}
#: the name smc-tools prints for a code it does not know
UNKNOWN_REASON = "[unknown]"
#: reasons per role smc-tools prints
TOOL_REASONS_SHOWN = 3

_NAME_OF = dict((code, name) for name, code in CODE_OF.items())
_CODE_OF_TOOL = dict((tool, code) for code, tool in TOOL_NAME.items())
_HEX_RE = re.compile(r"0[xX]([0-9a-fA-F]{1,8})")


class CheckError(ValueError):
    """Rows or statistics that cannot be read; the message names the field."""


def reason_key(reason):
    """A fallback reason as ``smcd_info`` or a user gives it -> the kernel's name
    (``SMC_CLC_DECL_NOSMCDEV``), ``[unknown]``, or a hex code the kernel names nowhere.

    Accepts the smc-tools name (``NOSMCDEV``), the kernel name, the code as an int or a hex string."""
    if isinstance(reason, bool):
        raise CheckError("fallback reason: expected a name or a code, got %r" % (reason,))
    if isinstance(reason, int):
        return _NAME_OF.get(reason, "0x%08x" % reason)
    text = str(reason).strip()
    if text == UNKNOWN_REASON:
        return UNKNOWN_REASON
    if text in CODE_OF:
        return text
    if text.upper() in _CODE_OF_TOOL:
        return _NAME_OF[_CODE_OF_TOOL[text.upper()]]
    if "SMC_CLC_DECL_" + text.upper() in CODE_OF:
        return "SMC_CLC_DECL_" + text.upper()
    match = _HEX_RE.fullmatch(text)
    if match:
        code = int(match.group(1), 16)
        return _NAME_OF.get(code, "0x%08x" % code)
    raise CheckError("fallback reason: %r is no SMC_CLC_DECL_* name, smc-tools name or code" % (reason,))


def _short(name):
    """The name ``smcd stats`` prints for a kernel name (``SMC_CLC_DECL_PEERNOSMC`` -> ``PEER_NO_SMC``), else
    the kernel's name without its prefix (``SMC_CLC_DECL_NOUEID`` -> ``NOUEID``)."""
    if name in CODE_OF and CODE_OF[name] in TOOL_NAME:
        return TOOL_NAME[CODE_OF[name]]
    return name[len("SMC_CLC_DECL_") :] if name.startswith("SMC_CLC_DECL_") else name


def _count(value, field):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise CheckError("%s: expected a count, got %r" % (field, value))
    return value


def _stats_of(reading, field):
    """The ``stats`` of an ``smcd_info`` result (or the stats themselves); None when not read."""
    if not isinstance(reading, dict) or not reading:
        return None
    if reading.get("failed") or reading.get("skipped") or reading.get("unreachable"):
        return None
    stats = reading.get("stats", reading)
    if not isinstance(stats, dict) or not isinstance(stats.get("connections"), dict):
        if "stats" in reading or "connections" in reading:
            raise CheckError("%s: no stats.connections" % field)
        return None
    return stats


def host_counts(host, readings):
    """What one host counted, from ``{smcd: result, smcr: result}`` (``smcd_info`` results, their
    ``stats``, or None). Also takes the keys ``smcd_info_smcd``/``smcd_info_smcr`` (as the
    pre-flight keeps its reads). Returns ``{read: [protocols], smc: {protocol: {client, server, v1,
    v2}}, fallbacks: {role: {total, reasons: {name: count}, hidden}}}``; fallbacks are the host's
    (the kernel keeps one table for both technologies): the largest count any reading shows."""
    readings = readings or {}
    if not isinstance(readings, dict):
        raise CheckError("statistics of %s: expected {smcd: ..., smcr: ...}, got %r" % (host, readings))
    counts = {"host": host, "read": [], "smc": {}, "fallbacks": {}}
    fallbacks = dict((role, {"total": None, "reasons": {}}) for role in ROLES)
    for proto in PROTOCOLS:
        field = "statistics of %s (%s)" % (host, proto)
        reading = readings.get(proto, readings.get("smcd_info_" + proto))
        stats = _stats_of(reading, field)
        if stats is None:
            continue
        conns = stats["connections"]
        counts["read"].append(proto)
        smc = {}
        for key in ("client", "server"):
            smc[key] = _count(conns.get("smc_" + key), "%s smc_%s" % (field, key)) or 0
        for key in ("v1", "v2"):
            smc[key] = _count(conns.get(key), "%s %s" % (field, key))
        counts["smc"][proto] = smc
        by_role = conns.get("fallback_reasons_by_role") or {}
        if not isinstance(by_role, dict):
            raise CheckError("%s fallback_reasons_by_role: expected a dict" % field)
        for role in ROLES:
            merged = fallbacks[role]
            total = _count(conns.get("tcp_fallback_" + role), "%s tcp_fallback_%s" % (field, role))
            if total is not None:
                merged["total"] = max(merged["total"] or 0, total)
            reasons = by_role.get(role) or {}
            if not isinstance(reasons, dict):
                raise CheckError("%s fallback_reasons_by_role.%s: expected a dict" % (field, role))
            for reason, number in reasons.items():
                name = reason_key(reason)
                number = _count(number, "%s fallback reason %s" % (field, reason)) or 0
                merged["reasons"][name] = max(merged["reasons"].get(name, 0), number)
    for role in ROLES:
        merged = fallbacks[role]
        listed = sum(merged["reasons"].values())
        if merged["total"] is None:
            merged["total"] = listed
            # without the per-role total: a full list may hide more codes
            merged["hidden"] = None if len(merged["reasons"]) >= TOOL_REASONS_SHOWN else 0
        else:
            merged["total"] = max(merged["total"], listed)
            merged["hidden"] = merged["total"] - listed
    counts["fallbacks"] = fallbacks
    return counts


def _reasons_text(reasons):
    if not reasons:
        return "none"
    items = sorted(reasons.items(), key=lambda item: (-item[1], item[0]))
    return ", ".join("%s %d" % (_short(name), number) for name, number in items)


def observed_text(counts, role):
    """``a as client: SMC-D 20 (host v1 0, v2 20), SMC-R not read, fallbacks 3 (NOSMCDEV 3)``; the
    SMC counts of the role, the versions of both roles, the fallbacks of the role."""
    parts = []
    for proto in PROTOCOLS:
        smc = counts["smc"].get(proto)
        if smc is None:
            parts.append("%s not read" % LABEL[proto])
            continue
        text = "%s %d" % (LABEL[proto], smc[role])
        if smc[role] and smc["v1"] is not None and smc["v2"] is not None:
            text += " (host v1 %d, v2 %d)" % (smc["v1"], smc["v2"])
        parts.append(text)
    fb = counts["fallbacks"][role]
    parts.append("fallbacks %d (%s)" % (fb["total"], _reasons_text(fb["reasons"])))
    return "%s as %s: %s" % (counts["host"], role, ", ".join(parts))


def _smc_verdict(row, counts):
    proto, version = SMC_PREDICTIONS[row["prediction"]]
    host, label = counts["host"], LABEL[proto]
    smc = counts["smc"].get(proto)
    if smc is None:
        return NOT_OBSERVED, "the %s statistics of %s were not read" % (label, host)
    other = "v1" if version == "v2" else "v2"
    if smc["client"] > 0:
        if version is not None and smc[version] == 0 and smc[other]:
            return NOT_OBSERVED, "%s counted %d %s client connections, but none %s (%d %s): not this pair's" % (
                host,
                smc["client"],
                label,
                version,
                smc[other],
                other,
            )
        return AGREE, "%s counted %d %s client connections" % (host, smc["client"], label)
    fb = counts["fallbacks"]["client"]
    any_smc = sum(s["client"] for s in counts["smc"].values())
    unread = [LABEL[p] for p in PROTOCOLS if p not in counts["smc"]]
    if fb["total"] > 0 and any_smc == 0:
        if unread:
            text = "%s counted no %s client connection and %d client fallbacks; its %s statistics were not read"
            return NOT_OBSERVED, text % (host, label, fb["total"], unread[0])
        return DISAGREE, "%s counted no SMC client connection, but %d client fallbacks: %s" % (
            host,
            fb["total"],
            _reasons_text(fb["reasons"]),
        )
    if any_smc:
        text = "%s counted no %s client connection; its %d other SMC client connections may be to other peers"
        return NOT_OBSERVED, text % (host, label, any_smc)
    return NOT_OBSERVED, "%s counted no connection as client" % host


def _tcp_verdict(row, counts):
    side, want = row["side"], row["reason_name"]
    host = counts["host"]
    fb = counts["fallbacks"][side]
    seen = fb["reasons"].get(want, 0)
    if seen:
        return AGREE, "%s counted %d fallbacks as %s with %s" % (host, seen, side, _short(want))
    code = CODE_OF.get(want)
    if fb["reasons"].get(UNKNOWN_REASON) and code not in TOOL_NAME:
        return NOT_OBSERVED, "%s counted %d fallbacks as %s under %s, the name smc-tools gives %s and others" % (
            host,
            fb["reasons"][UNKNOWN_REASON],
            side,
            UNKNOWN_REASON,
            _short(want),
        )
    if fb["hidden"] is None or fb["hidden"] > 0:
        return NOT_OBSERVED, "%s counted %s fallbacks as %s that smcd stats does not list (it prints three codes)" % (
            host,
            "more" if fb["hidden"] is None else fb["hidden"],
            side,
        )
    if fb["total"] > 0:
        return DISAGREE, "%s counted %d fallbacks as %s, none with %s: %s" % (
            host,
            fb["total"],
            side,
            _short(want),
            _reasons_text(fb["reasons"]),
        )
    smc = sum(s[side] for s in counts["smc"].values())
    if smc:
        return DISAGREE, "%s counted %d SMC connections as %s and no fallback, TCP with %s predicted" % (
            host,
            smc,
            side,
            _short(want),
        )
    return NOT_OBSERVED, "%s counted no connection as %s" % (host, side)


def _prediction_text(row):
    if row["prediction"] == "TCP" and row.get("reason_name"):
        return "TCP %s (%s)" % (_short(row["reason_name"]), row.get("side"))
    return row["prediction"]


def compare_row(row, stats):
    """One pre-flight row against ``stats`` (host -> ``{smcd, smcr}`` readings). Returns the row
    ``{client, server, prediction, reason_name, side, host, role, protocol, observed, verdict,
    reason}``."""
    for key in ("client", "server", "prediction"):
        if not row.get(key):
            raise CheckError("row %r: no %s" % (row, key))
    result = {
        "client": row["client"],
        "server": row["server"],
        "prediction": row["prediction"],
        "reason_name": row.get("reason_name"),
        "side": row.get("side"),
        "host": None,
        "role": None,
        "protocol": None,
        "observed": "-",
        "verdict": NOT_COMPARED,
        "reason": "",
    }
    prediction = row["prediction"]
    if prediction in SMC_PREDICTIONS:
        role, host = "client", row["client"]
        result["protocol"] = SMC_PREDICTIONS[prediction][0]
    elif prediction == "TCP":
        if not row.get("reason_name") or row.get("side") not in ROLES:
            result["reason"] = "the prediction names no decline code and side to look for"
            return result
        if row["reason_name"] not in CODE_OF:
            raise CheckError(
                "row %s -> %s: unknown reason_name %r" % (row["client"], row["server"], row["reason_name"])
            )
        role = row["side"]
        host = row[role]
    elif prediction == "unknown":
        result["reason"] = "the prediction is unknown: it depends on facts nobody gave (see the pre-flight's why)"
        return result
    else:
        raise CheckError("row %s -> %s: unknown prediction %r" % (row["client"], row["server"], prediction))
    counts = host_counts(host, (stats or {}).get(host))
    result.update(host=host, role=role, observed=observed_text(counts, role))
    if not counts["read"]:
        result.update(verdict=NOT_OBSERVED, reason="the statistics of %s were not read" % host, observed="-")
        return result
    verdict, reason = (_smc_verdict if prediction in SMC_PREDICTIONS else _tcp_verdict)(row, counts)
    result.update(verdict=verdict, reason=reason)
    return result


def summary(rows):
    """Counts by verdict: ``{agree, disagree, not_observed, not_compared}``."""
    result = dict((v.replace(" ", "_"), 0) for v in VERDICTS)
    for row in rows:
        result[row["verdict"].replace(" ", "_")] += 1
    return result


def table(rows):
    """Text lines: pair, prediction, observed, verdict, reason; the first line the heading."""
    cols = ("PAIR", "PREDICTION", "OBSERVED", "VERDICT", "REASON")
    cells = [
        (
            "%s -> %s" % (row["client"], row["server"]),
            _prediction_text(row),
            row["observed"],
            row["verdict"],
            row["reason"] or "-",
        )
        for row in rows
    ]
    widths = [max([len(cols[i])] + [len(c[i]) for c in cells]) for i in range(4)]
    fmt = "  ".join("%%-%ds" % w for w in widths) + "  %s"
    return [(fmt % line).rstrip() for line in [cols] + cells]


def compare(rows, stats):
    """Every pre-flight row against the hosts' statistics: ``{rows, summary, table}``."""
    if not isinstance(rows, list):
        raise CheckError("rows: expected the list of pre-flight rows, got %r" % (rows,))
    if stats is not None and not isinstance(stats, dict):
        raise CheckError("stats: expected host -> {smcd, smcr}, got %r" % (stats,))
    result = [compare_row(row, stats or {}) for row in rows]
    return {"rows": result, "summary": summary(result), "table": table(result)}
