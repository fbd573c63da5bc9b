# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Wrapper of a real s390-tools program in a lab host (``/usr/sbin/chzdev`` and the other
``zlab.s390tools.FAULTABLE`` tools): an injected fault first, then the real program.

``zlab fault HOST tool NAME ...``: the run sleeps ``--sleep`` seconds; then, without an exit code,
the real program runs as usual; with one, it exits with it (after ``--stderr``). With
``--half-way`` the real program first does part of the work, as :data:`HALF_WAY` defines per tool,
with its output passed through; its own exit status is not reported.
"""

import math
import os
import subprocess
import sys

from . import _paths

# chzdev options that take the next argument as their value (so it is no device ID or setting)
_CHZDEV_VALUE_OPTS = {
    "-r",
    "--remove",
    "--site",
    "--export",
    "--import",
    "--base",
    "--by-path",
    "--by-node",
    "--by-interface",
    "--by-attrib",
    "-H",
    "--help-attribute",
}
_CHZDEV_SCOPE_OPTS = {"-a", "--active", "-p", "--persistent"}


def chzdev_half(args):
    """The part of a chzdev call that a half-way fault runs (argv without argv[0]):

    - two or more ATTR=VALUE settings: only the first half (rounded up), options, device type and
      IDs unchanged (``-e qeth ID layer2=1 buffer_count=128`` -> ``-e qeth ID layer2=1``);
    - else, when it changes both configurations (no -a/-p): the active one only (``-a`` added: no
      udev rule is written or removed);
    - else the whole call.
    """
    settings, scoped, value_next, positional = [], False, False, False
    for i, arg in enumerate(args):
        if value_next:
            value_next = False
            continue
        if not positional and arg == "--":
            positional = True
            continue
        if not positional and arg.startswith("--"):
            name = arg.split("=", 1)[0]
            scoped = scoped or name in _CHZDEV_SCOPE_OPTS
            value_next = name in _CHZDEV_VALUE_OPTS and "=" not in arg
            continue
        if not positional and arg.startswith("-") and arg != "-":
            for j, c in enumerate(arg[1:]):  # a cluster such as -ea or -pr ATTR
                scoped = scoped or c in "ap"
                if "-" + c in _CHZDEV_VALUE_OPTS:
                    value_next = j == len(arg) - 2  # else the value is the rest of the cluster
                    break
            continue
        if "=" in arg:
            settings.append(i)
    if len(settings) >= 2:
        drop = set(settings[math.ceil(len(settings) / 2) :])
        return [a for i, a in enumerate(args) if i not in drop]
    if not scoped:
        return ["-a"] + list(args)
    return list(args)


# tool -> the part of a call that `zlab fault HOST tool NAME EXIT --half-way` runs first
HALF_WAY = {"chzdev": chzdev_half}


def main(name, real, argv=None):
    argv = list(sys.argv if argv is None else argv)
    os.environ.setdefault("ZLAB_STATE_DIR", _paths.DEFAULT_STATE_DIR)
    fault = _paths.take_fault(name)
    if fault is None or fault.get("exit_code") is None:
        os.execv(real, [argv[0]] + argv[1:])
    if fault.get("half_way") and name in HALF_WAY:
        sys.stdout.flush()
        subprocess.run([argv[0]] + HALF_WAY[name](argv[1:]), executable=real, check=False)
    _paths.fault_stderr(fault)
    return int(fault["exit_code"])
