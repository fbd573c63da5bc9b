# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""hostinit.start_device_units: at a lab boot, the units enabled for a network interface's device
unit (``sys-subsystem-net-devices-IF.device.wants/``) run, as systemd starts them when the
interface appears; a temp directory is the host root, a temp directory of names the interfaces."""

import os
import sys

from zlab import hostinit

UNIT = """# Managed by a test
[Unit]
Description=tuning of {ifname}
BindsTo=sys-subsystem-net-devices-{escaped}.device

[Service]
Type=oneshot
RemainAfterExit=yes
Environment=PATH=/usr/sbin:/usr/bin:/sbin:/bin "MARK=a b"
ExecStart={python} -c "import os, sys; open(sys.argv[1], 'a').write(os.environ['MARK'] + ' ' + sys.argv[2] + '\\\\n')" {out} {ifname}

[Install]
WantedBy=sys-subsystem-net-devices-{escaped}.device
"""


def enable(root, unit, escaped, text):
    etc = os.path.join(root, "etc/systemd/system")
    wants = os.path.join(etc, "sys-subsystem-net-devices-%s.device.wants" % escaped)
    os.makedirs(wants, exist_ok=True)
    with open(os.path.join(etc, unit), "w", encoding="utf-8") as f:
        f.write(text)
    # what systemctl enable writes: an absolute link to the unit file on the host
    os.symlink("/etc/systemd/system/" + unit, os.path.join(wants, unit))


def test_units_of_present_interfaces_run_with_their_environment(tmp_path):
    root, net, out = tmp_path / "root", tmp_path / "net", tmp_path / "ran"
    (net / "enc8203").mkdir(parents=True)
    (net / "enc-1").mkdir()
    for ifname, escaped in (("enc8203", "enc8203"), ("enc-1", "enc\\x2d1"), ("enc9", "enc9")):
        unit = "tune-%s.service" % escaped
        enable(str(root), unit, escaped, UNIT.format(ifname=ifname, escaped=escaped, python=sys.executable, out=out))
    done = hostinit.start_device_units(str(root), str(net))
    assert done == {"tune-enc8203.service": 0, "tune-enc\\x2d1.service": 0, "tune-enc9.service": "no interface enc9"}
    assert sorted(out.read_text().splitlines()) == ["a b enc-1", "a b enc8203"]


def test_a_failing_command_stops_the_unit_unless_it_is_ignored(tmp_path):
    root, net, out = tmp_path / "root", tmp_path / "net", tmp_path / "ran"
    (net / "eth0").mkdir(parents=True)
    text = (
        "[Service]\nType=oneshot\nExecStart=-/bin/false\nExecStart=/bin/sh -c 'echo one >> %s'\n"
        "ExecStart=/bin/false\nExecStart=/bin/sh -c 'echo two >> %s'\n" % (out, out)
    )
    enable(str(root), "t.service", "eth0", text)
    assert hostinit.start_device_units(str(root), str(net)) == {"t.service": 1}
    assert out.read_text() == "one\n"


def test_nothing_enabled(tmp_path):
    assert hostinit.start_device_units(str(tmp_path), str(tmp_path)) == {}
    (tmp_path / "etc/systemd/system/multi-user.target.wants").mkdir(parents=True)
    assert hostinit.start_device_units(str(tmp_path), str(tmp_path)) == {}


HOSTILE = ["v$(id>x)", "x;y", "p%n", 'q"r', "a b", "t\\u", "$HOME", "%%", "'", "`id`"]


def test_unit_words_reads_back_what_the_collection_writes():
    # the lab starts the collection's units itself: its word splitting must give back the argv the
    # collection's unit writer (unit_syntax.exec_line, environment_line) meant
    from ansible_collections.s390x.network.plugins.module_utils.engine import unit_syntax

    for value in HOSTILE:
        argv = ["/usr/sbin/ethtool", "-K", value, "gro", "on"]
        line = unit_syntax.exec_line(argv)
        assert hostinit.unit_words(line[len("ExecStart=") :]) == argv, line
        env_line = unit_syntax.environment_line([("MARK", value)])
        assert hostinit.unit_words(env_line[len("Environment=") :], dollars=False) == ["MARK=" + value], env_line


def test_unit_words_splits_like_systemd():
    assert hostinit.unit_words('a "b c" \'d e\' f\\x20g %%h $$i') == ["a", "b c", "d e", "f g", "%h", "$i"]
    assert hostinit.unit_words("$$x %%y", dollars=False) == ["$$x", "%y"]
    assert hostinit.unit_words('  "" x ') == ["", "x"]
