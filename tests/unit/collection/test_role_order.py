# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""One list, playbooks/vars/plays.yml, holds the order of the roles and the groups they run on.

drift.yml runs its entries; site.yml has one play per entry (its groups, its roles); verify.yml
checks a subset of them, in the same order and on the same groups.
"""

from __future__ import annotations

import os

import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
PREFIX = "s390x.network."


def _load(*parts):
    with open(os.path.join(ROOT, *parts)) as handle:
        return yaml.safe_load(handle)


def _plays():
    return [
        (entry["groups"], entry["roles"]) for entry in _load("playbooks", "vars", "plays.yml")["s390x_network_plays"]
    ]


def _role_name(name):
    assert name.startswith(PREFIX), name
    return name[len(PREFIX) :]


def _tasks(items):
    for task in items or []:
        yield task
        for key in ("block", "rescue", "always"):
            yield from _tasks(task.get(key))


def _included_roles(play):
    """The roles a play includes or imports as a whole (not a tasks_from entry point), in order."""
    names = []
    for task in _tasks(play.get("tasks")):
        for key in ("ansible.builtin.include_role", "ansible.builtin.import_role"):
            args = task.get(key)
            if args and "tasks_from" not in args and _role_name(args["name"]) not in names:
                names.append(_role_name(args["name"]))
    return names


def role_plays(playbook):
    """``(groups, roles)`` of each play of ``playbook`` that runs roles of the collection."""
    out = []
    for play in playbook:
        roles = [_role_name(r["role"] if isinstance(r, dict) else r) for r in play.get("roles") or []]
        roles = roles or _included_roles(play)
        if roles:
            out.append((play["hosts"].split(":"), roles))
    return out


def is_in_order(found, wanted):
    """Whether every play of ``found`` is an entry of ``wanted``, in the same order."""
    rest = iter(wanted)
    return all(any(play == entry for entry in rest) for play in found)


def test_the_list_names_each_role_once():
    roles = [r for dummy, entry in _plays() for r in entry]
    assert len(roles) == len(set(roles)) == 7
    for role in roles:
        assert os.path.isdir(os.path.join(ROOT, "roles", role, "tasks")), role


def test_site_yml_has_one_play_per_entry():
    assert role_plays(_load("playbooks", "site.yml")) == _plays()


def test_verify_yml_checks_entries_in_their_order():
    found = role_plays(_load("playbooks", "verify.yml"))
    assert [roles for dummy, roles in found] == [
        ["qeth"],
        ["network_express"],
        ["ism_passthrough", "kvm_guest_network"],
        ["interfaces"],
        ["smc"],
    ]
    assert is_in_order(found, _plays())


def test_drift_yml_runs_the_list():
    play = _load("playbooks", "drift.yml")[0]
    assert play["vars_files"] == ["vars/plays.yml"]
    assert play["hosts"] == "{{ s390x_network_plays | map(attribute='groups') | flatten | unique | join(':') }}"
    # before the include: the hosts named for the summary and the report of a run that ends early
    task = play["tasks"][-1]
    assert [t["name"] for t in play["tasks"][:-1]] == [
        "Name the hosts whose reports the summary expects",
        "Write the report of a run that does not reach its summary",
    ]
    assert task["ansible.builtin.include_tasks"] == "tasks/drift_check.yml"
    assert task["loop"] == "{{ s390x_network_plays }}"
    assert task["loop_control"]["loop_var"] == "drift_play"
    (step,) = _load("playbooks", "tasks", "drift_check.yml")
    assert step["when"] == "group_names | intersect(drift_play.groups) | length > 0"
    assert step["ansible.builtin.include_role"] == {"name": "s390x.network.{{ drift_role }}"}
    assert step["loop"] == "{{ drift_play.roles }}"
    # the summary reads what each host owes from the same list
    summary = _load("playbooks", "drift.yml")[1]
    assert summary["vars_files"] == ["vars/plays.yml"]
    assert "plays=s390x_network_plays, groups=groups" in summary["vars"]["drift_rows"]


def test_a_play_out_of_order_or_on_other_groups_is_found():
    plays = _plays()
    assert is_in_order(plays[1:3], plays)
    assert not is_in_order([plays[2], plays[1]], plays)
    assert not is_in_order([(["kvm_guests"], ["qeth"])], plays)
    swapped = [{"hosts": "lpars:kvm_hosts", "roles": [{"role": "s390x.network.nic_tuning"}]}]
    assert role_plays(swapped) == [(["lpars", "kvm_hosts"], ["nic_tuning"])] != plays[:1]
