# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""smc_sysctl against a fake /proc/sys of three kernel profiles (RHEL 8.8 4.18, 6.12 and 6.19)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import os

import pytest

from ansible_collections.s390x.network.plugins.module_utils.engine import host_files
from ansible_collections.s390x.network.plugins.module_utils.engine import kernel_write
from ansible_collections.s390x.network.plugins.module_utils.smc import sysctl_file as sfile
from ansible_collections.s390x.network.plugins.modules import smc_sysctl

PROFILES = {
    "rhel8.8": {
        "release": "4.18.0-477.10.1.el8_8.s390x",
        "smc_keys": {},
    },
    "linux6.12": {
        "release": "6.12.0-zlab",
        "smc_keys": {
            "autocorking_size": "65536",
            "smcr_buf_type": "0",
            "smcr_testlink_time": "30",
            "wmem": "65536",
            "rmem": "65536",
            "smcr_max_links_per_lgr": "2",
            "smcr_max_conns_per_lgr": "255",
            "limit_smc_hs": "0",
        },
    },
    # net/smc/smc_sysctl.c of 6.19 with CONFIG_SMC_HS_CTRL_BPF: hs_ctrl reads empty until a BPF
    # smc_hs_ctrl is chosen
    "linux6.19": {"release": "6.19.0-zlab"},
}
PROFILES["linux6.19"]["smc_keys"] = dict(
    PROFILES["linux6.12"]["smc_keys"], smcr_max_send_wr="16", smcr_max_recv_wr="48", hs_ctrl=""
)


class FakeHost(object):
    """A host's /proc/sys, /sys/module and /etc below the host root; modprobe creates net/smc.
    The module's files are its defaults, ``file`` and ``modules_file``."""

    file = "/etc/sysctl.d/90-smc.conf"
    modules_file = "/etc/modules-load.d/smc.conf"

    def __init__(self, root, run_module, profile, smc_available=True):
        self.root = root
        self.run_module = run_module
        self.profile = PROFILES[profile]
        self.proc = root / "proc" / "sys"
        (self.proc / "kernel").mkdir(parents=True)
        (self.proc / "kernel" / "osrelease").write_text(self.profile["release"] + "\n")
        (self.proc / "net" / "ipv4").mkdir(parents=True)
        (self.proc / "net" / "ipv4" / "tcp_rmem").write_text("4096\t131072\t6291456\n")
        (self.proc / "net" / "ipv4" / "tcp_wmem").write_text("4096\t16384\t4194304\n")
        (self.proc / "net" / "core").mkdir()
        (self.proc / "net" / "core" / "rmem_max").write_text("212992\n")
        (self.proc / "net" / "core" / "wmem_max").write_text("212992\n")
        self.sys_module = root / "sys" / "module" / "smc"
        self.smc_available = smc_available
        self.commands = []

    def load(self):
        self.sys_module.mkdir(parents=True)
        smc = self.proc / "net" / "smc"
        smc.mkdir()
        for key, value in self.profile["smc_keys"].items():
            (smc / key).write_text(value + "\n")

    def run_command(self, argv):
        self.commands.append(argv)
        if argv[0].endswith("modprobe"):
            if not self.smc_available:
                return 1, "", "modprobe: FATAL: Module smc not found in directory /lib/modules/x\n"
            if "--dry-run" not in argv and not self.sys_module.exists():
                self.load()
            return 0, "", ""
        raise AssertionError("unexpected command %r" % argv)

    def live(self, key):
        path = host_files.path(sfile.proc_path(key))
        return open(path).read().strip() if os.path.exists(path) else None

    @staticmethod
    def read(path):
        return host_files.read_text(path)

    @staticmethod
    def exists(path):
        return os.path.exists(host_files.path(path))

    def run(self, check_mode=False, diff=True, **args):
        return self.run_module(smc_sysctl.main, args, self.run_command, check_mode=check_mode, diff=diff)


@pytest.fixture
def new_host(host_root, run_module):
    """``new_host(profile, smc_available=True)``: a FakeHost of that kernel profile."""
    return lambda profile, **kw: FakeHost(host_root, run_module, profile, **kw)


def test_rhel88_uses_tcp_defaults_and_is_idempotent(new_host):
    host = new_host("rhel8.8")
    first = host.run(rmem="128K", wmem="128K")
    assert not first.failed, first.result
    res = first.result
    assert host.commands == [["/usr/sbin/modprobe", "smc"]]
    assert res["changed"] is True
    assert (res["method"], res["method_source"]) == ("tcp", "presence")
    assert res["sysctls"] == {"net.ipv4.tcp_rmem": "4096 262144 6291456", "net.ipv4.tcp_wmem": "4096 262144 4194304"}
    assert (res["effective_rmem"], res["effective_wmem"]) == (131072, 131072)
    assert host.live("net.ipv4.tcp_rmem") == "4096 262144 6291456"
    assert sorted(res["applied"]) == ["net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"]
    assert res["before"]["live"]["net.ipv4.tcp_rmem"] == "4096 131072 6291456"
    assert sfile.parse(host.read(host.file)) == res["sysctls"]
    assert host.read(host.modules_file) == sfile.MODULES_LOAD_HEADER + "smc\n"
    assert oct(os.stat(host_files.path(host.file)).st_mode & 0o777) == oct(0o644)
    assert any("every TCP socket" in w for w in res["warnings"])
    assert len(res["diff"]) == 2

    second = host.run(rmem="128K", wmem="128K")
    assert second.result["changed"] is False
    assert second.result["applied"] == [] and second.result["diff"] == []
    assert host.commands == [["/usr/sbin/modprobe", "smc"]]  # already loaded: no second modprobe


def test_linux612_uses_net_smc_and_settings(new_host):
    host = new_host("linux6.12")
    res = host.run(rmem="128K", wmem="256K", settings={"smcr_testlink_time": 10, "net.smc.limit_smc_hs": "1"}).result
    assert res["method"] == "net.smc"
    assert res["sysctls"] == {
        "net.smc.rmem": "131072",
        "net.smc.wmem": "262144",
        "net.smc.smcr_testlink_time": "10",
        "net.smc.limit_smc_hs": "1",
    }
    assert host.live("net.smc.rmem") == "131072" and host.live("net.smc.limit_smc_hs") == "1"
    assert host.live("net.ipv4.tcp_rmem") == "4096\t131072\t6291456"  # TCP untouched
    assert (res["effective_rmem"], res["effective_wmem"]) == (131072, 262144)
    assert res["warnings"] == []
    # drift: someone changes the live value and edits the file
    (host.proc / "net" / "smc" / "rmem").write_text("65536\n")
    with open(host_files.path(host.file), "a") as handle:
        handle.write("net.smc.autocorking_size = 1\n")
    check = host.run(
        check_mode=True, rmem="128K", wmem="256K", settings={"smcr_testlink_time": 10, "net.smc.limit_smc_hs": "1"}
    ).result
    assert check["changed"] is True and check["applied"] == ["net.smc.rmem"]
    assert host.live("net.smc.rmem") == "65536"  # check mode changed nothing
    assert "autocorking_size" in check["diff"][0]["before"] and "autocorking_size" not in check["diff"][0]["after"]
    assert check["drift"] == [  # the file and the live value are separate rows
        {"kind": "sysctl", "object": "smc sysctls", "scope": "active", "difference": "net.smc.rmem 65536 -> 131072"},
        {
            "kind": "sysctl",
            "object": "smc sysctls",
            "scope": "persistent",
            "difference": "net.smc.autocorking_size 1 -> -",
        },
    ]
    assert check["commands"] == ["echo 131072 > %s" % sfile.proc_path("net.smc.rmem"), "write %s" % host.file]
    fixed = host.run(rmem="128K", wmem="256K", settings={"smcr_testlink_time": 10, "net.smc.limit_smc_hs": "1"}).result
    assert fixed["changed"] is True and host.live("net.smc.rmem") == "131072"
    assert "autocorking_size" not in host.read(host.file)


def test_check_mode_before_smc_is_loaded_decides_from_the_release(new_host):
    host = new_host("linux6.12")
    res = host.run(check_mode=True, rmem="1M", wmem="1M", protocol="smcd").result
    assert res["changed"] is True
    assert (res["method"], res["method_source"]) == ("net.smc", "osrelease")
    assert host.commands == [["/usr/sbin/modprobe", "--dry-run", "smc"]]
    assert not host.exists(host.file) and not host.sys_module.exists()
    assert res["effective_rmem"] == 1048576
    assert res["not_present"] == ["net.smc.rmem", "net.smc.wmem"]


def test_capped_and_rounded_warnings(new_host):
    host = new_host("linux6.12")
    res = host.run(rmem="2M", wmem=100000).result
    assert res["effective_rmem"] == 1048576 and res["effective_wmem"] == 131072
    assert any("at most 1M" in w for w in res["warnings"])
    assert any("rounds it up to 128K" in w for w in res["warnings"])


@pytest.mark.parametrize(
    "args,msg",
    [
        ({"rmem": 10}, "below the SMC minimum"),
        ({"rmem": "2G"}, "above the largest value"),
        ({"rmem": "128K", "settings": {"turbo": 1}}, "unknown key"),
        ({"settings": {"smcr_max_conns_per_lgr": 300}}, "range 16..255"),
        ({"settings": {"rmem": 131072}}, "use the rmem option"),
        ({"rmem": "128K", "tcp_rmem_min": "1M"}, "tcp_rmem_min"),
    ],
)
def test_bad_input_changes_nothing(new_host, args, msg):
    host = new_host("rhel8.8")
    out = host.run(**args)
    assert out.failed and msg in out.result["msg"]
    assert host.commands == [] and not host.exists(host.file)
    assert host.live("net.ipv4.tcp_rmem") == "4096\t131072\t6291456"


def test_kernel_without_smc_writes_nothing(new_host):
    # nothing in the host's module tree or /boot says anything; modprobe smc failing then decides
    host = new_host("rhel8.8", smc_available=False)
    out = host.run(rmem="128K", wmem="128K")
    res = out.result
    assert not out.failed and res["changed"] is False
    assert res["kernel_smc"]["available"] is False and res["method_source"] == "no smc"
    assert any(
        w.startswith(
            "SMC not built into this kernel (4.18.0-477.10.1.el8_8.s390x): modprobe smc failed: modprobe: FATAL"
        )
        and w.endswith("; smc_sysctl wrote nothing")
        for w in res["warnings"]
    )
    assert not host.exists(host.file) and not host.exists(host.modules_file)
    assert host.live("net.ipv4.tcp_rmem") == "4096\t131072\t6291456"
    required = host.run(rmem="128K", require_smc=True)
    assert required.failed and required.result["msg"].startswith("SMC not built into this kernel")
    assert required.result["msg"].endswith("(require_smc=true); nothing was written")
    assert not host.exists(host.file)


def test_a_module_tree_without_smc_is_decided_before_modprobe(new_host, host_root):
    host = new_host("linux6.19")
    tree = host_root / "lib/modules/6.19.0-zlab"
    tree.mkdir(parents=True)
    (tree / "modules.dep").write_text("kernel/drivers/infiniband/core/ib_core.ko.xz:\n")
    (tree / "modules.builtin").write_text("kernel/drivers/dibs/dibs.ko\n")
    out = host.run(rmem="128K", check_mode=True)
    assert host.commands == [] and out.result["kernel_smc"]["state"] == "not built"
    out = host.run(rmem="128K", settings={"smcr_max_send_wr": 64})
    assert host.commands == [] and not host.exists(host.file) and not host.exists(host.modules_file)


def test_an_installed_smc_that_fails_to_load_still_decides_from_the_release(new_host, host_root):
    host = new_host("rhel8.8", smc_available=False)
    tree = host_root / "lib/modules/4.18.0-477.10.1.el8_8.s390x"
    tree.mkdir(parents=True)
    (tree / "modules.dep").write_text("kernel/net/smc/smc.ko.xz: kernel/drivers/infiniband/core/ib_core.ko.xz\n")
    res = host.run(rmem="128K", wmem="128K").result
    assert (res["method"], res["method_source"]) == ("tcp", "osrelease")
    assert res["smc_loaded"] is False and res["kernel_smc"]["state"] == "module"
    assert any("cannot load smc" in w for w in res["warnings"])
    required = host.run(rmem="128K", require_smc=True)
    assert required.failed and "cannot load smc" in required.result["msg"]


def test_state_absent_removes_the_files(new_host):
    host = new_host("linux6.12")
    host.run(rmem="128K")
    res = host.run(state="deleted").result
    assert res["changed"] is True and not host.exists(host.file) and not host.exists(host.modules_file)
    assert res["commands"] == ["rm %s" % host.file, "rm %s" % host.modules_file]
    assert host.run(state="absent").result["changed"] is False  # the name of earlier releases


def test_effective_without_sizes_reports_the_current_values(new_host):
    host = new_host("rhel8.8")
    res = host.run(settings={}).result
    # RHEL 8 defaults: 131072/2 -> 64 KiB, 16384/2 -> 16 KiB, as the study's chapter 7.3 shows
    assert (res["effective_rmem"], res["effective_wmem"]) == (65536, 16384)
    assert res["sysctls"] == {}


def test_core_mem_max_for_per_application_buffers(new_host):
    host = new_host("linux6.12")
    res = host.run(rmem="128K", core_rmem_max="1M", core_wmem_max=524288).result
    assert res["sysctls"]["net.core.rmem_max"] == "1048576"
    assert host.live("net.core.rmem_max") == "1048576" and host.live("net.core.wmem_max") == "524288"
    bad = host.run(core_rmem_max="3G")
    assert bad.failed and "core_rmem_max" in bad.result["msg"]


def test_core_mem_max_as_lower_bounds_keeps_a_larger_value(new_host):
    host = new_host("linux6.12")
    host.run(rmem="128K", core_rmem_max="4M", core_wmem_max="256K")
    res = host.run(rmem="128K", core_rmem_max="1M", core_wmem_max="1M", core_mem_max_at_least=True).result
    assert host.live("net.core.rmem_max") == "4194304" and host.live("net.core.wmem_max") == "1048576"
    assert res["sysctls"]["net.core.rmem_max"] == "4194304"
    again = host.run(rmem="128K", core_rmem_max="1M", core_wmem_max="1M", core_mem_max_at_least=True).result
    assert again["changed"] is False
    # as exact values the same options lower the larger one
    exact = host.run(rmem="128K", core_rmem_max="1M", core_wmem_max="1M").result
    assert exact["changed"] and host.live("net.core.rmem_max") == "1048576"


def test_kernel_refusing_a_value_is_reported(new_host, monkeypatch):
    host = new_host("linux6.12")
    host.load()

    def refuse(key, value):
        raise OSError(22, "Invalid argument")

    monkeypatch.setattr(sfile, "write_live", refuse)
    out = host.run(rmem="128K")
    assert out.failed
    assert "net.smc.rmem = 131072" in out.result["msg"] and "EINVAL" in out.result["msg"]


def test_the_619_work_request_settings_and_their_range(new_host, monkeypatch):
    host = new_host("linux6.19")
    host.load()
    out = host.run(settings={"smcr_max_send_wr": 64, "net.smc.smcr_max_recv_wr": 128})
    assert not out.failed, out.result
    assert host.live("net.smc.smcr_max_send_wr") == "64" and host.live("net.smc.smcr_max_recv_wr") == "128"
    assert "net.smc.smcr_max_send_wr = 64" in host.read(host.file)
    bad = host.run(settings={"smcr_max_send_wr": 4096})
    assert bad.failed and "settings.smcr_max_send_wr: 4096 is outside the kernel's range 2..2048" in bad.result["msg"]

    def refuse(key, value):
        raise OSError(22, "Invalid argument")

    monkeypatch.setattr(sfile, "write_live", refuse)
    out = host.run(settings={"smcr_max_recv_wr": 1024})
    assert out.failed
    assert (
        "settings.smcr_max_recv_wr: the running kernel refused it (EINVAL); its range is 2..2048" in out.result["msg"]
    )
    assert "net.smc.smcr_max_recv_wr = 128" in host.read(host.file)  # the file keeps the old value


def test_a_612_kernel_has_no_work_request_keys(new_host):
    host = new_host("linux6.12")
    host.load()
    res = host.run(settings={"smcr_max_send_wr": 64}).result
    assert res["not_present"] == ["net.smc.smcr_max_send_wr"]
    assert host.read(host.file) is None or "smcr_max_send_wr" not in host.read(host.file)


def test_forced_method_that_the_kernel_ignores_is_warned_about(new_host):
    host = new_host("linux6.12")
    res = host.run(rmem="128K", method="tcp").result
    assert res["method"] == "tcp" and res["method_source"] == "option"
    assert res["sysctls"] == {"net.ipv4.tcp_rmem": "4096 262144 6291456"}
    assert any("will not follow" in w for w in res["warnings"])


def test_live_tcp_maximum_drift_is_undone_not_persisted(new_host):
    host = new_host("rhel8.8")
    host.run(rmem="128K", wmem="128K", tcp_rmem_max="32M")
    assert host.live("net.ipv4.tcp_rmem") == "4096 262144 33554432"
    # Somebody lowers the maximum and the default by hand.
    (host.proc / "net" / "ipv4" / "tcp_rmem").write_text("4096\t131072\t6291456\n")

    fixed = host.run(rmem="128K", wmem="128K").result
    assert fixed["changed"] is True
    assert fixed["applied"] == ["net.ipv4.tcp_rmem"]
    assert host.live("net.ipv4.tcp_rmem") == "4096 262144 33554432"
    assert sfile.parse(host.read(host.file))["net.ipv4.tcp_rmem"] == "4096 262144 33554432"
    assert fixed["diff"] == []  # the file was right all along


# -- failure paths: live values old or new, never mixed; no refused value in the boot file ---------


def test_a_refused_second_value_puts_the_first_back_and_writes_no_file(new_host, monkeypatch):
    host = new_host("linux6.12")
    host.load()
    before = {k: host.live(k) for k in ("net.smc.rmem", "net.smc.wmem")}
    original = sfile.write_live

    def refuse_wmem(key, value):
        if key == "net.smc.wmem" and str(value) != before["net.smc.wmem"]:
            raise OSError(errno.EINVAL, "Invalid argument")
        return original(key, value)

    monkeypatch.setattr(sfile, "write_live", refuse_wmem)
    out = host.run(rmem="128K", wmem="256K")
    assert out.failed and "cannot set net.smc.wmem = 262144" in out.result["msg"]
    assert out.result["restored"] == ["net.smc.rmem"] and out.result["not_restored"] == []
    assert out.result["changed"] is False
    assert {k: host.live(k) for k in before} == before  # old, not mixed
    assert not host.exists(host.file)  # the refused value never reaches the boot file
    assert "no file was written" in out.result["msg"]


def test_a_boot_file_that_cannot_be_written_puts_the_live_values_back(new_host, monkeypatch):
    host = new_host("linux6.12")
    host.load()
    old_rmem = host.live("net.smc.rmem")

    def read_only(path, content, module=None, mode=host_files.FILE_MODE):
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(host_files, "write_atomic", read_only)
    out = host.run(rmem="128K")
    assert out.failed and "cannot write %s: Read-only file system" % host.file in out.result["msg"]
    assert host.live("net.smc.rmem") == old_rmem and out.result["restored"] == ["net.smc.rmem"]
    assert out.result["changed"] is False


def test_write_live_is_one_unbuffered_write_checked_for_its_length(host_root, monkeypatch):
    path = host_root / "proc" / "sys" / "net" / "smc" / "rmem"
    path.parent.mkdir(parents=True)
    path.write_text("65536\n")
    calls = []

    def refuse(fd, data):
        calls.append(data)
        raise OSError(errno.EINVAL, "Invalid argument")

    monkeypatch.setattr(kernel_write.os, "write", refuse)
    with pytest.raises(OSError) as info:
        sfile.write_live("net.smc.rmem", 1)
    assert info.value.errno == errno.EINVAL and calls == [b"1\n"]  # no retry (a buffered close would)
    monkeypatch.setattr(kernel_write.os, "write", lambda fd, data: len(data) - 1)
    with pytest.raises(OSError) as info:
        sfile.write_live("net.smc.rmem", 131072)
    assert info.value.errno == errno.EIO and "short write" in str(info.value)
    assert path.read_text() == "65536\n"


# -- file and modules_load_file are names in their fixed directories ---------------------------------
def test_file_names_are_written_in_the_fixed_directories_only(new_host, host_root):
    host = new_host("linux6.12")
    out = host.run(rmem="128K", wmem="128K", file="80-smc-tuning.conf", modules_load_file="50_smc.conf")
    assert not out.failed, out.result
    assert out.result["commands"][-2:] == [
        "write /etc/sysctl.d/80-smc-tuning.conf",
        "write /etc/modules-load.d/50_smc.conf",
    ]
    assert [d["after_header"] for d in out.result["diff"]] == [
        "/etc/sysctl.d/80-smc-tuning.conf",
        "/etc/modules-load.d/50_smc.conf",
    ]
    written = sorted(
        os.path.relpath(os.path.join(base, name), str(host_root))
        for base, dummy, files in os.walk(str(host_root / "etc"))
        for name in files
    )
    assert written == ["etc/modules-load.d/50_smc.conf", "etc/sysctl.d/80-smc-tuning.conf"]
    assert sfile.parse(host.read("/etc/sysctl.d/80-smc-tuning.conf")) == out.result["sysctls"]
    removed = host.run(state="deleted", file="80-smc-tuning.conf", modules_load_file="50_smc.conf")
    assert removed.result["commands"] == ["rm /etc/sysctl.d/80-smc-tuning.conf", "rm /etc/modules-load.d/50_smc.conf"]


def test_a_path_as_file_name_writes_nothing(new_host, host_root):
    host = new_host("linux6.12")
    for option in ("file", "modules_load_file"):
        out = host.run(rmem="128K", **{option: "../../ld.so.conf.d/x.conf"})
        assert out.failed and out.result["msg"].startswith(option + ": '../../ld.so.conf.d/x.conf' is not a file name")
    assert not (host_root / "etc").exists() and host.commands == []


WR_SETTINGS = {"smcr_max_send_wr": 64, "net.smc.smcr_max_recv_wr": "128", "hs_ctrl": ""}


def test_linux619_applies_the_work_request_keys_and_hs_ctrl(new_host):
    host = new_host("linux6.19")
    res = host.run(settings=WR_SETTINGS).result
    assert not res.get("failed"), res
    assert res["sysctls"] == {
        "net.smc.smcr_max_send_wr": "64",
        "net.smc.smcr_max_recv_wr": "128",
        "net.smc.hs_ctrl": "",
    }
    assert host.live("net.smc.smcr_max_send_wr") == "64" and host.live("net.smc.smcr_max_recv_wr") == "128"
    assert sorted(res["applied"]) == ["net.smc.smcr_max_recv_wr", "net.smc.smcr_max_send_wr"]  # hs_ctrl was empty
    assert sfile.parse(host.read(host.file)) == res["sysctls"]
    assert res["not_present"] == [] and res["warnings"] == []
    assert host.run(settings=WR_SETTINGS).result["changed"] is False


def test_a_key_the_loaded_smc_lacks_is_reported_not_written(new_host):
    # 6.12 has no smcr_max_send_wr and no hs_ctrl: existence is read from /proc/sys/net/smc
    host = new_host("linux6.12")
    res = host.run(rmem="128K", settings=dict(WR_SETTINGS, smcr_testlink_time=10)).result
    assert not res.get("failed"), res
    assert res["not_present"] == ["net.smc.hs_ctrl", "net.smc.smcr_max_recv_wr", "net.smc.smcr_max_send_wr"]
    assert res["sysctls"] == {"net.smc.rmem": "131072", "net.smc.smcr_testlink_time": "10"}
    assert sfile.parse(host.read(host.file)) == res["sysctls"]
    assert not host.exists(sfile.proc_path("net.smc.smcr_max_send_wr"))
    assert host.live("net.smc.smcr_testlink_time") == "10"
    [warning] = [w for w in res["warnings"] if "not on this host" in w]
    assert "6.12.0-zlab" in warning and "net.smc.smcr_max_send_wr" in warning and host.file in warning


def test_a_key_the_kernel_gained_is_kept_when_it_appears(new_host):
    # the same 6.12 release with the key backported: presence decides, not the release
    host = new_host("linux6.12")
    host.profile = dict(host.profile, smc_keys=dict(host.profile["smc_keys"], smcr_max_send_wr="16"))
    res = host.run(settings={"smcr_max_send_wr": 32}).result
    assert res["not_present"] == [] and host.live("net.smc.smcr_max_send_wr") == "32"
    assert sfile.parse(host.read(host.file)) == {"net.smc.smcr_max_send_wr": "32"}


def test_without_smc_loaded_the_keys_go_to_the_file_only(new_host):
    host = new_host("linux6.12")
    res = host.run(load_module=False, settings={"smcr_max_send_wr": 32}).result
    assert res["smc_loaded"] is False and res["not_present"] == ["net.smc.smcr_max_send_wr"]
    assert sfile.parse(host.read(host.file)) == {"net.smc.smcr_max_send_wr": "32"}
