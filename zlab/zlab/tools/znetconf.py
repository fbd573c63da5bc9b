"""znetconf (s390-tools zconf/znetconf): list, configure and remove qeth network devices.

Not persistent (writes only sysfs).  Emulated: ``-a/--add DEV [-o ATTR=VAL]... [-d DRIVER]``,
``-A/--add-all [-e DEV]``, ``-c/--configured``, ``-u/--unconfigured``, ``-r/--remove DEV [-n]``,
``-R/--remove-all [-e DEV] [-n]``, ``-h``, ``-v``; return codes of the upstream script
(9 group failed, 10 online failed, 12 bad option pair, 15 bad id, 20 too many actions, 21 no
configuration, 22 not configured, 23 ungroup failed, 24 option not configured, 26 no such device,
27 in use, 28 no netdev, 29 some failed, 30 syntax).
"""

import getopt
import re
import sys

from . import _paths, _qeth

TOOL = "znetconf"
VERSION_TEXT = "znetconf: version 2.33.1\nCopyright IBM Corp. 2009, 2017\n"
CCWGROUP_BUS = "/sys/bus/ccwgroup"
CCWGROUP_DEVICES = CCWGROUP_BUS + "/devices"
CARDTYPE = {"1731/01": "OSA (QDIO)", "1731/05": "HiperSockets", "1731/02": "OSX"}

USAGE = """znetconf [OPTIONS]

List, configure and remove network devices

Options:
  -a, --add <device_bus_id>	Configure network device
  -A, --add-all			Configure all potential network devices
  -c, --configured		List configured network devices
  -d, --driver <driver>		Specify driver for configuration
  -e, --except <device_bus_id>	Do not configure/remove this device
  -n, --non-interactive		Answer all confirmation questions with 'yes'
  -o, --option <name>=<value>	Specify attribute for configuration
  -r, --remove <device_bus_id>	Remove network device
  -R, --remove-all		Remove all network devices
  -u, --unconfigured		List potential network devices
  -h, --help			Print this help, then exit
  -v, --version			Print version information, then exit
"""


def err(msg):
    sys.stderr.write("%s: Error: %s\n" % (TOOL, msg))


def main(argv=None):
    return _paths.run(TOOL, _main, argv)


_FULL = re.compile(r"^[0-9a-f]\.[0-9a-f]\.[0-9a-f]{4}$")
_PART = re.compile(r"^[0-9a-f]{4}$")
_LIST = re.compile(r"^[0-9a-f]\.[0-9a-f]\.[0-9a-f]{4},[0-9a-f]\.[0-9a-f]\.[0-9a-f]{4}"
                   r"(,[0-9a-f]\.[0-9a-f]\.[0-9a-f]{4})?$")
_SHORTLIST = re.compile(r"^[0-9a-f]{4},[0-9a-f]{4}(,[0-9a-f]{4})?$")


def _norm_dev(text, allow_list):
    dev = text.lower()
    if len(dev) < 4:
        try:
            dev = "%04x" % int(dev, 16)
        except ValueError:
            pass
    if _FULL.match(dev) or (allow_list and _LIST.match(dev)):
        return dev
    if _PART.match(dev):
        return "0.0." + dev
    if allow_list and _SHORTLIST.match(dev):
        return ",".join("0.0." + d for d in dev.split(","))
    return None


def _candidates():
    """lsznet.raw: (chlist, cutype, chpid, driver, cardtype) for groupable ccw devices."""
    res = []
    for ids in _qeth.groupable_ids():
        info = _qeth.ccw_info(ids[0])
        cutype = info.get("cutype", "")
        res.append((",".join(ids), cutype, _qeth.first_chpid(ids[0]), "qeth",
                    CARDTYPE.get(cutype, "OSA (QDIO)")))
    return res


def _configured():
    """list_configured rows: (devids, cutype, cardtype, chpid, driver, name, state, busid)."""
    rows = []
    for busid in sorted(_paths.listdir(CCWGROUP_DEVICES)):
        d = CCWGROUP_DEVICES + "/" + busid
        name = _paths.read(d + "/if_name")
        if name is None:
            nets = _paths.listdir(d + "/net")
            name = nets[0] if nets else ""
        cdevs = []
        for n in range(3):
            link = _paths.readlink(d + "/cdev%d" % n)
            if link:
                cdevs.append(link.rsplit("/", 1)[-1])
        drv = _paths.readlink(d + "/driver")
        drv = drv.rsplit("/", 1)[-1] if drv else ""
        cutype = _paths.read(d + "/cdev0/cutype", "")
        state = "online" if _paths.read(d + "/online", "0") == "1" else "offline"
        cardtype = _paths.read(d + "/card_type")
        if cardtype is None:
            cardtype = _paths.read(d + "/type", "")
        chpid = _paths.read(d + "/chpid", "")
        rows.append((",".join(cdevs), cutype, cardtype, chpid, drv, name, state, busid))
    return rows


def _fmt_configured(r):
    return "%-26.26s %-7.7s %-14.14s %5.5s %-4.4s %-16.16s %-7.7s" % r[:7]


def _list_configured(header=True):
    if header:
        sys.stdout.write("%-26.26s %-7.7s %-14.14s %5.5s %-4.4s %-16.16s %-7.7s\n"
                         % ("Device IDs", "Type", "Card Type", "CHPID", "Drv.", "Name", "State"))
        sys.stdout.write("-" * 85 + "\n")
    for r in _configured():
        sys.stdout.write(_fmt_configured(r) + "\n")


def _list_unconfigured():
    sys.stdout.write("Scanning for network devices...\n")
    fmt = "%-26.26s %-7.7s %-14.14s %5.5s %-4.4s \n"
    first = True
    for chlist, cutype, chp, drv, cardtype in _candidates():
        if first:
            sys.stdout.write(fmt % ("Device IDs", "Type", "Card Type", "CHPID", "Drv."))
            sys.stdout.write("-" * 60 + "\n")
            first = False
        sys.stdout.write(fmt % (chlist, cutype, cardtype, chp, drv))


def _switch(busid, value):
    d = CCWGROUP_DEVICES + "/" + busid
    online = _paths.read(d + "/online")
    if online is None:
        err("%s does not exist." % _paths.host_path(_paths.path(d + "/online")))
        return 2
    if online != str(value):
        try:
            _paths.write(d + "/online", str(value))
        except OSError as exc:
            sys.stderr.write("%s: line 1: echo: write error: %s\n"
                             % (_paths.host_path(_paths.path(d + "/online")),
                                _paths.strerror(exc)))
            err("Failed to make %s %s" % (busid, "online" if value else "offline"))
            return 1
    return 0


def _set_option(busid, name, value):
    d = CCWGROUP_DEVICES + "/" + busid
    if name == "online":
        err("Ignoring option %s=%s" % (name, value))
        return 1
    if _paths.read(d + "/online") == "1":
        if value != _paths.read(d + "/" + name):
            try:
                _paths.write(d + "/online", "0")
            except OSError:
                pass
        else:
            return 0
    if _paths.exists(d + "/" + name) and not _paths.isdir(d + "/" + name):
        try:
            _paths.write(d + "/" + name, value)
        except OSError:
            err("Failed to configure %s=%s" % (name, value))
            return 3
    else:
        err("%s/%s does not exist" % (d, name))
        return 2
    return 0


def _add(devices, driver, options):
    busid = devices.split(",")[0]
    try:
        _paths.write("/sys/bus/ccwgroup/drivers/%s/group" % driver, devices)
    except FileNotFoundError:
        err("/sys/bus/ccwgroup/drivers/%s/group does not exist" % driver)
        return 9
    except OSError:
        err("Could not group devices %s" % devices)
        return 9
    failed = False
    for name, value in options:
        if _set_option(busid, name, value):
            failed = True
    if _switch(busid, 1):
        return 10
    if failed:
        return 24
    name = _qeth.read_attr(busid, "if_name") or ""
    if not name:
        nets = _paths.listdir(CCWGROUP_DEVICES + "/" + busid + "/net")
        name = nets[0] if nets else ""
    if not name:
        sys.stdout.write("Now waiting for device %s to get available...\n" % busid)
        err("Failed to make %s online." % busid)
        return 28
    sys.stdout.write("Successfully configured device %s (%s)\n" % (busid, name))
    return 0


def _remove(busid, name):
    if _switch(busid, 0):
        return 11
    d = CCWGROUP_DEVICES + "/" + busid
    if not _paths.exists(d + "/ungroup"):
        err("%s/ungroup does not exist." % d)
        return 23
    try:
        _paths.write(d + "/ungroup", "1")
    except OSError:
        err("Failed to ungroup %s" % busid)
        return 23
    if name:
        sys.stdout.write("Successfully removed device %s (%s)\n" % (busid, name))
    else:
        sys.stdout.write("Successfully removed device %s\n" % busid)
    return 0


def _ask(non_interactive):
    if non_interactive:
        return True
    sys.stdout.write("Do you want to continue (y/n)?")
    sys.stdout.flush()
    answer = sys.stdin.readline().strip()
    return answer in ("y", "Y")


def _main(argv):
    try:
        opts, rest = getopt.getopt(argv, "hvAa:cd:o:r:Re:un",
                                   ["help", "version", "add-all", "add=", "configured",
                                    "driver=", "option=", "remove=", "remove-all", "except=",
                                    "unconfigured", "non-interactive"])
    except getopt.GetoptError as exc:
        sys.stderr.write("getopt: %s\n" % exc.msg)
        return 30
    if not argv:
        sys.stdout.write("znetconf: Need one of the options -u, -c, -a, -A, -r or -R\n"
                         "Use 'znetconf --help' to get usage information\n")
        return 0
    add = remove = None
    add_all = remove_all = list_c = list_u = non_inter = False
    driver = ""
    options = []
    excepts = []
    for o, v in opts:
        if _paths.help_or_version(o, USAGE, VERSION_TEXT):
            return 0
        if o in ("-A", "--add-all"):
            add_all = True
        elif o in ("-a", "--add", "-r", "--remove", "-e", "--except"):
            dev = _norm_dev(v, o in ("-a", "--add"))
            if dev is None:
                err("Invalid device ID format %s" % v.lower())
                return 15
            if o in ("-a", "--add"):
                add = dev
            elif o in ("-r", "--remove"):
                remove = dev
            else:
                excepts.append(dev)
        elif o in ("-c", "--configured"):
            list_c = True
        elif o in ("-d", "--driver"):
            driver = v
            if driver and driver not in ("qeth", "lcs", "ctc", "ctcm"):
                err("Unknown driver %s" % driver)
                return 17
        elif o in ("-o", "--option"):
            if v.startswith("-"):
                err("%s is not a valid attribute value pair" % v)
                return 1
            name = v.split("=")[0]
            value = v.split("=")[1] if "=" in v else ""
            if not name:
                err("Attribute name missing for -o|--option")
                return 12
            if not value:
                err("Missing value for attribute %s" % name)
                return 12
            options.append((name, value))
        elif o in ("-R", "--remove-all"):
            remove_all = True
        elif o in ("-u", "--unconfigured"):
            list_u = True
        elif o in ("-n", "--non-interactive"):
            non_inter = True
    if sum(bool(x) for x in (add, add_all, list_u, list_c, remove_all, remove)) > 1:
        err("Too much arguments")
        sys.stdout.write("Try '%s --help' for more information.\n" % TOOL)
        return 20
    if not _paths.isdir(CCWGROUP_BUS):
        err("There are no ccwgroup devices")
        return 31

    if add:
        sys.stdout.write("Scanning for network devices...\n")
        cands = _candidates()
        if "," not in add:
            match = [c for c in cands if add in c[0]]
            if not match:
                err("No configuration found for device ID %s" % add)
                return 21
            devices, proposed = match[0][0], match[0][3]
        else:
            devices = add
            for cid in devices.split(","):
                online = _paths.read("/sys/bus/ccw/devices/%s/online" % cid)
                if online is None:
                    err("Device %s does not exist" % cid)
                    return 26
                if online == "1":
                    err("%s is already in use" % cid)
                    return 27
            match = [c for c in cands if all(x in c[0] for x in devices.split(","))]
            proposed = match[0][3] if match else ""
        drv = driver or proposed
        if not drv:
            sys.stderr.write("%s: Warning: No driver found for %s. Using qeth.\n" % (TOOL, add))
            drv = "qeth"
        return _add(devices, drv, options)
    if add_all:
        sys.stdout.write("Scanning for network devices...\n")
        rc = 0
        for chlist, _cu, _chp, drv, _ct in _candidates():
            if any(e in chlist for e in excepts):
                continue
            if _add(chlist, driver or drv, options):
                rc = 29
        return rc
    if remove:
        rows = [r for r in _configured() if remove in _fmt_configured(r)]
        if not rows:
            err("%s is not a configured device" % remove)
            return 22
        r = rows[0]
        sys.stdout.write("Remove network device %s (%s)?\n" % (r[7], r[0]))
        sys.stdout.write("Warning: this may affect network connectivity!\n")
        if not _ask(non_inter):
            return 0
        return _remove(r[7], r[5])
    if remove_all:
        if excepts:
            sys.stdout.write("Remove all network devices except %s\n" % " and ".join(excepts))
        else:
            sys.stdout.write("Remove all network devices\n")
        sys.stdout.write("Warning: this will affect network connectivity!\n")
        if not _ask(non_inter):
            return 0
        for r in _configured():
            if any(e in r[0] for e in excepts):
                continue
            _remove(r[7], r[5])
        return 0
    if list_u:
        _list_unconfigured()
        return 0
    if list_c:
        _list_configured()
        return 0
    sys.stdout.write("znetconf: Need one of the options -u, -c, -a, -A, -r or -R\n"
                     "Use 'znetconf --help' to get usage information\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
