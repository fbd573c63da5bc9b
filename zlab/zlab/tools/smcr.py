# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""smcr (smc-tools): SMC-R link groups, devices and statistics.  See ``_smccmd``."""

import sys

from . import _paths, _smccmd

TOOL = "smcr"


def main(argv=None):
    return _paths.run(TOOL, lambda a: _smccmd.run(TOOL, a), argv)


if __name__ == "__main__":
    sys.exit(main())
