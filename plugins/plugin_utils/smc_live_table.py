# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The live SMC check of verify.yml (docs/smc-live-check.md): which pairs open a connection, which
host listens and which connects (``plan``), and per pair what the kernels negotiated, against the
pre-flight's prediction and the buffer sizes the smc role sets (``compare``).

Pairs: every unordered pair of each ``cpc.smcd_peers`` group (formed and resolved to hosts as the
pre-flight does), with the server's address in the subnet the peers share, as the interfaces check
found it (``interfaces_findings.pairs``, the rendezvous connections verify.yml opens; where the
interfaces role did not run, that check over the play's hosts); then every other pair of hosts that
both use SMC-R (the smc role's ``smc_plan.roce.enabled``), with the server's address in the first
subnet they share (the same address reading as that check). Peers without a common subnet are not
checked: which of the server's addresses an SMC v2 client would use is not known.

Buffer sizes: per direction the smc role's rule (``smc_rmem``/``smc_wmem`` when set, else
``smc_buffer_size``; drift_report.wanted_buffer_sizes), as the kernel allocates it for the
connection's technology (sizing.effective_buffer: the next 16 KiB x 2^n, capped). A record's sizes
are compared by their size class, as an SMC-D RMB is its DMB less the 32 byte CDC header; an SMC-D
send buffer may also be the peer's DMB itself (loopback-ism attaches it, ``smcd_buf_attach``).
"""

from __future__ import annotations

import itertools

from ansible.errors import AnsibleFilterError

from ansible_collections.s390x.network.plugins.module_utils.smc.sizing import (
    SizingError,
    compress_bufsize,
    effective_buffer,
    format_size,
    uncompress_bufsize,
)
from ansible_collections.s390x.network.plugins.plugin_utils import ip_inventory_check
from ansible_collections.s390x.network.plugins.plugin_utils.drift_report import wanted_buffer_sizes
from ansible_collections.s390x.network.plugins.plugin_utils.smc_preflight.common import TECHNOLOGY
from ansible_collections.s390x.network.plugins.plugin_utils.smc_preflight.role_input import inventory_pairs

DEFAULT_PORT = 31830
DEFAULT_TIMEOUT = 20
MAX_TIMEOUT = 120
#: results the play registers (the listener through async_status, the clients as a loop)
SERVER_RESULT = "verify_smc_live_server"
CLIENT_RESULTS = "verify_smc_live_clients"
#: the host variables the plan and the expectations read (the results: only of the hosts that ran)
VARIABLES = (
    "interfaces_findings",
    "interfaces_config",
    "cpc",
    "qeth_devices",
    "kvm_guests",
    "smc_plan",
    "smc_sysctl_result",
    "smc_buffer_size",
    "smc_rmem",
    "smc_wmem",
    "smc_settings",
)


NO_SUBNET = (
    "the peers share no subnet in interfaces_config (only SMC v2 connects them): the check does not know "
    "which of the server's addresses the client would use"
)


# -- the plan -----------------------------------------------------------------------------------
def _findings_pairs(variables, hosts):
    """The interfaces role's pairs; where it did not run (``--tags smc_live``), the same check over
    the play's hosts."""
    for host in hosts:
        findings = variables.get(host, {}).get("interfaces_findings")
        if isinstance(findings, dict) and isinstance(findings.get("pairs"), list):
            return [p for p in findings["pairs"] if isinstance(p, dict)]
    return ip_inventory_check.check(variables, hosts)[2]


def _smcr(hvars):
    plan = hvars.get("smc_plan")
    roce = plan.get("roce") if isinstance(plan, dict) else None
    return isinstance(roce, dict) and bool(roce.get("enabled"))


def _common_subnet(addresses, first, second):
    """The server's (``second``'s) address and the network of the first subnet both hosts have
    (``addresses``: host -> its addresses)."""
    for x in addresses(first):
        for y in addresses(second):
            if x.network == y.network:
                return str(y.ip), str(y.network)
    return None, None


def _address_reader(variables):
    """host -> its addresses in interfaces_config (the interfaces check's reading), read once per host."""
    known = {}

    def addresses(host):
        if host not in known:
            known[host] = ip_inventory_check._host_addresses(ip_inventory_check._Host(host, variables))
        return known[host]

    return addresses


def _peer_pairs(variables, hosts):
    """The unordered pairs of each ``cpc.smcd_peers`` group, as the pre-flight forms and resolves them
    (only the groups: without ``group_names`` its every-pair fallback for ``smc_hosts`` gives none)."""
    models = dict((h, {"cpc": (variables.get(h) or {}).get("cpc")}) for h in hosts)
    ordered, dummy = inventory_pairs(models, list(hosts))
    return [(p["client"], p["server"]) for p in ordered]


def live_pairs(variables, hosts):
    """The pairs: ``client``, ``server``, ``address`` and ``network`` (None when the peers share no
    subnet) and ``kind`` (``smcd_peers`` or ``smcr``)."""
    findings = dict((frozenset((p.get("client"), p.get("server"))), p) for p in _findings_pairs(variables, hosts))
    pairs, seen, members, addresses = [], set(), set(hosts), _address_reader(variables)
    candidates = [(p.get("client"), p.get("server"), "smcd_peers") for p in findings.values()]
    candidates += [(a, b, "smcd_peers") for a, b in _peer_pairs(variables, hosts)]
    smcr_hosts = [h for h in hosts if _smcr(variables.get(h, {}))]
    candidates += [(a, b, "smcr") for a, b in itertools.combinations(smcr_hosts, 2)]
    for client, server, kind in candidates:
        key = frozenset((client, server))
        if key in seen:
            continue
        seen.add(key)
        pair = {"client": client, "server": server, "address": None, "network": None, "kind": kind}
        if key in findings:
            pair.update(findings[key], kind=kind)
        elif client in members and server in members:
            pair["address"], pair["network"] = _common_subnet(addresses, client, server)
        pairs.append(pair)
    return pairs


def _listen_address(addresses):
    if len(set(addresses)) == 1:
        return addresses[0]
    return "::" if ":" in addresses[0] else "0.0.0.0"


def no_smc(host, hvars):
    """Why a host cannot take part, when the smc role's check-mode run found ``smc`` not loaded, else None.
    The module is not loaded here (the smc role does that), so such a pair is not checked."""
    result = hvars.get("smc_sysctl_result")
    if isinstance(result, dict) and result.get("smc_loaded") is False:
        return (
            "%s: the smc kernel module is not loaded (smc_sysctl: smc_loaded false); the smc role loads it "
            "(smc_load_module), a kernel without CONFIG_SMC has none" % host
        )
    return None


def plan(variables, hosts, timeout=DEFAULT_TIMEOUT):
    """The pairs and what each host runs: ``listen`` (host -> ``address``, ``connections``,
    ``timeout``), ``connect`` (host -> list of ``server``, ``address``). Pairs with a host outside
    ``hosts`` (the play) or without a loaded smc module are ``unplanned``, with the reason."""
    timeout = int(timeout)
    planned, unplanned, members = [], [], set(hosts)
    for pair in live_pairs(variables, hosts):
        outside = [h for h in (pair["client"], pair["server"]) if h not in members]
        missing = [no_smc(h, variables.get(h, {})) for h in (pair["server"], pair["client"])]
        if outside:
            unplanned.append(dict(pair, reason="%s: not in this play (smc_hosts)" % ", ".join(outside)))
        elif pair["address"] is None:
            unplanned.append(dict(pair, reason=NO_SUBNET))
        elif any(missing):
            unplanned.append(dict(pair, reason="; ".join(m for m in missing if m)))
        else:
            planned.append(pair)
    connect, servers = {}, {}
    for pair in planned:
        connect.setdefault(pair["client"], []).append({"server": pair["server"], "address": pair["address"]})
        servers.setdefault(pair["server"], []).append(pair["address"])
    # a client connects to its servers one after the other: a listener waits for the slowest
    longest = max([len(items) for items in connect.values()] or [0])
    listen = dict(
        (
            host,
            {
                "address": _listen_address(addresses),
                "connections": len(addresses),
                "timeout": min(MAX_TIMEOUT, timeout * (longest + 1)),
            },
        )
        for host, addresses in servers.items()
    )
    return {"pairs": planned, "unplanned": unplanned, "listen": listen, "connect": connect, "timeout": timeout}


# -- the results of one pair --------------------------------------------------------------------
class _Results(object):
    """The registered results of the hosts, each host's read once: a client's result per server
    (its loop's first item for that server) and a listener's connections by peer address and port
    (the first of each)."""

    def __init__(self, variables):
        self.variables = variables
        self._clients = {}
        self._servers = {}

    def client(self, client, server):
        if client not in self._clients:
            by_server = {}
            loop = self.variables.get(client, {}).get(CLIENT_RESULTS)
            for item in (loop or {}).get("results") or []:
                if isinstance(item, dict):
                    by_server.setdefault((item.get("item") or {}).get("server"), item)
            self._clients[client] = by_server
        return self._clients[client].get(server)

    def server(self, server, client_result):
        """``(result, connection)``: the listener's result and its connection from this client."""
        result = self.variables.get(server, {}).get(SERVER_RESULT)
        local = (client_result or {}).get("local") or {}
        if not isinstance(result, dict):
            return None, None
        if server not in self._servers:
            by_peer = {}
            for conn in result.get("connections") or []:
                peer = (conn or {}).get("peer") or {}
                by_peer.setdefault((peer.get("address"), peer.get("port")), conn)
            self._servers[server] = by_peer
        if not local:
            return result, None
        return result, self._servers[server].get((local.get("address"), local.get("port")))


def _not_run(host, result, role):
    """Why ``result`` (of ``host``, in ``role``) has no connection to compare, or None."""
    if not isinstance(result, dict):
        return "%s: no %s result (the %s did not run)" % (host, role, role)
    if result.get("skipped"):
        return "%s: the %s was skipped (%s)" % (host, role, result.get("skip_reason") or result.get("msg") or "")
    if result.get("skipped_reason"):
        return "%s: %s" % (host, result["skipped_reason"])
    if result.get("smc_available") is False:
        return "%s: %s" % (host, result.get("reason") or "no SMC")
    return None


def _size_class(size):
    return uncompress_bufsize(compress_bufsize(int(size), 63)) if size else None


# -- expectations -------------------------------------------------------------------------------
def _expected(hvars, defaults, mode):
    """``{"rmem", "wmem"}``: the sizes the kernel allocates for the smc role's request on this host
    for the connection's technology, None where not known or not set; with ``why`` for the None."""
    result = hvars.get("smc_sysctl_result")
    kernel = result.get("kernel") if isinstance(result, dict) else None
    if not kernel:
        return {"rmem": None, "wmem": None, "why": "the smc role's smc_sysctl result (kernel) is not known"}
    settings = hvars.get("smc_settings") if isinstance(hvars.get("smc_settings"), dict) else {}
    buffer_size = hvars.get("smc_buffer_size", defaults.get("smc_buffer_size"))
    try:
        wanted = wanted_buffer_sizes(buffer_size, hvars.get("smc_rmem"), hvars.get("smc_wmem"))
        protocol = "smcd" if mode == "SMC-D" else "smcr"
        sizes = dict(
            (
                name,
                (
                    None
                    if want is None
                    else effective_buffer(want, kernel, protocol, settings.get("smcr_buf_type", 0))["size"]
                ),
            )
            for name, want in wanted.items()
        )
    except (SizingError, ValueError, AnsibleFilterError) as exc:
        return {"rmem": None, "wmem": None, "why": str(exc)}
    return dict(sizes, why=None, kernel=kernel)


def _buffer_findings(side, host, record, peer_record, expected):
    """Sentences for one end's buffers that differ from the smc role's sizes or from what the peer saw."""
    found = []
    rmbe, sndbuf = record.get("rmbe_size"), record.get("sndbuf_size")
    if expected.get("rmem") is not None and rmbe is not None and _size_class(rmbe) != expected["rmem"]:
        found.append(
            "%s %s: receive buffer (RMB) of %d bytes, in the %s class; the smc role sets %s (kernel %s)"
            % (side, host, rmbe, format_size(_size_class(rmbe)), format_size(expected["rmem"]), expected["kernel"])
        )
    attached = record.get("mode") == "SMC-D" and sndbuf is not None and sndbuf == record.get("peer_rmbe_size")
    if expected.get("wmem") is not None and sndbuf is not None and not attached:
        if _size_class(sndbuf) != expected["wmem"]:
            found.append(
                "%s %s: send buffer of %d bytes; the smc role sets %s (kernel %s)"
                % (side, host, sndbuf, format_size(expected["wmem"]), expected["kernel"])
            )
    if peer_record and rmbe is not None and peer_record.get("peer_rmbe_size") not in (None, rmbe):
        found.append(
            "%s %s has an RMB of %d bytes, its peer sees %d" % (side, host, rmbe, peer_record["peer_rmbe_size"])
        )
    return found


def _prediction_findings(prediction, client_diag, server_diag):
    """Sentences for a connection that is not what the pre-flight predicted (none for ``unknown``)."""
    if not prediction:
        return []
    predicted = prediction.get("prediction")
    technology = TECHNOLOGY.get(predicted)
    mode = client_diag.get("mode")
    if technology is None:
        return []
    if technology != mode:
        why = " (%s)" % prediction["reason_name"] if prediction.get("reason_name") else ""
        return [
            "the pre-flight predicts %s%s, the connection is %s%s" % (predicted, why, mode, _fallback_text(client_diag))
        ]
    version = client_diag.get("version")
    if predicted.endswith(("v1", "v2")) and version is not None and predicted != "%s v%d" % (mode, version):
        return ["the pre-flight predicts %s, the connection is %s v%d" % (predicted, mode, version)]
    if technology == "TCP" and prediction.get("reason_name"):
        want = prediction["reason_name"]
        side = client_diag if prediction.get("side") != "server" else server_diag
        other = server_diag if side is client_diag else client_diag
        seen = [
            ((side or {}).get("fallback") or {}).get("reason_name"),
            ((other or {}).get("fallback") or {}).get("peer_diagnosis_name"),
        ]
        if want not in seen:
            return [
                "the pre-flight predicts a fallback with %s on the %s, the connection fell back%s"
                % (want, prediction.get("side") or "client", _fallback_text(client_diag, server_diag))
            ]
    return []


def _fallback_text(client_diag, server_diag=None):
    parts = []
    for label, record in (("client", client_diag), ("server", server_diag)):
        fb = (record or {}).get("fallback") or {}
        if (record or {}).get("mode") == "TCP" and fb:
            parts.append("%s %s" % (label, fb.get("reason_name") or fb.get("reason")))
    return " (%s)" % ", ".join(parts) if parts else ""


# -- one pair -----------------------------------------------------------------------------------
def _failure(host, role, result):
    """Why a result that ran has nothing to compare (failed, unfinished, no record), or None."""
    if result.get("finished") == 0:
        return "%s: the %s did not finish" % (host, role)
    if result.get("failed"):
        return "%s: the %s failed: %s" % (host, role, result.get("msg") or "no message")
    return None


def _buffers(record):
    return dict((key, (record or {}).get(key)) for key in ("rmbe_size", "peer_rmbe_size", "sndbuf_size"))


def _new_row(pair, prediction):
    return {
        "client": pair["client"],
        "server": pair["server"],
        "address": pair.get("address"),
        "network": pair.get("network"),
        "kind": pair.get("kind"),
        "prediction": (prediction or {}).get("prediction"),
        "status": None,
        "mode": None,
        "version": None,
        "fallback": {"client": None, "server": None},
        "buffers": {"client": None, "server": None},
        "link_group": None,
        "findings": [],
        "notes": [],
    }


def _unchecked(row, reason):
    row["status"] = "not checked"
    row["findings"] = ["not checked: %s" % reason]
    return row


def _failed(row, text):
    row["status"] = "failed"
    row["findings"].append(text)
    return row


def pair_row(pair, variables, prediction=None, defaults=None, results=None):
    """The row of one pair: what the client and the listener read, and the findings (``results``:
    the hosts' results as ``_Results`` reads them, kept by the caller for all pairs)."""
    defaults = defaults or {}
    results_of = results or _Results(variables)
    row = _new_row(pair, prediction)
    client, server = pair["client"], pair["server"]
    client_result = results_of.client(client, server)
    server_result = variables.get(server, {}).get(SERVER_RESULT)
    results = ((server, "listener", server_result), (client, "client", client_result))
    # a host without SMC sockets first: its peer's result then says nothing more
    for host, role, result in sorted(
        results, key=lambda r: not (isinstance(r[2], dict) and r[2].get("smc_available") is False)
    ):
        reason = _not_run(host, result, role)
        if reason:
            return _unchecked(row, reason)
    for host, role, result in results:
        text = _failure(host, role, result)
        if text and not (role == "listener" and result.get("connections")):
            return _failed(row, text)
    dummy, conn = results_of.server(server, client_result)
    if conn is None:
        return _failed(
            row, "%s: the listener has no connection from %s (%s)" % (server, client, client_result.get("local"))
        )
    client_diag, server_diag = client_result.get("diag"), conn.get("diag")
    for host, record, source in ((client, client_diag, client_result), (server, server_diag, conn)):
        if not record:
            return _failed(row, "%s: no SMC_DIAG record: %s" % (host, source.get("diag_error") or "not read"))
    for host, source in ((client, client_result), (server, conn)):
        if source.get("error"):
            row["findings"].append("%s: %s" % (host, source["error"]))
    _fill(row, client_diag, server_diag)
    row["findings"].extend(_prediction_findings(prediction, client_diag, server_diag))
    if client_diag.get("mode") in ("SMC-D", "SMC-R"):
        for side, host, record, peer in (
            ("client", client, client_diag, server_diag),
            ("server", server, server_diag, client_diag),
        ):
            expected = _expected(variables.get(host, {}), defaults, record.get("mode"))
            if expected["why"]:
                row["notes"].append("%s %s: buffers not compared: %s" % (side, host, expected["why"]))
            row["findings"].extend(_buffer_findings(side, host, record, peer, expected))
    row["status"] = "disagree" if row["findings"] else "agree"
    return row


def _fill(row, client_diag, server_diag):
    row["mode"] = client_diag.get("mode")
    row["version"] = (
        client_diag.get("version") if client_diag.get("version") is not None else server_diag.get("version")
    )
    row["fallback"] = {"client": client_diag.get("fallback"), "server": server_diag.get("fallback")}
    row["buffers"] = {"client": _buffers(client_diag), "server": _buffers(server_diag)}
    row["link_group"] = client_diag.get("link_group") or server_diag.get("link_group")
    if server_diag.get("mode") != client_diag.get("mode"):
        row["findings"].append(
            "the client's connection is %s, the listener's %s" % (client_diag.get("mode"), server_diag.get("mode"))
        )


# -- the table ----------------------------------------------------------------------------------
def _sizes_text(buffers):
    if not buffers or buffers.get("rmbe_size") is None:
        return "-"
    return "%s/%s/%s" % (buffers["rmbe_size"], buffers["peer_rmbe_size"], buffers["sndbuf_size"])


def _reason_text(fallback):
    if not fallback or fallback.get("reason") in (None, "0x00000000"):
        return "-"
    return "%s %s" % (fallback["reason"], fallback.get("reason_name") or "(unknown code)")


def _verdict_text(row):
    if row["status"] == "not checked":
        text = "; ".join(row["findings"])
    elif row["findings"]:
        text = "%s: %s" % (row["status"], "; ".join(row["findings"]))
    else:
        text = row["status"]
    return text + ("" if not row["notes"] else " (%s)" % "; ".join(row["notes"]))


def row_text(row):
    mode = row["mode"] or "-"
    if row["mode"] in ("SMC-D", "SMC-R") and row["version"] is not None:
        mode = "%s v%d" % (row["mode"], row["version"])
    return " | ".join(
        [
            "%s -> %s %s" % (row["client"], row["server"], row["address"] or "-"),
            mode,
            "client %s, server %s" % (_reason_text(row["fallback"]["client"]), _reason_text(row["fallback"]["server"])),
            _sizes_text(row["buffers"]["client"]),
            _sizes_text(row["buffers"]["server"]),
            row["link_group"] or "-",
            row["prediction"] or "-",
            _verdict_text(row),
        ]
    )


HEADING = (
    "pair (client -> server address) | mode | fallback reason | client RMB/peer RMB/send buffer | "
    "server RMB/peer RMB/send buffer | link group | pre-flight | verdict"
)


def _label(row):
    return "%s -> %s" % (row["client"], row["server"])


def compare(plan_result, variables, preflight_rows=None, defaults=None):
    """Rows, table, disagreements (failed and disagreeing pairs), unchecked pairs and a summary."""
    predictions = {}
    for row in preflight_rows or []:
        if isinstance(row, dict):
            predictions[(row.get("client"), row.get("server"))] = row
    results = _Results(variables)
    rows = [
        pair_row(p, variables, predictions.get((p["client"], p["server"])), defaults, results)
        for p in plan_result["pairs"]
    ]
    for pair in plan_result["unplanned"]:
        rows.append(_unchecked(_new_row(pair, predictions.get((pair["client"], pair["server"]))), pair["reason"]))
    summary = dict((status, 0) for status in ("agree", "disagree", "failed", "not_checked"))
    for row in rows:
        summary[row["status"].replace(" ", "_")] += 1
    return {
        "rows": rows,
        "table": [HEADING] + [row_text(r) for r in rows],
        "disagreements": [
            "%s: %s" % (_label(r), "; ".join(r["findings"])) for r in rows if r["status"] in ("disagree", "failed")
        ],
        "unchecked": ["%s: %s" % (_label(r), "; ".join(r["findings"])) for r in rows if r["status"] == "not checked"],
        "summary": summary,
    }
