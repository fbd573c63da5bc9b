# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Count task executions per host for benchmarks/fleet.py (not part of the collection)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: fleet_counts
type: aggregate
short_description: Count module invocations per host (fleet benchmark)
description:
  - Counts, per host, the task results that ran a module on the host (remote), the ones that ran
    only on the controller (assert, set_fact, include_tasks ...), and how many reported changed.
    A loop counts one invocation per item that was not skipped. Skipped tasks are not counted
    there; C(tasks) counts the task results that ran, C(skipped) the tasks skipped on the host.
  - Writes JSON to the file named by the environment variable FLEET_COUNTS_FILE at the end.
requirements:
  - enable in ansible.cfg or ANSIBLE_CALLBACKS_ENABLED=fleet_counts
"""

import json
import os

from ansible.plugins.callback import CallbackBase

# Actions that never start a module on the managed host.
CONTROLLER_ACTIONS = frozenset(
    "ansible.builtin." + a if "." not in a else a
    for a in (
        "assert",
        "set_fact",
        "debug",
        "fail",
        "meta",
        "include_tasks",
        "import_tasks",
        "include_role",
        "import_role",
        "include_vars",
        "set_stats",
        "add_host",
        "group_by",
        "pause",
        "validate_argument_spec",
        "s390x.network.smc_plan",  # an action of this collection that runs on the controller
    )
)


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "fleet_counts"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self, *args, **kwargs):
        super(CallbackModule, self).__init__(*args, **kwargs)
        self.hosts = {}

    def _entry(self, host):
        return self.hosts.setdefault(
            host, {"remote": 0, "controller": 0, "changed": 0, "failed": 0, "tasks": 0, "skipped": 0}
        )

    def _count(self, result, failed=False):
        task = result._task
        action = task.resolved_action or task.action
        if not action.startswith("ansible.") and "." not in action:
            action = "ansible.builtin." + action
        kind = "controller" if action in CONTROLLER_ACTIONS else "remote"
        res = result._result
        entry = self._entry(result._host.get_name())
        entry["tasks"] += 1
        if isinstance(res.get("results"), list) and task.loop is not None:
            for item in res["results"]:
                if item.get("skipped"):
                    continue
                entry[kind] += 1
                entry["changed"] += 1 if item.get("changed") else 0
                entry["failed"] += 1 if item.get("failed") else 0
        else:
            entry[kind] += 1
            entry["changed"] += 1 if res.get("changed") else 0
            entry["failed"] += 1 if failed else 0

    def v2_runner_on_ok(self, result):
        self._count(result)

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._count(result, failed=True)

    def v2_runner_on_skipped(self, result):
        self._entry(result._host.get_name())["skipped"] += 1

    def v2_runner_on_unreachable(self, result):
        self._entry(result._host.get_name())["failed"] += 1

    def v2_playbook_on_stats(self, stats):
        path = os.environ.get("FLEET_COUNTS_FILE")
        if path:
            with open(path, "w") as f:
                json.dump(self.hosts, f, indent=1, sort_keys=True)
