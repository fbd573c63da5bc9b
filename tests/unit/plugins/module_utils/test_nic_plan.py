# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""nic_tuning planning without a host: normalizing a config item and resolving it against what the
driver reports (the module tests cover the same through a fake host)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.s390x.network.plugins.module_utils.nic import plan


def entry_of(**item):
    item.setdefault("name", "eth0")
    entry, errors = plan.normalize_entry(item, 0)
    assert errors == []
    return entry


def iface_of(**fields):
    iface = {
        "exists": True,
        "driver": "dummy",
        "device": None,
        "card_type": None,
        "channels": {"max": {"rx": 8, "tx": 8, "other": None, "combined": None}, "current": {}},
        "rings": None,
        "features": None,
        "rps": {0: frozenset(), 1: frozenset()},
        "rx_queues": 2,
        "queue_irqs": [],
        "irq_sel": {},
        "affinity": {},
    }
    iface["channels"]["current"] = {"rx": 2, "tx": 2, "other": None, "combined": None}
    iface.update(fields)
    return iface


def feature(active, group=False, children=(), parent=None, fixed=False):
    return {
        "active": active,
        "fixed": fixed,
        "requested": None if group else active,
        "group": group,
        "children": list(children),
        "parent": parent,
    }


def test_normalize_entry_takes_text_values():
    entry = entry_of(channels={"rx": "4"}, features={"tso": "off"}, rps_cpus={"1": "0-1"}, irq_affinity={" rx-0 ": 3})
    assert entry["channels"] == {"rx": 4}
    assert entry["features"] == {"tso": False}
    assert entry["rps_cpus"] == {1: frozenset([0, 1])}
    assert entry["irq_affinity"] == {"rx-0": frozenset([3])}
    assert entry["irqbalance"] == "ignore"


def test_normalize_entry_reports_every_bad_field():
    item = {
        "name": "eth0",
        "bogus": 1,
        "channels": {"rx": -1, "nope": 1},
        "rings": {"rx": 0, "tx": None},
        "features": {"tso": "on", "tcp-segmentation-offload": "on"},
        "rps_cpus": {"all": "0", 0: "1"},
        "irqbalance": "ban",
    }
    entry, errors = plan.normalize_entry(item, 2)
    where = "config[2] (eth0)"
    assert errors == [
        "config[2]: unknown keys bogus; allowed: %s" % ", ".join(plan.ENTRY_KEYS),
        "%s.features.tcp-segmentation-offload: names the same feature as features.tso "
        "(tcp-segmentation-offload)" % where,
        "%s.channels.rx: -1 is outside 0..4294967295" % where,
        "%s.channels: unknown key 'nope'; allowed: rx, tx, other, combined" % where,
        "%s.rings.rx: 0 is outside 1..4294967295" % where,
        "%s.rps_cpus: 'all' and single queues together; give one or the other" % where,
        "%s.irqbalance: ban bans the IRQs of irq_affinity, and this entry has none" % where,
    ]
    assert entry["irqbalance"] == "ignore"


def test_normalize_entry_gathered_ignores_settings():
    entry, errors = plan.normalize_entry({"name": "eth0", "channels": "x"}, 0, "gathered")
    assert errors == [] and entry["channels"] == {}
    assert plan.normalize_entry("eth0", 1)[0] is None


def test_channels_above_maximum_and_without_rx():
    entry = entry_of(channels={"rx": 9, "tx": 4})
    want, errors = plan.resolve_channels(entry, iface_of())
    assert want == {"tx": 4}
    assert errors == [
        "config[0] (eth0).channels.rx: 9 is above the maximum 8 that dummy reports (ethtool -l eth0, pre-set maximums)"
    ]
    want, errors = plan.resolve_channels(entry_of(channels={"rx": 0}), iface_of())
    assert want == {"rx": 0}
    assert errors[0].startswith("config[0] (eth0).channels: the interface would have no RX channel")


def test_rps_follows_the_channel_change():
    iface = iface_of()
    want, errors = plan.resolve_rps(entry_of(rps_cpus={"all": "1"}), iface, frozenset([0, 1]), {"rx": 4}, False)
    assert errors == [] and want == dict((q, frozenset([1])) for q in range(4))
    want, errors = plan.resolve_rps(entry_of(rps_cpus={3: "1"}), iface, frozenset([0, 1]), {}, False)
    assert want == {}
    assert errors == ["config[0] (eth0).rps_cpus.3: eth0 has 2 RX queues (rx-0..rx-1)"]
    want, errors = plan.resolve_rps(entry_of(rps_cpus={0: "5"}), iface, frozenset([0, 1]), {"rx": 1}, True)
    assert errors == ["config[0] (eth0).rps_cpus.0: CPU 5 not online (online: 0-1)"]
    assert want == {0: frozenset()}


def test_affinity_conflict_between_keys():
    iface = iface_of(irq_sel={"all": [(40, "eth0-0"), (41, "eth0-1")], "rx-1": [(41, "eth0-1")]})
    entry = entry_of(irq_affinity={"all": "0", "rx-1": "1"})
    want, errors = plan.resolve_affinity(entry, iface, frozenset([0, 1]))
    assert want == {40: ("eth0-0", frozenset([0])), 41: ("eth0-1", frozenset([0]))}
    assert errors == ["config[0] (eth0).irq_affinity.rx-1: IRQ 41 (eth0-1) is also irq_affinity.all with other CPUs"]


def test_affinity_without_known_irqs_suggests_a_glob():
    want, errors = plan.resolve_affinity(entry_of(irq_affinity={"rx-0": "0"}), iface_of(), None)
    assert want == {}
    assert errors == [
        "config[0] (eth0).irq_affinity.rx-0: no queue IRQs of eth0 found in /proc/interrupts (dummy: its IRQ "
        "names are not known to the module); name them with a glob of their names instead"
    ]
    _want, errors = plan.resolve_affinity(entry_of(irq_affinity={"eth0-*": "0"}), iface_of(), None)
    assert errors == ["config[0] (eth0).irq_affinity.eth0-*: matches no IRQ in /proc/interrupts"]


def test_features_group_and_member_together():
    feats = {
        "tcp-segmentation-offload": feature(True, group=True, children=["tx-tcp-segmentation"]),
        "tx-tcp-segmentation": feature(True, parent="tcp-segmentation-offload"),
        "rx-gro-hw": feature(False, fixed=True),
    }
    entry = entry_of(features={"tso": False, "tx-tcp-segmentation": True, "rx-gro-hw": True})
    want, errors = plan.resolve_features(entry, iface_of(features=feats))
    assert want == [("tcp-segmentation-offload", False)]
    assert errors == [
        "config[0] (eth0).features.tx-tcp-segmentation: tx-tcp-segmentation is a member of "
        "tcp-segmentation-offload; set the group or its members, not both",
        "config[0] (eth0).features.rx-gro-hw: cannot be on: fixed off by the driver ([fixed] in ethtool -k)",
    ]


def test_resolve_bans_irqs_and_warns_about_a_running_irqbalance():
    iface = iface_of(irq_sel={"all": [(41, "eth0-1"), (40, "eth0-0")]})
    current = {"ifaces": {"eth0": iface}, "online": frozenset([0, 1]), "irqbalance": {"running": True}}
    warnings = []
    want, errors = plan.resolve(entry_of(irq_affinity={"all": "1"}, irqbalance="ban"), current, False, warnings.append)
    assert errors == [] and warnings == [] and want["ban"] == [40, 41]
    want, errors = plan.resolve(entry_of(irq_affinity={"all": "1"}), current, False, warnings.append)
    assert want["ban"] == [] and len(warnings) == 1 and "irqbalance is running" in warnings[0]
    current["ifaces"]["eth0"] = dict(iface, exists=False)
    assert plan.resolve(entry_of(), current, True, warnings.append) == (
        None,
        ["config[0] (eth0): no such network interface (/sys/class/net/eth0)"],
    )
