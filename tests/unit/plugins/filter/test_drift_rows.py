# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

from ansible_collections.s390x.network.plugins.filter.drift_rows import drift_rows as drift_rows_filter
from ansible_collections.s390x.network.plugins.plugin_utils.drift_report import drift_rows, result_drift

# which kind each result name of the old tests is
KINDS = {
    "smc_sysctl_result": "sysctl",
    "ism_passthrough_result": "zpci",
    "smc_ism_result": "zpci",
    "kvm_guest_network_result": "guest",
    "smc_pnet_result": "pnet",
    "qeth_result": "qeth",
}


def reported(hostvars):
    """hostvars as the roles leave them: each registered result reported as <name>_drift."""
    out = {}
    for host, hvars in hostvars.items():
        out[host] = {"drift_expected": list(hvars)}
        out[host].update(("%s_drift" % var, result_drift(res, KINDS[var])) for var, res in hvars.items())
    return out


def test_the_filter_is_the_summary():
    hv = {"a": dict(_smc([{"object": "y", "scope": "active", "difference": "1 -> 2"}]), drift_expected=["smc"])}
    assert drift_rows_filter(hv, ["a"]) == drift_rows(hv, ["a"]) != []


def test_unchanged_or_skipped_results_give_no_rows():
    assert result_drift({"changed": False, "commands": ["smc_pnet -d X"]}, "pnet") == []
    assert result_drift({"skipped": True, "changed": False}, "zpci") == []
    assert result_drift({"changed": False, "drift": []}, "qeth") == []


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
    import pytest
    from ansible.errors import AnsibleFilterError

    with pytest.raises(AnsibleFilterError, match="kind must be a word"):
        result_drift({}, "qeth device")
    with pytest.raises(AnsibleFilterError, match="kind must be a word"):
        result_drift({}, None)


SMC_CLEAN = {
    "smc_ism_result": {"skipped": True},
    "smc_sysctl_result": {"changed": False, "drift": []},
    "smc_pnet_result": {"skipped": True},
    "smc_ueid_result": {"skipped": True},
    "smc_services_result": {"changed": False, "drift": []},
}


def _smc(rows):
    return dict(SMC_CLEAN, smc_sysctl_result={"changed": True, "drift": rows})


def test_reports_are_concatenated_per_host_in_host_order():
    hv = {
        "b": dict(_smc([{"object": "x", "scope": "active", "difference": "1 -> 2"}]), drift_expected=["smc"]),
        "a": dict(
            _smc([{"object": "y", "scope": "persistent", "difference": "d"}]),
            drift_expected=["qeth", "smc"],
            qeth_result={"changed": False, "drift": []},
            other_drift=[{"object": "not expected", "scope": "active", "difference": "-"}],
        ),
    }
    assert drift_rows(hv, ["b", "a", "zz"]) == [
        {"host": "b", "kind": "sysctl", "object": "x", "scope": "active", "difference": "1 -> 2"},
        {"host": "a", "kind": "sysctl", "object": "y", "scope": "persistent", "difference": "d"},
    ]


def test_an_expected_report_that_is_missing_is_an_error_row():
    hv = {
        "g1": {"drift_expected": ["qeth", "smc"], "qeth_result": {"changed": False, "drift": []}},
        "g2": dict(SMC_CLEAN, drift_expected=["smc"]),
        "g3": {"drift_expected": ["qeth"]},
        "g4": {"qeth_result": {"changed": True, "drift": [{"object": "x", "scope": "active", "difference": "-"}]}},
    }
    assert drift_rows(hv) == [
        {
            "host": "g1",
            "kind": "role",
            "object": "smc",
            "scope": "error",
            "difference": "reported nothing: host unreachable or the role did not finish (see the log above)",
        },
        {
            "host": "g3",
            "kind": "role",
            "object": "qeth",
            "scope": "error",
            "difference": "reported nothing: host unreachable or the role did not finish (see the log above)",
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
    rows = drift_rows(reported({"kvm": {"kvm_guest_network_result": res}}), ["kvm"])
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
            {"item": {"name": "g2"}, "changed": False},
        ],
    }
    rows = drift_rows(reported({"kvm": {"kvm_guest_network_result": res}}))
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
