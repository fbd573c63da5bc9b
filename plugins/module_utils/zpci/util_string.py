# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Decoding of the zPCI ``util_string`` attribute (PNET IDs, EBCDIC).

The kernel exposes the function's utility string as a 64 byte binary attribute
``/sys/bus/pci/devices/<addr>/util_string``. For network functions (ISM, RoCE)
firmware stores the PNET IDs there: one 16 character EBCDIC (code page 1047)
field per physical port, padded with EBCDIC blanks (0x40) or NUL bytes.
smc_rnics decodes it the same way (NUL -> 0x40, then ``iconv -f IBM-1047``).

Python's codecs have no cp1047: the table is cp037 (which Python has) with the six
code points where IBM-1047 differs (``^ [ ] \xac \xdd \xa8``).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import codecs

UTIL_STRING_LEN = 64
PNET_ID_LEN = 16
_EBCDIC_BLANK = b'\x40'
# IBM-1047 code points that differ from cp037.
_CP1047_OVERRIDES = {
    0x5F: u'\u005e',  # ^ (cp037: not sign)
    0xAD: u'\u005b',  # [ (cp037: Y acute)
    0xB0: u'\u00ac',  # not sign (cp037: ^)
    0xBA: u'\u00dd',  # Y acute (cp037: [)
    0xBB: u'\u00a8',  # diaeresis (cp037: ])
    0xBD: u'\u005d',  # ] (cp037: diaeresis)
}


def _build_tables():
    decode = [codecs.decode(bytes(bytearray([code])), 'cp037') for code in range(256)]
    for code, char in _CP1047_OVERRIDES.items():
        decode[code] = char
    encode = dict((char, code) for code, char in enumerate(decode))
    return decode, encode


_DECODE, _ENCODE = _build_tables()


def cp1047_decode(data):
    """Decode EBCDIC IBM-1047 bytes to text."""
    return u''.join(_DECODE[code] for code in bytearray(data))


def cp1047_encode(text):
    """Encode text to EBCDIC IBM-1047 bytes (ValueError for characters it lacks)."""
    try:
        return bytes(bytearray(_ENCODE[char] for char in text))
    except KeyError as exc:
        raise ValueError('character %r has no IBM-1047 code' % (exc.args[0],))


def _to_bytes(raw):
    if raw is None:
        return b''
    if isinstance(raw, bytes):
        return raw
    if isinstance(raw, bytearray):
        return bytes(raw)
    raise TypeError('util_string must be bytes, got %s' % type(raw).__name__)


def decode_util_string(raw):
    """Return the util_string decoded to text (NULs read as blanks, trailing blanks kept)."""
    data = _to_bytes(raw).replace(b'\x00', _EBCDIC_BLANK)
    return cp1047_decode(data)


def pnet_ids(raw, ports=None):
    """Return the PNET ID of each port as a list (None where a port has none).

    ``ports`` limits the number of 16 character fields returned; by default every
    field present in ``raw`` (4 for a complete 64 byte attribute).
    """
    text = decode_util_string(raw)
    count = len(text) // PNET_ID_LEN
    if len(text) % PNET_ID_LEN:
        count += 1
    if ports is not None:
        count = min(count, ports)
    result = []
    for index in range(count):
        field = text[index * PNET_ID_LEN : (index + 1) * PNET_ID_LEN]
        # smc_rnics removes every blank of the field; PNET IDs have no blanks.
        value = field.replace(' ', '').strip()
        result.append(value or None)
    return result


def pnet_id_for_port(raw, index=0):
    """Return the PNET ID of the 0-based port ``index`` or None when unset."""
    ids = pnet_ids(raw)
    if 0 <= index < len(ids):
        return ids[index]
    return None


def encode_pnet_ids(ids, length=UTIL_STRING_LEN):
    """Build a util_string from PNET IDs (tests and the emulated lab use this).

    Unused bytes are NUL, as firmware leaves them.
    """
    data = b''
    for value in ids:
        value = value or ''
        if len(value) > PNET_ID_LEN:
            raise ValueError('PNET ID %r is longer than %d characters' % (value, PNET_ID_LEN))
        data += cp1047_encode(value.ljust(PNET_ID_LEN))
    if len(data) > length:
        raise ValueError('too many PNET IDs for a %d byte util_string' % length)
    return data + b'\x00' * (length - len(data))
