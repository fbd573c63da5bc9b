# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""One inventory host's view of the ``cpc`` model, and the role arguments built from it.

The roles do not parse the model themselves: ``host_view`` normalises it once
(``cpc_model.normalize_cpc``) and hands each role what its host owns.

Where a FID goes: the ``cpc.ism[].functions[].guest`` field gives an ISM function to a KVM
guest; that is the one declaration. ``kvm_guests[].hostdevs`` entries only add options for a
guest's function (guest PCI address, ``managed``, the guest UID) or name functions the model
does not hold. ``fid_owner_errors`` is the one check that a FID belongs to one guest: it reads
both places across every host of the inventory. Guests with ``state: deleted`` (or the old name
``absent``) give their functions up and are not owners.

Facts relied on (the study, chapter 6): a FID is in the access list of one partition; the KVM
host passes the functions of its own partition through; a guest that is no partition of the CPC
gets its ISM function from its KVM host, so the smc role gives it no FIDs of its own.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.s390x.network.plugins.module_utils.iocp.cpc_model import (
    FRAME_SIZE_MTU,
    iqd_devices,
    normalize_cpc,
    smcr_functions,
)
from ansible_collections.s390x.network.plugins.module_utils.zpci.pci_ids import fid_text, parse_fid

GUEST_STATES = {
    "merged": "merged",
    "overridden": "overridden",
    "deleted": "deleted",
    "present": "merged",
    "exact": "overridden",
    "absent": "deleted",
}


def _state(guest, default_state):
    return GUEST_STATES.get(guest.get("state") or default_state, guest.get("state") or default_state)


def _guest_fids(where, guest, errors):
    """(fid, hostdev entry) for each hostdev of one kvm_guests entry; bad FIDs become errors."""
    for index, dev in enumerate(guest.get("hostdevs") or []):
        field = "%s.hostdevs[%d]" % (where, index)
        if not isinstance(dev, dict):
            errors.append("%s: each hostdev is a dict with fid (and uid, address, managed)" % field)
            continue
        try:
            yield parse_fid(dev.get("fid")), dev
        except ValueError as exc:
            errors.append("%s.fid: %s" % (field, exc))


def fid_owner_errors(model, guests_by_host):
    """One message per FID given to more than one guest, in the model or in any host's kvm_guests."""
    owners = {}
    for vchid in model.get("ism") or []:
        for func in vchid["functions"]:
            if func.get("guest") and func.get("fid") is not None:
                owners.setdefault(func["fid"], []).append((func["guest"], "cpc.ism[].functions[].guest"))
    ignored = []
    for host in sorted(guests_by_host or {}):
        for guest in guests_by_host[host] or []:
            if not isinstance(guest, dict) or _state(guest, "merged") == "deleted":
                continue
            for fid, dummy in _guest_fids("kvm_guests", guest, ignored):
                owners.setdefault(fid, []).append((guest.get("name"), "kvm_guests[].hostdevs[] of %s" % host))
    errors = []
    for fid in sorted(owners):
        guests = sorted(set(str(name) for name, dummy in owners[fid]))
        if len(guests) > 1:
            places = []
            for name, place in owners[fid]:
                text = "%s in %s" % (name, place)
                if text not in places:
                    places.append(text)
            errors.append(
                "FID %s is assigned to more than one guest (%s); each FID can belong to one LPAR or "
                "guest only" % (fid_text(fid), ", ".join(places))
            )
    return errors


class CpcIndex(object):
    """A ``cpc`` model normalised once, with its functions by partition and by guest, so that the
    views of every host of a large CPC cost the model once and then each host its own share.

    ``find(cpc)`` returns the index of an equal model given before (``indexes``: a list this
    function keeps, one per caller and run)."""

    def __init__(self, cpc):
        self.model, self.errors, self.warnings = normalize_cpc(cpc)
        self.ism_uids = []
        self.ism_by_partition = {}
        self.guest_items = {}  # guest -> [(partition, item)]
        self.smcr_by_partition = {}
        self.iqd_by_partition = {}
        self._owner_errors = None
        self.host_partitions = set()
        if self.errors:
            return
        for vchid in self.model["ism"]:
            for func in vchid["functions"]:
                self.ism_uids.append({"fid": func["fid"], "uid": func["uid"]})
                item = {
                    "fid": func["fid"],
                    "uid": func["uid"],
                    "vchid": vchid["vchid"],
                    "type": "ism",
                    "pnet_id": func["pnet_id"],
                    "guest": func["guest"],
                }
                self.ism_by_partition.setdefault(func["partition"], []).append(item)
                if func["guest"]:
                    self.guest_items.setdefault(func["guest"], []).append((func["partition"], item))
        for func in smcr_functions(self.model):
            self.smcr_by_partition.setdefault(func["partition"], []).append(func)
        for dev in iqd_devices(self.model):
            for part in set(dev["partitions"]):
                self.iqd_by_partition.setdefault(part, []).append(dev)
        self.host_partitions = set(p["host"] for p in self.model["partitions"] if p.get("host"))

    def guest_functions(self, guest):
        """The ISM functions the model gives ``guest`` (fresh dicts), of every partition."""
        return [dict(item) for dummy, item in self.guest_items.get(guest, [])]

    @staticmethod
    def find(cpc, indexes):
        for raw, index in indexes:
            if raw is cpc or raw == cpc:
                return index
        index = CpcIndex(cpc)
        indexes.append((cpc, index))
        return index

    def owner_errors(self, guests_by_host):
        if guests_by_host:
            return fid_owner_errors(self.model, guests_by_host)
        if self._owner_errors is None:
            self._owner_errors = fid_owner_errors(self.model, None)
        return list(self._owner_errors)


def host_view(cpc, host, partition=None, guests_by_host=None, index=None):
    """What inventory host ``host`` owns in the model ``cpc`` (the raw inventory dict).

    ``partition`` overrides the partition found through ``cpc.partitions[].host``. Returns a dict:
    ``defined`` (a model was given), ``machine`` (the generation, ``z17``), ``partition`` (upper case, or None for a host that is no
    partition, such as a KVM guest), ``errors`` (model errors, an unknown partition, FIDs given to
    two guests), ``functions`` (ISM functions and the RDMA functions SMC-R can use, RoCE Express and
    Network Express, of the partition), ``passthrough`` (its
    ISM functions given to guests), ``own_ism_fids`` (its ISM FIDs no guest has), ``guests``
    (guest name -> its ISM functions in the model, of this partition when the host is one) and
    ``hipersockets`` (the partition's HiperSockets devices with frame size and MTU); ``ism_uids``
    lists ``{fid, uid}`` of every ISM function of the CPC. ``index`` is ``cpc``'s ``CpcIndex``
    when the caller keeps one.
    """
    view = {
        "defined": cpc is not None,
        "machine": None,
        "partition": None,
        "errors": [],
        "warnings": [],
        "functions": [],
        "passthrough": [],
        "own_ism_fids": [],
        "guests": {},
        "hipersockets": [],
        "ism_uids": [],
    }
    if cpc is None:
        return view
    index = index or CpcIndex(cpc)
    model = index.model
    view["errors"].extend(index.errors)
    view["warnings"].extend(index.warnings)
    if index.errors:
        return view
    view["machine"] = model["machine"]
    names = [p["name"] for p in model["partitions"]]
    if partition:
        wanted = str(partition).strip().upper()
        if wanted not in names:
            view["errors"].append("partition %s: not in cpc.partitions (%s)" % (wanted, ", ".join(names)))
            return view
        view["partition"] = wanted
    else:
        for part in model["partitions"]:
            if part.get("host") == host:
                view["partition"] = part["name"]
    view["errors"].extend(index.owner_errors(guests_by_host))
    _add_ism(view, index)
    if view["partition"] is not None:
        _add_smcr(view, index)
        _add_hipersockets(view, index)
    view["own_ism_fids"] = sorted(set(view["own_ism_fids"]))
    return view


def _add_ism(view, index):
    """Every ISM function's UID, the guests' functions and the partition's own (``view["partition"]``)."""
    part = view["partition"]
    # the index's {fid, uid} entries (read only): an index is one caller's
    view["ism_uids"] = list(index.ism_uids)
    if part is None:
        for guest in index.guest_items:
            view["guests"][guest] = index.guest_functions(guest)
        return
    for item in index.ism_by_partition.get(part, []):
        item = dict(item)
        if item["guest"]:
            view["guests"].setdefault(item["guest"], []).append(item)
        view["functions"].append(item)
        if item["guest"]:
            view["passthrough"].append(item)
        else:
            view["own_ism_fids"].append(item["fid"])


def _add_smcr(view, index):
    """The partition's RoCE Express and Network Express functions (``type`` the IOCP type in lower
    case: ``roce``, ``roc2``, ``neth``, ``netd``; ``port`` the card port of a ROC2 function, else None)."""
    for func in index.smcr_by_partition.get(view["partition"], []):
        view["functions"].append(
            {
                "fid": func["fid"],
                "uid": func["uid"],
                "pchid": func["pchid"],
                "type": func["type"].lower(),
                "pft": func["pft"],
                "port": func["port"],
                "pnet_id": func["pnet_id"],
                "guest": None,
            }
        )


def _add_hipersockets(view, index):
    for dev in index.iqd_by_partition.get(view["partition"], []):
        view["hipersockets"].append(
            {
                "busid": dev["busid"],
                "chpid": dev["chpid"],
                "frame_size": dev["frame_size"],
                "mtu": FRAME_SIZE_MTU.get(dev["frame_size"]),
            }
        )


def guest_device_args(kvm_guests, view, default_state="merged", managed=True):
    """libvirt_device arguments for each of a KVM host's guests: ``(guests, errors)``.

    A guest's hostdevs are its own ``hostdevs`` entries (options win), then the functions the
    model gives it that the list does not name. A hostdev without ``uid`` takes the function's
    UID from the model (None: the module's default, the FID); its ``type`` (NETH, NETD ...) is
    passed on when given.
    """
    errors = []
    uid_of = dict((item["fid"], item["uid"]) for item in view.get("ism_uids") or [])
    result = []
    for index, guest in enumerate(kvm_guests or []):
        where = "kvm_guests[%d]" % index
        if not isinstance(guest, dict) or not guest.get("name"):
            errors.append("%s: each guest is a dict with a name" % where)
            continue
        hostdevs, named = [], set()
        for fid, dev in _guest_fids(where, guest, errors):
            uid = dev.get("uid")
            hostdev = {
                "fid": fid,
                "uid": uid_of.get(fid) if uid is None else uid,
                "address": dev.get("address"),
                "managed": bool(dev.get("managed", managed)),
            }
            if dev.get("type") is not None:
                # the function type the host must show (libvirt_device checks it against pft)
                hostdev["type"] = dev["type"]
            hostdevs.append(hostdev)
            named.add(fid)
        for item in (view.get("guests") or {}).get(guest["name"], []):
            if item["fid"] not in named:
                hostdevs.append({"fid": item["fid"], "uid": item["uid"], "address": None, "managed": bool(managed)})
                named.add(item["fid"])
        result.append(
            {
                "name": guest["name"],
                "state": _state(guest, default_state),
                "hostdevs": hostdevs,
                "interfaces": guest.get("macvtap") or [],
            }
        )
    return result, errors


def smc_ism_config(view, fids=None, protocol="smcd"):
    """The zpci_function config of the ISM functions a host uses for SMC-D itself.

    ``fids`` (the role's ``smc_ism_fids``), when given, wins; otherwise the ISM functions of the
    host's partition no guest has (none for SMC-R or a host that is no partition); then the
    model's errors are the result's errors too.
    """
    errors, chosen = [], []
    if fids is not None:
        if isinstance(fids, (str, bytes, dict)) or not isinstance(fids, (list, tuple)):
            errors.append("smc_ism_fids: a list of FIDs (integers or hex strings), got %r" % (fids,))
        else:
            for fid in fids:
                try:
                    chosen.append(parse_fid(fid))
                except ValueError as exc:
                    errors.append(
                        "smc_ism_fids: %s (a FID is an integer or a hex string such as \"606\" or " "\"0x606\")" % exc
                    )
    elif protocol == "smcd":
        errors.extend(view.get("errors") or [])
        chosen = list(view.get("own_ism_fids") or [])
    chosen = sorted(set(chosen))
    return {
        "partition": view.get("partition"),
        "fids": chosen,
        "labels": [fid_text(f) for f in chosen],
        "config": [{"fid": f, "power": "on", "driver": "ism", "expected_type": "ism"} for f in chosen],
        "errors": errors,
    }
