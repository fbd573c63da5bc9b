# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What each NIC driver allows for channels and rings, beyond the maxima ``ethtool -l``/``-g`` report.

The maxima of a running interface always come from the driver (``ethtool -l``/``-g``, read before
anything changes); this table adds the rules those maxima do not show, so that a request the
driver would refuse is refused before the first command runs, with the reason. Every number and
rule names its source (document, or driver file and constant / function).

Keys per driver:

* ``channels``: the channel kinds ``ethtool -L`` takes (others are refused here);
* ``channels_min``: smallest count per kind; ``channels_max``: the driver's own ceiling (the
  interface's ``ethtool -l`` maximum is usually lower and always applies);
* ``rings``: whether ``ethtool -G`` can change anything (the driver has ``set_ringparam``);
  ``rings_min``, ``rings_max``; ``rings_power_of_two``: sizes the driver rounds up to a power of two
  (refused here, so that a second run does not see a difference and run again);
* ``resets``: the ethtool changes after which the driver resets the device (the link goes down
  briefly): ``allow_disruptive`` is needed on the interface that carries the management connection;
* ``irqs``: whether the module knows the names of the driver's queue IRQs (``nic_irq``);
* ``notes``: constraints the module cannot check, shown in the documentation and in warnings.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DRIVER_LIMITS = {
    "virtio_net": {
        "channels": ("combined",),
        "channels_min": {"combined": 1},
        # VIRTIO_NET_CTRL_MQ_VQ_PAIRS_MAX 0x8000 (include/uapi/linux/virtio_net.h); the device's
        # max_virtqueue_pairs (QEMU/libvirt <driver queues='N'>) is what ethtool -l shows.
        "channels_max": {"combined": 0x8000},
        "rings": True,  # virtnet_set_ringparam, Linux 6.0 (virtqueue resize, VIRTIO_F_RING_RESET)
        "rings_max": {"rx": 1024, "tx": 1024},  # QEMU hw/net/virtio-net.c VIRTIO_NET_RX/TX_QUEUE_MAX_SIZE
        "rings_min": {},
        "rings_power_of_two": False,
        "resets": (),
        "irqs": True,
        "sources": [
            "drivers/net/virtio_net.c virtnet_get_channels/virtnet_set_channels (combined only; EINVAL while XDP is attached)",
            "drivers/net/virtio_net.c virtnet_set_ringparam (no rx-mini/rx-jumbo; needs the device's VIRTIO_F_RING_RESET)",
            "include/uapi/linux/virtio_net.h VIRTIO_NET_CTRL_MQ_VQ_PAIRS_MAX",
            "QEMU hw/net/virtio-net.c VIRTIO_NET_RX_QUEUE_MAX_SIZE/VIRTIO_NET_TX_QUEUE_MAX_SIZE (VIRTQUEUE_MAX_SIZE, 1024)",
        ],
        "notes": [
            "combined channels above the guest's vCPU count bring no gain (Red Hat Virtualization Tuning "
            "and Optimization Guide 5.4.2, multi-queue virtio-net)",
            "a split virtqueue's size is a power of 2 (virtio 1.x specification, 2.6 Split Virtqueues)",
            "on s390 KVM guests virtio-net uses the CCW transport with adapter interrupts: no per-queue IRQs "
            "to bind; use RPS instead",
        ],
    },
    "mlx5_core": {
        "channels": ("combined",),
        "channels_min": {"combined": 1},
        "channels_max": {},  # min(completion vectors, MLX5E_MAX_NUM_CHANNELS): what ethtool -l shows
        "rings": True,
        # en.h MLX5E_PARAMS_MINIMUM_LOG_RQ_SIZE 0x7 / MAXIMUM 0xd; MLX5E_PARAMS_MINIMUM_LOG_SQ_SIZE 0x6 / MAXIMUM 0xd
        "rings_min": {"rx": 128, "tx": 64},
        "rings_max": {"rx": 8192, "tx": 8192},
        "rings_power_of_two": True,  # mlx5e_ethtool_set_ringparam stores order_base_2(size)
        "resets": (),
        "irqs": True,
        "sources": [
            "drivers/net/ethernet/mellanox/mlx5/core/en.h MLX5E_PARAMS_{MINIMUM,MAXIMUM}_LOG_{RQ,SQ}_SIZE",
            "drivers/net/ethernet/mellanox/mlx5/core/en_ethtool.c mlx5e_ethtool_set_ringparam (rx-mini/rx-jumbo "
            "not supported; sizes rounded up to a power of 2), mlx5e_ethtool_set_channels (combined only)",
            "drivers/net/ethernet/mellanox/mlx5/core/pci_irq.c IRQ names mlx5_comp<n>@pci:<address>",
        ],
        "notes": [
            "on IBM Z the RoCE Express adapters are mlx5 PCI functions; IRQ affinity needs the directed "
            "interrupts of z15 and later",
        ],
    },
    "ibmvnic": {
        "channels": ("rx", "tx"),
        "channels_min": {"rx": 1, "tx": 1},
        "channels_max": {"rx": 16, "tx": 16},  # ibmvnic.h IBMVNIC_MAX_QUEUES 16
        "rings": True,
        "rings_min": {},
        "rings_max": {"rx": 4096, "tx": 4096},  # ibmvnic.h IBMVNIC_MAX_QUEUE_SZ 4096
        "rings_power_of_two": False,
        "resets": ("channels", "rings"),  # ibmvnic_set_channels/_set_ringparam -> wait_for_reset
        "irqs": True,
        "sources": [
            "drivers/net/ethernet/ibm/ibmvnic.h IBMVNIC_MAX_QUEUES (16), IBMVNIC_MAX_QUEUE_SZ (4096)",
            "drivers/net/ethernet/ibm/ibmvnic.c ibmvnic_get_channels (maxima from the VIOS), "
            "ibmvnic_set_channels/ibmvnic_set_ringparam (reset of the adapter)",
            "IBM PowerVM vNIC tuning document: ethtool -L ethX rx 8 tx 8; 16 queues when the SR-IOV port is "
            "configured for maximum performance",
        ],
        "notes": [
            "the maxima come from the VIOS; on PCIe (SR-IOV) backing devices a ring size the VIOS allows can "
            "still fail with ENOMEM ('Cannot allocate memory'): the module rolls back and reports it",
            "older kernels kept an RX pool in one DMA buffer of at most 16 MB (IBMVNIC_MAX_LTB_SIZE): 1763 "
            "buffers at MTU 9000, until commit 'ibmvnic: Allow multiple ltbs in rxpool ltb_set'",
        ],
    },
    "qeth_l2": {
        "channels": ("tx",),
        # qeth_core.h QETH_IQD_MIN_TXQ 2 (HiperSockets: one mcast, one ucast queue); OSA: 1
        "channels_min": {"tx": 1},
        "channels_max": {"tx": 4},  # qeth_core.h QETH_MAX_QUEUES 4
        "rings": False,  # qeth_ethtool.c has get_ringparam only
        "rings_min": {},
        "rings_max": {"rx": 128, "tx": 128},  # asm/qdio.h QDIO_MAX_BUFFERS_PER_Q 128
        "rings_power_of_two": False,
        "resets": (),
        "irqs": False,
        "sources": [
            "drivers/s390/net/qeth_ethtool.c qeth_get_channels/qeth_set_channels, qeth_get_ringparam",
            "drivers/s390/net/qeth_core.h QETH_MAX_QUEUES (4), QETH_IQD_MIN_TXQ (2), QETH_IN_BUF_COUNT_MIN/MAX (8/128)",
        ],
        "notes": [
            "HiperSockets: at least 2 TX queues, and fewer TX queues only while the interface is down (EPERM)",
            "OSA with priority queueing (priority_queueing attribute) refuses a channel change (EPERM)",
            "the RX ring is the qeth buffer_count attribute (8-128): set it with s390x.network.qeth_device",
        ],
    },
    "veth": {
        "channels": ("rx", "tx"),
        "channels_min": {"rx": 1, "tx": 1},
        "channels_max": {},  # numrxqueues/numtxqueues given at creation: what ethtool -l shows
        "rings": False,
        "rings_min": {},
        "rings_max": {},
        "rings_power_of_two": False,
        "resets": (),
        "irqs": False,
        "sources": [
            "drivers/net/veth.c veth_get_channels/veth_set_channels (Linux 5.13, rx and tx; combined is refused)",
        ],
        "notes": [
            "a software device: no rings (ethtool -g answers 'Operation not supported') and no IRQs",
        ],
    },
}
DRIVER_LIMITS["qeth_l3"] = dict(DRIVER_LIMITS["qeth_l2"])
#: HiperSockets need 2 TX queues (QETH_IQD_MIN_TXQ)
QETH_IQD_MIN_TXQ = 2


def limits(driver):
    """The table entry of ``driver``; None for a driver the table does not know."""
    return DRIVER_LIMITS.get(driver)


def is_power_of_two(value):
    return value > 0 and value & (value - 1) == 0


def channel_problems(driver, want, card_type=None):
    """Reasons (key, text) why ``want`` (channel counts) breaks a rule of ``driver`` beyond the
    maxima ethtool reports."""
    entry = limits(driver)
    if entry is None:
        return []
    problems = []
    for key, value in sorted(want.items()):
        if value is None:
            continue
        if key not in entry["channels"]:
            if value:
                problems.append((key, "%s sets only %s channels" % (driver, "/".join(entry["channels"]))))
            continue
        low = entry["channels_min"].get(key)
        if driver.startswith("qeth") and key == "tx" and card_type == "HiperSockets":
            low = QETH_IQD_MIN_TXQ
        if low is not None and value < low:
            problems.append((key, "%d is below the %s minimum %d" % (value, driver, low)))
        high = entry["channels_max"].get(key)
        if high is not None and value > high:
            problems.append((key, "%d is above the %s maximum %d" % (value, driver, high)))
    return problems


def ring_problems(driver, want):
    """Reasons (key, text) why ``want`` (ring sizes) breaks a rule of ``driver``."""
    entry = limits(driver)
    if entry is None:
        return []
    if not entry["rings"]:
        hint = ""
        if driver.startswith("qeth"):
            hint = " (its RX buffers are the qeth buffer_count attribute, set with s390x.network.qeth_device)"
        return [(sorted(want)[0], "%s cannot change ring sizes with ethtool -G%s" % (driver, hint))]
    problems = []
    for key, value in sorted(want.items()):
        low = entry["rings_min"].get(key)
        if low is not None and value < low:
            problems.append((key, "%d is below the %s minimum %d" % (value, driver, low)))
        high = entry["rings_max"].get(key)
        if high is not None and value > high:
            problems.append((key, "%d is above the %s maximum %d" % (value, driver, high)))
        if entry["rings_power_of_two"] and key in ("rx", "tx") and not is_power_of_two(value):
            problems.append(
                (key, "%d is not a power of 2 (%s would round it up and report another size)" % (value, driver))
            )
    return problems


def resets(driver, what):
    """Whether changing ``what`` (``channels`` or ``rings``) resets the device of ``driver``."""
    entry = limits(driver)
    return bool(entry) and what in entry["resets"]
