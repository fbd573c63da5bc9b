# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ``smc_rnics`` command (smc-tools): its arguments and its output layouts.

This is the one place that knows how smc_rnics is called and what it prints.

Layouts (smc_rnics is a bash script; rows come from ``printf``):

* v1.8.5 and later, header ``FID   Power  PCI_ID        PCHID  Type             PFT   VF   PPrt  PNET_ID            Net-Dev``
  (``VFN`` instead of ``VF`` with ``-r``; ``IPrt``/``IB-Dev`` with ``-I``), 100 dashes,
  rows ``%4x  %-5s  %-12s  %-4s   %-15s  %-4s  %-3s  %-4s  %-17s  %s``.
* v1.8.0 to v1.8.4, header ``     FID  Power  PCI_ID        PCHID  Type           PPrt  PNET_ID            Net-Dev``,
  90 dashes, rows ``%8x  %-5s  %-12s  %-4s   %-14s %-4s  %-17s  %s``. v1.3.1 to v1.7.x print
  PNET_ID 16 wide (``%-16s``) and their header has one blank less before ``Net-Dev``: the
  PNET_ID width is taken from the header. Up to v1.8.3 a RoCE port attribute of 0 is printed
  as ``-1`` (the tool subtracted one); it is read as no port.

A value wider than its column pushes the rest of the row to the right (printf
widths are minimums), functions in standby (``-a``) have only FID and power, and
empty fields are blank. Rows are therefore read field by field with the widths
above; a row whose blanks were collapsed (e.g. copied from a document) is read by
splitting it at blanks instead.

Values: FID hex; power ``0``/``1``; PCHID 4 hex digits; PFT ``ISM``, ``ROC``,
``ROC2``, ``NETH``, ``NETD`` or the raw ``0x..`` (``-r``, unknown types); VF ``y``/``n``
(raw: the decimal VF number); port ``n/a`` or a number; PNET ID ``n/a`` or the ID,
with a trailing ``*`` when it was set by the user with smc_pnet; Net-Dev ``n/a``,
blank or the interface name.

From v1.8.5 the tool names a function by its zPCI ``pft`` (a Network Express VF has the PCI
id of a RoCE Express3, 15b3:101e): Type ``Network_Express`` for NETH and NETD, ``ISM``,
``RoCE_Express`` for ROC, ``RoCE_Express3``/``RoCE_Express2`` for ROC2 by the firmware level
ethtool reports (blank when neither), and ``vendor:device`` with a raw PFT for any other type,
which it lists only with ``-a``. When ``pft`` cannot be read (fixed in v1.8.7) v1.8.5 lists no
function without ``-a`` and with it prints ``vendor:device`` and a blank PFT. Up to v1.8.4 the
type comes from the PCI id alone: a Network Express VF prints as ``Mlx_0x101e`` or
``RoCE_Express3``, so only ``ISM``, ``RoCE_Express`` and ``RoCE_Express2`` tell the kind there.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.s390x.network.plugins.module_utils.zpci.sysfs import PFT_NAMES

SMC_RNICS = 'smc_rnics'

# Exit codes of smc_rnics.
EXIT_OK = 0
EXIT_NOT_S390 = 1
EXIT_USAGE = 2
EXIT_INVALID_FID = 3
EXIT_FID_WITH_ACTION = 4
EXIT_NO_SUCH_FID = 5
EXIT_ALREADY = 6
EXIT_FAILED = 7
EXIT_FID_NOT_LISTED = 8

HEADER_NAMES = {
    'FID': 'fid',
    'Power': 'power',
    'PCI_ID': 'pci_id',
    'PCHID': 'pchid',
    'Type': 'type',
    'PFT': 'pft',
    'VF': 'vf',
    'VFN': 'vfn',
    'PPrt': 'port',
    'IPrt': 'port',
    'PNET_ID': 'pnet_id',
    'Net-Dev': 'net_device',
    'IB-Dev': 'ib_device',
}

# (header key, minimum width, alignment, blanks after the field). Widths from the
# printf format strings of the two releases.
LAYOUT_V185 = (
    ('fid', 4, 'right', 2),
    ('power', 5, 'left', 2),
    ('pci_id', 12, 'left', 2),
    ('pchid', 4, 'left', 3),
    ('type', 15, 'left', 2),
    ('pft', 4, 'left', 2),
    ('vf', 3, 'left', 2),
    ('port', 4, 'left', 2),
    ('pnet_id', 17, 'left', 2),
    ('device', 0, 'rest', 0),
)
LAYOUT_V184 = (
    ('fid', 8, 'right', 2),
    ('power', 5, 'left', 2),
    ('pci_id', 12, 'left', 2),
    ('pchid', 4, 'left', 3),
    ('type', 14, 'left', 1),
    ('port', 4, 'left', 2),
    ('pnet_id', 17, 'left', 2),
    ('device', 0, 'rest', 0),
)

# PFT column names smc_rnics prints (set_RoCE_pft_and_vfn), to the kernel's pft value.
TOOL_PFT = {'ROC': 0x02, 'ISM': 0x05, 'ROC2': 0x0A, 'NETH': 0x0C, 'NETD': 0x0F}
# Type names of the layouts without a PFT column that only one function type has.
OLD_TYPE_PFT = {'ISM': 0x05, 'RoCE_Express': 0x02, 'RoCE_Express2': 0x0A}
#: ``kind`` of a function whose type the output does not tell
UNKNOWN_KIND = 'unknown'

_PCI_ID_RE = re.compile(r'[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]')
_HEX_RE = re.compile(r'(0x)?[0-9a-fA-F]+')
_PORT_RE = re.compile(r'-?[0-9]+')  # up to v1.8.3 a RoCE port attribute 0 prints as -1


class SmcRnicsError(Exception):
    """smc_rnics failed or printed something that is not a smc_rnics table."""


def build_argv(binary=SMC_RNICS, all_functions=False, raw_ids=False, ib_device=False, fid=None):
    """argv for listing functions (``fid`` as int limits the listing to that FID)."""
    argv = [binary]
    if all_functions:
        argv.append('-a')
    if raw_ids:
        argv.append('-r')
    if ib_device:
        argv.append('-I')
    if fid is not None:
        argv.append('%x' % fid)
    return argv


def enable_argv(fid, binary=SMC_RNICS):
    """argv that configures (powers on) a FID: ``smc_rnics -e FID``."""
    return [binary, '-e', '%x' % fid]


def disable_argv(fid, binary=SMC_RNICS):
    """argv that deconfigures a FID: ``smc_rnics -d FID``."""
    return [binary, '-d', '%x' % fid]


def error_message(rc, stdout, stderr, fid=None):
    """The tool's own message for a failed run, or a description of the exit code."""
    if (stderr or '').strip():
        return stderr.strip()
    if rc == EXIT_FID_NOT_LISTED:
        # smc_rnics printed its header and no row for the FID, without a message
        return 'FID %s is not listed (in standby or not a network function; use all to include it)' % (
            '%x' % fid if fid is not None else ''
        )
    if (stdout or '').strip():
        return stdout.strip()
    return 'smc_rnics exited with code %d and printed nothing' % rc


def _header_columns(header):
    """Return [(key, start)] for the header line, None when it is no smc_rnics header.

    A column name of a later release is kept under its lower-cased name (``extra`` in the result),
    so that a new column does not make every row unreadable."""
    columns = []
    for match in re.finditer(r'\S+', header):
        name = match.group(0)
        key = HEADER_NAMES.get(name)
        if key is None:
            if not re.fullmatch(r'[A-Za-z][A-Za-z0-9_#-]*', name):
                return None
            key = 'extra:' + name.lower()
        columns.append((key, match.start()))
    keys = [key for key, dummy in columns]
    if keys[:3] != ['fid', 'power', 'pci_id']:
        return None
    return columns


def _layout_for(columns):
    keys = [key for key, dummy in columns]
    device_key = keys[-1] if keys[-1] in ('net_device', 'ib_device') else None
    v185 = [
        'fid',
        'power',
        'pci_id',
        'pchid',
        'type',
        'pft',
        keys[6] if len(keys) > 6 else None,
        'port',
        'pnet_id',
        device_key,
    ]
    v184 = ['fid', 'power', 'pci_id', 'pchid', 'type', 'port', 'pnet_id', device_key]
    if device_key and keys == v185 and keys[6] in ('vf', 'vfn'):
        return 'v1.8.5', _rename(LAYOUT_V185, keys)
    if device_key and keys == v184:
        layout = list(_rename(LAYOUT_V184, keys))
        # PNET_ID is %-17s from v1.8.0, %-16s before; the header is spaced to match
        pnet_width = columns[7][1] - columns[6][1] - 2
        if pnet_width > 0:
            layout[6] = (layout[6][0], pnet_width, 'left', 2)
        return 'v1.8.4', tuple(layout)
    return 'generic', _generic_layout(columns)


def _rename(layout, keys):
    """Put the header's key names (vf/vfn, net_device/ib_device) on a declared layout."""
    return tuple((keys[index], width, align, gap) for index, (dummy, width, align, gap) in enumerate(layout))


def _generic_layout(columns):
    """Layout of an unknown release, from the header positions (fields 2 blanks apart)."""
    layout = []
    for index, (key, start) in enumerate(columns):
        if index == len(columns) - 1:
            layout.append((key, 0, 'rest', 0))
            continue
        span = columns[index + 1][1] - start
        if index == 0:
            # right-aligned FID: the header name ends where the numbers end
            layout.append((key, max(span - 2, 1), 'right', 2))
        else:
            layout.append((key, max(span - 2, 1), 'left', 2))
    return tuple(layout)


def _walk(line, layout):
    """Cut one row into fields by the printf widths of ``layout``."""
    values = {}
    pos = 0
    length = len(line)
    for key, width, align, gap in layout:
        if pos >= length:
            values[key] = ''
            continue
        if align == 'rest':
            values[key] = line[pos:].strip()
            pos = length
            continue
        if align == 'right':
            match = re.match(r' *(\S*)', line[pos:])
            value = match.group(1)
            end = pos + max(match.end(), width)
        else:
            match = re.match(r'\S*', line[pos:])
            value = match.group(0)
            end = pos + max(len(value), width)
        values[key] = value
        pos = end + gap
    return values


def _split(line, layout):
    """Cut a row whose blanks were collapsed: fixed leading fields, the trailing ones from the right."""
    tokens = line.split()
    keys = [key for key, dummy, dummy2, dummy3 in layout]
    values = dict((key, '') for key in keys)
    if len(tokens) < 2:
        return None
    values['fid'] = tokens[0]
    values['power'] = tokens[1]
    if len(tokens) == 2:
        return values
    if len(tokens) == len(keys):
        values.update(zip(keys, tokens))
        return values
    if len(tokens) < len(keys) - 1:
        return None
    # one blank field: only Type can be blank in a configured row
    values['pci_id'] = tokens[2]
    values['pchid'] = tokens[3]
    tail = keys[5:]
    values.update(zip(tail, tokens[4:]))
    return values


def _valid(values):
    if not values.get('fid') or not _HEX_RE.fullmatch(values['fid']):
        return False
    if values.get('power') not in ('0', '1'):
        return False
    pci_id = values.get('pci_id')
    if pci_id and not _PCI_ID_RE.fullmatch(pci_id):
        return False
    pchid = values.get('pchid')
    if pchid and not _HEX_RE.fullmatch(pchid):
        return False
    port = values.get('port')
    if port and port != 'n/a' and not _PORT_RE.fullmatch(port):
        return False
    if values.get('power') == '1' and not pci_id:
        return False
    return True


def pft_of(printed):
    """The kernel's pft value of a PFT cell (``NETH`` -> 0x0c, ``0x0d`` -> 0x0d); None when blank."""
    if printed in TOOL_PFT:
        return TOOL_PFT[printed]
    if printed and re.fullmatch(r'0x[0-9a-fA-F]{1,2}', printed):
        return int(printed, 16)
    return None


def kind_of(pft):
    """The function type name of a pft value (``NETH``, ``ROC2``, ...), ``unknown`` for another or none."""
    if pft is None:
        return UNKNOWN_KIND
    return PFT_NAMES.get(pft, UNKNOWN_KIND)


def _none(value):
    if value in (None, '', 'n/a'):
        return None
    return value


def _convert(values):
    fid = int(values['fid'], 16)
    pnet = _none(values.get('pnet_id'))
    user_set = False
    if pnet is not None and pnet.endswith('*'):
        pnet = pnet[:-1] or None
        user_set = True
    port = _none(values.get('port'))
    vf = None
    vfn = None
    if 'vfn' in values:
        raw = _none(values.get('vfn'))
        if raw is not None and raw.isdigit():
            vfn = int(raw)
            vf = vfn != 0
    else:
        raw = _none(values.get('vf'))
        if raw in ('y', 'n'):
            vf = raw == 'y'
        elif raw is not None and raw.isdigit():
            vfn = int(raw)
            vf = vfn != 0
    pchid = _none(values.get('pchid'))
    if 'pft' in values:
        pft = pft_of(_none(values.get('pft')))
    else:
        pft = OLD_TYPE_PFT.get(values.get('type'))
    result = {
        'fid': fid,
        'power': values['power'] == '1',
        'pci_id': _none(values.get('pci_id')),
        'pchid': pchid.lower() if pchid else None,
        'type': _none(values.get('type')),
        'pft': pft,
        'kind': kind_of(pft),
        'vf': vf,
        'vfn': vfn,
        'port': int(port) if port is not None and not port.startswith('-') else None,
        'pnet_id': pnet,
        'pnet_id_user_set': user_set,
        'net_device': _none(values.get('net_device')),
        'ib_device': _none(values.get('ib_device')),
    }
    extra = dict((key[6:], _none(value)) for key, value in values.items() if key.startswith('extra:'))
    if extra:
        result['extra'] = extra
    return result


def parse(output):
    """Parse smc_rnics output. Returns (layout name, list of function dicts).

    Raises SmcRnicsError when the output has no smc_rnics header or a row cannot be read.
    """
    lines = [line.rstrip('\r\n') for line in (output or '').splitlines()]
    lines = [line for line in lines if line.strip()]
    if not lines:
        raise SmcRnicsError('smc_rnics printed nothing')
    columns = _header_columns(lines[0])
    if columns is None:
        raise SmcRnicsError('not a smc_rnics header: %r' % lines[0])
    name, layout = _layout_for(columns)
    functions = []
    for line in lines[1:]:
        if re.fullmatch(r'-+', line.strip()):
            continue
        values = _walk(line, layout)
        if not _valid(values):
            values = _split(line, layout)
            if values is None or not _valid(values):
                raise SmcRnicsError('cannot read smc_rnics row: %r' % line)
        functions.append(_convert(values))
    return name, functions
