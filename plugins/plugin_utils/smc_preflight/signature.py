# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The SMC pre-flight's pairs by the shape of their facts: pairs whose facts differ only in who
they are (host, partition and device names, FIDs) and in which subnet they use (not whether it is
one) are judged once.

A host's facts in one role (client or server) become an abstract fact dict (``Shape``): its
identity values are replaced by tokens, the same token for the same value (``\\x00c0\\x00``...
for the client's strings, a FID far above 32 bits for its FIDs, whose text is unique), and its
rendezvous addresses by one synthetic network per network it has, so that what the judgement
reads of them (the IP version, link-local or not, which networks are equal) stays the same.
Everything else is kept as it is, and the whole abstract dict is the key. A pair's signature is
the client's shape, the server's shape and which networks of the client the server has; the row
judged for the first pair of a signature is a template whose tokens each pair fills with its own
names.

This is exact as long as the judgement (``client``, ``server``, ``replay``, ``rnic``) uses these
identity values only as text and for equality, and the addresses only through ``same_subnet``
and ``uses_ipv4``; ``sources`` it does not read. A host whose text could be taken for a token, a
pair that shares an identity value, or a network with link-local and other addresses is judged
directly."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ipaddress
import re

from ansible_collections.s390x.network.plugins.module_utils.zpci.pci_ids import fid_text

#: FID tokens: 0xf00d, then the role, then the index; fid_text gives 16 hex digits, a real FID has at most 8
FID_TOKEN_BASE = 0xF00D << 48
_ROLE_BIT = {"c": 0, "s": 1 << 40}
_TOKEN_RE = re.compile(r"\x00[cs][0-9]+\x00|0xf00d[0-9a-f]{12}(?![0-9a-fA-F])")
_UNSAFE_RE = re.compile(r"\x00|0xf00d", re.IGNORECASE)


def _freeze(value):
    if isinstance(value, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    return value


def _unsafe_text(value):
    if isinstance(value, dict):
        return any(_unsafe_text(v) for k, v in value.items() if k != "sources")
    if isinstance(value, (list, tuple)):
        return any(_unsafe_text(v) for v in value)
    return isinstance(value, str) and bool(_UNSAFE_RE.search(value))


class Shape(object):
    """One host's facts in one role with its identity replaced by tokens."""

    def __init__(self, facts, role):
        self.role = role
        self.safe = not _unsafe_text(facts)
        self.names = {}  # real string -> token
        self.fids = {}  # real FID -> token FID
        self.back = {}  # token text -> real text
        self.networks = []  # the host's networks, in order
        self.key = None
        if self.safe:
            self.abstract = self._abstract(facts)
            self.key = _freeze(self.abstract)
        self.name_set = frozenset(self.names)
        self.fid_set = frozenset(self.fids)
        self.network_ids = dict((n, i) for i, n in enumerate(self.networks))

    def _name(self, value):
        if not isinstance(value, str):
            return value
        if value not in self.names:
            token = "\x00%s%d\x00" % (self.role, len(self.names))
            self.names[value] = token
            self.back[token] = value
        return self.names[value]

    def _fid(self, value):
        if value is None:
            return None
        if value not in self.fids:
            token = FID_TOKEN_BASE + _ROLE_BIT[self.role] + len(self.fids)
            self.fids[value] = token
            self.back[fid_text(token)] = fid_text(value)
        return self.fids[value]

    def _devices(self, devices):
        if devices is None:
            return None
        result = []
        for dev in devices:
            item = dict(dev, name=self._name(dev["name"]), fid=self._fid(dev["fid"]))
            result.append(item)
        return result

    def _addresses(self, addresses):
        """Each address as (network index, version, link-local); None when the networks cannot be kept."""
        if addresses is None:
            return None
        result, link_local = [], {}
        for address in addresses:
            net = address.network
            if net not in self.networks:
                self.networks.append(net)
            ll = address.version == 6 and address.is_link_local
            if link_local.setdefault(net, ll) != ll:
                self.safe = False
            result.append((self.networks.index(net), address.version, ll))
        return result

    def _abstract(self, facts):
        abstract = dict(facts, sources=[])
        abstract["name"] = self._name(facts["name"])
        abstract["partition"] = self._name(facts["partition"])
        abstract["ism"] = self._devices(facts["ism"])
        abstract["roce"] = self._devices(facts["roce"])
        if facts["pnet_table"] is not None:
            abstract["pnet_table"] = [
                dict(e, ib_device=self.names.get(e["ib_device"], e["ib_device"])) if "ib_device" in e else e
                for e in facts["pnet_table"]
            ]
        rendezvous = dict(facts["rendezvous"])
        rendezvous["addresses"] = self._addresses(rendezvous["addresses"])
        abstract["rendezvous"] = rendezvous
        return abstract

    def concrete(self, network_ids):
        """The abstract facts with synthetic addresses: network i of this host is ``network_ids[i]``."""
        facts = dict(self.abstract)
        rendezvous = dict(facts["rendezvous"])
        if rendezvous["addresses"] is not None:
            rendezvous["addresses"] = [_synthetic(network_ids[i], v, ll) for i, v, ll in rendezvous["addresses"]]
        facts["rendezvous"] = rendezvous
        return facts


def _synthetic(number, version, link_local):
    if version == 4:
        return ipaddress.ip_interface("10.%d.%d.1/24" % (number >> 8, number & 0xFF))
    if link_local:
        return ipaddress.ip_interface("fe80:0:0:%x::1/64" % number)
    return ipaddress.ip_interface("2001:db8:0:%x::1/64" % number)


class Signatures(object):
    """Shapes per host and role, their keys as small numbers, and the signature of a pair."""

    def __init__(self):
        self._shapes = {}
        self._ids = {}

    def shape(self, name, facts, role):
        if (name, role) not in self._shapes:
            shape = Shape(facts, role)
            if shape.safe:
                shape.id = self._ids.setdefault(shape.key, len(self._ids))
            self._shapes[(name, role)] = shape
        return self._shapes[(name, role)]

    @staticmethod
    def pair(client, server):
        """The signature of a pair, or None when the pair is to be judged directly."""
        if not (client.safe and server.safe):
            return None
        if not (client.name_set.isdisjoint(server.name_set) and client.fid_set.isdisjoint(server.fid_set)):
            return None
        shared = tuple(server.network_ids.get(n, -1) for n in client.networks)
        return client.id, server.id, shared

    @staticmethod
    def facts(client, server, signature):
        """The abstract facts of a signature: ``(client facts, server facts)``."""
        shared = signature[2]
        count = len(server.networks)
        client_ids = []
        for index, match in enumerate(shared):
            client_ids.append(match if match >= 0 else count + index)
        return client.concrete(client_ids), server.concrete(list(range(count)))


# -- rows as templates ----------------------------------------------------------------------------
def _compiled(value):
    """A function of the pair's token values giving ``value`` with them; None for a value without
    tokens that is no container (lists and dicts are fresh for each row)."""
    if isinstance(value, dict):
        items = [(k, _compiled(v), v) for k, v in value.items()]
        return lambda back: {k: f(back) if f else c for k, f, c in items}
    if isinstance(value, list):
        items = [(_compiled(v), v) for v in value]
        return lambda back: [f(back) if f else c for f, c in items]
    if isinstance(value, str) and _TOKEN_RE.search(value):
        literals, tokens, last = [], [], 0
        for match in _TOKEN_RE.finditer(value):
            literals.append(value[last : match.start()].replace("%", "%%"))
            tokens.append(match.group(0))
            last = match.end()
        literals.append(value[last:].replace("%", "%%"))
        text = "%s".join(literals)
        tokens = tuple(tokens)
        return lambda back: text % tuple(map(back.__getitem__, tokens))
    return None


def template(row):
    """A judged row as a function of the pair's token values (``back``: token text -> real text)."""
    return _compiled(row)
