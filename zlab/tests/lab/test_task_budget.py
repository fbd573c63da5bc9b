# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The task budget of a no-op playbooks/site.yml on the built-in lab: a count, not a time.

site.yml converges the lab (twice, g1 restarted in between for the NIC its new definition has, as
the cpc scenario does), then runs again. On that run nothing may change, and every host runs
exactly the tasks of BUDGET, counted by the fleet benchmark's callback
(benchmarks/fleet/callback_plugins/fleet_counts.py): ``tasks`` the tasks that ran, ``remote``
module runs on the host (a loop counts per item), ``controller`` tasks that run on the controller
only (assert, set_fact, ...), ``skipped`` tasks skipped on the host. A task added to a role's no-op path changes a count: the
budget is then updated on purpose, with the reason in the change that adds the task.
"""

import json
import os
import subprocess

import pytest

from labutil import BIN, REPO, zlab

# per host: tasks that ran, remote module runs, controller-side tasks, skipped tasks of the no-op pass
# (site.yml includes verify.yml, which runs the roles once more in check mode)
BUDGET = {
    "lpar-a": {"tasks": 43, "remote": 12, "controller": 31, "skipped": 30},
    "lpar-b": {"tasks": 35, "remote": 14, "controller": 21, "skipped": 23},
    "g1": {"tasks": 24, "remote": 10, "controller": 14, "skipped": 22},
    "localhost": {"tasks": 10, "remote": 8, "controller": 2, "skipped": 8},
}
# the module calls of the roles (roles/*/tasks) when BUDGET was counted: a role that calls another
# module runs other tasks, so tests/unit/collection/test_module_places.py names the module until the
# budget is counted again and the call added here
COUNTED_CALLS = {
    "interfaces": ("ip_interfaces",),
    "iocds": ("iocp",),
    "ism_passthrough": ("zpci_function",),
    "kvm_guest_network": ("ip_promisc", "libvirt_device"),
    "network_express": ("zpci_function",),
    "nic_tuning": ("nic_tuning",),
    "qeth": ("qeth_device",),
    "smc": (
        "smc_plan",
        "smc_sysctl",
        "zpci_function",
        "smc_services",
        "smc_pnet",
        "smc_ueid",
        "smcd_info",
        "smc_stats_reset",
    ),
}
KEYS = ("tasks", "remote", "controller", "skipped")
CALLBACKS = os.path.join(REPO, "benchmarks", "fleet", "callback_plugins")


def site(inventory, workdir, label):
    counts = os.path.join(str(workdir), label + ".json")
    env = dict(
        os.environ,
        ANSIBLE_CONFIG=os.path.join(REPO, "ansible.cfg"),
        ANSIBLE_COLLECTIONS_PATH=os.environ.get(
            "ANSIBLE_COLLECTIONS_PATH", os.path.join(REPO, ".cache", "collections")
        ),
        ANSIBLE_CALLBACK_PLUGINS=CALLBACKS,
        ANSIBLE_CALLBACKS_ENABLED="fleet_counts",
        ANSIBLE_HOST_KEY_CHECKING="False",
        ANSIBLE_NOCOLOR="1",
        FLEET_COUNTS_FILE=counts,
    )
    cmd = [
        os.path.join(BIN, "ansible-playbook"),
        "-i",
        inventory,
        os.path.join(REPO, "playbooks", "site.yml"),
        "-e",
        "iocds_output_dir=%s" % os.path.join(str(workdir), "iocds-output"),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1200, check=False, cwd=REPO)
    with open(os.path.join(str(workdir), label + ".log"), "w", encoding="utf-8") as log:
        log.write(proc.stdout + proc.stderr)
    assert proc.returncode == 0, "site.yml (%s) failed:\n%s" % (label, (proc.stdout + proc.stderr)[-6000:])
    with open(counts, encoding="utf-8") as handle:
        return json.load(handle)


@pytest.mark.slow
def test_a_no_op_site_run_stays_in_its_task_budget(lab, tmp_path):
    inventory = lab["inventory"]
    site(inventory, tmp_path, "converge")
    # g1 gets the devices of its new definition when it starts (molecule/cpc/converge.yml)
    zlab("stop-guest", "g1")
    zlab("start-guest", "g1")
    site(inventory, tmp_path, "converge-again")
    counts = site(inventory, tmp_path, "no-op")
    changed = dict((host, c["changed"]) for host, c in counts.items() if c["changed"] or c["failed"])
    assert changed == {}, "the no-op run changed or failed: %s" % counts
    got = dict((host, dict((k, c.get(k, 0)) for k in KEYS)) for host, c in counts.items())
    assert got == BUDGET, "per-host task counts of the no-op site.yml run: %s (budget %s)" % (got, BUDGET)
