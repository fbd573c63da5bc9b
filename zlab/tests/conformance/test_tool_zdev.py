"""chzdev / lszdev conformance (s390-tools zdev; facts sheet section 2).

Every test runs the tool as a process with ``h.env`` (ZLAB_ROOT = the mounted emulator,
ZLAB_STATE_DIR) and checks output, exit code and the resulting sysfs / udev rule.
"""

import errno
import os

from zlab import kernel

from toolrun import run

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures",
                        "tools")
Q = "/sys/bus/ccwgroup/drivers/qeth/0.0.8200"
FULL = "0.0.8200:0.0.8201:0.0.8202"
RULE = "/etc/udev/rules.d/41-qeth-0.0.8200.rules"


def rule_text(h, name=RULE):
    with open(h.zroot + name, encoding="utf-8") as f:
        return f.read()


def attr(h, name, dev="0.0.8200"):
    return h.read("/sys/bus/ccwgroup/drivers/qeth/%s/%s" % (dev, name)).strip()


def enable_8200(h):
    r = run(h, "chzdev", "-e", "qeth", "0.0.8200", "layer2=1", "buffer_count=128")
    assert r.returncode == 0, r.stderr
    return r


# ---- chzdev --------------------------------------------------------------------------------

def test_chzdev_enable_groups_configures_and_sets_online(host):
    r = enable_8200(host)
    assert r.stdout == "QETH device %s configured\n" % FULL
    assert r.stderr == ""
    assert host.listdir("/sys/bus/ccwgroup/devices") == ["0.0.8200"]
    assert (attr(host, "online"), attr(host, "layer2"), attr(host, "buffer_count")) == \
        ("1", "1", "128")


def test_chzdev_udev_rule_is_byte_identical_to_upstream_layout(host):
    enable_8200(host)
    with open(os.path.join(FIXTURES, "41-qeth-0.0.8200.rules"), encoding="utf-8") as f:
        expected = f.read()
    assert rule_text(host) == expected


def test_chzdev_single_short_id_completes_to_read_write_data_group(host):
    r = run(host, "chzdev", "-e", "qeth", "8203")
    assert r.returncode == 0
    assert r.stdout == "QETH device 0.0.8203:0.0.8204:0.0.8205 configured\n"
    assert host.listdir("/sys/bus/ccwgroup/devices") == ["0.0.8203"]
    assert os.path.basename(host.readlink("/sys/bus/ccwgroup/drivers/qeth/0.0.8203/cdev2")) == \
        "0.0.8205"


def test_chzdev_applies_layer2_before_buffer_count_before_online(host):
    # buffer_count fails with EIO: layer2 must already be set, online must not be.
    run(host, "chzdev", "-a", "-e", "qeth", "8200")
    run(host, "chzdev", "-a", "qeth", "8200", "online=0")
    kernel.add_write_fault(host.state_dir, "/sys/devices/qeth/0.0.8200/buffer_count", errno.EIO)
    r = run(host, "chzdev", "-a", "-e", "qeth", "8200", "buffer_count=64", "layer2=1")
    assert r.returncode == 17
    assert attr(host, "layer2") == "1"
    assert attr(host, "online") == "0"
    assert r.stderr == ("QETH device %s configure failed\n"
                        "    Error: Could not write file %s/buffer_count: Input/output error\n"
                        % (FULL, Q))


def test_chzdev_refuses_offline_only_attribute_while_online_exit_9(host):
    enable_8200(host)
    before = rule_text(host)
    r = run(host, "chzdev", "-e", "qeth", "0.0.8200", "buffer_count=64")
    assert r.returncode == 9
    assert r.stderr == ("QETH device %s configure failed\n"
                        "    Error: Cannot set buffer_count='64' while online='1' (*)\n" % FULL)
    assert r.stdout == "Note: You can use --force to override safety checks (*)\n"
    assert attr(host, "buffer_count") == "128"
    assert rule_text(host) == before


def test_chzdev_offline_only_attribute_allowed_with_online_0(host):
    enable_8200(host)
    r = run(host, "chzdev", "qeth", "0.0.8200", "online=0", "buffer_count=64")
    assert r.returncode == 0, r.stderr
    assert attr(host, "online") == "0"
    assert attr(host, "buffer_count") == "64"
    assert 'ATTR{[ccwgroup/0.0.8200]buffer_count}="64"' in rule_text(host)


def test_chzdev_force_turns_conflict_into_warning_and_kernel_eperm_exit_17(host):
    enable_8200(host)
    r = run(host, "chzdev", "-e", "-f", "qeth", "0.0.8200", "buffer_count=64")
    assert r.returncode == 17
    assert r.stderr == ("QETH device %s configure failed\n"
                        "    Warning: Cannot set buffer_count='64' while online='1'\n"
                        "    Error: Could not write file %s/buffer_count: Operation not permitted\n"
                        % (FULL, Q))
    assert "Note:" not in r.stdout


def test_chzdev_second_identical_enable_is_already_configured(host):
    enable_8200(host)
    r = run(host, "chzdev", "-e", "qeth", "0.0.8200")
    assert r.returncode == 0
    assert r.stdout == "QETH device %s already configured\n" % FULL


def test_chzdev_dry_run_changes_nothing(host):
    r = run(host, "chzdev", "--dry-run", "-e", "qeth", "0.0.8200", "layer2=1")
    assert r.returncode == 0
    assert r.stdout == ("Starting dry-run, configuration will not be changed\n"
                        "QETH device %s configured\n" % FULL)
    assert host.listdir("/sys/bus/ccwgroup/devices") == []
    assert not os.path.exists(host.zroot + RULE)


def test_chzdev_persistent_only_writes_rule_with_derived_online_0_first(host):
    r = run(host, "chzdev", "-p", "qeth", "8200", "layer2=1")
    assert r.returncode == 0
    assert host.listdir("/sys/bus/ccwgroup/devices") == []
    cfg = rule_text(host).split('LABEL="cfg_qeth_0.0.8200"\n')[1]
    assert cfg.splitlines()[:2] == ['ATTR{[ccwgroup/0.0.8200]online}="0"',
                                    'ATTR{[ccwgroup/0.0.8200]layer2}="1"']


def test_chzdev_active_only_writes_no_rule(host):
    r = run(host, "chzdev", "-a", "-e", "qeth", "8200", "layer2=1")
    assert r.returncode == 0
    assert attr(host, "online") == "1"
    assert not os.path.exists(host.zroot + RULE)


def test_chzdev_disable_sets_offline_ungroups_and_removes_rule(host):
    # zdev subtype_write_device(): deconfigure_active (online=0), then device_undefine
    # (ccwgroup_ungroup writes the group device's ungroup attribute).
    enable_8200(host)
    r = run(host, "chzdev", "-d", "qeth", "8200")
    assert r.returncode == 0
    assert r.stdout == "QETH device %s deconfigured\n" % FULL
    assert host.listdir("/sys/bus/ccwgroup/devices") == []
    assert not os.path.exists(host.zroot + Q)
    assert not os.path.exists(host.zroot + RULE)
    # the CCW devices are free again: the same group can be built anew
    r = run(host, "chzdev", "-d", "qeth", "8200")
    assert r.stdout == "QETH device %s already deconfigured\n" % FULL
    enable_8200(host)
    assert attr(host, "online") == "1"


def test_chzdev_disable_active_ungroups_an_offline_group_device(host):
    run(host, "chzdev", "-a", "qeth", "8200", "online=0", "layer2=1")
    assert host.listdir("/sys/bus/ccwgroup/devices") == ["0.0.8200"]
    r = run(host, "chzdev", "-d", "-a", "qeth", "8200")
    assert (r.returncode, r.stdout, r.stderr) == (0, "QETH device %s deconfigured\n" % FULL, "")
    assert host.listdir("/sys/bus/ccwgroup/devices") == []


def test_chzdev_disable_failing_ungroup_exit_32(host):
    enable_8200(host)
    kernel.add_write_fault(host.state_dir, "/sys/devices/qeth/0.0.8200/ungroup", errno.EBUSY)
    r = run(host, "chzdev", "-d", "-a", "qeth", "8200")
    assert r.returncode == 32
    assert r.stderr == ("QETH device %s deconfigure failed\n"
                        "    Error: Could not write file %s/ungroup: Device or resource busy\n"
                        % (FULL, Q))
    assert attr(host, "online") == "0"


def test_chzdev_online_0_applies_before_layer2_and_other_offline_only_attributes(host):
    # zdev sorts offline-only attributes after online=0 (ccw_offline_only_order_cmp); the kernel
    # refuses layer2 on an online device (EPERM), so the order matters.
    enable_8200(host)
    r = run(host, "chzdev", "-a", "qeth", "8200", "layer2=0", "buffer_count=64", "online=0")
    assert (r.returncode, r.stderr) == (0, "")
    assert (attr(host, "online"), attr(host, "layer2"), attr(host, "buffer_count")) == \
        ("0", "0", "64")
    # and with online=1 (-e) layer2 still goes first, online last
    r = run(host, "chzdev", "-e", "-a", "qeth", "8200", "buffer_count=32", "layer2=1")
    assert (r.returncode, r.stderr) == (0, "")
    assert (attr(host, "online"), attr(host, "layer2"), attr(host, "buffer_count")) == \
        ("1", "1", "32")


def test_chzdev_invalid_value_exit_6_lists_acceptable_values(host):
    r = run(host, "chzdev", "-e", "qeth", "8200", "buffer_count=200")
    assert r.returncode == 6
    assert r.stderr == ("QETH device %s configure failed\n"
                        "    Error: Invalid value for qeth attribute: buffer_count=200 (*)\n" % FULL)
    assert r.stdout == ("    Acceptable values:\n"
                        "      - Integers in the range 8 - 128\n"
                        "    Use 'chzdev qeth --help-attribute buffer_count' for more information\n"
                        "Note: You can use --force to override safety checks (*)\n")
    assert host.listdir("/sys/bus/ccwgroup/devices") == []


def test_chzdev_unknown_attribute_exit_4(host):
    r = run(host, "chzdev", "-e", "qeth", "8200", "bogus=1")
    assert r.returncode == 4
    assert "    Error: Unknown QETH attribute specified: bogus (*)\n" in r.stderr


def test_chzdev_missing_device_exit_28(host):
    r = run(host, "chzdev", "-e", "qeth", "0.0.9999")
    assert r.returncode == 28
    assert r.stderr == ("QETH device 0.0.9999 configure failed\n"
                        "    Error: Read CCW device not found\n")


def test_chzdev_other_device_type_not_found_exit_3(host):
    r = run(host, "chzdev", "-e", "dasd", "0.0.0100")
    assert r.returncode == 3
    assert r.stderr == "DASD device 0.0.0100 configure failed\n    Error: Device not found\n"


def test_chzdev_failing_online_write_reported_exit_17(host):
    run(host, "chzdev", "-a", "qeth", "8200", "layer2=1")
    kernel.add_write_fault(host.state_dir, "/sys/devices/qeth/0.0.8200/online", errno.ENODEV)
    r = run(host, "chzdev", "-e", "qeth", "8200")
    assert r.returncode == 17
    assert r.stderr == ("QETH device %s configure failed\n"
                        "    Error: Could not write file %s/online: No such device\n" % (FULL, Q))
    assert attr(host, "online") == "0"


def test_chzdev_retries_eagain_writes_like_zdev(host):
    run(host, "chzdev", "-a", "qeth", "8200", "layer2=1")
    kernel.add_write_fault(host.state_dir, "/sys/devices/qeth/0.0.8200/online", errno.EAGAIN,
                           count=1)
    r = run(host, "chzdev", "-a", "-e", "qeth", "8200")
    assert (r.returncode, r.stdout) == (0, "QETH device %s configured\n" % FULL)
    # zdev queues the failed attempt's message even when the retry succeeds
    assert r.stderr == ("    Error: Could not write file %s/online: Resource temporarily "
                        "unavailable\n" % Q)
    assert attr(host, "online") == "1"
    host.write(Q + "/online", "0")
    kernel.add_write_fault(host.state_dir, "/sys/devices/qeth/0.0.8200/online", errno.EAGAIN,
                           count=4)
    r = run(host, "chzdev", "-a", "-e", "qeth", "8200")
    assert r.returncode == 17
    assert r.stderr.count("    Error: Could not write file %s/online: Resource temporarily "
                          "unavailable\n" % Q) == 4


def test_chzdev_already_grouped_ccw_device_exit_30(host):
    host.write("/sys/bus/ccwgroup/drivers/qeth/group", "0.0.8201,0.0.8202,0.0.8203")
    r = run(host, "chzdev", "-e", "qeth", "0.0.8200:0.0.8201:0.0.8202")
    assert r.returncode == 30
    assert "    Error: CCW device 0.0.8201 already grouped\n" in r.stderr


def test_chzdev_without_action_is_usage_error(host):
    r = run(host, "chzdev", "qeth", "8200")
    assert r.returncode == 1
    assert r.stderr == ("chzdev: Please specify an action\n"
                        "Use 'chzdev --help' for more information\n")


def test_chzdev_injected_tool_fault(host):
    kernel.add_tool_fault(host.state_dir, "chzdev", 15, stderr="chzdev: injected")
    r = run(host, "chzdev", "-e", "qeth", "8200")
    assert (r.returncode, r.stderr) == (15, "chzdev: injected\n")
    assert host.listdir("/sys/bus/ccwgroup/devices") == []
    assert run(host, "chzdev", "-e", "qeth", "8200").returncode == 0


def test_chzdev_injected_tool_fault_after_normal_runs(host):
    # zlab fault HOST tool chzdev 17 --after 1: the second call fails (a bounce's online step)
    enable_8200(host)
    kernel.add_tool_fault(host.state_dir, "chzdev", 17, after=1)
    r = run(host, "chzdev", "-a", "qeth", "8200", "online=0")
    assert (r.returncode, r.stderr) == (0, "")
    r = run(host, "chzdev", "-e", "-a", "qeth", "8200", "buffer_count=64")
    assert r.returncode == 17
    assert (attr(host, "online"), attr(host, "buffer_count")) == ("0", "128")
    r = run(host, "chzdev", "-e", "-a", "qeth", "8200")
    assert (r.returncode, attr(host, "online")) == (0, "1")


def test_chzdev_remove_setting_from_persistent_config(host):
    enable_8200(host)
    r = run(host, "chzdev", "-p", "qeth", "8200", "-r", "buffer_count")
    assert r.returncode == 0, r.stderr
    assert "buffer_count" not in rule_text(host)
    r = run(host, "chzdev", "-p", "qeth", "8200", "-r", "buffer_count")
    assert r.returncode == 7
    assert "    Error: Setting not found: buffer_count\n" in r.stderr


def test_chzdev_rule_is_applied_by_kernel_at_reboot(host):
    enable_8200(host)
    text = rule_text(host)
    kernel.boot(host.state_dir, kernel.state(host.state_dir)["spec"])
    assert host.listdir("/sys/bus/ccwgroup/devices") == []
    kernel.apply_persistent(host.state_dir, host.zroot)
    assert (attr(host, "online"), attr(host, "layer2"), attr(host, "buffer_count")) == \
        ("1", "1", "128")
    assert rule_text(host) == text


# ---- lszdev --------------------------------------------------------------------------------

def test_lszdev_default_table(host):
    enable_8200(host)
    r = run(host, "lszdev")
    assert r.returncode == 0
    lines = r.stdout.splitlines()
    assert lines[0] == "TYPE  ID                          ON   PERS  NAMES"
    assert lines[1] == "qeth  0.0.8200:0.0.8201:0.0.8202  yes  yes   enc8200"
    assert lines[2] == "qeth  0.0.8203:0.0.8204:0.0.8205  no   no    "
    assert len(lines) == 6


def test_lszdev_columns_no_headings(host):
    enable_8200(host)
    r = run(host, "lszdev", "qeth", "0.0.8200", "--columns", "ID,ON,PERS,NAMES,ATTR:layer2",
            "--no-headings")
    assert r.stdout == "0.0.8200:0.0.8201:0.0.8202  yes  yes   enc8200  1/1/-\n"


def test_lszdev_pairs(host):
    enable_8200(host)
    r = run(host, "lszdev", "qeth", "8200", "--pairs", "--columns", "ID,ON,EXISTS,ATTR:buffer_count")
    assert r.stdout == ('ID="0.0.8200:0.0.8201:0.0.8202" ON="yes" EXISTS="yes" '
                        'ATTR:buffer_count="128/128/-"\n')


def test_lszdev_active_and_persistent_views_differ(host):
    enable_8200(host)
    host.write(Q + "/online", "0")
    host.write(Q + "/buffer_count", "64")
    cols = ["qeth", "8200", "-n", "-c", "ATTR:buffer_count"]
    assert run(host, "lszdev", *cols).stdout == "64/128/-\n"
    assert run(host, "lszdev", "-a", *cols).stdout == "64\n"
    assert run(host, "lszdev", "-p", *cols).stdout == "128\n"


def test_lszdev_info(host):
    enable_8200(host)
    r = run(host, "lszdev", "qeth", "0.0.8200", "--info")
    lines = r.stdout.splitlines()
    assert lines[:8] == ["DEVICE qeth 0.0.8200:0.0.8201:0.0.8202",
                         "  Names              : enc8200",
                         "  Network interfaces : enc8200",
                         "  Modules            : qeth",
                         "  Online             : yes",
                         "  Exists             : yes",
                         "  Persistent         : yes",
                         ""]
    assert lines[8].split() == ["ATTRIBUTE", "ACTIVE", "PERSISTENT"]
    rows = {l.split()[0]: l.split()[1:] for l in lines[9:]}
    assert rows["buffer_count"] == ['"128"', '"128"']
    assert rows["isolation"] == ['"none"', "-"]
    assert rows["layer2"] == ['"1"', '"1"']


def test_lszdev_unknown_column_exit_13(host):
    r = run(host, "lszdev", "--columns", "ID,BOGUS")
    assert r.returncode == 13
    assert r.stderr == "lszdev: Unknown column name specified: BOGUS\n"


def test_lszdev_empty_selection_exit_8(host):
    r = run(host, "lszdev", "dasd")
    assert (r.returncode, r.stderr) == (8, "lszdev: No device was selected!\n")


def test_chzdev_unchanged_offline_only_setting_on_online_device_is_no_conflict(host):
    enable_8200(host)
    r = run(host, "chzdev", "-e", "qeth", "0.0.8200", "layer2=1", "buffer_count=128")
    assert (r.returncode, r.stdout, r.stderr) == (
        0, "QETH device %s already configured\n" % FULL, "")


def test_chzdev_conflict_checked_when_only_persistent_config_changes(host):
    run(host, "chzdev", "-a", "-e", "qeth", "8200", "layer2=1")
    r = run(host, "chzdev", "-e", "qeth", "0.0.8200", "layer2=1")
    assert r.returncode == 9
    assert "    Error: Cannot set layer2='1' while online='1' (*)\n" in r.stderr
    assert not os.path.exists(host.zroot + RULE)
    r = run(host, "chzdev", "-p", "qeth", "0.0.8200", "layer2=1", "online=1")
    assert r.returncode == 0
    assert 'ATTR{[ccwgroup/0.0.8200]online}="1"' in rule_text(host)


def test_chzdev_range_selects_each_group_once(host):
    r = run(host, "chzdev", "-e", "qeth", "0.0.8200-0.0.8205")
    assert r.returncode == 0, r.stderr
    assert r.stdout == ("QETH device 0.0.8200:0.0.8201:0.0.8202 configured\n"
                        "QETH device 0.0.8203:0.0.8204:0.0.8205 configured\n")
    assert host.listdir("/sys/bus/ccwgroup/devices") == ["0.0.8200", "0.0.8203"]
    r = run(host, "chzdev", "-d", "qeth", "0.0.8200-0.0.8205")
    assert r.stdout.count("deconfigured\n") == 2


def test_chzdev_type_option_qeth_has_no_type_attributes(host):
    r = run(host, "chzdev", "-t", "qeth")
    assert (r.returncode, r.stderr) == (4, "chzdev: Device type qeth does not provide type "
                                           "attributes\n")
    r = run(host, "chzdev", "-t", "qeth", "0.0.8200", "layer2=1")
    assert (r.returncode, r.stderr) == (1, "chzdev: Cannot specify '--type' and select a device "
                                           "when configuring\n")


def test_lszdev_persistent_view_lists_only_configured_devices(host):
    run(host, "chzdev", "-p", "qeth", "8203", "layer2=1")
    r = run(host, "lszdev", "-p")
    assert r.stdout.splitlines() == ["TYPE  ID                          PERS",
                                     "qeth  0.0.8203:0.0.8204:0.0.8205  yes"]
    r = run(host, "lszdev", "-a", "qeth", "8203")
    assert r.stdout.splitlines() == ["TYPE  ID                          ON  NAMES",
                                     "qeth  0.0.8203:0.0.8204:0.0.8205  no  "]


def test_chzdev_disable_definable_device_is_already_deconfigured(host):
    r = run(host, "chzdev", "-d", "qeth", "8206")
    assert (r.returncode, r.stdout) == (
        0, "QETH device 0.0.8206:0.0.8207:0.0.8208 already deconfigured\n")
    r = run(host, "chzdev", "-d", "qeth", "0.0.9999")
    assert (r.returncode, r.stderr) == (3, "QETH device 0.0.9999 deconfigure failed\n"
                                           "    Error: Device not found\n")


def test_chzdev_disable_in_use_interface_asks_and_aborts_without_input(host, tmp_path):
    # an interface with an IP address (zdev inuse.c asks "ip address show IFNAME")
    os.makedirs(os.path.join(host.real_sys, "class", "net", "enc8200"), exist_ok=True)
    try:
        enable_8200(host)
        ip = tmp_path / "ip"
        ip.write_text("#!/bin/sh\necho '3: enc8200: <BROADCAST,UP> mtu 32768'\n"
                      "echo '    inet 10.1.1.1/24 scope global enc8200'\n")
        ip.chmod(0o755)
        env = {"PATH": "%s:%s" % (tmp_path, os.environ["PATH"])}
        r = run(host, "chzdev", "-d", "qeth", "8200", stdin="", env=env)
        assert r.returncode == 16
        assert r.stdout == "Continue with operation? (yes/no) "
        assert r.stderr == ("Warning: QETH device %s is in use!\n"
                            "         The following resources may be affected:\n"
                            "          - IPv4 address 10.1.1.1/24\n"
                            "Operation canceled due to missing input\n"
                            "QETH device %s deconfigure failed\n"
                            "    Error: Operation aborted on user request\n" % (FULL, FULL))
        assert attr(host, "online") == "1"
        r = run(host, "chzdev", "-d", "-y", "qeth", "8200", env=env)
        assert (r.returncode, r.stdout) == (0, "QETH device %s deconfigured\n" % FULL)
    finally:
        os.rmdir(os.path.join(host.real_sys, "class", "net", "enc8200"))
