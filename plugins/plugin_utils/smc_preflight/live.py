# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The SMC pre-flight's facts of one host from what the read-only modules returned there
(playbooks/tasks/preflight_read.yml): they win over the inventory's."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import ipaddress

from ansible_collections.s390x.network.plugins.plugin_utils.smc_preflight.common import MACHINES_ISMV2


def _ok(result):
    return (
        isinstance(result, dict)
        and not result.get("failed")
        and not result.get("skipped")
        and not result.get("unreachable")
    )


def _fact_key(name):
    return name.replace("-", "_").replace(".", "_").replace(":", "_")


def _kernel_smc(live):
    """``kernel_smc`` of smc_sysctl or smcd_info, also from a failed smcd_info: it fails naming a
    kernel without SMC."""
    for name in ("smc_sysctl", "smcd_info_smcd", "smcd_info_smcr"):
        result = live.get(name)
        if isinstance(result, dict) and isinstance(result.get("kernel_smc"), dict):
            return {"available": result["kernel_smc"].get("available"), "reason": result["kernel_smc"].get("reason")}
    return None


def live_facts(live, facts):
    """Merge what the read-only modules returned on the host (their registered results)."""
    kernel_smc = _kernel_smc(live)
    if kernel_smc is not None:
        facts["kernel_smc"] = kernel_smc
        facts["sources"].append("live kernel_smc")
    sysctl = live.get("smc_sysctl")
    if _ok(sysctl):
        if sysctl.get("kernel"):
            facts["kernel"] = sysctl["kernel"]
        if "smc_loaded" in sysctl:
            facts["smc"] = bool(sysctl["smc_loaded"])
        facts["sources"].append("live smc_sysctl")
    smcd = live.get("smcd_info_smcd")
    if _ok(smcd) and isinstance(smcd.get("devices"), list):
        isms = []
        for row in smcd["devices"]:
            if not str(row.get("type") or "ISM").upper().startswith("ISM") or not isinstance(row.get("pchid"), int):
                continue
            by_user = bool(row.get("pnet_id_by_user"))
            isms.append(
                {
                    "name": row.get("pci_id"),
                    "fid": row.get("fid"),
                    "vchid": row["pchid"],
                    "pnet_id": "" if by_user else (row.get("pnet_id") or ""),
                    "pnet_id_user": row.get("pnet_id") if by_user else None,
                    "v2": None,
                }
            )
        machine_v2 = True if facts.get("machine") in MACHINES_ISMV2 else None
        for dev in isms:
            dev["v2"] = machine_v2
        facts["ism"] = isms
        facts["sources"].append("live smcd device")
    smcr = live.get("smcd_info_smcr")
    if _ok(smcr) and isinstance(smcr.get("devices"), list):
        roces = []
        for row in smcr["devices"]:
            by_user = bool(row.get("pnet_id_by_user"))
            kind = str(row.get("type") or "")
            roces.append(
                {
                    "name": row.get("ib_dev"),
                    "fid": row.get("fid"),
                    "port": row.get("port") or 1,
                    "pnet_id": "" if by_user else (row.get("pnet_id") or ""),
                    "pnet_id_user": row.get("pnet_id") if by_user else None,
                    "net_device": row.get("net_dev"),
                    "v2": None if not kind else kind not in ("RoCE_Express", "0x1004"),
                    "active": row.get("port_state") == "ACTIVE",
                }
            )
        facts["roce"] = roces
        facts["sources"].append("live smcr device")
    pnet = live.get("smc_pnet")
    if _ok(pnet) and isinstance(pnet.get("gathered"), list):
        facts["pnet_table"] = copy.deepcopy(pnet["gathered"])
        facts["sources"].append("live smc_pnet")
    ueid = live.get("smc_ueid")
    if _ok(ueid):
        if isinstance(ueid.get("after"), list):
            facts["ueids"] = list(ueid["after"])
        seid = ueid.get("seid")
        if isinstance(seid, dict):
            facts["seid"] = {"enabled": seid.get("enabled"), "value": seid.get("system_eid")}
        facts["sources"].append("live smc_ueid")
    network = live.get("ansible_facts")
    if isinstance(network, dict) and network:
        if not facts.get("kernel") and network.get("kernel"):
            facts["kernel"] = network["kernel"]
        name = (facts.get("rendezvous") or {}).get("interface")
        data = network.get(_fact_key(name)) if name else None
        if isinstance(data, dict) and facts["rendezvous"].get("addresses") is None:
            addresses = []
            ipv4 = data.get("ipv4")
            if isinstance(ipv4, dict) and ipv4.get("address") and ipv4.get("netmask"):
                addresses.append("%s/%s" % (ipv4["address"], ipv4["netmask"]))
            for item in data.get("ipv4_secondaries") or []:
                if item.get("address") and item.get("netmask"):
                    addresses.append("%s/%s" % (item["address"], item["netmask"]))
            for item in data.get("ipv6") or []:
                if item.get("address") and item.get("prefix"):
                    addresses.append("%s/%s" % (item["address"], item["prefix"]))
            facts["rendezvous"]["addresses"] = [str(ipaddress.ip_interface(a)) for a in addresses]
            facts["sources"].append("live network facts of %s" % name)
