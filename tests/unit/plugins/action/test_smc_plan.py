# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""smc_plan: the smc role's plan and every check of its input in one step, on the controller; the
PNET entries checked as the smc_pnet module checks them, named by the role's variable."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from unittest import mock

import pytest

from ansible.errors import AnsibleActionFail
from ansible.parsing.dataloader import DataLoader
from ansible.playbook.task import Task
from ansible.template import Templar

from ansible_collections.s390x.network.plugins.action.smc_plan import ActionModule
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


@pytest.mark.parametrize("boot_unit", [False, True])
def test_a_name_with_a_control_character_is_refused_with_or_without_the_boot_unit(boot_unit):
    config = [{"pnet_id": "NETA", "interface": "a\x01b"}]
    errors = smc_pnet_errors(config, boot_unit=boot_unit)
    assert len(errors) == 1 and errors[0].startswith("smc_pnet_config[0].interface: 'a\\x01b' is not"), errors
    assert "control or format character" in errors[0]


@pytest.mark.parametrize(
    "interface",
    [
        "\u00fc" * 8,  # 8 characters, 16 bytes: one more than the kernel holds
        "e\u200bth0",  # a zero-width space: a format character
        "eth0\x85",  # NEL, a C1 control character
    ],
)
def test_the_smcr_interface_follows_the_one_interface_name_rule(interface):
    errors = smcr_errors(interface, "NETA")
    assert len(errors) == 1 and errors[0].startswith(
        "smc_smcr_interface: %r is not a network interface name" % interface
    )
    assert smcr_errors("\u00fc" * 7, "neta") == []  # 14 bytes, and a PNET ID in lower case


def test_the_smcr_pnet_id_follows_the_kernel_rule():
    assert smcr_errors("", "") == [] and smcr_errors("eth0", "") == []
    assert smcr_errors("", "NET-A") == [
        "smc_smcr_pnet_id: 'NET-A' is not a PNET ID (1-16 characters A-Z, a-z, 0-9, or empty)"
    ]


def test_not_a_list():
    assert smc_pnet_errors("NETA") == ["smc_pnet_config: expected a list of entries, got 'NETA'"]


def _plan(host_vars=None, **options):
    """The action's result for ``options`` as the task's arguments, run for inventory host lp01
    (with the further variables ``host_vars``)."""
    options.setdefault("dropin_name", "50-smc.conf")
    task = Task()
    task.args = options
    connection = mock.MagicMock()
    connection._shell.tmpdir = "/nonexistent"
    task_vars = dict(host_vars or {}, inventory_hostname="lp01")
    templar = Templar(loader=DataLoader(), variables=task_vars)
    action = ActionModule(task, connection, play_context=None, loader=None, templar=templar, shared_loader_obj=None)
    return action.run(task_vars=task_vars)


CPC = {
    "name": "CPC1",
    "machine": "z16",
    "partitions": [{"name": "LP01", "mif_id": 1, "host": "lp01"}, {"name": "LP02", "mif_id": 2, "host": "lp02"}],
    "ism": [
        {
            "vchid": "7C8",
            "functions": [
                {"fid": 0x1001, "vf": 1, "partition": "LP01"},
                {"fid": 0x1002, "vf": 2, "partition": "LP02"},
                {"fid": 0x1003, "vf": 3, "partition": "LP01", "guest": "g1"},
            ],
        }
    ],
}


def test_the_plan_of_a_host_is_its_part_of_the_model():
    plan = _plan(cpc=CPC)
    assert plan["changed"] is False
    assert plan["ism"]["partition"] == "LP01" and plan["ism"]["labels"] == ["0x1001"]
    assert _plan(cpc=CPC, host="lp02")["ism"]["labels"] == ["0x1002"]
    assert _plan(cpc=CPC, partition="lp02")["ism"]["fids"] == [0x1002]
    assert _plan(cpc=CPC, ism_fids=["1003"])["ism"]["fids"] == [0x1003]


def test_without_the_option_the_hosts_cpc_variable_is_the_model():
    assert _plan(host_vars={"cpc": CPC})["ism"]["labels"] == ["0x1001"]
    assert _plan(host_vars={"cpc": CPC}, cpc=None)["ism"]["fids"] == []  # null: no model
    assert _plan()["ism"]["fids"] == []  # a host without the variable has no model


def test_the_module_tasks_get_plain_values():
    plan = _plan(cpc=CPC, rmem="1M", wmem="")
    assert plan["functions"] == {"needed": True, "config": plan["ism"]["config"] + plan["roce"]["config"]}
    assert plan["sysctl"] == dict(
        rmem="1M",
        wmem=None,
        protocol="smcd",
        tcp_rmem_min=None,
        tcp_rmem_max=None,
        tcp_wmem_min=None,
        tcp_wmem_max=None,
        core_rmem_max=None,
        core_wmem_max=None,
        settings={},
    )
    assert _plan()["functions"] == {"needed": False, "config": []}
    # a templated null of ansible-core before 2.19 is no TCP limit
    assert _plan(tcp_rmem_min="", tcp_wmem_max=4096)["sysctl"]["tcp_rmem_min"] is None
    assert _plan(tcp_rmem_min="", tcp_wmem_max=4096)["sysctl"]["tcp_wmem_max"] == 4096


def test_net_core_limits_are_raised_only_above_the_kernel_default():
    services = [{"name": "db2", "rmem": "1M", "wmem": "64K"}]
    sysctl = _plan(services=services)["sysctl"]
    assert (sysctl["core_rmem_max"], sysctl["core_wmem_max"]) == (1048576, None)
    sysctl = _plan(services=services, raise_core_mem_max=False)["sysctl"]
    assert (sysctl["core_rmem_max"], sysctl["core_wmem_max"]) == (None, None)


def test_a_host_with_roce_and_no_ism_is_sized_for_smcr():
    assert _plan(smcr=True, roce_fids=["0x1c0"])["sysctl"]["protocol"] == "smcr"
    assert _plan(smcr=True, roce_fids=["0x1c0"], ism_fids=["1001"])["sysctl"]["protocol"] == "smcd"


@pytest.mark.parametrize(
    "options,wanted",
    [
        ({}, {"tools": True, "smcr": False, "pnet": False, "ueid": False}),
        ({"install_packages": False}, {"tools": False, "smcr": False, "pnet": False, "ueid": False}),
        ({"pnet_config": [{"pnet_id": "NETA", "interface": "enc1"}]}, {"pnet": True}),
        ({"pnet_state": "overridden"}, {"pnet": True}),
        ({"pnet_boot_unit": False}, {"pnet": True}),
        ({"ueids": ["ETH01"]}, {"ueid": True}),
        ({"ueids": ""}, {"ueid": False}),  # as the role's "smc_ueids | length > 0" read it
        ({"ueids": None}, {"ueid": False}),
        ({"ueid_state": "overridden"}, {"ueid": True}),
        ({"seid": "disabled"}, {"ueid": True}),
        ({"seid": "unchanged", "ueid_state": "deleted"}, {"ueid": False}),
        ({"smcr": True, "roce_fids": ["0x1c0"]}, {"smcr": True, "pnet": False}),
    ],
)
def test_the_optional_steps_the_inventory_asks_for(options, wanted):
    steps = _plan(**options)["steps"]
    assert dict((k, steps[k]) for k in wanted) == wanted


def test_a_templated_null_before_ansible_core_2_19_is_null():
    # "{{ none }}" renders as "" there: the options whose null means "take it from the model"
    plan = _plan(cpc=CPC, ism_fids="", roce_fids="", smcr="")
    assert plan["ism"]["fids"] == [0x1001] and plan["roce"]["enabled"] is False
    assert _plan(cpc="")["ism"]["fids"] == []


def test_wrong_options_fail_naming_the_option_and_the_allowed_values():
    with pytest.raises(AnsibleActionFail, match="protocol.*smcd, smcr"):
        _plan(protocol="smc")
    with pytest.raises(AnsibleActionFail, match="pnet_state"):
        _plan(pnet_state="replaced")
    with pytest.raises(AnsibleActionFail, match="cpc: expected the CPC model"):
        _plan(cpc=["LP01"])
    with pytest.raises(AnsibleActionFail, match="dropin_name"):
        _plan(dropin_name=None)
    with pytest.raises(AnsibleActionFail, match="seid.*enabled, disabled, unchanged"):
        _plan(seid="on")
    with pytest.raises(AnsibleActionFail, match="ueid_state"):
        _plan(ueid_state="replaced")


def test_a_wrong_model_fails_the_plan():
    model = dict(CPC, ism=[{"vchid": "7C8", "functions": [{"fid": 0x1001, "vf": 1, "partition": "NOPE"}]}])
    with pytest.raises(AnsibleActionFail, match="NOPE"):
        _plan(cpc=model)


def test_the_plan_without_a_model_is_empty_and_every_error_is_named_at_once():
    plan = _plan(services=["db2"], dropin_name="50-smc.conf")
    assert plan["services"]["names"] == ["db2.service"] and plan["ism"]["fids"] == [] and not plan["roce"]["enabled"]
    with pytest.raises(AnsibleActionFail) as err:
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
    with pytest.raises(AnsibleActionFail, match="smc_smcr_interface"):
        _plan(smcr=True, roce_fids=["0x1c0"], smcr_interface="a/b")


def test_the_619_work_request_variables_join_the_settings():
    plan = _plan(settings={"smcr_testlink_time": 10}, smcr_max_send_wr=64, smcr_max_recv_wr="")
    assert plan["sysctl"]["settings"] == {"smcr_testlink_time": 10, "smcr_max_send_wr": 64}


@pytest.mark.parametrize(
    "options,message",
    [
        (
            {"smcr_max_send_wr": 4096},
            "smc_smcr_max_send_wr: expected an integer in the kernel's range 2..2048 (net.smc.smcr_max_send_wr), got 4096",
        ),
        (
            {"smcr_max_recv_wr": "many"},
            "smc_smcr_max_recv_wr: expected an integer in the kernel's range 2..2048 (net.smc.smcr_max_recv_wr), got 'many'",
        ),
        (
            {"settings": {"smcr_max_recv_wr": 1}},
            "smc_settings.smcr_max_recv_wr: 1 is outside the kernel's range 2..2048",
        ),
        (
            {"settings": {"net.smc.smcr_max_send_wr": 32}, "smcr_max_send_wr": 64},
            "smc_smcr_max_send_wr: net.smc.smcr_max_send_wr is set by smc_settings.net.smc.smcr_max_send_wr too",
        ),
        ({"settings": {"turbo": 1}}, "smc_settings: unknown key 'turbo'"),
    ],
)
def test_a_setting_out_of_range_names_the_variable_and_the_range(options, message):
    with pytest.raises(AnsibleActionFail) as info:
        _plan(**options)
    assert message in str(info.value)
