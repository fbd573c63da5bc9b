# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""``smcd ueid`` and ``smcd seid`` (smc-tools 1.7.0 and later): the UEID table through the tool.

The tool's forms (smc-tools ueid.c, seid.c), each one generic netlink request of ``SMC_GEN_NETLINK``:

* ``smcd ueid show`` -- one line per UEID as the kernel stores it (32 characters, blank padded);
* ``smcd ueid add UEID`` / ``smcd ueid del UEID`` / ``smcd ueid flush``; ``del`` of the last UEID
  fails (exit 255) with ``Info: the System EID was activated because the last User EID was removed``
  (the kernel's ``EAGAIN``, a success);
* ``smcd seid show`` -- ``SEID [enabled]``, ``SEID [disabled]``, or ``n/a`` on a system without a
  system EID; ``smcd seid enable`` / ``smcd seid disable``.

smc-tools before 1.7.0 answer ``Error: Object "ueid" is unknown``: ``UnsupportedTool``.
The class offers the methods of ``netlink.SmcNetlink`` that ``ueid_resource`` uses.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import re

from ansible_collections.s390x.network.plugins.module_utils.smc import netlink as smc_netlink

TOOL = "smcd"
LAST_UEID_REMOVED = "the System EID was activated because the last User EID was removed"
_SEID_RE = re.compile(r"(\S+) \[(enabled|disabled)\]")


class ToolError(OSError):
    """A failed ``smcd`` run; the message is the tool's own."""

    def __init__(self, code, message, rc=None, out="", err=""):
        super(ToolError, self).__init__(code, message)
        self.message = message
        self.rc, self.out, self.err = rc, out, err

    def __str__(self):
        return self.message


class UnsupportedTool(ToolError):
    """smc-tools before 1.7.0: ``smcd`` has no ``ueid`` or ``seid`` object."""


def argv_text(args):
    return " ".join([TOOL] + list(args))


class SmcdUeid(object):
    """The UEID commands over ``run(argv) -> (rc, out, err)`` with the ``smcd`` found at ``tool``."""

    def __init__(self, run, tool):
        self.run = run
        self.tool = tool
        self.requests = []

    def close(self):
        pass

    def _smcd(self, args, change=True):
        if change:
            self.requests.append(argv_text(args))
        rc, out, err = self.run([self.tool] + list(args))
        text = (err or out or "").strip()
        if rc != 0 and 'Object "%s" is unknown' % args[0] in text:
            raise UnsupportedTool(
                errno.EOPNOTSUPP, "%s: this smcd has no %s object (smc-tools before 1.7.0)" % (argv_text(args), args[0])
            )
        if rc != 0 and "not loaded" in text and smc_netlink.smc_module_present():
            text += (
                " (but %s exists: the smc module is loaded, and the kernel's SMC lacks the generic netlink "
                "family %s that smcd uses: a kernel older than Linux 5.11, or SMC built without it)"
                % (smc_netlink.SYS_MODULE_SMC, smc_netlink.SMC_GENL_FAMILY_NAME)
            )
        return rc, out, err, text

    def _check(self, args, change=True):
        rc, out, err, text = self._smcd(args, change)
        if rc != 0:
            raise ToolError(errno.EIO, text or "exit code %d" % rc, rc, out, err)
        return out

    def ueids(self):
        """The user EIDs, without their padding blanks, in the kernel's order."""
        out = self._check(["ueid", "show"], change=False)
        return [line.rstrip(" ") for line in out.splitlines() if line.strip()]

    def seid(self):
        """``{"seid", "enabled"}``: both None when the system has no system EID."""
        out = self._check(["seid", "show"], change=False).strip()
        match = _SEID_RE.fullmatch(out)
        if match is None:
            if out == "n/a":
                return {"seid": None, "enabled": None}
            raise ToolError(errno.EPROTO, "%s: unexpected output %r" % (argv_text(["seid", "show"]), out))
        return {"seid": match.group(1), "enabled": match.group(2) == "enabled"}

    def add_ueid(self, ueid):
        self._check(["ueid", "add", smc_netlink.normalize_ueid(ueid)])

    def remove_ueid(self, ueid):
        """Remove one UEID; True when it was the last one and the kernel enabled the system EID."""
        args = ["ueid", "del", smc_netlink.normalize_ueid(ueid)]
        rc, out, err, text = self._smcd(args)
        if rc != 0 and LAST_UEID_REMOVED in text:
            return True
        if rc != 0:
            raise ToolError(errno.EIO, text or "exit code %d" % rc, rc, out, err)
        return False

    def flush_ueids(self):
        self._check(["ueid", "flush"])

    def enable_seid(self):
        self._check(["seid", "enable"])

    def disable_seid(self):
        self._check(["seid", "disable"])
