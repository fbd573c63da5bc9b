# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The smc role's ``smc_services``: units that run with SMC, and their socket buffer sizes.

A service runs with SMC through a systemd drop-in that preloads the smc-tools library
(``smc_run``); its ``rmem``/``wmem`` sizes become ``SMC_RCVBUF``/``SMC_SNDBUF`` there, written as
given: the preload library reads bytes or a number with a K or M suffix (as ``smc_run -r/-t``),
so only those forms are accepted. SMC rounds a buffer below 16 KiB up to 16 KiB (the kernel's
SMC_BUF_MIN_SIZE), so a smaller wish is an error.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.s390x.network.plugins.module_utils.smc_sizing import parse_size

SMC_MIN_BUFFER = 16384
SERVICE_KEYS = ("name", "rmem", "wmem")
_UNIT_RE = re.compile(r"^[A-Za-z0-9:_.@-]+$")
_SIZE_RE = re.compile(r"^[0-9]+[kKmM]?$")


def smc_services_plan(services):
    """The ``smc_services`` list normalised: names as unit names, buffer sizes in bytes."""
    result, errors = [], []
    for index, item in enumerate(services or []):
        entry = item if isinstance(item, dict) else {"name": item}
        where = "smc_services[%d]" % index
        name = str(entry.get("name") or "")
        if not _UNIT_RE.match(name):
            errors.append("%s.name: %r is not a systemd unit name" % (where, name))
        if not name.endswith((".service", ".socket")):
            name += ".service"
        unknown = sorted(set(entry) - set(SERVICE_KEYS))
        if unknown:
            errors.append(
                "%s: unknown keys %s (allowed: %s)" % (where, ", ".join(map(str, unknown)), ", ".join(SERVICE_KEYS))
            )
        service = {"name": name}
        for key in ("rmem", "wmem"):
            value = entry.get(key)
            size = 0
            if value is not None:
                if isinstance(value, bool) or not _SIZE_RE.match(str(value)):
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
    return {
        "services": result,
        "errors": errors,
        "names": [s["name"] for s in result],
        "max_rmem": max([0] + [s["rmem_bytes"] for s in result]),
        "max_wmem": max([0] + [s["wmem_bytes"] for s in result]),
    }
