# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""unit_syntax: lines of systemd units and drop-ins that systemd reads back exactly as meant.

The lines are read back with ``read_unit`` below, an independent reader written from
systemd.syntax(7), systemd.service(5) and systemd.exec(5) (line continuation, comments, quoting,
C escapes, specifiers, ``$`` expansion, ``;`` separators), and, when the machine has it, with
``systemd-analyze verify``. Module tests import ``read_unit``, ``exec_commands`` and
``environment_of`` to read the units they write.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re
import shutil
import subprocess

import pytest
from hypothesis import given, settings, strategies as st

from ansible_collections.s390x.network.plugins.module_utils.engine import unit_syntax as us

HOSTILE = [
    "v$(id>x)",
    "a%n",
    "%H",
    "x;y",
    ";",
    "\\;",
    'q"q',
    "it's",
    "back\\slash",
    "trailing\\",
    "`id`",
    "$HOME",
    "${HOME}",
    "$$",
    "%%",
    "-f",
    "--help",
    "../../etc/passwd",
    "/etc/shadow",
    "*.service",
    "with space",
    "",
    "ünïcødé",
    "a" * 300,
]
CONTROL = ["a\nExecStartPre=/bin/id", "a\rb", "a\x00b", "a\tb", "a\x1bb", "a\x7fb", "a\x85b", "a\u2028b", "a\udc80b"]


# -- an independent reader of unit files ------------------------------------------------------------
class UnitReadError(ValueError):
    pass


def logical_lines(text):
    """The lines systemd parses: a line ending in an odd number of backslashes is joined with the
    next one (the backslash becomes a blank), also a comment line; comment lines inside a
    continuation are skipped."""
    out, continuation = [], None
    for raw in text.split("\n"):
        if continuation is not None and raw.lstrip(" \t")[:1] in ("#", ";"):
            continue
        trailing = len(raw) - len(raw.rstrip("\\"))
        if trailing % 2 == 1:
            continuation = (continuation or "") + raw[:-1] + " "
            continue
        out.append((continuation or "") + raw)
        continuation = None
    if continuation is not None:
        out.append(continuation)
    return out


def read_unit(text):
    """``[(section, key, value)]`` of every directive in ``text``, as systemd's parser sees them."""
    directives, section = [], None
    for line in logical_lines(text):
        line = line.strip(" \t\r")
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            if not line.endswith("]"):
                raise UnitReadError("bad section line %r" % line)
            section = line[1:-1]
            continue
        if "=" not in line:
            raise UnitReadError("line without '=': %r" % line)
        key, value = line.split("=", 1)
        directives.append((section, key.strip(), value.strip()))
    return directives


_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\"}
_ESCAPES.update({'"': '"', "'": "'", "s": " "})


def _cunescape(text, index):
    """(character, next index) of the escape at ``text[index]`` (after the backslash)."""
    char = text[index : index + 1]
    if char in _ESCAPES:
        return _ESCAPES[char], index + 1
    for prefix, digits, base in (("x", 2, 16), ("u", 4, 16), ("U", 8, 16)):
        if char == prefix:
            code = text[index + 1 : index + 1 + digits]
            if len(code) != digits:
                raise UnitReadError("short escape")
            return chr(int(code, base)), index + 1 + digits
    if re.match(r"[0-7]{3}", text[index : index + 3]):
        return chr(int(text[index : index + 3], 8)), index + 3
    raise UnitReadError("bad escape \\%s" % char)


def split_words(value):
    """``[(word, raw)]``: systemd's extract_first_word with UNQUOTE and CUNESCAPE (quotes anywhere
    in a word, C escapes inside and outside quotes, unbalanced quotes are an error)."""
    words, i, n = [], 0, len(value)
    while True:
        while i < n and value[i] in " \t\n\r":
            i += 1
        if i >= n:
            return words
        if value[i : i + 2] == "\\;" and (i + 2 == n or value[i + 2] in " \t"):  # ExecStart's literal ';'
            words.append((";", "\\;"))
            i += 2
            continue
        start, word, quote = i, [], None
        while i < n:
            c = value[i]
            if c == "\\":
                if i + 1 >= n:
                    raise UnitReadError("trailing backslash")
                char, i = _cunescape(value, i + 1)
                word.append(char)
                continue
            if quote is None and c in " \t\n\r":
                break
            if quote is None and c in "'\"":
                quote = c
            elif quote is not None and c == quote:
                quote = None
            else:
                word.append(c)
            i += 1
        if quote is not None:
            raise UnitReadError("unbalanced quoting")
        words.append(("".join(word), value[start:i]))


def _specifiers(word):
    """``%%`` -> ``%``; every other specifier becomes a visible marker."""
    return re.sub(r"%(.)", lambda m: "%" if m.group(1) == "%" else "<SPECIFIER %s>" % m.group(1), word)


def _variables(word):
    """What the command gets for one word: ``$$`` -> ``$``; ``$NAME`` and ``${NAME}`` become markers."""
    return re.sub(
        r"\$(\$|\{[^}]*\}|[A-Za-z_][A-Za-z0-9_]*|)",
        lambda m: "$" if m.group(1) == "$" else "<VARIABLE %s>" % m.group(1),
        word,
    )


def exec_commands(value):
    """``[(prefixes, argv)]`` of one ``ExecStart=`` value: the commands systemd runs, with
    specifiers and variables resolved as markers; a bare ``;`` starts the next command."""
    commands, words = [], split_words(value)
    while words:
        first, dummy = words.pop(0)
        prefixes = re.match(r"[-@:+!]*", first).group(0)
        argv = [_specifiers(first[len(prefixes) :])]
        while words:
            word, raw = words.pop(0)
            if raw == ";":
                break
            argv.append(_variables(_specifiers(word)))
        commands.append((prefixes, argv))
    return commands


def environment_of(value):
    """``{name: value}`` of one ``Environment=`` value (no variable expansion there)."""
    result = {}
    for word, dummy in split_words(value):
        word = _specifiers(word)
        if "=" not in word:
            raise UnitReadError("not an assignment: %r" % word)
        name, val = word.split("=", 1)
        result[name] = val
    return result


def test_the_reader_sees_what_systemd_sees():
    text = (
        "[Service]\n"
        "# a comment \\\n"
        "ExecStart=/bin/swallowed\n"
        "ExecStart=-/bin/echo a\\\n"
        "  b \"c d\" 'e f' \\x41 %n $HOME \"$$x\" ; /bin/true \\;\n"
        'Environment="A=1 2" B=%%H\n'
    )
    directives = read_unit(text)
    assert [d[1] for d in directives] == ["ExecStart", "Environment"]
    assert exec_commands(directives[0][2]) == [
        ("-", ["/bin/echo", "a", "b", "c d", "e f", "A", "<SPECIFIER n>", "<VARIABLE HOME>", "$x"]),
        ("", ["/bin/true", ";"]),
    ]
    assert environment_of(directives[1][2]) == {"A": "1 2", "B": "%H"}
    with pytest.raises(UnitReadError):
        split_words('"unbalanced')


# -- ExecStart= ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("arg", HOSTILE)
def test_an_argument_reads_back_as_itself(arg):
    line = us.exec_line(["smc_pnet", "-a", "NETA", "-I", arg], ignore_failure=True)
    directives = read_unit("[Service]\n%s\n[Install]\nWantedBy=multi-user.target\n" % line)
    assert directives[0][:2] == ("Service", "ExecStart") and len(directives) == 2
    assert exec_commands(directives[0][2]) == [("-", ["smc_pnet", "-a", "NETA", "-I", arg])]
    assert us.parse_exec_line(line) == (["smc_pnet", "-a", "NETA", "-I", arg], True)
    assert not line.endswith("\\") and "\n" not in line


def test_safe_arguments_stay_bare_and_the_others_are_quoted():
    assert us.exec_line(["smc_pnet", "-a", "NETR", "-D", "01c2:00:00.0", "-P", "1"], True) == (
        "ExecStart=-smc_pnet -a NETR -D 01c2:00:00.0 -P 1"
    )
    assert us.quote_exec_arg("a%n") == '"a%%n"'
    assert us.quote_exec_arg("v$(id>x)") == '"v$$(id>x)"'
    assert us.quote_exec_arg('q"q\\') == '"q\\"q\\\\"'
    assert us.quote_exec_arg(";") == '";"'
    assert us.quote_exec_arg("") == '""'
    assert us.exec_line(["/usr/bin/x"], key="ExecStartPre") == "ExecStartPre=/usr/bin/x"


@pytest.mark.parametrize("value", CONTROL)
def test_control_characters_are_refused_naming_the_field(value):
    with pytest.raises(us.UnitSyntaxError) as err:
        us.exec_line(["smc_pnet", "-I", value], field="config[2].interface")
    assert str(err.value).startswith("config[2].interface[2]: ")
    with pytest.raises(us.UnitSyntaxError) as err:
        us.environment_line([("SMC_RCVBUF", value)], field="smc_services[0]")
    assert str(err.value).startswith("smc_services[0].SMC_RCVBUF: ")


@pytest.mark.parametrize(
    "program",
    ["-smc_pnet", "@x", "+x", "!x", ":x", "sm c", "a;b", "x%n", "$x", "/usr/../bin/x", "/usr/./x", "", "bin/x"],
)
def test_a_program_systemd_would_read_otherwise_is_refused(program):
    with pytest.raises(us.UnitSyntaxError) as err:
        us.exec_line([program, "a"])
    assert str(err.value).startswith("argv[0]: ")


def test_bad_calls_are_refused():
    for call in (
        lambda: us.exec_line([]),
        lambda: us.exec_line(["x"], key="Environment"),
        lambda: us.exec_line(["x"], key="ExecStart\nX"),
        lambda: us.exec_line(["x", 1]),
        lambda: us.environment_line([]),
        lambda: us.environment_line([("1A", "x")]),
        lambda: us.environment_line([("A B", "x")]),
    ):
        with pytest.raises(us.UnitSyntaxError):
            call()


_ONE_LINE = st.text(
    st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")),
    max_size=40,
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_ONE_LINE, max_size=6), st.booleans())
def test_any_one_line_argv_reads_back_exactly(args, ignore):
    line = us.exec_line(["/usr/sbin/tool"] + args, ignore_failure=ignore)
    directives = read_unit("[Service]\n" + line + "\n")
    assert len(directives) == 1
    assert exec_commands(directives[0][2]) == [("-" if ignore else "", ["/usr/sbin/tool"] + args)]
    assert us.parse_exec_line(line) == (["/usr/sbin/tool"] + args, ignore)


@pytest.mark.parametrize(
    "line",
    [
        "ExecStart=smc_pnet a ; id",
        "ExecStart=smc_pnet %n",
        "ExecStart=smc_pnet $HOME",
        'ExecStart=smc_pnet "unbalanced',
        "ExecStart=smc_pnet \\x41",
        "ExecStart=@smc_pnet x",
        "ExecStartPre=smc_pnet",
        "ExecStart=smc_pnet a\nExecStartPre=/bin/id",
    ],
)
def test_parse_refuses_what_exec_line_never_writes(line):
    with pytest.raises(us.UnitSyntaxError):
        us.parse_exec_line(line)


# -- Environment=, text, comments ---------------------------------------------------------------------
@pytest.mark.parametrize("value", HOSTILE)
def test_an_environment_value_reads_back_as_itself(value):
    line = us.environment_line([("LD_PRELOAD", "libsmc-preload.so"), ("SMC_RCVBUF", value)])
    directives = read_unit("[Service]\n%s\n" % line)
    assert len(directives) == 1 and directives[0][1] == "Environment"
    assert environment_of(directives[0][2]) == {"LD_PRELOAD": "libsmc-preload.so", "SMC_RCVBUF": value}


def test_environment_stays_readable():
    assert us.environment_line([("SMC_RCVBUF", "256K")]) == "Environment=SMC_RCVBUF=256K"
    assert us.environment_line({"B": "x y", "A": "$1%"}) == 'Environment="A=$1%%" "B=x y"'


def test_text_and_comment_lines():
    assert us.text_line("Description", "NIC tuning of a%n") == "Description=NIC tuning of a%%n"
    assert read_unit("[Unit]\n" + us.text_line("Description", "x;y 'q' \"") + "\n[Service]\nType=oneshot\n") == [
        ("Unit", "Description", "x;y 'q' \""),
        ("Service", "Type", "oneshot"),
    ]
    for bad in ("ends\\", " lead", "trail ", "", "a\nb"):
        with pytest.raises(us.UnitSyntaxError) as err:
            us.text_line("Description", bad, field="description")
        assert str(err.value).startswith("description: ")
    assert us.comment_line("Run x with SMC") == "# Run x with SMC"
    with pytest.raises(us.UnitSyntaxError):
        us.comment_line("swallows the next line\\")
    with pytest.raises(us.UnitSyntaxError):
        us.text_line("Description=", "x")


# -- names ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name",
    ["sshd.service", "getty@tty1.service", "foo@.service", "a:b_c-d.e.socket", "dev-disk-by\\x2dlabel.service"],
)
def test_unit_names_of_systemds_grammar(name):
    assert us.check_unit_name(name, "smc_services[0].name", types=("service", "socket")) == name


@pytest.mark.parametrize(
    "name",
    [
        "*.service",
        "../x.service",
        "a/b.service",
        "-x.service",
        ".x.service",
        "x.service\n",
        "x\n.service",
        "x y.service",
        "x.conf",
        "x",
        "a@b@c.service",
        "x.timer",
        "back\\slash.service",
        "x;y.service",
        "%n.service",
        "$(id).service",
        "a" * 250 + ".service",
        ".service",
    ],
)
def test_other_unit_names_are_refused_naming_the_field(name):
    with pytest.raises(us.UnitSyntaxError) as err:
        us.check_unit_name(name, "smc_services[3].name", types=("service", "socket"))
    assert str(err.value).startswith("smc_services[3].name: ")
    assert ".service or .socket" in str(err.value)


@pytest.mark.parametrize("name", ["50-s390x-network-smc.conf", "90-smc.conf", "_x.conf", "a.b-c.conf", "0.conf"])
def test_conf_names(name):
    assert us.check_conf_name(name, "file") == name


@pytest.mark.parametrize(
    "name",
    [
        "../../../x.conf",
        "/etc/ld.so.conf.d/x.conf",
        "*.service",
        "*.conf",
        "x?.conf",
        "[a].conf",
        "-x.conf",
        ".x.conf",
        ".conf",
        "x.conf\n",
        "x\n.conf",
        "x.conf/",
        "x",
        "x.cfg",
        "a b.conf",
        "a,b.conf",
        "x@y.conf",
        "a" * 251 + ".conf",
        None,
        3,
    ],
)
def test_other_conf_names_are_refused_naming_the_field(name):
    with pytest.raises(us.UnitSyntaxError) as err:
        us.check_conf_name(name, "smc_dropin_name")
    assert str(err.value).startswith("smc_dropin_name: ")


# -- systemd itself -------------------------------------------------------------------------------------
SYSTEMD_ANALYZE = shutil.which("systemd-analyze")


def _verify(directory, name, text):
    path = os.path.join(str(directory), name)
    with open(path, "w") as handle:
        handle.write(text)
    proc = subprocess.run(
        [SYSTEMD_ANALYZE, "verify", "--man=no", path],
        check=False,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        universal_newlines=True,
        env=dict(os.environ, SYSTEMD_LOG_LEVEL="info", LC_ALL="C"),
        timeout=120,
    )
    return proc.returncode, [line for line in proc.stdout.splitlines() if name in line]


def _unit(lines):
    return "\n".join(["[Unit]", "Description=unit_syntax test", "", "[Service]", "Type=oneshot"] + lines) + "\n"


@pytest.mark.skipif(SYSTEMD_ANALYZE is None, reason="systemd-analyze is not installed on this machine")
def test_systemd_analyze_verify_accepts_every_line(tmp_path):
    lines = [us.exec_line(["/bin/true"] + [a for a in HOSTILE if a], ignore_failure=True)]
    lines += [us.exec_line(["/bin/true", arg]) for arg in HOSTILE]
    lines.append(us.environment_line([("V%d" % i, value) for i, value in enumerate(HOSTILE)]))
    rc, complaints = _verify(tmp_path, "s390x-unit-syntax-test.service", _unit(lines))
    assert complaints == [] and rc == 0, complaints


@pytest.mark.skipif(SYSTEMD_ANALYZE is None, reason="systemd-analyze is not installed on this machine")
def test_systemd_analyze_verify_complains_about_the_raw_values(tmp_path):
    """The check above can fail: the same values written raw make systemd complain."""
    rc, complaints = _verify(
        tmp_path, "s390x-unit-syntax-raw.service", _unit(["ExecStart=-/bin/true -I %s" % HOSTILE[6]])
    )
    assert complaints and rc != 0
