# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""lspci, modprobe, lsmod, modinfo and driverctl conformance on the emulated zPCI/module state."""

import os

from zlab import kernel

from toolrun import run

ISM = "0605:00:00.0 Non-VGA unclassified device: IBM Internal Shared Memory (ISM) virtual PCI device"
DEV = "/sys/bus/pci/devices/0605:00:00.0"


def enable_ism(h):
    h.write("/sys/bus/pci/slots/00000605/power", "1")


def driver(h):
    link = h.readlink(DEV + "/driver") if h.exists(DEV + "/driver") else None
    return os.path.basename(link) if link else None


# ---- lspci ---------------------------------------------------------------------------------


def test_lspci_default_slot_format_with_uid_domain(host):
    assert run(host, "lspci").stdout == ""
    enable_ism(host)
    r = run(host, "lspci")
    assert (r.returncode, r.stdout) == (0, ISM + "\n")


def test_lspci_verbose_block_as_in_study(host):
    enable_ism(host)
    r = run(host, "lspci", "-v")
    assert r.stdout == (
        ISM + "\n"
        "\tPhysical Slot: 00000605\n"
        "\tFlags: bus master, fast devsel, latency 0, IOMMU group 0\n"
        "\tMemory at 4000000000000000 (64-bit, prefetchable) [virtual] "
        "[size=256T]\n"
        "\tMemory at 4001000000000000 (64-bit, prefetchable) [virtual] "
        "[size=256]\n"
        "\tCapabilities: [40] MSI: Enable+ Count=1/32 Maskable- 64bit+\n"
        "\tKernel driver in use: ism\n"
        "\tKernel modules: ism\n"
        "\n"
    )


def test_lspci_numeric_and_slot_filter(host):
    enable_ism(host)
    assert run(host, "lspci", "-n").stdout == "0605:00:00.0 0000: 1014:04ed\n"
    assert run(host, "lspci", "-nn", "-s", "0605:00:00.0").stdout == (
        "0605:00:00.0 Non-VGA unclassified device [0000]: IBM Internal Shared Memory (ISM) "
        "virtual PCI device [1014:04ed]\n"
    )
    assert run(host, "lspci", "-s", "0606:").stdout == ""
    assert run(host, "lspci", "-d", "1014:04ed").stdout == ISM + "\n"
    r = run(host, "lspci", "-s", "0605:00:00.9")
    assert (r.returncode, r.stderr) == (1, "lspci: -s: Invalid function number\n")


def test_lspci_domain_zero_hidden_unless_D(boot_host):
    h = boot_host(uid_checking=False)
    enable_ism(h)
    r = run(h, "lspci")
    assert r.stdout.startswith("00:00.0 Non-VGA unclassified device: IBM")
    assert run(h, "lspci", "-D").stdout.startswith("0000:00:00.0 Non-VGA")


# ---- modprobe / lsmod / modinfo -----------------------------------------------------------


def test_modprobe_vfio_pci_alias_lsmod_and_remove(host):
    r = run(host, "modprobe", "vfio-pci")
    assert (r.returncode, r.stderr) == (0, "")
    lines = run(host, "lsmod").stdout.splitlines()
    assert lines[0] == "Module                  Size  Used by"
    names = {l.split()[0]: l for l in lines[1:]}
    assert "vfio_pci" in names and "vfio" in names
    assert names["vfio"].split()[2:] == ["1", "vfio_pci"]
    assert host.read("/proc/modules").startswith("vfio_pci ")
    r = run(host, "modprobe", "-r", "vfio_pci")
    assert r.returncode == 0
    names = [l.split()[0] for l in run(host, "lsmod").stdout.splitlines()[1:]]
    assert "vfio_pci" not in names and "vfio" not in names


def test_modprobe_unknown_module(host):
    rel = host.read("/proc/sys/kernel/osrelease").strip()
    r = run(host, "modprobe", "nosuchmod")
    assert (r.returncode, r.stderr) == (
        1,
        "modprobe: FATAL: Module nosuchmod not found in directory /lib/modules/%s\n" % rel,
    )
    r = run(host, "modprobe", "-q", "nosuchmod")
    assert (r.returncode, r.stderr) == (1, "")


def test_modprobe_remove_in_use_and_not_loaded(host):
    kernel.load_module(host.state_dir, "smc_diag")
    r = run(host, "modprobe", "-r", "smc")
    assert (r.returncode, r.stderr) == (1, "modprobe: FATAL: Module smc is in use.\n")
    r = run(host, "modprobe", "-r", "ism")
    assert (r.returncode, r.stderr) == (1, "modprobe: FATAL: Module ism is not in kernel.\n")


def test_modprobe_dry_run_loads_nothing(host):
    r = run(host, "modprobe", "-n", "-v", "smc")
    assert r.returncode == 0
    assert r.stdout.splitlines()[-1].startswith("insmod /lib/modules/")
    assert r.stdout.splitlines()[-1].split()[1].endswith("/kernel/net/smc/smc.ko.xz")
    assert "smc" not in [m["name"] for m in kernel.modules_loaded(host.state_dir)]


def test_modprobe_parameters_reach_the_kernel(host):
    assert run(host, "modprobe", "vfio-pci", "ids=1014:04ed").returncode == 0
    mods = {m["name"]: m for m in kernel.modules_loaded(host.state_dir)}
    assert mods["vfio_pci"]["params"]["ids"] == "1014:04ed"


def test_modinfo_fields(host):
    assert run(host, "modinfo", "-F", "name", "vfio-pci").stdout == "vfio_pci\n"
    out = run(host, "modinfo", "smc").stdout.splitlines()
    assert out[0].startswith("filename:       /lib/modules/4.18.0-477.10.1.el8_8.s390x/kernel/")
    assert "description:    smc socket address family" in out
    assert "depends:        ib_core" in out
    r = run(host, "modinfo", "nosuchmod")
    assert (r.returncode, r.stderr) == (1, "modinfo: ERROR: Module nosuchmod not found.\n")


def test_modinfo_builtin_on_ubuntu_profile(boot_host):
    h = boot_host(kernel_profile="ubuntu23.04")
    assert run(h, "modinfo", "-n", "vfio_pci").stdout == "(builtin)\n"
    r = run(h, "modprobe", "-r", "vfio_pci")
    assert (r.returncode, r.stderr) == (1, "modprobe: FATAL: Module vfio_pci is builtin.\n")


# ---- driverctl -----------------------------------------------------------------------------


def test_driverctl_set_override_binds_and_persists(host):
    enable_ism(host)
    r = run(host, "driverctl", "set-override", "0605:00:00.0", "vfio-pci")
    assert (r.returncode, r.stderr) == (0, "")
    assert driver(host) == "vfio-pci"
    assert host.read(DEV + "/driver_override") == "vfio-pci\n"
    with open(host.zroot + "/etc/driverctl.d/pci-0605:00:00.0", encoding="ascii") as f:
        assert f.read() == "vfio-pci\n"
    assert run(host, "driverctl", "list-overrides").stdout == "0605:00:00.0 vfio-pci\n"
    assert run(host, "driverctl", "list-devices").stdout == "0605:00:00.0 vfio-pci [*]\n"


def test_driverctl_unset_override_restores_default_driver(host):
    enable_ism(host)
    run(host, "driverctl", "set-override", "0605:00:00.0", "vfio-pci")
    r = run(host, "driverctl", "unset-override", "0605:00:00.0")
    assert r.returncode == 0
    assert driver(host) == "ism"
    assert host.read(DEV + "/driver_override") == "(null)\n"
    assert not os.path.exists(host.zroot + "/etc/driverctl.d/pci-0605:00:00.0")
    r = run(host, "driverctl", "list-overrides")
    assert (r.returncode, r.stderr) == (1, "driverctl: No overridable devices found. " "Kernel too old?\n")


def test_driverctl_nosave_and_unknown_device(host):
    enable_ism(host)
    assert run(host, "driverctl", "--nosave", "set-override", "0605:00:00.0", "vfio-pci").returncode == 0
    assert driver(host) == "vfio-pci"
    assert not os.path.exists(host.zroot + "/etc/driverctl.d")
    r = run(host, "driverctl", "set-override", "0000:00:01.0", "vfio-pci")
    assert (r.returncode, r.stderr) == (1, "driverctl: no such device: 0000:00:01.0\n")


def test_driverctl_override_file_applied_at_reboot(host):
    enable_ism(host)
    run(host, "driverctl", "set-override", "0605:00:00.0", "vfio-pci")
    kernel.boot(host.state_dir, kernel.state(host.state_dir)["spec"])
    kernel.apply_persistent(host.state_dir, host.zroot)
    enable_ism(host)
    assert driver(host) == "vfio-pci"


def test_lspci_machine_readable(host):
    enable_ism(host)
    assert run(host, "lspci", "-mm").stdout == (
        '0605:00:00.0 "Non-VGA unclassified device" "IBM" "Internal Shared Memory (ISM) virtual '
        'PCI device" -p00 "IBM" "Internal Shared Memory (ISM) virtual PCI device"\n'
    )
    assert run(host, "lspci", "-vmm").stdout.splitlines()[:3] == [
        "Slot:\t0605:00:00.0",
        "Class:\tNon-VGA unclassified device",
        "Vendor:\tIBM",
    ]


def test_rmmod_and_insmod_without_dependency_handling(host):
    kernel.load_module(host.state_dir, "smc_diag")
    r = run(host, "rmmod", "smc")
    assert (r.returncode, r.stderr) == (1, "rmmod: ERROR: Module smc is in use by: smc_diag\n")
    assert run(host, "rmmod", "smc_diag").returncode == 0
    r = run(host, "rmmod", "smc_diag")
    assert (r.returncode, r.stderr) == (1, "rmmod: ERROR: Module smc_diag is not currently " "loaded\n")
    path = "/lib/modules/x/kernel/drivers/vfio/pci/vfio-pci.ko.xz"
    r = run(host, "insmod", path)
    assert (r.returncode, r.stderr) == (
        1,
        "insmod: ERROR: could not insert module %s: Unknown " "symbol in module\n" % path,
    )
    assert run(host, "insmod", "/x/vfio.ko").returncode == 0
    assert run(host, "insmod", path).returncode == 0
    assert "vfio_pci" in [m["name"] for m in kernel.modules_loaded(host.state_dir)]
