# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A generated inventory of one IBM z17 CPC at scale, for benchmarks and unit tests (no host needed).

``generate(partitions, guests)`` builds a z17 CPC ``Z17A`` with up to 85 LPARs and KVM guests on
every fourth LPAR. The model holds one channel subsystem (``css``) and at most 15 partitions
(MIF IDs 1-F), so a CPC of 85 LPARs is six models, ``css`` 0 to 5, that share the CPC name; each
host's ``cpc`` is the model of its CSS. Per CSS:

* HiperSockets CHPID F0 (40K frames, PNET ID ``HSNET``): device 0.0.8200 is every LPAR's
  rendezvous interface ``enc8200``, in the subnet 10.<50+css>.0.0/16; a guest's MacVTap NIC has an
  address in the same subnet;
* one ISM VCHID (``7C0`` + css; IOCP allows 255 VFs on a VCHID, so a CPC of this size needs
  several): native with the PNET ID ``HSNET`` in even CSSs (SMC-D v1 and v2), non-native in odd
  ones (SMC-D v2 only); an own function per LPAR and one per guest (``guest``), UID = FID, UID
  checking on every partition;
* one Network Express port in hybrid mode (NETH, PCHID ``300`` + css, PNET ID ``NXNET``) with a VF
  per LPAR, so that LPARs of different CSSs (different VCHIDs) can use SMC-R v2 where they share a
  UEID (``smc_ueids`` in CSSs 0 to 3);
* ``smcd_peers``: every partition and guest of the CSS.

``generate`` returns ``{"models": [cpc], "hostvars": {host: variables}, "groups": {group: [hosts]}}``
with the variables the collection reads (``cpc``, ``group_names``, ``qeth_devices``,
``interfaces_config``, ``kvm_guests``, ``network_express_functions``, ``smc_*``);
``write_inventory(inventory, directory)`` writes it as an Ansible inventory directory.
"""

from __future__ import absolute_import, division, print_function

import os

import yaml

CPC_NAME = "Z17A"
PARTITIONS_PER_CSS = 15
MAX_PARTITIONS = 85
KVM_EVERY = 4
UEID = "S390X-NETWORK-BENCH-UEID"


def _css_of(index):
    return index // PARTITIONS_PER_CSS


def partition_name(index):
    return "LP%02d" % (index + 1)


def lpar_host(index):
    return "lp%02d" % (index + 1)


def guest_host(index):
    return "g%03d" % (index + 1)


def _guest_mac(index):
    return "52:54:00:%02x:%02x:%02x" % ((index >> 16) & 0xFF, (index >> 8) & 0xFF, index & 0xFF)


def _address(css, number):
    return "10.%d.%d.%d/16" % (50 + css, number // 250, number % 250 + 1)


def _model(css):
    native = css % 2 == 0
    return {
        "name": CPC_NAME,
        "machine": "z17",
        "css": css,
        "uid_checking": True,
        "partitions": [],
        "hipersockets": [
            {
                "chpid": "F0",
                "frame_size": "40K",
                "pnet_id": "HSNET",
                "control_unit": "F000",
                "devices": {"first": "8200", "count": 3},
                "partitions": [],
            }
        ],
        "ism": [{"vchid": 0x7C0 + css, "pnet_id": "HSNET" if native else None, "functions": []}],
        "network_express": [
            {"pchid": 0x300 + css, "type": "NETH", "card": "NX%02d" % css, "pnet_id": "NXNET", "functions": []}
        ],
        "smcd_peers": [[]],
    }


def _guest_placement(partitions, guests):
    """KVM host index per guest: every ``KVM_EVERY``-th LPAR hosts guests, round robin."""
    kvm = list(range(0, partitions, KVM_EVERY))
    return [kvm[g % len(kvm)] for g in range(guests)] if guests else []


def generate(partitions=MAX_PARTITIONS, guests=500):
    """The inventory of a z17 with ``partitions`` LPARs (1-85) and ``guests`` KVM guests."""
    if not 1 <= partitions <= MAX_PARTITIONS:
        raise ValueError("partitions: %r is outside 1-%d" % (partitions, MAX_PARTITIONS))
    if guests < 0:
        raise ValueError("guests: %r is negative" % (guests,))
    models = [_model(css) for css in range(_css_of(partitions - 1) + 1)]
    hostvars, groups = {}, {"lpars": [], "kvm_hosts": [], "kvm_guests": [], "smc_hosts": []}
    placement = _guest_placement(partitions, guests)
    guests_of = {}
    for g, host_index in enumerate(placement):
        guests_of.setdefault(host_index, []).append(g)
    for index in range(partitions):
        css = _css_of(index)
        model, name, host = models[css], partition_name(index), lpar_host(index)
        fid = 0x1000 + index
        model["partitions"].append({"name": name, "mif_id": index % PARTITIONS_PER_CSS + 1, "host": host})
        model["hipersockets"][0]["partitions"].append(name)
        vchid = model["ism"][0]
        vf = len(vchid["functions"]) + 1
        vchid["functions"].append({"fid": fid, "uid": fid, "vf": vf, "partition": name})
        port = model["network_express"][0]
        nfid = 0x3000 + index
        port["functions"].append({"fid": nfid, "uid": nfid, "vf": len(port["functions"]) + 1, "partition": name})
        model["smcd_peers"][0].append(name)
        hvars = {
            "cpc": model,
            "group_names": ["lpars", "smc_hosts"],
            "qeth_devices": [{"id": "0.0.8200", "layer2": True, "buffer_count": 128}],
            "network_express_functions": [{"fid": nfid, "driver": "mlx5_core", "expected_type": "neth"}],
            "interfaces_config": [
                {"device": "8200", "addresses": [_address(css, index % PARTITIONS_PER_CSS)], "mtu": 32768}
            ],
        }
        if css < 4:
            hvars["smc_ueids"] = [UEID]
        groups["lpars"].append(host)
        groups["smc_hosts"].append(host)
        kvm_guests = []
        for g in guests_of.get(index, []):
            gfid = 0x4000 + g
            gname = guest_host(g)
            vf = len(vchid["functions"]) + 1
            vchid["functions"].append({"fid": gfid, "uid": gfid, "vf": vf, "partition": name, "guest": gname})
            model["smcd_peers"][0].append(gname)
            kvm_guests.append({"name": gname, "macvtap": [{"source": "enc8200", "mac": _guest_mac(g)}]})
            gvars = {
                "cpc": model,
                "group_names": ["kvm_guests", "smc_hosts"],
                "interfaces_config": [{"mac": _guest_mac(g), "addresses": [_address(css, PARTITIONS_PER_CSS + g)]}],
            }
            if vchid["pnet_id"]:
                # the guest's virtio NIC has no PNET ID of its own: the software table gives it the ISM one
                gvars["smc_pnet_config"] = [{"pnet_id": vchid["pnet_id"], "interface": "eth0"}]
            if css < 4:
                gvars["smc_ueids"] = [UEID]
            hostvars[gname] = gvars
            groups["kvm_guests"].append(gname)
            groups["smc_hosts"].append(gname)
        if kvm_guests:
            hvars["kvm_guests"] = kvm_guests
            hvars["group_names"].append("kvm_hosts")
            groups["kvm_hosts"].append(host)
        hostvars[host] = hvars
    for host, hvars in hostvars.items():
        hvars["group_names"] = sorted(hvars["group_names"])
    return {"models": models, "hostvars": hostvars, "groups": groups}


def all_pairs(inventory):
    """Every ordered pair of the inventory's ``smc_hosts``: ``[{client, server}]``."""
    hosts = inventory["groups"]["smc_hosts"]
    return [{"client": a, "server": b} for a in hosts for b in hosts if a != b]


def write_inventory(inventory, directory):
    """Write ``inventory`` as ``hosts.yml``, ``group_vars/css<N>.yml`` (the CSS's ``cpc``) and
    ``host_vars/<host>.yml`` under ``directory``."""
    os.makedirs(os.path.join(directory, "group_vars"), exist_ok=True)
    os.makedirs(os.path.join(directory, "host_vars"), exist_ok=True)
    children = dict((group, {"hosts": dict((h, None) for h in hosts)}) for group, hosts in inventory["groups"].items())
    css_hosts = {}
    for host, hvars in inventory["hostvars"].items():
        css_hosts.setdefault(hvars["cpc"]["css"], []).append(host)
    for css, hosts in sorted(css_hosts.items()):
        children["css%d" % css] = {"hosts": dict((h, None) for h in sorted(hosts))}
        with open(os.path.join(directory, "group_vars", "css%d.yml" % css), "w") as handle:
            yaml.safe_dump({"cpc": inventory["models"][css]}, handle, default_flow_style=False, sort_keys=False)
    with open(os.path.join(directory, "hosts.yml"), "w") as handle:
        yaml.safe_dump({"all": {"children": children}}, handle, default_flow_style=False, sort_keys=False)
    for host, hvars in inventory["hostvars"].items():
        own = dict((k, v) for k, v in hvars.items() if k not in ("cpc", "group_names"))
        with open(os.path.join(directory, "host_vars", "%s.yml" % host), "w") as handle:
            yaml.safe_dump(own, handle, default_flow_style=False, sort_keys=False)
