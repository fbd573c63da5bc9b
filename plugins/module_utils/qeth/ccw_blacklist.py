# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kernel's CCW device blacklist (cio_ignore): which devices are hidden now and at the next boot.

Parses text handed in and runs nothing; ``read()`` reads the three texts below the host root
(``host_files.path``).

Facts (Linux drivers/s390/cio/blacklist.c, s390-tools zdev):
- A blacklisted CCW device gets no subchannel device: it is absent from ``/sys/bus/ccw/devices``
  and cannot be grouped until it is freed (``echo free LIST > /proc/cio_ignore``).
- Reading ``/proc/cio_ignore`` lists the blacklisted bus IDs, one per line, single (``0.0.8203``) or
  as a run (``0.0.0000-0.0.81ff``).
- The kernel parameter ``cio_ignore=LIST`` (may be given more than once) fills the blacklist at
  boot. LIST is comma separated: ``all``, ``ipldev``, ``condev``, a bus ID (``0.0.8200``), an old
  style device number (``8200``, ``0x8200``: subchannel set 0) or a range ``FROM-TO`` of those;
  ``!`` before an item frees it instead.
- chzdev frees every CCW device it configures, now and at boot: the persistent part is
  ``/etc/udev/rules.d/41-cio-ignore.rules``, one udev rule that runs
  ``echo free LIST > /proc/cio_ignore`` when the ccw subsystem appears; the list names the devices
  of every persistently configured device (``8200-8205``).

``ipldev`` and ``condev`` name the IPL and the console device, never a qeth device: they are
accepted and ignored here.
"""

import re

from ansible_collections.s390x.network.plugins.module_utils.engine import host_files

MAX_SSID = 3
DEVNOS = 0x10000
CIO_IGNORE_RULE = "/etc/udev/rules.d/41-cio-ignore.rules"

_BUSID = re.compile(
    r"(?:(?P<css>[0-9a-f]{1,2})\.(?P<ssid>[0-9a-f])\.(?P<devno>[0-9a-f]{4})|(?:0x)?(?P<old>[0-9a-f]{1,4}))"
)
_FREE_IN_RULE = re.compile(r"echo\s+free\s+([^'\">]+?)\s*>\s*/proc/cio_ignore")
_SPECIAL = ("ipldev", "condev")


class Blacklist(object):
    """Sorted, disjoint [first, last] intervals of ``ssid * 0x10000 + devno`` (one channel subsystem)."""

    def __init__(self, intervals=None):
        self.intervals = [list(iv) for iv in intervals or []]

    def add(self, first, last):
        merged = []
        for a, b in self.intervals:
            if b < first - 1 or a > last + 1:
                merged.append([a, b])
            else:
                first, last = min(first, a), max(last, b)
        merged.append([first, last])
        self.intervals = sorted(merged)

    def free(self, first, last):
        kept = []
        for a, b in self.intervals:
            if b < first or a > last:
                kept.append([a, b])
                continue
            if a < first:
                kept.append([a, first - 1])
            if b > last:
                kept.append([last + 1, b])
        self.intervals = kept

    def contains(self, busid):
        key = busid_key(busid)
        return key is not None and any(a <= key <= b for a, b in self.intervals)

    def hidden(self, busids):
        """The bus IDs of ``busids`` that are on the list, in their order."""
        return [b for b in busids if self.contains(b)]

    def ranges(self):
        """The list as bus ID ranges (``0.0.0000-0.0.81ff``, ``0.0.8203``)."""
        out = []
        for a, b in self.intervals:
            while a <= b:
                end = min(b, (a // DEVNOS + 1) * DEVNOS - 1)  # a run stays in its subchannel set
                out.append(format_key(a) if a == end else "%s-%s" % (format_key(a), format_key(end)))
                a = end + 1
        return out


def busid_key(text):
    """``0.0.8200`` / ``8200`` / ``0x8200`` -> interval key, None when it is not a bus ID."""
    match = _BUSID.fullmatch((text or "").strip().lower())
    if not match:
        return None
    if match.group("old") is not None:
        return int(match.group("old"), 16)
    ssid = int(match.group("ssid"), 16)
    if int(match.group("css"), 16) != 0 or ssid > MAX_SSID:
        return None
    return ssid * DEVNOS + int(match.group("devno"), 16)


def format_key(key):
    return "0.%x.%04x" % divmod(key, DEVNOS)


def apply_items(blacklist, text, free=False):
    """Apply a cio_ignore LIST (kernel parameter syntax) to ``blacklist``: add its items, or free
    them with ``free``; ``!`` inverts an item. Returns the items that were not understood."""
    skipped = []
    for item in (text or "").split(","):
        item = item.strip().lower()
        if not item:
            continue
        invert = item.startswith("!")
        if invert:
            item = item[1:]
        op = blacklist.add if invert == free else blacklist.free
        if item == "all":
            op(0, (MAX_SSID + 1) * DEVNOS - 1)
            continue
        if item in _SPECIAL:
            continue
        first, _sep, last = item.partition("-")
        lo = busid_key(first)
        hi = busid_key(last) if last else lo
        if lo is None or hi is None or hi < lo:
            skipped.append(("!" if invert else "") + item)
            continue
        op(lo, hi)
    return skipped


def parse_proc(text):
    """A Blacklist from the text of ``/proc/cio_ignore``."""
    blacklist = Blacklist()
    for line in (text or "").splitlines():
        first, _sep, last = line.strip().partition("-")
        lo = busid_key(first)
        hi = busid_key(last) if last else lo
        if lo is not None and hi is not None and hi >= lo:
            blacklist.add(lo, hi)
    return blacklist


def cmdline_lists(cmdline):
    """The values of every ``cio_ignore=`` kernel parameter in a kernel command line.

    Words after `` -- `` belong to init, not to the kernel. A value may be double-quoted.
    """
    kernel_part = re.split(r"(?:^|\s)--(?:\s|\Z)", cmdline or "", maxsplit=1)[0]
    values = []
    for match in re.finditer(r'(?:^|\s)cio_ignore=("[^"]*"|\S*)', kernel_part):
        values.append(match.group(1).strip('"'))
    return values


def rule_free_lists(text):
    """The LISTs of ``echo free LIST > /proc/cio_ignore`` in a udev rule file (41-cio-ignore.rules)."""
    lines = [line for line in (text or "").splitlines() if not line.lstrip().startswith("#")]
    return _FREE_IN_RULE.findall("\n".join(lines))


class CioIgnore(object):
    """The blacklist now and the one the next boot starts with.

    ``now``: from /proc/cio_ignore (None when the host has no such file: not an s390 kernel);
    ``boot``: the kernel parameter of the running kernel with the free lists of
    41-cio-ignore.rules applied (None without a cio_ignore= parameter).
    """

    def __init__(self, now=None, boot=None, parameter=None, freed_at_boot=None):
        self.now = now
        self.boot = boot
        self.parameter = parameter or []
        self.freed_at_boot = freed_at_boot or []

    def hidden_now(self, busids):
        return self.now.hidden(busids) if self.now is not None else []

    def hidden_at_boot(self, busids):
        return self.boot.hidden(busids) if self.boot is not None else []

    def as_dict(self):
        return {
            "ignored": self.now.ranges() if self.now is not None else None,
            "kernel_parameter": list(self.parameter),
            "freed_at_boot": list(self.freed_at_boot),
            "ignored_at_boot": self.boot.ranges() if self.boot is not None else None,
        }


def from_texts(proc_text, cmdline, rule_text):
    """CioIgnore from the texts of /proc/cio_ignore (None: absent), /proc/cmdline and
    41-cio-ignore.rules (None: absent)."""
    now = parse_proc(proc_text) if proc_text is not None else None
    parameter = cmdline_lists(cmdline)
    freed = rule_free_lists(rule_text)
    boot = None
    if parameter:
        boot = Blacklist()
        for value in parameter:
            apply_items(boot, value)
        for value in freed:
            apply_items(boot, value, free=True)
    return CioIgnore(now=now, boot=boot, parameter=parameter, freed_at_boot=freed)


def read():
    """CioIgnore of the host."""

    def text(p):
        try:
            return host_files.read_text(p)
        except (IOError, OSError, UnicodeDecodeError):
            return None

    return from_texts(text("/proc/cio_ignore"), text("/proc/cmdline") or "", text(CIO_IGNORE_RULE))
