# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""playbooks/drift.yml runs the list playbooks/vars/plays.yml as site.yml's plays would.

The real drift.yml, drift_check.yml, plays.yml and filters run with the real ansible-playbook on
local hosts, in a private collection tree whose roles are stand-ins that record who ran them and
report no drift. Each host runs the roles of the entries whose groups it is in, every host is done
with an entry before the next one starts, and a host that is unreachable owes the reports of every
entry of its groups (error rows, the first one from the unreachable result its role registered)
while the others go on to the summary, which fails. The lab test of drift.yml with the real roles
is zlab/tests/lab/test_drift_lost_hosts.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest
import yaml

from ansible_collections.s390x.network.plugins.plugin_utils.drift_report import ROLE_RESULTS

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))

STAND_IN = textwrap.dedent("""\
    - name: A command, which check mode skips, registered as the role's first result like its module
      ansible.builtin.command: "true"
      changed_when: false
      register: {probe}

    - name: Record the run
      ansible.builtin.shell: 'echo "{{{{ inventory_hostname }}}} {role} {{{{ {probe} is skipped }}}}" >> "{{{{ record }}}}"'
      check_mode: false
      changed_when: false

    - name: Register the role's results, none of which found drift
      ansible.builtin.set_fact:
{results}
    """)

INVENTORY = {
    "all": {
        "vars": {"ansible_connection": "local", "ansible_python_interpreter": sys.executable},
        "children": {
            "lpars": {"hosts": {"lpar-a": None, "lpar-b": None}},
            "kvm_hosts": {
                "hosts": {
                    "lpar-a": None,
                    "kvm-gone": {"ansible_connection": "ssh", "ansible_host": "127.0.0.1", "ansible_port": 1},
                }
            },
            "kvm_guests": {"hosts": {"g1": None}},
            "smc_hosts": {"hosts": {"lpar-b": None, "g1": None}},
        },
    }
}


def _plays():
    with open(os.path.join(ROOT, "playbooks", "vars", "plays.yml")) as handle:
        return yaml.safe_load(handle)["s390x_network_plays"]


def run_drift(root, inventory=None):
    coll = root / "ansible_collections" / "s390x" / "network"
    coll.mkdir(parents=True)
    (coll / "galaxy.yml").write_text("namespace: s390x\nname: network\nversion: 0.0.1\n")
    os.symlink(os.path.join(ROOT, "playbooks"), str(coll / "playbooks"))
    os.symlink(os.path.join(ROOT, "plugins"), str(coll / "plugins"))
    for role in [r for play in _plays() for r in play["roles"]]:
        (coll / "roles" / role / "tasks").mkdir(parents=True)
        results = "\n".join("        %s: {changed: false, drift: []}" % name for name, _kind in ROLE_RESULTS[role])
        probe = ROLE_RESULTS[role][0][0]
        (coll / "roles" / role / "tasks" / "main.yml").write_text(
            STAND_IN.format(role=role, results=results, probe=probe)
        )
    (root / "ansible.cfg").write_text("[defaults]\nforks = 10\n")
    (root / "hosts.yml").write_text(yaml.safe_dump(inventory or INVENTORY))
    env = dict(
        os.environ,
        ANSIBLE_COLLECTIONS_PATH=str(root),
        ANSIBLE_CONFIG=str(root / "ansible.cfg"),
        ANSIBLE_LOCALHOST_WARNING="false",
        ANSIBLE_SSH_ARGS="-o ConnectTimeout=2",
    )
    playbook = os.path.join(os.path.dirname(sys.executable), "ansible-playbook")
    argv = [playbook, "-i", str(root / "hosts.yml"), str(coll / "playbooks" / "drift.yml")]
    argv += ["-e", "record=%s" % (root / "record"), "-e", "drift_report=%s" % (root / "report.json")]
    return subprocess.run(
        argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, check=False
    )


@pytest.mark.slow
def test_drift_yml_runs_each_entry_on_its_groups_in_order(tmp_path):
    proc = run_drift(tmp_path)
    assert (tmp_path / "report.json").exists(), proc.stdout
    records = [line.split() for line in (tmp_path / "record").read_text().splitlines()]
    assert set(skipped for dummy, dummy2, skipped in records) == {"True"}  # check mode without correct=true
    order = [r for play in _plays() for r in play["roles"]]
    # every host done with a role before the next role starts: the roles in the list's order
    ran = [role for dummy, role, dummy2 in records]
    assert ran == sorted(ran, key=order.index), proc.stdout
    by_host = {}
    for host, role, dummy in records:
        by_host.setdefault(host, []).append(role)
    assert by_host == {
        "lpar-a": ["qeth", "network_express", "ism_passthrough", "kvm_guest_network", "interfaces", "nic_tuning"],
        "lpar-b": ["qeth", "network_express", "interfaces", "nic_tuning", "smc"],
        "g1": ["interfaces", "nic_tuning", "smc"],
    }
    # the host that could not be reached owes the report of each role of its groups' entries: the first
    # from the unreachable result its role registered, the others never ran; the others reported no drift
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["correct"] is False
    assert [(r["host"], r["kind"], r["object"], r["scope"]) for r in report["drift"]] == [
        ("kvm-gone", "qeth", "qeth", "error"),
        ("kvm-gone", "role", "network_express", "error"),
        ("kvm-gone", "role", "ism_passthrough", "error"),
        ("kvm-gone", "role", "kvm_guest_network", "error"),
        ("kvm-gone", "role", "interfaces", "error"),
        ("kvm-gone", "role", "nic_tuning", "error"),
    ], report
    assert report["drift"][0]["difference"].startswith("host unreachable: "), report
    assert "reported nothing" in report["drift"][1]["difference"]
    assert "6 error row(s): a host did not give a report it owes" in proc.stdout, proc.stdout
    assert "no drift" not in proc.stdout
    assert proc.returncode == 4, proc.stdout  # an unreachable host


ALL_GONE = {
    "all": {
        "vars": {"ansible_connection": "ssh", "ansible_host": "127.0.0.1", "ansible_port": 1},
        "children": {"lpars": {"hosts": {"lpar-a": None}}, "kvm_guests": {"hosts": {"g1": None}}},
    }
}


@pytest.mark.slow
def test_a_run_that_ends_before_its_summary_leaves_no_clean_report(tmp_path):
    # every host unreachable: Ansible ends the playbook after the first play, the summary never runs;
    # the last run's report (here: clean) does not stay
    (tmp_path / "report.json").write_text(json.dumps({"correct": False, "drift": []}))
    proc = run_drift(tmp_path, ALL_GONE)
    assert "PLAY [Drift summary]" not in proc.stdout, proc.stdout
    report = json.loads((tmp_path / "report.json").read_text())
    assert [(r["host"], r["object"], r["scope"]) for r in report["drift"]] == [
        ("lpar-a", "qeth", "error"),
        ("lpar-a", "network_express", "error"),
        ("lpar-a", "interfaces", "error"),
        ("lpar-a", "nic_tuning", "error"),
        ("g1", "interfaces", "error"),
        ("g1", "nic_tuning", "error"),
    ], report
    assert proc.returncode == 4, proc.stdout
