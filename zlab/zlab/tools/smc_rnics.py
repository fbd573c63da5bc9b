# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""smc_rnics (smc-tools): list RoCE Express / ISM PCI functions and enable/disable their slots.

v1.8.5 layout (default): header ``FID   Power  PCI_ID        PCHID  Type             PFT   VF
PPrt  PNET_ID            Net-Dev`` (``VFN`` with ``-r``, ``IPrt``/``IB-Dev`` with ``-I``), 100
dashes, rows ``"%4x  %-5s  %-12s  %-4s   %-15s  %-4s  %-3s  %-4s  %-17s  %s"`` sorted like
``sort -k 1``.  smc-tools <= 1.8.4 (``ZLAB_SMC_TOOLS_VERSION``): ``     FID  Power ...`` with FID
``%8x`` and no PFT/VF columns, 90 dashes.  Options ``-a`` (include powered-off slots), ``-e FID``,
``-d FID`` (slot power), ``-r`` (raw vendor:device ids), ``-I`` (IB device columns), ``-v``,
``-h``.  Exit codes: 3 invalid FID, 4 FID with -e/-d, 5 no such FID, 6 already enabled/disabled,
7 power write failed, 8 FID given but (bash pipeline subshell) nothing counted -- as upstream,
any ``smc_rnics FID`` listing exits 8.

Type: 1.8.5 goes by the PFT (0x05 ISM, 0x02 RoCE_Express, 0x0c/0x0f Network_Express) and names a
0x0a (ROC2) function by the major firmware version ``ethtool -i`` reports for its first netdev: 22
RoCE_Express3, 14 RoCE_Express2, else blank (also without ethtool in PATH). 1.8.4 goes by the PCI
ids: 15b3:1003/1004 RoCE_Express, 1016 RoCE_Express2, 101e RoCE_Express3 by the same firmware check
(else ``Mlx_0x101e``). The emulated kernel answers the ``ethtool -i`` of its RoCE netdevs.
"""

import getopt
import re
import shutil
import sys

from . import _paths, _smc

TOOL = "smc_rnics"
SLOTS = "/sys/bus/pci/slots"
DEVICES = "/sys/bus/pci/devices"


def _usage():
    sys.stdout.write(
        "\nUsage: smc_rnics [ OPTIONS ] [ FID ]\n\nList RNICs\n\n"
        "   -a, --all            include disabled devices in output\n"
        "   -d, --disable <FID>  disable the specified FID\n"
        "   -e, --enable <FID>   enable the specified FID\n"
        "   -h, --help           display this message\n"
        "   -I, --IB-dev         display IB-dev instead of netdev attributes\n"
        "   -r, --rawids         display 'type' as raw vendor/device IDs\n"
        "   -v, --version        display version info\n\n"
    )


def _format_fid(text):
    res = text[2:] if text.startswith("0x") else text
    if not re.match(r"^[0-9a-fA-F]+$", res):
        sys.stderr.write("Error: '%s' is not a valid FID\n" % res)
        raise SystemExit(3)
    return "%08x" % int(res, 16)


def _ebcdic_to_ascii(data):
    """``sed 's/\\x0/\\x40/g' | iconv -f IBM-1047 -t ASCII`` for the PNET ID characters."""
    data = data.replace(b"\x00", b"\x40")
    try:
        return data.decode("cp037")
    except UnicodeDecodeError:
        return ""


def _pnet_from_util(util, port_index):
    text = _ebcdic_to_ascii(util or b"")
    return text[16 * port_index : 16 * port_index + 16].replace(" ", "")


def _softset_pnet(int_name, addr, iport):
    """get_softset_pnet_id: match ``smc_pnet`` entries by interface or PCI address."""
    entries = []
    if not _smc.smc_loaded():
        # the script runs ``$(smc_pnet)``: its message reaches smc_rnics' stderr, once per row
        sys.stderr.write("smc_pnet: SMC module not loaded\n")
        return "n/a"
    try:
        entries = _paths.kcall("pnet_list") or []
    except (OSError, RuntimeError, AttributeError):
        entries = []
    res = "n/a"
    for e in entries:
        iface = e.get("eth") or "n/a"
        dev = e.get("ib") or "n/a"
        prt = str(e.get("port") if e.get("port") is not None else 255)
        if (iface != "n/a" and iface == int_name) or (dev != "n/a" and dev == addr):
            if prt != "255" and prt != str(iport):
                continue
            res = e.get("pnet_id") + "*"
    return res


def main(argv=None):
    return _paths.run(TOOL, _main, argv)


def _main(argv):
    try:
        opts, args = getopt.gnu_getopt(
            argv, "hIrvae:d:", ["all", "enable=", "disable=", "help", "IB-dev", "rawids", "version"]
        )
    except getopt.GetoptError as exc:
        if exc.opt and len(exc.opt) == 1:
            sys.stderr.write("getopt: invalid option -- '%s'\n" % exc.opt)
        else:
            sys.stderr.write("getopt: unrecognized option '--%s'\n" % exc.opt)
        return 2
    action, fid_arg = "print", None
    raw = ib = all_ = False
    for o, v in opts:
        if o in ("-a", "--all"):
            all_ = True
        elif o in ("-e", "--enable"):
            action, fid_arg = "enable", v
        elif o in ("-d", "--disable"):
            action, fid_arg = "disable", v
        elif o in ("-h", "--help"):
            _usage()
            return 0
        elif o in ("-I", "--IB-dev"):
            ib = True
        elif o in ("-r", "--rawids"):
            raw = True
        elif o in ("-v", "--version"):
            sys.stdout.write("smc_rnics utility, smc-tools-%s\n" % _smc.version())
            return 0
    target = None
    try:
        for a in args:
            target = _format_fid(a)
        if action != "print":
            if target is not None:
                _usage()
                return 4
            fid = _format_fid(fid_arg)
            ufid = "%x" % int(fid, 16)
            slot = SLOTS + "/" + fid
            if not _paths.isdir(slot):
                sys.stderr.write("Error: FID %s does not exist\n" % ufid)
                return 5
            power = _paths.read(slot + "/power", "")
            val = "1" if action == "enable" else "0"
            if power == val:
                sys.stderr.write("Error: FID %s is already %sd\n" % (ufid, action))
                return 6
            try:
                _paths.write(slot + "/power", val)
            except OSError:
                sys.stderr.write("Error: Failed to %s FID %s\n" % (action, ufid))
                return 7
            return 0
    except SystemExit as exc:
        return exc.code
    new = _smc.version_tuple() >= (1, 8, 5)
    _header(new, ib, raw)
    rows = _rows(target, all_, ib, raw, new)
    for r in sorted(rows):
        sys.stdout.write(r + "\n")
    if target is not None:
        return 8
    return 0


def _header(new, ib, raw):
    w = sys.stdout.write
    if new:
        vf = "VFN" if raw else "VF "
        prt, dev = ("IPrt", "IB-Dev") if ib else ("PPrt", "Net-Dev")
        w("FID   Power  PCI_ID        PCHID  Type             PFT   %s  %s  PNET_ID            %s\n" % (vf, prt, dev))
        w("-" * 100 + "\n")
    else:
        if ib:
            w("     FID  Power  PCI_ID        PCHID  Type           IPrt  PNET_ID            " "IB-Dev\n")
        else:
            w("     FID  Power  PCI_ID        PCHID  Type           PPrt  PNET_ID            " "Net-Dev\n")
        w("-" * 90 + "\n")


def _fmt(new, fid, power, addr, pchid, dev_type, pft, vfn, port, pnet, int_name):
    if new:
        return "%4x  %-5s  %-12s  %-4s   %-15s  %-4s  %-3s  %-4s  %-17s  %s" % (
            fid,
            power,
            addr,
            pchid,
            dev_type,
            pft,
            vfn,
            port,
            pnet,
            int_name,
        )
    return "%8x  %-5s  %-12s  %-4s   %-14s %-4s  %-17s  %s" % (fid, power, addr, pchid, dev_type, port, pnet, int_name)


def _firmware_major(d):
    """The major firmware version ``ethtool -i`` reports for the first netdev of the function
    (``set_by_firmware_lvl``), or None (no ethtool, no netdev). The RoCE netdevs are the emulated
    kernel's, so the kernel answers what ethtool would."""
    if not shutil.which("ethtool"):
        return None
    names = sorted(_paths.listdir(d + "/net"))
    if not names:
        return None
    try:
        info = _paths.kcall("netdev_info", names[0]) or {}
    except (OSError, RuntimeError, AttributeError):
        return None
    return (info.get("firmware-version") or "").split(".")[0]


def _rows(target, all_, ib, raw, new):
    rows = []
    addrs = _paths.listdir(DEVICES)
    by_fid = {}
    for a in addrs:
        f = _paths.read(DEVICES + "/" + a + "/function_id")
        if f:
            by_fid[f] = a
    for slot in _paths.listdir(SLOTS):
        if target is not None and slot != target:
            continue
        fid = int(slot, 16)
        power = _paths.read(SLOTS + "/" + slot + "/power", "0")
        if power == "0":
            if all_:
                rows.append(_fmt(new, fid, power, "", "", "", "", "", "", "", ""))
            continue
        addr = by_fid.get("0x" + slot)
        if addr is None:
            sys.stderr.write("Error: No matching device found for FID %s\n" % slot)
            continue
        d = DEVICES + "/" + addr
        dev_id = _paths.read(d + "/device", "0x0000")
        vend = _paths.read(d + "/vendor", "0x0000")
        dev_type = "%s:%s" % (vend[2:], dev_id[2:])
        pft_raw = _paths.read(d + "/pft", "0x00")
        vfn_raw = _paths.read(d + "/vfn", "0x0000")
        state = {"port": "n/a", "type": dev_type, "cwd_is_device": True}
        pft, vfn = pft_raw, vfn_raw

        def set_dev_and_port(name):
            """set_RoCE_dev_and_port: the type, and the port from the ``port`` attribute of the
            current directory (the device's; a netdev directory has none)."""
            state["type"] = name
            port_attr = _paths.read(d + "/port") if state["cwd_is_device"] else None
            if port_attr is not None:
                if port_attr == "0":
                    state["port"] = "n/a"
                else:
                    state["port"] = "1" if ib else str(int(port_attr) - 1)

        if new:
            if raw:
                vfn = str(int(vfn_raw, 16))
            else:
                if pft_raw == "0x05":
                    state["type"] = "ISM"
                elif pft_raw == "0x02":
                    state["type"] = "RoCE_Express"
                elif pft_raw == "0x0a":
                    major = _firmware_major(d)
                    set_dev_and_port({"22": "RoCE_Express3", "14": "RoCE_Express2"}.get(major, ""))
                elif pft_raw in ("0x0c", "0x0f"):
                    set_dev_and_port("Network_Express")
                elif not all_:
                    continue
                pft_name = {"0x02": "ROC", "0x05": "ISM", "0x0a": "ROC2", "0x0c": "NETH", "0x0f": "NETD"}.get(pft_raw)
                if pft_name:
                    pft = pft_name
                    vfn = ("y" if int(vfn_raw, 16) else "n") if pft_raw == "0x0f" else "y"
                else:
                    vfn = "y" if int(vfn_raw, 16) else "n"
        elif not raw:
            if vend == "0x1014":
                if dev_id == "0x04ed":
                    state["type"] = "ISM"
                else:
                    continue
            elif vend == "0x15b3":
                if dev_id in ("0x1003", "0x1004"):
                    state["type"] = "RoCE_Express"
                elif dev_id == "0x1016":
                    set_dev_and_port("RoCE_Express2")
                elif dev_id == "0x101e":
                    major = _firmware_major(d)
                    set_dev_and_port("RoCE_Express3" if major == "22" else "Mlx_%s" % dev_id)
                else:
                    set_dev_and_port("Mlx_%s" % dev_id)
            elif not all_:
                continue
        pchid = _paths.read(d + "/pchid", "")
        pchid = pchid[2:] if pchid.startswith("0x") else pchid
        util = _paths.read_bytes(d + "/util_string", b"")

        def pnet_for(port_value, ifname):
            if port_value == "":
                return ""
            dev_type = state["type"]
            lport = 0 if (port_value == "n/a" or dev_type != "RoCE_Express") else int(port_value)
            if dev_type == "RoCE_Express" and port_value != "n/a" and ib:
                lport -= 1
            res = _pnet_from_util(util, lport)
            if not res:
                res = _softset_pnet(ifname, addr, lport + 1)
            return res

        def emit(port_value, ifname):
            rows.append(
                _fmt(
                    new,
                    fid,
                    power,
                    addr,
                    pchid,
                    state["type"],
                    pft,
                    vfn,
                    port_value,
                    pnet_for(port_value, ifname),
                    ifname,
                )
            )

        sub = "infiniband" if ib else "net"
        names = sorted(_paths.listdir(d + "/" + sub))
        if not names:
            emit(state["port"], "n/a")
            continue
        if ib:
            for p in sorted(_paths.listdir(d + "/infiniband/" + names[0] + "/ports")):
                emit(p, names[0])
        else:
            # one netdev per port; from 1.8.5 the port is read again per netdev (from the device
            # directory for the first one only: the loop changes into each netdev's directory)
            for n in names:
                if new:
                    set_dev_and_port(state["type"])
                    state["cwd_is_device"] = False
                pv = state["port"]
                if (new and pft_raw == "0x02") or (not new and state["type"] == "RoCE_Express"):
                    dp = _paths.read(d + "/net/" + n + "/dev_port")
                    if dp is not None:
                        pv = dp
                        state["port"] = dp
                emit(pv, n)
    return rows


if __name__ == "__main__":
    sys.exit(main())
