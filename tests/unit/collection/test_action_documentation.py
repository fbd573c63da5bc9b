# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every action plugin is documented by the file of its name in plugins/modules, and that
documentation states the options the action validates: the same names, types, defaults, choices."""

from __future__ import annotations

import importlib
import os

import yaml

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
KEYS = ("type", "default", "choices", "required", "elements")


def _actions():
    return sorted(f[:-3] for f in os.listdir(os.path.join(REPO, "plugins", "action")) if f.endswith(".py"))


def test_each_action_has_a_module_that_documents_its_argument_spec():
    names = _actions()
    assert "smc_plan" in names
    for name in names:
        action = importlib.import_module("ansible_collections.s390x.network.plugins.action." + name)
        module = importlib.import_module("ansible_collections.s390x.network.plugins.modules." + name)
        doc = yaml.safe_load(module.DOCUMENTATION)
        assert doc["module"] == name
        assert yaml.safe_load(module.EXAMPLES) and yaml.safe_load(module.RETURN)
        assert "main" not in vars(module), "%s: the module of an action only documents it" % name
        options = doc["options"]
        assert sorted(options) == sorted(action.ARGUMENT_SPEC), name
        for option, spec in action.ARGUMENT_SPEC.items():
            documented = dict((k, options[option][k]) for k in KEYS if k in options[option])
            declared = dict((k, spec[k]) for k in KEYS if k in spec)
            assert documented == declared, "%s: option %s" % (name, option)


def test_the_task_counter_counts_each_action_as_a_controller_task():
    # benchmarks/fleet/callback_plugins/fleet_counts.py: the task budget and the benchmark's floor
    # (K pings per host, K = the remote calls) count these as controller tasks
    path = os.path.join(REPO, "benchmarks", "fleet", "callback_plugins", "fleet_counts.py")
    with open(path) as handle:
        text = handle.read()
    for name in _actions():
        assert '"s390x.network.%s"' % name in text, name
