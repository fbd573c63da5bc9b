# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""nic_tuning planning without I/O: one ``config`` item -> a normalized entry (``normalize_entry``),
and an entry checked against what the host's driver reports -> what to set (``resolve``).

Errors name the field (``config[N] (ifname).part.key``) and what is allowed; every check collects
its errors so that one run reports them all.
"""

import re

from ansible_collections.s390x.network.plugins.module_utils.nic import driver_limits as limits
from ansible_collections.s390x.network.plugins.module_utils.nic import ethtool as et
from ansible_collections.s390x.network.plugins.module_utils.nic import irq as nic_irq
from ansible_collections.s390x.network.plugins.module_utils.ip import nm_cli

ENTRY_KEYS = ("name", "features", "channels", "rings", "rps_cpus", "irq_affinity", "irqbalance")
U32_MAX = 0xFFFFFFFF
DIGITS_RE = re.compile(r"[0-9]{1,10}")
_TRUE = ("on", "yes", "true", "1")
_FALSE = ("off", "no", "false", "0")


def is_digits(text):
    """ASCII digits only (str.isdigit also takes other scripts' digits and superscripts)."""
    return bool(DIGITS_RE.fullmatch(text))


def count(value, where, low, high):
    if isinstance(value, bool) or not isinstance(value, int) and not (isinstance(value, str) and is_digits(value)):
        raise ValueError("%s: expected an integer between %d and %d, got %r" % (where, low, high, value))
    value = int(value)
    if not low <= value <= high:
        raise ValueError("%s: %d is outside %d..%d" % (where, value, low, high))
    return value


def flag(value, where):
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ValueError("%s: expected true/false (on/off), got %r" % (where, value))


# -- normalizing one config item ------------------------------------------------------------------
def normalize_entry(item, index, state="merged"):
    """``(entry, errors)`` for one ``config`` item; errors name the field and what is allowed."""
    where = "config[%d]" % index
    if not isinstance(item, dict):
        return None, ["%s: expected a dict with name and the settings of one interface, got %r" % (where, item)]
    errors = []
    unknown = sorted(set(item) - set(ENTRY_KEYS))
    if unknown:
        errors.append("%s: unknown keys %s; allowed: %s" % (where, ", ".join(unknown), ", ".join(ENTRY_KEYS)))
    name = item.get("name")
    problem = nm_cli.ifname_problem(name)
    if problem:
        return None, errors + ["%s.name: %s" % (where, problem)]
    where = "%s (%s)" % (where, name)
    entry = {
        "name": name,
        "where": where,
        "features": {},
        "channels": {},
        "rings": {},
        "rps_cpus": {},
        "irq_affinity": {},
        "irqbalance": "ignore",
    }
    if state == "gathered":
        return entry, errors
    parts = {}
    for key in ("features", "channels", "rings", "rps_cpus", "irq_affinity"):
        value = item.get(key)
        if value is not None and not isinstance(value, dict):
            errors.append("%s.%s: expected a dict, got %r" % (where, key, value))
        parts[key] = value if isinstance(value, dict) else {}
    errors.extend(_normalize_features(entry, parts["features"]))
    errors.extend(_normalize_counts(entry, "channels", parts["channels"], et.CHANNEL_KEYS, ()))
    errors.extend(_normalize_counts(entry, "rings", parts["rings"], et.RING_KEYS, ("rx", "tx")))
    errors.extend(_normalize_rps(entry, parts["rps_cpus"]))
    errors.extend(_normalize_affinity(entry, parts["irq_affinity"]))
    errors.extend(_normalize_irqbalance(entry, item.get("irqbalance") or "ignore"))
    return entry, errors


def _normalize_features(entry, features):
    where, errors, seen = entry["where"], [], {}
    for fname, value in features.items():
        if not isinstance(fname, str) or not et.FEATURE_NAME_RE.fullmatch(fname):
            errors.append("%s.features: %r is not a feature name (as ethtool -k or -K shows it)" % (where, fname))
            continue
        try:
            entry["features"][fname] = flag(value, "%s.features.%s" % (where, fname))
        except ValueError as exc:
            errors.append(str(exc))
            continue
        canonical = et.SHORT_TO_LONG.get(fname, fname)
        if canonical in seen:
            errors.append(
                "%s.features.%s: names the same feature as features.%s (%s)"
                % (where, fname, seen[canonical], canonical)
            )
        seen[canonical] = fname
    return errors


def _normalize_counts(entry, part, values, allowed, at_least_one):
    """Channel counts or ring sizes: ``allowed`` keys, each 0..U32_MAX (1.. for ``at_least_one``)."""
    where, errors = entry["where"], []
    for key, value in values.items():
        if value is None:
            continue
        if key not in allowed:
            errors.append("%s.%s: unknown key %r; allowed: %s" % (where, part, key, ", ".join(allowed)))
            continue
        low = 1 if key in at_least_one else 0
        try:
            entry[part][key] = count(value, "%s.%s.%s" % (where, part, key), low, U32_MAX)
        except ValueError as exc:
            errors.append(str(exc))
    return errors


def _normalize_rps(entry, rps):
    where, errors = entry["where"], []
    for key, value in rps.items():
        field = "%s.rps_cpus.%s" % (where, key)
        if key == "all":
            queue = "all"
        elif isinstance(key, int) and not isinstance(key, bool) and key >= 0 or isinstance(key, str) and is_digits(key):
            queue = int(key)
        else:
            errors.append("%s: the key is an RX queue index (0, 1, ...) or 'all', got %r" % (field, key))
            continue
        if queue in entry["rps_cpus"]:
            errors.append("%s: RX queue %s is given twice" % (field, queue))
            continue
        try:
            entry["rps_cpus"][queue] = nic_irq.parse_cpus(value)
        except nic_irq.CpuSetError as exc:
            errors.append("%s: %s" % (field, exc))
    if "all" in entry["rps_cpus"] and len(entry["rps_cpus"]) > 1:
        errors.append("%s.rps_cpus: 'all' and single queues together; give one or the other" % where)
    return errors


def _normalize_affinity(entry, affinity):
    where, errors = entry["where"], []
    for key, value in affinity.items():
        field = "%s.irq_affinity.%s" % (where, key)
        if isinstance(key, bool) or not isinstance(key, (str, int)) or not str(key).strip():
            errors.append("%s: the key is 'all', a queue index, rx-N/tx-N or a glob of IRQ names" % field)
            continue
        try:
            cpus = nic_irq.parse_cpus(value)
        except nic_irq.CpuSetError as exc:
            errors.append("%s: %s" % (field, exc))
            continue
        if not cpus:
            errors.append("%s: an IRQ needs at least one CPU" % field)
            continue
        entry["irq_affinity"][str(key).strip()] = cpus
    return errors


def _normalize_irqbalance(entry, irqbalance):
    where = entry["where"]
    if irqbalance not in ("ignore", "ban"):
        return ["%s.irqbalance: expected ignore or ban, got %r" % (where, irqbalance)]
    if irqbalance == "ban" and not entry["irq_affinity"]:
        return ["%s.irqbalance: ban bans the IRQs of irq_affinity, and this entry has none" % where]
    entry["irqbalance"] = irqbalance
    return []


# -- resolving an entry against the host -----------------------------------------------------------
def resolve(entry, current, replaced, warn):
    """What the entry asks of this host, checked against the driver: ``(want, errors)``; ``want`` is
    None when the interface does not exist. ``replaced``: state replaced (RX queues the entry does
    not name get an empty RPS mask). ``warn(text)`` reports what is allowed but may not work."""
    where, iface = entry["where"], current["ifaces"][entry["name"]]
    if not iface["exists"]:
        return None, ["%s: no such network interface (/sys/class/net/%s)" % (where, entry["name"])]
    errors = []
    want = {"channels": {}, "rings": {}, "features": [], "rps": {}, "affinity": {}, "ban": []}
    for part, check in (("channels", resolve_channels), ("rings", resolve_rings), ("features", resolve_features)):
        if entry[part]:
            want[part], errs = check(entry, iface, warn)
            errors.extend(errs)
    want["rps"], errs = resolve_rps(entry, iface, current["online"], want["channels"], replaced)
    errors.extend(errs)
    if entry["irq_affinity"]:
        want["affinity"], errs = resolve_affinity(entry, iface, current["online"])
        errors.extend(errs)
        if entry["irqbalance"] == "ban":
            want["ban"] = sorted(want["affinity"])
        elif (current["irqbalance"] or {}).get("running"):
            warn(
                "%s: irqbalance is running and moves IRQs again (every 10 s); the affinities set here may not "
                "last. Use irqbalance: ban (the module never stops irqbalance)" % where
            )
    return want, errors


def _driver(iface):
    return iface["driver"] or "unknown driver"


def resolve_channels(entry, iface, warn=None):
    """``({key: count}, errors)``: the channel counts to set, within what ``ethtool -l`` allows."""
    where, driver, info = entry["where"], _driver(iface), iface["channels"]
    if info is None:
        return {}, ["%s.channels: %s has no channel settings (ethtool -l: not supported)" % (where, driver)]
    errors, wanted = [], {}
    after = dict(info["current"])
    for key, value in sorted(entry["channels"].items()):
        top = info["max"][key]
        if top is None:
            if value:
                have = [k for k in et.CHANNEL_KEYS if info["max"][k]]
                errors.append(
                    "%s.channels.%s: %s has no %s channels (ethtool -l shows n/a), only %s"
                    % (where, key, driver, key, ", ".join(have) or "none")
                )
            continue
        if value > top:
            errors.append(
                "%s.channels.%s: %d is above the maximum %d that %s reports (ethtool -l %s, pre-set maximums)"
                % (where, key, value, top, driver, entry["name"])
            )
            continue
        wanted[key] = value
        after[key] = value
    rx_total = (after.get("rx") or 0) + (after.get("combined") or 0)
    tx_total = (after.get("tx") or 0) + (after.get("combined") or 0)
    if wanted and (not rx_total or not tx_total):
        errors.append(
            "%s.channels: the interface would have no %s channel (the kernel needs at least one RX "
            "and one TX channel, combined counting for both)" % (where, "RX" if not rx_total else "TX")
        )
    for key, text in limits.channel_problems(iface["driver"], wanted, iface["card_type"]):
        errors.append("%s.channels.%s: %s" % (where, key, text))
    return wanted, errors


def resolve_rings(entry, iface, warn):
    """``({key: size}, errors)``: the ring sizes to set, within ``ethtool -g`` and the driver table."""
    where, driver, info = entry["where"], _driver(iface), iface["rings"]
    table = limits.ring_problems(iface["driver"], entry["rings"])
    if table and limits.limits(iface["driver"]) and not limits.limits(iface["driver"])["rings"]:
        return {}, ["%s.rings.%s: %s" % (where, table[0][0], table[0][1])]
    if info is None:
        return {}, ["%s.rings: %s has no ring settings (ethtool -g: not supported)" % (where, driver)]
    errors, wanted = [], {}
    for key, value in sorted(entry["rings"].items()):
        top = info["max"][key]
        if top is None:
            errors.append(
                "%s.rings.%s: %s has no %s ring (ethtool -g shows n/a)" % (where, key, driver, et.RING_ARGS[key])
            )
            continue
        if value > top:
            errors.append(
                "%s.rings.%s: %d is above the maximum %d that %s reports (ethtool -g %s, pre-set maximums)"
                % (where, key, value, top, driver, entry["name"])
            )
            continue
        wanted[key] = value
    for key, text in table:
        errors.append("%s.rings.%s: %s" % (where, key, text))
    if iface["driver"] == "virtio_net":
        odd = [k for k, v in wanted.items() if not limits.is_power_of_two(v)]
        if odd:
            warn(
                "%s.rings: %s is not a power of 2; a split virtqueue's size is (virtio specification), "
                "so the device may refuse or round it" % (where, ", ".join(sorted(odd)))
            )
    return wanted, errors


def resolve_features(entry, iface, warn=None):
    """``([(feature, value)], errors)``: the entry's features by the names ``ethtool -k`` reports."""
    where, driver, feats = entry["where"], _driver(iface), iface["features"]
    if feats is None:
        return [], ["%s.features: %s has no offload features (ethtool -k: not supported)" % (where, driver)]
    errors, resolved = [], {}
    for name, value in entry["features"].items():
        field = "%s.features.%s" % (where, name)
        real = et.resolve_feature(name, feats)
        if real is None:
            errors.append("%s: %s reports no such feature (ethtool -k %s)" % (field, driver, entry["name"]))
            continue
        if real in resolved:
            errors.append("%s: names the same feature (%s) as features.%s" % (field, real, resolved[real][0]))
            continue
        conflict = group_conflict(real, feats, resolved)
        if conflict:
            errors.append("%s: %s is a member of %s; set the group or its members, not both" % ((field,) + conflict))
            continue
        problem = et.feature_problem(real, feats[real], feats, value)
        if problem:
            errors.append("%s: cannot be %s: %s" % (field, "on" if value else "off", problem))
            continue
        resolved[real] = (name, value)
    return [(real, value) for real, (_n, value) in resolved.items()], errors


def resolve_rps(entry, iface, online, channels, replaced):
    """``({queue: CPUs}, errors)``: the RPS masks to write, for the RX queues there are after the
    channel change ``channels``; with ``replaced``, every other queue gets an empty mask."""
    where, wanted, errors = entry["where"], {}, []
    if entry["rps_cpus"] and iface["rps"] is None:
        errors.append(
            "%s.rps_cpus: %s has no /sys/class/net/%s/queues/rx-*/rps_cpus (a kernel without RPS)"
            % (where, entry["name"], entry["name"])
        )
    elif entry["rps_cpus"]:
        queues = rx_queues_after(iface, channels)
        for queue, cpus in sorted(entry["rps_cpus"].items(), key=lambda kv: str(kv[0])):
            field = "%s.rps_cpus.%s" % (where, queue)
            bad = offline(cpus, online)
            if bad:
                errors.append("%s: CPU %s not online (online: %s)" % (field, bad, nic_irq.format_cpulist(online)))
                continue
            if queue != "all" and queue >= queues:
                errors.append(
                    "%s: %s has %d RX queue%s (rx-0..rx-%d)%s"
                    % (
                        field,
                        entry["name"],
                        queues,
                        "" if queues == 1 else "s",
                        queues - 1,
                        " after the channel change" if channels else "",
                    )
                )
                continue
            for index in range(queues) if queue == "all" else [queue]:
                wanted[index] = cpus
    if replaced and iface["rps"] is not None:
        for index in range(rx_queues_after(iface, channels)):
            wanted.setdefault(index, frozenset())
    return wanted, errors


def resolve_affinity(entry, iface, online):
    """``({irq: (IRQ name, CPUs)}, errors)`` for the entry's ``irq_affinity`` keys, each matched
    against the IRQs read from ``/proc/interrupts``; an IRQ two keys give different CPUs is an error."""
    where, chosen, errors = entry["where"], {}, []
    for key, cpus in sorted(entry["irq_affinity"].items()):
        field = "%s.irq_affinity.%s" % (where, key)
        bad = offline(cpus, online)
        if bad:
            errors.append("%s: CPU %s not online (online: %s)" % (field, bad, nic_irq.format_cpulist(online)))
            continue
        selected = iface["irq_sel"].get(key) or []
        if not selected:
            errors.append(_no_irq_text(entry, iface, key, field))
            continue
        for irq, name in selected:
            if irq in chosen and chosen[irq][1] != cpus:
                errors.append(
                    "%s: IRQ %d (%s) is also irq_affinity.%s with other CPUs" % (field, irq, name, chosen[irq][0])
                )
                continue
            chosen[irq] = (key, cpus, name)
    return dict((irq, (name, cpus)) for irq, (_k, cpus, name) in chosen.items()), errors


def _no_irq_text(entry, iface, key, field):
    if nic_irq.key_kind(key) == "glob" or iface["queue_irqs"]:
        return "%s: matches no IRQ in /proc/interrupts" % field
    known = (limits.limits(iface["driver"]) or {}).get("irqs")
    return "%s: no queue IRQs of %s found in /proc/interrupts (%s%s); name them with a glob of their names instead" % (
        field,
        entry["name"],
        _driver(iface),
        ", device %s" % iface["device"] if known else ": its IRQ names are not known to the module",
    )


# -- helpers ---------------------------------------------------------------------------------------
def offline(cpus, online):
    """The CPUs of ``cpus`` that are not online, as a CPU list (None when all are, or unknown)."""
    if online is None:
        return None
    missing = sorted(set(cpus) - set(online))
    return nic_irq.format_cpulist(missing) if missing else None


def rx_queues_after(iface, channels):
    """The number of RX queues ``iface`` has after the channel change ``channels``."""
    if not channels or not iface["channels"]:
        return iface["rx_queues"]
    after = dict(iface["channels"]["current"])
    after.update(channels)
    total = (after.get("rx") or 0) + (after.get("combined") or 0)
    return total or iface["rx_queues"]


def group_conflict(real, features, resolved):
    """(member, group) when ``real`` and an already resolved feature are a group and its member."""
    parent = features[real]["parent"]
    if parent and parent in resolved:
        return real, parent
    for child in features[real]["children"]:
        if child in resolved:
            return child, real
    return None
