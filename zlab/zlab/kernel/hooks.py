# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a state change queues (core.queue_hook, core.queue_udev_run) runs after it committed:

- the RUN programs of udev rules for PCI add events, each event in a transaction of its own (their
  writes are stores, as a real udev's are), then the rest of that event (core.udev_add_finish);
- the netdev hooks ``STATE_DIR/hooks/<name> args...`` that add or remove the lab's real netdevs
  (qeth devices going online or offline; the links of bound Network Express functions, which every
  transaction brings in line with the state at its end: core.sync_pci_links).
"""

import contextlib
import os
import subprocess

from . import core, store, udevrun


@contextlib.contextmanager
def transaction(state_dir, log=None):
    """store.transaction whose queued work runs after the commit (and is dropped on failure).
    ``log``: where a failing netdev hook is reported."""
    try:
        with store.transaction(state_dir) as st:
            st["_state_dir"] = state_dir
            try:
                yield st
                core.sync_pci_links(st)
            finally:
                st.pop("_state_dir", None)
    except BaseException:
        core.take_hooks()
        raise
    run(core.take_hooks(), log)


def run(pending, log=None):
    """Run queued work: the udev events first, in order (what they queue joins the list), then
    the netdev hooks in the order they were queued."""
    pending = list(pending)
    netdev = []
    while pending:
        state_dir, kind, data = pending.pop(0)
        if kind == "udev-run":
            if state_dir:
                try:
                    _udev_event(state_dir, data)
                finally:
                    queued = core.take_hooks()  # dropped with a failed event's changes
                pending.extend(queued)
        else:
            netdev.append((state_dir, data))
    _netdev_hooks(netdev, log)


def _udev_event(state_dir, event):
    with store.transaction(state_dir) as st:
        st["_state_dir"] = state_dir
        st["_udev_run_depth"] = event["depth"]
        try:
            ent = st["pci"].get(event["fid"])
            # another writer may have removed the function between the commit and now
            if ent is None or not ent["configured"] or ent["removed"] or ent["addr"] != event["addr"]:
                return
            for origin, value in event["runs"]:
                status, msgs = udevrun.run(st, ent, value)
                udevrun.log(
                    st,
                    "%s: %s: RUN '%s': exit %d%s"
                    % (os.path.basename(origin), event["addr"], value, status, "".join("; " + m for m in msgs)),
                )
            core.udev_add_finish(st, ent)
            core.sync_pci_links(st)
        finally:
            st.pop("_state_dir", None)
            st.pop("_udev_run_depth", None)


def _netdev_hooks(hooks, log=None):
    """Missing hook files are skipped."""
    ran = set()
    for state_dir, args in hooks:
        if not state_dir:
            continue
        path = os.path.join(state_dir, "hooks", args[0])
        if not os.access(path, os.X_OK):
            continue
        ran.add(state_dir)
        try:
            res = subprocess.run(
                [path] + [str(a) for a in args[1:]], capture_output=True, text=True, timeout=60, check=False
            )
            if res.returncode != 0 and log:
                log(
                    "hook %s %s failed rc=%d: %s"
                    % (args[0], " ".join(map(str, args[1:])), res.returncode, res.stderr.strip())
                )
        except (OSError, subprocess.SubprocessError) as exc:
            if log:
                log("hook %s failed: %s" % (args[0], exc))
    # A hook adds or removes the real netdev that /sys/class/net/<if> and the qeth device's
    # net/<if> are built from. A view may have rebuilt its tree from the new state while the hook
    # ran (the hook's programs look up /sys themselves: libselinux probes /sys/fs/selinux) and
    # would keep it until the next state change: make every view rebuild.
    for state_dir in ran:
        store.touch(state_dir)
