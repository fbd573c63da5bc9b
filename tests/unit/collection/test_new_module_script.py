# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""scripts/new-module.py: what it refuses, and that what it would write parses (Python, the
module's documentation, YAML) and carries the example mark the completeness test looks for.
Writing a module and running its tests, lint and sanity is shown in docs/contributing.md's steps;
this test keeps the templates from breaking between such runs."""

from __future__ import annotations

import ast
import importlib.util
import os

import pytest
import yaml

from ansible_collections.s390x.network.tests.unit.collection.test_module_places import SCAFFOLD_MARK

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def _script():
    spec = importlib.util.spec_from_file_location("new_module", os.path.join(ROOT, "scripts", "new-module.py"))
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    return script


SCRIPT = _script()


@pytest.mark.parametrize(
    "domain,name,fragment",
    [
        ("widget", "smc_ueid", "plugins/modules/smc_ueid.py is a module already"),
        ("widget", "1knob", "NAME '1knob' is not a lower-case Python identifier"),
        ("widget", "Knob", "NAME 'Knob' is not a lower-case Python identifier"),
        ("widget", "knob-x", "NAME 'knob-x' is not"),
        ("widget", "class", "NAME 'class' is a Python keyword"),
        ("wid get", "knob", "DOMAIN 'wid get' is not"),
        ("engine", "knob", "DOMAIN 'engine' is the resource engine"),
        ("smc", "smc_ueidx", None),
        ("widget", "k" * 41, "is not a lower-case Python identifier of 1 to 40 characters"),
    ],
)
def test_refusals(domain, name, fragment):
    found = SCRIPT.problems(domain, name)
    if fragment is None:
        assert found == []
    else:
        assert any(fragment in line for line in found), found


def test_an_existing_file_is_refused():
    assert SCRIPT.problems("smc", "ueid") == ["plugins/module_utils/smc/ueid_resource.py exists"]


def _tree():
    return sorted(os.path.join(base, f) for base, _dirs, files in os.walk(os.path.join(ROOT, "plugins")) for f in files)


def test_the_main_refuses_with_exit_code_2_and_writes_nothing(capsys):
    before = _tree()
    assert SCRIPT.main(["widget", "qeth_device"]) == 2
    assert "is a module already" in capsys.readouterr().err
    assert _tree() == before


@pytest.mark.parametrize("domain,name", [("widget", "widget_knob"), ("smc", "smc_" + "x" * 36)])
def test_the_files_parse_and_carry_the_example_mark(domain, name):
    files = dict(SCRIPT.render(domain, name))
    stem = name[len(domain) + 1 :]
    expected = {
        "plugins/modules/%s.py" % name,
        "plugins/module_utils/%s/%s_resource.py" % (domain, stem),
        "tests/unit/plugins/modules/test_%s.py" % name,
        "tests/unit/plugins/modules/test_%s_bad_input.py" % name,
        "tests/unit/plugins/modules/fixtures/%s_cases.yml" % name,
        "tests/unit/plugins/module_utils/test_%s_%s_resource.py" % (domain, stem),
        "changelogs/fragments/%s.yml" % name,
    }
    is_new = not os.path.isdir(os.path.join(ROOT, "plugins", "module_utils", domain))
    new_package = {"plugins/module_utils/%s/__init__.py" % domain} if is_new else set()
    assert set(files) == expected | new_package
    for rel, text in files.items():
        if rel.endswith("__init__.py"):
            assert text == ""
            continue
        assert SCAFFOLD_MARK.findall(text) and set(SCAFFOLD_MARK.findall(text)) == {name}, rel
        assert max(len(line) for line in text.splitlines()) <= 160, rel
        if rel.endswith(".py"):
            ast.parse(text)
        else:
            assert yaml.safe_load(text)
    module = ast.parse(files["plugins/modules/%s.py" % name])
    docs = dict(
        (node.targets[0].id, node.value.value)
        for node in module.body
        if isinstance(node, ast.Assign)
        and getattr(node.targets[0], "id", "") in ("DOCUMENTATION", "EXAMPLES", "RETURN")
    )
    assert yaml.safe_load(docs["DOCUMENTATION"])["module"] == name
    assert set(yaml.safe_load(docs["RETURN"])) >= {"before", "after", "commands", "drift", "rollback"}
    assert all(task["s390x.network." + name] for task in yaml.safe_load(docs["EXAMPLES"]))
