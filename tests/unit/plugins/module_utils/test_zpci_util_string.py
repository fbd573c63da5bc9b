# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""util_string: 64 bytes EBCDIC (cp1047), one 16 character PNET ID field per port."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.s390x.network.plugins.module_utils.zpci.util_string import (
    cp1047_decode,
    cp1047_encode,
    decode_util_string,
    encode_pnet_ids,
    pnet_id_for_port,
    pnet_ids,
)

# "NETA" in EBCDIC code page 1047, written out by hand: N=D5 E=C5 T=E3 A=C1.
NETA = b'\xd5\xc5\xe3\xc1'
BLANK = b'\x40'


def test_decodes_ebcdic_blank_padded_field():
    raw = NETA + BLANK * 12 + b'\x00' * 48
    assert pnet_ids(raw) == ['NETA', None, None, None]


def test_nul_bytes_read_as_blanks_like_smc_rnics():
    raw = NETA + b'\x00' * 60
    assert decode_util_string(raw)[:4] == 'NETA'
    assert decode_util_string(raw)[4:] == ' ' * 60
    assert pnet_id_for_port(raw, 0) == 'NETA'


def test_all_zero_util_string_means_no_pnet_id():
    assert pnet_ids(b'\x00' * 64) == [None] * 4
    assert pnet_id_for_port(b'\x00' * 64) is None
    assert pnet_ids(b'') == []
    assert pnet_id_for_port(None) is None


def test_digits_and_full_length_ids():
    # "PNET0123456789AB": 16 characters fill the field; digits F0-F9 in EBCDIC
    raw = encode_pnet_ids(['PNET0123456789AB', 'B'])
    assert raw[4:8] == b'\xf0\xf1\xf2\xf3'
    assert len(raw) == 64
    assert pnet_ids(raw) == ['PNET0123456789AB', 'B', None, None]


def test_second_port_only():
    raw = BLANK * 16 + NETA + BLANK * 12
    assert pnet_ids(raw) == [None, 'NETA']
    assert pnet_id_for_port(raw, 1) == 'NETA'
    assert pnet_id_for_port(raw, 5) is None


def test_ports_limit_and_round_trip():
    raw = encode_pnet_ids(['A1', 'B2', 'C3', 'D4'])
    assert pnet_ids(raw, ports=2) == ['A1', 'B2']
    assert pnet_ids(raw) == ['A1', 'B2', 'C3', 'D4']


def test_encode_rejects_too_long_ids():
    with pytest.raises(ValueError):
        encode_pnet_ids(['X' * 17])
    with pytest.raises(ValueError):
        encode_pnet_ids(['A'] * 5)


def test_text_input_is_rejected():
    with pytest.raises(TypeError):
        pnet_ids(u'NETA')


def test_cp1047_differs_from_cp037_where_ibm_says():
    # IBM-1047 puts the brackets at AD/BD and the caret at 5F (cp037: BA/BB and B0).
    assert cp1047_decode(b'\xad\xbd\x5f\xb0') == u'[]^\xac'
    assert cp1047_decode(b'\xba\xbb') == u'\xdd\xa8'
    assert cp1047_encode(u'[]^') == b'\xad\xbd\x5f'


def test_cp1047_letters_digits_and_round_trip():
    assert cp1047_decode(b'\xc1\xc9\xd1\xd9\xe2\xe9\x81\xa9\xf0\xf9\x40') == u'AIJRSZaz09 '
    every = bytes(bytearray(range(256)))
    assert cp1047_encode(cp1047_decode(every)) == every


def test_cp1047_encode_rejects_unknown_characters():
    with pytest.raises(ValueError):
        cp1047_encode(u'\u20ac')


def test_cp1047_table_equals_glibc_iconv_when_available():
    import shutil
    import subprocess

    iconv = shutil.which('iconv')
    if not iconv:
        pytest.skip('iconv not installed')
    every = bytes(bytearray(range(256)))
    proc = subprocess.run(
        [iconv, '-f', 'IBM1047', '-t', 'UTF-8'],
        input=every,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        check=False,
    )
    if proc.returncode != 0:
        pytest.skip('iconv has no IBM1047 here')
    assert cp1047_decode(every) == proc.stdout.decode('utf-8')
