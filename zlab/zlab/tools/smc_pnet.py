# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""smc_pnet (smc-tools smc_pnet.c): create, delete, show and flush the SMC PNET table.

``smc_pnet [ -a | -d | -s | -f ] [PNETID] [-I IFACE] [-D DEVICE] [-P PORT]``; bare: show the
table, one ``"%s %s %s %d"`` line per entry (PNET ID, ethernet name or ``n/a``, IB/ISM device
or ``n/a``, port; 255 for ethernet entries).  Netlink errors are printed like libnl's
``nl_perror``: ``smc_pnet: Object exists`` etc., exit 1.  State: ``zlab.kernel.pnet_*``.
"""

import errno
import getopt
import sys

from . import _paths, _smc

TOOL = "smc_pnet"

USAGE = (
    "Usage: %s [ OPTIONS ] [pnetid]\n"
    "\t-h, --help            this message\n"
    "\t-v, --version         show version information\n"
    "\t-a, --add             add a pnetid entry, requires interface or ib/ism device\n"
    "\t-d, --delete          delete a pnetid entry\n"
    "\t-s, --show            show a pnetid entry\n"
    "\t-f, --flush           flush the complete pnet table\n"
    "\t-I, --interface       Ethernet interface name of a pnetid entry\n"
    "\t-D, --ibdevice        Infiniband/ISM device name of a pnetid entry\n"
    "\t-P, --ibport          Infiniband device port (default: 1)\n"
    "\t\n"
    "\tno OPTIONS            show complete pnet table\n"
)

# libnl nl_syserr2nlerr + nl_geterror texts.
NL_ERR = {
    errno.EEXIST: "Object exists",
    errno.EADDRINUSE: "Object exists",
    errno.ENOENT: "Object not found",
    errno.ESRCH: "Object not found",
    errno.EINVAL: "Invalid input data or parameter",
    errno.EFAULT: "Invalid input data or parameter",
    errno.ENODEV: "No such device",
    errno.EPERM: "Operation not permitted",
    errno.EBUSY: "Device or resource busy",
    errno.EOPNOTSUPP: "Operation not supported",
    errno.EACCES: "No Access",
    errno.ENOMEM: "Out of memory",
    errno.ERANGE: "Out of range",
}


class _Usage(Exception):
    pass


def _usage(to_stdout=False):
    (sys.stdout if to_stdout else sys.stderr).write(USAGE % TOOL)


def main(argv=None):
    return _paths.run(TOOL, _main, argv)


def _nl_perror(exc):
    text = NL_ERR.get(exc.errno, "Unspecific failure")
    sys.stderr.write("%s: %s\n" % (TOOL, text))


def _main(argv):
    try:
        opts, args = getopt.gnu_getopt(
            argv,
            "I:D:P:fasdhv",
            ["interface=", "ibdevice=", "ibport=", "flush", "add", "show", "delete", "version", "help"],
        )
    except getopt.GetoptError as exc:
        if exc.opt and len(exc.opt) == 1:
            if "requires argument" in exc.msg:
                sys.stderr.write("%s: option requires an argument -- '%s'\n" % (TOOL, exc.opt))
            else:
                sys.stderr.write("%s: invalid option -- '%s'\n" % (TOOL, exc.opt))
        else:
            sys.stderr.write("%s: unrecognized option '--%s'\n" % (TOOL, exc.opt))
        _usage()
        return 1
    cmd = None
    eth = ib = None
    port = 0
    for o, v in opts:
        if o in ("-f", "--flush", "-s", "--show", "-d", "--delete", "-a", "--add"):
            if cmd:
                _usage()
                return 1
            cmd = {
                "-f": "flush",
                "--flush": "flush",
                "-s": "get",
                "--show": "get",
                "-d": "del",
                "--delete": "del",
                "-a": "add",
                "--add": "add",
            }[o]
        elif o in ("-I", "--interface"):
            eth = v
        elif o in ("-D", "--ibdevice"):
            ib = v
        elif o in ("-P", "--ibport"):
            try:
                port = int(v, 0)
            except ValueError:
                port = -1
            if port < 0 or port > 2:
                sys.stderr.write("%s invalid ib port:%s\n" % (TOOL, v))
                _usage()
                return 1
        elif o in ("-v", "--version"):
            sys.stdout.write("smc_pnet utility, smc-tools-%s\n" % _smc.version())
            return 0
        elif o in ("-h", "--help"):
            _usage(True)
            return 0
    if len(args) > 1:
        sys.stderr.write("%s too many parameters\n" % TOOL)
        _usage()
        return 1
    pnetid = args[0] if args else None
    if cmd is None:
        if args:
            sys.stderr.write("%s: parameters without option\n" % TOOL)
            _usage()
            return 1
        cmd = "get"
    if cmd == "flush" and args:
        sys.stderr.write("%s: -f takes no parameters\n" % TOOL)
        _usage()
        return 1
    if cmd == "add":
        if not eth and not ib:
            sys.stderr.write("%s: interface or device missing\n" % TOOL)
            _usage()
            return 1
        if not port:
            port = 1
    if cmd in ("get", "del"):
        if eth:
            sys.stderr.write("%s: interface %s ignored\n" % (TOOL, eth))
            eth = None
        if ib:
            sys.stderr.write("%s: device %s ignored\n" % (TOOL, ib))
            ib = None
        if port:
            sys.stderr.write("%s: ibport %d ignored\n" % (TOOL, port))
            port = 0
    if not _smc.smc_loaded():
        sys.stderr.write("%s: SMC module not loaded\n" % TOOL)
        return 1
    try:
        if cmd == "flush":
            _paths.kcall("pnet_flush")
        elif cmd == "add":
            if pnetid is None:
                raise OSError(errno.EINVAL, "no pnetid")
            # The kernel takes an ethernet and an IB/ISM name in one request.
            if eth:
                _paths.kcall("pnet_add", pnetid, eth=eth)
            if ib:
                _paths.kcall("pnet_add", pnetid, ib=ib, port=port)
        elif cmd == "del":
            if pnetid is None:
                _paths.kcall("pnet_flush")
            else:
                _paths.kcall("pnet_del", pnetid)
        else:
            entries = _paths.kcall("pnet_list") or []
            if pnetid is not None:
                entries = [e for e in entries if e.get("pnet_id") == pnetid.upper()]
                if not entries:
                    raise OSError(errno.ENOENT, pnetid)
            for e in entries:
                sys.stdout.write(
                    "%s %s %s %d\n"
                    % (
                        e.get("pnet_id"),
                        e.get("eth") or "n/a",
                        e.get("ib") or "n/a",
                        int(e.get("port") if e.get("port") is not None else 255),
                    )
                )
    except OSError as exc:
        _nl_perror(exc)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
