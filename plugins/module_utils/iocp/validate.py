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

from ansible_collections.s390x.network.plugins.module_utils.zpci.pci_ids import fid_text

MAX_ISM_VCHIDS = 32
VF_MIN, VF_MAX = 1, 255
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
        if vf is not None and not VF_MIN <= vf <= VF_MAX:
            errors.append("%s: vf %d is outside %d-%d" % (label, vf, VF_MIN, VF_MAX))
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
    for kind, items in (("HiperSockets", model.get("hipersockets") or []), ("OSA", model.get("osa") or [])):
        for chp in items:
            if chp["chpid"] is None:
                continue
            label = "%s CHPID %s" % (kind, chp["chpid"])
            if chp["chpid"] in chpids:
                errors.append(
                    "%s: chpid %s is already defined as %s (CHPID number and type clash "
                    "in CSS %s)" % (label, chp["chpid"], chpids[chp["chpid"]], model.get("css"))
                )
            else:
                chpids[chp["chpid"]] = label
    pchids = {}
    for label, pchid in [("OSA CHPID %s" % c["chpid"], c["pchid"]) for c in model.get("osa") or []] + [
        ("RoCE PCHID %s" % _vchid(c["pchid"]), c["pchid"]) for c in model.get("roce") or []
    ]:
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
    for kind, items, limit in (
        ("HiperSockets", model.get("hipersockets") or [], MAX_CU_PER_IQD),
        ("OSA", model.get("osa") or [], MAX_CU_PER_OSD),
    ):
        for chp in items:
            label = "%s CHPID %s" % (kind, chp["chpid"])
            if len(chp["control_units"]) > limit:
                errors.append(
                    "%s: control_units has %d control units, more than %d per %s CHPID"
                    % (label, len(chp["control_units"]), limit, "IQD" if kind == "HiperSockets" else "OSD")
                )
            for cu in chp["control_units"]:
                cu_label = "%s control unit %s" % (label, cu["number"])
                if cu["number"] is not None:
                    if cu["number"] in cus:
                        errors.append(
                            "%s: control unit number %s is already used by %s"
                            % (cu_label, cu["number"], cus[cu["number"]])
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


def validate_model(model):
    """Run every cross-object rule. Returns ``(errors, warnings)``."""
    errors = []
    warnings = []
    _check_partitions(model, errors)
    _check_fids(model, errors, warnings)
    _check_vfs(model, errors)
    _check_channels(model, errors, warnings)
    _check_units(model, errors, warnings)
    _check_pnet_ids(model, errors)
    _check_smcd(model, errors, warnings)
    return errors, warnings
