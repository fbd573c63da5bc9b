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

``read_unit`` reads the file back (its entries, for ``state: merged`` and ``deleted``, which
change the entries of earlier runs as they change the table); a line it does not recognise is
not an entry, and the file is rewritten.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import os

from ansible_collections.s390x.network.plugins.module_utils.engine import host_files
from ansible_collections.s390x.network.plugins.module_utils.engine import unit_syntax
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


def exec_line_of(entry, field="config[0]"):
    """The ``ExecStart=`` line that adds ``entry`` (normalised); UnitSyntaxError names
    ``field.interface`` / ``field.ib_device`` for a name a unit line cannot hold (a control
    character: legal in a kernel name, impossible on one line)."""
    key = "interface" if entry["interface"] is not None else "ib_device"
    unit_syntax.check_text(entry[key], "%s.%s" % (field, key))
    return unit_syntax.exec_line(argv_add(entry, TOOL), ignore_failure=True, field=field)


def render(entries):
    """The unit file that adds ``entries`` (normalised, in this order) at boot; None for none."""
    if not entries:
        return None
    lines = HEADER + [
        "[Unit]",
        "Description=SMC software PNET table (s390x.network.smc_pnet)",
        "After=systemd-modules-load.service network.target",
        "Wants=network.target",
        "",
        "[Service]",
        "Type=oneshot",
        "RemainAfterExit=yes",
    ]
    lines += [exec_line_of(entry, "entries[%d]" % index) for index, entry in enumerate(entries)]
    lines += ["", "[Install]", "WantedBy=%s" % WANTED_BY, ""]
    return "\n".join(lines)


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
    """``{"text", "entries", "foreign", "enabled", "link"}`` of the boot unit on the host.
    Raises OSError when the file or the link cannot be read."""
    text = host_files.read_text(UNIT_PATH)
    entries, foreign = entries_of(text)
    target = link_target()
    return {
        "text": text,
        "entries": entries,
        "foreign": foreign,
        "enabled": target in (UNIT_PATH, "../" + UNIT_NAME),
        "link": target,
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
