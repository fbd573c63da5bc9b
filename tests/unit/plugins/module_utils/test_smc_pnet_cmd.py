# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""smc_pnet argv, table parsing and the command plans per state."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest

from ansible_collections.s390x.network.plugins.module_utils.smc.pnet_cmd import (
    PnetError,
    argv_add,
    ibdev_ok,
    ifname_ok,
    normalize_entry,
    parse_table,
    plan,
    to_config,
)

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "smc")


def table():
    with open(os.path.join(FIXTURES, "smc_pnet_show.txt")) as handle:
        return parse_table(handle.read())


def eth(pid, name):
    return {"pnet_id": pid, "interface": name, "ib_device": None, "port": None}


def ib(pid, name, port=1):
    return {"pnet_id": pid, "interface": None, "ib_device": name, "port": port}


def simulate(current, commands):
    """Apply smc_pnet commands with the kernel's rules (EEXIST on a taken interface/port)."""
    entries = list(current)
    for argv in commands:
        if argv[1] == "-f":
            entries = []
        elif argv[1] == "-d":
            assert any(e["pnet_id"] == argv[2] for e in entries), "deleting an unknown PNET ID fails"
            entries = [e for e in entries if e["pnet_id"] != argv[2]]
        elif argv[1] == "-a":
            new = eth(argv[2], argv[4]) if argv[3] == "-I" else ib(argv[2], argv[4], int(argv[6]))
            taken = [
                e
                for e in entries
                if (e["interface"], e["ib_device"], e["port"]) == (new["interface"], new["ib_device"], new["port"])
            ]
            assert not taken, "EEXIST: %s" % argv
            entries.append(new)
    return sorted(entries, key=lambda e: (e["pnet_id"], e["interface"] or "", e["ib_device"] or ""))


def test_parse_table():
    assert table() == [eth("NETA", "enc8200"), ib("NETA", "mlx5_0", 1), ib("NETR", "mlx5_1", 2), eth("NETB", "bond0")]
    assert parse_table("smc_pnet: SMC module not loaded\n") == []


def test_argv():
    assert argv_add(eth("NETA", "enc8200")) == ["smc_pnet", "-a", "NETA", "-I", "enc8200"]
    assert argv_add(ib("NETA", "mlx5_0", 2)) == ["smc_pnet", "-a", "NETA", "-D", "mlx5_0", "-P", "2"]


def test_normalize_entry():
    assert normalize_entry({"pnet_id": "neta", "ib_device": "mlx5_0"}) == ib("NETA", "mlx5_0", 1)
    assert normalize_entry({"pnet_id": "NETB"}, allow_bare=True)["interface"] is None
    for item, msg in (
        ({"pnet_id": "A" * 17, "interface": "eth0"}, "pnet_id"),
        ({"pnet_id": "NET-A", "interface": "eth0"}, "1 to 16 characters"),
        ({"pnet_id": "NETA"}, "needs interface"),
        ({"pnet_id": "NETA", "interface": "eth0", "ib_device": "mlx5_0"}, "not both"),
        ({"pnet_id": "NETA", "interface": "a/b"}, "interface"),
        ({"pnet_id": "NETA", "interface": "eth0", "port": 1}, "port"),
        ({"pnet_id": "NETA", "ib_device": "mlx5_0", "port": 3}, "expected 1 or 2"),
        ({"pnet_id": "NETA", "bogus": 1}, "unknown keys"),
    ):
        with pytest.raises(PnetError) as exc:
            normalize_entry(item, 4)
        assert msg in str(exc.value) and "config[4]" in str(exc.value)


@pytest.mark.parametrize(
    "name,ok",
    [
        ("enc8200", True),
        ("v$(id>x)", True),
        ("a%n", True),
        ("x;y", True),
        ('q"q', True),
        ("-f", True),
        ("a\x1bb", False),  # legal in the kernel; the collection's one rule refuses control characters
        ("\u00fc" * 7, True),  # 14 bytes
        ("x" * 15, True),
        ("x" * 16, False),
        ("\u00fc" * 8, False),  # 16 bytes
        ("\u00e0", False),  # UTF-8 c3 a0: the kernel's isspace(0xa0)
        ("", False),
        (".", False),
        ("..", False),
        ("a/b", False),
        ("a:b", False),
        ("a b", False),
        ("eth0\n", False),
        ("eth0\r", False),
        ("a\tb", False),
        ("a\x0bb", False),
        ("a\x00b", False),
        ("a\udc80", False),
    ],
)
def test_interface_names_as_the_kernel_checks_them(name, ok):
    assert ifname_ok(name) is ok
    if not ok:
        with pytest.raises(PnetError) as exc:
            normalize_entry({"pnet_id": "NETA", "interface": name}, 2)
        assert str(exc.value).startswith("config[2].interface: ")


@pytest.mark.parametrize(
    "name,ok",
    [
        ("mlx5_0", True),
        ("0001:00:00.0", True),
        ("x;$(id)", True),
        ("m" * 63, True),
        ("m" * 64, False),
        ("mlx 5", False),
        ("mlx5\n", False),
        ("a\x00", False),
        ("", False),
    ],
)
def test_device_names(name, ok):
    assert ibdev_ok(name) is ok


@pytest.mark.parametrize("pnet_id", ["NETA\n", " NETA", "NETA ", "NET;A", "%n", "$(id)", "", "A" * 17, 7])
def test_pnet_ids_are_whole_strings(pnet_id):
    with pytest.raises(PnetError) as exc:
        normalize_entry({"pnet_id": pnet_id, "interface": "eth0"}, 0)
    assert str(exc.value).startswith("config[0].pnet_id: ")


def test_parse_table_keeps_hostile_names_as_data():
    text = "NETA v$(id>x) n/a 255\nNETA a%n n/a 255\nNETB n/a x;y 2\nNETC\nX Y Z 1²\n"
    assert parse_table(text) == [eth("NETA", "v$(id>x)"), eth("NETA", "a%n"), ib("NETB", "x;y", 2)]


def test_merged_adds_only_what_is_missing_and_is_idempotent():
    current = table()
    config = [eth("NETA", "enc8200"), ib("NETC", "mlx5_3", 1)]
    commands, after = plan("merged", config, current)
    assert commands == [["smc_pnet", "-a", "NETC", "-D", "mlx5_3", "-P", "1"]]
    assert simulate(current, commands) == simulate(after, [])
    again, dummy = plan("merged", config, simulate(current, commands))
    assert again == []


def test_merged_moves_an_interface_by_rebuilding_its_old_pnet_id():
    current = table()
    commands, after = plan("merged", [eth("NETB", "enc8200")], current)
    assert commands == [
        ["smc_pnet", "-d", "NETA"],
        ["smc_pnet", "-a", "NETA", "-D", "mlx5_0", "-P", "1"],
        ["smc_pnet", "-a", "NETB", "-I", "enc8200"],
    ]
    result = simulate(current, commands)
    assert result == simulate(after, [])
    assert eth("NETB", "enc8200") in result and ib("NETA", "mlx5_0") in result


def test_overridden_makes_the_table_exact():
    current = table()
    config = [eth("NETA", "enc8200"), ib("NETR", "mlx5_1", 1)]
    commands, after = plan("overridden", config, current)
    result = simulate(current, commands)
    assert result == simulate(config, [])
    assert ["smc_pnet", "-d", "NETB"] in commands
    assert plan("overridden", config, result)[0] == []
    assert plan("overridden", [], current)[0] == [["smc_pnet", "-f"]]
    assert plan("overridden", [], [])[0] == []
    with pytest.raises(PnetError):
        plan("overridden", [eth("NETA", "eth0"), eth("NETB", "eth0")], [])


def test_deleted_entries_whole_ids_and_flush():
    current = table()
    commands, after = plan("deleted", [ib("NETA", "mlx5_0", 1)], current)
    assert commands == [["smc_pnet", "-d", "NETA"], ["smc_pnet", "-a", "NETA", "-I", "enc8200"]]
    assert simulate(current, commands) == simulate(after, [])
    commands, after = plan(
        "deleted", [{"pnet_id": "NETR", "interface": None, "ib_device": None, "port": None}], current
    )
    assert commands == [["smc_pnet", "-d", "NETR"]]
    assert plan("deleted", [eth("NETX", "eth9")], current)[0] == []
    assert plan("deleted", [], current)[0] == [["smc_pnet", "-f"]]
    assert plan("deleted", [], [])[0] == []


def test_gathered_is_read_only():
    commands, after = plan("gathered", [], table())
    assert commands == []
    assert to_config(after)[:2] == [
        {"pnet_id": "NETA", "interface": "enc8200"},
        {"pnet_id": "NETA", "ib_device": "mlx5_0", "port": 1},
    ]
    assert {"pnet_id": "NETB", "interface": "bond0"} in to_config(after)
