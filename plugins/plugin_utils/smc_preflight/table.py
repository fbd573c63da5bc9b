# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The SMC pre-flight's rows as counts and as a text table."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.s390x.network.plugins.plugin_utils.smc_preflight.common import TCP, UNKNOWN


def summary(rows):
    """Counts of the rows by outcome: ``{smc, tcp, unknown}``."""
    result = {"smc": 0, "tcp": 0, "unknown": 0}
    for row in rows:
        if row["prediction"] == TCP:
            result["tcp"] += 1
        elif row["prediction"] == UNKNOWN:
            result["unknown"] += 1
        else:
            result["smc"] += 1
    return result


def _facts_text(row):
    return "%d fact%s" % (len(row["unknown"]), "" if len(row["unknown"]) == 1 else "s")


def _reason(row):
    if row["reason_name"]:
        return "%s %s (%s)" % (row["reason_name"], row["reason_code"], row["side"])
    if row.get("alternatives"):
        side = " (%s)" % row["side"] if row["prediction"] == TCP and row["side"] else ""
        return "%s%s, depending on %s (see why)" % (" or ".join(row["alternatives"]), side, _facts_text(row))
    if row["prediction"] == TCP:
        return "code not modelled (%s)" % row["side"]
    if row["prediction"] == UNKNOWN:
        return "depends on %s (see why)" % _facts_text(row)
    return "-"


def table(rows):
    """Text lines: pair, prediction, reason (code, name, side), fix; the first line the heading."""
    cols = ("PAIR", "PREDICTION", "REASON", "FIX")
    cells = []
    for row in rows:
        fix = row["fix"] or "-"
        cells.append(("%s -> %s" % (row["client"], row["server"]), row["prediction"], _reason(row), fix))
    widths = [max([len(cols[i])] + [len(c[i]) for c in cells]) for i in range(3)]
    fmt = "  ".join("%%-%ds" % w for w in widths) + "  %s"
    return [(fmt % line).rstrip() for line in [cols] + cells]
