# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""zPCI slot/function/driver semantics (facts sheet section 3; arch/s390/pci/pci_sysfs.c,
drivers/pci/hotplug/s390_pci_hpc.c, drivers/pci/pci-driver.c, pci-sysfs.c)."""

import errno
import os

from zlab import kernel
from zlab.kernel import ebcdic

SLOT = "/sys/bus/pci/slots/00000605"
DEV = "/sys/bus/pci/devices/0605:00:00.0"
ADDR = "0605:00:00.0"


def _on(h):
    h.write(SLOT + "/power", "1\n")


def test_slot_per_fid_in_standby(host):
    assert host.listdir("/sys/bus/pci/slots") == ["00000605"]
    assert host.read(SLOT + "/power") == "0\n"
    assert host.listdir("/sys/bus/pci/devices") == []


def test_x86_pci_devices_do_not_show_through(host):
    # the fake real sysfs has devices/pci0000:00/0000:00:1f.0 and bus/pci/devices/.keep
    assert not host.exists("/sys/devices/pci0000:00")
    assert ".keep" not in host.listdir("/sys/bus/pci/devices")
    assert host.listdir("/sys/bus/pci/drivers") == []  # no x86 driver, ism not loaded yet
    assert not any(n.startswith("pci") for n in host.listdir("/sys/devices"))


def test_power_on_creates_function_at_uid_domain(host):
    _on(host)
    assert host.read(SLOT + "/power") == "1\n"
    assert host.listdir("/sys/bus/pci/devices") == [ADDR]
    assert host.readlink(DEV) == "../../../devices/pci0605:00/0605:00:00.0"
    assert host.read(SLOT + "/address") == "0605:00:00\n"


def test_function_attribute_formats(host):
    _on(host)
    got = {
        a: host.read(DEV + "/" + a)
        for a in (
            "function_id",
            "pchid",
            "pft",
            "vfn",
            "port",
            "uid",
            "uid_is_unique",
            "vendor",
            "device",
            "class",
            "driver_override",
            "function_handle",
        )
    }
    assert got["function_id"] == "0x00000605\n"
    assert got["pchid"] == "0x07c8\n"
    assert got["pft"] == "0x05\n"
    assert got["vfn"] == "0x0001\n"
    assert got["port"] == "0\n"
    assert got["uid"] == "0x605\n"
    assert got["uid_is_unique"] == "1\n"
    assert got["vendor"] == "0x1014\n"
    assert got["device"] == "0x04ed\n"
    assert got["driver_override"] == "(null)\n"
    assert got["function_handle"].startswith("0x") and len(got["function_handle"]) == 11
    assert not host.exists(DEV + "/pnetid")


def test_uid_is_unpadded(boot_host):
    h = boot_host(pci=[{"fid": 0x10, "uid": 0x1F, "pchid": 0x7C8, "vfn": 3}])
    h.write("/sys/bus/pci/slots/00000010/power", "1")
    assert h.read("/sys/bus/pci/devices/001f:00:00.0/uid") == "0x1f\n"
    assert h.read("/sys/bus/pci/devices/001f:00:00.0/function_id") == "0x00000010\n"


def test_util_string_non_native_is_zero_and_native_holds_ebcdic_pnet(boot_host):
    h = boot_host()
    _on(h)
    assert h.read_bytes(DEV + "/util_string") == bytes(64)
    h = boot_host(pci=[{"fid": 0x605, "uid": 0x605, "pchid": 0x7C8, "vfn": 1, "pnet_id": "NETA"}])
    _on(h)
    raw = h.read_bytes(DEV + "/util_string")
    assert len(raw) == 64
    assert raw[:16] == "NETA            ".encode("cp037")
    assert raw[16:] == bytes(48)
    assert ebcdic.decode(raw[:16]).strip() == "NETA"


def test_power_errnos(host):
    assert host.errno_of_write(SLOT + "/power", "0") == errno.EIO  # not configured
    assert host.errno_of_write(SLOT + "/power", "2") == errno.EINVAL
    _on(host)
    assert host.errno_of_write(SLOT + "/power", "1") == errno.EIO  # not in standby
    host.write(SLOT + "/power", "0")
    assert host.listdir("/sys/bus/pci/devices") == []


def test_power_garbage_parses_as_zero_like_simple_strtoul(host):
    _on(host)
    host.write(SLOT + "/power", "off\n")
    assert host.read(SLOT + "/power") == "0\n"


def test_power_off_ebusy_with_vfs(boot_host):
    h = boot_host(pci=[{"fid": 0x100, "uid": 0x100, "type": "roce2", "num_vfs": 2}])
    h.write("/sys/bus/pci/slots/00000100/power", "1")
    assert h.errno_of_write("/sys/bus/pci/slots/00000100/power", "0") == errno.EBUSY


def test_domains_allocated_from_zero_without_uid_checking(boot_host):
    pci = [{"fid": 0x605, "uid": 0x605, "vfn": 1}, {"fid": 0x606, "uid": 0x606, "vfn": 2}]
    h = boot_host(uid_checking=False, pci=pci)
    h.write("/sys/bus/pci/slots/00000606/power", "1")
    h.write("/sys/bus/pci/slots/00000605/power", "1")
    assert h.read("/sys/bus/pci/devices/0000:00:00.0/function_id") == "0x00000606\n"
    assert h.read("/sys/bus/pci/devices/0001:00:00.0/function_id") == "0x00000605\n"
    assert h.read("/sys/bus/pci/devices/0000:00:00.0/uid_is_unique") == "0\n"
    # after a reboot the order of power-on decides again
    h = boot_host(uid_checking=False, pci=pci)
    h.write("/sys/bus/pci/slots/00000605/power", "1")
    assert h.read("/sys/bus/pci/devices/0000:00:00.0/function_id") == "0x00000605\n"


def test_domain_clash_eexist(boot_host):
    h = boot_host(pci=[{"fid": 0x1, "uid": 0x42}, {"fid": 0x2, "uid": 0x42}])
    h.write("/sys/bus/pci/slots/00000001/power", "1")
    assert h.errno_of_write("/sys/bus/pci/slots/00000002/power", "1") == errno.EEXIST


def test_ism_autoprobe_and_iommu_group(host):
    _on(host)
    assert host.readlink(DEV + "/driver") == "../../../bus/pci/drivers/ism"
    assert host.listdir("/sys/bus/pci/drivers/ism") == sorted(
        [ADDR, "bind", "module", "new_id", "remove_id", "uevent", "unbind"]
    )
    grp = host.readlink(DEV + "/iommu_group")
    assert grp == "../../../kernel/iommu_groups/0"
    assert host.listdir("/sys/kernel/iommu_groups/0/devices") == [ADDR]
    assert "7" not in host.listdir("/sys/kernel/iommu_groups")  # real groups hidden


def test_ism_blacklisted_stays_unbound(host):
    etc = os.path.join(host.root, "etc", "modprobe.d")
    os.makedirs(etc)
    with open(os.path.join(etc, "ism.conf"), "w", encoding="ascii") as f:
        f.write("blacklist ism\n")
    kernel.apply_persistent(host.state_dir, host.root)
    _on(host)
    assert not host.exists(DEV + "/driver")
    assert not host.exists("/sys/bus/pci/drivers/ism")


def test_vfio_pci_driver_only_after_modprobe(host):
    assert not host.exists("/sys/bus/pci/drivers/vfio-pci")
    assert not host.exists("/sys/module/vfio_pci")  # the fake real one is hidden
    kernel.load_module(host.state_dir, "vfio-pci")
    assert host.exists("/sys/bus/pci/drivers/vfio-pci/new_id")
    assert host.read("/sys/module/vfio_pci/initstate") == "live\n"


def test_study_vfio_rebinding_procedure(host):
    _on(host)
    kernel.load_module(host.state_dir, "vfio_pci")
    host.write(DEV + "/driver_override", "vfio-pci\n")
    assert host.read(DEV + "/driver_override") == "vfio-pci\n"
    assert host.readlink(DEV + "/driver").endswith("/ism")  # override alone does not rebind
    host.write("/sys/bus/pci/drivers/ism/unbind", ADDR)
    assert not host.exists(DEV + "/driver")
    host.write("/sys/bus/pci/drivers_probe", ADDR)
    assert host.readlink(DEV + "/driver") == "../../../bus/pci/drivers/vfio-pci"
    assert host.listdir("/sys/bus/pci/drivers/ism").count(ADDR) == 0


def test_unbind_enodev_when_not_bound(host):
    _on(host)
    host.write("/sys/bus/pci/drivers/ism/unbind", ADDR)
    assert host.errno_of_write("/sys/bus/pci/drivers/ism/unbind", ADDR) == errno.ENODEV
    assert host.errno_of_write("/sys/bus/pci/drivers/ism/unbind", "ffff:00:00.0") == errno.ENODEV


def test_bind_errors(host):
    _on(host)
    assert host.errno_of_write("/sys/bus/pci/drivers/ism/bind", ADDR) == errno.EBUSY
    kernel.load_module(host.state_dir, "vfio-pci")
    # no id match and no override: vfio-pci does not match the device
    host.write("/sys/bus/pci/drivers/ism/unbind", ADDR)
    assert host.errno_of_write("/sys/bus/pci/drivers/vfio-pci/bind", ADDR) == errno.ENODEV
    host.write("/sys/bus/pci/drivers/ism/bind", ADDR)
    assert host.readlink(DEV + "/driver").endswith("/ism")


def test_override_to_other_driver_blocks_probe(host):
    _on(host)
    host.write(DEV + "/driver_override", "vfio-pci")
    host.write("/sys/bus/pci/drivers/ism/unbind", ADDR)
    host.write("/sys/bus/pci/drivers_probe", ADDR)  # vfio-pci not loaded: stays unbound
    assert not host.exists(DEV + "/driver")
    assert host.errno_of_write("/sys/bus/pci/drivers/ism/bind", ADDR) == errno.ENODEV
    host.write(DEV + "/driver_override", "\n")
    assert host.read(DEV + "/driver_override") == "(null)\n"
    host.write("/sys/bus/pci/drivers_probe", ADDR)
    assert host.readlink(DEV + "/driver").endswith("/ism")


def test_drivers_probe_unknown_device_enodev(host):
    assert host.errno_of_write("/sys/bus/pci/drivers_probe", "0001:00:00.0") == errno.ENODEV


def test_new_id_binds_unbound_and_remove_id(host):
    _on(host)
    kernel.load_module(host.state_dir, "vfio-pci")
    host.write("/sys/bus/pci/drivers/ism/unbind", ADDR)
    host.write("/sys/bus/pci/drivers/vfio-pci/new_id", "1014 04ed")
    assert host.readlink(DEV + "/driver").endswith("/vfio-pci")
    assert host.errno_of_write("/sys/bus/pci/drivers/vfio-pci/new_id", "1014 04ed") == errno.EEXIST
    assert host.errno_of_write("/sys/bus/pci/drivers/vfio-pci/new_id", "1014") == errno.EINVAL
    host.write("/sys/bus/pci/drivers/vfio-pci/remove_id", "1014 04ed")
    assert host.errno_of_write("/sys/bus/pci/drivers/vfio-pci/remove_id", "1014 04ed") == errno.ENODEV


def test_remove_and_rescan(host):
    _on(host)
    host.write(DEV + "/remove", "1")
    assert host.listdir("/sys/bus/pci/devices") == []
    assert host.read(SLOT + "/power") == "1\n"
    host.write("/sys/bus/pci/rescan", "1")
    assert host.listdir("/sys/bus/pci/devices") == [ADDR]
    assert host.readlink(DEV + "/driver").endswith("/ism")
    assert host.readlink(DEV + "/iommu_group").endswith("/1")


def test_vfio_pci_builtin_on_ubuntu_profile(boot_host):
    h = boot_host(kernel_profile="ubuntu23.04")
    assert h.exists("/sys/bus/pci/drivers/vfio-pci/bind")
    assert h.exists("/sys/module/vfio_pci")
    assert not h.exists("/sys/module/vfio_pci/initstate")  # built-in: no initstate
    assert "vfio_pci" not in h.read("/proc/modules")


def test_ism_builtin_on_linux612_binds_before_udev_override(boot_host):
    h = boot_host(kernel_profile="linux6.12")
    rules = os.path.join(h.root, "etc", "udev", "rules.d")
    os.makedirs(rules)
    with open(os.path.join(rules, "80-ism-vfio.rules"), "w", encoding="ascii") as f:
        f.write(
            'ACTION=="add", SUBSYSTEM=="pci", ATTR{vendor}=="0x1014", '
            'ATTR{device}=="0x04ed", ATTR{driver_override}="vfio-pci"\n'
        )
    kernel.apply_persistent(h.state_dir, h.root)
    kernel.load_module(h.state_dir, "vfio_pci")
    _on(h)
    # built-in ism probed at device_add, the udev rule's override comes too late
    assert h.readlink(DEV + "/driver").endswith("/ism")
    assert h.read(DEV + "/driver_override") == "vfio-pci\n"


def test_guest_functions_appear_at_zpci_uid(boot_host):
    h = boot_host(role="guest", uid_checking=False, pci=[])
    kernel.set_pci_functions(h.state_dir, [{"fid": 0x605, "uid": 0x605, "pchid": 0x7C8, "vfn": 1}])
    assert h.listdir("/sys/bus/pci/devices") == [ADDR]
    assert h.read(DEV + "/pchid") == "0x07c8\n"
    assert h.readlink(DEV + "/driver").endswith("/ism")


def test_roce_express2_autoloads_mlx5(boot_host):
    h = boot_host(pci=[{"fid": 0x100, "uid": 0x100, "pchid": 0x1C0, "type": "roce2", "pnet_id": "NETA"}])
    h.write("/sys/bus/pci/slots/00000100/power", "1")
    d = "/sys/bus/pci/devices/0100:00:00.0"
    assert h.readlink(d + "/driver") == "../../../bus/pci/drivers/mlx5_core"
    assert h.read(d + "/class") == "0x020000\n"
    assert h.read(d + "/pft") == "0x0a\n"
    assert h.read(d + "/device") == "0x1016\n"
    assert h.read(d + "/port") == "1\n"
    assert "mlx5_core" in h.read("/proc/modules")
    assert not h.exists("/sys/bus/pci/drivers/ism")
