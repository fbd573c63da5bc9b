# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every module of plugins/modules is registered in every place a module must be, and this test
names, per module, exactly the places it still lacks.

The places are read from the files that already enumerate modules, never from a list of modules
kept here: the roles' module calls (``roles/*/tasks``), ``ROLE_RESULTS`` and ``ROLE_PLANS`` of the
drift report, the results ``playbooks/verify.yml`` reads, the README's module table,
docs/architecture.md, the input table of docs/security.md, the bad-input batteries (a test that runs
the module against ``host_guard.HostGuard``), the module calls the no-op task budget was counted
with (``COUNTED_CALLS`` of ``zlab/tests/lab/test_task_budget.py``), the changelog fragment that
introduces the module, and the example text ``scripts/new-module.py`` writes until it is replaced.

``EXEMPT`` holds the places that do not apply to an existing module, with the reason; ``OWED`` the
places an existing module lacks and should get. Both are checked against the tree: an entry for a
place the module now has fails too, so that it is removed.
"""

from __future__ import annotations

import ast
import glob
import importlib
import os
import re

import pytest
import yaml

from ansible_collections.s390x.network.plugins.module_utils.engine.resource import Resource
from ansible_collections.s390x.network.plugins.plugin_utils.drift_report import ROLE_PLANS, ROLE_RESULTS

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
FQCN = "s390x.network."
#: the text scripts/new-module.py writes into every file it generates (a line may break it), then the module name
SCAFFOLD_MARK = re.compile(r"scaffold\s+example\s+for\s+module\s+([a-z][a-z0-9_]*)")
BUDGET_TEST = os.path.join("zlab", "tests", "lab", "test_task_budget.py")

PLACES = (
    "drift",
    "verify",
    "readme",
    "architecture",
    "security",
    "bad_input",
    "task_budget",
    "changelog",
    "scaffold_example",
)

_READ_ONLY = "read-only: it reports and changes no configured state, so it has no drift rows to register"
_NO_HOST_INPUT = "every option is a choice or a boolean: no value of the inventory reaches a file or an argv"

#: places that do not apply to a module, with the reason (module -> place -> reason)
EXEMPT = {
    "iocp": {
        "drift": "runs on the controller and writes the IOCDS files there; drift.yml checks the managed hosts",
        "verify": "runs on the controller and writes the IOCDS files there; verify.yml checks the managed hosts",
    },
    "qeth_info": {"drift": _READ_ONLY, "verify": "read-only; no role calls it"},
    "smc_rnics_info": {"drift": _READ_ONLY, "verify": "read-only; no role calls it"},
    "smcd_info": {
        "drift": _READ_ONLY,
        "verify": "read-only: it is the reader of the smc role's traffic check (tasks_from verify)",
        "security": _NO_HOST_INPUT,
    },
    "smc_check": {
        "drift": "read-only: one SMC test connection, no configured state",
        "verify": "it is the check: verify.yml's live SMC check runs it (playbooks/tasks/smc_live_check.yml)",
    },
    "smc_plan": {
        "security": "an action on the controller over the smc role's variables, whose rows the table has",
        "bad_input": "an action on the controller reaches no host: its refusals are tested in tests/unit/plugins/action",
    },
    "smc_stats_reset": {
        "drift": "resets the SMC statistics counters, which are no configured state",
        "verify": "resets the counters before the smc role's traffic check; there is no end state to check",
        "security": _NO_HOST_INPUT,
    },
}

#: places an existing module lacks and should get (module -> place -> what is owed)
OWED = {
    "nic_tuning": {"verify": "verify.yml does not include the nic_tuning role; drift.yml reports its rows"},
    "smc_pnet": {"verify": "verify.yml includes the smc role but reads no smc_pnet_result"},
    "smc_ueid": {
        "verify": "verify.yml includes the smc role but reads no smc_ueid_result",
        "bad_input": "refusals tested with the module's own guard in test_smc_ueid.py, not with HostGuard",
    },
    "smc_services": {
        "verify": "verify.yml includes the smc role but reads no smc_services_result",
        "bad_input": "refusals tested with the module's own guard in test_smc_services.py, not with HostGuard",
    },
    "ip_interfaces": {"bad_input": "no HostGuard battery"},
    "smc_check": {
        "bad_input": "refusals tested with the module's own guard in test_smc_check.py, not with HostGuard",
    },
}


def _read(*parts):
    with open(os.path.join(ROOT, *parts), encoding="utf-8") as handle:
        return handle.read()


def _walk(tasks):
    for task in tasks or []:
        yield task
        for key in ("block", "rescue", "always"):
            yield from _walk(task.get(key))


def modules():
    return sorted(
        os.path.basename(p)[:-3]
        for p in glob.glob(os.path.join(ROOT, "plugins", "modules", "*.py"))
        if not os.path.basename(p).startswith("_")
    )


def role_calls():
    """``(role, module, register)`` of every module task of the roles."""
    calls = []
    for path in sorted(glob.glob(os.path.join(ROOT, "roles", "*", "tasks", "*.yml"))):
        role = path.split(os.sep)[-3]
        with open(path, encoding="utf-8") as handle:
            for task in _walk(yaml.safe_load(handle)):
                for key in task:
                    if key.startswith(FQCN):
                        calls.append((role, key[len(FQCN) :], task.get("register")))
    return calls


def drift_kinds(name):
    """The ``drift_kind`` of every engine resource the module runs (empty: not on the engine)."""
    module = importlib.import_module("ansible_collections.s390x.network.plugins.modules." + name)
    kinds = _kinds(vars(module).values())
    if not kinds:  # a function that picks the resource (ip_interfaces: NetworkManager or netplan)
        homes = set(getattr(v, "__module__", "") for v in vars(module).values() if callable(v))
        homes = [h for h in homes if h.startswith("ansible_collections.s390x.network.plugins.module_utils.")]
        kinds = _kinds(v for home in homes for v in vars(importlib.import_module(home)).values())
    return kinds


def _kinds(values):
    return set(
        v.drift_kind
        for v in values
        if isinstance(v, type) and issubclass(v, Resource) and v is not Resource and v.drift_kind
    )


def _table_rows(text, heading):
    """Lines of the first Markdown table after the line ``heading``."""
    lines = text.splitlines()
    start = lines.index(heading) + 1
    rows = []
    for line in lines[start:]:
        if line.startswith("|"):
            rows.append(line)
        elif rows:
            break
    return rows


def _named(name, text):
    """``name`` as a code span of its own, or starting one (`name`, `name[].x`, `name` `option`)."""
    return re.search(r"`%s(?![A-Za-z0-9_])" % re.escape(name), text) is not None


def counted_calls():
    """``COUNTED_CALLS`` of the task budget test, read without importing the lab test."""
    for node in ast.parse(_read(BUDGET_TEST)).body:
        if isinstance(node, ast.Assign) and [t.id for t in node.targets if isinstance(t, ast.Name)] == [
            "COUNTED_CALLS"
        ]:
            return ast.literal_eval(node.value)
    raise AssertionError("%s has no COUNTED_CALLS" % BUDGET_TEST)


def _fragment_entries():
    entries = []
    for path in sorted(glob.glob(os.path.join(ROOT, "changelogs", "fragments", "*.yml"))):
        with open(path, encoding="utf-8") as handle:
            for section in (yaml.safe_load(handle) or {}).values():
                if isinstance(section, list):
                    entries.extend((os.path.basename(path), " ".join(str(e).split())) for e in section)
    return entries


def _battery_modules():
    found = {}
    pattern = re.compile(r"^from ansible_collections\.s390x\.network\.plugins\.modules import (.+)$", re.M)
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "unit", "plugins", "modules", "test_*.py"))):
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        if "host_guard import HostGuard" not in text:
            continue
        for match in pattern.finditer(text):
            for name in match.group(1).replace("(", "").replace(")", "").split(","):
                found.setdefault(name.strip(), os.path.relpath(path, ROOT))
    return found


def _scaffold_examples():
    """module -> files that still hold the example text of scripts/new-module.py."""
    found = {}
    for top in ("plugins", os.path.join("tests", "unit"), os.path.join("changelogs", "fragments")):
        for base, dirs, files in os.walk(os.path.join(ROOT, top)):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for fname in sorted(files):
                if not fname.endswith((".py", ".yml")):
                    continue
                path = os.path.join(base, fname)
                with open(path, encoding="utf-8") as handle:
                    for name in set(SCAFFOLD_MARK.findall(handle.read())):
                        found.setdefault(name, []).append(os.path.relpath(path, ROOT))
    return found


class Tree(object):
    """What the repository's files say about its modules, read once."""

    def __init__(self):
        self.calls = role_calls()
        self.verify = _read("playbooks", "verify.yml")
        self.readme = "\n".join(_table_rows(_read("README.md"), "## What it manages"))
        self.architecture = _read("docs", "architecture.md")
        self.security = "\n".join(_table_rows(_read("docs", "security.md"), "## Inputs and their guards"))
        self.batteries = _battery_modules()
        self.counted = counted_calls()
        self.fragments = _fragment_entries()
        self.examples = _scaffold_examples()

    def roles_of(self, name):
        return sorted(set(role for role, module, _register in self.calls if module == name))

    def registers_of(self, name):
        return sorted(set(reg for _role, module, reg in self.calls if module == name and reg))


def _drift(tree, name, kinds):
    roles = [r for r in tree.roles_of(name) if r in ROLE_RESULTS]
    if not roles:
        return (
            "no role of playbooks/vars/plays.yml calls it: call it from one, register its result and list the "
            "register with the module's drift_kind in ROLE_RESULTS (plugins/plugin_utils/drift_report.py)"
        )
    missing = []
    for role in roles:
        listed = set(kind for _result, kind in ROLE_RESULTS[role]) & kinds
        planned = set(tree.registers_of(name)) & set(ROLE_PLANS.get(role, ()))
        if not listed and not planned:
            missing.append(role)
    if missing:
        return "ROLE_RESULTS of %s lists no result of kind %s (plugins/plugin_utils/drift_report.py)" % (
            ", ".join(missing),
            " or ".join(sorted(kinds)) or "(the module runs no engine resource)",
        )
    return None


def _verify(tree, name, kinds):
    roles = [r for r in tree.roles_of(name) if r in ROLE_RESULTS]
    if not roles:
        return "no role of playbooks/vars/plays.yml calls it, so playbooks/verify.yml has no result of it to check"
    names = set(tree.registers_of(name))
    for role in roles:
        names.update(result for result, kind in ROLE_RESULTS[role] if kind in kinds)
    if not names:
        return "%s registers no result of it for playbooks/verify.yml to check" % ", ".join(roles)
    if not any(re.search(r"\b%s\b" % re.escape(result), tree.verify) for result in names):
        return "playbooks/verify.yml reads none of its results (%s)" % ", ".join(sorted(names))
    return None


def _task_budget(tree, name):
    missing = [role for role in tree.roles_of(name) if name not in tree.counted.get(role, ())]
    if missing:
        return (
            "role %s calls it, and COUNTED_CALLS of %s does not list it: run that lab test, then update BUDGET "
            "and COUNTED_CALLS" % (", ".join(missing), BUDGET_TEST)
        )
    return None


def _changelog(tree, name):
    intro = re.compile(r"(\b%s - new (resource )?(module|action)\b|\bnew (module|action) %s\b)" % (name, name))
    if not any(intro.search(text) for _path, text in tree.fragments):
        return "no changelogs/fragments/*.yml entry introduces it ('%s - new module ...')" % name
    return None


def lacking(tree, name):
    """place -> what ``name`` lacks there (places it has are left out)."""
    try:
        kinds = drift_kinds(name)
    except ImportError:
        kinds = set()
    found = {
        "drift": _drift(tree, name, kinds),
        "verify": _verify(tree, name, kinds),
        "readme": None if _named(name, tree.readme) else "no row of the README's module table names it",
        "architecture": None if _named(name, tree.architecture) else "docs/architecture.md does not name it",
        "security": None if _named(name, tree.security) else "no row of docs/security.md's input table names it",
        "bad_input": (
            None
            if name in tree.batteries
            else "no test in tests/unit/plugins/modules runs it against host_guard.HostGuard"
        ),
        "task_budget": _task_budget(tree, name),
        "changelog": _changelog(tree, name),
        "scaffold_example": (
            "still the example of scripts/new-module.py: %s" % ", ".join(tree.examples[name])
            if name in tree.examples
            else None
        ),
    }
    return dict((place, text) for place, text in found.items() if text)


@pytest.fixture(scope="module")
def tree():
    return Tree()


@pytest.mark.parametrize("name", modules())
def test_the_module_is_registered_in_every_place(tree, name):
    missing = lacking(tree, name)
    exempt = EXEMPT.get(name, {})
    owed = OWED.get(name, {})
    unexplained = dict((p, t) for p, t in missing.items() if p not in exempt and p not in owed)
    assert unexplained == {}, "%s lacks:\n%s" % (name, "\n".join("  %s: %s" % item for item in unexplained.items()))
    settled = sorted(p for p in list(exempt) + list(owed) if p not in missing)
    assert settled == [], "%s now has %s: remove the EXEMPT/OWED entry" % (name, ", ".join(settled))


def test_the_declarations_name_modules_and_places_that_exist():
    names = set(modules())
    for table in (EXEMPT, OWED):
        assert set(table) <= names, sorted(set(table) - names)
        for name, places in table.items():
            assert set(places) <= set(PLACES) - {"scaffold_example"}, (name, places)
            assert all(reason.strip() for reason in places.values()), name
        assert all(not set(EXEMPT.get(n, {})) & set(OWED.get(n, {})) for n in names)


def test_the_budget_was_counted_with_the_calls_the_roles_make(tree):
    made = {}
    for role, module, _register in tree.calls:
        made.setdefault(role, set()).add(module)
    assert dict((r, set(m)) for r, m in tree.counted.items()) == made


def test_a_module_registered_nowhere_lacks_every_place():
    tree = Tree()
    tree.examples = dict(tree.examples, no_such_module=["plugins/modules/no_such_module.py"])
    tree.calls = tree.calls + [("smc", "no_such_module", "smc_no_such_result")]
    assert sorted(lacking(tree, "no_such_module")) == sorted(PLACES)
    assert "ROLE_RESULTS of smc lists no result" in lacking(tree, "no_such_module")["drift"]
