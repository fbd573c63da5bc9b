# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Runs a module's main() in-process with AnsibleModule's exits and command calls faked."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from unittest import mock

from ansible.module_utils import basic
from ansible.module_utils.testing import patch_module_args


class ModuleExit(Exception):
    def __init__(self, result, failed):
        super(ModuleExit, self).__init__(result.get("msg", ""))
        self.result = result
        self.failed = failed


def _exit_json(self, **kwargs):
    kwargs.setdefault("changed", False)
    kwargs["warnings"] = list(getattr(self, "_test_warnings", []))
    raise ModuleExit(kwargs, False)


def _fail_json(self, msg, **kwargs):
    kwargs["msg"] = msg
    kwargs["failed"] = True
    raise ModuleExit(kwargs, True)


def _warn(self, warning):
    if not hasattr(self, "_test_warnings"):
        self._test_warnings = []
    self._test_warnings.append(warning)


def run_module(main, args, run_command, check_mode=False, diff=False, bin_paths=None):
    """Run ``main`` with ``args``; ``run_command(argv) -> (rc, out, err)`` fakes the commands.

    Returns the ModuleExit (``.result``, ``.failed``).
    """
    args = dict(args)
    args["_ansible_check_mode"] = check_mode
    args["_ansible_diff"] = diff
    bin_paths = bin_paths or {}

    def fake_run(self, argv, **kwargs):
        return run_command(list(argv))

    def fake_bin(self, name, required=False, opt_dirs=None):
        return bin_paths.get(name, "/usr/sbin/%s" % name)

    with patch_module_args(args), \
            mock.patch.object(basic.AnsibleModule, "exit_json", _exit_json), \
            mock.patch.object(basic.AnsibleModule, "fail_json", _fail_json), \
            mock.patch.object(basic.AnsibleModule, "warn", _warn), \
            mock.patch.object(basic.AnsibleModule, "run_command", fake_run), \
            mock.patch.object(basic.AnsibleModule, "get_bin_path", fake_bin):
        try:
            main()
        except ModuleExit as exc:
            return exc
    raise AssertionError("the module returned without exit_json/fail_json")
