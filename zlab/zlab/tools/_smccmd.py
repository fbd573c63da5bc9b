# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""smcd / smcr (smc-tools smc.c, stats.c, dev.c, linkgroup.c) over the zlab kernel state.

``smcd [ -v | -d | -dd | -a | -ad ] OBJECT {COMMAND | help}``, OBJECT := info | linkgroup |
device | stats | ueid | seid (seid on smcd only).  Objects and commands may be abbreviated
(``smcd s r`` = ``smcd stats reset``).  Statistics are relative to the last ``stats reset``,
whose snapshot is the cache file ``/tmp/.smcstats.u<uid>`` (same line format as smc-tools:
``%-12d%-16llu`` per counter of both technologies plus the handshake errors, ``%-12d%-16d%-16d``
per fallback reason slot, ``%16llu`` for the two fallback totals), unless ``-a`` (absolute).

``smcr device`` (dev.c): one row per valid port of each RoCE device, type by PCI device id,
``-d``/``-dd`` add FID, PCI-ID and PCHID. ``smcr linkgroup [show | link-show] [all | LG-ID] [ibdev
DEV] [netdev DEV]`` (linkgroup.c): the header comes with the first reply of the dump (before any
filter), an SMC-R LG-ID is compared without its low byte (a link id names its group), ``ibdev`` and
``netdev`` filter ``link-show`` rows only; ``-d``/``-dd`` are detail levels, ``-a``/``-ad`` are not
(smc-tools passes them as -1/-2).
"""

import errno
import fcntl
import os
import struct
import sys

from . import _paths, _smc
from .smc_pnet import NL_ERR

DETAIL_V, DETAIL_VV, OPT_ABS, OPT_DETAIL_ABS = 1, 2, 3, 4

FBACK_NAMES = {
    0x03010000: "PEER_NO_SMC",
    0x01010000: "MEMORY",
    0x02010000: "TIMEOUT_CL",
    0x02020000: "TIMEOUT_AL",
    0x03000000: "CNF_ERR",
    0x03020000: "IPSEC",
    0x03030000: "NOSMCDEV",
    0x03030001: "NOSMCDDEV",
    0x03030002: "NOSMCRDEV",
    0x03030003: "NOISM2SUPP",
    0x03030004: "NOV2EXT",
    0x05000000: "PEERDECL",
    0x04000000: "SYNCERR",
    0x030D0000: "MAX_DMB",
    0x030C0000: "VERSMISMAT",
    0x030B0000: "NOSRVLINK",
    0x03030006: "NOSEID",
    0x03030007: "NOSMCD2DEV",
    0x03040000: "MODEUNSUPP",
    0x03050000: "RMBE_EC",
    0x03060000: "OPTUNSUPP",
    0x03070000: "DIFFPREFIX",
    0x03080000: "GETVLANERR",
    0x03090000: "ISMVLANERR",
    0x030A0000: "NOACTLINK",
    0x03030005: "NOV2DEXT",
}
SIZES = ("8K", "16K", "32K", "64K", "128K", "256K", "512K")


class Usage(Exception):
    pass


def f32(x):
    """C ``float`` rounding (smc-tools keeps averages and percentages in floats)."""
    return struct.unpack("f", struct.pack("f", x))[0]


class Tool:
    def __init__(self, myname):
        self.myname = myname
        self.is_smcd = myname == "smcd"
        self.proto = "SMCD" if self.is_smcd else "SMCR"
        self.detail = 0

    # ---- entry ---------------------------------------------------------------------------------

    def usage(self):
        if self.is_smcd:
            sys.stderr.write(
                "Usage: %s  [ OPTIONS ] OBJECT {COMMAND | help}\n"
                "where  OBJECT := {info | linkgroup | device | stats | ueid | seid}\n"
                "       OPTIONS := {-v[ersion] | -d[etails] | -a[bsolute]}\n" % self.myname
            )
        else:
            sys.stderr.write(
                "Usage: %s  [ OPTIONS ] OBJECT {COMMAND | help}\n"
                "where  OBJECT := {info | linkgroup | device | stats | ueid}\n"
                "       OPTIONS := {-v[ersion] | -d[etails] | -dd[etails] | "
                "-a[bsolute]}\n" % self.myname
            )

    def main(self, argv):
        args = list(argv)
        while args:
            opt = args[0]
            if opt == "--":
                args.pop(0)
                break
            if not opt.startswith("-"):
                break
            if opt[1:2] == "-":
                opt = opt[1:]
            if opt.startswith("-ad") or opt.startswith("-da"):
                self.detail = OPT_DETAIL_ABS
            elif _smc.contains(opt, "-absolute"):
                self.detail = OPT_ABS
            elif _smc.contains(opt, "-version"):
                sys.stderr.write("%s utility, smc-tools-%s\n" % (self.myname, _smc.version()))
                return 255
            elif _smc.contains(opt, "-details"):
                self.detail = DETAIL_V
            elif _smc.contains(opt, "-ddetails"):
                self.detail = DETAIL_VV
            elif _smc.contains(opt, "-help"):
                self.usage()
                return 0
            else:
                sys.stderr.write("Error: Option \"%s\" is unknown, try \"%s help\".\n" % (opt, self.myname))
                return 255
            args.pop(0)
        if not _smc.smc_loaded():
            sys.stderr.write("Error: SMC module not loaded\n")
            return 1
        if not args:
            self.usage()
            return 0
        obj, rest = args[0], args[1:]
        cmds = [
            ("device", self.devices),
            ("linkgroup", self.linkgroups),
            ("info", self.info),
            ("stats", self.stats),
            ("ueid", self.ueid),
        ]
        if self.is_smcd:
            cmds.append(("seid", self.seid))
        cmds.append(("help", None))
        for name, func in cmds:
            if _smc.contains(obj, name):
                if func is None:
                    self.usage()
                    return 0
                # smc.c run_cmd returns the negated result of the subcommand: exit 255 for a
                # subcommand that fails with EXIT_FAILURE
                try:
                    return -func(rest) % 256
                except Usage:
                    return 255
        if not self.is_smcd and _smc.contains(obj, "seid"):
            sys.stderr.write("Error: Object \"%s\" is valid for SMC-D only, try \"%s help\".\n" % (obj, self.myname))
            return 1
        sys.stderr.write("Error: Object \"%s\" is unknown, try \"%s help\".\n" % (obj, self.myname))
        return 1

    # ---- info / ueid / seid -------------------------------------------------------------------

    # info.c: ``[show]``; the ISM and RoCE device dumps first (for the ISM/RoCE lines), then the
    # one SMC_NETLINK_GET_SYS_INFO reply (smc_nl_get_sys_info); -d changes nothing. A kernel
    # without these dumps answers EOPNOTSUPP to the first.

    def info(self, args):
        if args:
            if not _smc.contains(args[0], "show") or len(args) > 1:
                sys.stderr.write("Usage: %s info [show]\n" % self.myname)
                raise Usage()
        level = _smc.smc_level()
        if level < _smc.SYS_INFO_SINCE:
            sys.stderr.write("Error: Operation not supported by kernel\n")
            sys.stderr.write("Error: Failed to retrieve ISM device count\n")
            return 255
        ism_count = len(_paths.kcall("smcd_devices") or [])
        roce = [int(d.get("device", 0)) for d in (_paths.kcall("smcr_devices") or [])]
        seid, _enabled = _paths.kcall("seid_show")
        w = sys.stdout.write
        w("Kernel Capabilities\n")
        w("SMC Version:      2.%d\n" % (1 if level >= _smc.RELEASE_1_SINCE else 0))
        # the kernel's 32 bytes: the nodename, blank padded (smc_clc_init)
        w("SMC Hostname:     %s\n" % _smc.host_name()[:32].ljust(32))
        w("SMC-D Features:   v1 v2\n")
        w("SMC-R Features:   %s\n" % ("v1 v2" if level >= _smc.SMCR_V2_SINCE else "v1"))
        w("\n")
        w("Hardware Capabilities\n")
        # SMC_NLA_SYS_SEID only when ISMv2 capable, which is also SMC_NLA_SYS_IS_ISM_V2
        w("SEID:             %s\n" % (seid or "n/a"))
        w("ISM:              %s\n" % (("v1 v2" if seid else "v1") if ism_count else "n/a"))
        text = ""
        if any(d in (0x1004, 0x1016, 0x101E) for d in roce):
            text = "v1 "
            if any(d in (0x1016, 0x101E) for d in roce):
                text += "v2"
        w("RoCE:             %s\n" % (text or "n/a"))
        return 0

    # ueid.c: ``[show]``, ``add EID``, ``del EID``, ``flush``; the EID checked and padded to 32
    # characters here, then one SMC_GEN_NETLINK request; exit 1 on any kernel error, the EAGAIN of
    # removing the last UEID included (its "Info:" line).

    def _ueid_usage(self):
        # ueid.c names smcd in both tools
        sys.stderr.write(
            "Usage: smcd ueid [show]\n"
            "       smcd ueid add <eid>\n"
            "       smcd ueid del <eid>\n"
            "       smcd ueid flush\n"
        )
        raise Usage()

    def _set_eid(self, eid):
        if len(eid) > 32:
            sys.stderr.write("Error: Invalid User EID specified: EID is longer than 32 characters\n")
            raise Usage()
        target = "%-32s" % eid
        text = target.rstrip(" \t\n\v\f\r")
        if not text:
            sys.stderr.write("Error: Invalid User EID specified: EID is empty\n")
            raise Usage()
        if not ("0" <= text[0] <= "9" or "A" <= text[0].upper() <= "Z"):
            sys.stderr.write("Error: Invalid User EID specified: first character must be alphanumeric\n")
            raise Usage()
        if ".." in target:
            sys.stderr.write("Error: Invalid User EID specified: consecutive dots not allowed\n")
            raise Usage()
        for ch in text:
            if not ("0" <= ch <= "9" or "A" <= ch <= "Z" or ch in ".-"):
                sys.stderr.write("Error: Invalid User EID specified: unsupported character: '%s'\n" % ch)
                sys.stderr.write("       Supported characters are: A-Z, 0-9, '.' and '-'\n")
                raise Usage()
        return target

    def ueid(self, args):
        cmd, eid = "show", None
        if args:
            word = args[0]
            if _smc.contains(word, "help"):
                self._ueid_usage()
            elif _smc.contains(word, "add") or _smc.contains(word, "del"):
                cmd = "add" if _smc.contains(word, "add") else "del"
                if len(args) != 2:
                    self._ueid_usage()
                eid = self._set_eid(args[1])
            elif _smc.contains(word, "flush") or _smc.contains(word, "show"):
                cmd = "flush" if _smc.contains(word, "flush") else "show"
                if len(args) != 1:
                    self._ueid_usage()
            else:
                self._ueid_usage()
        try:
            if cmd == "show":
                for entry in _paths.kcall("ueid_list"):
                    sys.stdout.write("%s\n" % entry)
            elif cmd == "add":
                _paths.kcall("ueid_add", eid)
            elif cmd == "del":
                _paths.kcall("ueid_remove", eid)
            else:
                _paths.kcall("ueid_flush")
        except OSError as exc:
            sys.stderr.write(_ueid_error(cmd, exc.errno) + "\n")
            return 1
        return 0

    # seid.c: ``[show]`` prints "SEID [enabled]"/"[disabled]" or "n/a"; enable/disable first
    # check that there is a system EID ("Error: System EID not available" on stdout).

    def seid(self, args):
        cmd = "show"
        if args:
            word = args[0]
            cmd = None
            if not _smc.contains(word, "help"):
                cmd = next((n for n in ("enable", "disable", "show") if _smc.contains(word, n)), None)
            if cmd is None or len(args) != 1:
                sys.stderr.write("Usage: smcd seid [show]\n" "       smcd seid enable\n" "       smcd seid disable\n")
                raise Usage()
        try:
            seid, enabled = _paths.kcall("seid_show")
            if cmd == "show":
                if seid is None:
                    sys.stdout.write("n/a\n")
                else:
                    sys.stdout.write("%s %s\n" % (seid, "[enabled]" if enabled else "[disabled]"))
                return 0
            if seid is None:
                sys.stdout.write("Error: System EID not available\n")
                return 1
            _paths.kcall("seid_set", cmd == "enable")
        except OSError as exc:
            if cmd == "disable" and exc.errno == errno.ENOENT:
                sys.stderr.write("Error: System EID cannot be disabled because no User EID is defined\n")
            else:
                sys.stderr.write("Error: %s\n" % NL_ERR.get(exc.errno, "Unspecific failure"))
            return 1
        return 0

    # ---- device --------------------------------------------------------------------------------

    def _detailed(self):
        """d_level >= SMC_DETAIL_LEVEL_V of dev.c and linkgroup.c: -d and -dd only (smc-tools
        passes -a as -1 and -ad as -2, so those print the plain tables)."""
        return self.detail in (DETAIL_V, DETAIL_VV)

    def _filter_args(self, args, usage, lgid=False):
        """handle_cmd_params of dev.c/linkgroup.c after the object's first word: ``all``,
        ``ibdev DEV``/``netdev DEV`` (smcr), and with ``lgid`` a link group id. Returns (ibdev,
        netdev, unmasked link group id)."""
        ibdev = netdev = None
        unmasked = 0
        all_entered = False
        want = None
        i = 0
        while i < len(args):
            a = args[i]
            i += 1
            if want is not None:
                if want == "ibdev":
                    ibdev = a
                else:
                    netdev = a
                want = None
                break
            if _smc.contains(a, "help"):
                usage()
            elif _smc.contains(a, "all"):
                all_entered = True
            elif not self.is_smcd and (_smc.contains(a, "ibdev") or _smc.contains(a, "netdev")):
                want = "ibdev" if _smc.contains(a, "ibdev") else "netdev"
            elif lgid and not all_entered:
                unmasked = _strtol16(a)
                break
            else:
                usage()
        if i < len(args):
            usage()
        return ibdev, netdev, unmasked

    def devices(self, args):
        if (len(args) == 1 and _smc.contains(args[0], "help")) or len(args) > 4:
            self._dev_usage()
        if args and _smc.contains(args[0], "show"):
            args = args[1:]
        ibdev, netdev, _lgid = self._filter_args(args, self._dev_usage)
        if not self.is_smcd:
            return self._smcr_devices(ibdev, netdev)
        devs = _paths.kcall("smcd_devices") or []
        if not devs:
            return 0
        sys.stdout.write("FID  Type  PCI-ID        PCHID  InUse  #LGs  PNET-ID  \n")
        for d in devs:
            pnet = d.get("pnet_id") or ""
            if d.get("pnet_user_set") and pnet:
                pnet = "*" + pnet
            sys.stdout.write(
                "%04x %-4s  %-12s  %04x   %-4s  %5d  %-16s \n"
                % (
                    int(d.get("fid", 0)),
                    d.get("type", "ISM"),
                    d.get("pci_id", ""),
                    int(d.get("pchid", 0)),
                    "Yes" if d.get("in_use") else "No",
                    int(d.get("lgs", 0)),
                    pnet.strip(),
                )
            )
        return 0

    def _smcr_devices(self, ibdev, netdev):
        """show_devs_smcr_details: one row per valid port of each RoCE device, the header once
        the kernel returned a device."""
        try:
            devs = _paths.kcall("smcr_devices") or []
        except AttributeError:
            devs = []
        if not devs:
            return 0
        w = sys.stdout.write
        detail = self._detailed()
        w(
            "Net-Dev         IB-Dev   IB-P  IB-State  Type          Crit  "
            + (" FID   PCI-ID        PCHID  " if detail else "")
            + "#Links  PNET-ID  \n"
        )
        for dev in devs:
            for port in dev.get("ports") or []:
                if not port.get("valid", True):
                    continue
                ndev = port.get("netdev") or ""
                if netdev is not None and ndev != netdev:
                    continue
                if netdev is None and ibdev is not None and dev["ib_dev"] != ibdev:
                    continue
                pnet = port.get("pnet_id") or ""
                if port.get("pnet_user") and pnet:
                    pnet = "*" + pnet
                row = "%-15s " % ndev[:15]
                row += "%-8s " % dev["ib_dev"][:8]
                row += "%4d  " % int(port["port"])
                row += "%8s  " % _port_state(port.get("state", 1))
                row += "%-13s  " % _ib_dev_type(int(dev.get("device", 0)))
                row += "%3s   " % ("Yes" if dev.get("critical") else "No")
                if detail:
                    row += "%04x  " % int(dev.get("fid", 0))
                    row += "%-12s  " % dev.get("pci_id", "")
                    row += "%04x    " % int(dev.get("pchid", 0))
                row += "%5d " % int(port.get("links", 0))
                row += " %-16s " % pnet.strip()
                w(row + "\n")
        return 0

    def _sub_usage(self, smcd_text, smcr_text):
        """A subcommand's usage (the smcd or the smcr text) on stderr, then end with Usage."""
        sys.stderr.write(smcd_text if self.is_smcd else smcr_text)
        raise Usage()

    def _dev_usage(self):
        self._sub_usage(
            "Usage: smcd device [show] [all]\n",
            "Usage: smcr device [show] [all]\n"
            "                          [ibdev <dev>]\n"
            "                          [netdev <dev>]\n",
        )

    # ---- linkgroup -----------------------------------------------------------------------------

    def _lg_usage(self):
        self._sub_usage(
            "Usage: smcd linkgroup [show] [all | LG-ID]\n",
            "Usage: smcr linkgroup [show | link-show] [all | LG-ID]\n"
            "                                         [ibdev <dev>]\n"
            "                                         [netdev <dev>]\n",
        )

    def linkgroups(self, args):
        if (len(args) == 1 and _smc.contains(args[0], "help")) or len(args) > 4:
            self._lg_usage()
        show_links = False
        if args:
            if _smc.contains(args[0], "show"):
                args = args[1:]
            elif _smc.contains(args[0], "link-show"):
                show_links = True
                args = args[1:]
        ibdev, netdev, unmasked = self._filter_args(args, self._lg_usage, lgid=True)
        lgs = _paths.kcall("linkgroups", self.proto) or []
        if not lgs:
            return 0  # an empty dump: no reply, no header
        detail = self._detailed()
        w = sys.stdout.write
        if self.is_smcd:
            if not detail:
                w("LG-ID    VLAN  #Conns  PNET-ID \n")
        elif show_links:
            head = "LG-ID    LG-Role  LG-Type  Net-Dev         Link-State      #Conns  "
            if detail:
                head += "Link-UID  Peer-UID  IB-Dev    IB-P  "
                if self.detail == DETAIL_VV:
                    head += "Local-GID                                 Peer-GID  "
            w(head + "\n")
        elif not detail:
            w("LG-ID    LG-Role  LG-Type  VLAN  #Conns  PNET-ID \n")
        first = True
        for lg in lgs:
            lid = int(_pick(lg, ("id", "lgr_id", "linkid", "lg_id"), 0)) & 0xFFFFFFFF
            vlan = int(_pick(lg, ("vlan", "vlan_id"), 0))
            conns = int(_pick(lg, ("conns", "conns_num", "nconns"), 0))
            pnet = (_pick(lg, ("pnet_id", "pnetid"), "") or "").strip()
            if self.is_smcd:
                if unmasked and unmasked != lid:
                    continue
                if detail:
                    if not first:
                        w("\n")
                    first = False
                    self._lg_details(lg, lid, vlan, conns, pnet)
                else:
                    w("%08x %s  %6d  %-16s \n" % (lid, _hash4x(vlan), conns, pnet))
                continue
            role = "SERV" if _pick(lg, ("role",), "CLNT") in ("SERV", 1, "1") else "CLNT"
            lgtype = _lgr_type(_pick(lg, ("type", "lgr_type"), "SINGLE"))
            if show_links:
                for link in lg.get("links") or []:
                    if not _smcr_selected(link, lid, ibdev, netdev, unmasked, True):
                        continue
                    row = "%08x %-8s %-8s " % (lid, role, lgtype)
                    row += "%-15s " % str(link.get("netdev") or "")[:15]
                    row += "%-15s " % _link_state(link.get("state", 3))
                    row += "%6d  " % int(link.get("conns", 0))
                    if detail:
                        row += "%08x  " % int(link.get("link_uid", 0))
                        row += "%08x  " % int(link.get("peer_uid", 0))
                        row += "%-8s  " % str(link.get("ib_dev") or "")[:8]
                        row += "%4d  " % int(link.get("ib_port", 1))
                        if self.detail == DETAIL_VV:
                            row += "%-40s  " % (link.get("gid") or "")
                            row += "%s  " % (link.get("peer_gid") or "")
                    w(row + "\n")
                continue
            if not _smcr_selected({}, lid, ibdev, netdev, unmasked, False):
                continue
            if detail:
                if not first:
                    w("\n")
                first = False
                self._lg_details(lg, lid, vlan, conns, pnet)
                continue
            w("%08x %-8s %-8s %s  %6d  %-16s \n" % (lid, role, lgtype, _hash4x(vlan), conns, pnet))
        return 0

    def _lg_details(self, lg, lid, vlan, conns, pnet):
        w = sys.stdout.write
        w("LG-ID    : %08x\n" % lid)
        if not self.is_smcd:
            w("LG-Role  : %s\n" % ("SERV" if _pick(lg, ("role",), "CLNT") in ("SERV", 1, "1") else "CLNT"))
            w("LG-Type  : %s\n" % _lgr_type(_pick(lg, ("type", "lgr_type"), "SINGLE")))
        w("VLAN     : %x\n" % vlan)
        w("PNET-ID  : %s\n" % pnet)
        v2 = int(_pick(lg, ("version", "smc_version"), 1)) >= 2
        w("Version  : %d\n" % (int(_pick(lg, ("version", "smc_version"), 1)) if v2 else 1))
        if v2:
            w("Peer-Rel : %d\n" % int(_pick(lg, ("peer_rel", "peer_smc_release"), 0)))
            w("Peer-Host: %s\n" % (_pick(lg, ("peer_host", "peer_hostname"), "") or "").strip())
            os_code = _pick(lg, ("peer_os",), 2)
            os_name = (
                {1: "ZOS", 2: "LINUX", 3: "AIX"}.get(os_code, "Unknown (%#x)" % os_code)
                if isinstance(os_code, int)
                else os_code
            )
            w("Peer-OS  : %s\n" % os_name)
            if not self.is_smcd:
                w("Direct   : %s\n" % ("Yes" if _pick(lg, ("direct", "smcr_direct"), False) else "No"))
            w("EID      : %s\n" % (_pick(lg, ("eid", "negotiated_eid"), "") or ""))
        w("#Conns   : %d\n" % conns)
        w("Sndbuf   : %d B\n" % int(_pick(lg, ("sndbuf", "sndbuf_alloc"), 0)))
        if self.is_smcd:
            w("DMB      : %d B\n" % int(_pick(lg, ("dmb", "dmb_alloc"), 0)))
        else:
            w("RMB      : %d B\n" % int(_pick(lg, ("rmb", "rmb_alloc"), 0)))

    # ---- stats ---------------------------------------------------------------------------------

    def _stats_usage(self):
        sys.stderr.write("Usage: %s stats [show | reset]\n" % self.myname)
        raise Usage()

    def stats(self, args):
        reset = as_json = False  # "show" is the default
        if args:
            a = args[0]
            if _smc.contains(a, "help"):
                self._stats_usage()
            elif _smc.contains(a, "show"):
                pass
            elif _smc.contains(a, "reset"):
                reset = True
            elif _smc.contains(a, "json"):
                as_json = True
            else:
                self._stats_usage()
            if len(args) > 1:
                self._stats_usage()
        d_level = self.detail in (DETAIL_V, DETAIL_VV, OPT_DETAIL_ABS)
        is_abs = self.detail in (OPT_ABS, OPT_DETAIL_ABS)
        keys = _smc.tech_keys()
        kern = {"SMCR": _smc.read_stats("SMCR"), "SMCD": _smc.read_stats("SMCD")}
        org = _flatten(kern, keys, self.proto)
        cache_fp = None
        path = _paths.path("/tmp/.smcstats.u%d" % os.getuid())
        cur = _flatten(kern, keys, self.proto)
        if not is_abs:
            cache_fp = _open_cache(path)
            cached = _read_cache(cache_fp, len(cur["vals"]))
            if cached is not None:
                if _consistent(cur, cached):
                    _subtract(cur, cached)
                else:
                    os.unlink(path)
        own = _unflatten(cur, keys, self.proto)
        try:
            if as_json:
                self._json(own, keys)
            else:
                self._text(own, d_level)
            if reset:
                if cache_fp is not None:
                    cache_fp.close()
                    cache_fp = None
                try:
                    os.unlink(path)
                except FileNotFoundError:
                    pass
                cache_fp = _open_cache(path)
                _write_cache(cache_fp, org)
        finally:
            if cache_fp is not None:
                cache_fp.close()
        return 0

    def _json(self, s, keys):
        body = ",".join('"%s":%d' % (k, s["tech"].get(k, 0)) for k in keys)
        sys.stdout.write('{"%s": {%s}}\n' % (self.proto, body))

    def _text(self, s, d):
        t = s["tech"]
        w = sys.stdout.write
        w("SMC-D Connections Summary\n" if self.is_smcd else "SMC-R Connections Summary\n")
        c_v1, c_v2 = t["SMC_CLNT_V1_SUCC_CNT"], t["SMC_CLNT_V2_SUCC_CNT"]
        s_v1, s_v2 = t["SMC_SRV_V1_SUCC_CNT"], t["SMC_SRV_V2_SUCC_CNT"]
        smc_conn = c_v1 + c_v2 + s_v1 + s_v2
        hs = s["clnt_hs_err"] + s["srv_hs_err"]
        fb = s["clnt_fback"] + s["srv_fback"]
        total = smc_conn + hs + fb
        rx_cnt, tx_cnt = t["SMC_RX_CNT"], t["SMC_TX_CNT"]
        avg = f32((rx_cnt + tx_cnt) / float(smc_conn)) if smc_conn else 0.0
        special = (
            t["SMC_CORK_CNT"] + t["SMC_NDLY_CNT"] + t["SMC_SENDPAGE_CNT"] + t["SMC_SPLICE_CNT"] + t["SMC_URG_DATA_CNT"]
        )
        buf_full = buf_full_r = buf_small = buf_small_r = buf_rx_full = 0.0
        if tx_cnt:
            buf_full = f32(t["SMC_INT_TX_BUF_FULL_CNT"] / float(tx_cnt) * 100)
            buf_full_r = f32(t["SMC_INT_TX_BUF_FULL_PEER_CNT"] / float(tx_cnt) * 100)
            buf_small = f32(t["SMC_INT_TX_BUF_SIZE_SM_CNT"] / float(tx_cnt) * 100)
            buf_small_r = f32(t["SMC_INT_TX_BUF_SIZE_SM_PEER_CNT"] / float(tx_cnt) * 100)
        if rx_cnt:
            buf_rx_full = f32(t["SMC_INT_RX_BUF_FULL_CNT"] / float(rx_cnt) * 100)
        new_layout = _smc.version_tuple() >= (1, 8, 4)

        w("  Total connections handled  %12d\n" % total)
        if d:
            w("  SMC connections            %12d (client %d, server %d)\n" % (smc_conn, c_v1 + c_v2, s_v1 + s_v2))
            w("    v1                       %12d\n" % (c_v1 + s_v1))
            w("    v2                       %12d\n" % (c_v2 + s_v2))
        else:
            w("  SMC connections            %12d\n" % smc_conn)
        if d:
            w("  Handshake errors           %12d (client %d, server %d)\n" % (hs, s["clnt_hs_err"], s["srv_hs_err"]))
        else:
            w("  Handshake errors           %12d\n" % hs)
        w("  Avg requests per SMC conn  %14.1f\n" % avg)
        if d:
            w("  TCP fallback               %12d (client %d, server %d)\n" % (fb, s["clnt_fback"], s["srv_fback"]))
            _fback_details(s["rsn_srv"], "Server")
            _fback_details(s["rsn_clnt"], "Client")
        else:
            w("  TCP fallback               %12d\n" % fb)
        w("\n")
        for direction in ("RX", "TX"):
            w("%s Stats\n" % direction)
            nbytes = t["SMC_%s_BYTES" % direction]
            w("  Data transmitted (Bytes) %14d (%s)\n" % (nbytes, _smc.abbreviated(nbytes)))
            w("  Total requests             %12d\n" % t["SMC_%s_CNT" % direction])
            if new_layout:
                use = t["SMC_%s_RMB_USAGE" % direction]
                w("  Buffer usage (Bytes)       %12d (%s)\n" % (use, _smc.abbreviated(use)))
            pfx = "SMC_INT_%s_BUF_" % direction
            if direction == "RX":
                w("  Buffer full                %12d (%.2f%%)\n" % (t[pfx + "FULL_CNT"], buf_rx_full))
            else:
                w("  Buffer full                %12d (%.2f%%)\n" % (t[pfx + "FULL_CNT"], buf_full))
                w("  Buffer full (remote)       %12d (%.2f%%)\n" % (t[pfx + "FULL_PEER_CNT"], buf_full_r))
                w("  Buffer too small           %12d (%.2f%%)\n" % (t[pfx + "SIZE_SM_CNT"], buf_small))
                w("  Buffer too small (remote)  %12d (%.2f%%)\n" % (t[pfx + "SIZE_SM_PEER_CNT"], buf_small_r))
            if d:
                w("  Buffer downgrades          %12d\n" % t[pfx + "DGRADE_CNT"])
                w("  Buffer reuses              %12d\n" % t[pfx + "REUSE_CNT"])
            w("            8KB    16KB    32KB    64KB   128KB   256KB   512KB  >512KB\n")
            for label, p in (("Bufs", "SMC_INT_%s_BUF_" % direction), ("Reqs", "SMC_USR_%s_BUF_" % direction)):
                cells = [_smc.abbreviated(t[p + sz]) for sz in SIZES]
                cells.append(_smc.abbreviated(t[p + "1024K"] + t[p + "G_1024K"]))
                w("  %s   %s\n" % (label, "  ".join("%6s" % c for c in cells)))
            w("\n")
        w("Extras\n")
        w("  Special socket calls       %12d\n" % special)
        if d:
            w("    cork                     %12d\n" % t["SMC_CORK_CNT"])
            w("    nodelay                  %12d\n" % t["SMC_NDLY_CNT"])
            w("    sendpage                 %12d\n" % t["SMC_SENDPAGE_CNT"])
            w("    splice                   %12d\n" % t["SMC_SPLICE_CNT"])
            w("    urgent data              %12d\n" % t["SMC_URG_DATA_CNT"])


SMC_MASK_LINK_ID = 0xFFFFFF00
SMC_INVALID_LINK_ID = 0xFFFFFFFF
LGR_TYPES = ("NONE", "SINGLE", "SYM", "ASYMP", "ASYML")
LINK_STATES = ("LINK_UNUSED", "LINK_INACTIVE", "LINK_ACTIVATING", "LINK_ACTIVE")
# dev.c smc_ib_dev_type: RoCE by PCI device id (MASK_ROCE_V1/V2/V3_HEX), ISM
IB_DEV_TYPES = {0x1004: "RoCE_Express", 0x1016: "RoCE_Express2", 0x101E: "RoCE_Express3", 0x04ED: "ISM"}


def _ueid_error(cmd, code):
    """What ueid.c prints for the kernel's answer (libnl's error mapping, then its own texts)."""
    if code == errno.EOPNOTSUPP:
        return "Error: operation not supported by kernel"
    if cmd == "del":
        if code == errno.EAGAIN:
            return "Info: the System EID was activated because the last User EID was removed"
        return "Error: specified User EID is not defined"
    if cmd == "add":
        texts = {
            errno.EINVAL: "Error: specified User EID was rejected by the kernel",
            errno.ENOMEM: "Error: kernel reported an out of memory condition",
            errno.ERANGE: "Error: specified User EID was rejected because the maximum number of User EIDs is reached",
            errno.EEXIST: "Error: specified User EID is already defined",
        }
        if code in texts:
            return texts[code]
    return "Error: %s" % NL_ERR.get(code, "Unspecific failure")


def _strtol16(text):
    """strtol(arg, &end, 16) as linkgroup.c reads an LG-ID: no digits is SMC_INVALID_LINK_ID."""
    t = text.strip()
    neg = t.startswith("-")
    if t[:1] in "+-":
        t = t[1:]
    if t[:2].lower() == "0x":
        t = t[2:]
    digits = ""
    for ch in t:
        if ch in "0123456789abcdefABCDEF":
            digits += ch
        else:
            break
    if not digits:
        return SMC_INVALID_LINK_ID
    val = int(digits, 16)
    return (-val if neg else val) & 0xFFFFFFFF


def _smcr_selected(link, lid, ibdev, netdev, unmasked, show_links):
    """filter_smcr_item: netdev/ibdev filters apply to link-show only, else the LG-ID (masked:
    the low byte of a link id is the link's number in its group)."""
    if ibdev is None and netdev is None and not unmasked:
        return True
    if netdev is not None and show_links:
        return (link.get("netdev") or "") == netdev
    if ibdev is not None and show_links:
        return (link.get("ib_dev") or "") == ibdev
    if unmasked:
        return (unmasked & SMC_MASK_LINK_ID) == lid
    return True


def _lgr_type(value):
    if isinstance(value, int):
        return LGR_TYPES[value] if 0 <= value < len(LGR_TYPES) else "%#x?" % value
    return str(value)


def _link_state(value):
    if isinstance(value, int):
        return LINK_STATES[value] if 0 <= value < len(LINK_STATES) else "%#x?" % value
    return str(value)


def _port_state(value):
    if isinstance(value, int):
        return {0: "INACTIVE", 1: "ACTIVE"}.get(value, "%#x?" % value)
    return str(value)


def _ib_dev_type(device):
    return IB_DEV_TYPES.get(device, "%#x" % device)


def _hash4x(v):
    """printf("%#4x", v)."""
    return "%4s" % ("0" if v == 0 else "0x%x" % v)


def _pick(d, keys, default):
    for k in keys:
        if k in d and d[k] is not None:
            return d[k]
    return default


def _fback_details(rsn, caption):
    items = [list(x) for x in rsn if x[0]]
    # bubble sort by count, descending, stable
    items.sort(key=lambda x: -x[1])
    if not items:
        return
    sys.stdout.write("    %s\n" % caption)
    for code, cnt in items[:3]:
        sys.stdout.write("     %-12s            %12d\n" % (FBACK_NAMES.get(code, "[unknown]"), cnt))


# ---- cache file -------------------------------------------------------------------------------


def _flatten(kern, keys, own):
    """Cache layout: SMC-R counters, SMC-D counters, handshake errors, fallback reasons, totals.

    Handshake errors and fallbacks are global in the kernel; taken from the invoking tool's view.
    """
    vals = []
    for proto in ("SMCR", "SMCD"):
        vals.extend(kern[proto]["tech"][k] for k in keys)
    d = kern[own]
    vals.append(d["clnt_hs_err"])
    vals.append(d["srv_hs_err"])
    srv = (d["rsn_srv"] + [[0, 0]] * _smc.MAX_FBACK)[: _smc.MAX_FBACK]
    clnt = (d["rsn_clnt"] + [[0, 0]] * _smc.MAX_FBACK)[: _smc.MAX_FBACK]
    return {
        "vals": vals,
        "srv": [list(x) for x in srv],
        "clnt": [list(x) for x in clnt],
        "srv_cnt": d["srv_fback"],
        "clnt_cnt": d["clnt_fback"],
        "kern": kern,
    }


def _unflatten(cur, keys, proto):
    n = len(keys)
    off = 0 if proto == "SMCR" else n
    tech = dict.fromkeys(_smc.TECH_KEYS, 0)
    tech.update({k: cur["vals"][off + i] for i, k in enumerate(keys)})
    return {
        "tech": tech,
        "clnt_hs_err": cur["vals"][2 * n],
        "srv_hs_err": cur["vals"][2 * n + 1],
        "clnt_fback": cur["clnt_cnt"],
        "srv_fback": cur["srv_cnt"],
        "rsn_srv": cur["srv"],
        "rsn_clnt": cur["clnt"],
    }


def _open_cache(path):
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    except OSError as exc:
        sys.stderr.write("Error: open cache file: %s\n" % exc.strerror)
        raise SystemExit(255)
    fp = os.fdopen(fd, "r+")
    fcntl.flock(fp.fileno(), fcntl.LOCK_EX)
    return fp


def _read_cache(fp, size):
    fp.seek(0)
    lines = fp.read().splitlines()
    if not lines:
        return None
    vals, srv, clnt, cnts = [], [], [], []
    for n, line in enumerate(lines):
        parts = line.split()
        if n < size:
            if len(parts) < 2 or int(parts[0]) != n:
                sys.stderr.write("Error: parsing cache file(stats): Success\n")
                raise SystemExit(255)
            vals.append(int(parts[1]))
        elif n < size + 2 * _smc.MAX_FBACK:
            if len(parts) < 3:
                sys.stderr.write("Error: parsing cache file (fback stats): Success\n")
                raise SystemExit(255)
            (srv if n < size + _smc.MAX_FBACK else clnt).append([int(parts[1]), int(parts[2])])
        elif n < size + 2 * _smc.MAX_FBACK + 2:
            cnts.append(int(parts[0]))
        else:
            sys.stderr.write("Error: cache file corrupt: Success\n")
            raise SystemExit(255)
    vals += [0] * (size - len(vals))
    srv += [[0, 0]] * (_smc.MAX_FBACK - len(srv))
    clnt += [[0, 0]] * (_smc.MAX_FBACK - len(clnt))
    cnts += [0] * (2 - len(cnts))
    return {"vals": vals, "srv": srv, "clnt": clnt, "srv_cnt": cnts[0], "clnt_cnt": cnts[1]}


def _cache_count(lst, code):
    for c, n in lst:
        if c == code:
            return n
    return 0


def _consistent(cur, cache):
    if any(k < c for k, c in zip(cur["vals"], cache["vals"])):
        return False
    for side in ("srv", "clnt"):
        for code, cnt in cur[side]:
            if cnt < _cache_count(cache[side], code):
                return False
    return cur["srv_cnt"] >= cache["srv_cnt"] and cur["clnt_cnt"] >= cache["clnt_cnt"]


def _subtract(cur, cache):
    cur["vals"] = [k - c for k, c in zip(cur["vals"], cache["vals"])]
    for side in ("srv", "clnt"):
        cur[side] = [[code, cnt - _cache_count(cache[side], code)] for code, cnt in cur[side]]
    cur["srv_cnt"] -= cache["srv_cnt"]
    cur["clnt_cnt"] -= cache["clnt_cnt"]


def _write_cache(fp, org):
    fp.seek(0)
    fp.truncate()
    for i, v in enumerate(org["vals"]):
        fp.write("%-12d%-16d\n" % (i, v))
    for i, (code, cnt) in enumerate(org["srv"] + org["clnt"]):
        fp.write("%-12d%-16d%-16d\n" % (i, code, cnt))
    fp.write("%16d\n" % org["srv_cnt"])
    fp.write("%16d\n" % org["clnt_cnt"])
    fp.flush()


def run(myname, argv):
    return Tool(myname).main(argv)
