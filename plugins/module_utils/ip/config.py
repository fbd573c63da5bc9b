# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ``config`` entries of ip_interfaces: checks without the host, and the NetworkManager profile
properties an entry asks for.

An entry names its interface in one of three ways: ``device`` (a qeth device ID, resolved through
``/sys/bus/ccwgroup/devices/ID/if_name``), ``mac`` (the interface with that address, e.g. a guest's
NIC from the MacVTap definition) or ``name``. Addresses are ``ADDRESS/PREFIX`` (IPv4 or IPv6),
routes ``{to, via, metric}``; ``mtu`` 68..65535 (the interface's own maximum is checked on the
host); VLAN IDs 1..4094 (802.1Q; 0 and 4095 are reserved).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ipaddress
import re
import unicodedata

from ansible_collections.s390x.network.plugins.module_utils.ip import ifname as ip_ifname
from ansible_collections.s390x.network.plugins.module_utils.ip import nm_cli
from ansible_collections.s390x.network.plugins.module_utils.qeth import ids as qeth_ids

ENTRY_KEYS = ("device", "mac", "name", "connection", "addresses", "routes", "mtu", "vlans", "autoconnect")
VLAN_KEYS = ("id", "connection", "addresses", "routes", "mtu", "autoconnect")
ROUTE_KEYS = ("to", "via", "metric")
DIGITS_RE = re.compile(r"[0-9]{1,10}")
MAC_RE = re.compile(r"[0-9a-f]{2}(:[0-9a-f]{2}){5}")
#: the loopback interface (ARPHRD_LOOPBACK, /sys/class/net/IF/type 772): never managed
LOOPBACK_NAME = "lo"
ARPHRD_LOOPBACK = "772"
#: a connection name is kept in the keyfile <name>.nmconnection, which must fit a file name
CONNECTION_MAX_BYTES = 255 - len(".nmconnection")
#: Unicode categories no string field may hold: control (NUL, newline, ...), format, surrogate, unassigned
_REFUSED_CATEGORIES = ("Cc", "Cf", "Cs", "Co", "Cn")
MTU_MIN, MTU_MAX = 68, 65535
VLAN_MIN, VLAN_MAX = 1, 4094
METRIC_MAX = 0xFFFFFFFF
ETHERNET = "802-3-ethernet"
VLAN = "vlan"


class ConfigError(ValueError):
    pass


def _text(value, where):
    if not isinstance(value, str) or not value.strip():
        raise ConfigError("%s: expected a non-empty string, got %r" % (where, value))
    if any(unicodedata.category(char) in _REFUSED_CATEGORIES for char in value):
        raise ConfigError(
            "%s: %r has a control or format character (NUL, newline, carriage return, ...); allowed: printable "
            "text" % (where, value)
        )
    return value.strip()


def connection_name(value, where):
    """A NetworkManager connection name (``connection.id``): printable, not starting with ``-``."""
    name = _text(value, where)
    if name.startswith("-"):
        raise ConfigError("%s: %r starts with - (nmcli would read it as an option)" % (where, name))
    size = len(name.encode("utf-8", "surrogateescape"))
    if size > CONNECTION_MAX_BYTES:
        raise ConfigError(
            "%s: the connection name has %d bytes, at most %d are allowed (NetworkManager keeps the profile "
            "in the file <name>.nmconnection)" % (where, size, CONNECTION_MAX_BYTES)
        )
    return name


def _int(value, where, low, high):
    if isinstance(value, bool) or not (
        isinstance(value, int) or (isinstance(value, str) and DIGITS_RE.fullmatch(value))
    ):
        raise ConfigError("%s: expected an integer between %d and %d, got %r" % (where, low, high, value))
    value = int(value)
    if not low <= value <= high:
        raise ConfigError("%s: %d is outside %d..%d" % (where, value, low, high))
    return value


def _bool(value, where):
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("yes", "true", "on", "1"):
        return True
    if text in ("no", "false", "off", "0"):
        return False
    raise ConfigError("%s: expected true or false, got %r" % (where, value))


def address(value, where):
    """``10.50.0.2/24`` -> ``ipaddress.ip_interface``; the prefix is required, the host part must
    not be the network or (IPv4, prefix < 31) the broadcast address."""
    text = _text(value, where)
    if "/" not in text:
        raise ConfigError("%s: %r has no prefix length (ADDRESS/PREFIX, e.g. 10.50.0.2/24)" % (where, text))
    try:
        iface = ipaddress.ip_interface(text)
    except ValueError as exc:
        raise ConfigError("%s: %r is not an IPv4 or IPv6 address with a prefix length: %s" % (where, text, exc))
    net = iface.network
    if iface.version == 4 and net.prefixlen < 31 and iface.ip in (net.network_address, net.broadcast_address):
        raise ConfigError("%s: %s is the network or broadcast address of %s" % (where, iface.ip, net))
    return iface


def route(value, where):
    """``{to, via, metric}`` -> dict(to=ip_network, via=ip_address or None, metric=int or None)."""
    if not isinstance(value, dict):
        raise ConfigError("%s: expected a mapping with to, via, metric, got %r" % (where, value))
    unknown = sorted(set(value) - set(ROUTE_KEYS))
    if unknown:
        raise ConfigError("%s: unknown key %s (allowed: %s)" % (where, ", ".join(unknown), ", ".join(ROUTE_KEYS)))
    to = _text(value.get("to"), where + ".to")
    if to == "default":
        to = "0.0.0.0/0" if ":" not in str(value.get("via") or "") else "::/0"
    try:
        dest = ipaddress.ip_network(to, strict=True)
    except ValueError as exc:
        raise ConfigError("%s.to: %r is not a network (NETWORK/PREFIX or default): %s" % (where, to, exc))
    via = None
    if value.get("via") not in (None, ""):
        try:
            via = ipaddress.ip_address(_text(value.get("via"), where + ".via"))
        except ValueError as exc:
            raise ConfigError("%s.via: %s" % (where, exc))
        if via.version != dest.version:
            raise ConfigError("%s: via %s is not an IPv%d address like to %s" % (where, via, dest.version, dest))
    metric = None
    if value.get("metric") is not None:
        metric = _int(value.get("metric"), where + ".metric", 0, METRIC_MAX)
    return {"to": dest, "via": via, "metric": metric}


def _addresses(value, where):
    if value is None:
        return None
    if not isinstance(value, list):
        raise ConfigError("%s: expected a list of ADDRESS/PREFIX, got %r" % (where, value))
    result = []
    for index, item in enumerate(value):
        iface = address(item, "%s[%d]" % (where, index))
        if any(iface.ip == other.ip for other in result):
            raise ConfigError("%s[%d]: %s is given twice" % (where, index, iface.ip))
        result.append(iface)
    return result


def _routes(value, where, addresses):
    if value is None:
        return None
    if not isinstance(value, list):
        raise ConfigError("%s: expected a list of {to, via, metric}, got %r" % (where, value))
    result = [route(item, "%s[%d]" % (where, index)) for index, item in enumerate(value)]
    for index, item in enumerate(result):
        via = item["via"]
        if via is not None and addresses is not None and not any(via in a.network for a in addresses):
            raise ConfigError(
                "%s[%d].via: %s is in none of the interface's subnets (%s)"
                % (where, index, via, ", ".join(str(a.network) for a in addresses) or "no addresses")
            )
    return result


def _common(item, where, keys):
    if not isinstance(item, dict):
        raise ConfigError("%s: expected a mapping, got %r" % (where, item))
    unknown = sorted(set(item) - set(keys))
    if unknown:
        raise ConfigError("%s: unknown key %s (allowed: %s)" % (where, ", ".join(unknown), ", ".join(keys)))
    entry = {}
    entry["connection"] = connection_name(item["connection"], where + ".connection") if item.get("connection") else None
    entry["addresses"] = _addresses(item.get("addresses"), where + ".addresses")
    entry["routes"] = _routes(item.get("routes"), where + ".routes", entry["addresses"])
    entry["mtu"] = _int(item["mtu"], where + ".mtu", MTU_MIN, MTU_MAX) if item.get("mtu") is not None else None
    entry["autoconnect"] = _bool(item["autoconnect"], where + ".autoconnect") if "autoconnect" in item else True
    return entry


def normalize_entry(item, index):
    """One ``config`` item -> entry dict; raises ConfigError naming the field."""
    where = "config[%d]" % index
    entry = _common(item, where, ENTRY_KEYS)
    given = [k for k in ("device", "mac", "name") if item.get(k) not in (None, "")]
    if len(given) != 1:
        raise ConfigError(
            "%s: name the interface with exactly one of device (qeth device ID), mac or name; got %s"
            % (where, ", ".join(given) or "none")
        )
    entry["device"] = entry["mac"] = entry["name"] = None
    if given[0] == "device":
        try:
            entry["device"] = qeth_ids.normalize_ccw_id(_text(str(item["device"]), where + ".device"))
        except ValueError as exc:
            raise ConfigError(
                "%s.device: %r is not a qeth device ID (0.0.8200 or 8200): %s" % (where, item["device"], exc)
            )
    elif given[0] == "mac":
        mac = _text(item["mac"], where + ".mac").lower().replace("-", ":")
        if not MAC_RE.fullmatch(mac):
            raise ConfigError("%s.mac: %r is not a MAC address (12:34:56:78:9a:bc)" % (where, item["mac"]))
        entry["mac"] = mac
    else:
        name = item["name"]
        problem = nm_cli.ifname_problem(name)
        if problem:
            raise ConfigError("%s.name: %s" % (where, problem))
        if name == LOOPBACK_NAME:
            raise ConfigError(
                "%s.name: lo is the loopback interface; ip_interfaces manages Ethernet interfaces and VLANs, "
                "not loopback" % where
            )
        entry["name"] = name
    vlans = item.get("vlans")
    entry["vlans"] = []
    if vlans is not None:
        if not isinstance(vlans, list):
            raise ConfigError("%s.vlans: expected a list, got %r" % (where, vlans))
        seen = set()
        for vindex, vitem in enumerate(vlans):
            vwhere = "%s.vlans[%d]" % (where, vindex)
            ventry = _common(vitem, vwhere, VLAN_KEYS)
            ventry["id"] = _int(vitem.get("id"), vwhere + ".id", VLAN_MIN, VLAN_MAX)
            if entry["name"]:
                problem = ip_ifname.ifname_problem(vlan_ifname(entry["name"], ventry["id"]))
                if problem:
                    raise ConfigError("%s.id: the VLAN interface %s" % (vwhere, problem))
            if ventry["id"] in seen:
                raise ConfigError("%s.id: VLAN %d is given twice" % (vwhere, ventry["id"]))
            seen.add(ventry["id"])
            entry["vlans"].append(ventry)
    return entry


def vlan_ifname(parent, vlan_id):
    """The name of VLAN ``vlan_id`` on ``parent`` (``PARENT.ID``, NetworkManager's default)."""
    return "%s.%d" % (parent, vlan_id)


def selector_field(entry, index):
    """The option that names the entry's interface (``config[0].device``), for messages."""
    for key in ("device", "mac", "name"):
        if entry.get(key):
            return "config[%d].%s" % (index, key)
    return "config[%d]" % index


def selector_text(entry):
    if entry["device"]:
        return "device %s" % entry["device"]
    if entry["mac"]:
        return "mac %s" % entry["mac"]
    return entry["name"]


def _route_text(item):
    parts = [str(item["to"])]
    if item["via"] is not None:
        parts.append(str(item["via"]))
    if item["metric"] is not None:
        parts.append(str(item["metric"]))
    return " ".join(parts)


def parse_route_text(text):
    """One route as nmcli prints it (``DEST [NEXT_HOP] [METRIC]``) -> dict(to, via, metric) of the
    present parts, the form of a ``routes`` entry."""
    words = text.split()
    item = {"to": words[0]}
    rest = words[1:]
    if rest and not rest[0].isdigit():
        item["via"] = rest.pop(0)
    if rest:
        item["metric"] = int(rest[0])
    return item


def wanted_properties(entry, ifname, ctype=ETHERNET, parent=None, vlan_id=None, replace=False):
    """{nmcli property: value} the entry asks for. With ``replace`` every managed property is set
    (what the entry leaves out goes back to NetworkManager's default); otherwise only the ones the
    entry gives."""
    props = {
        "connection.id": entry["connection"] or ifname,
        "connection.type": ctype,
        "connection.interface-name": ifname,
        "connection.autoconnect": "yes" if entry["autoconnect"] else "no",
    }
    addresses = entry["addresses"]
    if addresses is not None or replace:
        addresses = addresses or []
        for version, key in ((4, "ipv4"), (6, "ipv6")):
            mine = [str(a) for a in addresses if a.version == version]
            props[key + ".method"] = "manual" if mine else ("disabled" if version == 4 else "ignore")
            props[key + ".addresses"] = ", ".join(mine) or None
            props[key + ".gateway"] = None
    routes = entry["routes"]
    if routes is not None or replace:
        routes = routes or []
        for version, key in ((4, "ipv4"), (6, "ipv6")):
            props[key + ".routes"] = ", ".join(_route_text(r) for r in routes if r["to"].version == version) or None
    if entry["mtu"] is not None or replace:
        props["802-3-ethernet.mtu"] = str(entry["mtu"]) if entry["mtu"] is not None else "auto"
    if ctype == VLAN:
        props["vlan.parent"] = parent
        props["vlan.id"] = str(vlan_id)
    return props


def canonical(name, value):
    """A property value as nmcli prints it and as wanted_properties writes it, in one form."""
    if value in (None, "", "--"):
        value = None
    if name == "802-3-ethernet.mtu" and value in (None, "0"):
        return "auto"
    if value is None:
        return None
    if name.endswith(".addresses"):
        return ", ".join(str(ipaddress.ip_interface(a.strip())) for a in value.split(",") if a.strip())
    if name.endswith(".routes"):
        # a route without next hop may print with the unspecified address as its next hop
        routes = []
        for text in value.split(","):
            words = [w for w in text.split() if w not in ("0.0.0.0", "::")]
            if words:
                routes.append(" ".join(words))
        return ", ".join(routes)
    return value


def differing(wanted, have):
    """Names of the wanted properties whose canonical value differs from ``have`` ({} = no profile)."""
    return [n for n in sorted(wanted) if canonical(n, wanted[n]) != canonical(n, have.get(n))]
