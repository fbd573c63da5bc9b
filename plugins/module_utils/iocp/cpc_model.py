# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ``cpc:`` inventory data model: schema, normalisation and validation.

Every role, module and the emulated lab reads the same ``cpc`` variable (see
docs/cpc-model.md).  ``normalize_cpc(cpc)`` turns what a user wrote in YAML into
one canonical form and returns ``(model, errors, warnings)``:

* FIDs, UIDs, VCHIDs, PCHIDs, MIF image ids, VFs and ports are ints;
* CHPIDs are upper-case 2-digit hex strings (``"F0"``);
* control unit and device numbers are upper-case 4-digit hex strings
  (``"F000"``, ``"8200"``);
* frame sizes are one of ``16K``, ``24K``, ``40K``, ``64K``;
* partition names are upper case; lists keep the order the user gave.

Field errors (wrong type, bad syntax, unknown reference) come from this file;
cross-object rules (duplicates, limits, SMC-D reachability) come from
``iocp_validate.validate_model`` which ``normalize_cpc`` runs on the result.
Pure Python, no Ansible imports, so zlab and tests can import it directly.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import re

from ansible_collections.s390x.network.plugins.module_utils.iocp.machines import (
    GENERATIONS,
    accepted_names,
    read_machine,
)
from ansible_collections.s390x.network.plugins.module_utils.iocp.validate import (
    NETX_TYPES,
    validate_model,
)
from ansible_collections.s390x.network.plugins.module_utils.zpci.pci_ids import fid_text, parse_hex_id
from ansible_collections.s390x.network.plugins.module_utils.zpci.sysfs import PFT_NAMES

MACHINES = GENERATIONS
FRAME_SIZES = ("16K", "24K", "40K", "64K")
# CHPARM value of an IQD CHPID per maximum frame size (and the Linux MTU it gives).
FRAME_SIZE_CHPARM = {"16K": "00", "24K": "40", "40K": "80", "64K": "C0"}
CHPARM_FRAME_SIZE = dict((v, k) for k, v in FRAME_SIZE_CHPARM.items())
FRAME_SIZE_MTU = {"16K": 8192, "24K": 16384, "40K": 32768, "64K": 57344}
ROCE_TYPES = ("ROCE", "ROC2")
ROCE_ADAPTERS = ("express", "express2", "express3")
OSA_TYPES = ("OSD",)
# zPCI function type (``pft``, the kernel's owner of the numbers) of each IOCP FUNCTION TYPE
FUNCTION_PFT = dict((name, pft) for pft, name in PFT_NAMES.items() if name in ("ISM",) + ROCE_TYPES + NETX_TYPES)
SMCR_TYPES = ROCE_TYPES + NETX_TYPES
# RDMA function types whose RNIC has RoCE v2 GIDs, which SMC-R v2 needs: RoCE Express2/3 (ROC2) and
# Network Express (mlx5); a RoCE Express (ROCE) function is used for SMC-R v1 only
SMCR_V2_TYPES = ("ROC2",) + NETX_TYPES
FIDPARMS = ("00", "01")
MAX_CSS = 5
MAX_DEVICES_PER_STATEMENT = 256

_NAME_RE = re.compile(r"[A-Z][A-Z0-9]{0,7}")
_PARTITION_RE = re.compile(r"[A-Z#@$][A-Z0-9#@$]{0,7}")
_PNET_RE = re.compile(r"[A-Z0-9]{1,16}")
_BUSID_RE = re.compile(r"0\.[0-3]\.([0-9A-Fa-f]{4})")
_LABEL_RE = re.compile(r"[^\s]{1,48}")
_FRAME_RE = re.compile(r"(16|24|40|64)\s*(?:K|KB|KIB)?", re.IGNORECASE)
_CARD_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,31}")
_FIDPARM_RE = re.compile(r"(?:0[xX])?0?([01])")

TOP_KEYS = (
    "name",
    "machine",
    "css",
    "uid_checking",
    "partitions",
    "hipersockets",
    "ism",
    "osa",
    "roce",
    "network_express",
    "smcd_peers",
)


class _Ctx(object):
    """Collects errors and warnings while normalising."""

    def __init__(self):
        self.errors = []
        self.warnings = []

    def error(self, obj, field, msg):
        self.errors.append(_fmt(obj, field, msg))

    def warn(self, obj, field, msg):
        self.warnings.append(_fmt(obj, field, msg))


def _fmt(obj, field, msg):
    if field:
        return "%s: %s %s" % (obj, field, msg)
    return "%s: %s" % (obj, msg)


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def parse_hex_int(value, maximum):
    """Read an int or a hex string (``"7C8"``, ``"0x7c8"``). Returns int or None."""
    try:
        return parse_hex_id(value, maximum)
    except ValueError:
        return None


def _hex_number(ctx, obj, field, value, digits, required=True):
    """Normalise a CHPID / control unit / device number to an upper-case hex string."""
    if value is None:
        if required:
            ctx.error(obj, field, "is required")
        return None
    maximum = 16**digits - 1
    if isinstance(value, str):
        text = value.strip()
        bus = _BUSID_RE.fullmatch(text)
        if bus and digits == 4:
            text = bus.group(1)
        number = parse_hex_int(text, maximum)
    elif _is_int(value):
        number = parse_hex_int(value, maximum)
        if number is not None:
            ctx.warn(
                obj,
                field,
                "was given as the integer %d and is read as hex %0*X; "
                "quote hex numbers in YAML" % (value, digits, number),
            )
    else:
        number = None
    if number is None:
        ctx.error(obj, field, "%r is not a hex number of at most %d digits" % (value, digits))
        return None
    return "%0*X" % (digits, number)


def _id_number(ctx, obj, field, value, maximum, required=True):
    """FID/UID/VCHID/PCHID: an int, or a hex string."""
    if value is None:
        if required:
            ctx.error(obj, field, "is required")
        return None
    number = parse_hex_int(value, maximum)
    if number is None:
        ctx.error(obj, field, "%r is not a number in 0-%X (int or hex string)" % (value, maximum))
    return number


def _dec_number(ctx, obj, field, value, required=True):
    """VF / port / css / count: an int or a decimal string (range checks elsewhere)."""
    if value is None:
        if required:
            ctx.error(obj, field, "is required")
        return None
    if _is_int(value):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    ctx.error(obj, field, "%r is not a decimal number" % (value,))
    return None


def _pnet(ctx, obj, field, value):
    if value is None:
        return None
    if not isinstance(value, str) or not _PNET_RE.fullmatch(value):
        ctx.error(obj, field, "%r is not a valid PNET ID (1-16 characters, A-Z 0-9)" % (value,))
        return value if isinstance(value, str) else None
    return value


def _name_list(ctx, obj, field, value, allow_star=False):
    if value is None:
        return []
    if isinstance(value, str):
        if allow_star and value.strip() == "*":
            return "*"
        value = [value]
    if not isinstance(value, (list, tuple)):
        ctx.error(obj, field, "must be a list of partition names")
        return []
    result = []
    for item in value:
        if not isinstance(item, str) or not item.strip():
            ctx.error(obj, field, "has an entry %r that is not a partition name" % (item,))
            continue
        result.append(item.strip().upper())
    return result


def _dict(ctx, obj, value):
    if not isinstance(value, dict):
        ctx.error(obj, "", "must be a mapping, got %r" % (value,))
        return None
    return value


def _unknown_keys(ctx, obj, item, allowed):
    for key in item:
        if key not in allowed:
            ctx.warn(obj, key, "is not a known field and is ignored (known: %s)" % ", ".join(allowed))


def _frame_size(ctx, obj, value):
    if value is None:
        return "16K"
    text = str(value).strip()
    match = _FRAME_RE.fullmatch(text)
    if not match:
        ctx.error(obj, "frame_size", "%r is not one of %s" % (value, ", ".join(FRAME_SIZES)))
        return None
    return match.group(1) + "K"


def _devices(ctx, obj, value):
    """``{first, count}`` or ``"8200-820F"`` -> ``{"first": "8200", "count": 16}``."""
    if value is None:
        ctx.error(obj, "devices", "is required ({first: '8200', count: 16})")
        return None
    if isinstance(value, str) and "-" in value:
        low, high = value.split("-", 1)
        first = _hex_number(ctx, obj, "devices", low, 4)
        last = _hex_number(ctx, obj, "devices", high, 4)
        if first is None or last is None:
            return None
        count = int(last, 16) - int(first, 16) + 1
        if count < 1:
            ctx.error(obj, "devices", "range %r ends before it starts" % (value,))
            return None
        return {"first": first, "count": count}
    if not isinstance(value, dict):
        ctx.error(obj, "devices", "must be {first: '8200', count: 16} or '8200-820F'")
        return None
    first = _hex_number(ctx, obj, "devices.first", value.get("first"), 4)
    count = _dec_number(ctx, obj, "devices.count", value.get("count", 1))
    if first is None or count is None:
        return None
    if count < 1 or count > MAX_DEVICES_PER_STATEMENT:
        ctx.error(obj, "devices.count", "%d is outside 1-%d (IOCP ADDRESS count)" % (count, MAX_DEVICES_PER_STATEMENT))
        return None
    if int(first, 16) + count - 1 > 0xFFFF:
        ctx.error(obj, "devices", "%s + %d runs past device number FFFF" % (first, count))
        return None
    return {"first": first, "count": count}


def _control_units(ctx, obj, item):
    """Single ``control_unit`` + ``devices`` or a ``control_units`` list."""
    if "control_units" in item:
        cus = item["control_units"]
        if not isinstance(cus, list) or not cus:
            ctx.error(obj, "control_units", "must be a non-empty list of {number, devices}")
            return []
        if "control_unit" in item or "devices" in item:
            ctx.error(obj, "control_units", "cannot be combined with control_unit/devices")
    else:
        cus = [{"number": item.get("control_unit"), "devices": item.get("devices")}]
    result = []
    for index, cu in enumerate(cus):
        cu_obj = "%s control unit %d" % (obj, index)
        cu = _dict(ctx, cu_obj, cu)
        if cu is None:
            continue
        number = _hex_number(ctx, cu_obj, "number" if "control_units" in item else "control_unit", cu.get("number"), 4)
        if number is not None:
            cu_obj = "%s control unit %s" % (obj, number)
        devices = _devices(ctx, cu_obj, cu.get("devices"))
        result.append({"number": number, "devices": devices})
    return result


def _partitions(ctx, raw):
    result = []
    if raw is None:
        ctx.error("cpc", "partitions", "is required (a list of {name, mif_id})")
        return result
    if not isinstance(raw, list):
        ctx.error("cpc", "partitions", "must be a list of {name, mif_id}")
        return result
    for index, item in enumerate(raw):
        obj = "partition %d" % index
        item = _dict(ctx, obj, item)
        if item is None:
            continue
        _unknown_keys(ctx, obj, item, ("name", "mif_id", "host"))
        name = item.get("name")
        if not isinstance(name, str) or not _PARTITION_RE.fullmatch(name.strip().upper()):
            ctx.error(
                obj,
                "name",
                "%r is not a partition name (1-8 characters A-Z 0-9 # @ $, not starting with a digit)" % (name,),
            )
            name = name.strip().upper() if isinstance(name, str) else None
        else:
            name = name.strip().upper()
            obj = "partition %s" % name
        mif = item.get("mif_id")
        mif_id = parse_hex_int(mif, 0xF) if mif is not None else None
        if mif_id is None or mif_id < 1:
            ctx.error(obj, "mif_id", "%r is not a MIF image id 1-F" % (mif,))
            mif_id = None
        host = item.get("host")
        if host is not None and (not isinstance(host, str) or not _LABEL_RE.fullmatch(host)):
            ctx.error(obj, "host", "%r is not an inventory host name (1-48 characters, no blanks)" % (host,))
            host = None
        result.append({"name": name, "mif_id": mif_id, "host": host})
    return result


def _check_refs(ctx, obj, field, names, known):
    for name in names:
        if name not in known:
            ctx.error(obj, field, "names partition %s which is not in cpc.partitions" % name)


def _entries(ctx, raw, field, kind, id_field, allowed):
    """Yield ``(obj, item, ident)`` for each mapping in the ``cpc`` list ``field``.

    ``ident`` is the entry's ``id_field``: a CHPID as a 2-digit hex string, a VCHID or
    PCHID as an int. ``obj`` names the entry in messages (``"OSA CHPID E0"``,
    ``"ISM VCHID 7C8"``, or ``"OSA 0"`` while the id cannot be read). Entries that
    are not mappings are reported and skipped.
    """
    for index, item in enumerate(_list(ctx, "cpc", field, raw)):
        obj = "%s %d" % (kind, index)
        item = _dict(ctx, obj, item)
        if item is None:
            continue
        if id_field == "chpid":
            ident = _hex_number(ctx, obj, id_field, item.get(id_field), 2)
            label = ident
        else:
            ident = _id_number(ctx, obj, id_field, item.get(id_field), 0xFFF)
            label = "%03X" % ident if ident is not None else None
        if ident is not None:
            obj = "%s %s %s" % (kind, id_field.upper(), label)
        # after the id: a warning names the entry as the admin knows it (RoCE PCHID 17C, not RoCE 1)
        _unknown_keys(ctx, obj, item, allowed)
        yield obj, item, ident


def _chpid_common(ctx, obj, item, known):
    """The ``pnet_id``, ``partitions`` and ``control_units`` of a HiperSockets or OSA CHPID."""
    common = {
        "pnet_id": _pnet(ctx, obj, "pnet_id", item.get("pnet_id")),
        "partitions": _name_list(ctx, obj, "partitions", item.get("partitions")),
        "control_units": _control_units(ctx, obj, item),
    }
    if not common["partitions"]:
        ctx.error(obj, "partitions", "must name at least one partition")
    _check_refs(ctx, obj, "partitions", common["partitions"], known)
    return common


def _hipersockets(ctx, raw, known):
    result = []
    allowed = ("chpid", "frame_size", "control_unit", "devices", "control_units", "partitions", "pnet_id", "vchid")
    for obj, item, chpid in _entries(ctx, raw, "hipersockets", "HiperSockets", "chpid", allowed):
        entry = {
            "chpid": chpid,
            "frame_size": _frame_size(ctx, obj, item.get("frame_size")),
            "vchid": _id_number(ctx, obj, "vchid", item.get("vchid"), 0xFFF, required=False),
        }
        entry.update(_chpid_common(ctx, obj, item, known))
        result.append(entry)
    return result


def _osa(ctx, raw, known):
    result = []
    allowed = ("chpid", "pchid", "type", "control_unit", "devices", "control_units", "partitions", "pnet_id")
    for obj, item, chpid in _entries(ctx, raw, "osa", "OSA", "chpid", allowed):
        ctype = str(item.get("type", "OSD")).upper()
        if ctype not in OSA_TYPES:
            ctx.error(obj, "type", "%r is not one of %s" % (item.get("type"), ", ".join(OSA_TYPES)))
        entry = {
            "chpid": chpid,
            "pchid": _id_number(ctx, obj, "pchid", item.get("pchid"), 0xFFF),
            "type": ctype,
        }
        entry.update(_chpid_common(ctx, obj, item, known))
        result.append(entry)
    return result


def _function_common(ctx, obj, item, known, default_pnet, vf_required=True, read_pnet=None):
    partition = item.get("partition")
    if isinstance(partition, list):
        names = _name_list(ctx, obj, "partition", partition)
        if len(names) > 1:
            ctx.error(
                obj,
                "partition",
                "puts the FID in the access list of more than one "
                "partition (%s); a FID belongs to exactly one partition" % ", ".join(names),
            )
        partition = names[0] if names else None
    elif isinstance(partition, str) and partition.strip():
        partition = partition.strip().upper()
    else:
        ctx.error(obj, "partition", "is required (the partition whose access list holds the FID)")
        partition = None
    if partition is not None:
        _check_refs(ctx, obj, "partition", [partition], known)
    candidates = item.get("candidates")
    if candidates is None:
        candidates = [partition] if partition else []
    else:
        candidates = _name_list(ctx, obj, "candidates", candidates, allow_star=True)
        if candidates != "*":
            _check_refs(ctx, obj, "candidates", candidates, known)
            if partition and partition not in candidates:
                candidates = [partition] + candidates
    pnet = item.get("pnet_id", default_pnet)
    return {
        "partition": partition,
        "candidates": candidates,
        "uid": _id_number(ctx, obj, "uid", item.get("uid"), 0xFFFFFFFF, required=False),
        "vf": _dec_number(ctx, obj, "vf", item.get("vf"), required=vf_required),
        "pnet_id": (read_pnet or _pnet)(ctx, obj, "pnet_id", pnet),
    }


def _functions(ctx, obj, item, allowed, known, default_pnet, vf_required=True, read_pnet=None):
    """Yield ``(fobj, func, entry)`` for each function of an ISM VCHID or RoCE PCHID.

    ``fobj`` names the function in messages, ``func`` is the user's mapping and
    ``entry`` holds ``fid`` and the fields of ``_function_common``; the caller adds
    the fields of its kind to ``entry``. Entries that are not mappings are reported
    and skipped.
    """
    for findex, func in enumerate(_list(ctx, obj, "functions", item.get("functions"))):
        fobj = "%s function %d" % (obj, findex)
        func = _dict(ctx, fobj, func)
        if func is None:
            continue
        fid = _id_number(ctx, fobj, "fid", func.get("fid"), 0xFFFFFFFF)
        if fid is not None:
            fobj = "%s FID %s" % (obj, fid_text(fid))
        _unknown_keys(ctx, fobj, func, allowed)
        entry = {"fid": fid}
        entry.update(_function_common(ctx, fobj, func, known, default_pnet, vf_required, read_pnet))
        yield fobj, func, entry


def _domain_name_problem(name):
    # imported here: the libvirt XML helpers are only needed for models with guests, and every
    # controller worker that plans a host compiles what the model imports (the collection loader
    # keeps no bytecode)
    from ansible_collections.s390x.network.plugins.module_utils.libvirt.xml import (  # pylint: disable=import-outside-toplevel
        domain_name_problem,
    )

    return domain_name_problem(name)


def _ism(ctx, raw, known):
    result = []
    allowed = ("vchid", "pnet_id", "functions")
    function_keys = ("fid", "uid", "vf", "partition", "candidates", "guest", "pnet_id")
    for obj, item, vchid in _entries(ctx, raw, "ism", "ISM", "vchid", allowed):
        pnet = _pnet(ctx, obj, "pnet_id", item.get("pnet_id"))
        functions = []
        for fobj, func, entry in _functions(ctx, obj, item, function_keys, known, pnet):
            guest = func.get("guest")
            if guest is not None and (
                not isinstance(guest, str) or not _LABEL_RE.fullmatch(guest) or _domain_name_problem(guest)
            ):
                ctx.error(
                    fobj,
                    "guest",
                    '%r is not a KVM guest (libvirt domain) name (1-48 characters, no blanks, no "/" or control '
                    "characters)" % (guest,),
                )
                guest = None
            entry["guest"] = guest
            functions.append(entry)
        # Canonical PNET ID of the VCHID: the one all its functions share, else none.
        pnets = set(f["pnet_id"] for f in functions)
        if len(pnets) == 1:
            pnet = pnets.pop()
        elif functions:
            pnet = None
        result.append({"vchid": vchid, "pnet_id": pnet, "functions": functions})
    return result


def _roce(ctx, raw, known):
    result = []
    allowed = ("pchid", "type", "adapter", "functions")
    function_keys = ("fid", "uid", "vf", "port", "partition", "candidates", "pnet_id")
    for obj, item, pchid in _entries(ctx, raw, "roce", "RoCE", "pchid", allowed):
        rtype = str(item.get("type", "ROC2")).upper()
        if rtype not in ROCE_TYPES:
            ctx.error(obj, "type", "%r is not one of %s" % (item.get("type"), ", ".join(ROCE_TYPES)))
        adapter = _roce_adapter(ctx, obj, rtype, item.get("adapter"))
        functions = []
        for fobj, func, entry in _functions(ctx, obj, item, function_keys, known, None):
            port = _dec_number(ctx, fobj, "port", func.get("port"), required=(rtype == "ROC2"))
            if port is not None and port not in (1, 2):
                ctx.error(fobj, "port", "%r is not 1 or 2" % (port,))
            entry["port"] = port if rtype == "ROC2" else None
            functions.append(entry)
        result.append({"pchid": pchid, "type": rtype, "adapter": adapter, "functions": functions})
    return result


def _roce_adapter(ctx, obj, rtype, value):
    """The card generation behind an IOCP type (``ROC2`` is RoCE Express2 or Express3, which IOCP
    does not tell apart): ``express``, ``express2``, ``express3`` or None when not given."""
    if value is None:
        return None
    text = str(value).lower().replace(" ", "").replace("_", "").replace("roce", "")
    if text not in ROCE_ADAPTERS:
        ctx.error(obj, "adapter", "%r is not one of %s" % (value, ", ".join(ROCE_ADAPTERS)))
        return None
    if rtype in ROCE_TYPES and (text == "express") != (rtype == "ROCE"):
        ctx.error(
            obj,
            "adapter",
            "%s does not fit type %s (ROCE is RoCE Express, ROC2 RoCE Express2 or Express3)" % (text, rtype),
        )
        return None
    return text


NETX_MODES = {"HYBRID": "NETH", "DIRECT": "NETD"}
_OSH_KEYS = ("chpid", "partitions", "pnet_id", "control_unit", "devices", "control_units")


def _network_express(ctx, raw, known):
    """Network Express ports, one PCHID each: the mode of the card (``type`` NETH for hybrid, NETD
    for direct), the ``card`` both ports of one adapter share, the port's ``pnet_id`` (the default of
    its functions and OSH CHPID), its FUNCTIONs and, in hybrid mode, the OSH CHPID on the same PCHID.
    Keywords IOCP refuses for the port's type are errors here, naming the FID, field and value."""
    result = []
    allowed = ("pchid", "type", "card", "pnet_id", "functions", "osh")
    function_keys = ("fid", "uid", "vf", "pf", "fidparm", "port", "partition", "candidates", "pnet_id")
    for obj, item, pchid in _entries(ctx, raw, "network_express", "Network Express", "pchid", allowed):
        ntype = _netx_type(ctx, obj, item.get("type"))
        card = item.get("card")
        if card is not None and (not isinstance(card, str) or not _CARD_RE.fullmatch(card)):
            ctx.error(obj, "card", "%r is not a card label (1-32 characters A-Z a-z 0-9 _ . -)" % (card,))
            card = None
        pnet = _one_pnet(ctx, obj, "pnet_id", item.get("pnet_id"), ntype)

        def read_pnet(ctx, fobj, field, value, ntype=ntype):
            return _one_pnet(ctx, fobj, field, value, ntype)

        functions = []
        for fobj, func, entry in _functions(ctx, obj, item, function_keys, known, pnet, False, read_pnet):
            entry.update(_netx_keywords(ctx, fobj, func, ntype, entry["vf"]))
            functions.append(entry)
        osh = _osh(ctx, obj, item.get("osh"), ntype, pnet, known)
        # canonical PNET ID of the port: the one its functions and OSH CHPID share, else none
        pnets = set(f["pnet_id"] for f in functions)
        if osh is not None:
            pnets.add(osh["pnet_id"])
        if len(pnets) == 1:
            pnet = pnets.pop()
        elif pnets:
            pnet = None
        result.append(
            {"pchid": pchid, "type": ntype, "card": card, "pnet_id": pnet, "functions": functions, "osh": osh}
        )
    return result


def _netx_type(ctx, obj, value):
    if value is None:
        ctx.error(obj, "type", "is required: NETH (hybrid mode) or NETD (direct mode)")
        return None
    text = str(value).strip().upper()
    text = NETX_MODES.get(text, text)
    if text not in NETX_TYPES:
        ctx.error(obj, "type", "%r is not NETH (hybrid mode) or NETD (direct mode)" % (value,))
        return None
    return text


def _one_pnet(ctx, obj, field, value, ntype):
    """A PNET ID of a Network Express port; a list of more than one is refused (one per port)."""
    if isinstance(value, list):
        if len(value) == 1:
            value = value[0]
        elif value:
            ctx.error(
                obj,
                field,
                "has %d PNET IDs (%s); TYPE=%s takes one, the port's (PNETID, ICP217I)"
                % (len(value), ", ".join(str(v) for v in value), ntype or "NETH/NETD"),
            )
            return None
        else:
            value = None
    return _pnet(ctx, obj, field, value)


def _fidparm(ctx, obj, value):
    if value is None:
        return None
    text = "%d" % value if _is_int(value) else value if isinstance(value, str) else None
    match = _FIDPARM_RE.fullmatch(text.strip()) if text is not None else None
    if not match:
        ctx.error(obj, "fidparm", "%r is not 00 or 01 (FIDPARM, ICP210I)" % (value,))
        return None
    return "0" + match.group(1)


def _netx_keywords(ctx, fobj, func, ntype, vf):
    """``pf`` and ``fidparm`` of a NETH/NETD function, and the IOCP keyword rules of its type."""
    port = func.get("port")
    if port is not None:
        ctx.error(fobj, "port", "%r is not allowed on TYPE=%s: the PCHID is the port (PORT=, ICP201I)" % (port, ntype))
    pf = func.get("pf", False)
    if pf is None:
        pf = False
    if not isinstance(pf, bool):
        ctx.error(fobj, "pf", "%r is not true or false" % (pf,))
        pf = False
    if pf and ntype == "NETH":
        ctx.error(fobj, "pf", "true is not allowed on TYPE=NETH: only a NETD port has a PF (PF, ICP201I)")
    if pf and vf is not None:
        ctx.error(fobj, "pf", "true and vf %d exclude each other: a FUNCTION is the PF or a VF (PF, VF, ICP182I)" % vf)
    if not pf and vf is None and func.get("vf") is None:
        hint = ", or pf: true for the port's physical function" if ntype == "NETD" else ""
        ctx.error(fobj, "vf", "is required (VF=%s; ICP219I)" % hint)
    fidparm = _fidparm(ctx, fobj, func.get("fidparm"))
    if fidparm is not None and ntype == "NETD":
        ctx.error(fobj, "fidparm", "%s is not allowed on TYPE=NETD: FIDPARM is for NETH only (ICP210I)" % fidparm)
    return {"pf": pf, "fidparm": fidparm}


def _osh(ctx, obj, value, ntype, pnet, known):
    """The OSH CHPID on a hybrid-mode port (for z/OS and z/VM; Linux does not use OSH)."""
    if value is None:
        return None
    oobj = "%s OSH" % obj
    value = _dict(ctx, oobj, value)
    if value is None:
        return None
    chpid = _hex_number(ctx, oobj, "chpid", value.get("chpid"), 2)
    if chpid is not None:
        oobj = "%s OSH CHPID %s" % (obj, chpid)
    _unknown_keys(ctx, oobj, value, _OSH_KEYS)
    if ntype == "NETD":
        ctx.error(oobj, "", "CHPID TYPE=OSH needs a port in hybrid mode (type NETH); this port is NETD (direct mode)")
    partitions = _name_list(ctx, oobj, "partitions", value.get("partitions"))
    if not partitions:
        ctx.error(oobj, "partitions", "must name at least one partition")
    _check_refs(ctx, oobj, "partitions", partitions, known)
    units = []
    # an OSH CHPID may come without control units (the deck of the z/OS or z/VM side may hold them)
    if value.get("control_units") or "control_unit" in value or "devices" in value:
        units = _control_units(ctx, oobj, value)
    return {
        "chpid": chpid,
        "partitions": partitions,
        "pnet_id": _one_pnet(ctx, oobj, "pnet_id", value.get("pnet_id", pnet), ntype),
        "control_units": units,
    }


def _list(ctx, obj, field, value):
    if value is None:
        return []
    if not isinstance(value, list):
        ctx.error(obj, field, "must be a list")
        return []
    return value


def _peers(ctx, raw, endpoints):
    result = []
    for index, group in enumerate(_list(ctx, "cpc", "smcd_peers", raw)):
        obj = "smcd_peers[%d]" % index
        if not isinstance(group, list) or len(group) < 2 or not all(isinstance(x, str) and x.strip() for x in group):
            ctx.error(obj, "", "must be a list of at least two partition or guest names")
            continue
        names = []
        for name in group:
            name = name.strip()
            resolved = name if name in endpoints else name.upper()
            if resolved not in endpoints:
                ctx.error(obj, "", "names %s which is neither a partition nor a guest with an ISM function" % name)
            names.append(resolved)
        result.append(names)
    return result


def normalize_cpc(cpc):
    """Normalise and validate a ``cpc`` dict. Returns ``(model, errors, warnings)``.

    ``model`` is the canonical form described in docs/cpc-model.md (always a dict,
    even when there are errors; fields that could not be read are ``None``).
    """
    ctx = _Ctx()
    if not isinstance(cpc, dict):
        ctx.error("cpc", "", "must be a mapping (see docs/cpc-model.md)")
        return {}, ctx.errors, ctx.warnings
    cpc = copy.deepcopy(cpc)
    _unknown_keys(ctx, "cpc", cpc, TOP_KEYS)
    name = cpc.get("name")
    if not isinstance(name, str) or not _NAME_RE.fullmatch(name.strip().upper()):
        ctx.error("cpc", "name", "%r is not a CPC name (1-8 characters A-Z 0-9, starting with a letter)" % (name,))
    else:
        name = name.strip().upper()
    machine = cpc.get("machine")
    machine_type = None
    known_machine = read_machine(machine)
    if known_machine is None:
        ctx.error("cpc", "machine", "%r is not one of %s" % (machine, accepted_names()))
    else:
        machine, machine_type = known_machine
    css = _dec_number(ctx, "cpc", "css", cpc.get("css", 0))
    if css is not None and not 0 <= css <= MAX_CSS:
        ctx.error("cpc", "css", "%d is outside 0-%d" % (css, MAX_CSS))
    partitions = _partitions(ctx, cpc.get("partitions"))
    known = [p["name"] for p in partitions if p["name"]]
    raw_uid = cpc.get("uid_checking")
    if isinstance(raw_uid, bool):
        uid_checking = list(known) if raw_uid else []
    else:
        uid_checking = _name_list(ctx, "cpc", "uid_checking", raw_uid, allow_star=True)
    if uid_checking == "*":
        uid_checking = list(known)
    elif not isinstance(raw_uid, bool):
        _check_refs(ctx, "cpc", "uid_checking", uid_checking, known)
        # canonical order: the order of cpc.partitions
        uid_checking = [n for n in known if n in uid_checking] + [n for n in uid_checking if n not in known]
    model = {
        "name": name,
        "machine": machine,
        "machine_type": machine_type,
        "css": css,
        "uid_checking": uid_checking,
        "partitions": partitions,
        "hipersockets": _hipersockets(ctx, cpc.get("hipersockets"), known),
        "ism": _ism(ctx, cpc.get("ism"), known),
        "osa": _osa(ctx, cpc.get("osa"), known),
        "roce": _roce(ctx, cpc.get("roce"), known),
        "network_express": _network_express(ctx, cpc.get("network_express"), known),
    }
    endpoints = set(known)
    for vchid in model["ism"]:
        for func in vchid["functions"]:
            if func["guest"]:
                endpoints.add(func["guest"])
    model["smcd_peers"] = _peers(ctx, cpc.get("smcd_peers"), endpoints)
    errors, warnings = validate_model(model)
    return model, ctx.errors + errors, ctx.warnings + warnings


def channel_devnos(chp):
    """Yield ``(devno, control unit)`` for every device number of a normalised channel path's
    control units (``devices``: ``first`` in hex and ``count``)."""
    for cu in chp["control_units"]:
        devices = cu.get("devices")
        if not devices:
            continue
        first = int(devices["first"], 16)
        for offset in range(devices["count"]):
            yield first + offset, cu


def iqd_devices(model):
    """Yield one dict per HiperSockets device number of a normalised model.

    ``{"devno": "8200", "busid": "0.0.8200", "chpid": "F0", "frame_size": "40K",
    "control_unit": "F000", "partitions": [...]}``
    """
    for chp in model.get("hipersockets") or []:
        for number, cu in channel_devnos(chp):
            devno = "%04X" % number
            yield {
                "devno": devno,
                "busid": "0.0.%s" % devno.lower(),
                "chpid": chp["chpid"],
                "frame_size": chp["frame_size"],
                "control_unit": cu["number"],
                "partitions": list(chp["partitions"]),
            }


def partition_functions(model, partition):
    """ISM, RoCE and Network Express functions whose access list is ``partition`` (normalised model)."""
    result = []
    for vchid in model.get("ism") or []:
        for func in vchid["functions"]:
            if func["partition"] == partition:
                item = dict(func, type="ISM", vchid=vchid["vchid"])
                result.append(item)
    for card in model.get("roce") or []:
        for func in card["functions"]:
            if func["partition"] == partition:
                result.append(dict(func, type=card["type"], pchid=card["pchid"]))
    for port in model.get("network_express") or []:
        for func in port["functions"]:
            if func["partition"] == partition:
                result.append(dict(func, type=port["type"], pchid=port["pchid"], card=port["card"]))
    return result


def smcr_functions(model, partition=None):
    """The RDMA functions SMC-R can use (RoCE Express ROCE/ROC2, Network Express NETH/NETD) of a
    normalised model, of one partition's access list when ``partition`` is given.

    One dict per function: ``fid``, ``uid``, ``type`` (IOCP ``TYPE=``), ``pft`` (the zPCI function
    type the kernel shows in sysfs), ``pchid``, ``port`` (the card port: a ROC2 function's
    ``PORT=``; None for ROCE, whose function drives both ports, and for NETH/NETD, whose PCHID is
    the port), ``pnet_id`` (of that port, None when the IOCDS gives none), ``partition``, ``vf``,
    ``pf`` (a NETD port's physical function), ``card`` (Network Express card label or None) and
    ``fidparm``.
    """
    result = []
    for card in model.get("roce") or []:
        for func in card["functions"]:
            if partition is None or func["partition"] == partition:
                result.append(_smcr_item(func, card["type"], card["pchid"], func.get("port"), None))
    for port in model.get("network_express") or []:
        for func in port["functions"]:
            if partition is None or func["partition"] == partition:
                result.append(_smcr_item(func, port["type"], port["pchid"], None, port["card"]))
    return result


def _smcr_item(func, ftype, pchid, port, card):
    return {
        "fid": func["fid"],
        "uid": func["uid"],
        "type": ftype,
        "pft": FUNCTION_PFT.get(ftype),
        "pchid": pchid,
        "port": port,
        "pnet_id": func["pnet_id"],
        "partition": func["partition"],
        "vf": func["vf"],
        "pf": bool(func.get("pf")),
        "card": card,
        "fidparm": func.get("fidparm"),
    }


def partition_by_host(model):
    """Map inventory host name -> partition dict (partitions with a ``host``)."""
    return dict((p["host"], p) for p in model.get("partitions") or [] if p.get("host"))


def guest_pnet_findings(model, pnet_configs):
    """Guests that get a native ISM function (one with a PNET ID) but cannot use it.

    A KVM guest's virtio-net/MacVTap NIC has no PNET ID from the IOCDS, so SMC-D with a native ISM
    function needs a software PNET table entry that puts the guest's rendezvous interface under the
    function's PNET ID; without one, SMC-D falls back to TCP. ``pnet_configs``: guest name ->
    that guest's ``smc_pnet_config`` (guests not in it are not checked). Returns messages.
    """
    findings = []
    for vchid in model.get("ism") or []:
        for func in vchid["functions"]:
            guest, pnet = func.get("guest"), func.get("pnet_id")
            if not guest or not pnet or guest not in pnet_configs:
                continue
            entries = pnet_configs[guest] or []
            if any(
                isinstance(e, dict) and str(e.get("pnet_id") or "").upper() == pnet.upper() and e.get("interface")
                for e in entries
            ):
                continue
            findings.append(
                "ism VCHID %03X fid %s: guest %s gets a native ISM function (PNET ID %s), but a guest's virtio/MacVTap "
                "NIC has no PNET ID from the IOCDS and %s's smc_pnet_config has no interface under %s, so "
                "SMC-D would fall back to TCP; add {pnet_id: %s, interface: <the guest's rendezvous "
                "interface>} to its smc_pnet_config, or give it a non-native ISMv2 function (pnet_id: null)"
                % (vchid["vchid"], fid_text(func["fid"]), guest, pnet, guest, pnet, pnet)
            )
    return findings
