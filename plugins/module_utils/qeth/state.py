# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The current configuration of the host's qeth devices: active (sysfs) and persistent (udev
rules), merged per device, plus the views the modules return. Reads only; no commands run.
"""

from ansible_collections.s390x.network.plugins.module_utils.qeth import ccw_blacklist
from ansible_collections.s390x.network.plugins.module_utils.qeth.attributes import (
    CARD_HIPERSOCKETS,
    MANAGED,
    RULES,
    normalize_read,
)
from ansible_collections.s390x.network.plugins.module_utils.qeth.ids import (
    QethIdError,
    auto_groups,
    ccw_sort_key,
    complete_group,
    format_group_id,
    naive_group,
    parse_group_id,
)
from ansible_collections.s390x.network.plugins.module_utils.qeth.udev_rules import read_all_rules


class DeviceState(object):
    """One qeth group device as the host has it now."""

    def __init__(self, busid):
        self.busid = busid
        self.ids = None  # (read, write, data) or None when unknown
        self.exists = False  # grouped in the active configuration
        self.active = {}  # name -> normalised string (includes "online")
        self.info = {}  # read-only facts: card_type, chpid, state, if_name, inbuf_size
        self.persistent = None  # name -> string from the chzdev rule, None without a rule
        self.rule_path = None
        self.hidden = []  # CCW devices of the group on the cio_ignore list now
        self.hidden_at_boot = []  # ... on the list the next boot starts with

    @property
    def group_id(self):
        return format_group_id(self.ids) if self.ids else self.busid

    @property
    def online(self):
        return self.exists and self.active.get("online") == "1"

    @property
    def card_type(self):
        return self.info.get("card_type")

    @property
    def if_name(self):
        return self.info.get("if_name")

    @property
    def configured(self):
        """Online, or configured persistently (what state overridden deconfigures)."""
        return self.online or self.persistent is not None

    @property
    def known(self):
        """Grouped or configured persistently (what state gathered lists)."""
        return self.exists or self.persistent is not None


def card_type_from_ccw(info):
    """Card class from CCW CU/device type before the group exists: 1731/05 is HiperSockets (IQD)."""
    if info is None:
        return None
    if info.cutype.endswith("/05") or info.devtype.endswith("/05"):
        return CARD_HIPERSOCKETS
    return "OSA"


def note_blacklist(dev, cio):
    """Set ``dev.hidden``/``hidden_at_boot`` from a ccw_blacklist.CioIgnore (None: no cio_ignore)."""
    ids = list(dev.ids) if dev.ids else [dev.busid]
    dev.hidden = cio.hidden_now(ids) if cio is not None else []
    dev.hidden_at_boot = cio.hidden_at_boot(ids) if cio is not None else []
    return dev


def read_state(reader, extra_names=(), cio=None):
    """busid -> DeviceState for every qeth group device and every chzdev qeth rule.

    ``extra_names``: further attributes to read from sysfs for every device (besides the managed
    ones and those found in rules). ``cio``: the host's ccw_blacklist.CioIgnore (read when None).
    """
    if cio is None:
        cio = ccw_blacklist.read()
    rules = read_all_rules()
    wanted_extra = set(extra_names)
    for rule in rules.values():
        wanted_extra.update(n for n in rule.settings if n != "online" and n not in MANAGED)
    devices = {}
    for busid in reader.group_busids():
        raw = reader.read_group(busid, extra_names=sorted(wanted_extra))
        if raw is None:
            continue
        dev = DeviceState(busid)
        dev.exists = True
        cdevs = raw.get("cdevs") or []
        if len(cdevs) == 3 and all(cdevs):
            dev.ids = tuple(cdevs)
        dev.active["online"] = normalize_read("online", raw.get("online")) or "0"
        for name in MANAGED:
            value = normalize_read(name, raw.get(name))
            if name == "layer2" and value == "-1":
                value = None
            if value is not None:
                dev.active[name] = value
        for name, value in (raw.get("extra") or {}).items():
            value = normalize_read(name, value)
            if value is not None:
                dev.active[name] = value
        for name in ("card_type", "chpid", "state", "if_name", "inbuf_size"):
            dev.info[name] = raw.get(name) or None
        devices[busid] = dev
    for busid, rule in rules.items():
        dev = devices.get(busid)
        if dev is None:
            dev = DeviceState(busid)
            devices[busid] = dev
        if dev.ids is None and rule.ids and len(rule.ids) == 3:
            dev.ids = tuple(rule.ids)
        settings = {}
        for name, value in rule.settings.items():
            if isinstance(value, list):
                settings[name] = list(value)
            else:
                settings[name] = normalize_read(name, value) if name in RULES or name == "online" else value
        dev.persistent = settings
        dev.rule_path = rule.path
    for dev in devices.values():
        note_blacklist(dev, cio)
    return devices


def capable_devices(devices, reader):
    """Group IDs of the qeth devices this host has or could form (for error messages)."""
    names = set(d.group_id for d in devices.values() if d.exists)
    for group in auto_groups(reader.ungrouped_qeth_ccw()):
        names.add(format_group_id(group))
    return sorted(names, key=lambda n: ccw_sort_key(n.split(":")[0]))


# -- views -------------------------------------------------------------------------------------


def _typed(name, value):
    if value is None:
        return None
    if name == "layer2":
        return value == "1"
    if name in ("buffer_count", "portno"):
        try:
            return int(value)
        except ValueError:
            return value
    return value


def config_view(values, extra_names, online_default=None):
    """name -> string settings as a config entry (typed managed options, ``attributes`` dict)."""
    online = values.get("online")
    entry = {"online": (online == "1") if online is not None else online_default}
    for name in MANAGED:
        entry[name] = _typed(name, values.get(name))
    attrs = {}
    for name in sorted(extra_names):
        if name in MANAGED or name == "online":
            continue
        if values.get(name) is not None:
            attrs[name] = values[name]
    entry["attributes"] = attrs
    return entry


def device_view(dev, extra_names=(), scope="both"):
    """A device as returned in before/after/gathered: active view plus ``persistent``."""
    names = set(extra_names)
    if dev.persistent:
        names.update(n for n in dev.persistent if n not in MANAGED and n != "online")
    entry = {"id": dev.group_id}
    if scope in ("both", "active"):
        if dev.exists:
            entry.update(config_view(dev.active, names))
        else:
            entry.update(
                {
                    "online": None,
                    "layer2": None,
                    "buffer_count": None,
                    "portno": None,
                    "isolation": None,
                    "attributes": {},
                }
            )
        entry["exists"] = dev.exists
        entry["if_name"] = dev.if_name
        entry["card_type"] = dev.card_type
        entry["hidden"] = list(dev.hidden)
    if scope in ("both", "persistent"):
        entry["persistent"] = config_view(dev.persistent, names) if dev.persistent is not None else None
        # only a device configured at boot is hurt by being blacklisted at boot
        entry["hidden_at_boot"] = list(dev.hidden_at_boot) if dev.persistent is not None else []
    return entry


def gathered_entry(dev, scope="both"):
    """A device as a config entry that qeth_device accepts back (state gathered).

    Active values for scope both/active (the udev rule's for a device that is not grouped),
    the rule's for scope persistent. Unset values are left out.
    """
    if scope == "persistent" or not dev.exists:
        values = dev.persistent or {}
    else:
        values = dev.active
    names = set(n for n in values if n in RULES and n not in MANAGED)
    view = config_view(values, names, online_default=False)
    entry = {"id": dev.group_id}
    for key in ("online",) + MANAGED:
        if view.get(key) is not None:
            entry[key] = view[key]
    if view["attributes"]:
        entry["attributes"] = view["attributes"]
    return entry


def resolve_id(text, devices, reader, cio=None, missing_ok=False):
    """Resolve a config ``id`` to (busid, (read, write, data)) on this host.

    A full triple must match the group the kernel has (if grouped); its CCW devices may be
    hidden by cio_ignore (chzdev frees them), or, with ``missing_ok`` (the persistent
    configuration only, as ``chzdev -p`` configures it), not be there at all. A single ID is the
    read device of an existing group, of a chzdev rule, or completed the way chzdev groups
    devices, which needs visible devices.
    Raises QethIdError (malformed, or not a qeth device of this host).
    """
    hidden_now = cio.now if cio is not None and cio.now is not None else ccw_blacklist.Blacklist()
    ids = parse_group_id(text)
    read = ids[0]
    group_busid = reader.group_of_ccw(read)
    if group_busid is not None and group_busid != read:
        owner = devices.get(group_busid)
        raise QethIdError(
            "%s belongs to qeth device %s (bus ID %s); name the device by its read device"
            % (read, owner.group_id if owner else group_busid, group_busid)
        )
    dev = devices.get(read)
    if len(ids) == 3:
        if dev is not None and dev.ids and tuple(dev.ids) != tuple(ids) and dev.exists:
            raise QethIdError("%s does not match the grouped device %s" % (text, dev.group_id))
        if dev is None or not dev.exists:
            for ccwid in ids:
                other = reader.group_of_ccw(ccwid)
                if other is not None:
                    raise QethIdError("CCW device %s is already in qeth device %s" % (ccwid, other))
                if (
                    not missing_ok
                    and reader.ccw_dir(ccwid) is None
                    and (dev is None or dev.persistent is None)
                    and not hidden_now.contains(ccwid)
                ):
                    raise QethIdError("CCW device %s does not exist on this host" % ccwid)
        return read, tuple(ids)
    if dev is not None and dev.ids:
        return read, tuple(dev.ids)
    if reader.ccw_dir(read) is None and hidden_now.contains(read):
        try:
            example = format_group_id(naive_group(read))
        except QethIdError:
            example = "0.0.8200:0.0.8201:0.0.8202"
        raise QethIdError(
            "CCW device %s is hidden by cio_ignore (listed in /proc/cio_ignore), so its write and data "
            "devices cannot be looked up; give the full ID read:write:data (for example %s) and the "
            "devices are freed now and at boot, as chzdev does" % (read, example)
        )
    return read, complete_group(read, reader.ungrouped_qeth_ccw())
