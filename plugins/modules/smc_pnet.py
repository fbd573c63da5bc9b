#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: smc_pnet
short_description: Manage the software PNET table of SMC (smc_pnet or netlink)
version_added: 0.1.0
description:
  - Manages the entries of the kernel's software PNET table with C(smc_pnet) (smc-tools), or without
    smc-tools through the kernel's generic netlink family C(SMC_PNETID), which C(smc_pnet) itself uses
    (O(backend)). An entry groups a network interface, or an RDMA (RoCE) or ISM device port, under a
    physical network ID (PNET ID), so that SMC finds the SMC device that belongs to the interface a TCP
    connection uses.
  - Resource-module style, O(config) lists entries and O(state) says what to do with them. The module
    checks O(config) first (an interface or port under two PNET IDs, an entry listed twice), then reads the
    table and runs only the commands needed.
  - The kernel can delete only all entries of a PNET ID at once, and an interface or device port can
    belong to one PNET ID only; to change or drop one entry the module deletes its PNET ID and adds
    that ID's other entries again (RV(commands) shows it).
  - PNET IDs defined in the IOCDS (the hardware configuration) win over software ones. The kernel
    ignores a software entry for a network interface whose device has a hardware PNET ID, and refuses
    (C(smc_pnet) fails) a software entry for an RDMA or ISM device that has one. Use this module for
    devices without a hardware PNET ID, such as virtual NICs of KVM or z/VM guests.
  - The table lives in the kernel (per network namespace) and is empty after a reboot or after
    C(smc) is unloaded. O(boot_unit=present) makes the module also write and enable a systemd unit,
    C(/etc/systemd/system/s390x-network-smc-pnet.service), that adds the entries again at every boot -
    with smc-tools installed one C(ExecStart=-smc_pnet -a ...) line per entry; without them (Debian has
    none) the collection's own netlink client, as a restore program with the entries in a data file.
  - Every entry is checked before anything is read or changed (PNET ID, interface and device names as
    the kernel accepts them), and the unit's lines are written with systemd's quoting (specifiers, C($),
    quotes and backslashes escaped; names with control characters are refused naming the field). Names
    are passed to C(smc_pnet) and netlink as data, never through a shell.
author:
  - s390x.network contributors (@s390x-network)
extends_documentation_fragment:
  - s390x.network.attributes
options:
  config:
    description:
      - PNET table entries.
    type: list
    elements: dict
    default: []
    suboptions:
      pnet_id:
        description:
          - PNET ID, 1 to 16 characters a-z, A-Z, 0-9 (the whole value; no blanks). The kernel stores it upper case; so
            does the module.
        type: str
        required: true
      interface:
        description:
          - Network interface (for example V(enc8200), a bond or a VLAN device). Mutually exclusive with O(config[].ib_device).
          - A name the kernel accepts - 1 to 15 bytes, not V(.) or V(..), no C(/), C(:), blanks or NUL - and, as in every
            module of the collection, no control or format characters. Other characters (C($), C(%), C(;), quotes) are data.
        type: str
      ib_device:
        description:
          - RDMA (RoCE, for example V(mlx5_0)) or ISM device name, 1 to 63 bytes without blanks or NUL. Mutually exclusive
            with O(config[].interface).
        type: str
      port:
        description:
          - Port of O(config[].ib_device), V(1) or V(2).
          - Defaults to V(1) when O(config[].ib_device) is given.
        type: int
        choices: [1, 2]
  state:
    description:
      - V(merged) adds the entries of O(config) (moving an interface or port that belongs to another PNET ID) and keeps all others.
      - V(overridden) makes the table exactly O(config) (empty O(config) flushes the table).
      - V(deleted) removes the entries of O(config); an item with only O(config[].pnet_id) removes that whole PNET ID;
        empty O(config) flushes the table.
      - V(gathered) changes nothing and returns the table as RV(gathered).
    type: str
    choices: [merged, overridden, deleted, gathered]
    default: merged
  backend:
    description:
      - V(tool) runs C(smc_pnet) and fails when smc-tools are not installed.
      - V(netlink) sends the same requests to the kernel directly (C(SMC_PNETID_GET), C(_ADD), C(_DEL), C(_FLUSH)).
      - V(auto) takes C(smc_pnet) when it is installed, netlink otherwise.
      - Both read and change the same kernel table with the same plan; only RV(commands) differ.
    type: str
    choices: [auto, tool, netlink]
    default: auto
  boot_unit:
    description:
      - V(present) also makes the boot unit C(/etc/systemd/system/s390x-network-smc-pnet.service) add the
        entries at boot, and enables it (the link in C(multi-user.target.wants), as C(systemctl enable)
        makes it; C(systemctl daemon-reload) when systemd runs). Its entries follow O(state) as the
        table's do, starting from the entries the unit has from earlier runs - V(merged) adds O(config),
        V(overridden) makes them O(config), V(deleted) removes O(config) (all of them when O(config) is
        empty). The unit is disabled and removed when no entry remains.
      - The boot unit is planned from O(config) and the unit file alone, so it is written also when the
        C(smc) kernel module is not loaded (no C(/sys/module/smc)); the module then leaves the table alone
        with a warning and returns RV(table_skipped).
      - Where C(smc_pnet) is found (the lookup of O(backend=auto), whatever O(backend)) the unit runs it, one
        C(ExecStart=-smc_pnet -a ...) line per entry. Where it is not, the unit runs
        C(PYTHON /usr/local/libexec/s390x-network/smc-pnet-restore /etc/s390x-network/smc-pnet.json) - a
        restore program that is the collection's netlink client (standard library only, the same on
        every host) and the entries as JSON data. PYTHON is the interpreter the module runs in
        (C(/usr/bin/python3) when that is the same file), which must be a plain absolute path. The program
        checks each entry again as the module does, adds it with C(SMC_PNETID_ADD) (asking for the family by
        name, which loads C(smc)), counts an entry already there as added, and names on stderr every entry
        it could not add while adding the others; the unit then fails, so C(systemctl status) shows it.
        Installing or removing smc-tools switches the form at the next run.
      - The module refuses (before changing anything) a unit that could not work. Without C(smc_pnet) that is an
        interpreter path a unit line cannot hold, a name that is not printable ASCII (the program sends ASCII
        names only), or a kernel without SMC (C(smc) not loaded and no C(net/smc/smc.ko) in the module
        tree of the running kernel). It only warns when the module tree cannot be read (a container, an
        image being built). The kernel is checked only when the boot unit changes.
      - The program, the data and the unit are each a RV(drift) row of their path (a program or data file
        changed on the host is rewritten), each a C(--diff) of its own; they are written program and data
        first, the unit last, and removed in the reverse order; a failure puts every file of the run and
        the link back.
      - V(absent) disables and removes the boot unit (and the program and data). V(unchanged) leaves it as it is.
    type: str
    choices: [unchanged, present, absent]
    default: unchanged
notes:
  - Needs the C(smc) kernel module loaded (for example by M(s390x.network.smc_sysctl)). With the netlink backend
    the module never loads it itself.
  - Changing the table needs root (CAP_NET_ADMIN), whichever backend.
  - The boot unit runs after C(systemd-modules-load.service). In the C(smc_pnet) form it runs the tool by name
    (systemd 239 and later look it up) and a missing C(smc_pnet) or an entry the kernel refuses does not fail
    the unit. In the restore program form an entry not added fails the unit, naming the entry.
seealso:
  - module: s390x.network.smc_sysctl
  - module: s390x.network.smcd_info
"""

EXAMPLES = r"""
- name: Group the guest's virtio-net interface with the RoCE port (SMC-R in a KVM guest)
  s390x.network.smc_pnet:
    config:
      - pnet_id: NETA
        interface: eth1
      - pnet_id: NETA
        ib_device: mlx5_0
        port: 1

- name: Exactly these entries, nothing else
  s390x.network.smc_pnet:
    state: overridden
    config:
      - {pnet_id: NETA, interface: enc8200}

- name: Drop PNET ID NETB completely
  s390x.network.smc_pnet:
    state: deleted
    config:
      - pnet_id: NETB

- name: Read the table
  s390x.network.smc_pnet:
    state: gathered
  register: pnet

- name: Add the entries now and at every boot
  s390x.network.smc_pnet:
    boot_unit: present
    config:
      - {pnet_id: NETA, interface: enc8200}

- name: Same entries on a host without smc-tools
  s390x.network.smc_pnet:
    backend: netlink
    config:
      - {pnet_id: NETA, interface: eth1}
"""

RETURN = r"""
before:
  description: The table before the run, as O(config) items.
  returned: when O(state) is not V(gathered)
  type: list
  elements: dict
  sample: [{"pnet_id": "NETA", "interface": "eth1"}]
after:
  description: The table after the run (in check mode, as it would be).
  returned: when O(state) is not V(gathered)
  type: list
  elements: dict
  sample: [{"pnet_id": "NETA", "interface": "eth1"}, {"pnet_id": "NETA", "ib_device": "mlx5_0", "port": 1}]
gathered:
  description: The table, as O(config) items.
  returned: when O(state=gathered)
  type: list
  elements: dict
commands:
  description:
    - The C(smc_pnet) command lines run (or that would run, in check mode); with the netlink backend the netlink
      commands with their attributes, for example C(SMC_PNETID_ADD NETA ibname=mlx5_0 ibport=1).
  returned: always
  type: list
  elements: str
  sample: ["smc_pnet -a NETA -D mlx5_0 -P 1"]
backend:
  description: V(tool) or V(netlink), the way the table was read and changed.
  returned: when the table was read
  type: str
  sample: netlink
drift:
  description:
    - What differs between O(config) and the table (C(kind) V(pnet), C(object) C(table), C(scope)
      V(active), C(difference) C(PNET_ID old entries -> new entries) per PNET ID, such as
      C(NETA - -> interface eth1)) and the boot unit (C(object) its path, C(scope) V(persistent));
      after a run, what it changed.
  returned: when O(state) is not V(gathered)
  type: list
  elements: dict
rollback:
  description:
    - After a failed C(smc_pnet) call, the commands run to restore the previous table and whether
      that worked; after a failed change of the boot unit, the file and link put back. Returned with
      the failure.
  returned: on failure after a change started
  type: dict
boot_unit:
  description:
    - The boot unit after the run (in check mode, as it would be) - C(path), C(present), C(enabled) and the
      C(entries) it adds at boot, as O(config) items; in the restore program form also C(restore)
      (C(interpreter), C(program), C(data), the paths the unit runs). Its changes are RV(drift) rows with
      C(object) the unit path (and the program's and the data's) and C(scope) V(persistent), and with
      C(--diff) the unit file, the link, the program and the data.
  returned: when O(boot_unit) is not V(unchanged)
  type: dict
  sample: {"path": "/etc/systemd/system/s390x-network-smc-pnet.service", "present": true, "enabled": true,
           "entries": [{"pnet_id": "NETA", "interface": "enc8200"}]}
table_skipped:
  description: True when C(smc) is not loaded and the module changed only the boot unit.
  returned: when the table was skipped
  type: bool
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.s390x.network.plugins.module_utils.engine import resource as resource_engine
from ansible_collections.s390x.network.plugins.module_utils.smc.pnet_resource import (
    BACKENDS,
    BOOT_UNIT,
    PnetTable,
    report_backend,
)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            config=dict(
                type="list",
                elements="dict",
                default=[],
                options=dict(
                    pnet_id=dict(type="str", required=True),
                    interface=dict(type="str"),
                    ib_device=dict(type="str"),
                    port=dict(type="int", choices=[1, 2]),
                ),
                mutually_exclusive=[["interface", "ib_device"]],
            ),
            state=dict(type="str", default="merged", choices=["merged", "overridden", "deleted", "gathered"]),
            backend=dict(type="str", default="auto", choices=list(BACKENDS)),
            boot_unit=dict(type="str", default="unchanged", choices=list(BOOT_UNIT)),
        ),
        supports_check_mode=True,
    )
    resource = PnetTable(module)
    resource_engine.run(report_backend(module, resource), resource)


if __name__ == "__main__":
    main()
