# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""rmmod (kmod): remove one or more modules without touching their dependencies.

Messages as kmod's rmmod: ``rmmod: ERROR: Module X is not currently loaded``, ``... is builtin.``,
``rmmod: ERROR: Module X is in use by: A B`` (exit 1).
"""

import sys

from . import _kmod, _paths

TOOL = "rmmod"


def main(argv=None):
    return _kmod.run_plain(TOOL, _main, argv, "rmmod: ERROR: missing module name.\n")


def _main(names):
    cat = _kmod.catalog()
    rc = 0
    for raw in names:
        name = _kmod.name_of(raw)
        if cat.get(name, {}).get("builtin"):
            sys.stderr.write("rmmod: ERROR: Module %s is builtin.\n" % name)
            rc = 1
            continue
        mods = {m[0]: m for m in _kmod.loaded()}
        if name not in mods:
            sys.stderr.write("rmmod: ERROR: Module %s is not currently loaded\n" % name)
            rc = 1
            continue
        if mods[name][3]:
            sys.stderr.write("rmmod: ERROR: Module %s is in use by: %s\n" % (name, " ".join(mods[name][3])))
            rc = 1
            continue
        try:
            _paths.kcall("unload_module", name)
        except OSError as exc:
            if getattr(exc, "reason", "") == "in_use":
                sys.stderr.write("rmmod: ERROR: Module %s is in use\n" % name)
            else:
                sys.stderr.write("rmmod: ERROR: could not remove module %s: %s\n" % (name, _paths.strerror(exc)))
            rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main())
