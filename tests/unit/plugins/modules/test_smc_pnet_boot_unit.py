# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""smc_pnet boot_unit: the module writes the unit that adds the PNET entries at boot.

Every value either reaches the unit and the smc_pnet argv as data (the unit file, read back with an
independent reader of systemd's syntax, runs exactly the intended argv) or is refused naming the
field before anything of the host is read or written; with or without smc loaded.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest

from ansible_collections.s390x.network.plugins.module_utils.engine import host_files
from ansible_collections.s390x.network.plugins.modules import smc_pnet
from ansible_collections.s390x.network.tests.unit.plugins.module_utils.test_unit_syntax import (
    SYSTEMD_ANALYZE,
    _verify,
    exec_commands,
    read_unit,
)
from ansible_collections.s390x.network.tests.unit.plugins.modules.host_guard import HostGuard
from ansible_collections.s390x.network.tests.unit.plugins.modules.test_smc_pnet import FakeSmcPnet

UNIT = "etc/systemd/system/s390x-network-smc-pnet.service"
LINK = "etc/systemd/system/multi-user.target.wants/s390x-network-smc-pnet.service"
UNIT_PATH = "/" + UNIT

# kernel-legal interface names (dev_valid_name: 1-15 bytes, no '/', ':', blanks) that are shell,
# systemd or glob syntax elsewhere: they must be data everywhere
HOSTILE_IFNAMES = [
    "v$(id>x)",
    "a%n",
    "%H",
    "x;y",
    ";",
    'q"q',
    "it's",
    "back\\",
    "`id`",
    "$HOME",
    "-f",
    "--help",
    "*.service",
    "..x",
    "a\\nb",
    "#c",
    "[x]",
    "ü" * 7,
]


def no_command(argv):
    raise AssertionError("nothing may run: %r" % (argv,))


def tree(root):
    """Every file and link below ``root`` with its content or target (what a run changed)."""
    found = {}
    for base, dirs, files in os.walk(str(root)):
        for name in dirs + files:
            path = os.path.join(base, name)
            rel = os.path.relpath(path, str(root))
            if os.path.islink(path):
                found[rel] = ("link", os.readlink(path))
            elif os.path.isfile(path):
                with open(path, "rb") as handle:
                    found[rel] = ("file", handle.read())
            else:
                found[rel] = ("dir", None)
    return found


def loaded(root):
    (root / "sys" / "module" / "smc").mkdir(parents=True)
    return root


def unit_commands(root):
    """The commands the unit file in ``root`` makes systemd run, and the other directives."""
    with open(str(root / UNIT)) as handle:
        directives = read_unit(handle.read())
    commands = [c for d in directives if d[1] == "ExecStart" for c in exec_commands(d[2])]
    return commands, [d for d in directives if d[1] != "ExecStart"]


STATIC = [
    ("Unit", "Description", "SMC software PNET table (s390x.network.smc_pnet)"),
    ("Unit", "After", "systemd-modules-load.service network.target"),
    ("Unit", "Wants", "network.target"),
    ("Service", "Type", "oneshot"),
    ("Service", "RemainAfterExit", "yes"),
    ("Install", "WantedBy", "multi-user.target"),
]


def run(run_module, args, runner=None, **kwargs):
    return run_module(smc_pnet.main, dict(args, boot_unit=args.get("boot_unit", "present")), runner, **kwargs)


# -- the unit holds exactly the entries ---------------------------------------------------------------
def test_present_writes_and_enables_the_unit_and_a_second_run_changes_nothing(run_module, host_root):
    loaded(host_root)
    fake = FakeSmcPnet(text="")
    config = [{"pnet_id": "neta", "interface": "enc8200"}, {"pnet_id": "NETR", "ib_device": "mlx5_1", "port": 2}]
    out = run(run_module, {"config": config}, fake, diff=True)
    assert not out.failed, out.result
    assert out.result["commands"] == [
        "smc_pnet -a NETA -I enc8200",
        "smc_pnet -a NETR -D mlx5_1 -P 2",
        "write " + UNIT_PATH,
        "ln -s %s /%s" % (UNIT_PATH, LINK),
    ]
    commands, others = unit_commands(host_root)
    assert commands == [
        ("-", ["smc_pnet", "-a", "NETA", "-I", "enc8200"]),
        ("-", ["smc_pnet", "-a", "NETR", "-D", "mlx5_1", "-P", "2"]),
    ]
    assert others == STATIC
    assert os.readlink(str(host_root / LINK)) == UNIT_PATH
    assert out.result["boot_unit"] == {
        "path": UNIT_PATH,
        "present": True,
        "enabled": True,
        "entries": [{"pnet_id": "NETA", "interface": "enc8200"}, {"pnet_id": "NETR", "ib_device": "mlx5_1", "port": 2}],
    }
    assert {"kind": "pnet", "object": UNIT_PATH, "scope": "persistent", "difference": "missing"} in out.result["drift"]
    diffs = out.result["diff"]
    assert [d["after_header"] for d in diffs] == ["PNET table (after)", UNIT_PATH, "/" + LINK]
    assert "ExecStart=-smc_pnet -a NETA -I enc8200" in diffs[1]["after"] and diffs[1]["before"] == ""
    again = run(run_module, {"config": config}, fake)
    assert again.result["changed"] is False and again.result["commands"] == [] and again.result["drift"] == []


def test_check_mode_predicts_and_writes_nothing(run_module, host_root):
    loaded(host_root)
    before = tree(host_root)
    fake = FakeSmcPnet(text="")
    out = run(run_module, {"config": [{"pnet_id": "NETA", "interface": "eth1"}]}, fake, check_mode=True, diff=True)
    assert out.result["changed"] is True
    assert out.result["commands"] == [
        "smc_pnet -a NETA -I eth1",
        "write " + UNIT_PATH,
        "ln -s %s /%s" % (UNIT_PATH, LINK),
    ]
    assert out.result["boot_unit"]["entries"] == [{"pnet_id": "NETA", "interface": "eth1"}]
    assert "ExecStart=-smc_pnet -a NETA -I eth1" in out.result["diff"][1]["after"]
    assert tree(host_root) == before and fake.calls == [["/usr/sbin/smc_pnet"]]


@pytest.mark.parametrize("name", HOSTILE_IFNAMES)
def test_a_hostile_kernel_legal_name_is_data_in_the_unit_and_the_argv(run_module, host_root, name):
    loaded(host_root)
    fake = FakeSmcPnet(text="")
    out = run(run_module, {"config": [{"pnet_id": "NETA", "interface": name}]}, fake)
    assert not out.failed, out.result
    assert fake.calls[1] == ["/usr/sbin/smc_pnet", "-a", "NETA", "-I", name]
    commands, others = unit_commands(host_root)
    assert commands == [("-", ["smc_pnet", "-a", "NETA", "-I", name])]
    assert others == STATIC
    again = run(run_module, {"config": [{"pnet_id": "NETA", "interface": name}]}, fake)
    assert again.result["changed"] is False, again.result


@pytest.mark.skipif(SYSTEMD_ANALYZE is None, reason="systemd-analyze is not installed on this machine")
def test_systemd_analyze_verify_accepts_the_unit_with_hostile_names(run_module, host_root, tmp_path):
    config = [{"pnet_id": "NET%d" % i, "interface": name} for i, name in enumerate(HOSTILE_IFNAMES)]
    config.append({"pnet_id": "NETI", "ib_device": "x;$(id)%n", "port": 2})
    out = run(run_module, {"config": config}, no_command)
    assert out.result.get("table_skipped") and not out.failed, out.result
    with open(str(host_root / UNIT)) as handle:
        text = handle.read()
    rc, complaints = _verify(tmp_path, "s390x-network-smc-pnet.service", text)
    assert complaints == [] and rc == 0, complaints
    commands, dummy = unit_commands(host_root)
    assert sorted(c[1][4] for c in commands) == sorted(HOSTILE_IFNAMES + ["x;$(id)%n"])


def test_without_smc_loaded_the_unit_is_written_and_the_table_left_alone(run_module, host_root):
    out = run(run_module, {"config": [{"pnet_id": "NETA", "interface": "a%n"}]}, no_command)
    assert not out.failed, out.result
    assert out.result["table_skipped"] is True and out.result["backend"] is None
    assert out.result["commands"] == ["write " + UNIT_PATH, "ln -s %s /%s" % (UNIT_PATH, LINK)]
    assert any("smc is not loaded" in w for w in out.result["warnings"])
    assert unit_commands(host_root)[0] == [("-", ["smc_pnet", "-a", "NETA", "-I", "a%n"])]


def test_the_entries_follow_the_state_as_the_tables_do(run_module, host_root):
    first = run(run_module, {"config": [{"pnet_id": "NETA", "interface": "eth1"}]}, no_command)
    assert first.result["changed"]
    merged = run(run_module, {"config": [{"pnet_id": "NETB", "interface": "eth2"}]}, no_command)
    assert [c[1][2:] for c in unit_commands(host_root)[0]] == [["NETA", "-I", "eth1"], ["NETB", "-I", "eth2"]]
    assert merged.result["drift"] == [
        {
            "kind": "pnet",
            "object": UNIT_PATH,
            "scope": "persistent",
            "difference": "entries NETA interface eth1 -> NETA interface eth1,NETB interface eth2, file differs",
        }
    ]
    moved = run(run_module, {"config": [{"pnet_id": "NETB", "interface": "eth1"}]}, no_command)
    assert moved.result["changed"]
    assert [c[1][2:] for c in unit_commands(host_root)[0]] == [["NETB", "-I", "eth1"], ["NETB", "-I", "eth2"]]
    deleted = run(run_module, {"state": "deleted", "config": [{"pnet_id": "NETB", "interface": "eth2"}]}, no_command)
    assert deleted.result["changed"]
    assert [c[1][2:] for c in unit_commands(host_root)[0]] == [["NETB", "-I", "eth1"]]
    overridden = run(run_module, {"state": "overridden", "config": [{"pnet_id": "NETC", "interface": "x"}]}, no_command)
    assert overridden.result["changed"]
    assert [c[1][2:] for c in unit_commands(host_root)[0]] == [["NETC", "-I", "x"]]
    gone = run(run_module, {"state": "deleted", "config": [{"pnet_id": "NETC"}]}, no_command)
    assert gone.result["commands"] == ["rm /" + LINK, "rm " + UNIT_PATH]
    assert {"kind": "pnet", "object": UNIT_PATH, "scope": "persistent", "difference": "to remove"} in gone.result[
        "drift"
    ]
    assert not os.path.lexists(str(host_root / UNIT)) and not os.path.lexists(str(host_root / LINK))
    again = run(run_module, {"state": "deleted", "config": []}, no_command)
    assert again.result["changed"] is False


def test_absent_disables_and_removes_the_unit(run_module, host_root):
    run(run_module, {"config": [{"pnet_id": "NETA", "interface": "eth1"}]}, no_command)
    out = run(run_module, {"boot_unit": "absent", "config": [{"pnet_id": "NETA", "interface": "eth1"}]}, no_command)
    assert out.result["commands"] == ["rm /" + LINK, "rm " + UNIT_PATH]
    assert out.result["boot_unit"] == {"path": UNIT_PATH, "present": False, "enabled": False, "entries": []}
    assert not os.path.lexists(str(host_root / UNIT)) and not os.path.lexists(str(host_root / LINK))


def test_unchanged_leaves_the_unit_alone(run_module, host_root):
    (host_root / "etc" / "systemd" / "system").mkdir(parents=True)
    (host_root / UNIT).write_text("[Service]\nExecStart=/bin/true\n")
    before = tree(host_root)
    out = run_module(smc_pnet.main, {"config": [{"pnet_id": "NETA", "interface": "eth1"}]}, FakeSmcPnet(text=""))
    assert not out.failed and "boot_unit" not in out.result
    assert tree(host_root) == before


def test_a_unit_with_an_injected_line_is_rewritten(run_module, host_root):
    """What the role's template made of a name with a newline: the module owns the file and rewrites it."""
    (host_root / "etc" / "systemd" / "system").mkdir(parents=True)
    (host_root / UNIT).write_text(
        "[Service]\nType=oneshot\nExecStart=-smc_pnet -a NETA -I eth1\nExecStartPre=/bin/sh -c id\n"
        "ExecStart=-smc_pnet -a NETB -I x \\\nExecStart=/bin/id\n"
    )
    out = run(run_module, {"config": [{"pnet_id": "NETA", "interface": "eth1"}]}, no_command)
    assert "write " + UNIT_PATH in out.result["commands"]
    commands, others = unit_commands(host_root)
    assert commands == [("-", ["smc_pnet", "-a", "NETA", "-I", "eth1"])] and others == STATIC


def test_daemon_reload_when_systemd_runs(run_module, host_root):
    (host_root / "run" / "systemd" / "system").mkdir(parents=True)
    ran = []

    def systemctl(argv):
        ran.append(argv)
        return 0, "", ""

    out = run(run_module, {"config": [{"pnet_id": "NETA", "interface": "eth1"}]}, systemctl)
    assert ran == [["/usr/sbin/systemctl", "daemon-reload"]]
    assert out.result["commands"][-1] == "systemctl daemon-reload"


def test_a_failing_unit_write_puts_the_unit_back(run_module, host_root, monkeypatch):
    loaded(host_root)
    (host_root / "etc" / "systemd" / "system").mkdir(parents=True)
    (host_root / UNIT).write_text("old\n")
    fake = FakeSmcPnet(text="")

    def refuse(path, content, module=None, mode=None):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(host_files, "write_atomic", refuse)
    out = run(run_module, {"config": [{"pnet_id": "NETA", "interface": "eth1"}]}, fake)
    assert out.failed and "No space left on device" in out.result["msg"]
    assert out.result["changed"] is True  # the table entry was added before
    assert (host_root / UNIT).read_text() == "old\n" and not os.path.lexists(str(host_root / LINK))


def test_a_wants_path_that_is_no_link_is_refused(run_module, host_root):
    (host_root / LINK).parent.mkdir(parents=True)
    (host_root / LINK).write_text("")
    out = run(run_module, {"config": [{"pnet_id": "NETA", "interface": "eth1"}]}, no_command)
    assert out.failed and "is not a symbolic link" in out.result["msg"]
    assert not os.path.lexists(str(host_root / UNIT))


# -- refused naming the field, nothing read or written ------------------------------------------------
REFUSED = [
    ("interface", "eth1\nExecStartPre=/bin/id", "config[0].interface"),
    ("interface", "eth1\r", "config[0].interface"),
    ("interface", "a\x00b", "config[0].interface"),
    ("interface", "with space", "config[0].interface"),
    ("interface", "tab\tx", "config[0].interface"),
    ("interface", "../etc", "config[0].interface"),
    ("interface", "/etc/passwd", "config[0].interface"),
    ("interface", "a:b", "config[0].interface"),
    ("interface", ".", "config[0].interface"),
    ("interface", "..", "config[0].interface"),
    ("interface", "", "config[0].interface"),
    ("interface", "x" * 16, "config[0].interface"),
    ("interface", "ü" * 8, "config[0].interface"),
    ("interface", "\u00e0", "config[0].interface"),  # UTF-8 c3 a0: the kernel's isspace(0xa0)
    ("pnet_id", "NETA\n", "config[0].pnet_id"),
    ("pnet_id", "NET;A", "config[0].pnet_id"),
    ("pnet_id", "%n", "config[0].pnet_id"),
    ("pnet_id", "$(id)", "config[0].pnet_id"),
    ("pnet_id", "-f", "config[0].pnet_id"),
    ("pnet_id", "A" * 17, "config[0].pnet_id"),
    ("pnet_id", " NETA", "config[0].pnet_id"),
    ("ib_device", "mlx5_0\nExecStartPre=/bin/id", "config[0].ib_device"),
    ("ib_device", "mlx 5", "config[0].ib_device"),
    ("ib_device", "m" * 64, "config[0].ib_device"),
    ("ib_device", "a\x00", "config[0].ib_device"),
]


def _item(field, value):
    item = {"pnet_id": "NETA", "interface": "eth1"}
    if field == "ib_device":
        item = {"pnet_id": "NETA", "ib_device": value}
    else:
        item[field] = value
    return item


@pytest.mark.parametrize("field,value,where", REFUSED, ids=[repr(v) for f, v, w in REFUSED])
@pytest.mark.parametrize("boot_unit", ["present", "unchanged"])
def test_bad_values_are_refused_before_the_host(monkeypatch, run_module, field, value, where, boot_unit):
    guard = HostGuard(monkeypatch, run_module)
    result = guard.refuses(smc_pnet.main, {"boot_unit": boot_unit, "config": [_item(field, value)]}, [where + ": "])
    assert not result.get("changed")


@pytest.mark.parametrize("value", ["a\x1bb", "a\x7f", "x\x85"])
@pytest.mark.parametrize("boot_unit", ["present", "unchanged"])
def test_kernel_legal_names_with_control_characters_are_refused(monkeypatch, run_module, value, boot_unit):
    """The kernel takes them; the collection's one interface-name rule does not (a name is one visible
    word in every message, unit line and log)."""
    guard = HostGuard(monkeypatch, run_module)
    guard.refuses(
        smc_pnet.main,
        {
            "boot_unit": boot_unit,
            "config": [{"pnet_id": "NETA", "interface": "ok"}, {"pnet_id": "B", "interface": value}],
        },
        ["config[1].interface: ", "control or format character"],
    )


def test_bad_input_leaves_an_existing_unit_unchanged(run_module, host_root):
    run(run_module, {"config": [{"pnet_id": "NETA", "interface": "eth1"}]}, no_command)
    before = tree(host_root)
    out = run(run_module, {"config": [{"pnet_id": "NETB", "interface": "x\nExecStartPre=/bin/id"}]}, no_command)
    assert out.failed and out.result["msg"].startswith("config[0].interface: ")
    assert tree(host_root) == before
