# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""driverctl: persistent PCI driver overrides (the upstream bash script's behaviour).

``driverctl [--nosave] [--noprobe] [-v] [-b BUS] set-override DEV DRIVER | unset-override DEV |
load-override DEV | list-devices [TYPE] | list-overrides [TYPE]``.  ``set-override`` loads the
driver's module if ``/sys/module/<driver>`` is missing (``modprobe -q``), unbinds the current
driver, writes ``driver_override``, reprobes through ``/sys/bus/pci/drivers_probe`` and (unless
``--nosave``) saves the driver name in ``/etc/driverctl.d/<bus>-<device>`` (e.g.
``/etc/driverctl.d/pci-0605:00:00.0`` containing ``vfio-pci``); ``unset-override`` clears the
override, reprobes and removes that file.  Errors ``driverctl: <message>`` exit 1.
"""

import os
import sys

from . import _paths

TOOL = "driverctl"
CONFDIR = "/etc/driverctl.d"
DEVCLASSES = {
    "all": "",
    "storage": "01",
    "network": "02",
    "display": "03",
    "multimedia": "04",
    "memory": "05",
    "bridge": "06",
    "communication": "07",
    "system": "08",
    "input": "09",
    "docking": "0a",
    "processor": "0b",
    "serial": "0c",
}

USAGE = """Usage: driverctl [OPTIONS...] {COMMAND}...

Inspect or control default device driver bindings.

Supported commands:
  set-override <device> <driver>    Make <driver> the default driver
                                    for <device>
  unset-override <device>           Remove any override for <device>
  load-override <device>            Load an override previously specified
                                    for <device>
  list-devices                      List all overridable devices
  list-overrides                    List all currently specified overrides

Supported options:
 -h --help             Show this help
 -v --verbose --debug  Show verbose debug information
 -b --bus <bus>        Work on bus <bus> (default pci)
    --noprobe          Do not reprobe when setting, unsetting, or
                       loading an override
    --nosave           Do not save changes when setting or unsetting
                       an override

"""


class Fail(Exception):
    pass


def _log(msg):
    sys.stderr.write("driverctl: %s\n" % msg)


def main(argv=None):
    return _paths.run(TOOL, _main, argv)


def _main(argv):
    bus = os.environ.get("SUBSYSTEM") or "pci"
    probe = save = True
    debug = False
    cmd = dev = drv = devtype = None
    args = list(argv)
    while args:
        a = args[0]
        if a == "--noprobe":
            probe = False
        elif a == "--nosave":
            save = False
        elif a in ("--debug", "--verbose", "-v"):
            debug = True
        elif a in ("-b", "--bus"):
            bus = args[1] if len(args) > 1 else ""
            args.pop(0)
        elif a in ("-h", "--help") or a.startswith("-"):
            sys.stdout.write(USAGE)
            return 0
        elif a == "set-override":
            if len(args) != 3:
                sys.stdout.write(USAGE)
                return 1
            cmd, dev, drv = a, args[1], args[2]
            break
        elif a in ("load-override", "unset-override"):
            if len(args) != 2:
                sys.stdout.write(USAGE)
                return 1
            cmd, dev = a, args[1]
            break
        elif a in ("list-devices", "list-overrides"):
            if len(args) > 2:
                sys.stdout.write(USAGE)
                return 1
            if len(args) == 2 and args[1] not in DEVCLASSES:
                _log("device type must be one of: %s" % " ".join(DEVCLASSES))
                return 1
            cmd = a
            devtype = DEVCLASSES[args[1] if len(args) == 2 else "all"]
            break
        else:
            sys.stdout.write(USAGE)
            return 1
        args.pop(0)
    if cmd is None:
        sys.stdout.write(USAGE)
        return 1
    ctx = {"bus": bus, "debug": debug}
    try:
        if dev is not None:
            if "/" in dev:
                ctx["bus"], dev = dev.split("/", 1)
            devlink = "/sys/bus/%s/devices/%s" % (ctx["bus"], dev)
            if not _paths.islink(devlink):
                raise Fail("no such device: %s" % dev)
            ctx["syspath"] = devlink
            ctx["sddev"] = "%s-%s" % (ctx["bus"], dev)
        if cmd == "load-override":
            text = _paths.read(CONFDIR + "/" + ctx["sddev"])
            if not text:
                return 1
            _set_override(ctx, dev, text.split("\n")[0], probe)
        elif cmd in ("list-devices", "list-overrides"):
            _list(ctx, 1 if cmd == "list-overrides" else 0, devtype)
        elif cmd == "set-override":
            _set_override(ctx, dev, drv, probe)
            if save:
                _save(ctx, drv)
        elif cmd == "unset-override":
            _set_override(ctx, dev, "", probe)
            if save:
                _save(ctx, "")
    except Fail as exc:
        _log(str(exc))
        return 1
    return 0


def _debug(ctx, msg):
    if ctx["debug"]:
        _log(msg)


def _echo(path, value):
    """bash ``echo value > path``: errors are reported by bash and the script goes on."""
    try:
        _paths.write(path, value)
        return True
    except OSError as exc:
        sys.stderr.write("/usr/sbin/driverctl: line 1: echo: write error: %s\n" % _paths.strerror(exc))
        return False


def _module_loaded(drv):
    return _paths.isdir("/sys/module/%s" % drv)


def _set_override(ctx, dev, drv, probe):
    syspath = ctx["syspath"]
    if not _paths.exists(syspath + "/driver_override"):
        raise Fail("device does not support driver override: %s" % dev)
    if drv and drv != "none":
        _debug(ctx, "setting driver override for %s: %s" % (dev, drv))
        if not _module_loaded(drv):
            _debug(ctx, "loading driver %s" % drv)
            from . import modprobe

            if modprobe.main(["-q", drv]) != 0:
                raise Fail("no such module: %s" % drv)
    else:
        _debug(ctx, "unsetting driver override for %s" % dev)
    link = _paths.readlink(syspath + "/driver")
    if link:
        _debug(ctx, "unbinding previous driver %s" % link.rsplit("/", 1)[-1])
        if not _echo(syspath + "/driver/unbind", dev):
            raise Fail("unbinding %s failed" % dev)
    else:
        _debug(ctx, "device %s not bound" % dev)
    _echo(syspath + "/driver_override", drv)
    if drv != "none" and probe:
        _debug(ctx, "reprobing driver for %s" % dev)
        _echo("/sys/bus/%s/drivers_probe" % ctx["bus"], dev)
        if not _paths.readlink(syspath + "/driver"):
            raise Fail("failed to bind device %s to driver %s" % (dev, drv))


def _save(ctx, drv):
    _debug(ctx, "saving driver override for %s" % ctx["syspath"].rsplit("/", 1)[-1])
    target = _paths.path(CONFDIR + "/" + ctx["sddev"])
    if drv:
        os.makedirs(_paths.path(CONFDIR), exist_ok=True)
        with open(target, "w", encoding="utf-8") as f:
            f.write(drv + "\n")
    else:
        try:
            os.unlink(target)
        except FileNotFoundError:
            pass


def _list(ctx, overrides_only, devtype):
    devices = 0
    base = "/sys/bus/%s/devices" % ctx["bus"]
    for d in _paths.listdir(base):
        p = base + "/" + d
        if not _paths.exists(p + "/driver_override"):
            continue
        override = _paths.read(p + "/driver_override", "(null)")
        if overrides_only and override == "(null)":
            continue
        devices += 1
        if devtype:
            cls = _paths.read(p + "/class", "0x000000")
            if cls[2:4] != devtype:
                continue
        link = _paths.readlink(p + "/driver")
        line = d + " " + (link.rsplit("/", 1)[-1] if link else "(none)")
        if not overrides_only and override != "(null)":
            line += " [*]"
        sys.stdout.write(line + "\n")
    if devices == 0:
        raise Fail("No overridable devices found. Kernel too old?")


if __name__ == "__main__":
    sys.exit(main())
