# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Network daemons of an emulated host (runs inside the host: hostinit, Debian's python3, stdlib
only).

NetworkManager and systemd-networkd wait for udev to initialize a link before they manage it, and
no udev runs in the hosts. libudev takes a read-only /sys for a container without udev and reports
every device as initialized, so each daemon runs in a mount namespace of its own in which /sys is
remounted read-only; the rest of the host keeps its writable /sys (the device emulator).
"""

import subprocess

# "$@": the daemon's argv as given, without a shell quoting it
READONLY_SYS = [
    "unshare",
    "--mount",
    "--propagation",
    "private",
    "sh",
    "-c",
    'mount -o remount,bind,ro /sys && exec "$@"',
]


def start_with_readonly_sys(argv, log_path):
    """Start ``argv`` (a daemon that stays in the foreground) in a private mount namespace with a
    read-only /sys; its output is appended to ``log_path``. Returns the Popen (the daemon's PID
    once the shell has exec'd it)."""
    with open(log_path, "ab") as logf:
        return subprocess.Popen(  # pylint: disable=consider-using-with
            READONLY_SYS + ["sh"] + list(argv), stdout=logf, stderr=logf, stdin=subprocess.DEVNULL
        )
