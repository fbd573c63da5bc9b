# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The real s390-tools (Debian's s390x builds under qemu-user) against the emulated kernel.

Each case is a place where the emulated kernel once disagreed with what the real tools expect of a
real one; the tools' output here is upstream behaviour, so a failure is a defect of the lab.
"""

import re

from labutil import in_host, zlab


def _tools_version(host):
    out = in_host(host, "chzdev --version").stdout
    return re.search(r"version (\d+\.\d+)", out).group(1)


def test_profile_picks_the_s390_tools_release(lab):
    # rhel8.8 runs Debian 12's 2.16; the image carries Debian 13's 2.3x for the newer profiles
    assert _tools_version("lpar-b") == "2.16"
    assert in_host("lpar-b", "cat /opt/s390-tools/debian12/VERSION").stdout.startswith("2.16.")
    newer = in_host("lpar-b", "/opt/s390-tools/debian13/usr/sbin/lszdev --version").stdout
    assert re.search(r"version 2\.3\d\.", newer)


def test_chzdev_configures_and_lszdev_reads_back(lab):
    res = in_host("lpar-b", "chzdev -e qeth 0.0.8206 layer2=1 buffer_count=128")
    assert "QETH device 0.0.8206:0.0.8207:0.0.8208 configured" in res.stdout
    out = in_host("lpar-b", "lszdev qeth 0.0.8206 --columns ID,ON,PERS,NAMES -n").stdout.split()
    assert out == ["0.0.8206:0.0.8207:0.0.8208", "yes", "yes", "enc8206"]
    assert in_host(
        "lpar-b", "cat /sys/bus/ccwgroup/devices/0.0.8206/buffer_count " "/sys/bus/ccwgroup/devices/0.0.8206/layer2"
    ).stdout.split() == ["128", "1"]


def test_auto_grouping_pairs_read_write_first(lab):
    # qeth_auto: with 8204-8206 taken, the free devices are no clean sequence; read/write pairs
    # come first and 8200 takes the next free device as its data device
    in_host("lpar-a", "echo 0.0.8204,0.0.8205,0.0.8206 > /sys/bus/ccwgroup/drivers/qeth/group")
    ids = in_host("lpar-a", "lszdev qeth --columns ID -n").stdout.split()
    assert "0.0.8200:0.0.8201:0.0.820b" in ids
    in_host("lpar-a", "chzdev -d -a qeth 0.0.8204 -y")


def test_injected_fault_reaches_the_real_tool_wrapper(lab):
    zlab("fault", "lpar-b", "tool", "chzdev", "19", "--stderr", "chzdev: injected")
    res = in_host("lpar-b", "chzdev --version", check=False)
    assert (res.returncode, res.stderr.strip()) == (19, "chzdev: injected")
    assert in_host("lpar-b", "chzdev --version").returncode == 0


def test_lsqeth_lists_and_reads_an_interface_set_online_at_run_time(lab):
    # lsqeth lists only symlink entries (readdir d_type) and reads the interface's device link
    in_host("lpar-a", "chzdev -e -a qeth 0.0.8209 layer2=1")
    assert "enc8209" in in_host("lpar-a", "lsqeth -p").stdout
    out = in_host("lpar-a", "lsqeth enc8209").stdout
    assert re.search(r"^\s*layer2\s*:\s*1$", out, re.M), out
    assert in_host("lpar-a", "readlink /sys/class/net/enc8209/device").stdout.strip() == "../../../0.0.8209"


def test_profile_tcp_buffer_defaults(lab):
    out = in_host("lpar-b", "sysctl -n net.ipv4.tcp_rmem net.ipv4.tcp_wmem").stdout.split("\n")
    assert [line.split() for line in out[:2]] == [["4096", "131072", "6291456"], ["4096", "16384", "4194304"]]
