# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""smcd_devices.read: SMC-D devices the DIBS way (/sys/class/dibs, Linux 6.18+) and the PCI way,
from fixture sysfs trees laid out as drivers/dibs/dibs_main.c and drivers/s390/net/ism_drv.c do."""

import os

from ansible_collections.s390x.network.plugins.module_utils.smc import smcd_devices as sd

ADDR = "0605:00:00.0"
ISM_GID = "8e2b1a3c-0000-4000-0000-000000000000"
LO_GID = "3f0c2a9e-6d1b-4c8a-9e7f-0a1b2c3d4e5f"


def _pci_function(root, address, pchid):
    dev = root / "sys/devices" / ("pci" + address[:7]) / address
    dev.mkdir(parents=True)
    (dev / "pchid").write_text(pchid + "\n")
    (root / "sys/bus/pci/devices").mkdir(parents=True, exist_ok=True)
    os.symlink(str(dev), str(root / "sys/bus/pci/devices" / address))
    drv = root / "sys/bus/pci/drivers/ism"
    drv.mkdir(parents=True, exist_ok=True)
    (drv / "bind").write_text("")
    os.symlink(str(dev), str(drv / address))
    return dev


def _dibs(root, dev):
    child = dev / "dibs/ism605"
    child.mkdir(parents=True)
    (child / "gid").write_text(ISM_GID + "\n")
    (child / "fabric_id").write_text("0x07c8\n")
    os.symlink("../../../" + ADDR, str(child / "device"))
    lo = root / "sys/devices/virtual/dibs/lo"
    lo.mkdir(parents=True)
    (lo / "gid").write_text(LO_GID + "\n")
    (lo / "fabric_id").write_text("0xffff\n")
    (root / "sys/class/dibs").mkdir(parents=True)
    os.symlink(str(child), str(root / "sys/class/dibs/ism605"))
    os.symlink(str(lo), str(root / "sys/class/dibs/lo"))


def test_before_dibs_the_ism_functions_bound_to_ism(host_root):
    _pci_function(host_root, ADDR, "0x07c8")
    got = sd.read()
    assert got == {
        "layout": "pci",
        "devices": [
            {"name": ADDR, "type": "ism", "parent": ADDR, "fabric_id": 0x7C8, "gid": None, "pnet_names": [ADDR]}
        ],
    }


def test_with_dibs_the_ism_device_and_the_loopback(host_root):
    _dibs(host_root, _pci_function(host_root, ADDR, "0x07c8"))
    got = sd.read()
    assert got["layout"] == "dibs"
    ism, lo = got["devices"]
    assert ism == {
        "name": "ism605",
        "type": "ism",
        "parent": ADDR,
        "fabric_id": 0x7C8,
        "gid": ISM_GID,
        "pnet_names": ["ism605", ADDR],
    }
    assert lo == {
        "name": "lo",
        "type": "loopback",
        "parent": None,
        "fabric_id": 0xFFFF,
        "gid": LO_GID,
        "pnet_names": ["lo"],
    }


def test_dibs_without_devices_and_foreign_names_skipped(host_root):
    (host_root / "sys/class/dibs/..hidden").mkdir(parents=True)
    assert sd.read() == {"layout": "dibs", "devices": []}


def test_a_bad_attribute_reads_as_none(host_root):
    dev = _pci_function(host_root, ADDR, "0x07c8")
    _dibs(host_root, dev)
    (dev / "dibs/ism605/fabric_id").write_text("garbage\n")
    (dev / "dibs/ism605/gid").write_text("not-a-gid\n")
    ism = sd.read()["devices"][0]
    assert ism["fabric_id"] is None and ism["gid"] is None
