# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A host that must not be touched: the bad-input batteries run modules against it.

Every way a module reaches its host goes through one of these, and each of them is replaced by
one that records the access and raises ``HostAccess``: ``host_files.path`` (every read and write
of ``/sys``, ``/proc``, ``/etc`` and ``/run``, ``kernel_write`` included), ``kernel_write``
itself, ``AnsibleModule.run_command`` and ``get_bin_path`` (a tool lookup or run), the libvirt
connection, and the kernel release from ``uname``. ``HostAccess`` is not an ``OSError``, so no
module catches it on the way: a module that reads its host before it refuses bad input ends
with it instead of with ``fail_json``, and ``accesses`` lists what it reached.
"""

from __future__ import absolute_import, division, print_function

import platform

from ansible_collections.s390x.network.plugins.module_utils.engine import host_files
from ansible_collections.s390x.network.plugins.module_utils.engine import kernel_write
from ansible_collections.s390x.network.plugins.module_utils.libvirt import conn as libvirt_conn


class HostAccess(AssertionError):
    """A module reached its host while it should only have checked its input."""


class _NoTools(dict):
    """``bin_paths`` of ``run_module`` whose every lookup is a host access."""

    def __init__(self, guard):
        super(_NoTools, self).__init__()
        self.guard = guard

    def __bool__(self):
        return True  # run_module replaces an empty mapping by its own

    def get(self, name, default=None):
        self.guard.touch("tool lookup", name)


class HostGuard(object):
    def __init__(self, monkeypatch, run_module):
        self.accesses = []
        self._run_module = run_module
        monkeypatch.setattr(host_files, "path", lambda p: self.touch("host path", p))
        monkeypatch.setattr(kernel_write, "write_value", lambda p, value: self.touch("kernel write", p))
        monkeypatch.setattr(platform, "release", lambda: self.touch("uname", "release"))
        monkeypatch.setattr(libvirt_conn, "HAS_LIBVIRT", True)
        monkeypatch.setattr(libvirt_conn, "Hypervisor", lambda uri: self.touch("libvirt connection", uri))

    def touch(self, kind, what):
        self.accesses.append((kind, what))
        raise HostAccess("%s: %s" % (kind, what))

    def run(self, main, args, check_mode=False):
        """Run ``main`` with ``args``; the result of a module that ended with ``fail_json`` or
        ``exit_json`` (a HostAccess propagates)."""
        out = self._run_module(
            main,
            args,
            run_command=lambda argv: self.touch("command", " ".join(argv)),
            check_mode=check_mode,
            bin_paths=_NoTools(self),
        )
        return out.result

    def refuses(self, main, args, fragments, check_mode=False):
        """``main`` fails on ``args`` with a message holding every fragment, having reached nothing."""
        result = self.run(main, args, check_mode=check_mode)
        assert result.get("failed"), "accepted: %r" % (result,)
        for fragment in fragments:
            assert fragment in result["msg"], "%r not in %r" % (fragment, result["msg"])
        assert self.accesses == [], self.accesses
        return result
