# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The restore program of ``smc_pnet``'s boot unit on a host without smc-tools, and its data file.

Without ``smc_pnet`` the boot unit runs ``PYTHON PROGRAM DATA``: ``PROGRAM`` is this file after
``netlink.py`` and ``pnet_cmd.py`` in one file (``pnet_unit.program_text``; standard library only),
``DATA`` the JSON file of the entries (``restore_data_text``). The program checks every entry again with
``normalize_entry`` (the module's grammar) and printable ASCII names (what a unit line and the
netlink client's ``nla_string`` can carry), then adds the good ones with ``SMC_PNETID_ADD``. An
entry that is refused - by the check or by the kernel - is named on stderr and the others are
still added; the exit code is then 1 (2: the arguments or the file are unusable). An entry the
table already holds under the same PNET ID counts as added, so the unit can run again.

The family is looked up by name when it is not registered (``CTRL_CMD_GETFAMILY`` with the name
makes the kernel load the module that declares it, ``smc_diag`` for ``SMC_PNETID``, ``smc`` for
``SMC_GEN_NETLINK``), as ``smc_pnet`` does through libnl: at boot the unit loads ``smc`` itself.

Every top-level name here starts with ``restore_``, ``RESTORE_`` or ``Restore`` so that nothing of
``netlink.py`` or ``pnet_cmd.py`` is shadowed in the program (a unit test checks it).
"""

import errno
import json
import re
import sys

if "SmcNetlink" not in globals():  # imported in the collection; in the program these sources precede
    from ansible_collections.s390x.network.plugins.module_utils.smc.netlink import (
        CTRL_ATTR_FAMILY_NAME,
        CTRL_CMD_GETFAMILY,
        GENL_ID_CTRL,
        SMC_GENL_FAMILY_NAME,
        SMCR_GENL_FAMILY_NAME,
        FamilyNotFound,
        NetlinkError,
        SmcNetlink,
        genl_request,
        nla_string,
    )
    from ansible_collections.s390x.network.plugins.module_utils.smc.pnet_cmd import (
        PnetError,
        entry_key,
        normalize_entry,
        to_config,
    )

RESTORE_FORMAT = 1
RESTORE_MANAGED_BY = "s390x.network.smc_pnet (boot_unit: present); changes are overwritten"
#: the data path argument: an absolute path of plain components (no '.' or '..')
RESTORE_PATH_RE = re.compile(r"(?:/(?!\.\.?(?:/|$))[A-Za-z0-9_.+-]+)+")
#: a name the program sends: printable ASCII without blanks
RESTORE_NAME_RE = re.compile(r"[!-~]+")
RESTORE_OK, RESTORE_REFUSED, RESTORE_USAGE = 0, 1, 2


class RestoreDataError(ValueError):
    """A data file that is not what ``restore_data_text`` writes."""


def restore_describe(entry):
    """``NETA interface eth1`` / ``NETA ib_device mlx5_0 port 1`` (a checked entry)."""
    if entry["interface"] is not None:
        return "%s interface %s" % (entry["pnet_id"], entry["interface"])
    return "%s ib_device %s port %d" % (entry["pnet_id"], entry["ib_device"], entry["port"])


def restore_check(item, index):
    """The normalised entry of data item ``index``; PnetError naming ``entries[INDEX].FIELD``."""
    where = "entries[%d]" % index
    try:
        entry = normalize_entry(item, index)
    except PnetError as exc:
        raise PnetError(str(exc).replace("config[%d]" % index, where, 1))
    key = "interface" if entry["interface"] is not None else "ib_device"
    if not RESTORE_NAME_RE.fullmatch(entry[key]):
        raise PnetError(
            "%s.%s: %r is not printable ASCII; the restore program sends such names only (smc_pnet of "
            "smc-tools takes the others)" % (where, key, entry[key])
        )
    return entry


def restore_data_text(entries):
    """The data file for ``entries`` (normalised): JSON, keys sorted, non-ASCII escaped."""
    document = {"format": RESTORE_FORMAT, "managed_by": RESTORE_MANAGED_BY, "entries": to_config(entries)}
    return json.dumps(document, indent=2, sort_keys=True, ensure_ascii=True) + "\n"


def restore_entries(text):
    """``(checked, refused)`` of a data file: ``(index, entry)`` of each item that passes
    ``restore_check``, and the messages of those that do not. RestoreDataError when the file is not a data file at all.
    """
    try:
        document = json.loads(text)
    except ValueError as exc:
        raise RestoreDataError("not JSON: %s" % exc)
    if not isinstance(document, dict) or set(document) - set(("format", "managed_by", "entries")):
        raise RestoreDataError("expected an object with format, managed_by and entries")
    if document.get("format") != RESTORE_FORMAT or not isinstance(document.get("entries"), list):
        raise RestoreDataError("expected format %d and a list of entries" % RESTORE_FORMAT)
    checked, refused = [], []
    for index, item in enumerate(document["entries"]):
        try:
            checked.append((index, restore_check(item, index)))
        except PnetError as exc:
            refused.append(str(exc))
    return checked, refused


def restore_family(genl):
    """Make sure ``SMC_PNETID`` is registered: asked by name, the kernel loads the module that
    declares it. FamilyNotFound naming the family when it stays missing."""
    try:
        return genl.family(SMCR_GENL_FAMILY_NAME)
    except FamilyNotFound as missing:
        for name in (SMCR_GENL_FAMILY_NAME, SMC_GENL_FAMILY_NAME):
            seq = genl._next_seq()
            attrs = nla_string(CTRL_ATTR_FAMILY_NAME, name, genl.byteorder)
            request = genl_request(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, seq, genl.byteorder, attrs=attrs)
            try:
                genl._exchange(request, seq, "nlctrl CTRL_CMD_GETFAMILY %s" % name)
                break
            except NetlinkError as exc:
                if exc.errno != errno.ENOENT:
                    raise
        genl.families = None  # dump again: what is registered now
        try:
            return genl.family(SMCR_GENL_FAMILY_NAME)
        except FamilyNotFound:
            raise FamilyNotFound(
                errno.ENOENT, "%s; asked by name, the kernel did not load it either (no SMC in this kernel)" % missing
            )


def restore_add(smc, entry):
    """Add one entry; None when it is in the table now, else the kernel's refusal."""
    try:
        smc.pnet_add(entry["pnet_id"], interface=entry["interface"], ib_device=entry["ib_device"], port=entry["port"])
        return None
    except NetlinkError as exc:
        if exc.errno != errno.EEXIST:
            return str(exc)
        refusal = str(exc)
    try:  # already there under this PNET ID (the unit ran before): added
        table = smc.pnet_table()
    except NetlinkError as exc:
        return "%s; reading the table failed: %s" % (refusal, exc)
    if any(e["pnet_id"] == entry["pnet_id"] and entry_key(e) == entry_key(entry) for e in table):
        return None
    return (
        "%s: the interface or device port belongs to another PNET ID, or the device has a PNET ID from "
        "the IOCDS, which wins over software entries" % refusal
    )


def restore_run(argv, out, err, transport=None):
    """The program: ``argv`` is ``[DATA]``; messages go to ``out`` and ``err``; the exit code."""
    if len(argv) != 1 or not RESTORE_PATH_RE.fullmatch(argv[0]):
        err.write("usage: smc-pnet-restore DATA (an absolute path to the JSON data file), got %r\n" % (argv,))
        return RESTORE_USAGE
    path = argv[0]
    try:
        with open(path, "rb") as handle:
            text = handle.read().decode("utf-8")
        checked, refused = restore_entries(text)
    except (IOError, OSError) as exc:
        err.write("%s: cannot read: %s\n" % (path, exc.strerror or exc))
        return RESTORE_USAGE
    except (UnicodeError, RestoreDataError) as exc:
        err.write("%s: not a data file of smc_pnet: %s\n" % (path, exc))
        return RESTORE_USAGE
    for message in refused:
        err.write("%s: %s; not added\n" % (path, message))
    failed = len(refused)
    if checked:
        try:
            smc = SmcNetlink(transport)
        except NetlinkError as exc:
            err.write("%s: %d entries not added: %s\n" % (path, len(checked), exc))
            return RESTORE_REFUSED
        try:
            try:
                restore_family(smc.genl)
            except NetlinkError as exc:
                err.write("%s: %d entries not added: %s\n" % (path, len(checked), exc))
                return RESTORE_REFUSED
            for index, entry in checked:
                refusal = restore_add(smc, entry)
                if refusal is None:
                    out.write("%s: entries[%d] (%s) added\n" % (path, index, restore_describe(entry)))
                else:
                    failed += 1
                    err.write("%s: entries[%d] (%s) not added: %s\n" % (path, index, restore_describe(entry), refusal))
        finally:
            smc.close()
    if failed:
        err.write("%s: %d of %d entries not added\n" % (path, failed, len(refused) + len(checked)))
        return RESTORE_REFUSED
    return RESTORE_OK


if __name__ == "__main__":
    raise SystemExit(restore_run(sys.argv[1:], sys.stdout, sys.stderr))
