# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""qeth / ccwgroup sysfs semantics (facts sheet section 1; drivers/s390/net/qeth_core_sys.c,
qeth_l2_sys.c, drivers/s390/cio/ccwgroup.c)."""

import errno
import os
import shutil
import stat

import pytest

Q = "/sys/devices/qeth/0.0.8200"
GROUP = "/sys/bus/ccwgroup/drivers/qeth/group"


def test_ccw_devices_listed_for_every_devno(host):
    devs = host.listdir("/sys/bus/ccw/devices")
    assert devs == ["0.0.82%02x" % i for i in range(16)]


def test_ccw_device_links_into_css0_and_bound_to_qeth(host):
    link = host.readlink("/sys/bus/ccw/devices/0.0.8200")
    assert link.startswith("../../../devices/css0/0.0.")
    assert link.endswith("/0.0.8200")
    assert host.readlink("/sys/bus/ccw/devices/0.0.8200/driver") == "../../../../bus/ccw/drivers/qeth"
    assert host.read("/sys/bus/ccw/devices/0.0.8200/cutype") == "1731/05\n"
    assert host.read("/sys/bus/ccw/devices/0.0.8200/devtype") == "1732/05\n"


def test_osa_device_type(boot_host):
    h = boot_host(ccw=[{"devno": "0.0.1000", "chpid": "10", "chpid_type": "OSD"}])
    assert h.read("/sys/bus/ccw/devices/0.0.1000/cutype") == "1731/01\n"
    assert h.read("/sys/devices/css0/chp0.10/type") == "11\n"


def test_no_group_device_at_boot(host):
    assert host.listdir("/sys/bus/ccwgroup/devices") == []
    assert not host.exists("/sys/devices/qeth/0.0.8200")


def test_group_creates_device_and_links(group):
    h = group
    assert h.listdir("/sys/bus/ccwgroup/devices") == ["0.0.8200"]
    assert h.readlink("/sys/bus/ccwgroup/devices/0.0.8200") == "../../../devices/qeth/0.0.8200"
    assert h.readlink("/sys/bus/ccwgroup/drivers/qeth/0.0.8200") == "../../../../devices/qeth/0.0.8200"
    for i, dev in enumerate(("0.0.8200", "0.0.8201", "0.0.8202")):
        target = os.path.realpath(h.path(Q + "/cdev%d" % i))
        assert target.endswith("/" + dev)
        back = os.path.realpath(h.path("/sys/bus/ccw/devices/%s/group_device" % dev))
        assert back == os.path.realpath(h.path(Q))
    assert not h.exists("/sys/bus/ccw/devices/0.0.8203/group_device")


@pytest.mark.parametrize(
    "data",
    [
        "8200,8201,8202",  # short ids are malformed
        "0.0.8200,0.0.8201",  # too few
        "0.0.8200,0.0.8201,0.0.8202,0.0.8203",  # trailing data
        "0.0.8200,0.0.8201,0.0.9999",  # missing device
        "0.0.8200,0.0.8200,0.0.8201",  # same device twice
        "zz",
    ],
)
def test_group_rejects_bad_input_with_einval(host, data):
    assert host.errno_of_write(GROUP, data + "\n") == errno.EINVAL
    assert host.listdir("/sys/bus/ccwgroup/devices") == []


def test_group_already_grouped_einval(group):
    assert group.errno_of_write(GROUP, "0.0.8201,0.0.8203,0.0.8204\n") == errno.EINVAL
    assert group.listdir("/sys/bus/ccwgroup/devices") == ["0.0.8200"]


def test_group_wrong_order_groups_but_cannot_go_online(host):
    host.write(GROUP, "0.0.8201,0.0.8200,0.0.8202\n")
    assert host.listdir("/sys/bus/ccwgroup/devices") == ["0.0.8201"]
    assert host.errno_of_write("/sys/devices/qeth/0.0.8201/online", "1") == errno.EIO
    assert host.read("/sys/devices/qeth/0.0.8201/online") == "0\n"


def test_group_and_ungroup_are_write_only(group):
    for p in (GROUP, Q + "/ungroup"):
        mode = os.stat(group.path(p)).st_mode
        assert stat.S_IMODE(mode) == 0o200
        with pytest.raises(PermissionError):
            open(group.path(p), "rb").close()


def test_defaults_of_a_fresh_iqd_group(group):
    h = group
    expect = {
        "online": "0",
        "state": "DOWN",
        "card_type": "HiperSockets",
        "chpid": "F0",
        "buffer_count": "128",
        "layer2": "-1",
        "portno": "0",
        "portname": "no portname required",
        "isolation": "none",
        "inbuf_size": "40k",
        "priority_queueing": "disabled",
    }
    got = {k: h.read(Q + "/" + k).rstrip("\n") for k in expect}
    assert got == expect


def test_inbuf_size_follows_frame_size(boot_host):
    h = boot_host(
        ccw=[
            {"devno": "0.0.7000", "chpid": "F1", "chpid_type": "IQD", "frame_size": "64K"},
            {"devno": "0.0.7001", "chpid": "F1", "chpid_type": "IQD", "frame_size": "64K"},
            {"devno": "0.0.7002", "chpid": "F1", "chpid_type": "IQD", "frame_size": "64K"},
        ]
    )
    h.write(GROUP, "0.0.7000,0.0.7001,0.0.7002")
    assert h.read("/sys/devices/qeth/0.0.7000/inbuf_size") == "64k\n"


def test_osa_buffer_count_default_is_64(boot_host):
    h = boot_host(ccw=[{"devno": "0.0.100%d" % i, "chpid": "10", "chpid_type": "OSD"} for i in range(3)])
    h.write(GROUP, "0.0.1000,0.0.1001,0.0.1002")
    assert h.read("/sys/devices/qeth/0.0.1000/buffer_count") == "64\n"


@pytest.mark.parametrize(
    "value,expect", [("128", "128"), ("200", "128"), ("1", "8"), ("0", "8"), ("64\n", "64"), ("8", "8")]
)
def test_buffer_count_clamps_silently(group, value, expect):
    group.write(Q + "/buffer_count", value)
    assert group.read(Q + "/buffer_count") == expect + "\n"


@pytest.mark.parametrize("value", ["abc", "-5", "12x", "\n"])
def test_buffer_count_garbage_einval(group, value):
    assert group.errno_of_write(Q + "/buffer_count", value) == errno.EINVAL
    assert group.read(Q + "/buffer_count") == "128\n"


def test_layer2_write_base16_only_0_or_1(group):
    assert group.errno_of_write(Q + "/layer2", "2") == errno.EINVAL
    assert group.errno_of_write(Q + "/layer2", "yes") == errno.EINVAL
    group.write(Q + "/layer2", "1")
    assert group.read(Q + "/layer2") == "1\n"
    group.write(Q + "/layer2", "0x0")
    assert group.read(Q + "/layer2") == "0\n"


def _online(h, layer2=1):
    h.write(Q + "/layer2", str(layer2))
    h.write(Q + "/online", "1")


@pytest.mark.parametrize("attr,value", [("buffer_count", "64"), ("layer2", "0"), ("portno", "0")])
def test_offline_only_attributes_eperm_while_online(group, attr, value):
    _online(group)
    before = group.read(Q + "/" + attr)
    assert group.errno_of_write(Q + "/" + attr, value) == errno.EPERM
    assert group.read(Q + "/" + attr) == before


def test_bash_echo_reports_operation_not_permitted(group):
    _online(group)
    res = group.bash('echo 128 > "$S/devices/qeth/0.0.8200/buffer_count"')
    assert res.returncode == 1
    assert "write error: Operation not permitted" in res.stderr


def test_study_sysfs_procedure_in_bash(group):
    res = group.bash(
        'set -e; d="$S/devices/qeth/0.0.8200"; echo 0 > $d/online; echo 1 > $d/layer2; '
        'echo 128 > $d/buffer_count; echo 1 > $d/online; '
        'cat $d/online $d/layer2 $d/buffer_count $d/if_name'
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["1", "1", "128", "enc8200"]


def test_online_creates_net_dir_and_state(group):
    assert group.read(Q + "/if_name") == "\n"  # 4.18 profile: no netdev before first online
    _online(group)
    assert group.read(Q + "/online") == "1\n"
    assert group.read(Q + "/state") == "SOFTSETUP\n"
    assert group.listdir(Q + "/net") == ["enc8200"]
    assert group.read(Q + "/if_name") == "enc8200\n"
    dev = os.path.realpath(group.path(Q + "/net/enc8200/device"))
    assert dev == os.path.realpath(group.path(Q))
    group.write(Q + "/online", "0")
    assert not group.exists(Q + "/net")
    assert group.read(Q + "/state") == "DOWN\n"
    assert group.read(Q + "/if_name") == "enc8200\n"


def test_unnamed_netdev_on_newer_kernels(boot_host):
    h = boot_host(kernel_profile="linux6.12")
    h.write(GROUP, "0.0.8200,0.0.8201,0.0.8202")
    assert h.read(Q + "/if_name") == "(unnamed net_device)\n"


def test_online_values(group):
    assert group.errno_of_write(Q + "/online", "2") == errno.EINVAL
    assert group.errno_of_write(Q + "/online", "on") == errno.EINVAL
    group.write(Q + "/online", "0x1")
    assert group.read(Q + "/online") == "1\n"
    assert group.read(Q + "/layer2") == "0\n"  # HiperSockets default discipline: layer 3


def test_ungroup_einval_while_online_then_works(group):
    _online(group)
    assert group.errno_of_write(Q + "/ungroup", "1") == errno.EINVAL
    group.write(Q + "/online", "0")
    group.write(Q + "/ungroup", "1")
    assert not group.exists(Q)
    assert not group.exists("/sys/bus/ccw/devices/0.0.8200/group_device")
    group.write(GROUP, "0.0.8200,0.0.8201,0.0.8202")
    assert group.read(Q + "/layer2") == "-1\n"


def test_isolation_eopnotsupp_on_hipersockets(group):
    assert group.errno_of_write(Q + "/isolation", "forward") == errno.EOPNOTSUPP
    assert group.read(Q + "/isolation") == "none\n"


def test_isolation_settable_online_on_osa(boot_host):
    h = boot_host(ccw=[{"devno": "0.0.100%d" % i, "chpid": "10", "chpid_type": "OSD"} for i in range(3)])
    h.write(GROUP, "0.0.1000,0.0.1001,0.0.1002")
    h.write("/sys/devices/qeth/0.0.1000/online", "1")
    h.write("/sys/devices/qeth/0.0.1000/isolation", "drop")
    assert h.read("/sys/devices/qeth/0.0.1000/isolation") == "drop\n"
    assert h.errno_of_write("/sys/devices/qeth/0.0.1000/isolation", "xx") == errno.EINVAL


def test_priority_queueing_eopnotsupp_on_hipersockets(group):
    assert group.errno_of_write(Q + "/priority_queueing", "prio_queueing_tos") == errno.EOPNOTSUPP


def test_portno_range(group):
    assert group.errno_of_write(Q + "/portno", "1") == errno.EINVAL  # one port: 0 only
    assert group.errno_of_write(Q + "/portno", "10") == errno.EINVAL
    group.write(Q + "/portno", "0")


def test_layer2_only_attributes_appear_with_layer2(group):
    assert not group.exists(Q + "/vnicc")
    assert not group.exists(Q + "/bridge_role")
    group.write(Q + "/layer2", "1")
    assert group.listdir(Q + "/vnicc") == sorted(
        [
            "bridge_invisible",
            "flooding",
            "learning",
            "learning_timeout",
            "mcast_flooding",
            "rx_bcast",
            "takeover_learning",
            "takeover_setvmac",
        ]
    )
    # values of the study's appendix 9.1
    assert group.read(Q + "/bridge_role") == "none\n"
    assert group.read(Q + "/bridge_state") == "inactive\n"
    assert group.read(Q + "/vnicc/learning_timeout") == "600\n"
    assert group.read(Q + "/vnicc/rx_bcast") == "1\n"


def test_vnicc_learning_timeout_range(group):
    group.write(Q + "/layer2", "1")
    assert group.errno_of_write(Q + "/vnicc/learning_timeout", "59") == errno.EINVAL
    assert group.errno_of_write(Q + "/vnicc/learning_timeout", "86401") == errno.EINVAL
    group.write(Q + "/vnicc/learning_timeout", "86400")
    assert group.read(Q + "/vnicc/learning_timeout") == "86400\n"


def test_vnicc_settable_online_and_blocks_bridgeport(group):
    _online(group)
    group.write(Q + "/vnicc/learning", "1")
    assert group.read(Q + "/vnicc/learning") == "1\n"
    assert group.errno_of_write(Q + "/bridge_role", "primary") == errno.EBUSY


def test_vnicc_na_on_osa(boot_host):
    h = boot_host(ccw=[{"devno": "0.0.100%d" % i, "chpid": "10", "chpid_type": "OSD"} for i in range(3)])
    h.write(GROUP, "0.0.1000,0.0.1001,0.0.1002")
    h.write("/sys/devices/qeth/0.0.1000/layer2", "1")
    assert h.read("/sys/devices/qeth/0.0.1000/vnicc/flooding") == "n/a\n"


def test_read_only_attribute_open_for_write_eacces(group):
    for attr in ("state", "card_type", "chpid", "if_name", "inbuf_size"):
        with pytest.raises(PermissionError):
            os.open(group.path(Q + "/" + attr), os.O_WRONLY)
    assert stat.S_IMODE(os.stat(group.path(Q + "/state")).st_mode) == 0o444
    assert stat.S_IMODE(os.stat(group.path(Q + "/buffer_count")).st_mode) == 0o644


def test_truncate_succeeds_and_python_write_applies(group):
    with open(group.path(Q + "/buffer_count"), "w", encoding="ascii") as f:
        f.write("32\n")
    assert group.read(Q + "/buffer_count") == "32\n"


def test_cannot_create_or_remove_files(group):
    with pytest.raises(PermissionError):
        open(group.path(Q + "/newattr"), "w").close()
    with pytest.raises(PermissionError):
        os.unlink(group.path(Q + "/online"))
    with pytest.raises(PermissionError):
        os.mkdir(group.path(Q + "/newdir"))


def test_netdev_hooks_run_on_online_and_offline(group):
    hooks = os.path.join(group.state_dir, "hooks")
    os.makedirs(hooks, exist_ok=True)
    out = os.path.join(group.base, "hook.log")
    for name in ("netdev-up", "netdev-down"):
        p = os.path.join(hooks, name)
        with open(p, "w", encoding="ascii") as f:
            f.write('#!/bin/sh\necho "%s $*" >> %s\n' % (name, out))
        os.chmod(p, 0o755)
    try:
        _online(group)
        group.write(Q + "/online", "0")
        with open(out, encoding="ascii") as f:
            lines = f.read().splitlines()
        assert lines == ["netdev-up 0.0.8200 enc8200 F0 1 32768", "netdev-down 0.0.8200 enc8200"]
    finally:
        for name in ("netdev-up", "netdev-down"):
            os.unlink(os.path.join(hooks, name))


def test_write_fault_injection_counts_down(group):
    from zlab import kernel

    key = kernel.add_write_fault(group.state_dir, "/sys/bus/ccwgroup/devices/0.0.8200/online", errno.EBUSY, count=2)
    assert key == "/sys/devices/qeth/0.0.8200/online"
    assert group.errno_of_write(Q + "/online", "1") == errno.EBUSY
    assert group.errno_of_write(Q + "/online", "1") == errno.EBUSY
    assert group.errno_of_write(Q + "/online", "1") == 0
    assert group.read(Q + "/online") == "1\n"


def test_real_netdev_gives_up_lan_online_and_class_net_link(group):
    real = os.path.join(group.real_sys, "class", "net", "enc8200")
    os.makedirs(real)
    try:
        with open(os.path.join(real, "flags"), "w", encoding="ascii") as f:
            f.write("0x1003\n")
        with open(os.path.join(real, "carrier"), "w", encoding="ascii") as f:
            f.write("1\n")
        _online(group)
        assert group.read(Q + "/state") == "UP (LAN ONLINE)\n"
        assert group.readlink("/sys/class/net/enc8200") == "../../devices/qeth/0.0.8200/net/enc8200"
        assert group.read("/sys/class/net/enc8200/flags") == "0x1003\n"
        assert group.read("/sys/class/net/enc8200/device/chpid") == "F0\n"
    finally:
        for f in os.listdir(real):
            os.unlink(os.path.join(real, f))
        os.rmdir(real)


def test_osa_priority_queueing_values_and_eperm_online(boot_host):
    h = boot_host(ccw=[{"devno": "0.0.100%d" % i, "chpid": "10", "chpid_type": "OSD"} for i in range(3)])
    h.write(GROUP, "0.0.1000,0.0.1001,0.0.1002")
    d = "/sys/devices/qeth/0.0.1000"
    h.write(d + "/priority_queueing", "prio_queueing_tos")
    assert h.read(d + "/priority_queueing") == "by type of service\n"
    h.write(d + "/priority_queueing", "no_prio_queueing:3")
    assert h.read(d + "/priority_queueing") == "always queue 3\n"
    assert h.errno_of_write(d + "/priority_queueing", "bogus") == errno.EINVAL
    h.write(d + "/online", "1")
    assert h.read(d + "/layer2") == "1\n"  # OSA default discipline: layer 2
    assert h.errno_of_write(d + "/priority_queueing", "no_prio_queueing") == errno.EPERM
    assert h.read(d + "/card_type") == "OSD_10GIG\n"


def test_layer3_attributes_and_ccw_member_online(group):
    group.write(Q + "/layer2", "0")
    assert group.read(Q + "/route4") == "no\n"
    assert group.exists(Q + "/hsuid")
    assert not group.exists(Q + "/vnicc")
    assert group.errno_of_write("/sys/bus/ccw/devices/0.0.8201/online", "1") == errno.EINVAL
    group.write(Q + "/online", "1")
    assert group.read("/sys/bus/ccw/devices/0.0.8201/online") == "1\n"


def test_chpid_mismatch_groups_but_fails_online(boot_host):
    h = boot_host(
        ccw=[
            {"devno": "0.0.9000", "chpid": "F0"},
            {"devno": "0.0.9001", "chpid": "F1"},
            {"devno": "0.0.9002", "chpid": "F0"},
        ]
    )
    h.write(GROUP, "0.0.9000,0.0.9001,0.0.9002")
    assert h.read("/sys/devices/qeth/0.0.9000/chpid") == "F0\n"
    assert h.errno_of_write("/sys/devices/qeth/0.0.9000/online", "1") == errno.EIO


def test_mixed_device_types_cannot_be_grouped(boot_host):
    h = boot_host(
        ccw=[
            {"devno": "0.0.9000", "chpid": "F0", "chpid_type": "IQD"},
            {"devno": "0.0.9001", "chpid": "F0", "chpid_type": "OSD"},
            {"devno": "0.0.9002", "chpid": "F0", "chpid_type": "IQD"},
        ]
    )
    assert h.errno_of_write(GROUP, "0.0.9000,0.0.9001,0.0.9002") == errno.EINVAL


def test_group_accepts_trailing_comma_and_uppercase(host):
    host.write(GROUP, "0.0.820A,0.0.820B,0.0.820C,")
    assert host.listdir("/sys/bus/ccwgroup/devices") == ["0.0.820a"]


def _netdev_hooks(h):
    """netdev-up/-down hooks that create/remove the real netdev in the fake real sysfs as the
    kernel registers it: /sys/class/net/<if> -> ../../devices/virtual/net/<if>. Like the lab's
    hook (whose ip and sed probe /sys/fs/selinux), netdev-up looks up /sys before that."""
    hooks = os.path.join(h.state_dir, "hooks")
    os.makedirs(hooks, exist_ok=True)
    up = (
        '#!/bin/sh\ntest -e "%s/fs/selinux"\nd="%s/devices/virtual/net/$2"\nmkdir -p "$d"\n'
        'echo 0x1003 > "$d/flags"\nln -s "../../devices/virtual/net/$2" "%s/class/net/$2"\n'
        % (h.path("/sys"), h.real_sys, h.real_sys)
    )
    down = '#!/bin/sh\nrm -f "%s/class/net/$2"\nrm -rf "%s/devices/virtual/net/$2"\n' % (h.real_sys, h.real_sys)
    for name, text in (("netdev-up", up), ("netdev-down", down)):
        p = os.path.join(hooks, name)
        with open(p, "w", encoding="ascii") as f:
            f.write(text)
        os.chmod(p, 0o755)
    return [os.path.join(hooks, n) for n in ("netdev-up", "netdev-down")]


@pytest.mark.parametrize("how", ["fuse", "bash", "other_process"])
def test_class_net_device_link_after_online_at_run_time(group, how):
    # the netdev registered when the card goes online has a device link to the ccwgroup device:
    # /sys/class/net/enc8200 -> ../../devices/qeth/0.0.8200/net/enc8200, device -> ../../../0.0.8200
    group.write(Q + "/layer2", "1")
    assert group.read("/sys/class/net/lo/mtu") == "65536\n"  # the daemon's tree is built
    hooks = _netdev_hooks(group)
    try:
        if how == "fuse":
            group.write("/sys/bus/ccwgroup/devices/0.0.8200/online", "1")
        elif how == "bash":
            res = group.bash('echo 1 > "$S/bus/ccwgroup/devices/0.0.8200/online"')
            assert res.returncode == 0, res.stderr
        else:
            from zlab import kernel

            kernel.sysfs_write(
                group.state_dir, "/sys/bus/ccwgroup/devices/0.0.8200/online", "1", real_sys=group.real_sys
            )
        assert group.readlink("/sys/class/net/enc8200") == "../../devices/qeth/0.0.8200/net/enc8200"
        assert group.readlink("/sys/class/net/enc8200/device") == "../../../0.0.8200"
        assert group.read("/sys/class/net/enc8200/device/online") == "1\n"
        assert group.read("/sys/class/net/enc8200/flags") == "0x1003\n"
        group.write(Q + "/online", "0")
        assert not group.exists("/sys/class/net/enc8200")
    finally:
        for p in hooks:
            os.unlink(p)
        link = os.path.join(group.real_sys, "class", "net", "enc8200")
        if os.path.lexists(link):
            os.unlink(link)
        shutil.rmtree(os.path.join(group.real_sys, "devices", "virtual"), ignore_errors=True)
