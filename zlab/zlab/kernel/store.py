# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""kernel.json under an flock on kernel.lock; atomic replace: lock-free readers see whole states."""

import contextlib
import fcntl
import json
import os
import threading
import time

STATE_FILE = "kernel.json"
LOCK_FILE = "kernel.lock"

_tlocal = threading.local()


def state_path(state_dir):
    return os.path.join(state_dir, STATE_FILE)


def version_token(state_dir):
    """Changes whenever kernel.json is replaced (used by the FUSE daemon's cache)."""
    try:
        st = os.stat(state_path(state_dir))
    except FileNotFoundError:
        return None
    return (st.st_ino, st.st_mtime_ns, st.st_size)


def touch(state_dir):
    """Change the version token without changing the state (views rebuild their trees)."""
    path = state_path(state_dir)
    try:
        st = os.stat(path)
        os.utime(path, ns=(st.st_atime_ns, max(time.time_ns(), st.st_mtime_ns + 1)))
    except FileNotFoundError:
        pass


def load(state_dir):
    with open(state_path(state_dir), encoding="utf-8") as f:
        return json.load(f)


def save(state_dir, state):
    state["generation"] = state.get("generation", 0) + 1
    tmp = os.path.join(state_dir, ".kernel.json.%d.%d" % (os.getpid(), threading.get_ident()))
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(state, f, sort_keys=True, indent=1)
    os.replace(tmp, state_path(state_dir))


@contextlib.contextmanager
def locked(state_dir):
    """Exclusive lock (re-entrant within a thread)."""
    held = getattr(_tlocal, "held", None)
    if held is None:
        held = _tlocal.held = {}
    key = os.path.abspath(state_dir)
    if held.get(key):
        held[key] += 1
        try:
            yield
        finally:
            held[key] -= 1
        return
    os.makedirs(state_dir, exist_ok=True)
    fd = os.open(os.path.join(state_dir, LOCK_FILE), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        held[key] = 1
        try:
            yield
        finally:
            held[key] = 0
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


_tx = threading.local()


@contextlib.contextmanager
def transaction(state_dir):
    """Load-modify-store under the lock. Nested transactions on the same dir share one state."""
    key = os.path.abspath(state_dir)
    stack = getattr(_tx, "stack", None)
    if stack is None:
        stack = _tx.stack = {}
    if key in stack:
        yield stack[key]
        return
    with locked(state_dir):
        state = load(state_dir)
        stack[key] = state
        try:
            yield state
        except BaseException:
            del stack[key]
            raise
        del stack[key]
        save(state_dir, state)
