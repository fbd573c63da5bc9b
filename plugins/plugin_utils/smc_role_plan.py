# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The smc role's plan for one host, and every check of its input, before its first change.

``role_plan`` returns the host's RoCE functions (``smc_smcr.roce_plan``), ISM functions
(``cpc_host.smc_ism_config``) and services (``services.smc_services_plan``), the arguments of the
role's zpci_function and smc_sysctl calls and which optional steps it needs, and raises one
``RolePlanError`` naming every wrong field: the services and ``smc_dropin_name``, the PNET entries
as smc_pnet would refuse them (``pnet_errors``), and with SMC-R the rendezvous interface and the
PNET ID the role writes into software PNET entries. So the role needs one task for both, and its
module tasks pass values without Jinja filters or tests: a worker that uses the first one loads
every filter or test plugin of ansible-core, for every host and task.
"""

from __future__ import annotations

from ansible_collections.s390x.network.plugins.module_utils.ip import ifname as ip_ifname
from ansible_collections.s390x.network.plugins.module_utils.smc.pnet_cmd import PNET_ID_RE
from ansible_collections.s390x.network.plugins.module_utils.smc.services import smc_services_plan
from ansible_collections.s390x.network.plugins.module_utils.smc.sizing import (
    SMC_SYSCTL_PREFIX,
    SMC_SYSCTLS,
    SizingError,
    validate_setting,
)
from ansible_collections.s390x.network.plugins.plugin_utils.cpc_host import smc_ism_config
from ansible_collections.s390x.network.plugins.plugin_utils.smc_smcr import roce_plan

# net.core.rmem_max/wmem_max of a kernel that nobody changed: the role raises them only above it
CORE_MEM_DEFAULT = 212992


class RolePlanError(ValueError):
    """Every error of the role's input, joined with '; '."""


def pnet_errors(entries, state="merged", boot_unit=True, name="smc_pnet_config"):
    """What smc_pnet would refuse in ``entries`` (and, with ``boot_unit``, in its boot unit's lines);
    each message names the entry and field."""
    if not isinstance(entries, list):
        return ["%s: expected a list of entries, got %r" % (name, entries)]
    if not entries:
        return []
    # imported only for entries: a host without PNET entries plans without compiling the PNET code
    # (each controller worker compiles what a filter imports; the collection loader keeps no bytecode)
    # pylint: disable=import-outside-toplevel
    from ansible_collections.s390x.network.plugins.module_utils.engine.unit_syntax import UnitSyntaxError
    from ansible_collections.s390x.network.plugins.module_utils.smc.pnet_cmd import PnetError, normalize_entry
    from ansible_collections.s390x.network.plugins.module_utils.smc.pnet_unit import exec_line_of

    errors = []
    for index, item in enumerate(entries):
        try:
            entry = normalize_entry(item, index, allow_bare=(state == "deleted"))
            if boot_unit and state != "deleted" and (entry["interface"] or entry["ib_device"]):
                exec_line_of(entry, "config[%d]" % index)
        except (PnetError, UnitSyntaxError) as exc:
            text = str(exc)
            errors.append("%s%s" % (name, text[len("config") :] if text.startswith("config") else ": " + text))
    return errors


def smcr_errors(interface, pnet_id):
    """The rendezvous interface and PNET ID of SMC-R, checked whole before they reach a path or an entry."""
    errors = []
    pnet_id = "" if pnet_id is None else str(pnet_id)
    interface = "" if interface is None else str(interface)
    # empty: none; else the kernel's rules, each from its one owner
    if pnet_id:
        if not PNET_ID_RE.fullmatch(pnet_id):
            errors.append("smc_smcr_pnet_id: %r is not a PNET ID (1-16 characters A-Z, a-z, 0-9, or empty)" % pnet_id)
    if interface:
        problem = ip_ifname.ifname_problem(interface)
        if problem:
            errors.append("smc_smcr_interface: %s; or empty" % problem)
    return errors


def _size(value):
    """A buffer size or TCP limit of the inventory, or None (not set) for null and the empty string
    (a templated null before ansible-core 2.19)."""
    return None if value is None or str(value) == "" else value


# role variables that set one net.smc key each (Linux 6.19: SMC-R work requests per queue)
SETTING_VARIABLES = {"smcr_max_send_wr": "smc_smcr_max_send_wr", "smcr_max_recv_wr": "smc_smcr_max_recv_wr"}


def settings_args(options):
    """``(settings, errors)``: smc_sysctl's ``settings``, the role's ``smc_settings`` with the
    variables of :data:`SETTING_VARIABLES` that are set, each checked against the range the
    kernel's proc handler accepts (``sizing.SMC_SYSCTLS``, the one table), errors naming the
    variable and the range."""
    given = options.get("settings") or {}
    if not isinstance(given, dict):
        return {}, ["smc_settings: expected a mapping of net.smc keys to values, got %r" % (given,)]
    settings, errors, named = {}, [], {}
    for key, value in sorted(given.items(), key=lambda item: str(item[0])):
        try:
            short, dummy = validate_setting(key, value)
        except SizingError as exc:
            errors.append("smc_%s" % exc)
            continue
        named[short] = "smc_settings.%s" % key
        settings[key] = value
    for short, option in sorted(SETTING_VARIABLES.items()):
        value = _size(options.get(short))
        if value is None:
            continue
        spec = SMC_SYSCTLS[short]
        if short in named:
            errors.append("%s: %s%s is set by %s too; set it once" % (option, SMC_SYSCTL_PREFIX, short, named[short]))
            continue
        try:
            validate_setting(short, value)
        except SizingError:
            errors.append(
                "%s: expected an integer in the kernel's range %d..%d (%s%s), got %r"
                % (option, spec["min"], spec["max"], SMC_SYSCTL_PREFIX, short, value)
            )
            continue
        settings[short] = int(value)
    return settings, errors


def sysctl_args(options, roce, ism, services):
    """smc_sysctl's size arguments (None: not passed): the sizes and TCP limits as given, the
    protocol SMC-R for a host that uses RoCE and no ISM, and net.core.rmem_max/wmem_max raised to
    the largest service size where that is above the kernel default and ``raise_core_mem_max`` is
    on."""

    def core(limit):
        if options.get("raise_core_mem_max", True) and (limit or 0) > CORE_MEM_DEFAULT:
            return limit
        return None

    args = dict(
        (name, _size(options.get(name)))
        for name in ("rmem", "wmem", "tcp_rmem_min", "tcp_rmem_max", "tcp_wmem_min", "tcp_wmem_max")
    )
    args.update(
        protocol="smcr" if roce["enabled"] and not ism["fids"] else options.get("protocol", "smcd"),
        core_rmem_max=core(services["max_rmem"]),
        core_wmem_max=core(services["max_wmem"]),
    )
    return args


def steps(options, roce):
    """Which optional steps (tasks/steps.yml) the inventory asks of the host; ``tools`` and ``ueid``
    run only if smc_sysctl then reports smc-tools missing, or smc loaded (or check mode)."""
    return dict(
        tools=bool(options.get("install_packages", True)),
        smcr=bool(roce["enabled"]),
        pnet=bool(options.get("pnet_config"))
        or options.get("pnet_state", "merged") == "overridden"
        or not options.get("pnet_boot_unit", True),
        ueid=bool(options.get("ueids"))
        or options.get("ueid_state", "merged") == "overridden"
        or options.get("seid", "unchanged") != "unchanged",
    )


def role_plan(view, options):
    """``{"roce", "ism", "services", "functions", "sysctl", "steps"}`` for the host ``view`` (from
    ``cpc_host``) and the role's variables ``options`` (``roce_fids``, ``smcr``, ``ism_fids``,
    ``protocol``, ``services``, ``dropin_name``, ``pnet_config``, ``pnet_state``,
    ``pnet_boot_unit``, ``smcr_interface``, ``smcr_pnet_id``; for the module arguments ``rmem``,
    ``wmem``, ``tcp_rmem_min`` ... ``tcp_wmem_max``, ``raise_core_mem_max``, ``settings``,
    ``smcr_max_send_wr``, ``smcr_max_recv_wr``; for the steps
    ``install_packages``, ``ueids``, ``ueid_state``, ``seid``); raises RolePlanError with every
    error."""
    roce = roce_plan(view, options.get("roce_fids"), options.get("smcr"))
    ism = smc_ism_config(view, options.get("ism_fids"), options.get("protocol", "smcd"))
    services = smc_services_plan(options.get("services") or [], dropin_name=options.get("dropin_name"))
    errors = list(ism["errors"]) + list(services["errors"])
    settings, setting_errors = settings_args(options)
    errors += setting_errors
    errors += pnet_errors(
        options.get("pnet_config") or [], options.get("pnet_state", "merged"), options.get("pnet_boot_unit", True)
    )
    if roce["enabled"]:
        errors += list(roce["errors"]) + smcr_errors(options.get("smcr_interface"), options.get("smcr_pnet_id"))
    if errors:
        raise RolePlanError("; ".join(errors))
    return {
        "roce": roce,
        "ism": ism,
        "services": services,
        "functions": {"needed": bool(ism["fids"] or roce["fids"]), "config": ism["config"] + roce["config"]},
        "sysctl": dict(sysctl_args(options, roce, ism, services), settings=settings),
        "steps": steps(options, roce),
    }
