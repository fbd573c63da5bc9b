# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The 7.x profiles (docs/lab-profiles.md): Ubuntu 26.04 LTS (Linux 7.0 with DIBS, smc as a module,
smc-tools 1.8.7) and Debian's stock s390x Linux 7.2, built without DIBS and so without SMC and ISM
(``config SMC`` and ``config ISM`` depend on ``DIBS`` since 6.18). What the collection reads to tell
them apart: /proc/sys/net/smc, modules.dep and modules.builtin, /boot/config-<release>, modprobe,
/sys/class/dibs."""

import errno

from toolrun import run

from zlab import kernel, model, profiles

SMC = "/proc/sys/net/smc"
KEYS_70 = sorted(
    [
        "autocorking_size",
        "hs_ctrl",
        "limit_smc_hs",
        "rmem",
        "smcr_buf_type",
        "smcr_max_conns_per_lgr",
        "smcr_max_links_per_lgr",
        "smcr_max_recv_wr",
        "smcr_max_send_wr",
        "smcr_testlink_time",
        "wmem",
    ]
)
U2604 = "7.0.0-14-generic"
D72 = "7.2.3+deb14-s390x"
SLOT = "/sys/bus/pci/slots/00000605"
ADDR = "0605:00:00.0"


def test_both_are_profiles_the_model_takes():
    assert {"ubuntu26.04", "debian7.2-nosmc"} <= set(model.KERNEL_PROFILES)


def test_ubuntu_2604_release_os_and_tools(boot_host):
    h = boot_host(kernel_profile="ubuntu26.04")
    assert h.read("/proc/sys/kernel/osrelease") == U2604 + "\n"
    prof = profiles.get("ubuntu26.04")
    assert 'VERSION_ID="26.04"' in prof["os_release"] and prof["network"] == "netplan"
    # the files zlab writes into the host's root (/etc/zlab/smc-tools-version picks the tools' version)
    assert prof["extra_files"]["/etc/zlab/smc-tools-version"] == "1.8.7\n"
    config = prof["extra_files"]["/boot/config-" + U2604]
    assert "CONFIG_DIBS=y\n" in config and "CONFIG_SMC=m\n" in config


def test_ubuntu_2604_smc_module_keys_and_dibs(boot_host):
    h = boot_host(kernel_profile="ubuntu26.04")
    prof = profiles.get("ubuntu26.04")
    dep = profiles.modules_dep(prof)
    assert "kernel/net/smc/smc.ko.zst: kernel/drivers/infiniband/core/ib_core.ko.zst\n" in dep
    assert "kernel/drivers/dibs/dibs.ko\n" in profiles.modules_builtin(prof)
    assert h.listdir("/sys/class/dibs") == ["lo"]
    assert h.read("/sys/class/dibs/lo/fabric_id") == "0xffff\n"
    assert not h.exists(SMC)
    kernel.load_module(h.state_dir, "smc")
    assert h.listdir(SMC) == KEYS_70
    for key in ("smcr_max_send_wr", "smcr_max_recv_wr"):
        assert h.errno_of_write(SMC + "/" + key, "2049\n") == errno.EINVAL
    assert h.read(SMC + "/smcr_max_send_wr") == "16\n" and h.read(SMC + "/smcr_max_recv_wr") == "48\n"
    h.write(SLOT + "/power", "1\n")
    assert h.listdir("/sys/class/dibs") == ["ism605", "lo"]
    assert h.readlink("/sys/bus/pci/devices/%s/driver" % ADDR) == "../../../bus/pci/drivers/ism"


def test_debian_72_has_no_smc_no_ism_no_dibs(boot_host):
    h = boot_host(kernel_profile="debian7.2-nosmc")
    assert h.read("/proc/sys/kernel/osrelease") == D72 + "\n"
    prof = profiles.get("debian7.2-nosmc")
    assert not {"smc", "smc_diag", "ism", "dibs"} & set(prof["modules"])
    dep, builtin = profiles.modules_dep(prof), profiles.modules_builtin(prof)
    assert "net/smc" not in dep + builtin and "dibs" not in dep + builtin and "s390/net/ism" not in dep
    config = prof["extra_files"]["/boot/config-" + D72]
    assert "# CONFIG_DIBS is not set\n" in config and "CONFIG_SMC" not in config
    assert not h.exists("/sys/class/dibs") and not h.exists(SMC)


def test_debian_72_modprobe_smc_fails_and_ism_functions_stay_unbound(boot_host):
    h = boot_host(kernel_profile="debian7.2-nosmc")
    r = run(h, "modprobe", "smc")
    assert (r.returncode, r.stderr) == (1, "modprobe: FATAL: Module smc not found in directory /lib/modules/%s\n" % D72)
    assert not kernel.module_present(h.state_dir, "smc")
    # the ISM function powers on, but no driver takes it (no ism module) and no dibs device appears
    h.write(SLOT + "/power", "1\n")
    assert h.exists("/sys/bus/pci/devices/" + ADDR)
    assert not h.exists("/sys/bus/pci/devices/%s/driver" % ADDR)
    assert not h.exists("/sys/bus/pci/drivers/ism")
    assert not h.exists("/sys/class/dibs")
    assert not h.exists(SMC) and not h.exists("/sys/module/smc")


def test_each_profile_installs_its_module_index():
    # what the collection's kernel_support reads on a lab host: /lib/modules/<release>/modules.{dep,builtin}
    for name in ("ubuntu26.04", "debian7.2-nosmc", "rhel8.8"):
        prof = profiles.get(name)
        files = profiles.module_index_files(prof)
        base = "/lib/modules/%s/" % prof["osrelease"]
        assert files == {
            base + "modules.dep": profiles.modules_dep(prof),
            base + "modules.builtin": profiles.modules_builtin(prof),
        }
    assert (
        "net/smc/smc.ko"
        in profiles.module_index_files(profiles.get("rhel8.8"))["/lib/modules/4.18.0-477.10.1.el8_8.s390x/modules.dep"]
    )
