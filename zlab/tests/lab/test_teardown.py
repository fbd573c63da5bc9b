# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""`zlab down` removes everything, also after a crash, for an inventory outside the repository."""

import os
import signal
import subprocess
import time

from labutil import LAB_NAME, in_host, tiny_inventory, zlab

CPC = """\
cpc:
  name: TINY
  machine: z15
  uid_checking: [LP1]
  partitions:
    - {name: LP1, mif_id: 1, host: solo}
  hipersockets:
    - {chpid: "E1", frame_size: 16K, control_unit: E100, devices: {first: "7000", count: 3},
       partitions: [LP1]}
"""


def _netns_of(name, listing):
    """The network namespaces of lab ``name`` (``zlab-<lab>-<host>``): not those of another lab whose
    name starts with ``name-`` (a real-kernel lab of the same test run may be up meanwhile)."""
    labs = os.listdir("/var/lib/zlab") if os.path.isdir("/var/lib/zlab") else []
    others = [d for d in labs if d != name and d.startswith(name + "-")]
    mine = []
    for line in listing.splitlines():
        if line.startswith("zlab-%s-" % name) and not any(line.startswith("zlab-%s-" % o) for o in others):
            mine.append(line)
    return mine


def leftovers(name):
    ns = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    mounts = open("/proc/self/mountinfo", encoding="utf-8").read()
    procs = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open("/proc/%s/cmdline" % pid, "rb") as f:
                    if ("/var/lib/zlab/%s/" % name).encode() in f.read():
                        procs.append(pid)
            except OSError:
                pass
    return {
        "netns": _netns_of(name, ns),
        "mounts": [l for l in mounts.splitlines() if "/var/lib/zlab/%s/" % name in l],
        "procs": procs,
        "dir": os.path.exists("/var/lib/zlab/" + name),
    }


EMPTY = {"netns": [], "mounts": [], "procs": [], "dir": False}
CRASH = LAB_NAME + "-crash"  # ZLAB_TEST_LAB names this run's labs


def test_builtin_lab_left_nothing(images):  # runs after test_lab.py's module teardown
    assert leftovers(LAB_NAME) == EMPTY


def test_down_after_crash_leaves_nothing(images, tmp_path):
    inv = tiny_inventory(tmp_path / "tiny", CPC)
    zlab("up", str(inv), "--name", CRASH, lab=None)
    try:
        assert in_host("solo", "ls /sys/bus/ccw/devices", lab=CRASH).stdout.split() == [
            "0.0.7000",
            "0.0.7001",
            "0.0.7002",
        ]
        in_host("solo", "chzdev -e qeth 0.0.7000 && ip link show enc7000", lab=CRASH)
        assert leftovers(CRASH)["netns"]
        # crash: the host's init dies and the lab's record is lost
        from zlab.host import Lab  # pylint: disable=import-outside-toplevel

        crashed = Lab.load(CRASH)
        uplink = "zlab%d" % crashed.slot
        assert subprocess.run(["ip", "link", "show", uplink], capture_output=True).returncode == 0
        pid1 = crashed.hosts["solo"]["pid"]
        from zlab.host import processes_in_netns  # pylint: disable=import-outside-toplevel
        from zlab.processes import pid_alive  # pylint: disable=import-outside-toplevel

        inside = processes_in_netns([crashed.hosts["solo"]["netns"]])
        assert len(inside) >= 3  # init, FUSE daemon, sshd
        os.kill(pid1, signal.SIGKILL)
        os.unlink("/var/lib/zlab/%s/lab.json" % CRASH)
        time.sleep(0.2)
        # the record is gone but the lab's namespaces are left: crashed, not "not up"
        res = zlab("status", CRASH, lab=None)
        assert res.stdout == "lab %s: crashed (zlab down %s)\n" % (CRASH, CRASH)
    finally:
        zlab("down", CRASH, lab=None)
    assert leftovers(CRASH) == EMPTY
    assert [p for p in inside if pid_alive(p)] == []
    # idempotent
    assert zlab("down", CRASH, lab=None).returncode == 0
    # gone: status says so and fails
    res = zlab("status", lab=CRASH, check=False)
    assert res.returncode == 1 and "zlab: lab %s is not up" % CRASH in res.stderr
    assert subprocess.run(["ip", "link", "show", uplink], capture_output=True).returncode != 0
