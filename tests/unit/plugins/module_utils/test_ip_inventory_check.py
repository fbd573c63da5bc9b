# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The inventory-wide interface checks (plugins/plugin_utils/ip_inventory_check.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

from ansible_collections.s390x.network.plugins.plugin_utils import ip_inventory_check as chk

CPC = {
    "name": "ZLAB",
    "machine": "z16",
    "partitions": [{"name": "LPARA", "mif_id": 1, "host": "lpar-a"}, {"name": "LPARB", "mif_id": 2, "host": "lpar-b"}],
    "hipersockets": [
        {
            "chpid": "F0",
            "frame_size": "40K",
            "control_unit": "F000",
            "devices": {"first": "8200", "count": 16},
            "partitions": ["LPARA", "LPARB"],
        },
    ],
    "ism": [
        {
            "vchid": "7C8",
            "functions": [
                {"fid": 0x605, "uid": 0x605, "vf": 1, "partition": "LPARA", "guest": "g1"},
                {"fid": 0x606, "uid": 0x606, "vf": 2, "partition": "LPARB"},
            ],
        }
    ],
    "smcd_peers": [["g1", "LPARB"]],
}


def inventory(**changes):
    hv = {
        "lpar-a": {
            "cpc": CPC,
            "qeth_devices": [{"id": "8200", "layer2": True}],
            "kvm_guests": [{"name": "g1", "macvtap": [{"source": "enc8200", "mac": "12:34:56:78:9a:bc"}]}],
        },
        "lpar-b": {
            "cpc": CPC,
            "qeth_devices": [{"id": "8200", "layer2": True}],
            "interfaces_config": [{"device": "8200", "addresses": ["10.50.0.11/24"], "mtu": 32768}],
        },
        "g1": {"cpc": CPC, "interfaces_config": [{"mac": "12:34:56:78:9a:bc", "addresses": ["10.50.0.12/24"]}]},
    }
    hv = copy.deepcopy(hv)
    for host, values in changes.items():
        hv[host.replace("_", "-")].update(values)
    return chk.check(hv, list(hv))


def test_the_lab_inventory_is_clean_and_names_its_rendezvous_pair():
    errors, warnings, pairs = inventory()
    assert (errors, warnings) == ([], [])
    assert pairs == [{"client": "g1", "server": "lpar-b", "address": "10.50.0.11", "network": "10.50.0.0/24"}]


def test_an_mtu_above_the_frame_size_names_both():
    errors, _w, _p = inventory(lpar_b={"interfaces_config": [{"device": "0.0.8200", "mtu": 40000}]})
    assert errors == [
        "lpar-b: interfaces_config[0].mtu: 40000 is above the MTU 32768 that the frame size 40K of HiperSockets "
        "CHPID F0 allows"
    ]


def test_a_vlan_on_a_layer3_device():
    errors, _w, _p = inventory(
        lpar_b={
            "qeth_devices": [{"id": "8200", "layer2": False}],
            "interfaces_config": [{"device": "8200", "vlans": [{"id": 7}]}],
        }
    )
    assert errors == [
        "lpar-b: interfaces_config[0].vlans[0]: VLAN 7 on qeth device 0.0.8200, which qeth_devices configures as "
        "layer 3; VLANs need layer2: true"
    ]


def test_one_address_on_two_hosts_of_one_chpid():
    errors, _w, _p = inventory(g1={"interfaces_config": [{"mac": "12:34:56:78:9a:bc", "addresses": ["10.50.0.11/24"]}]})
    assert errors == ["address 10.50.0.11 is given twice: lpar-b: interfaces_config[0] and g1: interfaces_config[0]"]


def test_a_macvtap_source_on_layer3():
    errors, _w, _p = inventory(lpar_a={"qeth_devices": [{"id": "8200", "layer2": False}]})
    assert errors == [
        "lpar-a: kvm_guests g1 macvtap source enc8200 is the layer-3 qeth device 0.0.8200; MacVTap needs a layer-2 "
        "device (qeth_devices layer2: true)"
    ]


def test_smc_peers_in_two_subnets_warn_on_z16_and_fail_on_z14():
    two = {"interfaces_config": [{"mac": "12:34:56:78:9a:bc", "addresses": ["10.51.0.12/24"]}]}
    errors, warnings, pairs = inventory(g1=two)
    assert errors == [] and pairs == []
    assert warnings == [
        "smcd_peers g1 and lpar-b have no IP subnet in common (10.51.0.12/24; 10.50.0.11/24): SMC-D v1 and SMC-R v1 "
        "need one (the server declines another subnet, DIFFPREFIX); only SMC v2 can connect them"
    ]
    z14 = dict(CPC, machine="z14")
    errors, warnings, _p = inventory(g1=dict(two, cpc=z14), lpar_a={"cpc": z14}, lpar_b={"cpc": z14})
    assert len(errors) == 1 and errors[0].endswith("a z14 has no ISMv2, so they would fall back to TCP")
    assert warnings == []


def test_a_pnet_paired_smcd_v1_pair_is_checked_on_its_pnet_network_not_the_first():
    """SMC-D v1 pairs the ISM function with the interface of the same PNET ID: the rendezvous TCP
    connection verify.yml opens must run over that HiperSockets network, not the first shared one."""
    cpc = copy.deepcopy(CPC)
    cpc["hipersockets"][0]["pnet_id"] = "NETX"
    cpc["hipersockets"].append(
        {
            "chpid": "F1",
            "frame_size": "40K",
            "control_unit": "F100",
            "devices": {"first": "8300", "count": 16},
            "partitions": ["LPARA", "LPARB"],
            "pnet_id": "NETD",
        }
    )
    for func in cpc["ism"][0]["functions"]:
        func["pnet_id"] = "NETD"
    errors, warnings, pairs = inventory(
        lpar_a={
            "cpc": cpc,
            "qeth_devices": [{"id": "8200", "layer2": True}, {"id": "8300", "layer2": True}],
            "kvm_guests": [
                {
                    "name": "g1",
                    "macvtap": [
                        {"source": "enc8200", "mac": "12:34:56:78:9a:bc"},
                        {"source": "enc8300", "mac": "12:34:56:78:9a:bd"},
                    ],
                }
            ],
        },
        lpar_b={
            "cpc": cpc,
            "qeth_devices": [{"id": "8200", "layer2": True}, {"id": "8300", "layer2": True}],
            "interfaces_config": [
                {"device": "8200", "addresses": ["10.50.0.11/24"]},
                {"device": "8300", "addresses": ["10.60.0.11/24"]},
            ],
        },
        g1={
            "cpc": cpc,
            "interfaces_config": [
                {"mac": "12:34:56:78:9a:bc", "addresses": ["10.50.0.12/24"]},
                {"mac": "12:34:56:78:9a:bd", "addresses": ["10.60.0.12/24"]},
            ],
        },
    )
    assert errors == [], errors
    assert pairs == [{"client": "g1", "server": "lpar-b", "address": "10.60.0.11", "network": "10.60.0.0/24"}]
