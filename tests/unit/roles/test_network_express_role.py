# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The network_express role: its argument specs (the ones ansible-core validates before the role's
first task) take only Network Express functions and fields zpci_function knows, its one module call
passes the inventory's list as it is, and drift.yml reads the result that call registers."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest
import yaml
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.s390x.network.plugins.modules import zpci_function
from ansible_collections.s390x.network.plugins.plugin_utils.drift_report import drift_rows, role_drift
from ansible_collections.s390x.network.tests.unit.fake_kernel import NETH, ROCE3

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
ROLE = os.path.join(ROOT, "roles", "network_express")
TOOLS = {"smcd": "/usr/bin/smcd", "virsh": "/usr/bin/virsh", "modprobe": "/sbin/modprobe"}


def _yaml(*parts):
    with open(os.path.join(*parts)) as handle:
        return yaml.safe_load(handle)


def _options():
    return _yaml(ROLE, "meta", "argument_specs.yml")["argument_specs"]["main"]["options"]


def _validate(functions):
    """The error messages of ansible-core's role argument validation for ``functions``."""
    result = ArgumentSpecValidator(_options()).validate({"network_express_functions": functions})
    return result.error_messages


def test_the_defaults_are_those_of_the_argument_specs():
    # ansible-core validates against meta/argument_specs.yml but sets no default from it
    defaults = _yaml(ROLE, "defaults", "main.yml")
    options = _options()
    assert sorted(defaults) == sorted(options) == ["network_express_functions", "network_express_persistent"]
    for name, value in defaults.items():
        assert options[name]["default"] == value, name


def test_the_lab_inventories_pass():
    for path in ("inventories/z17-lab/host_vars", "molecule/z17/inventory/host_vars"):
        found = 0
        for name in sorted(os.listdir(os.path.join(ROOT, path))):
            variables = _yaml(ROOT, path, name) or {}
            if "network_express_functions" in variables:
                found += 1
                assert _validate(variables["network_express_functions"]) == [], (path, name)
        assert found == 2, path  # lpar-a and lpar-b
    netd = [{"fid": 0x200, "expected_type": "netd", "driver": "mlx5_core", "sriov_numvfs": 4}]
    netd.append({"fid": "0x201", "expected_type": "netd", "driver": "none"})
    assert _validate(netd) == []


@pytest.mark.parametrize("kind", ["ism", "roce", "any"])
def test_a_function_of_another_type_is_refused_naming_the_field_and_the_values(kind):
    (message,) = _validate([{"fid": 0x605, "expected_type": kind}])
    assert "expected_type" in message and "network_express_functions" in message, message
    assert "neth, netd" in message and kind in message, message


def test_expected_type_is_required():
    (message,) = _validate([{"fid": 0x120, "driver": "mlx5_core"}])
    assert "expected_type" in message and "missing" in message, message


@pytest.mark.parametrize(
    "entry, words",
    [
        ({"fid": 0x120, "expected_type": "neth", "driver": "ism"}, ["driver", "mlx5_core, vfio-pci, none", "ism"]),
        ({"fid": 0x120, "expected_type": "neth", "power": "off"}, ["power"]),
        ({"expected_type": "neth"}, ["fid", "missing"]),
        ({"fid": 0x200, "expected_type": "netd", "sriov_numvfs": "many"}, ["sriov_numvfs", "int"]),
    ],
)
def test_other_bad_entries_are_refused_naming_the_field(entry, words):
    messages = _validate([entry])
    assert len(messages) == 1, messages
    for word in words:
        assert word in messages[0], messages


def test_the_choices_are_among_the_modules():
    module = yaml.safe_load(zpci_function.DOCUMENTATION)["options"]["config"]["suboptions"]
    role = _options()["network_express_functions"]["options"]
    assert sorted(role) == sorted(set(module) - {"power"})  # always powered on
    for name in ("driver", "expected_type"):
        assert set(role[name]["choices"]) < set(module[name]["choices"]), name
    assert set(role["driver"]["choices"]) == {"mlx5_core", "vfio-pci", "none"}  # the Network Express ones


def test_one_module_call_registered_for_drift_and_skipped_without_functions():
    (task,) = _yaml(ROLE, "tasks", "main.yml")
    assert task["s390x.network.zpci_function"] == {
        "config": "{{ network_express_functions }}",
        "persistent": "{{ network_express_persistent }}",
    }
    assert task["register"] == "network_express_result"
    assert task["when"] == "network_express_functions != []"


@pytest.fixture
def host(fake_kernel, run_module):
    """lpar-b of the z17 lab: its NETH VF 0x130, next to a RoCE Express3 function with the same PCI
    id; ``run(check_mode)`` runs the role's module call with lpar-b's network_express_functions."""
    kernel = fake_kernel(
        [dict(NETH, fid=0x130, vfn=1, power=True), dict(ROCE3, fid=0x140, vfn=2, power=True)],
        drivers=("mlx5_core", "vfio-pci"),
    )

    def run(check_mode):
        return run_module(
            zpci_function.main,
            {"config": _yaml(ROOT, "inventories", "z17-lab", "host_vars", "lpar-b.yml")["network_express_functions"]},
            check_mode=check_mode,
            bin_paths=TOOLS,
        ).result

    return kernel, run


def test_drift_yml_reports_an_unbound_function_and_a_host_that_did_not_report(host):
    kernel, run = host
    plays = _yaml(ROOT, "playbooks", "vars", "plays.yml")["s390x_network_plays"]
    plays = [entry for entry in plays if entry["roles"] == ["network_express"]]
    groups = {"lpars": ["lpar-b", "lpar-gone"], "kvm_hosts": []}
    assert run(check_mode=False)["changed"]  # site.yml: the boot files
    converged = run(check_mode=True)
    assert role_drift({"network_express_result": converged}, "network_express") == []
    (function,) = [f for f in converged["functions"] if f["fid"] == 0x130]
    assert function["driver"] == "mlx5_core"
    # unbound behind Ansible's back
    kernel.write("/sys/bus/pci/drivers/mlx5_core/unbind", function["pci_address"])
    checked = run(check_mode=True)
    assert not kernel.bound(0x130)
    rows = drift_rows({"lpar-b": {"network_express_result": checked}}, plays=plays, groups=groups)
    assert [(r["host"], r["kind"], r["object"], r["scope"]) for r in rows if r["host"] == "lpar-b"] == [
        ("lpar-b", "zpci", "0x130", "active")
    ]
    assert rows[0]["difference"] == "driver - -> mlx5_core", rows
    # a host of the entry's groups that registered nothing owes the report
    assert [(r["host"], r["kind"], r["object"], r["scope"]) for r in rows if r["host"] == "lpar-gone"] == [
        ("lpar-gone", "role", "network_express", "error")
    ]
    # correct=true: the same call for real binds it (and reports the row it corrected), then nothing
    assert role_drift({"network_express_result": run(check_mode=False)}, "network_express") == [
        dict((k, v) for k, v in rows[0].items() if k != "host")
    ]
    assert kernel.bound(0x130)
    assert role_drift({"network_express_result": run(check_mode=True)}, "network_express") == []
    # a host without functions: the skipped task is no row, and no error
    assert role_drift({"network_express_result": {"skipped": True, "changed": False}}, "network_express") == []
