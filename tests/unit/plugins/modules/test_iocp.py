# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Module-level tests of s390x.network.iocp: every state, dest changed/unchanged, check/diff."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest
import yaml

from ansible_collections.s390x.network.plugins.modules import iocp

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "iocp")


def fixture_text(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


def lab():
    return yaml.safe_load(fixture_text("lab_cpc.yml"))["cpc"]


@pytest.fixture
def run(run_module):
    """``run(args, failed=False)``: the module's result (an AssertionError when it did not fail or
    succeed as ``failed`` says)."""

    def run_iocp(args, failed=False):
        args = dict(args)
        out = run_module(
            iocp.main, args, check_mode=args.pop("_ansible_check_mode", False), diff=args.pop("_ansible_diff", False)
        )
        assert out.failed is failed, out.result
        return out.result

    return run_iocp


def test_rendered_returns_golden_fragment(run):
    result = run({"cpc": lab()})
    assert result["changed"] is False
    assert result["fragment"] == fixture_text("lab.iocp")
    assert result["errors"] == [] and result["valid"] is True
    assert result["model"]["ism"][0]["vchid"] == 0x7C8
    assert "# IOCDS report: CPC ZLAB (z16)" in result["report"]
    assert result["topology_dot"].startswith('digraph "cpc_ZLAB" {')
    assert result["smcd_pairs"] == [{"a": "LPARB", "b": "g1", "smcd": True, "reason": "non-native", "vchid": 0x7C8}]


def test_rendered_with_errors_fails_naming_the_field(run):
    cpc = lab()
    cpc["hipersockets"][0]["frame_size"] = "32K"
    result = run({"cpc": cpc}, failed=True)
    assert result["msg"] == (
        "cpc has 1 validation error(s): HiperSockets CHPID F0: frame_size " "'32K' is not one of 16K, 24K, 40K, 64K"
    )
    assert "fragment" not in result


def test_rendered_with_errors_without_failing(run):
    cpc = lab()
    cpc["ism"][0]["functions"][1]["vf"] = 1
    result = run({"cpc": cpc, "fail_on_error": False})
    assert result["valid"] is False and "fragment" not in result
    assert len(result["errors"]) == 1


def test_dest_written_then_unchanged(run, tmp_path):
    dest = str(tmp_path / "ZLAB.iocp")
    first = run({"cpc": lab(), "dest": dest})
    assert first["changed"] is True and first["dest"] == dest
    with open(dest) as handle:
        assert handle.read() == fixture_text("lab.iocp")
    second = run({"cpc": lab(), "dest": dest})
    assert second["changed"] is False


def test_dest_changed_when_content_differs(run, tmp_path):
    dest = tmp_path / "ZLAB.iocp"
    dest.write_text("old content\n")
    cpc = lab()
    result = run({"cpc": cpc, "dest": str(dest), "_ansible_diff": True})
    assert result["changed"] is True
    assert result["diff"]["before"] == "old content\n"
    assert result["diff"]["after"] == fixture_text("lab.iocp")
    assert dest.read_text() == fixture_text("lab.iocp")


def test_dest_check_mode_writes_nothing(run, tmp_path):
    dest = tmp_path / "ZLAB.iocp"
    result = run({"cpc": lab(), "dest": str(dest), "_ansible_check_mode": True})
    assert result["changed"] is True
    assert not dest.exists()


def test_dest_mode_change_only(run, tmp_path):
    dest = tmp_path / "ZLAB.iocp"
    dest.write_text(fixture_text("lab.iocp"))
    os.chmod(str(dest), 0o644)
    result = run({"cpc": lab(), "dest": str(dest), "mode": "0600"})
    assert result["changed"] is True
    assert oct(os.stat(str(dest)).st_mode & 0o777) == "0o600"
    assert run({"cpc": lab(), "dest": str(dest), "mode": "0600"})["changed"] is False


def test_dest_missing_directory(run, tmp_path):
    result = run({"cpc": lab(), "dest": str(tmp_path / "no" / "x.iocp")}, failed=True)
    assert result["msg"].startswith("dest: directory ")


def test_dest_only_with_rendered(run, tmp_path):
    result = run({"cpc": lab(), "state": "validated", "dest": str(tmp_path / "x")}, failed=True)
    assert result["msg"] == "dest is only used with state=rendered, not state=validated"


def test_validated_returns_errors_and_warnings_without_failing(run):
    cpc = lab()
    cpc["ism"][0]["functions"].append({"fid": 0x605, "uid": 0x607, "vf": 3, "partition": "LPARA"})
    cpc["hipersockets"][0]["devices"]["count"] = 2
    result = run({"cpc": cpc, "state": "validated"})
    assert result["changed"] is False and result["valid"] is False
    assert result["errors"] == [
        "ISM VCHID 7C8 FID 0x605: fid is a duplicate FID, already defined in ISM VCHID 7C8 FID 0x605"
    ]
    assert result["validation_warnings"] == [
        "HiperSockets CHPID F0 control unit F000: devices count 2 is below 3; a qeth device needs "
        "read, write and data subchannels"
    ]
    assert "fragment" not in result


def test_validated_clean_model_has_views(run):
    result = run({"cpc": lab(), "state": "validated"})
    assert result["valid"] is True and result["errors"] == []
    assert "| LPARB | g1 | yes | VCHID 7C8 (non-native) |" in result["report"]
    assert result["topology_dot"].startswith("digraph")


def test_parsed_returns_model_and_unparsed(run):
    result = run({"state": "parsed", "deck": fixture_text("production.iocp")})
    assert result["changed"] is False
    assert result["unparsed_count"] == 4
    assert result["model"]["name"] == "CPCX"
    assert [c["chpid"] for c in result["model"]["hipersockets"]] == ["F4", "F5", "F6"]
    assert "line 5: RESOURCE partitions of CSS 1 are not modelled (model CSS 0)" in result["validation_warnings"]


def test_parsed_golden_gives_back_the_inventory(run):
    rendered = run({"cpc": lab()})
    parsed = run({"state": "parsed", "deck": rendered["fragment"]})
    assert parsed["model"] == rendered["model"]
    assert parsed["unparsed"] == [] and parsed["errors"] == []


def test_parsed_requires_deck(run):
    result = run({"state": "parsed"}, failed=True)
    assert "deck" in result["msg"]


def test_compared_in_sync(run):
    result = run({"cpc": lab(), "state": "compared", "deck": fixture_text("lab.iocp")})
    assert result["in_sync"] is True and result["differences"] == []
    assert result["changed"] is False
    assert result["deck_errors"] == [] and result["deck_warnings"] == []


def test_compared_lists_differences(run):
    deck = (
        fixture_text("lab.iocp")
        .replace("UID=0606", "UID=0616")
        .replace("CHPARM=80", "CHPARM=C0")
        .replace("(LPARB,2)", "(LPARB,3)")
    )
    deck = deck.replace(
        " FUNCTION FID=605,VCHID=7C8,VF=1,PART=((LPARA),(LPARA)),TYPE=ISM,      X\n               UID=0605\n", ""
    )
    cpc = lab()
    result = run({"cpc": cpc, "state": "compared", "deck": deck})
    assert result["in_sync"] is False
    messages = [d["message"] for d in result["differences"]]
    assert messages == [
        "partition LPARB: mif_id is 2 in the inventory but 3 in the deck",
        "CHPID F0: frame_size is 40K in the inventory but 64K in the deck",
        "FID 0x605: in the inventory but missing in the deck",
        "FID 0x606: uid is 0606 in the inventory but 0616 in the deck",
    ]
    assert result["differences"][3] == {
        "object": "FID 0x606",
        "field": "uid",
        "kind": "different",
        "inventory": "0606",
        "deck": "0616",
        "message": messages[3],
    }


def test_compared_extra_in_deck_and_pnet_id(run):
    deck = fixture_text("large.iocp")
    cpc = lab()
    result = run({"cpc": cpc, "state": "compared", "deck": deck})
    kinds = set((d["object"], d["kind"]) for d in result["differences"])
    assert ("partition LPARA", "missing_in_deck") in kinds
    assert ("partition ZOS1", "extra_in_deck") in kinds
    assert ("FID 0x1101", "extra_in_deck") in kinds
    assert ("CHPID F1", "extra_in_deck") in kinds


def test_compared_pnet_id_difference(run):
    cpc = lab()
    cpc["ism"][0]["pnet_id"] = "NETA"
    result = run({"cpc": cpc, "state": "compared", "deck": fixture_text("lab.iocp")})
    assert [d["message"] for d in result["differences"]] == [
        "FID 0x605: pnet_id is NETA in the inventory but not set in the deck",
        "FID 0x606: pnet_id is NETA in the inventory but not set in the deck",
    ]


def test_compared_requires_cpc(run):
    result = run({"state": "compared", "deck": "*"}, failed=True)
    assert "cpc" in result["msg"]


def test_bad_state_choice(run):
    result = run({"cpc": lab(), "state": "merged"}, failed=True)
    assert "state" in result["msg"]
