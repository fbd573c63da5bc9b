# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The split between host-side code (Python 3.6 and newer) and controller code that the target
Python 3.6 checks of mk/matrix.mk rely on (scripts/host-side.py, an import walk), checked here with
an independent reading of the imports, and the Python 3.6 unit run covers every module."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re
import subprocess
import sys

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
MU = "ansible_collections.s390x.network.plugins.module_utils"
# `from ...module_utils.PKG.NAME import x`, `import ...module_utils.PKG.NAME`,
# `from ...module_utils.PKG import a, b as c`
DOTTED = re.compile(re.escape(MU) + r"((?:\.\w+)+)")
FROM_PACKAGE = re.compile(r"from " + re.escape(MU) + r"((?:\.\w+)*) import (\([^)]*\)|[^\n]+)")


def listing(what):
    out = subprocess.check_output([sys.executable, os.path.join(REPO, "scripts", "host-side.py"), what], cwd=REPO)
    return out.decode().split()


def py_files(directory):
    found = []
    for root, dirs, names in os.walk(os.path.join(REPO, directory)):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        rel = os.path.relpath(root, REPO).replace(os.sep, "/")
        found.extend(rel + "/" + n for n in names if n.endswith(".py") and n != "__init__.py")
    return sorted(found)


def module_file(dotted):
    """plugins/module_utils/a/b.py for ".a.b" when that file exists, else None (a package or a name)."""
    rel = "plugins/module_utils" + dotted.replace(".", "/") + ".py"
    return rel if os.path.isfile(os.path.join(REPO, rel)) else None


def module_utils_imported_by(rel):
    with open(os.path.join(REPO, rel)) as handle:
        text = handle.read()
    files = set()
    for dotted in DOTTED.findall(text):
        parts = dotted.split(".")
        # the longest prefix that is a file: `...engine.resource.Resource` is engine/resource.py
        for end in range(len(parts), 1, -1):
            found = module_file(".".join(parts[:end]))
            if found:
                files.add(found)
                break
        else:
            # a package: `from ...module_utils.PKG import name` is read by FROM_PACKAGE below
            if os.path.isdir(os.path.join(REPO, "plugins/module_utils" + dotted.replace(".", "/"))):
                continue
            raise AssertionError("%s imports %s%s, which is no file" % (rel, MU, dotted))
    for package, group in FROM_PACKAGE.findall(text):
        for item in group.strip("()").replace("\n", " ").split(","):
            found = module_file(package + "." + item.split(" as ")[0].strip()) if item.strip() else None
            if found:
                files.add(found)
    return files


def test_every_module_is_host_side_and_no_controller_plugin_is():
    host = listing("host")
    assert set(py_files("plugins/modules")) <= set(host)
    for rel in host:
        assert rel.startswith(("plugins/modules/", "plugins/module_utils/")), rel


def test_host_side_module_utils_are_exactly_those_modules_reach():
    reached = set()
    todo = py_files("plugins/modules")
    while todo:
        rel = todo.pop()
        for target in module_utils_imported_by(rel):
            assert os.path.isfile(os.path.join(REPO, target)), "%s imports %s, which does not exist" % (rel, target)
            if target not in reached:
                reached.add(target)
                todo.append(target)
    host_module_utils = set(rel for rel in listing("host") if rel.startswith("plugins/module_utils/"))
    assert host_module_utils == reached
    controller = set(listing("controller"))
    assert not controller & reached
    assert controller | reached == set(py_files("plugins/module_utils"))
    # controller-only code lives in plugin_utils, not in module_utils
    assert controller == set()


def documents_an_action(rel):
    """A file in plugins/modules that only documents the action plugin of its name (no main)."""
    name = os.path.basename(rel)
    with open(os.path.join(REPO, rel)) as handle:
        text = handle.read()
    return os.path.exists(os.path.join(REPO, "plugins", "action", name)) and "def main(" not in text


def test_the_python36_unit_run_imports_every_module():
    tests = listing("host-tests")
    text = ""
    for rel in tests:
        assert rel.startswith("tests/unit/plugins/module"), rel
        with open(os.path.join(REPO, rel)) as handle:
            text += handle.read()
    for rel in py_files("plugins/modules"):
        name = os.path.basename(rel)[:-3]
        if documents_an_action(rel):
            continue  # never sent to a host
        pattern = r"plugins\.modules(\.%s\b| import [^\n]*\b%s\b)" % (name, name)
        assert re.search(pattern, text), "no unit test of the Python 3.6 run imports the module %s" % name


def test_a_test_that_reaches_controller_code_is_left_out_of_the_python36_run():
    tests = set(listing("host-tests"))
    controller = listing("controller")
    for rel in py_files("tests/unit/plugins/module_utils"):
        imported = module_utils_imported_by(rel)
        with open(os.path.join(REPO, rel)) as handle:
            text = handle.read()
        if imported & set(controller) or "plugins.filter" in text or "plugins.plugin_utils" in text:
            assert rel not in tests, rel
