# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The SMC pre-flight's predictions: every pair replayed (``client.decide``) once per value of each
fact nobody gave, and the branches put together.

When every branch ends the same, that is the prediction. When they differ only in what the
technology leaves open (SMC-R v2 or v1, or TCP with one decline code or another), the prediction
is the technology (``SMC-R``, ``SMC-D``, ``TCP``) and the branches stay in ``why``, ``unknown`` and
``possible``: a certain fallback is a fallback. Otherwise it is ``unknown``."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.s390x.network.plugins.plugin_utils.smc_preflight.client import decide
from ansible_collections.s390x.network.plugins.plugin_utils.smc_preflight.common import (
    TCP,
    TECHNOLOGY,
    UNKNOWN,
    PreflightError,
    code_text,
)
from ansible_collections.s390x.network.plugins.plugin_utils.smc_preflight.facts import normalize_facts
from ansible_collections.s390x.network.plugins.plugin_utils.smc_preflight.replay import Blocked, Need, Run, make_outcome
from ansible_collections.s390x.network.plugins.plugin_utils.smc_preflight.signature import Signatures, template

MAX_RUNS = 512


def _value_text(value):
    if value is True:
        return "yes"
    if value is False:
        return "no"
    if value == "":
        return "none"
    return str(value)


def _signature(outcome):
    return (outcome["prediction"], outcome["code"], outcome["side"])


def _summary(outcome):
    if outcome["prediction"] != TCP:
        return outcome["prediction"]
    if outcome["code"] is None:
        return "TCP (%s, code not modelled)" % outcome["side"]
    return "TCP (%s %s, %s)" % (outcome["code"], code_text(outcome["code"]), outcome["side"])


def _explore(client, server):
    """Replays under every combination of the facts they stopped at: ``(results, questions,
    exhausted)``, ``results`` a list of (assumed facts, outcome)."""
    questions = {}
    results = []
    stack = [()]
    runs = 0
    while stack:
        assumed = stack.pop()
        runs += 1
        if runs > MAX_RUNS:
            return results, questions, True
        run = Run(dict(assumed), questions)
        try:
            outcome = decide(run, client, server)
        except Need as need:
            for option in reversed(need.options):
                stack.append(assumed + ((need.key, option),))
            continue
        except Blocked as blocked:
            outcome = make_outcome(UNKNOWN, why="", fix="")
            outcome["blocked"] = blocked.key
        results.append((assumed, outcome))
    return results, questions, False


def _row(client, server):
    return {
        "client": client,
        "server": server,
        "prediction": UNKNOWN,
        "reason_code": None,
        "reason_name": None,
        "side": None,
        "why": "",
        "fix": "",
        "unknown": [],
        "possible": [],
        "alternatives": [],
    }


def _possible(results, questions):
    possible, seen = [], set()
    for assumed, outcome in results:
        cases = ["%s: %s" % (questions[k][0], _value_text(v)) for k, v in assumed]
        if outcome["prediction"] == UNKNOWN:
            label = "not predictable without %s" % questions[outcome["blocked"]][0]
        else:
            label = _summary(outcome)
        if label in seen:
            continue
        seen.add(label)
        possible.append({"outcome": label, "if": cases})
    return possible


def _technology(results):
    """The technology every branch ends in (``SMC-D``, ``SMC-R``, ``TCP``), else None."""
    kinds = set(TECHNOLOGY.get(outcome["prediction"]) for _assumed, outcome in results)
    return kinds.pop() if len(kinds) == 1 and None not in kinds else None


def _branches_text(possible):
    return "; ".join("%s if %s" % (p["outcome"], ", ".join(p["if"])) if p["if"] else p["outcome"] for p in possible)


def _collapse(row, technology, results, possible, check):
    """A row whose branches agree on the technology: that technology, the branches in ``why``, the
    fixes of the fallbacks and what decides between them in ``fix``."""
    outcomes = [outcome for _assumed, outcome in results]
    facts = ", ".join(row["unknown"])
    row["prediction"] = technology
    if technology == TCP:
        sides = set(o["side"] for o in outcomes)
        row["side"] = sides.pop() if len(sides) == 1 else None
        codes = []
        for outcome in outcomes:
            text = outcome["code"] or "a code not modelled"
            if text not in codes:
                codes.append(text)
        row["alternatives"] = codes
        head = "TCP (%s, depending on %s)" % (" or ".join(codes), facts)
        fixes = []
        for outcome in outcomes:
            if outcome["fix"] and outcome["fix"] not in fixes:
                fixes.append(outcome["fix"])
        row["fix"] = " ".join(fixes + ["To know which applies, check %s." % check])
    else:
        versions = []
        for outcome in outcomes:
            version = outcome["prediction"].split()[-1]
            if version not in versions:
                versions.append(version)
        row["alternatives"] = versions
        head = "%s (%s, depending on %s)" % (technology, " or ".join(versions), facts)
        row["fix"] = "To know the version, check %s." % check
    row["why"] = "%s: %s." % (head, _branches_text(possible))


def predict_pair(client, server):
    """Predict one pair from two normalised fact dicts (``normalize_facts``). Returns the row."""
    results, questions, exhausted = _explore(client, server)
    row = _row(client["name"], server["name"])
    signatures = set(_signature(o) for _a, o in results)
    if not exhausted and len(signatures) == 1 and results[0][1]["prediction"] != UNKNOWN:
        outcome = results[0][1]
        row.update(
            prediction=outcome["prediction"],
            reason_name=outcome["code"],
            reason_code=code_text(outcome["code"]) if outcome["code"] else None,
            side=outcome["side"],
            why=outcome["why"],
            fix=outcome["fix"],
        )
        return row
    keys = []
    for assumed, outcome in results:
        for key, _value in assumed:
            if key not in keys:
                keys.append(key)
        if outcome.get("blocked") and outcome["blocked"] not in keys:
            keys.append(outcome["blocked"])
    row["unknown"] = [questions[k][0] for k in keys]
    checks = []
    for key in keys:
        if questions[key][1] not in checks:
            checks.append(questions[key][1])
    possible = _possible(results, questions)
    row["possible"] = possible
    technology = None if exhausted else _technology(results)
    if technology:
        _collapse(row, technology, results, possible, "; ".join(checks))
        return row
    if exhausted:
        row["why"] = "Too many facts are not known to follow every branch (more than %d)." % MAX_RUNS
    else:
        row["why"] = "Depends on facts that are not known: " + _branches_text(possible) + "."
    row["fix"] = "Check " + "; ".join(checks) + "."
    return row


def predict(facts, pairs):
    """Rows for ``pairs`` (a list of ``{client, server}`` or ``[client, server]``) from ``facts``
    (host name -> fact dict, normalised here). A pair naming a host without facts gives an
    ``unknown`` row that says so. Pairs of one signature (``signature``) are judged once."""
    normalised = {}
    rows = []
    signatures = Signatures()
    judged = {}
    for index, pair in enumerate(_pair_list(pairs)):
        client, server = pair
        missing = [h for h in (client, server) if h not in facts]
        if client == server:
            raise PreflightError("pairs[%d]: client and server are both %s" % (index, client))
        if missing:
            row = _row(client, server)
            row.update(
                why="No facts for %s (not an inventory host)." % ", ".join(missing),
                fix="Map the name to an inventory host (cpc.partitions[].host, or a guest named like its host).",
                unknown=["facts of %s" % h for h in missing],
            )
            rows.append(row)
            continue
        for name in (client, server):
            if name not in normalised:
                normalised[name] = normalize_facts(name, facts[name])
        rows.append(_judge(signatures, judged, (client, normalised[client]), (server, normalised[server])))
    return rows


def _judge(signatures, judged, client, server):
    """The row of one pair: rendered from the row of its signature, judged the first time it is seen."""
    shapes = signatures.shape(client[0], client[1], "c"), signatures.shape(server[0], server[1], "s")
    key = signatures.pair(*shapes)
    if key is None:
        return predict_pair(client[1], server[1])
    if key not in judged:
        judged[key] = template(predict_pair(*signatures.facts(shapes[0], shapes[1], key)))
    back = dict(shapes[0].back)
    back.update(shapes[1].back)
    return judged[key](back)


def _pair_list(pairs):
    if not isinstance(pairs, (list, tuple)):
        raise PreflightError("pairs: expected a list of {client, server} or [client, server], got %r" % (pairs,))
    result = []
    for index, pair in enumerate(pairs):
        if isinstance(pair, dict) and pair.get("client") and pair.get("server"):
            result.append((str(pair["client"]), str(pair["server"])))
        elif isinstance(pair, (list, tuple)) and len(pair) == 2 and all(pair):
            result.append((str(pair[0]), str(pair[1])))
        else:
            raise PreflightError(
                "pairs[%d]: expected {client: HOST, server: HOST} or [HOST, HOST], got %r" % (index, pair)
            )
    return result
