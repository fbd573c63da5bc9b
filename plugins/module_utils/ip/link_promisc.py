# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Promiscuous mode of a network interface: what the kernel shows, the Network Express rule, the
command that sets it and the boot unit that sets it again.

Facts relied on:

* ``/sys/class/net/<if>/flags`` is ``dev->flags`` in ``0x%x``; ``IFF_PROMISC`` is 0x100 (it is set
  while the interface's promiscuity count is above 0). ``ip link set dev IF promisc on|off`` sets or
  clears the flag the user asked for.
* ``/sys/class/net/<if>/device`` of a PCI netdev is its PCI function; a zPCI function shows
  ``function_id`` (``0x%08x``), ``pft`` (``0x%02x``: 0x0c NETH, 0x0f NETD, Network Express in hybrid
  or direct mode) and, since Linux 6.13, ``fidparm`` (``0x%02x``). On a NETH function ``fidparm``
  0x01 means the function may run in promiscuous mode (``FIDPARM=01`` of the IOCDS FUNCTION
  statement, or the DPM NIC property); bridges and MacVTap over it need that. ``FIDPARM`` is valid
  on NETH only, so a NETD function has no such rule.
* The boot unit is bound to the interface's device unit (``sys-subsystem-net-devices-<if>.device``),
  so it runs whenever the interface appears under that name. NetworkManager's
  ``802-3-ethernet.accept-all-mac-addresses`` (1.32 and later) also sets IFF_PROMISC, but only for an
  interface it activates a profile on; a MacVTap lower device often has none, and SLES 15 (wicked)
  and Ubuntu (netplan) have no such property. NetworkManager's default for that property (-1)
  leaves the flag alone, so the unit and NetworkManager do not undo each other.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re

from ansible_collections.s390x.network.plugins.module_utils.engine import host_files
from ansible_collections.s390x.network.plugins.module_utils.engine import unit_syntax
from ansible_collections.s390x.network.plugins.module_utils.ip import ifname as ip_ifname
from ansible_collections.s390x.network.plugins.module_utils.nic.persist import device_unit, systemd_escape
from ansible_collections.s390x.network.plugins.module_utils.zpci.sysfs import (
    NETWORK_EXPRESS_TYPES,
    PFT_NAMES,
    PFT_TYPES,
)

SYS_NET = "/sys/class/net"
IFF_PROMISC = 0x100
#: the Network Express function types, by pft
NETWORK_EXPRESS = dict((pft, PFT_NAMES[pft]) for pft, kind in PFT_TYPES.items() if kind in NETWORK_EXPRESS_TYPES)
#: ``fidparm`` of a NETH function that may run in promiscuous mode
FIDPARM_PROMISC = 0x01
#: the function types whose fidparm must allow promiscuous mode
FIDPARM_TYPES = ("NETH",)

IP = "ip"
UNIT_DIR = "/etc/systemd/system"
HEADER = "Managed by s390x.network.ip_promisc. Changes are overwritten."
PATH_ENV = "/usr/sbin:/usr/bin:/sbin:/bin"

_HEX_RE = re.compile(r"(?:0x)?([0-9a-fA-F]{1,8})")


def _hex(text):
    match = _HEX_RE.fullmatch(text or "")
    return int(match.group(1), 16) if match else None


def ifname_problem(name):
    """Why ``name`` cannot be given to ``ip link set dev``; None when it can (the kernel's grammar,
    and no leading ``-``, which ip could take for an option)."""
    problem = ip_ifname.ifname_problem(name)
    if problem:
        return problem
    if name.startswith("-"):
        return "%r starts with - (ip would read it as an option)" % name
    return None


def exists(ifname):
    return os.path.isdir(host_files.path("%s/%s" % (SYS_NET, ifname)))


def read_flags(ifname):
    """The interface's flags (an int), None when the interface or its flags are not there."""
    return _hex(host_files.read_attr("%s/%s/flags" % (SYS_NET, ifname)))


def is_promisc(flags):
    return None if flags is None else bool(flags & IFF_PROMISC)


def pci_function(ifname):
    """The zPCI function behind a netdev: {address, fid, pft, type, fidparm} (fidparm None when the
    kernel does not show it, before Linux 6.13); None when the netdev is no zPCI function's."""
    device = "%s/%s/device" % (SYS_NET, ifname)
    fid = _hex(host_files.read_attr(device + "/function_id"))
    if fid is None:
        return None
    pft = _hex(host_files.read_attr(device + "/pft"))
    return {
        "address": os.path.basename(os.path.realpath(host_files.path(device))),
        "fid": fid,
        "pft": pft,
        "type": None if pft is None else PFT_NAMES.get(pft, "0x%02x" % pft),
        "fidparm": _hex(host_files.read_attr(device + "/fidparm")),
    }


def network_express_type(function):
    """``NETH`` or ``NETD`` for a Network Express function (by its pft), else None."""
    return None if function is None else NETWORK_EXPRESS.get(function["pft"])


def fidparm_text(function):
    if function["fidparm"] is None:
        return "not shown (no fidparm in sysfs: the kernel is older than Linux 6.13)"
    return "0x%02x" % function["fidparm"]


def promisc_problem(ifname, function):
    """Why ``ifname`` (on the zPCI ``function``) may not run in promiscuous mode; None when it may.

    A NETH function needs fidparm 0x01; other functions and netdevs have no such rule."""
    kind = network_express_type(function)
    if kind not in FIDPARM_TYPES or function["fidparm"] == FIDPARM_PROMISC:
        return None
    return (
        "%s is Network Express %s function FID 0x%08x (%s) with fidparm %s; promiscuous mode (for a "
        "bridge or MacVTap over it) needs fidparm 0x01: set FIDPARM=01 on its FUNCTION statement in "
        "the IOCDS (or the NIC's promiscuous property in DPM)"
        % (ifname, kind, function["fid"], function["address"], fidparm_text(function))
    )


def argv_promisc(ifname, on, tool=IP):
    return [tool, "link", "set", "dev", ifname, "promisc", "on" if on else "off"]


def unit_name(ifname):
    return "s390x-network-promisc-%s.service" % systemd_escape(ifname)


def unit_path(ifname):
    return "%s/%s" % (UNIT_DIR, unit_name(ifname))


def wants_link(ifname):
    """The link ``systemctl enable`` creates (its presence: the unit is enabled)."""
    return "%s/%s.wants/%s" % (UNIT_DIR, device_unit(ifname), unit_name(ifname))


def render_unit(ifname):
    """The boot unit that sets ``ifname`` promiscuous whenever it appears."""
    dev = device_unit(ifname)
    return "\n".join(
        [
            unit_syntax.comment_line(HEADER),
            "[Unit]",
            unit_syntax.text_line("Description", "Promiscuous mode of %s (s390x.network.ip_promisc)" % ifname),
            "BindsTo=%s" % dev,
            "After=%s" % dev,
            "",
            "[Service]",
            "Type=oneshot",
            "RemainAfterExit=yes",
            unit_syntax.environment_line([("PATH", PATH_ENV)]),
            unit_syntax.exec_line(argv_promisc(ifname, True), field="interface"),
            "",
            "[Install]",
            "WantedBy=%s" % dev,
            "",
        ]
    )
