# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Module cases described in YAML (``fixtures/<module>_*.yml``), run on the fake host.

A case file holds ``cases:``, each with:

- ``name``;
- ``host``: ``files`` (host path -> text) the host has before the run;
- ``answers``: command line (as ``commands`` shows it) -> ``[rc, stdout, stderr]``; a command
  without an answer fails the case;
- ``params``, and ``check_mode`` / ``diff`` (default false);
- ``expect``, at least one of: ``failed`` and ``msg_contains`` (list), ``changed``, ``commands``
  (exactly), ``ran`` (the command lines that ran, exactly), ``drift`` (rows, exactly), ``files``
  (host path -> text, or null for a file that must not exist), ``gathered``, ``rendered``,
  ``idempotent`` (a second run with the same parameters reports no change and no command).

qeth_device has its own runner (test_qeth_device.py) for its fake chzdev.
"""

from __future__ import absolute_import, division, print_function

import glob
import os
import shlex

import pytest
import yaml

from ansible_collections.s390x.network.plugins.module_utils.engine import host_files

HERE = os.path.dirname(__file__)
EXPECT_KEYS = (
    "failed",
    "msg_contains",
    "changed",
    "commands",
    "ran",
    "drift",
    "files",
    "gathered",
    "rendered",
    "idempotent",
)


def cases(module_name):
    """pytest params of every case of ``fixtures/<module_name>_*.yml``, named ``file:case``."""
    params = []
    prefix = module_name + "_"
    for path in sorted(glob.glob(os.path.join(HERE, "fixtures", prefix + "*.yml"))):
        with open(path) as handle:
            data = yaml.safe_load(handle)
        for case in data["cases"]:
            params.append(pytest.param(case, id="%s:%s" % (os.path.basename(path)[len(prefix) : -4], case["name"])))
    assert params, "no cases in fixtures/%s*.yml" % prefix
    return params


def _put_files(files):
    for host_path, text in (files or {}).items():
        real = host_files.path(host_path)
        os.makedirs(os.path.dirname(real), exist_ok=True)
        with open(real, "w") as handle:
            handle.write(text)


def _check_files(files):
    for host_path, text in files.items():
        current = host_files.read_text(host_path)
        assert current == text, "%s: %r, expected %r" % (host_path, current, text)


class _Commands(object):
    def __init__(self, answers):
        self.answers = dict(answers or {})
        self.ran = []

    def __call__(self, argv):
        line = " ".join(shlex.quote(a) for a in [os.path.basename(argv[0])] + list(argv[1:]))
        self.ran.append(line)
        if line not in self.answers:
            return 127, "", "no answer for %s in the case" % line
        rc, out, err = self.answers[line]
        return rc, out, err


def _run(run_module, main, case, check_mode, diff):
    commands = _Commands(case.get("answers"))
    result = run_module(main, case["params"], commands, check_mode=check_mode, diff=diff).result
    result["ran"] = commands.ran
    return result


def run_case(run_module, main, case):
    """Run ``main`` as ``case`` says on the current host root (``host_root`` fixture) and check
    every expectation of the case."""
    expect = case["expect"]
    unknown = set(expect) - set(EXPECT_KEYS)
    assert not unknown, "unknown expectations %s" % sorted(unknown)
    assert set(expect) & set(EXPECT_KEYS), "the case %r expects nothing" % case["name"]
    _put_files(case.get("host", {}).get("files"))
    result = _run(run_module, main, case, case.get("check_mode", False), case.get("diff", False))
    assert bool(result.get("failed")) == bool(expect.get("failed")), result
    for part in expect.get("msg_contains", []):
        assert part in result["msg"], (part, result["msg"])
    for key in ("changed", "commands", "ran", "drift", "gathered", "rendered"):
        if key in expect:
            assert result.get(key) == expect[key], (key, result.get(key))
    if "files" in expect:
        _check_files(expect["files"])
    if expect.get("idempotent"):
        again = _run(run_module, main, case, False, False)
        assert not again.get("failed"), again.get("msg")
        assert (again["changed"], again["commands"]) == (False, [])
    return result
