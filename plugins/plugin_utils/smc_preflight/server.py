# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The server's side of the replayed CLC handshake (net/smc/af_smc.c ``smc_listen_work``,
``smc_listen_v2_check``, ``smc_listen_find_device``): what it accepts of the client's proposal, or
the code it declines with (the first one stored, ``smc_find_ism_store_rc``)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.s390x.network.plugins.plugin_utils.smc_preflight.common import (
    SMCD_V1,
    SMCD_V2,
    SMCR_V1,
    SMCR_V2,
    TCP,
    code_text,
)
from ansible_collections.s390x.network.plugins.plugin_utils.smc_preflight.replay import (
    common_eid,
    dev_label,
    dev_pnet,
    find_roce_port,
    ism_devices,
    ism_v2_capable,
    kernel_d2,
    kernel_r2,
    make_outcome,
    ndev_pnet,
    same_cpc,
    same_subnet,
    same_vlan,
    ueid_list,
)
from ansible_collections.s390x.network.plugins.plugin_utils.smc_preflight.rnic import rnic_port_name


def _decline(code, s, c, proposal, why, fix):
    return make_outcome(
        TCP,
        code,
        "server",
        "%s %s declines with %s (%s); %s counts SMC_CLC_DECL_PEERDECL. %s"
        % (proposal, s["name"], code, code_text(code), c["name"], why),
        fix,
    )


class _Listen(object):
    """One server's pass over a proposal: the parts still on offer (``d1``, ``r1``, ``d2``, ``r2``),
    the first decline code stored and what the why and the fix say about each device search."""

    def __init__(self, run, c, s, proposal, v1_ism, d2_chids, offered):
        self.run, self.c, self.s, self.proposal = run, c, s, proposal
        self.v1_ism, self.d2_chids = v1_ism, d2_chids
        self.d1, self.r1, self.d2, self.r2 = offered
        self.stored = None
        self.prfx_bad = False
        self.detail = {"c": c, "s": s, "notes": []}

    def store(self, code):
        if self.stored is None:
            self.stored = code

    def decline(self, code):
        c, s = self.c, self.s
        return _decline(code, s, c, self.proposal, _why_of(code, self.detail), _fix_of(code, c, s, self.detail))


def serve(run, c, s, proposal, v1_ism, d2_chids, d1, r1, d2, r2):
    """The server's answer to ``proposal`` (``d1``, ``r1``, ``d2``, ``r2``: the parts it has)."""
    sn = s["name"]
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
    listen = _Listen(run, c, s, proposal, v1_ism, d2_chids, (d1, r1, d2, r2))
    return _v2_check(listen) or _find_device(listen)


def _v2_check(listen):
    """smc_listen_v2_check: the v2 parts the server drops; an outcome when nothing is left."""
    run, c, s = listen.run, listen.c, listen.s
    cn, sn = c["name"], s["name"]
    if (listen.d2 or listen.r2) and not kernel_d2(run, s):
        listen.d2 = listen.r2 = False
        if not (listen.d1 or listen.r1):
            return make_outcome(
                TCP,
                None,
                "server",
                "%s %s's kernel predates SMC v2 and cannot take a v2-only proposal; its decline code is not "
                "modelled." % (listen.proposal, sn),
                "Use a kernel with SMC-D v2 on %s (Linux 5.10+, RHEL 8.4+, SLES 15 SP3+)." % sn,
            )
    rc = "SMC_CLC_DECL_PEERNOSMC"
    if listen.d2:
        if not ism_v2_capable(run, s):
            listen.d2, rc = False, "SMC_CLC_DECL_NOISM2SUPP"
        elif not run.ask(
            "seid:%s" % cn, c["seid"]["enabled"], "%s offers its system EID" % cn, "`smcd seid show` on %s" % cn
        ) and not ueid_list(run, c):
            listen.d2, rc = False, "SMC_CLC_DECL_NOUEID"
    if listen.r2:
        if not kernel_r2(run, s):
            listen.r2 = False  # kernels before SMC-Rv2 ignore that part of the proposal
        elif not ueid_list(run, c):
            listen.r2, rc = False, "SMC_CLC_DECL_NOUEID"
    if listen.d1 or listen.r1 or listen.d2 or listen.r2:
        return None
    fixes = {
        "SMC_CLC_DECL_NOISM2SUPP": "Give %s an ISM function on the client's VCHID (z15+, kernel with SMC-D v2)." % sn,
        "SMC_CLC_DECL_NOUEID": "Enable the system EID on %s (smc_seid: enabled) or define a UEID both share "
        "(smc_ueids)." % cn,
    }
    return _decline(
        rc,
        s,
        c,
        listen.proposal,
        "Nothing of the proposal is left after smc_listen_v2_check.",
        fixes.get(rc, "Give both hosts a common SMC device."),
    )


def _find_device(listen):
    """smc_listen_find_device: SMC-D v2, the v1 prefix check, SMC-D v1, SMC-R v2, SMC-R v1."""
    if listen.d2:
        outcome = _ism_v2(listen)
        if outcome:
            return outcome
    # smc_listen_prfx_check (only when the proposal has v1 parts)
    if listen.d1 or listen.r1:
        if not same_subnet(listen.run, listen.c, listen.s):
            listen.prfx_bad = True
            listen.store("SMC_CLC_DECL_DIFFPREFIX")
    if not listen.prfx_bad and listen.d1:
        outcome = _ism_v1(listen)
        if outcome:
            return outcome
    if not (listen.r1 or listen.r2):
        return listen.decline(listen.stored or "SMC_CLC_DECL_NOSMCDDEV")
    return _rdma(listen)


def _ism_v2(listen):
    """smc_find_ism_v2_device_serv: a proposed CHID on one of the server's ISM devices that reaches
    the client's GID (smc_ism_cantalk); the server's PNET IDs do not matter here."""
    run, c, s, detail, d2_chids = listen.run, listen.c, listen.s, listen.detail, listen.d2_chids
    cn, sn = c["name"], s["name"]
    server_isms = ism_devices(run, s)
    match = None
    for dev in server_isms:
        if dev["vchid"] in d2_chids and same_cpc(run, c, s):
            match = dev
            break
    if match is None:
        listen.store("SMC_CLC_DECL_NOSMCD2DEV")
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
                ", ".join(dev_label(d, "ism") for d in server_isms) or "none",
            )
        return None
    eid = common_eid(run, c, s, True)
    if eid:
        return make_outcome(
            SMCD_V2,
            why="%s %s uses %s for CHID %03X and both share %s (smc_find_ism_v2_device_serv)."
            % (listen.proposal, sn, dev_label(match, "ism"), match["vchid"], eid),
        )
    detail["eid"] = True
    detail["nod2"] = "%s and %s share no EID: no system EID both offer, no common UEID (smc_clc_match_eid)" % (cn, sn)
    return None


def _ism_v1(listen):
    """smc_find_ism_v1_device_serv: the PNET ID of the server's interface on an ISM device that
    reaches the client's v1 device (smc_ism_cantalk: same ISM channel of one CPC, same VLAN)."""
    run, c, s, detail, v1_ism = listen.run, listen.c, listen.s, listen.detail, listen.v1_ism
    cn, sn = c["name"], s["name"]
    server_isms = ism_devices(run, s)
    pnet = ndev_pnet(run, s) if server_isms else ""
    match, miss = None, None
    for dev in server_isms:
        if not pnet or dev_pnet(run, s, dev, "ism") != pnet:
            continue
        if dev["vchid"] != v1_ism["vchid"]:
            miss = miss or "%s has the PNET ID %s but is on VCHID %03X, %s's device on %03X" % (
                dev_label(dev, "ism"),
                pnet,
                dev["vchid"],
                cn,
                v1_ism["vchid"],
            )
        elif not same_cpc(run, c, s):
            miss = miss or "%s and %s run on different CPCs" % (cn, sn)
        elif not same_vlan(run, c, s):
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
        return make_outcome(
            SMCD_V1,
            why="%s %s's rendezvous interface and %s share the PNET ID %s, and it reaches %s's ISM device on "
            "VCHID %03X (smc_find_ism_v1_device_serv)."
            % (listen.proposal, sn, dev_label(match, "ism"), pnet, cn, match["vchid"]),
        )
    listen.store("SMC_CLC_DECL_NOSMCDDEV")
    if not pnet:
        detail["nod1"] = "%s's rendezvous interface has no PNET ID, so SMC-D v1 finds no ISM device" % sn
    elif miss:
        detail["nod1"] = "For SMC-D v1, %s (smc_find_ism_v1_device_serv)" % miss
    else:
        detail["nod1"] = "No ISM device of %s has the PNET ID %s of its rendezvous interface (%s)" % (
            sn,
            pnet,
            ", ".join("%s: %s" % (dev_label(d, "ism"), dev_pnet(run, s, d, "ism") or "none") for d in server_isms)
            or "it has no ISM device",
        )
    return None


def _rdma(listen):
    """smc_find_rdma_v2_device_serv, then smc_find_rdma_v1_device_serv (prefix matched)."""
    run, c, s = listen.run, listen.c, listen.s
    sn = s["name"]
    notes = listen.detail["notes"]
    if listen.r2:
        common = [u for u in ueid_list(run, c) if u in ueid_list(run, s)]
        if common:
            port = find_roce_port(run, s, notes, v2=True)
            if port is not None:
                return make_outcome(
                    SMCR_V2,
                    why="%s %s shares the UEID %s and uses %s (smc_find_rdma_v2_device_serv); the route between "
                    "the RoCE interfaces is not checked here."
                    % (listen.proposal, sn, common[0], dev_label(port, "roce")),
                )
            listen.store("SMC_CLC_DECL_NOSMCRDEV")
    if listen.prfx_bad:
        return listen.decline("SMC_CLC_DECL_DIFFPREFIX")
    port = find_roce_port(run, s, notes) if listen.r1 else None
    if port is not None:
        return make_outcome(
            SMCR_V1,
            why="%s %s uses %s, which has the PNET ID of its rendezvous interface (smc_find_rdma_v1_device_serv);"
            " both RoCE ports must be on one layer-2 network." % (listen.proposal, sn, dev_label(port, "roce")),
        )
    listen.store("SMC_CLC_DECL_NOSMCDEV")
    return listen.decline(listen.stored)


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
        return "%s has no %s with an IPv4 address under the PNET ID of its interface: %s." % (
            s["name"],
            rnic_port_name(s, v2=True),
            "; ".join(scope.get("notes") or []),
        )
    if code == "SMC_CLC_DECL_NOSMCDEV":
        return "%s finds no %s for the proposal: %s." % (
            s["name"],
            rnic_port_name(s),
            "; ".join(scope.get("notes") or []),
        )
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
        return "Give %s a %s with an IPv4 address under the PNET ID of its interface." % (
            s["name"],
            rnic_port_name(s, v2=True),
        )
    if code == "SMC_CLC_DECL_NOSMCDEV":
        return "Give %s an active %s with the PNET ID of its rendezvous interface (IOCDS or smc_pnet_config)." % (
            s["name"],
            rnic_port_name(s),
        )
    return ""
