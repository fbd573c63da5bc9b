"""KernelView: path-level access to the emulated trees of one host (used by the FUSE daemon, the
pure-Python API and the conformance tests).

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

from . import core, store, vfs


class KernelView:
    def __init__(self, state_dir, real_sys=None, real_proc_sys_net=None, log=None,
                 real_proc=None, proc_links=None):
        self.state_dir = state_dir
        self.real_sys = real_sys
        self.real_proc_sys_net = real_proc_sys_net
        self.real_proc = real_proc      # the host's procfs: /proc entries shown as links...
        self.proc_links = proc_links    # ...to this procfs path (default real_proc)
        self.log = log
        self._lock = threading.RLock()
        self._token = None
        self._state = None
        self._tree = None
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

    # ---- lookups -------------------------------------------------------------------------------
    def lookup(self, path, root=None):
        """Node at tree path without following links (FUSE semantics); None if absent."""
        if root is None:
            root, _st = self.tree()
        node = root
        parts = [p for p in path.split("/") if p]
        for i, name in enumerate(parts):
            if isinstance(node, vfs.Real):
                p = os.path.join(node.path, *parts[i:])
                return vfs.Real(p) if os.path.lexists(p) else None
            if not isinstance(node, vfs.Dir):
                return None
            node = node.child(name)
            if node is None:
                return None
        return node

    def resolve(self, path, follow_last=True):
        """(canonical tree path, node) following symlinks, like open() on a host path would."""
        parts = [p for p in vfs.tree_path(path).split("/") if p]
        cur = []
        hops = 0
        while parts:
            name = parts.pop(0)
            if name == ".":
                continue
            if name == "..":
                if cur:
                    cur.pop()
                continue
            cur.append(name)
            node = self.lookup("/" + "/".join(cur))
            if node is None:
                raise core.oserr(errno.ENOENT, "/" + "/".join(cur))
            target = None
            if isinstance(node, vfs.Link):
                target = node.target
            elif isinstance(node, vfs.Real) and os.path.islink(node.path):
                target = os.readlink(node.path)
            if target is not None and (parts or follow_last):
                hops += 1
                if hops > 40:
                    raise core.oserr(errno.ELOOP)
                cur.pop()
                if target.startswith("/"):
                    raise core.oserr(errno.ENOENT, "absolute link " + target)
                parts = [p for p in target.split("/") if p] + parts
        cpath = "/" + "/".join(cur)
        return cpath, self.lookup(cpath)

    # ---- file operations (host or tree paths) ----------------------------------------------------
    def read(self, path):
        cp, node = self.resolve(path)
        if isinstance(node, vfs.Real):
            with open(node.path, "rb") as f:
                return f.read()
        if isinstance(node, vfs.Dir):
            raise core.oserr(errno.EISDIR)
        return self.render(cp)

    def render(self, tree_path):
        """Content of the attribute at ``tree_path`` from one consistent snapshot."""
        root, st = self.tree()
        node = self.lookup(tree_path, root)
        if node is None:
            raise core.oserr(errno.ENOENT)
        if not isinstance(node, vfs.File):
            raise core.oserr(errno.EISDIR if isinstance(node, vfs.Dir) else errno.EINVAL)
        try:
            return node.render(st)
        except (KeyError, TypeError):
            raise core.oserr(errno.ENODEV)

    def listdir(self, path):
        _cp, node = self.resolve(path)
        if isinstance(node, vfs.Real):
            return sorted(os.listdir(node.path))
        if not isinstance(node, vfs.Dir):
            raise core.oserr(errno.ENOTDIR)
        return sorted(node.names())

    def readlink(self, path):
        _cp, node = self.resolve(path, follow_last=False)
        if isinstance(node, vfs.Link):
            return node.target
        if isinstance(node, vfs.Real) and os.path.islink(node.path):
            return os.readlink(node.path)
        raise core.oserr(errno.EINVAL)

    def exists(self, path):
        try:
            self.resolve(path)
            return True
        except OSError:
            return False

    def write(self, path, data):
        """One write(2) = one store. Returns len(data) or raises OSError with the kernel's errno."""
        if isinstance(data, str):
            data = data.encode("latin-1")
        cpath, node = self.resolve(path)
        return self.write_node(cpath, node, data)

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
            with store.transaction(self.state_dir) as st:
                st["_state_dir"] = self.state_dir
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
                    st.pop("_state_dir", None)
                    deferred = st.pop("_deferred_errno", None)
        except BaseException:
            core.take_hooks()
            raise
        finally:
            self._token = None
        core.run_hooks(core.take_hooks(), self.log)
        if deferred:
            raise core.oserr(deferred)
        return len(data)

    def check_fault(self, cpath):
        """Consume one injected write fault for ``cpath`` (raises its errno)."""
        st = self.snapshot()
        faults = st.get("faults", {}).get("write", {})
        if cpath not in faults:
            return
        with store.transaction(self.state_dir) as fst:
            f = fst.get("faults", {}).get("write", {}).get(cpath)
            if not f:
                return
            f["count"] -= 1
            code = int(f["errno"])
            if f["count"] <= 0:
                del fst["faults"]["write"][cpath]
        self._token = None
        raise core.oserr(code, "injected fault")

    # ---- attributes -------------------------------------------------------------------------------
    def getattr(self, path):
        node = self.lookup(path)
        if node is None:
            raise core.oserr(errno.ENOENT)
        return self.node_stat(node)

    def node_stat(self, node):
        now = self.boot_time
        base = {"st_uid": 0, "st_gid": 0, "st_atime": now, "st_mtime": now, "st_ctime": now,
                "st_nlink": 1}
        if isinstance(node, vfs.Real):
            s = os.lstat(node.path)
            return {k: getattr(s, k) for k in ("st_mode", "st_uid", "st_gid", "st_size",
                                                "st_nlink", "st_atime", "st_mtime", "st_ctime",
                                                "st_ino")}
        if isinstance(node, vfs.Dir):
            base.update(st_mode=statmod.S_IFDIR | 0o755, st_nlink=2, st_size=0)
        elif isinstance(node, vfs.Link):
            base.update(st_mode=statmod.S_IFLNK | 0o777, st_size=len(node.target))
        else:
            base.update(st_mode=statmod.S_IFREG | node.mode, st_size=node.size)
        return base

    # ---- used by show functions -------------------------------------------------------------
    def netdev_flags(self, st, gid):
        """(IFF_UP, carrier) of the real netdev for a qeth card, None if there is none."""
        if not self.real_sys:
            return None
        base = os.path.join(self.real_sys, "class", "net", core.ifname_for(gid))
        try:
            with open(os.path.join(base, "flags"), encoding="ascii") as f:
                flags = int(f.read().strip(), 16)
        except (OSError, ValueError):
            return None
        carrier = False
        try:
            with open(os.path.join(base, "carrier"), encoding="ascii") as f:
                carrier = f.read().strip() == "1"
        except OSError:
            carrier = False
        return bool(flags & 1), carrier
