# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""nic_tuning's boot unit with hostile values: parsed back the way systemd reads it, checked by the
real systemd-analyze where installed, and its commands run (ethtool faked on PATH, the script by the
real /bin/sh against a tree of files). A value is data: it reaches ethtool and the files as exactly
one argument and nothing runs that the unit does not name."""

from __future__ import absolute_import, division, print_function

import os
import shutil
import stat
import subprocess

import pytest

from ansible_collections.s390x.network.plugins.module_utils.nic import persist
from ansible_collections.s390x.network.plugins.module_utils.engine import unit_syntax

# systemd.syntax(7): the C escapes ExecStart= decodes inside and outside quotes
_C_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "s": " "}


class NotLiteral(AssertionError):
    """A word systemd would not pass on as written: a specifier, a variable, a bad quote."""


def systemd_words(value):
    """The words of an ExecStart= value as systemd splits them (extract_first_word with
    EXTRACT_UNQUOTE | EXTRACT_CUNESCAPE): whitespace separates, single and double quotes group
    (also in the middle of a word), backslash escapes are decoded everywhere."""
    words, index = [], 0
    while True:
        while index < len(value) and value[index] in " \t":
            index += 1
        if index >= len(value):
            return words
        word, quote = [], None
        while index < len(value):
            char = value[index]
            if quote is None and char in " \t":
                break
            if char == "\\":
                nxt = value[index + 1 : index + 2]
                if nxt == "x":
                    word.append(chr(int(value[index + 2 : index + 4], 16)))
                    index += 4
                    continue
                if nxt.isdigit():
                    word.append(chr(int(value[index + 1 : index + 4], 8)))
                    index += 4
                    continue
                if not nxt:
                    raise NotLiteral("a trailing backslash in %r" % value)
                word.append(_C_ESCAPES.get(nxt, nxt))
                index += 2
                continue
            if quote is None and char in "'\"":
                quote = char
            elif char == quote:
                quote = None
            else:
                word.append(char)
            index += 1
        if quote is not None:
            raise NotLiteral("unbalanced quoting in %r" % value)
        words.append("".join(word))


def expand(word, dollars):
    """A word after specifier expansion (``%%`` -> ``%``) and, in Exec lines, variable expansion
    (``$$`` -> ``$``); any other specifier or variable raises NotLiteral."""
    out, index = [], 0
    while index < len(word):
        char = word[index]
        if char == "%" or (dollars and char == "$"):
            if word[index + 1 : index + 2] != char:
                raise NotLiteral("%r would be expanded by systemd" % word)
            index += 1
        out.append(char)
        index += 1
    return "".join(out)


def systemd_exec(unit):
    """[(argv, ignore_failure)] of the unit's ExecStart= lines, as systemd would run them."""
    commands = []
    for line in unit.splitlines():
        if not line.startswith("ExecStart="):
            continue
        value = line[len("ExecStart=") :]
        ignore = value.startswith("-")
        words = systemd_words(value[1:] if ignore else value)
        if words[0][:1] in "@:+!" or words == [";"] or ";" in value.split():
            raise NotLiteral("%r has a prefix or a command separator" % line)
        commands.append(([expand(w, dollars=True) for w in words], ignore))
    return commands


def systemd_text(unit, key):
    """The value of a text directive (Description=) after specifier expansion."""
    for line in unit.splitlines():
        if line.startswith(key + "="):
            return expand(line[len(key) + 1 :], dollars=False)
    return None


HOSTILE_NAMES = [
    "a$(touch pwn)",
    "x;touch pwn",
    "`touch pwn`",
    "p%n",
    "%%H",
    'q"r',
    "s'\\",
    "t\\",
    "$$",
    "a$HOME",
    "${PATH}",
    "{{x}}",
    "x*[ab]?",
    "n-1",
    "\u00e9\u00df",
]
HOSTILE_IRQ = 'q"$(id>pwn);`id`'
INTERRUPTS = """           CPU0       CPU1
 38:          0      62751 PCI-MSIX-0000:00:03.0   1-edge      virtio2-input.0
 39:      45117          0 PCI-MSIX-0000:00:03.0   2-edge      %s
 40:          0          0 PCI-MSIX-0000:00:03.0   3-edge      virtio2-input.10
""" % HOSTILE_IRQ


def unit_for(name):
    return persist.render_unit(
        name,
        ethtool_argvs=[["-L", name, "combined", "2"], ["-K", name, "tso", "off"]],
        rps=[("all", "3"), (1, "2")],
        irqs=[("virtio2-input.0", "1"), (HOSTILE_IRQ, "0-1")],
        settings={"channels": {"combined": 2}, "irqs": {HOSTILE_IRQ: "0-1"}},
    )


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_systemd_reads_exactly_the_values_back(name):
    unit = unit_for(name)
    assert systemd_exec(unit) == [
        (["ethtool", "-L", name, "combined", "2"], False),
        (["ethtool", "-K", name, "tso", "off"], False),
        (
            [
                "/bin/sh",
                "/etc/s390x-network/nic-tuning/%s.sh" % name,
                name,
                "rps",
                "all",
                "3",
                "rps",
                "1",
                "2",
                "irq",
                "virtio2-input.0",
                "1",
                "irq",
                HOSTILE_IRQ,
                "0-1",
            ],
            False,
        ),
    ]
    # the module's own reader agrees
    assert [unit_syntax.parse_exec_line(line)[0] for line in unit.splitlines() if line.startswith("ExecStart=")] == [
        argv for argv, _ignore in systemd_exec(unit)
    ]
    # unit names and the description hold only systemd-escape's characters: no specifier, no quote
    escaped = persist.systemd_escape(name)
    assert systemd_text(unit, "Description") == "NIC tuning of %s (s390x.network.nic_tuning)" % escaped
    for key, value in (("BindsTo", persist.device_unit(name)), ("WantedBy", persist.device_unit(name))):
        assert "%s=%s" % (key, value) in unit.splitlines()
    assert unit_syntax.check_unit_name(persist.unit_name(name), "name")
    assert unit_syntax.check_unit_name(persist.device_unit(name), "name", types=("device",))
    assert persist.parse_settings(unit) == {"channels": {"combined": 2}, "irqs": {HOSTILE_IRQ: "0-1"}}
    for line in unit.splitlines():
        assert not line.endswith("\\"), line  # no line joins the next one


@pytest.mark.skipif(not shutil.which("systemd-analyze"), reason="systemd-analyze is not installed")
@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_systemd_analyze_verify_accepts_the_unit(name, tmp_path):
    path = tmp_path / persist.unit_name(name)
    path.write_text(unit_for(name))
    done = subprocess.run(
        ["systemd-analyze", "verify", "--man=no", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        universal_newlines=True,
        env=dict(os.environ, SYSTEMD_LOG_LEVEL="notice", PATH="/usr/sbin:/usr/bin:/sbin:/bin"),
        check=False,
    )
    # ethtool may be missing on the machine running the tests: the one complaint allowed
    complaints = [line for line in done.stdout.splitlines() if "ethtool" not in line or "not executable" not in line]
    assert complaints == [], done.stdout


@pytest.fixture
def host(tmp_path):
    """A tree with the interface's queues and IRQs, an ethtool on PATH that records its arguments
    (NUL-separated), and an empty working directory for the commands."""

    class Host(object):
        pass

    box = Host()
    box.root = tmp_path / "root"
    box.bin = tmp_path / "bin"
    box.cwd = tmp_path / "cwd"
    box.log = tmp_path / "ethtool.log"
    for path in (box.root, box.bin, box.cwd):
        path.mkdir()
    for irq in (38, 39, 40):
        (box.root / ("proc/irq/%d" % irq)).mkdir(parents=True)
        (box.root / ("proc/irq/%d/smp_affinity_list" % irq)).write_text("0-1\n")
    (box.root / "proc/interrupts").write_text(INTERRUPTS)
    fake = box.bin / "ethtool"
    fake.write_text('#!/bin/sh\nprintf "%%s\\0" "$@" >> "%s"\nprintf "\\n" >> "%s"\n' % (box.log, box.log))
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)

    def add_iface(name, queues=2):
        for queue in range(queues):
            path = box.root / "sys/class/net" / name / "queues" / ("rx-%d" % queue)
            path.mkdir(parents=True)
            (path / "rps_cpus").write_text("0\n")

    def run(argv):
        if argv[0] == "/bin/sh":
            # the script from its constant text, not from /etc
            script = box.cwd.parent / "helper.sh"
            script.write_text(persist.HELPER)
            argv = ["/bin/sh", str(script)] + argv[2:]
        else:
            argv = [str(box.bin / argv[0])] + argv[1:]
        return subprocess.run(
            argv,
            cwd=str(box.cwd),
            env={"PATH": "%s:/usr/bin:/bin" % box.bin, "NIC_TUNING_ROOT": str(box.root)},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            universal_newlines=True,
            check=False,
        )

    def ethtool_calls():
        text = box.log.read_text() if box.log.exists() else ""
        return [line.split("\0")[:-1] for line in text.splitlines()]

    box.add_iface, box.run, box.ethtool_calls = add_iface, run, ethtool_calls
    return box


def pwned(tmp_path):
    return sorted(str(p) for p in tmp_path.rglob("pwn*"))


@pytest.mark.skipif(not shutil.which("awk"), reason="the boot script needs awk")
@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_the_units_commands_treat_every_value_as_data(host, tmp_path, name):
    host.add_iface(name)
    for argv, _ignore in systemd_exec(unit_for(name)):
        done = host.run(argv)
        assert done.returncode == 0, (argv, done.stderr)
    assert host.ethtool_calls() == [["-L", name, "combined", "2"], ["-K", name, "tso", "off"]]
    queues = host.root / "sys/class/net" / name / "queues"
    assert (queues / "rx-0/rps_cpus").read_text() == "3\n"
    assert (queues / "rx-1/rps_cpus").read_text() == "2\n"
    assert (host.root / "proc/irq/38/smp_affinity_list").read_text() == "1\n"
    assert (host.root / "proc/irq/39/smp_affinity_list").read_text() == "0-1\n"
    assert (host.root / "proc/irq/40/smp_affinity_list").read_text() == "0-1\n"  # input.10 is not input.0
    assert os.listdir(str(host.cwd)) == [] and pwned(tmp_path) == []


@pytest.mark.skipif(not shutil.which("awk"), reason="the boot script needs awk")
def test_the_script_goes_on_after_a_failure_and_exits_non_zero(host):
    host.add_iface("eth0")
    done = host.run(
        ["/bin/sh", "-", "eth0", "rps", "7", "2", "irq", "virtio9-input.0", "1", "rps", "1", "2"]
        + ["irq", "virtio2-input.10", "0"]
    )
    assert done.returncode == 1
    assert "no IRQ named virtio9-input.0" in done.stderr
    assert (host.root / "sys/class/net/eth0/queues/rx-1/rps_cpus").read_text() == "2\n"
    assert (host.root / "proc/irq/40/smp_affinity_list").read_text() == "0\n"


@pytest.mark.parametrize(
    "args, message",
    [
        (["../x", "rps", "all", "1"], "../x is not an interface name"),
        (["..", "rps", "all", "1"], ".. is not an interface name"),
        (["", "rps", "all", "1"], " is not an interface name"),
        (["eth0", "rps", "../../../tmp/x", "1"], "../../../tmp/x is not an RX queue"),
        (["eth0", "rps", "", "1"], " is not an RX queue"),
        (["eth0", "exec", "id", "x"], "unknown setting exec"),
        (["eth0", "rps", "0"], "2 arguments left over"),
    ],
)
def test_the_script_refuses_arguments_its_unit_never_holds(host, tmp_path, args, message):
    host.add_iface("eth0")
    done = host.run(["/bin/sh", "-"] + args)
    assert done.returncode != 0 and message in done.stderr
    assert (host.root / "sys/class/net/eth0/queues/rx-0/rps_cpus").read_text() == "0\n"
    assert not (tmp_path / "tmp").exists()


@pytest.mark.parametrize(
    "irqs, field",
    [([("virtio2-input.0\nExecStartPre=/bin/id", "1")], "rps_cpus/irq_affinity[13]"), ([("x", "1\r")], "[14]")],
)
def test_a_value_no_unit_can_hold_is_refused_naming_it(irqs, field):
    with pytest.raises(unit_syntax.UnitSyntaxError) as err:
        persist.render_unit("eth0", rps=[("all", "1"), (0, "1"), (1, "1")], irqs=irqs)
    assert field in str(err.value)
