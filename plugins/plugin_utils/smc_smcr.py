# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""SMC-R for the smc role: the RDMA functions a host powers on (RoCE Express, or Network Express NETH
and NETD on a z17 / LinuxONE 5), and the PNET pairing of their ports with the interface that carries
the rendezvous.

SMC-R uses a RoCE port only when it is under the PNET ID of the rendezvous interface
(net/smc/smc_pnet.c; otherwise the server declines with SMC_CLC_DECL_NOSMCRDEV). A port's PNET ID is
the one the IOCDS gives it (the function's ``util_string``, one 16 byte field per RDMA port), else
its software PNET entry; the interface's is its CHPID's ``util_string``, else its software entry.
The kernel refuses a software entry for a device port that has a PNET ID from the IOCDS (EEXIST), so
such a port is never planned an entry, nor is one suggested.

Messages speak the inventory's terms: FIDs as ``0x1c1``, the card as ``PCHID 15C`` and its port as
the card numbers it (``cpc.roce[].functions[].port``): an Express2/3 function has one RDMA port,
port 1 for the kernel and ``smc_pnet``, which is port 1 or 2 of its card. A Network Express function
has one RDMA port too, and its PCHID is the card port (``Network Express FID 0x10 (PCHID 314)``).
"""

from __future__ import annotations

import base64
import binascii

from ansible.module_utils.parsing.convert_bool import boolean

from ansible_collections.s390x.network.plugins.module_utils.iocp.cpc_model import SMCR_TYPES
from ansible_collections.s390x.network.plugins.module_utils.iocp.machines import ROCE_GENERATIONS
from ansible_collections.s390x.network.plugins.module_utils.iocp.validate import NETX_TYPES
from ansible_collections.s390x.network.plugins.module_utils.smc.pnet_cmd import PnetError, normalize_entry
from ansible_collections.s390x.network.plugins.module_utils.zpci.pci_ids import (
    fid_text,
    parse_fid,
    parse_hex_id,
    pchid_port,
    roce_function_ports,
)
from ansible_collections.s390x.network.plugins.module_utils.zpci.sysfs import PFT_NAMES, PFT_TYPES
from ansible_collections.s390x.network.plugins.module_utils.zpci.util_string import pnet_ids

# the cpc_host view's types of the RDMA functions SMC-R uses (the IOCP types in lower case)
RDMA_TYPES = tuple(t.lower() for t in SMCR_TYPES)
NETWORK_EXPRESS_TYPES = tuple(t.lower() for t in NETX_TYPES)
NOSMCRDEV = "SMC-R would fall back to TCP (SMC_CLC_DECL_NOSMCRDEV)"


def _bool(value, name):
    try:
        return boolean(value, strict=True)
    except TypeError:
        raise ValueError("%s: %r is not a boolean" % (name, value))


def roce_plan(view, fids=None, smcr=None):
    """The RDMA functions a host powers on for SMC-R.

    ``view``: the host's ``cpc_host`` view; ``fids``: the role's ``smc_roce_fids`` (None: the
    ``cpc.roce`` and ``cpc.network_express`` functions of the host's partition); ``smcr``:
    ``smc_smcr`` (None: SMC-R when there are such functions). Returns ``enabled``, ``fids`` (sorted
    ints), ``labels`` (``0x1c0``), ``functions`` (the model's functions of those FIDs: ``fid``,
    ``type``, ``pchid``, ``port``, ``pnet_id``),
    ``config`` (zpci_function entries) and ``errors``.
    """
    view = view or {}
    errors = []
    model = [f for f in view.get("functions") or [] if f.get("type") in RDMA_TYPES]
    given = None
    if fids == "":
        fids = None  # a templated null on ansible-core before 2.19
    if fids is not None:
        given = []
        if isinstance(fids, (str, bytes, dict)) or not isinstance(fids, (list, tuple)):
            errors.append("smc_roce_fids: a list of FIDs (integers or hex strings), got %r" % (fids,))
        else:
            for index, fid in enumerate(fids):
                try:
                    given.append(parse_fid(fid))
                except ValueError as exc:
                    errors.append("smc_roce_fids[%d]: %s" % (index, exc))
    try:
        enabled = bool(model) if smcr is None else _bool(smcr, "smc_smcr")
    except ValueError as exc:
        errors.append(str(exc))
        enabled = False
    chosen = []
    if enabled:
        chosen = sorted(set(given if given is not None else [f["fid"] for f in model]))
        if given is None:
            errors = list(view.get("errors") or []) + errors
    return {
        "enabled": enabled,
        "fids": chosen,
        "labels": [fid_text(fid) for fid in chosen],
        "functions": [
            {
                "fid": f["fid"],
                "type": f.get("type"),
                "pchid": f.get("pchid"),
                "port": f.get("port"),
                "pnet_id": f.get("pnet_id"),
            }
            for f in model
            if f["fid"] in chosen
        ],
        "config": [{"fid": fid, "power": "on", "expected_type": _expected_type(fid, model, view)} for fid in chosen],
        "errors": errors,
    }


def _expected_type(fid, model, view):
    """zpci_function's ``expected_type`` of an SMC-R FID: the type of its ``pft`` in the model (``roce``,
    ``neth``, ``netd``); a FID the model does not hold is ``roce`` on a machine with RoCE Express, else
    (Network Express in either mode, or no model) not checked."""
    for func in model:
        if func["fid"] == fid and func.get("pft") in PFT_TYPES:
            return PFT_TYPES[func["pft"]]
    return "roce" if view.get("machine") in ROCE_GENERATIONS else "any"


def chpid_pnet_id(util_string):
    """The PNET ID the IOCDS gives a CHPID (its ``util_string``, raw bytes or base64 as ``slurp``
    returns it), '' when none."""
    raw = util_string or b""
    if isinstance(raw, str):
        try:
            raw = base64.b64decode(raw, validate=True)
        except (binascii.Error, ValueError):
            return ""
    ids = pnet_ids(raw, ports=1) if raw else []
    return (ids[0] or "") if ids else ""


def _entries(config):
    """The software entries of ``config`` that name an interface or a device port (normalised)."""
    result = []
    for index, item in enumerate(config or []):
        try:
            result.append(normalize_entry(item, index))
        except PnetError:
            continue  # the role's check (the smc_plan action) reports it
    return result


def _pchid_text(pchid):
    if pchid is None or pchid == "":
        return None
    try:
        return "%03X" % parse_hex_id(pchid, 0xFFFF)
    except ValueError:
        return None


def _network_express(func, card):
    """Whether a function is Network Express: its ``pft`` as sysfs gives it, else the model's type."""
    if func.get("pft") is not None:
        return PFT_NAMES.get(func["pft"]) in NETX_TYPES
    return card.get("type") in NETWORK_EXPRESS_TYPES


def _port_label(port):
    """An RDMA port as the inventory names it: FID, card (PCHID) and the card's port."""
    if port["network_express"]:
        where = (
            "PCHID %s" % port["pchid"] if port["pchid"] else "RDMA port %d of %s" % (port["port"], port["pci_address"])
        )
        return "Network Express FID %s (%s)" % (fid_text(port["fid"]), where)
    where = []
    if port["pchid"]:
        where.append("PCHID %s" % port["pchid"])
    if port["pchid_port"]:
        where.append("port %d" % port["pchid_port"])
    if not where:
        where.append("RDMA port %d of %s" % (port["port"], port["pci_address"]))
    return "RoCE FID %s (%s)" % (fid_text(port["fid"]), " ".join(where))


def _source_text(source):
    return {"iocds": "from the IOCDS", "software": "software PNET entry"}.get(source, "")


def _has(pnet_id, source):
    if not pnet_id:
        return "no PNET ID"
    return "PNET ID %s (%s)" % (pnet_id, _source_text(source))


def _advice(port, interface, rv_pnet, rv_source, wanted, planned, interface_entry):
    """How to bring one mismatched port under the interface's PNET ID, in terms the admin can act on."""
    label = "FID %s" % fid_text(port["fid"])
    target = rv_pnet or "the PNET ID of %s" % interface
    if port["source"] == "iocds":
        if rv_pnet:
            text = "%s has its PNET ID from the IOCDS, which no software entry overrides: give it %s in the IOCDS" % (
                label,
                rv_pnet,
            )
        else:
            text = "%s has %s from the IOCDS: give the CHPID of %s %s in the IOCDS too" % (
                label,
                port["pnet_id"],
                interface or "the rendezvous interface",
                port["pnet_id"],
            )
        if rv_source != "iocds" and interface:
            if interface_entry:
                text += ", or change the smc_pnet_config entry of %s to %s" % (interface, port["pnet_id"])
            else:
                text += ", or put %s under %s (smc_smcr_pnet_id: %s)" % (interface, port["pnet_id"], port["pnet_id"])
        return text
    if port["source"] == "software" and (port["fid"], port["port"]) not in planned:
        return "%s's smc_pnet_config entry puts it under %s: change it to %s" % (label, port["pnet_id"], target)
    if port["source"] == "software" and rv_pnet:
        return "smc_smcr_pnet_id %s is not the PNET ID %s %s: set it to %s" % (
            wanted,
            rv_pnet,
            ("the IOCDS gives %s" % interface) if rv_source == "iocds" else ("of %s" % interface),
            rv_pnet,
        )
    if rv_pnet:
        return "set smc_smcr_pnet_id: %s to give %s a software PNET entry" % (rv_pnet, label)
    return "neither has a PNET ID: define one for both in the IOCDS, or set smc_smcr_pnet_id (software entries)"


def smcr_pairing(
    functions,
    fids=None,
    interface="",
    interface_util_string=None,
    pnet_id="",
    pnet_config=None,
    model_functions=None,
):
    """The PNET pairing of SMC-R on one host.

    ``functions``: the ``zpci_function`` result's ``functions`` (powered-on ones have a
    ``pci_address``); ``fids``: the RoCE FIDs of ``roce_plan``; ``interface``: the rendezvous
    interface (``smc_smcr_interface``, '' for none); ``interface_util_string``: its CHPID's
    ``util_string``; ``pnet_id``: ``smc_smcr_pnet_id`` (software entries for the interface and the
    ports without a PNET ID); ``pnet_config``: ``smc_pnet_config`` (its entries win);
    ``model_functions``: ``roce_plan``'s ``functions`` (card and port where sysfs does not tell).

    Returns ``entries`` (the software PNET entries to add), ``interface``, ``interface_pnet_id``,
    ``interface_pnet_source`` (``iocds``, ``software``, ``none``), ``ports`` (one per RDMA port:
    ``fid``, ``pci_address``, ``port`` (RDMA), ``pchid``, ``pchid_port``, ``network_express``,
    ``label``, ``pnet_id``, ``source``), ``mismatches`` (ports under another PNET ID than the interface) and ``message``
    ('' when every port pairs).
    """
    wanted = str(pnet_id or "").upper()
    interface = str(interface or "")
    chosen = set(fids) if fids is not None else None
    model = dict((f.get("fid"), f) for f in model_functions or [] if isinstance(f, dict))
    config = _entries(pnet_config)
    soft_if = dict((e["interface"], e["pnet_id"]) for e in reversed(config) if e["interface"])
    soft_ib = dict(((e["ib_device"], e["port"]), e["pnet_id"]) for e in reversed(config) if e["ib_device"])

    rv_hw = chpid_pnet_id(interface_util_string) if interface else ""
    entries, planned = [], set()
    if wanted and interface and not rv_hw and interface not in soft_if:
        entries.append({"pnet_id": wanted, "interface": interface})
    rv_soft = soft_if.get(interface) or (wanted if entries else "")
    rv_pnet = rv_hw or rv_soft
    rv_source = "iocds" if rv_hw else ("software" if rv_soft else "none")

    ports = []
    for func in functions or []:
        if not isinstance(func, dict) or not func.get("pci_address"):
            continue
        if chosen is not None and func.get("fid") not in chosen:
            continue
        card = model.get(func.get("fid")) or {}
        netx = _network_express(func, card)
        hw_ids = func.get("pnet_ids") or []
        for rdma_port in range(1, roce_function_ports(func.get("device_id")) + 1):
            hw = (hw_ids[rdma_port - 1] if rdma_port <= len(hw_ids) else None) or ""
            soft = soft_ib.get((func["pci_address"], rdma_port), "")
            if wanted and not hw and not soft:
                entries.append({"pnet_id": wanted, "ib_device": func["pci_address"], "port": rdma_port})
                planned.add((func["fid"], rdma_port))
                soft = wanted
            port = {
                "fid": func["fid"],
                "pci_address": func["pci_address"],
                "port": rdma_port,
                "pchid": _pchid_text(func.get("pchid")) or _pchid_text(card.get("pchid")),
                # a Network Express PCHID is one card port: no port number within the card
                "pchid_port": (
                    None
                    if netx
                    else pchid_port(
                        func.get("device_id"),
                        rdma_port,
                        func.get("port") if func.get("port") in (1, 2) else card.get("port"),
                    )
                ),
                "network_express": netx,
                "pnet_id": (hw or soft).upper(),
                "source": "iocds" if hw else ("software" if soft else "none"),
            }
            port["label"] = _port_label(port)
            ports.append(port)

    mismatches = [p for p in ports if not rv_pnet or p["pnet_id"] != rv_pnet]
    message = ""
    if mismatches:
        found = ", ".join("%s has %s" % (p["label"], _has(p["pnet_id"], p["source"])) for p in mismatches)
        advice = []
        for port in mismatches:
            text = _advice(port, interface, rv_pnet, rv_source, wanted, planned, interface in soft_if)
            if text not in advice:
                advice.append(text)
        message = "%s: %s has %s, but %s; %s" % (
            NOSMCRDEV,
            interface or "the rendezvous interface",
            _has(rv_pnet, rv_source),
            found,
            "; ".join(advice),
        )
    return {
        "entries": entries,
        "interface": interface,
        "interface_pnet_id": rv_pnet,
        "interface_pnet_source": rv_source,
        "ports": ports,
        "mismatches": mismatches,
        "message": message,
    }
