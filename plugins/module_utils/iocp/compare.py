# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Compare two normalised ``cpc`` models: the inventory and an existing IOCP deck.

Only what IOCP knows is compared (partitions and MIF ids, UID checking, IQD/OSD/OSH
CHPIDs with their control units and devices, ISM/RoCE/NETH/NETD FIDs with UID, VF or
PF, partition, VCHID/PCHID, PNET ID and FIDPARM); inventory-only data (hosts, guests,
SMC-D peer groups, Network Express card labels) is not.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


def _diff(obj, field, inv, deck, kind="different"):
    if kind == "missing_in_deck":
        message = "%s: in the inventory but missing in the deck" % obj
    elif kind == "extra_in_deck":
        message = "%s: in the deck but not in the inventory" % obj
    else:
        message = "%s: %s is %s in the inventory but %s in the deck" % (obj, field, _show(inv), _show(deck))
    return {"object": obj, "field": field, "kind": kind, "inventory": inv, "deck": deck, "message": message}


def _show(value):
    if value is None:
        return "not set"
    if isinstance(value, list):
        return ",".join(str(v) for v in value) or "empty"
    return str(value)


def _hexs(value, width=0):
    return None if value is None else "%0*X" % (width, value)


def _channels(model):
    result = {}
    for kind, key in (("IQD", "hipersockets"), ("OSD", "osa")):
        for chp in model.get(key) or []:
            result[chp["chpid"]] = {
                "type": kind,
                "frame_size": chp.get("frame_size"),
                "pchid": _hexs(chp.get("pchid"), 3),
                "vchid": _hexs(chp.get("vchid"), 3),
                "partitions": sorted(chp["partitions"]),
                "pnet_id": chp.get("pnet_id"),
                "control_units": dict((cu["number"], cu["devices"]) for cu in chp["control_units"]),
            }
    for port in model.get("network_express") or []:
        chp = port.get("osh")
        if chp:
            result[chp["chpid"]] = {
                "type": "OSH",
                "frame_size": None,
                "pchid": _hexs(port["pchid"], 3),
                "vchid": None,
                "partitions": sorted(chp["partitions"]),
                "pnet_id": chp["pnet_id"],
                "control_units": dict((cu["number"], cu["devices"]) for cu in chp["control_units"]),
            }
    return result


def _fids(model):
    result = {}
    for item in model.get("ism") or []:
        for func in item["functions"]:
            result[func["fid"]] = {
                "type": "ISM",
                "channel": "VCHID %s" % _hexs(item["vchid"], 3),
                "uid": _hexs(func["uid"], 4),
                "vf": func["vf"],
                "partition": func["partition"],
                "pnet_id": func["pnet_id"],
                "port": None,
            }
    for card in model.get("roce") or []:
        for func in card["functions"]:
            result[func["fid"]] = {
                "type": card["type"],
                "channel": "PCHID %s" % _hexs(card["pchid"], 3),
                "uid": _hexs(func["uid"], 4),
                "vf": func["vf"],
                "partition": func["partition"],
                "pnet_id": func["pnet_id"],
                "port": func.get("port"),
            }
    for port in model.get("network_express") or []:
        for func in port["functions"]:
            result[func["fid"]] = {
                "type": port["type"],
                "channel": "PCHID %s" % _hexs(port["pchid"], 3),
                "uid": _hexs(func["uid"], 4),
                "vf": "PF" if func["pf"] else func["vf"],
                "partition": func["partition"],
                "pnet_id": func["pnet_id"],
                "port": None,
                "fidparm": func["fidparm"],
            }
    return result


def _compare_maps(label, inv, deck, fields, out):
    for key in sorted(k for k in inv if k is not None):
        obj = label(key)
        if key not in deck:
            out.append(_diff(obj, None, inv[key], None, "missing_in_deck"))
            continue
        for field in fields:
            if inv[key].get(field) != deck[key].get(field):
                out.append(_diff(obj, field, inv[key].get(field), deck[key].get(field)))
    for key in sorted(k for k in deck if k is not None and k not in inv):
        out.append(_diff(label(key), None, None, deck[key], "extra_in_deck"))


def compare_models(inventory, deck):
    """List of differences (dicts with object, field, kind, inventory, deck, message)."""
    out = []
    inv_parts = dict((p["name"], {"mif_id": p["mif_id"]}) for p in inventory.get("partitions") or [])
    deck_parts = dict((p["name"], {"mif_id": p["mif_id"]}) for p in deck.get("partitions") or [])
    _compare_maps(lambda k: "partition %s" % k, inv_parts, deck_parts, ("mif_id",), out)
    inv_uid = set(inventory.get("uid_checking") or [])
    deck_uid = set(deck.get("uid_checking") or [])
    for name in sorted(inv_uid ^ deck_uid):
        out.append(_diff("partition %s" % name, "uid_checking", name in inv_uid, name in deck_uid))
    inv_ch = _channels(inventory)
    deck_ch = _channels(deck)
    _compare_maps(
        lambda k: "CHPID %s" % k,
        inv_ch,
        deck_ch,
        ("type", "frame_size", "pchid", "vchid", "partitions", "pnet_id"),
        out,
    )
    for chpid in sorted(set(inv_ch) & set(deck_ch)):
        _compare_maps(
            lambda k, c=chpid: "CHPID %s control unit %s" % (c, k),
            dict((k, {"devices": v}) for k, v in inv_ch[chpid]["control_units"].items()),
            dict((k, {"devices": v}) for k, v in deck_ch[chpid]["control_units"].items()),
            ("devices",),
            out,
        )
    _compare_maps(
        lambda k: "FID 0x%X" % k,
        _fids(inventory),
        _fids(deck),
        ("type", "channel", "uid", "vf", "partition", "pnet_id", "port", "fidparm"),
        out,
    )
    return out
