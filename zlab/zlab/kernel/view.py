# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""KernelView: path-level access to the emulated trees of one host from snapshots of its state
(used by the FUSE daemon, the pure-Python API and the conformance tests).

    view = KernelView(state_dir, real_sys="/run/zlab/realsys",
                      real_proc_sys_net="/run/zlab/realproc/sys/net")
    view.read("/sys/devices/qeth/0.0.8200/online")          -> b"0\\n"
    view.write("/sys/devices/qeth/0.0.8200/buffer_count", b"128\\n")   # OSError(EPERM) online
"""

import errno
import os
import stat as statmod
import threading
import time

from . import core, faults, hooks, store, vfs
from .paths import PathAccess


class KernelView(PathAccess):
    def __init__(self, state_dir, real_sys=None, real_proc_sys_net=None, log=None, real_proc=None, proc_links=None):
        PathAccess.__init__(
            self,
            state_dir,
            real_sys=real_sys,
            real_proc_sys_net=real_proc_sys_net,
            log=log,
            real_proc=real_proc,
            proc_links=proc_links,
        )
        self._lock = threading.RLock()
        self._token = None
        self._state = None
        self.boot_time = time.time()

    # ---- snapshots -----------------------------------------------------------------------------
    def snapshot(self):
        with self._lock:
            tok = store.version_token(self.state_dir)
            if tok is None:
                raise core.oserr(errno.ENOENT, "no kernel state in %s" % self.state_dir)
            if tok != self._token or self._state is None:
                st = store.load(self.state_dir)
                self._state = st
                self._tree = None
                self._token = tok
            return self._state

    def tree(self):
        with self._lock:
            st = self.snapshot()
            if self._tree is None:
                self._tree = vfs.Builder(self, st).build()
            return self._tree, st

    def invalidate(self):
        with self._lock:
            self._token = None

    def write_node(self, cpath, node, data):
        self.check_fault(cpath)
        if isinstance(node, vfs.Real):
            fd = os.open(node.path, os.O_WRONLY)
            try:
                return os.write(fd, data)
            finally:
                os.close(fd)
        if isinstance(node, vfs.Dir):
            raise core.oserr(errno.EISDIR)
        if not isinstance(node, vfs.File) or node.store is None:
            raise core.oserr(errno.EACCES)
        deferred = None
        try:
            with hooks.transaction(self.state_dir, self.log) as st:
                try:
                    # re-resolve against the fresh state: the node may have gone
                    fresh = vfs.Builder(self, st).build()
                    n = fresh
                    for part in [p for p in cpath.split("/") if p]:
                        n = n.child(part) if isinstance(n, vfs.Dir) else None
                        if n is None:
                            raise core.oserr(errno.ENOENT)
                    if not isinstance(n, vfs.File) or n.store is None:
                        raise core.oserr(errno.EACCES)
                    try:
                        n.store(st, data)
                    except (KeyError, TypeError):
                        raise core.oserr(errno.ENODEV)
                finally:
                    deferred = st.pop("_deferred_errno", None)
        finally:
            self._token = None
        if deferred:
            raise core.oserr(deferred)
        return len(data)

    def check_fault(self, cpath):
        """One write to ``cpath``: consume an injected write fault's turn (raises its errno)."""
        st = self.snapshot()
        if cpath not in st.get("faults", {}).get("write", {}):
            return
        with store.transaction(self.state_dir) as fst:
            code = faults.take_write(faults.section(fst, "write"), cpath)
        self._token = None
        if code is not None:
            raise core.oserr(code, "injected fault")

    # ---- attributes -------------------------------------------------------------------------------
    def getattr(self, path):
        node = self.lookup(path)
        if node is None:
            raise core.oserr(errno.ENOENT)
        return self.node_stat(node)

    def node_stat(self, node):
        now = self.boot_time
        base = {"st_uid": 0, "st_gid": 0, "st_atime": now, "st_mtime": now, "st_ctime": now, "st_nlink": 1}
        if isinstance(node, vfs.Real):
            s = os.lstat(node.path)
            return {
                k: getattr(s, k)
                for k in (
                    "st_mode",
                    "st_uid",
                    "st_gid",
                    "st_size",
                    "st_nlink",
                    "st_atime",
                    "st_mtime",
                    "st_ctime",
                    "st_ino",
                )
            }
        if isinstance(node, vfs.Dir):
            base.update(st_mode=statmod.S_IFDIR | 0o755, st_nlink=2, st_size=0)
        elif isinstance(node, vfs.Link):
            base.update(st_mode=statmod.S_IFLNK | 0o777, st_size=len(node.target))
        else:
            base.update(st_mode=statmod.S_IFREG | node.mode, st_size=node.size)
        return base
