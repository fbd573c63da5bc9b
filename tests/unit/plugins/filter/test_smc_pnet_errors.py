# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""smc_pnet_errors: the smc_pnet module's entry checks on the controller, named by the role's variable."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.s390x.network.plugins.filter.smc_pnet_errors import smc_pnet_errors


def test_valid_entries_give_no_errors():
    config = [{"pnet_id": "NETA", "interface": "v$(id>x)"}, {"pnet_id": "netb", "ib_device": "mlx5_0", "port": 2}]
    assert smc_pnet_errors(config) == []
    assert smc_pnet_errors([{"pnet_id": "NETA"}], state="deleted") == []


@pytest.mark.parametrize(
    "item,fragment",
    [
        ({"pnet_id": "NETA\n", "interface": "enc8200"}, "smc_pnet_config[0].pnet_id"),
        ({"pnet_id": "NETA", "interface": "a/b"}, "smc_pnet_config[0].interface"),
        ({"pnet_id": "NETA", "interface": "x" * 16}, "smc_pnet_config[0].interface"),
        ({"pnet_id": "NETA", "ib_device": "mlx 5"}, "smc_pnet_config[0].ib_device"),
        ({"pnet_id": "NETA", "ib_device": "mlx5_0", "port": 3}, "smc_pnet_config[0].port"),
        ({"pnet_id": "NETA"}, "smc_pnet_config[0]: needs interface"),
        ({"pnet_id": "NETA", "interface": "e0", "extra": 1}, "smc_pnet_config[0]: unknown keys extra"),
    ],
)
def test_each_refusal_names_the_entry_and_field(item, fragment):
    errors = smc_pnet_errors([{"pnet_id": "OK", "interface": "enc8200"}, item])
    assert len(errors) == 1 and fragment.replace("[0]", "[1]") in errors[0], errors


def test_a_name_no_unit_line_can_hold_is_refused_only_for_the_boot_unit():
    config = [{"pnet_id": "NETA", "interface": "a\x01b"}]
    assert smc_pnet_errors(config, boot_unit=False) == []
    errors = smc_pnet_errors(config, boot_unit=True)
    assert len(errors) == 1 and errors[0].startswith("smc_pnet_config[0].interface"), errors


def test_not_a_list():
    assert smc_pnet_errors("NETA") == ["smc_pnet_config: expected a list of entries, got 'NETA'"]
