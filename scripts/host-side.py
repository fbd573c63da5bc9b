#!/usr/bin/env python3
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which Python files run on a managed host, found by following imports (not by a hand list).

Host-side code is every module in plugins/modules and every module_utils file that a module imports,
directly or through other module_utils files. It must run on the target Pythons (3.6 and newer).
The other module_utils files are imported only by controller plugins (filters, plugin_utils) and
follow the controller's Python.

    host-side.py host         host-side files (plugins/modules/*.py and the module_utils they import)
    host-side.py controller   module_utils files no module imports (controller code belongs in
                              plugin_utils, so this list is empty in a healthy tree)
    host-side.py host-tests   unit tests (tests/unit/plugins/{modules,module_utils}/test_*.py) that
                              import, directly or through test helpers, only host-side code,
                              ansible.module_utils and libraries outside ansible

Paths are printed relative to the repository, one a line, sorted. Runs on Python 3.6 and newer.
"""

import ast
import os
import sys

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
PREFIX = "ansible_collections.s390x.network."


_IMPORTS = {}


def _imported_names(path, optional=True):
    """Dotted names a file imports (absolute; relative imports resolved against the file's package).

    ``optional=False`` leaves out the imports in a ``try:`` whose ``except`` catches ImportError (a
    file that runs without them)."""
    if path not in _IMPORTS:
        _IMPORTS[path] = _parse_imports(path)
    return [name for name, is_optional in _IMPORTS[path] if optional or not is_optional]


def _catches_import_error(node):
    for handler in node.handlers:
        caught = handler.type
        names = caught.elts if isinstance(caught, ast.Tuple) else [caught]
        if caught is None or any(isinstance(n, ast.Name) and n.id in ("ImportError", "Exception") for n in names):
            return True
    return False


def _parse_imports(path):
    with open(path, "rb") as handle:
        tree = ast.parse(handle.read(), path)
    package = os.path.relpath(os.path.dirname(path), REPO).replace(os.sep, ".")
    names = []

    def visit(node, optional):
        if isinstance(node, ast.Try) and _catches_import_error(node):
            for child in node.body:
                visit(child, True)
            for child in node.handlers + node.orelse + node.finalbody:
                visit(child, optional)
            return
        if isinstance(node, ast.Import):
            names.extend((alias.name, optional) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = parts[: len(parts) - node.level + 1]
                module = PREFIX + ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            names.append((module, optional))
            # `from package import submodule`: each imported name may be a module of its own
            names.extend((module + "." + alias.name, optional) for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child, optional)

    visit(tree, False)
    return names


def _repo_file(name):
    """The repository file of a collection module name, or None."""
    if not name.startswith(PREFIX):
        return None
    rel = name[len(PREFIX) :].replace(".", os.sep)
    for candidate in (rel + ".py", os.path.join(rel, "__init__.py")):
        if os.path.isfile(os.path.join(REPO, candidate)):
            return candidate
    return None


def _closure(start, follow):
    """Files reachable from ``start`` through collection imports, following only files ``follow`` accepts."""
    seen = set()
    todo = list(start)
    while todo:
        rel = todo.pop()
        if rel in seen:
            continue
        seen.add(rel)
        for name in _imported_names(os.path.join(REPO, rel)):
            target = _repo_file(name)
            if target and target not in seen and follow(target):
                todo.append(target)
    return seen


def _py_files(directory, recursive=False):
    """The .py files of a directory (and of its packages when ``recursive``), without ``__init__.py``."""
    full = os.path.join(REPO, directory)
    found = []
    for root, dirs, names in os.walk(full):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__") if recursive else []
        rel_root = os.path.relpath(root, REPO)
        found.extend(os.path.join(rel_root, n) for n in names if n.endswith(".py") and n != "__init__.py")
    return sorted(found)


def host_files():
    modules = _py_files(os.path.join("plugins", "modules"))
    module_utils_dir = os.path.join("plugins", "module_utils") + os.sep
    reached = _closure(modules, lambda rel: rel.startswith(module_utils_dir))
    return sorted(rel for rel in reached if os.path.basename(rel) != "__init__.py")


def controller_module_utils():
    host = set(host_files())
    return [rel for rel in _py_files(os.path.join("plugins", "module_utils"), recursive=True) if rel not in host]


def _external_ok(name):
    """An import from outside the collection that a host-side test may make."""
    top = name.split(".")[0]
    if top == "ansible":
        return name == "ansible" or name.startswith("ansible.module_utils")
    return top not in ("jinja2",)


def host_tests():
    host = set(host_files())
    tests_dir = os.path.join("tests", "unit") + os.sep
    chosen = []
    for sub in ("modules", "module_utils"):
        for rel in _py_files(os.path.join("tests", "unit", "plugins", sub)):
            if not os.path.basename(rel).startswith("test_"):
                continue
            files = _closure([rel, os.path.join("tests", "unit", "conftest.py")], lambda r: r.startswith(tests_dir))
            ok = True
            for path in files:
                for name in _imported_names(os.path.join(REPO, path), optional=False):
                    target = _repo_file(name)
                    if target:
                        if not (target in host or target.startswith(tests_dir) or target.endswith("__init__.py")):
                            ok = False
                    elif name.startswith(PREFIX):
                        # a name imported from a module (a function, a class): its module is checked
                        continue
                    elif not _external_ok(name):
                        ok = False
            if ok:
                chosen.append(rel)
    return chosen


def main(argv):
    what = argv[1] if len(argv) > 1 else "host"
    listing = {"host": host_files, "controller": controller_module_utils, "host-tests": host_tests}.get(what)
    if listing is None:
        sys.stderr.write("usage: host-side.py host|controller|host-tests\n")
        return 2
    for rel in listing():
        print(rel)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
