# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""``ethtool``: argument formats, output parsing (text and JSON) and offload feature names.

The forms this file builds and reads (ethtool 4.x to 7.x; ``ethtool -h``, ethtool.8):

* ``ethtool --version`` -- ``ethtool version 6.1``;
* ``ethtool -i IF`` -- driver information, ``key: value`` lines (``driver: virtio_net``);
* ``ethtool [--json] -l IF`` / ``-L IF [rx N] [tx N] [other N] [combined N]`` -- channels;
* ``ethtool [--json] -g IF`` / ``-G IF [rx N] [rx-mini N] [rx-jumbo N] [tx N]`` -- ring sizes;
* ``ethtool [--json] -k IF`` / ``-K IF NAME on|off ...`` -- offload features.

JSON output (``--json``, global option) per subcommand, from ethtool's NEWS:

* 5.10: JSON infrastructure (``--json`` exists; options without JSON support print text);
* 5.14: ``--json`` on an option without JSON support is an error instead of being ignored
  ("bad command line argument(s)");
* 5.17: ``-k`` (features); 6.2: ``-g`` (rings); 6.15: ``-l`` (channels).

So ``uses_json`` asks for JSON only where the installed version has it, and ``parse_*`` read
either form (a text answer to ``--json`` on 5.10-5.13 is read as text). JSON keys are those of
ethtool's ``netlink/channels.c``, ``netlink/rings.c`` (``show_u32`` keys ``rx-max``, ``rx`` ...;
an attribute the kernel did not send is left out) and ``netlink/features.c`` (per feature
``active``, ``fixed``, ``requested``; ``null`` for a legacy group).

Values: the netlink text form prints ``n/a`` for an attribute the kernel did not send, which it
does when the driver's maximum is 0 (kernel ``net/ethtool/channels.c``, ``rings.c``); the ioctl
form (ethtool before 5.8, or kernels before 5.6) prints ``0``. Both mean "the driver has no such
channel or ring": the parsers return None for them.

Features: ``ethtool -k`` shows the legacy flags under their long names (``tcp-segmentation-offload``)
and the kernel features under their kernel names; a legacy flag that covers several kernel features
is a group whose members follow it (indented by a tab in text). ``-K`` takes the short legacy names
(``tso``) on every version and the long ones from 5.7 ("features: accept long legacy flag names"),
so ``argv_set_features`` writes the short ones. The legacy table is ethtool's ``off_flag_def``
(``common.c``).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import re

TOOL = "ethtool"

#: first ethtool version whose ``--json`` covers the subcommand (NEWS of 5.17, 6.2, 6.15)
JSON_SINCE = {"-k": (5, 17), "-g": (6, 2), "-l": (6, 15)}
#: first version that refuses ``--json`` where it has no JSON output (NEWS of 5.14)
JSON_STRICT_SINCE = (5, 14)

CHANNEL_KEYS = ("rx", "tx", "other", "combined")
RING_KEYS = ("rx", "rx_mini", "rx_jumbo", "tx")
#: ethtool -G argument names of the ring keys
RING_ARGS = {"rx": "rx", "rx_mini": "rx-mini", "rx_jumbo": "rx-jumbo", "tx": "tx"}

#: (short name for -K, long name shown by -k, kernel feature name pattern); ethtool common.c off_flag_def
LEGACY_FLAGS = (
    ("rx", "rx-checksumming", "rx-checksum"),
    ("tx", "tx-checksumming", "tx-checksum-*"),
    ("sg", "scatter-gather", "tx-scatter-gather*"),
    ("tso", "tcp-segmentation-offload", "tx-tcp*-segmentation"),
    ("ufo", "udp-fragmentation-offload", "tx-udp-fragmentation"),
    ("gso", "generic-segmentation-offload", "tx-generic-segmentation"),
    ("gro", "generic-receive-offload", "rx-gro"),
    ("lro", "large-receive-offload", "rx-lro"),
    ("rxvlan", "rx-vlan-offload", "rx-vlan-hw-parse"),
    ("txvlan", "tx-vlan-offload", "tx-vlan-hw-insert"),
    ("ntuple", "ntuple-filters", "rx-ntuple-filter"),
    ("rxhash", "receive-hashing", "rx-hashing"),
)
SHORT_TO_LONG = dict((s, l) for s, l, _k in LEGACY_FLAGS)
LONG_TO_SHORT = dict((l, s) for s, l, _k in LEGACY_FLAGS)
LONG_TO_PATTERN = dict((l, k) for _s, l, k in LEGACY_FLAGS)

FEATURE_NAME_RE = re.compile(r"[A-Za-z0-9_.-]{1,64}")
_VERSION_RE = re.compile(r"ethtool\s+version\s+(\d+)\.(\d+)")
_FEATURE_LINE_RE = re.compile(r"(\s*)([^:\s][^:]*?):\s+(on|off)(?:\s+\[(fixed|requested on|requested off)\])?\s*")
_VALUE_LINE_RE = re.compile(r"\s*([A-Za-z][A-Za-z ]*?):\s*(\S.*?)?\s*")

_CHANNEL_LABELS = {"rx": "rx", "tx": "tx", "other": "other", "combined": "combined"}
_RING_LABELS = {"rx": "rx", "rx mini": "rx_mini", "rx jumbo": "rx_jumbo", "tx": "tx"}


class EthtoolParseError(ValueError):
    """Output that is not what the subcommand prints."""


# -- versions -------------------------------------------------------------------------------------
def parse_version(text):
    """``ethtool version 6.1`` -> (6, 1); None when the text has no version."""
    match = _VERSION_RE.search(text or "")
    return (int(match.group(1)), int(match.group(2))) if match else None


def uses_json(version, option):
    """Whether ``ethtool <version>`` prints ``option`` (-l, -g, -k) as JSON with ``--json``."""
    since = JSON_SINCE.get(option)
    return bool(version and since and tuple(version) >= since)


def version_text(version):
    return "%d.%d" % tuple(version) if version else "unknown"


# -- argument builders ------------------------------------------------------------------------------
def argv_version(tool=TOOL):
    return [tool, "--version"]


def argv_driver(ifname, tool=TOOL):
    return [tool, "-i", ifname]


def argv_show(option, ifname, json_output=False, tool=TOOL):
    """``ethtool [--json] -l|-g|-k IF``."""
    if option not in JSON_SINCE:
        raise ValueError("not a show option: %r" % option)
    return [tool] + (["--json"] if json_output else []) + [option, ifname]


def argv_set_channels(ifname, counts, tool=TOOL):
    """``ethtool -L IF rx N tx N other N combined N`` for the keys in ``counts`` (in that order)."""
    argv = [tool, "-L", ifname]
    for key in CHANNEL_KEYS:
        if counts.get(key) is not None:
            argv += [key, str(int(counts[key]))]
    return argv


def argv_set_rings(ifname, sizes, tool=TOOL):
    """``ethtool -G IF rx N rx-mini N rx-jumbo N tx N`` for the keys in ``sizes``."""
    argv = [tool, "-G", ifname]
    for key in RING_KEYS:
        if sizes.get(key) is not None:
            argv += [RING_ARGS[key], str(int(sizes[key]))]
    return argv


def feature_arg(name):
    """The -K name of a feature as ``ethtool -k`` shows it: the short legacy name (``tso``) for a
    legacy long name, the name itself otherwise."""
    return LONG_TO_SHORT.get(name, name)


def argv_set_features(ifname, wanted, tool=TOOL):
    """``ethtool -K IF NAME on|off ...``; ``wanted`` is a list of (name as -k shows it, bool)."""
    argv = [tool, "-K", ifname]
    for name, value in wanted:
        argv += [feature_arg(name), "on" if value else "off"]
    return argv


# -- helpers ----------------------------------------------------------------------------------------
def pattern_match(name, pattern):
    """ethtool's ``flag_pattern_match``: ``pattern`` holds at most one ``*``."""
    if "*" not in pattern:
        return name == pattern
    head, tail = pattern.split("*", 1)
    return len(name) >= len(head) + len(tail) and name.startswith(head) and name.endswith(tail)


def is_json(text):
    return (text or "").lstrip().startswith("[")


def _load_json(text, what):
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise EthtoolParseError("%s: not JSON (%s)" % (what, exc))
    if isinstance(data, list):
        data = data[0] if data else {}
    if not isinstance(data, dict):
        raise EthtoolParseError("%s: expected a JSON object" % what)
    return data


def _count(value):
    """A count from text (``4``, ``n/a``) or JSON (int, absent)."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise EthtoolParseError("unexpected value %r" % (value,))
    if isinstance(value, int):
        return value
    text = str(value).strip()
    if text.lower() in ("n/a", ""):
        return None
    if not text.isdigit():
        raise EthtoolParseError("unexpected value %r" % (value,))
    return int(text)


def _normalize_limits(maxima, current, keys):
    """{"max": {...}, "current": {...}}; a key whose maximum is 0 or absent is None in both."""
    out = {"max": {}, "current": {}}
    for key in keys:
        top = maxima.get(key)
        if not top:
            out["max"][key] = None
            out["current"][key] = None
        else:
            out["max"][key] = top
            out["current"][key] = current.get(key) if current.get(key) is not None else 0
    return out


def _sections(text, labels, what):
    """Values of the ``Pre-set maximums:`` and ``Current hardware settings:`` sections."""
    maxima, current, section = {}, {}, None
    seen_header = False
    for line in (text or "").splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        lower = stripped.lower()
        if lower.startswith(("channel parameters for", "ring parameters for")):
            seen_header = True
            continue
        if lower.startswith("pre-set maximums"):
            section = maxima
            continue
        if lower.startswith("current hardware settings"):
            section = current
            continue
        match = _VALUE_LINE_RE.fullmatch(line)
        if section is None or not match:
            continue
        key = labels.get(match.group(1).strip().lower())
        if key is None or key in section:
            continue
        section[key] = _count(match.group(2))
    if not seen_header and not maxima:
        raise EthtoolParseError("%s: no 'Pre-set maximums' section in %r" % (what, (text or "")[:80]))
    return maxima, current


# -- parsers ----------------------------------------------------------------------------------------
def parse_channels(text):
    """``ethtool [--json] -l`` -> {"max": {rx, tx, other, combined}, "current": {...}} (None: the driver
    has no such channel)."""
    if is_json(text):
        data = _load_json(text, "ethtool -l")
        maxima = dict((k, _count(data.get("%s-max" % k))) for k in CHANNEL_KEYS)
        current = dict((k, _count(data.get(k))) for k in CHANNEL_KEYS)
    else:
        maxima, current = _sections(text, _CHANNEL_LABELS, "ethtool -l")
    return _normalize_limits(maxima, current, CHANNEL_KEYS)


def parse_rings(text):
    """``ethtool [--json] -g`` -> {"max": {rx, rx_mini, rx_jumbo, tx}, "current": {...}}."""
    if is_json(text):
        data = _load_json(text, "ethtool -g")
        maxima = dict((k, _count(data.get("%s-max" % RING_ARGS[k]))) for k in RING_KEYS)
        current = dict((k, _count(data.get(RING_ARGS[k]))) for k in RING_KEYS)
    else:
        maxima, current = _sections(text, _RING_LABELS, "ethtool -g")
    return _normalize_limits(maxima, current, RING_KEYS)


def _feature(active, fixed, requested):
    return {"active": active, "fixed": fixed, "requested": requested, "group": False, "children": [], "parent": None}


def _link_groups(features):
    """Mark legacy groups and their members: a legacy long name followed by the kernel features its
    pattern matches (ethtool prints the members right after the group)."""
    names = list(features)
    for index, name in enumerate(names):
        pattern = LONG_TO_PATTERN.get(name)
        entry = features[name]
        if pattern is None or "*" not in pattern:
            continue
        members = []
        for other in names[index + 1 :]:
            if other in LONG_TO_PATTERN or not pattern_match(other, pattern):
                break
            members.append(other)
        if members or entry.get("group"):
            entry["group"] = True
            entry["children"] = members
            entry["fixed"] = None
            entry["requested"] = None
            for member in members:
                features[member]["parent"] = name
    return features


def parse_features(text):
    """``ethtool [--json] -k`` -> {name: {active, fixed, requested, group, children, parent}} in the
    order ethtool prints them. ``requested`` is what was asked for (``[requested on]``); None for a
    fixed feature shown as text and for groups."""
    features = {}
    if is_json(text):
        data = _load_json(text, "ethtool -k")
        for name, value in data.items():
            if name == "ifname" or not isinstance(value, dict):
                continue
            fixed, requested = value.get("fixed"), value.get("requested")
            entry = _feature(bool(value.get("active")), fixed, requested)
            if fixed is None and requested is None:
                entry["group"] = True
            features[name] = entry
        return _link_groups(features)
    group = None
    seen_header = False
    for line in (text or "").splitlines():
        if not line.strip():
            continue
        if line.startswith("Features for"):
            seen_header = True
            continue
        if line.startswith("Actual changes") or line.startswith("Could not"):
            break
        match = _FEATURE_LINE_RE.fullmatch(line)
        if not match:
            continue
        indent, name, value, suffix = match.groups()
        active = value == "on"
        fixed = suffix == "fixed"
        if suffix and suffix.startswith("requested"):
            requested = suffix.endswith("on")
        else:
            requested = None if fixed else active
        entry = _feature(active, fixed, requested)
        if indent and group is not None:
            entry["parent"] = group
            features[group]["children"].append(name)
            features[group]["group"] = True
            features[group]["fixed"] = None
            features[group]["requested"] = None
        elif not indent:
            group = name
        features[name] = entry
    if not seen_header and not features:
        raise EthtoolParseError("ethtool -k: no features in %r" % (text or "")[:80])
    return features


def parse_driver(text):
    """``ethtool -i`` -> {"driver", "version", "firmware-version", "bus-info", ...}."""
    info = {}
    for line in (text or "").splitlines():
        if ":" not in line:
            continue
        key, value = line.split(":", 1)
        info[key.strip()] = value.strip()
    if "driver" not in info:
        raise EthtoolParseError("ethtool -i: no driver line in %r" % (text or "")[:80])
    return info


def unsupported(rc, err):
    """Whether a failed show means "the driver does not implement it" (EOPNOTSUPP)."""
    return rc != 0 and "not supported" in (err or "").lower()


def json_refused(rc, out, err):
    """Whether ``--json`` was refused as an argument (ethtool 5.14+ on a subcommand without JSON)."""
    text = (err or "") + (out or "")
    return rc != 0 and ("bad command line" in text or "JSON" in text) and not is_json(out)


# -- feature names ----------------------------------------------------------------------------------
def resolve_feature(name, features):
    """The name under which ``ethtool -k`` shows the feature ``name`` (short legacy name, long name or
    kernel name); None when the driver reports no such feature."""
    if name in features:
        return name
    long_name = SHORT_TO_LONG.get(name)
    if long_name in features:
        return long_name
    for legacy, pattern in LONG_TO_PATTERN.items():
        entry = features.get(legacy)
        if entry is not None and not entry["group"] and pattern_match(name, pattern):
            return legacy
    return None


def feature_value(entry, features):
    """What a feature is set to: True/False, or "mixed" for a group whose changeable members differ.

    A single feature: what was requested (``-K``), else what is active; a ``[fixed]`` one: what is
    active (JSON shows ``requested: false`` for fixed features the kernel turned on itself). A group:
    its changeable members' requested values (all on: True, all off: False); a group with none: its
    active value."""
    if not entry["group"]:
        if entry["fixed"] or entry["requested"] is None:
            return entry["active"]
        return entry["requested"]
    values = set()
    for child in entry["children"]:
        member = features[child]
        if member["fixed"]:
            continue
        values.add(member["requested"] if member["requested"] is not None else member["active"])
    if not values:
        return entry["active"]
    return values.pop() if len(values) == 1 else "mixed"


def feature_problem(name, entry, features, want):
    """Why ``name`` cannot become ``want`` on this driver (str), or None."""
    if not entry["group"]:
        if entry["fixed"] and entry["active"] != want:
            return "fixed %s by the driver ([fixed] in ethtool -k)" % ("on" if entry["active"] else "off")
        return None
    members = [features[c] for c in entry["children"]]
    changeable = [m for m in members if not m["fixed"]]
    if want:
        if not changeable and not entry["active"]:
            return (
                "every member is fixed off by the driver (%s)" % ", ".join(entry["children"])
                if members
                else ("the driver has none of its features")
            )
    else:
        stuck = [c for c in entry["children"] if features[c]["fixed"] and features[c]["active"]]
        if stuck:
            return "member %s is fixed on by the driver" % ", ".join(stuck)
        if not members and entry["active"]:
            return "the driver has none of its features to turn off"
    return None
