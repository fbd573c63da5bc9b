"""Command-line parsing and device-type table shared by chzdev and lszdev (s390-tools zdev)."""

import getopt
import sys

from . import _paths, _qeth

# zdev device types (name -> devname used in messages).  Only qeth is emulated; the others exist
# in the type table so their names are accepted, but no such device exists in a zlab host.
DEVTYPES = {
    "dasd": "DASD", "dasd-eckd": "DASD-ECKD", "dasd-fba": "DASD-FBA",
    "zfcp": "zFCP", "zfcp-host": "zFCP host", "zfcp-lun": "zFCP LUN",
    "qeth": "QETH", "ctc": "CTC", "lcs": "LCS", "generic-ccw": "Generic CCW", "ap": "AP",
}


# The TYPE and DEVICE paragraphs of chzdev's and lszdev's --help.
USAGE_TYPE_DEVICE = """TYPE
  Device type to which this command applies. Use --list-types to display
  supported types.

DEVICE
  ID                     Select single device by ID, e.g. 0.0.1234
  FROM-TO                Select range of devices between FROM and TO
  DEV1,DEV2,...          Select list of devices or device ranges
"""


def run(tool, func, argv):
    """``_paths.run`` for a zdev tool: ``SystemExit(code)`` of :func:`parse` and :func:`select`
    ends ``func`` with that exit code."""
    def body(args):
        try:
            return func(args)
        except SystemExit as exc:
            return exc.code
    return _paths.run(tool, body, argv)


def syntax(tool, msg):
    sys.stderr.write("%s: %s\n" % (tool, msg))
    sys.stderr.write("Use '%s --help' for more information\n" % tool)


def error(tool, msg):
    sys.stderr.write("%s: %s\n" % (tool, msg))


def parse(tool, argv, shortopts, longopts):
    """gnu_getopt with zdev's error messages.  Returns (opts, args) or raises SystemExit(1)."""
    try:
        return getopt.gnu_getopt(argv, shortopts, longopts)
    except getopt.GetoptError as exc:
        opt = exc.opt or ""
        if "requires argument" in exc.msg:
            syntax(tool, "Option '%s' requires an argument" % ("-" + opt if len(opt) == 1
                                                               else "--" + opt))
        elif len(opt) == 1:
            syntax(tool, "Unrecognized option '-%s'" % opt)
        else:
            syntax(tool, "Unrecognized option '--%s'" % opt)
        raise SystemExit(1)


def expand_selection(spec):
    """Split a DEVICE argument (``ID``, ``FROM-TO``, ``A,B``) into ids; None if malformed.

    Ranges expand over ccw device numbers.  Group ids ``a:b:c`` stay whole.
    """
    res = []
    for part in spec.split(","):
        if not part:
            return None
        if "-" in part and ":" not in part:
            a, _, b = part.partition("-")
            ia, ib = _qeth.parse_ccw_id(a), _qeth.parse_ccw_id(b)
            if ia is None or ib is None:
                return None
            css, ssid, _ = ia.split(".")
            for n in range(_qeth.devno(ia), _qeth.devno(ib) + 1):
                res.append("%s.%s.%04x" % (css, ssid, n))
        else:
            res.append(part)
    return res


def select(tool, devtype, spec):
    """:func:`expand_selection` of one DEVICE argument.  Malformed: zdev's message, then
    SystemExit(10) when a TYPE was given, SystemExit(1) when not."""
    ids = expand_selection(spec)
    if ids is None:
        if devtype:
            error(tool, "Unrecognized %s ID format: %s" % (DEVTYPES[devtype], spec))
            raise SystemExit(10)
        syntax(tool, "Unknown device type or device ID format: %s" % spec)
        raise SystemExit(1)
    return ids
