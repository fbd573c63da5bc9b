# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""mfusepy operations serving a KernelView: /sys, /proc_sys_net, /proc_modules, /osrelease, /proc.

Semantics kept from kernfs/sysfs:
- every file is direct I/O (no page cache), a read at offset 0 renders the attribute afresh, later
  offsets continue that rendering (seq_file);
- one write(2) is one store; its errno reaches the writer (bash prints "write error: ...");
- truncate (O_TRUNC of ``>``) succeeds and does nothing;
- opening an attribute for writing that has no store (mode 0444) fails with EACCES, reading a
  write-only one (0200: group, ungroup, bind...) fails with EACCES, for root too;
- non-root callers are checked against the mode bits;
- create -> EACCES; mkdir/unlink/rmdir/rename/symlink/link -> EPERM (kernfs has no such iops),
  except inside passed-through real directories, where the real file system decides;
- /proc files (vfs.proc_file) open for root whatever their mode and fail the read or write they
  have no operation for with EIO, as procfs does; /proc/self and /proc/thread-self are links
  computed for the calling thread.
"""

import errno
import itertools
import os
import stat
import threading

import mfusepy

from ..kernel import core, vfs


class SysOps(mfusepy.Operations):
    use_ns = True

    def __init__(self, view, log=None):
        self.view = view
        self.log = log or (lambda msg: None)
        self._handles = {}
        self._next = itertools.count(1)
        self._hlock = threading.Lock()

    # ---- helpers -------------------------------------------------------------------------------
    def _node(self, path):
        node = self.view.lookup(path)
        if node is None:
            raise mfusepy.FuseOSError(errno.ENOENT)
        return node

    def _new_handle(self, h):
        with self._hlock:
            fh = next(self._next)
            self._handles[fh] = h
            return fh

    @staticmethod
    def _caller_uid():
        try:
            return mfusepy.fuse_get_context()[0]
        except Exception:  # pylint: disable=broad-except
            return 0

    # ---- attributes ------------------------------------------------------------------------------
    def getattr(self, path, fh=None):
        node = self._node(path)
        attrs = self.view.node_stat(node)
        for k in ("st_atime", "st_mtime", "st_ctime"):
            attrs[k] = int(attrs[k] * 1e9)
        return attrs

    def access(self, path, amode):
        self._node(path)
        return 0

    def readlink(self, path):
        node = self._node(path)
        if isinstance(node, vfs.SelfLink):
            # /proc/self: FUSE reports the calling thread's id in the daemon's pid namespace
            try:
                return node.target_for(mfusepy.fuse_get_context()[2])
            except Exception:  # pylint: disable=broad-except
                return node.target
        if isinstance(node, vfs.Link):
            return node.target
        if isinstance(node, vfs.Real):
            return os.readlink(node.path)
        raise mfusepy.FuseOSError(errno.EINVAL)

    def readdir(self, path, fh):
        # Entries carry their type (d_type), as kernfs reports them: DT_LNK, DT_DIR, DT_REG
        # (lsqeth lists only the DT_LNK entries of a directory). Offset 0: libfuse buffers the
        # whole listing and passes st_mode's type bits on to the kernel.
        node = self._node(path)
        if isinstance(node, vfs.Real):
            entries = vfs.real_typed_names(node.path)
        elif isinstance(node, vfs.Dir):
            entries = node.typed_names()
        else:
            raise mfusepy.FuseOSError(errno.ENOTDIR)
        return [
            (name, {"st_mode": mode}, 0) for name, mode in [(".", stat.S_IFDIR), ("..", stat.S_IFDIR)] + sorted(entries)
        ]

    def statfs(self, path):
        return {
            "f_bsize": 4096,
            "f_frsize": 4096,
            "f_blocks": 0,
            "f_bfree": 0,
            "f_bavail": 0,
            "f_files": 0,
            "f_ffree": 0,
            "f_namemax": 255,
        }

    # ---- open/read/write ---------------------------------------------------------------------------
    def open(self, path, fi):
        node = self._node(path)
        acc = fi.flags & os.O_ACCMODE
        want_w = acc in (os.O_WRONLY, os.O_RDWR)
        want_r = acc in (os.O_RDONLY, os.O_RDWR)
        if isinstance(node, vfs.Real):
            flags = fi.flags & ~(os.O_CREAT | os.O_EXCL | os.O_TRUNC | os.O_APPEND)
            fd = os.open(node.path, flags)
            h = {"kind": "real", "fd": fd, "path": path}
        elif isinstance(node, vfs.File):
            if want_w and node.store is None:
                raise mfusepy.FuseOSError(errno.EACCES)
            if want_r and node.show is None:
                raise mfusepy.FuseOSError(errno.EACCES)
            uid = self._caller_uid()
            if uid != 0:
                if (want_w and not node.mode & 0o002) or (want_r and not node.mode & 0o004):
                    raise mfusepy.FuseOSError(errno.EACCES)
            h = {"kind": "emu", "path": path, "buf": None}
        elif isinstance(node, vfs.Dir):
            if want_w:
                raise mfusepy.FuseOSError(errno.EISDIR)
            h = {"kind": "dir", "path": path}
        else:
            raise mfusepy.FuseOSError(errno.ELOOP)
        fi.fh = self._new_handle(h)
        fi.direct_io = 1
        fi.keep_cache = 0
        # flush() does nothing (direct_io: every write reached write() already): no FLUSH round
        # trip on each close, which kernfs does not have either
        if hasattr(fi, "noflush"):
            fi.noflush = 1
        return 0

    def _handle(self, fi):
        h = self._handles.get(fi.fh if fi is not None else None)
        if h is None:
            raise mfusepy.FuseOSError(errno.EBADF)
        return h

    def read(self, path, size, offset, fi):
        h = self._handle(fi)
        if h["kind"] == "real":
            return os.pread(h["fd"], size, offset)
        if h["kind"] != "emu":
            raise mfusepy.FuseOSError(errno.EISDIR)
        if offset == 0 or h["buf"] is None:
            h["buf"] = self.view.render(h["path"])
        return h["buf"][offset : offset + size]

    def write(self, path, data, offset, fi):
        h = self._handle(fi)
        if h["kind"] == "real":
            self.view.check_fault(h["path"])  # write_node checks the emulated files
            return os.write(h["fd"], data)
        if h["kind"] != "emu":
            raise mfusepy.FuseOSError(errno.EISDIR)
        node = self._node(h["path"])
        try:
            return self.view.write_node(h["path"], node, bytes(data))
        except OSError as exc:
            self.log("write %s %r: %s" % (h["path"], bytes(data)[:80], exc))
            raise

    def truncate(self, path, length, fh=None):
        self._node(path)
        return 0

    def flush(self, path, fi):
        return 0

    def fsync(self, path, datasync, fi):
        return 0

    def release(self, path, fi):
        with self._hlock:
            h = self._handles.pop(fi.fh, None)
        if h and h["kind"] == "real":
            os.close(h["fd"])
        return 0

    # ---- namespace changes: only in passed-through real directories (e.g. a cgroup fs the lab
    # mounted below the real sysfs); kernfs has no create (EACCES) nor mkdir/unlink/... (EPERM)
    def _real_target(self, path):
        node = self.view.lookup(path)
        if isinstance(node, vfs.Real):
            return node.path
        if node is not None:
            return None
        parent, name = os.path.split(path)
        pnode = self.view.lookup(parent)
        if isinstance(pnode, vfs.Real):
            return os.path.join(pnode.path, name)
        if (
            isinstance(pnode, vfs.Dir) and pnode.real and name not in pnode.entries and not pnode._hidden(name)
        ):  # pylint: disable=protected-access
            return os.path.join(pnode.real, name)
        return None

    def _real_or(self, path, code):
        real = self._real_target(path)
        if real is None:
            raise mfusepy.FuseOSError(code)
        return real

    def create(self, path, mode, fi=None):
        real = self._real_or(path, errno.EACCES)
        fd = os.open(real, fi.flags | os.O_CREAT, mode)
        fi.fh = self._new_handle({"kind": "real", "fd": fd, "path": path})
        fi.direct_io = 1
        return 0

    def mknod(self, path, mode, dev):
        os.mknod(self._real_or(path, errno.EPERM), mode, dev)
        return 0

    def mkdir(self, path, mode):
        os.mkdir(self._real_or(path, errno.EPERM), mode)
        return 0

    def unlink(self, path):
        os.unlink(self._real_or(path, errno.EPERM))
        return 0

    def rmdir(self, path):
        os.rmdir(self._real_or(path, errno.EPERM))
        return 0

    def symlink(self, target, source):
        os.symlink(source, self._real_or(target, errno.EPERM))
        return 0

    def link(self, target, source):
        raise mfusepy.FuseOSError(errno.EPERM)

    def rename(self, old, new):
        os.rename(self._real_or(old, errno.EPERM), self._real_or(new, errno.EPERM))
        return 0

    def chmod(self, path, mode):
        node = self._node(path)
        if isinstance(node, vfs.Real):
            os.chmod(node.path, mode)
        return 0

    def chown(self, path, uid, gid):
        node = self._node(path)
        if isinstance(node, vfs.Real):
            os.chown(node.path, uid, gid, follow_symlinks=False)
        return 0

    def utimens(self, path, times=None):
        self._node(path)
        return 0


#: seconds a name found stays in the host kernel's dentry cache
ENTRY_TIMEOUT = 60.0


def mount(view, mountpoint, foreground=True, log=None, allow_other=True):
    """Serve ``view`` on ``mountpoint`` (blocks until unmounted)."""
    ops = SysOps(view, log=log)
    opts = dict(
        foreground=foreground,
        nothreads=False,
        raw_fi=True,
        fsname="zlab-sysfs",
        direct_io=True,
        # Names found stay cached for ENTRY_TIMEOUT, like kernfs dentries: a path walk does not ask
        # the daemon for every component again. Every operation on a name still goes to the daemon
        # (attributes are never cached, contents are direct_io), which answers from the current
        # state: a name that went away fails with ENOENT at once. Absent names are never cached, so
        # a new device is there for the next lookup.
        attr_timeout=0,
        entry_timeout=ENTRY_TIMEOUT,
        negative_timeout=0,
    )
    if allow_other:
        opts["allow_other"] = True
    mfusepy.FUSE(ops, mountpoint, **opts)


__all__ = ["SysOps", "mount", "core"]
