# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""depmod (kmod): nothing to compute for the emulated module catalogue; accepts the usual
arguments and succeeds."""

import sys

from . import _kmod, _paths

TOOL = "depmod"


def main(argv=None):
    return _paths.run(TOOL, _main, argv)


def _main(argv):
    if any(a in ("-V", "--version") for a in argv):
        sys.stdout.write(_kmod.VERSION)
    return 0


if __name__ == "__main__":
    sys.exit(main())
