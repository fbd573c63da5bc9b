#!/usr/bin/env python3
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Benchmark (not a test): the controller-side planning of a whole z17 CPC, without any host.

On the inventories of ``z17_cpc_inventory.generate`` (LPARs x KVM guests) it times, in one run:

* ``iocds``: what playbooks/iocds.yml does per CPC model (one per CSS): normalise and validate
  (``normalize_cpc``), the guests' PNET findings (``guest_pnet_findings``), the IOCP fragment, the
  report and the topology (``render_fragment``, ``render_report``, ``render_dot``);
* ``preflight``: the filter ``smc_preflight`` as playbooks/preflight.yml calls it with
  ``preflight_live=false`` (the pairs of the ``cpc.smcd_peers`` groups), then over every ordered
  pair of ``smc_hosts`` (``pairs=``);
* ``verify plan``: what playbooks/verify.yml computes before and after the live connections: the
  filter ``smc_live_check`` (the plan), ``smc_preflight`` for its pairs, and ``smc_live_check``
  with those rows (no host ran, so every pair's result is missing).

The host variables are plain dicts (no Ansible templating). Per row: pairs, seconds, microseconds
per pair, and how many pairs the pre-flight judged (``predict_pair`` calls) to give them.
Run:  .venv/bin/python benchmarks/cpc_scale_bench.py [--sizes 8x0,85x500]
"""

from __future__ import absolute_import, division, print_function

import argparse
import importlib
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
COLLECTIONS = os.path.join(os.path.dirname(HERE), ".cache", "collections")
if os.path.isdir(COLLECTIONS):
    sys.path.insert(0, COLLECTIONS)
sys.path.insert(0, HERE)

import z17_cpc_inventory  # noqa: E402
from ansible_collections.s390x.network.plugins.filter.smc_live_check import smc_live_check  # noqa: E402
from ansible_collections.s390x.network.plugins.filter.smc_preflight import smc_preflight  # noqa: E402
from ansible_collections.s390x.network.plugins.module_utils.iocp.cpc_model import (  # noqa: E402
    guest_pnet_findings,
    normalize_cpc,
)
from ansible_collections.s390x.network.plugins.module_utils.iocp.render import render_fragment  # noqa: E402
from ansible_collections.s390x.network.plugins.module_utils.iocp.report import render_dot, render_report  # noqa: E402

PREDICT = importlib.import_module("ansible_collections.s390x.network.plugins.plugin_utils.smc_preflight.predict")
SIZES = "8x0,15x0,30x0,85x0,8x100,15x100,30x100,85x100,85x500"


class Judgements(object):
    """Counts the calls of the pre-flight's judging function while installed."""

    def __init__(self):
        self.count = 0
        self.original = PREDICT.predict_pair

    def __call__(self, client, server):
        self.count += 1
        return self.original(client, server)


def _iocds(inventory):
    pnet_configs = dict((h, v.get("smc_pnet_config")) for h, v in inventory["hostvars"].items())
    for cpc in inventory["models"]:
        model, errors, warnings = normalize_cpc(cpc)
        if errors:
            raise SystemExit("generated model css %d is not valid: %s" % (cpc["css"], errors[:3]))
        guest_pnet_findings(model, pnet_configs)
        render_fragment(model)
        render_report(model, errors, warnings, "Z17A.iocp")
        render_dot(model)


def _verify_plan(hostvars, hosts):
    plan = smc_live_check(hostvars, hosts)
    rows = smc_preflight(hostvars, hosts, pairs=plan["pairs"])["rows"]
    smc_live_check(hostvars, hosts, preflight=rows)
    return len(plan["pairs"]) + len(plan["unplanned"])


def _timed(func):
    counter = Judgements()
    PREDICT.predict_pair = counter
    try:
        start = time.perf_counter()
        pairs = func()
        return time.perf_counter() - start, pairs, counter.count
    finally:
        PREDICT.predict_pair = counter.original


def measure(partitions, guests):
    """``[(phase, pairs, seconds, judgements)]`` for one size."""
    inventory = z17_cpc_inventory.generate(partitions, guests)
    hostvars = inventory["hostvars"]
    hosts = sorted(hostvars)
    every = z17_cpc_inventory.all_pairs(inventory)
    result = []
    seconds, dummy, dummy = _timed(lambda: _iocds(inventory))
    result.append(("iocds", 0, seconds, 0))
    seconds, pairs, judged = _timed(lambda: len(smc_preflight(hostvars, hosts)["rows"]))
    result.append(("preflight smcd_peers", pairs, seconds, judged))
    seconds, pairs, judged = _timed(lambda: len(smc_preflight(hostvars, hosts, pairs=every)["rows"]))
    result.append(("preflight every pair", pairs, seconds, judged))
    seconds, pairs, judged = _timed(lambda: _verify_plan(hostvars, hosts))
    result.append(("verify plan", pairs, seconds, judged))
    return result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=SIZES, help="LPARSxGUESTS,... (default %s)" % SIZES)
    args = parser.parse_args(argv)
    sizes = [tuple(int(n) for n in item.split("x")) for item in args.sizes.split(",")]
    print(
        "%6s %6s %6s  %-22s %8s %9s %10s %8s"
        % ("LPARs", "guests", "hosts", "phase", "pairs", "seconds", "us/pair", "judged")
    )
    for partitions, guests in sizes:
        for phase, pairs, seconds, judged in measure(partitions, guests):
            per_pair = "%.1f" % (seconds * 1e6 / pairs) if pairs else "-"
            print(
                "%6d %6d %6d  %-22s %8d %9.3f %10s %8s"
                % (partitions, guests, partitions + guests, phase, pairs, seconds, per_pair, judged if pairs else "-")
            )
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
