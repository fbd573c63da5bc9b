# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The smc role's ``smc_services``: units that run with SMC, and their socket buffer sizes.

A service runs with SMC through a systemd drop-in that preloads the smc-tools library
(``smc_run``); its ``rmem``/``wmem`` sizes become ``SMC_RCVBUF``/``SMC_SNDBUF`` there, written as
given: the preload library reads bytes or a number with a K or M suffix (as ``smc_run -r/-t``),
so only those forms are accepted. SMC rounds a buffer below 16 KiB up to 16 KiB (the kernel's
SMC_BUF_MIN_SIZE), so a smaller wish is an error.

Every string that reaches a path or a file is checked here, in code, before the role writes:
unit names against systemd's unit-name grammar and the drop-in's file name as a ``*.conf`` name
(``unit_syntax``, fullmatch), so that ``/etc/systemd/system/UNIT.d/NAME`` stays in that
directory and the name is no glob pattern; the drop-in's text is built line by line by
``unit_syntax`` (``Environment=`` quoting), never by a template from raw values; and the stale
drop-ins are picked from what the host has by the same checks.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import posixpath
import re

from ansible_collections.s390x.network.plugins.module_utils.engine import unit_syntax
from ansible_collections.s390x.network.plugins.module_utils.smc.sizing import parse_size

SMC_MIN_BUFFER = 16384
SERVICE_KEYS = ("name", "rmem", "wmem")
UNIT_TYPES = ("service", "socket")
UNIT_DIR = "/etc/systemd/system"
_SIZE_RE = re.compile(r"[0-9]+[kKmM]?")
PRELOAD = ("LD_PRELOAD", "libsmc-preload.so")
#: ``dropin_name`` not given (None is a value, and a wrong one)
NOT_GIVEN = object()


def _unit_name(value, where):
    """``(unit name, error)``: ``value`` with ``.service`` added when it has no ``.service`` or
    ``.socket`` suffix, checked against systemd's unit-name grammar (``unit_syntax``)."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return None, "%s.name: %r is not a systemd unit name (a string)" % (where, value)
    given = str(value)
    name = given if given.endswith((".service", ".socket")) else given + ".service"
    try:
        unit_syntax.check_unit_name(name, "%s.name" % where, types=UNIT_TYPES)
    except unit_syntax.UnitSyntaxError:
        return None, (
            "%s.name: %r is not a systemd unit name (A-Z, a-z, 0-9, ':', '_', '.', '-', one '@' before an "
            "instance, not starting with '-' or '.', at most 255 characters with .service or .socket)" % (where, given)
        )
    return name, None


def dropin_text(service):
    """The drop-in that runs ``service`` (a planned entry) with SMC; every line built by
    ``unit_syntax`` (the name is a checked unit name, the sizes checked sizes)."""
    variables = [PRELOAD]
    for key, variable in (("rmem", "SMC_RCVBUF"), ("wmem", "SMC_SNDBUF")):
        if service[key] is not None:
            variables.append((variable, service[key]))
    sizes = ", with per-service buffer sizes (smc_run -r/-t)" if len(variables) > 1 else ""
    lines = [
        unit_syntax.comment_line(
            "Run %s with SMC (s390x.network.smc role): libsmc-preload.so turns its TCP sockets" % service["name"]
        ),
        unit_syntax.comment_line("into AF_SMC sockets, as smc_run does%s." % sizes),
        "[Service]",
    ]
    lines += [unit_syntax.environment_line([pair], field="smc_services.%s" % service["name"]) for pair in variables]
    return "\n".join(lines) + "\n"


def stale_dropins(found, dropin_name, names):
    """``[{"name", "path"}]``: the drop-ins ``UNIT_DIR/UNIT.d/DROPIN_NAME`` among ``found`` (host
    paths) whose unit is a valid unit name that is not in ``names``; every other path is ignored."""
    stale = []
    for path in found or []:
        if not isinstance(path, str):
            continue
        directory, base = posixpath.split(path)
        parent, unit_dir = posixpath.split(directory)
        if base != dropin_name or parent != UNIT_DIR or not unit_dir.endswith(".d"):
            continue
        unit = unit_dir[: -len(".d")]
        try:
            unit_syntax.check_unit_name(unit, "found", types=UNIT_TYPES)
        except unit_syntax.UnitSyntaxError:
            continue
        if unit not in names:
            stale.append({"name": unit, "path": path})
    return sorted(stale, key=lambda item: item["path"])


def smc_services_plan(services, dropin_name=NOT_GIVEN, found=None, field="smc_services", name_field="smc_dropin_name"):
    """The ``smc_services`` list normalised: names as unit names, buffer sizes in bytes.

    With ``dropin_name`` (the role's ``smc_dropin_name``, checked as a ``*.conf`` name) each service
    also gets ``dir``, ``path`` and ``dropin`` (the drop-in's text) and the plan ``dropin_name``;
    with ``found`` too (paths of files named ``dropin_name`` below ``/etc/systemd/system``) the
    plan has ``stale``: the drop-ins of services no longer listed (``stale_dropins``). Errors name
    ``field[INDEX]`` and ``name_field`` (the role's variables; the module's options)."""
    result, errors = [], []
    planned = dropin_name is not NOT_GIVEN
    if planned:
        try:
            unit_syntax.check_conf_name(dropin_name, name_field)
        except unit_syntax.UnitSyntaxError as exc:
            errors.append(str(exc))
            dropin_name = False
    for index, item in enumerate(services or []):
        entry = item if isinstance(item, dict) else {"name": item}
        where = "%s[%d]" % (field, index)
        name, error = _unit_name(entry.get("name"), where)
        if error:
            errors.append(error)
        unknown = sorted(set(entry) - set(SERVICE_KEYS))
        if unknown:
            errors.append(
                "%s: unknown keys %s (allowed: %s)" % (where, ", ".join(map(str, unknown)), ", ".join(SERVICE_KEYS))
            )
        service = {"name": name if name is not None else str(entry.get("name"))}
        for key in ("rmem", "wmem"):
            value = entry.get(key)
            size = 0
            if value is not None:
                if isinstance(value, bool) or not isinstance(value, (str, int)) or not _SIZE_RE.fullmatch(str(value)):
                    errors.append(
                        "%s.%s: %r is not a size (bytes, or a number with k, K, m or M)" % (where, key, value)
                    )
                else:
                    size = parse_size(str(value), "%s.%s" % (where, key))
                    if size < SMC_MIN_BUFFER:
                        errors.append("%s.%s: %s is below the SMC minimum of 16K" % (where, key, value))
            service[key] = None if value is None else str(value)
            service[key + "_bytes"] = size
        result.append(service)
    plan = {
        "services": result,
        "errors": errors,
        "names": [s["name"] for s in result],
        "max_rmem": max([0] + [s["rmem_bytes"] for s in result]),
        "max_wmem": max([0] + [s["wmem_bytes"] for s in result]),
    }
    if planned:
        # nothing to write or remove unless every entry and the name are right
        ok = not errors
        plan["dropin_name"] = dropin_name if ok else None
        for service in result:
            service["dir"] = "%s/%s.d" % (UNIT_DIR, service["name"]) if ok else None
            service["path"] = "%s/%s" % (service["dir"], dropin_name) if ok else None
            service["dropin"] = dropin_text(service) if ok else None
        if found is not None:
            plan["stale"] = stale_dropins(found, dropin_name, plan["names"]) if ok else []
    return plan
