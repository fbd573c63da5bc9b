# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""python3 -m zlab.fusefs --state-dir DIR --mountpoint MNT [--real-sys DIR]
                         [--real-proc-sys-net DIR] [--real-proc DIR [--proc-links DIR]]
                         [--no-allow-other]

Serves MNT/sys, MNT/proc_sys_net, MNT/proc_modules, MNT/osrelease and MNT/proc (the host's /proc:
sysinfo, cio_ignore, cio_settle, cmdline, modules, and with --real-proc every entry of that
procfs as a symlink into --proc-links) for the host whose kernel
state lives in DIR (created by zlab.kernel.boot). Runs in the foreground until unmounted
(fusermount3 -u MNT) or SIGTERM; writes DIR/fuse.pid and logs to DIR/fuse.log.
"""

import argparse
import os
import sys
import time

from ..kernel import set_host_paths
from ..kernel.view import KernelView
from .ops import mount


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="python3 -m zlab.fusefs", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--state-dir", required=True)
    ap.add_argument("--mountpoint", required=True)
    ap.add_argument("--real-sys", default=None, help="sysfs to pass through for everything not emulated")
    ap.add_argument(
        "--real-proc-sys-net", default=None, help="/proc/sys/net of the host's network namespace to pass through"
    )
    ap.add_argument("--real-proc", default=None, help="procfs of the host's pid namespace (MNT/proc links its entries)")
    ap.add_argument(
        "--proc-links",
        default=None,
        help="where MNT/proc's links point (a procfs of the same pid namespace; " "default --real-proc)",
    )
    ap.add_argument("--no-allow-other", action="store_true")
    args = ap.parse_args(argv)

    state_dir = os.path.abspath(args.state_dir)
    logf = open(os.path.join(state_dir, "fuse.log"), "a", buffering=1, encoding="utf-8")

    def log(msg):
        logf.write("%s %s\n" % (time.strftime("%Y-%m-%dT%H:%M:%S"), msg))

    if args.real_proc_sys_net:
        set_host_paths(state_dir, real_proc_sys_net=os.path.abspath(args.real_proc_sys_net))
    view = KernelView(
        state_dir,
        real_sys=os.path.abspath(args.real_sys) if args.real_sys else None,
        real_proc_sys_net=(os.path.abspath(args.real_proc_sys_net) if args.real_proc_sys_net else None),
        log=log,
        real_proc=os.path.abspath(args.real_proc) if args.real_proc else None,
        proc_links=os.path.abspath(args.proc_links) if args.proc_links else None,
    )
    view.snapshot()  # fail early without a booted state
    os.makedirs(args.mountpoint, exist_ok=True)
    with open(os.path.join(state_dir, "fuse.pid"), "w", encoding="ascii") as f:
        f.write("%d\n" % os.getpid())
    log("mounting on %s (real sys %s, real proc/sys/net %s)" % (args.mountpoint, args.real_sys, args.real_proc_sys_net))
    try:
        mount(view, args.mountpoint, foreground=True, log=log, allow_other=not args.no_allow_other)
    finally:
        log("unmounted")
        try:
            os.unlink(os.path.join(state_dir, "fuse.pid"))
        except OSError:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
