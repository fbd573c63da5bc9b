#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: zpci_function
short_description: Configure zPCI functions (ISM, RoCE) and bind them to drivers on Linux on IBM Z
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
  - "Persistence (O(persistent=true)): the binding is written to the udev rules file
    C(/etc/udev/rules.d/60-s390x-network-zpci.rules), one rule per FID, matched by
    C(ATTR{function_id}) (not by PCI address, which changes across reboots without UID checking),
    that sets C(ATTR{driver_override}) and re-probes the device (its C(RUN) program unbinds a driver
    that bound first, then writes the address to C(drivers_probe)); C(power: on) is written to
    C(/etc/tmpfiles.d/s390x-network-zpci.conf), one line C(w /sys/bus/pci/slots/<FID as 8 hex
    digits>/power - - - - 1) per FID, which systemd-tmpfiles applies early at boot;
    C(vfio-pci) and C(ism_vfio_pci) are listed in C(/etc/modules-load.d/s390x-network-zpci.conf).
    These work the same on RHEL, SLES and Ubuntu (udev and systemd-tmpfiles; driverctl is not
    needed, and it keys on the PCI address, which changes across reboots without UID checking)."
  - "Safety: unless O(force=true) the module refuses, before changing anything, to unbind or
    power off a function that the host uses for SMC-D (C(smcd device) shows it in use or with
    link groups), that a running libvirt guest has as hostdev (C(virsh list) and the live domain
    XML), whose VFIO group C(/dev/vfio/<group>) a process has open (QEMU without libvirt), that
    is bound to C(vfio-pci) and enabled (C(vfio-pci) enables a device only while a user has it
    open, also one in another PID namespace), or whose network interface carries the management
    (SSH) connection."
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
          - C(ism) and C(ism_vfio_pci) (newer kernels) drive ISM functions only, C(mlx5_core) RoCE only.
        type: str
        choices: [vfio-pci, ism, ism_vfio_pci, mlx5_core, none]
      expected_type:
        description:
          - Fail when the function is of another type (from its C(pft), or the PCI vendor/device ids).
          - A function in standby is checked right after it was powered on and before it is bound;
            on a mismatch it is powered off again and the module fails.
        type: str
        choices: [ism, roce, any]
        default: any
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

- name: Give the function back to the host's ism driver
  s390x.network.zpci_function:
    config:
      - fid: "605"
        driver: ism

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
      description: C(ism), C(roce), C(nvme) or C(other); null in standby.
      type: str
      sample: ism
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
          C(management connection: ...). Not in RV(before) nor RV(gathered)."
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

import os
import tempfile
import time

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_bytes, to_native

from ansible_collections.s390x.network.plugins.module_utils.mgmt_connection import management_interfaces
from ansible_collections.s390x.network.plugins.module_utils.zpci_holders import HolderProbe
from ansible_collections.s390x.network.plugins.module_utils.zpci_persist import (
    MODULES_LOAD_PATH,
    RULES_PATH,
    TMPFILES_PATH,
    boot_modules,
    merge,
    parse_rules,
    parse_tmpfiles,
    render_modules_load,
    render_rules,
    render_tmpfiles,
)
from ansible_collections.s390x.network.plugins.module_utils.zpci_plan import (
    ZpciConfigError,
    binding_actions,
    check_host,
    check_type,
    clear_override_actions,
    needs_guard,
    normalize_config,
    power_actions,
    predict,
)
from ansible_collections.s390x.network.plugins.module_utils.zpci_sysfs import (
    DRIVERS_PROBE,
    ZpciError,
    ZpciSysfs,
    fid_text,
)

# Tests point this at a directory that holds sys/, etc/ and proc/.
ROOT = '/'
DEVICE_WAIT_SECONDS = 10.0
SHOWN_KEYS = ('power', 'pci_address', 'type', 'driver', 'driver_override')


def _real(path):
    if ROOT in ('', '/'):
        return path
    return os.path.join(ROOT, path.lstrip('/'))


def _read_file(path):
    try:
        with open(_real(path), 'r') as handle:
            return handle.read()
    except (IOError, OSError):
        return None


def _summary(records):
    lines = []
    for record in records:
        lines.append('%s: %s' % (fid_text(record['fid']),
                                 ', '.join('%s=%s' % (key, record.get(key)) for key in SHOWN_KEYS)))
    return '\n'.join(lines) + ('\n' if lines else '')


class Failure(Exception):
    """A failure on the way; ``run()`` makes the persistent files agree with the functions first."""

    def __init__(self, msg, **extra):
        super(Failure, self).__init__(msg)
        self.msg = msg
        self.extra = extra


class ZpciFunctionModule(object):

    def __init__(self, module):
        self.module = module
        self.params = module.params
        self.sysfs = ZpciSysfs(ROOT)
        self.commands = []
        self.file_diffs = []
        self.probe = HolderProbe(self._run, module.get_bin_path,
                                 proc_root=_real('/proc'), modules_path=_real('/proc/modules'),
                                 sys_module_smc=_real('/sys/module/smc'))
        self._mgmt = None

    # -- helpers ---------------------------------------------------------------------------
    def _run(self, argv):
        return self.module.run_command(argv)

    def fail(self, msg, **kwargs):
        raise Failure(msg, **kwargs)

    def mgmt_interfaces(self):
        if self._mgmt is None:
            names, dummy = management_interfaces(self.module, proc_root=_real('/proc'), sys_root=_real('/sys'))
            self._mgmt = set(names)
        return self._mgmt

    def wait_for_device(self, fid):
        deadline = time.time() + DEVICE_WAIT_SECONDS
        while True:
            record = self.sysfs.read_function(fid)
            if record['pci_address'] or time.time() >= deadline:
                return record
            time.sleep(0.2)

    # -- persistent files --------------------------------------------------------------------
    def desired_files(self, entries, override_unlisted):
        bindings, power = merge(parse_rules(_read_file(RULES_PATH)), parse_tmpfiles(_read_file(TMPFILES_PATH)),
                                entries, override_unlisted)
        return {
            RULES_PATH: render_rules(bindings),
            TMPFILES_PATH: render_tmpfiles(power),
            MODULES_LOAD_PATH: render_modules_load(boot_modules(bindings)),
        }

    def file_changes(self, files):
        changes = []
        for path in (RULES_PATH, TMPFILES_PATH, MODULES_LOAD_PATH):
            before = _read_file(path)
            after = files[path]
            if before != after:
                changes.append((path, before, after))
                self.file_diffs.append({'before_header': path, 'after_header': path,
                                        'before': before or '', 'after': after or ''})
        return changes

    def write_file(self, path, content):
        real = _real(path)
        if content is None:
            if os.path.exists(real):
                os.unlink(real)
            self.commands.append('rm %s' % path)
            return
        directory = os.path.dirname(real)
        self._makedirs(directory)
        fd, tmp = tempfile.mkstemp(dir=directory, prefix='.s390x-network-')
        try:
            os.write(fd, to_bytes(content))
        finally:
            os.close(fd)
        os.chmod(tmp, 0o644)
        self.module.atomic_move(tmp, real)
        self.commands.append('write %s' % path)

    @staticmethod
    def _makedirs(directory):
        if not os.path.isdir(directory):
            os.makedirs(directory, 0o755)

    # -- actions ------------------------------------------------------------------------------
    def execute(self, action):
        kind = action['action']
        if kind == 'modprobe':
            modprobe = self.module.get_bin_path('modprobe', required=True)
            rc, out, err = self.module.run_command([modprobe, action['value']])
            self.commands.append(action['command'])
            if rc != 0:
                self.fail('modprobe %s failed (rc=%d): %s' % (action['value'], rc, (err or out).strip()))
            return
        self.sysfs.write(action['path'], action['value'])
        self.commands.append(action['command'])

    def refuse(self, refusals):
        lines = ['FID %s: %s' % (fid_text(fid), '; '.join(reasons)) for fid, reasons in refusals]
        self.fail('Refusing to unbind or power off functions in use (use force: true to override): %s'
                  % ' | '.join(lines), refused=[{'fid': fid, 'reasons': reasons} for fid, reasons in refusals])

    def guard(self, record, actions):
        if self.params['force'] or not needs_guard(actions):
            return []
        mgmt = self.mgmt_interfaces() if record.get('net_devices') else ()
        return self.probe.holders(record, mgmt)

    def bind(self, entry, record):
        """Execute the binding of one configured function. When a step fails, the function gets
        its old driver_override back and, if it lost its driver on the way, its old driver."""
        actions = binding_actions(entry, record, self.sysfs.driver_available)
        address = record['pci_address']
        old_override = record.get('driver_override')
        old_driver = record.get('driver')
        for action in actions:
            try:
                self.execute(action)
            except ZpciError as exc:
                self.fail('FID %s: %s; %s' % (fid_text(entry['fid']), to_native(exc),
                                              self.restore_binding(action, actions, address, old_override,
                                                                   old_driver)))
        if actions and entry['driver'] != 'none':
            after = self.sysfs.driver_of(address)
            if after != entry['driver']:
                self.fail('FID %s: after %s the function is bound to %s, not %s; %s' % (
                    fid_text(entry['fid']), ', '.join(a['command'] for a in actions), after, entry['driver'],
                    self.restore_binding(None, actions, address, old_override, old_driver)))

    def restore_binding(self, failed, actions, address, old_override, old_driver):
        """Put back driver_override and the driver after ``failed`` (None: after all of ``actions``)."""
        ran = actions if failed is None else actions[:actions.index(failed)]
        steps = []
        if any(a['action'] == 'set_override' for a in ran + ([failed] if failed else [])):
            path = self.sysfs.override_path(address)
            steps.append((path, old_override or '',
                          ('echo %s > %s' % (old_override, path)) if old_override else ('echo > %s' % path)))
        current = self.sysfs.driver_of(address)
        if old_driver is not None and current != old_driver:
            if current is not None:
                path = self.sysfs.unbind_path(current)
                steps.append((path, address, 'echo %s > %s' % (address, path)))
            steps.append((DRIVERS_PROBE, address, 'echo %s > %s' % (address, DRIVERS_PROBE)))
        try:
            for path, value, command in steps:
                self.sysfs.write(path, value)
                self.commands.append(command)
        except ZpciError as exc:
            return 'restoring the old binding failed too (%s): the function has driver %s' % (
                to_native(exc), self.sysfs.driver_of(address))
        now = self.sysfs.driver_of(address)
        if now != old_driver:
            return 'the old binding could not be restored: the function has driver %s, it had %s' % (now, old_driver)
        return 'the function keeps driver %s' % now

    # -- states ------------------------------------------------------------------------------
    def rendered(self, entries):
        commands = []
        for entry in entries:
            record = {'fid': entry['fid'], 'power': None}
            for action in power_actions(entry, record) + binding_actions(entry, record):
                commands.append(action['command'])
        bindings, power = merge({}, set(), entries, False)
        files = {
            RULES_PATH: render_rules(bindings) if self.params['persistent'] else None,
            TMPFILES_PATH: render_tmpfiles(power) if self.params['persistent'] else None,
            MODULES_LOAD_PATH: render_modules_load(boot_modules(bindings)) if self.params['persistent'] else None,
        }
        self.module.exit_json(changed=False, rendered={'commands': commands, 'files': files})

    def run(self):
        try:
            self._run_states()
        except Failure as exc:
            # changed whenever anything ran that writes (a modprobe, a sysfs write, a file)
            extra = dict(exc.extra)
            extra.setdefault('changed', bool(self.commands))
            self.module.fail_json(msg=exc.msg, commands=self.commands, **extra)

    def _run_states(self):
        state = self.params['state']
        try:
            entries = normalize_config(self.params['config'])
        except ZpciConfigError as exc:
            self.fail(to_native(exc))
        if state == 'rendered':
            self.rendered(entries)
        if state == 'gathered':
            self.module.exit_json(changed=False, gathered=self.sysfs.read_all())
        if not entries and state == 'merged':
            self.fail('config: give at least one function for state merged')

        try:
            check_host(entries, self.sysfs.list_fids())
        except ZpciConfigError as exc:
            self.fail(to_native(exc))
        listed = [entry['fid'] for entry in entries]
        overridden = state == 'overridden'
        fids = sorted(set(listed) | set(self.sysfs.list_fids())) if overridden else listed
        before = dict((fid, self.sysfs.read_function(fid)) for fid in fids)
        for entry in entries:
            record = before[entry['fid']]
            if record['power'] == 'on' and not record['pci_address']:
                self.fail('config[%d].fid: FID %s is configured, but no PCI device has function_id 0x%08x'
                          % (entry['index'], fid_text(entry['fid']), entry['fid']))
            try:
                check_type(entry, record)
            except ZpciConfigError as exc:
                self.fail(to_native(exc))

        # Plan everything and check every refusal before the first change.
        plans = []
        refusals = []
        for entry in entries:
            record = before[entry['fid']]
            actions = power_actions(entry, record)
            if entry['power'] == 'on':
                actions += binding_actions(entry, predict(record, actions) if actions else record,
                                           self.sysfs.driver_available)
            reasons = self.guard(record, actions)
            if reasons:
                refusals.append((entry['fid'], reasons))
            plans.append((entry, actions))
        clears = []
        if overridden:
            for fid in fids:
                if fid not in listed:
                    actions = clear_override_actions(before[fid])
                    if actions:
                        clears.append((fid, actions))
        if refusals:
            self.refuse(refusals)

        files = self.desired_files(entries, overridden) if self.params['persistent'] else None
        file_changes = self.file_changes(files) if files else []

        changed = bool(file_changes) or any(actions for dummy, actions in plans) or bool(clears)
        if self.module.check_mode:
            after = {}
            # the order of a real run: the boot-time files first
            for path, dummy, content in file_changes:
                self.commands.append(('write %s' % path) if content else ('rm %s' % path))
            for entry, actions in plans:
                after[entry['fid']] = predict(before[entry['fid']], actions, entry)
                self.commands.extend(action['command'] for action in actions)
            for fid, actions in clears:
                after[fid] = predict(before[fid], actions)
                self.commands.extend(action['command'] for action in actions)
            self.finish(changed, fids, before, after)

        # The boot-time files first: a file system that refuses them (read-only, full) then fails
        # the run before any function changed.
        self.write_files(file_changes)
        done = []
        try:
            for entry, actions in plans:
                self.apply_entry(entry, actions, before[entry['fid']])
                done.append(entry)
            for fid, actions in clears:
                for action in actions:
                    try:
                        self.execute(action)
                    except ZpciError as exc:
                        self.fail('FID %s: %s' % (fid_text(fid), to_native(exc)))
        except Failure as exc:
            if file_changes:
                exc.msg += '; ' + self.files_after_failure(file_changes, done)
            raise
        after = dict((fid, self.sysfs.read_function(fid)) for fid in fids)
        self.finish(changed, fids, before, after)

    def apply_entry(self, entry, actions, record):
        fid = entry['fid']
        power = [a for a in actions if a['action'] in ('power_on', 'power_off')]
        for action in power:
            try:
                self.execute(action)
            except ZpciError as exc:
                self.fail('FID %s: %s' % (fid_text(fid), to_native(exc)))
        if entry['power'] != 'on':
            return
        if power:
            record = self.wait_for_device(fid)
            if not record['pci_address']:
                self.fail('FID %s: configured, but no PCI device has function_id 0x%08x' % (fid_text(fid), fid))
            try:
                check_type(entry, record)
            except ZpciConfigError as exc:
                try:
                    self.execute(power_actions({'fid': fid, 'power': 'off'}, record)[0])
                except ZpciError:
                    pass
                self.fail('%s; FID %s was powered off again' % (to_native(exc), fid_text(fid)))
        self.bind(entry, record)

    def write_files(self, file_changes):
        """Write the boot-time files; when one cannot be written, put back those already written."""
        written = []
        for path, old, content in file_changes:
            try:
                self.write_file(path, content)
            except (IOError, OSError) as exc:
                restored = self.restore_files(written)
                # put back (or never written): the host is as it was
                self.fail('cannot write %s: %s; no function was changed%s' % (
                    path, exc.strerror or to_native(exc), restored),
                    changed=restored.startswith('; the files already written could not'))
            written.append((path, old, content))

    def restore_files(self, written):
        problems = []
        for path, old, dummy in reversed(written):
            try:
                self.write_file(path, old)
            except (IOError, OSError) as exc:
                problems.append('%s (%s)' % (path, to_native(exc)))
        if problems:
            return '; the files already written could not be put back: %s' % ', '.join(problems)
        return ', the files already written were put back' if written else ''

    def files_after_failure(self, file_changes, done):
        """After a function failed: the files as they were, plus the functions that reached their
        new state, so that each function's boot-time state matches its active one."""
        old = dict((path, before) for path, before, dummy in file_changes)

        def old_text(path):  # a file the run did not change is still as it was
            return old[path] if path in old else _read_file(path)
        bindings, power = merge(parse_rules(old_text(RULES_PATH)), parse_tmpfiles(old_text(TMPFILES_PATH)), done, False)
        wanted = {RULES_PATH: render_rules(bindings), TMPFILES_PATH: render_tmpfiles(power),
                  MODULES_LOAD_PATH: render_modules_load(boot_modules(bindings))}
        try:
            for path in (RULES_PATH, TMPFILES_PATH, MODULES_LOAD_PATH):
                if _read_file(path) != wanted[path]:
                    self.write_file(path, wanted[path])
        except (IOError, OSError) as exc:
            return 'the boot-time files could not be made to match (%s)' % to_native(exc)
        return 'the boot-time files hold the old state of the functions not changed'

    def finish(self, changed, fids, before, after):
        before_list = [before[fid] for fid in fids]
        after_list = [dict(after.get(fid, before[fid])) for fid in fids]
        for record in after_list:
            mgmt = self.mgmt_interfaces() if record.get('net_devices') else ()
            record['holders'] = self.probe.holders(record, mgmt)
        for warning in self.probe.warnings:
            self.module.warn(warning)
        result = dict(changed=changed, commands=self.commands, before=before_list, after=after_list,
                      functions=after_list)
        if self.module._diff:
            diff = [{'before_header': 'zpci functions', 'after_header': 'zpci functions',
                     'before': _summary(before_list), 'after': _summary(after_list)}]
            result['diff'] = diff + self.file_diffs
        self.module.exit_json(**result)


def main():
    config_spec = dict(
        fid=dict(type='raw', required=True),
        power=dict(type='raw', default='on'),
        driver=dict(type='str', choices=['vfio-pci', 'ism', 'ism_vfio_pci', 'mlx5_core', 'none']),
        expected_type=dict(type='str', choices=['ism', 'roce', 'any'], default='any'),
    )
    module = AnsibleModule(
        argument_spec=dict(
            config=dict(type='list', elements='dict', options=config_spec),
            state=dict(type='str', choices=['merged', 'overridden', 'gathered', 'rendered'], default='merged'),
            persistent=dict(type='bool', default=True),
            force=dict(type='bool', default=False),
        ),
        supports_check_mode=True,
    )
    ZpciFunctionModule(module).run()


if __name__ == '__main__':
    main()
