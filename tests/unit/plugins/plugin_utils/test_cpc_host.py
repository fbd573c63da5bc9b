# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""One model's index for the views of all its hosts (plugins/plugin_utils/cpc_host.py, ``CpcIndex``): the
model is normalised once, and each view is the one ``host_view`` gives without an index."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

from ansible_collections.s390x.network.plugins.module_utils.iocp.cpc_model import normalize_cpc, partition_functions
from ansible_collections.s390x.network.plugins.plugin_utils import cpc_host


def test_views_from_one_index_equal_views_each_built_alone(count_calls, z17_inventory):
    inventory = z17_inventory.generate(15, 40)
    cpc = inventory["models"][0]
    hosts = sorted(inventory["hostvars"])
    alone = [cpc_host.host_view(cpc, h) for h in hosts]
    normalize = count_calls(cpc_host, "normalize_cpc")
    indexes = []
    shared = [cpc_host.host_view(cpc, h, index=cpc_host.CpcIndex.find(copy.deepcopy(cpc), indexes)) for h in hosts]
    assert normalize.count == 1
    assert shared == alone


def test_a_partition_view_holds_its_partition_functions_and_guests(z17_inventory):
    inventory = z17_inventory.generate(15, 40)
    cpc = inventory["models"][0]
    model = normalize_cpc(cpc)[0]
    index = cpc_host.CpcIndex(cpc)
    view = cpc_host.host_view(cpc, "lp01", index=index)
    functions = partition_functions(model, "LP01")
    assert [f["fid"] for f in view["functions"]] == [f["fid"] for f in functions]
    guests = sorted(f["guest"] for f in functions if f.get("guest"))
    assert sorted(view["guests"]) == guests and len(guests) == 10
    assert view["own_ism_fids"] == [0x1000]
    assert len(view["ism_uids"]) == 15 + 40
    guest_view = cpc_host.host_view(cpc, "g001", index=index)
    assert guest_view["partition"] is None and len(guest_view["guests"]) == 40
    assert guest_view["guests"]["g001"] == [
        {"fid": 0x4000, "uid": 0x4000, "vchid": 0x7C0, "type": "ism", "pnet_id": "HSNET", "guest": "g001"}
    ]


def test_a_view_given_guests_checks_their_fids_and_keeps_the_index_clean():
    cpc = {
        "name": "CPCA",
        "machine": "z16",
        "partitions": [{"name": "LPA", "mif_id": 1, "host": "a"}],
        "ism": [
            {"vchid": 0x7C8, "functions": [{"fid": 0x10, "uid": 0x10, "vf": 1, "partition": "LPA", "guest": "g1"}]}
        ],
    }
    index = cpc_host.CpcIndex(cpc)
    other = {"a": [{"name": "g2", "hostdevs": [{"fid": 0x10}]}]}
    view = cpc_host.host_view(cpc, "a", guests_by_host=other, index=index)
    assert len(view["errors"]) == 1 and "FID 0x10" in view["errors"][0]
    assert cpc_host.host_view(cpc, "a", index=index)["errors"] == []
