# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pre-flight's predictions against the hosts' SMC counters: the verdict rules, exact."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest

from ansible_collections.s390x.network.plugins.plugin_utils.smc_preflight import check
from ansible_collections.s390x.network.plugins.module_utils.smc.stats import (
    empty_stats,
    parse_stats_text,
    stats_from_netlink,
)

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "smc")


def row(client, server, prediction, reason_name=None, side=None):
    """A row as smc_preflight.predict_pair returns it (the fields the comparison reads)."""
    return {
        "client": client,
        "server": server,
        "prediction": prediction,
        "reason_code": None,
        "reason_name": reason_name,
        "side": side,
        "why": "",
        "fix": "",
        "unknown": [],
        "possible": [],
    }


def stats(protocol, client=0, server=0, v1=None, v2=None, fallbacks=None):
    """smcd_info's stats: SMC connections per role, versions, fallbacks {role: {tool name: count}}
    (the totals are the sums, as smc-tools prints them when it lists every reason)."""
    data = empty_stats(protocol)
    fallbacks = fallbacks or {}
    by_role = {"client": dict(fallbacks.get("client", {})), "server": dict(fallbacks.get("server", {}))}
    conns = data["connections"]
    conns.update(
        smc=client + server,
        smc_client=client,
        smc_server=server,
        v1=v1 if v1 is not None else 0,
        v2=v2 if v2 is not None else client + server,
        tcp_fallback_client=sum(by_role["client"].values()),
        tcp_fallback_server=sum(by_role["server"].values()),
        fallback_reasons_by_role=by_role,
    )
    conns["tcp_fallback"] = conns["tcp_fallback_client"] + conns["tcp_fallback_server"]
    return data


def result(stats_dict):
    """An smcd_info result around stats."""
    return {"changed": False, "protocol": stats_dict["protocol"], "backend": "tool", "stats": stats_dict}


def verdict(rows, readings):
    out = check.compare(rows, readings)
    return [(r["verdict"], r["reason"]) for r in out["rows"]]


# -- the rules -------------------------------------------------------------------------------------
def test_smcd_predicted_and_counted_agrees():
    readings = {"a": {"smcd": result(stats("smcd", client=20, server=3)), "smcr": result(stats("smcr"))}}
    out = check.compare([row("a", "b", "SMC-D v2")], readings)
    assert [(r["verdict"], r["reason"], r["host"], r["role"], r["protocol"]) for r in out["rows"]] == [
        ("agree", "a counted 20 SMC-D client connections", "a", "client", "smcd")
    ]
    assert out["rows"][0]["observed"] == ("a as client: SMC-D 20 (host v1 0, v2 23), SMC-R 0, fallbacks 0 (none)")
    assert out["summary"] == {"agree": 1, "disagree": 0, "not_observed": 0, "not_compared": 0}


def test_smcd_predicted_but_only_fallbacks_counted_disagrees_and_names_the_reason():
    readings = {
        "a": {
            "smcd": result(stats("smcd", fallbacks={"client": {"NOSMCDEV": 7, "PEERDECL": 2}})),
            "smcr": result(stats("smcr", fallbacks={"client": {"NOSMCDEV": 7, "PEERDECL": 2}})),
        }
    }
    assert verdict([row("a", "b", "SMC-D v1")], readings) == [
        ("disagree", "a counted no SMC client connection, but 9 client fallbacks: NOSMCDEV 7, PEERDECL 2")
    ]


def test_smc_predicted_fallbacks_and_smc_of_the_other_technology_is_not_a_disagreement():
    # the host's SMC-R client connections may be to other peers; fallbacks are per host
    readings = {
        "a": {
            "smcd": result(stats("smcd", fallbacks={"client": {"NOSMCDEV": 1}})),
            "smcr": result(stats("smcr", client=4, v1=4, v2=0, fallbacks={"client": {"NOSMCDEV": 1}})),
        }
    }
    assert verdict([row("a", "b", "SMC-D v2")], readings) == [
        (
            "not observed",
            "a counted no SMC-D client connection; its 4 other SMC client connections may be to other peers",
        )
    ]


def test_smc_predicted_fallbacks_without_the_other_technology_read_is_not_a_disagreement():
    readings = {"a": {"smcd": result(stats("smcd", fallbacks={"client": {"NOSMCDEV": 2}}))}}
    assert verdict([row("a", "b", "SMC-D v2")], readings) == [
        (
            "not observed",
            "a counted no SMC-D client connection and 2 client fallbacks; its SMC-R statistics were not read",
        )
    ]


def test_smc_predicted_server_fallbacks_do_not_count_for_the_client_role():
    readings = {"a": {"smcd": result(stats("smcd", server=5, fallbacks={"server": {"PEER_NO_SMC": 3}}))}}
    assert verdict([row("a", "b", "SMC-D v2")], readings) == [("not observed", "a counted no connection as client")]


def test_smc_predicted_but_only_the_other_version_counted_is_not_observed():
    readings = {"a": {"smcr": result(stats("smcr", client=8, server=4, v1=12, v2=0))}}
    assert verdict([row("a", "b", "SMC-R v2")], readings) == [
        ("not observed", "a counted 8 SMC-R client connections, but none v2 (12 v1): not this pair's")
    ]
    assert verdict([row("a", "b", "SMC-R v1")], readings) == [("agree", "a counted 8 SMC-R client connections")]


def test_smc_predicted_without_a_version_agrees_with_either():
    # the pre-flight predicts the technology alone when the version depends on facts nobody gave
    readings = {"a": {"smcr": result(stats("smcr", client=8, server=4, v1=12, v2=0))}}
    assert verdict([row("a", "b", "SMC-R")], readings) == [("agree", "a counted 8 SMC-R client connections")]
    readings = {
        "a": {"smcd": result(stats("smcd", fallbacks={"client": {"NOSMCDEV": 3}})), "smcr": result(stats("smcr"))}
    }
    assert verdict([row("a", "b", "SMC-D")], readings) == [
        ("disagree", "a counted no SMC client connection, but 3 client fallbacks: NOSMCDEV 3")
    ]


def test_tcp_without_one_decline_code_is_not_compared():
    readings = {"s": {"smcr": result(stats("smcr", fallbacks={"server": {"NOSMCRDEV": 2}}))}}
    (out,) = check.compare([row("c", "s", "TCP", None, "server")], readings)["rows"]
    assert (out["verdict"], out["reason"]) == (
        "not compared",
        "the prediction names no decline code and side to look for",
    )


def test_tcp_nosmcddev_counted_on_the_predicted_side_agrees():
    rows = [row("a", "b", "TCP", "SMC_CLC_DECL_NOSMCDDEV", "server")]
    readings = {
        "a": {"smcd": result(stats("smcd", fallbacks={"client": {"PEERDECL": 5}}))},
        "b": {
            "smcd": result(stats("smcd", server=10, fallbacks={"server": {"NOSMCDDEV": 5, "PEER_NO_SMC": 1}})),
            "smcr": result(stats("smcr")),
        },
    }
    out = check.compare(rows, readings)
    assert [(r["verdict"], r["reason"], r["host"], r["role"]) for r in out["rows"]] == [
        ("agree", "b counted 5 fallbacks as server with NOSMCDDEV", "b", "server")
    ]
    assert out["rows"][0]["observed"] == (
        "b as server: SMC-D 10 (host v1 0, v2 10), SMC-R 0, fallbacks 6 (NOSMCDDEV 5, PEER_NO_SMC 1)"
    )


def test_tcp_counted_on_the_other_side_only_is_not_observed():
    # the server's code counted by the client host is not what the prediction says the server counts
    rows = [row("a", "b", "TCP", "SMC_CLC_DECL_NOSMCDDEV", "server")]
    readings = {
        "a": {"smcd": result(stats("smcd", fallbacks={"client": {"NOSMCDDEV": 5}}))},
        "b": {"smcd": result(stats("smcd", fallbacks={"client": {"NOSMCDDEV": 5}}))},
    }
    assert verdict(rows, readings) == [("not observed", "b counted no connection as server")]


def test_tcp_with_other_reasons_on_the_predicted_side_disagrees():
    rows = [row("a", "b", "TCP", "SMC_CLC_DECL_NOSMCDDEV", "server")]
    readings = {"b": {"smcr": result(stats("smcr", fallbacks={"server": {"NOSMCRDEV": 5}}))}}
    assert verdict(rows, readings) == [
        ("disagree", "b counted 5 fallbacks as server, none with NOSMCDDEV: NOSMCRDEV 5")
    ]


def test_tcp_predicted_but_smc_connections_counted_disagrees():
    rows = [row("a", "b", "TCP", "SMC_CLC_DECL_NOSMCDEV", "client")]
    readings = {"a": {"smcd": result(stats("smcd", client=12, server=1)), "smcr": result(stats("smcr", client=3))}}
    assert verdict(rows, readings) == [
        ("disagree", "a counted 15 SMC connections as client and no fallback, TCP with NOSMCDEV predicted")
    ]


def test_tcp_predicted_with_smc_connections_and_the_reason_agrees():
    # other peers use SMC: not required to be zero
    rows = [row("a", "b", "TCP", "SMC_CLC_DECL_NOSMCDEV", "client")]
    readings = {"a": {"smcd": result(stats("smcd", client=12, fallbacks={"client": {"NOSMCDEV": 1}}))}}
    assert verdict(rows, readings) == [("agree", "a counted 1 fallbacks as client with NOSMCDEV")]


def test_not_observed():
    rows = [
        row("a", "b", "SMC-D v2"),
        row("a", "b", "TCP", "SMC_CLC_DECL_NOSMCDEV", "client"),
        row("c", "b", "SMC-R v1"),
        row("a", "c", "SMC-R v1"),
    ]
    readings = {"a": {"smcd": result(stats("smcd")), "smcr": result(stats("smcr"))}, "c": {"smcd": {"failed": True}}}
    out = check.compare(rows, readings)
    assert [(r["verdict"], r["reason"], r["observed"]) for r in out["rows"]] == [
        (
            "not observed",
            "a counted no connection as client",
            "a as client: SMC-D 0, SMC-R 0, fallbacks 0 (none)",
        ),
        (
            "not observed",
            "a counted no connection as client",
            "a as client: SMC-D 0, SMC-R 0, fallbacks 0 (none)",
        ),
        ("not observed", "the statistics of c were not read", "-"),
        ("not observed", "a counted no connection as client", "a as client: SMC-D 0, SMC-R 0, fallbacks 0 (none)"),
    ]
    # a protocol that was not read
    only_smcd = {"a": {"smcd": result(stats("smcd", client=2))}}
    assert verdict([row("a", "b", "SMC-R v1")], only_smcd) == [
        ("not observed", "the SMC-R statistics of a were not read")
    ]
    assert out["summary"] == {"agree": 0, "disagree": 0, "not_observed": 4, "not_compared": 0}


def test_unknown_is_not_compared():
    readings = {"a": {"smcd": result(stats("smcd", fallbacks={"client": {"NOSMCDEV": 3}}))}}
    out = check.compare([row("a", "b", "unknown"), row("a", "b", "TCP", None, "client")], readings)
    assert [(r["verdict"], r["reason"], r["observed"], r["host"]) for r in out["rows"]] == [
        (
            "not compared",
            "the prediction is unknown: it depends on facts nobody gave (see the pre-flight's why)",
            "-",
            None,
        ),
        ("not compared", "the prediction names no decline code and side to look for", "-", None),
    ]
    assert out["summary"] == {"agree": 0, "disagree": 0, "not_observed": 0, "not_compared": 2}


# -- what smc-tools shows and what it leaves out ---------------------------------------------------
def test_a_reason_smcd_stats_may_have_left_out_is_not_a_disagreement():
    with open(os.path.join(FIXTURES, "smcd_d_stats_fallback.txt")) as handle:
        parsed = parse_stats_text(handle.read())
    readings = {"b": {"smcd": result(parsed)}}
    # server: 31 fallbacks, the three codes printed sum to 30
    assert verdict([row("a", "b", "TCP", "SMC_CLC_DECL_NOSMCDDEV", "server")], readings) == [
        ("not observed", "b counted 1 fallbacks as server that smcd stats does not list (it prints three codes)")
    ]
    assert verdict([row("a", "b", "TCP", "SMC_CLC_DECL_DIFFPREFIX", "server")], readings) == [
        ("agree", "b counted 2 fallbacks as server with DIFFPREFIX")
    ]
    # client: 12 fallbacks, all listed
    assert verdict([row("b", "a", "TCP", "SMC_CLC_DECL_NOSMCDEV", "client")], readings) == [
        ("disagree", "b counted 12 fallbacks as client, none with NOSMCDEV: PEER_NO_SMC 7, NOSMCDDEV 5")
    ]


def test_a_code_smc_tools_has_no_name_for():
    # SMC_CLC_DECL_NOUEID is printed as [unknown] by smc-tools and by smcd_info's netlink path
    rows = [row("a", "b", "TCP", "SMC_CLC_DECL_NOUEID", "server")]
    unknown = {"b": {"smcd": result(stats("smcd", fallbacks={"server": {"[unknown]": 4}}))}}
    assert verdict(rows, unknown) == [
        ("not observed", "b counted 4 fallbacks as server under [unknown], the name smc-tools gives NOUEID and others")
    ]
    named = {"b": {"smcd": result(stats("smcd", fallbacks={"server": {"NOSMCD2DEV": 4}}))}}
    assert verdict(rows, named) == [("disagree", "b counted 4 fallbacks as server, none with NOUEID: NOSMCD2DEV 4")]


def test_netlink_statistics_with_fallbacks_read_through_both_protocols():
    # the kernel keeps one fallback table per host: smcd and smcr show the same, counted once
    fallback = {"client_total": 0, "server_total": 6, "client": {}, "server": {0x03030001: 6}}
    nl_stats = {"smcd_tech": {"srv_v2_succ": 2, "clnt_v1_succ": 0, "clnt_v2_succ": 0, "srv_v1_succ": 0}}
    readings = {
        "b": {
            "smcd_info_smcd": {"stats": stats_from_netlink("smcd", nl_stats, fallback)},
            "smcd_info_smcr": {"stats": stats_from_netlink("smcr", {}, fallback)},
        }
    }
    out = check.compare([row("a", "b", "TCP", "SMC_CLC_DECL_NOSMCDDEV", "server")], readings)
    assert [(r["verdict"], r["reason"], r["observed"]) for r in out["rows"]] == [
        (
            "agree",
            "b counted 6 fallbacks as server with NOSMCDDEV",
            "b as server: SMC-D 2 (host v1 0, v2 2), SMC-R 0, fallbacks 6 (NOSMCDDEV 6)",
        )
    ]


def test_host_counts_merges_the_readings():
    counts = check.host_counts(
        "h",
        {
            "smcd": stats("smcd", client=1, fallbacks={"client": {"NOSMCDEV": 2}}),
            "smcr": stats("smcr", server=3, fallbacks={"client": {"NOSMCDEV": 2, "PEERDECL": 1}}),
        },
    )
    assert counts == {
        "host": "h",
        "read": ["smcd", "smcr"],
        "smc": {
            "smcd": {"client": 1, "server": 0, "v1": 0, "v2": 1},
            "smcr": {"client": 0, "server": 3, "v1": 0, "v2": 3},
        },
        "fallbacks": {
            "client": {
                "total": 3,
                "reasons": {"SMC_CLC_DECL_NOSMCDEV": 2, "SMC_CLC_DECL_PEERDECL": 1},
                "hidden": 0,
            },
            "server": {"total": 0, "reasons": {}, "hidden": 0},
        },
    }


@pytest.mark.parametrize(
    "given, name",
    [
        ("NOSMCDEV", "SMC_CLC_DECL_NOSMCDEV"),
        ("PEER_NO_SMC", "SMC_CLC_DECL_PEERNOSMC"),
        ("SMC_CLC_DECL_NOSMCDDEV", "SMC_CLC_DECL_NOSMCDDEV"),
        ("NOUEID", "SMC_CLC_DECL_NOUEID"),
        (0x03030007, "SMC_CLC_DECL_NOSMCD2DEV"),
        ("0x03070000", "SMC_CLC_DECL_DIFFPREFIX"),
        ("0x0abc0000", "0x0abc0000"),
        ("[unknown]", "[unknown]"),
    ],
)
def test_reason_key(given, name):
    assert check.reason_key(given) == name


def test_table():
    readings = {"a": {"smcd": result(stats("smcd", client=2))}}
    out = check.compare([row("a", "b", "SMC-D v2"), row("b", "a", "TCP", "SMC_CLC_DECL_NOSMCDEV", "client")], readings)
    observed = "a as client: SMC-D 2 (host v1 0, v2 2), SMC-R not read, fallbacks 0 (none)"
    assert out["table"] == [
        "PAIR    PREDICTION             %-*s  VERDICT       REASON" % (len(observed), "OBSERVED"),
        "a -> b  SMC-D v2               %s  agree         a counted 2 SMC-D client connections" % observed,
        "b -> a  TCP NOSMCDEV (client)  %-*s  not observed  the statistics of b were not read" % (len(observed), "-"),
    ]


@pytest.mark.parametrize(
    "rows, readings, message",
    [
        ("x", {}, "rows: expected the list"),
        ([row("a", "b", "SMC-D v3")], {}, "unknown prediction"),
        ([row("a", "b", "TCP", "SMC_CLC_DECL_NOPE", "client")], {}, "unknown reason_name"),
        ([{"client": "a", "prediction": "TCP"}], {}, "no server"),
        ([row("a", "b", "SMC-D v2")], {"a": {"smcd": {"stats": {}}}}, "no stats.connections"),
        ([row("a", "b", "SMC-D v2")], {"a": {"smcd": stats("smcd", client=-1)}}, "expected a count"),
        (
            [row("a", "b", "SMC-D v2")],
            {"a": {"smcd": stats("smcd", fallbacks={"client": {"NOSUCH": 1}})}},
            "is no SMC_CLC_DECL_",
        ),
        ([row("a", "b", "SMC-D v2")], {"a": ["smcd"]}, "expected {smcd"),
    ],
)
def test_bad_input(rows, readings, message):
    with pytest.raises(check.CheckError, match=message):
        check.compare(rows, readings)
