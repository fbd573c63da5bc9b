# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Module catalogue helpers shared by the kmod tools (modprobe, lsmod, modinfo, insmod, rmmod,
depmod).

The catalogue (built-in vs loadable, dependencies, parameters, descriptions) is the host's
kernel profile (``zlab.kernel.profile(state_dir)["modules"]``); loaded modules come from
``/proc/modules`` (emulated) or ``zlab.kernel.modules_loaded``.
"""

import sys

from . import _paths

VERSION = "kmod version 25\n+XZ +ZLIB +LIBCRYPTO -EXPERIMENTAL\n"

# in-tree object paths below /lib/modules/<release>/kernel/
MODULE_PATHS = {
    "qdio": "drivers/s390/cio/qdio",
    "ccwgroup": "drivers/s390/cio/ccwgroup",
    "qeth": "drivers/s390/net/qeth",
    "qeth_l2": "drivers/s390/net/qeth_l2",
    "qeth_l3": "drivers/s390/net/qeth_l3",
    "ib_core": "drivers/infiniband/core/ib_core",
    "smc": "net/smc/smc",
    "smc_diag": "net/smc/smc_diag",
    "ism": "drivers/s390/net/ism",
    "vfio": "drivers/vfio/vfio",
    "vfio_iommu_type1": "drivers/vfio/vfio_iommu_type1",
    "vfio_pci": "drivers/vfio/pci/vfio-pci",
    "vfio_pci_core": "drivers/vfio/pci/vfio-pci-core",
    "mlx4_core": "drivers/net/ethernet/mellanox/mlx4/mlx4_core",
    "mlx5_core": "drivers/net/ethernet/mellanox/mlx5/core/mlx5_core",
    "kvm": "arch/s390/kvm/kvm",
}
PARM_DESC = {
    ("vfio_pci", "ids"): "Initial PCI IDs to add to the vfio driver, format is "
    "\"vendor:device[:subvendor[:subdevice[:class[:class_mask]]]]\" and "
    "multiple comma separated entries can be specified (string)",
    ("vfio_pci", "nointxmask"): "Disable support for PCI 2.3 style INTx masking.  If this "
    "resolves problems for specific devices, report lspci -vvvxxx "
    "to linux-pci@vger.kernel.org so the device can be fixed "
    "automatically via the broken_intx_masking flag. (bool)",
    ("vfio_pci", "disable_idle_d3"): "Disable using the PCI D3 low power state for idle, " "unused devices (bool)",
}


def norm(name):
    return name.replace("-", "_")


def name_of(arg):
    """Module name of a file or module argument (``.../vfio-pci.ko.xz`` -> ``vfio_pci``)."""
    return norm(arg.rsplit("/", 1)[-1].split(".ko")[0])


def run_plain(tool, func, argv, missing):
    """``_paths.run`` for insmod/rmmod: ``-V``/``--version`` prints the version (exit 0), other
    options are ignored, no argument prints ``missing`` (exit 1); else ``func(args)``."""

    def body(argv):
        if any(a in ("-V", "--version") for a in argv):
            sys.stdout.write(VERSION)
            return 0
        args = [a for a in argv if not a.startswith("-")]
        if not args:
            sys.stderr.write(missing)
            return 1
        return func(args)

    return _paths.run(tool, body, argv)


def profile():
    try:
        return _paths.kcall("profile")
    except (OSError, RuntimeError, AttributeError, KeyError, ValueError):
        return None


def catalog():
    p = profile()
    return (p or {}).get("modules") or {}


def release():
    p = profile()
    if p and p.get("osrelease"):
        return p["osrelease"]
    return (_paths.read("/proc/sys/kernel/osrelease") or "unknown").strip()


def suffix():
    p = profile() or {}
    return ".ko.xz" if p.get("family") in ("RedHat", "Suse") else ".ko"


def module_file(name):
    rel = MODULE_PATHS.get(name, "kernel/" + name)
    return "/lib/modules/%s/kernel/%s%s" % (release(), rel, suffix())


def loaded():
    """[(name, size, refcnt, [holders])] as /proc/modules lists them."""
    text = _paths.read("/proc/modules")
    if text is not None and _paths.exists("/proc/modules"):
        out = []
        for line in text.splitlines():
            f = line.split()
            if len(f) < 4:
                continue
            holders = [h for h in f[3].split(",") if h and h != "-"]
            out.append((f[0], int(f[1]), int(f[2]), holders))
        return out
    try:
        mods = _paths.kcall("modules_loaded") or []
    except (OSError, RuntimeError, AttributeError):
        return []
    return [(m["name"], int(m.get("size", 0)), int(m.get("refcnt", 0)), list(m.get("holders", []))) for m in mods]


def is_loaded(name):
    return any(m[0] == norm(name) for m in loaded())
