# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The inventory's interface check at CPC scale (plugins/plugin_utils/ip_inventory_check.py): a host's
addresses are read once and a model's native ISM PNET IDs once, however many peer pairs there
are. Work is counted, never timed."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.s390x.network.plugins.plugin_utils import ip_inventory_check


@pytest.mark.parametrize("partitions, guests", [(15, 10), (15, 60), (30, 150)])
def test_the_peer_pairs_read_each_host_and_model_once(count_calls, z17_inventory, partitions, guests):
    inventory = z17_inventory.generate(partitions, guests)
    hosts = sorted(inventory["hostvars"])
    addresses = count_calls(ip_inventory_check, "_host_addresses")
    pnets = count_calls(ip_inventory_check, "_member_pnets")
    errors, warnings, pairs = ip_inventory_check.check(inventory["hostvars"], hosts)
    assert errors == [] and warnings == []
    groups = [len(m["smcd_peers"][0]) for m in inventory["models"]]
    assert len(pairs) == sum(n * (n - 1) // 2 for n in groups)
    assert addresses.count <= len(hosts)
    assert pnets.count == len(inventory["models"])


def test_the_rendezvous_of_a_native_pair_is_on_the_chpid_of_its_pnet_id(z17_inventory):
    # CSS 0 has a native ISM VCHID (HSNET, the PNET ID of CHPID F0): its pairs use the F0 subnet
    inventory = z17_inventory.generate(15, 10)
    hosts = sorted(inventory["hostvars"])
    dummy, dummy, pairs = ip_inventory_check.check(inventory["hostvars"], hosts)
    pair = [p for p in pairs if p["client"] == "lp01" and p["server"] == "lp02"]
    assert pair == [{"client": "lp01", "server": "lp02", "address": "10.50.0.2", "network": "10.50.0.0/16"}]
