# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: smc_buffer_sysctls
short_description: The sysctls that give a kernel SMC buffers of a wanted size
version_added: 0.1.0
author:
  - s390x.network contributors (@s390x-network)
description:
  - Computes on the controller what M(s390x.network.smc_sysctl) computes on the host, for a kernel
    release, that is the method (V(net.smc) or V(tcp)), the sysctls to set and the buffer size the
    kernel will allocate.
  - Kernels before upstream 6.1 derive the SMC buffer from C(net.ipv4.tcp_rmem)/C(tcp_wmem) (half of
    the default value); 6.1 and later read C(net.smc.rmem)/C(net.smc.wmem). Sizes are 16 KiB x 2^n,
    capped per protocol and kernel. See docs/smc-sizing.md.
  - Distribution kernels may have backported C(net.smc.rmem); pass O(smc_rmem_present) when known
    (the module decides from the host itself).
options:
  _input:
    description: Wanted SMC receive buffer size in bytes or with a K/M/G suffix (V(128K)).
    type: raw
    required: true
  kernel:
    description: Kernel release, for example C(ansible_facts['kernel']) (V(4.18.0-477.10.1.el8_8.s390x)).
    type: str
    required: true
  wmem:
    description: Wanted SMC send buffer size; defaults to the receive buffer size.
    type: raw
  protocol:
    description: SMC flavour the effective sizes are computed for.
    type: str
    choices: [smcd, smcr]
    default: smcd
  smcr_buf_type:
    description: Value of C(net.smc.smcr_buf_type) (SMC-R buffer cap on 6.11+).
    type: int
    default: 0
  method:
    description: Force V(net.smc) or V(tcp) instead of deciding from O(kernel) and O(smc_rmem_present).
    type: str
    choices: [net.smc, tcp]
  smc_rmem_present:
    description: Whether the host has C(/proc/sys/net/smc/rmem) (overrides the kernel release).
    type: bool
  tcp_rmem:
    description: The host's current C(net.ipv4.tcp_rmem) (three values); kernel defaults when omitted.
    type: raw
  tcp_wmem:
    description: The host's current C(net.ipv4.tcp_wmem) (three values); kernel defaults when omitted.
    type: raw
"""

EXAMPLES = r"""
- name: What RHEL 8.8 needs for 128 KiB SMC buffers
  ansible.builtin.debug:
    msg: "{{ '128K' | s390x.network.smc_buffer_sysctls(kernel='4.18.0-477.10.1.el8_8.s390x') }}"
  # -> method: tcp, sysctls: net.ipv4.tcp_rmem "4096 262144 6291456",
  #    net.ipv4.tcp_wmem "4096 262144 4194304", effective_rmem 131072, effective_wmem 131072

- name: The same on a 6.12 kernel of this host
  ansible.builtin.set_fact:
    smc_plan: "{{ smc_buffer_size | s390x.network.smc_buffer_sysctls(kernel=ansible_facts['kernel']) }}"
"""

RETURN = r"""
_value:
  description:
    - C(method) (V(net.smc) or V(tcp)), C(kernel), C(protocol), C(sysctls) (full key to value string),
      C(effective_rmem) and C(effective_wmem) (bytes the kernel allocates), C(details) (per buffer
      C(requested), C(size), C(cap), C(rounded), C(capped)) and C(warnings) (list of strings).
  type: dict
"""

from ansible.errors import AnsibleFilterError


def smc_buffer_sysctls(
    rmem,
    kernel,
    wmem=None,
    protocol="smcd",
    smcr_buf_type=0,
    method=None,
    smc_rmem_present=None,
    tcp_rmem=None,
    tcp_wmem=None,
):
    """See DOCUMENTATION."""
    from ansible_collections.s390x.network.plugins.module_utils.smc.sizing import SizingError
    from ansible_collections.s390x.network.plugins.module_utils.smc.sizing import plan_buffers

    if wmem is None:
        wmem = rmem
    try:
        return plan_buffers(
            kernel,
            rmem,
            wmem,
            method=method,
            protocol=protocol,
            smcr_buf_type=smcr_buf_type,
            tcp_rmem=tcp_rmem,
            tcp_wmem=tcp_wmem,
            smc_rmem_present=smc_rmem_present,
        )
    except SizingError as exc:
        raise AnsibleFilterError("smc_buffer_sysctls: %s" % exc)


class FilterModule(object):
    """SMC buffer sizing filters."""

    def filters(self):
        return {"smc_buffer_sysctls": smc_buffer_sysctls}
