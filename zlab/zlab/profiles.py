# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Kernel profiles: what an emulated host's kernel and distribution look like.

A profile decides:
- ``osrelease`` (``/proc/sys/kernel/osrelease``, ``uname -r``) and the version tuple;
- which ``net.smc.*`` sysctls exist once ``smc`` is loaded, their ranges and defaults;
- how SMC buffer sizes are derived (:func:`smc_requested_size`, :func:`smc_effective_size`);
- the module catalogue (built-in vs loadable, dependencies, PCI/CCW drivers registered);
- the distribution: ``/etc/os-release`` text and package names roles install.

Facts: upstream net/smc/smc_sysctl.c
(6.1: autocorking_size, smcr_buf_type, smcr_testlink_time, wmem, rmem defaulting to
tcp_{w,r}mem[1], min 16 KiB, no max; 6.5 and the 6.4 stable fix: default 64 KiB, max INT_MAX/2;
6.8: smcr_max_links_per_lgr 1..2, smcr_max_conns_per_lgr 16..255) and net/smc/smc_core.c
(smc_compress_bufsize: 16 KiB * 2^n, SMC-D capped at 1 MiB, SMC-R at 512 KiB).
Distribution kernels backport: the SLES 15 SP5 profile carries the 6.1 sysctl set on 5.14 [I],
the RHEL 8.8 profile has no net.smc sysctls (the study's tcp_rmem[1]/2 rule).
"""

INT_MAX = 2147483647
UINT_MAX = 4294967295
SMC_BUF_MIN = 16384
SMCD_MAX_BUF = 1 << 20
SMCR_MAX_BUF = 512 << 10

# One entry per net.smc key: (kind, min, max, default). kind: "uint", "int", "jiffies", "bool", or
# "string" (max: the longest value).
# default "tcp_wmem1"/"tcp_rmem1" means: taken from net.ipv4.tcp_{w,r}mem[1] when smc loads.
_SMC_61 = {
    "autocorking_size": ("uint", 0, UINT_MAX, 65536),
    "smcr_buf_type": ("uint", 0, 2, 0),
    "smcr_testlink_time": ("jiffies", -INT_MAX // 1000, INT_MAX // 1000, 30),
    "wmem": ("int", SMC_BUF_MIN, INT_MAX, "tcp_wmem1"),
    "rmem": ("int", SMC_BUF_MIN, INT_MAX, "tcp_rmem1"),
}
_SMC_65 = dict(_SMC_61)
_SMC_65.update(
    {
        "wmem": ("int", SMC_BUF_MIN, INT_MAX // 2, 65536),
        "rmem": ("int", SMC_BUF_MIN, INT_MAX // 2, 65536),
    }
)
_SMC_612 = dict(_SMC_65)
_SMC_612.update(
    {
        "smcr_max_links_per_lgr": ("int", 1, 2, 2),
        "smcr_max_conns_per_lgr": ("int", 16, 255, 255),
        "limit_smc_hs": ("bool", 0, 1, 0),
    }
)

# The net.smc.* sets of the distribution profiles below (their sources: docs/lab-profiles.md).
# 6.8 (upstream v6.8, Ubuntu 24.04's 6.8.0): the 6.5 set plus smcr_max_links_per_lgr and
# smcr_max_conns_per_lgr ("Networking for v6.8"); limit_smc_hs is a sysctl only from 6.12.
_SMC_68 = {k: v for k, v in _SMC_612.items() if k != "limit_smc_hs"}
# 6.19 (net/smc/smc_sysctl.c, Documentation/networking/smc-sysctl.rst): smcr_max_send_wr and
# smcr_max_recv_wr (proc_dointvec_minmax 2..2048, defaults SMCR_MAX_SEND_WR_DEF 16 and
# SMCR_MAX_RECV_WR_DEF 48) and, with CONFIG_SMC_HS_CTRL_BPF (default y), hs_ctrl: a string
# (proc_dostring, SMC_HS_CTRL_NAME_MAX 16) naming a registered BPF smc_hs_ctrl, empty for none.
_SMC_619 = dict(_SMC_612)
_SMC_619.update(
    {
        "smcr_max_send_wr": ("int", 2, 2048, 16),
        "smcr_max_recv_wr": ("int", 2, 2048, 48),
        "hs_ctrl": ("string", 0, 15, ""),
    }
)
# 7.0 (Ubuntu 26.04 LTS): the 6.19 set; the TCP ULP "smc" is gone (it never had a sysctl).
_SMC_70 = dict(_SMC_619)
# RHEL 9 (5.14.0-*.el9): no net.smc.rmem/wmem; the other keys of the 6.8 set (the RHEL 9
# kernel-doc smc-sysctl.rst and a RHEL 9-derived net/smc/smc_sysctl.c list exactly these).
_SMC_RHEL9 = {k: v for k, v in _SMC_68.items() if k not in ("rmem", "wmem")}

# Boot defaults of the sysctls the collection reads, as the profile's s390x kernel has them (a
# host's netns starts with the build machine's). tcp_{r,w}mem: tcp_init() with enough memory,
# tcp_rmem[1] 128 KiB since 4.20 (RHEL 8 has it too). net.core.{r,w}mem_max: SK_{R,W}MEM_MAX =
# 256 * SKB_TRUESIZE(256), 262144 with s390x's 256-byte cache lines (212992 on x86_64).
SYSCTL_DEFAULTS = {
    "net.ipv4.tcp_rmem": "4096 131072 6291456",
    "net.ipv4.tcp_wmem": "4096 16384 4194304",
    "net.core.rmem_max": "262144",
    "net.core.wmem_max": "262144",
}


def _mod(
    builtin=False,
    deps=(),
    pci_drivers=(),
    ccw_drivers=(),
    ccwgroup_drivers=(),
    description="",
    params=None,
    alias_ids=(),
):
    return {
        "builtin": builtin,
        "deps": list(deps),
        "pci_drivers": list(pci_drivers),
        "ccw_drivers": list(ccw_drivers),
        "ccwgroup_drivers": list(ccwgroup_drivers),
        "description": description,
        "params": dict(params or {}),
    }


def _catalog(vfio_builtin=False, ism_builtin=False, ism_needs_smc=True, vfio_core=True, dibs=False, smc=True):
    """``dibs``: the DIBS layer of 6.18+ (drivers/dibs): ism and smc both depend on the dibs
    module (built in, as the s390 defconfig has CONFIG_DIBS=y), smc no longer on ism.
    ``smc=False``: a 6.18+ kernel built without DIBS, so without SMC and ISM (``config SMC`` and
    ``config ISM`` depend on ``DIBS``): no smc, smc_diag, ism or dibs module."""
    cat = {
        "qdio": _mod(description="QDIO base support"),
        "ccwgroup": _mod(description="ccwgroup bus driver"),
        "qeth": _mod(
            deps=["qdio", "ccwgroup"], ccw_drivers=["qeth"], ccwgroup_drivers=["qeth"], description="qeth device driver"
        ),
        "qeth_l2": _mod(deps=["qeth"], description="qeth layer 2 discipline"),
        "qeth_l3": _mod(deps=["qeth"], description="qeth layer 3 discipline"),
        "ib_core": _mod(description="core kernel InfiniBand API"),
        "smc": _mod(deps=["ib_core"] + ([] if ism_needs_smc else ["ism"]), description="smc socket address family"),
        "smc_diag": _mod(deps=["smc"], description="SMC socket monitoring via SOCK_DIAG"),
        "ism": _mod(
            builtin=ism_builtin, deps=(["smc"] if ism_needs_smc else []), pci_drivers=["ism"], description="ISM driver"
        ),
        "vfio": _mod(builtin=vfio_builtin, description="VFIO - User Level meta-driver"),
        "vfio_iommu_type1": _mod(builtin=vfio_builtin, deps=["vfio"], description="Type1 IOMMU driver for VFIO"),
        "vfio_pci": _mod(
            builtin=vfio_builtin,
            deps=(["vfio_pci_core"] if vfio_core else ["vfio"]),
            pci_drivers=["vfio-pci"],
            description="VFIO PCI - User Level meta-driver",
            params={"ids": "", "nointxmask": "N", "disable_idle_d3": "N"},
        ),
        "mlx4_core": _mod(pci_drivers=["mlx4_core"], description="Mellanox ConnectX HCA low-level driver"),
        "mlx5_core": _mod(
            pci_drivers=["mlx5_core"],
            description="Mellanox 5th generation network adapters (ConnectX series) core driver",
        ),
        "kvm": _mod(description="Kernel-based Virtual Machine"),
    }
    if dibs:
        cat["dibs"] = _mod(builtin=True, description="Direct Internal Buffer Sharing class")
        cat["ism"]["deps"] = ["dibs"]
        cat["smc"]["deps"] = ["ib_core", "dibs"]
    if not smc:
        for name in ("smc", "smc_diag", "ism", "dibs"):
            cat.pop(name, None)
    if vfio_core:
        cat["vfio_pci_core"] = _mod(
            builtin=vfio_builtin, deps=["vfio"], description="core driver for VFIO based PCI devices"
        )
    return cat


MODULE_PATHS = {
    "qdio": "kernel/drivers/s390/cio/qdio",
    "ccwgroup": "kernel/drivers/s390/cio/ccwgroup",
    "qeth": "kernel/drivers/s390/net/qeth",
    "qeth_l2": "kernel/drivers/s390/net/qeth_l2",
    "qeth_l3": "kernel/drivers/s390/net/qeth_l3",
    "ism": "kernel/drivers/s390/net/ism",
    "dibs": "kernel/drivers/dibs/dibs",
    "ib_core": "kernel/drivers/infiniband/core/ib_core",
    "smc": "kernel/net/smc/smc",
    "smc_diag": "kernel/net/smc/smc_diag",
    "vfio": "kernel/drivers/vfio/vfio",
    "vfio_iommu_type1": "kernel/drivers/vfio/vfio_iommu_type1",
    "vfio_pci_core": "kernel/drivers/vfio/pci/vfio-pci-core",
    "vfio_pci": "kernel/drivers/vfio/pci/vfio-pci",
    "mlx4_core": "kernel/drivers/net/ethernet/mellanox/mlx4/mlx4_core",
    "mlx5_core": "kernel/drivers/net/ethernet/mellanox/mlx5/core/mlx5_core",
    "kvm": "kernel/arch/s390/kvm/kvm",
}

# Package names roles install, as Debian/Ubuntu call them; other distributions override some.
_PACKAGES_DEBIAN = {
    "s390-tools": "s390-tools",
    "s390-tools-core": "s390-tools",
    "smc-tools": "smc-tools",
    "pciutils": "pciutils",
    "driverctl": "driverctl",
    "libvirt": "libvirt-daemon-system",
    "qemu": "qemu-system-s390x",
}


# Package names on RHEL 9/10 and on SLES 15 SP6/16 (as the rhel8.8 and sles15sp5 entries name them).
_PACKAGES_RHEL = {
    "s390-tools": "s390utils-base",
    "s390-tools-core": "s390utils-core",
    "libvirt": "libvirt",
    "qemu": "qemu-kvm",
}
_PACKAGES_SUSE = {"libvirt": "libvirt-daemon-qemu", "qemu": "qemu-s390x"}


def _profile(
    module_suffix,
    osrelease,
    version,
    modules,
    os_release,
    family,
    packages=None,
    smc_sysctls=_SMC_61,
    smc_buffer_rule="sysctl",
    extra_files=None,
    s390_tools="debian13",
    sysctls=None,
    network="NetworkManager",
    dibs=False,
):
    """One PROFILES entry; ``packages`` overrides names of :data:`_PACKAGES_DEBIAN`,
    ``sysctls`` values of :data:`SYSCTL_DEFAULTS`."""
    return {
        "module_suffix": module_suffix,
        "osrelease": osrelease,
        "version": version,
        "smc_sysctls": smc_sysctls,
        "smc_buffer_rule": smc_buffer_rule,
        "sysctls": dict(SYSCTL_DEFAULTS, **(sysctls or {})),
        "modules": modules,
        "os_release": os_release,
        "extra_files": dict(extra_files or {}),
        "packages": dict(_PACKAGES_DEBIAN, **(packages or {})),
        "family": family,
        # the real s390-tools build the host runs (zlab.s390tools.RELEASES): Debian 12's 2.16
        # for the older distributions, Debian 13's 2.3x for the newer ones
        "s390_tools": s390_tools,
        # how the distribution configures its interfaces out of the box (a server installation):
        # the lab starts a real NetworkManager in the hosts of the profiles that use it
        "network": network,
        # /sys/class/dibs (6.18+): ISM functions as dibs devices ism<uid>, and the loopback "lo"
        "dibs": dibs,
    }


# /boot/config-<release> lines the collection reads (kernel_support: CONFIG_SMC, CONFIG_DIBS), as
# the distributions' s390x configurations have them; the rest of a real config is left out.
_BOOT_CONFIG_UBUNTU_2604 = (
    "CONFIG_S390=y\nCONFIG_PCI=y\nCONFIG_DIBS=y\nCONFIG_DIBS_LO=y\nCONFIG_ISM=m\n"
    "CONFIG_SMC=m\nCONFIG_SMC_DIAG=m\nCONFIG_SMC_HS_CTRL_BPF=y\nCONFIG_MLX5_CORE=m\n"
)
# Debian's s390x 7.2: DIBS off and, as config SMC depends on DIBS, no CONFIG_SMC line at all.
_BOOT_CONFIG_DEBIAN_72 = (
    "CONFIG_S390=y\nCONFIG_PCI=y\n# CONFIG_DIBS is not set\nCONFIG_RDMA_RXE=m\nCONFIG_MLX5_CORE=m\n"
    "# CONFIG_ISM_VFIO_PCI is not set\n"
)
_RELEASE_UBUNTU_2604 = "7.0.0-14-generic"
_RELEASE_DEBIAN_72 = "7.2.3+deb14-s390x"
_OS_RELEASE_DEBIAN_SID = (
    'PRETTY_NAME="Debian GNU/Linux forky/sid"\nNAME="Debian GNU/Linux"\nVERSION_CODENAME=forky\nID=debian\n'
)

PROFILES = {
    "rhel8.8": _profile(
        ".ko.xz",
        "4.18.0-477.10.1.el8_8.s390x",
        (4, 18),
        modules=_catalog(vfio_core=False),
        os_release='NAME="Red Hat Enterprise Linux"\nVERSION="8.8 (Ootpa)"\nID="rhel"\n'
        'ID_LIKE="fedora"\nVERSION_ID="8.8"\nPLATFORM_ID="platform:el8"\n'
        'PRETTY_NAME="Red Hat Enterprise Linux 8.8 (Ootpa)"\nANSI_COLOR="0;31"\n'
        'CPE_NAME="cpe:/o:redhat:enterprise_linux:8::baseos"\n',
        family="RedHat",
        packages={
            "s390-tools": "s390utils-base",
            "s390-tools-core": "s390utils-core",
            "libvirt": "libvirt",
            "qemu": "qemu-kvm",
        },
        smc_sysctls={},
        smc_buffer_rule="tcp_half",
        extra_files={"/etc/redhat-release": "Red Hat Enterprise Linux release 8.8 (Ootpa)\n"},
        s390_tools="debian12",
    ),
    "sles15sp5": _profile(
        ".ko.zst",
        "5.14.21-150500.53-default",
        (5, 14),
        modules=_catalog(),
        os_release='NAME="SLES"\nVERSION="15-SP5"\nVERSION_ID="15.5"\n'
        'PRETTY_NAME="SUSE Linux Enterprise Server 15 SP5"\nID="sles"\n'
        'ID_LIKE="suse"\nANSI_COLOR="0;32"\nCPE_NAME="cpe:/o:suse:sles:15:sp5"\n',
        family="Suse",
        network="wicked",
        packages={"libvirt": "libvirt-daemon-qemu", "qemu": "qemu-s390x"},
        s390_tools="debian12",
    ),
    "ubuntu23.04": _profile(
        ".ko",
        "6.2.0-20-generic",
        (6, 2),
        modules=_catalog(vfio_builtin=True),
        os_release='PRETTY_NAME="Ubuntu 23.04"\nNAME="Ubuntu"\nVERSION_ID="23.04"\n'
        'VERSION="23.04 (Lunar Lobster)"\nVERSION_CODENAME=lunar\nID=ubuntu\n'
        'ID_LIKE=debian\nUBUNTU_CODENAME=lunar\nLOGO=ubuntu-logo\n',
        family="Debian",
        network="netplan",
    ),
    "linux6.12": _profile(
        ".ko.xz",
        "6.12.0",
        (6, 12),
        modules=_catalog(ism_builtin=True, ism_needs_smc=False),
        os_release='PRETTY_NAME="Debian GNU/Linux 13 (trixie)"\nNAME="Debian GNU/Linux"\n'
        'VERSION_ID="13"\nVERSION="13 (trixie)"\nVERSION_CODENAME=trixie\nID=debian\n',
        family="Debian",
        network="ifupdown",
        smc_sysctls=_SMC_612,
    ),
    # RHEL 9.4: 5.14.0-427 without net.smc.rmem/wmem, so SMC buffers are half of tcp_[rw]mem[1]
    # as on RHEL 8; ism is a module (RHEL's s390x config: CONFIG_ISM=m).
    "rhel9.4": _profile(
        ".ko.xz",
        "5.14.0-427.13.1.el9_4.s390x",
        (5, 14),
        modules=_catalog(),
        os_release='NAME="Red Hat Enterprise Linux"\nVERSION="9.4 (Plow)"\nID="rhel"\n'
        'ID_LIKE="fedora"\nVERSION_ID="9.4"\nPLATFORM_ID="platform:el9"\n'
        'PRETTY_NAME="Red Hat Enterprise Linux 9.4 (Plow)"\nANSI_COLOR="0;31"\n'
        'LOGO="fedora-logo-icon"\nCPE_NAME="cpe:/o:redhat:enterprise_linux:9::baseos"\n',
        family="RedHat",
        packages=_PACKAGES_RHEL,
        smc_sysctls=_SMC_RHEL9,
        smc_buffer_rule="tcp_half",
        extra_files={"/etc/redhat-release": "Red Hat Enterprise Linux release 9.4 (Plow)\n"},
    ),
    # RHEL 10.0 / CentOS Stream 10: 6.12.0-55 with the upstream 6.12 net.smc set.
    "rhel10.0": _profile(
        ".ko.xz",
        "6.12.0-55.9.1.el10_0.s390x",
        (6, 12),
        modules=_catalog(ism_needs_smc=False),
        os_release='NAME="Red Hat Enterprise Linux"\nVERSION="10.0 (Coughlan)"\nID="rhel"\n'
        'ID_LIKE="centos fedora"\nVERSION_ID="10.0"\nPLATFORM_ID="platform:el10"\n'
        'PRETTY_NAME="Red Hat Enterprise Linux 10.0 (Coughlan)"\nANSI_COLOR="0;31"\n'
        'LOGO="fedora-logo-icon"\nCPE_NAME="cpe:/o:redhat:enterprise_linux:10::baseos"\n',
        family="RedHat",
        packages=_PACKAGES_RHEL,
        smc_sysctls=_SMC_612,
        extra_files={"/etc/redhat-release": "Red Hat Enterprise Linux release 10.0 (Coughlan)\n"},
    ),
    # SLES 15 SP6: 6.4.0-150600 with the 6.4.y fix 833bac7ec392 (64 KiB defaults, INT_MAX/2)
    # and the SMC-R v2.1 keys a SUSE SLE branch backports (inferred; docs/lab-profiles.md).
    "sles15sp6": _profile(
        ".ko.zst",
        "6.4.0-150600.23.7-default",
        (6, 4),
        modules=_catalog(ism_needs_smc=False),
        os_release='NAME="SLES"\nVERSION="15-SP6"\nVERSION_ID="15.6"\n'
        'PRETTY_NAME="SUSE Linux Enterprise Server 15 SP6"\nID="sles"\n'
        'ID_LIKE="suse"\nANSI_COLOR="0;32"\nCPE_NAME="cpe:/o:suse:sles:15:sp6"\n',
        family="Suse",
        network="wicked",
        packages=_PACKAGES_SUSE,
        smc_sysctls=_SMC_68,
    ),
    # SLES 16.0: 6.12 with the upstream 6.12 net.smc set.
    "sles16.0": _profile(
        ".ko.zst",
        "6.12.0-160000.5-default",
        (6, 12),
        modules=_catalog(ism_needs_smc=False),
        os_release='NAME="SLES"\nVERSION="16.0"\nVERSION_ID="16.0"\n'
        'PRETTY_NAME="SUSE Linux Enterprise Server 16.0"\nID="sles"\n'
        'ID_LIKE="suse"\nANSI_COLOR="0;32"\nCPE_NAME="cpe:/o:suse:sles:16:16.0"\n',
        family="Suse",
        packages=_PACKAGES_SUSE,
        smc_sysctls=_SMC_612,
    ),
    # Ubuntu 24.04 LTS: 6.8.0 (GA kernel 6.8.0-31) with the upstream 6.8 net.smc set; VFIO built
    # in as on Ubuntu 23.04.
    "ubuntu24.04": _profile(
        ".ko.zst",
        "6.8.0-31-generic",
        (6, 8),
        modules=_catalog(vfio_builtin=True, ism_needs_smc=False),
        os_release='PRETTY_NAME="Ubuntu 24.04 LTS"\nNAME="Ubuntu"\nVERSION_ID="24.04"\n'
        'VERSION="24.04 LTS (Noble Numbat)"\nVERSION_CODENAME=noble\nID=ubuntu\n'
        'ID_LIKE=debian\nUBUNTU_CODENAME=noble\nLOGO=ubuntu-logo\n',
        family="Debian",
        network="netplan",
        smc_sysctls=_SMC_68,
    ),
    # Upstream 6.19 (s390 defconfig: CONFIG_DIBS=y, CONFIG_DIBS_LO=y, CONFIG_ISM=m): the DIBS layer
    # (drivers/dibs, 6.18) shows ISM functions and the loopback under /sys/class/dibs, and the 6.19
    # net.smc set. tcp_rmem[2] is 32 MiB since 6.16 ("tcp: increase tcp_rmem[2] to 32 MB").
    "linux6.19": _profile(
        ".ko.xz",
        "6.19.0",
        (6, 19),
        modules=_catalog(dibs=True),
        os_release='PRETTY_NAME="Debian GNU/Linux 13 (trixie)"\nNAME="Debian GNU/Linux"\n'
        'VERSION_ID="13"\nVERSION="13 (trixie)"\nVERSION_CODENAME=trixie\nID=debian\n',
        family="Debian",
        network="ifupdown",
        smc_sysctls=_SMC_619,
        sysctls={"net.ipv4.tcp_rmem": "4096 131072 33554432"},
        dibs=True,
    ),
    # Ubuntu 26.04 LTS: Linux 7.0 (DIBS built in, smc and ism modules, no TCP ULP "smc") and
    # smc-tools 1.8.7; VFIO built in as on the earlier Ubuntu profiles.
    "ubuntu26.04": _profile(
        ".ko.zst",
        _RELEASE_UBUNTU_2604,
        (7, 0),
        modules=_catalog(vfio_builtin=True, dibs=True),
        os_release='PRETTY_NAME="Ubuntu 26.04 LTS"\nNAME="Ubuntu"\nVERSION_ID="26.04"\n'
        'VERSION="26.04 LTS (Resolute Raccoon)"\nVERSION_CODENAME=resolute\nID=ubuntu\n'
        "ID_LIKE=debian\nUBUNTU_CODENAME=resolute\nLOGO=ubuntu-logo\n",
        family="Debian",
        network="netplan",
        smc_sysctls=_SMC_70,
        sysctls={"net.ipv4.tcp_rmem": "4096 131072 33554432"},
        extra_files={
            "/boot/config-" + _RELEASE_UBUNTU_2604: _BOOT_CONFIG_UBUNTU_2604,
            "/etc/zlab/smc-tools-version": "1.8.7\n",
        },
        dibs=True,
    ),
    # Debian's stock s390x Linux 7.2 (sid; trixie-backports): built without DIBS and so without SMC
    # and ISM. Not supported for SMC: the collection reports it (kernel_smc, the pre-flight, verify).
    "debian7.2-nosmc": _profile(
        ".ko.xz",
        _RELEASE_DEBIAN_72,
        (7, 2),
        modules=_catalog(ism_needs_smc=False, smc=False),
        os_release=_OS_RELEASE_DEBIAN_SID,
        family="Debian",
        network="ifupdown",
        smc_sysctls={},
        sysctls={"net.ipv4.tcp_rmem": "4096 131072 33554432"},
        extra_files={"/boot/config-" + _RELEASE_DEBIAN_72: _BOOT_CONFIG_DEBIAN_72},
    ),
}

# PCI drivers: name -> (module, static id table [(vendor, device)])
PCI_DRIVERS = {
    "ism": ("ism", [(0x1014, 0x04ED)]),
    "vfio-pci": ("vfio_pci", []),
    "mlx4_core": ("mlx4_core", [(0x15B3, 0x1003), (0x15B3, 0x1004)]),
    "mlx5_core": (
        "mlx5_core",
        [(0x15B3, 0x1016), (0x15B3, 0x1018), (0x15B3, 0x101D), (0x15B3, 0x101E), (0x15B3, 0x101F)],
    ),
}


def get(name):
    """Return the profile dict for ``name`` (KeyError with the allowed names otherwise)."""
    try:
        return PROFILES[name]
    except KeyError:
        raise KeyError("unknown kernel profile %r; allowed: %s" % (name, ", ".join(sorted(PROFILES))))


def module_name(name):
    """modprobe/kmod normalisation: dashes and underscores are the same."""
    return name.replace("-", "_")


def tcp_mem1_default(profile, which):
    """Boot default of net.ipv4.tcp_{r,w}mem[1] (``which``: "tcp_rmem"/"tcp_wmem")."""
    return int(profile["sysctls"]["net.ipv4." + which].split()[1])


def smc_sysctl_defaults(profile, tcp_wmem1=None, tcp_rmem1=None):
    """Values of net.smc.* right after ``smc`` is loaded in a network namespace (tcp_*mem[1]
    as given, the profile's defaults otherwise)."""
    if tcp_wmem1 is None:
        tcp_wmem1 = tcp_mem1_default(profile, "tcp_wmem")
    if tcp_rmem1 is None:
        tcp_rmem1 = tcp_mem1_default(profile, "tcp_rmem")
    out = {}
    for key, (_kind, _lo, _hi, default) in profile["smc_sysctls"].items():
        if default == "tcp_wmem1":
            default = tcp_wmem1
        elif default == "tcp_rmem1":
            default = tcp_rmem1
        out[key] = default
    return out


def smc_requested_size(profile, direction, smc_sysctl=None, tcp_mem1=None):
    """Requested SMC buffer size in bytes for ``direction`` ("rmem" receive / "wmem" send).

    With net.smc.{r,w}mem (6.1+ and backports) the sysctl value is the request; before, the
    request is half the TCP socket buffer, i.e. tcp_{r,w}mem[1] / 2 (the study's RHEL 8.8 rule).
    """
    if direction not in ("rmem", "wmem"):
        raise ValueError("direction must be rmem or wmem")
    if profile["smc_buffer_rule"] == "sysctl" and direction in profile["smc_sysctls"]:
        if smc_sysctl and direction in smc_sysctl:
            return int(smc_sysctl[direction])
        return int(smc_sysctl_defaults(profile, tcp_mem1, tcp_mem1)[direction])
    if tcp_mem1 is None:
        tcp_mem1 = tcp_mem1_default(profile, "tcp_" + direction)
    return int(tcp_mem1) // 2


def smc_effective_size(requested, proto):
    """Buffer the kernel allocates: 16 KiB * 2^n at or above ``requested`` (min 16 KiB), capped at
    1 MiB for SMC-D and 512 KiB for SMC-R (smc_compress_bufsize/smc_uncompress_bufsize)."""
    if proto not in ("SMCD", "SMCR", "smcd", "smcr", "D", "R"):
        raise ValueError("proto must be SMCD or SMCR")
    cap = SMCD_MAX_BUF if proto.upper().endswith("D") else SMCR_MAX_BUF
    requested = int(requested)
    if requested <= SMC_BUF_MIN:
        return SMC_BUF_MIN
    units = (requested - 1) >> 14
    compressed = units.bit_length()  # ilog2(units) + 1
    size = 1 << (compressed + 14)
    return min(size, cap)


def smc_buffer_size(profile, direction, proto, smc_sysctl=None, tcp_mem1=None):
    """Effective buffer for a new SMC socket on this profile (request rule + compression)."""
    return smc_effective_size(smc_requested_size(profile, direction, smc_sysctl, tcp_mem1), proto)


def module_filename(profile, name):
    """Path of a module below /lib/modules/<osrelease>/ ('(builtin)' for built-ins, as modinfo
    prints), None for names outside the catalogue."""
    name = module_name(name)
    info = profile["modules"].get(name)
    if info is None:
        return None
    if info["builtin"]:
        return "(builtin)"
    return MODULE_PATHS.get(name, "kernel/" + name) + profile["module_suffix"]


def modules_builtin(profile):
    """Content of /lib/modules/<osrelease>/modules.builtin for this profile."""
    return "".join(
        MODULE_PATHS.get(n, "kernel/" + n) + ".ko\n" for n, m in sorted(profile["modules"].items()) if m["builtin"]
    )


def modules_dep(profile):
    """Content of /lib/modules/<osrelease>/modules.dep (loadable modules and their deps)."""
    lines = []
    for n, m in sorted(profile["modules"].items()):
        if m["builtin"]:
            continue
        deps = [
            module_filename(profile, d) for d in _transitive_deps(profile, n) if not profile["modules"][d]["builtin"]
        ]
        lines.append("%s:%s\n" % (module_filename(profile, n), "".join(" " + d for d in deps)))
    return "".join(lines)


def module_index_files(profile):
    """/lib/modules/<osrelease>/modules.dep and modules.builtin as the distribution's kernel package
    installs them: what a host's tools (and the collection, for whether the kernel has SMC) read."""
    base = "/lib/modules/%s/" % profile["osrelease"]
    return {base + "modules.dep": modules_dep(profile), base + "modules.builtin": modules_builtin(profile)}


def _transitive_deps(profile, name):
    out = []
    todo = list(profile["modules"][name]["deps"])
    while todo:
        d = todo.pop(0)
        if d not in out:
            out.append(d)
            todo.extend(profile["modules"][d]["deps"])
    return out
