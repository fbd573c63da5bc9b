# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The templates a run of the qeth and smc roles evaluates when nothing changes use no Jinja filter
and no Jinja test (on a host that needs none of the smc role's optional steps, whose include is
skipped then).

Each task runs in a new controller worker per host, and the first filter (or test) a worker's
template names makes ansible-core load and wrap all of its filter (or test) plugins there, for every
host and task: on the fleet benchmark that was most of what the roles' tasks cost above the same
module calls as plain tasks. What needs a filter is computed by the smc_plan action or the module.

The check reads tasks/main.yml with its blocks and ``always`` sections (not ``rescue``: it runs on a
failure), the conditions (``when``, ``changed_when``, ``failed_when``, ``until``), the files of
includes and imports without a condition (one with a condition only as far as the condition), the
defaults of the options in meta/argument_specs.yml (ansible-core's validation task templates them)
and every role variable such a template reads, transitively.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import jinja2
import pytest
import yaml
from jinja2 import nodes

ROLES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "roles")
_CONDITIONS = ("when", "changed_when", "failed_when", "until")
_SECTIONS = ("block", "always")
_NOT_TEMPLATED = ("name", "register", "rescue") + _SECTIONS + _CONDITIONS
_INCLUDES = tuple(
    prefix + name for prefix in ("", "ansible.builtin.") for name in ("include_tasks", "import_tasks", "include")
)


def _load(role_dir, *parts):
    path = os.path.join(role_dir, *parts)
    if not os.path.exists(path):
        return {}
    with open(path) as handle:
        return yaml.safe_load(handle) or {}


def _included_file(task):
    for key in _INCLUDES:
        if key in task:
            value = task[key]
            return value.get("file") if isinstance(value, dict) else value
    return None


def _noop_tasks(role_dir, name="main.yml"):
    """The tasks of ``name`` and of its blocks, ``always`` sections and unconditional includes."""
    out = []

    def walk(items):
        for task in items or []:
            out.append(task)
            for section in _SECTIONS:
                walk(task.get(section))
            included = _included_file(task)
            if included and "when" not in task and "{{" not in included:
                walk(_load(role_dir, "tasks", included))

    walk(_load(role_dir, "tasks", name))
    return out


def _templates(value):
    if isinstance(value, str):
        if "{{" in value or "{%" in value:
            yield value
    elif isinstance(value, (dict, list)):
        for item in value.values() if isinstance(value, dict) else value:
            yield from _templates(item)


def _conditions(task):
    for key in _CONDITIONS:
        value = task.get(key)
        for condition in value if isinstance(value, list) else [value] if value is not None else []:
            if isinstance(condition, str):
                yield key, condition if "{{" in condition else "{{ %s }}" % condition


def _parse(text):
    return jinja2.Environment().parse(text)


def _filters_and_tests(tree):
    return ["filter %s" % n.name for n in tree.find_all(nodes.Filter)] + [
        "test %s" % n.name for n in tree.find_all(nodes.Test)
    ]


def _names(tree):
    return set(n.name for n in tree.find_all(nodes.Name) if n.ctx == "load")


def _noop_templates(role_dir):
    """(where, template) of every template the role's no-op run evaluates."""
    variables = dict(_load(role_dir, "defaults", "main.yml"))
    variables.update(_load(role_dir, "vars", "main.yml"))
    queue = []
    for task in _noop_tasks(role_dir):
        queue.extend(("%s: %s" % (task.get("name"), key), text) for key, text in _conditions(task))
        for key, value in task.items():
            if key not in _NOT_TEMPLATED:
                queue.extend(("%s: %s" % (task.get("name"), key), text) for text in _templates(value))
    options = ((_load(role_dir, "meta", "argument_specs.yml").get("argument_specs") or {}).get("main") or {}).get(
        "options"
    ) or {}
    queue.extend(("{{ %s }}" % name, "{{ %s }}" % name) for name in options)  # the validation task reads each
    found, seen = [], set()
    while queue:
        where, text = queue.pop()
        found.append((where, text))
        for name in _names(_parse(text)):
            if name in variables and name not in seen:
                seen.add(name)
                queue.extend(("%s (%s)" % (name, where), t) for t in _templates(variables[name]))
    return found


def _bad(role_dir):
    return [
        (where, text, found)
        for where, text in _noop_templates(role_dir)
        for found in [_filters_and_tests(_parse(text))]
        if found
    ]


@pytest.mark.parametrize("role", ["qeth", "network_express", "smc"])
def test_no_filter_or_test_on_the_way_of_a_run_that_changes_nothing(role):
    assert _noop_tasks(os.path.join(ROLES, role))
    assert _bad(os.path.join(ROLES, role)) == []


def _write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as handle:
        yaml.safe_dump(data, handle)


def test_the_check_finds_a_filter_or_test_wherever_a_no_op_run_evaluates_it(tmp_path):
    role = str(tmp_path / "role")
    _write(os.path.join(role, "meta", "argument_specs.yml"), {"argument_specs": {"main": {"options": {"opt": {}}}}})
    _write(os.path.join(role, "defaults", "main.yml"), {"opt": "{{ via_default | bool }}", "plain": 1})
    _write(os.path.join(role, "vars", "main.yml"), {"chain": "{{ inner }}", "inner": "{{ x | length }}"})
    _write(
        os.path.join(role, "tasks", "main.yml"),
        [
            {"name": "args", "m": {"a": "{{ chain }}", "b": "{{ plain }}"}},
            {"name": "conditions", "m": {}, "changed_when": "c1 | bool", "failed_when": ["c2 is defined"]},
            {"name": "until", "m": {}, "until": "c3 is success"},
            {"name": "block", "when": "c4 is none", "block": [{"name": "in block", "m": {"a": "{{ c5 | int }}"}}]},
            {"name": "rescue", "block": [], "rescue": [{"name": "r", "m": {"a": "{{ never | int }}"}}]},
            {"name": "always", "block": [], "always": [{"name": "a", "m": {"a": "{{ c6 | string }}"}}]},
            {"name": "unconditional include", "ansible.builtin.include_tasks": "more.yml"},
            {"name": "conditional include", "ansible.builtin.include_tasks": "skipped.yml", "when": "flag"},
        ],
    )
    _write(os.path.join(role, "tasks", "more.yml"), [{"name": "included", "m": {"a": "{{ c7 | default(1) }}"}}])
    _write(os.path.join(role, "tasks", "skipped.yml"), [{"name": "not run", "m": {"a": "{{ c8 | int }}"}}])
    found = sorted(f for _where, _text, fs in _bad(role) for f in fs)
    assert found == sorted(
        [
            "filter bool",  # the validation task templates the option's default
            "filter length",  # read through two role variables
            "filter bool",  # changed_when
            "test defined",  # failed_when
            "test success",  # until
            "test none",  # the block's condition
            "filter int",  # a task in the block
            "filter string",  # always
            "filter default",  # the unconditional include
        ]
    )
