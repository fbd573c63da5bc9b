# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Write faults on files outside the emulated trees (``zlab fault HOST write /etc/... ERRNO``).

A host's /etc is a directory of its overlay root: nothing of the lab sits between a writer and
it. To make writes to a file there fail, the file's directory is served by a FUSE passthrough
mounted over it inside the host: every operation goes to the directory underneath (opened before
the mount), except that these operations on a file with a pending write fault (the fault's
``after`` writes first go ahead) fail with its errno:

- open for writing (O_WRONLY, O_RDWR; with O_CREAT, O_TRUNC, O_APPEND or not): the file keeps its
  content, or stays absent (O_TRUNC is applied by the open, so after the check);
- rename onto it from the same directory tree (the last step of a temp file + rename write such
  as Ansible's atomic_move or sed -i): the file keeps its content, the temp file stays where it is;
- creating it by link, symlink or mknod, and truncate(2) by path.

Each failing operation consumes one of the fault's ``count``; once no fault is pending below the
directory, the daemon unmounts it (lazily: open files keep working) and exits. While a directory
is served, a rename into it from outside its tree fails with EXDEV, as between file systems
(atomic_move then copies into a temp file in the directory and renames that). Reads, listing,
unlink, chmod and the other files of the directory are unaffected.

    python3 -m zlab.fusefs.faultdir serve PATH     serve PATH's directory (if not served yet);
                                                   prints {"path": realpath, "dir", "pid"}
    python3 -m zlab.fusefs.faultdir release        unmount every served directory; prints them

Runs inside the host (``ZLAB_STATE_DIR``, default /run/zlab/kernel); the served directories are
kept in the kernel state (``st["faults"]["dirs"]``), which a reboot discards with the mounts.
"""

import argparse
import ctypes
import errno
import json
import os
import stat
import sys
import threading
import time

from ..kernel import faults, store

FSNAME = "zlab-faultdir"
MNT_DETACH = 2
UTIME_NOW, UTIME_OMIT = (1 << 30) - 1, (1 << 30) - 2
_libc = ctypes.CDLL(None, use_errno=True)


def _state_dir():
    return os.environ.get("ZLAB_STATE_DIR", "/run/zlab/kernel")


def _umount(path):
    """Lazy unmount (open files keep working until closed); errno or 0."""
    if _libc.umount2(os.fsencode(path), MNT_DETACH) != 0:
        return ctypes.get_errno()
    return 0


def _alive(pid):
    try:
        os.kill(int(pid), 0)
        return True
    except (OSError, ValueError, TypeError):
        return False


def _attrs(s):
    out = {
        k: getattr(s, k)
        for k in ("st_mode", "st_ino", "st_nlink", "st_uid", "st_gid", "st_size", "st_blocks", "st_blksize", "st_rdev")
    }
    out.update(st_atime=s.st_atime_ns, st_mtime=s.st_mtime_ns, st_ctime=s.st_ctime_ns)
    return out


def _mfusepy():
    import mfusepy  # pylint: disable=import-outside-toplevel

    return mfusepy


class FaultDirOps:
    """Operations of the passthrough (mixed into mfusepy.Operations by :func:`serve_forever`):
    paths are relative to the served directory ``top`` (a host path), reached via ``dirfd``."""

    use_ns = True

    def __init__(self, top, dirfd, state_dir, log=None):
        self.top = top
        self.fd = dirfd
        self.state_dir = state_dir
        self.log = log or (lambda msg: None)
        self._lock = threading.Lock()
        self._token = None
        self._writes = {}

    # ---- faults ---------------------------------------------------------------------------------
    def _host(self, path):
        return self.top if path in ("/", "") else self.top.rstrip("/") + path

    def _pending(self):
        """The pending write faults (re-read when the state file changed)."""
        with self._lock:
            tok = store.version_token(self.state_dir)
            if tok != self._token:
                try:
                    self._writes = store.load(self.state_dir).get("faults", {}).get("write", {})
                except (OSError, ValueError):
                    self._writes = {}
                self._token = tok
            return self._writes

    def check(self, path, what):
        """A write to ``path``: raises the errno of its pending fault (one turn consumed)."""
        key = self._host(path)
        if key not in self._pending():
            return
        with store.transaction(self.state_dir) as st:
            writes = faults.section(st, "write")
            code = faults.take_write(writes, key)
            if code is not None:
                self.log("%s %s: %s (injected)" % (what, key, faults.errno_name(code)))
            dirs = faults.section(st, "dirs")
            if not faults.pending_under(writes, self.top) and dirs.get(self.top) == os.getpid():
                # nothing left to fail here: leave the directory to the file system beneath
                del dirs[self.top]
                err = _umount(self.top)
                self.log("no fault left below %s: unmounted%s" % (self.top, " (%s)" % os.strerror(err) if err else ""))
        if code is not None:
            raise OSError(code, os.strerror(code))

    # ---- helpers ----------------------------------------------------------------------------------
    @staticmethod
    def _rel(path):
        return path.lstrip("/") or "."

    def _own(self, path):
        """New entries belong to the caller (the daemon runs as root)."""
        try:
            uid, gid, _pid = _mfusepy().fuse_get_context()
        except Exception:  # pylint: disable=broad-except
            return
        if uid:
            os.chown(self._rel(path), uid, gid, dir_fd=self.fd, follow_symlinks=False)

    # ---- attributes and directories -----------------------------------------------------------------
    def getattr(self, path, fh=None):
        if fh is not None and path is None:
            return _attrs(os.fstat(fh))
        rel = self._rel(path)
        return _attrs(os.fstat(self.fd) if rel == "." else os.stat(rel, dir_fd=self.fd, follow_symlinks=False))

    def readlink(self, path):
        return os.readlink(self._rel(path), dir_fd=self.fd)

    def readdir(self, path, fh):
        # with the real inode numbers (use_ino) an entry needs its own: d_ino 0 is skipped
        rel = self._rel(path)
        dfd = os.open(rel, os.O_RDONLY | os.O_DIRECTORY, dir_fd=self.fd)
        try:
            out = [
                (name, {"st_ino": s.st_ino, "st_mode": s.st_mode}, 0)
                for name, s in ((".", os.fstat(dfd)), ("..", os.stat("..", dir_fd=dfd)))
            ]
            with os.scandir(dfd) as entries:
                for e in entries:
                    if e.is_symlink():
                        mode = stat.S_IFLNK
                    elif e.is_dir(follow_symlinks=False):
                        mode = stat.S_IFDIR
                    elif e.is_file(follow_symlinks=False):
                        mode = stat.S_IFREG
                    else:
                        mode = stat.S_IFMT(e.stat(follow_symlinks=False).st_mode)
                    out.append((e.name, {"st_ino": e.inode(), "st_mode": mode}, 0))
        finally:
            os.close(dfd)
        return out

    def statfs(self, path):
        s = os.fstatvfs(self.fd)
        return {
            k: getattr(s, k)
            for k in (
                "f_bsize",
                "f_frsize",
                "f_blocks",
                "f_bfree",
                "f_bavail",
                "f_files",
                "f_ffree",
                "f_favail",
                "f_flag",
                "f_namemax",
            )
        }

    def mkdir(self, path, mode):
        os.mkdir(self._rel(path), mode, dir_fd=self.fd)
        self._own(path)
        return 0

    def rmdir(self, path):
        os.rmdir(self._rel(path), dir_fd=self.fd)
        return 0

    def unlink(self, path):
        os.unlink(self._rel(path), dir_fd=self.fd)
        return 0

    def mknod(self, path, mode, dev):
        self.check(path, "mknod")
        os.mknod(self._rel(path), mode, dev, dir_fd=self.fd)
        self._own(path)
        return 0

    def symlink(self, target, source):
        # mfusepy: the link is ``target``, its content ``source``
        self.check(target, "symlink")
        os.symlink(source, self._rel(target), dir_fd=self.fd)
        self._own(target)
        return 0

    def link(self, target, source):
        self.check(target, "link")
        os.link(self._rel(source), self._rel(target), src_dir_fd=self.fd, dst_dir_fd=self.fd, follow_symlinks=False)
        return 0

    def rename(self, old, new):
        self.check(new, "rename onto")
        os.rename(self._rel(old), self._rel(new), src_dir_fd=self.fd, dst_dir_fd=self.fd)
        return 0

    def chmod(self, path, mode):
        os.chmod(self._rel(path), stat.S_IMODE(mode), dir_fd=self.fd)
        return 0

    def chown(self, path, uid, gid):
        os.chown(self._rel(path), uid, gid, dir_fd=self.fd, follow_symlinks=False)
        return 0

    def utimens(self, path, times=None):
        rel = self._rel(path)
        if times is None:
            os.utime(rel, dir_fd=self.fd, follow_symlinks=False)
            return 0
        # libfuse passes UTIME_NOW/UTIME_OMIT as timespecs of second 0
        old = os.stat(rel, dir_fd=self.fd, follow_symlinks=False)
        ns = [
            time.time_ns() if t == UTIME_NOW else o if t == UTIME_OMIT else t
            for t, o in zip(times, (old.st_atime_ns, old.st_mtime_ns))
        ]
        os.utime(rel, ns=tuple(ns), dir_fd=self.fd, follow_symlinks=False)
        return 0

    def truncate(self, path, length, fh=None):
        if fh is not None:
            os.ftruncate(fh, length)  # an open for writing was the write
            return 0
        self.check(path, "truncate")
        fd = os.open(self._rel(path), os.O_WRONLY, dir_fd=self.fd)
        try:
            os.ftruncate(fd, length)
        finally:
            os.close(fd)
        return 0

    # ---- files --------------------------------------------------------------------------------------
    # the kernel positions appends itself (write offsets are explicit)
    @staticmethod
    def _flags(flags):
        return flags & ~(os.O_APPEND | os.O_CREAT | os.O_EXCL | os.O_NOCTTY)

    def open(self, path, flags):
        if flags & os.O_ACCMODE in (os.O_WRONLY, os.O_RDWR):
            self.check(path, "open for writing")
        return os.open(self._rel(path), self._flags(flags), dir_fd=self.fd)

    def create(self, path, mode, flags):
        self.check(path, "create")
        fd = os.open(self._rel(path), self._flags(flags) | os.O_CREAT | (flags & os.O_EXCL), mode, dir_fd=self.fd)
        self._own(path)
        return fd

    def read(self, path, size, offset, fh):
        return os.pread(fh, size, offset)

    def write(self, path, data, offset, fh):
        return os.pwrite(fh, data, offset)

    def flush(self, path, fh):
        return 0

    def fsync(self, path, datasync, fh):
        (os.fdatasync if datasync else os.fsync)(fh)
        return 0

    def release(self, path, fh):
        os.close(fh)
        return 0


def serve_forever(top, dirfd, state_dir, log):
    mfusepy = _mfusepy()

    class Ops(FaultDirOps, mfusepy.Operations):
        pass

    ops = Ops(top, dirfd, state_dir, log=log)
    # no caches: a writer sees every entry as it is now; the kernel checks permissions; the
    # files keep their inode numbers
    mfusepy.FUSE(
        ops,
        top,
        foreground=True,
        nothreads=False,
        allow_other=True,
        default_permissions=True,
        fsname=FSNAME,
        attr_timeout=0,
        entry_timeout=0,
        negative_timeout=0,
        use_ino=True,
    )


def _logger(state_dir):
    f = open(os.path.join(state_dir, "faultdir.log"), "a", buffering=1, encoding="utf-8")

    def log(msg):
        f.write("%s [%d] %s\n" % (time.strftime("%Y-%m-%dT%H:%M:%S"), os.getpid(), msg))

    return log


def _daemon(top, state_dir):
    """Child of `serve`: detach, open the directory, mount over it, serve until unmounted."""
    os.setsid()
    os.closerange(3, 65536)
    null = os.open(os.devnull, os.O_RDWR)
    out = os.open(os.path.join(state_dir, "faultdir.out"), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(null, 0)
    os.dup2(out, 1)
    os.dup2(out, 2)
    os.close(null)
    os.close(out)
    log = _logger(state_dir)
    dirfd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    log("serving %s" % top)
    try:
        serve_forever(top, dirfd, state_dir, log)
    except BaseException as exc:  # pylint: disable=broad-except
        log("failed: %r" % exc)
        os._exit(1)  # pylint: disable=protected-access
    log("%s: the last open file closed, exiting" % top)
    os._exit(0)  # pylint: disable=protected-access


def serve(path, state_dir, timeout=20.0):
    """Serve the directory of ``path`` (resolved as open() would) unless it is served already.
    Returns {"path", "dir", "pid", "started"}; ValueError/RuntimeError with the reason."""
    real = os.path.realpath(path)
    if faults.write_target(real) != "faultdir":
        raise ValueError("%s is %s: its faults are the emulator's" % (path, real))
    top = os.path.dirname(real)
    if not os.path.isdir(top):
        raise ValueError("%s: no directory %s" % (path, top))
    with store.transaction(state_dir) as st:
        dirs = faults.section(st, "dirs")
        pid = dirs.get(top)
        if pid and _alive(pid):
            return {"path": real, "dir": top, "pid": pid, "started": False}
        if pid:
            _umount(top)  # its daemon died: ENOTCONN until unmounted
            del dirs[top]
    before = os.stat(top).st_dev
    child = os.fork()
    if child == 0:
        _daemon(top, state_dir)
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        done, status = os.waitpid(child, os.WNOHANG)
        if done:
            raise RuntimeError(
                "the passthrough of %s exited (%s; see %s)" % (top, status, os.path.join(state_dir, "faultdir.log"))
            )
        try:
            if os.stat(top).st_dev != before:
                break
        except OSError:
            pass
        time.sleep(0.02)
    else:
        os.kill(child, 9)
        raise RuntimeError("the passthrough of %s did not mount in %.0f s" % (top, timeout))
    with store.transaction(state_dir) as st:
        faults.section(st, "dirs")[top] = child
    return {"path": real, "dir": top, "pid": child, "started": True}


def release(state_dir):
    """Unmount every served directory (their daemons exit when the last open file closes)."""
    out = []
    with store.transaction(state_dir) as st:
        dirs = faults.section(st, "dirs")
        for top in sorted(dirs):
            code = _umount(top)
            out.append(
                {"dir": top, "pid": dirs[top], "error": os.strerror(code) if code and code != errno.EINVAL else None}
            )
        dirs.clear()
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m zlab.fusefs.faultdir")
    sub = ap.add_subparsers(dest="action", required=True)
    s = sub.add_parser("serve")
    s.add_argument("path")
    sub.add_parser("release")
    args = ap.parse_args(argv)
    state_dir = _state_dir()
    try:
        res = serve(args.path, state_dir) if args.action == "serve" else release(state_dir)
    except (ValueError, RuntimeError, OSError) as exc:
        print("zlab: %s" % exc, file=sys.stderr)
        return 1
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
