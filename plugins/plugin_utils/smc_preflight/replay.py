# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""SMC pre-flight, the kernel's CLC handshake replayed: the facts a host's kernel finds, under a
``Run`` that stops at each fact nobody gave. ``client`` (``smc_connect``) and ``server``
(``smc_listen_work``) take the kernel's decisions with these; ``predict`` follows every branch.

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

from ansible_collections.s390x.network.plugins.module_utils.zpci.pci_ids import fid_text
from ansible_collections.s390x.network.plugins.plugin_utils.smc_preflight.rnic import no_rnic_text, rnic_port_name

# SMCD_CLC_MAX_V2_GID_ENTRIES: ISM devices a client offers for SMC-Dv2 besides its v1 device
MAX_V2_ISM_OFFERED = 8

CHECK_SMC = (
    "that the smc module is loaded on %s (lsmod, or smc_sysctl's smc_loaded) and that the application runs with "
    "SMC there (smc_run, or the smc role's smc_services)"
)
CHECK_KERNEL = "the kernel of %s (uname -r; `smcd info` shows v2 under SMC-D/SMC-R Features)"


# -- the decision replay --------------------------------------------------------------------------
class Need(Exception):
    """The replay reached a fact nobody gave; the explorer tries each of ``options``."""

    def __init__(self, key, options):
        Exception.__init__(self, key)
        self.key = key
        self.options = options


class Blocked(Exception):
    """The replay reached a fact that cannot be enumerated (a device list nobody gave)."""

    def __init__(self, key):
        Exception.__init__(self, key)
        self.key = key


class Run(object):
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
        raise Need(key, tuple(options))

    def need(self, key, value, text, check):
        if value is not None:
            return value
        self.questions.setdefault(key, (text, check))
        raise Blocked(key)


def make_outcome(prediction, code=None, side=None, why="", fix=""):
    return {"prediction": prediction, "code": code, "side": side, "why": why, "fix": fix}


def dev_label(dev, kind):
    if kind == "ism":
        ident = dev["name"] or ("FID %s" % fid_text(dev["fid"]) if dev["fid"] is not None else "ISM")
        return "%s (VCHID %03X)" % (ident, dev["vchid"])
    ident = dev["name"] or ("FID %s" % fid_text(dev["fid"]) if dev["fid"] is not None else "RoCE")
    return "%s port %d" % (ident, dev["port"])


def base_interface(rv):
    name = rv["interface"]
    return name.split(".")[0] if name else None


def _table_pnet_for_interface(table, base):
    for entry in table:
        if entry.get("interface") == base:
            return entry["pnet_id"]
    return ""


def ndev_pnet(run, h):
    """The PNET ID the kernel finds for h's rendezvous interface (smc_pnet_find_ism_by_pnetid):
    the hardware one of the base device, else its software table entry; "" for none."""
    rv = h["rendezvous"]
    if rv["pnet_id"]:
        return rv["pnet_id"]
    base = base_interface(rv)
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


def dev_pnet(run, h, dev, kind):
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
        "devpnet:%s:%s" % (h["name"], dev_label(dev, kind)),
        None,
        "PNET ID of %s's %s %s" % (h["name"], "ISM device" if kind == "ism" else "RoCE", dev_label(dev, kind)),
        "`smcd device` / `smcr device` on %s (PNET-ID column)" % h["name"],
        options=tuple(sorted(options)) + ("",),
    )


def ism_devices(run, h):
    return run.need(
        "ism:%s" % h["name"],
        h["ism"],
        "the ISM devices of %s" % h["name"],
        "%s's ISM functions: a cpc model entry (cpc.ism, the host as partition host or guest) or live facts "
        "(smcd_info devices)" % h["name"],
    )


def roce_ports(run, h):
    return run.need(
        "roce:%s" % h["name"],
        h["roce"],
        "the RoCE ports of %s" % h["name"],
        "%s's RoCE or Network Express functions: a cpc model entry (cpc.roce, cpc.network_express) or live facts "
        "(smcd_info protocol smcr devices)" % h["name"],
    )


def ueid_list(run, h):
    return run.need(
        "ueids:%s" % h["name"],
        h["ueids"],
        "the UEIDs of %s" % h["name"],
        "the UEIDs of %s (smc_ueids, or `smcd ueid show`)" % h["name"],
    )


def kernel_d2(run, h):
    return run.ask(
        "smcd_v2:%s" % h["name"],
        h["smcd_v2"],
        "%s's kernel has SMC-D v2" % h["name"],
        CHECK_KERNEL % h["name"],
    )


def kernel_r2(run, h):
    return run.ask(
        "smcr_v2:%s" % h["name"],
        h["smcr_v2"],
        "%s's kernel has SMC-R v2" % h["name"],
        CHECK_KERNEL % h["name"],
    )


def ism_v2_capable(run, h):
    """smc_ism_is_v2_capable: the kernel has SMC-Dv2 and an ISM device supports ISMv2 (z15+)."""
    isms = ism_devices(run, h)
    if not isms:
        return False
    if not kernel_d2(run, h):
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


def same_cpc(run, c, s):
    if c["cpc"] and s["cpc"]:
        return c["cpc"] == s["cpc"]
    return run.ask(
        "cpc:%s|%s" % (c["name"], s["name"]),
        None,
        "%s and %s run on one CPC" % (c["name"], s["name"]),
        "which CPC %s and %s run on (cpc.partitions[].host, cpc.ism[].functions[].guest)" % (c["name"], s["name"]),
    )


def same_vlan(run, c, s):
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


def same_subnet(run, c, s):
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


def uses_ipv4(run, h):
    addresses = h["rendezvous"]["addresses"]
    if addresses is not None:
        return any(a.version == 4 for a in addresses)
    return run.ask(
        "ipv4:%s" % h["name"],
        None,
        "%s connects over IPv4" % h["name"],
        "the address of %s's rendezvous interface" % h["name"],
    )


def has_ndev_pnet(run, h, pnet):
    known = h["netdev_pnet_ids"]
    if known is not None:
        return pnet in known
    return run.ask(
        "ndevpnet:%s:%s" % (h["name"], pnet),
        None,
        "an interface of %s that is up has the hardware PNET ID %s" % (h["name"], pnet),
        "the PNET IDs of %s's qeth and RoCE interfaces in the IOCDS" % h["name"],
    )


def find_roce_port(run, h, notes, v2=False):
    """smc_find_rdma_device: an active RoCE port with the PNET ID of the rendezvous interface, or,
    when the interface has none, the RoCE port that interface belongs to (smc_pnet_find_rdma_dev).
    For SMC-Rv2 the port must be RoCE Express2 or later or Network Express, with an IPv4 address (a
    RoCEv2 GID)."""
    ports = roce_ports(run, h)
    if not ports:
        notes.append(no_rnic_text(h))
        return None
    pnet = ndev_pnet(run, h)

    def usable(port):
        if port["active"] is False:
            return False
        if not v2:
            return True
        label = dev_label(port, "roce")
        if not run.ask(
            "rocev2:%s:%s" % (h["name"], label),
            port["v2"],
            "%s's %s is RoCE Express2 or later, or Network Express" % (h["name"], label),
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
            if dev_pnet(run, h, port, "roce") == pnet and usable(port):
                return port
        notes.append(
            "%s has no active %s with the PNET ID %s of its rendezvous interface"
            % (h["name"], rnic_port_name(h, v2), pnet)
        )
        return None
    base = base_interface(h["rendezvous"])
    for port in ports:
        own = None
        if base and port["net_device"]:
            own = port["net_device"] == base
        own = run.ask(
            "roceif:%s:%s" % (h["name"], dev_label(port, "roce")),
            own,
            "%s's rendezvous interface is the interface of its %s" % (h["name"], dev_label(port, "roce")),
            "the interface names of %s's RoCE ports (`smcr device`)" % h["name"],
        )
        if own and usable(port):
            return port
    notes.append("%s's rendezvous interface has no PNET ID and is no RoCE port's own interface" % h["name"])
    return None


def common_eid(run, c, s, seid_possible):
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
                equal = same_cpc(run, c, s)
            if equal:
                return "the system EID"
    common = [u for u in ueid_list(run, c) if u in ueid_list(run, s)]
    if common:
        return "the UEID %s" % common[0]
    return None
