# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Desired zPCI function state -> validated entries -> ordered sysfs actions (pure logic).

An action is a dict ``{'action', 'fid', 'path', 'value', 'command'}`` with canonical
paths (``/sys/...``); ``command`` is the shell equivalent shown to the user.
Actions: ``power_on``, ``power_off``, ``set_override``, ``clear_override``, ``unbind``,
``probe``, ``modprobe``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.s390x.network.plugins.module_utils.zpci.sysfs import (
    DRIVER_MODULES,
    DRIVER_TYPES,
    DRIVERS_PROBE,
    ZpciSysfs,
)
from ansible_collections.s390x.network.plugins.module_utils.zpci.pci_ids import fid_text, parse_fid

POWER_CHOICES = ('on', 'off')
DRIVER_CHOICES = ('vfio-pci', 'ism', 'ism_vfio_pci', 'mlx5_core', 'none')
TYPE_CHOICES = ('ism', 'roce', 'any')
UNKNOWN_ADDRESS = '<address of FID %s>'


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
            for key in ('power', 'driver', 'expected_type'):
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
        return None, ['%s: each entry is a dict with fid, power, driver, expected_type' % where]
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
    if errors:
        return None, errors
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
    return {'fid': fid, 'power': power, 'driver': driver, 'expected_type': expected, 'index': index}, []


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
        raise ZpciConfigError(
            '%s.driver: %s cannot drive FID %s, a %s function (pft %s)'
            % (where, driver, fid_text(entry['fid']), kind, record.get('pft_name'))
        )


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


def needs_guard(actions):
    """Whether the actions take a function away from its current user (unbind, power off)."""
    return any(action['action'] in ('unbind', 'power_off') for action in actions)


def predict(record, actions, entry=None):
    """The record after the actions (check mode and ``after``)."""
    after = dict(record)
    for action in actions:
        kind = action['action']
        if kind == 'power_on':
            after['power'] = 'on'
        elif kind == 'power_off':
            for key in ('pci_address', 'driver', 'driver_override', 'iommu_group'):
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
    if entry is not None and entry.get('driver') == 'none' and after.get('power') == 'on':
        after['driver'] = None
    return after
