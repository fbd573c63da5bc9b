# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The data of the ism_passthrough role: the zpci_function config of a host's pass-through
functions and the report the libvirt role reads. Data in, data out, so no inventory string is
ever pasted into a template."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.s390x.network.plugins.plugin_utils.plain_data import plain

MODES = ("managed", "static")


def _fid(entry, index):
    fid = entry.get("fid") if isinstance(entry, dict) else None
    if isinstance(fid, bool) or not isinstance(fid, int) or not 0 <= fid <= 0xFFFFFFFF:
        raise AnsibleFilterError("passthrough[%d].fid: %r is not a FID (an integer 0..0xffffffff)" % (index, fid))
    return fid


def _mode(mode):
    if mode not in MODES:
        raise AnsibleFilterError("ism_passthrough_mode: %r is not one of %s" % (mode, ", ".join(MODES)))
    return mode


def ism_passthrough_config(plan, mode):
    mode = _mode(mode)
    config = []
    for index, entry in enumerate(plain((plan or {}).get("passthrough") or [])):
        item = {"fid": _fid(entry, index), "power": "on", "expected_type": "ism"}
        if mode == "static":
            item["driver"] = "vfio-pci"
        config.append(item)
    return config


def ism_passthrough_report(plan, result, mode):
    """Per function the inventory's guest, UID, VCHID with what the host reported."""
    mode = _mode(mode)
    found = {}
    for function in plain((result or {}).get("functions") or []):
        if isinstance(function, dict) and "fid" in function:
            found.setdefault(function["fid"], function)
    report = []
    for index, entry in enumerate(plain((plan or {}).get("passthrough") or [])):
        fid = _fid(entry, index)
        got = found.get(fid, {})
        uid = got.get("uid")
        report.append(
            {
                "fid": fid,
                "guest": entry.get("guest"),
                "uid": uid if uid is not None else entry.get("uid"),
                "vchid": entry.get("vchid"),
                "pci_address": got.get("pci_address"),
                "iommu_group": got.get("iommu_group"),
                "driver": got.get("driver"),
                "pnet_id": got.get("pnet_id"),
                "managed": mode == "managed",
            }
        )
    return report
