# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the collection ships for runs in the supported range: the execution environment installs an
ansible-core at or above the floor of meta/runtime.yml (the floor itself is checked against the test
matrix in test_galaxy_import_ready.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re

import yaml

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def _read(*parts):
    with open(os.path.join(REPO, *parts)) as handle:
        return handle.read()


def test_the_execution_environment_installs_a_supported_ansible_core():
    floor = re.fullmatch(r">=(\d+)\.(\d+)\.0", yaml.safe_load(_read("meta", "runtime.yml"))["requires_ansible"])
    assert floor, "meta/runtime.yml declares one floor"
    ee = yaml.safe_load(_read("execution-environment.yml"))
    pin = re.fullmatch(r"ansible-core==(\d+)\.(\d+)\.(\d+)", ee["dependencies"]["ansible_core"]["package_pip"])
    assert pin, "the execution environment pins one ansible-core release"
    assert tuple(int(x) for x in pin.groups()[:2]) >= tuple(int(x) for x in floor.groups())
