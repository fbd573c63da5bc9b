#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: nic_tuning
short_description: Tune NIC offloads, channels, ring buffers, RPS and IRQ affinity, live and at boot
version_added: 0.1.0
description:
  - Sets per network interface the offload features (C(ethtool -K)), the number of channels (queues,
    C(ethtool -L)), the ring buffer sizes (C(ethtool -G)), the Receive Packet Steering CPUs of the RX
    queues (C(/sys/class/net/IF/queues/rx-N/rps_cpus)) and the CPUs of the queue IRQs
    (C(/proc/irq/N/smp_affinity_list)), for virtio-net in KVM guests, RoCE Express (mlx5) on IBM Z,
    OSA and HiperSockets (qeth), PowerVM vNIC (ibmvnic) and veth.
  - Reads the interface first (C(ethtool -i/-l/-g/-k), C(/proc/interrupts), the online CPUs) and refuses,
    before anything is changed, a request the driver cannot take - a channel or ring count above the
    maximum C(ethtool) reports, a channel kind or ring the driver does not have, a feature that is
    C([fixed]), a CPU that is not online, a rule of the driver-limit table (for example mlx5 ring sizes
    that are not a power of 2, HiperSockets with fewer than 2 TX queues, qeth rings, which only the
    qeth C(buffer_count) attribute sets). Errors name the field and the limit.
  - Reads C(ethtool) output as JSON where the installed ethtool has it for the subcommand
    (C(-k) since 5.17, C(-g) since 6.2, C(-l) since 6.15) and as text otherwise.
  - A failing step puts back what the interface's change had done (channel counts, rings, features, RPS
    masks, IRQ affinities, files) and the module reports it in RV(rollback).
  - With O(persistent=true) the settings also apply at boot and whenever the interface appears - through
    the interface's NetworkManager profile (C(ethtool.feature-*), C(ethtool.ring-*) since
    NetworkManager 1.26, C(ethtool.channels-*) since 1.46) when NetworkManager manages it, else, and
    always for RPS and IRQ affinity, through a systemd unit bound to the interface's device. Its
    C(ExecStart=) lines are argument lists, never shell code with values - C(ethtool), then for RPS and
    IRQ affinity a fixed script (C(/etc/s390x-network/nic-tuning/IF.sh), the same text for every
    interface) that gets the interface and the values as arguments; IRQs are found by name at boot
    because their numbers change. See docs/nic-tuning.md.
  - The interface name is checked with the kernel's grammar (1 to 15 bytes, not C(.) or C(..), no C(/),
    C(:), white space, control or format characters) and may not start with C(-) (nmcli would read it as
    an option); any other name the kernel accepts, such as C(a$(b)) or C(q"r), is data everywhere.
  - irqbalance moves IRQs every 10 seconds. The module never stops it; with O(config[].irqbalance=ban) it
    adds C(--banirq=N) for the IRQs it binds to C(IRQBALANCE_ARGS) in irqbalance's environment file and
    reports in RV(irqbalance) whether irqbalance must be restarted to read it.
author:
  - s390x.network contributors (@s390x-network)
extends_documentation_fragment:
  - s390x.network.attributes
options:
  state:
    description:
      - V(merged) applies the given settings and leaves the others as they are. The boot configuration
        keeps the settings of earlier runs that this run does not give.
      - V(replaced) applies the given settings; the interface's boot configuration then holds only them
        (other C(ethtool.*) properties of its NetworkManager profile are reset) and the RPS mask of every
        RX queue not given is cleared. Live channel counts, rings and features that are not given stay
        as they are (there is no default to go back to).
      - V(gathered) returns the current settings of the named interfaces as O(config) entries.
      - V(rendered) returns the commands for the given settings without reading the host.
    type: str
    choices: [merged, replaced, gathered, rendered]
    default: merged
  config:
    description:
      - One entry per network interface.
    type: list
    elements: dict
    required: true
    suboptions:
      name:
        description:
          - The network interface (as C(ip link) shows it); see the description for the names accepted.
        type: str
        required: true
      features:
        description:
          - Offload features to turn on (V(true)) or off (V(false)), by the name C(ethtool -k) shows
            (C(tcp-segmentation-offload), C(rx-gro-hw)), the short name C(ethtool -K) takes (C(tso), C(gro))
            or the kernel name of a feature that C(ethtool -k) shows under a legacy name (C(rx-gro)).
          - A group (C(tcp-segmentation-offload), C(tx-checksumming), C(scatter-gather)) sets all its
            members that are not C([fixed]); give a group or its members, not both.
        type: dict
      channels:
        description:
          - Channel counts (C(ethtool -L)); each at most the pre-set maximum C(ethtool -l) shows. virtio-net
            and mlx5 have combined channels only, ibmvnic and veth RX and TX, qeth TX.
        type: dict
        suboptions:
          rx:
            description: RX channels.
            type: int
          tx:
            description: TX channels.
            type: int
          other:
            description: Other channels (link interrupts and the like).
            type: int
          combined:
            description: Combined (RX and TX) channels.
            type: int
      rings:
        description:
          - Ring sizes in descriptors (C(ethtool -G)); each at most the pre-set maximum C(ethtool -g) shows.
        type: dict
        suboptions:
          rx:
            description: RX ring size.
            type: int
          tx:
            description: TX ring size.
            type: int
          rx_mini:
            description: RX mini ring size.
            type: int
          rx_jumbo:
            description: RX jumbo ring size.
            type: int
      rps_cpus:
        description:
          - Receive Packet Steering, by RX queue index (V(0), V(1), ...) or V(all) (every RX queue, after a
            channel change of this run) to the CPUs that process that queue's packets - a CPU list
            (V(0-3,8) or a list of numbers) or a mask starting with C(0x) (V(0xff)); an empty list turns
            RPS off for the queue.
          - RPS spreads the protocol processing of one queue over several CPUs, which helps on RoCE with
            many connections and on virtio-net with fewer queues than vCPUs.
        type: dict
      irq_affinity:
        description:
          - CPU list per queue IRQ. The key is V(all) (every queue IRQ of the interface), a queue index
            (V(0); the RX and TX IRQ of that queue), V(rx-N) or V(tx-N), or a glob of IRQ names as
            C(/proc/interrupts) shows them (V(eth0-TxRx-*)).
          - The module knows the queue IRQ names of virtio_net (C(virtioN-input.M), C(virtioN-output.M); PCI
            transport only - virtio-ccw on s390 has no per-queue IRQs), mlx5_core (C(mlx5_compM@pci:ADDRESS))
            and ibmvnic (C(ibmvnic-UNIT-rxM), C(ibmvnic-UNIT-txM)); for other drivers use a glob.
        type: dict
      irqbalance:
        description:
          - V(ignore) leaves irqbalance alone (the module warns when it runs, as it may move the IRQs again).
          - V(ban) adds C(--banirq=N) for each IRQ of O(config[].irq_affinity) to C(IRQBALANCE_ARGS) in
            irqbalance's environment file (C(/etc/sysconfig/irqbalance) or C(/etc/default/irqbalance), the one
            its service reads). irqbalance reads it when it starts; RV(irqbalance.restart_needed) says so.
        type: str
        choices: [ignore, ban]
        default: ignore
  persistent:
    description:
      - Also apply the settings at boot and whenever the interface appears (NetworkManager profile or boot
        unit, see the description). V(false) changes the live values only and leaves any boot
        configuration as it is.
    type: bool
    default: true
  persist_method:
    description:
      - V(auto) uses the NetworkManager profile for the ethtool settings its version has properties for when
        NetworkManager manages the interface with an active profile, and the boot unit for the rest.
      - V(networkmanager) requires that (and fails otherwise); V(unit) uses the boot unit only.
    type: str
    choices: [auto, networkmanager, unit]
    default: auto
  allow_disruptive:
    description:
      - Allow a change after which the driver resets the device (ibmvnic on a channel or ring change) on
        the interface that carries the management connection.
    type: bool
    default: false
notes:
  - Supports C(--check) and C(--diff). Check mode reads the interface (C(ethtool) show commands,
    C(nmcli) queries) and changes nothing.
  - RPS and IRQ affinity need root; the settings of a driver the module has no limits for are checked
    against what C(ethtool) reports only.
seealso:
  - module: s390x.network.qeth_device
    description: The RX buffers of qeth devices (C(buffer_count)).
"""

EXAMPLES = r"""
- name: virtio-net in a KVM guest, 4 queues spread over 4 vCPUs, RPS on every queue
  s390x.network.nic_tuning:
    config:
      - name: eth0
        channels:
          combined: 4
        rps_cpus:
          all: 0-3

- name: RoCE (mlx5) with checksum and segmentation offloads, larger rings, IRQs bound and banned
  s390x.network.nic_tuning:
    config:
      - name: ens1f0
        features:
          tso: true
          gro: true
          rx-checksumming: true
        rings:
          rx: 4096
          tx: 4096
        irq_affinity:
          all: 2-7
        irqbalance: ban
  register: roce

- name: PowerVM vNIC with 8 RX and 8 TX queues
  s390x.network.nic_tuning:
    config:
      - name: env2
        channels:
          rx: 8
          tx: 8

- name: What is set now
  s390x.network.nic_tuning:
    state: gathered
    config:
      - name: eth0
  register: nic
"""

RETURN = r"""
before:
  description:
    - Per interface the settings the run manages, before it (channels, rings, features, rps_cpus by RX
      queue, irq_affinity by IRQ name, and persistent - the boot configuration), and C(irqbalance) for
      the banned IRQs.
  returned: when state is merged or replaced
  type: list
  elements: dict
  sample: [{"name": "eth0", "channels": {"combined": 1}, "rps_cpus": {"0": ""}}]
after:
  description: The same after the run (in check mode, as it would be).
  returned: when state is merged or replaced
  type: list
  elements: dict
commands:
  description: What ran (in check mode, would run), in order.
  returned: always
  type: list
  elements: str
  sample: ["ethtool -L eth0 combined 4", "echo f > /sys/class/net/eth0/queues/rx-0/rps_cpus"]
drift:
  description:
    - One row per interface and scope that differs (C(kind) V(nic), C(object) the interface or
      C(irqbalance), C(scope) V(active) for live values and V(persistent) for the boot
      configuration, C(difference) C(missing), C(to remove) or C(key old -> new) per setting, comma-separated, such as C(channels.combined 1 -> 4)).
  returned: always
  type: list
  elements: dict
  sample: [{"kind": "nic", "object": "eth0", "scope": "active", "difference": "channels.combined 1 -> 4"}]
diff:
  description:
    - Before and after as text (with C(--diff)), per interface its active and its boot settings, one
      line per value (its key, a colon, the value).
  returned: when diff mode is on
  type: dict
rollback:
  description:
    - After a failed step, what ran to put the interface back (C(commands)), the errors on the way
      (C(errors)) and whether it is back (C(ok)).
  returned: on failure after a change started
  type: dict
rendered:
  description: The commands for the given settings (state rendered); IRQ numbers are shown as placeholders.
  returned: when state is rendered
  type: list
  elements: str
gathered:
  description: The current settings of the named interfaces, as O(config) entries.
  returned: when state is gathered
  type: list
  elements: dict
ethtool_version:
  description: The version of the ethtool the module ran, or V(unknown).
  returned: when the host was read
  type: str
  sample: "6.1"
json:
  description: Per ethtool subcommand read (C(-l), C(-g), C(-k)) whether its output was JSON.
  returned: when the host was read
  type: dict
  sample: {"-k": true, "-l": false}
interfaces:
  description: Per interface its driver and how its settings persist (V(networkmanager), V(unit) or null).
  returned: when state is merged or replaced
  type: dict
  sample: {"eth0": {"driver": "virtio_net", "persist_method": "unit"}}
networkmanager_version:
  description: The NetworkManager version (nmcli), null when it was not used.
  returned: when state is merged or replaced
  type: str
irqbalance:
  description:
    - Whether irqbalance runs (C(running)), its environment file (C(file)), the IRQs it is told to leave
      alone (C(banned)) and whether it must be restarted to read a change (C(restart_needed)).
  returned: when an entry has irq_affinity
  type: dict
  sample: {"running": true, "file": "/etc/sysconfig/irqbalance", "banned": [38, 39], "restart_needed": true}
  contains:
    running:
      description: Whether an irqbalance process runs.
      type: bool
    file:
      description: The environment file irqbalance's service reads, null when irqbalance is not installed.
      type: str
    banned:
      description: The IRQs its C(IRQBALANCE_ARGS) bans (C(--banirq)).
      type: list
      elements: int
    restart_needed:
      description: Whether the run changed the banned IRQs while irqbalance runs (it reads them when it starts).
      type: bool
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.s390x.network.plugins.module_utils.engine import resource as resource_engine
from ansible_collections.s390x.network.plugins.module_utils.nic.resource import STATES, NicTuning


def main():
    count = dict(type="int")
    module = AnsibleModule(
        argument_spec=dict(
            state=dict(type="str", default="merged", choices=list(STATES)),
            config=dict(
                type="list",
                elements="dict",
                required=True,
                options=dict(
                    name=dict(type="str", required=True),
                    features=dict(type="dict"),
                    channels=dict(
                        type="dict",
                        options=dict(rx=dict(count), tx=dict(count), other=dict(count), combined=dict(count)),
                    ),
                    rings=dict(
                        type="dict",
                        options=dict(rx=dict(count), tx=dict(count), rx_mini=dict(count), rx_jumbo=dict(count)),
                    ),
                    rps_cpus=dict(type="dict"),
                    irq_affinity=dict(type="dict"),
                    irqbalance=dict(type="str", choices=["ignore", "ban"], default="ignore"),
                ),
            ),
            persistent=dict(type="bool", default=True),
            persist_method=dict(type="str", default="auto", choices=["auto", "networkmanager", "unit"]),
            allow_disruptive=dict(type="bool", default=False),
        ),
        supports_check_mode=True,
    )
    resource_engine.run(module, NicTuning(module))


if __name__ == "__main__":
    main()
