# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Markdown report and Graphviz topology of a CPC model."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import shutil
import subprocess

import pytest

from ansible_collections.s390x.network.plugins.module_utils.iocp.cpc_model import normalize_cpc
from ansible_collections.s390x.network.plugins.module_utils.iocp.report import (
    render_dot,
    render_report,
)
from ansible_collections.s390x.network.tests.unit.plugins.module_utils.cpc_samples import load_cpc


def model_of(name):
    return normalize_cpc(load_cpc(name))


def test_lab_report():
    model, errors, warnings = model_of("lab_cpc.yml")
    text = render_report(model, errors, warnings, "ZLAB.iocp")
    assert text.startswith("# IOCDS report: CPC ZLAB (z16)\n")
    assert "IOCP fragment: `ZLAB.iocp`." in text
    assert "Validation: **passed**, 0 warning(s)." in text
    assert "| LPARA | 1 | lpar-a | yes | F0 | 0x605 |" in text
    assert "| F0 | 40K | 32K | 80 | F000 | 8200-820F | LPARA LPARB | - |" in text
    assert "| 7C8 | non-native (SMC-Dv2) | 0x605 | 0605 | 1 | LPARA | g1 | - |" in text
    assert "| LPARB | g1 | yes | VCHID 7C8 (non-native) |" in text


def test_report_lists_errors_and_unreachable_pairs():
    model, errors, warnings = model_of("large_cpc.yml")
    text = render_report(model, ["cpc: something is wrong"], warnings)
    assert "Validation: **1 error(s)**, 1 warning(s)." in text
    assert "- cpc: something is wrong" in text
    assert "| LNXA | LNXB | **no** | FIDs on different VCHIDs (7C1 vs 7C0) |" in text
    assert "| 7C1 | native | 0x1101 | 1101 | 1 | ZOS1 | - | HSNET1 |" in text
    assert "| E0 | 1C0 | E000 | 1E00-1E02 | LNXA LNXB | OSANET1 |" in text
    assert "| 15C | ROC2 | 0x2001 | 2001 | 1 | 1 | LNXB | OSANET1 |" in text


def test_dot_content():
    model, _e, _w = model_of("lab_cpc.yml")
    dot = render_dot(model)
    assert dot.startswith('digraph "cpc_ZLAB" {\n')
    assert '"vchid_7C8" -> "guest_g1" [label="FID 0x605 UID 0605 VF 1"];' in dot
    assert '"chpid_F0" -> "part_LPARB" [arrowhead=none];' in dot
    assert '"part_LPARB" -> "guest_g1" [dir=both, constraint=false, color=darkgreen, ' 'label="SMC-D"];' in dot
    for line in dot.splitlines():
        assert line.count('"') % 2 == 0, "label broken over lines: %s" % line


def test_dot_marks_declared_peers_that_cannot_talk():
    model, _e, _w = model_of("lab_cpc.yml")
    model["ism"][0]["functions"][1]["pnet_id"] = "NETA"
    dot = render_dot(model)
    assert 'color=red, style=dashed, label="no SMC-D (smcd_peers)"' in dot


def test_dot_summarises_many_fids():
    model, _e, _w = model_of("lab_cpc.yml")
    model["ism"][0]["functions"] = [
        {
            "fid": 0x1000 + i,
            "uid": None,
            "vf": i + 1,
            "partition": "LPARB",
            "candidates": ["LPARB"],
            "pnet_id": None,
            "guest": None,
        }
        for i in range(100)
    ]
    dot = render_dot(model)
    assert '"vchid_7C8" -> "part_LPARB" [label="100 FIDs"];' in dot


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz dot is not installed")
@pytest.mark.parametrize("name", ["lab_cpc.yml", "large_cpc.yml"])
def test_dot_is_valid_graphviz(name):
    model, _e, _w = model_of(name)
    proc = subprocess.run(
        ["dot", "-Tsvg"], input=render_dot(model).encode(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == b""
    assert b"<svg" in proc.stdout
