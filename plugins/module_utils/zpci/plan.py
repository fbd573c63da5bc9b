# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Desired zPCI function state -> validated entries -> ordered sysfs actions (pure logic).

An action is a dict ``{'action', 'fid', 'path', 'value', 'command'}`` with canonical
paths (``/sys/...``); ``command`` is the shell equivalent shown to the user.
Actions: ``power_on``, ``power_off``, ``set_override``, ``clear_override``, ``unbind``,
``probe``, ``modprobe``, ``sriov_disable``, ``sriov_autoprobe``, ``sriov_enable``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.s390x.network.plugins.module_utils.zpci.sysfs import (
    DRIVER_MODULES,
    DRIVER_TYPES,
    DRIVERS_PROBE,
    NETWORK_EXPRESS_TYPES,
    ZpciSysfs,
)
from ansible_collections.s390x.network.plugins.module_utils.zpci.pci_ids import fid_text, parse_fid

POWER_CHOICES = ('on', 'off')
DRIVER_CHOICES = ('vfio-pci', 'ism', 'ism_vfio_pci', 'mlx5_core', 'none')
TYPE_CHOICES = ('ism', 'roce', 'neth', 'netd', 'any')
UNKNOWN_ADDRESS = '<address of FID %s>'
# sriov_numvfs is a u16 in the kernel; the PF's sriov_totalvfs is the real limit (checked on the host)
NUMVFS_MAX = 0xFFFF
# the driver that creates the VFs of a user-managed PF (Network Express NETD)
SRIOV_PF_DRIVER = 'mlx5_core'


class ZpciConfigError(Exception):
    """Bad input; the message names the field."""


def normalize_power(value):
    """``on``/``off``; YAML 1.1 reads an unquoted on/off as a boolean, so booleans count too."""
    if value is None:
        return 'on'
    if isinstance(value, bool):
        return 'on' if value else 'off'
    text = str(value).strip().lower()
    if text in ('on', 'true', 'yes', '1'):
        return 'on'
    if text in ('off', 'false', 'no', '0'):
        return 'off'
    return None


def normalize_config(config):
    """Validate ``config`` (list of dicts) and return entries with int FIDs, merged duplicates.

    Raises ZpciConfigError naming ``config[i].field`` and the allowed values, for every problem of
    every entry at once (separated by ``; ``).
    """
    entries = []
    errors = []
    seen = {}
    for index, item in enumerate(config or []):
        entry, problems = _entry(index, item)
        errors.extend(problems)
        if entry is None:
            continue
        fid = entry['fid']
        if fid in seen:
            other = seen[fid]
            for key in ('power', 'driver', 'expected_type', 'sriov_numvfs', 'sriov_drivers_autoprobe'):
                if other[key] != entry[key]:
                    values = ('config[%d]' % index, key, fid_text(fid), other['index'], key, other[key], entry[key])
                    errors.append(
                        '%s.%s: FID %s is also in config[%d] with %s %r, here %r; give each FID once' % values
                    )
                    break
            continue
        seen[fid] = entry
        entries.append(entry)
    if errors:
        raise ZpciConfigError('; '.join(errors))
    return entries


def _entry(index, item):
    """(entry or None, errors) for one item of ``config``."""
    where = 'config[%d]' % index
    if not isinstance(item, dict):
        return None, [
            '%s: each entry is a dict with fid, power, driver, expected_type, sriov_numvfs, sriov_drivers_autoprobe'
            % where
        ]
    errors = []
    try:
        fid = parse_fid(item.get('fid'))
    except ValueError as exc:
        fid = None
        errors.append('%s.fid: %s' % (where, exc))
    power = normalize_power(item.get('power'))
    if power is None:
        errors.append('%s.power: %r is not one of %s' % (where, item.get('power'), ', '.join(POWER_CHOICES)))
    driver = item.get('driver')
    if driver is not None and driver not in DRIVER_CHOICES:
        errors.append('%s.driver: %r is not one of %s' % (where, driver, ', '.join(DRIVER_CHOICES)))
    expected = item.get('expected_type') or 'any'
    if expected not in TYPE_CHOICES:
        errors.append('%s.expected_type: %r is not one of %s' % (where, expected, ', '.join(TYPE_CHOICES)))
    numvfs, autoprobe = _sriov_fields(where, item, errors)
    if errors:
        return None, errors
    if numvfs and power == 'off':
        errors.append(
            '%s.sriov_numvfs: FID %s has power off, which leaves no PF to create VFs on; '
            'omit sriov_numvfs or use power: on' % (where, fid_text(fid))
        )
    if numvfs and driver not in (None, SRIOV_PF_DRIVER):
        errors.append(
            '%s.driver: the VFs of FID %s are created by its PF driver %s, not %s; use driver: %s or omit it'
            % (where, fid_text(fid), SRIOV_PF_DRIVER, driver, SRIOV_PF_DRIVER)
        )
    if numvfs is not None and expected not in ('any', 'netd'):
        errors.append(
            '%s.sriov_numvfs: only a user-managed physical function (netd) creates VFs, but expected_type is %s'
            % (where, expected)
        )
    if power == 'off' and driver is not None:
        errors.append(
            '%s.driver: FID %s has power off, which leaves no device to bind; '
            'omit driver or use power: on' % (where, fid_text(fid))
        )
    if driver is not None and DRIVER_TYPES.get(driver) and expected != 'any' and expected not in DRIVER_TYPES[driver]:
        errors.append(
            '%s.driver: %s drives %s functions, but expected_type is %s'
            % (where, driver, ' or '.join(DRIVER_TYPES[driver]), expected)
        )
    if errors:
        return None, errors
    entry = {'fid': fid, 'power': power, 'driver': driver, 'expected_type': expected, 'index': index}
    entry.update(sriov_numvfs=numvfs, sriov_drivers_autoprobe=autoprobe)
    return entry, []


def _sriov_fields(where, item, errors):
    """(sriov_numvfs or None, sriov_drivers_autoprobe) of an item; problems go to ``errors``."""
    numvfs = item.get('sriov_numvfs')
    if numvfs is not None:
        if isinstance(numvfs, bool) or not isinstance(numvfs, int) or not 0 <= numvfs <= NUMVFS_MAX:
            errors.append('%s.sriov_numvfs: %r is not an integer from 0 to %d' % (where, numvfs, NUMVFS_MAX))
            numvfs = None
    autoprobe = item.get('sriov_drivers_autoprobe')
    if autoprobe is None:
        autoprobe = False
    elif not isinstance(autoprobe, bool):
        errors.append('%s.sriov_drivers_autoprobe: %r is not true or false' % (where, autoprobe))
    elif numvfs is None:
        errors.append('%s.sriov_drivers_autoprobe: applies to the VFs sriov_numvfs creates; give sriov_numvfs' % where)
    return numvfs, autoprobe


def check_host(entries, host_fids):
    """Errors for FIDs this partition does not have (the message lists those it has)."""
    have = set(host_fids)
    for entry in entries:
        if entry['fid'] not in have:
            listed = ', '.join(fid_text(fid) for fid in sorted(have)) or 'none'
            raise ZpciConfigError(
                'config[%d].fid: FID %s is not configured to this partition '
                '(no /sys/bus/pci/slots/%08x); FIDs of this host: %s'
                % (entry['index'], fid_text(entry['fid']), entry['fid'], listed)
            )


def check_type(entry, record):
    """Error when a configured function's type contradicts expected_type or the driver."""
    kind = record.get('type')
    if kind is None:
        return
    where = 'config[%d]' % entry['index']
    expected = entry['expected_type']
    if expected != 'any' and kind != expected:
        raise ZpciConfigError(
            '%s.expected_type: FID %s is %s (pft %s), not %s'
            % (where, fid_text(entry['fid']), kind, record.get('pft_name'), expected)
        )
    driver = entry.get('driver')
    if driver and DRIVER_TYPES.get(driver) and kind not in DRIVER_TYPES[driver]:
        allowed = sorted(d for d, kinds in DRIVER_TYPES.items() if kinds is None or kind in kinds)
        raise ZpciConfigError(
            '%s.driver: %s cannot drive FID %s, a %s function (pft %s); drivers for it: %s'
            % (where, driver, fid_text(entry['fid']), kind, _pft_text(record), ', '.join(allowed))
        )
    check_sriov(entry, record)


def _pft_text(record):
    pft = record.get('pft')
    return 'unknown' if pft is None else '0x%02x %s' % (pft, record.get('pft_name'))


def check_sriov(entry, record):
    """Error when ``sriov_numvfs`` does not fit a configured function: not a PF with SR-IOV, more VFs
    than its ``sriov_totalvfs``, or a PF that no driver (mlx5_core) drives."""
    numvfs = entry.get('sriov_numvfs')
    if numvfs is None or not record.get('pci_address'):
        return
    where = 'config[%d].sriov_numvfs' % entry['index']
    sriov = record.get('sriov')
    if sriov is None:
        what = 'a VF' if record.get('vfn') else 'a function without SR-IOV'
        raise ZpciConfigError(
            '%s: FID %s (pft %s) is %s; only a physical function the partition manages (NETD) creates VFs'
            % (where, fid_text(entry['fid']), _pft_text(record), what)
        )
    if numvfs > sriov['totalvfs']:
        raise ZpciConfigError(
            '%s: %d is more than FID %s offers (sriov_totalvfs %d); allowed 0 to %d'
            % (where, numvfs, fid_text(entry['fid']), sriov['totalvfs'], sriov['totalvfs'])
        )
    driver = entry.get('driver') or record.get('driver')
    if numvfs and sriov.get('numvfs') != numvfs and driver != SRIOV_PF_DRIVER:
        raise ZpciConfigError(
            '%s: FID %s must be bound to %s to create VFs (it is %s); add driver: %s'
            % (where, fid_text(entry['fid']), SRIOV_PF_DRIVER, driver or 'unbound', SRIOV_PF_DRIVER)
        )


def isolated_vf_findings(records):
    """Findings for Network Express VFs without their PF in the partition while UID checking is off:
    their PCI domain is generated, so their PCI address changes across reboot and hot plug."""
    out = []
    for record in records:
        if (
            record.get('type') in NETWORK_EXPRESS_TYPES
            and record.get('isolated_vf')
            and not record.get('uid_is_unique')
        ):
            out.append(
                'FID %s (%s VF %s at %s) is an isolated VF (its PF is not in this partition) and UID checking is '
                'off: its PCI domain is generated and changes across reboot and hot plug; refer to it by FID or '
                'UID, never by PCI address, or turn UID checking on'
                % (fid_text(record['fid']), record.get('pft_name'), record.get('vfn'), record.get('pci_address'))
            )
    return out


def _act(action, fid, path=None, value=None, command=None):
    return {'action': action, 'fid': fid, 'path': path, 'value': value, 'command': command}


def power_actions(entry, record):
    """Power change for one entry (empty when the slot already has the desired power)."""
    fid = entry['fid']
    path = ZpciSysfs.slot_power_path(fid)
    if entry['power'] == 'on' and record.get('power') != 'on':
        return [_act('power_on', fid, path, '1', 'echo 1 > %s' % path)]
    if entry['power'] == 'off' and record.get('power') == 'on':
        return [_act('power_off', fid, path, '0', 'echo 0 > %s' % path)]
    return []


def binding_actions(entry, record, driver_available=None):
    """Actions that bind a configured function to ``entry['driver']`` (empty when it is).

    ``record`` may lack a PCI address (function still in standby, check mode): the
    commands then name the address by its FID and assume the function unbound.
    ``driver_available(name)`` tells whether the driver is registered (else modprobe).
    """
    driver = entry.get('driver')
    if driver is None or entry['power'] != 'on':
        return []
    fid = entry['fid']
    address = record.get('pci_address') or (UNKNOWN_ADDRESS % fid_text(fid))
    current = record.get('driver')
    override = record.get('driver_override')
    actions = []
    # the driver is loaded first: a modprobe that fails then leaves the function as it was
    if driver not in ('none', current) and driver_available is not None and not driver_available(driver):
        module = DRIVER_MODULES.get(driver, driver)
        actions.append(_act('modprobe', fid, None, module, 'modprobe %s' % module))
    override_path = ZpciSysfs.override_path(address)
    if override != driver:
        actions.append(_act('set_override', fid, override_path, driver, 'echo %s > %s' % (driver, override_path)))
    if driver == 'none':
        if current is not None:
            path = ZpciSysfs.unbind_path(current)
            actions.append(_act('unbind', fid, path, address, 'echo %s > %s' % (address, path)))
        return actions
    if current == driver:
        return actions
    if current is not None:
        path = ZpciSysfs.unbind_path(current)
        actions.append(_act('unbind', fid, path, address, 'echo %s > %s' % (address, path)))
    actions.append(_act('probe', fid, DRIVERS_PROBE, address, 'echo %s > %s' % (address, DRIVERS_PROBE)))
    return actions


def clear_override_actions(record):
    """``overridden``: remove the driver_override of a function not in config."""
    if record.get('power') != 'on' or not record.get('pci_address') or record.get('driver_override') is None:
        return []
    path = ZpciSysfs.override_path(record['pci_address'])
    return [_act('clear_override', record['fid'], path, '', 'echo > %s' % path)]


def sriov_actions(entry, record):
    """Writes that give a PF ``entry['sriov_numvfs']`` VFs (empty when it has them): the kernel
    takes 0 -> N and N -> 0 only, so a new count goes through 0; ``sriov_drivers_autoprobe`` is set
    before the VFs appear."""
    want = entry.get('sriov_numvfs')
    if want is None or entry['power'] != 'on':
        return []
    fid = entry['fid']
    address = record.get('pci_address') or (UNKNOWN_ADDRESS % fid_text(fid))
    sriov = record.get('sriov') or {}
    have = sriov.get('numvfs') or 0
    autoprobe = '1' if entry['sriov_drivers_autoprobe'] else '0'
    actions = []

    def write(action, name, value):
        path = ZpciSysfs.sriov_path(address, name)
        actions.append(_act(action, fid, path, value, 'echo %s > %s' % (value, path)))

    if have != want and have:
        write('sriov_disable', 'sriov_numvfs', '0')
    if sriov.get('drivers_autoprobe') != entry['sriov_drivers_autoprobe'] and (want or have):
        write('sriov_autoprobe', 'sriov_drivers_autoprobe', autoprobe)
    if have != want and want:
        write('sriov_enable', 'sriov_numvfs', '%d' % want)
    return actions


def needs_guard(actions):
    """Whether the actions take a function away from its current user (unbind, power off, the
    removal of a PF's VFs)."""
    return any(action['action'] in ('unbind', 'power_off', 'sriov_disable') for action in actions)


def predict(record, actions, entry=None):
    """The record after the actions (check mode and ``after``)."""
    after = dict(record)
    for action in actions:
        kind = action['action']
        if kind == 'power_on':
            after['power'] = 'on'
        elif kind == 'power_off':
            for key in ('pci_address', 'driver', 'driver_override', 'iommu_group', 'sriov'):
                after[key] = None
            after['net_devices'] = []
            after['power'] = 'off'
        elif kind == 'set_override':
            after['driver_override'] = action['value']
        elif kind == 'clear_override':
            after['driver_override'] = None
        elif kind == 'unbind':
            after['driver'] = None
        elif kind == 'probe':
            after['driver'] = after.get('driver_override')
        elif kind.startswith('sriov_'):
            sriov = dict(after.get('sriov') or {'totalvfs': None, 'numvfs': 0, 'drivers_autoprobe': True, 'vfs': []})
            if kind == 'sriov_autoprobe':
                sriov['drivers_autoprobe'] = action['value'] == '1'
            else:
                sriov['numvfs'] = int(action['value'])
            after['sriov'] = sriov
    if entry is not None and entry.get('driver') == 'none' and after.get('power') == 'on':
        after['driver'] = None
    return after
