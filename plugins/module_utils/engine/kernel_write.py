# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""One value written to a kernel attribute (sysfs, /proc/sys) with one checked, unbuffered write.

Buffered text I/O could retry a write the kernel refused when the file is closed, and apply it
after the error was reported; one os.write either takes the whole value or fails with the errno
the kernel returned. The attribute is named by its host path (``/sys/...``, ``/proc/sys/...``),
resolved below the one host root (``host_files.path``).
"""

import errno
import os

from ansible_collections.s390x.network.plugins.module_utils.engine import host_files


def write_value(path, text):
    """Write ``text`` (str, ASCII, or bytes) to the attribute at host path ``path`` in one write()
    call; raises OSError: the kernel's errno (from open(): with ``filename`` set, from write():
    without), or EIO for a short write."""
    data = text if isinstance(text, bytes) else text.encode("ascii")
    fd = os.open(host_files.path(path), os.O_WRONLY)
    try:
        written = os.write(fd, data)
    finally:
        os.close(fd)
    if written != len(data):
        raise OSError(errno.EIO, "short write to %s (%d of %d bytes)" % (path, written, len(data)))
