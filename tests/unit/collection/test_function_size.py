# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""No function or method of the collection's Python is longer than MAX_LINES lines (from its
``def`` line to its last line, decorators not counted): a longer one is split into named steps."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ast
import os

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
MAX_LINES = 120


def _python_files():
    for root, dirs, files in os.walk(os.path.join(REPO, "plugins")):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                yield os.path.join(root, name)


def long_functions(source, limit=MAX_LINES):
    """(name, first line, length) of every function or method of ``source`` longer than ``limit``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = node.end_lineno - node.lineno + 1
            if length > limit:
                found.append((node.name, node.lineno, length))
    return sorted(found, key=lambda item: item[1])


def _function(name, body_lines, indent=""):
    return "".join(["%sdef %s():\n" % (indent, name)] + ["%s    x = %d\n" % (indent, i) for i in range(body_lines - 1)])


def test_the_check_counts_def_to_last_line():
    source = _function("short", MAX_LINES) + _function("long", MAX_LINES + 1)
    assert long_functions(source) == [("long", MAX_LINES + 1, MAX_LINES + 1)]


def test_the_check_sees_methods_and_nested_functions():
    method = "class C:\n    @staticmethod\n" + _function("method", MAX_LINES + 1, "    ")
    assert long_functions(method) == [("method", 3, MAX_LINES + 1)]
    nested = "def outer():\n" + _function("inner", MAX_LINES + 1, "    ")
    assert [name for name, _line, _length in long_functions(nested)] == ["outer", "inner"]


def test_no_function_in_plugins_is_longer_than_the_limit():
    files = list(_python_files())
    assert len(files) > 50, "plugins/ not found from %s" % REPO
    too_long = []
    for path in files:
        with open(path, "rb") as handle:
            source = handle.read()
        for name, line, length in long_functions(source):
            too_long.append("%s:%d:%s: %d lines" % (os.path.relpath(path, REPO), line, name, length))
    assert not too_long, "functions over %d lines (split them into named steps):\n%s" % (
        MAX_LINES,
        "\n".join(too_long),
    )
