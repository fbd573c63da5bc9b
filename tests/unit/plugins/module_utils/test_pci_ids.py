# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one FID/UID/VCHID reader and formatter, and the modules that must agree with it."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.s390x.network.plugins.module_utils.iocp import cpc_model
from ansible_collections.s390x.network.plugins.module_utils.libvirt import xml as libvirt_xml
from ansible_collections.s390x.network.plugins.module_utils.zpci.pci_ids import (
    fid_text,
    parse_fid,
    parse_hex_id,
    slot_name,
)


@pytest.mark.parametrize(
    'value, expected',
    [
        (0x605, 0x605),
        (1541, 0x605),
        ('605', 0x605),
        ('0x605', 0x605),
        ('0X605', 0x605),
        ('00000605', 0x605),
        (0, 0),
        ('ffffffff', 0xFFFFFFFF),
        (' 1017 ', 0x1017),
    ],
)
def test_parse_fid_forms(value, expected):
    assert parse_fid(value) == expected


@pytest.mark.parametrize(
    'value, message',
    [
        (-1, '-1 is outside 0x0000..0xffffffff'),
        (0x100000000, '0x100000000 is outside 0x0000..0xffffffff'),
        ('1g', "'1g' is not an integer or a hex string such as 0x605"),
        ('', "'' is not an integer or a hex string such as 0x605"),
        ('0x', "'0x' is not an integer or a hex string such as 0x605"),
        ('6 05', "'6 05' is not an integer or a hex string such as 0x605"),
        (None, 'expected an integer or a hex string such as 0x605, got None'),
        (True, 'expected an integer or a hex string such as 0x605, got True'),
        (1.5, 'expected an integer or a hex string such as 0x605, got 1.5'),
    ],
)
def test_parse_fid_rejects_with_the_accepted_forms(value, message):
    with pytest.raises(ValueError) as err:
        parse_fid(value)
    assert str(err.value) == message


def test_range_is_the_callers():
    assert parse_hex_id('FFFF', 0xFFFF, 1) == 0xFFFF
    with pytest.raises(ValueError, match=r'^0x0 is outside 0x0001\.\.0xffff$'):
        parse_hex_id(0, 0xFFFF, 1)


def test_formats():
    assert fid_text(0x7C8) == '0x7c8'
    assert fid_text(None) == '?'
    assert slot_name(0xABCDEF01) == 'abcdef01'
    assert slot_name(0x605) == '00000605'


@pytest.mark.parametrize('value', [0x605, '605', '0x605', '00000605', 'zz', -3, True, None, '0x100000000'])
def test_inventory_model_and_libvirt_read_ids_alike(value):
    """The cpc model, libvirt_device and zpci_function accept and reject the same FIDs."""
    try:
        expected = parse_fid(value)
    except ValueError:
        expected = None
    assert cpc_model.parse_hex_int(value, 0xFFFFFFFF) == expected
    if expected is None:
        with pytest.raises(libvirt_xml.DeviceSpecError):
            libvirt_xml.parse_number(value, 'fid', 0, 0xFFFFFFFF)
    else:
        assert libvirt_xml.parse_number(value, 'fid', 0, 0xFFFFFFFF) == expected
