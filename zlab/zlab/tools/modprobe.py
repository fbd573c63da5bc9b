# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""modprobe (kmod) for the emulated module catalogue of a zlab host.

``modprobe [-n] [-q] [-v] [-r] [-a] [--first-time] MODULE [PARAM=VALUE ...]``; ``-r`` removes
the named modules and their no longer used dependencies; dashes and underscores are the same
(``vfio-pci`` = ``vfio_pci``); parameters are passed to the emulated kernel (options from
/etc/modprobe.d are the kernel's persist state).  Messages and exit codes as kmod:
``modprobe: FATAL: Module X not found in directory /lib/modules/<release>`` (exit 1, silent with
``-q``), ``... is builtin.``, ``... is in use.``, ``... is not in kernel.``; ``--first-time``:
``modprobe: ERROR: could not insert 'X': Module already in kernel``.
"""

import getopt
import sys

from . import _kmod, _paths

TOOL = "modprobe"

USAGE = """Usage:
\tmodprobe [options] [-i] [-b] modulename
\tmodprobe [options] -a [-i] [-b] modulename [modulename...]
\tmodprobe [options] -r [-i] modulename
\tmodprobe [options] -r -a [-i] modulename [modulename...]
\tmodprobe [options] -c
\tmodprobe [options] --dump-modversions filename
Management Options:
\t-a, --all                   Consider every non-argument to
\t                            be a module name to be inserted
\t                            or removed (-r)
\t-r, --remove                Remove modules instead of inserting
\t    --first-time            Fail if module already inserted or removed
\t-i, --ignore-install        Ignore install commands
\t-i, --ignore-remove         Ignore remove commands
\t-b, --use-blacklist         Apply blacklist to resolved alias.
\t-f, --force                 Force module insertion or removal.
\t-n, --dry-run               Do not execute operations, just print out
\t-q, --quiet                 Do not print messages
\t-v, --verbose               Print messages
\t-V, --version               Show version
\t-h, --help                  Show this help
"""


def main(argv=None):
    return _paths.run(TOOL, _main, argv)


def _fatal(msg, quiet):
    if not quiet:
        sys.stderr.write("modprobe: FATAL: %s\n" % msg)


def _main(argv):
    try:
        opts, args = getopt.getopt(
            argv,
            "arRibfDcnqvVsC:d:S:h",
            [
                "all",
                "remove",
                "remove-dependencies",
                "ignore-install",
                "ignore-remove",
                "use-blacklist",
                "force",
                "force-modversion",
                "force-vermagic",
                "show-depends",
                "showconfig",
                "show-config",
                "dry-run",
                "show",
                "quiet",
                "verbose",
                "version",
                "syslog",
                "config=",
                "dirname=",
                "set-version=",
                "first-time",
                "help",
            ],
        )
    except getopt.GetoptError as exc:
        sys.stderr.write("modprobe: ERROR: unexpected getopt_long() value '%s'.\n" % (exc.opt,))
        return 1
    remove = dry = quiet = verbose = all_ = first = False
    for o, _ in opts:
        if o in ("-r", "--remove"):
            remove = True
        elif o in ("-n", "--dry-run", "--show"):
            dry = True
        elif o in ("-q", "--quiet"):
            quiet = True
        elif o in ("-v", "--verbose"):
            verbose = True
        elif o in ("-a", "--all"):
            all_ = True
        elif o == "--first-time":
            first = True
        elif o in ("-V", "--version"):
            sys.stdout.write(_kmod.VERSION)
            return 0
        elif o in ("-h", "--help"):
            sys.stdout.write(USAGE)
            return 0
        elif o in ("-c", "--showconfig", "--show-config", "-D", "--show-depends"):
            if o in ("-D", "--show-depends") and args:
                return _show_depends(args[0])
            return 0
    if not args:
        sys.stderr.write("modprobe: ERROR: missing parameters. See -h.\n")
        return 1
    if remove or all_:
        names, params = args, ""
    else:
        names, params = args[:1], " ".join(args[1:])
    cat = _kmod.catalog()
    rc = 0
    for raw in names:
        name = _kmod.norm(raw)
        if remove:
            rc = _remove(name, cat, dry, quiet, verbose, first) or rc
        else:
            rc = _insert(raw, name, params, cat, dry, quiet, verbose, first) or rc
    return rc


def _insert(raw, name, params, cat, dry, quiet, verbose, first):
    if name not in cat:
        _fatal("Module %s not found in directory /lib/modules/%s" % (raw, _kmod.release()), quiet)
        return 1
    info = cat[name]
    if info.get("builtin") or _kmod.is_loaded(name):
        if first:
            if not quiet:
                sys.stderr.write("modprobe: ERROR: could not insert '%s': Module already in " "kernel\n" % name)
            return 1
        if verbose and info.get("builtin"):
            sys.stdout.write("builtin %s\n" % name)
        return 0
    if verbose:
        for dep in _dep_order(name, cat):
            if not (cat[dep].get("builtin") or _kmod.is_loaded(dep)):
                sys.stdout.write("insmod %s %s\n" % (_kmod.module_file(dep), params if dep == name else ""))
    if dry:
        return 0
    try:
        _paths.kcall("load_module", name, params=params or None)
    except OSError as exc:
        reason = getattr(exc, "reason", "")
        if reason == "not_found":
            _fatal("Module %s not found in directory /lib/modules/%s" % (raw, _kmod.release()), quiet)
        else:
            sys.stderr.write("modprobe: ERROR: could not insert '%s': %s\n" % (name, _paths.strerror(exc)))
        return 1
    return 0


def _dep_order(name, cat, seen=None):
    seen = seen if seen is not None else []
    for dep in cat.get(name, {}).get("deps", []):
        if dep not in seen:
            _dep_order(dep, cat, seen)
    if name not in seen:
        seen.append(name)
    return seen


def _show_depends(raw):
    cat = _kmod.catalog()
    name = _kmod.norm(raw)
    if name not in cat:
        sys.stderr.write("modprobe: FATAL: Module %s not found in directory /lib/modules/%s\n" % (raw, _kmod.release()))
        return 1
    for dep in _dep_order(name, cat):
        if cat[dep].get("builtin"):
            sys.stdout.write("builtin %s\n" % dep)
        else:
            sys.stdout.write("insmod %s \n" % _kmod.module_file(dep))
    return 0


def _remove(name, cat, dry, quiet, verbose, first):
    if name not in cat:
        _fatal("Module %s not found." % name, quiet)
        return 1
    if cat[name].get("builtin"):
        _fatal("Module %s is builtin." % name, quiet)
        return 1
    mods = {m[0]: m for m in _kmod.loaded()}
    if name not in mods:
        if first:
            _fatal("Module %s is not in kernel." % name, quiet)
            return 1
        _fatal("Module %s is not in kernel." % name, quiet)
        return 1
    if mods[name][3] or mods[name][2]:
        _fatal("Module %s is in use." % name, quiet)
        return 1
    if verbose:
        sys.stdout.write("rmmod %s\n" % name)
    if dry:
        return 0
    try:
        _paths.kcall("unload_module", name)
    except OSError as exc:
        reason = getattr(exc, "reason", "")
        if reason == "in_use":
            _fatal("Module %s is in use." % name, quiet)
        elif reason == "builtin":
            _fatal("Module %s is builtin." % name, quiet)
        elif reason == "not_loaded":
            _fatal("Module %s is not in kernel." % name, quiet)
        else:
            _fatal("could not remove '%s': %s" % (name, _paths.strerror(exc)), quiet)
        return 1
    # remove dependencies nobody uses any more (kmod's remove of unused deps)
    for dep in reversed(_dep_order(name, cat)[:-1]):
        if cat.get(dep, {}).get("builtin"):
            continue
        cur = {m[0]: m for m in _kmod.loaded()}
        if dep in cur and not cur[dep][3] and not cur[dep][2]:
            try:
                _paths.kcall("unload_module", dep)
                if verbose:
                    sys.stdout.write("rmmod %s\n" % dep)
            except OSError:
                pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
