# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Desired qeth configuration -> ordered chzdev commands. Pure: no I/O, no commands run.

Active and persistent drift are compared separately, and each device gets the fewest commands
that fix what drifted, in an order chzdev accepts:

1. Device online, stays online, an offline-only attribute (layer2, portname, priority_queueing,
   buffer_count, portno) differs -> a bounce: ``chzdev -a qeth ID online=0`` alone, then
   ``chzdev -e [-a] qeth ID <all wanted attributes>`` (chzdev applies layer2, the other
   offline-only attributes, online=1, then the rest; ``-a`` when the udev rule is already right).
   Upstream chzdev refuses any offline-only attribute on the command line while the device is and
   stays online (exit 9, "Cannot set buffer_count='128' while online='1'"), even an unchanged one.
   It would accept ``online=0`` and the attributes in one call (it orders offline-only attributes
   after ``online=0``), but setting the device offline on its own does not depend on that ordering
   and leaves nothing half-applied if the first call fails.
2. Device online, stays online, only online-settable attributes differ ->
   ``chzdev -e -a qeth ID <changed attributes>``, plus ``chzdev -e -p qeth ID <all wanted>`` when the
   rule drifted too (never both scopes at once: the active half would trip the check above).
3. Device offline or not grouped -> one ``chzdev -e qeth ID <all wanted>`` (``-a``/``-p`` when only
   one side drifted).
4. Device to be configured but offline (``online: false``) -> ``chzdev [-a|-p] qeth ID online=0 <all
   wanted>``, after ``chzdev -a qeth ID online=0`` when the device is online now.
5. Only the udev rule drifted -> ``chzdev -e -p qeth ID <all wanted>``: no bounce.
6. state replaced: settings in the rule that the entry no longer has -> ``chzdev -p qeth ID -r <attr>``.
7. Deconfigure (deleted, overridden) -> ``chzdev -d [-a|-p] -y qeth ID``.
Nothing drifted -> no command at all.
"""

import copy

from ansible_collections.s390x.network.plugins.module_utils.qeth import chzdev as chz
from ansible_collections.s390x.network.plugins.module_utils.engine import resource as engine
from ansible_collections.s390x.network.plugins.module_utils.qeth.attributes import (
    CARD_HIPERSOCKETS,
    MANAGED,
    OFFLINE_ONLY,
    AttrError,
    canonical,
    check_combination,
    default_for,
    order_settings,
    to_setting,
)
from ansible_collections.s390x.network.plugins.module_utils.qeth.ids import format_group_id

# persistent_diff key: the device is configured but blacklisted at the next boot
BOOT_BLACKLIST = "cio_ignore"


class PlanError(ValueError):
    pass


class Desired(object):
    """What one device should look like."""

    def __init__(
        self,
        busid,
        ids,
        online=True,
        settings=None,
        defaulted=None,
        active_resets=None,
        persistent_removes=None,
        label=None,
    ):
        self.busid = busid
        self.ids = tuple(ids)
        self.online = online
        self.settings = dict(settings or {})  # both scopes, name -> chzdev string
        self.defaulted = set(defaulted or ())  # names set to their default by 'replaced'
        self.active_resets = dict(active_resets or {})  # active only (rule entries dropped by -r)
        self.persistent_removes = list(persistent_removes or [])
        self.label = label or busid

    @property
    def group_id(self):
        return format_group_id(self.ids)

    def touched_names(self):
        return set(self.settings) | set(self.active_resets)


class Step(engine.Step):
    """One chzdev call. ``disruptive``: takes the device's interface down, now or at the next boot."""

    def __init__(self, argv, busid, kind, scope, disruptive=False):
        super(Step, self).__init__(argv=argv, kind=kind, scope=scope, disruptive=disruptive, subject=busid)

    @property
    def busid(self):
        return self.subject


def with_defaults(config, defaults):
    """The entries of ``config`` with the values of ``defaults`` for the settings they do not give
    (None, also a null the entry gives: the module's arguments cannot tell them apart); a setting
    the entry gives wins. Each entry gets its own copy of a default dict (``attributes``)."""
    given = dict((name, value) for name, value in (defaults or {}).items() if value is not None)
    if not given:
        return config
    return [
        dict(entry, **dict((n, copy.deepcopy(v)) for n, v in given.items() if entry.get(n) is None)) for entry in config
    ]


def entry_settings(entry, label):
    """Validated chzdev settings (name -> string) from one config entry."""
    settings = {}
    errors = []
    for name in MANAGED:
        value = entry.get(name)
        if value is None:
            continue
        try:
            settings[name] = to_setting(name, value, label)
        except AttrError as exc:
            errors.append(str(exc))
    for name, value in sorted((entry.get("attributes") or {}).items()):
        if name in MANAGED or name == "online":
            errors.append("%s: attributes.%s: use the option '%s' instead" % (label, name, name))
            continue
        if value is None:
            errors.append("%s: attributes.%s has no value" % (label, name))
            continue
        try:
            settings[name] = to_setting(name, value, label)
        except AttrError as exc:
            errors.append(str(exc))
    return settings, errors


def build_desired(entry, busid, ids, dev, state, card_type, label):
    """Desired for one config entry. Raises PlanError listing every problem with the entry."""
    settings, errors = entry_settings(entry, label)
    if card_type == CARD_HIPERSOCKETS and settings.get("isolation") == "none":
        # HiperSockets have no isolation (the kernel reads N/A or none and refuses writes)
        del settings["isolation"]
    defaulted = set()
    active_resets = {}
    removes = []
    if state in ("replaced", "overridden"):
        for name in MANAGED:
            if name in settings:
                continue
            default = default_for(name, card_type)
            if default is not None:
                settings[name] = default
                defaulted.add(name)
        if dev is not None and dev.persistent:
            for name in sorted(dev.persistent):
                if name == "online" or name in settings:
                    continue
                removes.append(name)
        if dev is not None and dev.exists:
            for name in removes:
                default = default_for(name, card_type)
                current = dev.active.get(name)
                if default is not None and current is not None and canonical(name, current) != canonical(name, default):
                    active_resets[name] = default
    combined = dict(settings)
    combined.update(active_resets)
    errors.extend(check_combination(combined, label, card_type))
    if errors:
        raise PlanError("; ".join(errors))
    online = entry.get("online")
    return Desired(
        busid,
        ids,
        online=True if online is None else bool(online),
        settings=settings,
        defaulted=defaulted,
        active_resets=active_resets,
        persistent_removes=removes,
        label=label,
    )


# -- drift -----------------------------------------------------------------------------------


def _same(name, a, b):
    return canonical(name, a) == canonical(name, b)


def active_diff(dev, want):
    """name -> (current, wanted) for the active configuration."""
    diffs = {}
    exists = dev is not None and dev.exists
    current = dev.active if exists else {}
    cur_online = current.get("online") == "1"
    if not exists or cur_online != want.online:
        diffs["online"] = (current.get("online"), "1" if want.online else "0")
    targets = dict(want.settings)
    targets.update(want.active_resets)
    for name, value in targets.items():
        if not exists or not _same(name, current.get(name), value):
            diffs[name] = (current.get(name), value)
    return diffs


def persistent_diff(dev, want):
    """name -> (current, wanted) for the chzdev udev rule; {'rule': ...} when there is none.

    ``cio_ignore``: the rule is right but the next boot blacklists the device's CCW devices
    (41-cio-ignore.rules does not free them), so it would not come back.
    """
    rule = dev.persistent if dev is not None else None
    if rule is None:
        return {"rule": (None, "created")}
    diffs = {}
    if dev.hidden_at_boot:
        diffs[BOOT_BLACKLIST] = (",".join(dev.hidden_at_boot), "freed")
    wanted_online = "1" if want.online else "0"
    if rule.get("online") != wanted_online:
        diffs["online"] = (rule.get("online"), wanted_online)
    for name, value in want.settings.items():
        current = rule.get(name)
        if current is None and name in want.defaulted:
            continue
        if not _same(name, current, value):
            diffs[name] = (current, value)
    for name in want.persistent_removes:
        if name in rule:
            diffs[name] = (rule[name], None)
    return diffs


# -- commands --------------------------------------------------------------------------------


def _pairs(values, names):
    return [(n, values[n]) for n in order_settings(names)]


def plan_device(dev, want, scope, binary):
    """Steps that bring one device to ``want`` within ``scope`` (both|active|persistent)."""
    do_active = scope in ("both", "active")
    do_persistent = scope in ("both", "persistent")
    act = active_diff(dev, want) if do_active else {}
    pers = persistent_diff(dev, want) if do_persistent else {}
    rule_update = bool(pers) and any(k not in want.persistent_removes for k in pers)
    steps = []
    gid = want.group_id
    all_both = _pairs(want.settings, want.settings)
    active_targets = dict(want.settings)
    active_targets.update(want.active_resets)
    all_active = _pairs(active_targets, active_targets)
    online_now = dev is not None and dev.online
    split = bool(want.active_resets)  # active-only resets must not land in the rule

    if act:
        offline_changes = [n for n in act if n in OFFLINE_ONLY]
        if online_now and (not want.online or offline_changes):
            # Take the device down on its own first; with the device offline, the next call may
            # carry offline-only attributes and chzdev applies layer2, the others, then online=1.
            steps.append(
                Step(chz.offline_argv(binary, gid, [], "active"), want.busid, "offline", "active", disruptive=True)
            )
            online_now = False
            if not want.online:
                act.pop("online", None)
        if want.online:
            if online_now:
                changed = [n for n in act if n != "online"]
                steps.append(
                    Step(
                        chz.enable_argv(binary, gid, _pairs(active_targets, changed), "active"),
                        want.busid,
                        "configure",
                        "active",
                    )
                )
            elif rule_update and not split:
                steps.append(Step(chz.enable_argv(binary, gid, all_both, "both"), want.busid, "configure", "both"))
                rule_update = False
            else:
                steps.append(
                    Step(chz.enable_argv(binary, gid, all_active, "active"), want.busid, "configure", "active")
                )
        elif act:
            # configured but offline: online=0 (first) and the attributes
            if rule_update and not split:
                steps.append(
                    Step(
                        chz.offline_argv(binary, gid, all_both, "both"), want.busid, "offline", "both", disruptive=True
                    )
                )
                rule_update = False
            else:
                steps.append(Step(chz.offline_argv(binary, gid, all_active, "active"), want.busid, "offline", "active"))
    if rule_update:
        # a rule that is already right makes chzdev -p skip the device ("already configured") and
        # leave 41-cio-ignore.rules as it is: --force makes it write both again
        force = set(pers) == {BOOT_BLACKLIST}
        if want.online:
            steps.append(
                Step(
                    chz.enable_argv(binary, gid, all_both, "persistent", force=force),
                    want.busid,
                    "configure",
                    "persistent",
                )
            )
        else:
            # online=0 in the rule: the device stays down after the next boot
            steps.append(
                Step(
                    chz.offline_argv(binary, gid, all_both, "persistent", force=force),
                    want.busid,
                    "offline",
                    "persistent",
                    disruptive=True,
                )
            )
    if do_persistent:
        rule = dev.persistent if dev is not None else None
        removes = [n for n in want.persistent_removes if rule is not None and n in rule]
        if removes:
            steps.append(Step(chz.remove_argv(binary, gid, removes), want.busid, "remove-persistent", "persistent"))
    return steps


def plan_delete(dev, group_id, scope, binary, yes=True):
    """Steps that deconfigure one device within ``scope``.

    ``-y`` answers chzdev's "device is in use" question (any IP address counts as use): the module
    runs unattended and does its own check for the management connection before this.
    """
    if dev is None:
        return []
    # A grouped device that is offline and has no rule is not configured: upstream chzdev -d
    # ungroups, other implementations only set it offline; either way nothing is left to do.
    act = scope in ("both", "active") and dev.online
    pers = scope in ("both", "persistent") and dev.persistent is not None
    if not act and not pers:
        return []
    which = "both" if act and pers else ("active" if act else "persistent")
    # without its rule a device that is online now does not come back after the next boot
    return [
        Step(chz.disable_argv(binary, group_id, which, yes=yes), dev.busid, "deconfigure", which, disruptive=dev.online)
    ]


def plan_rollback(before, now, touched, binary):
    """Steps that restore the active state ``before`` (a DeviceState) after a failure left ``now``."""
    gid = before.group_id if before is not None else now.group_id
    if before is None or not before.exists:
        if now is not None and now.exists:
            return [
                Step(
                    chz.disable_argv(binary, gid, "active", yes=True),
                    now.busid,
                    "rollback",
                    "active",
                    disruptive=now.online,
                )
            ]
        return []
    settings = {}
    current = now.active if now is not None and now.exists else {}
    for name in touched:
        value = before.active.get(name)
        # only what the failed call changed (chzdev leaves equal values alone anyway)
        if value is not None and not _same(name, current.get(name), value):
            settings[name] = value
    want = Desired(before.busid, before.ids or (before.busid,), online=before.online, settings=settings)
    steps = plan_device(now, want, "active", binary)
    for step in steps:
        step.kind = "rollback"
    return steps


# -- prediction (check mode, and 'after' without re-reading) -----------------------------------


def predict(dev, want, scope, new_state_factory):
    """The DeviceState the steps of plan_device would leave behind."""
    after = copy.deepcopy(dev) if dev is not None else new_state_factory(want.busid)
    after.ids = tuple(want.ids)
    if scope in ("both", "active"):
        after.exists = True
        after.hidden = []  # chzdev frees the CCW devices it configures
        after.active["online"] = "1" if want.online else "0"
        after.active.update(want.settings)
        after.active.update(want.active_resets)
    if scope in ("both", "persistent"):
        pers = persistent_diff(dev, want)
        rule_update = any(k not in want.persistent_removes for k in pers)
        if rule_update or (pers and after.persistent is not None):
            rule = dict(after.persistent or {})
            if rule_update:
                rule["online"] = "1" if want.online else "0"
                rule.update(want.settings)
                after.hidden_at_boot = []
                after.hidden = []  # chzdev -p frees them now as well
            for name in want.persistent_removes:
                rule.pop(name, None)
            after.persistent = rule
    return after


def predict_delete(dev, scope):
    after = copy.deepcopy(dev)
    if after is None:
        return None
    if scope in ("both", "active"):
        after.exists = False
        after.active = {}
        after.info = dict(after.info, if_name=None, state=None)
    if scope in ("both", "persistent"):
        after.persistent = None
        after.rule_path = None
    return after
