# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""`zlab fault` without a lab: the fault records (count/after), which paths which mechanism
serves, the FUSE passthrough of zlab.fusefs.faultdir on a temp directory, tool sleeps and the
half-way run of a real tool's wrapper (against a stand-in program), the command line's checks."""

import errno
import json
import os
import subprocess
import sys
import tempfile
import time

import pytest

from zlab import cli, kernel
from zlab.kernel import faults
from zlab.tools._real import chzdev_half

from toolrun import run

ZLAB_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


# ---- records ------------------------------------------------------------------------------------


def test_write_fault_lets_after_writes_through_then_fails_count_times():
    writes = {"/sys/x": faults.new_write(errno.EIO, count=2, after=1)}
    assert [faults.take_write(writes, "/sys/x") for _ in range(4)] == [None, errno.EIO, errno.EIO, None]
    assert writes == {}
    assert faults.take_write(writes, "/sys/other") is None


def test_tool_fault_record_and_turns():
    tools = {"chzdev": faults.new_tool(17, count=1, after=1, sleep=2, half_way=True, stderr="boom")}
    assert faults.take_tool(tools, "chzdev") is None  # the run that works
    assert faults.take_tool(tools, "chzdev") == {"exit_code": 17, "stderr": "boom", "sleep": 2.0, "half_way": True}
    assert tools == {}
    sleepy = {"lszdev": faults.new_tool(None, sleep=1.5)}
    assert faults.take_tool(sleepy, "lszdev")["exit_code"] is None


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({}, "give an exit code, --sleep, or both"),
        ({"sleep": 1, "half_way": True}, "--half-way needs an exit code"),
        ({"sleep": 1, "stderr": "x"}, "--stderr needs an exit code"),
        ({"exit_code": 1, "count": 0}, "count must be >= 1"),
    ],
)
def test_tool_fault_refusals(kwargs, message):
    with pytest.raises(ValueError, match=message):
        faults.new_tool(**kwargs)


@pytest.mark.parametrize(
    "path, target",
    [
        ("/sys/devices/qeth/0.0.8200/online", "emulator"),
        ("/proc/sys/net/smc/wmem", "emulator"),
        ("/proc/cio_ignore", "emulator"),
        ("/etc/udev/rules.d/41-qeth-0.0.8200.rules", "faultdir"),
        ("/etc/sysctl.conf", "faultdir"),
        ("/root/x/../y", "faultdir"),
        ("/proc/sys/kernel/hostname", None),
        ("/dev/null", None),
        ("/run/zlab/kernel/kernel.json", None),
        ("/opt/zlab/zlab/cli.py", None),
        ("/x", None),
        ("/run/x", None),
        ("etc/hosts", None),
    ],
)
def test_write_target(path, target):
    if target is None:
        with pytest.raises(ValueError):
            faults.write_target(path)
    else:
        assert faults.write_target(path) == target


def test_describe_maps_tree_paths_back():
    w = faults.new_write(errno.ENOSPC, count=2, after=1)
    assert (
        faults.describe("write", "/proc_sys_net/smc/wmem", w)
        == "write /proc/sys/net/smc/wmem ENOSPC: 2 left (after 1 that work)"
    )
    t = faults.new_tool(17, sleep=2.5, half_way=True, stderr="x")
    assert faults.describe("tool", "chzdev", t) == "tool chzdev sleep 2.5 s, half way, exit 17: 1 left, stderr 'x'"
    assert (
        faults.describe("tool", "lszdev", faults.new_tool(None, sleep=1)) == "tool lszdev sleep 1 s, then run: 1 left"
    )
    assert faults.describe("service", "libvirtd", {"argv": []}) == "service libvirtd stopped"


@pytest.mark.parametrize(
    "argv, half",
    [
        ("-e qeth 0.0.8200 layer2=1 buffer_count=128", "-e qeth 0.0.8200 layer2=1"),
        ("-a qeth 0.0.8200 online=0 buffer_count=64 layer2=1", "-a qeth 0.0.8200 online=0 buffer_count=64"),
        ("-e qeth 0.0.8200 layer2=1", "-a -e qeth 0.0.8200 layer2=1"),
        ("-d -y qeth 0.0.8200", "-a -d -y qeth 0.0.8200"),
        ("-e -p qeth 0.0.8200 layer2=1", "-e -p qeth 0.0.8200 layer2=1"),
        ("-ea qeth 0.0.8200 layer2=1", "-ea qeth 0.0.8200 layer2=1"),
        ("-p qeth 0.0.8200 -r buffer_count", "-p qeth 0.0.8200 -r buffer_count"),
        ("--by-attrib a=b -e qeth x=1 y=2", "--by-attrib a=b -e qeth x=1"),
    ],
)
def test_chzdev_half_way(argv, half):
    assert " ".join(chzdev_half(argv.split())) == half


def test_emulated_write_fault_after_counts_each_store_once(group):
    # one write(2) through the emulator's FUSE daemon is one turn (not one per check)
    online = "/sys/bus/ccwgroup/devices/0.0.8200/online"
    key = kernel.add_write_fault(group.state_dir, online, errno.EBUSY, count=1, after=1)
    assert key == "/sys/devices/qeth/0.0.8200/online"
    assert group.errno_of_write(online, "1") == 0
    assert group.errno_of_write(online, "0") == errno.EBUSY
    assert group.read(online) == "1\n"
    assert group.errno_of_write(online, "0") == 0
    assert kernel.pending_faults(group.state_dir)["write"] == {}


# ---- zlab.fusefs.faultdir on a temp directory ------------------------------------------------


def _faultdir(host, *args):
    env = dict(host.env, ZLAB_STATE_DIR=host.state_dir)
    proc = subprocess.run(
        [sys.executable, "-m", "zlab.fusefs.faultdir"] + list(args),
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _served(d):
    with open("/proc/self/mountinfo", encoding="utf-8") as f:
        return any(line.split()[4] == d and "zlab-faultdir" in line for line in f)


def _wait_unserved(d, timeout=5.0):
    end = time.monotonic() + timeout
    while _served(d) and time.monotonic() < end:
        time.sleep(0.02)
    return not _served(d)


def _errno(fn):
    try:
        fn()
        return 0
    except OSError as exc:
        return exc.errno


@pytest.fixture
def served(host):
    """A temp directory with old.rules; serve(path) makes zlab.fusefs.faultdir serve it."""
    base = tempfile.mkdtemp(prefix="zlab-faultdir-")
    d = os.path.join(base, "rules.d")
    os.makedirs(d)
    with open(os.path.join(d, "old.rules"), "w", encoding="ascii") as f:
        f.write("old\n")

    def serve(path, code, count=1, after=0):
        res = _faultdir(host, "serve", path)
        kernel.add_write_fault(host.state_dir, res["path"], code, count=count, after=after)
        assert _served(d)
        return res

    serve.dir = d
    serve.base = base
    yield serve
    _faultdir(host, "release")
    _wait_unserved(d)
    subprocess.run(["rm", "-rf", base], check=False)


def _read(path):
    with open(path, encoding="ascii") as f:
        return f.read()


def _write(path, text):
    with open(path, "w", encoding="ascii") as f:
        f.write(text)


def test_faultdir_fails_creation_and_rename_onto_then_goes_away(host, served):
    d = served.dir
    new = os.path.join(d, "x.rules")
    res = served(new, errno.ENOSPC, count=2)
    assert (res["dir"], res["started"]) == (d, True)
    # a new file: open(O_CREAT) fails, nothing is created
    assert _errno(lambda: _write(new, "x\n")) == errno.ENOSPC
    assert not os.path.exists(new)
    # temp file + rename: the temp file is written, the rename onto the path fails
    fd, tmp = tempfile.mkstemp(dir=d)
    os.write(fd, b"x\n")
    os.close(fd)
    assert _errno(lambda: os.rename(tmp, new)) == errno.ENOSPC
    assert sorted(os.listdir(d)) == sorted(["old.rules", os.path.basename(tmp)])
    # both turns used: the directory is the plain one again and the rename works
    assert _wait_unserved(d)
    os.rename(tmp, new)
    assert _read(new) == "x\n"
    pend = kernel.pending_faults(host.state_dir)
    assert (pend["write"], pend["dirs"]) == ({}, {})


def test_faultdir_rewrite_keeps_content_and_after_lets_writes_through(host, served):
    d = served.dir
    old = os.path.join(d, "old.rules")
    served(old, errno.EROFS)
    other = os.path.join(d, "other.rules")
    _write(other, "other\n")  # other files of the directory are unaffected
    assert _read(old) == "old\n"
    # a rename into the served directory from outside crosses a mount
    outside = os.path.join(served.base, "outside")
    _write(outside, "y\n")
    assert _errno(lambda: os.rename(outside, os.path.join(d, "y"))) == errno.EXDEV
    assert _errno(lambda: _write(old, "new\n")) == errno.EROFS
    assert _read(old) == "old\n"
    assert _wait_unserved(d)
    # --after 1: the first rewrite works, the second fails and the file keeps the first
    served(old, errno.EIO, count=1, after=1)
    assert kernel.pending_faults(host.state_dir)["write"][old]["after"] == 1
    _write(old, "one\n")
    assert _errno(lambda: _write(old, "two\n")) == errno.EIO
    assert _read(old) == "one\n"
    assert _wait_unserved(d)
    _write(old, "three\n")
    assert _read(old) == "three\n"


def test_faultdir_passes_through_while_served_and_release_unmounts(host, served):
    d = served.dir
    target = os.path.join(d, "never.rules")
    served(target, errno.EIO, count=5)
    again = _faultdir(host, "serve", os.path.join(d, "old.rules"))
    assert again["started"] is False  # one passthrough per directory
    script = (
        "cd %s && mkdir sub && echo a > sub/a && ln -s old.rules link && cat link && "
        "touch -d '2001-02-03 04:05:06' old.rules && stat -c %%Y old.rules && "
        "truncate -s 2 sub/a && wc -c < sub/a && mv sub/a sub/b && rm -r sub link && "
        "chmod 600 old.rules && stat -c %%a old.rules && sed -i s/old/new/ old.rules && "
        "cat old.rules && ls -A" % d
    )
    res = subprocess.run(
        ["bash", "-c", script], capture_output=True, text=True, check=False, env=dict(os.environ, TZ="UTC")
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["old", "981173106", "2", "600", "new", "old.rules"]
    # truncate by path and symlink onto the faulty path fail too
    assert _errno(lambda: os.truncate(target, 0)) == errno.ENOENT  # absent: the fault waits
    assert _errno(lambda: os.symlink("old.rules", target)) == errno.EIO
    assert kernel.pending_faults(host.state_dir)["write"][target]["count"] == 4
    released = _faultdir(host, "release")
    assert [r["dir"] for r in released] == [d]
    assert _wait_unserved(d)
    assert kernel.pending_faults(host.state_dir)["dirs"] == {}


def test_faultdir_refuses_emulated_and_pseudo_paths(host):
    env = dict(host.env, ZLAB_STATE_DIR=host.state_dir)
    for path in ("/sys/bus/ccw/x", "/proc/sys/kernel/hostname", "/dev/null"):
        proc = subprocess.run(
            [sys.executable, "-m", "zlab.fusefs.faultdir", "serve", path],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert proc.returncode == 1 and proc.stderr.startswith("zlab: "), proc.stderr


# ---- tools ----------------------------------------------------------------------------------


def test_tool_sleep_then_run_normally_or_exit(host):
    normal = run(host, "lsmod")
    kernel.add_tool_fault(host.state_dir, "lsmod", None, sleep=0.5)
    start = time.monotonic()
    slow = run(host, "lsmod")
    assert time.monotonic() - start >= 0.5
    assert (slow.returncode, slow.stdout) == (0, normal.stdout)
    kernel.add_tool_fault(host.state_dir, "lsmod", 17, sleep=0.3, stderr="lsmod: injected")
    start = time.monotonic()
    res = run(host, "lsmod")
    assert time.monotonic() - start >= 0.3
    assert (res.returncode, res.stdout, res.stderr) == (17, "", "lsmod: injected\n")
    assert kernel.pending_faults(host.state_dir)["tool"] == {}


def test_real_tool_wrapper_half_way_runs_part_then_fails(host, tmp_path):
    # a stand-in for the real chzdev: prints the arguments it got
    fake = tmp_path / "chzdev.real"
    fake.write_text("#!/bin/sh\necho \"ran: $*\"\n")
    fake.chmod(0o755)
    env = dict(host.env, ZLAB_STATE_DIR=host.state_dir, PYTHONPATH=ZLAB_DIR)
    code = "import sys; from zlab.tools._real import main; sys.exit(main('chzdev', %r))" % str(fake)

    def chzdev(*args):
        return subprocess.run(
            [sys.executable, "-c", code] + list(args), env=env, capture_output=True, text=True, check=False, timeout=60
        )

    kernel.add_tool_fault(host.state_dir, "chzdev", 17, half_way=True, stderr="chzdev: cut")
    res = chzdev("-e", "qeth", "0.0.8200", "layer2=1", "buffer_count=128")
    assert (res.returncode, res.stdout, res.stderr) == (17, "ran: -e qeth 0.0.8200 layer2=1\n", "chzdev: cut\n")
    kernel.add_tool_fault(host.state_dir, "chzdev", 15)
    res = chzdev("-e", "qeth", "0.0.8200")
    assert (res.returncode, res.stdout) == (15, "")  # a plain fault runs nothing
    res = chzdev("-e", "qeth", "0.0.8200", "layer2=1")
    assert (res.returncode, res.stdout) == (0, "ran: -e qeth 0.0.8200 layer2=1\n")


# ---- command line -------------------------------------------------------------------------------


class FakeLab:
    name = "fx"
    data = {"emulator": True}

    def __init__(self, state_dir):
        self.sd = state_dir

    def host(self, hname):
        return {"index": 0}

    def state_dir(self, hname):
        return self.sd

    def exec(self, *args, **kwargs):
        raise AssertionError("nothing may run in the host: %r" % (args,))


@pytest.mark.parametrize(
    "argv, message",
    [
        (["write", "/proc/sys/kernel/hostname", "EIO"], "fault write: /proc/sys/kernel/hostname"),
        (["write", "/etc/x", "ENOSUCH"], "unknown errno ENOSUCH"),
        (["tool", "nosuch", "1"], "fault tool: zlab wraps "),
        (["tool", "lszdev", "1", "--half-way"], "--half-way is defined for chzdev"),
        (["tool", "chzdev", "--half-way", "--sleep", "1"], "--half-way needs an exit code"),
        (["tool", "chzdev"], "give an exit code, --sleep, or both"),
        (["ssh", "off", "--sleep", "1"], "fault ssh takes no --sleep"),
        (["write", "/sys/x", "EIO", "--stderr", "x"], "fault write takes no --stderr"),
        (["service", "libvirtd"], "fault service takes NAME stop|start"),
        (["list", "x"], "fault list takes no arguments"),
        (["write", "/etc/x", "EIO", "--count", "0"], "fault write: count must be >= 1"),
        (["tool", "chzdev", "x"], "fault tool: EXIT is a number, not x"),
        (["link", "off", "--count", "2"], "fault link takes no --count"),
    ],
)
def test_cli_refusals(host, monkeypatch, argv, message):
    monkeypatch.setattr(cli.Lab, "load", lambda name: FakeLab(host.state_dir))
    args = cli.parser().parse_args(["--lab", "fx", "fault", "solo"] + argv)
    with pytest.raises(cli.LabError, match=message.replace("|", r"\|")):
        cli.cmd_fault(args)
    pend = kernel.pending_faults(host.state_dir)
    assert (pend["write"], pend["tool"]) == ({}, {})


def test_cli_records_tool_and_emulated_write_faults(host, monkeypatch, capsys):
    monkeypatch.setattr(cli.Lab, "load", lambda name: FakeLab(host.state_dir))

    def fault(*argv):
        return cli.cmd_fault(cli.parser().parse_args(["--lab", "fx", "fault", "solo"] + list(argv)))

    fault("tool", "chzdev", "17", "--half-way", "--after", "1", "--stderr", "x")
    fault("tool", "lszdev", "--sleep", "2.5", "--count", "2")
    fault("write", "/sys/bus/ccwgroup/devices/0.0.8200/online", "EIO", "--after", "1")
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "zlab: next 1 run(s) of chzdev on solo do half the work, exit 17 (after 1 that work)",
        "zlab: next 2 run(s) of lszdev on solo sleep 2.5 s, then run normally",
        "zlab: next 1 write(s) to /sys/bus/ccwgroup/devices/0.0.8200/online on solo fail with " "EIO after 1 that work",
    ]
    assert cli._kernel_faults(FakeLab(host.state_dir), "solo") == [  # pylint: disable=protected-access
        "write /sys/bus/ccwgroup/devices/0.0.8200/online EIO: 1 left (after 1 that work)",
        "tool chzdev half way, exit 17: 1 left, stderr 'x' (after 1 that work)",
        "tool lszdev sleep 2.5 s, then run: 2 left",
    ]
