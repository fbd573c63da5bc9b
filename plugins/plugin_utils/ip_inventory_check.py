# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Checks of the interface configuration across the whole inventory, before any host changes.

Per host it reads ``interfaces_config`` (the entries of the ip_interfaces module), ``qeth_devices``,
``kvm_guests`` and the CPC model ``cpc``. Findings:

* an MTU above what the HiperSockets frame size of the device's CHPID allows (the qeth driver derives
  the maximum MTU from the frame size: 16K -> 8K, 24K -> 16K, 40K -> 32K, 64K -> 56K);
* a VLAN on a qeth device the inventory configures as layer 3 (802.1Q needs layer 2);
* one address on two interfaces of one network (a HiperSockets CHPID, or anywhere when the network
  of one of them is not known);
* SMC peers (``cpc.smcd_peers``) without a common IP subnet: SMC-D v1 and SMC-R v1 need both peers in
  one subnet (the CLC proposal carries the client's subnet and the server declines a different one,
  SMC_CLC_DECL_DIFFPREFIX); SMC v2 does not. An error on machines without ISMv2 (before z15, SMC-Dv1
  only), a warning otherwise;
* a guest's MacVTap source that is a layer-3 qeth device on its KVM host (MacVTap needs layer 2).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ipaddress
import json
import re

from ansible_collections.s390x.network.plugins.module_utils.iocp import cpc_model
from ansible_collections.s390x.network.plugins.module_utils.qeth import ids as qeth_ids

# machines whose ISM is v1 only (ISMv2 and SMC-Dv2 came with z15)
ISM_V1_ONLY = ("z13", "z13s", "z14", "z14zr1")
_ENC_RE = re.compile(r"enc(?:0\.[0-3]\.)?([0-9a-f]{1,4})", re.I)


def _busid(text):
    try:
        return qeth_ids.normalize_ccw_id(str(text))
    except ValueError:
        return None


def _source_busid(source):
    """The qeth device behind a MacVTap source name: ``enc8200`` -> 0.0.8200, or a device ID."""
    match = _ENC_RE.fullmatch(str(source or ""))
    if match:
        return "0.0.%04x" % int(match.group(1), 16)
    return _busid(source) if source and "." in str(source) else None


def _targets(entry):
    """(where suffix, spec, vlan id) of an entry and its VLANs."""
    yield "", entry, None
    for index, vlan in enumerate(entry.get("vlans") or []):
        if isinstance(vlan, dict):
            yield ".vlans[%d]" % index, vlan, vlan.get("id")


def _addresses(spec):
    result = []
    for text in spec.get("addresses") or []:
        try:
            result.append(ipaddress.ip_interface(str(text)))
        except ValueError:
            continue  # the module names it
    return result


class _Host(object):
    def __init__(self, name, hostvars):
        self.name = name
        self.vars = hostvars.get(name) or {}
        self.entries = [e for e in self.vars.get("interfaces_config") or [] if isinstance(e, dict)]
        self.networks = {}  # address -> HiperSockets CHPID of its interface (None: not known)
        self.layer2 = {}
        for dev in self.vars.get("qeth_devices") or []:
            if isinstance(dev, dict) and dev.get("id") is not None:
                busid = _busid(str(dev["id"]).split(":", maxsplit=1)[0])
                if busid and dev.get("layer2") is not None:
                    self.layer2[busid] = bool(dev["layer2"])


def check(hostvars, hosts):
    """``(errors, warnings, pairs)``: errors and warnings are sentences naming the host and the field;
    pairs are the SMC peers with a common subnet (``client``, ``server``, ``address`` - the server's
    address in it, ``network``), the rendezvous connections verify.yml opens."""
    errors, warnings, pairs = [], [], []
    info = dict((h, _Host(h, hostvars)) for h in hosts)
    models = {}
    for name, host in info.items():
        cpc = host.vars.get("cpc")
        host.model, host.iqd = None, {}
        if isinstance(cpc, dict):
            # every host has its own copy of a CPC's model: one per distinct content; with it the
            # HiperSockets devices of the CPC by bus ID
            key = json.dumps(cpc, sort_keys=True, default=str)
            if key not in models:
                model = cpc_model.normalize_cpc(cpc)[0]
                models[key] = (model, dict((d["busid"], d) for d in cpc_model.iqd_devices(model)))
            host.model, host.iqd = models[key]
    # guest -> its KVM host (the MacVTap source's network is the guest NIC's network)
    guest_host, guest_macs = {}, {}
    for name, host in info.items():
        for guest in host.vars.get("kvm_guests") or []:
            if isinstance(guest, dict) and guest.get("name"):
                guest_host[guest["name"]] = name
                for tap in guest.get("macvtap") or []:
                    if isinstance(tap, dict) and tap.get("mac"):
                        guest_macs[(guest["name"], str(tap["mac"]).lower())] = _source_busid(tap.get("source"))
                    if isinstance(tap, dict) and tap.get("source"):
                        busid = _source_busid(tap["source"])
                        if busid and host.layer2.get(busid) is False:
                            errors.append(
                                "%s: kvm_guests %s macvtap source %s is the layer-3 qeth device %s; MacVTap needs "
                                "a layer-2 device (qeth_devices layer2: true)"
                                % (name, guest["name"], tap["source"], busid)
                            )
    seen = {}  # address -> [(host, where, network)]
    for name, host in info.items():
        for index, entry in enumerate(host.entries):
            busid = _busid(entry["device"]) if entry.get("device") else None
            if busid is None and entry.get("mac"):
                src = guest_macs.get((name, str(entry["mac"]).lower()))
                kvm = info.get(guest_host.get(name))
                network = kvm.iqd.get(src, {}).get("chpid") if src and kvm is not None else None
            else:
                network = host.iqd.get(busid, {}).get("chpid") if busid else None
            dev = host.iqd.get(busid) if busid else None
            for suffix, spec, vlan_id in _targets(entry):
                where = "%s: interfaces_config[%d]%s" % (name, index, suffix)
                mtu = spec.get("mtu")
                if dev and isinstance(mtu, int) and dev["frame_size"] in cpc_model.FRAME_SIZE_MTU:
                    limit = cpc_model.FRAME_SIZE_MTU[dev["frame_size"]]
                    if mtu > limit:
                        errors.append(
                            "%s.mtu: %d is above the MTU %d that the frame size %s of HiperSockets CHPID %s allows"
                            % (where, mtu, limit, dev["frame_size"], dev["chpid"])
                        )
                if vlan_id is not None and busid and host.layer2.get(busid) is False:
                    errors.append(
                        "%s: VLAN %s on qeth device %s, which qeth_devices configures as layer 3; VLANs need "
                        "layer2: true" % (where, vlan_id, busid)
                    )
                net = "%s/vlan%s" % (network, vlan_id) if network and vlan_id is not None else network
                for addr in _addresses(spec):
                    seen.setdefault(addr.ip, []).append((name, where, net))
                    host.networks.setdefault(addr, network)
    for addr, users in sorted(seen.items(), key=lambda kv: (kv[0].version, kv[0])):
        for i, (h1, w1, n1) in enumerate(users):
            for h2, w2, n2 in users[i + 1 :]:
                if n1 is None or n2 is None or n1 == n2:
                    errors.append("address %s is given twice: %s and %s" % (addr, w1, w2))
    _check_peers(info, errors, warnings, pairs)
    return errors, warnings, pairs


def _host_addresses(host):
    result = []
    for entry in host.entries:
        for _suffix, spec, _vlan in _targets(entry):
            result.extend(_addresses(spec))
    return result


def _member_pnets(model):
    """Per ISM VCHID (in the model's order), partition or guest name -> the PNET IDs of its native
    functions there: what ``_pair_pnet`` compares, read once per model."""
    result = []
    for vchid in model.get("ism") or []:
        ids = {}
        for func in vchid.get("functions") or []:
            if not func.get("pnet_id"):
                continue
            for member in set((func.get("partition"), func.get("guest"))):
                if member is not None:
                    ids.setdefault(member, set()).add(str(func["pnet_id"]).upper())
        result.append(ids)
    return result


def _pair_pnet(member_pnets, first, second):
    """The PNET ID of the native ISM functions two partitions or guests share on one VCHID (the PNET
    ID SMC-D v1 pairs their rendezvous interface with), None when they share none."""
    for ids in member_pnets:
        common = ids.get(first, set()) & ids.get(second, set())
        if common:
            return sorted(common)[0]
    return None


def _rendezvous(model, a, b, common, pnet):
    """Of the subnets two peers share, the one SMC-D v1 uses: on a HiperSockets CHPID whose PNET ID
    is the pair's ISM PNET ID (else the first)."""
    if pnet:
        chpid_pnet = dict(
            (chp.get("chpid"), str(chp.get("pnet_id") or "").upper()) for chp in model.get("hipersockets") or []
        )
        for x, y in common:
            if chpid_pnet.get(a.networks.get(x)) == pnet and chpid_pnet.get(b.networks.get(y)) == pnet:
                return x, y
    return common[0]


def _check_peers(info, errors, warnings, pairs):
    done = set()
    addresses = {}  # host -> its addresses, read once

    def host_addresses(host):
        if host.name not in addresses:
            addresses[host.name] = _host_addresses(host)
        return addresses[host.name]

    for name, host in sorted(info.items()):
        model = host.model
        if not model or id(model) in done:
            continue
        done.add(id(model))
        member_pnets = _member_pnets(model)
        by_partition = dict((p["name"], p["host"]) for p in model.get("partitions") or [] if p.get("host"))
        for group in model.get("smcd_peers") or []:
            members = [by_partition.get(n, n) for n in group]
            names = dict((by_partition.get(n, n), n) for n in group)
            for i, first in enumerate(members):
                for second in members[i + 1 :]:
                    a, b = info.get(first), info.get(second)
                    if a is None or b is None:
                        continue
                    addr_a, addr_b = host_addresses(a), host_addresses(b)
                    if not addr_a or not addr_b:
                        continue
                    common = [(x, y) for x in addr_a for y in addr_b if x.network == y.network]
                    if common:
                        x, y = _rendezvous(model, a, b, common, _pair_pnet(member_pnets, names[first], names[second]))
                        pairs.append(
                            {"client": first, "server": second, "address": str(y.ip), "network": str(y.network)}
                        )
                        continue
                    text = (
                        "smcd_peers %s and %s have no IP subnet in common (%s; %s): SMC-D v1 and SMC-R v1 need "
                        "one (the server declines another subnet, DIFFPREFIX)"
                        % (
                            first,
                            second,
                            ", ".join(str(x) for x in addr_a),
                            ", ".join(str(y) for y in addr_b),
                        )
                    )
                    if str(model.get("machine") or "").lower() in ISM_V1_ONLY:
                        errors.append(text + "; a %s has no ISMv2, so they would fall back to TCP" % model["machine"])
                    else:
                        warnings.append(text + "; only SMC v2 can connect them")
