# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The boot unit of ``smc_pnet`` (``boot_unit: present``): the software PNET table lives in the
kernel only, so ``/etc/systemd/system/s390x-network-smc-pnet.service`` adds the entries again at
every boot, one ``ExecStart=-smc_pnet -a ID -I IF`` (or ``-D DEV -P PORT``) line per entry.

Every ``ExecStart=`` line is built by ``unit_syntax.exec_line`` from an entry that
``smc_pnet_cmd.normalize_entry`` accepted, the same check the kernel entries get; values that a unit
line cannot hold (control characters) are refused naming the field. The unit is enabled the way
``systemctl enable`` does it for ``WantedBy=multi-user.target``: the link
``multi-user.target.wants/s390x-network-smc-pnet.service`` to the unit file, which works whether or
not systemd runs (an image being built, a container, the lab). ``-`` lets the unit succeed when
``smc_pnet`` is missing or the kernel refuses an entry (for example one the IOCDS already gives a
PNET ID), as ``smc_pnet`` then does at run time.

Where ``smc_pnet`` is not installed (Debian has no smc-tools) the unit cannot run it; it runs the
collection's own netlink client instead, as one line ``ExecStart=PYTHON PROGRAM DATA``:

* ``PROGRAM`` (``/usr/local/libexec/s390x-network/smc-pnet-restore``) is the text of
  ``netlink.py``, ``pnet_cmd.py`` and ``pnet_restore.py`` in one file (``program_text``), read from
  the module's own payload through each module's loader (a file of a checkout, a member of
  AnsiballZ's zip). It is the same on every host; /usr/local because no package owns it and no
  package update may replace it (FHS 4.9), libexec because only the unit runs it.
* ``DATA`` (``/etc/s390x-network/smc-pnet.json``) holds the entries as JSON, never as code.
* ``PYTHON`` is the interpreter the module runs in (``sys.executable``, known to work, checked
  against a plain absolute path), or ``/usr/bin/python3`` when that is the same file, which
  outlives a minor Python upgrade.

No ``-``: an entry the program could not add fails the unit (its status names the entry), where
the tool form can only hide it. ``read_unit`` reads the file back (its entries, for ``state:
merged`` and ``deleted``, which change the entries of earlier runs as they change the table;
from the data file in the program form); a line it does not recognise is not an entry, and the
file is rewritten.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import os
import sys

from ansible_collections.s390x.network.plugins.module_utils.engine import host_files
from ansible_collections.s390x.network.plugins.module_utils.engine import unit_syntax
from ansible_collections.s390x.network.plugins.module_utils.smc import kernel_support
from ansible_collections.s390x.network.plugins.module_utils.smc import netlink as smc_netlink
from ansible_collections.s390x.network.plugins.module_utils.ip import ifname as ip_ifname
from ansible_collections.s390x.network.plugins.module_utils.smc import pnet_cmd as smc_pnet_cmd
from ansible_collections.s390x.network.plugins.module_utils.smc import pnet_restore
from ansible_collections.s390x.network.plugins.module_utils.smc.pnet_cmd import (
    TOOL,
    PnetError,
    argv_add,
    normalize_entry,
)

UNIT_NAME = "s390x-network-smc-pnet.service"
UNIT_DIR = "/etc/systemd/system"
UNIT_PATH = "%s/%s" % (UNIT_DIR, UNIT_NAME)
WANTED_BY = "multi-user.target"
WANTS_LINK = "%s/%s.wants/%s" % (UNIT_DIR, WANTED_BY, UNIT_NAME)
HEADER = [
    "# Managed by s390x.network.smc_pnet (boot_unit: present). Changes are overwritten.",
    "# The software PNET table lives in the kernel only: this unit adds the entries again at boot.",
]
PROGRAM_PATH = "/usr/local/libexec/s390x-network/smc-pnet-restore"
DATA_PATH = "/etc/s390x-network/smc-pnet.json"
RESTORE_COMMENT = "# smc_pnet (smc-tools) is not installed: the restore program adds the entries of %s." % DATA_PATH
#: the interpreter that outlives a minor upgrade, taken when it is the module's own
STABLE_PYTHON = "/usr/bin/python3"
#: the sources of the restore program, in this order (each after the names it uses)
PROGRAM_SOURCES = (smc_netlink, ip_ifname, smc_pnet_cmd, pnet_restore)
#: lines of a source left out of the program (only valid at the top of a file; not needed on Python 3)
_NOT_IN_PROGRAM = ("from __future__ import absolute_import, division, print_function", "__metaclass__ = type")
MODULES_DIR = kernel_support.MODULES_DIR


def exec_line_of(entry, field="config[0]"):
    """The ``ExecStart=`` line that adds ``entry`` (normalised); UnitSyntaxError names
    ``field.interface`` / ``field.ib_device`` for a name a unit line cannot hold (a control
    character: legal in a kernel name, impossible on one line)."""
    key = "interface" if entry["interface"] is not None else "ib_device"
    unit_syntax.check_text(entry[key], "%s.%s" % (field, key))
    return unit_syntax.exec_line(argv_add(entry, TOOL), ignore_failure=True, field=field)


def render(entries, python=None):
    """The unit file that adds ``entries`` (normalised, in this order) at boot; None for none.
    With ``python`` (a checked interpreter path) the unit runs the restore program with it."""
    if not entries:
        return None
    lines = (
        HEADER
        + ([RESTORE_COMMENT] if python is not None else [])
        + [
            "[Unit]",
            "Description=SMC software PNET table (s390x.network.smc_pnet)",
            "After=systemd-modules-load.service network.target",
            "Wants=network.target",
            "",
            "[Service]",
            "Type=oneshot",
            "RemainAfterExit=yes",
        ]
    )
    if python is not None:
        lines.append(unit_syntax.exec_line([python, PROGRAM_PATH, DATA_PATH], field="interpreter"))
    else:
        lines += [exec_line_of(entry, "entries[%d]" % index) for index, entry in enumerate(entries)]
    lines += ["", "[Install]", "WantedBy=%s" % WANTED_BY, ""]
    return "\n".join(lines)


def interpreter(executable=None):
    """The interpreter the unit runs the restore program with: ``executable`` (default: the
    module's own, ``sys.executable``) when it is a plain absolute path; ``/usr/bin/python3`` when
    that is the same file. None when the path is unusable (empty, relative, blanks, quotes ...)."""
    path = sys.executable if executable is None else executable
    if not isinstance(path, str) or not pnet_restore.RESTORE_PATH_RE.fullmatch(path):
        return None
    if path != STABLE_PYTHON:
        try:
            if os.path.samefile(path, STABLE_PYTHON):
                return STABLE_PYTHON
        except (IOError, OSError):
            pass
    return path


def module_source(module):
    """The source text of an imported module: through its loader (a checkout's file, a member of
    AnsiballZ's zip), else from its file."""
    get_source = getattr(getattr(module, "__loader__", None), "get_source", None)
    source = get_source(module.__name__) if get_source is not None else None
    if source is None:
        with open(module.__file__, "rb") as handle:
            source = handle.read()
    if isinstance(source, bytes):  # the collection loader of ansible-core 2.14 gives bytes
        source = source.decode("utf-8")
    return source


def _source_path(module):
    """``module_utils/<package>/<name>.py`` of a module of the collection."""
    return "module_utils/%s.py" % "/".join(module.__name__.split(".")[-2:])


def program_text():
    """The restore program: the sources of ``PROGRAM_SOURCES`` in one file (standard library only)."""
    parts = [
        "# -*- coding: utf-8 -*-\n",
        "# Managed by s390x.network.smc_pnet (boot_unit: present). Changes are overwritten.\n",
        "# The restore program of %s: PYTHON %s %s\n" % (UNIT_NAME, PROGRAM_PATH, DATA_PATH),
        "# It is the collection's %s in one file.\n" % ", ".join(_source_path(m) for m in PROGRAM_SOURCES),
    ]
    for module in PROGRAM_SOURCES:
        lines = [line for line in module_source(module).split("\n") if line not in _NOT_IN_PROGRAM]
        parts.append("\n# ---- %s\n" % _source_path(module))
        parts.append("\n".join(lines).rstrip("\n") + "\n")
    return "".join(parts)


def restore_argv(text):
    """``[python, PROGRAM_PATH, DATA_PATH]`` when ``text`` is a unit in the program form (its one
    ``ExecStart=`` line runs the restore program), else None."""
    lines = [line for line in (text or "").split("\n") if line.startswith("ExecStart=")]
    if len(lines) != 1:
        return None
    try:
        argv, ignore = unit_syntax.parse_exec_line(lines[0])
    except unit_syntax.UnitSyntaxError:
        return None
    if ignore or len(argv) != 3 or argv[1:] != [PROGRAM_PATH, DATA_PATH]:
        return None
    return argv


def kernel_release():
    return kernel_support.kernel_release()


def smc_installed(release):
    """Whether the module tree of kernel ``release`` has SMC (``net/smc/smc.ko`` in modules.dep or
    modules.builtin); None when neither file can be read (a container, an image being built)."""
    builtin, installed = kernel_support.module_tree(release)
    if builtin is None and installed is None:
        return None
    return bool(builtin) or bool(installed)


def entries_of(text):
    """``(entries, foreign)``: the PNET entries the ``ExecStart=`` lines of ``text`` add, and
    whether the text has ``ExecStart=`` lines that are not entries this module writes."""
    entries, foreign = [], False
    for line in (text or "").split("\n"):
        if not line.startswith("ExecStart="):
            continue
        try:
            argv, dummy = unit_syntax.parse_exec_line(line)
        except unit_syntax.UnitSyntaxError:
            foreign = True
            continue
        item = None
        if len(argv) == 5 and argv[:2] == [TOOL, "-a"] and argv[3] == "-I":
            item = {"pnet_id": argv[2], "interface": argv[4]}
        elif len(argv) == 7 and argv[:2] == [TOOL, "-a"] and argv[3] == "-D" and argv[5] == "-P":
            item = {"pnet_id": argv[2], "ib_device": argv[4], "port": argv[6]}
        try:
            if item is None:
                raise PnetError("not an entry")
            entries.append(normalize_entry(item))
        except PnetError:
            foreign = True
    return entries, foreign


def link_target():
    """Where the wants link points (None: no link, '': not a link). Raises OSError."""
    try:
        return os.readlink(host_files.path(WANTS_LINK))
    except (IOError, OSError) as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            return None
        if exc.errno == errno.EINVAL:  # not a link
            return ""
        raise


def enabled():
    """Whether the wants link points to the unit file (as ``systemctl enable`` makes it)."""
    return link_target() in (UNIT_PATH, "../" + UNIT_NAME)


def read_unit():
    """``{"text", "entries", "foreign", "enabled", "link", "program", "data", "form"}`` of the boot
    unit on the host (``form``: ``tool``, ``netlink`` for the program form, None without a unit).
    Raises OSError when a file or the link cannot be read."""
    text = host_files.read_text(UNIT_PATH)
    program = host_files.read_text(PROGRAM_PATH)
    data = host_files.read_text(DATA_PATH)
    if restore_argv(text) is not None:
        form, entries, foreign = "netlink", [], data is None
        if data is not None:
            try:
                checked, refused = pnet_restore.restore_entries(data)
                entries, foreign = [entry for dummy, entry in checked], bool(refused)
            except pnet_restore.RestoreDataError:
                foreign = True
    else:
        entries, foreign = entries_of(text)
        form = "tool" if text is not None else None
    target = link_target()
    return {
        "text": text,
        "entries": entries,
        "foreign": foreign,
        "enabled": target in (UNIT_PATH, "../" + UNIT_NAME),
        "link": target,
        "program": program,
        "data": data,
        "form": form,
    }


def set_link(target):
    """Make the wants link point to ``target`` (a host path), or remove it (None). Raises OSError."""
    real = host_files.path(WANTS_LINK)
    if os.path.lexists(real):
        os.unlink(real)
    if target is None:
        return
    directory = os.path.dirname(real)
    if not os.path.isdir(directory):
        os.makedirs(directory, host_files.DIR_MODE)
    os.symlink(target, real)
