# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""verify.yml's live SMC plan and comparison at CPC scale (plugins/plugin_utils/smc_live_table.py): no
walk over the host list per pair, each host's addresses read once, each client's results and
each listener's connections read once for all its pairs. Work is counted, never timed."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.s390x.network.plugins.plugin_utils import ip_inventory_check, smc_live_table


class CountingList(list):
    """A result list that counts the walks over it."""

    def __init__(self, items, walks):
        list.__init__(self, items)
        self.walks = walks

    def __iter__(self):
        self.walks.append(1)
        return list.__iter__(self)


@pytest.mark.parametrize("partitions, guests", [(15, 10), (15, 60), (30, 150)])
def test_the_plan_walks_no_host_list_per_pair(count_calls, counting_hosts, z17_inventory, partitions, guests):
    inventory = z17_inventory.generate(partitions, guests)
    hosts = counting_hosts(sorted(inventory["hostvars"]))
    addresses = count_calls(ip_inventory_check, "_host_addresses")
    plan = smc_live_table.plan(inventory["hostvars"], hosts)
    groups = [len(m["smcd_peers"][0]) for m in inventory["models"]]
    assert len(plan["pairs"]) + len(plan["unplanned"]) == sum(n * (n - 1) // 2 for n in groups)
    assert hosts.lookups <= len(hosts)
    # the interfaces check reads each host once, the plan's own subnet lookups once more at most
    assert addresses.count <= 2 * len(hosts)


def _results(plan, walks):
    """What the hosts would have registered: every planned connection made, over SMC-D."""
    clients, servers = {}, {}
    for number, pair in enumerate(plan["pairs"]):
        local = {"address": "10.0.%d.%d" % (number // 250, number % 250), "port": 40000 + number}
        record = {"mode": "SMC-D", "version": 2}
        clients.setdefault(pair["client"], []).append(
            {"item": {"server": pair["server"]}, "local": local, "diag": record}
        )
        servers.setdefault(pair["server"], []).append({"peer": local, "diag": dict(record)})
    variables = {}
    for host, items in clients.items():
        variables.setdefault(host, {})[smc_live_table.CLIENT_RESULTS] = {"results": CountingList(items, walks)}
    for host, conns in servers.items():
        variables.setdefault(host, {})[smc_live_table.SERVER_RESULT] = {"connections": CountingList(conns, walks)}
    return variables


@pytest.mark.parametrize("partitions, guests", [(15, 10), (15, 60)])
def test_the_comparison_reads_each_hosts_results_once(z17_inventory, partitions, guests):
    inventory = z17_inventory.generate(partitions, guests)
    hosts = sorted(inventory["hostvars"])
    plan = smc_live_table.plan(inventory["hostvars"], hosts)
    walks = []
    variables = dict((h, dict(v)) for h, v in inventory["hostvars"].items())
    for host, values in _results(plan, walks).items():
        variables[host].update(values)
    result = smc_live_table.compare(plan, variables)
    readers = len(set(p["client"] for p in plan["pairs"])) + len(set(p["server"] for p in plan["pairs"]))
    assert len(walks) == readers
    assert len(result["rows"]) == len(plan["pairs"]) > readers
    assert all(r["mode"] == "SMC-D" for r in result["rows"])
