# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The linux6.19 profile: the DIBS layer and the 6.19 net.smc set (docs/lab-profiles.md).

Facts: drivers/dibs/dibs_main.c (class "dibs"; attributes gid "%pUb" and fabric_id "0x%04x"),
drivers/dibs/dibs_loopback.c (the device "lo" without parent, fabric DIBS_LOOPBACK_FABRIC 0xffff of
include/linux/dibs.h), drivers/s390/net/ism_drv.c (ism_probe: the dibs device "ism%x" of the
zPCI UID, else FID, as a child of the PCI function; fabric_id is the PCHID; the PCI function stays
bound to the ism PCI driver), net/smc/smc_sysctl.c (smcr_max_send_wr/recv_wr 2..2048, hs_ctrl).
"""

import errno
import re

from zlab import kernel, profiles

SMC = "/proc/sys/net/smc"
SLOT = "/sys/bus/pci/slots/00000605"
ADDR = "0605:00:00.0"
DEV = "/sys/bus/pci/devices/" + ADDR
KEYS_612 = [
    "autocorking_size",
    "limit_smc_hs",
    "rmem",
    "smcr_buf_type",
    "smcr_max_conns_per_lgr",
    "smcr_max_links_per_lgr",
    "smcr_testlink_time",
    "wmem",
]
KEYS_619 = sorted(KEYS_612 + ["hs_ctrl", "smcr_max_recv_wr", "smcr_max_send_wr"])
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\n")


def test_release_and_tcp_defaults(boot_host):
    h = boot_host(kernel_profile="linux6.19")
    assert h.read("/proc/sys/kernel/osrelease") == "6.19.0\n"
    assert profiles.get("linux6.19")["sysctls"]["net.ipv4.tcp_rmem"] == "4096 131072 33554432"


def test_the_619_net_smc_set_with_defaults(boot_host):
    h = boot_host(kernel_profile="linux6.19")
    kernel.load_module(h.state_dir, "smc")
    assert h.listdir(SMC) == KEYS_619
    assert h.read(SMC + "/smcr_max_send_wr") == "16\n"
    assert h.read(SMC + "/smcr_max_recv_wr") == "48\n"
    assert h.read(SMC + "/hs_ctrl") == "\n"
    assert h.read(SMC + "/rmem") == "65536\n"


def test_work_request_ranges(boot_host):
    h = boot_host(kernel_profile="linux6.19")
    kernel.load_module(h.state_dir, "smc")
    for key in ("smcr_max_send_wr", "smcr_max_recv_wr"):
        assert h.errno_of_write(SMC + "/" + key, "1\n") == errno.EINVAL
        assert h.errno_of_write(SMC + "/" + key, "2049\n") == errno.EINVAL
        h.write(SMC + "/" + key, "2048\n")
        assert h.read(SMC + "/" + key) == "2048\n"


def test_hs_ctrl_takes_only_a_registered_name(boot_host):
    # no BPF smc_hs_ctrl is registered in the lab: a name is EINVAL, an empty value clears
    h = boot_host(kernel_profile="linux6.19")
    kernel.load_module(h.state_dir, "smc")
    assert h.errno_of_write(SMC + "/hs_ctrl", "smc_ctl\n") == errno.EINVAL
    h.write(SMC + "/hs_ctrl", "\n")
    assert h.read(SMC + "/hs_ctrl") == "\n"


def test_older_profiles_have_no_dibs_and_no_new_keys(boot_host):
    h = boot_host(kernel_profile="linux6.12")
    h.write(SLOT + "/power", "1\n")
    assert not h.exists("/sys/class/dibs")
    assert not h.exists(DEV + "/dibs")
    kernel.load_module(h.state_dir, "smc")
    assert h.listdir(SMC) == KEYS_612


def test_dibs_loopback_exists_from_boot(boot_host):
    h = boot_host(kernel_profile="linux6.19")
    assert h.listdir("/sys/class/dibs") == ["lo"]
    assert h.readlink("/sys/class/dibs/lo") == "../../devices/virtual/dibs/lo"
    lo = "/sys/devices/virtual/dibs/lo"
    assert sorted(h.listdir(lo)) == ["fabric_id", "gid", "subsystem", "uevent"]
    assert h.read(lo + "/fabric_id") == "0xffff\n"
    assert UUID.fullmatch(h.read(lo + "/gid"))
    assert h.readlink(lo + "/subsystem") == "../../../../class/dibs"


def test_ism_function_is_a_dibs_device_and_stays_bound_to_ism(boot_host):
    h = boot_host(kernel_profile="linux6.19")
    h.write(SLOT + "/power", "1\n")
    # the PCI side is unchanged: the function is bound to the ism PCI driver
    assert h.readlink(DEV + "/driver") == "../../../bus/pci/drivers/ism"
    assert ADDR in h.listdir("/sys/bus/pci/drivers/ism")
    assert h.listdir("/sys/class/dibs") == ["ism605", "lo"]
    assert h.readlink("/sys/class/dibs/ism605") == "../../devices/pci0605:00/0605:00:00.0/dibs/ism605"
    ism = DEV + "/dibs/ism605"
    assert sorted(h.listdir(ism)) == ["device", "fabric_id", "gid", "subsystem", "uevent"]
    assert h.readlink(ism + "/device") == "../../../0605:00:00.0"
    assert h.read(ism + "/fabric_id") == "0x07c8\n"  # the PCHID (VCHID) of LPAR_A's ISM function
    gid = h.read(ism + "/gid")
    assert UUID.fullmatch(gid) and gid.endswith("-0000-000000000000\n")  # 8-byte ISM GID, zero-filled
    # unbinding ism removes the dibs device
    h.write("/sys/bus/pci/drivers/ism/unbind", ADDR)
    assert h.listdir("/sys/class/dibs") == ["lo"]
    assert not h.exists(DEV + "/dibs")


def test_dibs_name_falls_back_to_the_fid(boot_host):
    h = boot_host(kernel_profile="linux6.19", pci=[{"fid": 0x10, "uid": 0, "pchid": 0x7C8, "vfn": 3}])
    h.write("/sys/bus/pci/slots/00000010/power", "1\n")
    assert "ism10" in h.listdir("/sys/class/dibs")


def test_smc_no_longer_pulls_ism(boot_host):
    cat = profiles.get("linux6.19")["modules"]
    assert cat["dibs"]["builtin"] and cat["ism"]["deps"] == ["dibs"]
    assert cat["smc"]["deps"] == ["ib_core", "dibs"]
    dep = profiles.modules_dep(profiles.get("linux6.19"))
    assert "kernel/net/smc/smc.ko.xz: kernel/drivers/infiniband/core/ib_core.ko.xz\n" in dep
    assert "kernel/drivers/dibs/dibs.ko\n" in profiles.modules_builtin(profiles.get("linux6.19"))
