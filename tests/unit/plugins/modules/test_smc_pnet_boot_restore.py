# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""smc_pnet boot_unit on a host without smc-tools: the unit runs the collection's restore program
(three files: program, data, unit), read back, drift per file, removal, failure half way, and the
refusal of a unit that could not work. With smc_pnet installed the tool form stays
(test_smc_pnet_boot_unit.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import sys

import pytest

from ansible_collections.s390x.network.plugins.module_utils.engine import host_files
from ansible_collections.s390x.network.plugins.module_utils.smc import netlink as smc_netlink
from ansible_collections.s390x.network.plugins.module_utils.smc import pnet_unit
from ansible_collections.s390x.network.plugins.modules import smc_pnet
from ansible_collections.s390x.network.tests.unit.plugins.module_utils.smc_netlink_fake import FakeSmcKernel
from ansible_collections.s390x.network.tests.unit.plugins.module_utils.test_unit_syntax import (
    SYSTEMD_ANALYZE,
    _verify,
    exec_commands,
    read_unit,
)
from ansible_collections.s390x.network.tests.unit.plugins.modules.test_smc_pnet_boot_unit import (
    HOSTILE_IFNAMES,
    LINK,
    STATIC,
    UNIT,
    UNIT_PATH,
    loaded,
    tree,
)

PROGRAM = pnet_unit.PROGRAM_PATH.lstrip("/")
DATA = pnet_unit.DATA_PATH.lstrip("/")
RELEASE = "6.1.0-test-s390x"
NO_TOOL = {"smc_pnet": None}


def no_command(argv):
    raise AssertionError("nothing may run: %r" % (argv,))


@pytest.fixture
def kernel(monkeypatch):
    fake = FakeSmcKernel(byteorder=sys.byteorder)
    monkeypatch.setattr(smc_netlink, "NetlinkSocket", lambda: fake)
    return fake


def modules_tree(root, smc=True):
    """The running kernel's release and module tree (with or without net/smc/smc.ko), and the
    directories every host has."""
    (root / "usr" / "local" / "libexec").mkdir(parents=True, exist_ok=True)
    (root / "etc").mkdir(exist_ok=True)
    (root / "proc" / "sys" / "kernel").mkdir(parents=True, exist_ok=True)
    (root / "proc" / "sys" / "kernel" / "osrelease").write_text(RELEASE + "\n")
    tree_dir = root / "lib" / "modules" / RELEASE
    tree_dir.mkdir(parents=True, exist_ok=True)
    lines = ["kernel/net/ipv4/tcp_diag.ko.xz:"] + (["kernel/net/smc/smc.ko.xz: kernel/net/smc/x.ko.xz"] if smc else [])
    (tree_dir / "modules.dep").write_text("\n".join(lines) + "\n")
    return root


def run(run_module, args, **kwargs):
    args = dict(args, boot_unit=args.get("boot_unit", "present"))
    return run_module(smc_pnet.main, args, no_command, bin_paths=kwargs.pop("bin_paths", NO_TOOL), **kwargs)


def unit_commands(root):
    with open(str(root / UNIT)) as handle:
        directives = read_unit(handle.read())
    commands = [c for d in directives if d[1] == "ExecStart" for c in exec_commands(d[2])]
    return commands, [d for d in directives if d[1] != "ExecStart"]


def data_entries(root):
    with open(str(root / DATA)) as handle:
        document = json.load(handle)
    assert document["format"] == 1
    return document["entries"]


PYTHON = pnet_unit.interpreter()
WRITES = ["write " + pnet_unit.PROGRAM_PATH, "write " + pnet_unit.DATA_PATH, "write " + UNIT_PATH]


# -- the three files ---------------------------------------------------------------------------------
def test_without_smc_pnet_the_unit_runs_the_restore_program(run_module, host_root, kernel):
    loaded(host_root)
    config = [{"pnet_id": "neta", "interface": "enc8200"}, {"pnet_id": "NETR", "ib_device": "mlx5_1", "port": 2}]
    out = run(run_module, {"config": config}, diff=True)
    assert not out.failed, out.result
    assert out.result["backend"] == "netlink"
    assert out.result["commands"] == [
        "SMC_PNETID_ADD NETA ethname=enc8200",
        "SMC_PNETID_ADD NETR ibname=mlx5_1 ibport=2",
    ] + WRITES + ["ln -s %s /%s" % (UNIT_PATH, LINK)]
    commands, others = unit_commands(host_root)
    assert commands == [("", [PYTHON, pnet_unit.PROGRAM_PATH, pnet_unit.DATA_PATH])]
    assert PYTHON in (sys.executable, pnet_unit.STABLE_PYTHON)
    assert others == STATIC
    assert data_entries(host_root) == [
        {"pnet_id": "NETA", "interface": "enc8200"},
        {"pnet_id": "NETR", "ib_device": "mlx5_1", "port": 2},
    ]
    assert (host_root / PROGRAM).read_text() == pnet_unit.program_text()
    compile(pnet_unit.program_text(), pnet_unit.PROGRAM_PATH, "exec")
    assert os.readlink(str(host_root / LINK)) == UNIT_PATH
    assert out.result["boot_unit"]["restore"] == {
        "interpreter": PYTHON,
        "program": pnet_unit.PROGRAM_PATH,
        "data": pnet_unit.DATA_PATH,
    }
    assert out.result["boot_unit"]["entries"] == [
        {"pnet_id": "NETA", "interface": "enc8200"},
        {"pnet_id": "NETR", "ib_device": "mlx5_1", "port": 2},
    ]
    for path in (pnet_unit.PROGRAM_PATH, pnet_unit.DATA_PATH, UNIT_PATH):
        assert {"kind": "pnet", "object": path, "scope": "persistent", "difference": "missing"} in out.result["drift"]
    headers = [d["after_header"] for d in out.result["diff"]]
    assert headers == ["PNET table (after)", UNIT_PATH, "/" + LINK, pnet_unit.PROGRAM_PATH, pnet_unit.DATA_PATH]
    assert out.result["diff"][3]["after"] == pnet_unit.program_text()
    again = run(run_module, {"config": config})
    assert again.result["changed"] is False and again.result["commands"] == [] and again.result["drift"] == []


def test_check_mode_shows_the_three_files_and_writes_nothing(run_module, host_root):
    modules_tree(host_root)
    before = tree(host_root)
    out = run(run_module, {"config": [{"pnet_id": "NETA", "interface": "eth1"}]}, check_mode=True, diff=True)
    assert out.result["changed"] is True and out.result.get("table_skipped") is True
    assert out.result["commands"] == WRITES + ["ln -s %s /%s" % (UNIT_PATH, LINK)]
    diffs = dict((d["after_header"], d) for d in out.result["diff"])
    assert diffs[pnet_unit.PROGRAM_PATH]["before"] == "" and "def restore_run" in diffs[pnet_unit.PROGRAM_PATH]["after"]
    assert json.loads(diffs[pnet_unit.DATA_PATH]["after"])["entries"] == [{"pnet_id": "NETA", "interface": "eth1"}]
    assert "ExecStart=%s %s %s" % (PYTHON, pnet_unit.PROGRAM_PATH, pnet_unit.DATA_PATH) in diffs[UNIT_PATH]["after"]
    assert tree(host_root) == before


@pytest.mark.parametrize("name", [n for n in HOSTILE_IFNAMES if all(ord(c) < 128 for c in n)])
def test_a_hostile_kernel_legal_name_is_data_in_the_json(run_module, host_root, name):
    modules_tree(host_root)
    out = run(run_module, {"config": [{"pnet_id": "NETA", "interface": name}]})
    assert not out.failed, out.result
    assert data_entries(host_root) == [{"pnet_id": "NETA", "interface": name}]
    assert unit_commands(host_root)[0] == [("", [PYTHON, pnet_unit.PROGRAM_PATH, pnet_unit.DATA_PATH])]
    again = run(run_module, {"config": [{"pnet_id": "NETA", "interface": name}]})
    assert again.result["changed"] is False, again.result


def test_the_entries_follow_the_state_through_the_data_file(run_module, host_root):
    modules_tree(host_root)
    run(run_module, {"config": [{"pnet_id": "NETA", "interface": "eth1"}]})
    merged = run(run_module, {"config": [{"pnet_id": "NETB", "interface": "eth2"}]})
    assert merged.result["commands"] == ["write " + pnet_unit.DATA_PATH]
    assert data_entries(host_root) == [
        {"pnet_id": "NETA", "interface": "eth1"},
        {"pnet_id": "NETB", "interface": "eth2"},
    ]
    rows = dict((r["object"], r["difference"]) for r in merged.result["drift"])
    assert rows == {
        pnet_unit.DATA_PATH: "file differs",
        UNIT_PATH: "entries NETA interface eth1 -> NETA interface eth1,NETB interface eth2",
    }
    deleted = run(run_module, {"state": "deleted", "config": [{"pnet_id": "NETA"}]})
    assert deleted.result["changed"] and data_entries(host_root) == [{"pnet_id": "NETB", "interface": "eth2"}]


@pytest.mark.skipif(SYSTEMD_ANALYZE is None, reason="systemd-analyze is not installed on this machine")
def test_systemd_analyze_verify_accepts_the_program_form(run_module, host_root, tmp_path):
    modules_tree(host_root)
    out = run(run_module, {"config": [{"pnet_id": "NETA", "interface": "v$(id>x)"}]})
    assert not out.failed, out.result
    rc, complaints = _verify(tmp_path, "s390x-network-smc-pnet.service", (host_root / UNIT).read_text())
    assert complaints == [] and rc == 0, complaints


# -- drift and removal -------------------------------------------------------------------------------
def test_a_changed_program_or_data_file_is_drift_of_its_own_path(run_module, host_root):
    modules_tree(host_root)
    config = [{"pnet_id": "NETA", "interface": "eth1"}]
    run(run_module, {"config": config})
    (host_root / PROGRAM).write_text("import os\nos.system('id')\n")
    out = run(run_module, {"config": config})
    assert out.result["commands"] == ["write " + pnet_unit.PROGRAM_PATH]
    assert out.result["drift"] == [
        {"kind": "pnet", "object": pnet_unit.PROGRAM_PATH, "scope": "persistent", "difference": "file differs"}
    ]
    assert (host_root / PROGRAM).read_text() == pnet_unit.program_text()
    # a data file someone edited: its entries that fail the check are no entries; the file is rewritten
    (host_root / DATA).write_text(
        json.dumps(
            {"format": 1, "entries": [{"pnet_id": "NETA", "interface": "eth1"}, {"pnet_id": "X;Y", "interface": "e"}]}
        )
    )
    out = run(run_module, {"config": config})
    assert out.result["commands"] == ["write " + pnet_unit.DATA_PATH]
    assert out.result["drift"] == [
        {"kind": "pnet", "object": pnet_unit.DATA_PATH, "scope": "persistent", "difference": "file differs"}
    ]
    assert data_entries(host_root) == config


def test_absent_removes_the_three_files_and_the_link(run_module, host_root):
    modules_tree(host_root)
    before = tree(host_root)
    run(run_module, {"config": [{"pnet_id": "NETA", "interface": "eth1"}]})
    out = run(run_module, {"boot_unit": "absent"}, diff=True)
    assert out.result["commands"] == [
        "rm /" + LINK,
        "rm " + UNIT_PATH,
        "rm " + pnet_unit.DATA_PATH,
        "rm " + pnet_unit.PROGRAM_PATH,
    ]
    for path in (pnet_unit.PROGRAM_PATH, pnet_unit.DATA_PATH, UNIT_PATH):
        assert {"kind": "pnet", "object": path, "scope": "persistent", "difference": "to remove"} in out.result["drift"]
    assert dict((d["before_header"], d["after"]) for d in out.result["diff"][1:])[pnet_unit.PROGRAM_PATH] == ""
    after = tree(host_root)
    assert [p for p in after if p not in before and not p.startswith("etc/systemd")] == []
    assert not os.path.lexists(str(host_root / "usr/local/libexec/s390x-network"))
    assert not os.path.lexists(str(host_root / "etc/s390x-network"))
    again = run(run_module, {"boot_unit": "absent"})
    assert again.result["changed"] is False


def test_installing_smc_tools_turns_the_unit_into_the_tool_form_and_back(run_module, host_root, kernel):
    loaded(host_root)
    config = [{"pnet_id": "NETA", "interface": "eth1"}]
    run(run_module, {"config": config})
    tool = run(run_module, {"config": config, "backend": "netlink"}, bin_paths={})
    assert tool.result["commands"] == [
        "write " + UNIT_PATH,
        "rm " + pnet_unit.DATA_PATH,
        "rm " + pnet_unit.PROGRAM_PATH,
    ]
    assert unit_commands(host_root)[0] == [("-", ["smc_pnet", "-a", "NETA", "-I", "eth1"])]
    assert not os.path.lexists(str(host_root / PROGRAM)) and not os.path.lexists(str(host_root / DATA))
    back = run(run_module, {"config": config})
    assert back.result["commands"] == WRITES
    assert data_entries(host_root) == config


# -- a failure half way leaves the old set ------------------------------------------------------------
def test_a_failing_unit_write_puts_program_and_data_back(run_module, host_root, monkeypatch):
    modules_tree(host_root)
    before = tree(host_root)
    real = host_files.write_atomic

    def refuse_unit(path, content, module=None, mode=None):
        if path == UNIT_PATH:
            raise OSError(28, "No space left on device")
        return real(path, content, module, mode)

    monkeypatch.setattr(host_files, "write_atomic", refuse_unit)
    out = run(run_module, {"config": [{"pnet_id": "NETA", "interface": "eth1"}]})
    assert out.failed and "No space left on device" in out.result["msg"]
    assert out.result["rollback"]["ok"] is True
    assert out.result["rollback"]["commands"] == ["rm " + pnet_unit.DATA_PATH, "rm " + pnet_unit.PROGRAM_PATH]
    assert tree(host_root) == before


def test_a_failing_data_write_leaves_the_old_program(run_module, host_root, monkeypatch):
    modules_tree(host_root)
    run(run_module, {"config": [{"pnet_id": "NETA", "interface": "eth1"}]})
    (host_root / PROGRAM).write_text("old program\n")
    before = tree(host_root)
    real = host_files.write_atomic

    def refuse_data(path, content, module=None, mode=None):
        if path == pnet_unit.DATA_PATH:
            raise OSError(5, "Input/output error")
        return real(path, content, module, mode)

    monkeypatch.setattr(host_files, "write_atomic", refuse_data)
    out = run(run_module, {"config": [{"pnet_id": "NETB", "interface": "eth2"}]})
    assert out.failed and "Input/output error" in out.result["msg"]
    assert out.result["rollback"]["commands"] == ["write " + pnet_unit.PROGRAM_PATH]
    assert tree(host_root) == before


# -- a unit that could not work is refused -----------------------------------------------------------
def test_a_kernel_without_smc_is_refused_naming_it(run_module, host_root):
    modules_tree(host_root, smc=False)
    before = tree(host_root)
    out = run(run_module, {"config": [{"pnet_id": "NETA", "interface": "eth1"}]})
    assert out.failed
    assert "smc_pnet (smc-tools) is not installed" in out.result["msg"]
    assert "kernel %s has no SMC" % RELEASE in out.result["msg"] and "SMC_PNETID" in out.result["msg"]
    assert tree(host_root) == before


def test_an_unreadable_module_tree_warns_and_writes(run_module, host_root):
    out = run(run_module, {"config": [{"pnet_id": "NETA", "interface": "eth1"}]})
    assert not out.failed, out.result
    assert any("modules.dep cannot be read" in w for w in out.result["warnings"])
    assert os.path.isfile(str(host_root / UNIT))


def test_no_kernel_check_without_a_change(run_module, host_root):
    modules_tree(host_root)
    run(run_module, {"config": [{"pnet_id": "NETA", "interface": "eth1"}]})
    modules_tree(host_root, smc=False)  # a later kernel without SMC: nothing to change, nothing refused
    out = run(run_module, {"config": [{"pnet_id": "NETA", "interface": "eth1"}]})
    assert not out.failed and out.result["changed"] is False


def test_a_name_the_program_cannot_send_is_refused(run_module, host_root):
    modules_tree(host_root)
    before = tree(host_root)
    out = run(run_module, {"config": [{"pnet_id": "NETA", "interface": "\u00fc" * 7}]})
    assert out.failed and "not printable ASCII" in out.result["msg"] and "NETA interface" in out.result["msg"]
    assert tree(host_root) == before


def test_an_interpreter_path_the_unit_cannot_hold_is_refused(run_module, host_root, monkeypatch):
    modules_tree(host_root)
    before = tree(host_root)
    monkeypatch.setattr(sys, "executable", "/opt/my python/bin/python3")
    out = run(run_module, {"config": [{"pnet_id": "NETA", "interface": "eth1"}]})
    assert out.failed and "'/opt/my python/bin/python3'" in out.result["msg"]
    assert tree(host_root) == before


def test_backend_tool_without_smc_pnet_is_refused_for_the_unit(run_module, host_root):
    out = run(run_module, {"backend": "tool", "config": [{"pnet_id": "NETA", "interface": "eth1"}]})
    assert out.failed and out.result["msg"].startswith("smc_pnet not found")
    assert not os.path.lexists(str(host_root / UNIT))


@pytest.mark.parametrize(
    "path,expected",
    [
        ("/usr/bin/python3.11", "/usr/bin/python3.11"),
        ("/usr/libexec/platform-python", "/usr/libexec/platform-python"),
        ("", None),
        ("python3", None),
        ("/opt/a b/python3", None),
        ("/usr/bin/../bin/python3", None),
        ("/usr/bin/./python3", None),
        ("/usr/bin/python3\nExecStartPre=/bin/id", None),
        ("/usr/bin/py$HOME", None),
        ("/usr/bin/py%n", None),
        ("/usr/bin/py\u00fc", None),
        (3, None),
    ],
)
def test_interpreter_grammar(monkeypatch, path, expected):
    monkeypatch.setattr(os.path, "samefile", lambda a, b: False)
    assert pnet_unit.interpreter(path) == expected


def test_interpreter_prefers_the_stable_name_of_the_same_file(monkeypatch):
    monkeypatch.setattr(os.path, "samefile", lambda a, b: (a, b) == ("/usr/bin/python3.11", "/usr/bin/python3"))
    assert pnet_unit.interpreter("/usr/bin/python3.11") == "/usr/bin/python3"
    assert pnet_unit.interpreter("/opt/venv/bin/python") == "/opt/venv/bin/python"
