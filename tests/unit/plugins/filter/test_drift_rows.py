# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.s390x.network.plugins.filter.drift_rows import drift_rows as drift_rows_filter
from ansible_collections.s390x.network.plugins.plugin_utils.drift_report import (
    drift_rows,
    owed_reports,
    result_drift,
    role_drift,
)
from ansible_collections.s390x.network.tests.unit.role_results import clean_results, results_after

# which kind each result name of the old tests is
KINDS = {
    "smc_sysctl_result": "sysctl",
    "ism_passthrough_result": "zpci",
    "smc_ism_result": "zpci",
    "kvm_guest_network_result": "guest",
    "smc_pnet_result": "pnet",
    "qeth_result": "qeth",
}


# The entries of playbooks/vars/plays.yml, and the groups of the built-in lab
PLAYS = [
    {"name": "qeth", "groups": ["lpars", "kvm_hosts"], "roles": ["qeth"]},
    {"name": "network express", "groups": ["lpars", "kvm_hosts"], "roles": ["network_express"]},
    {"name": "guests", "groups": ["kvm_hosts"], "roles": ["ism_passthrough", "kvm_guest_network"]},
    {"name": "interfaces", "groups": ["lpars", "kvm_hosts", "kvm_guests"], "roles": ["interfaces"]},
    {"name": "nic", "groups": ["lpars", "kvm_hosts", "kvm_guests"], "roles": ["nic_tuning"]},
    {"name": "smc", "groups": ["smc_hosts"], "roles": ["smc"]},
]
GROUPS = {
    "all": ["lpar-a", "lpar-b", "g1"],
    "ungrouped": [],
    "lpars": ["lpar-a", "lpar-b"],
    "kvm_hosts": ["lpar-a"],
    "kvm_guests": ["g1"],
    "smc_hosts": ["lpar-b", "g1"],
}
CLEAN = {"changed": False, "drift": []}


def owed_by(hostvars, owed, hosts=None):
    """drift_rows with an inventory in which each host of ``owed`` (host -> roles) is a group of its own."""
    plays = [{"name": host, "groups": [host], "roles": roles} for host, roles in owed.items()]
    return drift_rows(hostvars, hosts, plays=plays, groups=dict((host, [host]) for host in owed))


def reported(hostvars):
    """hostvars as the roles leave them, each registered result reported as <name>_drift (a role
    of the shop), and the inventory in which each host owes those reports."""
    out = {}
    for host, hvars in hostvars.items():
        out[host] = dict(("%s_drift" % var, result_drift(res, KINDS[var])) for var, res in hvars.items())
    return out, dict((host, list(hvars)) for host, hvars in hostvars.items())


def test_the_filter_is_the_summary():
    hv = {"lpar-b": dict(_smc([{"object": "y", "scope": "active", "difference": "1 -> 2"}]))}
    assert drift_rows_filter(hv, ["lpar-b"], plays=PLAYS, groups={"smc_hosts": ["lpar-b"]}) == drift_rows(
        hv, ["lpar-b"], plays=PLAYS, groups={"smc_hosts": ["lpar-b"]}
    )
    assert drift_rows(hv, ["lpar-b"], plays=PLAYS, groups={"smc_hosts": ["lpar-b"]}) != []


def test_skipped_results_and_results_without_drift_give_no_rows():
    assert result_drift({"skipped": True, "changed": False}, "zpci") == []
    assert result_drift({"changed": False, "drift": []}, "qeth") == []
    assert result_drift({"changed": False, "results": [], "skipped": True}, "guest") == []  # a loop over no guests


def test_a_result_without_drift_rows_is_an_error_row_changed_or_not():
    # every module of the collection returns drift rows, also when nothing differs
    for result in ({"changed": False, "commands": ["smc_pnet -d X"]}, {"changed": True}, {}):
        rows = result_drift(result, "pnet")
        assert [(r["kind"], r["object"], r["scope"]) for r in rows] == [("pnet", "pnet", "error")], result
        assert rows[0]["difference"].startswith("the result has no drift rows")


def test_an_unreachable_result_is_an_error_row_not_a_report_without_rows():
    # what the qeth role registers when its host cannot be reached at the module's task
    result = {
        "unreachable": True,
        "changed": False,
        "msg": "Task failed: Failed to connect to the host via ssh: Connection refused",
    }
    assert result_drift(result, "qeth") == [
        {
            "kind": "qeth",
            "object": "qeth",
            "scope": "error",
            "difference": "host unreachable: Task failed: Failed to connect to the host via ssh: Connection refused",
        }
    ]
    assert role_drift({"qeth_result": result}, "qeth") == result_drift(result, "qeth")
    # ssh's message as ansible-core 2.14 passes it: one line in the row
    result["msg"] = "Data could not be sent to remote host.\r\nssh: connect to host port 22: Connection refused\r\n"
    assert result_drift(result, "qeth")[0]["difference"] == (
        "host unreachable: Data could not be sent to remote host. ssh: connect to host port 22: Connection refused"
    )
    # a loop whose host went away at the second item, and one whose items do not say
    loop = {
        "changed": False,
        "unreachable": True,
        "results": [
            {"item": {"name": "g1"}, "changed": False, "drift": []},
            {"item": {"name": "g2"}, "unreachable": True, "msg": "Shared connection to 10.0.0.1 closed."},
        ],
    }
    assert [(r["object"], r["difference"]) for r in result_drift(loop, "guest")] == [
        ("guest g2", "host unreachable: Shared connection to 10.0.0.1 closed.")
    ]
    assert [r["difference"] for r in result_drift({"unreachable": True, "results": []}, "guest")] == [
        "host unreachable: unknown error"
    ]
    failed_loop = {"failed": True, "msg": "loop of a bad list", "results": [{"item": {"name": "g1"}, "drift": []}]}
    assert [r["difference"] for r in result_drift(failed_loop, "guest")] == ["check failed: loop of a bad list"]


def test_a_missing_result_is_an_error_row_never_silence():
    # what a role reports when its register was renamed: result | default(none)
    assert result_drift(None, "qeth") == [
        {
            "kind": "qeth",
            "object": "qeth",
            "scope": "error",
            "difference": "no result: the role registered none under the name it reports",
        }
    ]


def test_module_drift_rows_are_taken_as_they_are():
    row = {"kind": "qeth", "object": "0.0.8200:0.0.8201:0.0.8202", "scope": "active", "difference": "online 0 -> 1"}
    assert result_drift({"changed": True, "drift": [row], "commands": ["chzdev -e qeth x"]}, "qeth") == [row]
    # the kind comes from the row; a row without one takes the kind the role names
    assert result_drift({"drift": [dict(row, kind="zpci")]}, "qeth")[0]["kind"] == "zpci"
    assert result_drift({"drift": [dict(row, kind=None)]}, "qeth")[0]["kind"] == "qeth"
    # a qeth result without rows cannot be read from commands any more
    assert result_drift({"changed": True, "commands": ["chzdev -e qeth x"]}, "qeth")[0]["scope"] == "error"


def test_unknown_kind_is_refused():
    with pytest.raises(AnsibleFilterError, match="kind must be a word"):
        result_drift({}, "qeth device")
    with pytest.raises(AnsibleFilterError, match="kind must be a word"):
        result_drift({}, None)


SKIPPED = {"skipped": True}
SMC_CLEAN = clean_results("smc", smc_ism_result=SKIPPED, smc_pnet_result=SKIPPED, smc_ueid_result=SKIPPED)


def _smc(rows):
    return dict(SMC_CLEAN, smc_sysctl_result={"changed": True, "drift": rows})


def test_reports_are_concatenated_per_host_in_host_order():
    hv = {
        "b": dict(_smc([{"object": "x", "scope": "active", "difference": "1 -> 2"}])),
        "a": dict(
            _smc([{"object": "y", "scope": "persistent", "difference": "d"}]),
            qeth_result={"changed": False, "drift": []},
            other_drift=[{"object": "not expected", "scope": "active", "difference": "-"}],
        ),
    }
    # zz: in the hosts of the run, in no group of the entries: owes nothing
    assert owed_by(hv, {"b": ["smc"], "a": ["qeth", "smc"]}, ["b", "a", "zz"]) == [
        {"host": "b", "kind": "sysctl", "object": "x", "scope": "active", "difference": "1 -> 2"},
        {"host": "a", "kind": "sysctl", "object": "y", "scope": "persistent", "difference": "d"},
    ]


def test_an_owed_report_that_is_missing_is_an_error_row():
    hv = {
        "g1": {"qeth_result": {"changed": False, "drift": []}},
        "g2": dict(SMC_CLEAN),
        "g3": {},
        "g4": {"qeth_result": {"changed": True, "drift": [{"object": "x", "scope": "active", "difference": "-"}]}},
    }
    # g4 is not in the hosts of the run (--limit): what it registered is not read
    assert owed_by(hv, {"g1": ["qeth", "smc"], "g2": ["smc"], "g3": ["qeth"]}) == [
        {
            "host": "g1",
            "kind": "role",
            "object": "smc",
            "scope": "error",
            "difference": "reported nothing: host unreachable or the role did not run or finish (see the log above)",
        },
        {
            "host": "g3",
            "kind": "role",
            "object": "qeth",
            "scope": "error",
            "difference": "reported nothing: host unreachable or the role did not run or finish (see the log above)",
        },
    ]


def test_loop_results_concatenate_the_rows_of_each_item():
    res = {
        "changed": True,
        "results": [
            {
                "item": {"name": "g1"},
                "changed": True,
                "drift": [
                    {"kind": "guest", "object": "g1 hostdev fid 0x605", "scope": "persistent", "difference": "missing"},
                    {"kind": "guest", "object": "g1 interface enc8200", "scope": "active", "difference": "mode a -> b"},
                ],
            },
            {"item": {"name": "g2"}, "changed": False, "drift": []},
            {"item": {"name": "g3"}, "skipped": True},
        ],
    }
    rows = owed_by(*reported({"kvm": {"kvm_guest_network_result": res}}), hosts=["kvm"])
    assert rows == [
        {
            "host": "kvm",
            "kind": "guest",
            "object": "g1 hostdev fid 0x605",
            "difference": "missing",
            "scope": "persistent",
        },
        {
            "host": "kvm",
            "kind": "guest",
            "object": "g1 interface enc8200",
            "difference": "mode a -> b",
            "scope": "active",
        },
    ]


def test_a_changed_item_without_rows_is_an_error_row():
    res = {"changed": True, "results": [{"item": {"name": "g1"}, "changed": True}]}
    rows = result_drift(res, "guest")
    assert [r["scope"] for r in rows] == ["error"]


def test_failed_checks_are_error_rows_per_loop_item():
    res = {
        "changed": False,
        "failed": True,
        "msg": "One or more items failed",
        "results": [
            {"item": {"name": "g1"}, "failed": True, "msg": "enc8200 is offline"},
            {"item": {"name": "g2"}, "changed": False, "drift": []},
        ],
    }
    rows = owed_by(*reported({"kvm": {"kvm_guest_network_result": res}}))
    assert rows == [
        {
            "host": "kvm",
            "kind": "guest",
            "object": "guest g1",
            "difference": "check failed: enc8200 is offline",
            "scope": "error",
        }
    ]


def test_drift_table_aligns_columns_under_a_heading():
    from ansible_collections.s390x.network.plugins.filter.drift_table import drift_table

    lines = drift_table(
        [
            {"host": "lpar-a", "kind": "qeth", "object": "0.0.8200", "scope": "active", "difference": "layer2 0 -> 1"},
            {"host": "b", "kind": "sysctl", "object": "smc sysctls", "scope": "persistent", "difference": "a 1 -> 2"},
        ]
    )
    assert lines == [
        "HOST    KIND    OBJECT       SCOPE       DIFFERENCE",
        "lpar-a  qeth    0.0.8200     active      layer2 0 -> 1",
        "b       sysctl  smc sysctls  persistent  a 1 -> 2",
    ]


def test_the_reports_a_host_owes_come_from_the_inventory():
    assert owed_reports(PLAYS, GROUPS, "lpar-a") == [
        "qeth",
        "network_express",
        "ism_passthrough",
        "kvm_guest_network",
        "interfaces",
        "nic_tuning",
    ]
    assert owed_reports(PLAYS, GROUPS, "lpar-b") == ["qeth", "network_express", "interfaces", "nic_tuning", "smc"]
    assert owed_reports(PLAYS, GROUPS, "g1") == ["interfaces", "nic_tuning", "smc"]
    assert owed_reports(PLAYS, GROUPS, "elsewhere") == []
    # a role in two entries is owed once
    twice = PLAYS + [{"name": "again", "groups": ["kvm_guests"], "roles": ["smc"]}]
    assert owed_reports(twice, GROUPS, "g1") == ["interfaces", "nic_tuning", "smc"]


def _lab(**hostvars):
    """The hostvars of the lab's hosts: what each registered, clean results for the rest."""
    clean = {
        "lpar-a": dict.fromkeys(
            [
                "qeth_result",
                "network_express_result",
                "ism_passthrough_result",
                "kvm_guest_network_result",
                "interfaces_result",
                "nic_tuning_result",
            ],
            CLEAN,
        ),
        "lpar-b": dict(
            dict.fromkeys(["qeth_result", "network_express_result", "interfaces_result", "nic_tuning_result"], CLEAN),
            **SMC_CLEAN,
        ),
        "g1": dict(dict.fromkeys(["interfaces_result", "nic_tuning_result"], CLEAN), **SMC_CLEAN),
    }
    clean.update(hostvars)
    return clean


def _errors(rows):
    return [(r["host"], r["kind"], r["object"]) for r in rows if r["scope"] == "error"]


def test_a_clean_fleet_has_no_rows():
    assert drift_rows(_lab(), ["lpar-a", "lpar-b", "g1"], plays=PLAYS, groups=GROUPS) == []


def test_a_host_unreachable_from_the_start_owes_every_report_of_its_groups():
    # unreachable at its first module call (the qeth role's): that result is all it registered
    gone = {"qeth_result": {"unreachable": True, "changed": False, "msg": "Connection refused"}}
    rows = drift_rows(_lab(**{"lpar-b": gone}), ["lpar-a", "lpar-b", "g1"], plays=PLAYS, groups=GROUPS)
    assert _errors(rows) == [
        ("lpar-b", "qeth", "qeth"),
        ("lpar-b", "role", "network_express"),
        ("lpar-b", "role", "interfaces"),
        ("lpar-b", "role", "nic_tuning"),
        ("lpar-b", "role", "smc"),
    ]
    assert len(rows) == 5
    assert rows[0]["difference"] == "host unreachable: Connection refused"
    # registered nothing at all (a stand-in for a role whose first task is another): the same reports
    rows = drift_rows(_lab(**{"lpar-b": {}}), ["lpar-a", "lpar-b", "g1"], plays=PLAYS, groups=GROUPS)
    assert _errors(rows) == [
        ("lpar-b", "role", r) for r in ("qeth", "network_express", "interfaces", "nic_tuning", "smc")
    ]


def test_a_host_lost_in_the_middle_of_an_entry_owes_the_rest():
    # lpar-a went away after the ISM pass-through role, at the guests' libvirt_device loop
    lost = {
        "qeth_result": CLEAN,
        "network_express_result": CLEAN,
        "ism_passthrough_result": CLEAN,
        "kvm_guest_network_planned": {"unreachable": True, "msg": "timed out"},
    }
    rows = drift_rows(_lab(**{"lpar-a": lost}), ["lpar-a", "lpar-b", "g1"], plays=PLAYS, groups=GROUPS)
    assert _errors(rows) == [
        ("lpar-a", "role", "kvm_guest_network"),
        ("lpar-a", "role", "interfaces"),
        ("lpar-a", "role", "nic_tuning"),
    ]
    # lpar-b went away in the smc role, at smc_sysctl
    lost = dict(_lab()["lpar-b"], smc_sysctl_result={"unreachable": True, "msg": "Shared connection closed"})
    not_reached = results_after("smc", "smc_sysctl_result")
    assert [name for name, _kind in not_reached[:3]] == ["smc_pnet_result", "smc_ueid_result", "smc_services_result"]
    for name, _kind in not_reached:
        del lost[name]
    rows = drift_rows(_lab(**{"lpar-b": lost}), ["lpar-a", "lpar-b", "g1"], plays=PLAYS, groups=GROUPS)
    assert [(r["host"], r["kind"], r["object"], r["difference"]) for r in rows] == [
        ("lpar-b", "sysctl", "sysctl", "host unreachable: Shared connection closed")
    ] + [("lpar-b", kind, name, "no result: the role stopped before this step") for name, kind in not_reached]


def test_a_role_that_failed_before_its_module_names_the_cause():
    # the smc role's plan refused the input; the modules after it failed for want of the plan
    failed = dict(
        _lab()["g1"],
        smc_plan={"failed": True, "msg": "smc_protocol: 'bogus' is not one of smcd, smcr, both"},
        smc_ism_result={"failed": True, "msg": "object of type 'dict' has no attribute 'functions'"},
        smc_sysctl_result={"failed": True, "msg": "object of type 'dict' has no attribute 'sysctl'"},
    )
    rows = drift_rows(_lab(g1=failed), ["g1"], plays=PLAYS, groups=GROUPS)
    assert [(r["kind"], r["object"], r["scope"]) for r in rows] == [
        ("plan", "smc_plan", "error"),
        ("zpci", "zpci", "error"),
        ("sysctl", "sysctl", "error"),
    ]
    assert rows[0]["difference"] == "check failed: smc_protocol: 'bogus' is not one of smcd, smcr, both"
    # a plan that worked adds no row; one that failed is a row even when nothing after it registered
    assert role_drift(dict(SMC_CLEAN, smc_plan={"changed": False, "functions": {}}), "smc") == []
    assert [r["object"] for r in role_drift({"smc_plan": failed["smc_plan"]}, "smc")] == ["smc_plan"]


def test_the_hosts_default_to_those_of_the_entries_groups_and_a_host_without_variables_owes_all():
    rows = drift_rows({}, plays=PLAYS, groups=GROUPS)
    assert [(r["host"], r["object"]) for r in rows] == [
        ("lpar-a", "qeth"),
        ("lpar-a", "network_express"),
        ("lpar-a", "ism_passthrough"),
        ("lpar-a", "kvm_guest_network"),
        ("lpar-a", "interfaces"),
        ("lpar-a", "nic_tuning"),
        ("lpar-b", "qeth"),
        ("lpar-b", "network_express"),
        ("lpar-b", "interfaces"),
        ("lpar-b", "nic_tuning"),
        ("lpar-b", "smc"),
        ("g1", "interfaces"),
        ("g1", "nic_tuning"),
        ("g1", "smc"),
    ]
    assert {r["scope"] for r in rows} == {"error"}


@pytest.mark.parametrize(
    "args, match",
    [
        ((["a"], None, GROUPS), "plays must be the list of entries"),
        ((["a"], [{"groups": "lpars", "roles": ["qeth"]}], GROUPS), r"plays\[0\] must have the lists groups and roles"),
        ((["a"], PLAYS, ["lpars"]), "groups must map each inventory group"),
        (("lpar-a", PLAYS, GROUPS), "hosts must be a list of host names"),
    ],
)
def test_bad_arguments_are_refused(args, match):
    hosts, plays, groups = args
    with pytest.raises(AnsibleFilterError, match=match):
        drift_rows({}, hosts, plays=plays, groups=groups)
