# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Planning: drift per scope, command order, rollback plans, predictions, and the planning time."""

from __future__ import absolute_import, division, print_function

import itertools

import pytest

from ansible_collections.s390x.network.plugins.module_utils.qeth.plan import (
    Desired,
    PlanError,
    active_diff,
    build_desired,
    persistent_diff,
    plan_delete,
    plan_device,
    plan_rollback,
    predict,
)
from ansible_collections.s390x.network.plugins.module_utils.qeth.state import DeviceState

IDS = ("0.0.8200", "0.0.8201", "0.0.8202")
GID = "0.0.8200:0.0.8201:0.0.8202"


def dev(online=True, active=None, rule=None, exists=True):
    d = DeviceState("0.0.8200")
    d.ids = IDS
    d.exists = exists
    d.active = dict(active or {})
    if exists:
        d.active["online"] = "1" if online else "0"
    d.info = {"card_type": "HiperSockets", "if_name": "enc8200" if online and exists else None}
    d.persistent = rule
    return d


def cmds(steps):
    return [s.command for s in steps]


def want(**settings):
    online = settings.pop("online", True)
    return Desired("0.0.8200", IDS, online=online, settings=settings)


@pytest.mark.parametrize("order", list(itertools.permutations(["layer2", "buffer_count", "portno"])))
def test_every_order_of_offline_only_attributes_gives_the_same_commands(order):
    values = {"layer2": "1", "buffer_count": "128", "portno": "0"}
    w = Desired("0.0.8200", IDS, settings=dict((k, values[k]) for k in order))
    steps = plan_device(dev(active={"layer2": "0", "buffer_count": "64", "portno": "1"}), w, "both", "chzdev")
    assert cmds(steps) == [
        "chzdev -a qeth %s online=0" % GID,
        "chzdev -e qeth %s layer2=1 buffer_count=128 portno=0" % GID,
    ]
    assert [s.disruptive for s in steps] == [True, False]


def test_offline_only_attribute_never_on_a_device_that_stays_online():
    """Whatever drifted, no command that keeps the device online carries an offline-only attribute
    in the active scope unless an earlier command took the device offline (chzdev exit 9 otherwise)."""
    offline_only = ("layer2", "buffer_count", "portno")
    choices = {"layer2": ("0", "1"), "buffer_count": ("64", "128"), "portno": ("0", "1"), "isolation": ("none", "drop")}
    for current in itertools.product(*choices.values()):
        active = dict(zip(choices, current))
        for rule in (None, {"online": "1", "layer2": "1", "buffer_count": "128", "portno": "0", "isolation": "drop"}):
            w = Desired(
                "0.0.8200", IDS, settings={"layer2": "1", "buffer_count": "128", "portno": "0", "isolation": "drop"}
            )
            steps = plan_device(dev(active=active, rule=rule), w, "both", "chzdev")
            offline = False
            for step in steps:
                if step.argv[-1] == "online=0" and step.scope == "active":
                    offline = True
                    continue
                if step.scope in ("both", "active") and not offline:
                    assert not any(a.split("=")[0] in offline_only for a in step.argv[3:]), step.command


def test_no_drift_no_steps():
    d = dev(active={"layer2": "1", "buffer_count": "128"}, rule={"online": "1", "layer2": "1", "buffer_count": "128"})
    assert plan_device(d, want(layer2="1", buffer_count="128"), "both", "chzdev") == []
    assert active_diff(d, want(layer2="1")) == {}
    assert persistent_diff(d, want(layer2="1")) == {}


def test_scopes_are_compared_separately():
    d = dev(active={"layer2": "1", "buffer_count": "128"}, rule=None)
    w = want(layer2="1", buffer_count="128")
    assert active_diff(d, w) == {}
    assert persistent_diff(d, w) == {"rule": (None, "created")}
    assert plan_device(d, w, "active", "chzdev") == []
    assert cmds(plan_device(d, w, "persistent", "chzdev")) == ["chzdev -e -p qeth %s layer2=1 buffer_count=128" % GID]


def test_delete_plans():
    assert cmds(plan_delete(dev(rule={"online": "1"}), GID, "both", "chzdev")) == ["chzdev -d -y qeth %s" % GID]
    assert cmds(plan_delete(dev(rule=None), GID, "persistent", "chzdev")) == []
    assert cmds(plan_delete(dev(exists=False, rule={"online": "1"}), GID, "both", "chzdev")) == [
        "chzdev -d -p -y qeth %s" % GID
    ]
    assert plan_delete(None, GID, "both", "chzdev") == []
    assert plan_delete(dev(), GID, "both", "chzdev")[0].disruptive is True


def test_rollback_plan_from_offline_half_state():
    before = dev(active={"layer2": "0", "buffer_count": "64"})
    now = dev(online=False, active={"layer2": "1", "buffer_count": "128"})
    steps = plan_rollback(before, now, {"layer2", "buffer_count"}, "chzdev")
    assert cmds(steps) == ["chzdev -e -a qeth %s layer2=0 buffer_count=64" % GID]
    assert all(s.kind == "rollback" for s in steps)


def test_rollback_plan_online_with_partial_changes():
    before = dev(active={"layer2": "0", "buffer_count": "64"})
    now = dev(active={"layer2": "1", "buffer_count": "64"})
    assert cmds(plan_rollback(before, now, {"layer2", "buffer_count"}, "chzdev")) == [
        "chzdev -a qeth %s online=0" % GID,
        "chzdev -e -a qeth %s layer2=0" % GID,
    ]


def test_rollback_of_a_device_that_was_not_grouped():
    before = dev(exists=False)
    now = dev(online=False, active={"layer2": "1"})
    assert cmds(plan_rollback(before, now, {"layer2"}, "chzdev")) == ["chzdev -d -a -y qeth %s" % GID]
    assert plan_rollback(before, dev(exists=False), {"layer2"}, "chzdev") == []


def test_predict_matches_plan():
    d = dev(active={"layer2": "0", "buffer_count": "64"}, rule={"online": "1", "layer2": "0", "hw_trap": "arm"})
    w = want(layer2="1", buffer_count="128")
    after = predict(d, w, "both", DeviceState)
    assert after.active["layer2"] == "1" and after.active["online"] == "1"
    assert after.persistent == {"online": "1", "layer2": "1", "buffer_count": "128", "hw_trap": "arm"}
    assert plan_device(after, w, "both", "chzdev") == []
    assert d.active["layer2"] == "0"  # the input is not modified


def test_build_desired_replaced_and_errors():
    d = dev(
        active={"layer2": "1", "buffer_count": "64", "hw_trap": "arm"},
        rule={"online": "1", "layer2": "1", "hw_trap": "arm", "route4": "no_router"},
    )
    w = build_desired(
        {"id": "0.0.8200", "buffer_count": 128, "online": True},
        "0.0.8200",
        IDS,
        d,
        "replaced",
        "HiperSockets",
        "config[0]",
    )
    assert w.settings == {"buffer_count": "128", "layer2": "0", "portno": "0"}
    assert w.defaulted == {"layer2", "portno"}
    assert w.persistent_removes == ["hw_trap", "route4"]
    assert w.active_resets == {"hw_trap": "disarm"}
    merged = build_desired(
        {"id": "x", "isolation": "none", "online": None}, "0.0.8200", IDS, d, "merged", "HiperSockets", "c"
    )
    assert merged.settings == {} and merged.online is True
    with pytest.raises(PlanError) as err:
        build_desired(
            {"id": "x", "buffer_count": 1, "portno": 3, "attributes": {"layer2": True}},
            "0.0.8200",
            IDS,
            None,
            "merged",
            None,
            "config[2] (id x)",
        )
    text = str(err.value)
    assert "buffer_count must be between 8 and 128" in text and "portno must be between 0 and 1" in text
    assert "attributes.layer2: use the option 'layer2' instead" in text


# -- cio_ignore ----------------------------------------------------------------------------------


def test_hidden_at_boot_is_persistent_drift_fixed_with_force():
    d = dev(active={"layer2": "1"}, rule={"online": "1", "layer2": "1"})
    d.hidden_at_boot = list(IDS)
    w = want(layer2="1")
    assert persistent_diff(d, w) == {"cio_ignore": (",".join(IDS), "freed")}
    assert active_diff(d, w) == {}
    steps = plan_device(d, w, "both", "chzdev")
    assert cmds(steps) == ["chzdev -e -p --force qeth %s layer2=1" % GID]
    assert not steps[0].disruptive
    assert plan_device(d, w, "active", "chzdev") == []
    after = predict(d, w, "both", DeviceState)
    assert after.hidden_at_boot == [] and plan_device(after, w, "both", "chzdev") == []


def test_hidden_at_boot_with_other_rule_drift_needs_no_force():
    d = dev(active={"layer2": "1"}, rule={"online": "1", "layer2": "0"})
    d.hidden_at_boot = list(IDS)
    assert cmds(plan_device(d, want(layer2="1"), "persistent", "chzdev")) == ["chzdev -e -p qeth %s layer2=1" % GID]


def test_hidden_device_is_configured_by_full_id_and_predicted_free():
    d = dev(exists=False, rule=None)
    d.hidden = list(IDS)
    w = want(layer2="1")
    assert cmds(plan_device(d, w, "both", "chzdev")) == ["chzdev -e qeth %s layer2=1" % GID]
    after = predict(d, w, "persistent", DeviceState)
    assert after.hidden == [] and after.hidden_at_boot == []
