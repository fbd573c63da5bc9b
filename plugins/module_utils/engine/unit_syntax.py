# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Values written into systemd unit files and drop-ins, so that systemd reads back exactly what was
meant: one function per kind of value, each refusing what the file cannot hold and escaping the rest.

Use it for every line of a unit or drop-in that carries a value from outside the module
(inventory, host): ``exec_line(["smc_pnet", "-a", pnet_id, "-I", ifname], ignore_failure=True)``,
``environment_line([("SMC_RCVBUF", "256K")])``, ``text_line("Description", text)``,
``comment_line(text)``; check a file name with ``check_unit_name`` (a unit) or ``check_conf_name``
(a ``*.conf`` file in a fixed directory: drop-ins, sysctl.d, modules-load.d) before it becomes part
of a path. Every check raises ``UnitSyntaxError`` (a ValueError) whose message starts with the
``field`` given, so it can be shown to the user as is. ``parse_exec_line`` reads a line written by
``exec_line`` back (a module reading its own boot unit).

systemd's rules relied on (systemd.syntax(7), systemd.service(5) "Command lines",
systemd.exec(5) ``Environment=``, systemd.unit(5) specifiers; conf-parser.c, load-fragment.c):

* A file is read line by line; there is no way to put a newline, CR or NUL into a value, and a line
  that ends in a backslash is joined with the next one (also a comment line). So values with
  control characters are refused, and no line written here ends in a backslash.
* ``ExecStart=`` and ``Environment=`` split their value into words: whitespace separates, ``"..."``
  and ``'...'`` quote, and C-style backslash escapes are decoded inside and outside quotes
  (``\\"``, ``\\\\``); an unbalanced quote makes systemd drop the whole line. Words written here
  are left bare when they consist only of ``[A-Za-z0-9_@+=:,./-]``, else put in double quotes with
  ``\\`` and ``"`` escaped.
* Specifiers (``%n``, ``%H``, ...) are expanded in each word after unquoting, in both directives
  and in ``Description=``: ``%`` is written ``%%``.
* In ``ExecStart=`` arguments ``$NAME`` and ``${NAME}`` are replaced by environment variables when
  the command runs, after unquoting: ``$`` is written ``$$``. ``Environment=`` does not expand
  variables, so ``$`` stays as it is there.
* In ``ExecStart=`` a bare ``;`` word separates commands (older systemd); quoted it is an argument.
  The first word (the program) may carry the prefixes ``-@:+!`` even when quoted, so the program
  must be an absolute path or a plain name that starts with a letter, digit or ``_``.
* Unit names (systemd.unit(5), unit-name.c): at most 255 characters of ``[A-Za-z0-9:_.\\-]``, one
  optional ``@`` before the instance, and a suffix that is a unit type.

Python 3.6 compatible; standard library only.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re
import unicodedata

#: unit types (systemd.unit(5)); the suffix of a unit name
UNIT_TYPES = (
    "service",
    "socket",
    "device",
    "mount",
    "automount",
    "swap",
    "target",
    "path",
    "timer",
    "slice",
    "scope",
)
#: the longest unit or file name (UNIT_NAME_MAX - 1, NAME_MAX)
NAME_MAX = 255

_BARE_WORD = re.compile(r"[A-Za-z0-9_@+=:,./-]+")
_PROGRAM = re.compile(r"(?:/[A-Za-z0-9_.+-]+)+|[A-Za-z0-9_][A-Za-z0-9_.+-]*")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DIRECTIVE = re.compile(r"[A-Z][A-Za-z0-9]*")
# one character of a unit name: systemd's set, a backslash only as the \xNN of systemd-escape
_UNIT_CHAR = r"(?:[A-Za-z0-9:_.-]|\\x[0-9a-fA-F]{2})"
_UNIT_FIRST = r"(?:[A-Za-z0-9:_]|\\x[0-9a-fA-F]{2})"
_UNIT_NAME = re.compile(r"%s%s*(?:@%s*)?\.(?:%s)" % (_UNIT_FIRST, _UNIT_CHAR, _UNIT_CHAR, "|".join(UNIT_TYPES)))
_CONF_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*\.conf")


class UnitSyntaxError(ValueError):
    """A value that cannot be written into a unit file; the message starts with the field."""


def _describe(value):
    return repr(value) if len(value) <= 80 else repr(value[:77] + "...")


def check_text(value, field):
    """``value`` as a str that fits on one line of a unit file; raises UnitSyntaxError otherwise.

    Refused: anything but a str, control characters (C0 and C1, DEL: newline, CR, NUL, tab, escape
    ...), the Unicode line and paragraph separators, and lone surrogates (not valid UTF-8)."""
    if not isinstance(value, str):
        raise UnitSyntaxError("%s: expected a string, got %r" % (field, value))
    for char in value:
        category = unicodedata.category(char)
        if category in ("Cc", "Cs", "Zl", "Zp"):
            raise UnitSyntaxError(
                "%s: %s contains the control character %r; a unit file line cannot hold newlines, "
                "carriage returns, NUL or other control characters" % (field, _describe(value), char)
            )
    return value


def _double_quoted(text):
    return '"%s"' % text.replace("\\", "\\\\").replace('"', '\\"')


def quote_exec_arg(value, field="argument"):
    """One argument of ``ExecStart=`` (and the other ``Exec*=``) as systemd must read it: ``%`` as
    ``%%``, ``$`` as ``$$``; bare when only ``[A-Za-z0-9_@+=:,./-]``, else double-quoted with
    ``\\`` and ``"`` escaped. Raises UnitSyntaxError naming ``field``."""
    check_text(value, field)
    text = value.replace("%", "%%").replace("$", "$$")
    if _BARE_WORD.fullmatch(text):
        return text
    return _double_quoted(text)


def exec_line(argv, ignore_failure=False, key="ExecStart", field="argv"):
    """``ExecStart=`` line (without newline) that runs ``argv`` (list of str) exactly.

    ``argv[0]`` is the program: an absolute path or a name systemd looks up in its fixed search
    path (systemd 239 and later), of ``[A-Za-z0-9_.+-]`` (and ``/``), written bare.
    ``ignore_failure``: the ``-`` prefix (a failing or missing program does not fail the unit).
    ``key``: the directive (``ExecStart``, ``ExecStartPre``, ``ExecStop`` ...). Errors name
    ``field[INDEX]``."""
    if not _DIRECTIVE.fullmatch(str(key)) or not str(key).startswith("Exec"):
        raise UnitSyntaxError("key: %r is not an Exec*= directive" % (key,))
    argv = list(argv)
    if not argv:
        raise UnitSyntaxError("%s: the command line is empty" % field)
    program = check_text(argv[0], "%s[0]" % field)
    if not _PROGRAM.fullmatch(program) or "/../" in program + "/" or "/./" in program + "/":
        raise UnitSyntaxError(
            "%s[0]: %s is not a program systemd can run as written: an absolute normalised path or a name "
            "of A-Z, a-z, 0-9, '_', '.', '+', '-' starting with a letter, digit or '_'" % (field, _describe(program))
        )
    words = [program] + [quote_exec_arg(arg, "%s[%d]" % (field, index)) for index, arg in enumerate(argv[1:], 1)]
    return "%s=%s%s" % (key, "-" if ignore_failure else "", " ".join(words))


def environment_line(variables, field="environment"):
    """``Environment=`` line (without newline) that sets ``variables``: a list of ``(name, value)``
    pairs (or a dict, written sorted by name). Names are ``[A-Za-z_][A-Za-z0-9_]*``; values any
    one-line text: ``%`` as ``%%`` (``$`` needs no escape: Environment= does not expand
    variables), double-quoted when needed. Errors name ``field.NAME``."""
    pairs = sorted(variables.items()) if isinstance(variables, dict) else list(variables)
    if not pairs:
        raise UnitSyntaxError("%s: no variables to set" % field)
    words = []
    for name, value in pairs:
        if not isinstance(name, str) or not _ENV_NAME.fullmatch(name):
            raise UnitSyntaxError(
                "%s: %r is not an environment variable name (A-Z, a-z, 0-9, '_', not starting with a digit)"
                % (field, name)
            )
        check_text(value, "%s.%s" % (field, name))
        text = ("%s=%s" % (name, value)).replace("%", "%%")
        words.append(text if _BARE_WORD.fullmatch(text) else _double_quoted(text))
    return "Environment=" + " ".join(words)


def text_line(key, value, field=None):
    """A directive whose value systemd takes as text after specifier expansion (``Description=``):
    ``%`` as ``%%``. Refused besides control characters: leading or trailing whitespace (systemd
    strips it) and a trailing backslash (it would join the next line). Errors name ``field``
    (default: ``key``)."""
    field = field or key
    if not _DIRECTIVE.fullmatch(str(key)):
        raise UnitSyntaxError("key: %r is not a directive name" % (key,))
    check_text(value, field)
    if not value or value.strip() != value:
        raise UnitSyntaxError("%s: %s is empty or starts or ends with whitespace" % (field, _describe(value)))
    if value.endswith("\\"):
        raise UnitSyntaxError("%s: %s ends in a backslash, which joins the next line" % (field, _describe(value)))
    return "%s=%s" % (key, value.replace("%", "%%"))


def comment_line(text, field="comment"):
    """``# text``: a comment cannot end in a backslash (it would swallow the next line) nor hold
    control characters."""
    check_text(text, field)
    if text.endswith("\\"):
        raise UnitSyntaxError("%s: %s ends in a backslash, which joins the next line" % (field, _describe(text)))
    return ("# " + text).rstrip()


def check_unit_name(name, field, types=UNIT_TYPES):
    """``name`` when it is a unit name whose type is one of ``types`` (``("service",)``), else
    UnitSyntaxError naming ``field``. The grammar is systemd's (template ``foo@.service`` and instance
    ``foo@bar.service`` included), restricted so that the name is safe as one path component and as
    one command argument: no ``/``, no leading ``-`` or ``.``, a backslash only in ``\\xNN``, at most
    255 characters."""
    if (
        not isinstance(name, str)
        or len(name) > NAME_MAX
        or not _UNIT_NAME.fullmatch(name)
        or name.count("@") > 1
        or name.rsplit(".", 1)[1] not in types
    ):
        raise UnitSyntaxError(
            "%s: %s is not a systemd unit name: 1-255 characters A-Z, a-z, 0-9, ':', '_', '.', '-' (and "
            "\\xNN escapes), optionally one '@' before an instance, not starting with '-' or '.', ending in %s"
            % (field, _describe(name) if isinstance(name, str) else repr(name), " or ".join("." + t for t in types))
        )
    return name


def check_conf_name(name, field):
    """``name`` when it is the name of a ``*.conf`` file in a fixed directory (a drop-in in
    ``UNIT.d/``, a sysctl.d or modules-load.d file): ``[A-Za-z0-9_][A-Za-z0-9_.-]*\\.conf``, at most
    255 characters (so no ``/``, no ``..`` component, no glob characters, no leading ``-`` or
    ``.``); else UnitSyntaxError naming ``field``."""
    if not isinstance(name, str) or len(name) > NAME_MAX or not _CONF_NAME.fullmatch(name):
        raise UnitSyntaxError(
            "%s: %s is not a file name of the form [A-Za-z0-9_][A-Za-z0-9_.-]*.conf (a name in the fixed "
            "directory, at most 255 characters, no '/')"
            % (field, _describe(name) if isinstance(name, str) else repr(name))
        )
    return name


# -- reading back what exec_line wrote --------------------------------------------------------------
def _unquote_words(text, field):
    """The words of ``text`` with quotes and the backslash escapes exec_line writes (``\\\\``,
    ``\\"``) removed; a bare ``;`` (a command separator) and anything else exec_line does not
    write raise UnitSyntaxError."""
    words, index, length = [], 0, len(text)
    while index < length:
        if text[index] in " \t":
            index += 1
            continue
        word, quote, start = [], None, index
        while index < length:
            char = text[index]
            if quote is None and char in " \t":
                break
            if char == "\\":
                if index + 1 >= length or text[index + 1] not in ('"', "\\", "'"):
                    raise UnitSyntaxError("%s: unsupported escape in %r" % (field, text))
                word.append(text[index + 1])
                index += 2
                continue
            if quote is None and char in "\"'":
                quote = char
            elif char == quote:
                quote = None
            else:
                word.append(char)
            index += 1
        if quote is not None:
            raise UnitSyntaxError("%s: unbalanced quote in %r" % (field, text))
        if text[start:index] == ";":
            raise UnitSyntaxError("%s: %r holds a command separator" % (field, text))
        words.append("".join(word))
    return words


def _unescape(word, field, dollars):
    out, index = [], 0
    while index < len(word):
        char = word[index]
        if char == "%" or (dollars and char == "$"):
            if word[index + 1 : index + 2] != char:
                raise UnitSyntaxError("%s: %r holds a specifier or variable" % (field, word))
            index += 1
        out.append(char)
        index += 1
    return "".join(out)


def parse_exec_line(line, key="ExecStart", field="line"):
    """``(argv, ignore_failure)`` of an ``Exec*=`` line as ``exec_line`` writes it (the inverse of
    ``exec_line``); UnitSyntaxError for a line it would not write (another directive, a ``;``
    separator, specifiers other than ``%%``, ``$VAR`` expansions, escapes other than ``\\\\`` and
    ``\\"``, other prefixes than ``-``)."""
    check_text(line, field)
    head = key + "="
    if not line.startswith(head):
        raise UnitSyntaxError("%s: %r is not a %s line" % (field, line, head))
    value = line[len(head) :].strip()
    ignore = value.startswith("-")
    words = _unquote_words(value[1:] if ignore else value, field)
    if not words or not _PROGRAM.fullmatch(words[0]):
        raise UnitSyntaxError("%s: %r does not start with a program exec_line writes" % (field, line))
    return [words[0]] + [_unescape(w, field, dollars=True) for w in words[1:]], ignore


def parse_environment_line(line, field="line"):
    """``[(name, value)]`` of an ``Environment=`` line as ``environment_line`` writes it (its
    inverse); UnitSyntaxError for a line it would not write."""
    check_text(line, field)
    head = "Environment="
    if not line.startswith(head):
        raise UnitSyntaxError("%s: %r is not an %s line" % (field, line, head))
    pairs = []
    for word in _unquote_words(line[len(head) :].strip(), field):
        name, sep, value = _unescape(word, field, dollars=False).partition("=")
        if not sep or not _ENV_NAME.fullmatch(name):
            raise UnitSyntaxError("%s: %r is not NAME=VALUE" % (field, word))
        pairs.append((name, value))
    return pairs
