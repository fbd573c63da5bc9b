# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""udev ``RUN`` programs of PCI rules, executed against the emulated kernel state.

What udev does with a rule such as (zpci_function's persistent binding)::

    ACTION=="add", SUBSYSTEM=="pci", ATTR{function_id}=="0x00000605", ATTR{driver_override}="vfio-pci",
      RUN+="/bin/sh -c 'd=/sys/bus/pci/devices/$kernel; if [ -e $$d/driver ] && ...; then
            echo $kernel > $$d/driver/unbind; fi; echo $kernel > /sys/bus/pci/drivers_probe'"

1. while processing the rules of the ``add`` event, ``ATTR{driver_override}=`` is written at once;
2. after all rules, the ``RUN`` list is executed in order; each entry's value first goes through
   udev's format substitution (``$kernel``/``%k``, ``$$`` -> ``$``, ``%%`` -> ``%``, ...), then
   is split into argv (quotes honoured) and executed (udev does not use a shell).

Here step 2 is interpreted, not executed: the emulator runs inside the FUSE daemon (a real
``/bin/sh`` writing to ``/sys`` would call back into it), each event's RUN programs inside one
state transaction (hooks.py, after the change that added the function committed). The
programs understood are ``/bin/sh -c SCRIPT [ARG0 ARG...]`` (also ``sh``, ``bash``, ``dash``) where
SCRIPT is a small POSIX-shell subset: ``;``/newline lists, ``&&``/``||``, ``if/elif/else/fi``,
``NAME=value`` assignments, ``$NAME``/``${NAME}``/``$?``/``$1``, ``$(...)``, single/double
quotes, backslash, ``>``/``>>`` (one write(2) of the command's output, as sysfs sees it),
field splitting of unquoted expansions (no globbing) and the commands ``echo``, ``printf %s``,
``test``/``[``, ``true``, ``false``, ``:``, ``basename``, ``dirname``, ``readlink``, ``cat``.
Paths are resolved in the emulated trees (``/sys``...): sysfs stores run with the kernel's errnos
and consume injected write faults, exactly as for any other writer. Anything else (another
program, pipes, loops, a path outside the emulated trees) is reported in ``st["udev_log"]`` and
that command fails with status 127 (the rest of the script runs, as a shell would).
"""

import errno
import os
import re
import shlex

from . import core, faults, vfs
from .paths import PathAccess

LOG_KEEP = 50
_SHELLS = ("sh", "bash", "dash")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_KEYWORDS = ("if", "then", "elif", "else", "fi", "while", "until", "for", "do", "done", "case", "esac", "{", "}", "!")


class Unsupported(Exception):
    """Shell syntax or a udev substitution the interpreter does not model."""


# ---- udev format substitution -----------------------------------------------------------------

_LONG = {
    "kernel": "k",
    "number": "n",
    "devpath": "p",
    "id": "b",
    "driver": "d",
    "sys": "S",
    "root": "r",
    "attr": "s",
    "sysfs": "s",
    "env": "E",
    "name": "D",
    "devnode": "N",
}
_FMT = re.compile(r"\$(\$|[a-z]+)(\{[^}]*\})?|%(%|[A-Za-z])(\{[^}]*\})?")


def substitute(value, st, ent):
    """udev's format substitution of a RUN value for the add event of PCI function ``ent``."""
    addr = ent["addr"]

    def one(code, arg):
        if code == "k":
            return addr
        if code == "n":
            m = re.search(r"(\d+)$", addr)
            return m.group(1) if m else ""
        if code == "p":
            return "/devices/pci%04x:00/%s" % (ent["domain"], addr)
        if code == "S":
            return "/sys"
        if code == "r":
            return "/dev"
        if code == "d":
            return ent.get("driver") or ""
        if code == "s":
            val = core.pci_attr_value(st, ent, arg or "")
            if val is None:
                raise Unsupported("substitution $attr{%s}" % arg)
            return val.rstrip("\n")
        raise Unsupported("substitution %s" % (("$" + code) if len(code) > 1 else ("%" + code)))

    def repl(m):
        if m.group(1) is not None:
            word, arg = m.group(1), m.group(2)
            if word == "$":
                return "$"
            code = _LONG.get(word)
            if code is None:
                raise Unsupported("substitution $%s" % word)
        else:
            code, arg = m.group(3), m.group(4)
            if code == "%":
                return "%"
        return one(code, arg[1:-1] if arg else None)

    return _FMT.sub(repl, value)


# ---- shell subset: tokens -> tree ------------------------------------------------------------


def _match_paren(src, i):
    """Index of the ')' closing the '$(' whose '(' is at src[i]."""
    depth, j, n = 0, i, len(src)
    while j < n:
        c = src[j]
        if c == "'":
            j = src.find("'", j + 1)
            if j < 0:
                break
        elif c == "\\":
            j += 1
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return j
        j += 1
    raise Unsupported("unterminated $(")


def _dollar(src, i, quoted):
    """Parse '$...' at src[i]; returns (part, next index)."""
    n = len(src)
    if i + 1 < n and src[i + 1] == "(":
        if i + 2 < n and src[i + 2] == "(":
            raise Unsupported("arithmetic $((...))")
        j = _match_paren(src, i + 1)
        return ("cmd", src[i + 2 : j], quoted), j + 1
    if i + 1 < n and src[i + 1] == "{":
        j = src.find("}", i + 2)
        if j < 0 or not _NAME.fullmatch(src[i + 2 : j]):
            raise Unsupported("parameter expansion " + src[i : j + 1 if j >= 0 else n])
        return ("var", src[i + 2 : j], quoted), j + 1
    m = _NAME.match(src, i + 1)
    if m:
        return ("var", m.group(0), quoted), m.end()
    if i + 1 < n and (src[i + 1].isdigit() or src[i + 1] in "?#"):
        return ("var", src[i + 1], quoted), i + 2
    return ("lit", "$", quoted), i + 1


def tokenize(src):
    toks, i, n = [], 0, len(src)
    while i < n:
        c = src[i]
        if c in " \t":
            i += 1
            continue
        if c == "#":
            while i < n and src[i] != "\n":
                i += 1
            continue
        if c in ";\n":
            toks.append(("op", ";"))
            i += 1
            continue
        two = src[i : i + 2]
        if two in ("&&", "||", ">>"):
            toks.append(("op", two))
            i += 2
            continue
        if c == ">":
            toks.append(("op", ">"))
            i += 1
            continue
        if c in "|&<()`":
            raise Unsupported("shell syntax %r" % c)
        parts = []
        while i < n and src[i] not in " \t\n;&|<>()`":
            c = src[i]
            if c == "'":
                j = src.find("'", i + 1)
                if j < 0:
                    raise Unsupported("unterminated quote")
                parts.append(("lit", src[i + 1 : j], True))
                i = j + 1
            elif c == '"':
                i += 1
                parts.append(("lit", "", True))  # "" is an (empty) field
                while True:
                    if i >= n:
                        raise Unsupported("unterminated quote")
                    c = src[i]
                    if c == '"':
                        i += 1
                        break
                    if c == "\\" and i + 1 < n and src[i + 1] in '$`"\\\n':
                        parts.append(("lit", src[i + 1], True))
                        i += 2
                    elif c == "$":
                        part, i = _dollar(src, i, True)
                        parts.append(part)
                    elif c == "`":
                        raise Unsupported("backquotes")
                    else:
                        parts.append(("lit", c, True))
                        i += 1
            elif c == "\\":
                if i + 1 < n:
                    parts.append(("lit", src[i + 1], True))
                i += 2
            elif c == "$":
                part, i = _dollar(src, i, False)
                parts.append(part)
            else:
                parts.append(("lit", c, False))
                i += 1
        toks.append(("word", parts))
    return toks


def _keyword(tok):
    if tok[0] != "word" or not tok[1] or any(p[0] != "lit" or p[2] for p in tok[1]):
        return None
    text = "".join(p[1] for p in tok[1])
    return text if text in _KEYWORDS else None


class _Parser:
    def __init__(self, toks):
        self.toks = toks
        self.pos = 0

    def peek(self):
        return self.toks[self.pos] if self.pos < len(self.toks) else None

    def parse(self):
        out = self.clist(())
        if self.peek() is not None:
            raise Unsupported("unexpected %r" % (_keyword(self.peek()) or self.peek()[1]))
        return out

    def clist(self, stops):
        items = []
        while True:
            while self.peek() == ("op", ";"):
                self.pos += 1
            tok = self.peek()
            if tok is None or _keyword(tok) in stops:
                return items
            items.append(self.andor())

    def andor(self):
        seq = [(None, self.command())]
        while self.peek() in (("op", "&&"), ("op", "||")):
            op = self.peek()[1]
            self.pos += 1
            seq.append((op, self.command()))
        return ("andor", seq)

    def expect(self, word):
        tok = self.peek()
        if tok is None or _keyword(tok) != word:
            raise Unsupported("expected %r" % word)
        self.pos += 1

    def command(self):
        tok = self.peek()
        if tok is None:
            raise Unsupported("missing command")
        kw = _keyword(tok)
        if kw == "if":
            self.pos += 1
            branches = []
            cond = self.clist(("then",))
            self.expect("then")
            body = self.clist(("elif", "else", "fi"))
            branches.append((cond, body))
            other = []
            while True:
                kw = _keyword(self.peek()) if self.peek() else None
                if kw == "elif":
                    self.pos += 1
                    cond = self.clist(("then",))
                    self.expect("then")
                    branches.append((cond, self.clist(("elif", "else", "fi"))))
                    continue
                if kw == "else":
                    self.pos += 1
                    other = self.clist(("fi",))
                self.expect("fi")
                return ("if", branches, other)
        if kw is not None:
            raise Unsupported("shell keyword %r" % kw)
        words, redirs = [], []
        while True:
            tok = self.peek()
            if tok is None or tok[0] == "op" and tok[1] in (";", "&&", "||"):
                break
            if tok[0] == "op":  # > or >>
                self.pos += 1
                target = self.peek()
                if target is None or target[0] != "word":
                    raise Unsupported("redirection without a target")
                redirs.append((tok[1], target[1]))
                self.pos += 1
                continue
            words.append(tok[1])
            self.pos += 1
        return ("simple", words, redirs)


def parse(script):
    return _Parser(tokenize(script)).parse()


# ---- execution on the emulated trees ----------------------------------------------------------


class StateFS(PathAccess):
    """Path access to the trees of one in-transaction state ``st`` (no store/lock of its own):
    stores change ``st`` directly; injected write faults are consumed from ``st``."""

    def __init__(self, st):
        PathAccess.__init__(self, st.get("_state_dir") or "")
        self.st = st

    def snapshot(self):
        return self.st

    def tree(self):
        if self._tree is None:
            self._tree = vfs.Builder(self, self.st).build()
        return self._tree, self.st

    def invalidate(self):
        self._tree = None

    def write_node(self, cpath, node, data):
        code = faults.take_write(faults.section(self.st, "write"), cpath)
        if code is not None:
            raise core.oserr(code, "injected fault")
        if isinstance(node, vfs.Dir):
            raise core.oserr(errno.EISDIR)
        if not isinstance(node, vfs.File) or node.store is None:
            raise core.oserr(errno.EACCES)
        try:
            node.store(self.st, data)
        except (KeyError, TypeError):
            raise core.oserr(errno.ENODEV)
        finally:
            self._tree = None
        deferred = self.st.pop("_deferred_errno", None)
        if deferred:
            raise core.oserr(deferred)
        return len(data)


class Shell:
    def __init__(self, fs, arg0="sh", args=()):
        self.fs = fs
        self.vars = {"0": arg0, "#": str(len(args)), "?": "0"}
        for i, a in enumerate(args):
            self.vars[str(i + 1)] = a
        self.errors = []

    # -- paths
    def _emulated(self, path):
        if not path.startswith("/"):
            raise Unsupported("relative path %s" % path)
        p = os.path.normpath(path)
        if not any(p == t or p.startswith(t + "/") for t in faults.EMULATED):
            raise Unsupported("path outside the emulated trees: %s" % path)
        return p

    def err(self, msg):
        self.errors.append(msg)

    # -- expansion
    def expand(self, parts):
        """Fields of one word (unquoted expansions are split on blanks; no globbing)."""
        fields, cur = [], None
        for kind, value, quoted in parts:
            if kind == "lit":
                cur = (cur or "") + value
                continue
            text = self.vars.get(value, "") if kind == "var" else self.substitute_cmd(value)
            if quoted:
                cur = (cur or "") + text
                continue
            if not text.strip():
                if text and cur is not None:
                    fields.append(cur)
                    cur = None
                continue
            if text[0].isspace() and cur is not None:
                fields.append(cur)
                cur = None
            for k, piece in enumerate(text.split()):
                if k > 0:
                    fields.append(cur)
                    cur = None
                cur = (cur or "") + piece
            if text[-1].isspace():
                fields.append(cur)
                cur = None
        if cur is not None:
            fields.append(cur)
        return fields

    def substitute_cmd(self, src):
        sub = Shell(self.fs)
        sub.vars = dict(self.vars)
        out = sub.run_script(src)
        self.errors.extend(sub.errors)
        self.vars["?"] = sub.vars["?"]
        return out.rstrip("\n")

    # -- execution
    def run_script(self, src):
        self._out = []
        self.run_list(parse(src))
        return "".join(self._out)

    def run_list(self, items):
        status = 0
        for item in items:
            status = self.run_andor(item)
        return status

    def run_andor(self, item):
        status = 0
        for op, cmd in item[1]:
            if op == "&&" and status != 0 or op == "||" and status == 0:
                continue
            status = self.run_cmd(cmd)
        return status

    def run_cmd(self, cmd):
        if cmd[0] == "if":
            status = 0
            for cond, body in cmd[1]:
                if self.run_list(cond) == 0:
                    status = self.run_list(body)
                    break
            else:
                status = self.run_list(cmd[2]) if cmd[2] else 0
            self.vars["?"] = str(status)
            return status
        _kind, words, redirs = cmd
        assigns = []
        argv = []
        for w in words:
            if not argv:
                prefix = ""
                for kind, value, quoted in w:
                    if kind != "lit" or quoted:
                        break
                    prefix += value
                m = re.match(r"([A-Za-z_][A-Za-z0-9_]*)=", prefix)
                if m:
                    rest = self._after_eq(w, m.end())
                    assigns.append((m.group(1), "".join(self.expand_noflatten(rest))))
                    continue
            argv.extend(self.expand(w))
        for name, value in assigns:
            self.vars[name] = value
        if not argv:
            self.vars["?"] = "0"
            return 0
        out, status = self.builtin(argv)
        if redirs:
            for op, target in redirs:
                fields = self.expand(target)
                if len(fields) != 1:
                    self.err("sh: ambiguous redirect")
                    status = 1
                    out = ""
                    continue
                try:
                    path = self._emulated(fields[0])
                except Unsupported as exc:
                    self.err("sh: not emulated: %s" % exc)
                    status = 1
                    out = ""
                    continue
                if out == "" and status == 0:
                    continue
                try:
                    self.fs.write(path, out.encode("latin-1"))
                except OSError as exc:
                    self.err("sh: %s: write error: %s" % (argv[0], os.strerror(exc.errno or errno.EIO)))
                    status = 1
                out = ""
        else:
            self._out.append(out)
        self.vars["?"] = str(status)
        return status

    @staticmethod
    def _after_eq(word, skip):
        """The parts of ``word`` after its first ``skip`` literal characters."""
        out = []
        for kind, value, quoted in word:
            if skip > 0 and kind == "lit" and not quoted:
                if len(value) <= skip:
                    skip -= len(value)
                    continue
                out.append((kind, value[skip:], quoted))
                skip = 0
                continue
            out.append((kind, value, quoted))
        return out

    def expand_noflatten(self, parts):
        """Assignment values are not field-split."""
        out = []
        for kind, value, _quoted in parts:
            if kind == "lit":
                out.append(value)
            elif kind == "var":
                out.append(self.vars.get(value, ""))
            else:
                out.append(self.substitute_cmd(value))
        return out

    # -- commands
    def builtin(self, argv):
        name, args = argv[0], argv[1:]
        if name in (":", "true"):
            return "", 0
        if name == "false":
            return "", 1
        if name == "echo":
            newline = True
            if args and args[0] == "-n":
                newline, args = False, args[1:]
            return " ".join(args) + ("\n" if newline else ""), 0
        if name == "printf" and args and args[0] in ("%s", "%s\\n", "%s\n"):
            end = "\n" if args[0] != "%s" else ""
            return "".join(a + end for a in args[1:]), 0
        if name in ("[", "test"):
            if name == "[":
                if not args or args[-1] != "]":
                    self.err("sh: [: missing ]")
                    return "", 2
                args = args[:-1]
            return "", self.test(args)
        if name == "basename" and len(args) == 1:
            p = args[0].rstrip("/")
            return (os.path.basename(p) if p else "/") + "\n", 0
        if name == "dirname" and len(args) == 1:
            return (os.path.dirname(args[0].rstrip("/")) or ".") + "\n", 0
        if name == "readlink" and args:
            follow = args[0] in ("-f", "-e", "-m")
            path = args[-1]
            try:
                p = self._emulated(path)
                if follow:
                    return self.fs.resolve(p)[0] + "\n", 0
                return self.fs.readlink(p) + "\n", 0
            except Unsupported as exc:
                self.err("sh: not emulated: %s" % exc)
                return "", 127
            except OSError:
                return "", 1
        if name == "cat" and args:
            out = []
            for path in args:
                try:
                    out.append(self.fs.read(self._emulated(path)).decode("latin-1"))
                except Unsupported as exc:
                    self.err("sh: not emulated: %s" % exc)
                    return "".join(out), 127
                except OSError as exc:
                    self.err("cat: %s: %s" % (path, os.strerror(exc.errno or errno.EIO)))
                    return "".join(out), 1
            return "".join(out), 0
        self.err("sh: not emulated: command %s" % name)
        return "", 127

    def test(self, args):
        if args and args[0] == "!":
            return 1 - self.test(args[1:]) if self.test(args[1:]) in (0, 1) else 2
        if not args:
            return 1
        if len(args) == 1:
            return 0 if args[0] else 1
        if len(args) == 2:
            op, arg = args
            if op == "-n":
                return 0 if arg else 1
            if op == "-z":
                return 0 if not arg else 1
            if op in ("-e", "-f", "-d", "-L", "-h", "-r", "-w", "-s"):
                try:
                    p = self._emulated(arg)
                except Unsupported as exc:
                    self.err("sh: not emulated: %s" % exc)
                    return 2
                if op in ("-L", "-h"):
                    try:
                        self.fs.readlink(p)
                        return 0
                    except OSError:
                        return 1
                try:
                    _cp, node = self.fs.resolve(p)
                except OSError:
                    return 1
                if op == "-d":
                    return 0 if isinstance(node, vfs.Dir) else 1
                if op == "-f":
                    return 0 if isinstance(node, vfs.File) else 1
                return 0
            self.err("sh: test: unknown operator %s" % op)
            return 2
        if len(args) == 3:
            a, op, b = args
            if op in ("=", "=="):
                return 0 if a == b else 1
            if op == "!=":
                return 0 if a != b else 1
            if op in ("-eq", "-ne", "-lt", "-le", "-gt", "-ge"):
                try:
                    x, y = int(a), int(b)
                except ValueError:
                    self.err("sh: test: integer expression expected")
                    return 2
                return (
                    0
                    if {"-eq": x == y, "-ne": x != y, "-lt": x < y, "-le": x <= y, "-gt": x > y, "-ge": x >= y}[op]
                    else 1
                )
        self.err("sh: not emulated: test %s" % " ".join(args))
        return 2


def run(st, ent, value):
    """Execute one RUN value for the add event of ``ent``; returns (exit status, messages)."""
    try:
        argv = shlex.split(substitute(value, st, ent))
    except (Unsupported, ValueError) as exc:
        return 127, ["not emulated: %s" % exc]
    return _run_argv(st, argv)


def _run_argv(st, argv):
    """Run a RUN program's argv: only ``/bin/sh -c SCRIPT`` is interpreted."""
    if len(argv) >= 3 and os.path.basename(argv[0]) in _SHELLS and argv[1] == "-c":
        shell = Shell(StateFS(st), argv[3] if len(argv) > 3 else argv[0], argv[4:])
        try:
            shell.run_script(argv[2])
        except Unsupported as exc:
            return 127, shell.errors + ["not emulated: %s" % exc]
        return int(shell.vars["?"]), shell.errors
    return 127, [
        (
            "not emulated: program %s (only /bin/sh -c SCRIPT is interpreted)" % argv[0]
            if argv
            else "not emulated: empty RUN"
        )
    ]


def substitute_event(value, kernel, devpath):
    """udev's format substitution for an event without attributes (a subsystem's add event:
    ``$kernel`` is the subsystem's name, ``$devpath`` ``/bus/<name>``)."""

    def repl(m):
        code = m.group(1) if m.group(1) is not None else m.group(3)
        if code in ("$", "%"):
            return code
        code = _LONG.get(code, code)
        vals = {"k": kernel, "p": devpath, "S": "/sys", "r": "/dev", "d": ""}
        if code == "n":
            mm = re.search(r"(\d+)$", kernel)
            return mm.group(1) if mm else ""
        if code not in vals:
            raise Unsupported("substitution %s" % m.group(0))
        return vals[code]

    return _FMT.sub(repl, value)


def run_subsystem(st, name, value):
    """Execute one RUN value for the add event of subsystem ``name`` (``udevadm trigger
    --type=subsystems``, before the devices: chzdev's 41-cio-ignore.rules matches
    SUBSYSTEM=="subsystem", KERNEL=="ccw"); returns (exit status, messages)."""
    try:
        argv = shlex.split(substitute_event(value, name, "/bus/" + name))
    except (Unsupported, ValueError) as exc:
        return 127, ["not emulated: %s" % exc]
    return _run_argv(st, argv)


def log(st, line):
    entries = st.setdefault("udev_log", [])
    entries.append(line)
    del entries[:-LOG_KEEP]


__all__ = ["run", "run_subsystem", "substitute", "substitute_event", "parse", "Shell", "StateFS", "Unsupported", "log"]
