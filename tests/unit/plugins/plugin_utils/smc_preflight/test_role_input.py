# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pre-flight's input from the inventory at CPC scale (plugins/plugin_utils/smc_preflight/role_input.py,
model.py): each cpc model is read once however many hosts carry it, and the pairs of every CSS
model are formed without walking a list per pair. Work is counted, never timed."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.s390x.network.plugins.plugin_utils import cpc_host
from ansible_collections.s390x.network.plugins.plugin_utils.smc_preflight import role_input


@pytest.mark.parametrize("partitions, guests", [(15, 10), (15, 90), (30, 120)])
def test_the_facts_of_every_host_read_each_model_once(count_calls, z17_inventory, partitions, guests):
    inventory = z17_inventory.generate(partitions, guests)
    normalize = count_calls(cpc_host, "normalize_cpc")
    indexes = []
    facts = dict(
        (host, role_input.inventory_host_facts(host, hvars, indexes=indexes))
        for host, hvars in inventory["hostvars"].items()
    )
    assert normalize.count == len(inventory["models"])
    assert all(f["cpc"] == "Z17A" for f in facts.values())
    guest = facts["g001"]
    assert guest["ism"] and guest["rendezvous"]["kind"] == "virtio"


@pytest.mark.parametrize("partitions, guests", [(15, 10), (30, 60), (45, 150)])
def test_inventory_pairs_reads_each_model_once_and_looks_up_no_list(
    count_calls, counting_hosts, z17_inventory, partitions, guests
):
    inventory = z17_inventory.generate(partitions, guests)
    hosts = counting_hosts(sorted(inventory["hostvars"]))
    normalize = count_calls(cpc_host, "normalize_cpc")
    pairs, unresolved = role_input.inventory_pairs(inventory["hostvars"], hosts)
    assert normalize.count == len(inventory["models"])
    assert hosts.lookups == 0
    assert unresolved == []
    # every ordered pair of each CSS model's peer group (its partitions and their guests)
    expected = 0
    for model in inventory["models"]:
        size = len(model["smcd_peers"][0])
        expected += size * (size - 1)
    assert len(pairs) == expected
    assert len(set((p["client"], p["server"]) for p in pairs)) == expected


def test_models_of_one_cpc_name_in_different_css_each_give_their_peer_groups(z17_inventory):
    inventory = z17_inventory.generate(20, 0)
    pairs, dummy = role_input.inventory_pairs(inventory["hostvars"], sorted(inventory["hostvars"]))
    css = dict((h, v["cpc"]["css"]) for h, v in inventory["hostvars"].items())
    assert len(pairs) == 15 * 14 + 5 * 4
    assert all(css[p["client"]] == css[p["server"]] for p in pairs)
