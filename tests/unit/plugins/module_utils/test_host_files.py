# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The host-file layer: the one root, atomic writes (mode, owner, SELinux context; errors as OSError),
the change set that puts files back, the modules-load.d text."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import os

import pytest


from ansible_collections.s390x.network.plugins.module_utils.engine import host_files
from ansible_collections.s390x.network.plugins.module_utils.engine import kernel_write


class SelinuxModule(object):
    """What write_atomic uses of an AnsibleModule: whether SELinux is enabled."""

    def __init__(self, enabled=False):
        self.enabled = enabled

    def selinux_enabled(self):
        return self.enabled


class FakeSelinux(object):
    """The calls write_atomic makes of ansible.module_utils.compat.selinux, recorded."""

    def __init__(self):
        self.calls = []

    def lgetfilecon_raw(self, path):
        self.calls.append(("lgetfilecon_raw", os.path.basename(path)))
        return [0, "system_u:object_r:udev_rules_t:s0"]

    def matchpathcon(self, path, mode):
        self.calls.append(("matchpathcon", os.path.basename(path), oct(mode)))
        return [0, "system_u:object_r:etc_t:s0"]

    def lsetfilecon(self, path, context):
        # the temporary file, before the rename: its name starts with the target's
        self.calls.append(("lsetfilecon", os.path.basename(path).startswith(".x.conf."), context))
        return 0


def test_path_is_below_the_root(host_root, set_host_root):
    assert host_files.path("/proc/cio_ignore") == os.path.join(str(host_root), "proc", "cio_ignore")
    set_host_root("/")
    assert host_files.path("/proc/cio_ignore") == "/proc/cio_ignore"
    assert host_files.path("relative/name") == "relative/name"


@pytest.mark.parametrize("module", [None, SelinuxModule()], ids=["plain", "module"])
def test_atomic_write_and_remove(host_root, module):
    path = "/etc/sysctl.d/90-smc.conf"
    real = host_root / "etc" / "sysctl.d" / "90-smc.conf"
    host_files.write_atomic(path, "a = 1\n", module)
    assert host_files.read_text(path) == "a = 1\n" and real.read_text() == "a = 1\n"
    assert oct(os.stat(str(real)).st_mode & 0o777) == oct(0o644)
    assert os.listdir(str(real.parent)) == ["90-smc.conf"]  # no temporary file left
    assert host_files.remove(path) is True
    assert host_files.remove(path) is False
    assert host_files.read_text(path) is None


@pytest.mark.parametrize("module", [None, SelinuxModule()], ids=["plain", "module"])
def test_a_replaced_file_keeps_its_mode_a_new_one_gets_the_mode_asked_for(host_root, module):
    real = host_root / "etc" / "x.conf"
    host_files.write_atomic("/etc/x.conf", b"old\n", module, mode=0o600)
    assert oct(os.stat(str(real)).st_mode & 0o777) == oct(0o600)
    os.chmod(str(real), 0o640)
    host_files.write_atomic("/etc/x.conf", "new\n", module)
    assert real.read_text() == "new\n" and oct(os.stat(str(real)).st_mode & 0o777) == oct(0o640)
    stat = os.stat(str(real))
    assert (stat.st_uid, stat.st_gid) == (os.getuid(), os.getgid())
    umask = os.umask(0o027)
    try:
        host_files.write_atomic("/etc/y.conf", "y\n", module, mode=None)
    finally:
        os.umask(umask)
    assert oct(os.stat(str(host_root / "etc" / "y.conf")).st_mode & 0o777) == oct(0o640)


def test_a_refused_rename_is_an_oserror_that_leaves_the_old_file(host_root, monkeypatch):
    # as a read-only or full /etc: the error reaches the caller as OSError (a module can roll
    # back), the old content stays and the temporary file is gone
    real = host_root / "etc" / "x.conf"
    host_files.write_atomic("/etc/x.conf", "old\n")

    def refuse(src, dest):
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(host_files.os, "rename", refuse)
    with pytest.raises(OSError) as info:
        host_files.write_atomic("/etc/x.conf", "new\n", SelinuxModule())
    assert info.value.errno == errno.EROFS
    assert real.read_text() == "old\n"
    assert os.listdir(str(real.parent)) == ["x.conf"]


def test_selinux_context_of_the_old_file_or_the_policy_default(host_root, monkeypatch):
    fake = FakeSelinux()
    monkeypatch.setattr(host_files, "_selinux", fake)
    host_files.write_atomic("/etc/x.conf", "new\n", SelinuxModule(enabled=True), mode=0o644)
    host_files.write_atomic("/etc/x.conf", "newer\n", SelinuxModule(enabled=True))
    host_files.write_atomic("/etc/x.conf", "plain\n", SelinuxModule(enabled=False))
    assert fake.calls == [
        ("matchpathcon", "x.conf", oct(0o100644)),
        ("lsetfilecon", True, "system_u:object_r:etc_t:s0"),
        ("lgetfilecon_raw", "x.conf"),
        ("lsetfilecon", True, "system_u:object_r:udev_rules_t:s0"),
    ]
    assert (host_root / "etc" / "x.conf").read_text() == "plain\n"


def test_a_failing_write_leaves_the_old_file_and_no_temporary_file(host_root, monkeypatch):
    real = host_root / "etc" / "x.conf"
    host_files.write_atomic("/etc/x.conf", "old\n")

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(host_files.os, "fsync", full)
    with pytest.raises(OSError) as info:
        host_files.write_atomic("/etc/x.conf", "new\n")
    assert info.value.errno == errno.ENOSPC
    assert real.read_text() == "old\n" and os.listdir(str(real.parent)) == ["x.conf"]


def test_file_changes_record_the_old_content_and_put_it_back(host_root, monkeypatch):
    host_files.write_atomic("/etc/a.conf", "a old\n")
    files = host_files.FileChanges()
    files.write("/etc/a.conf", "a new\n")
    files.write("/etc/b.conf", "b new\n")
    files.write("/etc/a.conf", None)  # a second change keeps the first old content
    assert files.changed == ["/etc/a.conf", "/etc/b.conf"]
    assert host_files.read_text("/etc/a.conf") is None
    assert [files.restore_text(p) for p in files.changed] == ["write /etc/a.conf", "rm /etc/b.conf"]

    def read_only(path, content, module=None, mode=host_files.FILE_MODE):
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(host_files, "write_atomic", read_only)
    with pytest.raises(OSError):
        files.write("/etc/c.conf", "c\n")
    assert files.changed == ["/etc/a.conf", "/etc/b.conf"]  # the failed write changed nothing
    monkeypatch.undo()

    for path in reversed(files.changed):
        files.restore(path)
    assert host_files.read_text("/etc/a.conf") == "a old\n"
    assert host_files.read_text("/etc/b.conf") is None
    assert (
        host_files.change_text("/etc/x", "") == "write /etc/x" and host_files.change_text("/etc/x", None) == "rm /etc/x"
    )


def test_modules_load_text():
    header = "# Managed by Ansible (s390x.network.x): y.\n"
    assert host_files.modules_load_text(header, {"vfio-pci", "ism_vfio_pci"}) == header + "ism_vfio_pci\nvfio-pci\n"
    assert host_files.modules_load_text(header.rstrip("\n"), ["smc", "smc"]) == header + "smc\n"
    assert host_files.modules_load_text(header, []) is None


def test_kernel_writes_resolve_below_the_root(host_root):
    attr = host_root / "sys" / "bus" / "pci" / "slots" / "00000605" / "power"
    attr.parent.mkdir(parents=True)
    attr.write_text("0\n")
    kernel_write.write_value("/sys/bus/pci/slots/00000605/power", "1\n")
    assert attr.read_text() == "1\n"
    with pytest.raises(OSError) as info:
        kernel_write.write_value("/sys/bus/pci/slots/00000606/power", "1\n")
    assert info.value.errno == errno.ENOENT and info.value.filename == str(attr).replace("00000605", "00000606")


def test_read_attr_is_the_stripped_value_or_none_when_there_is_none(host_root, monkeypatch):
    attr = host_root / "sys" / "class" / "net" / "eth0" / "mtu"
    attr.parent.mkdir(parents=True)
    attr.write_text("1500\n")
    assert host_files.read_attr("/sys/class/net/eth0/mtu") == "1500"
    assert host_files.read_attr("/sys/class/net/eth1/mtu") is None  # ENOENT
    assert host_files.read_attr("/sys/class/net/eth0/mtu/x") is None  # ENOTDIR

    def failing(number):
        def fake_open(path, flags, *args, **kwargs):
            raise OSError(number, os.strerror(number), path)

        return fake_open

    for number in (errno.ENODEV, errno.EINVAL):  # the device went away; nothing to read now
        monkeypatch.setattr(host_files.os, "open", failing(number))
        assert host_files.read_attr("/sys/class/net/eth0/mtu") is None
    for number in (errno.EACCES, errno.EIO):  # anything else is the caller's to report
        monkeypatch.setattr(host_files.os, "open", failing(number))
        with pytest.raises(OSError) as info:
            host_files.read_attr("/sys/class/net/eth0/mtu")
        assert info.value.errno == number


def _counting_reads(monkeypatch):
    sizes = []
    real_read = os.read

    def read(fd, size):
        data = real_read(fd, size)
        sizes.append(len(data))
        return data

    monkeypatch.setattr(host_files.os, "read", read)
    return sizes


def test_a_kernel_file_is_read_with_one_read_unless_the_read_fills_the_buffer(tmp_path, monkeypatch):
    small = tmp_path / "online"
    small.write_bytes(b"1\n")
    big = tmp_path / "big"
    content = bytes(bytearray(range(256))) * 600  # 153600 bytes: two full reads and a short one
    big.write_bytes(content)
    exact = tmp_path / "exact"
    exact.write_bytes(b"x" * 65536)
    sizes = _counting_reads(monkeypatch)
    assert host_files.read_kernel_file(str(small)) == b"1\n"
    assert sizes == [2]
    del sizes[:]
    assert host_files.read_kernel_file(str(big)) == content
    assert sizes == [65536, 65536, 153600 - 2 * 65536]
    del sizes[:]
    assert host_files.read_kernel_file(str(exact)) == b"x" * 65536
    assert sizes == [65536, 0]
    dir_fd = os.open(str(tmp_path), os.O_RDONLY)
    try:
        assert host_files.read_kernel_file("online", dir_fd) == b"1\n"
        with pytest.raises(OSError) as info:
            host_files.read_kernel_file("offline", dir_fd)
        assert info.value.errno == errno.ENOENT
    finally:
        os.close(dir_fd)
