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
notes:
  - Fallback reasons are the top three per role (server, client) the tool prints.
  - Abbreviated text cells (C(358.2M)) are expanded to integers; they are exact only where C(stats json) was available.
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
"""

RETURN = r"""
protocol:
  description: The protocol read.
  returned: always
  type: str
  sample: smcd
source:
  description: V(json+text) when C(stats json) refined the text, V(text) otherwise.
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
    C(links), C(pnet_id) and with O(details) C(fid), C(pci_id), C(pchid)).
  returned: when O(devices=true)
  type: list
  elements: dict
linkgroups:
  description: Link groups (C(id), C(vlan), C(conns), C(pnet_id); SMC-R also C(role), C(type); with O(details) the
    detail keys such as C(version), C(peer_host), C(sndbuf), C(dmb)/C(rmb)).
  returned: when O(linkgroups=true)
  type: list
  elements: dict
commands:
  description: The command lines run.
  returned: always
  type: list
  elements: str
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.s390x.network.plugins.module_utils.smc_stats import (
    StatsError,
    argv_devices,
    argv_linkgroups,
    command_runner,
    parse_devices_smcd,
    parse_devices_smcr,
    parse_linkgroups,
    read_stats,
)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            protocol=dict(type="str", default="smcd", choices=["smcd", "smcr"]),
            details=dict(type="bool", default=False),
            absolute=dict(type="bool", default=False),
            devices=dict(type="bool", default=False),
            linkgroups=dict(type="bool", default=False),
        ),
        supports_check_mode=True,
    )
    params = module.params
    proto = params["protocol"]
    tool = module.get_bin_path(proto, opt_dirs=["/usr/sbin", "/sbin"])
    if tool is None:
        module.fail_json(msg="%s not found: install smc-tools (1.6.0 or later for stats)" % proto)
    commands = []
    run = command_runner(module, tool, commands)
    try:
        stats, source = read_stats(run, proto, params["absolute"])
    except StatsError as exc:
        module.fail_json(msg=str(exc), stdout=getattr(exc, "stdout", None), commands=commands)
    result = dict(changed=False, protocol=proto, source=source, stats=stats, commands=commands)
    if params["devices"]:
        dummy, out, dummy = run(argv_devices(proto, params["details"]))
        result["devices"] = parse_devices_smcd(out) if proto == "smcd" else parse_devices_smcr(out)
    if params["linkgroups"]:
        dummy, out, dummy = run(argv_linkgroups(proto, params["details"]))
        result["linkgroups"] = parse_linkgroups(out)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
