# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The YAML case runner (yaml_cases.py) on a module of a few lines: answered commands, files, and
the expectations that must fail when the module does something else."""

from __future__ import absolute_import, division, print_function

import pytest
from ansible.module_utils.basic import AnsibleModule

from ansible_collections.s390x.network.plugins.module_utils.engine import host_files
from ansible_collections.s390x.network.tests.unit.plugins.modules.yaml_cases import run_case


def tool_main():
    """Runs ``tool show``, writes its output to /etc/out unless it is there, reports what ran."""
    module = AnsibleModule(argument_spec=dict(), supports_check_mode=True)
    rc, out, err = module.run_command(["/usr/sbin/tool", "show"], environ_update={"LC_ALL": "C"})
    if rc != 0:
        module.fail_json(msg="tool show failed: %s" % err.strip())
    if host_files.read_text("/etc/out") == out:
        module.exit_json(changed=False, commands=[])
    if not module.check_mode:
        host_files.write_atomic("/etc/out", out)
    module.exit_json(changed=True, commands=["write /etc/out"])


ANSWERED = {"tool show": [0, "state 1\n", ""]}


def case(**kwargs):
    return dict(dict(name="case", params={}, answers=ANSWERED), **kwargs)


def test_answers_files_and_a_second_run(run_module, host_root):
    result = run_case(
        run_module,
        tool_main,
        case(expect={"changed": True, "commands": ["write /etc/out"], "ran": ["tool show"], "idempotent": True}),
    )
    assert (host_root / "etc" / "out").read_text() == "state 1\n"
    assert result["ran"] == ["tool show"]


def test_a_command_without_an_answer_fails_the_module(run_module, host_root):
    run_case(
        run_module, tool_main, case(answers={}, expect={"failed": True, "msg_contains": ["no answer for tool show"]})
    )


@pytest.mark.parametrize(
    "expect",
    [
        {"changed": False},
        {"commands": []},
        {"ran": []},
        {"files": {"/etc/out": "state 2\n"}},
        {"files": {"/etc/out": None}},
        {"failed": True},
        {"check_mode_typo": True},
        {},
    ],
    ids=["changed", "commands", "ran", "file text", "file absent", "failed", "unknown key", "nothing"],
)
def test_an_expectation_the_run_does_not_meet_fails_the_case(run_module, host_root, expect):
    with pytest.raises(AssertionError):
        run_case(run_module, tool_main, case(expect=expect))


def test_a_second_run_that_changes_again_fails_the_case(run_module, host_root):
    answers = {"tool show": [0, "state 1\n", ""]}

    def changing_main():
        try:
            tool_main()
        finally:
            answers["tool show"] = [0, "state 2\n", ""]  # the host moves on after every run

    with pytest.raises(AssertionError):
        run_case(run_module, changing_main, case(answers=answers, expect={"changed": True, "idempotent": True}))
    assert (host_root / "etc" / "out").read_text() == "state 2\n"  # the second run changed the host
