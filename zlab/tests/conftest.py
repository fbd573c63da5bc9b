# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Shared fixtures of the zlab conformance suite (owned by zlab-kernel; keep stable).

Fixtures
--------
``zfs`` (session): one FUSE daemon (``python3 -m zlab.fusefs``, exactly as the lab starts it)
    serving a temp state dir on a temp mount point, with a *fake* real sysfs and /proc/sys/net
    (see ``FAKE_SYS``) so tests can check what passes through and what is hidden. Unmounted at
    the end even when tests fail. Skips the tests that use it unless root with /dev/fuse and
    mfusepy.

``host`` (function): re-boots the daemon's state with ``LPAR_A`` (the built-in lab's lpar-a:
    rhel8.8, UID checking, HiperSockets F0 40K 0.0.8200-0.0.820f, ISM FID 0x605 UID 0x605 VCHID
    7C8 VF 1) and returns a :class:`Host`. ``boot_host(**overrides)`` (function) re-boots with
    changes, e.g. ``boot_host(kernel_profile="linux6.12", uid_checking=False)``.

``group`` (function): ``host`` with 0.0.8200,0.0.8201,0.0.8202 grouped (offline, layer2 -1).

``Host`` API:
    h.state_dir, h.mnt            state dir and mount point
    h.path("/sys/bus/ccw")        host path -> path under the mount (/sys, /proc/sys/net,
                                  /proc/modules, /proc/sys/kernel/osrelease are mapped)
    h.read(p) -> str              read through FUSE
    h.write(p, data)              one write(2) through FUSE (raises OSError with the errno)
    h.errno_of_write(p, data)     0 or the errno
    h.bash(script) -> CompletedProcess   bash -c with $S = mounted /sys, $P = mounted
                                  /proc/sys/net; stdout/stderr text
    h.root                        a temp dir to use as host root for apply_persistent
    h.env                         env for tools: ZLAB_ROOT=<dir whose sys/proc point at the
                                  mount, etc/ empty per test>, ZLAB_STATE_DIR, PYTHONPATH
    h.zroot                       that ZLAB_ROOT directory
    h.real_sys, h.real_net        the fake real sysfs / proc/sys/net (writable tmp dirs)
    h.state(), h.view()           zlab.kernel.state / zlab.kernel.view of the host
    h.exists(p), h.listdir(p), h.readlink(p), h.read_bytes(p)
Hook scripts placed in ``h.state_dir + "/hooks"`` by a test must be removed by that test.
Tools tests (zlab-tools) may run ``python3 -m zlab.tools.<name>`` with ``h.env``.
"""

import errno
import os
import shutil
import subprocess
import sys
import tempfile
import time

import pytest

ZLAB_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ZLAB_DIR not in sys.path:
    sys.path.insert(0, ZLAB_DIR)

from zlab import kernel  # noqa: E402  pylint: disable=wrong-import-position

LPAR_A = {
    "name": "lpar-a",
    "partition": "LPARA",
    "role": "kvm_host",
    "kernel_profile": "rhel8.8",
    "uid_checking": True,
    "ccw": [
        {"devno": "0.0.82%02x" % i, "chpid": "F0", "chpid_type": "IQD", "frame_size": "40K", "ports": 1}
        for i in range(16)
    ],
    "pci": [
        {
            "fid": 0x605,
            "uid": 0x605,
            "pchid": 0x7C8,
            "pft": 0x05,
            "vfn": 1,
            "port": 0,
            "pnet_id": None,
            "vendor": 0x1014,
            "device": 0x04ED,
            "type": "ism",
        }
    ],
}

# Files of the fake "real" sysfs / proc/sys/net the daemon passes through.
FAKE_SYS = {
    "class/net/lo/mtu": "65536\n",
    "class/net/lo/flags": "0x9\n",
    "devices/system/cpu/online": "0-1\n",
    "devices/pci0000:00/0000:00:1f.0/vendor": "0x8086\n",
    "bus/pci/devices/.keep": "",
    "bus/pci/drivers/e1000e/uevent": "",
    "bus/platform/uevent": "",
    "module/vfio_pci/initstate": "live\n",
    "module/ext4/initstate": "live\n",
    "kernel/mm/transparent_hugepage/enabled": "always [madvise] never\n",
    "kernel/iommu_groups/7/type": "DMA\n",
}
FAKE_NET = {
    "ipv4/tcp_rmem": "4096\t262144\t6291456\n",
    "ipv4/tcp_wmem": "4096\t16384\t4194304\n",
    "core/somaxconn": "4096\n",
    "smc/should_be_hidden": "1\n",
}


def _fuse_usable():
    if os.geteuid() != 0 or not os.path.exists("/dev/fuse"):
        return "needs root and /dev/fuse"
    try:
        import importlib  # pylint: disable=import-outside-toplevel

        importlib.import_module("mfusepy")
    except Exception as exc:  # pylint: disable=broad-except
        return "mfusepy not importable: %s" % exc
    if not shutil.which("fusermount3") and not shutil.which("fusermount"):
        return "fusermount3 missing"
    return None


def _write_tree(base, files):
    for rel, text in files.items():
        p = os.path.join(base, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w", encoding="ascii") as f:
            f.write(text)


def _unmount(mnt):
    for tool in ("fusermount3", "fusermount"):
        if shutil.which(tool):
            if subprocess.run([tool, "-u", mnt], capture_output=True, check=False).returncode == 0:
                return
            subprocess.run([tool, "-uz", mnt], capture_output=True, check=False)
            return
    subprocess.run(["umount", "-l", mnt], capture_output=True, check=False)


class Host:
    MAP = (
        ("/proc/sys/net", "proc_sys_net"),
        ("/proc/modules", "proc_modules"),
        ("/proc/sys/kernel/osrelease", "osrelease"),
        ("/sys", "sys"),
    )

    def __init__(self, base, state_dir, mnt, real_sys, real_net):
        self.base = base
        self.state_dir = state_dir
        self.mnt = mnt
        self.real_sys = real_sys
        self.real_net = real_net
        self.root = os.path.join(base, "root")
        self.zroot = os.path.join(base, "zroot")

    def path(self, p):
        for host, rel in self.MAP:
            if p == host or p.startswith(host + "/"):
                return os.path.join(self.mnt, rel) + p[len(host) :]
        raise ValueError("not an emulated path: %s" % p)

    def read(self, p):
        with open(self.path(p), "rb") as f:
            return f.read().decode("latin-1")

    def read_bytes(self, p):
        with open(self.path(p), "rb") as f:
            return f.read()

    def write(self, p, data):
        if isinstance(data, str):
            data = data.encode()
        fd = os.open(self.path(p), os.O_WRONLY)
        try:
            return os.write(fd, data)
        finally:
            os.close(fd)

    def errno_of_write(self, p, data):
        try:
            self.write(p, data)
            return 0
        except OSError as exc:
            return exc.errno

    def exists(self, p):
        return os.path.lexists(self.path(p))

    def listdir(self, p):
        return sorted(os.listdir(self.path(p)))

    def readlink(self, p):
        return os.readlink(self.path(p))

    def bash(self, script, check=False):
        env = dict(os.environ, S=os.path.join(self.mnt, "sys"), P=os.path.join(self.mnt, "proc_sys_net"), LC_ALL="C")
        return subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env, check=check, timeout=60)

    @property
    def env(self):
        return dict(os.environ, ZLAB_ROOT=self.zroot, ZLAB_STATE_DIR=self.state_dir, PYTHONPATH=ZLAB_DIR)

    def view(self):
        return kernel.view(self.state_dir)

    def state(self):
        return kernel.state(self.state_dir)

    def wait_fresh(self):
        """The daemon reloads the state by mtime; nothing to wait for, kept for symmetry."""
        return None


@pytest.fixture(scope="session")
def zfs():
    why = _fuse_usable()
    if why:
        pytest.skip(why)
    base = tempfile.mkdtemp(prefix="zlab-conf-")
    os.chmod(base, 0o755)  # non-root test users must reach the mount point
    state_dir = os.path.join(base, "state")
    mnt = os.path.join(base, "fs")
    real_sys = os.path.join(base, "realsys")
    real_net = os.path.join(base, "realproc", "sys", "net")
    for d in (state_dir, mnt, real_sys, real_net):
        os.makedirs(d)
    _write_tree(real_sys, FAKE_SYS)
    _write_tree(real_net, FAKE_NET)
    kernel.boot(state_dir, LPAR_A)
    env = dict(os.environ, PYTHONPATH=ZLAB_DIR)
    log = open(os.path.join(base, "daemon.out"), "w", encoding="utf-8")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "zlab.fusefs",
            "--state-dir",
            state_dir,
            "--mountpoint",
            mnt,
            "--real-sys",
            real_sys,
            "--real-proc-sys-net",
            real_net,
        ],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.time() + 20
        while not os.path.isdir(os.path.join(mnt, "sys", "bus")):
            if proc.poll() is not None or time.time() > deadline:
                log.flush()
                with open(os.path.join(base, "daemon.out"), encoding="utf-8") as f:
                    out = f.read()
                pytest.fail("FUSE daemon did not come up: %s" % out)
            time.sleep(0.05)
        # ZLAB_ROOT for tools: sys/ and proc/ pointing into the mount
        zroot = os.path.join(base, "zroot")
        os.makedirs(os.path.join(zroot, "proc", "sys", "kernel"))
        os.makedirs(os.path.join(zroot, "etc"))
        os.symlink(os.path.join(mnt, "sys"), os.path.join(zroot, "sys"))
        os.symlink(os.path.join(mnt, "proc_sys_net"), os.path.join(zroot, "proc", "sys", "net"))
        os.symlink(os.path.join(mnt, "proc_modules"), os.path.join(zroot, "proc", "modules"))
        os.symlink(os.path.join(mnt, "osrelease"), os.path.join(zroot, "proc", "sys", "kernel", "osrelease"))
        yield Host(base, state_dir, mnt, real_sys, real_net)
    finally:
        _unmount(mnt)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def boot_host(zfs):
    """boot_host(**overrides) -> Host, state rebooted with LPAR_A updated by ``overrides``."""

    def _boot(**overrides):
        spec = dict(LPAR_A)
        spec.update(overrides)
        kernel.boot(zfs.state_dir, spec)
        if os.path.isdir(zfs.root):
            shutil.rmtree(zfs.root)
        os.makedirs(zfs.root)
        etc = os.path.join(zfs.zroot, "etc")
        shutil.rmtree(etc, ignore_errors=True)
        os.makedirs(etc)
        return zfs

    return _boot


@pytest.fixture
def host(boot_host):
    return boot_host()


@pytest.fixture
def group(host):
    """host with 0.0.8200 grouped (offline)."""
    host.write("/sys/bus/ccwgroup/drivers/qeth/group", "0.0.8200,0.0.8201,0.0.8202\n")
    return host


def errno_name(code):
    return errno.errorcode.get(code, str(code))
