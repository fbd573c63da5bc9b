# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ansible-core the collection claims is the one its tests run: the lower bound in
meta/runtime.yml and the README is the pinned ansible-core of requirements-dev.txt."""

from __future__ import annotations

import os
import re

import yaml

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def _read(*parts):
    with open(os.path.join(REPO, *parts)) as handle:
        return handle.read()


def test_the_claimed_ansible_core_is_the_tested_one():
    pinned = re.search(r"^ansible-core==(\d+)\.(\d+)\.\d+$", _read("requirements-dev.txt"), re.M)
    assert pinned, "requirements-dev.txt pins ansible-core"
    claimed = yaml.safe_load(_read("meta", "runtime.yml"))["requires_ansible"]
    assert claimed == ">=%s.%s.0" % pinned.groups()
    assert "| ansible-core (controller) | %s.%s and newer" % pinned.groups() in _read("README.md")


def test_the_execution_environment_installs_a_claimed_ansible_core():
    ee = yaml.safe_load(_read("execution-environment.yml"))
    major, minor = re.match(
        r">=(\d+)\.(\d+)\.0$", yaml.safe_load(_read("meta", "runtime.yml"))["requires_ansible"]
    ).groups()
    assert ee["dependencies"]["ansible_core"]["package_pip"] == "ansible-core>=%s.%s" % (major, minor)
