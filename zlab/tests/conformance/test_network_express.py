# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""z17 / LinuxONE 5 Network Express functions: NETH (hybrid mode, PFT 0x0c) and NETD (direct mode,
PFT 0x0f) as mlx5 functions with the RoCE Express3 VF id 15b3:101e, ``fidparm`` (Linux 6.13), a NETD
PF's SR-IOV attributes (drivers/pci/iov.c: sriov_numvfs_store, pci_device_can_probe) with VFs linked
by ``physfn``/``virtfnN``, the PCI domain of an isolated VF (Linux 6.13: a bus of its own, the UID
as domain only with UID checking), the boot rule on the PF's bind event, and the CPC model's
``network_express`` ports."""

import errno
import os

import pytest

from zlab import kernel, model

NETH = {"fid": 0x120, "uid": 0x120, "pchid": 0x314, "vfn": 3, "port": 1, "type": "neth", "fidparm": 1}
PF = {"fid": 0x110, "uid": 0x110, "pchid": 0x330, "vfn": 0, "port": 1, "type": "netd", "sriov_totalvfs": 2}
VFS = [
    {"fid": 0x110 + n, "uid": 0x110 + n, "pchid": 0x330, "vfn": n, "port": 1, "type": "netd", "pf": 0x110}
    for n in (1, 2)
]
SLOTS = "/sys/bus/pci/slots/%08x"
PF_DEV = "/sys/bus/pci/devices/0110:00:00.0"


def _power(h, fid, value="1"):
    h.write((SLOTS % fid) + "/power", value)


def _netx(boot_host, **kw):
    spec = dict(kernel_profile="linux6.19", pci=[NETH, PF] + VFS)
    spec.update(kw)
    h = boot_host(**spec)
    kernel.load_module(h.state_dir, "mlx5_core")
    return h


def test_neth_is_an_mlx5_function_told_from_roce_express3_by_pft(boot_host):
    h = _netx(boot_host)
    _power(h, 0x120)
    dev = "/sys/bus/pci/devices/0120:00:00.0"
    assert (h.read(dev + "/vendor"), h.read(dev + "/device")) == ("0x15b3\n", "0x101e\n")
    assert h.read(dev + "/pft") == "0x0c\n"
    assert h.read(dev + "/fidparm") == "0x01\n"
    assert h.readlink(dev + "/driver").endswith("/mlx5_core")
    # mlx5_core gives it a netdev and an RDMA device, as for a RoCE Express3 function
    assert h.listdir(dev + "/net") == ["eno288"]
    assert h.listdir(dev + "/infiniband") == ["mlx5_0"]
    assert not h.exists(dev + "/physfn") and not h.exists(dev + "/sriov_numvfs")


def test_fidparm_only_from_linux_6_13(boot_host):
    h = _netx(boot_host, kernel_profile="linux6.12")
    _power(h, 0x120)
    assert not h.exists("/sys/bus/pci/devices/0120:00:00.0/fidparm")
    assert h.read("/sys/bus/pci/devices/0120:00:00.0/pft") == "0x0c\n"


def test_netd_pf_sriov_numvfs_rules(boot_host):
    h = _netx(boot_host)
    # the VFs of a PF in this partition have no slot until the PF creates them
    assert sorted(h.listdir("/sys/bus/pci/slots")) == ["00000110", "00000120"]
    _power(h, 0x110)
    assert h.read(PF_DEV + "/pft") == "0x0f\n" and h.read(PF_DEV + "/vfn") == "0x0000\n"
    assert (h.read(PF_DEV + "/sriov_totalvfs"), h.read(PF_DEV + "/sriov_numvfs")) == ("2\n", "0\n")
    assert h.read(PF_DEV + "/sriov_drivers_autoprobe") == "1\n"
    assert h.errno_of_write(PF_DEV + "/sriov_numvfs", "3") == errno.ERANGE
    h.write("/sys/bus/pci/drivers/mlx5_core/unbind", "0110:00:00.0")
    assert h.errno_of_write(PF_DEV + "/sriov_numvfs", "2") == errno.ENOENT  # no driver on the PF
    h.write("/sys/bus/pci/drivers_probe", "0110:00:00.0")
    h.write(PF_DEV + "/sriov_drivers_autoprobe", "0")
    h.write(PF_DEV + "/sriov_numvfs", "2")
    assert h.read(PF_DEV + "/sriov_numvfs") == "2\n"
    assert sorted(n for n in h.listdir(PF_DEV) if n.startswith("virtfn")) == ["virtfn0", "virtfn1"]
    vf = "/sys/bus/pci/devices/0110:00:00.1"
    assert h.read(vf + "/function_id") == "0x00000111\n"
    assert h.readlink(vf + "/physfn") == "../0110:00:00.0"
    assert h.read(SLOTS % 0x111 + "/power") == "1\n"
    # autoprobe 0: the VFs appear unbound and a probe without driver_override leaves them so
    assert not h.exists(vf + "/driver")
    h.write("/sys/bus/pci/drivers_probe", "0110:00:00.1")
    assert not h.exists(vf + "/driver")
    assert h.errno_of_write("/sys/bus/pci/drivers/mlx5_core/bind", "0110:00:00.1") == errno.ENODEV
    h.write(vf + "/driver_override", "mlx5_core")
    h.write("/sys/bus/pci/drivers_probe", "0110:00:00.1")
    assert h.readlink(vf + "/driver").endswith("/mlx5_core")
    # N -> M is refused; the PF cannot be powered off with VFs; N -> 0 removes them
    assert h.errno_of_write(PF_DEV + "/sriov_numvfs", "1") == errno.EBUSY
    assert h.errno_of_write(SLOTS % 0x110 + "/power", "0") == errno.EBUSY
    h.write(PF_DEV + "/sriov_numvfs", "0")
    assert not h.exists(vf) and "00000111" not in h.listdir("/sys/bus/pci/slots")
    _power(h, 0x110, "0")


def test_removing_vfs_a_guest_holds_is_busy(boot_host):
    h = _netx(boot_host)
    _power(h, 0x110)
    h.write(PF_DEV + "/sriov_numvfs", "1")
    kernel.set_pci_holder(h.state_dir, 0x111, "g1")
    assert h.errno_of_write(PF_DEV + "/sriov_numvfs", "0") == errno.EBUSY
    kernel.set_pci_holder(h.state_dir, 0x111, None)
    h.write(PF_DEV + "/sriov_numvfs", "0")
    assert h.read(PF_DEV + "/sriov_numvfs") == "0\n"


def test_isolated_vf_domain_is_the_uid_only_with_uid_checking(boot_host):
    pci = [NETH, dict(NETH, fid=0x121, uid=0x121, vfn=4)]
    h = boot_host(kernel_profile="linux6.19", uid_checking=False, pci=pci)
    _power(h, 0x121)
    _power(h, 0x120)
    assert h.read("/sys/bus/pci/devices/0000:00:00.0/function_id") == "0x00000121\n"
    assert h.read("/sys/bus/pci/devices/0001:00:00.0/uid_is_unique") == "0\n"
    assert not h.exists("/sys/bus/pci/devices/0001:00:00.0/physfn")
    # after a hot plug the order decides again
    _power(h, 0x121, "0")
    _power(h, 0x120, "0")
    _power(h, 0x120)
    assert h.read("/sys/bus/pci/devices/0000:00:00.0/function_id") == "0x00000120\n"
    h = boot_host(kernel_profile="linux6.19", uid_checking=True, pci=pci)
    _power(h, 0x121)
    assert h.read("/sys/bus/pci/devices/0121:00:00.0/function_id") == "0x00000121\n"


def test_boot_rule_on_the_pf_bind_event_creates_the_vfs(boot_host):
    h = _netx(boot_host)
    rules = os.path.join(h.root, "etc/udev/rules.d")
    os.makedirs(rules)
    with open(os.path.join(rules, "60-s390x-network-zpci.rules"), "w", encoding="utf-8") as handle:
        handle.write(
            'ACTION=="bind", SUBSYSTEM=="pci", DRIVER=="mlx5_core", ATTR{function_id}=="0x00000110", '
            'ATTR{sriov_drivers_autoprobe}="0", ATTR{sriov_numvfs}="2"\n'
        )
    tmpfiles = os.path.join(h.root, "etc/tmpfiles.d")
    os.makedirs(tmpfiles)
    with open(os.path.join(tmpfiles, "s390x-network-zpci.conf"), "w", encoding="utf-8") as handle:
        handle.write("w /sys/bus/pci/slots/00000110/power - - - - 1\n")
    kernel.boot(h.state_dir, h.state()["spec"])
    assert kernel.apply_persistent(h.state_dir, h.root) == []
    assert h.read(PF_DEV + "/sriov_numvfs") == "2\n"
    assert h.read(PF_DEV + "/sriov_drivers_autoprobe") == "0\n"
    assert not h.exists("/sys/bus/pci/devices/0110:00:00.2/driver")


def test_spec_refuses_sriov_on_other_types_and_a_pf_that_is_not_there():
    base = {"name": "x", "kernel_profile": "linux6.19"}
    with pytest.raises(ValueError, match="sriov_totalvfs is for a netd PF"):
        kernel.HostSpec.from_dict(dict(base, pci=[dict(NETH, sriov_totalvfs=2)]))
    with pytest.raises(ValueError, match="pf 0x110 is no netd PF of this host"):
        kernel.HostSpec.from_dict(dict(base, pci=VFS[:1]))
    spec = kernel.HostSpec.from_dict(dict(base, pci=[PF] + VFS)).to_dict()
    assert [(p["device"], p["pft"], p["sriov_totalvfs"], p["pf"]) for p in spec["pci"]] == [
        (0x101D, 0x0F, 2, None),
        (0x101E, 0x0F, None, 0x110),
        (0x101E, 0x0F, None, 0x110),
    ]


def _cpc_knows_network_express():
    norm, errors, _warnings = model.cpc_model().normalize_cpc(
        {"name": "X", "machine": "z17", "partitions": [{"name": "A", "mif_id": 1, "host": "a"}], "network_express": []}
    )
    return not errors and "network_express" in (norm or {})


def test_model_network_express_ports(tmp_path, monkeypatch):
    if not _cpc_knows_network_express():
        pytest.skip("the collection's CPC model does not read cpc.network_express yet")
    monkeypatch.setenv("ZLAB_NO_ANSIBLE_INVENTORY", "1")
    gv = tmp_path / "group_vars" / "all"
    gv.mkdir(parents=True)
    (tmp_path / "hosts.yml").write_text("all:\n  hosts:\n    lnx1:\n    lnx2:\n")
    cpc = {
        "name": "ZNEXT",
        "machine": "z17",
        "partitions": [{"name": "LNX1", "mif_id": 1, "host": "lnx1"}, {"name": "LNX2", "mif_id": 2, "host": "lnx2"}],
        "network_express": [
            {
                "pchid": "314",
                "type": "NETH",
                "card": "NX01",
                "functions": [{"fid": "10", "uid": "10", "vf": 1, "partition": "LNX1", "fidparm": "01"}],
            },
            {
                "pchid": "330",
                "type": "NETD",
                "card": "NX02",
                "functions": [
                    {"fid": "20", "uid": "20", "pf": True, "partition": "LNX2"},
                    {"fid": "21", "uid": "21", "vf": 1, "partition": "LNX2"},
                    {"fid": "22", "uid": "22", "vf": 2, "partition": "LNX1"},
                ],
            },
        ],
    }
    import yaml  # pylint: disable=import-outside-toplevel

    (gv / "cpc.yml").write_text(yaml.safe_dump({"cpc": cpc}))
    m = model.load(str(tmp_path))
    lnx1 = {p["fid"]: p for p in m.hosts["lnx1"]["pci"]}
    lnx2 = {p["fid"]: p for p in m.hosts["lnx2"]["pci"]}
    assert (lnx1[0x10]["type"], lnx1[0x10]["pft"], lnx1[0x10]["fidparm"]) == ("neth", 0x0C, 1)
    assert (lnx2[0x20]["sriov_totalvfs"], lnx2[0x20]["vfn"]) == (2, 0)
    assert lnx2[0x21]["pf"] == 0x20
    # VF 2 is in another partition than its PF: an isolated VF there
    assert "pf" not in lnx1[0x22] and lnx1[0x22]["type"] == "netd"
    spec = kernel.HostSpec.from_dict(m.host_spec("lnx2")).to_dict()
    assert [p["fid"] for p in spec["pci"] if p["pf"] == 0x20] == [0x21]
