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


def unusable(function, want, mode):
    """Why the host's ``function`` (a zpci_function result) cannot go to its guest, or None: not
    ISM, not powered on, no IOMMU group, another driver override, held by the host's SMC-D, another
    UID than the inventory's (``want``), or not bound to vfio-pci in static mode."""
    holders = [h for h in function.get("holders") or [] if isinstance(h, str) and h.startswith("smc-d")]
    ok = (
        function.get("type") in (None, "ism")
        and function.get("power") == "on"
        and (function.get("pci_address") is None or function.get("iommu_group") is not None)
        and function.get("driver_override") in (None, "vfio-pci", "ism_vfio_pci")
        and not holders
        and (want.get("uid") is None or function.get("uid") is None or function.get("uid") == want.get("uid"))
        and (mode == "managed" or function.get("driver") == "vfio-pci")
    )
    if ok:
        return None
    return (
        "FID 0x%x (guest %s) cannot be passed through: type=%s power=%s iommu_group=%s driver=%s "
        "driver_override=%s uid=%s (inventory uid %s)%s"
        % (
            function["fid"],
            want.get("guest"),
            function.get("type"),
            function.get("power"),
            function.get("iommu_group"),
            function.get("driver"),
            function.get("driver_override"),
            function.get("uid"),
            want.get("uid"),
            "; " + "; ".join(holders) if holders else "",
        )
    )


def ism_passthrough_report(plan, result, mode):
    """Per function the inventory's guest, UID, VCHID with what the host reported; fails naming each
    function the host reported that cannot be passed through (``unusable``)."""
    mode = _mode(mode)
    found = {}
    for function in plain((result or {}).get("functions") or []):
        if isinstance(function, dict) and "fid" in function:
            found.setdefault(function["fid"], function)
    report, problems = [], []
    for index, entry in enumerate(plain((plan or {}).get("passthrough") or [])):
        fid = _fid(entry, index)
        got = found.get(fid, {})
        problem = unusable(got, entry, mode) if got else None
        if problem:
            problems.append(problem)
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
    if problems:
        raise AnsibleFilterError("; ".join(problems))
    return report


def ism_passthrough_plan(view, hostname):
    """The host's view (``cpc_host``) when the inventory lets the role use it; raises naming what is
    wrong: no ``cpc``, the view's errors, no partition for the host."""
    view = plain(view or {})
    if not view.get("defined"):
        raise AnsibleFilterError("cpc: not defined; the role reads cpc.partitions and cpc.ism (inventory data model)")
    if view.get("errors"):
        raise AnsibleFilterError("; ".join(view["errors"]))
    if view.get("partition") is None:
        raise AnsibleFilterError("ism_passthrough_partition: empty and no cpc.partitions entry has host: %s" % hostname)
    return view
