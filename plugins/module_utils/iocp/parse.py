# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read IOCP card-image source back into a ``cpc`` dict (the inventory form).

``parse_deck(text)`` understands the statements this collection renders (ID,
RESOURCE, UUID, CHPID TYPE=IQD/OSD/OSH, CNTLUNIT/IODEVICE UNIT=IQD/OSA, FUNCTION
TYPE=ISM/ROCE/ROC2/NETH/NETD) in the forms the IOCP User's Guide allows (PART or
PARTITION, optional parentheses around single values, CSS-qualified or plain
partition lists, FID counts).  Every other statement is kept in ``unparsed``.
Card rules (column 72 continuation, column 16 restart, ``*`` comments) and the
IOCP messages for breaking them are in docs/iocp-sources.md; violations become
warnings, and the statement is read the way IOCP would read it.
The result is raw inventory data: run it through ``cpc_model.normalize_cpc``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.s390x.network.plugins.module_utils.iocp.machines import GENERATION_OF_TYPE
from ansible_collections.s390x.network.plugins.module_utils.iocp.render import ANNOTATION

CHPARM_FRAME = {"00": "16K", "40": "24K", "80": "40K", "C0": "64K"}
KNOWN = ("ID", "RESOURCE", "UUID", "CHPID", "CNTLUNIT", "IODEVICE", "FUNCTION")
_TOKEN_RE = re.compile(r"\S+")


class Css(object):
    """``CSS(0,1)`` inside an operand."""

    def __init__(self, ids):
        self.ids = ids

    def __eq__(self, other):
        return isinstance(other, Css) and other.ids == self.ids

    def __repr__(self):
        return "CSS(%s)" % ",".join(self.ids)


def _scan(text, start):
    """Operand characters from ``start`` up to the first blank outside quotes.

    Returns ``(fragment, reached_end)``; ``reached_end`` is True when no blank
    ended the operand before column 71 (the operand may go on in column 16).
    """
    quoted = False
    pos = start
    while pos < len(text):
        char = text[pos]
        if char == "'":
            quoted = not quoted
        elif char == " " and not quoted:
            return text[start:pos], False
        pos += 1
    return text[start:pos], len(text) >= 71


def read_cards(text):
    """Split card images into statements.

    Returns ``(statements, annotations, warnings)``; a statement is a dict with
    ``line`` (1-based), ``operation``, ``operand`` and ``text`` (the cards).
    """
    statements = []
    annotations = []
    warnings = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        number = index + 1
        card = lines[index]
        if "\t" in card:
            warnings.append("line %d: tab characters expanded to blanks (card images use blanks)" % number)
            card = card.expandtabs(8)
        body = card[:71]
        continued = len(card) >= 72 and card[71] != " "
        index += 1
        if card.startswith(ANNOTATION):
            annotations.append((number, card[len(ANNOTATION) : 71].split()))
            continue
        if card.startswith("*") or card.startswith(".*"):
            extra = 0
            while continued and index < len(lines):
                extra += 1
                continued = len(lines[index]) >= 72 and lines[index][71] != " "
                index += 1
            if extra > 2:
                warnings.append("line %d: comment card continued more than twice (ICP107I)" % number)
            continue
        if not body.strip():
            if continued:
                warnings.append("line %d: blank card is continued (ICP101I)" % number)
            continue
        pos = 0
        if body[0] != " ":
            while pos < len(body) and body[pos] != " ":
                pos += 1  # name field, ignored by IOCP
        match = _TOKEN_RE.search(body, pos)
        operation = match.group(0).upper()
        pos = match.end()
        while pos < len(body) and body[pos] == " ":
            pos += 1
        operand, open_end = _scan(body, pos)
        cards = [card.rstrip()]
        ignore_rest = False
        while continued:
            if index >= len(lines):
                warnings.append("line %d: statement continued past the end of the input" % number)
                ignore_rest = True
                break
            nxt = lines[index].expandtabs(8)
            index += 1
            cards.append(nxt.rstrip())
            continued = len(nxt) >= 72 and nxt[71] != " "
            nbody = nxt[:71]
            if ignore_rest:
                continue
            if not (open_end or operand.endswith(",")):
                warnings.append(
                    "line %d: continuation card follows an operand that ended with a "
                    "blank; IOCP treats it as a comment (ICP116I)" % (index,)
                )
                ignore_rest = True
                continue
            if nbody[:15].strip():
                warnings.append(
                    "line %d: non-blank characters in columns 1-15 of a continuation "
                    "card (ICP106I); read from the first non-blank" % index
                )
                start = len(nbody) - len(nbody.lstrip())
            elif len(nbody) < 16 or nbody[15] == " ":
                warnings.append(
                    "line %d: continued operand does not start in column 16; IOCP "
                    "treats the card as a comment (ICP116I)" % index
                )
                ignore_rest = True
                continue
            else:
                start = 15
            fragment, open_end = _scan(nbody, start)
            operand += fragment
        if operand.endswith(",") and not ignore_rest:
            warnings.append(
                "line %d: %s operand ends with a comma but the statement is not "
                "continued in column 72 (ICP131I)" % (number, operation)
            )
        statements.append({"line": number, "operation": operation, "operand": operand, "text": "\n".join(cards)})
    return statements, annotations, warnings


def split_params(operand):
    """Top-level comma split: ``[("KEY", value_tree) or ("FLAG", None), ...]``."""
    params = []
    depth = 0
    quoted = False
    current = ""
    for char in operand:
        if char == "'":
            quoted = not quoted
        if not quoted:
            if char == "(":
                depth += 1
            elif char == ")":
                depth -= 1
            elif char == "," and depth == 0:
                params.append(current)
                current = ""
                continue
        current += char
    if current:
        params.append(current)
    result = []
    for param in params:
        if "=" in param and not param.startswith("("):
            key, value = param.split("=", 1)
            result.append((key.strip().upper(), parse_value(value)))
        else:
            result.append((param.strip().upper(), None))
    return result


def parse_value(text):
    """Parse a keyword value into str / list / Css (nested)."""
    value, pos = _item(text, 0)
    if pos != len(text):
        raise ValueError("unexpected %r at position %d of %r" % (text[pos:], pos, text))
    return value


def _item(text, pos):
    if pos < len(text) and text[pos] == "(":
        return _list(text, pos)
    start = pos
    quoted = False
    while pos < len(text):
        char = text[pos]
        if char == "'":
            quoted = not quoted
        elif not quoted and char in "(),":
            break
        pos += 1
    atom = text[start:pos].strip()
    if pos < len(text) and text[pos] == "(":
        inner, pos = _list(text, pos)
        if atom.upper() == "CSS":
            return Css([str(x) for x in inner]), pos
        raise ValueError("unexpected sublist after %r" % atom)
    return atom.upper() if not atom.startswith("'") else atom, pos


def _list(text, pos):
    items = []
    pos += 1  # "("
    if pos < len(text) and text[pos] == ")":
        return items, pos + 1
    while True:
        item, pos = _item(text, pos)
        items.append(item)
        if pos >= len(text):
            raise ValueError("missing ) in %r" % text)
        if text[pos] == ",":
            pos += 1
            continue
        if text[pos] == ")":
            return items, pos + 1
        raise ValueError("unexpected %r in %r" % (text[pos], text))


def _as_list(value):
    if value is None:
        return []
    if isinstance(value, list):
        return value
    return [value]


def _css_groups(value):
    """``[(css or None, [entries...])]`` for RESOURCE/CHPID partition values."""
    items = _as_list(value)
    if items and isinstance(items[0], Css):
        return [(items[0].ids, items[1:])]
    if items and all(isinstance(x, list) and x and isinstance(x[0], Css) for x in items):
        return [(x[0].ids, x[1:]) for x in items]
    return [(None, items)]


def _access_candidates(entries):
    """CHPID PARTITION entries (after the CSS) -> (access list, candidate list or None)."""
    if not entries:
        return [], None
    if all(isinstance(x, str) for x in entries):
        return [x for x in entries if x != "0"], None
    access = entries[0]
    access = [x for x in _as_list(access) if isinstance(x, str) and x != "0"]
    candidates = None
    if len(entries) > 1:
        cand = _as_list(entries[1])
        candidates = access if cand == ["="] else [x for x in cand if isinstance(x, str)]
    return access, candidates


def _path(value):
    """CHPID PATH -> (css ids, chpid)."""
    items = _as_list(value)
    if items and isinstance(items[0], Css):
        return items[0].ids, items[1] if len(items) > 1 else None
    return None, items[0] if items else None


def _cu_paths(value):
    """CNTLUNIT PATH -> [(css ids or None, chpid)]."""
    items = _as_list(value)
    if items and isinstance(items[0], Css):
        return [(items[0].ids, x) for x in items[1:]]
    result = []
    for item in items:
        if isinstance(item, list) and item and isinstance(item[0], Css):
            result += [(item[0].ids, x) for x in item[1:]]
        elif isinstance(item, str):
            result.append((None, item))
    return result


def _hexint(text):
    return int(text, 16)


class _Deck(object):
    def __init__(self):
        self.cpc = {
            "partitions": [],
            "uid_checking": [],
            "hipersockets": [],
            "ism": [],
            "osa": [],
            "roce": [],
            "network_express": [],
        }
        self.css = None
        self.unparsed = []
        self.warnings = []
        self.chpids = {}
        self.cus = {}
        self.ism = {}
        self.roce = {}
        self.ports = {}

    def keep(self, stmt, why):
        self.unparsed.append(
            {"line": stmt["line"], "statement": stmt["operation"], "reason": why, "text": stmt["text"]}
        )

    def warn(self, stmt, msg):
        self.warnings.append("line %d: %s %s" % (stmt["line"], stmt["operation"], msg))

    def port(self, pchid, ntype):
        """The Network Express port entry of ``pchid``, made with type ``ntype`` when new."""
        if pchid not in self.ports:
            self.ports[pchid] = {"pchid": pchid, "type": ntype, "functions": []}
            self.cpc["network_express"].append(self.ports[pchid])
        return self.ports[pchid]

    def in_css(self, ids):
        if ids is None:
            return True
        if self.css is None:
            self.css = ids[0]
        return str(self.css) in ids


def _st_id(deck, stmt, params):
    for key, value in params:
        if key == "SYSTEM":
            mtype = _as_list(value)[0]
            if mtype in GENERATION_OF_TYPE:
                deck.cpc["machine"] = mtype
            else:
                deck.warn(stmt, "SYSTEM=%s is not a z15/z16/z17 machine type" % mtype)
        elif key == "LSYSTEM":
            deck.cpc["name"] = value


def _st_resource(deck, stmt, params):
    for key, value in params:
        if key not in ("PART", "PARTITION"):
            continue
        for index, (ids, entries) in enumerate(_css_groups(value)):
            css = ids[0] if ids else "0"
            if index == 0:
                deck.css = css
            if css != deck.css:
                deck.warn(stmt, "partitions of CSS %s are not modelled (model CSS %s)" % (css, deck.css))
                continue
            for entry in entries:
                items = _as_list(entry)
                name = items[0]
                if name == "*":
                    continue  # reserved partition
                mif = items[1] if len(items) > 1 else None
                deck.cpc["partitions"].append({"name": name, "mif_id": mif})
    if deck.css is not None:
        deck.cpc["css"] = int(deck.css)


def _st_uuid(deck, stmt, params):
    for key, value in params:
        if key in ("PART", "PARTITION"):
            deck.cpc["uid_checking"] = "*" if value == "*" else _as_list(value)


def _st_chpid(deck, stmt, params):
    kw = dict(params)
    ctype = kw.get("TYPE")
    if ctype not in ("IQD", "OSD", "OSH"):
        deck.keep(stmt, "CHPID TYPE=%s is not modelled" % ctype)
        return
    if "NOTPART" in kw or "IOCLUSTER" in kw:
        deck.keep(stmt, "CHPID with NOTPART or IOCLUSTER is not modelled")
        return
    ids, chpid = _path(kw.get("PATH"))
    if ids and len(ids) > 1:
        deck.warn(
            stmt,
            "is spanned over CSS %s; only CSS %s is modelled"
            % (",".join(ids), deck.css if deck.css is not None else ids[0]),
        )
    if not deck.in_css(ids):
        deck.keep(stmt, "CHPID is not in the modelled CSS")
        return
    access = []
    candidates = None
    part_value = kw.get("PARTITION", kw.get("PART"))
    for gids, entries in _css_groups(part_value):
        if gids is None or str(deck.css) in gids:
            access, candidates = _access_candidates(entries)
    if not access and candidates:
        deck.warn(
            stmt,
            "has an empty access list; its candidate list %s is modelled as the " "partitions" % ",".join(candidates),
        )
        access = candidates
    elif candidates is not None and candidates != access:
        deck.warn(
            stmt,
            "candidate list %s differs from the access list; only the access list "
            "is modelled" % ",".join(candidates),
        )
    entry = {"chpid": chpid, "partitions": access}
    if "PNETID" in kw:
        pnets = [x for x in _as_list(kw["PNETID"]) if x]
        entry["pnet_id"] = pnets[0] if pnets else None
    if ctype == "OSH":
        port = deck.port(_hexint(kw["PCHID"]), "NETH")
        if "osh" in port:
            deck.keep(stmt, "a second OSH CHPID on PCHID %s is not modelled" % kw["PCHID"])
            return
        if "PNETID" in kw:
            entry["pnet_id"] = _pnet_value(kw["PNETID"])
        entry["control_units"] = []
        port["osh"] = entry
    elif ctype == "IQD":
        chparm = kw.get("CHPARM", kw.get("OS", "00"))
        if chparm not in CHPARM_FRAME:
            deck.warn(stmt, "CHPARM=%s: only the frame size bits are modelled" % chparm)
            chparm = "%X0" % (int(chparm, 16) >> 4 & 0xC) if re.fullmatch(r"[0-9A-F]{2}", chparm) else "00"
        entry["frame_size"] = CHPARM_FRAME.get(chparm, "16K")
        if "VCHID" in kw:
            entry["vchid"] = kw["VCHID"]
        entry["control_units"] = []
        deck.cpc["hipersockets"].append(entry)
    else:
        entry["type"] = ctype
        entry["pchid"] = kw.get("PCHID")
        entry["control_units"] = []
        deck.cpc["osa"].append(entry)
    deck.chpids[chpid] = (ctype, entry)


def _st_cntlunit(deck, stmt, params):
    kw = dict(params)
    unit = kw.get("UNIT")
    paths = [chp for ids, chp in _cu_paths(kw.get("PATH")) if deck.in_css(ids)]
    owners = [deck.chpids[p] for p in paths if p in deck.chpids]
    want = {"IQD": ("IQD",), "OSA": ("OSD", "OSH")}.get(unit)
    if want is None or not owners or any(t not in want for t, _e in owners):
        deck.keep(stmt, "CNTLUNIT UNIT=%s on CHPID %s is not modelled" % (unit, ",".join(paths)))
        return
    if len(owners) > 1:
        deck.warn(stmt, "has %d paths; only CHPID %s is modelled" % (len(owners), paths[0]))
    number = _as_list(kw.get("CUNUMBR"))[0]
    cu = {"number": number, "devices": None}
    owners[0][1]["control_units"].append(cu)
    deck.cus[number] = cu


def _st_iodevice(deck, stmt, params):
    kw = dict(params)
    cus = [c for c in _as_list(kw.get("CUNUMBR")) if c in deck.cus]
    unit = kw.get("UNIT")
    if unit not in ("IQD", "OSA") or not cus:
        deck.keep(stmt, "IODEVICE UNIT=%s is not modelled" % unit)
        return
    address = _as_list(kw.get("ADDRESS"))
    if len(address) not in (1, 2):
        deck.keep(stmt, "IODEVICE ADDRESS form is not modelled")
        return
    for key in ("PART", "PARTITION", "NOTPART"):
        if key in kw:
            deck.warn(
                stmt,
                "device candidate list %s= is not modelled; the devices are taken as "
                "accessible to all partitions of the CHPID" % key,
            )
    first = address[0]
    count = int(address[1]) if len(address) > 1 else 1
    cu = deck.cus[cus[0]]
    if cu["devices"] is None:
        cu["devices"] = {"first": first.rjust(4, "0"), "count": count}
        return
    devices = cu["devices"]
    if _hexint(devices["first"]) + devices["count"] == _hexint(first):
        devices["count"] += count
    else:
        deck.keep(stmt, "second, non-contiguous device range on control unit %s is not modelled" % cus[0])


def _st_function(deck, stmt, params, guests):
    kw = dict(params)
    ftype = kw.get("TYPE")
    fid_value = _as_list(kw.get("FID"))
    if not fid_value:
        deck.keep(stmt, "FUNCTION without FID")
        return
    if ftype == "ISM" and "VCHID" in kw:
        channel = _hexint(kw["VCHID"])
    elif ftype in ("ROCE", "ROC2", "NETH", "NETD") and "PCHID" in kw:
        channel = _hexint(kw["PCHID"])
    else:
        deck.keep(stmt, "FUNCTION TYPE=%s is not modelled" % ftype)
        return
    if ftype in ("NETH", "NETD"):
        port = deck.ports.get(channel)
        if port is not None and port["type"] != ftype:
            why = "OSH CHPID" if "osh" in port and not port["functions"] else "TYPE=%s FUNCTIONs" % port["type"]
            deck.warn(
                stmt,
                "TYPE=%s on PCHID %s, which has %s: both ports of a Network Express card run in one "
                "mode; the statement is not modelled" % (ftype, kw["PCHID"], why),
            )
            deck.keep(stmt, "FUNCTION TYPE=%s on a PCHID of another mode" % ftype)
            return
    part = kw.get("PART", kw.get("PARTITION"))
    items = _as_list(part)
    if items and isinstance(items[0], list):
        access = _as_list(items[0])
        candidates = _as_list(items[1]) if len(items) > 1 else "*"
        if candidates == ["="]:
            candidates = list(access)
    else:
        access = items
        candidates = "*"
    access = [x for x in access if x != "0"]
    pnets = [x for x in _as_list(kw.get("PNETID")) if x]
    first = _hexint(fid_value[0])
    count = int(fid_value[1]) if len(fid_value) > 1 else 1
    vf = int(kw["VF"]) if "VF" in kw else None
    uid = _hexint(kw["UID"]) if "UID" in kw else None
    for offset in range(count):
        fid = first + offset
        func = {
            "fid": fid,
            "vf": vf + offset if vf is not None else None,
            "uid": uid + offset if uid is not None else None,
            "partition": access[0] if len(access) == 1 else (access or None),
            "candidates": candidates,
            "pnet_id": pnets[0] if pnets else None,
        }
        if ftype in ("NETH", "NETD"):
            _netx_function(deck, kw, func, channel, ftype)
        elif ftype == "ISM":
            if channel not in deck.ism:
                deck.ism[channel] = {"vchid": channel, "functions": []}
                deck.cpc["ism"].append(deck.ism[channel])
            func["guest"] = guests.get(fid)
            deck.ism[channel]["functions"].append(func)
        else:
            if "PORT" in kw:
                func["port"] = int(kw["PORT"])
            if channel not in deck.roce:
                deck.roce[channel] = {"pchid": channel, "type": ftype, "functions": []}
                deck.cpc["roce"].append(deck.roce[channel])
            deck.roce[channel]["functions"].append(func)


def _pnet_value(value):
    """A PNETID keyword value: one PNET ID, None, or the list when there are several (the model
    refuses more than one per Network Express port and names them)."""
    pnets = [x for x in _as_list(value) if x]
    if len(pnets) > 1:
        return pnets
    return pnets[0] if pnets else None


def _netx_function(deck, kw, func, pchid, ftype):
    """A NETH or NETD FUNCTION: PF or VF, FIDPARM and any PORT= (which the model refuses)."""
    if "PNETID" in kw:
        func["pnet_id"] = _pnet_value(kw["PNETID"])
    if "PF" in kw:
        func["pf"] = True
    if "FIDPARM" in kw:
        func["fidparm"] = kw["FIDPARM"]
    if "PORT" in kw:
        func["port"] = kw["PORT"]
    deck.port(pchid, ftype)["functions"].append(func)


def parse_deck(text):
    """Parse IOCP source. Returns ``{"cpc", "unparsed", "warnings", "statements"}``."""
    statements, annotations, warnings = read_cards(text)
    deck = _Deck()
    deck.warnings = warnings
    hosts = {}
    guests = {}
    peers = {}
    cards = {}
    for line, words in annotations:
        if len(words) == 3 and words[0] == "HOST":
            hosts[words[1]] = words[2]
        elif len(words) == 3 and words[0] == "GUEST":
            guests[_hexint(words[1])] = words[2]
        elif len(words) == 3 and words[0] == "CARD" and re.fullmatch(r"[0-9A-F]{1,3}", words[1]):
            cards[_hexint(words[1])] = words[2]
        elif len(words) >= 3 and words[0] == "SMCD-PEERS":
            peers.setdefault(words[1], []).extend(words[2:])
        else:
            deck.warnings.append("line %d: unknown *@ annotation ignored" % line)
    handlers = {
        "ID": _st_id,
        "RESOURCE": _st_resource,
        "UUID": _st_uuid,
        "CHPID": _st_chpid,
        "CNTLUNIT": _st_cntlunit,
        "IODEVICE": _st_iodevice,
    }
    for stmt in statements:
        if stmt["operation"] not in KNOWN:
            deck.keep(stmt, "statement %s is not an IOCP statement this collection models" % stmt["operation"])
            continue
        try:
            params = split_params(stmt["operand"])
            if stmt["operation"] == "FUNCTION":
                _st_function(deck, stmt, params, guests)
            else:
                handlers[stmt["operation"]](deck, stmt, params)
        except (ValueError, IndexError, TypeError, KeyError) as exc:
            deck.warn(stmt, "could not be read (%s)" % exc)
            deck.keep(stmt, "syntax not understood: %s" % exc)
    for port in deck.cpc["network_express"]:
        if port["pchid"] in cards:
            port["card"] = cards[port["pchid"]]
    for part in deck.cpc["partitions"]:
        if part["name"] in hosts:
            part["host"] = hosts[part["name"]]
    if peers:
        deck.cpc["smcd_peers"] = [peers[k] for k in sorted(peers, key=lambda x: int(x) if x.isdigit() else 0)]
    return {"cpc": deck.cpc, "unparsed": deck.unparsed, "warnings": deck.warnings, "statements": len(statements)}
