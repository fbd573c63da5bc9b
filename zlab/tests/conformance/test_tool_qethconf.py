"""znetconf and lsqeth conformance (s390-tools zconf/znetconf, zconf/qeth/lsqeth.c)."""

import os

from toolrun import run

Q = "/sys/bus/ccwgroup/drivers/qeth/0.0.8200"


def online_8200(h, layer2="1", count="128"):
    h.write("/sys/bus/ccwgroup/drivers/qeth/group", "0.0.8200,0.0.8201,0.0.8202")
    h.write(Q + "/layer2", layer2)
    h.write(Q + "/buffer_count", count)
    h.write(Q + "/online", "1")


# ---- znetconf ------------------------------------------------------------------------------

def test_znetconf_unconfigured_lists_groupable_triples(host):
    r = run(host, "znetconf", "-u")
    assert r.returncode == 0
    lines = r.stdout.splitlines()
    assert lines[0] == "Scanning for network devices..."
    assert lines[1] == "Device IDs                 Type    Card Type      CHPID Drv. "
    assert lines[2] == "-" * 60
    assert lines[3] == "0.0.8200,0.0.8201,0.0.8202 1731/05 HiperSockets      f0 qeth "
    assert len(lines) == 8


def test_znetconf_add_groups_sets_option_and_onlines(host):
    r = run(host, "znetconf", "-a", "8200", "-o", "layer2=1")
    assert r.returncode == 0, r.stderr
    assert r.stdout == ("Scanning for network devices...\n"
                        "Successfully configured device 0.0.8200 (enc8200)\n")
    assert host.read(Q + "/layer2") == "1\n"
    assert host.read(Q + "/online") == "1\n"


def test_znetconf_configured_list_format(host):
    online_8200(host)
    r = run(host, "znetconf", "-c")
    assert r.stdout.splitlines() == [
        "Device IDs                 Type    Card Type      CHPID Drv. Name             State  ",
        "-" * 85,
        "0.0.8200,0.0.8201,0.0.8202 1731/05 HiperSockets      F0 qeth enc8200          online ",
    ]


def test_znetconf_remove_non_interactive_ungroups(host):
    online_8200(host)
    r = run(host, "znetconf", "-r", "8200", "-n")
    assert r.returncode == 0
    assert r.stdout == ("Remove network device 0.0.8200 (0.0.8200,0.0.8201,0.0.8202)?\n"
                        "Warning: this may affect network connectivity!\n"
                        "Successfully removed device 0.0.8200 (enc8200)\n")
    assert host.listdir("/sys/bus/ccwgroup/devices") == []


def test_znetconf_remove_answer_no_keeps_device(host):
    online_8200(host)
    r = run(host, "znetconf", "-r", "8200", stdin="n\n")
    assert r.returncode == 0
    assert r.stdout.endswith("Do you want to continue (y/n)?")
    assert host.read(Q + "/online") == "1\n"


def test_znetconf_invalid_id_exit_15(host):
    r = run(host, "znetconf", "-a", "xyz1")
    assert (r.returncode, r.stderr) == (15, "znetconf: Error: Invalid device ID format xyz1\n")


def test_znetconf_remove_unconfigured_exit_22(host):
    r = run(host, "znetconf", "-r", "8203")
    assert (r.returncode, r.stderr) == (22, "znetconf: Error: 0.0.8203 is not a configured "
                                            "device\n")


def test_znetconf_add_grouped_device_has_no_configuration_exit_21(host):
    online_8200(host)
    r = run(host, "znetconf", "-a", "8200")
    assert r.returncode == 21
    assert r.stderr == "znetconf: Error: No configuration found for device ID 0.0.8200\n"


def test_znetconf_failing_option_exit_24_but_device_online(host):
    r = run(host, "znetconf", "-a", "8200", "-o", "buffer_count=abc")
    assert r.returncode == 24
    assert r.stderr == "znetconf: Error: Failed to configure buffer_count=abc\n"
    assert host.read(Q + "/online") == "1\n"


def test_znetconf_two_actions_exit_20(host):
    r = run(host, "znetconf", "-c", "-u")
    assert r.returncode == 20
    assert r.stderr == "znetconf: Error: Too much arguments\n"


# ---- lsqeth --------------------------------------------------------------------------------

def test_lsqeth_long_format_of_layer2_hipersockets(host):
    online_8200(host)
    r = run(host, "lsqeth")
    assert r.returncode == 0
    lines = r.stdout.splitlines()
    assert lines[0] == "Device name                      : enc8200"
    assert lines[1] == "-" * 75
    assert "        card_type                : HiperSockets" in lines
    assert "        cdev0                    : 0.0.8200" in lines
    assert "        chpid                    : F0" in lines
    assert "        buffer_count             : 128" in lines
    assert "        layer2                   : 1" in lines
    assert "        vnicc/learning_timeout   : 600" in lines
    keys = [l.split(":")[0].strip() for l in lines[2:] if l]
    assert keys.index("card_type") < keys.index("cdev0") < keys.index("chpid") < \
        keys.index("online") < keys.index("buffer_count") < keys.index("layer2")
    # layer-3 attributes are not shown for layer-2 devices
    assert not [k for k in keys if k in ("route4", "route6", "sniffer", "checksumming")]
    assert lines[-1] == "" and r.stdout.endswith(" : 0\n\n")


def test_lsqeth_proc_format(host):
    online_8200(host)
    r = run(host, "lsqeth", "-p")
    lines = r.stdout.splitlines()
    assert lines[0] == ("devices                    CHPID interface        cardtype       port "
                        "chksum prio-q'ing rtr4 rtr6 lay'2 cnt  ")
    assert lines[1] == "-" * 109
    assert lines[2].split() == ["0.0.8200/0.0.8201/0.0.8202", "xF0", "enc8200", "HiperSockets",
                                "0", "sw", lines[2].split()[6], "n/a", "n/a", "1", "128"]
    assert len(lines[2]) == 109


def test_lsqeth_no_such_interface(host):
    r = run(host, "lsqeth", "hsi9")
    assert (r.returncode, r.stderr) == (1, "lsqeth: No such device: hsi9\n")


def test_znetconf_add_all_except_and_remove_all(host):
    r = run(host, "znetconf", "-A", "-e", "8206", "-e", "0.0.8209")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        "Scanning for network devices...",
        "Successfully configured device 0.0.8200 (enc8200)",
        "Successfully configured device 0.0.8203 (enc8203)",
        "Successfully configured device 0.0.820c (enc820c)"]
    r = run(host, "znetconf", "-R", "-n", "-e", "8203")
    assert r.stdout.splitlines() == [
        "Remove all network devices except 0.0.8203",
        "Warning: this will affect network connectivity!",
        "Successfully removed device 0.0.8200 (enc8200)",
        "Successfully removed device 0.0.820c (enc820c)"]
    assert host.listdir("/sys/bus/ccwgroup/devices") == ["0.0.8203"]


def test_lsqeth_single_interface_through_class_net(host):
    os.makedirs(os.path.join(host.real_sys, "class", "net", "enc8200"), exist_ok=True)
    try:
        online_8200(host, layer2="0", count="64")
        r = run(host, "lsqeth", "enc8200")
        assert r.returncode == 0, r.stderr
        lines = r.stdout.splitlines()
        assert lines[0] == "Device name                      : enc8200"
        assert "        buffer_count             : 64" in lines
        assert "        layer2                   : 0" in lines
        assert run(host, "lsqeth", "enc8203").returncode == 1
    finally:
        os.rmdir(os.path.join(host.real_sys, "class", "net", "enc8200"))
