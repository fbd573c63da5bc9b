# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Sentences about the pre-flight check's verdicts, for playbook messages."""

from __future__ import annotations

from collections.abc import Mapping


def disagreements(result):
    """One sentence per pair whose statistics contradict the prediction: ``client -> server
    (predicted TCP SMC_CLC_DECL_NOSMCDEV): <why>``. ``result``: the compare result or its rows."""
    rows = result.get("rows") if isinstance(result, Mapping) else result
    out = []
    for row in rows or []:
        if not isinstance(row, Mapping) or row.get("verdict") != "disagree":
            continue
        predicted = str(row.get("prediction"))
        if row.get("reason_name"):
            predicted += " %s" % row["reason_name"]
        out.append("%s -> %s (predicted %s): %s" % (row.get("client"), row.get("server"), predicted, row.get("reason")))
    return out
