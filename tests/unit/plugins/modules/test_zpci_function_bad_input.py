# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""zpci_function, bad input: refused with a message that names the field and what is allowed,
before sysfs, the boot files or any tool are looked at."""

from __future__ import absolute_import, division, print_function

import pytest

from ansible_collections.s390x.network.plugins.modules import zpci_function
from ansible_collections.s390x.network.tests.unit.plugins.modules.host_guard import HostGuard

HEX = "an integer or a hex string such as 0x605"

CASES = [
    # -- fid -----------------------------------------------------------------------------------
    ("fid not hex", {"config": [{"fid": "zz"}]}, ["config[0].fid: 'zz' is not " + HEX]),
    ("fid empty", {"config": [{"fid": ""}]}, ["config[0].fid: '' is not " + HEX]),
    ("fid negative", {"config": [{"fid": -1}]}, ["config[0].fid: -1 is outside 0x0000..0xffffffff"]),
    ("fid above 32 bits", {"config": [{"fid": 0x100000000}]}, ["config[0].fid: 0x100000000 is outside"]),
    ("fid hex string above 32 bits", {"config": [{"fid": "1ffffffff"}]}, ["config[0].fid: 0x1ffffffff is outside"]),
    ("fid boolean", {"config": [{"fid": True}]}, ["config[0].fid: expected " + HEX]),
    ("fid float", {"config": [{"fid": 1541.0}]}, ["config[0].fid: expected " + HEX]),
    ("fid list", {"config": [{"fid": [0x605]}]}, ["config[0].fid: expected " + HEX]),
    ("fid decimal-looking with a sign", {"config": [{"fid": "+605"}]}, ["config[0].fid: '+605' is not " + HEX]),
    ("fid missing", {"config": [{"power": "on"}]}, ["missing required arguments: fid", "config"]),
    # -- power, driver, expected_type ----------------------------------------------------------
    ("power unknown", {"config": [{"fid": 0x605, "power": "standby"}]}, ["config[0].power: 'standby'", "on, off"]),
    ("power number", {"config": [{"fid": 0x605, "power": 2}]}, ["config[0].power: 2 is not one of on, off"]),
    ("power list", {"config": [{"fid": 0x605, "power": ["on"]}]}, ["config[0].power: ", "on, off"]),
    ("driver choice", {"config": [{"fid": 0x605, "driver": "vfio"}]}, ["driver", "vfio-pci, ism, ism_vfio_pci"]),
    ("expected_type choice", {"config": [{"fid": 0x605, "expected_type": "nvme"}]}, ["expected_type", "ism, roce"]),
    (
        "power off with a driver",
        {"config": [{"fid": 0x605, "power": "off", "driver": "vfio-pci"}]},
        ["config[0].driver: FID 0x605 has power off", "omit driver or use power: on"],
    ),
    (
        "power off with driver none",
        {"config": [{"fid": 0x605, "power": False, "driver": "none"}]},
        ["config[0].driver: FID 0x605 has power off"],
    ),
    (
        "RoCE driver for ISM",
        {"config": [{"fid": 0x605, "driver": "mlx5_core", "expected_type": "ism"}]},
        ["config[0].driver: mlx5_core drives roce or neth or netd functions, but expected_type is ism"],
    ),
    (
        "ISM driver for RoCE",
        {"config": [{"fid": 0x20E, "driver": "ism", "expected_type": "roce"}]},
        ["config[0].driver: ism drives ism functions, but expected_type is roce"],
    ),
    (
        "ISM vfio driver for RoCE",
        {"config": [{"fid": 0x20E, "driver": "ism_vfio_pci", "expected_type": "roce"}]},
        ["config[0].driver: ism_vfio_pci drives ism functions"],
    ),
    # -- one FID twice ------------------------------------------------------------------------
    (
        "same FID as int and hex string, other driver",
        {"config": [{"fid": 0x605, "driver": "ism"}, {"fid": "605", "driver": "vfio-pci"}]},
        ["config[1].driver: FID 0x605 is also in config[0] with driver 'ism', here 'vfio-pci'", "give each FID once"],
    ),
    (
        "same FID with leading zeros, other power",
        {"config": [{"fid": "0x00000605"}, {"fid": 1541, "power": "off"}]},
        ["config[1].power: FID 0x605 is also in config[0] with power 'on', here 'off'"],
    ),
    (
        "same FID, other expected_type",
        {"config": [{"fid": "0X605", "expected_type": "ism"}, {"fid": "605", "expected_type": "roce"}]},
        ["config[1].expected_type: FID 0x605 is also in config[0]"],
    ),
    # -- states and options --------------------------------------------------------------------
    ("merged without config", {}, ["config: give at least one function for state merged"]),
    ("merged with an empty config", {"config": []}, ["config: give at least one function for state merged"]),
    ("rendered without config", {"state": "rendered"}, ["config: give at least one function for state rendered"]),
    ("state choice", {"state": "present", "config": [{"fid": 0x605}]}, ["state", "merged, overridden, gathered"]),
    ("persistent not a boolean", {"persistent": "maybe", "config": [{"fid": 0x605}]}, ["persistent", "bool"]),
    ("force not a boolean", {"force": "maybe", "config": [{"fid": 0x605}]}, ["force", "bool"]),
    ("unknown option", {"config": [{"fid": 0x605}], "fids": [1]}, ["Unsupported parameters", "fids"]),
    ("unknown entry option", {"config": [{"fid": 0x605, "uid": 1}]}, ["uid"]),
    # -- every problem in one message ----------------------------------------------------------
    (
        "all problems of the task",
        {"config": [{"fid": "zz"}, {"fid": 0x606, "power": "maybe"}, {"fid": 0x607, "power": "off", "driver": "ism"}]},
        ["config[0].fid: 'zz'", "config[1].power: 'maybe'", "config[2].driver: FID 0x607 has power off"],
    ),
]


@pytest.mark.parametrize("name,args,fragments", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_refused_before_the_host_is_read(monkeypatch, run_module, name, args, fragments):
    HostGuard(monkeypatch, run_module).refuses(zpci_function.main, args, fragments)


@pytest.mark.parametrize("name,args,fragments", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_refused_in_check_mode_too(monkeypatch, run_module, name, args, fragments):
    HostGuard(monkeypatch, run_module).refuses(zpci_function.main, args, fragments, check_mode=True)


def test_the_guard_sees_a_module_that_reads_the_host(monkeypatch, run_module):
    guard = HostGuard(monkeypatch, run_module)
    with pytest.raises(AssertionError):
        guard.run(zpci_function.main, {"config": [{"fid": 0x605, "driver": "vfio-pci"}]})
    assert guard.accesses


def test_rendered_touches_nothing(monkeypatch, run_module):
    guard = HostGuard(monkeypatch, run_module)
    result = guard.run(zpci_function.main, {"state": "rendered", "config": [{"fid": "605", "driver": "vfio-pci"}]})
    assert not result["failed"], result["msg"]
    assert guard.accesses == []
