# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""insmod (kmod): insert one module file (no dependency resolution).

``insmod PATH [PARAM=VALUE...]``: the module is named by the file name (``.../vfio-pci.ko.xz``
-> ``vfio_pci``).  Missing dependencies fail like the kernel:
``insmod: ERROR: could not insert module PATH: Unknown symbol in module`` (exit 1).
"""

import sys

from . import _kmod, _paths

TOOL = "insmod"


def main(argv=None):
    return _kmod.run_plain(TOOL, _main, argv, "insmod: ERROR: missing filename.\n")


def _main(args):
    path, params = args[0], " ".join(args[1:])
    name = _kmod.name_of(path)
    cat = _kmod.catalog()
    if name not in cat:
        sys.stderr.write("insmod: ERROR: could not load module %s: No such file or directory\n" % path)
        return 1
    info = cat[name]
    if info.get("builtin") or _kmod.is_loaded(name):
        sys.stderr.write("insmod: ERROR: could not insert module %s: File exists\n" % path)
        return 1
    loaded = {m[0] for m in _kmod.loaded()}
    if any(not cat.get(d, {}).get("builtin") and d not in loaded for d in info.get("deps", [])):
        sys.stderr.write("insmod: ERROR: could not insert module %s: Unknown symbol in module\n" % path)
        return 1
    try:
        _paths.kcall("load_module", name, params=params or None)
    except OSError as exc:
        sys.stderr.write("insmod: ERROR: could not insert module %s: %s\n" % (path, _paths.strerror(exc)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
