# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The live SMC check of verify.yml (filter smc_live_check): the plan - which pairs, who listens where,
who connects - and the verdict per pair from the results the play registers, against the pre-flight's
prediction and the buffer sizes the smc role sets. The records are those smc_check returns (the
SMC_DIAG record of module_utils/smc/diag.py)."""

from __future__ import annotations

import copy
import os

import jinja2
import pytest
import yaml

from ansible.errors import AnsibleFilterError

from ansible_collections.s390x.network.plugins.filter.smc_live_check import smc_live_check
from ansible_collections.s390x.network.plugins.filter.smc_preflight import smc_preflight
from ansible_collections.s390x.network.plugins.module_utils.smc import diag
from ansible_collections.s390x.network.plugins.plugin_utils import smc_live_table

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
KERNEL = "6.12.0-31-s390x"
PAIR_AB = {"client": "a", "server": "b", "address": "10.1.0.2", "network": "10.1.0.0/24"}
PAIR_AC = {"client": "a", "server": "c", "address": "10.1.0.3", "network": "10.1.0.0/24"}


def sysctl(loaded=True, kernel=KERNEL):
    return {"kernel": kernel, "smc_loaded": loaded, "method": "net.smc", "changed": False}


def inventory(pairs=(PAIR_AB,)):
    findings = {"errors": [], "warnings": [], "pairs": [dict(p) for p in pairs]}
    return dict(
        (host, {"interfaces_findings": findings, "smc_sysctl_result": sysctl()}) for host in ("a", "b", "c", "d", "e")
    )


def record(mode="SMC-D", version=2, rmbe=131040, peer_rmbe=131040, sndbuf=131072, reason=0, peer=0, **extra):
    result = diag.empty_record()
    reason_hex, reason_name = diag.decline_text(reason)
    peer_hex, peer_name = diag.decline_text(peer)
    result.update(
        mode=mode,
        version=version if mode != "TCP" else None,
        fallback={
            "reason": reason_hex,
            "reason_name": reason_name,
            "peer_diagnosis": peer_hex,
            "peer_diagnosis_name": peer_name,
        },
        link_group="0x00000f01" if mode != "TCP" else None,
    )
    if mode != "TCP":
        result.update(rmbe_size=rmbe, peer_rmbe_size=peer_rmbe, sndbuf_size=sndbuf)
    result.update(extra)
    return result


def ran(variables, client="a", server="b", client_diag=None, server_diag=None, port=40001, **client_extra):
    """The results the play registers for one pair: the client's loop item and the listener's connection."""
    local = {"address": "10.1.0.1", "port": port}
    item = {
        "item": {"server": server, "address": "10.1.0.2"},
        "smc_available": True,
        "changed": False,
        "failed": False,
        "local": local,
        "data_ok": True,
        "diag": client_diag if client_diag is not None else record(),
        "diag_error": None,
        "error": None,
    }
    item.update(client_extra)
    loop = variables[client].setdefault(smc_live_table.CLIENT_RESULTS, {"results": []})
    loop["results"].append(item)
    listener = variables[server].setdefault(
        smc_live_table.SERVER_RESULT, {"finished": 1, "failed": False, "smc_available": True, "connections": []}
    )
    listener["connections"].append(
        {"peer": local, "diag": server_diag if server_diag is not None else record(), "diag_error": None, "error": None}
    )
    return variables


def check(variables, hosts=("a", "b", "c"), prediction=None, **kwargs):
    rows = []
    if prediction is not None:
        rows = [dict({"client": "a", "server": "b", "reason_name": None, "side": None}, **prediction)]
    return smc_live_check(variables, list(hosts), preflight=rows, **kwargs)


def only_row(result):
    (row,) = result["rows"]
    return row


# -- the plan -----------------------------------------------------------------------------------
def test_the_pairs_of_the_interfaces_check_and_who_listens_where():
    result = check(inventory([PAIR_AB, PAIR_AC, dict(PAIR_AB, client="c", address="10.1.0.2")]))
    assert [(p["client"], p["server"], p["kind"]) for p in result["pairs"]] == [
        ("a", "b", "smcd_peers"),
        ("a", "c", "smcd_peers"),
        ("c", "b", "smcd_peers"),
    ]
    assert result["connect"] == {
        "a": [{"server": "b", "address": "10.1.0.2"}, {"server": "c", "address": "10.1.0.3"}],
        "c": [{"server": "b", "address": "10.1.0.2"}],
    }
    # one listener per host for all its pairs; a waits for each of its two connections, and once more
    assert result["listen"] == {
        "b": {"address": "10.1.0.2", "connections": 2, "timeout": 60},
        "c": {"address": "10.1.0.3", "connections": 1, "timeout": 60},
    }
    assert result["unplanned"] == []


def test_a_listener_with_pairs_on_two_addresses_listens_on_every_address():
    variables = inventory([PAIR_AB, dict(PAIR_AB, client="c", address="10.2.0.2", network="10.2.0.0/24")])
    assert check(variables)["listen"]["b"]["address"] == "0.0.0.0"
    six = inventory([dict(PAIR_AB, address="fd00::2"), dict(PAIR_AB, client="c", address="fd01::2")])
    assert check(six)["listen"]["b"]["address"] == "::"


def test_the_listener_timeout_is_capped_at_what_the_module_takes():
    result = check(inventory([PAIR_AB, PAIR_AC]), timeout=100)
    assert result["listen"]["b"]["timeout"] == 120 and result["timeout"] == 100


def test_smcr_pairs_get_the_address_of_the_subnet_they_share():
    variables = inventory([PAIR_AB])
    for host, addresses in (("c", ["10.9.0.3/24", "172.16.0.3/16"]), ("d", ["172.16.5.4/16"]), ("e", ["10.7.0.5/24"])):
        variables[host]["smc_plan"] = {"roce": {"enabled": True}}
        variables[host]["interfaces_config"] = [{"device": "0.0.1000", "addresses": addresses}]
    variables["a"]["smc_plan"] = {"roce": {"enabled": False}}
    result = check(variables, hosts=("a", "b", "c", "d", "e"))
    assert [p for p in result["pairs"] if p["kind"] == "smcr"] == [
        {"client": "c", "server": "d", "address": "172.16.5.4", "network": "172.16.0.0/16", "kind": "smcr"}
    ]
    assert [(u["client"], u["server"]) for u in result["unplanned"]] == [("c", "e"), ("d", "e")]
    assert result["unplanned"][0]["reason"] == smc_live_table.NO_SUBNET
    assert "c -> e: not checked: the peers share no subnet in interfaces_config (only SMC v2 connects them)" in (
        "; ".join(result["unchecked"])
    )


def test_a_pair_with_a_host_outside_the_play_or_without_smc_is_not_connected():
    variables = inventory([PAIR_AB, PAIR_AC])
    variables["c"]["smc_sysctl_result"] = sysctl(loaded=False)
    result = check(variables, hosts=("a", "c"))
    assert result["pairs"] == [] and result["listen"] == {} and result["connect"] == {}
    reasons = dict(((u["client"], u["server"]), u["reason"]) for u in result["unplanned"])
    assert reasons[("a", "b")] == "b: not in this play (smc_hosts)"
    assert reasons[("a", "c")].startswith("c: the smc kernel module is not loaded (smc_sysctl: smc_loaded false)")
    assert result["summary"] == {"agree": 0, "disagree": 0, "failed": 0, "not_checked": 2}
    assert result["disagreements"] == []


# -- the verdicts -------------------------------------------------------------------------------
def test_a_connection_as_predicted_with_the_role_sizes_agrees():
    result = check(ran(inventory()), prediction={"prediction": "SMC-D v2"})
    row = only_row(result)
    assert row["status"] == "agree" and row["findings"] == [] and result["disagreements"] == []
    assert (row["mode"], row["version"], row["link_group"]) == ("SMC-D", 2, "0x00000f01")
    assert row["buffers"]["server"] == {"rmbe_size": 131040, "peer_rmbe_size": 131040, "sndbuf_size": 131072}
    assert result["table"][0] == smc_live_table.HEADING
    assert result["table"][1] == (
        "a -> b 10.1.0.2 | SMC-D v2 | client -, server - | 131040/131040/131072 | 131040/131040/131072 | "
        "0x00000f01 | SMC-D v2 | agree"
    )
    assert result["summary"] == {"agree": 1, "disagree": 0, "failed": 0, "not_checked": 0}


def test_a_technology_only_or_unknown_prediction_compares_what_it_says():
    assert only_row(check(ran(inventory()), prediction={"prediction": "SMC-D"}))["status"] == "agree"
    assert only_row(check(ran(inventory()), prediction={"prediction": "unknown"}))["status"] == "agree"
    assert only_row(check(ran(inventory())))["status"] == "agree"  # no pre-flight row


def test_a_fallback_where_smc_d_is_predicted_disagrees_naming_the_pair_and_the_reason():
    fallback = record("TCP", reason=0x03030001)
    variables = ran(inventory(), client_diag=record("TCP", reason=0x05000000, peer=0x03030001), server_diag=fallback)
    result = check(variables, prediction={"prediction": "SMC-D v2"})
    row = only_row(result)
    assert row["status"] == "disagree" and row["mode"] == "TCP"
    (text,) = result["disagreements"]
    assert text == (
        "a -> b: the pre-flight predicts SMC-D v2, the connection is TCP (client SMC_CLC_DECL_PEERDECL)"
    ), text
    assert "client 0x05000000 SMC_CLC_DECL_PEERDECL, server 0x03030001 SMC_CLC_DECL_NOSMCDDEV" in result["table"][1]


def test_another_version_than_predicted_disagrees():
    result = check(ran(inventory()), prediction={"prediction": "SMC-D v1"})
    assert result["disagreements"] == ["a -> b: the pre-flight predicts SMC-D v1, the connection is SMC-D v2"]


@pytest.mark.parametrize(
    "client_reason,client_peer,server_reason,agrees",
    [
        (0x05000000, 0x03030001, 0x03030001, True),  # the listener declined with the predicted code
        (0x05000000, 0x03030001, 0, True),  # only the client saw it, as the peer's diagnosis
        (0x03030000, 0, 0, False),  # the client found no device itself
    ],
)
def test_a_predicted_fallback_is_compared_by_its_decline_code(client_reason, client_peer, server_reason, agrees):
    variables = ran(
        inventory(),
        client_diag=record("TCP", reason=client_reason, peer=client_peer),
        server_diag=record("TCP", reason=server_reason),
    )
    prediction = {"prediction": "TCP", "reason_name": "SMC_CLC_DECL_NOSMCDDEV", "side": "server"}
    row = only_row(check(variables, prediction=prediction))
    assert row["status"] == ("agree" if agrees else "disagree"), row
    if not agrees:
        assert "predicts a fallback with SMC_CLC_DECL_NOSMCDDEV on the server" in row["findings"][0]


def test_smc_where_a_fallback_is_predicted_disagrees():
    prediction = {"prediction": "TCP", "reason_name": "SMC_CLC_DECL_NOSMCDDEV", "side": "server"}
    (text,) = check(ran(inventory()), prediction=prediction)["disagreements"]
    assert text == "a -> b: the pre-flight predicts TCP (SMC_CLC_DECL_NOSMCDDEV), the connection is SMC-D"


def test_an_rmb_of_another_size_than_the_role_sets_disagrees():
    small = record(rmbe=65504, peer_rmbe=131040)
    variables = ran(inventory(), client_diag=record(peer_rmbe=65504), server_diag=small)
    (text,) = check(variables, prediction={"prediction": "SMC-D v2"})["disagreements"]
    assert text == (
        "a -> b: server b: receive buffer (RMB) of 65504 bytes, in the 64K class; the smc role sets 128K "
        "(kernel %s)" % KERNEL
    )


def test_the_size_is_the_hosts_own_rule():
    variables = ran(inventory(), client_diag=record(peer_rmbe=65504), server_diag=record(rmbe=65504, sndbuf=65536))
    variables["b"].update(smc_buffer_size="1M", smc_rmem="64K", smc_wmem="64K")
    assert only_row(check(variables))["status"] == "agree"
    variables["b"]["smc_wmem"] = ""  # left alone: not compared
    variables["b"]["smc_rmem"] = "256K"
    (text,) = check(variables)["disagreements"]
    assert "server b: receive buffer (RMB) of 65504 bytes" in text and "sets 256K" in text


def test_a_send_buffer_is_the_wmem_size_or_the_peers_dmb_it_attaches():
    attached = record(sndbuf=1048544, peer_rmbe=1048544)  # loopback-ism: the peer's 1 MiB DMB
    variables = ran(inventory(), client_diag=attached, server_diag=record(peer_rmbe=131040))
    variables["a"]["smc_rmem"] = "128K"
    row = only_row(check(variables))
    assert row["findings"] == ["server b has an RMB of 131040 bytes, its peer sees 1048544"]
    variables = ran(inventory(), client_diag=record(sndbuf=32768))
    (text,) = check(variables)["disagreements"]
    assert text == "a -> b: client a: send buffer of 32768 bytes; the smc role sets 128K (kernel %s)" % KERNEL


def test_smcr_buffers_are_sized_for_smcr():
    smcr = record("SMC-R", version=1, rmbe=131072, peer_rmbe=131072, sndbuf=131072)
    variables = ran(inventory(), client_diag=smcr, server_diag=copy.deepcopy(smcr))
    assert only_row(check(variables, prediction={"prediction": "SMC-R v1"}))["status"] == "agree"


def test_without_the_smc_roles_result_the_buffers_are_not_compared():
    variables = ran(inventory(), server_diag=record(rmbe=16352, peer_rmbe=131040), client_diag=record(peer_rmbe=16352))
    del variables["b"]["smc_sysctl_result"]
    result = check(variables)
    assert only_row(result)["status"] == "agree"
    assert result["table"][1].endswith(
        "| agree (server b: buffers not compared: the smc role's smc_sysctl result (kernel) is not known)"
    )
    variables["b"]["smc_sysctl_result"] = sysctl()
    variables["b"]["smc_buffer_size"] = "lots"
    assert "server b: buffers not compared: result_drift: smc_buffer_size" in check(variables)["table"][1]


def test_the_two_ends_must_see_the_same_technology():
    variables = ran(inventory(), server_diag=record("SMC-R", version=2))
    assert "the client's connection is SMC-D, the listener's SMC-R" in only_row(check(variables))["findings"]


# -- pairs that were not checked, and failures ----------------------------------------------------
def test_a_host_without_smc_sockets_makes_its_pair_not_checked_with_its_reason():
    reason = "this kernel has no SMC sockets (AF_SMC: Address family not supported by protocol): ..."
    variables = ran(inventory(), client_diag=record())
    variables["b"][smc_live_table.SERVER_RESULT] = {"finished": 1, "smc_available": False, "reason": reason}
    variables["a"][smc_live_table.CLIENT_RESULTS]["results"][0] = {
        "item": {"server": "b"},
        "failed": False,
        "smc_available": True,
        "error": "connect to 10.1.0.2 port 31830: Connection refused (80 attempts)",
    }
    result = check(variables, prediction={"prediction": "SMC-D v2"})
    row = only_row(result)
    assert row["status"] == "not checked" and result["disagreements"] == []
    assert result["unchecked"] == ["a -> b: not checked: b: " + reason]
    assert "| not checked: b: this kernel has no SMC sockets" in result["table"][1]


def test_a_client_without_smc_sockets_makes_its_pair_not_checked():
    variables = ran(inventory())
    variables["a"][smc_live_table.CLIENT_RESULTS]["results"][0] = {
        "item": {"server": "b"},
        "smc_available": False,
        "reason": "this kernel has no SMC sockets (IPPROTO_SMC: Protocol not supported)",
    }
    variables["b"][smc_live_table.SERVER_RESULT].update(failed=True, msg="timed out after 0 of 1 connections")
    assert check(variables)["unchecked"] == [
        "a -> b: not checked: a: this kernel has no SMC sockets (IPPROTO_SMC: Protocol not supported)"
    ]


def test_check_mode_and_tasks_that_did_not_run_are_not_checked():
    variables = ran(inventory())
    variables["b"][smc_live_table.SERVER_RESULT] = {
        "smc_available": None,
        "skipped_reason": "check mode opens no connection",
    }
    assert check(variables)["unchecked"] == ["a -> b: not checked: b: check mode opens no connection"]
    del variables["b"][smc_live_table.SERVER_RESULT]
    assert check(variables)["unchecked"] == ["a -> b: not checked: b: no listener result (the listener did not run)"]


def test_a_port_in_use_fails_the_pair_naming_the_port():
    variables = ran(inventory())
    variables["b"][smc_live_table.SERVER_RESULT] = {
        "finished": 1,
        "failed": True,
        "smc_available": True,
        "msg": "port 31830 on 10.1.0.2 is in use by another socket; a port in use is refused: choose another port",
    }
    result = check(variables)
    assert only_row(result)["status"] == "failed"
    assert result["disagreements"] == [
        "a -> b: b: the listener failed: port 31830 on 10.1.0.2 is in use by another socket; a port in use is "
        "refused: choose another port"
    ]


def test_a_client_that_could_not_connect_fails_the_pair():
    variables = ran(inventory(), failed=True, msg="connect to 10.1.0.2 port 31830: Connection refused (80 attempts)")
    (text,) = check(variables)["disagreements"]
    assert text == "a -> b: a: the client failed: connect to 10.1.0.2 port 31830: Connection refused (80 attempts)"


def test_a_listener_that_did_not_finish_fails_the_pair():
    variables = ran(inventory())
    variables["b"][smc_live_table.SERVER_RESULT] = {"finished": 0, "failed": True, "attempts": 150}
    assert check(variables)["disagreements"] == ["a -> b: b: the listener did not finish"]


def test_a_listener_that_served_this_pair_but_timed_out_on_another_judges_this_one():
    variables = ran(inventory())
    variables["b"][smc_live_table.SERVER_RESULT].update(failed=True, msg="timed out after 1 of 2 connections")
    assert only_row(check(variables))["status"] == "agree"


def test_a_connection_the_listener_did_not_see_fails_the_pair():
    variables = ran(inventory())
    variables["b"][smc_live_table.SERVER_RESULT]["connections"][0]["peer"] = {"address": "10.1.0.9", "port": 1}
    (text,) = check(variables)["disagreements"]
    assert text.startswith("a -> b: b: the listener has no connection from a")


def test_a_connection_without_a_diag_record_fails_the_pair():
    variables = ran(inventory())
    item = variables["a"][smc_live_table.CLIENT_RESULTS]["results"][0]
    item.update(diag=None, diag_error="SMC_DIAG request failed: No such file or directory (ENOENT): ...")
    (text,) = check(variables)["disagreements"]
    assert text == "a -> b: a: no SMC_DIAG record: SMC_DIAG request failed: No such file or directory (ENOENT): ..."


def test_an_error_after_the_diag_read_is_a_disagreement():
    variables = ran(inventory(), error="the listener closed after 100 of 16384 bytes")
    row = only_row(check(variables))
    assert row["status"] == "disagree" and row["findings"] == ["a: the listener closed after 100 of 16384 bytes"]


# -- the filter's input -------------------------------------------------------------------------
def test_the_preflight_result_itself_or_its_rows():
    variables = ran(inventory())
    rows = [{"client": "a", "server": "b", "prediction": "SMC-D v1"}]
    assert check(variables, prediction=None)["rows"][0]["prediction"] is None
    assert smc_live_check(variables, ["a", "b"], preflight={"rows": rows})["rows"][0]["prediction"] == "SMC-D v1"


@pytest.mark.parametrize("timeout", [0, 121, "soon"])
def test_a_bad_timeout_is_refused(timeout):
    with pytest.raises(AnsibleFilterError, match="smc_live_check: timeout"):
        smc_live_check(inventory(), ["a"], timeout=timeout)


def test_bad_input_is_refused():
    with pytest.raises(AnsibleFilterError, match="hostvars"):
        smc_live_check([], ["a"])
    with pytest.raises(AnsibleFilterError, match="preflight must be the rows"):
        smc_live_check(inventory(), ["a"], preflight="SMC-D")


# -- verify.yml ---------------------------------------------------------------------------------
def _load(*parts):
    with open(os.path.join(ROOT, *parts)) as handle:
        return yaml.safe_load(handle)


def test_verify_yml_runs_the_step_only_on_the_hosts_of_a_pair_and_judges_once():
    (play,) = [p for p in _load("playbooks", "verify.yml") if p["name"] == "Verify SMC with a live connection per pair"]
    plan, include, judge = play["tasks"]
    # planned once for the play: run_once sets the fact on every host of the play
    assert play["hosts"] == "smc_hosts" and plan["run_once"] is True
    assert "smc_live_check(ansible_play_hosts_all" in plan["ansible.builtin.set_fact"]["verify_smc_live_plan"]
    assert include["ansible.builtin.include_tasks"] == "tasks/smc_live_check.yml"
    assert include["when"][1] == (
        "inventory_hostname in verify_smc_live_plan.listen or inventory_hostname in verify_smc_live_plan.connect"
    )
    assert judge["run_once"] is True and judge["ansible.builtin.assert"]["that"] == "_live.disagreements | length == 0"
    assert "s390x.network.smc_preflight(groups['all'], pairs=verify_smc_live_plan.pairs" in judge["vars"]["_live"]
    listen, connect, collect = _load("playbooks", "tasks", "smc_live_check.yml")
    assert listen["s390x.network.smc_check"]["mode"] == "listen" and listen["poll"] == 0
    assert listen["register"] == "verify_smc_live_listener"
    assert connect["s390x.network.smc_check"]["mode"] == "connect" and connect["ignore_errors"] is True
    assert connect["register"] == smc_live_table.CLIENT_RESULTS
    assert collect["register"] == smc_live_table.SERVER_RESULT and "async_status" in str(collect)
    # a failure stays in the registered result (failed_when: false would clear it) for the judgment
    assert collect["ignore_errors"] is True and "failed_when" not in connect and "failed_when" not in collect


def test_without_the_interfaces_play_the_pairs_come_from_the_same_check():
    # --tags smc_live: the interfaces role did not run, so no host has interfaces_findings
    cpc = {
        "name": "ZLAB",
        "machine": "z16",
        "partitions": [{"name": "LPARA", "mif_id": 1, "host": "a"}, {"name": "LPARB", "mif_id": 2, "host": "b"}],
        "smcd_peers": [["LPARA", "LPARB"]],
    }
    variables = {
        "a": {"cpc": cpc, "interfaces_config": [{"device": "8200", "addresses": ["10.50.0.12/24"]}]},
        "b": {"cpc": cpc, "interfaces_config": [{"device": "8200", "addresses": ["10.50.0.11/24"]}]},
    }
    result = smc_live_check(variables, ["a", "b"])
    assert result["pairs"] == [
        {"client": "a", "server": "b", "address": "10.50.0.11", "network": "10.50.0.0/24", "kind": "smcd_peers"}
    ]
    assert result["listen"] == {"b": {"address": "10.50.0.11", "connections": 1, "timeout": 40}}


def test_verify_yml_judges_with_the_preflight_rows_of_the_planned_pairs():
    """The play's expressions, rendered with the real filters: the plan, then the pre-flight for its
    pairs, then the verdict."""
    (play,) = [p for p in _load("playbooks", "verify.yml") if p["name"] == "Verify SMC with a live connection per pair"]
    env = jinja2.Environment(undefined=jinja2.StrictUndefined)
    env.filters["s390x.network.smc_live_check"] = smc_live_check
    env.filters["s390x.network.smc_preflight"] = smc_preflight
    hostvars = ran(inventory())
    for host, hv in hostvars.items():
        hv["group_names"] = ["smc_hosts"]
    # the pre-flight's own facts: the server's kernel has no SMC, so it predicts a fallback
    hostvars["b"]["smc_preflight_facts"] = {"kernel": KERNEL, "smc": False}
    context = {"hostvars": hostvars, "ansible_play_hosts_all": ["a", "b"], "groups": {"all": ["a", "b"]}}
    # the vars are lazy in Ansible: render the plan first, as the tasks see it
    plan = env.from_string(play["tasks"][0]["ansible.builtin.set_fact"]["verify_smc_live_plan"].strip()).render(context)
    context["verify_smc_live_plan"] = check(hostvars, hosts=("a", "b"))
    assert "'listen': {'b'" in plan
    judge = play["tasks"][2]
    env.globals.update(context)
    live = env.compile_expression(judge["vars"]["_live"].strip()[2:-2].strip())(**context)
    (row,) = live["rows"]
    assert (row["client"], row["server"], row["prediction"], row["status"]) == ("a", "b", "TCP", "disagree")
    assert live["disagreements"][0].startswith("a -> b: the pre-flight predicts TCP"), live["disagreements"]


def test_every_pair_of_a_peer_group_is_listed_even_without_a_common_subnet():
    cpc = {
        "name": "ZLAB",
        "machine": "z16",
        "partitions": [
            {"name": "LPARA", "mif_id": 1, "host": "a"},
            {"name": "LPARB", "mif_id": 2, "host": "b"},
            {"name": "LPARC", "mif_id": 3},
        ],
        "ism": [
            {
                "vchid": "7C8",
                "functions": [
                    {"fid": 0x605, "uid": 0x605, "vf": 1, "partition": "LPARA"},
                    {"fid": 0x606, "uid": 0x606, "vf": 2, "partition": "LPARB"},
                    {"fid": 0x607, "uid": 0x607, "vf": 3, "partition": "LPARC"},
                ],
            }
        ],
        "smcd_peers": [["LPARA", "LPARB", "LPARC"]],
    }
    variables = {
        "a": {"cpc": cpc, "interfaces_config": [{"device": "8200", "addresses": ["10.50.0.12/24"]}]},
        "b": {"cpc": cpc, "interfaces_config": [{"device": "8200", "addresses": ["10.60.0.11/24"]}]},
    }
    result = smc_live_check(variables, ["a", "b"])
    assert result["pairs"] == [] and result["listen"] == {}
    assert [(u["client"], u["server"], u["reason"]) for u in result["unplanned"]] == [
        ("a", "b", smc_live_table.NO_SUBNET),
        ("a", "LPARC", "LPARC: not in this play (smc_hosts)"),
        ("b", "LPARC", "LPARC: not in this play (smc_hosts)"),
    ]
    assert result["summary"]["not_checked"] == 3
