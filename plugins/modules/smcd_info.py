#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: smcd_info
short_description: SMC-D or SMC-R connection statistics, devices and link groups
version_added: 0.1.0
description:
  - Reads the SMC statistics of the host with C(smcd stats) or C(smcr stats) (smc-tools 1.6.0 or
    later) and returns them as structured data, for example to check that connections use SMC and
    do not fall back to TCP.
  - Reads the detailed text output (C(-d stats show)), which every smc-tools version prints, so
    the result has the same fields whatever the version. Where the tool has C(stats json) the
    exact counters of that output replace the abbreviated cells of the text (such as C(358.2M))
    and the counts that depend on them; connection totals, handshake errors and TCP fallbacks
    always come from the text, which is the only output that has them.
  - Never changes anything; M(s390x.network.smc_stats_reset) resets the counters.
  - Optionally lists the SMC devices (C(smcd device)/C(smcr device)) and link groups
    (C(smcd linkgroup)/C(smcr linkgroup)).
  - Without smc-tools (O(backend=netlink), or O(backend=auto) on a host without C(smcd)/C(smcr)) it asks
    the kernel itself, through the generic netlink family C(SMC_GEN_NETLINK) that smc-tools uses, and
    maps the replies onto the same fields the tool path gives (RV(backend) says which path ran).
  - smc-tools before 1.8.7 keep the counters of the last reset in C(/tmp/.smcstats.u<UID>), a path fixed in
    their code (C(TMPDIR) does not move it) that every C(stats) run without C(-a) opens and locks; a file
    another local user created there first makes the command fail or wait forever (a denial of service, fixed
    in 1.8.7). The module therefore asks the tool for its release (C(-v)) before a read since the last reset
    (O(absolute=false)) and, for an older or unknown release, does not run C(stats) that way - with
    O(backend=auto) it reads through netlink (and, when the kernel does not answer there, runs the tool with
    C(-a), which never opens the file), in both cases counting since the C(smc) module was loaded and saying
    so in a warning; with O(backend=tool) it fails and names the ways out. O(absolute=true) always runs the tool,
    with C(-a). A private mount namespace with its own C(/tmp) would not help, as the baseline would be lost with it.
author:
  - s390x.network contributors (@s390x-network)
extends_documentation_fragment:
  - s390x.network.attributes.info_module
options:
  protocol:
    description:
      - V(smcd) reads SMC-D (ISM, loopback-ism) statistics with C(smcd), V(smcr) SMC-R (RoCE) statistics with C(smcr).
    type: str
    choices: [smcd, smcr]
    default: smcd
  details:
    description:
      - Read the detailed device and link group views (C(-d device), C(-d linkgroup)). The statistics are
        always read in detail.
    type: bool
    default: false
  absolute:
    description:
      - Run with C(-a), which counts since the C(smc) module was loaded instead of since the last reset.
      - With V(false) and smc-tools before 1.8.7 the counts are since the module was loaded too; see the description.
    type: bool
    default: false
  devices:
    description:
      - Also return RV(devices).
    type: bool
    default: false
  linkgroups:
    description:
      - Also return RV(linkgroups).
    type: bool
    default: false
  backend:
    description:
      - How the values are read.
      - V(tool) runs C(smcd)/C(smcr) (smc-tools) and fails when they are not installed.
      - V(netlink) asks the kernel directly (the C(smc) module must be loaded); no smc-tools needed.
      - V(auto) takes the tool when it is installed, netlink otherwise.
    type: str
    choices: [auto, tool, netlink]
    default: auto
notes:
  - With the tool, fallback reasons are the top three per role (server, client) the tool prints; netlink gives
    every reason the kernel counted (up to 30 per role).
  - Abbreviated text cells (C(358.2M)) are expanded to integers; they are exact only where C(stats json) was
    available. Netlink values are always exact.
  - The kernel counts since the C(smc) module was loaded and cannot reset; the reset of
    M(s390x.network.smc_stats_reset) is a baseline smc-tools keeps in a file. With the netlink backend the counters
    are therefore always those of O(absolute=true); the module warns when an smc-tools baseline exists.
  - Fields the kernel release does not report are null with netlink (for example C(buffer_usage) before Linux
    6.12, C(sndbuf)/C(dmb)/C(rmb) of detailed link groups before 6.12), where smc-tools 1.8.5 prints 0.
    IB device names longer than 8 characters are complete with netlink; the tool cuts them.
seealso:
  - module: s390x.network.smc_stats_reset
  - module: s390x.network.smc_sysctl
"""

EXAMPLES = r"""
- name: Read SMC-D statistics
  s390x.network.smcd_info:
  register: smcd

- name: No TCP fallback
  ansible.builtin.assert:
    that:
      - smcd.stats.connections.smc > 0
      - smcd.stats.connections.tcp_fallback == 0
    fail_msg: "TCP fallbacks: {{ smcd.stats.connections.fallback_reasons }}"

- name: Read SMC-R statistics, with devices and link groups
  s390x.network.smcd_info:
    protocol: smcr
    devices: true
    linkgroups: true

- name: Read the statistics from the kernel, without smc-tools
  s390x.network.smcd_info:
    backend: netlink
    details: true
    linkgroups: true
"""

RETURN = r"""
protocol:
  description: The protocol read.
  returned: always
  type: str
  sample: smcd
backend:
  description: V(tool) when smc-tools were run, V(netlink) when the kernel was asked directly.
  returned: always
  type: str
  sample: tool
source:
  description: V(json+text) when C(stats json) refined the text, V(text) otherwise; V(netlink) with the netlink backend.
  returned: always
  type: str
  sample: json+text
stats:
  description: >-
    The statistics, with the same fields whatever the smc-tools version; a count the version does not
    print is null (C(buffer_usage) before smc-tools 1.8.4).
  returned: always
  type: dict
  contains:
    connections:
      description: >-
        C(total), C(smc), C(smc_client), C(smc_server), C(v1), C(v2), C(handshake_errors) (and C(_client)/C(_server)),
        C(tcp_fallback) (and C(_client)/C(_server)), C(fallback_reasons) (reason to count),
        C(fallback_reasons_by_role) and C(avg_requests_per_conn).
      type: dict
      returned: always
      sample: {"total": 51, "smc": 51, "v1": 0, "v2": 51, "handshake_errors": 0, "tcp_fallback": 0,
               "fallback_reasons": {}, "avg_requests_per_conn": 14046725.0}
    rx:
      description: >-
        Receive side: C(bytes), C(requests), C(buffer_usage), C(buffer_full), C(buffer_full_pct), C(buffer_downgrades),
        C(buffer_reuses), C(buffers) and C(request_sizes) (dicts keyed C(8KB), C(16KB), ... C(>512KB)).
      type: dict
      returned: always
    tx:
      description: Send side, as RV(stats.rx) plus C(buffer_full_remote), C(buffer_too_small), C(buffer_too_small_remote) and their C(_pct).
      type: dict
      returned: always
    extras:
      description: C(special_socket_calls), C(cork), C(nodelay), C(sendpage), C(splice), C(urgent_data).
      type: dict
      returned: always
devices:
  description: SMC devices (SMC-D rows C(fid), C(type), C(pci_id), C(pchid), C(in_use), C(linkgroups), C(pnet_id),
    C(pnet_id_by_user); SMC-R one row per port with C(net_dev), C(ib_dev), C(port), C(port_state), C(type), C(critical),
    C(links), C(pnet_id) and with O(details) C(fid), C(pci_id), C(pchid)). A device without a PCI function (soft-RoCE)
    has C(fid), C(pci_id), C(pchid) and C(type) null; smc-tools print leftover memory there, which is not returned.
  returned: when O(devices=true)
  type: list
  elements: dict
linkgroups:
  description: Link groups (C(id), C(vlan), C(conns), C(pnet_id); SMC-R also C(role), C(type); with O(details) the
    detail keys such as C(version), C(peer_host), C(sndbuf), C(dmb)/C(rmb)).
  returned: when O(linkgroups=true)
  type: list
  elements: dict
smcd_devices:
  description:
    - The SMC-D devices as sysfs shows them, with O(devices=true) and O(protocol=smcd). C(layout) is V(dibs) where the
      host has C(/sys/class/dibs) (Linux 6.18 and later, with ISM functions as C(ism<uid>) and the loopback as C(lo)) and
      V(pci) otherwise (the PCI functions bound to C(ism)).
    - Each of C(devices) has C(name), C(type) (V(ism) or V(loopback)), C(parent) (the ISM function's PCI address),
      C(fabric_id) (the PCHID; 0xffff for the loopback), C(gid) (DIBS only, null otherwise) and C(pnet_names)
      (the names an SMC-D PNET entry may use, the DIBS device or its parent).
  returned: when O(devices=true) and O(protocol=smcd)
  type: dict
kernel_smc:
  description:
    - What the host shows about SMC in the running kernel, never guessed from its release. C(available) (true, false
      or null when nothing tells), C(state) (V(loaded), V(built-in), V(module), V(not built), V(unknown)), C(reason)
      naming the evidence (C(/proc/sys/net/smc), C(/sys/module/smc), C(modules.dep)/C(modules.builtin),
      C(/boot/config-<release>)), C(dibs) (C(/sys/class/dibs) exists), C(tcp_ulp) (the TCP ULP C(smc) is registered;
      it was removed in Linux 7.0; null when the kernel lists no ULPs) and C(release).
    - On a kernel without SMC the module fails with this C(reason) (it begins with C(SMC not built into this kernel)).
  returned: always
  type: dict
tool_version:
  description: The smc-tools release C(-v) reported (C(unknown) when it named none).
  returned: when the module asked for it (O(absolute=false) with the tool installed and O(backend) not V(netlink))
  type: str
  sample: 1.8.7
commands:
  description: The command lines run; with the netlink backend, the netlink commands sent (such as C(SMC_NETLINK_GET_STATS)).
  returned: always
  type: list
  elements: str
"""

import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.s390x.network.plugins.module_utils.engine import host_files
from ansible_collections.s390x.network.plugins.module_utils.smc import kernel_support
from ansible_collections.s390x.network.plugins.module_utils.smc import netlink as smc_netlink
from ansible_collections.s390x.network.plugins.module_utils.smc import smcd_devices
from ansible_collections.s390x.network.plugins.module_utils.smc.stats import (
    TOOL_BASELINE,
    StatsError,
    argv_devices,
    argv_linkgroups,
    baseline_is_safe,
    command_runner,
    devices_from_netlink,
    linkgroups_from_netlink,
    parse_devices_smcd,
    parse_devices_smcr,
    parse_linkgroups,
    read_stats,
    read_stats_netlink,
    tool_version,
    unsafe_baseline_message,
    version_text,
)


def read_with_tool(module, params, run, commands):
    proto = params["protocol"]
    try:
        stats, source = read_stats(run, proto, params["absolute"])
    except StatsError as exc:
        module.fail_json(msg=str(exc), stdout=getattr(exc, "stdout", None), commands=commands, backend="tool")
    result = dict(changed=False, protocol=proto, backend="tool", source=source, stats=stats, commands=commands)
    if params["devices"]:
        dummy, out, dummy = run(argv_devices(proto, params["details"]))
        result["devices"] = parse_devices_smcd(out) if proto == "smcd" else parse_devices_smcr(out)
    if params["linkgroups"]:
        dummy, out, dummy = run(argv_linkgroups(proto, params["details"]))
        result["linkgroups"] = parse_linkgroups(out)
    return result


def read_with_netlink(module, params, tool_missing, required=True, baseline_note=True):
    """The netlink read; with ``required=False`` None instead of failing when the kernel does not answer."""
    proto = params["protocol"]
    smc = None
    result = {}
    try:
        smc = smc_netlink.SmcNetlink()
        stats, source = read_stats_netlink(smc, proto)
        result = dict(changed=False, protocol=proto, backend="netlink", source=source, stats=stats)
        if params["devices"]:
            devices = smc.devices_smcd() if proto == "smcd" else smc.devices_smcr()
            result["devices"] = devices_from_netlink(proto, devices, params["details"], smc_netlink.interface_name)
        if params["linkgroups"]:
            groups = smc.linkgroups_smcd() if proto == "smcd" else smc.linkgroups_smcr()
            result["linkgroups"] = linkgroups_from_netlink(proto, groups, params["details"])
    except smc_netlink.NetlinkError as exc:
        msg = str(exc)
        if not required:
            return None, msg
        if tool_missing:
            msg = "%s not found (smc-tools) and the kernel's SMC netlink interface failed: %s" % (proto, msg)
        module.fail_json(msg=msg, backend="netlink", commands=smc.requests if smc else [])
    finally:
        if smc is not None:
            smc.close()
    result["commands"] = smc.requests
    if baseline_note and not params["absolute"] and os.path.exists(host_files.path(TOOL_BASELINE % os.getuid())):
        module.warn(
            "the kernel counts since the smc module was loaded: the reset baseline of smc-tools (%s) does not "
            "apply to the netlink backend" % (TOOL_BASELINE % os.getuid())
        )
    return result, None


def read_without_baseline(module, params, run, commands, version):
    """smc-tools before 1.8.7 and counts since the last reset asked for: the tool would open its fixed
    /tmp baseline, so read through netlink (V(auto)), else with ``-a``, which never opens it; V(tool)
    fails instead of silently counting since the module was loaded."""
    reason = unsafe_baseline_message(params["protocol"], version, os.getuid())
    if params["backend"] == "tool":
        module.fail_json(
            msg="%s; backend=tool does not run it for counts since the last reset: set absolute=true (the tool "
            "then runs with -a and never opens that file), use backend=auto or netlink, or install smc-tools 1.8.7 "
            "or later" % reason,
            backend="tool",
            tool_version=version_text(version),
            commands=commands,
        )
    result, error = read_with_netlink(module, params, False, required=False, baseline_note=False)
    if result is not None:
        module.warn(
            "%s; read through the kernel's netlink interface instead: counts since the smc module was loaded" % reason
        )
        result["commands"] = commands + result["commands"]
    else:
        module.warn(
            "%s; the kernel's netlink interface did not answer (%s), so the tool ran with -a: counts since the "
            "smc module was loaded" % (reason, error)
        )
        result = read_with_tool(module, dict(params, absolute=True), run, commands)
    result["tool_version"] = version_text(version)
    return result


def main():
    module = AnsibleModule(
        argument_spec=dict(
            protocol=dict(type="str", default="smcd", choices=["smcd", "smcr"]),
            details=dict(type="bool", default=False),
            absolute=dict(type="bool", default=False),
            devices=dict(type="bool", default=False),
            linkgroups=dict(type="bool", default=False),
            backend=dict(type="str", default="auto", choices=["auto", "tool", "netlink"]),
        ),
        supports_check_mode=True,
    )
    params = module.params
    proto = params["protocol"]
    support = kernel_support.probe(kernel_support.kernel_release())
    if support["available"] is False:
        module.fail_json(msg=support["reason"], kernel_smc=support, commands=[])
    tool = None
    if params["backend"] != "netlink":
        tool = module.get_bin_path(proto, opt_dirs=["/usr/sbin", "/sbin"])
        if tool is None and params["backend"] == "tool":
            module.fail_json(msg="%s not found: install smc-tools (1.6.0 or later for stats)" % proto)
    if tool is None:
        result, dummy = read_with_netlink(module, params, params["backend"] == "auto")
    else:
        commands = []
        run = command_runner(module, tool, commands)
        version = None if params["absolute"] else tool_version(run, proto)
        if not params["absolute"] and not baseline_is_safe(version):
            result = read_without_baseline(module, params, run, commands, version)
        else:
            result = read_with_tool(module, params, run, commands)
            if not params["absolute"]:
                result["tool_version"] = version_text(version)
    result["kernel_smc"] = support
    if params["devices"] and proto == "smcd":
        result["smcd_devices"] = smcd_devices.read()
    module.exit_json(**result)


if __name__ == "__main__":
    main()
