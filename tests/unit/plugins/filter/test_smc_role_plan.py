# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""smc_role_plan: the smc role's plan and every check of its input in one step; the PNET entries
checked as the smc_pnet module checks them, named by the role's variable."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.s390x.network.plugins.filter.smc_role_plan import smc_role_plan
from ansible_collections.s390x.network.plugins.plugin_utils.smc_role_plan import pnet_errors as smc_pnet_errors
from ansible_collections.s390x.network.plugins.plugin_utils.smc_role_plan import smcr_errors


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


def _plan(**options):
    options.setdefault("dropin_name", "50-smc.conf")
    return smc_role_plan({}, **options)


def test_the_plan_without_a_model_is_empty_and_every_error_is_named_at_once():
    plan = _plan(services=["db2"], dropin_name="50-smc.conf")
    assert plan["services"]["names"] == ["db2.service"] and plan["ism"]["fids"] == [] and not plan["roce"]["enabled"]
    with pytest.raises(AnsibleFilterError) as err:
        _plan(
            services=["a b", {"name": "x", "rmem": "8K"}],
            dropin_name="../x.conf",
            pnet_config=[{"pnet_id": "NET_A", "interface": "enc1"}],
        )
    text = str(err.value)
    for field in ("smc_dropin_name", "smc_services[0].name", "smc_services[1].rmem", "smc_pnet_config[0]"):
        assert field in text, text


@pytest.mark.parametrize(
    "interface,ok",
    [
        ("encE000", True),
        ("", True),
        ("v$(id>x)", True),
        ("x;y", True),
        ("../../../etc", False),
        ("a/b", False),
        (".", False),
        ("..", False),
        ("eth0\n", False),
        ("a b", False),
        ("a:b", False),
        ("x" * 16, False),
    ],
)
@pytest.mark.parametrize("pnet_id,pnet_ok", [("NETA", True), ("", True), ("NETA\n", False), ("NET_A", False)])
def test_smcr_checks_interface_and_pnet_id_whole(interface, ok, pnet_id, pnet_ok):
    errors = smcr_errors(interface, pnet_id)
    assert any(e.startswith("smc_smcr_interface: ") for e in errors) is not ok
    assert any(e.startswith("smc_smcr_pnet_id: ") for e in errors) is not pnet_ok


def test_the_smcr_checks_apply_only_to_a_host_that_uses_smcr():
    assert _plan(smcr=False, smcr_interface="a/b")["roce"]["enabled"] is False
    with pytest.raises(AnsibleFilterError, match="smc_smcr_interface"):
        _plan(smcr=True, roce_fids=["0x1c0"], smcr_interface="a/b")
