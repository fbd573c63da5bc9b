# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Rendering and parsing of the sysctl.d file smc_sysctl owns, and /proc/sys access."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.s390x.network.plugins.module_utils.smc import sysctl_file as sfile
from ansible_collections.s390x.network.plugins.module_utils.engine.host_files import modules_load_text


def test_render_is_canonical_and_sorted():
    text = sfile.render(
        {"net.smc.wmem": "131072", "net.ipv4.tcp_rmem": "4096\t262144  6291456", "net.smc.autocorking_size": 65536}
    )
    lines = text.splitlines()
    assert lines[0].startswith("# Managed by Ansible")
    assert lines[2:] == [
        "net.ipv4.tcp_rmem = 4096 262144 6291456",
        "net.smc.autocorking_size = 65536",
        "net.smc.wmem = 131072",
    ]
    assert sfile.render({}) == sfile.HEADER


def test_parse_round_trip_and_foreign_syntax():
    values = {"net.ipv4.tcp_rmem": "4096 262144 6291456", "net.smc.rmem": "131072"}
    assert sfile.parse(sfile.render(values)) == values
    # what a human (or the study, with quotes) may have written
    text = (
        '# comment\n; other comment\n\nnet.ipv4.tcp_rmem="4096 262144 6291456"\n'
        "-net.smc.rmem=131072\nnet/smc/wmem = 65536\nnot a setting\n"
    )
    assert sfile.parse(text) == {
        "net.ipv4.tcp_rmem": "4096 262144 6291456",
        "net.smc.rmem": "131072",
        "net.smc.wmem": "65536",
    }
    assert sfile.parse(None) == {}


def test_proc_access(host_root):
    proc = host_root / "proc" / "sys"
    (proc / "net" / "ipv4").mkdir(parents=True)
    (proc / "net" / "ipv4" / "tcp_rmem").write_text("4096\t131072\t6291456\n")
    assert sfile.proc_path("net.smc.rmem") == "/proc/sys/net/smc/rmem"
    assert sfile.read_live(["net.ipv4.tcp_rmem", "net.smc.rmem"]) == {
        "net.ipv4.tcp_rmem": "4096 131072 6291456",
        "net.smc.rmem": None,
    }
    sfile.write_live("net.ipv4.tcp_rmem", "4096 262144 6291456")
    assert (proc / "net" / "ipv4" / "tcp_rmem").read_text() == "4096 262144 6291456\n"


def test_modules_load_file_loads_smc():
    text = modules_load_text(sfile.MODULES_LOAD_HEADER, ["smc"])
    assert text == "# Managed by Ansible (s390x.network.smc_sysctl): load SMC at boot.\nsmc\n"
    assert text.endswith("\nsmc\n")
