# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The sample CPCs and IOCP decks in tests/unit/fixtures/iocp, for the cpc_model and iocp tests."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import yaml

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "iocp")


def fixture_text(name):
    """The text of the fixture file ``name`` (``"lab.iocp"``)."""
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


def load_cpc(name):
    """A fresh copy of the ``cpc`` mapping in the fixture file ``name`` (``"lab_cpc.yml"``)."""
    return yaml.safe_load(fixture_text(name))["cpc"]
