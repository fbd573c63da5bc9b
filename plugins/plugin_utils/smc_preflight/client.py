# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The client's side of the replayed CLC handshake (net/smc/af_smc.c ``smc_connect`` ->
``__smc_connect``, ``smc_find_proposal_devices``): its decisions, then the server's (``server``)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.s390x.network.plugins.module_utils.smc.kernel_support import NO_SMC
from ansible_collections.s390x.network.plugins.plugin_utils.smc_preflight.common import TCP
from ansible_collections.s390x.network.plugins.plugin_utils.smc_preflight.replay import (
    CHECK_SMC,
    MAX_V2_ISM_OFFERED,
    base_interface,
    dev_label,
    dev_pnet,
    find_roce_port,
    has_ndev_pnet,
    ism_devices,
    ism_v2_capable,
    kernel_d2,
    kernel_r2,
    make_outcome,
    ndev_pnet,
    roce_ports,
    ueid_list,
    uses_ipv4,
)
from ansible_collections.s390x.network.plugins.plugin_utils.smc_preflight.rnic import rnic_model_entry
from ansible_collections.s390x.network.plugins.plugin_utils.smc_preflight.server import serve


def _client_v1_ism(run, c, notes):
    isms = ism_devices(run, c)
    if not isms:
        notes.append("%s has no ISM device" % c["name"])
        return None
    pnet = ndev_pnet(run, c)
    if not pnet:
        notes.append(
            "%s's rendezvous interface %s has no PNET ID (no hardware PNET ID and no smc_pnet entry), so SMC-D v1 "
            "finds no ISM device (smc_find_ism_device)" % (c["name"], c["rendezvous"]["interface"] or "(not known)")
        )
        return None
    for dev in isms:
        if dev_pnet(run, c, dev, "ism") == pnet:
            return dev
    notes.append(
        "no ISM device of %s has the PNET ID %s of its rendezvous interface (%s)"
        % (
            c["name"],
            pnet,
            ", ".join("%s: %s" % (dev_label(d, "ism"), dev_pnet(run, c, d, "ism") or "none") for d in isms),
        )
    )
    return None


def _client_v2_isms(run, c, v1dev, notes):
    """smc_find_ism_v2_device_clnt: the CHIDs the client proposes for SMC-Dv2 (its v1 device's
    first), each ISM device once per CHID; devices with a PNET ID only when an interface that is up
    has that hardware PNET ID (smc_pnet_is_ndev_pnetid)."""
    if not ism_v2_capable(run, c):
        if c["ism"] and not kernel_d2(run, c):  # asked already by ism_v2_capable
            notes.append("%s's kernel%s has no SMC-D v2" % (c["name"], " %s" % c["kernel"] if c["kernel"] else ""))
        elif c["ism"]:
            notes.append("%s's ISM firmware has no ISMv2 (z15 or later has)" % c["name"])
        return []
    chids = [v1dev["vchid"]] if v1dev else []
    skipped = []
    offered = 0
    # the kernel's list holds the devices without a PNET ID first (smcd_register_dev)
    for dev in sorted(c["ism"], key=lambda d: bool(dev_pnet(run, c, d, "ism"))):
        if dev is v1dev or dev["vchid"] in chids:
            continue
        pnet = dev_pnet(run, c, dev, "ism")
        if pnet and not has_ndev_pnet(run, c, pnet):
            skipped.append(
                "%s has the PNET ID %s, which no interface of %s has from the hardware"
                % (dev_label(dev, "ism"), pnet, c["name"])
            )
            continue
        chids.append(dev["vchid"])
        offered += 1
        if offered >= MAX_V2_ISM_OFFERED:
            break
    if not chids:
        notes.append("%s proposes no ISM device for SMC-D v2: %s" % (c["name"], "; ".join(skipped)))
    return chids


def no_smc_text(reason):
    """The host's reason for a kernel without SMC, led by the words every report uses."""
    reason = (reason or "").strip()
    if reason.startswith(NO_SMC):
        return reason
    return NO_SMC + (" (%s)" % reason if reason else "")


def decide(run, c, s):
    """The outcome of one replay: the client's decisions, then the server's (``server.serve``)."""
    cn, sn = c["name"], s["name"]
    for host, side in ((c, "server"), (s, "client")):
        if host["kernel_smc"] and host["kernel_smc"]["available"] is False:
            return make_outcome(
                TCP,
                "SMC_CLC_DECL_PEERNOSMC",
                side,
                "%s: %s. Its sockets are TCP sockets, so the pair falls back to TCP (%s counts it)."
                % (host["name"], no_smc_text(host["kernel_smc"]["reason"]), sn if side == "server" else cn),
                "Boot a kernel on %s that has SMC (CONFIG_SMC, and CONFIG_DIBS from Linux 6.18), or accept TCP "
                "for this pair." % host["name"],
            )
    # __smc_connect / smc_listen_work: the TCP SYN carries the SMC option only from an SMC socket
    if not run.ask("smc:%s" % cn, c["smc"], "%s runs the client with SMC" % cn, CHECK_SMC % cn):
        return make_outcome(
            TCP,
            "SMC_CLC_DECL_PEERNOSMC",
            "server",
            "%s does not use SMC (no smc module or the application is not started with SMC), so its SYN has no SMC "
            "option; an SMC server %s falls back (smc_listen_work) and counts it." % (cn, sn),
            "Load smc on %s and run the client with SMC (s390x.network.smc role: smc_load_module, smc_services)." % cn,
        )
    if not run.ask("smc:%s" % sn, s["smc"], "%s runs the server with SMC" % sn, CHECK_SMC % sn):
        return make_outcome(
            TCP,
            "SMC_CLC_DECL_PEERNOSMC",
            "client",
            "%s does not answer with the SMC TCP option (no smc module, or the server application does not listen "
            "with SMC), so %s falls back before the CLC handshake (__smc_connect)." % (sn, cn),
            "Load smc on %s and start the server application with SMC (s390x.network.smc role: smc_services), "
            "then restart it." % sn,
        )
    if run.ask("ipsec:%s" % cn, c["ipsec"], "%s uses IPsec for this connection" % cn, "the IPsec policy of %s" % cn):
        return make_outcome(
            TCP,
            "SMC_CLC_DECL_IPSEC",
            "client",
            "The connection from %s is protected by IPsec; SMC opts out of IPsec connections (__smc_connect)." % cn,
            "Exempt this traffic from IPsec, or accept TCP for it.",
        )
    notes = []
    # smc_find_proposal_devices
    v1_ism = _client_v1_ism(run, c, notes)
    v1_roce = find_roce_port(run, c, notes)
    d2_chids = _client_v2_isms(run, c, v1_ism, notes)
    r2_port = None
    if roce_ports(run, c):
        if not kernel_r2(run, c):
            notes.append("%s's kernel has no SMC-R v2" % cn)
        elif not uses_ipv4(run, c):
            notes.append("%s connects over IPv6; SMC-R v2 is IPv4 only" % cn)
        elif not ueid_list(run, c):
            notes.append("%s has no UEID, which SMC-R v2 needs (smc_clc_ueid_count)" % cn)
        else:
            r2_port = find_roce_port(run, c, notes, v2=True)
    d1, r1, d2, r2 = v1_ism is not None, v1_roce is not None, bool(d2_chids), r2_port is not None
    if not (d1 or r1 or d2 or r2):
        return make_outcome(
            TCP,
            "SMC_CLC_DECL_NOSMCDEV",
            "client",
            "%s finds no SMC device to propose (smc_find_proposal_devices): %s." % (cn, "; ".join(notes)),
            _fix_nosmcdev(c, bool(c["ism"]) and kernel_d2(run, c)),
        )
    offered = []
    if d1:
        offered.append("SMC-D v1 with %s" % dev_label(v1_ism, "ism"))
    if d2:
        offered.append("SMC-D v2 with CHID %s" % ", ".join("%03X" % x for x in d2_chids))
    if r2:
        offered.append("SMC-R v2 with %s" % dev_label(r2_port, "roce"))
    if r1:
        offered.append("SMC-R v1 with %s" % dev_label(v1_roce, "roce"))
    proposal = "%s proposes %s." % (cn, "; ".join(offered))
    return serve(run, c, s, proposal, v1_ism, d2_chids, d1, r1, d2, r2)


def _fix_nosmcdev(c, has_d2):
    rv = c["rendezvous"]
    native = [d for d in c["ism"] or [] if d["pnet_id"]]
    if c["ism"] and not native and not has_d2:
        return (
            "%s's ISM functions are non-native (no PNET ID), which SMC-D v2 only uses: run a kernel with SMC-D v2 "
            "(Linux 5.10+, RHEL 8.4+, SLES 15 SP3+), or give the function and the rendezvous interface one PNET ID "
            "for SMC-D v1." % c["name"]
        )
    if native and rv["pnet_id"] == "":
        return (
            "Add {pnet_id: %s, interface: %s} to %s's smc_pnet_config (its interface has no PNET ID from the IOCDS), "
            "or give it a non-native ISMv2 function (cpc.ism pnet_id: null) for SMC-D v2."
            % (native[0]["pnet_id"], base_interface(rv) or "<rendezvous interface>", c["name"])
        )
    if not c["ism"] and not c["roce"]:
        return "Give %s an ISM function on its peer's VCHID (cpc.ism) or %s." % (c["name"], rnic_model_entry(c))
    return (
        "Give %s's rendezvous interface and its ISM or RoCE function one PNET ID (IOCDS or smc_pnet_config), or use "
        "SMC-D v2 (kernel 5.10+/RHEL 8.4+, z15+)." % c["name"]
    )
