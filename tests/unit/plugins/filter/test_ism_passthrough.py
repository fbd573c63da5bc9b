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
from ansible_collections.s390x.network.plugins.filter.ism_passthrough_report import FilterModule as ReportFilters

config = ConfigFilters().filters()["ism_passthrough_config"]
report = ReportFilters().filters()["ism_passthrough_report"]

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
    got = report({"passthrough": [{"fid": 7, "guest": "g", "uid": 1}]}, {"functions": [{"fid": 7, "uid": 9}]}, "static")
    assert got[0]["uid"] == 9 and got[0]["managed"] is False


@pytest.mark.parametrize("fid", ["0x605", "1, \"x\": 2", None, True, -1, 1 << 32, 1.5])
def test_a_fid_that_is_no_integer_is_refused_naming_the_entry(fid):
    with pytest.raises(AnsibleFilterError, match=r"passthrough\[0\]\.fid"):
        config({"passthrough": [{"fid": fid}]}, "static")
    with pytest.raises(AnsibleFilterError, match=r"passthrough\[0\]\.fid"):
        report({"passthrough": [{"fid": fid}]}, {}, "static")


def test_mode_is_checked():
    with pytest.raises(AnsibleFilterError, match="ism_passthrough_mode: .*managed, static"):
        config(PLAN, "static\n")
