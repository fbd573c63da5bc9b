# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""CPU sets, RPS masks, the IRQs of a network interface's queues, and irqbalance's banned IRQs.

Kernel formats relied on:

* CPU lists (``/sys/devices/system/cpu/online``, ``/proc/irq/N/smp_affinity_list``): ranges and
  single CPUs separated by commas, ``0-3,8`` (``%*pbl``, lib/vsprintf.c ``bitmap_list_string``).
* CPU masks (``/sys/class/net/IF/queues/rx-N/rps_cpus``): hexadecimal, comma-separated 32-bit
  words, most significant first (``%*pb``); writing takes the same form (``bitmap_parse``: at most
  8 hex digits per word on older kernels), so masks are written in that form.
* ``/proc/interrupts``: a header of CPU names, then per IRQ ``N:``, one count per CPU, the chip and
  hardware IRQ fields and the action names (several joined by ``, ``) (kernel/irq/proc.c
  ``show_interrupts``). Lines whose first field is not a number (``NMI:``, ``LOC:``, s390 ``EXT``
  and ``I/O`` classes) are not IRQs that have an affinity.

IRQ names of the queues per driver (what ``request_irq`` is given):

* virtio_net (virtio PCI transport): ``<virtio device>-input.<n>`` (RX) and ``-output.<n>`` (TX);
  ``drivers/virtio/virtio_pci_common.c`` names the vector ``"%s-%s"`` from the device name
  (``virtioN``, the basename of ``/sys/class/net/IF/device``) and the queue name, which
  ``drivers/net/virtio_net.c`` sets to ``input.%u`` / ``output.%u``. On s390 KVM guests virtio
  uses the CCW transport and adapter interrupts: there are no per-queue IRQs to bind.
* mlx5_core: ``mlx5_comp<n>@pci:<PCI address>`` (``mlx5/core/pci_irq.c``: ``"mlx5_comp%d"`` and
  ``"%s@pci:%s"``); completion vector n serves channel n (RX and TX).
* ibmvnic: ``ibmvnic-<unit address>-rx<n>`` / ``-tx<n>`` (``ibmvnic.c`` ``init_sub_crq_irqs``,
  ``"ibmvnic-%x-rx%d"``); the VIO device name (``/sys/class/net/IF/device``) is the same ``%x``.
* qeth and veth have no per-queue IRQs (QDIO adapter interrupts; a software device).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import fnmatch
import re

_RANGE_RE = re.compile(r"([0-9]+)(?:-([0-9]+))?")
_MASK_RE = re.compile(r"(?:0x)?[0-9a-fA-F]+(?:,[0-9a-fA-F]+)*")
_QUEUE_KEY_RE = re.compile(r"(rx|tx)-([0-9]+)")
_INDEX_RE = re.compile(r"[0-9]+")
_BANIRQ_RE = re.compile(r"--banirq=([0-9]+)")
_ARGS_LINE_RE = re.compile(r"\s*IRQBALANCE_ARGS\s*=\s*(.*?)\s*")
#: an IRQ action name as /proc/interrupts shows it: one word of printable ASCII
_IRQ_NAME_RE = re.compile(r"[!-~]{1,128}")


class CpuSetError(ValueError):
    """A CPU list or mask that cannot be read."""


# -- CPU lists and masks ----------------------------------------------------------------------------
def parse_cpulist(value):
    """A CPU list (``"0-3,8"``, ``[0, 1]``, ``3``, ``""``) -> frozenset of CPU numbers."""
    if value is None:
        return frozenset()
    if isinstance(value, bool):
        raise CpuSetError("expected a CPU list, got %r" % (value,))
    if isinstance(value, int):
        if value < 0:
            raise CpuSetError("CPU numbers are 0 or more, got %d" % value)
        return frozenset([value])
    if isinstance(value, (list, tuple, set, frozenset)):
        cpus = set()
        for item in value:
            cpus |= parse_cpulist(item)
        return frozenset(cpus)
    text = str(value).strip()
    cpus = set()
    if not text:
        return frozenset()
    for part in text.split(","):
        match = _RANGE_RE.fullmatch(part.strip(" "))
        if not match:
            raise CpuSetError("%r is not a CPU list such as 0-3,8" % (text,))
        low = int(match.group(1))
        high = int(match.group(2)) if match.group(2) is not None else low
        if high < low:
            raise CpuSetError("%r: range %d-%d goes down" % (text, low, high))
        if high - low > 65535:
            raise CpuSetError("%r: range %d-%d is too large" % (text, low, high))
        cpus.update(range(low, high + 1))
    return frozenset(cpus)


def format_cpulist(cpus):
    """frozenset -> ``0-3,8`` (the kernel's form); ``""`` for none."""
    parts, run = [], []
    for cpu in sorted(cpus):
        if run and cpu == run[-1] + 1:
            run.append(cpu)
            continue
        if run:
            parts.append(_run_text(run))
        run = [cpu]
    if run:
        parts.append(_run_text(run))
    return ",".join(parts)


def _run_text(run):
    return str(run[0]) if len(run) == 1 else "%d-%d" % (run[0], run[-1])


def parse_mask(text):
    """A CPU mask (``0000000f``, ``00000001,00000000``, ``0xf``) -> frozenset of CPU numbers."""
    value = str(text).strip()
    if not _MASK_RE.fullmatch(value):
        raise CpuSetError("%r is not a CPU mask such as 0x0f or 00000000,0000000f" % (value,))
    value = value[2:] if value.lower().startswith("0x") else value
    number = 0
    words = value.split(",")
    for word in words:
        if len(words) > 1 and len(word) > 8:
            raise CpuSetError("%r: a comma-separated word has more than 8 hex digits" % (value,))
        number = (number << 32) | int(word, 16)
    cpus, bit = set(), 0
    while number:
        if number & 1:
            cpus.add(bit)
        number >>= 1
        bit += 1
    return frozenset(cpus)


def format_mask(cpus):
    """frozenset -> mask in the kernel's form (comma-separated 32-bit words, ``0`` for none)."""
    number = 0
    for cpu in cpus:
        number |= 1 << cpu
    words = []
    while True:
        words.append(number & 0xFFFFFFFF)
        number >>= 32
        if not number:
            break
    words.reverse()
    return ",".join(["%x" % words[0]] + ["%08x" % w for w in words[1:]])


def is_mask(text):
    """Whether ``text`` is a CPU mask as format_mask writes it (what a boot unit may hold)."""
    return isinstance(text, str) and bool(_MASK_RE.fullmatch(text))


def is_cpulist(text):
    """Whether ``text`` is a CPU list as format_cpulist writes it."""
    try:
        return isinstance(text, str) and bool(text) and format_cpulist(parse_cpulist(text)) == text
    except CpuSetError:
        return False


def is_irq_name(text):
    """Whether ``text`` can be an IRQ action name of /proc/interrupts (one printable ASCII word)."""
    return isinstance(text, str) and bool(_IRQ_NAME_RE.fullmatch(text))


def parse_cpus(value):
    """An RPS or affinity setting: ``"0x..."`` (or a kernel mask with commas and 8-digit words) is a
    mask, anything else a CPU list; ``[]``/``""`` is no CPU."""
    if isinstance(value, str):
        text = value.strip()
        if text.lower().startswith("0x"):
            return parse_mask(text)
        if "," in text and all(len(w) == 8 for w in text.split(",")) and _MASK_RE.fullmatch(text):
            return parse_mask(text)
    return parse_cpulist(value)


# -- /proc/interrupts -------------------------------------------------------------------------------
def parse_interrupts(text):
    """``/proc/interrupts`` -> list of {"irq": int, "names": [action names]}."""
    lines = (text or "").splitlines()
    if not lines:
        return []
    ncpus = len(lines[0].split())
    irqs = []
    for line in lines[1:]:
        fields = line.split()
        if not fields or not fields[0].endswith(":") or not fields[0][:-1].isdigit():
            continue
        rest = fields[1 + ncpus :]
        # the action names are the last fields; several actions are joined by ", "
        tail = " ".join(rest)
        names = []
        for piece in tail.split(", "):
            words = piece.split()
            if words:
                names.append(words[-1])
        irqs.append({"irq": int(fields[0][:-1]), "names": names})
    return irqs


def queue_irq_names(driver, device, count):
    """The IRQ names of ``count`` queues of the interface whose driver is ``driver`` and whose device
    (basename of /sys/class/net/IF/device) is ``device``: list of (name, direction, index) with
    direction ``rx``, ``tx`` or ``both``; [] when the driver's names are not known."""
    if not device or count <= 0:
        return []
    names = []
    for index in range(count):
        if driver == "virtio_net":
            names.append(("%s-input.%d" % (device, index), "rx", index))
            names.append(("%s-output.%d" % (device, index), "tx", index))
        elif driver == "mlx5_core":
            names.append(("mlx5_comp%d@pci:%s" % (index, device), "both", index))
        elif driver == "ibmvnic":
            names.append(("ibmvnic-%s-rx%d" % (device, index), "rx", index))
            names.append(("ibmvnic-%s-tx%d" % (device, index), "tx", index))
    return names


def interface_irqs(driver, device, table, count=256):
    """The interface's queue IRQs found in ``table`` (parse_interrupts): list of
    {"irq", "name", "direction", "index"} ordered by queue."""
    by_name = {}
    for entry in table:
        for name in entry["names"]:
            by_name.setdefault(name, entry["irq"])
    found = []
    for name, direction, index in queue_irq_names(driver, device, count):
        if name in by_name:
            found.append({"irq": by_name[name], "name": name, "direction": direction, "index": index})
    return found


def select_irqs(key, queue_irqs, table):
    """The IRQs an ``irq_affinity`` key names: ``all``, a queue index (``3``), ``rx-3``/``tx-3``, or a
    glob of IRQ names (``eth0-TxRx-*``) matched against every IRQ of ``table``.
    Returns list of (irq, name)."""
    text = str(key)
    if text == "all":
        return [(q["irq"], q["name"]) for q in queue_irqs]
    if _INDEX_RE.fullmatch(text):
        return [(q["irq"], q["name"]) for q in queue_irqs if q["index"] == int(text)]
    match = _QUEUE_KEY_RE.fullmatch(text)
    if match:
        direction, index = match.group(1), int(match.group(2))
        return [
            (q["irq"], q["name"]) for q in queue_irqs if q["index"] == index and q["direction"] in (direction, "both")
        ]
    found = []
    for entry in table:
        for name in entry["names"]:
            if fnmatch.fnmatchcase(name, text):
                found.append((entry["irq"], name))
                break
    return found


def key_kind(key):
    """``all``, ``queue``, ``direction`` or ``glob`` for an ``irq_affinity`` key."""
    text = str(key)
    if text == "all":
        return "all"
    if _INDEX_RE.fullmatch(text):
        return "queue"
    if _QUEUE_KEY_RE.fullmatch(text):
        return "direction"
    return "glob"


# -- irqbalance -------------------------------------------------------------------------------------
def _split_args(value):
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        value = value[1:-1]
    return value.split()


def banned_irqs(text):
    """IRQ numbers banned by ``--banirq=N`` in the IRQBALANCE_ARGS of an irqbalance environment file."""
    found = []
    for line in (text or "").splitlines():
        match = _ARGS_LINE_RE.fullmatch(line)
        if not match or line.lstrip().startswith("#"):
            continue
        for arg in _split_args(match.group(1)):
            ban = _BANIRQ_RE.fullmatch(arg)
            if ban:
                found.append(int(ban.group(1)))
    return sorted(set(found))


def with_banned_irqs(text, add=(), remove=()):
    """The environment file ``text`` with ``--banirq=N`` for each of ``add`` in IRQBALANCE_ARGS and
    without those of ``remove``; other arguments and lines stay. A missing IRQBALANCE_ARGS line is
    appended. The value is written double-quoted (systemd EnvironmentFile and sh both read it)."""
    lines = (text or "").splitlines()
    add, remove = set(add), set(remove) - set(add)
    done = False
    out = []
    for line in lines:
        match = _ARGS_LINE_RE.fullmatch(line)
        if match and not line.lstrip().startswith("#") and not done:
            args = [a for a in _split_args(match.group(1)) if not _is_ban_of(a, remove | add)]
            args += ["--banirq=%d" % n for n in sorted(add)]
            out.append('IRQBALANCE_ARGS="%s"' % " ".join(args))
            done = True
            continue
        out.append(line)
    if not done and add:
        out.append('IRQBALANCE_ARGS="%s"' % " ".join("--banirq=%d" % n for n in sorted(add)))
    return "\n".join(out) + ("\n" if out else "")


def _is_ban_of(arg, irqs):
    match = _BANIRQ_RE.fullmatch(arg)
    return bool(match) and int(match.group(1)) in irqs
