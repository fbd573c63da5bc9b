# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The qeth device attributes this collection manages: names, accepted values, defaults, rules.

Pure data and functions, no I/O. Sources: kernel drivers/s390/net/qeth_core_sys.c, qeth_l2_sys.c,
qeth_l3_sys.c and s390-tools zdev/src/qeth.c (which attributes chzdev accepts, their ranges and
defaults, which ones may only be changed while the device is offline).
"""

import re
import unicodedata

# Order in which chzdev applies offline-only attributes: layer2 first (it selects the discipline),
# then the other offline-only ones; everything else after them.
OFFLINE_ONLY = ("layer2", "portname", "priority_queueing", "buffer_count", "portno")

# Top-level module options that are device attributes.
MANAGED = ("layer2", "buffer_count", "portno", "isolation")

CARD_HIPERSOCKETS = "HiperSockets"

LAYER_ANY = "any"
LAYER_2 = "2"
LAYER_3 = "3"


# The values of the free-text attributes (portname, hsuid) end up in chzdev's udev rule
# (41-qeth-<busid>.rules) as ATTR{...}="VALUE", which chzdev does not escape: a '"' would end the value
# and start another key, a backslash escape the quote, a newline start a new rule, and udev substitutes
# '$...' and '%...' in the value. The kernel takes up to 8 characters and converts them to EBCDIC
# (ASCEBC); zdev documents "a 1-8 character name/identifier". Allowed: the characters of z/VM and
# z/OS names (letters, digits, '@', '#') and '_' and '-'.
NAME8_RE = re.compile(r"[A-Za-z0-9@#_-]{1,8}")
NAME8_TEXT = "1 to 8 of A-Z a-z 0-9 @ # _ -"
#: Unicode categories no attribute value may hold: control (NUL, newline, ...), format, surrogate
_REFUSED_CATEGORIES = ("Cc", "Cf", "Cs", "Co", "Cn")


class AttrRule(object):
    __slots__ = ("name", "kind", "choices", "minimum", "maximum", "default", "layer", "group", "read_map")

    def __init__(
        self,
        name,
        kind,
        choices=None,
        minimum=None,
        maximum=None,
        default=None,
        layer=LAYER_ANY,
        group=None,
        read_map=None,
    ):
        self.name = name
        self.kind = kind  # "bool01" | "int" | "choice" | "string"
        self.choices = choices
        self.minimum = minimum
        self.maximum = maximum
        self.default = default  # as chzdev/sysfs string, None when it depends on the card
        self.layer = layer
        self.group = group  # "bridge" | "vnicc" | None
        self.read_map = read_map or {}

    @property
    def offline_only(self):
        return self.name in OFFLINE_ONLY


_ROUTER_CHOICES = [
    "no_router",
    "multicast_router",
    "primary_router",
    "secondary_router",
    "primary_connector",
    "secondary_connector",
]
_ROUTER_READ = {
    "no": "no_router",
    "primary router": "primary_router",
    "secondary router": "secondary_router",
    "multicast router+": "multicast_router",
    "multicast router": "multicast_router",
    "primary connector+": "primary_connector",
    "primary connector": "primary_connector",
    "secondary connector+": "secondary_connector",
    "secondary connector": "secondary_connector",
}
_PRIO_CHOICES = [
    "prio_queueing_vlan",
    "prio_queueing_skb",
    "prio_queueing_prec",
    "no_prio_queueing",
    "no_prio_queueing:0",
    "no_prio_queueing:1",
    "no_prio_queueing:2",
    "no_prio_queueing:3",
]
_PRIO_READ = {
    "by VLAN headers": "prio_queueing_vlan",
    "by skb-priority": "prio_queueing_skb",
    "by precedence": "prio_queueing_prec",
    "by type of service": "prio_queueing_tos",
    "always queue 0": "no_prio_queueing:0",
    "always queue 1": "no_prio_queueing:1",
    "always queue 2": "no_prio_queueing",
    "always queue 3": "no_prio_queueing:3",
    "disabled": "no_prio_queueing",
}

_RULES = [
    AttrRule("layer2", "bool01"),
    AttrRule("buffer_count", "int", minimum=8, maximum=128),
    AttrRule("portno", "int", minimum=0, maximum=1, default="0"),
    AttrRule("isolation", "choice", choices=["none", "drop", "forward"], default="none"),
    AttrRule("portname", "string", maximum=8, default="", read_map={"no portname required": ""}),
    AttrRule("priority_queueing", "choice", choices=_PRIO_CHOICES, default="no_prio_queueing", read_map=_PRIO_READ),
    AttrRule("hw_trap", "choice", choices=["disarm", "arm"], default="disarm"),
    AttrRule("hsuid", "string", maximum=8, default="", layer=LAYER_3),
    AttrRule("route4", "choice", choices=_ROUTER_CHOICES, default="no_router", layer=LAYER_3, read_map=_ROUTER_READ),
    AttrRule("route6", "choice", choices=_ROUTER_CHOICES, default="no_router", layer=LAYER_3, read_map=_ROUTER_READ),
    AttrRule("sniffer", "bool01", default="0", layer=LAYER_3),
    AttrRule("ipa_takeover/enable", "bool01", default="0", layer=LAYER_3),
    AttrRule("ipa_takeover/invert4", "bool01", default="0", layer=LAYER_3),
    AttrRule("ipa_takeover/invert6", "bool01", default="0", layer=LAYER_3),
    AttrRule(
        "bridge_role", "choice", choices=["primary", "secondary", "none"], default="none", layer=LAYER_2, group="bridge"
    ),
    AttrRule("bridge_hostnotify", "bool01", default="0", layer=LAYER_2, group="bridge"),
    AttrRule(
        "bridge_reflect_promisc",
        "choice",
        choices=["primary", "secondary", "none"],
        default="none",
        layer=LAYER_2,
        group="bridge",
    ),
    AttrRule("vnicc/flooding", "bool01", default="0", layer=LAYER_2, group="vnicc"),
    AttrRule("vnicc/mcast_flooding", "bool01", default="0", layer=LAYER_2, group="vnicc"),
    AttrRule("vnicc/learning", "bool01", default="0", layer=LAYER_2, group="vnicc"),
    AttrRule("vnicc/learning_timeout", "int", minimum=60, maximum=86400, default="600", layer=LAYER_2, group="vnicc"),
    AttrRule("vnicc/takeover_setvmac", "bool01", default="0", layer=LAYER_2, group="vnicc"),
    AttrRule("vnicc/takeover_learning", "bool01", default="0", layer=LAYER_2, group="vnicc"),
    AttrRule("vnicc/bridge_invisible", "bool01", default="0", layer=LAYER_2, group="vnicc"),
    AttrRule("vnicc/rx_bcast", "bool01", default="1", layer=LAYER_2, group="vnicc"),
]

RULES = dict((r.name, r) for r in _RULES)

# Names accepted in the ``attributes`` option (the top-level ones have their own options).
EXTRA_NAMES = tuple(sorted(n for n in RULES if n not in MANAGED))

# Attributes a user may not set: read-only, write-only triggers, multi-valued lists.
NOT_SETTABLE = {
    "online": "use the option 'online'",
    "state": "read-only",
    "card_type": "read-only",
    "chpid": "read-only",
    "if_name": "read-only",
    "inbuf_size": "read-only",
    "bridge_state": "read-only",
    "switch_attrs": "read-only",
    "recover": "a write-only trigger, not configuration",
    "performance_stats": "a write-only trigger, not configuration",
    "vipa/add4": "a multi-valued list, not supported",
    "vipa/add6": "a multi-valued list, not supported",
    "rxip/add4": "a multi-valued list, not supported",
    "rxip/add6": "a multi-valued list, not supported",
    "ipa_takeover/add4": "a multi-valued list, not supported",
    "ipa_takeover/add6": "a multi-valued list, not supported",
}


class AttrError(ValueError):
    pass


def _field(device_label, name):
    if name in MANAGED:
        return "%s: %s" % (device_label, name)
    return "%s: attributes.%s" % (device_label, name)


def to_setting(name, value, device_label="config"):
    """Validate one attribute value and return it as the string chzdev and sysfs use.

    Raises AttrError naming the field and the allowed values.
    """
    rule = RULES.get(name)
    field = _field(device_label, name)
    if rule is None:
        if name in NOT_SETTABLE:
            raise AttrError("%s cannot be set: %s" % (field, NOT_SETTABLE[name]))
        raise AttrError(
            "%s is not a qeth attribute this module manages; allowed in attributes: %s"
            % (field, ", ".join(EXTRA_NAMES))
        )
    if not isinstance(value, (bool, int, str)):
        raise AttrError("%s must be a string, number or boolean, got %r" % (field, value))
    if any(unicodedata.category(char) in _REFUSED_CATEGORIES for char in str(value)):
        raise AttrError(
            "%s: %r has a control or format character (NUL, newline, ...), which chzdev would write into "
            "its udev rule" % (field, value)
        )
    if rule.kind == "bool01":
        if isinstance(value, bool):
            return "1" if value else "0"
        text = str(value).strip().lower()
        if text in ("1", "true", "yes", "on"):
            return "1"
        if text in ("0", "false", "no", "off"):
            return "0"
        raise AttrError("%s must be 0 or 1 (or a boolean), got %r" % (field, value))
    if rule.kind == "int":
        if isinstance(value, bool):
            raise AttrError("%s must be an integer %d..%d, got %r" % (field, rule.minimum, rule.maximum, value))
        try:
            number = int(str(value).strip(), 10)
        except ValueError:
            raise AttrError("%s must be an integer %d..%d, got %r" % (field, rule.minimum, rule.maximum, value))
        if number < rule.minimum or number > rule.maximum:
            raise AttrError("%s must be between %d and %d, got %d" % (field, rule.minimum, rule.maximum, number))
        return str(number)
    if rule.kind == "choice":
        text = str(value).strip()
        if text not in rule.choices:
            raise AttrError("%s must be one of %s, got %r" % (field, ", ".join(rule.choices), value))
        return text
    text = str(value)
    if isinstance(value, bool) or not NAME8_RE.fullmatch(text):
        raise AttrError(
            "%s must be %s (chzdev writes it unescaped into its udev rule), got %r" % (field, NAME8_TEXT, value)
        )
    return text


def normalize_read(name, raw):
    """Map a value read from sysfs (or a chzdev rule) to the spelling chzdev accepts.

    ``None`` stays ``None`` (attribute absent); ``n/a`` / ``N/A`` mean not supported -> ``None``.
    """
    if raw is None:
        return None
    text = raw.strip()
    if text.lower() == "n/a":
        return None
    rule = RULES.get(name)
    if rule is not None and text in rule.read_map:
        return rule.read_map[text]
    if rule is not None and rule.kind in ("int", "bool01"):
        try:
            return str(int(text, 10))
        except ValueError:
            return text
    return text


def canonical(name, value):
    """The form in which two values of an attribute compare equal (``None`` stays ``None``).

    ``no_prio_queueing`` puts every packet on queue 2, so it equals ``no_prio_queueing:2``.
    """
    if value is None:
        return None
    if name == "priority_queueing" and value == "no_prio_queueing:2":
        return "no_prio_queueing"
    return value


def default_for(name, card_type):
    """The value an attribute has when nothing sets it, or None when unknown / not applicable."""
    hipersockets = card_type == CARD_HIPERSOCKETS
    if name == "buffer_count":
        return "128" if hipersockets else "64"
    if name == "layer2":
        # Kernel default discipline when layer2 is left undetermined: layer 3 for IQD, else 2.
        return "0" if hipersockets else "1"
    if name == "isolation" and hipersockets:
        return None
    rule = RULES.get(name)
    return rule.default if rule is not None else None


def check_combination(settings, device_label="config", card_type=None):
    """Rules across attributes of one device (settings: name -> chzdev string).

    Returns a list of error strings (empty when fine).
    """
    errors = []
    layer2 = settings.get("layer2")
    bridge = sorted(n for n in settings if RULES.get(n) is not None and RULES[n].group == "bridge")
    vnicc = sorted(n for n in settings if RULES.get(n) is not None and RULES[n].group == "vnicc")
    if bridge and vnicc:
        errors.append(
            "%s: bridge attributes (%s) and VNIC characteristics (%s) cannot be configured "
            "together (chzdev rejects the combination)" % (device_label, ", ".join(bridge), ", ".join(vnicc))
        )
    for name in sorted(settings):
        rule = RULES.get(name)
        if rule is None:
            continue
        if rule.layer == LAYER_2 and layer2 == "0":
            errors.append("%s: attributes.%s needs layer2: true" % (device_label, name))
        if rule.layer == LAYER_3 and layer2 == "1":
            errors.append("%s: attributes.%s needs layer2: false" % (device_label, name))
    if card_type == CARD_HIPERSOCKETS and settings.get("isolation") not in (None, "none"):
        errors.append(
            "%s: isolation is not supported on HiperSockets devices (only OSA), got %r"
            % (device_label, settings["isolation"])
        )
    return errors


def order_settings(names):
    """Sort attribute names in the order the module passes (and chzdev applies) them."""

    def key(name):
        if name in OFFLINE_ONLY:
            return (0, OFFLINE_ONLY.index(name), name)
        if name in MANAGED:
            return (1, MANAGED.index(name), name)
        return (2, 0, name)

    return sorted(names, key=key)
