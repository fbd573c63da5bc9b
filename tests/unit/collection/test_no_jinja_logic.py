# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Roles and playbooks call Python for facts, they never compute in Jinja.

No Jinja statement (``{% for``, ``{% if``, ``{% set``) in a role's tasks or handlers or in a playbook,
and no ``lookup('template', ...)`` that builds data there: the logic lives in filters
(plugins/filter, plugins/plugin_utils), where it is tested. A role template, where one is added,
only renders a value computed in Python, so it has no statements either (the files of the roles
are written by the modules that own them).
"""

from __future__ import annotations

import glob
import os
import re

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
PLAYBOOK_FILES = (
    "roles/*/tasks/*.yml",
    "roles/*/handlers/*.yml",
    "playbooks/*.yml",
    "playbooks/tasks/*.yml",
)
STATEMENT = re.compile(r"\{%[-+]?\s*(for|if|set)\b")
TEMPLATE_LOOKUP = re.compile(r"""\b(lookup|query|q)\(\s*['"](ansible\.builtin\.)?template['"]""")
ANY_STATEMENT = re.compile(r"\{%")


def _files(patterns):
    found = []
    for pattern in patterns:
        found.extend(sorted(glob.glob(os.path.join(ROOT, pattern))))
    return found


def findings(text, templates=False):
    """``line: what`` for each Jinja statement (any, in a template) or template lookup of ``text``."""
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        if templates:
            if ANY_STATEMENT.search(line):
                out.append("%d: Jinja statement" % number)
            continue
        match = STATEMENT.search(line)
        if match:
            out.append("%d: {%% %s" % (number, match.group(1)))
        if TEMPLATE_LOOKUP.search(line):
            out.append("%d: template lookup" % number)
    return out


def _rel(path):
    return os.path.relpath(path, ROOT)


def test_the_files_are_found():
    files = [_rel(p) for p in _files(PLAYBOOK_FILES)]
    assert "roles/smc/tasks/smcr_pairing.yml" in files
    assert "playbooks/drift.yml" in files and "playbooks/tasks/drift_check.yml" in files


@pytest.mark.parametrize("path", _files(PLAYBOOK_FILES), ids=_rel)
def test_no_jinja_statement_or_template_lookup(path):
    with open(path) as handle:
        assert findings(handle.read()) == [], "%s: compute this in a filter (plugins/filter)" % _rel(path)


def test_role_templates_render_values_computed_in_python():
    bad = {}
    for path in _files(["roles/*/templates/*"]):
        with open(path) as handle:
            found = findings(handle.read(), templates=True)
        if found:
            bad[_rel(path)] = found
    assert bad == {}, "build the value in Python: %s" % bad


@pytest.mark.parametrize(
    "text,found",
    [
        ("    x: >-\n      {%- set out = [] -%}{{ out }}", ["2: {% set"]),
        ("msg: \"{% for h in groups['all'] %}{{ h }}{% endfor %}\"", ["1: {% for"]),
        ("when: \"{%+ if a %}1{% endif %}\"", ["1: {% if"]),
        ("data: \"{{ lookup('template', 'x.j2') | from_json }}\"", ["1: template lookup"]),
        ('data: "{{ lookup("ansible.builtin.template", "x.j2") }}"', ["1: template lookup"]),
        ("data: \"{{ query('template', 'x.j2') }}\"", ["1: template lookup"]),
        ("msg: \"{{ items | join(', ') }}\"  # settings, format", []),
        ("src: smc-dropin.conf.j2", []),
    ],
)
def test_the_check_finds_statements_and_template_lookups(text, found):
    assert findings(text) == found


def test_a_template_with_logic_is_found():
    assert findings("{% for e in env %}{{ e }}{% endfor %}", templates=True) == ["1: Jinja statement"]
    assert findings("{{ ansible_managed | comment }}\n{# a comment #}\n{{ item.dropin -}}", templates=True) == []
