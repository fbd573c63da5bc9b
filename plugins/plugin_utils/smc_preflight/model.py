# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The SMC pre-flight's facts of one host from the ``cpc`` model: its ISM and RoCE functions, the
interfaces of its qeth devices with their CHPIDs' PNET IDs, or, for a KVM guest, the functions the
model gives it and its virtio interface."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.s390x.network.plugins.module_utils.iocp.cpc_model import (
    SMCR_TYPES,
    SMCR_V2_TYPES,
    channel_devnos,
)
from ansible_collections.s390x.network.plugins.module_utils.qeth.ids import QethIdError, parse_ccw_id
from ansible_collections.s390x.network.plugins.plugin_utils.cpc_host import CpcIndex, host_view
from ansible_collections.s390x.network.plugins.plugin_utils.smc_preflight.common import MACHINES_ISMV2
from ansible_collections.s390x.network.plugins.plugin_utils.smc_preflight.facts import parse_id


def _qeth_devnos(qeth_devices):
    """Device numbers (``8200``) of the read devices in ``qeth_devices`` that are to be online."""
    result = []
    for item in qeth_devices or []:
        if not isinstance(item, dict) or item.get("online") is False or not isinstance(item.get("id"), str):
            continue
        try:
            cssid, ssid, devno = parse_ccw_id(re.split(r"[:,]", item["id"].strip())[0])
        except QethIdError:
            continue
        result.append((cssid, ssid, devno))
    return result


def _osa_devices(model, partition):
    for chp in model.get("osa") or []:
        if partition in chp["partitions"]:
            for devno, dummy in channel_devnos(chp):
                yield devno, chp


def qeth_ifname(cssid, ssid, devno):
    """The name udev gives a qeth device's interface (``enc<devno>`` in subchannel set 0.0), else None."""
    return "enc%x" % devno if (cssid, ssid) == (0, 0) else None


def _partition_interfaces(index, partition, qeth_devices):
    """Interfaces of a partition's qeth devices: ``[{interface, pnet_id, kind, chpid}]``, the
    HiperSockets ones first; the name is the one udev gives a qeth device (``enc<devno>``)."""
    model = index.model
    iqd = {}
    for dev in index.iqd_by_partition.get(partition, []):
        iqd[int(dev["devno"], 16)] = dev["chpid"]
    iqd_pnet = dict((c["chpid"], c["pnet_id"] or "") for c in model.get("hipersockets") or [])
    osa = dict((devno, chp) for devno, chp in _osa_devices(model, partition))
    result = []
    for cssid, ssid, devno in _qeth_devnos(qeth_devices):
        name = qeth_ifname(cssid, ssid, devno)
        if devno in iqd:
            result.append(
                {
                    "interface": name,
                    "pnet_id": iqd_pnet.get(iqd[devno], ""),
                    "kind": "hipersockets",
                    "chpid": iqd[devno],
                }
            )
        elif devno in osa:
            result.append(
                {"interface": name, "pnet_id": osa[devno]["pnet_id"] or "", "kind": "osa", "chpid": osa[devno]["chpid"]}
            )
    result.sort(key=lambda i: 0 if i["kind"] == "hipersockets" else 1)
    return result


def _rdma_ports(functions):
    """The RDMA ports of the view's RoCE Express and Network Express functions (a Network Express
    function has no card port: port 1); ``v2`` where the RNIC has RoCE v2 GIDs (``SMCR_V2_TYPES``)."""
    return [
        {
            "fid": f["fid"],
            "port": f["port"] or 1,
            "pnet_id": f["pnet_id"] or "",
            "v2": f["type"].upper() in SMCR_V2_TYPES,
        }
        for f in functions
        if f["type"].upper() in SMCR_TYPES
    ]


def model_facts(host, cpc, facts, inputs, indexes=None):
    """Facts from the cpc model (cpc_host view) into ``facts``; returns the partition's interfaces.

    ``inputs`` holds what the roles say of the host (``role_input``): ``partition``
    (``smc_ism_partition``), ``ism_fids`` (``smc_ism_fids``), ``qeth_devices``, ``pnet_config``
    (``smc_pnet_config``) and ``guest`` (a member of ``kvm_guests``). ``indexes`` keeps the models
    read so far (``CpcIndex.find``), so that each model is read once for every host."""
    if not isinstance(cpc, dict):
        return []
    index = CpcIndex.find(cpc, indexes if indexes is not None else [])
    model = index.model
    if index.errors:
        # the model's own messages, each naming the function or keyword it refuses, on one line
        messages = "; ".join(" ".join(str(e).split()) for e in index.errors)
        facts["sources"].append("cpc model of %s not used: %s" % (host, messages))
        return []
    if inputs["partition"] or host in index.host_partitions:
        view = host_view(cpc, host, partition=inputs["partition"] or None, index=index)
        errors = view["errors"]
    else:
        # no partition: what host_view would say of it, without the every-guest map
        view, errors = None, index.owner_errors(None)
    if errors:
        facts["sources"].append("cpc view of %s: %s" % (host, "; ".join(errors)))
        return []
    part = view["partition"] if view else None
    machine = model.get("machine")
    v2 = True if machine in MACHINES_ISMV2 else None
    if part:
        _partition_facts(index, part, view, facts, inputs, v2)
        interfaces = _partition_interfaces(index, part, inputs["qeth_devices"])
        facts["netdev_pnet_ids"] = sorted(
            set(
                [i["pnet_id"] for i in interfaces if i["pnet_id"]]
                + [r["pnet_id"] for r in facts["roce"] if r["pnet_id"]]
            )
        )
        if interfaces:
            first = interfaces[0]
            facts["rendezvous"] = {"interface": first["interface"], "pnet_id": first["pnet_id"], "kind": first["kind"]}
        facts["sources"].append("cpc %s partition %s" % (model["name"], part))
        return interfaces
    if host in index.guest_items or inputs["guest"]:
        # the model's cpc.ism[].functions[].guest is the one place that gives a guest an ISM function
        # (cpc_host), so a guest it gives none has none, and no RoCE function either
        isms = [
            {"fid": f["fid"], "vchid": f["vchid"], "pnet_id": f["pnet_id"] or "", "v2": v2}
            for f in index.guest_functions(host)
        ]
        facts.update(cpc=model["name"], machine=machine, ism=isms, roce=[], netdev_pnet_ids=[])
        # a KVM guest's virtio-net (MacVTap) interface has no PNET ID from the IOCDS
        names = sorted(set(e.get("interface") for e in inputs["pnet_config"] or [] if e.get("interface")))
        facts["rendezvous"] = {"interface": names[0] if len(names) == 1 else None, "pnet_id": "", "kind": "virtio"}
        facts["sources"].append("cpc %s guest %s%s" % (model["name"], host, "" if isms else " (no ISM function)"))
    return []


def _partition_facts(index, part, view, facts, inputs, v2):
    """A partition's ISM functions (its own; with ``smc_ism_fids`` those) and RDMA ports."""
    uid_checking = part in (index.model.get("uid_checking") or [])
    fids = inputs["ism_fids"]
    wanted = None
    if isinstance(fids, list):
        wanted = set(parse_id(f, "smc_ism_fids") for f in fids)
    isms = []
    for func in view["functions"]:
        # the host's own functions; those given to guests are bound to vfio-pci (smc_ism_fids wins)
        own = func["fid"] in wanted if wanted is not None else not func["guest"]
        if func["type"] != "ism" or not own:
            continue
        isms.append(
            {
                "name": "%04x:00:00.0" % func["uid"] if uid_checking and func["uid"] else None,
                "fid": func["fid"],
                "vchid": func["vchid"],
                "pnet_id": func["pnet_id"] or "",
                "v2": v2,
            }
        )
    facts.update(cpc=index.model["name"], machine=index.model.get("machine"), partition=part, ism=isms)
    facts["roce"] = _rdma_ports(view["functions"])
