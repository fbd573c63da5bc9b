# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pre-flight judges each signature of pair facts once (plugins/plugin_utils/smc_preflight/signature.py,
predict.py): the work is counted (calls of ``predict_pair``), never timed, and the rows are those
of judging every pair by itself."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import importlib
import itertools

import pytest

from ansible_collections.s390x.network.plugins.plugin_utils import smc_preflight as pf

PREDICT = importlib.import_module("ansible_collections.s390x.network.plugins.plugin_utils.smc_preflight.predict")

NEW = "6.12.0-55.el10.s390x"
OLD = "4.18.0-240.el8.s390x"


def lpar(index, **changes):
    """An LPAR on CPC CPCA with a non-native ISM function of its own FID (and PCI name with UID
    checking) on VCHID 7C8 and a HiperSockets interface in 10.1.0.0/16."""
    facts = {
        "cpc": "CPCA",
        "machine": "z16",
        "partition": "LP%02d" % index,
        "kernel": NEW,
        "smc": True,
        "ism": [
            {
                "name": "%04x:00:00.0" % (0x1000 + index),
                "fid": 0x1000 + index,
                "vchid": 0x7C8,
                "pnet_id": "",
                "v2": True,
            }
        ],
        "roce": [],
        "pnet_table": [],
        "rendezvous": {"interface": "enc8200", "address": "10.1.%d.%d/16" % (index // 200, index % 200 + 1)},
        "netdev_pnet_ids": [],
        "seid": {"enabled": True},
        "ueids": [],
        "ipsec": False,
    }
    facts.update(copy.deepcopy(changes))
    return facts


class Counter(object):
    def __init__(self, monkeypatch):
        self.calls = 0
        self.original = PREDICT.predict_pair
        monkeypatch.setattr(PREDICT, "predict_pair", self)

    def __call__(self, client, server):
        self.calls += 1
        return self.original(client, server)


def every_pair(names):
    return [{"client": a, "server": b} for a, b in itertools.permutations(names, 2)]


def direct(facts, pairs):
    """Every pair judged by itself, as the pre-flight did before it knew signatures."""
    normalised = dict((name, pf.normalize_facts(name, value)) for name, value in facts.items())
    return [PREDICT.predict_pair(normalised[p["client"]], normalised[p["server"]]) for p in pairs]


@pytest.mark.parametrize("size", [3, 12, 40])
def test_a_peer_group_of_alike_hosts_is_judged_once_whatever_its_size(monkeypatch, size):
    facts = dict(("lp%02d" % i, lpar(i)) for i in range(size))
    counter = Counter(monkeypatch)
    rows = pf.predict(facts, every_pair(sorted(facts)))
    assert len(rows) == size * (size - 1)
    assert counter.calls == 1
    assert [(r["client"], r["server"]) for r in rows] == [(p["client"], p["server"]) for p in every_pair(sorted(facts))]
    assert set(r["prediction"] for r in rows) == {pf.SMCD_V2}


def test_hosts_that_all_differ_are_judged_once_per_pair(monkeypatch):
    # each host its own kernel level (unknown to the level table: each pair has its own questions)
    facts = dict(("lp%02d" % i, lpar(i, kernel="5.%d.0-custom" % i)) for i in range(8))
    counter = Counter(monkeypatch)
    rows = pf.predict(facts, every_pair(sorted(facts)))
    assert len(rows) == 56
    assert counter.calls == 56


def test_names_fids_and_addresses_of_the_pair_are_in_its_own_row(monkeypatch):
    # kernels without SMC-D v2: the rows name the hosts and their ISM devices (no PNET ID for v1)
    facts = dict(("lp%02d" % i, lpar(i, kernel=OLD)) for i in range(4))
    counter = Counter(monkeypatch)
    rows = pf.predict(facts, every_pair(sorted(facts)))
    assert counter.calls == 1
    assert rows == direct(facts, every_pair(sorted(facts)))
    for row in rows:
        others = set(facts) - {row["client"], row["server"]}
        text = row["why"] + row["fix"]
        assert row["client"] in text or row["server"] in text
        assert not any(name in text for name in others)
        assert "\x00" not in text and "0xf00d" not in text


def _variants():
    """Hosts that differ in what the judgement reads: PNET IDs (hardware and software table),
    kernel levels, devices (ISM, RoCE with names the software table refers to), addresses (other
    subnets, IPv6, link-local), VLANs, SEID and UEIDs, hosts without SMC, unknown facts."""
    roce = [{"name": "mlx5_0", "fid": 0x300, "port": 1, "pnet_id": "", "v2": True, "ipv4": True, "net_device": "ens1"}]
    return {
        "base-a": lpar(1),
        "base-b": lpar(2),
        "other-subnet": lpar(3, rendezvous={"interface": "enc8200", "address": "10.2.0.1/16"}),
        "v6": lpar(4, rendezvous={"interface": "enc8200", "addresses": ["fd00::4/64", "fe80::4/64"]}),
        "v6-peer": lpar(5, rendezvous={"interface": "enc8200", "addresses": ["fd00::5/64"]}),
        "old-kernel": lpar(6, kernel=OLD),
        "old-native": lpar(
            7,
            kernel=OLD,
            ism=[{"name": None, "fid": 0x1007, "vchid": 0x7C8, "pnet_id": "NETA", "v2": True}],
            rendezvous={"interface": "enc8200", "address": "10.1.0.7/16", "pnet_id": "NETA"},
            netdev_pnet_ids=["NETA"],
        ),
        "old-native-b": lpar(
            8,
            kernel=OLD,
            ism=[{"name": None, "fid": 0x1008, "vchid": 0x7C8, "pnet_id": "NETA", "v2": True}],
            rendezvous={"interface": "enc8200", "address": "10.1.0.8/16", "pnet_id": "NETA"},
            netdev_pnet_ids=["NETA"],
        ),
        "other-vchid": lpar(9, ism=[{"name": None, "fid": 0x1009, "vchid": 0x7C9, "pnet_id": "", "v2": True}]),
        "roce-table": lpar(
            10,
            ism=[],
            roce=roce,
            pnet_table=[
                {"pnet_id": "NETR", "ib_device": "mlx5_0", "port": 1},
                {"pnet_id": "NETR", "interface": "ens1"},
            ],
            ueids=["UEID-A"],
            rendezvous={"interface": "ens1", "address": "10.1.0.10/16"},
        ),
        "roce-table-b": lpar(
            11,
            ism=[],
            roce=roce,
            pnet_table=[
                {"pnet_id": "NETR", "ib_device": "mlx5_0", "port": 1},
                {"pnet_id": "NETR", "interface": "ens1"},
            ],
            ueids=["UEID-A"],
            rendezvous={"interface": "ens1", "address": "10.1.0.11/16"},
        ),
        "vlan": lpar(12, rendezvous={"interface": "enc8200.5", "address": "10.1.0.12/16"}),
        "no-smc": lpar(13, smc=False),
        "no-seid": lpar(14, seid={"enabled": False}, ueids=["UEID-B"]),
        "unknown": lpar(15, kernel=None, ism=None, pnet_table=None, rendezvous={"interface": None}, seid={}),
        "other-cpc": lpar(16, cpc="CPCB"),
    }


def test_rows_with_signatures_are_those_of_every_pair_judged_alone(monkeypatch):
    facts = _variants()
    pairs = every_pair(sorted(facts))
    expected = direct(facts, pairs)
    counter = Counter(monkeypatch)
    rows = pf.predict(facts, pairs)
    assert rows == expected
    assert pf.table(rows) == pf.table(expected)
    assert counter.calls < len(pairs)
    # the variants give every kind of outcome, so the comparison covers each
    assert set(r["prediction"] for r in rows) >= {pf.SMCD_V2, pf.SMCD_V1, pf.TCP, pf.UNKNOWN}


def test_the_generated_cpc_gives_the_rows_of_every_pair_judged_alone(monkeypatch, z17_inventory):
    inventory = z17_inventory.generate(20, 12)
    hostvars = inventory["hostvars"]
    hostvars["lp02"]["smc_preflight_interface"] = {"interface": "enc8200", "address": "10.99.0.1/24"}
    hostvars["lp03"]["smc_preflight_facts"] = {"kernel": OLD}
    facts = dict((h, pf.inventory_host_facts(h, v)) for h, v in hostvars.items())
    pairs = z17_inventory.all_pairs(inventory)
    expected = direct(facts, pairs)
    counter = Counter(monkeypatch)
    assert pf.predict(facts, pairs) == expected
    assert counter.calls < len(pairs) // 10


@pytest.mark.parametrize(
    "name",
    ["lp\x0001", "host-0xf00d000000000001"],
)
def test_a_host_whose_text_could_be_taken_for_a_token_is_judged_alone(monkeypatch, name):
    facts = {"lp01": lpar(1, kernel=OLD), "lp02": lpar(2, kernel=OLD), name: lpar(3, kernel=OLD)}
    pairs = every_pair(sorted(facts))
    expected = direct(facts, pairs)
    counter = Counter(monkeypatch)
    assert pf.predict(facts, pairs) == expected
    # lp01 and lp02 share one signature each way; the four pairs with the odd host are judged alone
    assert counter.calls == 1 + 4


def test_a_pair_sharing_an_identity_value_is_judged_alone(monkeypatch):
    # the same FID on both hosts (two CPCs, or facts typed by hand): kept apart from the others
    facts = {"a": lpar(1, kernel=OLD), "b": lpar(1, kernel=OLD, partition="LP02"), "c": lpar(3, kernel=OLD)}
    pairs = every_pair(sorted(facts))
    expected = direct(facts, pairs)
    counter = Counter(monkeypatch)
    assert pf.predict(facts, pairs) == expected
    assert counter.calls == 2 + 1
