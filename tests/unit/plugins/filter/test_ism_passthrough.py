# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ism_passthrough role's data: zpci_function config and the report, built as data."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.s390x.network.plugins.filter.ism_passthrough_config import FilterModule as ConfigFilters
from ansible_collections.s390x.network.plugins.filter.ism_passthrough_plan import FilterModule as PlanFilters
from ansible_collections.s390x.network.plugins.filter.ism_passthrough_report import FilterModule as ReportFilters

config = ConfigFilters().filters()["ism_passthrough_config"]
report = ReportFilters().filters()["ism_passthrough_report"]
plan_filter = PlanFilters().filters()["ism_passthrough_plan"]

HOSTILE_GUEST = 'g1", "fid": 1, "x": "</hostdev>\n$(id)'
PLAN = {
    "passthrough": [
        {"fid": 0x605, "guest": HOSTILE_GUEST, "uid": 0x605, "vchid": "7c1"},
        {"fid": 0x606, "guest": "g2", "uid": None, "vchid": None},
    ]
}


@pytest.mark.parametrize("mode,driver", [("static", "vfio-pci"), ("managed", None)])
def test_config_powers_on_and_binds_by_mode(mode, driver):
    got = config(PLAN, mode)
    assert [entry["fid"] for entry in got] == [0x605, 0x606]
    for entry in got:
        assert entry["power"] == "on" and entry["expected_type"] == "ism"
        assert entry.get("driver") == driver
        assert set(entry) <= {"fid", "power", "expected_type", "driver"}


def test_report_keeps_inventory_strings_as_data():
    result = {
        "functions": [
            {
                "fid": 0x605,
                "type": "ism",
                "power": "on",
                "uid": 0x605,
                "pci_address": "0605:00:00.0",
                "iommu_group": "3",
                "driver": "vfio-pci",
                "pnet_id": "NETA",
            }
        ]
    }
    got = report(PLAN, result, "managed")
    assert got[0]["guest"] == HOSTILE_GUEST
    # survives a JSON round trip unchanged: nothing was spliced into text
    assert json.loads(json.dumps(got)) == got
    assert got[0]["pci_address"] == "0605:00:00.0" and got[0]["managed"] is True
    # a function the host did not report keeps the inventory's values and no host facts
    assert got[1] == {
        "fid": 0x606,
        "guest": "g2",
        "uid": None,
        "vchid": None,
        "pci_address": None,
        "iommu_group": None,
        "driver": None,
        "pnet_id": None,
        "managed": True,
    }


def test_report_prefers_the_host_uid():
    host = {"fid": 7, "uid": 9, "power": "on", "driver": "vfio-pci"}
    got = report({"passthrough": [{"fid": 7, "guest": "g", "uid": None}]}, {"functions": [host]}, "static")
    assert got[0]["uid"] == 9 and got[0]["managed"] is False


USABLE = {"fid": 7, "type": "ism", "power": "on", "pci_address": "0007:00:00.0", "iommu_group": "1", "uid": 7}


@pytest.mark.parametrize(
    "change,mode,why",
    [
        ({"type": "roce"}, "managed", "type=roce"),
        ({"power": "off"}, "managed", "power=off"),
        ({"iommu_group": None}, "managed", "iommu_group=None"),
        ({"driver_override": "ism"}, "managed", "driver_override=ism"),
        ({"holders": ["smc-d: smcd device lists ISM 0007:00:00.0"]}, "managed", "; smc-d: smcd device"),
        ({"uid": 8}, "managed", "uid=8 (inventory uid 7)"),
        ({"driver": "ism"}, "static", "driver=ism"),
    ],
)
def test_a_function_the_host_cannot_pass_through_fails_naming_it(change, mode, why):
    plan = {"passthrough": [{"fid": 7, "guest": "g1", "uid": 7}]}
    good = dict(USABLE, driver="vfio-pci")
    assert report(plan, {"functions": [good]}, mode)[0]["pci_address"] == "0007:00:00.0"
    with pytest.raises(AnsibleFilterError) as err:
        report(plan, {"functions": [dict(good, **change)]}, mode)
    assert str(err.value).startswith("FID 0x7 (guest g1) cannot be passed through: ") and why in str(err.value)


def test_in_check_mode_a_predicted_function_without_an_address_passes():
    predicted = {"fid": 7, "type": "ism", "power": "on", "pci_address": None, "iommu_group": None}
    assert report({"passthrough": [{"fid": 7, "guest": "g1"}]}, {"functions": [predicted]}, "managed")


@pytest.mark.parametrize(
    "view,message",
    [
        ({"defined": False}, "cpc: not defined"),
        ({"defined": True, "errors": ["FID 0x605 is given to g1 and g2"], "partition": "LP1"}, "FID 0x605 is given"),
        (
            {"defined": True, "errors": [], "partition": None},
            "ism_passthrough_partition: empty and no cpc.partitions entry has host: kvm1",
        ),
    ],
)
def test_the_plan_fails_naming_what_the_inventory_lacks(view, message):
    with pytest.raises(AnsibleFilterError, match=message):
        plan_filter(view, "kvm1")
    ok = {"defined": True, "errors": [], "partition": "LP1", "passthrough": []}
    assert plan_filter(ok, "kvm1") == ok


@pytest.mark.parametrize("fid", ["0x605", "1, \"x\": 2", None, True, -1, 1 << 32, 1.5])
def test_a_fid_that_is_no_integer_is_refused_naming_the_entry(fid):
    with pytest.raises(AnsibleFilterError, match=r"passthrough\[0\]\.fid"):
        config({"passthrough": [{"fid": fid}]}, "static")
    with pytest.raises(AnsibleFilterError, match=r"passthrough\[0\]\.fid"):
        report({"passthrough": [{"fid": fid}]}, {}, "static")


def test_mode_is_checked():
    with pytest.raises(AnsibleFilterError, match="ism_passthrough_mode: .*managed, static"):
        config(PLAN, "static\n")
