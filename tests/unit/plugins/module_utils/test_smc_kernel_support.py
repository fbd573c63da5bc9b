# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""kernel_support.probe: whether a kernel has SMC, from what its host shows (fixture trees shaped
as Debian's s390x 7.2 without SMC, Ubuntu 26.04's 7.0 and a loaded 6.19)."""

import pytest

from ansible_collections.s390x.network.plugins.module_utils.smc import kernel_support as ks

DEBIAN_72 = "7.2.0-1-s390x"
# Debian's s390x config of 7.2: DIBS off, no CONFIG_SMC line at all (config SMC depends on DIBS)
DEBIAN_72_CONFIG = "CONFIG_S390=y\n# CONFIG_DIBS is not set\nCONFIG_RDMA_RXE=m\nCONFIG_MLX5_CORE=m\n"
UBUNTU_70 = "7.0.0-15-generic"
UBUNTU_70_CONFIG = "CONFIG_DIBS=y\nCONFIG_DIBS_LO=y\nCONFIG_SMC=m\nCONFIG_SMC_DIAG=m\n"


def _tree(root, release, dep=None, builtin=None, config=None):
    (root / "proc/sys/kernel").mkdir(parents=True, exist_ok=True)
    (root / "proc/sys/kernel/osrelease").write_text(release + "\n")
    mods = root / "lib/modules" / release
    mods.mkdir(parents=True, exist_ok=True)
    if dep is not None:
        (mods / "modules.dep").write_text(dep)
    if builtin is not None:
        (mods / "modules.builtin").write_text(builtin)
    if config is not None:
        (root / "boot").mkdir(exist_ok=True)
        (root / "boot" / ("config-" + release)).write_text(config)


def test_debian_72_without_smc_names_every_piece_of_evidence(host_root):
    _tree(
        host_root, DEBIAN_72, "kernel/drivers/net/ethernet/mellanox/mlx5/core/mlx5_core.ko.xz:\n", "", DEBIAN_72_CONFIG
    )
    got = ks.probe(ks.kernel_release())
    assert got["available"] is False and got["state"] == ks.NOT_BUILT
    assert got["reason"] == (
        "SMC not built into this kernel (7.2.0-1-s390x): no net/smc/smc.ko in /lib/modules/7.2.0-1-s390x/"
        "modules.dep or modules.builtin; /boot/config-7.2.0-1-s390x has no CONFIG_SMC; CONFIG_DIBS is not set "
        "there either (SMC depends on DIBS since Linux 6.18)"
    )
    assert got["dibs"] is False and got["tcp_ulp"] is None


def test_the_boot_config_alone_decides_when_the_module_tree_is_missing(host_root):
    _tree(host_root, DEBIAN_72, config=DEBIAN_72_CONFIG)
    got = ks.probe(DEBIAN_72)
    assert got["available"] is False
    assert got["reason"].startswith("SMC not built into this kernel (7.2.0-1-s390x): /boot/config-7.2.0-1-s390x has")


def test_a_config_with_smc_not_set_but_dibs(host_root):
    _tree(host_root, "6.19.0", config="CONFIG_DIBS=y\n# CONFIG_SMC is not set\n")
    got = ks.probe("6.19.0")
    assert got["available"] is False and "CONFIG_DIBS" not in got["reason"]


def test_ubuntu_70_with_smc_as_a_module_and_dibs(host_root):
    _tree(
        host_root,
        UBUNTU_70,
        "kernel/net/smc/smc.ko.zst: kernel/drivers/infiniband/core/ib_core.ko.zst\n",
        "kernel/drivers/dibs/dibs.ko\n",
        UBUNTU_70_CONFIG,
    )
    (host_root / "sys/class/dibs/lo").mkdir(parents=True)
    got = ks.probe(UBUNTU_70)
    assert (got["available"], got["state"], got["dibs"]) == (True, ks.MODULE, True)
    (host_root / "proc/sys/net/smc").mkdir(parents=True)
    (host_root / "proc/sys/net/ipv4").mkdir(parents=True)
    (host_root / "proc/sys/net/ipv4/tcp_available_ulp").write_text("espintcp mptcp tls\n")
    got = ks.probe(UBUNTU_70)
    assert got["state"] == ks.LOADED and got["reason"] == "smc is loaded (/proc/sys/net/smc exists)"
    assert got["tcp_ulp"] is False  # 7.0 removed the ULP "smc"


def test_built_in_smc(host_root):
    _tree(host_root, "6.12.0", "", "kernel/net/smc/smc.ko\n")
    assert ks.probe("6.12.0")["state"] == ks.BUILTIN


def test_nothing_readable_is_unknown_and_modprobe_then_decides(host_root):
    _tree(host_root, "6.8.0-31-generic")
    got = ks.probe("6.8.0-31-generic")
    assert got["available"] is None and got["state"] == ks.UNKNOWN
    failed = ks.with_modprobe_error(got, "modprobe: FATAL: Module smc not found in directory /lib/modules/6.8.0-31\n")
    assert failed["available"] is False
    assert failed["reason"] == (
        "SMC not built into this kernel (6.8.0-31-generic): modprobe smc failed: modprobe: FATAL: Module smc not "
        "found in directory /lib/modules/6.8.0-31"
    )


def test_a_loaded_ulp_smc_before_70(host_root):
    _tree(host_root, "6.12.0")
    (host_root / "sys/module/smc").mkdir(parents=True)
    (host_root / "proc/sys/net/ipv4").mkdir(parents=True)
    (host_root / "proc/sys/net/ipv4/tcp_available_ulp").write_text("smc tls\n")
    got = ks.probe("6.12.0")
    assert got["tcp_ulp"] is True and got["reason"] == "smc is loaded (/sys/module/smc exists)"


@pytest.mark.parametrize("release", ["", "6.1 x", "../etc"])
def test_a_release_that_is_no_uname_text_is_refused(host_root, release):
    with pytest.raises(ValueError, match="kernel release"):
        ks.probe(release)


@pytest.mark.parametrize(
    "dep",
    [
        # a rebuilt smc.ko that depmod prefers over the distribution's (modules.dep lists only that one)
        "updates/smc.ko: kernel/drivers/s390/net/ism.ko.xz kernel/drivers/infiniband/core/ib_core.ko.xz\n",
        "updates/dkms/smc.ko.zst: kernel/drivers/infiniband/core/ib_core.ko.zst\n",
        "extra/smc.ko.gz:\n",
    ],
)
def test_an_smc_module_outside_net_smc_is_installed(host_root, dep):
    _tree(host_root, "6.12.0", "updates/smc_diag.ko: updates/smc.ko\n" + dep, "")
    assert ks.probe("6.12.0")["state"] == ks.MODULE


@pytest.mark.parametrize(
    "other", ["kernel/net/smc/smc_diag.ko.xz:\n", "updates/dsmc.ko:\n", "kernel/net/smc/smc.ko.bak:\n"]
)
def test_other_modules_are_not_smc(host_root, other):
    _tree(host_root, "6.12.0", other, "")
    assert ks.probe("6.12.0")["state"] == ks.NOT_BUILT
