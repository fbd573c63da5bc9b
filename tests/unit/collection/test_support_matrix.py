# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The support matrix says what runs: each ansible-core of mk/matrix.mk is pinned in tests/matrix,
the oldest one is the floor of meta/runtime.yml, and the README's support matrix names the pinned
releases and the controller Python each runs on."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re

import yaml

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def _read(*parts):
    with open(os.path.join(REPO, *parts)) as handle:
        return handle.read()


def _make_var(name):
    found = re.search(r"^%s\s*\?=\s*(.+)$" % re.escape(name), _read("mk", "matrix.mk"), re.M)
    assert found, "mk/matrix.mk sets %s" % name
    return found.group(1).strip()


def _cores():
    cores = _make_var("MATRIX_CORES").split()
    assert cores, "the matrix has cores"
    return sorted(cores, key=lambda c: tuple(int(p) for p in c.split(".")))


def _pinned(core):
    pins = _read("tests", "matrix", "core-%s.txt" % core)
    found = re.findall(r"^ansible-core==(\d+\.\d+\.\d+)$", pins, re.M)
    assert len(found) == 1, "tests/matrix/core-%s.txt pins ansible-core once" % core
    assert found[0].startswith(core + "."), "tests/matrix/core-%s.txt pins %s" % (core, found[0])
    return found[0]


def _readme_row(title):
    section = _read("README.md").split("## Support matrix", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| %s |" % title)]
    assert len(rows) == 1, "the support matrix has one row %r" % title
    return rows[0]


def test_every_core_of_the_matrix_is_pinned_with_its_dependencies():
    for core in _cores():
        _pinned(core)
        pins = _read("tests", "matrix", "core-%s.txt" % core)
        for package in ("PyYAML", "Jinja2", "resolvelib", "pytest", "pytest-xdist", "hypothesis"):
            assert re.search(r"^%s==\S+$" % re.escape(package), pins, re.M | re.I), (core, package)


def test_the_floor_is_the_oldest_core_of_the_matrix():
    claimed = yaml.safe_load(_read("meta", "runtime.yml"))["requires_ansible"]
    assert claimed == ">=%s.0" % _cores()[0]


def test_the_readme_names_each_pinned_core_and_its_controller_python():
    core_row = _readme_row("ansible-core (controller)")
    python_row = _readme_row("Controller Python")
    for core in _cores():
        assert _pinned(core) in core_row, core
        assert "%s (%s)" % (_make_var("MATRIX_PYTHON_%s" % core), core) in python_row, core
    newest = re.search(r"^ansible-core==(\d+\.\d+\.\d+)$", _read("requirements-dev.txt"), re.M).group(1)
    assert newest in core_row
    assert "%s and newer" % _cores()[0] in core_row


def test_python36_runs_the_unit_tools_that_support_it():
    pins = _read("tests", "matrix", "py36.txt")
    assert re.search(r"^pytest==7\.0\.\d+$", pins, re.M)
    assert _make_var("PY36_CORE") in _cores()
    assert "3.6" in _readme_row("Target Python")
