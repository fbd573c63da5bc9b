# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every resource the engine runs declares what the engine derives its results from: its kind,
the kind of its drift rows, the scopes of its view, and the hooks without a default."""

from __future__ import absolute_import, division, print_function

import importlib
import pkgutil

import pytest

from ansible_collections.s390x.network.plugins import module_utils
from ansible_collections.s390x.network.plugins.module_utils.engine import resource as engine

#: hooks the base class leaves to each resource (NotImplementedError)
REQUIRED = ("read", "plan", "predict", "view")


def _resources():
    for info in pkgutil.walk_packages(module_utils.__path__, module_utils.__name__ + "."):
        importlib.import_module(info.name)
    found, todo = [], [engine.Resource]
    while todo:
        for sub in todo.pop().__subclasses__():
            todo.append(sub)
            if sub.__module__.startswith(module_utils.__name__ + "."):
                found.append(sub)
    return sorted(set(found), key=lambda cls: (cls.__module__, cls.__name__))


RESOURCES = _resources()


def test_the_walk_finds_the_resources_of_every_domain():
    domains = set(cls.__module__.split(".")[-2] for cls in RESOURCES)
    assert set(["qeth", "zpci", "smc", "nic", "ip", "libvirt"]) <= domains
    assert len(RESOURCES) >= 9


@pytest.mark.parametrize("cls", RESOURCES, ids=lambda cls: cls.__name__)
def test_a_resource_declares_its_kinds_and_scopes(cls):
    assert cls.kind != engine.Resource.kind and cls.kind, "%s: set kind (messages)" % cls.__name__
    assert isinstance(cls.drift_kind, str) and cls.drift_kind.isidentifier(), "%s: set drift_kind" % cls.__name__
    assert isinstance(cls.scopes, tuple) and cls.scopes, "%s: set scopes" % cls.__name__
    assert len(set(cls.scopes)) == len(cls.scopes) and set(cls.scopes) <= set(engine.SCOPES), cls.scopes


@pytest.mark.parametrize("cls", RESOURCES, ids=lambda cls: cls.__name__)
def test_a_resource_implements_the_hooks_without_a_default(cls):
    missing = [name for name in REQUIRED if getattr(cls, name) is getattr(engine.Resource, name)]
    assert missing == [], "%s does not implement %s" % (cls.__name__, ", ".join(missing))


def test_the_default_drift_is_derived_never_silent():
    class Thing(engine.Resource):
        kind = drift_kind = "thing"
        scopes = ("active",)

    class Module(object):
        params = {}

    change = engine.Change("t1", [])
    rows = Thing(Module()).drift({"active": {"mtu": 1500}}, {"active": {"mtu": 9000}}, change)
    assert rows == [("t1", "active", "mtu 1500 -> 9000")]
