# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one reader and writer of zPCI function IDs (FID), UIDs and channel IDs (VCHID, PCHID).

Inventories write these IDs the way the HMC, IOCP and ``lspci`` show them: hexadecimal, with or
without ``0x`` and leading zeros (``605``, ``0x605``, ``00000605``). YAML turns an unquoted
``0x605`` into the int 1541 already, so ints are taken as they are and strings are read as hex
only (``"605"`` is 0x605, never 605). Messages show an ID as ``0x605``; the kernel's slot
directory under /sys/bus/pci/slots is the FID as 8 lower-case hex digits.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

FID_MAX = 0xFFFFFFFF

_HEX = re.compile(r"(?:0[xX])?([0-9A-Fa-f]+)")


def parse_hex_id(value, maximum=FID_MAX, minimum=0):
    """Return ``value`` (an int or a hex string) as an int in ``minimum..maximum``.

    Raises ValueError with a sentence naming the accepted forms and the range; the caller puts
    the field name in front of it.
    """
    if isinstance(value, bool):
        raise ValueError("expected an integer or a hex string such as 0x605, got %r" % (value,))
    if isinstance(value, int):
        number = value
    elif isinstance(value, str):
        match = _HEX.fullmatch(value.strip())
        if not match:
            raise ValueError("%r is not an integer or a hex string such as 0x605" % (value,))
        number = int(match.group(1), 16)
    else:
        raise ValueError("expected an integer or a hex string such as 0x605, got %r" % (value,))
    if number < minimum or number > maximum:
        shown = "0x%x" % number if number >= 0 else str(number)
        raise ValueError("%s is outside 0x%04x..0x%x" % (shown, minimum, maximum))
    return number


def parse_fid(value):
    """A FID from an int or a hex string; ValueError names the accepted forms."""
    return parse_hex_id(value, FID_MAX)


def fid_text(number):
    """An ID as messages show it: ``0x605`` (``?`` when unknown)."""
    return "?" if number is None else "0x%x" % number


def slot_name(fid):
    """The slot directory name of a FID under /sys/bus/pci/slots: 8 lower-case hex digits."""
    return "%08x" % fid


# RDMA ports of one RoCE function, by PCI device ID (vendor 15b3): a RoCE Express function (a
# ConnectX-3 VF, mlx4) drives both ports of its card, an Express2 or Express3 function (mlx5) one.
_ROCE_FUNCTION_PORTS = {0x1004: 2}


def roce_function_ports(device_id):
    """How many RDMA ports a RoCE function has (``device_id``: ``'1004'``, ``'0x1004'`` or an int)."""
    try:
        number = parse_hex_id(device_id, 0xFFFF)
    except ValueError:
        return 1
    return _ROCE_FUNCTION_PORTS.get(number, 1)


def pchid_port(device_id, rdma_port, function_port=None):
    """The port of the RoCE card (PCHID) that RDMA port ``rdma_port`` (1-based) of a function is.

    A function that drives both ports (RoCE Express) numbers them as the card does; a function of
    one port (Express2/3) is port 1 for RDMA and SMC, and the card port is the function's own
    ``port`` (sysfs, IOCP ``PORT=``): 1 or 2, None when not known.
    """
    if roce_function_ports(device_id) > 1:
        return rdma_port
    return function_port if function_port in (1, 2) else None
