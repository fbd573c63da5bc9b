# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""smc_run (smc-tools): run a TCP program with the SMC preload library.

``smc_run [-d] [-r SIZE] [-t SIZE] [-v] [-h] COMMAND [ARGS...]``: exports ``SMC_DEBUG`` (0/1),
``SMC_RCVBUF``/``SMC_SNDBUF`` (as given, e.g. ``128k``), raises ``net.core.{r,w}mem_max`` when
smaller than the requested size, appends ``libsmc-preload.so`` to ``LD_PRELOAD``
(``$LD_PRELOAD:libsmc-preload.so``) and execs COMMAND.  Sizes must match ``^[0-9]+[k|K|m|M]?$``.
"""

import os
import re
import sys

from . import _paths, _smc

TOOL = "smc_run"
LIB_NAME = "libsmc-preload.so"
SIZE_RE = re.compile(r"^[0-9]+[k|K|m|M]?$")


def _usage():
    sys.stdout.write(
        "\nUsage: smc_run [ OPTIONS ] COMMAND\n\n"
        "Run COMMAND using SMC for TCP sockets\n\n"
        "   -d         enable debug mode\n"
        "   -h         display this message\n"
        "   -r <SIZE>  request receive buffer size in Bytes\n"
        "   -t <SIZE>  request transmit buffer size in Bytes\n"
        "   -v         display version info\n"
    )


def _bytes(size):
    if size[-1] in "kK":
        return int(size[:-1]) * 1024
    if size[-1] in "mM":
        return int(size[:-1]) * 1048576
    if size[-1] == "|":
        return int(size[:-1])
    return int(size)


def _raise_core_max(which, size):
    path = "/proc/sys/net/core/%s_max" % which
    cur = _paths.read(path)
    try:
        if cur is not None and int(cur.split()[0]) < _bytes(size):
            _paths.write(path, str(_bytes(size)))
    except (OSError, ValueError) as exc:
        sys.stderr.write(
            "sysctl: permission denied on key \"net.core.%s_max\"\n" % which if isinstance(exc, PermissionError) else ""
        )


def main(argv=None):
    return _paths.run(TOOL, _main, argv)


def _main(argv):
    env = dict(os.environ)
    debug = "0"
    i = 0
    # bash getopts "dhr:t:v": options until the first non-option or "--"
    while i < len(argv):
        a = argv[i]
        if a == "--":
            i += 1
            break
        if not a.startswith("-") or a == "-":
            break
        j = 1
        while j < len(a):
            c = a[j]
            if c == "d":
                debug = "1"
            elif c == "h":
                _usage()
                return 0
            elif c == "v":
                sys.stdout.write("smc_run utility, smc-tools-%s\n" % _smc.version())
                return 0
            elif c in "rt":
                if j + 1 < len(a):
                    val = a[j + 1 :]
                else:
                    i += 1
                    if i >= len(argv):
                        sys.stderr.write("%s: option requires an argument -- %s\n" % ("/usr/bin/smc_run", c))
                        sys.stdout.write("smc_run: Error: Invalid option: -\n")
                        return 1
                    val = argv[i]
                if not SIZE_RE.match(val):
                    sys.stdout.write("Error: Invalid buffer size specified: '%s'\n" % val)
                    return 1
                if c == "r":
                    _raise_core_max("rmem", val)
                    env["SMC_RCVBUF"] = val
                else:
                    _raise_core_max("wmem", val)
                    env["SMC_SNDBUF"] = val
                break
            else:
                sys.stderr.write("/usr/bin/smc_run: illegal option -- %s\n" % c)
                sys.stdout.write("smc_run: Error: Invalid option: -\n")
                return 1
            j += 1
        i += 1
    cmd = argv[i:]
    if not cmd:
        sys.stdout.write("smc_run: Error: Missing command parameter\n")
        return 1
    env["SMC_DEBUG"] = debug
    env["LD_PRELOAD"] = "%s:%s" % (os.environ.get("LD_PRELOAD", ""), LIB_NAME)
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execvpe(cmd[0], cmd, env)
    except FileNotFoundError:
        sys.stderr.write("/usr/bin/smc_run: line 77: exec: %s: not found\n" % cmd[0])
        return 127
    except PermissionError:
        sys.stderr.write("/usr/bin/smc_run: line 77: %s: Permission denied\n" % cmd[0])
        return 126
    return 0


if __name__ == "__main__":
    sys.exit(main())
