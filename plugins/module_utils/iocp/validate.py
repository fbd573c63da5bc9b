# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Cross-object rules for a normalised ``cpc`` model (IOCP limits, SMC-D reachability).

``validate_model(model)`` returns ``(errors, warnings)``; each message starts with
the object it is about and names the field.  The rules and the IOCP messages
they mirror are listed in docs/cpc-model.md and docs/iocp-sources.md.  The
model is the output of ``cpc_model.normalize_cpc`` (fields that could not be
read are ``None`` and are skipped here).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.s390x.network.plugins.module_utils.iocp.machines import (
    MACHINE_TYPES,
    NETWORK_EXPRESS_GENERATIONS,
    ROCE_GENERATIONS,
    machine_label,
)
from ansible_collections.s390x.network.plugins.module_utils.zpci.pci_ids import fid_text

MAX_ISM_VCHIDS = 32
VF_MIN, VF_MAX = 1, 255
# Network Express FUNCTION types: NETH (hybrid mode), NETD (direct mode)
NETX_TYPES = ("NETH", "NETD")
# VF numbers per Network Express port (PCHID), per type
NETX_VF_RANGE = {"NETH": (0, 123), "NETD": (0, 127)}
PORTS_PER_NETX_CARD = 2
UID_MIN, UID_MAX = 0x0001, 0xFFFF
MAX_CU_PER_IQD = 64
MAX_CU_PER_OSD = 16
MAX_IQD_SUBCHANNELS = 12288
MIN_IQD_DEVICES = 3


def _vchid(value):
    return "?" if value is None else "%03X" % value


def _functions(model):
    """(object label, function dict, kind, channel id) for every ISM and RoCE function."""
    for vchid in model.get("ism") or []:
        for func in vchid["functions"]:
            label = "ISM VCHID %s FID %s" % (_vchid(vchid["vchid"]), fid_text(func["fid"]))
            yield label, func, "ISM", vchid["vchid"]
    for card in model.get("roce") or []:
        for func in card["functions"]:
            label = "RoCE PCHID %s FID %s" % (_vchid(card["pchid"]), fid_text(func["fid"]))
            yield label, func, card["type"], card["pchid"]
    for port in model.get("network_express") or []:
        for func in port["functions"]:
            yield _netx_label(port, func), func, port["type"], port["pchid"]


def _netx_label(port, func=None):
    label = "Network Express PCHID %s" % _vchid(port["pchid"])
    return label if func is None else "%s FID %s" % (label, fid_text(func["fid"]))


def _osh_label(port):
    return "%s OSH CHPID %s" % (_netx_label(port), port["osh"]["chpid"])


def _channel_paths(model):
    """(kind, label, channel path) of every IQD, OSD and OSH CHPID."""
    for chp in model.get("hipersockets") or []:
        yield "HiperSockets", "HiperSockets CHPID %s" % chp["chpid"], chp
    for chp in model.get("osa") or []:
        yield "OSA", "OSA CHPID %s" % chp["chpid"], chp
    for port in model.get("network_express") or []:
        if port.get("osh"):
            yield "OSH", _osh_label(port), port["osh"]


def _check_partitions(model, errors):
    names = {}
    mifs = {}
    for part in model.get("partitions") or []:
        name = part["name"]
        if name is not None:
            if name in names:
                errors.append("partition %s: name is defined twice" % name)
            names[name] = True
        mif = part["mif_id"]
        if mif is not None:
            if mif in mifs:
                errors.append("partition %s: mif_id %X is already used by partition %s" % (name, mif, mifs[mif]))
            else:
                mifs[mif] = name


def _check_fids(model, errors, warnings):
    by_fid = {}
    uid_checking = set(model.get("uid_checking") or [])
    all_parts = [p["name"] for p in model.get("partitions") or [] if p["name"]]
    uids = {}
    for label, func, _kind, _chan in _functions(model):
        fid = func["fid"]
        if fid is not None:
            if fid in by_fid:
                other_label, other = by_fid[fid]
                if other["partition"] != func["partition"] and func["partition"] and other["partition"]:
                    errors.append(
                        "%s: fid is in the access list of more than one partition "
                        "(%s here, %s in %s)" % (label, func["partition"], other["partition"], other_label)
                    )
                else:
                    errors.append("%s: fid is a duplicate FID, already defined in %s" % (label, other_label))
            else:
                by_fid[fid] = (label, func)
        uid = func["uid"]
        if uid is not None and not UID_MIN <= uid <= UID_MAX:
            errors.append("%s: uid 0x%X is outside 0001-FFFF" % (label, uid))
            continue
        if func["candidates"] == "*":
            access = set(all_parts)
        else:
            access = set(func["candidates"] or [])
        if func["partition"]:
            access.add(func["partition"])
        for part in sorted(access & uid_checking):
            if uid is None:
                if part == func["partition"]:
                    warnings.append(
                        "%s: uid is not set but partition %s has UID checking; IOCP "
                        "assigns an arbitrary UID, so the PCI address is not "
                        "predictable" % (label, part)
                    )
                continue
            key = (part, uid)
            if key in uids:
                errors.append(
                    "%s: uid 0x%04X is duplicated within partition %s which has UID "
                    "checking (also %s)" % (label, uid, part, uids[key])
                )
            else:
                uids[key] = label


def _check_vfs(model, errors):
    for label, func, kind, _chan in _functions(model):
        vf = func["vf"]
        low, high = NETX_VF_RANGE.get(kind, (VF_MIN, VF_MAX))
        if vf is not None and not low <= vf <= high:
            per = " per port for TYPE=%s" % kind if kind in NETX_VF_RANGE else ""
            errors.append("%s: vf %d is outside %d-%d%s" % (label, vf, low, high, per))
    for vchid in model.get("ism") or []:
        seen = {}
        for func in vchid["functions"]:
            vf = func["vf"]
            if vf is None:
                continue
            if vf in seen:
                errors.append(
                    "ISM VCHID %s FID %s: vf %d is duplicated within the VCHID "
                    "(also FID %s)" % (_vchid(vchid["vchid"]), fid_text(func["fid"]), vf, fid_text(seen[vf]))
                )
            else:
                seen[vf] = func["fid"]
    for card in model.get("roce") or []:
        seen = {}
        for func in card["functions"]:
            vf = func["vf"]
            if vf is None:
                continue
            key = (func.get("port"), vf)
            if key in seen:
                errors.append(
                    "RoCE PCHID %s FID %s: vf %d is duplicated on this PCHID/port "
                    "(also FID %s)" % (_vchid(card["pchid"]), fid_text(func["fid"]), vf, fid_text(seen[key]))
                )
            else:
                seen[key] = func["fid"]
    for port in model.get("network_express") or []:
        seen = {}
        pfs = []
        for func in port["functions"]:
            if func.get("pf"):
                pfs.append(func["fid"])
            vf = func["vf"]
            if vf is None:
                continue
            if vf in seen:
                errors.append(
                    "%s: vf %d is duplicated on this port (also FID %s)"
                    % (_netx_label(port, func), vf, fid_text(seen[vf]))
                )
            else:
                seen[vf] = func["fid"]
        if len(pfs) > 1:
            errors.append(
                "%s: pf is set on FIDs %s; a port has one physical function"
                % (_netx_label(port), ", ".join(fid_text(f) for f in pfs))
            )


def _check_channels(model, errors, warnings):
    ism = model.get("ism") or []
    if len(ism) > MAX_ISM_VCHIDS:
        errors.append("cpc: ism defines %d ISM VCHIDs, more than the %d a CPC supports" % (len(ism), MAX_ISM_VCHIDS))
    vchids = {}
    for item in ism:
        if item["vchid"] is None:
            continue
        label = "ISM VCHID %s" % _vchid(item["vchid"])
        if item["vchid"] in vchids:
            errors.append("%s: vchid is defined twice (also %s)" % (label, vchids[item["vchid"]]))
        else:
            vchids[item["vchid"]] = label
        if not item["functions"]:
            warnings.append("%s: functions is empty; a VCHID without FUNCTIONs is not rendered" % label)
    for chp in model.get("hipersockets") or []:
        if chp["vchid"] is not None:
            label = "HiperSockets CHPID %s" % chp["chpid"]
            if chp["vchid"] in vchids:
                errors.append(
                    "%s: vchid %s is already used by %s" % (label, _vchid(chp["vchid"]), vchids[chp["vchid"]])
                )
            else:
                vchids[chp["vchid"]] = label
    chpids = {}
    for _kind, label, chp in _channel_paths(model):
        if chp["chpid"] is None:
            continue
        if chp["chpid"] in chpids:
            errors.append(
                "%s: chpid %s is already defined as %s (CHPID number and type clash "
                "in CSS %s)" % (label, chp["chpid"], chpids[chp["chpid"]], model.get("css"))
            )
        else:
            chpids[chp["chpid"]] = label
    pchids = {}
    for label, pchid in (
        [("OSA CHPID %s" % c["chpid"], c["pchid"]) for c in model.get("osa") or []]
        + [("RoCE PCHID %s" % _vchid(c["pchid"]), c["pchid"]) for c in model.get("roce") or []]
        + [(_netx_label(p), p["pchid"]) for p in model.get("network_express") or []]
    ):
        if pchid is None:
            continue
        if pchid in pchids:
            errors.append("%s: pchid %s is already used by %s" % (label, _vchid(pchid), pchids[pchid]))
        else:
            pchids[pchid] = label


def _check_units(model, errors, warnings):
    cus = {}
    ranges = []
    subchannels = 0
    limits = {"HiperSockets": (MAX_CU_PER_IQD, "IQD"), "OSA": (MAX_CU_PER_OSD, "OSD")}
    for kind, label, chp in _channel_paths(model):
        limit, ctype = limits.get(kind, (None, kind))
        if limit is not None and len(chp["control_units"]) > limit:
            errors.append(
                "%s: control_units has %d control units, more than %d per %s CHPID"
                % (label, len(chp["control_units"]), limit, ctype)
            )
        for cu in chp["control_units"]:
            cu_label = "%s control unit %s" % (label, cu["number"])
            if cu["number"] is not None:
                if cu["number"] in cus:
                    errors.append(
                        "%s: control unit number %s is already used by %s" % (cu_label, cu["number"], cus[cu["number"]])
                    )
                else:
                    cus[cu["number"]] = cu_label
            devices = cu["devices"]
            if not devices:
                continue
            first = int(devices["first"], 16)
            ranges.append((first, first + devices["count"] - 1, cu_label))
            if kind == "HiperSockets":
                subchannels += devices["count"] * max(1, len(chp["partitions"]))
                if devices["count"] < MIN_IQD_DEVICES:
                    warnings.append(
                        "%s: devices count %d is below 3; a qeth device needs "
                        "read, write and data subchannels" % (cu_label, devices["count"])
                    )
    ranges.sort()
    reach_end, reach_label = -1, None
    for low, high, label in ranges:
        if low <= reach_end:
            errors.append("%s: devices %04X-%04X overlap the device numbers of %s" % (label, low, high, reach_label))
        if high > reach_end:
            reach_end, reach_label = high, label
    if subchannels > MAX_IQD_SUBCHANNELS:
        errors.append(
            "cpc: hipersockets define %d valid IQD subchannels (devices x partitions), "
            "more than %d" % (subchannels, MAX_IQD_SUBCHANNELS)
        )


def _check_pnet_ids(model, errors):
    seen = {}
    for item in model.get("ism") or []:
        ids = set(f["pnet_id"] for f in item["functions"] if f["pnet_id"])
        if item["pnet_id"]:
            ids.add(item["pnet_id"])
        for pnet in sorted(ids):
            label = "ISM VCHID %s" % _vchid(item["vchid"])
            key = ("ISM", pnet)
            if key in seen and seen[key] != label:
                errors.append(
                    "%s: pnet_id %s is already used by %s; PNET IDs must be unique per "
                    "ISM VCHID" % (label, pnet, seen[key])
                )
            seen.setdefault(key, label)
    for chp in model.get("hipersockets") or []:
        if chp["pnet_id"]:
            label = "HiperSockets CHPID %s" % chp["chpid"]
            key = ("IQD", chp["pnet_id"])
            if key in seen:
                errors.append(
                    "%s: pnet_id %s is already used by %s; PNET IDs must be unique per "
                    "IQD CHPID" % (label, chp["pnet_id"], seen[key])
                )
            seen.setdefault(key, label)


def endpoints(model):
    """Map each SMC-D endpoint (partition or guest) to its set of (vchid, pnet_id).

    A function with a ``guest`` belongs to that guest; otherwise to its partition.
    Partitions without ISM functions map to an empty set.
    """
    result = dict((p["name"], set()) for p in model.get("partitions") or [] if p["name"])
    for item in model.get("ism") or []:
        for func in item["functions"]:
            owner = func["guest"] or func["partition"]
            if owner is None or item["vchid"] is None:
                continue
            result.setdefault(owner, set()).add((item["vchid"], func["pnet_id"]))
    return result


def endpoint_partition(model):
    """Map each endpoint to the partition it runs in."""
    result = dict((p["name"], p["name"]) for p in model.get("partitions") or [] if p["name"])
    for item in model.get("ism") or []:
        for func in item["functions"]:
            if func["guest"]:
                result[func["guest"]] = func["partition"]
    return result


def smcd_check(a_set, b_set):
    """``(ok, reason, vchid)`` for two endpoints' sets of (vchid, pnet_id)."""
    if not a_set or not b_set:
        return False, "no ISM function", None
    common = sorted(set(v for v, _p in a_set) & set(v for v, _p in b_set))
    if not common:
        return (
            False,
            "FIDs on different VCHIDs (%s vs %s)"
            % (
                ",".join(_vchid(v) for v in sorted(set(v for v, _p in a_set))),
                ",".join(_vchid(v) for v in sorted(set(v for v, _p in b_set))),
            ),
            None,
        )
    reasons = []
    for vchid in common:
        a_p = set(p for v, p in a_set if v == vchid)
        b_p = set(p for v, p in b_set if v == vchid)
        shared = a_p & b_p
        if shared:
            return True, "native" if any(shared) else "non-native", vchid
        if None in a_p or None in b_p:
            native = sorted(p for p in a_p | b_p if p)
            reasons.append("VCHID %s: one native (PNET ID %s) and one non-native" % (_vchid(vchid), ",".join(native)))
        else:
            reasons.append(
                "VCHID %s: native with different PNET IDs (%s vs %s)"
                % (_vchid(vchid), ",".join(sorted(a_p)), ",".join(sorted(b_p)))
            )
    return False, "; ".join(reasons), None


def smcd_pairs(model, names=None):
    """SMC-D reachability for every pair of ``names`` (default: all endpoints)."""
    ends = endpoints(model)
    if names is None:
        names = sorted(ends)
    result = []
    for i, a_name in enumerate(names):
        for b_name in names[i + 1 :]:
            ok, reason, vchid = smcd_check(ends.get(a_name, set()), ends.get(b_name, set()))
            result.append({"a": a_name, "b": b_name, "smcd": ok, "reason": reason, "vchid": vchid})
    return result


def _check_smcd(model, errors, warnings):
    ends = endpoints(model)
    explicit = set()
    for group in model.get("smcd_peers") or []:
        for i, a_name in enumerate(group):
            for b_name in group[i + 1 :]:
                if a_name not in ends or b_name not in ends:
                    continue  # reported by the normaliser
                explicit.add(frozenset((a_name, b_name)))
                ok, reason, _v = smcd_check(ends[a_name], ends[b_name])
                if not ok:
                    errors.append("smcd_peers %s <-> %s: pnet_id/vchid cannot use SMC-D: %s" % (a_name, b_name, reason))
    # Implicit peers: endpoints with ISM functions whose partitions share an IQD CHPID
    # (they reach each other over HiperSockets, the usual SMC-D rendezvous path).  Endpoints
    # are grouped by their set of (VCHID, PNET ID) and by partition so that this stays cheap
    # with thousands of guests.
    part_of = endpoint_partition(model)
    by_sig = {}
    for name, sig in ends.items():
        if sig:
            by_sig.setdefault(frozenset(sig), {}).setdefault(part_of.get(name), []).append(name)
    shared = set()
    for chp in model.get("hipersockets") or []:
        for a_part in chp["partitions"]:
            for b_part in chp["partitions"]:
                shared.add((a_part, b_part))
    sigs = sorted(by_sig.items(), key=lambda kv: sorted(n for ns in kv[1].values() for n in ns))
    for i, (sig_a, parts_a) in enumerate(sigs):
        for sig_b, parts_b in sigs[i + 1 :]:
            ok, reason, _v = smcd_check(sig_a, sig_b)
            if ok:
                continue
            count = 0
            shown = []
            for a_part in sorted(parts_a, key=str):
                for b_part in sorted(parts_b, key=str):
                    if (a_part, b_part) not in shared:
                        continue
                    names_a = sorted(parts_a[a_part])
                    names_b = sorted(parts_b[b_part])
                    count += len(names_a) * len(names_b)
                    for a_name in names_a:
                        if len(shown) >= 3 and len(explicit) == 0:
                            break
                        for b_name in names_b:
                            if frozenset((a_name, b_name)) in explicit:
                                count -= 1
                            elif len(shown) < 3:
                                shown.append((a_name, b_name))
            if count > 0:
                more = " and %d more" % (count - len(shown)) if count > len(shown) else ""
                warnings.append(
                    "ism: %s%s share a HiperSockets CHPID but cannot use SMC-D (%s); "
                    "list them in smcd_peers to make this an error"
                    % (", ".join("%s <-> %s" % p for p in shown), more, reason)
                )


def _check_machine(model, errors):
    """RoCE Express only up to z16 / LinuxONE 4, Network Express only from z17 / LinuxONE 5."""
    machine = model.get("machine")
    if machine not in MACHINE_TYPES:
        return  # reported by the normaliser
    mtype = model.get("machine_type") or MACHINE_TYPES[machine][0]
    shown = machine_label(machine, mtype)
    if machine not in ROCE_GENERATIONS:
        for card in model.get("roce") or []:
            labels = ["RoCE PCHID %s FID %s" % (_vchid(card["pchid"]), fid_text(f["fid"])) for f in card["functions"]]
            for label in labels or ["RoCE PCHID %s" % _vchid(card["pchid"])]:
                errors.append(
                    "%s: type %s (RoCE Express) is not supported on %s; use Network Express "
                    "(network_express, FUNCTION TYPE=NETH or TYPE=NETD)" % (label, card["type"], shown)
                )
    if machine not in NETWORK_EXPRESS_GENERATIONS:
        for port in model.get("network_express") or []:
            errors.append(
                "%s: type %s (Network Express) is not supported on %s; it needs a z17 or LinuxONE 5 "
                "(machine type %s)" % (_netx_label(port), port["type"], shown, " or ".join(MACHINE_TYPES["z17"]))
            )


def _check_network_express(model, errors, warnings):
    """One PNET ID per port (functions and OSH CHPID agree), cards of two ports in one mode, OSH only
    for partitions without a Linux host, ports without statements."""
    linux = dict((p["name"], p["host"]) for p in model.get("partitions") or [] if p.get("host"))
    cards = {}
    for port in model.get("network_express") or []:
        first = None
        for func in port["functions"]:
            if first is None:
                first = func
            elif func["pnet_id"] != first["pnet_id"]:
                errors.append(
                    "%s: pnet_id %s differs from %s of FID %s on the same PCHID; a port has one PNET ID "
                    "(PNETID)"
                    % (
                        _netx_label(port, func),
                        func["pnet_id"] or "none",
                        first["pnet_id"] or "none",
                        fid_text(first["fid"]),
                    )
                )
        osh = port.get("osh")
        if osh:
            if first is not None and osh["pnet_id"] != first["pnet_id"]:
                errors.append(
                    "%s: pnet_id %s differs from %s of NETH FID %s on the same PCHID; the OSH CHPID and "
                    "the NETH functions of a port carry the same PNET ID (PNETID)"
                    % (_osh_label(port), osh["pnet_id"] or "none", first["pnet_id"] or "none", fid_text(first["fid"]))
                )
            hosts = ["%s (%s)" % (name, linux[name]) for name in osh["partitions"] if name in linux]
            if hosts:
                warnings.append(
                    "%s: partitions %s run Linux, which does not support OSH; Linux uses the port's NETH "
                    "functions" % (_osh_label(port), ", ".join(hosts))
                )
        if not port["functions"] and not osh:
            warnings.append("%s: has no functions and no osh; a port without them is not rendered" % _netx_label(port))
        if port.get("card") is not None and port["pchid"] is not None:
            cards.setdefault(port["card"], []).append(port)
    for card in sorted(cards):
        ports = cards[card]
        pchids = ", ".join(_vchid(p["pchid"]) for p in ports)
        if len(ports) > PORTS_PER_NETX_CARD:
            errors.append(
                "Network Express card %s: card names %d ports (PCHIDs %s); a Network Express card has %d"
                % (card, len(ports), pchids, PORTS_PER_NETX_CARD)
            )
        types = sorted(set(p["type"] for p in ports if p["type"]))
        if len(types) > 1:
            errors.append(
                "Network Express card %s: type is %s on PCHIDs %s; both ports of a card run in one mode "
                "(NETH hybrid or NETD direct)" % (card, " and ".join(types), pchids)
            )


def validate_model(model):
    """Run every cross-object rule. Returns ``(errors, warnings)``."""
    errors = []
    warnings = []
    _check_partitions(model, errors)
    _check_machine(model, errors)
    _check_network_express(model, errors, warnings)
    _check_fids(model, errors, warnings)
    _check_vfs(model, errors)
    _check_channels(model, errors, warnings)
    _check_units(model, errors, warnings)
    _check_pnet_ids(model, errors)
    _check_smcd(model, errors, warnings)
    return errors, warnings
