# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""daemons.start_with_readonly_sys: the daemon runs with its argv as given in a mount namespace of
its own whose /sys is read-only, and the caller's /sys stays writable."""

import os
import shutil

import pytest

from zlab import daemons


def sys_options():
    with open("/proc/self/mounts", encoding="utf-8") as f:
        for line in f:
            fields = line.split()
            if fields[1] == "/sys":
                return fields[3].split(",")
    return []


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("unshare") is None or "rw" not in sys_options(),
    reason="needs root, unshare and a writable /sys",
)
def test_daemon_sees_a_read_only_sys_and_its_argv(tmp_path):
    log = tmp_path / "daemon.log"
    log.write_text("earlier\n")
    script = 'printf "%s|%s\\n" "$0" "$1"; grep " /sys " /proc/self/mounts'
    proc = daemons.start_with_readonly_sys(["sh", "-c", script, "a b", "c'd $HOME"], str(log))
    assert proc.wait(timeout=30) == 0
    lines = log.read_text().splitlines()
    assert lines[:2] == ["earlier", "a b|c'd $HOME"]
    assert "ro" in lines[2].split()[3].split(",")
    assert "rw" in sys_options()
