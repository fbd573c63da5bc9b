#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: zpci_function
short_description: Configure zPCI functions (ISM, RoCE, Network Express) and bind them to drivers on Linux on IBM Z
version_added: 0.1.0
description:
  - Powers zPCI functions of the partition on or off through their hotplug slot
    C(/sys/bus/pci/slots/<FID as 8 hex digits>/power), like C(smc_rnics -e/-d).
  - Finds the PCI address of a function through sysfs (the device whose C(function_id) is the FID;
    the slot's C(address) narrows the search). The address is never derived from the FID.
  - Binds a function to a driver with C(driver_override), an unbind from the current driver and
    C(/sys/bus/pci/drivers_probe); loads the driver's kernel module (C(modprobe vfio-pci)) when it
    is not registered yet.
  - Reports every function with its UID, PCHID (the VCHID for ISM), function type, PNET ID
    (decoded from the EBCDIC C(util_string)), driver and IOMMU group.
  - "The type of a function comes from its zPCI function type C(pft): RoCE Express3 and Network
    Express VFs have the same PCI id (C(15b3:101e)), so a C(15b3:101e) function without a readable
    C(pft) is of type C(other) and no driver check passes it."
  - "Network Express (z17, LinuxONE 5): C(mlx5_core) drives NETH (hybrid mode, C(pft) 0x0c) and NETD
    (direct mode, C(pft) 0x0f) functions on the host; C(vfio-pci) hands them to a guest. A NETD
    physical function is user managed: O(config[].sriov_numvfs) creates its VFs through the kernel's
    SR-IOV attributes C(sriov_numvfs) and C(sriov_drivers_autoprobe) (0 by default, so that VFs
    meant for guests appear unbound instead of being taken by C(mlx5_core); bind them with their own
    entries, by FID, once they exist). The kernel only takes 0 -> N and N -> 0, so a new count
    removes the VFs first; the module refuses that while a VF is in use (see Safety)."
  - "An isolated VF (a Network Express VF whose PF is not in the partition) gets a PCI domain from its
    UID only when UID checking is on; otherwise the domain is generated and its PCI address changes
    across reboot and hot plug. The module warns about such functions and lists them in
    RV(findings); everything it writes keys on the FID."
  - "Persistence (O(persistent=true)): the binding is written to the udev rules file
    C(/etc/udev/rules.d/60-s390x-network-zpci.rules), one rule per FID, matched by
    C(ATTR{function_id}) (not by PCI address, which changes across reboots without UID checking),
    that sets C(ATTR{driver_override}) and re-probes the device (its C(RUN) program unbinds a driver
    that bound first, then writes the address to C(drivers_probe)); C(power: on) is written to
    C(/etc/tmpfiles.d/s390x-network-zpci.conf), one line C(w /sys/bus/pci/slots/<FID as 8 hex
    digits>/power - - - - 1) per FID, which systemd-tmpfiles applies early at boot;
    the VFs of O(config[].sriov_numvfs) are one rule per FID in the same rules file, matched by
    C(ATTR{function_id}) on the C(bind) event of C(mlx5_core) (the kernel creates VFs only through a
    bound PF driver), that writes C(sriov_drivers_autoprobe) and then C(sriov_numvfs);
    C(vfio-pci) and C(ism_vfio_pci) are listed in C(/etc/modules-load.d/s390x-network-zpci.conf);
    the modules of O(boot_modules) in C(/etc/modules-load.d/s390x-network-zpci-modules.conf).
    These work the same on RHEL, SLES and Ubuntu (udev and systemd-tmpfiles; driverctl is not
    needed, and it keys on the PCI address, which changes across reboots without UID checking)."
  - "Safety: unless O(force=true) the module refuses, before changing anything, to unbind or
    power off a function that the host uses for SMC-D (C(smcd device) shows it in use or with
    link groups), that a running libvirt guest has as hostdev (C(virsh list) and the live domain
    XML), whose VFIO group C(/dev/vfio/<group>) a process has open (QEMU without libvirt), that
    is bound to C(vfio-pci) and enabled (C(vfio-pci) enables a device only while a user has it
    open, also one in another PID namespace), or whose network interface carries the management
    (SSH) connection; nor does it remove the VFs of a NETD physical function (O(config[].sriov_numvfs)
    0 or another count) while one of those VFs is held in any of these ways."
  - "Cost: C(smcd) and C(virsh) run only for functions the run unbinds or powers off (and for the
    kinds in O(report_holders)), so a run that changes nothing runs neither."
author:
  - s390x.network contributors (@s390x-network)
extends_documentation_fragment:
  - s390x.network.attributes
attributes:
  check_mode:
    details: A function in standby is not configured in check mode, so its PCI address, type and
      driver are unknown; binding commands then name the address as C(<address of FID ...>).
options:
  config:
    description:
      - The functions to manage. Each FID at most once (repeating a FID with the same settings is
        allowed).
      - At least one function is required for O(state=merged) and O(state=rendered).
    type: list
    elements: dict
    suboptions:
      fid:
        description:
          - Function ID, an integer (C(0x605) in YAML is the integer 1541) or a hexadecimal string
            (C("605"), C("0x605"), C("00000605")), in the range 0 to 0xffffffff.
          - The FID must be configured to this partition (a slot exists); the error lists the
            FIDs the host has.
        type: raw
        required: true
      power:
        description:
          - C(on) configures a function in standby; C(off) deconfigures it (the PCI device disappears).
          - One of C(on) or C(off). An unquoted C(on)/C(off) in YAML is a boolean, so C(true) and
            C(false) are accepted too.
        type: raw
        default: "on"
      driver:
        description:
          - Driver to bind. C(none) unbinds the function and keeps it unbound (C(driver_override) C(none)).
          - Omitted leaves the binding as it is (and its line in the persistent udev rules file).
          - C(ism) and C(ism_vfio_pci) (newer kernels) drive ISM functions only, C(mlx5_core) RoCE
            Express2/3 and Network Express (NETH, NETD) functions only. The error names the FID, its
            C(pft) and the drivers that fit it.
        type: str
        choices: [vfio-pci, ism, ism_vfio_pci, mlx5_core, none]
      expected_type:
        description:
          - Fail when the function is of another type (from its C(pft); without one from PCI vendor/device
            ids that one product has alone).
          - C(roce) is RoCE Express, Express2 or Express3; C(neth) and C(netd) are Network Express in
            hybrid and direct mode.
          - A function in standby is checked right after it was powered on and before it is bound;
            on a mismatch it is powered off again and the module fails.
        type: str
        choices: [ism, roce, neth, netd, any]
        default: any
      sriov_numvfs:
        description:
          - Number of VFs of a physical function the partition manages (Network Express NETD); the
            kernel's C(sriov_numvfs). C(0) removes them. Omitted leaves the VFs (and their line in
            the persistent rules file) as they are.
          - Checked against the function's C(sriov_totalvfs) on the host; the function must be bound to
            C(mlx5_core) (give O(config[].driver) C(mlx5_core) for a function in standby).
          - A different count than the live one (drift) is corrected through 0, which removes every VF
            first; refused while a VF is in use unless O(force=true).
        type: int
      sriov_drivers_autoprobe:
        description:
          - Whether drivers probe the VFs when they appear (the kernel's C(sriov_drivers_autoprobe),
            written before C(sriov_numvfs)). C(false) keeps VFs meant for guests off C(mlx5_core).
          - Needs O(config[].sriov_numvfs); omitted is C(false).
        type: bool
  state:
    description:
      - C(merged) applies O(config) and leaves other functions alone.
      - C(overridden) applies O(config) and removes the C(driver_override) (and the persistent binding)
        of every function not in O(config); those functions stay powered and bound as they are.
      - C(gathered) returns every function of the host in RV(gathered) and changes nothing.
      - C(rendered) returns the commands and persistent files for O(config) in RV(rendered) without
        looking at the host.
    type: str
    choices: [merged, overridden, gathered, rendered]
    default: merged
  persistent:
    description:
      - Also write the boot-time configuration (see the description) so that power and binding
        survive a reboot.
    type: bool
    default: true
  force:
    description:
      - Unbind or power off functions even when the host's SMC-D, a running guest, an open VFIO
        group or the management connection uses them.
    type: bool
    default: false
  report_holders:
    description:
      - Kinds of holders to look up and report in RV(functions[].holders) also for the functions
        the run does not unbind or power off (C(smc-d) runs C(smcd device), C(libvirt) runs
        C(virsh)). Functions the run unbinds or powers off are always checked for every kind.
    type: list
    elements: str
    choices: [smc-d, libvirt, vfio, management]
    default: []
  boot_modules:
    description:
      - Kernel modules to load at every boot, listed in
        C(/etc/modules-load.d/s390x-network-zpci-modules.conf), besides those the persistent
        bindings need (for example C(vfio-pci) for libvirt C(managed='yes') hostdevs, which bind it
        at guest start). An empty list removes the file; omitted leaves it as it is.
      - Needs O(persistent=true).
    type: list
    elements: str
    choices: [vfio-pci, ism_vfio_pci]
notes:
  - Needs root. Works on configured functions of the LPAR or KVM guest the module runs on.
  - With libvirt C(managed='yes') hostdevs libvirt binds vfio-pci itself at guest start; then only
    power the function on (omit O(config[].driver)).
seealso:
  - module: s390x.network.smc_rnics_info
  - name: Role s390x.network.ism_passthrough
    description: Powers on the ISM functions of a KVM host and hands them to vfio-pci for its guests.
    link: https://github.com/s390x-network/s390x.network/tree/main/roles/ism_passthrough
"""

EXAMPLES = r"""
- name: Power on ISM FID 0x605 and hand it to vfio-pci, persistently
  s390x.network.zpci_function:
    config:
      - fid: 0x605
        driver: vfio-pci
        expected_type: ism

- name: Power on ISM FID 0x605 for a libvirt managed hostdev; vfio-pci loaded at boot
  s390x.network.zpci_function:
    config:
      - fid: 0x605
        expected_type: ism
    boot_modules: [vfio-pci]
    report_holders: [smc-d]

- name: Give the function back to the host's ism driver
  s390x.network.zpci_function:
    config:
      - fid: "605"
        driver: ism

- name: Network Express NETD PF 0x110 with 4 VFs that appear unbound, persistently
  s390x.network.zpci_function:
    config:
      - fid: 0x110
        driver: mlx5_core
        expected_type: netd
        sriov_numvfs: 4

- name: Hand NETD VF 0x111 to a guest, NETH function 0x120 to the host
  s390x.network.zpci_function:
    config:
      - {fid: 0x111, driver: vfio-pci, expected_type: netd}
      - {fid: 0x120, driver: mlx5_core, expected_type: neth}

- name: Report all functions
  s390x.network.zpci_function:
    state: gathered
  register: zpci

- name: Show the udev rule and tmpfiles.d line that would be written
  s390x.network.zpci_function:
    state: rendered
    config:
      - {fid: 0x605, driver: vfio-pci}
"""

RETURN = r"""
functions:
  description: The functions in O(config) (all functions with C(overridden)) after the run.
  returned: state is merged or overridden
  type: list
  elements: dict
  contains:
    fid:
      description: Function ID.
      type: int
      sample: 1541
    slot:
      description: Slot name (FID as 8 hex digits).
      type: str
      sample: "00000605"
    power:
      description: C(on) (configured) or C(off) (standby).
      type: str
      sample: "on"
    pci_address:
      description: PCI address C(DDDD:BB:dd.f); null in standby.
      type: str
      sample: "0605:00:00.0"
    uid:
      description: User-defined ID (the PCI domain with UID checking).
      type: int
      sample: 1541
    uid_is_unique:
      description: Whether UID checking is on for the partition.
      type: bool
    pchid:
      description: PCHID, for ISM the VCHID, as 4 hex digits.
      type: str
      sample: "07c8"
    pft:
      description: PCI function type number (5 ISM, 2 RoCE Express, 10 RoCE Express2/3 ...).
      type: int
      sample: 5
    pft_name:
      description: Name of the function type (C(ISM), C(ROCE), C(ROC2), C(NETH), C(NETD) ...).
      type: str
      sample: ISM
    type:
      description: C(ism), C(roce), C(neth), C(netd), C(nvme) or C(other) (from C(pft)); null in standby.
      type: str
      sample: ism
    fidparm:
      description:
        - The function's C(fidparm) (Linux 6.13 and newer), null when the kernel does not show it. On a
          NETH function 1 means the function supports promiscuous mode (IOCP C(FIDPARM=01)).
      type: int
      sample: 1
    physfn:
      description: PCI address of the VF's physical function in this partition; null for a PF or an isolated VF.
      type: str
    isolated_vf:
      description: The function is a VF whose physical function is not in this partition.
      type: bool
    sriov:
      description:
        - SR-IOV of a physical function (C(totalvfs), C(numvfs), C(drivers_autoprobe), C(vfs) the PCI
          addresses of its VFs); null for functions without SR-IOV attributes.
      type: dict
    vfn:
      description: Virtual function number (0 for a physical function).
      type: int
      sample: 1
    port:
      description: Port attribute of the function.
      type: int
    pnet_id:
      description: PNET ID of the function's port from C(util_string); null when unset (non-native ISMv2).
      type: str
      sample: null
    pnet_ids:
      description: PNET IDs of all ports in C(util_string) (null entries for unset ports).
      type: list
      elements: str
    vendor_id:
      description: PCI vendor id (4 hex digits).
      type: str
      sample: "1014"
    device_id:
      description: PCI device id (4 hex digits).
      type: str
      sample: "04ed"
    driver:
      description: Bound driver, null when unbound.
      type: str
      sample: vfio-pci
    driver_override:
      description: C(driver_override), null when unset.
      type: str
      sample: vfio-pci
    iommu_group:
      description: IOMMU group number (C(/dev/vfio/<group>)).
      type: int
      sample: 0
    enabled:
      description:
        - The device is enabled (its C(enable) attribute is not 0). Host drivers enable it at
          probe; C(vfio-pci) only while a user such as QEMU has it open. Null in standby.
      type: bool
      sample: false
    net_devices:
      description: Network interfaces of the function.
      type: list
      elements: str
    holders:
      description:
        - "Users of the function that make the module refuse to unbind it or power it off without
          O(force), for example C(smc-d: ...), C(libvirt: running guest g1 ...), C(vfio: ...),
          C(management connection: ...). Only in RV(functions), not in RV(before), RV(after) nor RV(gathered)."
        - Every kind for a function the run unbinds or powers off, the kinds of O(report_holders)
          for the others; null when the module did not look (no such change, O(report_holders) empty).
      type: list
      elements: str
before:
  description: The functions before the run (same form as RV(functions)).
  returned: state is merged or overridden
  type: list
  elements: dict
after:
  description: The functions after the run (predicted in check mode).
  returned: state is merged or overridden
  type: list
  elements: dict
commands:
  description: What was run (or would run in check mode), as shell equivalents.
  returned: state is merged, overridden or rendered
  type: list
  elements: str
  sample:
    - echo 1 > /sys/bus/pci/slots/00000605/power
    - echo vfio-pci > /sys/bus/pci/devices/0605:00:00.0/driver_override
    - echo 0605:00:00.0 > /sys/bus/pci/drivers/ism/unbind
    - echo 0605:00:00.0 > /sys/bus/pci/drivers_probe
drift:
  description:
    - One row per object that differs (C(kind) V(zpci); C(object) the FID such as C(0x605) with
      C(scope) V(active) and C(difference) such as C(driver ism -> vfio-pci); or C(boot files) with
      C(scope) V(persistent) and C(difference) C(PATH differs), C(PATH missing) or C(PATH to remove)
      per file).
  returned: state is merged or overridden
  type: list
  elements: dict
findings:
  description:
    - Warnings about functions the run looked at, such as a Network Express VF without its PF in the
      partition while UID checking is off (its PCI address is not stable); each names the FID.
  returned: state is merged or overridden
  type: list
  elements: str
rollback:
  description:
    - After a failed step, what ran to give the function its old driver_override and driver back and
      to make the boot-time files match the functions (C(commands)), the errors on the way
      (C(errors)) and whether everything is back (C(ok)).
  returned: on failure after a change started
  type: dict
gathered:
  description: Every function of the host (same form as RV(functions)).
  returned: state is gathered
  type: list
  elements: dict
rendered:
  description: Commands and persistent files for O(config), without looking at the host.
  returned: state is rendered
  type: dict
  contains:
    commands:
      description: Commands for functions in standby and unbound.
      type: list
      elements: str
    files:
      description: Path -> content of the persistent files (null content = file removed).
      type: dict
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.s390x.network.plugins.module_utils.engine import resource as resource_engine
from ansible_collections.s390x.network.plugins.module_utils.engine.mgmt_connection import management_connection
from ansible_collections.s390x.network.plugins.module_utils.zpci.holders import HolderProbe
from ansible_collections.s390x.network.plugins.module_utils.zpci.resource import ZpciFunctions
from ansible_collections.s390x.network.plugins.module_utils.zpci.sysfs import ZpciSysfs


def main():
    config_spec = dict(
        fid=dict(type='raw', required=True),
        power=dict(type='raw', default='on'),
        driver=dict(type='str', choices=['vfio-pci', 'ism', 'ism_vfio_pci', 'mlx5_core', 'none']),
        expected_type=dict(type='str', choices=['ism', 'roce', 'neth', 'netd', 'any'], default='any'),
        sriov_numvfs=dict(type='int'),
        sriov_drivers_autoprobe=dict(type='bool'),
    )
    module = AnsibleModule(
        argument_spec=dict(
            config=dict(type='list', elements='dict', options=config_spec),
            state=dict(type='str', choices=['merged', 'overridden', 'gathered', 'rendered'], default='merged'),
            persistent=dict(type='bool', default=True),
            force=dict(type='bool', default=False),
            report_holders=dict(
                type='list', elements='str', choices=['smc-d', 'libvirt', 'vfio', 'management'], default=[]
            ),
            boot_modules=dict(type='list', elements='str', choices=['vfio-pci', 'ism_vfio_pci']),
        ),
        supports_check_mode=True,
    )
    probe = HolderProbe(lambda argv: module.run_command(argv, environ_update={'LC_ALL': 'C'}), module.get_bin_path)
    resource_engine.run(module, ZpciFunctions(module, ZpciSysfs(), probe, management_connection))


if __name__ == '__main__':
    main()
