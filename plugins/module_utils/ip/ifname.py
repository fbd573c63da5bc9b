# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Network interface names: the one check of a name given in a module option.

The kernel accepts a name (``dev_valid_name`` in net/core/dev.c) of 1 to IFNAMSIZ - 1 = 15 bytes
that is not ``.`` or ``..`` and has no ``/``, ``:`` or byte its ``isspace()`` takes for white
space (tab, newline, vertical tab, form feed, carriage return, blank and, from its Latin-1 table,
0xa0). This check is stricter in one way: no control or format characters (C0, DEL, C1, the
Unicode format characters such as bidirectional overrides) and no Unicode white space, so that a
name is one visible word in every message, file and log line it reaches.

Everything else the kernel allows is allowed, including ``$``, quotes, ``;``, ``%``, ``\\`` and a
leading ``-``: such a name is data. Code that passes a name on must put it into an argv list (never
a shell line) or escape it for the file it writes.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re
import unicodedata

IFNAMSIZ = 16
NAME_MAX_BYTES = IFNAMSIZ - 1
#: one to fifteen characters, none of them "/", ":" or white space (the byte count is checked apart)
_NAME_RE = re.compile(r"[^/:\s]{1,%d}" % NAME_MAX_BYTES)
#: Unicode categories refused: control, format, surrogate (undecodable bytes), private use, unassigned
_REFUSED_CATEGORIES = ("Cc", "Cf", "Cs", "Co", "Cn")
#: bytes the kernel's isspace() takes for white space
_KERNEL_SPACE = frozenset(b"\t\n\x0b\x0c\r \xa0")

GRAMMAR = (
    "1 to %d bytes, not . or .., no /, :, blanks, control or format characters (the kernel's dev_valid_name)"
    % NAME_MAX_BYTES
)


def ifname_problem(name):
    """Why ``name`` cannot be a network interface name; None when it can."""
    if not isinstance(name, str):
        return "expected a network interface name (%s), got %r" % (GRAMMAR, name)
    reason = None
    try:
        raw = name.encode("utf-8")
    except UnicodeEncodeError:
        raw = None
        reason = "it is not valid UTF-8"
    if reason is None:
        if not name:
            reason = "it is empty"
        elif name in (".", ".."):
            reason = "%s names a directory" % name
        elif len(raw) > NAME_MAX_BYTES:
            reason = "it has %d bytes" % len(raw)
        elif any(unicodedata.category(char) in _REFUSED_CATEGORIES for char in name):
            reason = "it has a control or format character"
        elif not _NAME_RE.fullmatch(name):
            reason = "it has a /, : or white space"
        elif any(byte in _KERNEL_SPACE for byte in bytearray(raw)):
            reason = "its UTF-8 form holds the byte 0xa0, which the kernel takes for white space"
    if reason is None:
        return None
    return "%r is not a network interface name (%s): %s" % (name, GRAMMAR, reason)
