# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Emulated s390 userspace tools of a zlab host.

Each ``zlab/zlab/tools/<name>.py`` has ``main(argv=None) -> int`` and behaves like the upstream tool
(smc-tools v1.8.5: smc_rnics, smcd, smcr, smc_pnet, smcss, smc_run, which have no s390x package
in Debian; pciutils lspci; kmod modprobe, lsmod, modinfo; driverctl). s390-tools are not emulated:
the hosts run Debian's s390x build through qemu-user (``zlab.s390tools``), some of them behind
the wrapper of ``_real.py`` (injected faults, half-way runs).  The lab installs a wrapper
``/usr/sbin/<name>`` per tool (see docs/contributing.md, "Kernel internals").

Rules kept by every tool:
- stdlib only, Python 3.9+ (runs under the host image's Debian python3);
- the first action is ``zlab.kernel.consume_tool_fault(state_dir, "<tool>")`` (``_paths.tool_fault``);
- ``/sys``, ``/etc``, ``/proc``, ``/tmp`` are touched with ordinary file I/O through
  ``_paths.path()`` (so errnos come from the FUSE emulator, and env ``ZLAB_ROOT`` can prefix every
  absolute path for conformance tests);
- netlink-backed state (modules, PNET table, SMC statistics, link groups, SMC sockets) goes through
  the ``zlab.kernel`` API on env ``ZLAB_STATE_DIR`` (``_paths.kernel()``).
"""

# Where the real packages install each tool (the lab's wrappers go there; s390-tools and kmod use
# sbin, smc-tools, pciutils use bin).  Debian's merged /usr makes /sbin and /bin links.
TOOLS = {
    "smc_rnics": "/usr/bin/smc_rnics",
    "smcd": "/usr/bin/smcd",
    "smcr": "/usr/bin/smcr",
    "smc_pnet": "/usr/bin/smc_pnet",
    "smcss": "/usr/bin/smcss",
    "smc_run": "/usr/bin/smc_run",
    "lspci": "/usr/bin/lspci",
    "modprobe": "/usr/sbin/modprobe",
    "lsmod": "/usr/sbin/lsmod",
    "modinfo": "/usr/sbin/modinfo",
    "driverctl": "/usr/sbin/driverctl",
    "rmmod": "/usr/sbin/rmmod",
    "insmod": "/usr/sbin/insmod",
    "depmod": "/usr/sbin/depmod",
}
