# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""smcss (smc-tools smcss.c): list SMC sockets.

Header ``State          UID   Inode   Local Address           Peer Address            Intf Mode ``;
rows ``%-14s %05d %07llu %-23s %-23s %04x `` + mode: ``SMCD``/``SMCR`` or ``TCP 0x%08x[/0x%08x]``
(fallback reason / peer diagnosis).  Without ``-a`` LISTEN and INIT sockets are hidden; ``-l``
shows only LISTEN; ``-D``/``-R`` only SMC-D/SMC-R sockets.  Without the smc module: the header,
then ``RTNETLINK answers: Success`` on stderr and exit 1.

Sockets come from ``zlab.kernel.smc_sockets(state_dir)``: a list of dicts with ``state`` (name such
as ``ACTIVE`` or the kernel number), ``uid``, ``inode``, ``local``/``peer`` (``"ip:port"`` or
``[ip, port]``), ``intf`` (ifindex), ``mode`` (``SMCD``, ``SMCR`` or ``TCP``), ``fallback`` and
``peer_diagnosis`` (ints, TCP mode), and for ``-D``: ``gid``, ``token``, ``peer_gid``,
``peer_token``, ``linkid``.
"""

import getopt
import sys

from . import _paths, _smc

TOOL = "smcss"
ADDR_LEN_SHORT = 23
STATES = {
    1: "ACTIVE",
    2: "INIT",
    7: "CLOSED",
    10: "LISTEN",
    20: "PEERCLOSEWAIT1",
    21: "PEERCLOSEWAIT2",
    22: "APPCLOSEWAIT1",
    23: "APPCLOSEWAIT2",
    24: "APPFINCLOSEWAIT1",
    25: "PEERFINCLOSEWAIT",
    26: "PEERABORTWAIT",
    27: "PROCESSABORT",
}
STATE_NUM = {v: k for k, v in STATES.items()}

USAGE = (
    "Usage: %s [ OPTIONS ]\n"
    "\t-h, --help          this message\n"
    "\t-v, --version       show version information\n"
    "\t-a, --all           show all sockets\n"
    "\t-l, --listening     show listening sockets\n"
    "\t-d, --debug         show debug socket information\n"
    "\t-W, --wide          do not truncate IP addresses\n"
    "\t-D, --smcd          show detailed SMC-D information (shows only SMC-D sockets)\n"
    "\t-R, --smcr          show detailed SMC-R information (shows only SMC-R sockets)\n"
    "\tno OPTIONS          show all connected sockets\n"
)


def main(argv=None):
    return _paths.run(TOOL, _main, argv)


def _addr(value, wide):
    if isinstance(value, (list, tuple)):
        ip, port = str(value[0]), str(value[1])
    else:
        text = str(value or "0.0.0.0:0")
        ip, _, port = text.rpartition(":")
        ip = ip.strip("[]")
    if not wide and len(ip) + 1 + len(port) > ADDR_LEN_SHORT:
        keep = ADDR_LEN_SHORT - 1 - len(port) - 2
        return ip[:keep] + "..:" + port
    return "%s:%s" % (ip, port)


def _state_num(s):
    st = s.get("state", 1)
    if isinstance(st, int):
        return st
    return STATE_NUM.get(str(st).upper(), 1)


def _main(argv):
    try:
        opts, args = getopt.gnu_getopt(
            argv, "aldDRhvW", ["all", "debug", "listening", "smcd", "smcr", "version", "wide", "help"]
        )
    except getopt.GetoptError as exc:
        if exc.opt and len(exc.opt) == 1:
            sys.stderr.write("%s: invalid option -- '%s'\n" % (TOOL, exc.opt))
        else:
            sys.stderr.write("%s: unrecognized option '--%s'\n" % (TOOL, exc.opt))
        sys.stderr.write(USAGE % TOOL)
        return 1
    f = {"a": 0, "l": 0, "d": 0, "D": 0, "R": 0, "W": 0}
    longmap = {"--all": "a", "--listening": "l", "--debug": "d", "--smcd": "D", "--smcr": "R", "--wide": "W"}
    for o, _ in opts:
        if o in ("-v", "--version"):
            sys.stdout.write("smcss utility, smc-tools-%s\n" % _smc.version())
            return 0
        if o in ("-h", "--help"):
            sys.stdout.write(USAGE % TOOL)
            return 0
        f[longmap.get(o, o[1:])] += 1
    for a, b, text in (
        ("R", "D", "--smcd together with --smcr is not supported"),
        ("l", "d", "--listening together with --debug is not supported"),
        ("l", "a", "--listening together with --all is not supported"),
        ("l", "R", "--listening together with --smcr is not supported"),
        ("l", "D", "--listening together with --smcd is not supported"),
    ):
        if f[a] and f[b]:
            sys.stderr.write(text + "\n")
            sys.stderr.write(USAGE % TOOL)
            return 1
    w = sys.stdout.write
    head = "State          UID   Inode   Local Address           Peer Address            " "Intf Mode "
    if f["d"]:
        head += (
            "Shutd Token    Sndbuf   Rcvbuf   Peerbuf  rxprod-Cursor rxcons-Cursor rxFlags "
            "txprod-Cursor txcons-Cursor txFlags txprep-Cursor txsent-Cursor txfin-Cursor  "
        )
    if f["R"]:
        head += "Role IB-device       Port Linkid GID                                      Peer-GID"
    if f["D"]:
        head += "GID              Token            Peer-GID         Peer-Token       Linkid"
    w(head + "\n")
    if not _smc.smc_loaded():
        # no SMC_DIAG handler: the dump request (sent before the header) is answered with an
        # NLMSG_ERROR, which rtnl_dump reports with perror() while errno is still 0
        sys.stderr.write("RTNETLINK answers: Success\n")
        return 1
    try:
        socks = _paths.kcall("smc_sockets") or []
    except (OSError, AttributeError):
        socks = []
    for s in socks:
        state = _state_num(s)
        mode = str(s.get("mode", "SMCD")).upper()
        if f["l"]:
            if state != 10:
                continue
        elif not f["a"] and state in (10, 2):
            continue
        if f["R"] and mode != "SMCR":
            continue
        if f["D"] and mode != "SMCD":
            continue
        line = "%-14s %05d %07d " % (STATES.get(state, "%#x?" % state), int(s.get("uid", 0)), int(s.get("inode", 0)))
        if state != 2:
            a = _addr(s.get("local"), f["W"])
            line += "%-*s " % (max(ADDR_LEN_SHORT, len(a)), a)
            if state != 10:
                p = _addr(s.get("peer"), f["W"])
                line += "%-*s " % (max(ADDR_LEN_SHORT, len(p)), p)
                line += "%04x " % int(s.get("intf", 0))
                if state != 7:
                    if mode in ("TCP", "FALLBACK", "FALLBACK_TCP"):
                        line += "TCP "
                        if s.get("fallback") is not None:
                            line += "0x%08x" % int(s["fallback"])
                            if s.get("peer_diagnosis"):
                                line += "/0x%08x" % int(s["peer_diagnosis"])
                    else:
                        line += "%4s " % ("SMCD" if mode == "SMCD" else "SMCR")
                        if f["D"] and mode == "SMCD":
                            line += "%016x %016x %016x %016x %08x " % (
                                int(s.get("gid", 0)),
                                int(s.get("token", 0)),
                                int(s.get("peer_gid", 0)),
                                int(s.get("peer_token", 0)),
                                int(s.get("linkid", 0)),
                            )
        w(line + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
