# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""CPU lists and masks in the kernel's formats, queue IRQs by driver, irqbalance's banned IRQs."""

from __future__ import absolute_import, division, print_function

import os

import pytest

from ansible_collections.s390x.network.plugins.module_utils.nic import irq as nic_irq

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "ethtool")


@pytest.mark.parametrize(
    "value, cpus",
    [
        ("0-3,8", {0, 1, 2, 3, 8}),
        ("5", {5}),
        (" 0 , 2-3 ", {0, 2, 3}),
        ([0, 1, "4-5"], {0, 1, 4, 5}),
        (7, {7}),
        ("", set()),
        ([], set()),
        (None, set()),
    ],
)
def test_parse_cpulist(value, cpus):
    assert nic_irq.parse_cpulist(value) == frozenset(cpus)


@pytest.mark.parametrize("value", ["3-1", "a", "1,,2", "-1", True, -2, "0-99999"])
def test_parse_cpulist_rejects(value):
    with pytest.raises(nic_irq.CpuSetError):
        nic_irq.parse_cpulist(value)


@pytest.mark.parametrize(
    "cpus, text", [({0, 1, 2, 3, 8}, "0-3,8"), ({1}, "1"), (set(), ""), ({0, 2, 4}, "0,2,4"), ({6, 7}, "6-7")]
)
def test_format_cpulist(cpus, text):
    assert nic_irq.format_cpulist(frozenset(cpus)) == text


@pytest.mark.parametrize(
    "text, cpus",
    [
        ("0", set()),
        ("3", {0, 1}),
        ("0000000f", {0, 1, 2, 3}),
        ("00000001,00000000", {32}),
        ("ff,00000000,00000001", {0, 64, 65, 66, 67, 68, 69, 70, 71}),
        ("0x0f", {0, 1, 2, 3}),
        ("0x100000000", {32}),
    ],
)
def test_masks_round_trip(text, cpus):
    assert nic_irq.parse_mask(text) == frozenset(cpus)
    assert nic_irq.parse_mask(nic_irq.format_mask(frozenset(cpus))) == frozenset(cpus)


def test_format_mask_words():
    assert nic_irq.format_mask(frozenset()) == "0"
    assert nic_irq.format_mask(frozenset([0, 1, 2, 3])) == "f"
    assert nic_irq.format_mask(frozenset([32])) == "1,00000000"
    assert nic_irq.format_mask(frozenset([0, 64])) == "1,00000000,00000001"


@pytest.mark.parametrize("text", ["g", "1,123456789", "0x", ""])
def test_parse_mask_rejects(text):
    with pytest.raises(nic_irq.CpuSetError):
        nic_irq.parse_mask(text)


def test_parse_cpus_tells_masks_from_lists():
    assert nic_irq.parse_cpus("0xf") == frozenset([0, 1, 2, 3])
    assert nic_irq.parse_cpus("00000000,0000000f") == frozenset([0, 1, 2, 3])
    assert nic_irq.parse_cpus("10") == frozenset([10])  # a CPU list, not a mask
    assert nic_irq.parse_cpus("0-1,10") == frozenset([0, 1, 10])


def test_interrupts_of_a_virtio_guest():
    """The captured /proc/interrupts: virtio2 is the NIC (eth0), its queue IRQs are 38 and 39."""
    with open(os.path.join(FIXTURES, "virtio_net_proc_interrupts.txt")) as handle:
        table = nic_irq.parse_interrupts(handle.read())
    by_irq = dict((e["irq"], e["names"]) for e in table)
    assert by_irq[38] == ["virtio2-input.0"] and by_irq[39] == ["virtio2-output.0"]
    assert by_irq[26] == ["ttyS0"]
    irqs = nic_irq.interface_irqs("virtio_net", "virtio2", table)
    assert irqs == [
        {"irq": 38, "name": "virtio2-input.0", "direction": "rx", "index": 0},
        {"irq": 39, "name": "virtio2-output.0", "direction": "tx", "index": 0},
    ]
    assert nic_irq.select_irqs("all", irqs, table) == [(38, "virtio2-input.0"), (39, "virtio2-output.0")]
    assert nic_irq.select_irqs("rx-0", irqs, table) == [(38, "virtio2-input.0")]
    assert nic_irq.select_irqs("1", irqs, table) == []
    assert nic_irq.select_irqs("virtio2-*put.0", irqs, table) == [(38, "virtio2-input.0"), (39, "virtio2-output.0")]


MLX5 = """            CPU0       CPU1       CPU2       CPU3
 64:          0          0          0          0   PCI-MSI  mlx5_async@pci:0001:00:00.0
 65:       1234          0          0          0   PCI-MSI  mlx5_comp0@pci:0001:00:00.0
 66:          0       4321          0          0   PCI-MSI  mlx5_comp1@pci:0001:00:00.0
 67:          0          0          1          0   PCI-MSI  mlx5_comp0@pci:0002:00:00.0
 70:          5          5          5          5   XICS 4096 Edge      ibmvnic-30000002-tx0, shared-other
 71:          5          5          5          5   XICS 4097 Edge      ibmvnic-30000002-rx0
NMI:          0          0          0          0   Non-maskable interrupts
EXT:       1000       1000       1000       1000
"""


def test_interrupts_of_mlx5_and_ibmvnic():
    table = nic_irq.parse_interrupts(MLX5)
    assert [e["irq"] for e in table] == [64, 65, 66, 67, 70, 71]
    assert table[4]["names"] == ["ibmvnic-30000002-tx0", "shared-other"]
    mlx5 = nic_irq.interface_irqs("mlx5_core", "0001:00:00.0", table)
    assert [(q["irq"], q["direction"], q["index"]) for q in mlx5] == [(65, "both", 0), (66, "both", 1)]
    assert nic_irq.select_irqs("tx-1", mlx5, table) == [(66, "mlx5_comp1@pci:0001:00:00.0")]
    vnic = nic_irq.interface_irqs("ibmvnic", "30000002", table)
    assert [(q["irq"], q["direction"]) for q in vnic] == [(71, "rx"), (70, "tx")]
    assert nic_irq.interface_irqs("qeth_l2", "0.0.bd00", table) == []
    assert nic_irq.interface_irqs("virtio_net", None, table) == []


def test_key_kinds():
    assert [nic_irq.key_kind(k) for k in ("all", "3", "rx-2", "tx-0", "eth0-*")] == [
        "all",
        "queue",
        "direction",
        "direction",
        "glob",
    ]


ENV = """# irqbalance is a daemon process that distributes interrupts across
#IRQBALANCE_BANNED_CPUS=
IRQBALANCE_ARGS="--policyscript=/etc/irq.sh --banirq=12"
"""


def test_banned_irqs_added_and_removed():
    assert nic_irq.banned_irqs(ENV) == [12]
    text = nic_irq.with_banned_irqs(ENV, add=[38, 39])
    assert text.splitlines()[-1] == 'IRQBALANCE_ARGS="--policyscript=/etc/irq.sh --banirq=12 --banirq=38 --banirq=39"'
    assert nic_irq.banned_irqs(text) == [12, 38, 39]
    assert "--policyscript=/etc/irq.sh" in text and text.startswith("# irqbalance is")
    assert nic_irq.banned_irqs(nic_irq.with_banned_irqs(text, remove=[12])) == [38, 39]
    # a file without the variable (Debian's default has it commented out) gets it appended
    plain = nic_irq.with_banned_irqs("#IRQBALANCE_ARGS=\n", add=[7])
    assert plain == '#IRQBALANCE_ARGS=\nIRQBALANCE_ARGS="--banirq=7"\n'
    assert nic_irq.with_banned_irqs(None, add=[3]) == 'IRQBALANCE_ARGS="--banirq=3"\n'
    assert nic_irq.banned_irqs("IRQBALANCE_ARGS=--banirq=5\n") == [5]
