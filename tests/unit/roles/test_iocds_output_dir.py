# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The iocds role's default output directory is outside the collection, per user.

Regression: the default was ``{{ playbook_dir }}/iocds-output``; with the collection's own
playbooks/iocds.yml that is inside the checkout, so two admins running it from one checkout
overwrote each other's IOCP deck.
"""

from __future__ import annotations

import os

import yaml

from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar

try:  # ansible-core 2.19 and later template only trusted strings (as it trusts role files)
    from ansible.template import trust_as_template
except ImportError:  # earlier releases template every string

    def trust_as_template(value):
        return value


ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def default_output_dir(home, playbook_dir):
    with open(os.path.join(ROOT, "roles", "iocds", "defaults", "main.yml")) as handle:
        expression = yaml.safe_load(handle)["iocds_output_dir"]
    templar = Templar(loader=DataLoader(), variables={"playbook_dir": playbook_dir})
    old_home = os.environ.get("HOME")
    os.environ["HOME"] = home
    try:
        return templar.template(trust_as_template(expression))
    finally:
        os.environ["HOME"] = old_home


def test_the_default_is_per_user_and_outside_the_collection(tmp_path):
    playbooks = os.path.join(ROOT, "playbooks")  # playbooks/iocds.yml of the checkout
    admin1 = default_output_dir(str(tmp_path / "admin1"), playbooks)
    admin2 = default_output_dir(str(tmp_path / "admin2"), playbooks)
    assert admin1 != admin2
    for directory in (admin1, admin2):
        assert not os.path.realpath(directory).startswith(os.path.realpath(ROOT) + os.sep), directory
    assert admin1 == str(tmp_path / "admin1" / "s390x-network" / "iocds-output")
