# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The SMC pre-flight's words for a host's RDMA NICs (RNICs), in its machine's terms: RoCE Express up
to z16 / LinuxONE 4, Network Express (TYPE=NETH or NETD) from z17 / LinuxONE 5. Which generation
has which card is the CPC model's rule (``iocp.machines``); this module only reads it."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.s390x.network.plugins.module_utils.iocp.machines import (
    NETWORK_EXPRESS_GENERATIONS,
    ROCE_GENERATIONS,
    read_machine,
)


def network_express_only(h):
    """The generation (``z17``) when the host's machine has Network Express and no RoCE Express,
    else None (also when the machine is not known)."""
    known = read_machine(h.get("machine")) if h.get("machine") else None
    if known and known[0] in NETWORK_EXPRESS_GENERATIONS and known[0] not in ROCE_GENERATIONS:
        return known[0]
    return None


def no_rnic_text(h):
    """Why the host has no RDMA port for SMC-R, naming the card its machine takes."""
    generation = network_express_only(h)
    if generation is None:
        return "%s has no RoCE port" % h["name"]
    where = "partition %s (%s)" % (h["partition"], h["name"]) if h.get("partition") else h["name"]
    return "no Network Express RNIC (TYPE=NETH/NETD) in %s; RoCE Express is not supported on %s" % (
        where,
        generation,
    )


def rnic_model_entry(h):
    """The ``cpc`` model entry that gives the host an RNIC, for a fix."""
    if network_express_only(h):
        return "a Network Express function (cpc.network_express, TYPE=NETH or NETD)"
    return "a RoCE function (cpc.roce)"


def rnic_port_name(h, v2=False):
    """``Network Express port`` on a machine with Network Express only, else ``RoCE Express2+ port``
    (SMC-R v2) or ``RoCE port``."""
    if network_express_only(h):
        return "Network Express port"
    return "RoCE Express2+ port" if v2 else "RoCE port"
