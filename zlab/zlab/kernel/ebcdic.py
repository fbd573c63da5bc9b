# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""EBCDIC code page 1047 (IBM-1047), as smc_rnics decodes util_string with iconv -f IBM-1047.

Python has no cp1047 codec; cp037 differs from it in six positions, swapped here.
"""

_SWAP = {  # char: (cp037 byte, cp1047 byte)
    "[": (0xBA, 0xAD),
    "]": (0xBB, 0xBD),
    "^": (0xB0, 0x5F),
    "\u00ac": (0x5F, 0xB0),
    "\u00dd": (0xAD, 0xBA),
    "\u00a8": (0xBD, 0xBB),
}
_ENC = {}
_DEC = {}
for _c, (_a, _b) in _SWAP.items():
    _ENC[_c] = _b
    _DEC[_b] = _c


def encode(text):
    out = bytearray()
    for ch in text:
        if ch in _ENC:
            out.append(_ENC[ch])
        else:
            out += ch.encode("cp037")
    return bytes(out)


def decode(data):
    out = []
    for b in bytes(data):
        if b in _DEC:
            out.append(_DEC[b])
        else:
            out.append(bytes([b]).decode("cp037"))
    return "".join(out)


def pnet_util_string(pnet_ids, length=64):
    """util_string bytes: 16 bytes per port, PNET ID in EBCDIC padded with EBCDIC blanks; ports
    without a PNET ID and the rest are binary zeros."""
    buf = bytearray(length)
    for port, pid in enumerate(pnet_ids or []):
        if not pid or port * 16 >= length:
            continue
        field = encode(pid.upper()[:16].ljust(16))
        buf[port * 16 : port * 16 + 16] = field
    return bytes(buf)
