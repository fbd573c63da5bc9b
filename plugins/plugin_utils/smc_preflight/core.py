# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""SMC pre-flight: what two SMC peers will negotiate, or why they fall back to TCP.

For a pair (client, server) of hosts, ``predict_pair`` replays the decisions the Linux kernel
takes in the CLC handshake and returns ``SMC-D v2``, ``SMC-D v1``, ``SMC-R v2``, ``SMC-R v1``,
or ``TCP`` with the ``SMC_CLC_DECL_*`` code the kernel records, the side that records it and a
fix; or ``unknown`` with the facts to check when the answer depends on facts nobody gave.

Sources (facts, not code; the code here is our own):

* net/smc/af_smc.c (Linux 6.18): the client side ``smc_connect`` -> ``__smc_connect`` (peer
  without the SMC TCP option: ``SMC_CLC_DECL_PEERNOSMC``; IPsec: ``SMC_CLC_DECL_IPSEC``),
  ``smc_find_proposal_devices`` (ISM v1 by ``smc_find_ism_device``, RDMA v1 by
  ``smc_find_rdma_device``, ISM v2 by ``smc_find_ism_v2_device_clnt``, RDMA v2 only with
  IPv4 and at least one UEID, ``smc_clc_ueid_count``; nothing: ``SMC_CLC_DECL_NOSMCDEV``); the
  server side ``smc_listen_work`` (peer without SMC, IPsec, ``smc_listen_v2_check``:
  ``SMC_CLC_DECL_NOISM2SUPP``, ``SMC_CLC_DECL_NOUEID``) and ``smc_listen_find_device``, which
  tries in this order ``smc_find_ism_v2_device_serv`` (a proposed CHID on one of its ISM
  devices, then a common EID, ``SMC_CLC_DECL_NOSMCD2DEV``), the v1 prefix check
  (``SMC_CLC_DECL_DIFFPREFIX``), ``smc_find_ism_v1_device_serv`` (``SMC_CLC_DECL_NOSMCDDEV``),
  ``smc_find_rdma_v2_device_serv`` (``SMC_CLC_DECL_NOSMCRDEV``) and
  ``smc_find_rdma_v1_device_serv`` (``SMC_CLC_DECL_NOSMCDEV``); the first code stored
  (``smc_find_ism_store_rc``) is the one the server declines with. The client then records
  ``SMC_CLC_DECL_PEERDECL`` for that connection.
* net/smc/smc_pnet.c: ``smc_pnet_find_ism_resource`` / ``smc_pnet_find_roce_resource`` take the
  PNET ID of the base device of the handshake interface from the hardware (``pnet_id_by_dev_port``,
  the CHPID's or PCI function's utility string from the IOCDS) and only without one from the
  software table; a software entry for a device with a hardware PNET ID is refused
  (``smc_pnet_add_eth``, ``smc_pnet_apply_ib``/``_smcd``). Without any PNET ID an RDMA device is
  used only when the handshake interface is the RoCE port's own interface
  (``smc_pnet_find_rdma_dev``). ``smc_pnet_is_ndev_pnetid`` knows only hardware PNET IDs of
  interfaces that are up.
* net/smc/smc_clc.c: ``smc_clc_prfx_match`` (v1: one of the server's addresses on the device of
  the connection has the client's subnet and prefix length), ``smc_clc_match_eid`` (the system EID
  when both offer it and they are equal, else a UEID in both tables), ``smc_clc_send_proposal``
  (SEID flag = SEID enabled; UEIDs), ``smc_clc_ueid_count``; the codes and names are those of
  net/smc/smc_clc.h.
* net/smc/smc_ism.c: ``smc_ism_cantalk`` (the peer's ISM GID is reachable: same CPC, same ISM
  channel), ``smc_ism_get_chid``, ``smc_ism_is_v2_capable`` (an ISMv2-capable device is there).
* IBM documentation "Setting up the SMC support" (Linux on IBM Z and LinuxONE, Device Drivers,
  Features, and Commands): SMC-Dv1 and SMC-Rv1 need equal PNET IDs on the interface and the ISM or
  RoCE function, from the IOCDS or, for KVM guests, from the software PNET table; SMC-Dv2 needs
  z15 or later, works across subnets, needs the same channel ID and the same system EID (all
  operating systems on one CPC have the same SEID); SMC-Rv2 needs RoCE Express2 or later.
  "SMC for Linux on IBM Z and LinuxONE" (linux-on-z blog): SMC-Dv2 is in Linux 5.10 and later and
  in RHEL 8.4, SLES 15 SP3, Ubuntu 21.04; SMC-Rv2 in Linux 5.16. The UEID table (``net/smc: add
  support for user defined EIDs``) came with SMC-Rv2 in 5.16. RHEL 9.4 carries the SMC code of
  Linux 6.4 (CentOS Stream 9 merge request "Upgrade the SMC driver to latest from upstream",
  RHEL-11199).

Pure Python, no Ansible imports.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import ipaddress
import re

from ansible_collections.s390x.network.plugins.plugin_utils.cpc_host import host_view
from ansible_collections.s390x.network.plugins.module_utils.iocp.cpc_model import iqd_devices, normalize_cpc
from ansible_collections.s390x.network.plugins.module_utils.zpci.pci_ids import fid_text
from ansible_collections.s390x.network.plugins.module_utils.qeth.ids import QethIdError, parse_ccw_id
from ansible_collections.s390x.network.plugins.module_utils.smc.clc import CODE_OF

SMCD_V2 = "SMC-D v2"
SMCD_V1 = "SMC-D v1"
SMCR_V2 = "SMC-R v2"
SMCR_V1 = "SMC-R v1"
TCP = "TCP"
UNKNOWN = "unknown"
PREDICTIONS = (SMCD_V2, SMCD_V1, SMCR_V2, SMCR_V1, TCP, UNKNOWN)

# SMCD_CLC_MAX_V2_GID_ENTRIES: ISM devices a client offers for SMC-Dv2 besides its v1 device
MAX_V2_ISM_OFFERED = 8
# kernel releases (upstream) that brought the features
V_SMCD_V2 = (5, 10)
V_SMCR_V2 = (5, 16)
# distribution kernels with the code before the upstream release: (release pattern, first build
# number that has it, what earlier builds of that line are: False = known without, None = not known)
SMCD_V2_BACKPORTS = (
    (re.compile(r"^4\.18\.0-(\d+)\S*\.el8"), 305, False),  # RHEL 8.4 (4.18.0-305); 8.0-8.3 without
    (re.compile(r"^5\.3\.18-(\d+)"), 57, False),  # SLES 15 SP3 (5.3.18-57); SP2 without
)
SMCR_V2_BACKPORTS = ((re.compile(r"^5\.14\.0-(\d+)\S*\.el9"), 427, None),)  # RHEL 9.4 (SMC of Linux 6.4)
MACHINES_ISMV2 = ("z15", "z16", "z17")

_RELEASE_RE = re.compile(r"^\s*(\d+)\.(\d+)")
_PNET_RE = re.compile(r"[A-Za-z0-9]{1,16}")

CHECK_SMC = (
    "that the smc module is loaded on %s (lsmod, or smc_sysctl's smc_loaded) and that the application runs with "
    "SMC there (smc_run, or the smc role's smc_services)"
)
CHECK_KERNEL = "the kernel of %s (uname -r; `smcd info` shows v2 under SMC-D/SMC-R Features)"


class PreflightError(ValueError):
    """Facts or pairs that cannot be read; the message names the field."""


def code_text(name):
    """``SMC_CLC_DECL_NOSMCDEV`` -> ``0x03030000``."""
    return "0x%08x" % CODE_OF[name]


# -- kernel releases ------------------------------------------------------------------------------
def _release(release):
    match = _RELEASE_RE.match(str(release or ""))
    return (int(match.group(1)), int(match.group(2))) if match else None


def _by_release(release, since, backports):
    version = _release(release)
    if version is None:
        return None
    if version >= since:
        return True
    for pattern, first, below in backports:
        match = pattern.match(str(release).strip())
        if match:
            return True if int(match.group(1)) >= first else below
    return None


def kernel_smcd_v2(release):
    """Whether a kernel release has the SMC-Dv2 code: True, False or None (not known).

    Linux 5.10 and later; RHEL 8 from 8.4 (4.18.0-305); SLES 15 from SP3 (5.3.18-57). Older RHEL 8
    and SLES 15 kernels have none; other kernels before 5.10 are not known (distributions backport).
    """
    return _by_release(release, V_SMCD_V2, SMCD_V2_BACKPORTS)


def kernel_smcr_v2(release):
    """Whether a kernel release has the SMC-Rv2 code (and the UEID table): Linux 5.16 and later,
    RHEL 9 from 9.4; others are not known (None)."""
    return _by_release(release, V_SMCR_V2, SMCR_V2_BACKPORTS)


# -- facts ----------------------------------------------------------------------------------------
def _tri(value, field):
    if value is None or isinstance(value, bool):
        return value
    raise PreflightError("%s: expected true, false or null (not known), got %r" % (field, value))


def _pnet(item, key, field):
    """A PNET ID field: absent -> None (not known); null or "" -> "" (none); else upper case."""
    if key not in item:
        return None
    value = item[key]
    if value is None or value == "":
        return ""
    if not isinstance(value, str) or not _PNET_RE.fullmatch(value.strip()):
        raise PreflightError("%s: %r is not a PNET ID (1-16 characters A-Z 0-9) or null" % (field, value))
    return value.strip().upper()


def _id(value, field):
    if value is None:
        return None
    if isinstance(value, bool):
        raise PreflightError("%s: expected a number, got %r" % (field, value))
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        try:
            return int(value.strip(), 16)
        except ValueError:
            pass
    raise PreflightError("%s: %r is not a number (int or hex string)" % (field, value))


def _str_list(value, field, upper=False):
    if value is None:
        return None
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise PreflightError("%s: expected a list of strings or null (not known), got %r" % (field, value))
    return [v.strip().upper() if upper else v.strip() for v in value]


def _norm_ism(dev, field):
    if not isinstance(dev, dict):
        raise PreflightError("%s: each ISM device is a dict (vchid, pnet_id, ...), got %r" % (field, dev))
    vchid = _id(dev.get("vchid", dev.get("chid")), field + ".vchid")
    if vchid is None:
        raise PreflightError("%s.vchid: required (the ISM VCHID, which the kernel compares as the CHID)" % field)
    return {
        "name": dev.get("name"),
        "fid": _id(dev.get("fid"), field + ".fid"),
        "vchid": vchid,
        "pnet_id": _pnet(dev, "pnet_id", field + ".pnet_id"),
        "pnet_id_user": _pnet(dev, "pnet_id_user", field + ".pnet_id_user") or None,
        "v2": _tri(dev.get("v2"), field + ".v2"),
    }


def _norm_roce(dev, field):
    if not isinstance(dev, dict):
        raise PreflightError("%s: each RoCE port is a dict (name, port, pnet_id, ...), got %r" % (field, dev))
    port = dev.get("port", 1)
    if port not in (1, 2):
        raise PreflightError("%s.port: %r is not 1 or 2" % (field, port))
    return {
        "name": dev.get("name"),
        "fid": _id(dev.get("fid"), field + ".fid"),
        "port": port,
        "pnet_id": _pnet(dev, "pnet_id", field + ".pnet_id"),
        "pnet_id_user": _pnet(dev, "pnet_id_user", field + ".pnet_id_user") or None,
        "net_device": dev.get("net_device"),
        "v2": _tri(dev.get("v2"), field + ".v2"),
        "ipv4": _tri(dev.get("ipv4"), field + ".ipv4"),
        "active": _tri(dev.get("active", True), field + ".active"),
    }


def _norm_table(table, field):
    if table is None:
        return None
    if not isinstance(table, list):
        raise PreflightError("%s: expected a list of smc_pnet entries or null (not known), got %r" % (field, table))
    entries = []
    for index, item in enumerate(table):
        where = "%s[%d]" % (field, index)
        if not isinstance(item, dict) or not item.get("pnet_id"):
            raise PreflightError("%s: an entry is a dict with pnet_id and interface or ib_device" % where)
        pnet = _pnet(item, "pnet_id", where + ".pnet_id")
        if item.get("interface"):
            entries.append({"pnet_id": pnet, "interface": str(item["interface"])})
        elif item.get("ib_device"):
            entries.append({"pnet_id": pnet, "ib_device": str(item["ib_device"]), "port": int(item.get("port") or 1)})
        else:
            raise PreflightError("%s: names neither an interface nor an ib_device" % where)
    return entries


def _addresses(value, field):
    if value is None:
        return None
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)):
        raise PreflightError("%s: expected an address with prefix (10.1.1.1/24) or a list of them" % field)
    result = []
    for item in value:
        try:
            result.append(ipaddress.ip_interface(str(item).strip()))
        except ValueError:
            raise PreflightError("%s: %r is not an IP address with prefix length such as 10.1.1.1/24" % (field, item))
    return result


def _vlan_of(name):
    match = re.fullmatch(r"[^.]+\.(\d+)", name or "")
    return int(match.group(1)) if match else 0


def _norm_rendezvous(rv, field):
    rv = rv or {}
    if isinstance(rv, str):
        rv = {"interface": rv}
    if not isinstance(rv, dict):
        raise PreflightError("%s: expected a dict (interface, address, pnet_id, vlan, kind)" % field)
    name = rv.get("interface")
    vlan = rv.get("vlan")
    if vlan is None and name:
        vlan = _vlan_of(name)
    if vlan is not None and (isinstance(vlan, bool) or not isinstance(vlan, int) or not 0 <= vlan <= 4095):
        raise PreflightError("%s.vlan: %r is not a VLAN ID 0-4095" % (field, vlan))
    return {
        "interface": name,
        "addresses": _addresses(rv.get("addresses", rv.get("address")), field + ".address"),
        "pnet_id": _pnet(rv, "pnet_id", field + ".pnet_id"),
        "kind": rv.get("kind"),
        "vlan": vlan,
    }


FACT_KEYS = (
    "cpc",
    "machine",
    "kernel",
    "smc",
    "smcd_v2",
    "smcr_v2",
    "ism",
    "roce",
    "pnet_table",
    "rendezvous",
    "netdev_pnet_ids",
    "seid",
    "ueids",
    "ipsec",
    "sources",
)


def normalize_facts(name, facts):
    """The canonical fact dict of one host (see docs/smc-preflight.md); raises PreflightError.

    Tri-state fields are True, False or None (not known). PNET IDs are a string, ``""`` (none)
    or None (not known); lists are None when not known.
    """
    if not isinstance(facts, dict):
        raise PreflightError("facts of %s: expected a dict, got %r" % (name, facts))
    field = "facts of %s" % name
    unknown = sorted(set(facts) - set(FACT_KEYS))
    if unknown:
        raise PreflightError("%s: unknown fact %s (known: %s)" % (field, ", ".join(unknown), ", ".join(FACT_KEYS)))
    seid = facts.get("seid") or {}
    if not isinstance(seid, dict):
        raise PreflightError("%s.seid: expected a dict with enabled and value" % field)
    release = facts.get("kernel")
    smcd_v2 = _tri(facts.get("smcd_v2"), field + ".smcd_v2")
    smcr_v2 = _tri(facts.get("smcr_v2"), field + ".smcr_v2")
    isms = facts.get("ism")
    roces = facts.get("roce")
    if isms is not None and not isinstance(isms, list):
        raise PreflightError("%s.ism: expected a list or null (not known)" % field)
    if roces is not None and not isinstance(roces, list):
        raise PreflightError("%s.roce: expected a list or null (not known)" % field)
    return {
        "name": name,
        "cpc": facts.get("cpc"),
        "machine": facts.get("machine"),
        "kernel": release,
        "smc": _tri(facts.get("smc"), field + ".smc"),
        "smcd_v2": kernel_smcd_v2(release) if smcd_v2 is None else smcd_v2,
        "smcr_v2": kernel_smcr_v2(release) if smcr_v2 is None else smcr_v2,
        "ism": None if isms is None else [_norm_ism(d, "%s.ism[%d]" % (field, i)) for i, d in enumerate(isms)],
        "roce": None if roces is None else [_norm_roce(d, "%s.roce[%d]" % (field, i)) for i, d in enumerate(roces)],
        "pnet_table": _norm_table(facts.get("pnet_table"), field + ".pnet_table"),
        "rendezvous": _norm_rendezvous(facts.get("rendezvous"), field + ".rendezvous"),
        "netdev_pnet_ids": _str_list(facts.get("netdev_pnet_ids"), field + ".netdev_pnet_ids", upper=True),
        "seid": {
            "enabled": _tri(seid.get("enabled"), field + ".seid.enabled"),
            "value": seid.get("value") or None,
        },
        "ueids": _str_list(facts.get("ueids"), field + ".ueids", upper=True),
        "ipsec": _tri(facts.get("ipsec"), field + ".ipsec"),
        "sources": list(facts.get("sources") or []),
    }


# -- the decision replay --------------------------------------------------------------------------
class _Need(Exception):
    """The replay reached a fact nobody gave; the explorer tries each of ``options``."""

    def __init__(self, key, options):
        Exception.__init__(self, key)
        self.key = key
        self.options = options


class _Blocked(Exception):
    """The replay reached a fact that cannot be enumerated (a device list nobody gave)."""

    def __init__(self, key):
        Exception.__init__(self, key)
        self.key = key


class _Run(object):
    """One replay of the handshake under assumed values for facts that are not known."""

    def __init__(self, assumed, questions):
        self.assumed = assumed
        self.questions = questions

    def ask(self, key, value, text, check, options=(True, False)):
        if value is not None:
            return value
        self.questions.setdefault(key, (text, check))
        if key in self.assumed:
            return self.assumed[key]
        raise _Need(key, tuple(options))

    def need(self, key, value, text, check):
        if value is not None:
            return value
        self.questions.setdefault(key, (text, check))
        raise _Blocked(key)


def _outcome(prediction, code=None, side=None, why="", fix=""):
    return {"prediction": prediction, "code": code, "side": side, "why": why, "fix": fix}


def _dev_label(dev, kind):
    if kind == "ism":
        ident = dev["name"] or ("FID %s" % fid_text(dev["fid"]) if dev["fid"] is not None else "ISM")
        return "%s (VCHID %03X)" % (ident, dev["vchid"])
    ident = dev["name"] or ("FID %s" % fid_text(dev["fid"]) if dev["fid"] is not None else "RoCE")
    return "%s port %d" % (ident, dev["port"])


def _base_interface(rv):
    name = rv["interface"]
    return name.split(".")[0] if name else None


def _table_pnet_for_interface(table, base):
    for entry in table:
        if entry.get("interface") == base:
            return entry["pnet_id"]
    return ""


def _ndev_pnet(run, h):
    """The PNET ID the kernel finds for h's rendezvous interface (smc_pnet_find_ism_by_pnetid):
    the hardware one of the base device, else its software table entry; "" for none."""
    rv = h["rendezvous"]
    if rv["pnet_id"]:
        return rv["pnet_id"]
    base = _base_interface(rv)
    table = h["pnet_table"]
    if rv["pnet_id"] == "" and table is not None:
        if base:
            return _table_pnet_for_interface(table, base)
        options = set(e["pnet_id"] for e in table if e.get("interface"))
    else:
        options = set(e["pnet_id"] for e in table or [])
        for kind in ("ism", "roce"):
            for dev in h[kind] or []:
                options.update(p for p in (dev["pnet_id"], dev["pnet_id_user"]) if p)
    if not options:
        return ""  # whatever it is, it can match no device and no table entry
    return run.ask(
        "pnet:%s" % h["name"],
        None,
        "PNET ID of %s's rendezvous interface %s" % (h["name"], rv["interface"] or "(not known)"),
        "which interface %s uses to reach its peer and its PNET ID: the CHPID's PNET ID in the IOCDS "
        "(`cat /sys/devices/css0/chp0.<CHPID>/util_string`) or its smc_pnet entry; give it as "
        "smc_preflight_interface" % h["name"],
        options=tuple(sorted(options)) + ("",),
    )


def _dev_pnet(run, h, dev, kind):
    """A device's PNET ID as the kernel holds it: hardware, else the software table's (applied when
    the device appeared, smc_pnetid_by_table_smcd / _ib); "" for none."""
    if dev["pnet_id"]:
        return dev["pnet_id"]
    if dev["pnet_id_user"]:
        return dev["pnet_id_user"]
    table = h["pnet_table"]
    ib_entries = [e for e in table or [] if e.get("ib_device")]
    if dev["pnet_id"] == "" and table is not None:
        if not ib_entries:
            return ""
        if dev["name"]:
            for entry in ib_entries:
                if entry["ib_device"] == dev["name"] and (kind == "ism" or entry["port"] == dev["port"]):
                    return entry["pnet_id"]
            return ""
    # not known: the hardware PNET ID or the table; any PNET ID seen on the host could be it
    options = set(e["pnet_id"] for e in ib_entries)
    options.update(p for p in (h["rendezvous"]["pnet_id"],) if p)
    for other in (h["ism"] or []) + (h["roce"] or []):
        options.update(p for p in (other["pnet_id"], other["pnet_id_user"]) if p)
    if not options:
        run.need(
            "table:%s" % h["name"],
            None,
            "the software PNET table of %s" % h["name"],
            "`smc_pnet -s` on %s (smc_pnet_config, or live facts)" % h["name"],
        )
    return run.ask(
        "devpnet:%s:%s" % (h["name"], _dev_label(dev, kind)),
        None,
        "PNET ID of %s's %s %s" % (h["name"], "ISM device" if kind == "ism" else "RoCE", _dev_label(dev, kind)),
        "`smcd device` / `smcr device` on %s (PNET-ID column)" % h["name"],
        options=tuple(sorted(options)) + ("",),
    )


def _isms(run, h):
    return run.need(
        "ism:%s" % h["name"],
        h["ism"],
        "the ISM devices of %s" % h["name"],
        "%s's ISM functions: a cpc model entry (cpc.ism, the host as partition host or guest) or live facts "
        "(smcd_info devices)" % h["name"],
    )


def _roces(run, h):
    return run.need(
        "roce:%s" % h["name"],
        h["roce"],
        "the RoCE ports of %s" % h["name"],
        "%s's RoCE functions: a cpc model entry (cpc.roce) or live facts (smcd_info protocol smcr devices)" % h["name"],
    )


def _ueids(run, h):
    return run.need(
        "ueids:%s" % h["name"],
        h["ueids"],
        "the UEIDs of %s" % h["name"],
        "the UEIDs of %s (smc_ueids, or `smcd ueid show`)" % h["name"],
    )


def _kernel_d2(run, h):
    return run.ask(
        "smcd_v2:%s" % h["name"],
        h["smcd_v2"],
        "%s's kernel has SMC-D v2" % h["name"],
        CHECK_KERNEL % h["name"],
    )


def _kernel_r2(run, h):
    return run.ask(
        "smcr_v2:%s" % h["name"],
        h["smcr_v2"],
        "%s's kernel has SMC-R v2" % h["name"],
        CHECK_KERNEL % h["name"],
    )


def _ism_v2_capable(run, h):
    """smc_ism_is_v2_capable: the kernel has SMC-Dv2 and an ISM device supports ISMv2 (z15+)."""
    isms = _isms(run, h)
    if not isms:
        return False
    if not _kernel_d2(run, h):
        return False
    for dev in isms:
        if run.ask(
            "ismv2:%s" % h["name"],
            dev["v2"],
            "%s's ISM firmware supports ISMv2" % h["name"],
            "`smcd info` on %s lists v2 for ISM (z15 / LinuxONE III or later)" % h["name"],
        ):
            return True
    return False


def _same_cpc(run, c, s):
    if c["cpc"] and s["cpc"]:
        return c["cpc"] == s["cpc"]
    return run.ask(
        "cpc:%s|%s" % (c["name"], s["name"]),
        None,
        "%s and %s run on one CPC" % (c["name"], s["name"]),
        "which CPC %s and %s run on (cpc.partitions[].host, cpc.ism[].functions[].guest)" % (c["name"], s["name"]),
    )


def _same_vlan(run, c, s):
    cv, sv = c["rendezvous"]["vlan"], s["rendezvous"]["vlan"]
    if cv is not None and sv is not None:
        return cv == sv
    return run.ask(
        "vlan:%s|%s" % (c["name"], s["name"]),
        None,
        "%s and %s use the same VLAN ID on their rendezvous interfaces" % (c["name"], s["name"]),
        "the VLAN of the rendezvous interfaces (smc_preflight_interface.vlan)",
    )


def _prefixes(addresses, client):
    """What smc_clc_prfx_set sends (client: the IPv4 subnet of the source address, or its IPv6
    prefixes) or what smc_clc_prfx_match compares (server: every address of the device)."""
    if client:
        v4 = [a for a in addresses if a.version == 4]
        if v4:
            return [v4[0].network]
        return [a.network for a in addresses if a.version == 6 and not a.is_link_local][:8]
    return [a.network for a in addresses]


def _same_subnet(run, c, s):
    ca, sa = c["rendezvous"]["addresses"], s["rendezvous"]["addresses"]
    if ca is not None and sa is not None:
        theirs = set(_prefixes(sa, False))
        return any(net in theirs for net in _prefixes(ca, True))
    return run.ask(
        "subnet:%s|%s" % (c["name"], s["name"]),
        None,
        "%s and %s have their rendezvous addresses in one IP subnet (same prefix length)" % (c["name"], s["name"]),
        "the addresses of the rendezvous interfaces (smc_preflight_interface.address, or live network facts)",
    )


def _ipv4(run, h):
    addresses = h["rendezvous"]["addresses"]
    if addresses is not None:
        return any(a.version == 4 for a in addresses)
    return run.ask(
        "ipv4:%s" % h["name"],
        None,
        "%s connects over IPv4" % h["name"],
        "the address of %s's rendezvous interface" % h["name"],
    )


def _client_v1_ism(run, c, notes):
    isms = _isms(run, c)
    if not isms:
        notes.append("%s has no ISM device" % c["name"])
        return None
    pnet = _ndev_pnet(run, c)
    if not pnet:
        notes.append(
            "%s's rendezvous interface %s has no PNET ID (no hardware PNET ID and no smc_pnet entry), so SMC-D v1 "
            "finds no ISM device (smc_find_ism_device)" % (c["name"], c["rendezvous"]["interface"] or "(not known)")
        )
        return None
    for dev in isms:
        if _dev_pnet(run, c, dev, "ism") == pnet:
            return dev
    notes.append(
        "no ISM device of %s has the PNET ID %s of its rendezvous interface (%s)"
        % (
            c["name"],
            pnet,
            ", ".join("%s: %s" % (_dev_label(d, "ism"), _dev_pnet(run, c, d, "ism") or "none") for d in isms),
        )
    )
    return None


def _has_ndev_pnet(run, h, pnet):
    known = h["netdev_pnet_ids"]
    if known is not None:
        return pnet in known
    return run.ask(
        "ndevpnet:%s:%s" % (h["name"], pnet),
        None,
        "an interface of %s that is up has the hardware PNET ID %s" % (h["name"], pnet),
        "the PNET IDs of %s's qeth and RoCE interfaces in the IOCDS" % h["name"],
    )


def _client_v2_isms(run, c, v1dev, notes):
    """smc_find_ism_v2_device_clnt: the CHIDs the client proposes for SMC-Dv2 (its v1 device's
    first), each ISM device once per CHID; devices with a PNET ID only when an interface that is up
    has that hardware PNET ID (smc_pnet_is_ndev_pnetid)."""
    if not _ism_v2_capable(run, c):
        if c["ism"] and not _kernel_d2(run, c):  # asked already by _ism_v2_capable
            notes.append("%s's kernel%s has no SMC-D v2" % (c["name"], " %s" % c["kernel"] if c["kernel"] else ""))
        elif c["ism"]:
            notes.append("%s's ISM firmware has no ISMv2 (z15 or later has)" % c["name"])
        return []
    chids = [v1dev["vchid"]] if v1dev else []
    skipped = []
    offered = 0
    # the kernel's list holds the devices without a PNET ID first (smcd_register_dev)
    for dev in sorted(c["ism"], key=lambda d: bool(_dev_pnet(run, c, d, "ism"))):
        if dev is v1dev or dev["vchid"] in chids:
            continue
        pnet = _dev_pnet(run, c, dev, "ism")
        if pnet and not _has_ndev_pnet(run, c, pnet):
            skipped.append(
                "%s has the PNET ID %s, which no interface of %s has from the hardware"
                % (_dev_label(dev, "ism"), pnet, c["name"])
            )
            continue
        chids.append(dev["vchid"])
        offered += 1
        if offered >= MAX_V2_ISM_OFFERED:
            break
    if not chids:
        notes.append("%s proposes no ISM device for SMC-D v2: %s" % (c["name"], "; ".join(skipped)))
    return chids


def _roce_port(run, h, notes, v2=False):
    """smc_find_rdma_device: an active RoCE port with the PNET ID of the rendezvous interface, or,
    when the interface has none, the RoCE port that interface belongs to (smc_pnet_find_rdma_dev).
    For SMC-Rv2 the port must be RoCE Express2 or later with an IPv4 address (a RoCEv2 GID)."""
    ports = _roces(run, h)
    if not ports:
        notes.append("%s has no RoCE port" % h["name"])
        return None
    pnet = _ndev_pnet(run, h)

    def usable(port):
        if port["active"] is False:
            return False
        if not v2:
            return True
        label = _dev_label(port, "roce")
        if not run.ask(
            "rocev2:%s:%s" % (h["name"], label),
            port["v2"],
            "%s's %s is RoCE Express2 or later" % (h["name"], label),
            "`smcr device` on %s (Type)" % h["name"],
        ):
            return False
        return run.ask(
            "roceip:%s:%s" % (h["name"], label),
            port["ipv4"],
            "%s's %s interface has an IPv4 address (RoCEv2 GID)" % (h["name"], label),
            "`ip addr` of the RoCE interface on %s" % h["name"],
        )

    if pnet:
        for port in ports:
            if _dev_pnet(run, h, port, "roce") == pnet and usable(port):
                return port
        notes.append(
            "%s has no active %sRoCE port with the PNET ID %s of its rendezvous interface"
            % (h["name"], "RoCE Express2+ " if v2 else "", pnet)
        )
        return None
    base = _base_interface(h["rendezvous"])
    for port in ports:
        own = None
        if base and port["net_device"]:
            own = port["net_device"] == base
        own = run.ask(
            "roceif:%s:%s" % (h["name"], _dev_label(port, "roce")),
            own,
            "%s's rendezvous interface is the interface of its %s" % (h["name"], _dev_label(port, "roce")),
            "the interface names of %s's RoCE ports (`smcr device`)" % h["name"],
        )
        if own and usable(port):
            return port
    notes.append("%s's rendezvous interface has no PNET ID and is no RoCE port's own interface" % h["name"])
    return None


def _eid(run, c, s, seid_possible):
    """smc_clc_match_eid on the server: the system EID when both offer it and they are equal,
    else a UEID of the client's proposal in the server's table. Returns a text or None."""
    if seid_possible:
        if run.ask(
            "seid:%s" % s["name"],
            s["seid"]["enabled"],
            "%s offers its system EID" % s["name"],
            "`smcd seid show` on %s (smc_seid)" % s["name"],
        ) and run.ask(
            "seid:%s" % c["name"],
            c["seid"]["enabled"],
            "%s offers its system EID" % c["name"],
            "`smcd seid show` on %s (smc_seid)" % c["name"],
        ):
            if c["seid"]["value"] and s["seid"]["value"]:
                equal = c["seid"]["value"] == s["seid"]["value"]
            else:
                # "All operating system instances on the same CPC have the same SEID"
                equal = _same_cpc(run, c, s)
            if equal:
                return "the system EID"
    common = [u for u in _ueids(run, c) if u in _ueids(run, s)]
    if common:
        return "the UEID %s" % common[0]
    return None


def _decide(run, c, s):
    cn, sn = c["name"], s["name"]
    # __smc_connect / smc_listen_work: the TCP SYN carries the SMC option only from an SMC socket
    if not run.ask("smc:%s" % cn, c["smc"], "%s runs the client with SMC" % cn, CHECK_SMC % cn):
        return _outcome(
            TCP,
            "SMC_CLC_DECL_PEERNOSMC",
            "server",
            "%s does not use SMC (no smc module or the application is not started with SMC), so its SYN has no SMC "
            "option; an SMC server %s falls back (smc_listen_work) and counts it." % (cn, sn),
            "Load smc on %s and run the client with SMC (s390x.network.smc role: smc_load_module, smc_services)." % cn,
        )
    if not run.ask("smc:%s" % sn, s["smc"], "%s runs the server with SMC" % sn, CHECK_SMC % sn):
        return _outcome(
            TCP,
            "SMC_CLC_DECL_PEERNOSMC",
            "client",
            "%s does not answer with the SMC TCP option (no smc module, or the server application does not listen "
            "with SMC), so %s falls back before the CLC handshake (__smc_connect)." % (sn, cn),
            "Load smc on %s and start the server application with SMC (s390x.network.smc role: smc_services), "
            "then restart it." % sn,
        )
    if run.ask("ipsec:%s" % cn, c["ipsec"], "%s uses IPsec for this connection" % cn, "the IPsec policy of %s" % cn):
        return _outcome(
            TCP,
            "SMC_CLC_DECL_IPSEC",
            "client",
            "The connection from %s is protected by IPsec; SMC opts out of IPsec connections (__smc_connect)." % cn,
            "Exempt this traffic from IPsec, or accept TCP for it.",
        )
    notes = []
    # smc_find_proposal_devices
    v1_ism = _client_v1_ism(run, c, notes)
    v1_roce = _roce_port(run, c, notes)
    d2_chids = _client_v2_isms(run, c, v1_ism, notes)
    r2_port = None
    if _roces(run, c):
        if not _kernel_r2(run, c):
            notes.append("%s's kernel has no SMC-R v2" % cn)
        elif not _ipv4(run, c):
            notes.append("%s connects over IPv6; SMC-R v2 is IPv4 only" % cn)
        elif not _ueids(run, c):
            notes.append("%s has no UEID, which SMC-R v2 needs (smc_clc_ueid_count)" % cn)
        else:
            r2_port = _roce_port(run, c, notes, v2=True)
    d1, r1, d2, r2 = v1_ism is not None, v1_roce is not None, bool(d2_chids), r2_port is not None
    if not (d1 or r1 or d2 or r2):
        return _outcome(
            TCP,
            "SMC_CLC_DECL_NOSMCDEV",
            "client",
            "%s finds no SMC device to propose (smc_find_proposal_devices): %s." % (cn, "; ".join(notes)),
            _fix_nosmcdev(c, bool(c["ism"]) and _kernel_d2(run, c)),
        )
    offered = []
    if d1:
        offered.append("SMC-D v1 with %s" % _dev_label(v1_ism, "ism"))
    if d2:
        offered.append("SMC-D v2 with CHID %s" % ", ".join("%03X" % x for x in d2_chids))
    if r2:
        offered.append("SMC-R v2 with %s" % _dev_label(r2_port, "roce"))
    if r1:
        offered.append("SMC-R v1 with %s" % _dev_label(v1_roce, "roce"))
    proposal = "%s proposes %s." % (cn, "; ".join(offered))
    return _serve(run, c, s, proposal, v1_ism, d2_chids, d1, r1, d2, r2)


def _fix_nosmcdev(c, kernel_d2):
    rv = c["rendezvous"]
    native = [d for d in c["ism"] or [] if d["pnet_id"]]
    if c["ism"] and not native and not kernel_d2:
        return (
            "%s's ISM functions are non-native (no PNET ID), which SMC-D v2 only uses: run a kernel with SMC-D v2 "
            "(Linux 5.10+, RHEL 8.4+, SLES 15 SP3+), or give the function and the rendezvous interface one PNET ID "
            "for SMC-D v1." % c["name"]
        )
    if native and rv["pnet_id"] == "":
        return (
            "Add {pnet_id: %s, interface: %s} to %s's smc_pnet_config (its interface has no PNET ID from the IOCDS), "
            "or give it a non-native ISMv2 function (cpc.ism pnet_id: null) for SMC-D v2."
            % (native[0]["pnet_id"], _base_interface(rv) or "<rendezvous interface>", c["name"])
        )
    if not c["ism"] and not c["roce"]:
        return "Give %s an ISM function on its peer's VCHID (cpc.ism) or a RoCE function (cpc.roce)." % c["name"]
    return (
        "Give %s's rendezvous interface and its ISM or RoCE function one PNET ID (IOCDS or smc_pnet_config), or use "
        "SMC-D v2 (kernel 5.10+/RHEL 8.4+, z15+)." % c["name"]
    )


def _decline(code, s, c, proposal, why, fix):
    return _outcome(
        TCP,
        code,
        "server",
        "%s %s declines with %s (%s); %s counts SMC_CLC_DECL_PEERDECL. %s"
        % (proposal, s["name"], code, code_text(code), c["name"], why),
        fix,
    )


def _serve(run, c, s, proposal, v1_ism, d2_chids, d1, r1, d2, r2):
    cn, sn = c["name"], s["name"]
    # smc_listen_work: IPsec, then smc_listen_v2_check
    if run.ask("ipsec:%s" % sn, s["ipsec"], "%s uses IPsec for this connection" % sn, "the IPsec policy of %s" % sn):
        return _decline(
            "SMC_CLC_DECL_IPSEC",
            s,
            c,
            proposal,
            "The connection is protected by IPsec on %s." % sn,
            "Exempt this traffic from IPsec, or accept TCP.",
        )
    client_v2 = d2 or r2
    if client_v2 and not _kernel_d2(run, s):
        d2 = r2 = False
        if not (d1 or r1):
            return _outcome(
                TCP,
                None,
                "server",
                "%s %s's kernel predates SMC v2 and cannot take a v2-only proposal; its decline code is not "
                "modelled." % (proposal, sn),
                "Use a kernel with SMC-D v2 on %s (Linux 5.10+, RHEL 8.4+, SLES 15 SP3+)." % sn,
            )
    rc = "SMC_CLC_DECL_PEERNOSMC"
    if d2:
        if not _ism_v2_capable(run, s):
            d2, rc = False, "SMC_CLC_DECL_NOISM2SUPP"
        elif not run.ask(
            "seid:%s" % cn, c["seid"]["enabled"], "%s offers its system EID" % cn, "`smcd seid show` on %s" % cn
        ) and not _ueids(run, c):
            d2, rc = False, "SMC_CLC_DECL_NOUEID"
    if r2:
        if not _kernel_r2(run, s):
            r2 = False  # kernels before SMC-Rv2 ignore that part of the proposal
        elif not _ueids(run, c):
            r2, rc = False, "SMC_CLC_DECL_NOUEID"
    if not (d1 or r1 or d2 or r2):
        fixes = {
            "SMC_CLC_DECL_NOISM2SUPP": "Give %s an ISM function on the client's VCHID (z15+, kernel with SMC-D v2)."
            % sn,
            "SMC_CLC_DECL_NOUEID": "Enable the system EID on %s (smc_seid: enabled) or define a UEID both share "
            "(smc_ueids)." % cn,
        }
        return _decline(
            rc,
            s,
            c,
            proposal,
            "Nothing of the proposal is left after smc_listen_v2_check.",
            fixes.get(rc, "Give both hosts a common SMC device."),
        )
    stored = []
    detail = {"c": c, "s": s, "notes": []}

    def store(code):
        if not stored:
            stored.append(code)

    # smc_find_ism_v2_device_serv: a proposed CHID on one of the server's ISM devices that reaches
    # the client's GID (smc_ism_cantalk); the server's PNET IDs do not matter here
    if d2:
        server_isms = _isms(run, s)
        match = None
        for dev in server_isms:
            if dev["vchid"] in d2_chids and _same_cpc(run, c, s):
                match = dev
                break
        if match is None:
            store("SMC_CLC_DECL_NOSMCD2DEV")
            chids = ", ".join("%03X" % x for x in d2_chids)
            if any(d["vchid"] in d2_chids for d in server_isms):
                detail["nod2"] = (
                    "%s has an ISM device on CHID %s but runs on another CPC than %s; ISM connects the partitions "
                    "and guests of one CPC only (smc_ism_cantalk)." % (sn, chids, cn)
                )
            else:
                detail["nod2"] = "%s has no ISM device on CHID %s (it has %s)." % (
                    sn,
                    chids,
                    ", ".join(_dev_label(d, "ism") for d in server_isms) or "none",
                )
        else:
            eid = _eid(run, c, s, True)
            if eid:
                return _outcome(
                    SMCD_V2,
                    why="%s %s uses %s for CHID %03X and both share %s (smc_find_ism_v2_device_serv)."
                    % (proposal, sn, _dev_label(match, "ism"), match["vchid"], eid),
                )
            detail["eid"] = True
            detail["nod2"] = "%s and %s share no EID: no system EID both offer, no common UEID (smc_clc_match_eid)" % (
                cn,
                sn,
            )
    # smc_listen_prfx_check (only when the proposal has v1 parts)
    prfx_bad = False
    if d1 or r1:
        if not _same_subnet(run, c, s):
            prfx_bad = True
            store("SMC_CLC_DECL_DIFFPREFIX")
    # smc_find_ism_v1_device_serv
    if not prfx_bad and d1:
        server_isms = _isms(run, s)
        pnet = _ndev_pnet(run, s) if server_isms else ""
        match, miss = None, None
        for dev in server_isms:
            if not pnet or _dev_pnet(run, s, dev, "ism") != pnet:
                continue
            # smc_ism_cantalk(client GID, VLAN): same ISM channel of one CPC, same VLAN
            if dev["vchid"] != v1_ism["vchid"]:
                miss = miss or "%s has the PNET ID %s but is on VCHID %03X, %s's device on %03X" % (
                    _dev_label(dev, "ism"),
                    pnet,
                    dev["vchid"],
                    cn,
                    v1_ism["vchid"],
                )
            elif not _same_cpc(run, c, s):
                miss = miss or "%s and %s run on different CPCs" % (cn, sn)
            elif not _same_vlan(run, c, s):
                detail["vlan"] = True
                miss = miss or "%s and %s use different VLANs (%s, %s), and an ISM GID is reached in its VLAN only" % (
                    cn,
                    sn,
                    c["rendezvous"]["vlan"],
                    s["rendezvous"]["vlan"],
                )
            else:
                match = dev
                break
        if match is not None:
            return _outcome(
                SMCD_V1,
                why="%s %s's rendezvous interface and %s share the PNET ID %s, and it reaches %s's ISM device on "
                "VCHID %03X (smc_find_ism_v1_device_serv)."
                % (proposal, sn, _dev_label(match, "ism"), pnet, cn, match["vchid"]),
            )
        store("SMC_CLC_DECL_NOSMCDDEV")
        if not pnet:
            detail["nod1"] = "%s's rendezvous interface has no PNET ID, so SMC-D v1 finds no ISM device" % sn
        elif miss:
            detail["nod1"] = "For SMC-D v1, %s (smc_find_ism_v1_device_serv)" % miss
        else:
            detail["nod1"] = "No ISM device of %s has the PNET ID %s of its rendezvous interface (%s)" % (
                sn,
                pnet,
                ", ".join("%s: %s" % (_dev_label(d, "ism"), _dev_pnet(run, s, d, "ism") or "none") for d in server_isms)
                or "it has no ISM device",
            )
    if not (r1 or r2):
        code = stored[0] if stored else "SMC_CLC_DECL_NOSMCDDEV"
        return _decline(code, s, c, proposal, _why_of(code, detail), _fix_of(code, c, s, detail))
    # smc_find_rdma_v2_device_serv
    notes = detail["notes"]
    if r2:
        common = [u for u in _ueids(run, c) if u in _ueids(run, s)]
        if common:
            port = _roce_port(run, s, notes, v2=True)
            if port is not None:
                return _outcome(
                    SMCR_V2,
                    why="%s %s shares the UEID %s and uses %s (smc_find_rdma_v2_device_serv); the route between "
                    "the RoCE interfaces is not checked here." % (proposal, sn, common[0], _dev_label(port, "roce")),
                )
            store("SMC_CLC_DECL_NOSMCRDEV")
    # smc_find_rdma_v1_device_serv
    if not prfx_bad:
        port = _roce_port(run, s, notes) if r1 else None
        if port is not None:
            return _outcome(
                SMCR_V1,
                why="%s %s uses %s, which has the PNET ID of its rendezvous interface (smc_find_rdma_v1_device_serv);"
                " both RoCE ports must be on one layer-2 network." % (proposal, sn, _dev_label(port, "roce")),
            )
        store("SMC_CLC_DECL_NOSMCDEV")
        code = stored[0]
        return _decline(code, s, c, proposal, _why_of(code, detail), _fix_of(code, c, s, detail))
    return _decline(
        "SMC_CLC_DECL_DIFFPREFIX",
        s,
        c,
        proposal,
        _why_of("SMC_CLC_DECL_DIFFPREFIX", detail),
        _fix_of("SMC_CLC_DECL_DIFFPREFIX", c, s, detail),
    )


def _why_of(code, detail):
    scope = detail
    c, s = scope["c"], scope["s"]
    if code == "SMC_CLC_DECL_NOSMCD2DEV":
        return scope.get("nod2") or ""  # ends with a period
    if code == "SMC_CLC_DECL_DIFFPREFIX":
        return (
            "SMC v1 needs both rendezvous addresses in one IP subnet with the same prefix length; %s and %s are not "
            "(smc_listen_prfx_check)." % (c["name"], s["name"])
        )
    if code == "SMC_CLC_DECL_NOSMCDDEV":
        parts = [p.rstrip(".") for p in (scope.get("nod2"), scope.get("nod1")) if p]
        return "; ".join(parts) + "." if parts else "No SMC-D device matches."
    if code == "SMC_CLC_DECL_NOSMCRDEV":
        return "%s has no RoCE Express2+ port with an IPv4 address under the PNET ID of its interface: %s." % (
            s["name"],
            "; ".join(scope.get("notes") or []),
        )
    if code == "SMC_CLC_DECL_NOSMCDEV":
        return "%s finds no RoCE port for the proposal: %s." % (s["name"], "; ".join(scope.get("notes") or []))
    return ""


def _fix_of(code, c, s, detail):
    if detail.get("eid") and code == "SMC_CLC_DECL_NOSMCDDEV":
        return (
            "Give %s and %s a common EID: offer the system EID on both (smc_seid: enabled), or define one UEID on "
            "both (smc_ueids)." % (c["name"], s["name"])
        )
    if detail.get("vlan") and code == "SMC_CLC_DECL_NOSMCDDEV":
        return (
            "Put the rendezvous interfaces of %s and %s in one VLAN, or let SMC-D v2 work (it does not use the VLAN "
            "to reach the ISM GID)." % (c["name"], s["name"])
        )
    if code == "SMC_CLC_DECL_NOSMCD2DEV":
        return "Give %s and %s ISM functions on one VCHID of the same CPC (cpc.ism)." % (c["name"], s["name"])
    if code == "SMC_CLC_DECL_DIFFPREFIX":
        return (
            "Put both rendezvous interfaces in one subnet, or use SMC-D v2, which works across subnets (z15+, kernel "
            "with SMC-D v2 on both, ISM on one VCHID, a common EID)."
        )
    if code == "SMC_CLC_DECL_NOSMCDDEV":
        return (
            "Make the PNET IDs of %s's rendezvous interface and of its ISM function on %s's VCHID equal (IOCDS, or "
            "smc_pnet_config where the interface has none), or let SMC-D v2 work: ISM on one VCHID and a common EID "
            "(smc_seid enabled on both, or a shared UEID in smc_ueids)." % (s["name"], c["name"])
        )
    if code == "SMC_CLC_DECL_NOSMCRDEV":
        return "Give %s a RoCE Express2+ port with an IPv4 address under the PNET ID of its interface." % s["name"]
    if code == "SMC_CLC_DECL_NOSMCDEV":
        return (
            "Give %s an active RoCE port with the PNET ID of its rendezvous interface (IOCDS or smc_pnet_config)."
            % s["name"]
        )
    return ""


# -- exploring what is not known -----------------------------------------------------------------
MAX_RUNS = 512


def _value_text(value):
    if value is True:
        return "yes"
    if value is False:
        return "no"
    if value == "":
        return "none"
    return str(value)


def _signature(outcome):
    return (outcome["prediction"], outcome["code"], outcome["side"])


def _summary(outcome):
    if outcome["prediction"] != TCP:
        return outcome["prediction"]
    if outcome["code"] is None:
        return "TCP (%s, code not modelled)" % outcome["side"]
    return "TCP (%s %s, %s)" % (outcome["code"], code_text(outcome["code"]), outcome["side"])


def predict_pair(client, server):
    """Predict one pair from two normalised fact dicts (``normalize_facts``). Returns the row."""
    questions = {}
    results = []
    stack = [()]
    runs = 0
    exhausted = False
    while stack:
        assumed = stack.pop()
        runs += 1
        if runs > MAX_RUNS:
            exhausted = True
            break
        run = _Run(dict(assumed), questions)
        try:
            outcome = _decide(run, client, server)
        except _Need as need:
            for option in reversed(need.options):
                stack.append(assumed + ((need.key, option),))
            continue
        except _Blocked as blocked:
            outcome = _outcome(UNKNOWN, why="", fix="")
            outcome["blocked"] = blocked.key
        results.append((assumed, outcome))
    row = {
        "client": client["name"],
        "server": server["name"],
        "prediction": UNKNOWN,
        "reason_code": None,
        "reason_name": None,
        "side": None,
        "why": "",
        "fix": "",
        "unknown": [],
        "possible": [],
    }
    signatures = set(_signature(o) for _a, o in results)
    if not exhausted and len(signatures) == 1 and results[0][1]["prediction"] != UNKNOWN:
        outcome = results[0][1]
        row.update(
            prediction=outcome["prediction"],
            reason_name=outcome["code"],
            reason_code=code_text(outcome["code"]) if outcome["code"] else None,
            side=outcome["side"],
            why=outcome["why"],
            fix=outcome["fix"],
        )
        return row
    keys = []
    for assumed, outcome in results:
        for key, _value in assumed:
            if key not in keys:
                keys.append(key)
        if outcome.get("blocked") and outcome["blocked"] not in keys:
            keys.append(outcome["blocked"])
    row["unknown"] = [questions[k][0] for k in keys]
    checks = []
    for key in keys:
        if questions[key][1] not in checks:
            checks.append(questions[key][1])
    possible = []
    seen = {}
    for assumed, outcome in results:
        cases = ["%s: %s" % (questions[k][0], _value_text(v)) for k, v in assumed]
        if outcome["prediction"] == UNKNOWN:
            label = "not predictable without %s" % questions[outcome["blocked"]][0]
        else:
            label = _summary(outcome)
        if label in seen:
            continue
        seen[label] = True
        possible.append({"outcome": label, "if": cases})
    row["possible"] = possible
    if exhausted:
        row["why"] = "Too many facts are not known to follow every branch (more than %d)." % MAX_RUNS
    else:
        row["why"] = (
            "Depends on facts that are not known: "
            + "; ".join("%s if %s" % (p["outcome"], ", ".join(p["if"])) if p["if"] else p["outcome"] for p in possible)
            + "."
        )
    row["fix"] = "Check " + "; ".join(checks) + "."
    return row


def predict(facts, pairs):
    """Rows for ``pairs`` (a list of ``{client, server}`` or ``[client, server]``) from ``facts``
    (host name -> fact dict, normalised here). A pair naming a host without facts gives an
    ``unknown`` row that says so."""
    normalised = {}
    rows = []
    for index, pair in enumerate(_pair_list(pairs)):
        client, server = pair
        missing = [h for h in (client, server) if h not in facts]
        if client == server:
            raise PreflightError("pairs[%d]: client and server are both %s" % (index, client))
        if missing:
            rows.append(
                {
                    "client": client,
                    "server": server,
                    "prediction": UNKNOWN,
                    "reason_code": None,
                    "reason_name": None,
                    "side": None,
                    "why": "No facts for %s (not an inventory host)." % ", ".join(missing),
                    "fix": "Map the name to an inventory host (cpc.partitions[].host, or a guest named like its host).",
                    "unknown": ["facts of %s" % h for h in missing],
                    "possible": [],
                }
            )
            continue
        for name in (client, server):
            if name not in normalised:
                normalised[name] = normalize_facts(name, facts[name])
        rows.append(predict_pair(normalised[client], normalised[server]))
    return rows


def _pair_list(pairs):
    if not isinstance(pairs, (list, tuple)):
        raise PreflightError("pairs: expected a list of {client, server} or [client, server], got %r" % (pairs,))
    result = []
    for index, pair in enumerate(pairs):
        if isinstance(pair, dict) and pair.get("client") and pair.get("server"):
            result.append((str(pair["client"]), str(pair["server"])))
        elif isinstance(pair, (list, tuple)) and len(pair) == 2 and all(pair):
            result.append((str(pair[0]), str(pair[1])))
        else:
            raise PreflightError(
                "pairs[%d]: expected {client: HOST, server: HOST} or [HOST, HOST], got %r" % (index, pair)
            )
    return result


def summary(rows):
    """Counts of the rows by outcome: ``{smc, tcp, unknown}``."""
    result = {"smc": 0, "tcp": 0, "unknown": 0}
    for row in rows:
        if row["prediction"] == TCP:
            result["tcp"] += 1
        elif row["prediction"] == UNKNOWN:
            result["unknown"] += 1
        else:
            result["smc"] += 1
    return result


def table(rows):
    """Text lines: pair, prediction, reason (code, name, side), fix; the first line the heading."""
    cols = ("PAIR", "PREDICTION", "REASON", "FIX")
    cells = []
    for row in rows:
        if row["reason_name"]:
            reason = "%s %s (%s)" % (row["reason_name"], row["reason_code"], row["side"])
        elif row["prediction"] == TCP:
            reason = "code not modelled (%s)" % row["side"]
        elif row["prediction"] == UNKNOWN:
            reason = "depends on %d fact%s (see why)" % (len(row["unknown"]), "" if len(row["unknown"]) == 1 else "s")
        else:
            reason = "-"
        fix = row["fix"] or "-"
        cells.append(("%s -> %s" % (row["client"], row["server"]), row["prediction"], reason, fix))
    widths = [max([len(cols[i])] + [len(c[i]) for c in cells]) for i in range(3)]
    fmt = "  ".join("%%-%ds" % w for w in widths) + "  %s"
    return [(fmt % line).rstrip() for line in [cols] + cells]


# -- facts from the inventory and from the hosts --------------------------------------------------
def _qeth_devnos(qeth_devices):
    """Device numbers (``8200``) of the read devices in ``qeth_devices`` that are to be online."""
    result = []
    for item in qeth_devices or []:
        if not isinstance(item, dict) or item.get("online") is False or not isinstance(item.get("id"), str):
            continue
        try:
            cssid, ssid, devno = parse_ccw_id(re.split(r"[:,]", item["id"].strip())[0])
        except QethIdError:
            continue
        result.append((cssid, ssid, devno))
    return result


def _osa_devices(model, partition):
    for chp in model.get("osa") or []:
        if partition not in chp["partitions"]:
            continue
        for cu in chp["control_units"]:
            devices = cu.get("devices")
            if not devices:
                continue
            first = int(devices["first"], 16)
            for offset in range(devices["count"]):
                yield first + offset, chp


def _qeth_ifname(cssid, ssid, devno):
    """The name udev gives a qeth device's interface (``enc<devno>`` in subchannel set 0.0), else None."""
    return "enc%x" % devno if (cssid, ssid) == (0, 0) else None


def _partition_interfaces(model, partition, qeth_devices):
    """Interfaces of a partition's qeth devices: ``[{interface, pnet_id, kind, chpid}]``, the
    HiperSockets ones first; the name is the one udev gives a qeth device (``enc<devno>``)."""
    iqd = {}
    for dev in iqd_devices(model):
        if partition in dev["partitions"]:
            iqd[int(dev["devno"], 16)] = dev["chpid"]
    iqd_pnet = dict((c["chpid"], c["pnet_id"] or "") for c in model.get("hipersockets") or [])
    osa = dict((devno, chp) for devno, chp in _osa_devices(model, partition))
    result = []
    for cssid, ssid, devno in _qeth_devnos(qeth_devices):
        name = _qeth_ifname(cssid, ssid, devno)
        if devno in iqd:
            result.append(
                {
                    "interface": name,
                    "pnet_id": iqd_pnet.get(iqd[devno], ""),
                    "kind": "hipersockets",
                    "chpid": iqd[devno],
                }
            )
        elif devno in osa:
            result.append(
                {"interface": name, "pnet_id": osa[devno]["pnet_id"] or "", "kind": "osa", "chpid": osa[devno]["chpid"]}
            )
    result.sort(key=lambda i: 0 if i["kind"] == "hipersockets" else 1)
    return result


def _guest_names(model):
    return set(f["guest"] for v in model.get("ism") or [] for f in v["functions"] if f.get("guest"))


def _smc_role_facts(hvars, facts):
    in_smc = "smc_hosts" in (hvars.get("group_names") or [])
    if in_smc:
        if hvars.get("smc_load_module", True):
            facts["smc"] = True
            facts["sources"].append("smc role (smc_hosts): loads smc")
    if in_smc or "smc_pnet_config" in hvars:
        config = hvars.get("smc_pnet_config") or []
        facts["pnet_table"] = [] if hvars.get("smc_pnet_state") == "deleted" else copy.deepcopy(config)
    if in_smc or "smc_ueids" in hvars:
        ueids = [] if hvars.get("smc_ueid_state") == "deleted" else list(hvars.get("smc_ueids") or [])
        facts["ueids"] = ueids
        seid = hvars.get("smc_seid", "unchanged")
        # the kernel refuses to disable the SEID without a UEID; at boot it is enabled
        facts["seid"]["enabled"] = not (seid == "disabled" and ueids)
    ipsec = hvars.get("smc_preflight_ipsec", False)
    facts["ipsec"] = ipsec if isinstance(ipsec, bool) else None


def _interfaces_role_facts(hvars, facts):
    """The rendezvous addresses from ``interfaces_config`` (the interfaces role): the entry of the
    rendezvous qeth device (``enc<devno>``) or interface name; for a guest, its one NIC entry."""
    rendezvous = facts["rendezvous"]
    entries = [e for e in hvars.get("interfaces_config") or [] if isinstance(e, dict) and e.get("addresses")]
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
            if _qeth_ifname(cssid, ssid, devno) == name:
                chosen = entry
    if chosen is None and rendezvous.get("kind") == "virtio":
        nics = [e for e in entries if e.get("mac") or e.get("name")]
        chosen = nics[0] if len(nics) == 1 else None
    if chosen is not None:
        rendezvous["addresses"] = [str(a) for a in chosen["addresses"]]
        facts["sources"].append("interfaces_config: rendezvous addresses")


def _model_facts(host, hvars, facts):
    """Facts from the cpc model (cpc_host view); returns the partition's interfaces."""
    cpc = hvars.get("cpc")
    if not isinstance(cpc, dict):
        return []
    model, errors, _warnings = normalize_cpc(cpc)
    if errors:
        facts["sources"].append("cpc model of %s has errors; not used" % host)
        return []
    partition = hvars.get("smc_ism_partition") or None
    view = host_view(cpc, host, partition=partition)
    if view["errors"]:
        facts["sources"].append("cpc view of %s: %s" % (host, "; ".join(view["errors"])))
        return []
    part = view["partition"]
    machine = model.get("machine")
    v2 = True if machine in MACHINES_ISMV2 else None
    if part:
        uid_checking = part in (model.get("uid_checking") or [])
        fids = hvars.get("smc_ism_fids")
        wanted = None
        if isinstance(fids, list):
            wanted = set(_id(f, "smc_ism_fids") for f in fids)
        isms = []
        for func in view["functions"]:
            # the host's own functions; those given to guests are bound to vfio-pci (smc_ism_fids wins)
            own = func["fid"] in wanted if wanted is not None else not func["guest"]
            if func["type"] != "ism" or not own:
                continue
            isms.append(
                {
                    "name": "%04x:00:00.0" % func["uid"] if uid_checking and func["uid"] else None,
                    "fid": func["fid"],
                    "vchid": func["vchid"],
                    "pnet_id": func["pnet_id"] or "",
                    "v2": v2,
                }
            )
        roces = [
            {"fid": f["fid"], "port": f["port"] or 1, "pnet_id": f["pnet_id"] or "", "v2": f["type"] == "roc2"}
            for f in view["functions"]
            if f["type"] in ("roce", "roc2")
        ]
        interfaces = _partition_interfaces(model, part, hvars.get("qeth_devices"))
        facts.update(cpc=model["name"], machine=machine, ism=isms, roce=roces)
        facts["netdev_pnet_ids"] = sorted(
            set([i["pnet_id"] for i in interfaces if i["pnet_id"]] + [r["pnet_id"] for r in roces if r["pnet_id"]])
        )
        if interfaces:
            first = interfaces[0]
            facts["rendezvous"] = {"interface": first["interface"], "pnet_id": first["pnet_id"], "kind": first["kind"]}
        facts["sources"].append("cpc %s partition %s" % (model["name"], part))
        return interfaces
    if host in _guest_names(model):
        isms = [
            {"fid": f["fid"], "vchid": f["vchid"], "pnet_id": f["pnet_id"] or "", "v2": v2}
            for f in view["guests"].get(host, [])
        ]
        facts.update(cpc=model["name"], machine=machine, ism=isms, roce=[], netdev_pnet_ids=[])
        # a KVM guest's virtio-net (MacVTap) interface has no PNET ID from the IOCDS
        names = sorted(set(e.get("interface") for e in hvars.get("smc_pnet_config") or [] if e.get("interface")))
        facts["rendezvous"] = {"interface": names[0] if len(names) == 1 else None, "pnet_id": "", "kind": "virtio"}
        facts["sources"].append("cpc %s guest %s" % (model["name"], host))
    return []


def _ok(result):
    return (
        isinstance(result, dict)
        and not result.get("failed")
        and not result.get("skipped")
        and not result.get("unreachable")
    )


def _fact_key(name):
    return name.replace("-", "_").replace(".", "_").replace(":", "_")


def _live_facts(live, facts):
    """Merge what the read-only modules returned on the host (their registered results)."""
    sysctl = live.get("smc_sysctl")
    if _ok(sysctl):
        if sysctl.get("kernel"):
            facts["kernel"] = sysctl["kernel"]
        if "smc_loaded" in sysctl:
            facts["smc"] = bool(sysctl["smc_loaded"])
        facts["sources"].append("live smc_sysctl")
    smcd = live.get("smcd_info_smcd")
    if _ok(smcd) and isinstance(smcd.get("devices"), list):
        isms = []
        for row in smcd["devices"]:
            if not str(row.get("type") or "ISM").upper().startswith("ISM") or not isinstance(row.get("pchid"), int):
                continue
            by_user = bool(row.get("pnet_id_by_user"))
            isms.append(
                {
                    "name": row.get("pci_id"),
                    "fid": row.get("fid"),
                    "vchid": row["pchid"],
                    "pnet_id": "" if by_user else (row.get("pnet_id") or ""),
                    "pnet_id_user": row.get("pnet_id") if by_user else None,
                    "v2": None,
                }
            )
        machine_v2 = True if facts.get("machine") in MACHINES_ISMV2 else None
        for dev in isms:
            dev["v2"] = machine_v2
        facts["ism"] = isms
        facts["sources"].append("live smcd device")
    smcr = live.get("smcd_info_smcr")
    if _ok(smcr) and isinstance(smcr.get("devices"), list):
        roces = []
        for row in smcr["devices"]:
            by_user = bool(row.get("pnet_id_by_user"))
            kind = str(row.get("type") or "")
            roces.append(
                {
                    "name": row.get("ib_dev"),
                    "fid": row.get("fid"),
                    "port": row.get("port") or 1,
                    "pnet_id": "" if by_user else (row.get("pnet_id") or ""),
                    "pnet_id_user": row.get("pnet_id") if by_user else None,
                    "net_device": row.get("net_dev"),
                    "v2": None if not kind else kind not in ("RoCE_Express", "0x1004"),
                    "active": row.get("port_state") == "ACTIVE",
                }
            )
        facts["roce"] = roces
        facts["sources"].append("live smcr device")
    pnet = live.get("smc_pnet")
    if _ok(pnet) and isinstance(pnet.get("gathered"), list):
        facts["pnet_table"] = copy.deepcopy(pnet["gathered"])
        facts["sources"].append("live smc_pnet")
    ueid = live.get("smc_ueid")
    if _ok(ueid):
        if isinstance(ueid.get("after"), list):
            facts["ueids"] = list(ueid["after"])
        seid = ueid.get("seid")
        if isinstance(seid, dict):
            facts["seid"] = {"enabled": seid.get("enabled"), "value": seid.get("system_eid")}
        facts["sources"].append("live smc_ueid")
    network = live.get("ansible_facts")
    if isinstance(network, dict) and network:
        if not facts.get("kernel") and network.get("kernel"):
            facts["kernel"] = network["kernel"]
        name = (facts.get("rendezvous") or {}).get("interface")
        data = network.get(_fact_key(name)) if name else None
        if isinstance(data, dict) and facts["rendezvous"].get("addresses") is None:
            addresses = []
            ipv4 = data.get("ipv4")
            if isinstance(ipv4, dict) and ipv4.get("address") and ipv4.get("netmask"):
                addresses.append("%s/%s" % (ipv4["address"], ipv4["netmask"]))
            for item in data.get("ipv4_secondaries") or []:
                if item.get("address") and item.get("netmask"):
                    addresses.append("%s/%s" % (item["address"], item["netmask"]))
            for item in data.get("ipv6") or []:
                if item.get("address") and item.get("prefix"):
                    addresses.append("%s/%s" % (item["address"], item["prefix"]))
            facts["rendezvous"]["addresses"] = [str(ipaddress.ip_interface(a)) for a in addresses]
            facts["sources"].append("live network facts of %s" % name)


def inventory_host_facts(host, hvars, live=None, assume=None):
    """Fact dict of one host from its inventory variables, then its live facts.

    ``hvars`` holds the host's variables (plain data): ``cpc``, ``qeth_devices``, ``group_names``,
    ``smc_pnet_config``, ``smc_pnet_state``, ``smc_ueids``, ``smc_ueid_state``, ``smc_seid``,
    ``smc_load_module``, ``smc_ism_fids``, ``smc_ism_partition``, and the pre-flight's own
    ``smc_preflight_interface`` (rendezvous interface: a name or ``{interface, address, pnet_id,
    vlan}``), ``smc_preflight_ipsec`` and ``smc_preflight_facts`` (facts that win over the
    inventory's). ``live`` holds registered results of ``smc_sysctl``, ``smcd_info_smcd``,
    ``smcd_info_smcr``, ``smc_pnet`` (gathered), ``smc_ueid`` and the host's ``ansible_facts``;
    what they report wins over the inventory. ``assume`` fills facts that are still not known
    (``{"kernel": "5.14.0-427.el9.s390x", "seid": {"enabled": true}}``). Nothing else is guessed.
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
    interfaces = _model_facts(host, hvars, facts)
    _smc_role_facts(hvars, facts)
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
        _live_facts(live, facts)
    # after what the pre-flight was given and what the host reported, which both win
    _interfaces_role_facts(hvars, facts)
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
    unresolved)``: names that map to no inventory host are reported, not guessed."""
    pairs, unresolved, seen_models = [], [], set()
    for host in hosts:
        cpc = (hostvars.get(host) or {}).get("cpc")
        if not isinstance(cpc, dict):
            continue
        model, errors, _warnings = normalize_cpc(cpc)
        if errors or model.get("name") in seen_models:
            continue
        seen_models.add(model.get("name"))
        host_of = dict((p["name"], p["host"]) for p in model["partitions"] if p.get("host"))
        for group in model.get("smcd_peers") or []:
            names = []
            for name in group:
                resolved = host_of.get(name, name)
                if resolved not in hosts:
                    unresolved.append(name)
                names.append(resolved)
            for a in names:
                for b in names:
                    if a != b and (a, b) not in pairs:
                        pairs.append((a, b))
    if not seen_models or not pairs:
        smc = [h for h in hosts if "smc_hosts" in ((hostvars.get(h) or {}).get("group_names") or [])]
        for a in smc:
            for b in smc:
                if a != b and (a, b) not in pairs:
                    pairs.append((a, b))
    return [{"client": a, "server": b} for a, b in pairs], unresolved
