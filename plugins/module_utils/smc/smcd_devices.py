# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The SMC-D devices (ISM functions, loopback) as the host's sysfs shows them.

Where the host has ``/sys/class/dibs`` (Linux 6.18 and later, drivers/dibs) every SMC-D device is a
DIBS device: ``ism<uid>`` (``ism<fid>`` when the UID is 0) below its ISM PCI function, ``lo`` (the
loopback, no parent), each with ``fabric_id`` (``0x%04x``; the loopback has ``0xffff``) and ``gid``
(``%pUb``). An SMC-D PNET entry may name the DIBS device or its parent (net/smc/smc_pnet.c).

Where it has not, the ISM functions are the PCI devices bound to the ``ism`` driver: their name is
the PCI address (what ``smc_pnet`` takes), the fabric is the function's ``pchid``; the GID is not in
sysfs (``smcd device`` or the netlink dump reads it) and loopback-ism has no sysfs device. Which
layout applies is decided by what the host shows, not by its release.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re

from ansible_collections.s390x.network.plugins.module_utils.engine import host_files

SYS_CLASS_DIBS = "/sys/class/dibs"
ISM_DRIVER = "/sys/bus/pci/drivers/ism"
PCI_DEVICES = "/sys/bus/pci/devices"
LAYOUT_DIBS = "dibs"
LAYOUT_PCI = "pci"
LOOPBACK_FABRIC = 0xFFFF

_DIBS_NAME = re.compile(r"lo|ism[0-9a-f]{1,8}")
_PCI_ADDRESS = re.compile(r"[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]")
_FABRIC = re.compile(r"0x[0-9a-fA-F]{1,4}")
_GID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _listdir(path):
    try:
        return sorted(os.listdir(host_files.path(path)))
    except (IOError, OSError):
        return []


def _fabric(text):
    return int(text, 16) if text is not None and _FABRIC.fullmatch(text) else None


def _parent(path):
    """The name of the device ``path/device`` links to (an ISM function's PCI address), else None."""
    link = host_files.path(path + "/device")
    if not os.path.islink(link):
        return None
    name = os.path.basename(os.readlink(link))
    return name if _PCI_ADDRESS.fullmatch(name) else None


def _dibs_device(name):
    base = "%s/%s" % (SYS_CLASS_DIBS, name)
    gid = host_files.read_attr(base + "/gid")
    parent = _parent(base)
    fabric = _fabric(host_files.read_attr(base + "/fabric_id"))
    loopback = parent is None and (name == "lo" or fabric == LOOPBACK_FABRIC)
    return {
        "name": name,
        "type": "loopback" if loopback else "ism",
        "parent": parent,
        "fabric_id": fabric,
        "gid": gid if gid is not None and _GID.fullmatch(gid) else None,
        "pnet_names": [name] + ([parent] if parent else []),
    }


def _pci_device(address):
    fabric = host_files.read_attr("%s/%s/pchid" % (PCI_DEVICES, address))
    return {
        "name": address,
        "type": "ism",
        "parent": address,
        "fabric_id": _fabric(fabric),
        "gid": None,
        "pnet_names": [address],
    }


def layout():
    """``dibs`` where the host has /sys/class/dibs, ``pci`` otherwise."""
    return LAYOUT_DIBS if os.path.isdir(host_files.path(SYS_CLASS_DIBS)) else LAYOUT_PCI


def read():
    """``{"layout": ..., "devices": [...]}``: each device ``name``, ``type`` (``ism``, ``loopback``),
    ``parent`` (the PCI address of an ISM function), ``fabric_id`` (int; the PCHID of an ISM
    function, 0xffff for the loopback), ``gid`` (DIBS only) and ``pnet_names`` (the names an SMC-D
    PNET entry may use for it)."""
    if layout() == LAYOUT_DIBS:
        names = [n for n in _listdir(SYS_CLASS_DIBS) if _DIBS_NAME.fullmatch(n)]
        return {"layout": LAYOUT_DIBS, "devices": [_dibs_device(n) for n in names]}
    names = [n for n in _listdir(ISM_DRIVER) if _PCI_ADDRESS.fullmatch(n)]
    return {"layout": LAYOUT_PCI, "devices": [_pci_device(n) for n in names]}
