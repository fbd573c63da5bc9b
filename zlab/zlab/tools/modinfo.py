# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""modinfo (kmod) for the emulated module catalogue.

``modinfo [-F FIELD] [-n] [-0] [-k RELEASE] MODULE...``: ``%-16s%s`` lines (``filename:``,
``description:``, ``license:``, ``depends:``, ``intree:``, ``name:``, ``vermagic:``,
``parm:``); built-in modules show ``filename:       (builtin)``.  Unknown:
``modinfo: ERROR: Module X not found.`` (exit 1).
"""

import getopt
import sys

from . import _kmod, _paths

TOOL = "modinfo"


def main(argv=None):
    return _paths.run(TOOL, _main, argv)


def _fields(name, info):
    out = []
    if info.get("builtin"):
        out.append(("name", name))
        out.append(("filename", "(builtin)"))
        if info.get("description"):
            out.append(("description", info["description"]))
        out.append(("license", "GPL"))
        return out
    out.append(("filename", _kmod.module_file(name)))
    if info.get("description"):
        out.append(("description", info["description"]))
    out.append(("license", "GPL"))
    out.append(("depends", ",".join(info.get("deps", []))))
    out.append(("intree", "Y"))
    out.append(("name", name))
    out.append(("vermagic", "%s SMP mod_unload modversions " % _kmod.release()))
    for p in sorted(info.get("params", {})):
        desc = _kmod.PARM_DESC.get((name, p), "(string)" if p == "ids" else "(bool)")
        out.append(("parm", "%s:%s" % (p, desc)))
    return out


def _main(argv):
    try:
        opts, args = getopt.gnu_getopt(
            argv,
            "adlpF:n0k:b:Vh",
            [
                "author",
                "description",
                "license",
                "parameters",
                "field=",
                "filename",
                "null",
                "set-version=",
                "basedir=",
                "version",
                "help",
            ],
        )
    except getopt.GetoptError as exc:
        sys.stderr.write("modinfo: ERROR: unexpected getopt_long() value '%s'.\n" % (exc.opt,))
        return 1
    field = None
    sep = "\n"
    for o, v in opts:
        if o in ("-F", "--field"):
            field = v
        elif o in ("-n", "--filename"):
            field = "filename"
        elif o in ("-d", "--description"):
            field = "description"
        elif o in ("-l", "--license"):
            field = "license"
        elif o in ("-p", "--parameters"):
            field = "parm"
        elif o in ("-0", "--null"):
            sep = "\0"
        elif o in ("-V", "--version"):
            sys.stdout.write(_kmod.VERSION)
            return 0
        elif o in ("-h", "--help"):
            sys.stdout.write("Usage:\n\tmodinfo [options] filename [args]\n")
            return 0
    if not args:
        sys.stderr.write("modinfo: ERROR: missing module or filename.\n")
        return 1
    cat = _kmod.catalog()
    rc = 0
    for raw in args:
        name = _kmod.norm(raw)
        if name not in cat:
            sys.stderr.write("modinfo: ERROR: Module %s not found.\n" % raw)
            rc = 1
            continue
        for k, v in _fields(name, cat[name]):
            if field is None:
                sys.stdout.write("%-16s%s%s" % (k + ":", v, sep))
            elif k == field:
                sys.stdout.write("%s%s" % (v, sep))
    return rc


if __name__ == "__main__":
    sys.exit(main())
