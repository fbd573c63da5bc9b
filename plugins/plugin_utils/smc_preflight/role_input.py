# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The SMC pre-flight's input from the inventory: the host variables it reads, the roles' variables
with the roles' own defaults (their ``meta/argument_specs.yml``, read from the collection, so a
default is stated once), the facts of one host (``inventory_host_facts``) and the pairs to predict
(``inventory_pairs``)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import os

import yaml

from ansible_collections.s390x.network.plugins.module_utils.smc.sizing import SizingError, service_size_warnings
from ansible_collections.s390x.network.plugins.module_utils.qeth.ids import QethIdError, parse_ccw_id
from ansible_collections.s390x.network.plugins.plugin_utils.cpc_host import CpcIndex
from ansible_collections.s390x.network.plugins.plugin_utils.smc_preflight.common import PreflightError
from ansible_collections.s390x.network.plugins.plugin_utils.smc_preflight.live import live_facts
from ansible_collections.s390x.network.plugins.plugin_utils.smc_preflight.model import model_facts, qeth_ifname

#: the roles' variables the pre-flight reads, per role (their defaults come from the role)
ROLE_VARIABLES = (
    (
        "smc",
        (
            "smc_pnet_config",
            "smc_pnet_state",
            "smc_ueids",
            "smc_ueid_state",
            "smc_seid",
            "smc_load_module",
            "smc_ism_fids",
            "smc_ism_partition",
            "smc_services",
            "smc_protocol",
        ),
    ),
    ("qeth", ("qeth_devices",)),
    ("interfaces", ("interfaces_config",)),
)
#: the pre-flight's own variables and the inventory's
PREFLIGHT_VARIABLES = (
    "cpc",
    "group_names",
    "smc_preflight_interface",
    "smc_preflight_ipsec",
    "smc_preflight_facts",
    "smc_preflight_live",
)
#: every host variable the pre-flight reads (the rest of hostvars is never templated)
VARIABLES = PREFLIGHT_VARIABLES + tuple(name for _role, names in ROLE_VARIABLES for name in names)

# plugins/plugin_utils/smc_preflight/ -> the collection's roles/
ROLES_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "roles")
_DEFAULTS = {}


def role_defaults(role):
    """The defaults of a role's ``main`` entry point, from its ``meta/argument_specs.yml`` (an option
    without a default is None)."""
    path = os.path.join(ROLES_DIR, role, "meta", "argument_specs.yml")
    if path not in _DEFAULTS:
        try:
            with open(path) as handle:
                spec = yaml.safe_load(handle)
            options = spec["argument_specs"]["main"]["options"]
        except (IOError, OSError, yaml.YAMLError, KeyError, TypeError) as exc:
            raise PreflightError("cannot read the defaults of the %s role from %s: %s" % (role, path, exc))
        _DEFAULTS[path] = dict((name, (option or {}).get("default")) for name, option in options.items())
    return _DEFAULTS[path]


def role_vars(hvars):
    """The roles' variables of a host: its value, else the role's default."""
    result = {}
    for role, names in ROLE_VARIABLES:
        defaults = role_defaults(role)
        for name in names:
            if name not in defaults:
                raise PreflightError("the %s role has no variable %s in its argument_specs" % (role, name))
            result[name] = copy.deepcopy(hvars[name]) if name in hvars else copy.deepcopy(defaults[name])
    return result


def _model_inputs(hvars, given):
    return {
        "partition": given["smc_ism_partition"],
        "ism_fids": given["smc_ism_fids"],
        "qeth_devices": given["qeth_devices"],
        "pnet_config": given["smc_pnet_config"],
        "guest": "kvm_guests" in (hvars.get("group_names") or []),
    }


def _smc_role_facts(hvars, given, facts):
    """What the smc role makes of a host in ``smc_hosts``; its variables set on another host count too."""
    in_smc = "smc_hosts" in (hvars.get("group_names") or [])
    if in_smc and given["smc_load_module"]:
        facts["smc"] = True
        facts["sources"].append("smc role (smc_hosts): loads smc")
    if in_smc or "smc_pnet_config" in hvars:
        config = given["smc_pnet_config"] or []
        facts["pnet_table"] = [] if given["smc_pnet_state"] == "deleted" else config
    if in_smc or "smc_ueids" in hvars:
        ueids = [] if given["smc_ueid_state"] == "deleted" else list(given["smc_ueids"] or [])
        facts["ueids"] = ueids
        # the kernel refuses to disable the SEID without a UEID; at boot it is enabled
        facts["seid"]["enabled"] = not (given["smc_seid"] == "disabled" and ueids)
    ipsec = hvars.get("smc_preflight_ipsec", False)
    facts["ipsec"] = ipsec if isinstance(ipsec, bool) else None


def service_warnings(host, hvars, kernel):
    """Per-service buffer sizes (``smc_services``) of a host in ``smc_hosts`` above what its kernel
    allocates (``sizing``, one table of kernel levels with the pre-flight)."""
    if not kernel or "smc_hosts" not in (hvars.get("group_names") or []):
        return []
    given = role_vars(hvars)
    try:
        warnings = service_size_warnings(kernel, given["smc_services"], given["smc_protocol"])
    except SizingError as exc:
        return ["%s: %s" % (host, exc)]
    return ["%s: %s" % (host, text) for text in warnings]


def _interfaces_role_facts(config, facts):
    """The rendezvous addresses from ``interfaces_config`` (the interfaces role): the entry of the
    rendezvous qeth device (``enc<devno>``) or interface name; for a guest, its one NIC entry."""
    rendezvous = facts["rendezvous"]
    entries = [e for e in config or [] if isinstance(e, dict) and e.get("addresses")]
    if not entries or rendezvous.get("addresses") is not None:
        return
    name = rendezvous.get("interface")
    chosen = None
    for entry in entries:
        if entry.get("name") and entry["name"] == name:
            chosen = entry
        elif entry.get("device") and name:
            try:
                cssid, ssid, devno = parse_ccw_id(str(entry["device"]))
            except QethIdError:
                continue
            if qeth_ifname(cssid, ssid, devno) == name:
                chosen = entry
    if chosen is None and rendezvous.get("kind") == "virtio":
        nics = [e for e in entries if e.get("mac") or e.get("name")]
        chosen = nics[0] if len(nics) == 1 else None
    if chosen is not None:
        rendezvous["addresses"] = [str(a) for a in chosen["addresses"]]
        facts["sources"].append("interfaces_config: rendezvous addresses")


def inventory_host_facts(host, hvars, live=None, assume=None, indexes=None):
    """Fact dict of one host from its inventory variables, then its live facts.

    ``hvars`` holds the host's variables (plain data): ``cpc``, ``group_names``, the roles'
    variables of ``ROLE_VARIABLES`` (a variable not set has its role's default), and the pre-flight's own
    ``smc_preflight_interface`` (rendezvous interface: a name or ``{interface, address, pnet_id,
    vlan}``), ``smc_preflight_ipsec`` and ``smc_preflight_facts`` (facts that win over the
    inventory's). ``live`` holds registered results of ``smc_sysctl``, ``smcd_info_smcd``,
    ``smcd_info_smcr``, ``smc_pnet`` (gathered), ``smc_ueid`` and the host's ``ansible_facts``;
    what they report wins over the inventory. ``assume`` fills facts that are still not known
    (``{"kernel": "5.14.0-427.el9.s390x", "seid": {"enabled": true}}``). Nothing else is guessed.
    ``indexes`` keeps the ``cpc`` models read for other hosts (``model_facts``).
    """
    facts = {
        "cpc": None,
        "machine": None,
        "kernel": None,
        "smc": None,
        "ism": None,
        "roce": None,
        "pnet_table": None,
        "rendezvous": {},
        "netdev_pnet_ids": None,
        "seid": {"enabled": None, "value": None},
        "ueids": None,
        "ipsec": None,
        "sources": [],
    }
    hvars = hvars or {}
    rvars = role_vars(hvars)
    interfaces = model_facts(host, hvars.get("cpc"), facts, _model_inputs(hvars, rvars), indexes)
    _smc_role_facts(hvars, rvars, facts)
    interface = hvars.get("smc_preflight_interface")
    if isinstance(interface, (str, dict)) and interface:
        given = {"interface": interface} if isinstance(interface, str) else dict(interface)
        if "address" in given and "addresses" not in given:
            # the documented single address wins over addresses the inventory or the model gave
            given["addresses"] = given.pop("address")
        current = facts["rendezvous"]
        if given.get("interface") and given["interface"] != current.get("interface"):
            # another interface: its hardware PNET ID from the model when it is one of the partition's
            # qeth devices (also below a VLAN), none for a guest's virtio interface, else not known
            current = {"kind": current.get("kind")}
            if current["kind"] == "virtio":
                current["pnet_id"] = ""
            base = given["interface"].split(".")[0]
            for item in interfaces:
                if item["interface"] == base:
                    current.update(pnet_id=item["pnet_id"], kind=item["kind"])
        current.update(given)
        facts["rendezvous"] = current
    overrides = hvars.get("smc_preflight_facts")
    if isinstance(overrides, dict):
        for key, value in overrides.items():
            if key == "rendezvous" and isinstance(value, dict):
                facts["rendezvous"] = dict(facts["rendezvous"], **value)
            else:
                facts[key] = copy.deepcopy(value)
        facts["sources"].append("smc_preflight_facts")
    if isinstance(live, dict):
        live_facts(live, facts)
    # after what the pre-flight was given and what the host reported, which both win
    _interfaces_role_facts(rvars["interfaces_config"], facts)
    for key, value in (assume or {}).items():
        current = facts.get(key)
        if isinstance(current, dict) and isinstance(value, dict):
            # seid, rendezvous: fill the entries that are not known
            missing = [k for k in value if current.get(k) is None]
            for sub in missing:
                current[sub] = copy.deepcopy(value[sub])
            if missing:
                facts["sources"].append("assumed %s" % ", ".join("%s.%s" % (key, k) for k in missing))
        elif current is None:
            facts[key] = copy.deepcopy(value)
            facts["sources"].append("assumed %s" % key)
    return facts


def inventory_pairs(hostvars, hosts):
    """Pairs to predict when none are given: every ordered pair of each ``cpc.smcd_peers`` group
    (partition names mapped to their hosts, guest names to the inventory host of that name); when
    no model names peers, every ordered pair of the hosts in ``smc_hosts``. Returns ``(pairs,
    unresolved)``: names that map to no inventory host are reported, not guessed. A model is read
    once however many hosts carry it (``CpcIndex.find``)."""
    pairs, seen_pairs, unresolved, seen_models, indexes = [], set(), [], set(), []
    inventory = set(hosts)

    def add(a, b):
        if a != b and (a, b) not in seen_pairs:
            seen_pairs.add((a, b))
            pairs.append((a, b))

    for host in hosts:
        cpc = (hostvars.get(host) or {}).get("cpc")
        if not isinstance(cpc, dict):
            continue
        index = CpcIndex.find(cpc, indexes)
        model = index.model
        # one model per channel subsystem: a CPC of more than 15 partitions has several of one name
        key = (model.get("name"), model.get("css"))
        if index.errors or key in seen_models:
            continue
        seen_models.add(key)
        host_of = dict((p["name"], p["host"]) for p in model["partitions"] if p.get("host"))
        for group in model.get("smcd_peers") or []:
            names = []
            for name in group:
                resolved = host_of.get(name, name)
                if resolved not in inventory:
                    unresolved.append(name)
                names.append(resolved)
            for a in names:
                for b in names:
                    add(a, b)
    if not seen_models or not pairs:
        smc = [h for h in hosts if "smc_hosts" in ((hostvars.get(h) or {}).get("group_names") or [])]
        for a in smc:
            for b in smc:
                add(a, b)
    return [{"client": a, "server": b} for a, b in pairs], unresolved
