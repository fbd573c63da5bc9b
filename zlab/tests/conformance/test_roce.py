# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""RoCE Express, Express2 and Express3 functions: zPCI sysfs, the mlx netdevs and RDMA devices,
smc_rnics rows, ``smcr device``/``linkgroup``/``stats``, PNET IDs of RoCE ports and CHPIDs, and the
CPC model's RoCE and OSA entries.

Sources: arch/s390/pci/pci_sysfs.c (attributes, ``index`` = UID when unique), the kernel's mlx4 and
mlx5 PCI id tables (ConnectX-3 VF 15b3:1004, ConnectX-4 Lx VF 15b3:1016, ConnectX Family mlx5Gen VF
15b3:101e), smc-tools 1.8.5 smc_rnics (type of a ROC2 function by the firmware level ``ethtool -i``
reports: 14 Express2, 22 Express3; 1.8.4 by device id), dev.c (``smcr device`` rows, type by device
id) and linkgroup.c (``smcr linkgroup``, ``link-show``, details; -a and -ad are not detail levels),
systemd's net_id builtin (``eno<index>``, ``ens<slot>``, ``d<dev_port>``).
"""

import errno
import os

import pytest

from zlab import kernel, model

import toolrun

HDR_185 = "FID   Power  PCI_ID        PCHID  Type             PFT   VF   PPrt  PNET_ID            Net-Dev"
ISM = {"fid": 0x605, "uid": 0x605, "pchid": 0x7C8, "vfn": 1, "type": "ism"}
# a RoCE Express2 card (PCHID 15C) with one FID per port, an Express3 port, a RoCE Express card
# (one FID for both ports, a PNET ID per port)
ROCE = [
    ISM,
    {"fid": 0x1C0, "uid": 0x1C0, "pchid": 0x15C, "vfn": 1, "port": 1, "type": "roce2", "pnet_id": "NETR"},
    {"fid": 0x1C1, "uid": 0x1C1, "pchid": 0x15C, "vfn": 2, "port": 2, "type": "roce2"},
    {"fid": 0x2A0, "uid": 0x2A0, "pchid": 0x17C, "vfn": 1, "port": 1, "type": "roce3", "pnet_id": "NETR"},
    {"fid": 0x300, "uid": 0x300, "pchid": 0x1A0, "vfn": 3, "port": 0, "type": "roce", "pnet_ids": ["NETR", "NETS"]},
]
SLOTS = ("000001c0", "000001c1", "000002a0", "00000300", "00000605")
D1C0 = "/sys/bus/pci/devices/01c0:00:00.0"
LINKGROUPS = [
    {
        "id": 0x100,
        "role": "CLNT",
        "type": "SYM",
        "vlan": 0,
        "conns": 3,
        "pnet_id": "NETR",
        "sndbuf": 393216,
        "rmb": 393216,
        "version": 2,
        "peer_rel": 1,
        "peer_host": "lpar-b",
        "peer_os": 2,
        "direct": False,
        "eid": "SEID",
        "links": [
            {
                "id": 0x101,
                "state": 3,
                "conns": 3,
                "netdev": "eno448",
                "ib_dev": "mlx5_0",
                "ib_port": 1,
                "link_uid": 0x1A2B3C01,
                "peer_uid": 0x0D0E0F01,
                "gid": "fe80:0000:0000:0000:0001:5cff:fe01:c000",
                "peer_gid": "fe80:0000:0000:0000:0001:5cff:fe02:c000",
            },
            {
                "id": 0x102,
                "state": 3,
                "conns": 3,
                "netdev": "eno449",
                "ib_dev": "mlx5_1",
                "ib_port": 1,
                "link_uid": 0x1A2B3C02,
                "peer_uid": 0x0D0E0F02,
                "gid": "fe80:0000:0000:0000:0001:5cff:fe01:c100",
                "peer_gid": "fe80:0000:0000:0000:0001:5cff:fe02:c100",
            },
        ],
    },
    {
        "id": 0x200,
        "role": "SERV",
        "type": "SINGLE",
        "vlan": 0x10,
        "conns": 1,
        "pnet_id": "NETR",
        "sndbuf": 65536,
        "rmb": 131072,
        "links": [
            {
                "id": 0x201,
                "state": 3,
                "conns": 1,
                "netdev": "eno448",
                "ib_dev": "mlx5_0",
                "ib_port": 1,
                "link_uid": 0x1A2B3C03,
                "peer_uid": 0x0D0E0F03,
                "gid": "fe80:0000:0000:0000:0001:5cff:fe01:c000",
                "peer_gid": "fe80:0000:0000:0000:0001:5cff:fe03:c000",
            }
        ],
    },
]


@pytest.fixture
def roce(boot_host, tmp_path):
    """Every function powered on, smc loaded; ``roce.ethtool_env`` has an ethtool in PATH."""
    h = boot_host(kernel_profile="linux6.12", pci=ROCE)
    for slot in SLOTS:
        h.write("/sys/bus/pci/slots/%s/power" % slot, "1")
    kernel.load_module(h.state_dir, "smc")
    stub = tmp_path / "bin"
    stub.mkdir()
    (stub / "ethtool").write_text("#!/bin/sh\nexit 1\n")
    (stub / "ethtool").chmod(0o755)
    h.ethtool_env = {"PATH": str(stub)}
    tmp = os.path.join(h.zroot, "tmp")
    for name in os.listdir(tmp) if os.path.isdir(tmp) else []:
        if name.startswith(".smcstats."):  # no `smcr stats reset` snapshot of an earlier test
            os.unlink(os.path.join(tmp, name))
    return h


def run(h, tool, *args, env=None):
    os.makedirs(os.path.join(h.zroot, "tmp"), exist_ok=True)
    return toolrun.run(h, tool, *args, env=env)


# ---- sysfs -----------------------------------------------------------------------------------


def test_function_attributes_per_generation(roce):
    want = {
        "01c0:00:00.0": ("0x15b3", "0x1016", "0x0a", "1", "mlx5_core"),
        "02a0:00:00.0": ("0x15b3", "0x101e", "0x0a", "1", "mlx5_core"),
        "0300:00:00.0": ("0x15b3", "0x1004", "0x02", "0", "mlx4_core"),
    }
    for addr, (vendor, device, pft, port, driver) in want.items():
        d = "/sys/bus/pci/devices/" + addr
        got = tuple(roce.read(d + "/" + a).strip() for a in ("vendor", "device", "pft", "port"))
        assert got + (roce.readlink(d + "/driver").rsplit("/", 1)[1],) == (vendor, device, pft, port, driver)
        assert roce.read(d + "/class") == "0x020000\n"
    assert roce.read(D1C0 + "/function_id") == "0x000001c0\n"
    assert roce.read(D1C0 + "/uid") == "0x1c0\n"
    assert roce.read(D1C0 + "/pchid") == "0x015c\n"
    assert roce.read(D1C0 + "/vfn") == "0x0001\n"
    assert roce.read(D1C0 + "/index") == "448\n"  # the UID, decimal, where UIDs are unique
    assert roce.read_bytes(D1C0 + "/util_string")[:16] == "NETR            ".encode("cp037")
    util = roce.read_bytes("/sys/bus/pci/devices/0300:00:00.0/util_string")
    assert util[16:32] == "NETS            ".encode("cp037") and util[32:] == bytes(32)
    assert "mlx4_core" in roce.read("/proc/modules") and "mlx5_core" in roce.read("/proc/modules")


def test_netdevs_and_rdma_devices(roce):
    assert roce.listdir("/sys/class/infiniband") == ["mlx4_0", "mlx5_0", "mlx5_1", "mlx5_2"]
    assert roce.readlink("/sys/class/infiniband/mlx5_0") == "../../devices/pci01c0:00/01c0:00:00.0/infiniband/mlx5_0"
    assert roce.listdir(D1C0 + "/net") == ["eno448"]
    assert roce.readlink("/sys/class/net/eno448") == "../../devices/pci01c0:00/01c0:00:00.0/net/eno448"
    assert roce.read("/sys/class/net/eno448/dev_port") == "0\n"
    # RoCE Express: one function, both ports, netdevs per port, RDMA ports numbered from 1
    d300 = "/sys/bus/pci/devices/0300:00:00.0"
    assert roce.listdir(d300 + "/net") == ["eno768", "eno768d1"]
    assert roce.read(d300 + "/net/eno768d1/dev_port") == "1\n"
    assert roce.listdir(d300 + "/infiniband/mlx4_0/ports") == ["1", "2"]
    ib = D1C0 + "/infiniband/mlx5_0"
    assert roce.listdir(ib + "/ports") == ["1"]
    assert roce.read(ib + "/ports/1/state") == "4: ACTIVE\n"
    assert roce.read(ib + "/ports/1/link_layer") == "Ethernet\n"
    assert roce.read(ib + "/ports/1/gid_attrs/ndevs/0") == "eno448\n"
    assert roce.read(ib + "/fw_ver") == "14.32.1020\n"
    assert roce.read("/sys/class/infiniband/mlx5_2/fw_ver").startswith("22.")
    assert roce.read(ib + "/hca_type") == "MT4118\n"


def test_names_without_uid_checking_and_rdma_name_reuse(boot_host):
    h = boot_host(kernel_profile="linux6.12", uid_checking=False, pci=ROCE[1:3])
    h.write("/sys/bus/pci/slots/000001c1/power", "1")
    h.write("/sys/bus/pci/slots/000001c0/power", "1")
    # domains in power-on order; netdevs by the slot (FID), no index attribute
    assert h.read("/sys/bus/pci/devices/0000:00:00.0/function_id") == "0x000001c1\n"
    assert h.listdir("/sys/bus/pci/devices/0000:00:00.0/net") == ["ens449"]
    assert not h.exists("/sys/bus/pci/devices/0000:00:00.0/index")
    assert h.listdir("/sys/bus/pci/devices/0000:00:00.0/infiniband") == ["mlx5_0"]
    assert h.listdir("/sys/bus/pci/devices/0001:00:00.0/infiniband") == ["mlx5_1"]
    # hot-unplug by FID removes the device and its RDMA device; the next gets the lowest free name
    h.write("/sys/bus/pci/slots/000001c1/power", "0")
    assert h.listdir("/sys/class/infiniband") == ["mlx5_1"]
    assert "ens449" not in h.listdir("/sys/class/net")
    h.write("/sys/bus/pci/slots/000001c1/power", "1")
    assert h.listdir("/sys/class/infiniband") == ["mlx5_0", "mlx5_1"]


def test_unbind_removes_netdev_and_rdma_device(roce):
    roce.write("/sys/bus/pci/drivers/mlx5_core/unbind", "01c0:00:00.0")
    assert not roce.exists(D1C0 + "/net") and not roce.exists(D1C0 + "/infiniband")
    assert roce.listdir("/sys/class/infiniband") == ["mlx4_0", "mlx5_1", "mlx5_2"]
    roce.write("/sys/bus/pci/drivers_probe", "01c0:00:00.0")
    assert roce.listdir(D1C0 + "/infiniband") == ["mlx5_0"]


def test_chpid_util_string_holds_the_pnet_id(boot_host):
    ccw = [{"devno": "0.0.e00%d" % i, "chpid": "E0", "chpid_type": "OSD", "pnet_id": "NETR"} for i in range(3)]
    ccw += [{"devno": "0.0.820%d" % i, "chpid": "F0", "chpid_type": "IQD", "frame_size": "40K"} for i in range(3)]
    h = boot_host(ccw=ccw)
    assert h.read_bytes("/sys/devices/css0/chp0.e0/util_string") == "NETR            ".encode("cp037") + bytes(48)
    assert h.read_bytes("/sys/devices/css0/chp0.f0/util_string") == bytes(64)


def test_software_pnet_for_a_roce_port_with_hardware_pnet_is_refused(roce):
    with pytest.raises(OSError) as exc:
        kernel.pnet_add(roce.state_dir, "NETX", ib="mlx5_0", port=1)
    assert exc.value.errno == errno.EEXIST
    with pytest.raises(OSError) as exc:
        kernel.pnet_add(roce.state_dir, "NETX", ib="mlx4_0", port=2)  # NETS from the IOCDS
    assert exc.value.errno == errno.EEXIST
    kernel.pnet_add(roce.state_dir, "NETS", ib="mlx5_1", port=1)  # no PNET ID on FID 1C1
    assert kernel.smcr_devices(roce.state_dir)[1]["ports"][0]["pnet_id"] == "NETS"


# ---- smc_rnics -------------------------------------------------------------------------------


def test_smc_rnics_rows(roce):
    r = run(roce, "smc_rnics", env=roce.ethtool_env)
    assert r.returncode == 0 and r.stderr == ""
    assert r.stdout.splitlines() == [
        HDR_185,
        "-" * 100,
        " 1c0  1      01c0:00:00.0  015c   RoCE_Express2    ROC2  y    0     NETR               eno448",
        " 1c1  1      01c1:00:00.0  015c   RoCE_Express2    ROC2  y    1     n/a                eno449",
        " 2a0  1      02a0:00:00.0  017c   RoCE_Express3    ROC2  y    0     NETR               eno672",
        " 300  1      0300:00:00.0  01a0   RoCE_Express     ROC   y    0     NETR               eno768",
        " 300  1      0300:00:00.0  01a0   RoCE_Express     ROC   y    1     NETS               eno768d1",
        " 605  1      0605:00:00.0  07c8   ISM              ISM   y    n/a   n/a                n/a",
    ]


def test_smc_rnics_ib_devices(roce):
    r = run(roce, "smc_rnics", "-I", env=roce.ethtool_env)
    assert r.stdout.splitlines()[2:] == [
        " 1c0  1      01c0:00:00.0  015c   RoCE_Express2    ROC2  y    1     NETR               mlx5_0",
        " 1c1  1      01c1:00:00.0  015c   RoCE_Express2    ROC2  y    1     n/a                mlx5_1",
        " 2a0  1      02a0:00:00.0  017c   RoCE_Express3    ROC2  y    1     NETR               mlx5_2",
        " 300  1      0300:00:00.0  01a0   RoCE_Express     ROC   y    1     NETR               mlx4_0",
        " 300  1      0300:00:00.0  01a0   RoCE_Express     ROC   y    2     NETS               mlx4_0",
        " 605  1      0605:00:00.0  07c8   ISM              ISM   y    n/a   n/a                n/a",
    ]


def test_smc_rnics_raw_ids_keep_ports_and_read_the_first_pnet_field(roce):
    # -r leaves the type raw, so the RoCE Express ports both read the first PNET ID field
    r = run(roce, "smc_rnics", "-r", env=roce.ethtool_env)
    assert r.stdout.splitlines()[2:] == [
        " 1c0  1      01c0:00:00.0  015c   15b3:1016        0x0a  1    0     NETR               eno448",
        " 1c1  1      01c1:00:00.0  015c   15b3:1016        0x0a  2    1     n/a                eno449",
        " 2a0  1      02a0:00:00.0  017c   15b3:101e        0x0a  1    0     NETR               eno672",
        " 300  1      0300:00:00.0  01a0   15b3:1004        0x02  3    0     NETR               eno768",
        " 300  1      0300:00:00.0  01a0   15b3:1004        0x02  3    1     NETR               eno768d1",
        " 605  1      0605:00:00.0  07c8   1014:04ed        0x05  1    n/a   n/a                n/a",
    ]


def test_smc_rnics_without_ethtool_cannot_name_roc2(roce):
    rows = run(roce, "smc_rnics", env={"PATH": "/nonexistent"}).stdout.splitlines()
    assert rows[2] == " 1c0  1      01c0:00:00.0  015c                    ROC2  y    0     NETR               eno448"
    assert rows[5].split()[4] == "RoCE_Express"


def test_smc_rnics_184_by_device_id(roce):
    env = dict(roce.ethtool_env, ZLAB_SMC_TOOLS_VERSION="1.8.4")
    assert run(roce, "smc_rnics", env=env).stdout.splitlines()[2:] == [
        "     1c0  1      01c0:00:00.0  015c   RoCE_Express2  0     NETR               eno448",
        "     1c1  1      01c1:00:00.0  015c   RoCE_Express2  1     n/a                eno449",
        "     2a0  1      02a0:00:00.0  017c   RoCE_Express3  0     NETR               eno672",
        "     300  1      0300:00:00.0  01a0   RoCE_Express   0     NETR               eno768",
        "     300  1      0300:00:00.0  01a0   RoCE_Express   1     NETS               eno768d1",
        "     605  1      0605:00:00.0  07c8   ISM            n/a   n/a                n/a",
    ]
    env["PATH"] = "/nonexistent"
    assert run(roce, "smc_rnics", "2a0", env=env).stdout.splitlines()[2] == (
        "     2a0  1      02a0:00:00.0  017c   Mlx_0x101e     0     NETR               eno672"
    )


def test_smc_rnics_software_pnet_of_roce_port_has_star(roce):
    kernel.pnet_add(roce.state_dir, "NETS", ib="01c1:00:00.0", port=1)
    rows = run(roce, "smc_rnics", env=roce.ethtool_env).stdout.splitlines()
    assert rows[3].split()[8] == "NETS*"


def test_smc_rnics_disable_hot_unplugs_roce(roce):
    r = run(roce, "smc_rnics", "-d", "1c1")
    assert (r.returncode, r.stderr) == (0, "")
    assert roce.read("/sys/bus/pci/slots/000001c1/power") == "0\n"
    rows = run(roce, "smc_rnics", "-a", env=roce.ethtool_env).stdout.splitlines()
    assert rows[3].rstrip() == " 1c1  0"


# ---- smcr ------------------------------------------------------------------------------------


def test_smcr_device(roce):
    kernel.pnet_add(roce.state_dir, "NETS", ib="mlx5_1", port=1)
    assert run(roce, "smcr", "device").stdout.splitlines() == [
        "Net-Dev         IB-Dev   IB-P  IB-State  Type          Crit  #Links  PNET-ID  ",
        "eno448          mlx5_0      1    ACTIVE  RoCE_Express2   No       0  NETR             ",
        "eno449          mlx5_1      1    ACTIVE  RoCE_Express2   No       0  *NETS            ",
        "eno672          mlx5_2      1    ACTIVE  RoCE_Express3   No       0  NETR             ",
        "eno768          mlx4_0      1    ACTIVE  RoCE_Express    No       0  NETR             ",
        "eno768d1        mlx4_0      2    ACTIVE  RoCE_Express    No       0  NETS             ",
    ]
    assert run(roce, "smcr", "-d", "device", "ibdev", "mlx5_2").stdout.splitlines() == [
        "Net-Dev         IB-Dev   IB-P  IB-State  Type          Crit   FID   PCI-ID        PCHID  #Links  PNET-ID  ",
        "eno672          mlx5_2      1    ACTIVE  RoCE_Express3   No   02a0  02a0:00:00.0  017c        0  NETR             ",
    ]
    assert run(roce, "smcr", "d", "netdev", "eno768d1").stdout.splitlines()[1].startswith("eno768d1        mlx4_0")
    r = run(roce, "smcr", "device", "help")
    assert (r.returncode, r.stdout) == (255, "")
    assert r.stderr == (
        "Usage: smcr device [show] [all]\n"
        "                          [ibdev <dev>]\n"
        "                          [netdev <dev>]\n"
    )


def test_smcr_device_without_roce_or_smc(host):
    kernel.load_module(host.state_dir, "smc")
    host.write("/sys/bus/pci/slots/00000605/power", "1")
    assert run(host, "smcr", "device").stdout == ""  # ISM is no SMC-R device


def test_smcr_linkgroup_layouts(roce):
    kernel.linkgroups_set(roce.state_dir, "SMCR", LINKGROUPS)
    table = [
        "LG-ID    LG-Role  LG-Type  VLAN  #Conns  PNET-ID ",
        "00000100 CLNT     SYM         0       3  NETR             ",
        "00000200 SERV     SINGLE   0x10       1  NETR             ",
    ]
    assert run(roce, "smcr", "linkgroup").stdout.splitlines() == table
    assert run(roce, "smcr", "-ad", "linkgroup").stdout.splitlines() == table  # -ad is no detail level
    assert run(roce, "smcr", "l", "show", "101").stdout.splitlines() == table[:2]  # link id -> its group
    assert run(roce, "smcr", "-d", "linkgroup").stdout == (
        "LG-ID    : 00000100\n"
        "LG-Role  : CLNT\n"
        "LG-Type  : SYM\n"
        "VLAN     : 0\n"
        "PNET-ID  : NETR\n"
        "Version  : 2\n"
        "Peer-Rel : 1\n"
        "Peer-Host: lpar-b\n"
        "Peer-OS  : LINUX\n"
        "Direct   : No\n"
        "EID      : SEID\n"
        "#Conns   : 3\n"
        "Sndbuf   : 393216 B\n"
        "RMB      : 393216 B\n"
        "\n"
        "LG-ID    : 00000200\n"
        "LG-Role  : SERV\n"
        "LG-Type  : SINGLE\n"
        "VLAN     : 10\n"
        "PNET-ID  : NETR\n"
        "Version  : 1\n"
        "#Conns   : 1\n"
        "Sndbuf   : 65536 B\n"
        "RMB      : 131072 B\n"
    )


def test_smcr_linkgroup_link_show(roce):
    kernel.linkgroups_set(roce.state_dir, "SMCR", LINKGROUPS)
    assert run(roce, "smcr", "linkgroup", "link-show").stdout.splitlines() == [
        "LG-ID    LG-Role  LG-Type  Net-Dev         Link-State      #Conns  ",
        "00000100 CLNT     SYM      eno448          LINK_ACTIVE          3  ",
        "00000100 CLNT     SYM      eno449          LINK_ACTIVE          3  ",
        "00000200 SERV     SINGLE   eno448          LINK_ACTIVE          1  ",
    ]
    assert run(roce, "smcr", "-d", "l", "link-show", "ibdev", "mlx5_1").stdout.splitlines() == [
        "LG-ID    LG-Role  LG-Type  Net-Dev         Link-State      #Conns  Link-UID  Peer-UID  IB-Dev    IB-P  ",
        "00000100 CLNT     SYM      eno449          LINK_ACTIVE          3  1a2b3c02  0d0e0f02  mlx5_1       1  ",
    ]
    assert run(roce, "smcr", "-dd", "l", "link-show", "netdev", "eno448").stdout.splitlines()[:2] == [
        "LG-ID    LG-Role  LG-Type  Net-Dev         Link-State      #Conns  Link-UID  Peer-UID  IB-Dev    IB-P  "
        "Local-GID                                 Peer-GID  ",
        "00000100 CLNT     SYM      eno448          LINK_ACTIVE          3  1a2b3c01  0d0e0f01  mlx5_0       1  "
        "fe80:0000:0000:0000:0001:5cff:fe01:c000   fe80:0000:0000:0000:0001:5cff:fe02:c000  ",
    ]
    r = run(roce, "smcr", "l", "all", "x")
    assert (r.returncode, r.stderr.splitlines()[0]) == (255, "Usage: smcr linkgroup [show | link-show] [all | LG-ID]")


def test_smcr_device_counts_links_and_critical_devices(roce):
    kernel.linkgroups_set(roce.state_dir, "SMCR", LINKGROUPS)
    rows = run(roce, "smcr", "device").stdout.splitlines()
    # mlx5_0 carries the only link of the SINGLE link group 200: critical
    assert rows[1] == "eno448          mlx5_0      1    ACTIVE  RoCE_Express2  Yes       2  NETR             "
    # a port without a PNET ID shows a blank PNET-ID
    assert rows[2] == "eno449          mlx5_1      1    ACTIVE  RoCE_Express2   No       1                   "


def test_smcr_stats_summary(roce):
    kernel.smc_stats_set(
        roce.state_dir,
        "SMCR",
        {
            "SMCR": {"SMC_CLNT_V2_SUCC_CNT": 12, "SMC_SRV_V1_SUCC_CNT": 4, "SMC_RX_CNT": 1000, "SMC_TX_CNT": 600},
            "CLNT_FBACK_CNT": 2,
            "FBACK_RSN": {"clnt": [[0x03030002, 2]], "srv": []},
        },
    )
    lines = run(roce, "smcr", "-d", "stats").stdout.splitlines()
    assert lines[:10] == [
        "SMC-R Connections Summary",
        "  Total connections handled            18",
        "  SMC connections                      16 (client 12, server 4)",
        "    v1                                  4",
        "    v2                                 12",
        "  Handshake errors                      0 (client 0, server 0)",
        "  Avg requests per SMC conn           100.0",
        "  TCP fallback                          2 (client 2, server 0)",
        "    Client",
        "     NOSMCRDEV                          2",
    ]
    assert run(roce, "smcd", "stats").stdout.splitlines()[1] == "  Total connections handled             0"


# ---- the CPC model ---------------------------------------------------------------------------


def _inventory(tmp_path, roce_cards, osa_pnet="NETR"):
    gv = tmp_path / "group_vars" / "all"
    gv.mkdir(parents=True)
    (tmp_path / "hosts.yml").write_text("all:\n  hosts:\n    lpar-r:\n")
    cpc = {
        "name": "RLAB",
        "machine": "z16",
        "uid_checking": True,
        "partitions": [{"name": "LPARR", "mif_id": 1, "host": "lpar-r"}],
        "osa": [
            {
                "chpid": "E0",
                "pchid": "1B0",
                "type": "OSD",
                "partitions": ["LPARR"],
                "control_unit": "E000",
                "devices": {"first": "E000", "count": 3},
                "pnet_id": osa_pnet,
            }
        ],
        "roce": roce_cards,
    }
    import yaml  # pylint: disable=import-outside-toplevel

    (gv / "cpc.yml").write_text(yaml.safe_dump({"cpc": cpc}))
    return str(tmp_path)


def test_model_roce_generations_and_osa_pnet(tmp_path, monkeypatch):
    monkeypatch.setenv("ZLAB_NO_ANSIBLE_INVENTORY", "1")
    cards = [
        {
            "pchid": "15C",
            "type": "ROC2",
            "functions": [
                {"fid": "1C0", "uid": "1C0", "vf": 1, "port": 1, "partition": "LPARR", "pnet_id": "NETR"},
                {"fid": "1C1", "uid": "1C1", "vf": 2, "port": 2, "partition": "LPARR"},
            ],
        },
        {
            "pchid": "17C",
            "type": "ROC2",
            "adapter": "express3",
            "functions": [{"fid": "2A0", "uid": "2A0", "vf": 1, "port": 1, "partition": "LPARR"}],
        },
        {"pchid": "1A0", "type": "ROCE", "functions": [{"fid": "300", "uid": "300", "vf": 3, "partition": "LPARR"}]},
    ]
    m = model.load(_inventory(tmp_path, cards))
    assert m.warnings == []
    pci = {p["fid"]: p for p in m.hosts["lpar-r"]["pci"]}
    assert [(f, p["type"], p["device"], p["pft"], p["port"], p["pnet_id"]) for f, p in sorted(pci.items())] == [
        (0x1C0, "roce2", 0x1016, 0x0A, 1, "NETR"),
        (0x1C1, "roce2", 0x1016, 0x0A, 2, None),
        (0x2A0, "roce3", 0x101E, 0x0A, 1, None),
        (0x300, "roce", 0x1004, 0x02, 0, None),
    ]
    assert {c["pnet_id"] for c in m.hosts["lpar-r"]["ccw"]} == {"NETR"}
    spec = kernel.HostSpec.from_dict(m.host_spec("lpar-r")).to_dict()
    assert spec["ccw"][0]["pnet_id"] == "NETR"


def test_model_adapter_must_fit_the_type(tmp_path, monkeypatch):
    monkeypatch.setenv("ZLAB_NO_ANSIBLE_INVENTORY", "1")
    cards = [
        {
            "pchid": "1A0",
            "type": "ROCE",
            "adapter": "express3",
            "functions": [{"fid": "300", "vf": 1, "partition": "LPARR"}],
        }
    ]
    # the collection's normaliser knows the field and names the PCHID
    with pytest.raises(model.ModelError, match=r"RoCE PCHID 1A0: adapter express3 does not fit type ROCE"):
        model.load(_inventory(tmp_path, cards))
