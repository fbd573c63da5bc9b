# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Rendering and parsing of the sysctl.d file smc_sysctl owns, and /proc/sys access."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

from ansible_collections.s390x.network.plugins.module_utils import smc_sysctl_file as sfile


def test_render_is_canonical_and_sorted():
    text = sfile.render({"net.smc.wmem": "131072", "net.ipv4.tcp_rmem": "4096\t262144  6291456",
                         "net.smc.autocorking_size": 65536})
    lines = text.splitlines()
    assert lines[0].startswith("# Managed by Ansible")
    assert lines[2:] == ["net.ipv4.tcp_rmem = 4096 262144 6291456", "net.smc.autocorking_size = 65536",
                         "net.smc.wmem = 131072"]
    assert sfile.render({}) == sfile.HEADER


def test_parse_round_trip_and_foreign_syntax():
    values = {"net.ipv4.tcp_rmem": "4096 262144 6291456", "net.smc.rmem": "131072"}
    assert sfile.parse(sfile.render(values)) == values
    # what a human (or the study, with quotes) may have written
    text = ('# comment\n; other comment\n\nnet.ipv4.tcp_rmem="4096 262144 6291456"\n'
            "-net.smc.rmem=131072\nnet/smc/wmem = 65536\nnot a setting\n")
    assert sfile.parse(text) == {"net.ipv4.tcp_rmem": "4096 262144 6291456", "net.smc.rmem": "131072",
                                 "net.smc.wmem": "65536"}
    assert sfile.parse(None) == {}


def test_proc_access(tmp_path):
    proc = tmp_path / "proc_sys"
    (proc / "net" / "ipv4").mkdir(parents=True)
    (proc / "net" / "ipv4" / "tcp_rmem").write_text("4096\t131072\t6291456\n")
    assert sfile.proc_path("net.smc.rmem", str(proc)) == os.path.join(str(proc), "net", "smc", "rmem")
    assert sfile.read_live(["net.ipv4.tcp_rmem", "net.smc.rmem"], str(proc)) == {
        "net.ipv4.tcp_rmem": "4096 131072 6291456", "net.smc.rmem": None}
    sfile.write_live("net.ipv4.tcp_rmem", "4096 262144 6291456", str(proc))
    assert (proc / "net" / "ipv4" / "tcp_rmem").read_text() == "4096 262144 6291456\n"


def test_atomic_write_and_remove(tmp_path):
    path = str(tmp_path / "etc" / "sysctl.d" / "90-smc.conf")
    sfile.write_file_atomic(path, "a = 1\n")
    assert sfile.read_file(path) == "a = 1\n"
    assert oct(os.stat(path).st_mode & 0o777) == oct(0o644)
    assert os.listdir(os.path.dirname(path)) == ["90-smc.conf"]
    assert sfile.remove_file(path) is True
    assert sfile.remove_file(path) is False
    assert sfile.read_file(path) is None
    assert sfile.render_modules_load(["smc"]).endswith("\nsmc\n")
