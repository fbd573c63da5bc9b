# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The SMC pre-flight's facts of one host: ``normalize_facts`` checks and normalises them (see
docs/smc-preflight.md), and what a kernel release says about SMC v2 (``levels``: one table with the
buffer sizing)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ipaddress
import re

from ansible_collections.s390x.network.plugins.module_utils.smc.levels import kernel_level
from ansible_collections.s390x.network.plugins.module_utils.smc.pnet_cmd import PNET_ID_RE
from ansible_collections.s390x.network.plugins.plugin_utils.smc_preflight.common import PreflightError


# -- kernel releases ------------------------------------------------------------------------------
def kernel_smcd_v2(release):
    """Whether a kernel release has the SMC-Dv2 code: True, False or None (not known).

    Linux 5.10 and later; RHEL 8 from 8.4 (4.18.0-305); SLES 15 from SP3 (5.3.18-57). Older RHEL 8
    and SLES 15 kernels have none; other kernels before 5.10 are not known (distributions backport).
    """
    level = kernel_level(release)
    return level["smcd_v2"] if level else None


def kernel_smcr_v2(release):
    """Whether a kernel release has the SMC-Rv2 code (and the UEID table): Linux 5.16 and later,
    RHEL 9 from 9.4; others are not known (None)."""
    level = kernel_level(release)
    return level["smcr_v2"] if level else None


# -- facts ----------------------------------------------------------------------------------------
def _tri(value, field):
    if value is None or isinstance(value, bool):
        return value
    raise PreflightError("%s: expected true, false or null (not known), got %r" % (field, value))


def _pnet(item, key, field):
    """A PNET ID field: absent -> None (not known); null or "" -> "" (none); else upper case."""
    if key not in item:
        return None
    value = item[key]
    if value is None or value == "":
        return ""
    if not isinstance(value, str) or not PNET_ID_RE.fullmatch(value.strip()):
        raise PreflightError("%s: %r is not a PNET ID (1-16 characters A-Z 0-9) or null" % (field, value))
    return value.strip().upper()


def parse_id(value, field):
    if value is None:
        return None
    if isinstance(value, bool):
        raise PreflightError("%s: expected a number, got %r" % (field, value))
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        try:
            return int(value.strip(), 16)
        except ValueError:
            pass
    raise PreflightError("%s: %r is not a number (int or hex string)" % (field, value))


def _str_list(value, field, upper=False):
    if value is None:
        return None
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise PreflightError("%s: expected a list of strings or null (not known), got %r" % (field, value))
    return [v.strip().upper() if upper else v.strip() for v in value]


def _norm_ism(dev, field):
    if not isinstance(dev, dict):
        raise PreflightError("%s: each ISM device is a dict (vchid, pnet_id, ...), got %r" % (field, dev))
    vchid = parse_id(dev.get("vchid", dev.get("chid")), field + ".vchid")
    if vchid is None:
        raise PreflightError("%s.vchid: required (the ISM VCHID, which the kernel compares as the CHID)" % field)
    return {
        "name": dev.get("name"),
        "fid": parse_id(dev.get("fid"), field + ".fid"),
        "vchid": vchid,
        "pnet_id": _pnet(dev, "pnet_id", field + ".pnet_id"),
        "pnet_id_user": _pnet(dev, "pnet_id_user", field + ".pnet_id_user") or None,
        "v2": _tri(dev.get("v2"), field + ".v2"),
    }


def _norm_roce(dev, field):
    if not isinstance(dev, dict):
        raise PreflightError("%s: each RoCE port is a dict (name, port, pnet_id, ...), got %r" % (field, dev))
    port = dev.get("port", 1)
    if port not in (1, 2):
        raise PreflightError("%s.port: %r is not 1 or 2" % (field, port))
    return {
        "name": dev.get("name"),
        "fid": parse_id(dev.get("fid"), field + ".fid"),
        "port": port,
        "pnet_id": _pnet(dev, "pnet_id", field + ".pnet_id"),
        "pnet_id_user": _pnet(dev, "pnet_id_user", field + ".pnet_id_user") or None,
        "net_device": dev.get("net_device"),
        "v2": _tri(dev.get("v2"), field + ".v2"),
        "ipv4": _tri(dev.get("ipv4"), field + ".ipv4"),
        "active": _tri(dev.get("active", True), field + ".active"),
    }


def _norm_table(table, field):
    if table is None:
        return None
    if not isinstance(table, list):
        raise PreflightError("%s: expected a list of smc_pnet entries or null (not known), got %r" % (field, table))
    entries = []
    for index, item in enumerate(table):
        where = "%s[%d]" % (field, index)
        if not isinstance(item, dict) or not item.get("pnet_id"):
            raise PreflightError("%s: an entry is a dict with pnet_id and interface or ib_device" % where)
        pnet = _pnet(item, "pnet_id", where + ".pnet_id")
        if item.get("interface"):
            entries.append({"pnet_id": pnet, "interface": str(item["interface"])})
        elif item.get("ib_device"):
            entries.append({"pnet_id": pnet, "ib_device": str(item["ib_device"]), "port": int(item.get("port") or 1)})
        else:
            raise PreflightError("%s: names neither an interface nor an ib_device" % where)
    return entries


def _kernel_smc(value, field):
    """What the host showed about SMC in its kernel (``kernel_smc`` of smc_sysctl or smcd_info):
    ``{"available": True/False/None, "reason": text}``; None when not known."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise PreflightError("%s: expected the kernel_smc dict of smc_sysctl or smcd_info, got %r" % (field, value))
    reason = value.get("reason")
    if reason is not None and not isinstance(reason, str):
        raise PreflightError("%s.reason: expected a text, got %r" % (field, reason))
    return {"available": _tri(value.get("available"), field + ".available"), "reason": reason or ""}


def _addresses(value, field):
    if value is None:
        return None
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)):
        raise PreflightError("%s: expected an address with prefix (10.1.1.1/24) or a list of them" % field)
    result = []
    for item in value:
        try:
            result.append(ipaddress.ip_interface(str(item).strip()))
        except ValueError:
            raise PreflightError("%s: %r is not an IP address with prefix length such as 10.1.1.1/24" % (field, item))
    return result


def _vlan_of(name):
    match = re.fullmatch(r"[^.]+\.(\d+)", name or "")
    return int(match.group(1)) if match else 0


def _norm_rendezvous(rv, field):
    rv = rv or {}
    if isinstance(rv, str):
        rv = {"interface": rv}
    if not isinstance(rv, dict):
        raise PreflightError("%s: expected a dict (interface, address, pnet_id, vlan, kind)" % field)
    name = rv.get("interface")
    vlan = rv.get("vlan")
    if vlan is None and name:
        vlan = _vlan_of(name)
    if vlan is not None and (isinstance(vlan, bool) or not isinstance(vlan, int) or not 0 <= vlan <= 4095):
        raise PreflightError("%s.vlan: %r is not a VLAN ID 0-4095" % (field, vlan))
    return {
        "interface": name,
        "addresses": _addresses(rv.get("addresses", rv.get("address")), field + ".address"),
        "pnet_id": _pnet(rv, "pnet_id", field + ".pnet_id"),
        "kind": rv.get("kind"),
        "vlan": vlan,
    }


FACT_KEYS = (
    "cpc",
    "machine",
    "partition",
    "kernel",
    "kernel_smc",
    "smc",
    "smcd_v2",
    "smcr_v2",
    "ism",
    "roce",
    "pnet_table",
    "rendezvous",
    "netdev_pnet_ids",
    "seid",
    "ueids",
    "ipsec",
    "sources",
)


def normalize_facts(name, facts):
    """The canonical fact dict of one host (see docs/smc-preflight.md); raises PreflightError.

    Tri-state fields are True, False or None (not known). PNET IDs are a string, ``""`` (none)
    or None (not known); lists are None when not known.
    """
    if not isinstance(facts, dict):
        raise PreflightError("facts of %s: expected a dict, got %r" % (name, facts))
    field = "facts of %s" % name
    unknown = sorted(set(facts) - set(FACT_KEYS))
    if unknown:
        raise PreflightError("%s: unknown fact %s (known: %s)" % (field, ", ".join(unknown), ", ".join(FACT_KEYS)))
    seid = facts.get("seid") or {}
    if not isinstance(seid, dict):
        raise PreflightError("%s.seid: expected a dict with enabled and value" % field)
    release = facts.get("kernel")
    smcd_v2 = _tri(facts.get("smcd_v2"), field + ".smcd_v2")
    smcr_v2 = _tri(facts.get("smcr_v2"), field + ".smcr_v2")
    isms = facts.get("ism")
    roces = facts.get("roce")
    if isms is not None and not isinstance(isms, list):
        raise PreflightError("%s.ism: expected a list or null (not known)" % field)
    if roces is not None and not isinstance(roces, list):
        raise PreflightError("%s.roce: expected a list or null (not known)" % field)
    kernel_smc = _kernel_smc(facts.get("kernel_smc"), field + ".kernel_smc")
    smc = _tri(facts.get("smc"), field + ".smc")
    return {
        "name": name,
        "cpc": facts.get("cpc"),
        "machine": facts.get("machine"),
        "partition": facts.get("partition"),
        "kernel": release,
        "kernel_smc": kernel_smc,
        # a kernel without SMC has no SMC socket, whatever else the facts say
        "smc": False if kernel_smc and kernel_smc["available"] is False else smc,
        "smcd_v2": kernel_smcd_v2(release) if smcd_v2 is None else smcd_v2,
        "smcr_v2": kernel_smcr_v2(release) if smcr_v2 is None else smcr_v2,
        "ism": None if isms is None else [_norm_ism(d, "%s.ism[%d]" % (field, i)) for i, d in enumerate(isms)],
        "roce": None if roces is None else [_norm_roce(d, "%s.roce[%d]" % (field, i)) for i, d in enumerate(roces)],
        "pnet_table": _norm_table(facts.get("pnet_table"), field + ".pnet_table"),
        "rendezvous": _norm_rendezvous(facts.get("rendezvous"), field + ".rendezvous"),
        "netdev_pnet_ids": _str_list(facts.get("netdev_pnet_ids"), field + ".netdev_pnet_ids", upper=True),
        "seid": {
            "enabled": _tri(seid.get("enabled"), field + ".seid.enabled"),
            "value": seid.get("value") or None,
        },
        "ueids": _str_list(facts.get("ueids"), field + ".ueids", upper=True),
        "ipsec": _tri(facts.get("ipsec"), field + ".ipsec"),
        "sources": list(facts.get("sources") or []),
    }
