# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The validation rule of the collection's Python, checked on its source: a pattern is matched whole
with ``fullmatch``, never anchored with ``$``, which also matches before a trailing newline (so
``re.match(r"^[a-z]+$", "abc\\n")`` accepts a value with a newline that then reaches a file or an
argv)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ast
import os
import re

import pytest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
REGEX_CALLS = ("compile", "match", "search", "fullmatch", "sub", "subn", "split", "findall", "finditer")


def _python_files():
    for top in ("plugins",):
        for root, _dirs, files in os.walk(os.path.join(REPO, top)):
            for name in sorted(files):
                if name.endswith(".py"):
                    yield os.path.join(root, name)


def _dollar_anchored(pattern):
    """True when the pattern ends with a ``$`` that is an anchor (not ``\\$``, not in a class)."""
    return bool(re.search(r"(?<!\\)(?:\\\\)*\$\)*\Z", pattern))


def anchored_patterns(source):
    """(line, pattern) of every literal pattern given to an ``re`` call that ends with a ``$`` anchor."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        first = node.args[0]
        if name in REGEX_CALLS and isinstance(first, ast.Constant) and isinstance(first.value, str):
            if _dollar_anchored(first.value):
                found.append((node.lineno, first.value))
    return found


@pytest.mark.parametrize(
    "source,count",
    [
        ('import re\nX = re.compile(r"^[a-z]+$")\n', 1),
        ('import re\nre.match(r"^(a|b)$", v)\n', 1),
        ('import re\nre.match(r"^(a|b$)", v)\n', 1),
        ('import re\nre.fullmatch(r"[a-z]+", v)\n', 0),
        ('import re\nre.search(r"cost \\$", v)\n', 0),
        ('import re\nre.sub(r"\\s+", " ", v)\n', 0),
    ],
)
def test_the_scan_finds_dollar_anchors(source, count):
    assert len(anchored_patterns(source)) == count


def test_no_pattern_in_plugins_is_anchored_with_dollar():
    offenders = []
    for path in _python_files():
        with open(path) as handle:
            for line, pattern in anchored_patterns(handle.read()):
                offenders.append("%s:%d %r" % (os.path.relpath(path, REPO), line, pattern))
    assert offenders == [], "use re.fullmatch without ^...$ instead:\n" + "\n".join(offenders)
