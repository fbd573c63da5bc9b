# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""`zlab fault` on the built-in lab: write faults on /etc files (FUSE passthrough of the
directory) and on /sys with --after, slow tools, half-way chzdev, services, list and clear.
Tests run in file order on one lab."""

import time

from labutil import ansible, in_host, port_open, zlab

RULES = "/etc/udev/rules.d"
# A writer that creates a temp file in the target's directory and renames it onto the target
# (as Ansible's atomic_move and the collection's modules do); prints "renamed" or the errno.
TEMP_RENAME = r"""
import errno, os, sys, tempfile
path, text = sys.argv[1], sys.argv[2]
fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".zlab-test-")
os.write(fd, text.encode())
os.close(fd)
try:
    os.rename(tmp, path)
    print("renamed")
except OSError as exc:
    print(errno.errorcode[exc.errno], "temp kept" if os.path.exists(tmp) else "temp gone")
    os.unlink(tmp)
"""


def _temp_rename(host, path, text):
    return zlab("exec", host, "--", "python3", "-c", TEMP_RENAME, path, text).stdout.strip()


def _served(host):
    """Directories of the host served by zlab.fusefs.faultdir (from its mount table)."""
    out = in_host(host, "grep zlab-faultdir /proc/self/mountinfo", check=False).stdout
    return [line.split()[4] for line in out.splitlines()]


def _wait_unserved(host, timeout=10.0):
    end = time.monotonic() + timeout
    while _served(host) and time.monotonic() < end:
        time.sleep(0.1)
    return _served(host)


def _list(host):
    return zlab("fault", host, "list").stdout.splitlines()


def test_etc_write_fault_fails_creation_and_temp_file_rename(lab):
    path = RULES + "/99-zlab-fault.rules"
    out = zlab("fault", "lpar-b", "write", path, "ENOSPC", "--count", "2").stdout
    assert out.strip() == (
        "zlab: next 2 write(s) to %s on lpar-b fail with ENOSPC (%s served " "through FUSE)" % (path, RULES)
    )
    assert _served("lpar-b") == [RULES]
    assert _list("lpar-b") == ["lpar-b: write %s ENOSPC: 2 left" % path]
    # creating the file: the open fails, nothing is created
    res = in_host("lpar-b", "echo x > %s" % path, check=False)
    assert res.returncode == 1 and "No space left on device" in res.stderr
    assert in_host("lpar-b", "test -e %s" % path, check=False).returncode == 1
    # temp file + rename: the rename onto the path fails, the temp file is still there
    assert _temp_rename("lpar-b", path, "new\n") == "ENOSPC temp kept"
    assert in_host("lpar-b", "test -e %s" % path, check=False).returncode == 1
    # the two turns are used: the directory is the plain one again, writes work
    assert _wait_unserved("lpar-b") == []
    assert _list("lpar-b") == ["lpar-b: no pending faults"]
    assert _temp_rename("lpar-b", path, "new\n") == "renamed"
    assert in_host("lpar-b", "cat %s" % path).stdout == "new\n"


def test_etc_write_fault_on_a_rewrite_keeps_the_content(lab):
    path = RULES + "/98-zlab-fault.rules"
    in_host("lpar-b", "echo old > %s" % path)
    zlab("fault", "lpar-b", "write", path, "EROFS", "--count", "2")
    res = in_host("lpar-b", "echo new > %s" % path, check=False)
    assert res.returncode == 1 and "Read-only file system" in res.stderr
    res = in_host("lpar-b", "sed -i s/old/new/ %s" % path, check=False)
    assert res.returncode != 0 and "Read-only file system" in res.stderr
    assert in_host("lpar-b", "cat %s; ls -A %s | grep -c '^sed' || true" % (path, RULES)).stdout.split() == ["old", "0"]
    assert _wait_unserved("lpar-b") == []
    # --after 1: the first rewrite works, the second fails (EIO) and leaves the first's content
    zlab("fault", "lpar-b", "write", path, "EIO", "--after", "1")
    assert _list("lpar-b") == ["lpar-b: write %s EIO: 1 left (after 1 that work)" % path]
    in_host("lpar-b", "echo one > %s" % path)
    res = in_host("lpar-b", "echo two > %s" % path, check=False)
    assert res.returncode == 1 and "Input/output error" in res.stderr
    assert in_host("lpar-b", "cat %s" % path).stdout == "one\n"
    assert _wait_unserved("lpar-b") == []
    in_host("lpar-b", "echo three > %s" % path)
    assert in_host("lpar-b", "cat %s" % path).stdout == "three\n"


def test_etc_write_fault_reaches_ansible_atomic_move(lab):
    # copy's temp file is in ~/.ansible/tmp: the rename into the served directory is EXDEV,
    # atomic_move copies into a temp file there and renames that onto the path, which fails
    path = RULES + "/97-zlab-fault.rules"
    in_host("lpar-b", "echo old > %s" % path)
    zlab("fault", "lpar-b", "write", path, "EIO")
    args = ["lpar-b", "-m", "ansible.builtin.copy", "-a", "content=new dest=%s" % path]
    res = ansible(lab["inventory"], *args)
    assert res.returncode != 0 and "FAILED" in res.stdout, res.stdout + res.stderr
    assert "Input/output error" in res.stdout, res.stdout
    assert in_host("lpar-b", "cat %s; ls -A %s | grep -c ansible_tmp || true" % (path, RULES)).stdout.split() == [
        "old",
        "0",
    ]
    assert _wait_unserved("lpar-b") == []
    res = ansible(lab["inventory"], *args)
    assert res.returncode == 0 and "CHANGED" in res.stdout, res.stdout + res.stderr
    assert in_host("lpar-b", "cat %s" % path).stdout == "new"


def test_sysfs_write_fault_after_writes_that_work(lab):
    # as the online=1 after a reconfiguration: the first write to online works, the next fails
    d = "/sys/bus/ccwgroup/devices/0.0.8209"
    in_host("lpar-b", "echo 0.0.8209,0.0.820a,0.0.820b > /sys/bus/ccwgroup/drivers/qeth/group")
    zlab("fault", "lpar-b", "write", d + "/online", "EIO", "--after", "1")
    assert _list("lpar-b") == ["lpar-b: write /sys/devices/qeth/0.0.8209/online EIO: 1 left (after 1 that work)"]
    in_host("lpar-b", "echo 1 > %s/online" % d)
    res = in_host("lpar-b", "echo 0 > %s/online" % d, check=False)
    assert res.returncode == 1 and "Input/output error" in res.stderr
    assert in_host("lpar-b", "cat %s/online" % d).stdout == "1\n"
    in_host("lpar-b", "echo 0 > %s/online" % d)
    assert in_host("lpar-b", "cat %s/online" % d).stdout == "0\n"
    assert _list("lpar-b") == ["lpar-b: no pending faults"]


def test_write_fault_paths_that_cannot_be_served(lab):
    for path, why in (
        ("/proc/sys/kernel/hostname", "write faults work on the emulated"),
        ("/dev/null", "write faults work on the emulated"),
        ("/etc/no-such-dir/x", "no directory /etc/no-such-dir"),
    ):
        res = zlab("fault", "lpar-b", "write", path, "EIO", check=False)
        assert res.returncode == 1 and why in res.stderr, res.stderr
    assert _list("lpar-b") == ["lpar-b: no pending faults"]
    assert _served("lpar-b") == []


def _timed(host, *cmd):
    start = time.monotonic()
    res = zlab("exec", host, "--", *cmd, check=False)
    return res, time.monotonic() - start


def test_tool_sleeps_then_runs_or_exits(lab):
    normal = zlab("exec", "lpar-b", "--", "lszdev", "qeth").stdout
    zlab("fault", "lpar-b", "tool", "lszdev", "--sleep", "3")
    assert _list("lpar-b") == ["lpar-b: tool lszdev sleep 3 s, then run: 1 left"]
    res, took = _timed("lpar-b", "lszdev", "qeth")
    assert took >= 3.0
    assert (res.returncode, res.stdout) == (0, normal)
    # an emulated tool, with an exit code
    zlab("fault", "lpar-b", "tool", "smc_rnics", "19", "--sleep", "2", "--stderr", "rnics: slow")
    res, took = _timed("lpar-b", "smc_rnics")
    assert took >= 2.0
    assert (res.returncode, res.stdout, res.stderr) == (19, "", "rnics: slow\n")
    assert _list("lpar-b") == ["lpar-b: no pending faults"]


def _qeth(host, devno):
    d = "/sys/bus/ccwgroup/devices/0.0.%s" % devno
    return in_host(
        host,
        "cat %s/online %s/layer2 %s/buffer_count; cat %s/41-qeth-0.0.%s.rules "
        "2>/dev/null | grep -o '[a-z_0-9]*}=\"[0-9]*\"' || echo no-rule" % (d, d, d, RULES, devno),
    ).stdout.split()


def test_chzdev_half_way_leaves_the_partial_configuration(lab):
    # two settings: the first runs (layer2=1, with -e: online, active and persistent), then 17
    zlab("fault", "lpar-b", "tool", "chzdev", "17", "--half-way", "--stderr", "chzdev: cut")
    res = in_host("lpar-b", "chzdev -e qeth 0.0.8200:0.0.8201:0.0.8202 layer2=1 " "buffer_count=64", check=False)
    assert res.returncode == 17
    assert "QETH device 0.0.8200:0.0.8201:0.0.8202 configured" in res.stdout
    assert res.stderr.endswith("chzdev: cut\n")
    assert _qeth("lpar-b", "8200") == ["1", "1", "128", 'layer2}="1"', 'online}="1"']
    # one setting: only the active configuration (no udev rule)
    zlab("fault", "lpar-b", "tool", "chzdev", "17", "--half-way")
    res = in_host("lpar-b", "chzdev -e qeth 0.0.8203:0.0.8204:0.0.8205 layer2=1", check=False)
    assert res.returncode == 17
    assert _qeth("lpar-b", "8203") == ["1", "1", "128", "no-rule"]
    pers = in_host("lpar-b", "lszdev qeth 0.0.8203 --columns ON,PERS -n").stdout.split()
    assert pers == ["yes", "no"]
    assert _list("lpar-b") == ["lpar-b: no pending faults"]


def _libvirtd(host):
    running = in_host(host, "pgrep -x libvirtd", check=False).returncode == 0
    virsh = in_host(host, "virsh -q list --all --name", check=False)
    return running, virsh.returncode, virsh.stdout.split()


def test_service_stop_and_start(lab):
    assert _libvirtd("lpar-a") == (True, 0, ["g1"])
    assert zlab("fault", "lpar-a", "service", "libvirtd", "stop").stdout == "zlab: lpar-a libvirtd stopped\n"
    running, rc, _ = _libvirtd("lpar-a")
    assert not running and rc != 0
    assert _list("lpar-a") == ["lpar-a: service libvirtd stopped"]
    res = zlab("fault", "lpar-a", "service", "libvirtd", "stop", check=False)
    assert res.returncode == 1 and "libvirtd is not running" in res.stderr
    assert zlab("fault", "lpar-a", "service", "libvirtd", "start").stdout == "zlab: lpar-a libvirtd started\n"
    assert _libvirtd("lpar-a") == (True, 0, ["g1"])
    assert _list("lpar-a") == ["lpar-a: no pending faults"]
    # sshd: the listener stops (connections refused), and comes back
    ip = lab["lab"].hosts["lpar-b"]["ip"]
    zlab("fault", "lpar-b", "service", "sshd", "stop")
    try:
        assert not port_open(ip, timeout=1.5)
    finally:
        zlab("fault", "lpar-b", "service", "sshd", "start")
    assert port_open(ip, timeout=5)


def test_list_and_clear_every_kind(lab):
    path = RULES + "/96-zlab-fault.rules"
    zlab("fault", "lpar-a", "write", path, "EIO", "--count", "3")
    zlab("fault", "lpar-a", "write", "/proc/sys/net/ipv4/tcp_rmem", "EBUSY")
    zlab("fault", "lpar-a", "tool", "chzdev", "17", "--sleep", "1", "--half-way", "--after", "2")
    zlab("fault", "lpar-a", "service", "libvirtd", "stop")
    zlab("fault", "lpar-a", "ssh", "off")
    zlab("fault", "lpar-a", "link", "off")
    assert _list("lpar-a") == [
        "lpar-a: write %s EIO: 3 left" % path,
        "lpar-a: write /proc/sys/net/ipv4/tcp_rmem EBUSY: 1 left",
        "lpar-a: tool chzdev sleep 1 s, half way, exit 17: 1 left (after 2 that work)",
        "lpar-a: service libvirtd stopped",
        "lpar-a: ssh off",
        "lpar-a: link off",
    ]
    status = zlab("status", "--json").stdout
    assert "write /etc/udev/rules.d/96-zlab-fault.rules EIO: 3 left" in status
    assert zlab("fault", "lpar-a", "clear").stdout.splitlines() == [
        "zlab: lpar-a: cleared write %s EIO: 3 left" % path,
        "zlab: lpar-a: cleared write /proc/sys/net/ipv4/tcp_rmem EBUSY: 1 left",
        "zlab: lpar-a: cleared tool chzdev sleep 1 s, half way, exit 17: 1 left " "(after 2 that work)",
        "zlab: lpar-a: cleared service libvirtd (started again)",
        "zlab: lpar-a: cleared ssh off (sshd started)",
        "zlab: lpar-a: cleared link off (management link up)",
        "zlab: lpar-a: %s no longer served for write faults" % RULES,
    ]
    assert _list("lpar-a") == ["lpar-a: no pending faults"]
    assert _served("lpar-a") == []
    in_host("lpar-a", "echo ok > %s && cat %s && rm %s" % (path, path, path))
    assert _libvirtd("lpar-a") == (True, 0, ["g1"])
    assert port_open(lab["lab"].hosts["lpar-a"]["ip"], timeout=5)
    assert zlab("exec", "lpar-a", "--", "chzdev", "--version").returncode == 0
