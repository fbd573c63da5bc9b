# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The distribution profiles RHEL 9.4, RHEL 10.0, SLES 15 SP6, SLES 16.0 and Ubuntu 24.04: kernel
release, the net.smc.* keys with their defaults and ranges, the SMC buffer rule, the module
catalogue and the distribution data (docs/lab-profiles.md gives each fact with its source;
net/smc/smc_sysctl.c, net/smc/smc_core.c, drivers/s390/net/Kconfig)."""

import errno
import os

import pytest

from zlab import kernel, model, profiles

SMC = "/proc/sys/net/smc"
KEYS_65 = ["autocorking_size", "rmem", "smcr_buf_type", "smcr_testlink_time", "wmem"]
KEYS_68 = sorted(KEYS_65 + ["smcr_max_conns_per_lgr", "smcr_max_links_per_lgr"])
KEYS_612 = sorted(KEYS_68 + ["limit_smc_hs"])
KEYS_RHEL9 = sorted(k for k in KEYS_68 if k not in ("rmem", "wmem"))

# profile: (osrelease, net.smc keys once smc is loaded, buffer rule)
NEW = {
    "rhel9.4": ("5.14.0-427.13.1.el9_4.s390x", KEYS_RHEL9, "tcp_half"),
    "rhel10.0": ("6.12.0-55.9.1.el10_0.s390x", KEYS_612, "sysctl"),
    "sles15sp6": ("6.4.0-150600.23.7-default", KEYS_68, "sysctl"),
    "sles16.0": ("6.12.0-160000.5-default", KEYS_612, "sysctl"),
    "ubuntu24.04": ("6.8.0-31-generic", KEYS_68, "sysctl"),
}
NET_SMC = sorted(p for p, (_r, _k, rule) in NEW.items() if rule == "sysctl")


def test_model_accepts_every_profile():
    # zlab_kernel takes exactly the profiles the emulated kernel knows
    assert sorted(model.KERNEL_PROFILES) == sorted(profiles.PROFILES)
    assert set(NEW) <= set(profiles.PROFILES)


@pytest.mark.parametrize("prof", sorted(NEW))
def test_osrelease_and_version(boot_host, prof):
    release = NEW[prof][0]
    h = boot_host(kernel_profile=prof)
    assert h.read("/proc/sys/kernel/osrelease") == release + "\n"
    p = profiles.get(prof)
    assert ".".join(str(n) for n in p["version"]) == ".".join(release.split(".")[:2])


@pytest.mark.parametrize("prof", sorted(NEW))
def test_smc_keys_appear_with_smc(boot_host, prof):
    h = boot_host(kernel_profile=prof)
    assert not h.exists(SMC)
    kernel.load_module(h.state_dir, "smc")
    assert h.listdir(SMC) == NEW[prof][1]
    assert h.read(SMC + "/autocorking_size") == "65536\n"
    assert h.read(SMC + "/smcr_buf_type") == "0\n"
    assert h.read(SMC + "/smcr_testlink_time") == "30\n"
    assert h.read(SMC + "/smcr_max_links_per_lgr") == "2\n"
    assert h.read(SMC + "/smcr_max_conns_per_lgr") == "255\n"


def test_rhel94_has_net_smc_but_no_rmem(boot_host):
    # RHEL 9's net.smc has the SMC-R keys but not rmem/wmem: the TCP rule sizes the buffers
    h = boot_host(kernel_profile="rhel9.4")
    kernel.load_module(h.state_dir, "smc")
    assert h.exists(SMC)
    assert not h.exists(SMC + "/rmem")
    assert not h.exists(SMC + "/wmem")
    assert h.errno_of_write(SMC + "/smcr_buf_type", "3\n") == errno.EINVAL
    h.write(SMC + "/smcr_buf_type", "1\n")
    assert h.read(SMC + "/smcr_buf_type") == "1\n"


@pytest.mark.parametrize("prof", NET_SMC)
def test_rmem_wmem_64k_and_capped(boot_host, prof):
    # 6.4.y with 833bac7ec392, 6.8, 6.12: 64 KiB defaults whatever TCP says, 16 KiB .. INT_MAX/2
    h = boot_host(kernel_profile=prof)
    kernel.load_module(h.state_dir, "smc")
    assert h.read("/proc/sys/net/ipv4/tcp_rmem") == "4096\t262144\t6291456\n"
    for key in ("rmem", "wmem"):
        assert h.read(SMC + "/" + key) == "65536\n"
        assert h.errno_of_write(SMC + "/" + key, "16383\n") == errno.EINVAL
        assert h.errno_of_write(SMC + "/" + key, "1073741824\n") == errno.EINVAL
        h.write(SMC + "/" + key, "1073741823\n")
        assert h.read(SMC + "/" + key) == "1073741823\n"


@pytest.mark.parametrize("prof,present", [("rhel10.0", True), ("sles16.0", True), ("ubuntu24.04", False)])
def test_limit_smc_hs_from_612(boot_host, prof, present):
    h = boot_host(kernel_profile=prof)
    kernel.load_module(h.state_dir, "smc")
    assert h.exists(SMC + "/limit_smc_hs") is present
    if present:
        assert h.read(SMC + "/limit_smc_hs") == "0\n"
        assert h.errno_of_write(SMC + "/limit_smc_hs", "2\n") == errno.EINVAL
        h.write(SMC + "/limit_smc_hs", "1\n")
        assert h.read(SMC + "/limit_smc_hs") == "1\n"


def test_smcr_v21_ranges(boot_host):
    h = boot_host(kernel_profile="sles15sp6")
    kernel.load_module(h.state_dir, "smc")
    assert h.errno_of_write(SMC + "/smcr_max_links_per_lgr", "3\n") == errno.EINVAL
    assert h.errno_of_write(SMC + "/smcr_max_conns_per_lgr", "15\n") == errno.EINVAL
    h.write(SMC + "/smcr_max_conns_per_lgr", "16\n")
    assert h.read(SMC + "/smcr_max_conns_per_lgr") == "16\n"


def test_buffer_rules():
    rhel9 = profiles.get("rhel9.4")
    # half of tcp_rmem[1]: the study's 262144 gives 128 KiB; the defaults give 64 KiB / 16 KiB
    assert profiles.smc_buffer_size(rhel9, "rmem", "SMCD", tcp_mem1=262144) == 131072
    assert profiles.smc_buffer_size(rhel9, "rmem", "SMCD") == 65536
    assert profiles.smc_buffer_size(rhel9, "wmem", "SMCD") == 16384
    for prof in NET_SMC:
        p = profiles.get(prof)
        # the sysctl alone decides; TCP values do not matter
        assert profiles.smc_buffer_size(p, "rmem", "SMCD", tcp_mem1=262144) == 65536
        assert profiles.smc_buffer_size(p, "rmem", "SMCD", smc_sysctl={"rmem": 131072}) == 131072
        assert profiles.smc_buffer_size(p, "wmem", "SMCR", smc_sysctl={"wmem": 4 << 20}) == 512 << 10
        assert profiles.smc_sysctl_defaults(p)["rmem"] == profiles.smc_sysctl_defaults(p)["wmem"] == 65536


@pytest.mark.parametrize(
    "prof,os_id,version_id,family,s390_tools",
    [
        ("rhel9.4", 'ID="rhel"', 'VERSION_ID="9.4"', "RedHat", "s390utils-base"),
        ("rhel10.0", 'ID="rhel"', 'VERSION_ID="10.0"', "RedHat", "s390utils-base"),
        ("sles15sp6", 'ID="sles"', 'VERSION_ID="15.6"', "Suse", "s390-tools"),
        ("sles16.0", 'ID="sles"', 'VERSION_ID="16.0"', "Suse", "s390-tools"),
        ("ubuntu24.04", "ID=ubuntu", 'VERSION_ID="24.04"', "Debian", "s390-tools"),
    ],
)
def test_distribution_data(prof, os_id, version_id, family, s390_tools):
    p = profiles.get(prof)
    lines = p["os_release"].splitlines()
    assert os_id in lines and version_id in lines
    assert p["family"] == family
    assert p["packages"]["s390-tools"] == s390_tools
    assert p["packages"]["smc-tools"] == "smc-tools"
    assert p["s390_tools"] == "debian13"
    if family == "RedHat":
        release = p["extra_files"]["/etc/redhat-release"]
        assert release.startswith("Red Hat Enterprise Linux release " + version_id.split('"')[1] + " (")
        assert p["packages"]["libvirt"] == "libvirt" and p["packages"]["qemu"] == "qemu-kvm"
    else:
        assert p["extra_files"] == {}
    if family == "Suse":
        assert p["packages"]["libvirt"] == "libvirt-daemon-qemu" and p["packages"]["qemu"] == "qemu-s390x"
    if family == "Debian":
        assert p["packages"]["libvirt"] == "libvirt-daemon-system"


@pytest.mark.parametrize(
    "prof,suffix",
    [("rhel9.4", ".ko.xz"), ("rhel10.0", ".ko.xz"), ("sles15sp6", ".ko.zst"), ("sles16.0", ".ko.zst")],
)
def test_module_catalogue_modules(prof, suffix):
    p = profiles.get(prof)
    assert profiles.module_filename(p, "ism") == "kernel/drivers/s390/net/ism" + suffix
    assert profiles.module_filename(p, "vfio-pci") == "kernel/drivers/vfio/pci/vfio-pci" + suffix
    assert profiles.modules_builtin(p) == ""
    dep = {ln.split(":")[0]: ln.split(":")[1].split() for ln in profiles.modules_dep(p).splitlines()}
    smc, ism = "kernel/net/smc/smc" + suffix, "kernel/drivers/s390/net/ism" + suffix
    if prof == "rhel9.4":  # 5.14: ism registers with smc
        assert smc in dep[ism] and ism not in dep[smc]
    else:  # 6.3+ (89e7d2ba61b7): smc is an ism client
        assert ism in dep[smc] and smc not in dep[ism]


def test_ubuntu2404_vfio_built_in():
    p = profiles.get("ubuntu24.04")
    assert profiles.module_filename(p, "vfio_pci") == "(builtin)"
    assert profiles.module_filename(p, "ism") == "kernel/drivers/s390/net/ism.ko.zst"
    assert "kernel/drivers/vfio/pci/vfio-pci.ko\n" in profiles.modules_builtin(p)


@pytest.mark.parametrize("prof", ["sles15sp6", "ubuntu24.04"])
def test_smcd_device_needs_smc_loaded_on_6x(boot_host, prof):
    # ism probes the function on its own; SMC-D has the device once smc (an ism client) is loaded
    h = boot_host(kernel_profile=prof)
    h.write("/sys/bus/pci/slots/00000605/power", "1")
    assert h.readlink("/sys/bus/pci/devices/0605:00:00.0/driver").endswith("/ism")
    assert kernel.smcd_devices(h.state_dir) == []
    kernel.load_module(h.state_dir, "smc")
    assert [d["pci_id"] for d in kernel.smcd_devices(h.state_dir)] == ["0605:00:00.0"]
    mods = {m["name"]: m for m in kernel.modules_loaded(h.state_dir)}
    assert "smc" in mods["ism"]["holders"]


@pytest.mark.parametrize("prof", sorted(NEW))
def test_boot_applies_tcp_defaults(boot_host, prof):
    # the namespace had the build machine's values; the profile's kernel boots with tcp_init()'s
    h = boot_host(kernel_profile=prof)
    proc_sys = os.path.join(h.zroot, "proc", "sys")
    real = {k: os.path.join(h.real_net, "ipv4", k) for k in ("tcp_rmem", "tcp_wmem")}
    saved = {}
    for k, path in real.items():
        with open(path, encoding="ascii") as f:
            saved[k] = f.read()
    try:
        kernel.apply_sysctl_defaults(h.state_dir, proc_sys)
        with open(real["tcp_rmem"], encoding="ascii") as f:
            assert f.read().split() == ["4096", "131072", "6291456"]
        with open(real["tcp_wmem"], encoding="ascii") as f:
            assert f.read().split() == ["4096", "16384", "4194304"]
        assert h.read("/proc/sys/net/core/rmem_max") == "262144\n"
        kernel.load_module(h.state_dir, "smc")
        if NEW[prof][2] == "sysctl":  # 64 KiB, not tcp_rmem[1]
            assert h.read(SMC + "/rmem") == "65536\n"
        else:
            assert not h.exists(SMC + "/rmem")
    finally:
        for k, path in real.items():
            with open(path, "w", encoding="ascii") as f:
                f.write(saved[k])


@pytest.mark.parametrize(
    "prof,network",
    [
        ("rhel8.8", "NetworkManager"),
        ("rhel9.4", "NetworkManager"),
        ("rhel10.0", "NetworkManager"),
        ("sles16.0", "NetworkManager"),
        ("sles15sp6", "wicked"),
        ("ubuntu24.04", "netplan"),
        ("linux6.12", "ifupdown"),
    ],
)
def test_interface_configuration_of_a_server_installation(prof, network):
    # RHEL 8-10 and SLES 16 configure interfaces with NetworkManager, SLES 15 with wicked, Ubuntu
    # server with netplan (systemd-networkd), Debian with ifupdown; the lab runs NetworkManager
    # in the hosts of the first group only
    assert profiles.get(prof)["network"] == network
