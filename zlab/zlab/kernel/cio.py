# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The CIO device blacklist (cio_ignore) and /proc/sysinfo of the emulated s390 kernel.

Blacklist semantics (drivers/s390/cio/blacklist.c):
- the kernel parameter ``cio_ignore=`` and writes to /proc/cio_ignore share one parser: a comma
  separated list of ``all``, ``ipldev``, ``condev``, a bus ID ``0.0.8200`` (cssid 1-2 hex digits,
  at most 0; ssid 1 digit, at most 3; devno exactly 4 digits) or an old style devno ``8200`` /
  ``0x8200`` (subchannel set 0), or a range ``FROM-TO`` of those; ``!`` inverts one item. Items
  that do not parse, and ranges whose end lies before their start, are skipped: the others still
  apply and the write returns EINVAL at the end;
- a write is ``free LIST``, ``add LIST`` or ``purge`` (first blank splits the command; trailing
  blanks and NULs are dropped first); anything else is EINVAL;
- reading lists the blacklisted IDs in subchannel set order, one line per single ID
  (``0.0.1234``) or per run of consecutive IDs (``0.0.0000-0.0.81ff``); a run never crosses a
  subchannel set;
- ``condev`` names the 3215/3270 console: none on an LPAR or KVM guest with an SCLP console;
  ``ipldev`` the CCW/FCP IPL device: the emulated hosts have none. Both are skipped as the kernel
  skips them when there is no such device.

The list is kept as sorted, disjoint [first, last] intervals of ``ssid * 0x10000 + devno``.
"""

import errno
import hashlib
import re

MAX_SSID = 3
MAX_DEVNO = 0xFFFF
MAX_CSSID = 0
LAST = (MAX_SSID + 1) * (MAX_DEVNO + 1) - 1
WRITE_MAX = 65536


def key(ssid, devno):
    return ssid * (MAX_DEVNO + 1) + devno


def busid_key(busid):
    """'0.0.8200' -> key (the cssid is not part of the key: one channel subsystem)."""
    _css, ssid, devno = busid.split(".")
    return key(int(ssid, 16), int(devno, 16))


# ---- interval lists ------------------------------------------------------------------------------


def _add(ivs, lo, hi):
    out = []
    for a, b in ivs:
        if b < lo - 1 or a > hi + 1:
            out.append([a, b])
        else:
            lo, hi = min(lo, a), max(hi, b)
    out.append([lo, hi])
    return sorted(out)


def _free(ivs, lo, hi):
    out = []
    for a, b in ivs:
        if b < lo or a > hi:
            out.append([a, b])
            continue
        if a < lo:
            out.append([a, lo - 1])
        if b > hi:
            out.append([hi + 1, b])
    return out


def is_blacklisted(ivs, k):
    return any(a <= k <= b for a, b in ivs or ())


def render(ivs):
    """The text of /proc/cio_ignore."""
    lines = []
    for a, b in ivs or ():
        # runs are shown per subchannel set
        while a <= b:
            end = min(b, (a // (MAX_DEVNO + 1) + 1) * (MAX_DEVNO + 1) - 1)
            first = "0.%x.%04x" % divmod(a, MAX_DEVNO + 1)
            lines.append(first if a == end else "%s-0.%x.%04x" % ((first,) + divmod(end, MAX_DEVNO + 1)))
            a = end + 1
    return "".join(line + "\n" for line in lines)


# ---- parser --------------------------------------------------------------------------------------


def _pure_hex(s, i, min_digit, max_digit, max_val):
    """pure_hex(): up to max_digit + 1 hex digits are consumed; (value, next index) or None."""
    val = 0
    n = 0
    while n <= max_digit and i < len(s) and s[i] in "0123456789abcdefABCDEF":
        val = val * 16 + int(s[i], 16)
        i += 1
        n += 1
    if n < min_digit or n > max_digit or val > max_val:
        return None
    return val, i


def _simple_strtoul16(s):
    """simple_strtoul(s, &end, 16): (value, index of the first unparsed character)."""
    i = 2 if s[:2] in ("0x", "0X") else 0  # the prefix is skipped even without digits
    start = i
    while i < len(s) and s[i] in "0123456789abcdefABCDEF":
        i += 1
    return (int(s[start:i], 16) if i > start else 0), i


def parse_busid(s):
    """parse_busid(): (ssid, devno) or None."""
    if s == "":
        return None
    val, end = _simple_strtoul16(s)
    if end == len(s):  # old style: a devno of subchannel set 0
        return (0, val) if val <= MAX_DEVNO else None
    r = _pure_hex(s, 0, 1, 2, MAX_CSSID)
    if r is None or r[1] >= len(s) or s[r[1]] != ".":
        return None
    r = _pure_hex(s, r[1] + 1, 1, 1, MAX_SSID)
    if r is None or r[1] >= len(s) or s[r[1]] != ".":
        return None
    ssid = r[0]
    r = _pure_hex(s, r[1] + 1, 4, 4, MAX_DEVNO)
    if r is None or r[1] != len(s):
        return None
    return ssid, r[0]


def apply_list(ivs, text, action, messages=None):
    """blacklist_parse_parameters(): apply ``text`` (``action`` 'add' or 'free') to ``ivs``.
    Returns (new intervals, 0 or EINVAL). ``messages`` collects the kernel's warnings (printed
    for the kernel parameter only)."""
    ivs = [list(x) for x in ivs or ()]
    rc = 0
    if text is None:
        return ivs, 0
    for parm in text.split(","):
        act = action
        if parm.startswith("!"):
            act = "free" if action == "add" else "add"
            parm = parm[1:]
        if parm == "all":
            rng = (0, LAST)
        elif parm in ("ipldev", "condev"):
            continue  # no CCW IPL device, SCLP console
        else:
            frm, _sep, to = parm.partition("-")
            a = parse_busid(frm)
            b = (parse_busid(to) if _sep else a) if a is not None else None
            if a is None or b is None:
                bad = frm if a is None else to
                if messages is not None:
                    messages.append("%s is not a valid device for the cio_ignore kernel " "parameter" % bad)
                rc = errno.EINVAL
                continue
            rng = (key(*a), key(*b))
            if rng[0] > rng[1]:
                if messages is not None:
                    messages.append("0.%x.%04x to 0.%x.%04x is not a valid range for cio_ignore" % (a + b))
                rc = errno.EINVAL
                continue
        ivs = _add(ivs, *rng) if act == "add" else _free(ivs, *rng)
    return ivs, rc


def parse_write(data):
    """cio_ignore_write(): (command, argument text or None) of one write; command is None when
    the first word is not free/add/purge (EINVAL)."""
    text = data.decode("latin-1") if isinstance(data, bytes) else str(data)
    text = text[:WRITE_MAX]
    text = text.split("\0", 1)[0]  # strncpy_from_user stops at a NUL
    text = text.rstrip(" \t\n\r\v\f")
    cmd, sep, rest = text.partition(" ")
    if cmd not in ("free", "add", "purge"):
        return None, None
    return cmd, (rest if sep else None)


# ---- /proc/sysinfo -----------------------------------------------------------------------------

# machine type, model of the CPC, CPUs of the CPC shown by STSI 1.2.2
MACHINES = {"z15": ("8561", "T01"), "z16": ("3931", "A01"), "z17": ("9175", "ME1")}
CPC_CPUS = 20


def _digest(*parts):
    return hashlib.sha256("/".join(str(p) for p in parts).encode()).hexdigest()


def sysinfo(spec, cpus):
    """The text of /proc/sysinfo (arch/s390/kernel/sysinfo.c) of a host: STSI 1.1.1, 15.1.x,
    1.2.2 and 2.2.2 from the CPC and its partition (a KVM guest sees its host's), 3.2.2 of a
    KVM guest as KVM and QEMU fill it (VM00 name = the domain name, control program
    KVM/Linux, adjustment 1000)."""
    cpc = spec.get("cpc") or {}
    name = str(cpc.get("name") or "ZLAB")
    mtype, model = MACHINES.get(str(cpc.get("machine") or "z16").lower(), MACHINES["z16"])
    h = _digest(name, mtype)
    capacity = "7%02d" % (CPC_CPUS // 2)
    rating = 2000 + 100 * CPC_CPUS // 2
    out = [
        "Manufacturer:         %-16.16s" % "IBM",
        "Type:                 %-4.4s" % mtype,
        "LIC Identifier:       %s" % h[:16],
        "Model:                %-16.16s %-16.16s" % (capacity, model),
        "Sequence Code:        %-16.16s" % ("00000000000" + h[16:21].upper()),
        "Plant:                %-4.4s" % "02",
        "Model Capacity:       %-16.16s %08u" % (capacity, rating),
        "Model Perm. Capacity: %-16.16s %08u" % (capacity, rating),
        "Model Temp. Capacity: %-16.16s %08u" % (capacity, rating),
        "Nominal Cap. Rating:  %08u" % rating,
        "Nominal Perm. Rating: %08u" % rating,
        "Nominal Temp. Rating: %08u" % rating,
        "Capacity Adj. Ind.:   100",
        "Capacity Ch. Reason:  0",
        "Capacity Transient:   0",
    ]
    out += ["Type %d Percentage:    0" % i for i in range(1, 6)]
    out.append("")
    if spec.get("role") != "guest":  # a KVM guest has no topology facility
        out.append("CPU Topology HW:      0 0 0 4 2 %d" % CPC_CPUS)
        out.append("CPU Topology SW:      0 0 0 4 2 %d" % cpus)
    out += [
        "CPUs Total:           %d" % CPC_CPUS,
        "CPUs Configured:      0",
        "CPUs Standby:         0",
        "CPUs Reserved:        %d" % CPC_CPUS,
        "CPUs G-MTID:          0",
        "CPUs S-MTID:          1",
        "Capability:           %u %u" % (2900, 1000),
        "Nominal Capability:   %d" % 2900,
        "Secondary Capability: %d" % 2900,
    ]
    out += ["Adjustment %02d-way:    %u %u" % (i, 62000 - 200 * i, 63000 - 200 * i) for i in range(2, CPC_CPUS + 1)]
    chars = "Shared "
    out += [
        "",
        "LPAR Number:          %d" % int(spec.get("lpar_number") or 1),
        "LPAR Characteristics: %s" % chars,
        "LPAR Name:            %-8.8s" % str(spec.get("partition") or "").upper(),
        "LPAR Adjustment:      250",
        "LPAR CPUs Total:      %d" % cpus,
        "LPAR CPUs Configured: %d" % cpus,
        "LPAR CPUs Standby:    0",
        "LPAR CPUs Reserved:   0",
        "LPAR CPUs Dedicated:  0",
        "LPAR CPUs Shared:     %d" % cpus,
        "LPAR CPUs G-MTID:     0",
        "LPAR CPUs S-MTID:     1",
        "LPAR CPUs PS-MTID:    1",
    ]
    if spec.get("role") == "guest":
        vcpus = int(spec.get("vcpus") or 2)
        vm = str(spec.get("name") or "KVMguest")
        out += [
            "",
            "VM00 Name:            %-8.8s" % vm,
            "VM00 Control Program: %-16.16s" % "KVM/Linux",
            "VM00 Adjustment:      1000",
            "VM00 CPUs Total:      %d" % vcpus,
            "VM00 CPUs Configured: %d" % vcpus,
            "VM00 CPUs Standby:    0",
            "VM00 CPUs Reserved:   0",
            "VM00 Extended Name:   %s" % vm[:256],
        ]
        if spec.get("uuid"):
            out.append("VM00 UUID:            %s" % spec["uuid"])
    return "\n".join(out) + "\n"


_CPU_RANGE = re.compile(r"^(\d+)(?:-(\d+))?$")


def count_cpus(online_text):
    """Number of CPUs in a sysfs cpu list ('0-3,6'), None if it does not parse."""
    n = 0
    for part in (online_text or "").strip().split(","):
        m = _CPU_RANGE.match(part.strip())
        if not m:
            return None
        n += int(m.group(2) or m.group(1)) - int(m.group(1)) + 1
    return n or None


__all__ = [
    "apply_list",
    "parse_write",
    "parse_busid",
    "render",
    "is_blacklisted",
    "busid_key",
    "sysinfo",
    "count_cpus",
    "MACHINES",
]
