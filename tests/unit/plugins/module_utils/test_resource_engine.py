# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The resource engine: order of the hooks, check mode, result shape, failure with rollback."""

from __future__ import absolute_import, division, print_function

import pytest

from ansible_collections.s390x.network.plugins.module_utils.engine import drift_text
from ansible_collections.s390x.network.plugins.module_utils.engine import resource as engine


class Done(Exception):
    def __init__(self, failed, result):
        super(Done, self).__init__(result.get("msg"))
        self.failed = failed
        self.result = result


class FakeModule(object):
    def __init__(self, params, check_mode=False, diff=False):
        self.params = params
        self.check_mode = check_mode
        self._diff = diff
        self.warnings = []

    def warn(self, text):
        self.warnings.append(text)

    def exit_json(self, **result):
        raise Done(False, result)

    def fail_json(self, **result):
        raise Done(True, result)


class Keys(engine.Resource):
    """A toy resource: keys with values in a dict (the 'host'); steps are actions on it."""

    kind = "key"
    drift_kind = "key"
    scopes = ("active",)

    def __init__(self, module, host, fail_on=None, stuck=()):
        super(Keys, self).__init__(module)
        self.host = host
        self.fail_on = fail_on
        self.stuck = stuck
        self.reads = 0

    def validate(self):
        return [
            "config.%s: value must be a string" % k for k, v in self.params["config"].items() if not isinstance(v, str)
        ]

    def render(self):
        return ["set %s=%s" % kv for kv in sorted(self.params["config"].items())]

    def read(self):
        self.reads += 1
        return dict(self.host)

    def gather(self, current):
        return [{"key": k, "value": v} for k, v in sorted(current.items())]

    def _set(self, key, value):
        def act():
            if key == self.fail_on:
                self.host[key] = "half"
                raise OSError(5, "Input/output error")
            if key not in self.stuck:
                self.host[key] = value

        return act

    def plan(self, current):
        changes = []
        for key, value in sorted(self.params["config"].items()):
            steps = (
                []
                if current.get(key) == value
                else [engine.Step(action=self._set(key, value), text="set %s=%s" % (key, value), scope="active")]
            )
            changes.append(engine.Change(key, steps, want=value))
        return changes

    def guard(self, current, changes):
        if any(c.subject == "mgmt" and c.steps for c in changes):
            raise engine.ResourceError("mgmt is in use", commands=[])

    def predict(self, current, changes):
        out = dict(current)
        out.update((c.subject, c.want) for c in changes)
        return out

    def view(self, state, change):
        return {"active": {"value": state[change.subject]} if change.subject in state else None}

    def public_view(self, state, change):
        return {"key": change.subject, "value": state.get(change.subject)}

    def rollback(self, before, now, change, ran):
        old = before.get(change.subject)
        return [
            engine.Step(
                action=self._restore(change.subject, old), text="restore %s=%s" % (change.subject, old), kind="rollback"
            )
        ]

    def _restore(self, key, value):
        def act():
            self.host[key] = value

        return act

    def remaining(self, after, change):
        return [] if after.get(change.subject) == change.want else [engine.Step(action=lambda: None, text="again")]


def run(params, host, check=False, diff=False, **kw):
    module = FakeModule(dict(params), check_mode=check, diff=diff)
    resource = Keys(module, host, **kw)
    with pytest.raises(Done) as info:
        engine.run(module, resource)
    return info.value, resource, module


def test_validation_fails_before_the_host_is_read():
    done, resource, _m = run({"state": "merged", "config": {"a": 1}}, {})
    assert done.failed and done.result["msg"] == "config.a: value must be a string"
    assert resource.reads == 0


def test_rendered_and_gathered_change_nothing():
    done, resource, _m = run({"state": "rendered", "config": {"b": "2", "a": "1"}}, {})
    assert done.result == {"changed": False, "rendered": ["set a=1", "set b=2"], "commands": [], "drift": []}
    assert resource.reads == 0
    host = {"a": "1"}
    done, _r, _m = run({"state": "gathered", "config": {}}, host)
    assert done.result["gathered"] == [{"key": "a", "value": "1"}] and host == {"a": "1"}


def test_check_mode_predicts_reports_drift_and_diff_and_touches_nothing():
    host = {"a": "1", "b": "x"}
    done, _r, _m = run({"state": "merged", "config": {"a": "1", "b": "2"}}, host, check=True, diff=True)
    res = done.result
    assert not done.failed and res["changed"] is True and host == {"a": "1", "b": "x"}
    assert res["commands"] == ["set b=2"]
    assert res["before"] == [{"key": "a", "value": "1"}, {"key": "b", "value": "x"}]
    assert res["after"] == [{"key": "a", "value": "1"}, {"key": "b", "value": "2"}]
    assert res["drift"] == [{"kind": "key", "object": "b", "scope": "active", "difference": "value x -> 2"}]
    assert res["diff"]["before"] == "a\n  active:\n    value: 1\nb\n  active:\n    value: x\n"
    assert res["diff"]["after"] == "a\n  active:\n    value: 1\nb\n  active:\n    value: 2\n"


def test_drift_rows_are_derived_from_the_views():
    done, _r, _m = run({"state": "merged", "config": {"new": "1"}}, {"old": "x"}, check=True, diff=True)
    assert done.result["drift"] == [{"kind": "key", "object": "new", "scope": "active", "difference": "missing"}]
    assert done.result["diff"]["before"] == "new\n  active: (none)\n"
    change = engine.Change("gone", [])
    resource = Keys(FakeModule({}), {})
    assert resource.drift(resource.view({"gone": "1"}, change), resource.view({}, change), change) == [
        ("gone", "active", "to remove")
    ]


def test_apply_reads_back_and_a_second_run_is_a_no_op():
    host = {"b": "x"}
    done, resource, module = run({"state": "merged", "config": {"b": "2"}}, host)
    assert host == {"b": "2"} and done.result["changed"] and done.result["commands"] == ["set b=2"]
    assert done.result["after"] == [{"key": "b", "value": "2"}] and module.warnings == []
    assert resource.reads == 2  # before and after
    again, _r, _m = run({"state": "merged", "config": {"b": "2"}}, host)
    assert again.result["changed"] is False and again.result["commands"] == [] and again.result["drift"] == []


def test_guard_refuses_before_any_step():
    host = {"mgmt": "up"}
    done, _r, _m = run({"state": "merged", "config": {"mgmt": "down"}}, host)
    assert done.failed and done.result == {"msg": "mgmt is in use", "commands": []} and host == {"mgmt": "up"}


def test_a_failed_step_is_rolled_back_and_reported():
    host = {"a": "old", "b": "old"}
    done, _r, _m = run({"state": "merged", "config": {"a": "new", "b": "new"}}, host, fail_on="b")
    res = done.result
    assert done.failed
    assert host == {"a": "new", "b": "old"}  # b restored from "half"; a stays new: old or new, never half
    assert res["commands"] == ["set a=new", "set b=new"]
    assert res["rollback"] == {"commands": ["restore b=old"], "ok": True, "errors": []}
    assert res["msg"].startswith("key b: set b=new failed (exit code 1): ")
    assert res["msg"].endswith("; previous state restored (restore b=old)")
    assert res["after"] == [{"key": "a", "value": "new"}, {"key": "b", "value": "old"}]
    assert res["changed"] is True  # a is new


def test_a_first_change_put_back_is_not_a_change():
    host = {"b": "old"}
    done, _r, _m = run({"state": "merged", "config": {"b": "new"}}, host, fail_on="b")
    assert done.failed and host == {"b": "old"} and done.result["changed"] is False


class Prepared(Keys):
    """Keys whose host needs a module loaded before it can be read; rollback steps that fail."""

    rollback_continues = True

    def prepare(self):
        if not self.module.check_mode:
            self.host["loaded"] = "yes"
        return ["load"]

    def rollback(self, before, now, change, ran):
        def refuse():
            raise OSError(16, "Device or resource busy")

        return [
            engine.Step(action=refuse, text="first way", kind="rollback"),
            engine.Step(
                action=self._restore(change.subject, before.get(change.subject)), text="second way", kind="rollback"
            ),
        ]


def test_prepare_runs_first_counts_as_a_change_and_only_pretends_in_check_mode():
    host = {}
    module = FakeModule({"state": "merged", "config": {}}, check_mode=True)
    with pytest.raises(Done) as info:
        engine.run(module, Prepared(module, host))
    assert info.value.result["changed"] is True and info.value.result["commands"] == ["load"] and host == {}
    module = FakeModule({"state": "merged", "config": {"a": "1"}})
    with pytest.raises(Done) as info:
        engine.run(module, Prepared(module, host))
    assert info.value.result["commands"] == ["load", "set a=1"] and host == {"loaded": "yes", "a": "1"}


def test_a_rollback_that_continues_runs_every_step_and_reports_each_error():
    host = {"b": "old"}
    module = FakeModule({"state": "merged", "config": {"b": "new"}})
    with pytest.raises(Done) as info:
        engine.run(module, Prepared(module, host, fail_on="b"))
    res = info.value.result
    assert host == {"b": "old", "loaded": "yes"}
    assert res["rollback"]["commands"] == ["first way", "second way"] and res["rollback"]["ok"] is False
    assert len(res["rollback"]["errors"]) == 1 and "first way" in res["rollback"]["errors"][0]
    assert res["changed"] is True  # load ran


def test_an_object_that_still_differs_after_the_run_is_a_warning():
    host = {"a": "old"}
    done, _r, module = run({"state": "merged", "config": {"a": "new"}}, host, stuck=("a",))
    assert not done.failed and host == {"a": "old"}
    assert module.warnings == ["key a still differs after the module ran; the next run would run: again"]
    assert done.result["drift"] == []  # read back: nothing changed


def test_a_step_has_argv_or_action():
    with pytest.raises(ValueError):
        engine.Step()
    assert engine.Step(argv=["/usr/sbin/chzdev", "-e", "qeth", "a b"]).command == "chzdev -e qeth 'a b'"


def test_view_drift_writes_one_wording():
    rows = drift_text.view_drift(
        "obj",
        {"active": {"a": 1, "b": ["x"], "c": True}, "persistent": {"f": drift_text.Content("old\n")}},
        {"active": {"a": 2, "b": [], "c": True, "d": "new"}, "persistent": {"f": drift_text.Content("new\n")}},
        ("active", "persistent"),
    )
    assert rows == [
        ("obj", "active", "a 1 -> 2, b x -> none, d - -> new"),
        ("obj", "persistent", "f differs"),
    ]
    assert drift_text.view_drift(
        "obj", {"persistent": {"f": None}}, {"persistent": {"f": drift_text.Content("")}}, ("persistent",)
    ) == [("obj", "persistent", "f missing")]
    # a scope the resource does not declare is not compared
    assert drift_text.view_drift("obj", {"other": 1}, {"other": 2}, ("active",)) == []
