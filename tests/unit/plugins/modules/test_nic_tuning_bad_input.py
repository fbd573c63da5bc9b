# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""nic_tuning, bad input: refused with a message that names the field and what is allowed, before
ethtool is looked up or any file of the host is read (also for state rendered)."""

from __future__ import absolute_import, division, print_function

import pytest

from ansible_collections.s390x.network.plugins.modules import nic_tuning
from ansible_collections.s390x.network.tests.unit.plugins.modules.host_guard import HostGuard


def one(**settings):
    return {"config": [dict(settings, name=settings.pop("name", "eth0"))]}


CASES = [
    ("no interface", {"config": []}, ["config: give at least one interface"]),
    ("name with a blank", one(name="eth 0"), ["config[0].name: 'eth 0' is not a network interface name"]),
    ("name with a slash", one(name="a/b"), ["config[0].name: 'a/b' is not a network interface name"]),
    ("name too long", one(name="x" * 16), ["config[0].name: ", "1 to 15 bytes", "it has 16 bytes"]),
    # the kernel's grammar (dev_valid_name), and no control or format characters
    ("name with a newline", one(name="eth0\n"), ["config[0].name: 'eth0\\n' is not a network interface name"]),
    ("name with a CR", one(name="eth0\r"), ["config[0].name: 'eth0\\r' is not a network", "control"]),
    ("name with a NUL", one(name="e\x00"), ["config[0].name: 'e\\x00' is not a network", "control"]),
    ("name with a tab", one(name="e\t1"), ["config[0].name: 'e\\t1' is not a network interface name"]),
    ("name with a BiDi override", one(name="e\u202e1"), ["config[0].name: ", "control or format"]),
    ("name too long in UTF-8", one(name="\u00e9" * 8), ["config[0].name: ", "it has 16 bytes"]),
    ("name with a Latin-1 blank byte", one(name="\u00e0"), ["config[0].name: ", "the byte 0xa0"]),
    ("name dot", one(name="."), ["config[0].name: '.' is not a network interface name", "names a directory"]),
    ("name dot-dot", one(name=".."), ["config[0].name: '..' is not a network interface name"]),
    ("name path", one(name="../../etc/x"), ["config[0].name: '../../etc/x' is not a network interface name"]),
    ("name absolute", one(name="/etc/x"), ["config[0].name: '/etc/x' is not a network interface name"]),
    ("name with a colon", one(name="eth0:1"), ["config[0].name: 'eth0:1' is not a network interface name"]),
    ("name empty", one(name=""), ["config[0].name: '' is not a network interface name", "it is empty"]),
    ("name leading dash", one(name="-a"), ["config[0].name: '-a' starts with - (nmcli would read it as an option)"]),
    (
        "one interface twice",
        {"config": [{"name": "eth0"}, {"name": "eth0", "channels": {"combined": 2}}]},
        ["config[1] (eth0): interface eth0 is also config[0]"],
    ),
    (
        "feature value",
        one(features={"tso": "maybe"}),
        ["config[0] (eth0).features.tso: expected true/false (on/off), got 'maybe'"],
    ),
    (
        "feature name",
        one(features={"bad name!": True}),
        ["config[0] (eth0).features: 'bad name!' is not a feature name"],
    ),
    (
        "feature twice",
        one(features={"tso": True, "tcp-segmentation-offload": False}),
        ["features.tcp-segmentation-offload: names the same feature as features.tso (tcp-segmentation-offload)"],
    ),
    (
        "channels negative",
        one(channels={"combined": -1}),
        ["config[0] (eth0).channels.combined: -1 is outside 0..4294967295"],
    ),
    ("channels not a number", one(channels={"combined": "four"}), ["combined", "int"]),
    ("channels unknown key", one(channels={"queues": 4}), ["Unsupported parameters", "queues"]),
    ("ring of 0", one(rings={"rx": 0}), ["config[0] (eth0).rings.rx: 0 is outside 1..4294967295"]),
    (
        "rps key",
        one(rps_cpus={"first": "0"}),
        ["config[0] (eth0).rps_cpus.first: the key is an RX queue index (0, 1, ...) or 'all'"],
    ),
    ("rps cpu list", one(rps_cpus={"0": "3-1"}), ["config[0] (eth0).rps_cpus.0: '3-1': range 3-1 goes down"]),
    ("rps mask", one(rps_cpus={"0": "0xzz"}), ["config[0] (eth0).rps_cpus.0: '0xzz' is not a CPU mask"]),
    ("rps all and a queue", one(rps_cpus={"all": "0", "1": "1"}), ["rps_cpus: 'all' and single queues together"]),
    (
        "irq without CPUs",
        one(irq_affinity={"all": ""}),
        ["config[0] (eth0).irq_affinity.all: an IRQ needs at least one CPU"],
    ),
    (
        "irq cpu list",
        one(irq_affinity={"rx-0": "a-b"}),
        ["config[0] (eth0).irq_affinity.rx-0: 'a-b' is not a CPU list"],
    ),
    ("ban without irqs", one(irqbalance="ban"), ["config[0] (eth0).irqbalance: ban bans the IRQs of irq_affinity"]),
    ("irqbalance choice", one(irqbalance="stop"), ["irqbalance", "ignore, ban"]),
    ("state choice", dict(one(), state="deleted"), ["state", "merged, replaced, gathered, rendered"]),
    ("persist_method choice", dict(one(), persist_method="udev"), ["persist_method", "auto, networkmanager, unit"]),
    (
        "every problem at once",
        {"config": [{"name": "eth0", "channels": {"rx": -2}, "rings": {"tx": 0}}, {"name": "e/1"}]},
        ["channels.rx: -2 is outside", "rings.tx: 0 is outside", "config[1].name: 'e/1'"],
    ),
]


@pytest.mark.parametrize("name,args,fragments", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_refused_before_the_host_is_read(monkeypatch, run_module, name, args, fragments):
    HostGuard(monkeypatch, run_module).refuses(nic_tuning.main, args, fragments)


@pytest.mark.parametrize("name,args,fragments", CASES[:6], ids=[c[0] for c in CASES[:6]])
def test_rendered_refuses_the_same(monkeypatch, run_module, name, args, fragments):
    HostGuard(monkeypatch, run_module).refuses(nic_tuning.main, dict(args, state="rendered"), fragments)
