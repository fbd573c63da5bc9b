# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""verify.yml judges the SMC buffers by the size wanted per direction (smc_rmem/smc_wmem when set,
else smc_buffer_size), and agrees with drift.yml, which reports smc_sysctl's own rows (the role
passes the wanted sizes to the module).

Regression: a host with the documented smc_rmem 256K / smc_wmem 1M had no drift, but verify.yml
compared both effective sizes with smc_buffer_size and failed on every run. The results judged
here are those of the real smc_sysctl module on a fake host.
"""

from __future__ import annotations

import os

import jinja2
import pytest
import yaml

from ansible.errors import AnsibleFilterError

from ansible_collections.s390x.network.plugins.plugin_utils.drift_report import (
    result_drift,
    role_drift,
    wanted_buffer_sizes,
)
from ansible_collections.s390x.network.tests.unit.plugins.modules.test_smc_sysctl import FakeHost
from ansible_collections.s390x.network.tests.unit.role_results import clean_results

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))


def _load(path):
    with open(os.path.join(ROOT, path)) as handle:
        return yaml.safe_load(handle)


def verify_expression():
    tasks = [t for play in _load("playbooks/verify.yml") for t in play.get("tasks") or []]
    (task,) = [t for t in tasks if t.get("name") == "Check the SMC buffers the kernel will use"]
    assert task["ansible.builtin.assert"]["that"] == ["_rows | length == 0"]
    return task["vars"]["_rows"]


def render(expression, variables):
    env = jinja2.Environment(undefined=jinja2.Undefined)
    env.filters["s390x.network.result_drift"] = result_drift
    return yaml.safe_load(env.from_string(expression).render(**variables))


def judged(sysctl_result, inventory):
    """(drift.yml's rows of the buffers, verify.yml's rows) for one smc_sysctl result.

    drift.yml reads the results the role registered (role_drift); verify.yml reads the inventory's
    variables after the role (whose defaults it does not see)."""
    skipped = {"skipped": True}
    drift = role_drift(
        clean_results("smc", smc_sysctl_result=sysctl_result, smc_ism_result=skipped, smc_ueid_result=skipped), "smc"
    )
    verify = render(verify_expression(), dict(inventory, smc_sysctl_result=sysctl_result))
    return drift, verify


@pytest.fixture
def host(host_root, run_module):
    def make(profile):
        return FakeHost(host_root, run_module, profile)

    return make


@pytest.mark.parametrize("profile", ["linux6.12", "rhel8.8"])
def test_documented_per_direction_sizes_pass_drift_and_verify(host, profile):
    inventory = {"smc_rmem": "256K", "smc_wmem": "1M"}
    fake = host(profile)
    # site.yml: the role passes smc_rmem/smc_wmem to the module; verify.yml runs it in check mode
    assert not fake.run(rmem="256K", wmem="1M").failed
    result = fake.run(check_mode=True, rmem="256K", wmem="1M").result
    assert result["changed"] is False
    # what the old check compared: the effective sizes against smc_buffer_size (128K) -> failed
    assert (result["effective_rmem"], result["effective_wmem"]) != (131072, 131072)
    assert judged(result, inventory) == ([], [])


def test_a_host_that_drifted_from_the_wanted_size_is_reported_by_both_alike(host):
    fake = host("linux6.12")
    fake.run(rmem="128K", wmem="128K")
    (fake.proc / "net" / "smc" / "rmem").write_text("65536\n")  # changed behind Ansible's back
    result = fake.run(check_mode=True, rmem="256K", wmem="1M").result
    drift, verify = judged(result, {"smc_rmem": "256K", "smc_wmem": "1M"})
    assert drift == verify
    assert sorted(r["scope"] for r in drift) == ["active", "persistent"]
    assert all("net.smc.rmem" in r["difference"] for r in drift)


def test_a_size_the_module_was_not_asked_for_is_a_row_naming_the_sysctl(host):
    fake = host("rhel8.8")
    fake.run(rmem="128K", wmem="128K")
    result = fake.run(check_mode=True, rmem="128K", wmem="128K").result
    assert result["changed"] is False
    drift, verify = judged(result, {"smc_rmem": "256K"})
    # verify.yml names the sysctl; drift.yml never meets this case, as the role asks for the wanted size
    assert drift == []
    assert verify == [
        {
            "kind": "sysctl",
            "object": "net.ipv4.tcp_rmem",
            "scope": "active",
            "difference": "SMC receive buffer: 131072 bytes requested, 262144 bytes wanted",
        }
    ]


def test_an_empty_size_is_left_alone_and_not_compared(host):
    fake = host("linux6.12")
    fake.run(wmem="128K")  # the role omits rmem for smc_rmem ''
    result = fake.run(check_mode=True, wmem="128K").result
    assert judged(result, {"smc_rmem": ""}) == ([], [])


def test_wanted_sizes():
    assert wanted_buffer_sizes("128K") == {"rmem": 131072, "wmem": 131072}
    assert wanted_buffer_sizes("128K", "256K", None) == {"rmem": 262144, "wmem": 131072}
    assert wanted_buffer_sizes("128K", "", "1M") == {"rmem": None, "wmem": 1048576}
    with pytest.raises(AnsibleFilterError, match="smc_wmem"):
        wanted_buffer_sizes("128K", None, "lots")
    with pytest.raises(AnsibleFilterError, match="smc_buffer_size"):
        wanted_buffer_sizes("big")


def test_a_failed_or_missing_result_gives_error_rows_only():
    assert result_drift(None, "sysctl", buffer_size="128K")[0]["scope"] == "error"
    failed = {"failed": True, "msg": "boom"}
    assert [r["scope"] for r in result_drift(failed, "sysctl", buffer_size="128K")] == ["error"]
