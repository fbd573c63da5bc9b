#!/usr/bin/env python3
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Benchmark (not a test): normalise + validate + render (+ parse) CPC models of growing size.

The largest model is the maximal CPC the IOCP limits allow: 32 ISM VCHIDs x 255 FIDs (8160 FUNCTIONs) and
32 IQD CHPIDs x 64 control units (2048 CNTLUNIT/IODEVICE pairs, 3 devices each).
Run:  .venv/bin/python benchmarks/iocp_bench.py [--repeat N]
Prints one line per size with the median time of each phase and the growth factor of the total
against the previous size (time ratio / size ratio; ~1.0 means linear).
"""

from __future__ import absolute_import, division, print_function

import argparse
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
COLLECTIONS = os.path.join(os.path.dirname(HERE), ".cache", "collections")
if os.path.isdir(COLLECTIONS):
    sys.path.insert(0, COLLECTIONS)

from ansible_collections.s390x.network.plugins.module_utils.iocp.cpc_model import normalize_cpc  # noqa: E402
from ansible_collections.s390x.network.plugins.module_utils.iocp.parse import parse_deck  # noqa: E402
from ansible_collections.s390x.network.plugins.module_utils.iocp.render import render_fragment  # noqa: E402

PARTITIONS = ["LP%02d" % i for i in range(1, 16)]


def build(vchids, fids_per_vchid, chpids, cus_per_chpid):
    """A valid CPC with the given numbers of ISM VCHIDs/FIDs and IQD CHPIDs/control units."""
    parts = [{"name": n, "mif_id": i + 1, "host": "host-%d" % i} for i, n in enumerate(PARTITIONS)]
    hipersockets = []
    cu_number = 0x1000
    devno = 0x0000
    for c in range(chpids):
        units = []
        for _u in range(cus_per_chpid):
            units.append({"number": "%04X" % cu_number, "devices": {"first": "%04X" % devno, "count": 3}})
            cu_number += 1
            devno += 3
        # 2 partitions per CHPID keeps the valid IQD subchannels under the 12288 limit
        hipersockets.append(
            {
                "chpid": "%02X" % (0x80 + c),
                "frame_size": "40K",
                "partitions": PARTITIONS[c % 15 : c % 15 + 1] + ["LP15"] if c % 15 != 14 else ["LP15"],
                "control_units": units,
            }
        )
    ism = []
    fid = 0x1000
    for v in range(vchids):
        funcs = []
        for vf in range(1, fids_per_vchid + 1):
            funcs.append(
                {
                    "fid": fid,
                    "uid": fid & 0xFFFF or 1,
                    "vf": vf,
                    "partition": PARTITIONS[(fid >> 4) % 15],
                    "guest": "g%x" % fid,
                }
            )
            fid += 1
        ism.append({"vchid": 0x700 + v, "functions": funcs})
    return {
        "name": "BENCH",
        "machine": "z16",
        "css": 0,
        "uid_checking": list(PARTITIONS),
        "partitions": parts,
        "hipersockets": hipersockets,
        "ism": ism,
    }


def timed(func, repeat):
    times = []
    result = None
    for _i in range(repeat):
        start = time.perf_counter()
        result = func()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per size (median is shown)")
    args = parser.parse_args(argv)
    sizes = [(1, 16, 1, 4), (2, 32, 2, 8), (4, 64, 4, 16), (8, 128, 8, 32), (16, 255, 16, 64), (32, 255, 32, 64)]
    print(
        "%-26s %7s %7s %9s %9s %9s %9s %8s %7s"
        % ("size (vchid x fid, chp x cu)", "FIDs", "CUs", "validate", "render", "parse", "total", "cards", "growth")
    )
    previous = None
    for vchids, fids, chpids, cus in sizes:
        cpc = build(vchids, fids, chpids, cus)
        t_val, (model, errors, _w) = timed(lambda: normalize_cpc(cpc), args.repeat)
        if errors:
            raise SystemExit("benchmark model is not valid: %s" % errors[:3])
        t_ren, fragment = timed(lambda: render_fragment(model), args.repeat)
        t_par, _parsed = timed(lambda: parse_deck(fragment), args.repeat)
        total = t_val + t_ren
        n_fids = vchids * fids
        n_items = n_fids + chpids * cus
        growth = "-"
        if previous:
            growth = "%.2f" % ((total / previous[0]) / (n_items / float(previous[1])))
        previous = (total, n_items)
        print(
            "%-26s %7d %7d %8.3fs %8.3fs %8.3fs %8.3fs %8d %7s"
            % (
                "%d x %d, %d x %d" % (vchids, fids, chpids, cus),
                n_fids,
                chpids * cus,
                t_val,
                t_ren,
                t_par,
                total,
                fragment.count("\n"),
                growth,
            )
        )
    print(
        "total = validate (normalise + all rules) + render; parse shown for reference; "
        "growth = time ratio / object-count ratio against the previous row"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
