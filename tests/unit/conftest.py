# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fixtures every unit test may use.

``run_module``: runs a module's ``main()`` in-process with AnsibleModule's exits, warnings and
command calls faked; returns a ``ModuleExit`` (``.result``, ``.failed``).

``host_root``: an empty host tree (``tmp_path/host``) as the one host root of ``host_files``;
``set_host_root`` points the root at another directory. Either is undone after the test.

``fake_kernel``: a factory for the fake kernel (``tests/unit/fake_kernel.py``) over the host root;
the kernel attribute writes of the modules (``kernel_write.write_value``) go to it.

On ansible-core before 2.19 (no ``ansible.module_utils.testing``) the module arguments are handed
over through ``basic._ANSIBLE_ARGS``, as AnsiballZ does; so the tests run on every core of the
support matrix and under the target Python 3.6 (``mk/matrix.mk``).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import importlib
import json
from unittest import mock

import pytest
from hypothesis import HealthCheck, settings

from ansible.module_utils import basic

try:
    from ansible.module_utils.testing import patch_module_args
except ImportError:
    # ansible-core before 2.19 has no testing helper: AnsibleModule reads the JSON document
    # {"ANSIBLE_MODULE_ARGS": {...}} (bytes) from basic._ANSIBLE_ARGS when it is set, as AnsiballZ sets it.

    def patch_module_args(args=None):
        if not isinstance(args, (dict, type(None))):
            raise TypeError("The `args` arg must be a dict or None.")
        payload = json.dumps({"ANSIBLE_MODULE_ARGS": args or {}}).encode("utf-8")
        return mock.patch.object(basic, "_ANSIBLE_ARGS", payload)


try:
    # ansible-core 2.14 installs its collection finder when its plugin loader is first imported (later
    # cores on request); imported before any ansible_collections import, the finder loads the metadata
    # of the collection, which a test that templates (ansible.template) needs
    importlib.import_module("ansible.plugins.loader")
except ImportError:
    pass  # the target Python 3.6 run has ansible.module_utils only

from ansible_collections.s390x.network.plugins.module_utils.engine import host_files
from ansible_collections.s390x.network.plugins.module_utils.engine import kernel_write
from ansible_collections.s390x.network.tests.unit.fake_kernel import FakeKernel

# `--hypothesis-profile slow-interpreter`: the run under the oldest target Python (3.6, with the last
# hypothesis release for it) generates data more slowly; the examples and every assert stay the same.
settings.register_profile("slow-interpreter", suppress_health_check=[HealthCheck.too_slow], deadline=None)


class ModuleExit(Exception):
    """How a module ended: ``result`` (with ``failed`` and ``warnings``), ``failed``."""

    def __init__(self, result, failed):
        super(ModuleExit, self).__init__(result.get("msg", ""))
        self.result = result
        self.failed = failed


def _warnings(module):
    return list(getattr(module, "_test_warnings", []))


def _exit_json(self, **kwargs):
    kwargs.setdefault("changed", False)
    kwargs["failed"] = False
    kwargs["warnings"] = _warnings(self)
    raise ModuleExit(kwargs, False)


def _fail_json(self, msg, **kwargs):
    kwargs["msg"] = msg
    kwargs["failed"] = True
    kwargs["warnings"] = _warnings(self)
    raise ModuleExit(kwargs, True)


def _warn(self, warning):
    if not hasattr(self, "_test_warnings"):
        self._test_warnings = []
    self._test_warnings.append(warning)


def _no_command(argv):
    raise AssertionError("unexpected command %r" % (argv,))


def run_module_main(main, args, run_command=None, check_mode=False, diff=False, bin_paths=None):
    """Run ``main`` with the module arguments ``args``.

    ``run_command(argv) -> (rc, out, err)`` answers the module's commands (none expected when not
    given); ``bin_paths``: name -> path (None: not installed) for ``get_bin_path``, by default
    ``/usr/sbin/<name>``. Returns the ModuleExit.
    """
    args = dict(args)
    args["_ansible_check_mode"] = check_mode
    args["_ansible_diff"] = diff
    bin_paths = bin_paths or {}
    runner = run_command or _no_command

    def fake_run(self, argv, **kwargs):
        # tool output is parsed, so every command of every module runs in the C locale
        assert (kwargs.get("environ_update") or {}).get("LC_ALL") == "C", "%s runs without LC_ALL=C" % (argv,)
        return runner(list(argv))

    def fake_bin(self, name, required=False, opt_dirs=None):
        return bin_paths.get(name, "/usr/sbin/%s" % name)

    with patch_module_args(args), mock.patch.object(basic.AnsibleModule, "exit_json", _exit_json), mock.patch.object(
        basic.AnsibleModule, "fail_json", _fail_json
    ), mock.patch.object(basic.AnsibleModule, "warn", _warn), mock.patch.object(
        basic.AnsibleModule, "run_command", fake_run
    ), mock.patch.object(
        basic.AnsibleModule, "get_bin_path", fake_bin
    ):
        try:
            main()
        except ModuleExit as exc:
            return exc
    raise AssertionError("the module returned without exit_json/fail_json")


@pytest.fixture
def run_module():
    """``run_module(main, args, run_command=None, check_mode=False, diff=False, bin_paths=None)``."""
    return run_module_main


@pytest.fixture
def set_host_root(monkeypatch):
    """``set_host_root(directory)``: the modules read and write the host below ``directory``."""

    def point(directory):
        monkeypatch.setattr(host_files, "ROOT", str(directory))
        return directory

    return point


@pytest.fixture
def host_root(tmp_path, set_host_root):
    """An empty host tree (a pathlib.Path) that is the host root for the test."""
    root = tmp_path / "host"
    root.mkdir()
    return set_host_root(root)


@pytest.fixture
def fake_kernel(host_root, monkeypatch):
    """``fake_kernel(functions=(), drivers=("ism", "mlx5_core"), address_of=None)``: a FakeKernel over
    the current host root that takes the kernel attribute writes."""

    def make(*args, **kwargs):
        kernel = FakeKernel(*args, **kwargs)
        monkeypatch.setattr(kernel_write, "write_value", kernel.write_value)
        return kernel

    return make
