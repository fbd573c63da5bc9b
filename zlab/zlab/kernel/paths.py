# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""PathAccess: path-level operations on one built tree (lookup, symlink resolution, read, list,
write dispatch). Shared by view.KernelView (snapshots of kernel.json) and udevrun.StateFS (one
in-transaction state), which supply ``tree()`` and ``write_node()``.
"""

import errno
import os

from . import core, vfs


class PathAccess:
    def __init__(self, state_dir, real_sys=None, real_proc_sys_net=None, log=None, real_proc=None, proc_links=None):
        self.state_dir = state_dir
        self.real_sys = real_sys
        self.real_proc_sys_net = real_proc_sys_net
        self.real_proc = real_proc  # the host's procfs: /proc entries shown as links...
        self.proc_links = proc_links  # ...to this procfs path (default real_proc)
        self.log = log
        self._tree = None

    def tree(self):
        """(root node, state) of the tree to access."""
        raise NotImplementedError

    def write_node(self, cpath, node, data):
        """One store to the node at tree path ``cpath``."""
        raise NotImplementedError

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
