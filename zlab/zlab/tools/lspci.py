# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""lspci (pciutils) for the emulated zPCI functions of a zlab host.

Reads ``/sys/bus/pci/devices`` (only emulated functions appear there).  Default line
``0605:00:00.0 Non-VGA unclassified device: IBM Internal Shared Memory (ISM) virtual PCI device``
(domains shown as soon as any domain is non-zero, as lspci's auto-detection does, or with
``-D``); ``-n`` / ``-nn`` numeric ids; ``-s [[[[DOMAIN]:]BUS]:][SLOT][.[FUNC]]`` and
``-d [VENDOR]:[DEVICE]`` filters; ``-k`` kernel driver / modules; ``-v`` the verbose block of the
study (Physical Slot, Flags, Memory [virtual], Capabilities, Kernel driver in use, Kernel
modules) followed by a blank line; ``-m``/``-mm`` machine-readable.
"""

import getopt
import sys

from . import _paths

TOOL = "lspci"
DEVICES = "/sys/bus/pci/devices"

CLASSES = {
    0x0000: "Non-VGA unclassified device",
    0x0200: "Ethernet controller",
    0x0280: "Network controller",
    0x0207: "Infiniband controller",
    0x0108: "Non-Volatile memory controller",
}
VENDORS = {0x1014: "IBM", 0x15B3: "Mellanox Technologies"}
DEVNAMES = {
    (0x1014, 0x04ED): "Internal Shared Memory (ISM) virtual PCI device",
    (0x15B3, 0x1003): "MT27500 Family [ConnectX-3]",
    (0x15B3, 0x1004): "MT27500/MT27520 Family [ConnectX-3/ConnectX-3 Pro Virtual Function]",
    (0x15B3, 0x1016): "MT27710 Family [ConnectX-4 Lx Virtual Function]",
    (0x15B3, 0x1018): "MT27800 Family [ConnectX-5 Virtual Function]",
    (0x15B3, 0x101D): "MT2892 Family [ConnectX-6 Dx]",
    (0x15B3, 0x101E): "ConnectX Family mlx5Gen Virtual Function",
    (0x15B3, 0x101F): "MT2894 Family [ConnectX-6 Lx]",
}
MODULES = {
    (0x1014, 0x04ED): "ism",
    (0x15B3, 0x1003): "mlx4_core",
    (0x15B3, 0x1004): "mlx4_core",
    (0x15B3, 0x1016): "mlx5_core",
    (0x15B3, 0x1018): "mlx5_core",
    (0x15B3, 0x101D): "mlx5_core",
    (0x15B3, 0x101E): "mlx5_core",
    (0x15B3, 0x101F): "mlx5_core",
}

USAGE = """Usage: lspci [<switches>]

Basic display modes:
-mm\t\tProduce machine-readable output (single -m for an obsolete format)
-t\t\tShow bus tree

Display options:
-v\t\tBe verbose (-vv or -vvv for higher verbosity)
-k\t\tShow kernel drivers handling each device
-x\t\tShow hex-dump of the standard part of the config space
-b\t\tBus-centric view (addresses and IRQ's as seen by the bus)
-D\t\tAlways show domain numbers
-P\t\tDisplay bridge path in addition to bus and device number

Resolving of device ID's to names:
-n\t\tShow numeric ID's
-nn\t\tShow both textual and numeric ID's (names & numbers)

Selection of devices:
-s [[[[<domain>]:]<bus>]:][<slot>][.[<func>]]\tShow only devices in selected slots
-d [<vendor>]:[<device>][:<class>[:<prog_if>]]\tShow only devices with specified ID's
"""


class Dev:
    def __init__(self, addr, idx):
        self.addr = addr
        d = DEVICES + "/" + addr
        dom, bus, rest = addr.split(":")
        slot, func = rest.split(".")
        self.domain, self.bus, self.slot, self.func = (int(dom, 16), int(bus, 16), int(slot, 16), int(func, 16))
        self.vendor = int(_paths.read(d + "/vendor", "0xffff"), 16)
        self.device = int(_paths.read(d + "/device", "0xffff"), 16)
        cls = int(_paths.read(d + "/class", "0x000000"), 16)
        self.cls = cls >> 8
        self.progif = cls & 0xFF
        self.rev = int(_paths.read(d + "/revision", "0x00"), 16)
        drv = _paths.readlink(d + "/driver")
        self.driver = drv.rsplit("/", 1)[-1] if drv else None
        grp = _paths.readlink(d + "/iommu_group")
        self.iommu = grp.rsplit("/", 1)[-1] if grp else None
        fid = _paths.read(d + "/function_id")
        self.phys_slot = "%08x" % int(fid, 16) if fid else None
        self.idx = idx


def _slot_name(dev, show_domain):
    s = "%02x:%02x.%d" % (dev.bus, dev.slot, dev.func)
    return ("%04x:" % dev.domain + s) if show_domain else s


def _class_name(dev, numeric):
    name = CLASSES.get(dev.cls, "Class %04x" % dev.cls)
    if numeric == 1:
        return "%04x" % dev.cls
    if numeric == 2:
        return "%s [%04x]" % (name, dev.cls)
    return name


def _dev_name(dev, numeric):
    ids = "%04x:%04x" % (dev.vendor, dev.device)
    if numeric == 1:
        return ids
    v = VENDORS.get(dev.vendor)
    d = DEVNAMES.get((dev.vendor, dev.device))
    if v is None:
        name = "Device %s" % ids
    elif d is None:
        name = "%s Device %04x" % (v, dev.device)
    else:
        name = "%s %s" % (v, d)
    if numeric == 2:
        return "%s [%s]" % (name, ids)
    return name


def _parse_slot_filter(text):
    """pci_filter_parse_slot: returns (domain, bus, slot, func) with None = any, or raises."""
    dom = bus = slot = func = None
    mid = text
    if "." in text:
        mid, _, f = text.rpartition(".")
        if f not in ("", "*"):
            func = int(f, 16)
            if func > 7:
                raise ValueError("Invalid function number")
    parts = mid.split(":")
    if len(parts) > 3:
        raise ValueError("Invalid slot number")
    if len(parts) == 3:
        if parts[0] not in ("", "*"):
            dom = int(parts[0], 16)
        parts = parts[1:]
    if len(parts) == 2:
        if parts[0] not in ("", "*"):
            bus = int(parts[0], 16)
            if bus > 0xFF:
                raise ValueError("Invalid bus number")
        parts = parts[1:]
    if parts and parts[0] not in ("", "*"):
        slot = int(parts[0], 16)
        if slot > 0x1F:
            raise ValueError("Invalid slot number")
    return dom, bus, slot, func


def main(argv=None):
    return _paths.run(TOOL, _main, argv)


def _main(argv):
    try:
        opts, args = getopt.gnu_getopt(argv, "nvbxs:tPi:mgp:qkMDQd:AO:F:H:?", ["version", "help"])
    except getopt.GetoptError as exc:
        sys.stderr.write("lspci: invalid option -- '%s'\n" % (exc.opt or ""))
        sys.stderr.write(USAGE)
        return 1
    numeric = verbose = machine = 0
    show_kernel = False
    force_domain = False
    slot_filter = id_filter = None
    for o, v in opts:
        if o == "-n":
            numeric += 1
        elif o == "-v":
            verbose += 1
        elif o == "-m":
            machine += 1
        elif o == "-k":
            show_kernel = True
        elif o == "-D":
            force_domain = True
        elif o == "-s":
            try:
                slot_filter = _parse_slot_filter(v)
            except ValueError as exc:
                sys.stderr.write("lspci: -s: %s\n" % (exc if "Invalid" in str(exc) else "Invalid slot number"))
                return 1
        elif o == "-d":
            parts = v.split(":")
            try:
                id_filter = (
                    int(parts[0], 16) if parts[0] not in ("", "*") else None,
                    int(parts[1], 16) if len(parts) > 1 and parts[1] not in ("", "*") else None,
                )
            except ValueError:
                sys.stderr.write("lspci: -d: Invalid vendor ID\n")
                return 1
        elif o == "--version":
            sys.stdout.write("lspci version 3.9.0\n")
            return 0
        elif o in ("-?", "--help"):
            sys.stdout.write(USAGE)
            return 0
    if args:
        sys.stderr.write("lspci: Unexpected arguments\n")
        return 1
    addrs = []
    for a in _paths.listdir(DEVICES):
        try:
            dom, bus, rest = a.split(":")
            int(dom, 16), int(bus, 16), int(rest.split(".")[0], 16)
        except ValueError:
            continue
        addrs.append(a)
    devs = [Dev(a, i) for i, a in enumerate(sorted(addrs))]
    devs.sort(key=lambda d: (d.domain, d.bus, d.slot, d.func))
    show_domain = force_domain or any(d.domain for d in devs)
    for d in devs:
        if slot_filter:
            fd, fb, fs, ff = slot_filter
            if (
                (fd is not None and fd != d.domain)
                or (fb is not None and fb != d.bus)
                or (fs is not None and fs != d.slot)
                or (ff is not None and ff != d.func)
            ):
                continue
        if id_filter:
            if (id_filter[0] is not None and id_filter[0] != d.vendor) or (
                id_filter[1] is not None and id_filter[1] != d.device
            ):
                continue
        if machine:
            _machine(d, machine, numeric, verbose, bool(d.domain) or force_domain)
            continue
        line = "%s %s: %s" % (_slot_name(d, show_domain), _class_name(d, numeric), _dev_name(d, numeric))
        if d.rev:
            line += " (rev %02x)" % d.rev
        sys.stdout.write(line + "\n")
        if verbose:
            _verbose(d)
        elif show_kernel:
            _kernel(d)
    return 0


def _kernel(d):
    if d.driver:
        sys.stdout.write("\tKernel driver in use: %s\n" % d.driver)
    mod = MODULES.get((d.vendor, d.device))
    if mod:
        sys.stdout.write("\tKernel modules: %s\n" % mod)


def _verbose(d):
    w = sys.stdout.write
    if d.phys_slot:
        w("\tPhysical Slot: %s\n" % d.phys_slot)
    active = d.driver in ("ism", "mlx4_core", "mlx5_core")
    flags = []
    if active:
        flags += ["bus master", "fast devsel", "latency 0"]
    else:
        flags += ["fast devsel"]
    if d.iommu is not None:
        flags.append("IOMMU group %s" % d.iommu)
    w("\tFlags: %s\n" % ", ".join(flags))
    base = 0x4000000000000000 + ((2 * d.idx) << 48)
    if (d.vendor, d.device) == (0x1014, 0x04ED):
        w("\tMemory at %016x (64-bit, prefetchable) [virtual] [size=256T]\n" % base)
        w("\tMemory at %016x (64-bit, prefetchable) [virtual] [size=256]\n" % (base + (1 << 48)))
        w("\tCapabilities: [40] MSI: Enable%s Count=1/32 Maskable- 64bit+\n" % ("+" if active else "-"))
    else:
        w("\tMemory at %016x (64-bit, prefetchable) [virtual] [size=1M]\n" % base)
        w("\tCapabilities: [60] Express Endpoint, MSI 00\n")
        w("\tCapabilities: [9c] MSI-X: Enable%s Count=8 Masked-\n" % ("+" if active else "-"))
    _kernel(d)
    w("\n")


def _machine(d, level, numeric, verbose, show_domain):
    if verbose:
        sys.stdout.write("%s\t%s\n" % ("Slot:" if level >= 2 else "Device:", _slot_name(d, show_domain)))
        sys.stdout.write("Class:\t%s\n" % _class_name(d, numeric))
        sys.stdout.write(
            "Vendor:\t%s\n" % (("%04x" % d.vendor) if numeric == 1 else VENDORS.get(d.vendor, "Vendor %04x" % d.vendor))
        )
        sys.stdout.write(
            "Device:\t%s\n"
            % (("%04x" % d.device) if numeric == 1 else DEVNAMES.get((d.vendor, d.device), "Device %04x" % d.device))
        )
        sys.stdout.write(
            "SVendor:\t%s\n"
            % (("%04x" % d.vendor) if numeric == 1 else VENDORS.get(d.vendor, "Vendor %04x" % d.vendor))
        )
        sys.stdout.write(
            "SDevice:\t%s\n"
            % (("%04x" % d.device) if numeric == 1 else DEVNAMES.get((d.vendor, d.device), "Device %04x" % d.device))
        )
        if d.phys_slot:
            sys.stdout.write("PhySlot:\t%s\n" % d.phys_slot)
        sys.stdout.write("ProgIf:\t%02x\n" % d.progif)
        if d.iommu is not None:
            sys.stdout.write("IOMMUGroup:\t%s\n" % d.iommu)
        sys.stdout.write("\n")
        return
    vend = ("%04x" % d.vendor) if numeric == 1 else VENDORS.get(d.vendor, "Vendor %04x" % d.vendor)
    dev = ("%04x" % d.device) if numeric == 1 else DEVNAMES.get((d.vendor, d.device), "Device %04x" % d.device)
    sys.stdout.write(
        '%s "%s" "%s" "%s" -p%02x "%s" "%s"\n'
        % (_slot_name(d, show_domain), _class_name(d, numeric), vend, dev, d.progif, vend, dev)
    )


if __name__ == "__main__":
    sys.exit(main())
