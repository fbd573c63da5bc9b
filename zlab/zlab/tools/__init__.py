"""Emulated s390 userspace tools of a zlab host.

Each ``zlab/zlab/tools/<name>.py`` has ``main(argv=None) -> int`` and behaves like the upstream tool
(s390-tools: chzdev, lszdev, znetconf, lsqeth; smc-tools v1.8.5: smc_rnics, smcd, smcr, smc_pnet,
smcss, smc_run; pciutils lspci; kmod modprobe, lsmod, modinfo; driverctl).  The lab installs a
wrapper ``/usr/sbin/<name>`` per tool (see docs/dev/zlab-contract.md).

Rules kept by every tool:
- stdlib only, Python 3.9+ (runs under the host image's Debian python3);
- the first action is ``zlab.kernel.consume_tool_fault(state_dir, "<tool>")`` (``_paths.tool_fault``);
- ``/sys``, ``/etc``, ``/proc``, ``/tmp`` are touched with ordinary file I/O through
  ``_paths.path()`` (so errnos come from the FUSE emulator, and env ``ZLAB_ROOT`` can prefix every
  absolute path for conformance tests);
- netlink-backed state (modules, PNET table, SMC statistics, link groups, SMC sockets) goes through
  the ``zlab.kernel`` API on env ``ZLAB_STATE_DIR`` (``_paths.kernel()``).

The chzdev udev rule format (read back by ``zlab.kernel.apply_persistent`` at reboot) lives in
``_udevrules.py`` only.
"""

# Where the real packages install each tool (the lab's wrappers go there; s390-tools and kmod use
# sbin, smc-tools, pciutils use bin).  Debian's merged /usr makes /sbin and /bin links.
TOOLS = {
    "chzdev": "/usr/sbin/chzdev", "lszdev": "/usr/sbin/lszdev", "znetconf": "/usr/sbin/znetconf",
    "lsqeth": "/usr/sbin/lsqeth", "smc_rnics": "/usr/bin/smc_rnics", "smcd": "/usr/bin/smcd",
    "smcr": "/usr/bin/smcr", "smc_pnet": "/usr/bin/smc_pnet", "smcss": "/usr/bin/smcss",
    "smc_run": "/usr/bin/smc_run", "lspci": "/usr/bin/lspci", "modprobe": "/usr/sbin/modprobe",
    "lsmod": "/usr/sbin/lsmod", "modinfo": "/usr/sbin/modinfo", "driverctl": "/usr/sbin/driverctl",
    "rmmod": "/usr/sbin/rmmod", "insmod": "/usr/sbin/insmod", "depmod": "/usr/sbin/depmod",
}
