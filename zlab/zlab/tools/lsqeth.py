"""lsqeth (s390-tools zconf/qeth/lsqeth.c): list qeth-based network devices.

``lsqeth [INTERFACE]``: per device a "long" record (util_rec): ``Device name`` header padded to
32 + `` : `` + name, a line of 75 dashes, then ``        <attr padded to 24> : <value>`` for
every attribute that reads a non-empty value other than ``n/a`` (layer-3 attributes skipped on
layer-2 devices), and a blank line.  ``lsqeth -p``: the /proc/qeth-like "wide" table (columns
devices 26, CHPID 5, interface 16, cardtype 14, port 4, chksum 6, prio-q'ing 10, rtr4 4, rtr6 4,
lay'2 5, cnt 5) under a dashed separator.
"""

import getopt
import re
import sys

from . import _paths

TOOL = "lsqeth"
VERSION_TEXT = "lsqeth version 2.33.1\nCopyright IBM Corp. 2017\n"
QETH_DRV = "/sys/bus/ccwgroup/drivers/qeth"
ID_RE = re.compile(r"^[0-9a-fA-F]{1,2}\.[0-9a-fA-F]\.[0-9a-fA-F]{4}$")

LONG_FIELDS = ["card_type", "cdev0", "cdev1", "cdev2", "chpid", "online", "portname", "portno",
               "route4", "route6", "checksumming", "state", "priority_queueing", "detach_state",
               "fake_ll", "fake_broadcast", "buffer_count", "add_hhlen", "layer2",
               "large_send", "isolation", "hsuid", "sniffer", "bridge_role", "bridge_state",
               "bridge_hostnotify", "bridge_reflect_promisc", "switch_attrs", "ipa", "vipa",
               "parp", "vnicc/bridge_invisible", "vnicc/flooding", "vnicc/learning",
               "vnicc/learning_timeout", "vnicc/mcast_flooding", "vnicc/rx_bcast",
               "vnicc/takeover_learning", "vnicc/takeover_setvmac"]
LAYER3_ONLY = ("route4", "route6", "large_send", "fake_ll", "fake_broadcast", "checksumming",
               "hsuid", "sniffer")
WIDE = [("devices", 26, "devices"), ("chpid", 5, "CHPID"), ("if_name", 16, "interface"),
        ("card_type", 14, "cardtype"), ("portno", 4, "port"), ("checksumming", 6, "chksum"),
        ("priority_queueing", 10, "prio-q'ing"), ("route4", 4, "rtr4"), ("route6", 4, "rtr6"),
        ("layer2", 5, "lay'2"), ("buffer_count", 5, "cnt")]
PROC_TR = {"sw checksumming": "sw", "hw checksumming": "hw", "no checksumming": "no",
           "always queue 0": "always_q_0", "always queue 1": "always_q_1",
           "always queue 2": "always_q_2", "always queue 3": "always_q_3",
           "by precedence": "by_prec.", "by type of service": "by_ToS",
           "by skb-priority": "by_skb", "by VLAN headers": "by_vlan",
           "primary router": "pri", "secondary router": "sec", "primary connector+": "p+c",
           "primary connector": "p.c", "secondary connector+": "s+c",
           "secondary connector": "s.c", "multicast router+": "mc+", "multicast router": "mc"}

HELP = """Usage: lsqeth [OPTIONS] [INTERFACE]

List all qeth-based network devices with their corresponding settings.

INTERFACE
 List only attributes of specified interface

OPTIONS
  -p, --proc             List all devices in the former /proc/qeth format
  -h, --help             Print this help, then exit
  -v, --version          Print version information, then exit
"""


def main(argv=None):
    return _paths.run(TOOL, _main, argv)


def _first_line(text):
    if text is None:
        return None
    return text.split("\n", 1)[0]


def _ipa_list(devdir, sub):
    if not _paths.isdir(devdir + "/" + sub):
        return None
    vals = []
    for f in ("add4", "add6"):
        t = _paths.read(devdir + "/" + sub + "/" + f)
        if t:
            vals.extend(x for x in t.split("\n") if x)
    return vals or None


def _record(busid, proc):
    devdir = QETH_DRV + "/" + busid
    rec = {}
    name = _first_line(_paths.read(devdir + "/if_name")) or ""
    rec["if_name"] = name
    layer2 = _first_line(_paths.read("/sys/class/net/%s/device/layer2" % name)) if name else None
    if layer2 is None:
        # zlab netdevs are veths without a device link: read the group device itself.
        layer2 = _first_line(_paths.read(devdir + "/layer2"))
    is_l2 = layer2 == "1"
    fields = [f for f, _, _ in WIDE] if proc else LONG_FIELDS
    for f in fields:
        if f == "if_name":
            continue
        if not proc and is_l2 and f in LAYER3_ONLY:
            continue
        if f == "devices":
            parts = []
            for n in range(3):
                link = _paths.readlink(devdir + "/cdev%d" % n)
                parts.append(link.rsplit("/", 1)[-1] if link else "")
            rec[f] = "/".join(parts)
            continue
        if f in ("ipa", "vipa", "parp"):
            sub = {"ipa": "ipa_takeover", "vipa": "vipa", "parp": "rxip"}[f]
            vals = _ipa_list(devdir, sub)
            if vals:
                rec[f] = vals
            continue
        if f.startswith("cdev") and not proc:
            link = _paths.readlink(devdir + "/" + f)
            if link:
                rec[f] = link.rsplit("/", 1)[-1]
        val = _first_line(_paths.read(devdir + "/" + f))
        if val is not None and val != "" and val != "n/a":
            if proc:
                val = PROC_TR.get(val, val) if f in ("checksumming", "priority_queueing",
                                                     "route4", "route6") else val
            rec[f] = ("x" + val) if (f == "chpid" and proc) else val
        elif f == "checksumming":
            if proc:
                rec[f] = "sw"
        elif f == "route6" and val == "n/a":
            rec[f] = "no"
        elif proc:
            rec[f] = "n/a"
    return rec


def _print_long(rec):
    sys.stdout.write("%-32s : %s\n" % ("Device name", rec["if_name"]))
    sys.stdout.write("-" * 75 + "\n")
    for f in LONG_FIELDS:
        if f not in rec:
            continue
        v = rec[f]
        if isinstance(v, list):
            sys.stdout.write("        %-24s : %s\n" % (f, v[0]))
            for item in v[1:]:
                sys.stdout.write("        %-24s   %s\n" % ("", item))
        else:
            sys.stdout.write("        %-24s : %s\n" % (f, v))
    sys.stdout.write("\n")


def _print_wide_header():
    sys.stdout.write(" ".join("%-*s" % (w, h) for _, w, h in WIDE) + "\n")
    sys.stdout.write("-" * (sum(w for _, w, _ in WIDE) + len(WIDE) - 1) + "\n")


def _print_wide(rec):
    vals = []
    for f, w, _ in WIDE:
        v = rec.get(f, "")
        if isinstance(v, list):
            v = ",".join(v)
        vals.append("%-*s" % (w, v))
    sys.stdout.write(" ".join(vals) + "\n")


def _main(argv):
    try:
        opts, args = getopt.gnu_getopt(argv, "phv", ["proc", "help", "version"])
    except getopt.GetoptError as exc:
        if exc.opt and len(exc.opt) == 1:
            sys.stderr.write("%s: invalid option -- '%s'\n" % (TOOL, exc.opt))
        else:
            sys.stderr.write("%s: unrecognized option '--%s'\n" % (TOOL, exc.opt))
        sys.stderr.write("Try '%s --help' for more information.\n" % TOOL)
        return 1
    proc = False
    for o, _ in opts:
        if _paths.help_or_version(o, HELP, VERSION_TEXT):
            return 0
        if o in ("-p", "--proc"):
            proc = True
    if len(args) > 1:
        sys.stderr.write("%s: Too many arguments\n" % TOOL)
        sys.stderr.write("Try '%s --help' for more information.\n" % TOOL)
        return 1
    if proc:
        _print_wide_header()
    if args:
        link = _paths.readlink("/sys/class/net/%s/device/cdev0" % args[0])
        if not link:
            for n in _paths.listdir(QETH_DRV):
                if ID_RE.match(n) and _first_line(_paths.read(QETH_DRV + "/" + n + "/if_name")) \
                        == args[0]:
                    link = n
                    break
        if not link:
            sys.stderr.write("%s: No such device: %s\n" % (TOOL, args[0]))
            return 1
        busids = [link.rsplit("/", 1)[-1]]
        # cdev0 names the read ccw device; the group device carries the same bus id.
    else:
        busids = [n for n in _paths.listdir(QETH_DRV)
                  if ID_RE.match(n) and _paths.islink(QETH_DRV + "/" + n)]
    for busid in busids:
        rec = _record(busid, proc)
        if proc:
            _print_wide(rec)
        else:
            _print_long(rec)
    return 0


if __name__ == "__main__":
    sys.exit(main())
