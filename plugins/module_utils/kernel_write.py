# -*- coding: utf-8 -*-
# Copyright: s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""One value written to a kernel attribute (sysfs, /proc/sys) with one checked, unbuffered write.

Buffered text I/O could retry a write the kernel refused when the file is closed, and apply it
after the error was reported; one os.write either takes the whole value or fails with the errno
the kernel returned.
"""

from __future__ import annotations

import errno
import os


def write_value(path, text):
    """Write ``text`` to ``path`` in one write() call; raises OSError (the kernel's errno, or EIO
    for a short write)."""
    data = text.encode("ascii")
    fd = os.open(path, os.O_WRONLY)
    try:
        written = os.write(fd, data)
    finally:
        os.close(fd)
    if written != len(data):
        raise OSError(errno.EIO, "short write to %s (%d of %d bytes)" % (path, written, len(data)))
