# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""FUSE-layer behaviour: passthrough, concurrency, read snapshots, the pure-Python path API."""

import errno
import os
import threading

import pytest

from zlab import kernel

Q = "/sys/devices/qeth/0.0.8200"


def test_real_sysfs_passes_through(host):
    assert host.read("/sys/devices/system/cpu/online") == "0-1\n"
    assert host.read("/sys/kernel/mm/transparent_hugepage/enabled") == "always [madvise] never\n"
    assert "platform" in host.listdir("/sys/bus")
    assert {"ccw", "ccwgroup", "pci"} <= set(host.listdir("/sys/bus"))
    assert host.read("/sys/class/net/lo/mtu") == "65536\n"


def test_namespace_changes_only_in_real_dirs(host):
    # emulated directories: kernfs semantics
    with pytest.raises(PermissionError) as exc:
        open(host.path("/sys/bus/ccw/newfile"), "w").close()
    assert exc.value.errno == errno.EACCES
    with pytest.raises(OSError) as exc:
        os.mkdir(host.path("/sys/devices/qeth/x"))
    assert exc.value.errno == errno.EPERM
    # passed-through real directory: the real file system decides (a tmp dir here)
    p = host.path("/sys/kernel/mm/newdir")
    os.mkdir(p)
    assert os.path.isdir(os.path.join(host.real_sys, "kernel/mm/newdir"))
    os.rmdir(p)


def test_parallel_writers_and_readers(group):
    errors = []

    def worker(val):
        try:
            for _ in range(20):
                group.write(Q + "/buffer_count", str(val))
                assert group.read(Q + "/buffer_count") in ("%d\n" % v for v in range(16, 21))
        except Exception as exc:  # pylint: disable=broad-except
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(16 + i,)) for i in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert kernel.state(group.state_dir)["qeth"]["0.0.8200"]["buffer_count"] in range(16, 21)


def test_concurrent_grouping_only_one_wins(host):
    results = []

    def worker():
        results.append(host.errno_of_write("/sys/bus/ccwgroup/drivers/qeth/group", "0.0.8203,0.0.8204,0.0.8205"))

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == [0, errno.EINVAL, errno.EINVAL, errno.EINVAL]


def test_read_in_small_chunks_is_consistent(group):
    fd = os.open(group.path(Q + "/card_type"), os.O_RDONLY)
    try:
        chunks = []
        while True:
            b = os.read(fd, 3)
            if not b:
                break
            chunks.append(b)
    finally:
        os.close(fd)
    assert b"".join(chunks) == b"HiperSockets\n"


def test_state_change_visible_immediately_to_other_process(group):
    res = group.bash('cat "$S/devices/qeth/0.0.8200/online"')
    assert res.stdout == "0\n"
    kernel.sysfs_write(group.state_dir, "/sys/bus/ccwgroup/devices/0.0.8200/online", "1")
    res = group.bash('cat "$S/devices/qeth/0.0.8200/online"')
    assert res.stdout == "1\n"


def test_pure_api_without_fuse(group):
    sd = group.state_dir
    assert kernel.sysfs_read(sd, "/sys/bus/ccwgroup/devices/0.0.8200/chpid") == b"F0\n"
    with pytest.raises(OSError) as exc:
        kernel.sysfs_write(sd, "/sys/bus/ccwgroup/devices/0.0.8200/layer2", "7")
    assert exc.value.errno == errno.EINVAL
    assert kernel.sysfs_readlink(sd, "/sys/devices/qeth/0.0.8200/cdev1").endswith("/0.0.8201")
    assert "cdev2" in kernel.sysfs_listdir(sd, "/sys/bus/ccwgroup/drivers/qeth/0.0.8200")
    assert not kernel.sysfs_exists(sd, "/sys/devices/qeth/0.0.8203")


def test_held_function_cannot_be_released(host):
    kernel.load_module(host.state_dir, "vfio-pci")
    host.write("/sys/bus/pci/slots/00000605/power", "1")
    dev = "/sys/bus/pci/devices/0605:00:00.0"
    host.write(dev + "/driver_override", "vfio-pci")
    host.write("/sys/bus/pci/drivers/ism/unbind", "0605:00:00.0")
    host.write("/sys/bus/pci/drivers_probe", "0605:00:00.0")
    assert kernel.set_pci_holder(host.state_dir, 0x605, "g1") == "0605:00:00.0"
    assert host.errno_of_write("/sys/bus/pci/slots/00000605/power", "0") == errno.EBUSY
    assert host.errno_of_write("/sys/bus/pci/drivers/vfio-pci/unbind", "0605:00:00.0") == errno.EBUSY
    # every other way to take it from vfio-pci, which a real kernel blocks until QEMU lets go
    assert host.errno_of_write(dev + "/driver/unbind", "0605:00:00.0") == errno.EBUSY
    assert host.errno_of_write(dev + "/remove", "1") == errno.EBUSY
    with pytest.raises(kernel.ModuleError) as info:
        kernel.unload_module(host.state_dir, "vfio-pci")
    assert info.value.errno == errno.EBUSY
    assert os.path.basename(os.readlink(host.path(dev + "/driver"))) == "vfio-pci"
    kernel.set_pci_holder(host.state_dir, 0x605, None)
    host.write("/sys/bus/pci/slots/00000605/power", "0")
    with pytest.raises(OSError):
        kernel.set_pci_holder(host.state_dir, 0x605, "g1")


def test_non_root_reads_but_cannot_write(group):
    import shutil
    import subprocess

    runuser = shutil.which("runuser") or shutil.which("setpriv")
    if not runuser:
        pytest.skip("runuser/setpriv missing")
    p = group.path(Q + "/buffer_count")
    if runuser.endswith("runuser"):
        pre = [runuser, "-u", "nobody", "--"]
    else:
        pre = [runuser, "--reuid=65534", "--regid=65534", "--clear-groups"]
    res = subprocess.run(pre + ["cat", p], capture_output=True, text=True, check=False)
    assert res.stdout == "128\n", res.stderr
    res = subprocess.run(pre + ["sh", "-c", "echo 64 > %s" % p], capture_output=True, text=True, check=False)
    assert res.returncode != 0
    assert "Permission denied" in res.stderr
    assert group.read(Q + "/buffer_count") == "128\n"


def _scan(h, p):
    with os.scandir(h.path(p)) as it:
        return {e.name: e for e in it}


def test_readdir_reports_entry_types(group):
    # kernfs fills d_type (DT_LNK, DT_DIR, DT_REG); os.scandir answers is_symlink()/is_dir()/
    # is_file() from it without a stat, so the answers hold after the entries are gone (with
    # DT_UNKNOWN it would lstat them and find nothing). lsqeth lists only DT_LNK entries.
    links = _scan(group, "/sys/bus/ccwgroup/devices")
    devs = _scan(group, "/sys/devices/qeth")
    attrs = _scan(group, Q)
    net_link = os.path.join(group.real_sys, "class/net/veth9")
    mm_link = os.path.join(group.real_sys, "kernel/mm/zlab-link")
    os.symlink("../../devices/virtual/net/veth9", net_link)
    os.symlink("transparent_hugepage", mm_link)
    try:
        net = _scan(group, "/sys/class/net")  # emulated directory merged with the real one
        mm = _scan(group, "/sys/kernel/mm")  # passed-through real directory
    finally:
        os.unlink(net_link)
        os.unlink(mm_link)
    group.write(Q + "/ungroup", "1")
    assert not group.exists(Q)
    assert links["0.0.8200"].is_symlink()
    assert devs["0.0.8200"].is_dir(follow_symlinks=False)
    assert attrs["online"].is_file(follow_symlinks=False)
    assert attrs["cdev0"].is_symlink()
    assert attrs["blkt"].is_dir(follow_symlinks=False)
    assert net["veth9"].is_symlink()
    assert net["lo"].is_dir(follow_symlinks=False)
    assert mm["zlab-link"].is_symlink()
    assert mm["transparent_hugepage"].is_dir(follow_symlinks=False)
    assert not devs["uevent"].is_dir(follow_symlinks=False)
