# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fixtures of the controller code's work-count tests.

``z17_inventory``: ``generate(partitions, guests)`` of benchmarks/z17_cpc_inventory.py, the z17
CPC of the scale benchmark. ``count_calls(module, name)``: replaces ``module.name`` with a wrapper
that counts its calls (``.count``) for the test. ``counting_hosts(names)``: a host list that counts
the ``in`` tests made on it (``.lookups``), each a walk over the list."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import sys

import pytest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))


@pytest.fixture(name="z17_inventory")
def fixture_z17_inventory():
    sys.path.insert(0, os.path.join(REPO, "benchmarks"))
    try:
        import z17_cpc_inventory  # pylint: disable=import-outside-toplevel
    finally:
        sys.path.remove(os.path.join(REPO, "benchmarks"))
    return z17_cpc_inventory


class _Calls(object):
    def __init__(self, original):
        self.count = 0
        self.original = original

    def __call__(self, *args, **kwargs):
        self.count += 1
        return self.original(*args, **kwargs)


@pytest.fixture(name="count_calls")
def fixture_count_calls(monkeypatch):
    def install(module, name):
        calls = _Calls(getattr(module, name))
        monkeypatch.setattr(module, name, calls)
        return calls

    return install


class _CountingHosts(list):
    def __init__(self, names):
        list.__init__(self, names)
        self.lookups = 0

    def __contains__(self, item):
        self.lookups += 1
        return list.__contains__(self, item)


@pytest.fixture(name="counting_hosts")
def fixture_counting_hosts():
    return _CountingHosts
