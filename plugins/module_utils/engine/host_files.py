# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The host's files, for every module: the one root below which ``/sys``, ``/proc``, ``/etc`` and
``/run`` are read and written, the reader of a kernel attribute (``read_attr``), atomic replacement of a file, a change set that can put the files of
a run back, and the text of a modules-load.d file.

``ROOT`` is ``/`` on a host. Unit tests set it to a directory holding a host tree (``sys/``,
``proc/``, ``etc/``, ``run/``): it is the only thing they change to point the modules at another
tree, and no module has an option for it. ``path(p)`` maps a host path (``/sys/bus/pci/slots``)
below ``ROOT``; every reader and writer of host files calls it (``kernel_write`` too, for kernel
attributes). Paths shown to the user (``commands``, messages) stay host paths.

Facts relied on:

* rename(2) of a file onto another in the same file system is atomic: a reader sees the old or the
  new content, never a mix. The temporary file is therefore created in the target's directory.
* Data written before the rename is on disk only after fsync(2) of the temporary file; without it
  a crash after the rename can leave an empty file.
* The rename is done here, not with ``AnsibleModule.atomic_move``: that one ends the module
  (``fail_json``) or raises a bare ``Exception`` when the rename fails, so a module could not roll
  back what it changed before. As atomic_move does, the temporary file gets the mode, owner and
  SELinux context of an existing file, and a new file the policy's default context
  (``matchpathcon``) when SELinux is enabled; every failure is an OSError.
* systemd-modules-load.service reads ``/etc/modules-load.d/*.conf`` at boot: one kernel module
  name per line; lines starting with ``#`` or ``;`` are comments (modules-load.d(5)).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import os
import stat
import tempfile

try:
    from ansible.module_utils.compat import selinux as _selinux
except ImportError:  # no libselinux on the host
    _selinux = None

ROOT = "/"

#: the mode of a file these modules create (an existing file keeps its own)
FILE_MODE = 0o644
DIR_MODE = 0o755
MODULES_LOAD_DIR = "/etc/modules-load.d"

_MISSING = (errno.ENOENT, errno.ENOTDIR)


def path(p):
    """The host path ``p`` (``/proc/cio_ignore``) as a path below ``ROOT``."""
    if ROOT in ("", "/"):
        return p
    return os.path.join(ROOT, p.lstrip("/"))


def read_text(p):
    """Content of the host file ``p``; None when it does not exist. Other errors raise OSError."""
    try:
        with open(path(p), "r") as handle:
            return handle.read()
    except (IOError, OSError) as exc:
        if exc.errno in _MISSING:
            return None
        raise


#: more than a kernel attribute holds (sysfs gives show() one page): one read gets all of it
_ATTR_READ_SIZE = 65536


def read_kernel_file(real_path, dir_fd=None):
    """The bytes of a one-value kernel file (a sysfs or procfs attribute) at ``real_path``, a path
    already below ``ROOT``, or a name relative to the open directory ``dir_fd`` (reading several
    attributes of one device that way walks its path once, not once per attribute). Read with os.open
    and os.read, not open(): a kernel attribute answers the first read with all it has, so there is
    no isatty ioctl, no fstat and no read at end of file (each is a round trip to the kernel, or to
    a FUSE daemon). Only a read that fills the buffer is followed by another. Raises OSError."""
    fd = os.open(real_path, os.O_RDONLY, dir_fd=dir_fd)
    try:
        chunk = os.read(fd, _ATTR_READ_SIZE)
        chunks = [chunk]
        while len(chunk) == _ATTR_READ_SIZE:
            chunk = os.read(fd, _ATTR_READ_SIZE)
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


#: what reading a kernel attribute answers when there is none to read: no such file or directory,
#: no such device (the device went away), an attribute the driver does not offer now (EINVAL)
_NO_ATTR = _MISSING + (errno.ENODEV, errno.EINVAL)


def read_attr(p):
    """The stripped text of the host's one-value file ``p`` (a sysfs or procfs attribute); None when
    it does not exist or has no value to read (ENOENT, ENOTDIR, ENODEV, EINVAL). Other errors raise
    OSError."""
    try:
        data = read_kernel_file(path(p))
    except (IOError, OSError) as exc:
        if exc.errno in _NO_ATTR:
            return None
        raise
    return data.decode("utf-8", "replace").strip()


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_atomic(p, content, module=None, mode=FILE_MODE):
    """Replace the host file ``p`` with ``content`` (str or bytes): a temporary file in the same
    directory, written and fsync'ed, then renamed over ``p``. An existing file keeps its mode and owner
    (and SELinux context, when ``module`` says SELinux is enabled); a new one gets ``mode`` (None:
    ``0666 & ~umask``).
    Missing directories are created (0755). Raises OSError; ``p`` is unchanged then."""
    real = path(p)
    directory = os.path.dirname(real) or "."
    if not os.path.isdir(directory):
        os.makedirs(directory, DIR_MODE)
    data = content if isinstance(content, bytes) else content.encode("utf-8")
    fd, tmp = tempfile.mkstemp(prefix=".%s." % os.path.basename(real), dir=directory)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            old = os.stat(real)
        except (IOError, OSError) as exc:
            if exc.errno != errno.ENOENT:
                raise
            old = None
        new_mode = (0o666 & ~_umask()) if mode is None else mode
        if old is None:
            os.chmod(tmp, new_mode)
        else:
            os.chmod(tmp, stat.S_IMODE(old.st_mode))
            try:
                os.chown(tmp, old.st_uid, old.st_gid)
            except (IOError, OSError) as exc:
                if exc.errno != errno.EPERM:
                    raise
        if module is not None and module.selinux_enabled():
            _copy_selinux_context(tmp, real, old, new_mode)
        os.rename(tmp, real)
    except BaseException:
        if os.path.lexists(tmp):
            os.unlink(tmp)
        raise


def _copy_selinux_context(tmp, real, old, new_mode):
    """Give ``tmp`` the SELinux context of the file it replaces, or the policy's default context
    for ``real`` when it is new. Raises OSError."""
    if _selinux is None:
        return
    if old is not None:
        dummy, context = _selinux.lgetfilecon_raw(real)
    else:
        try:
            dummy, context = _selinux.matchpathcon(real, stat.S_IFREG | new_mode)
        except OSError as exc:
            if exc.errno == errno.ENOENT:  # the policy has no context for the path: keep the inherited one
                return
            raise
    if context:
        _selinux.lsetfilecon(tmp, context)


def remove(p):
    """Remove the host file ``p``; True when it existed."""
    try:
        os.unlink(path(p))
        return True
    except (IOError, OSError) as exc:
        if exc.errno == errno.ENOENT:
            return False
        raise


def change_text(p, content):
    """A file change as ``commands`` shows it: ``write PATH``, or ``rm PATH`` when ``content`` is None."""
    return ("write %s" % p) if content is not None else ("rm %s" % p)


class FileChanges(object):
    """The host files one run changes, each with the content it had before its first change.

    ``write(p, content)`` replaces ``p`` (``content`` None removes it) after recording what ``p``
    held (None: it did not exist). A write that fails changes nothing (the rename never happened)
    and does not count as done: ``changed`` lists the paths changed, in order. ``restore(p)`` puts
    the recorded content back (removes a file that did not exist); ``restore_text(p)`` is what that
    shows in ``commands``.
    """

    def __init__(self, module=None, mode=FILE_MODE):
        self.module = module
        self.mode = mode
        self.old = {}
        self.changed = []

    def _put(self, p, content):
        if content is None:
            remove(p)
        else:
            write_atomic(p, content, self.module, self.mode)

    def write(self, p, content):
        if p not in self.old:
            self.old[p] = read_text(p)
        self._put(p, content)
        if p not in self.changed:
            self.changed.append(p)

    def restore(self, p):
        self._put(p, self.old[p])

    def restore_text(self, p):
        return change_text(p, self.old[p])


def modules_load_text(header, modules):
    """Text of a modules-load.d file that loads ``modules`` at boot, one name per line (sorted,
    once each) after ``header``, the managed-by comment (``# Managed by ...``); None when there is no
    module to load."""
    names = sorted(set(modules))
    if not names:
        return None
    return header.rstrip("\n") + "\n" + "".join("%s\n" % name for name in names)
