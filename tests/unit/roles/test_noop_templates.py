# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The templates a run of the qeth and smc roles evaluates when nothing changes use no Jinja filter
and no Jinja test.

Each task runs in a new controller worker per host, and the first filter (or test) a worker's
template names makes ansible-core load and wrap all of its filter (or test) plugins there, for every
host and task: on the fleet benchmark that was most of what the roles' tasks cost above the same
module calls as plain tasks. What needs a filter is computed by the smc_plan action or the module.
The check follows every variable such a template reads into the role's defaults and vars.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import jinja2
import pytest
import yaml
from jinja2 import nodes

ROLES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "roles")
# the task keys that hold no template of the run (names are not templated per host here)
_NOT_TEMPLATED = ("name", "register", "block", "rescue", "always")


def _load(role, *parts):
    path = os.path.join(ROLES, role, *parts)
    if not os.path.exists(path):
        return {}
    with open(path) as handle:
        return yaml.safe_load(handle) or {}


def _noop_tasks(role):
    """The tasks of tasks/main.yml and their blocks (not rescue: it runs only on a failure)."""
    out = []

    def walk(items):
        for task in items or []:
            out.append(task)
            walk(task.get("block"))

    walk(_load(role, "tasks", "main.yml"))
    return out


def _templates(value):
    if isinstance(value, str):
        if "{{" in value or "{%" in value:
            yield value
    elif isinstance(value, (dict, list)):
        for item in value.values() if isinstance(value, dict) else value:
            yield from _templates(item)


def _conditions(task):
    when = task.get("when")
    for condition in when if isinstance(when, list) else [when] if when is not None else []:
        yield "{{ %s }}" % condition if isinstance(condition, str) else str(condition)


def _parse(text):
    return jinja2.Environment().parse(text)


def _filters_and_tests(tree):
    return ["filter %s" % n.name for n in tree.find_all(nodes.Filter)] + [
        "test %s" % n.name for n in tree.find_all(nodes.Test)
    ]


def _names(tree):
    return set(n.name for n in tree.find_all(nodes.Name) if n.ctx == "load")


def _noop_templates(role):
    """(where, template) of every template the role's no-op run evaluates, with the role variables
    they read, transitively."""
    variables = dict(_load(role, "defaults", "main.yml"))
    variables.update(_load(role, "vars", "main.yml"))
    found, queue = [], []
    for task in _noop_tasks(role):
        for key, value in task.items():
            if key in _NOT_TEMPLATED:
                continue
            texts = list(_conditions(task)) if key == "when" else list(_templates(value))
            queue.extend(("%s: %s" % (task.get("name"), key), text) for text in texts)
    seen = set()
    while queue:
        where, text = queue.pop()
        found.append((where, text))
        for name in _names(_parse(text)):
            if name in variables and name not in seen:
                seen.add(name)
                queue.extend(("%s (%s)" % (name, where), t) for t in _templates(variables[name]))
    return found


@pytest.mark.parametrize("role", ["qeth", "smc"])
def test_no_filter_or_test_on_the_way_of_a_run_that_changes_nothing(role):
    found = _noop_templates(role)
    assert found
    bad = [(where, text, _filters_and_tests(_parse(text))) for where, text in found]
    assert [b for b in bad if b[2]] == []


def test_the_check_finds_a_filter_in_a_variable_a_task_reads():
    tree = _parse("{{ smc_plan.sysctl.rmem if smc_plan.sysctl.rmem != none else omit }}")
    assert _filters_and_tests(tree) == [] and "smc_plan" in _names(tree)
    assert _filters_and_tests(_parse("{{ x | length > 0 }}")) == ["filter length"]
    assert _filters_and_tests(_parse("{{ x is defined }}")) == ["test defined"]
    # smc__steps (vars/main.yml) is read by the include's condition, so its template is checked too
    assert any(where.startswith("smc__steps (") for where, _text in _noop_templates("smc"))
