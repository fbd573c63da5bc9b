# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""lsmod (kmod): ``Module                  Size  Used by`` then ``%-19s %8lu  %d[ holders]`` per module,
from ``/proc/modules`` (emulated by the zlab FUSE daemon), most recently loaded first."""

import sys

from . import _kmod, _paths

TOOL = "lsmod"


def main(argv=None):
    return _paths.run(TOOL, _main, argv)


def _main(argv):
    if argv:
        sys.stderr.write("Usage: lsmod\n")
        return 1
    sys.stdout.write("Module                  Size  Used by\n")
    for name, size, refcnt, holders in _kmod.loaded():
        line = "%-19s %8d  %d" % (name, size, refcnt)
        if holders:
            line += " " + ",".join(holders)
        sys.stdout.write(line + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
