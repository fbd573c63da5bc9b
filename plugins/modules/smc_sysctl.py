#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: smc_sysctl
short_description: Set SMC buffer sizes and net.smc settings the way the running kernel understands them
version_added: 0.1.0
description:
  - Sets the default size of the SMC send and receive buffers (O(wmem), O(rmem)) and other
    C(net.smc.*) settings on Linux on IBM Z, persistently and, with O(apply), live.
  - How to ask for an SMC buffer size depends on the kernel. When C(/proc/sys/net/smc/rmem)
    exists (upstream 6.1 and later, or a distribution kernel with the backport), the module
    writes C(net.smc.rmem)/C(net.smc.wmem) (method C(net.smc)).
  - Without it (upstream before 6.1, for example RHEL 8.8 with 4.18 or SLES 15 SP5 with 5.14) SMC
    requests half of the TCP socket's initial buffer, so the module sets the default (middle)
    value of C(net.ipv4.tcp_rmem)/C(net.ipv4.tcp_wmem) to twice the wanted size and keeps the
    minimum and maximum (those in O(file) when it sets them, else the host's current ones) unless
    O(tcp_rmem_min) and friends are given (method C(tcp)). This changes the default buffer of every TCP socket; the module warns about it.
  - When C(smc) is not loaded and cannot be loaded (check mode, O(load_module=false), or a kernel
    without SMC) the kernel release decides the method.
  - The kernel allocates SMC buffers of 16 KiB x 2^n only, up to a maximum per protocol and
    kernel; RV(effective_rmem) and RV(effective_wmem) report the size it will use, with a warning
    when the request is rounded up or capped. See docs/smc-sizing.md for the rule per kernel.
  - The file O(file) is owned whole by this module. It holds one canonical C(key = value) line per
    setting. With O(load_module), O(modules_load_file) makes C(systemd-modules-load) load C(smc)
    at boot, before C(systemd-sysctl) applies O(file), so C(net.smc.*) keys exist by then.
  - C(net.smc.*) settings are per network namespace; O(file) and O(apply) act on the namespace the
    module runs in (the host's initial namespace at boot).
  - Whether the kernel has a C(net.smc) key is read from C(/proc/sys/net/smc), never from the kernel
    release (distributions backport keys, and C(hs_ctrl) depends on a build option). With C(smc)
    loaded, a key of O(settings) the kernel does not have is neither applied nor written to O(file);
    a warning names the key and the kernel release. When C(smc) is not loaded (check mode before the
    load, O(load_module=false)) nothing can be probed and every key is written to O(file) only.
  - Whether the kernel has SMC at all is read from the host, not from its release
    (C(/proc/sys/net/smc), C(/sys/module/smc), C(net/smc/smc.ko) in C(/lib/modules/<release>/modules.dep) or
    C(modules.builtin), C(/boot/config-<release>), and C(modprobe smc) failing when nothing else tells).
    On a kernel without SMC (for example Debian's s390x Linux 7.2, built without C(CONFIG_DIBS) and
    C(CONFIG_SMC)) the module writes nothing (no O(file), no O(modules_load_file), no TCP change) and
    warns with the reason, which begins with C(SMC not built into this kernel) and names the evidence;
    with O(require_smc=true) it fails with that reason. RV(kernel_smc) returns what was found.
  - The module never fails because the kernel has no SMC unless O(require_smc=true).
author:
  - s390x.network contributors (@s390x-network)
extends_documentation_fragment:
  - s390x.network.attributes
options:
  state:
    description:
      - V(merged) writes O(file) (and O(modules_load_file)) and applies the values.
      - V(deleted) removes both files. Live values stay as they are (the module does not know the
        values from before it was used).
      - V(present) and V(absent) are the names of earlier releases for V(merged) and V(deleted);
        they still work.
    type: str
    choices: [merged, deleted, present, absent]
    default: merged
  rmem:
    description:
      - Wanted SMC receive buffer (RMB/DMB) size, in bytes or with a binary suffix
        (V(131072), V(128K), V(1M)).
      - At least V(16K); at most V(1073741823) bytes (INT_MAX/2, the kernel's limit since 6.5).
      - Omit to leave the receive buffer size alone.
    type: raw
  wmem:
    description:
      - Wanted SMC send buffer size, same format and limits as O(rmem).
    type: raw
  protocol:
    description:
      - SMC flavour that RV(effective_rmem)/RV(effective_wmem) and the capping warnings are computed
        for. SMC-D buffers are capped at 1 MiB (512 KiB before 5.16); SMC-R buffers at 512 KiB
        before 6.11, afterwards at 4 MiB with C(net.smc.smcr_buf_type=0) and 512 MiB otherwise.
    type: str
    choices: [smcd, smcr]
    default: smcd
  settings:
    description:
      - Other C(net.smc.*) settings, key without or with the C(net.smc.) prefix (each key once).
      - Known keys and ranges, checked before anything is changed
        (V(autocorking_size) 0..4294967295, V(smcr_buf_type) 0..2, V(smcr_testlink_time)
        0..21474836 seconds, V(smcr_max_links_per_lgr) 1..2, V(smcr_max_conns_per_lgr) 16..255,
        V(limit_smc_hs) 0..1, V(smcr_max_send_wr) 2..2048, V(smcr_max_recv_wr) 2..2048).
      - V(hs_ctrl) is a string, the name of a BPF C(smc_hs_ctrl) the host registered (at most 15
        letters, digits, C(_) or C(.)), or an empty string for none; the kernel refuses a name no
        BPF program registered.
      - Use O(rmem) and O(wmem) for the buffer sizes.
    type: dict
    default: {}
  method:
    description:
      - V(auto) decides from the host as described above. V(net.smc) and V(tcp) force a method,
        for example to prepare O(file) for a kernel that is not booted yet.
    type: str
    choices: [auto, net.smc, tcp]
    default: auto
  tcp_rmem_min:
    description:
      - Minimum (first) value of C(net.ipv4.tcp_rmem) for method C(tcp); default is the value in
        O(file), or the host's current value when O(file) does not set it.
      - Only together with O(rmem), at most twice O(rmem) (the TCP default it sets) and at most
        O(tcp_rmem_max); not with O(method=net.smc). The same holds for the other three limits.
    type: raw
  tcp_rmem_max:
    description:
      - Maximum (third) value of C(net.ipv4.tcp_rmem) for method C(tcp); default as for
        O(tcp_rmem_min), raised to the new default value when it is below.
    type: raw
  tcp_wmem_min:
    description:
      - Minimum value of C(net.ipv4.tcp_wmem) for method C(tcp); default as for O(tcp_rmem_min).
    type: raw
  tcp_wmem_max:
    description:
      - Maximum value of C(net.ipv4.tcp_wmem) for method C(tcp); default as for O(tcp_rmem_min),
        raised to the new default value when it is below.
    type: raw
  core_rmem_max:
    description:
      - Also set C(net.core.rmem_max), the largest receive buffer an application may ask for with
        C(setsockopt(SO_RCVBUF)). C(libsmc-preload.so) (C(smc_run -r), C(SMC_RCVBUF)) asks that way,
        so a per-application SMC buffer above the kernel default of 212992 bytes needs this raised
        (C(smc_run) raises it itself). Omit to leave it alone.
    type: raw
  core_wmem_max:
    description:
      - Also set C(net.core.wmem_max), the same for C(SO_SNDBUF) (C(smc_run -t), C(SMC_SNDBUF)).
    type: raw
  core_mem_max_at_least:
    description:
      - Take O(core_rmem_max) and O(core_wmem_max) as lower bounds - a host whose value is larger keeps it (live and in
        O(file)), so that raising the limit for SMC never lowers what an administrator set.
    type: bool
    default: false
  file:
    description:
      - Name of the file in C(/etc/sysctl.d) this module owns, C([A-Za-z0-9_][A-Za-z0-9_.-]*.conf) (C(systemd-sysctl)
        reads only C(*.conf) files). A name, not a path - no C(/); other values fail naming the field before
        anything is read or written.
      - Earlier versions took an absolute path; pass the file name only (V(90-smc.conf) for
        C(/etc/sysctl.d/90-smc.conf)).
    type: str
    default: 90-smc.conf
  load_module:
    description:
      - Load C(smc) now (C(modprobe smc)) and at boot (O(modules_load_file)).
    type: bool
    default: true
  modules_load_file:
    description:
      - Name of the file in C(/etc/modules-load.d) that loads C(smc) at boot, owned by this module when
        O(load_module); the same form as O(file) (C(systemd-modules-load) reads only C(*.conf) files).
      - Earlier versions took an absolute path; pass the file name only (V(smc.conf)).
    type: str
    default: smc.conf
  apply:
    description:
      - Write the values to C(/proc/sys) now, for the keys the running kernel has.
      - New values apply to SMC sockets created afterwards, not to existing connections.
    type: bool
    default: true
  require_smc:
    description:
      - Fail when the kernel has no SMC (C(smc) not loaded and not loadable).
    type: bool
    default: false
notes:
  - Supports C(--check) and C(--diff). In check mode C(smc) is not loaded; the method is then
    decided from what is loaded already or from the kernel release.
seealso:
  - module: s390x.network.smcd_info
  - module: s390x.network.smc_pnet
  - name: The s390x.network.smc_buffer_sysctls filter
    description: The same computation on the controller.
    link: https://github.com/s390x-network/s390x.network/blob/main/docs/smc-sizing.md
"""

EXAMPLES = r"""
- name: SMC buffers of 128 KiB (the study's tuning), whatever the kernel
  s390x.network.smc_sysctl:
    rmem: 128K
    wmem: 128K

- name: Larger buffers for SMC-R on a 6.12 kernel, plus a shorter TEST_LINK interval
  s390x.network.smc_sysctl:
    rmem: 1M
    wmem: 1M
    protocol: smcr
    settings:
      smcr_testlink_time: 10
      smcr_buf_type: 2

- name: RHEL 8 style with an explicit TCP maximum
  s390x.network.smc_sysctl:
    rmem: 128K
    wmem: 128K
    tcp_rmem_max: 6291456
    tcp_wmem_max: 4194304
  register: smc

- name: Own /etc/sysctl.d/80-smc-tuning.conf instead of the default 90-smc.conf
  s390x.network.smc_sysctl:
    rmem: 256K
    wmem: 256K
    file: 80-smc-tuning.conf

- name: Show what the kernel will allocate
  ansible.builtin.debug:
    msg: "{{ smc.method }}: RMB {{ smc.effective_rmem }} bytes, send buffer {{ smc.effective_wmem }} bytes"
"""

RETURN = r"""
method:
  description: How the buffer sizes are requested, V(net.smc) or V(tcp).
  returned: always
  type: str
  sample: tcp
method_source:
  description:
    - What decided the method, V(presence) of C(/proc/sys/net/smc/rmem), V(osrelease) or V(option).
    - V(no smc) on a kernel without SMC (RV(method) is then null).
  returned: always
  type: str
  sample: presence
kernel:
  description: The running kernel release.
  returned: always
  type: str
  sample: 4.18.0-477.10.1.el8_8.s390x
kernel_smc:
  description:
    - What the host shows about SMC in the running kernel (C(available) true, false or null; C(state) V(loaded),
      V(built-in), V(module), V(not built) or V(unknown); C(reason) naming the evidence; C(dibs) whether
      C(/sys/class/dibs) exists; C(tcp_ulp) whether the TCP ULP C(smc), removed in Linux 7.0, is registered;
      C(release)).
  returned: always
  type: dict
smc_loaded:
  description: Whether C(smc) is loaded after the module ran (in check mode, before).
  returned: always
  type: bool
smc_tools_missing:
  description:
    - The smc-tools commands (C(smcd), C(smc_pnet)) not found in C(PATH); empty where smc-tools is
      installed. The C(s390x.network.smc) role installs smc-tools when this is not empty, without a
      lookup of its own.
  returned: always
  type: list
  elements: str
  sample: []
sysctls:
  description: The settings this module manages (full key to value), as written to O(file).
  returned: always
  type: dict
  sample: {"net.ipv4.tcp_rmem": "4096 262144 6291456", "net.ipv4.tcp_wmem": "4096 262144 4194304"}
effective_rmem:
  description: Receive buffer size in bytes the kernel allocates for new SMC connections of O(protocol) (null when unknown).
  returned: always
  type: int
  sample: 131072
effective_wmem:
  description: Send buffer size in bytes the kernel allocates for new SMC connections of O(protocol) (null when unknown).
  returned: always
  type: int
  sample: 131072
applied:
  description: Keys written to C(/proc/sys) (or that would be, in check mode).
  returned: always
  type: list
  elements: str
not_present:
  description:
    - Keys the running kernel does not have. A key of O(settings) absent while C(smc) is loaded is neither
      applied nor written to O(file); the others (C(smc) not loaded, or a forced O(method)) are kept in O(file)
      and not applied.
  returned: always
  type: list
  elements: str
restored:
  description:
    - After a failure (a value the kernel refused, a file that could not be written), the keys whose
      live value was set in this run and put back to the old one.
  returned: on failure after a change started
  type: list
  elements: str
not_restored:
  description: Keys whose old live value could not be put back (they keep the new value).
  returned: on failure after a change started
  type: list
  elements: str
before:
  description: O(file) content (key to value) and live values of the managed keys before the run.
  returned: always
  type: dict
  sample: {"file": {}, "live": {"net.ipv4.tcp_rmem": "4096 131072 6291456"}}
after:
  description: The same after the run (in check mode, as it would be).
  returned: always
  type: dict
commands:
  description:
    - What ran (in check mode, would run), in order. C(modprobe smc), then one C(echo VALUE > /proc/sys/...)
      per live value, then C(write PATH) or C(rm PATH) per file.
  returned: always
  type: list
  elements: str
  sample: ["echo 131072 > /proc/sys/net/smc/rmem", "write /etc/sysctl.d/90-smc.conf"]
drift:
  description:
    - One row per scope that differs (C(kind) V(sysctl), C(object) C(smc sysctls), C(scope) V(active)
      for the live values and V(persistent) for O(file), C(difference) C(key old -> new) per key,
      comma-separated).
  returned: always
  type: list
  elements: dict
  sample: [{"kind": "sysctl", "object": "smc sysctls", "scope": "active", "difference": "net.smc.rmem 65536 -> 131072"}]
rollback:
  description:
    - After a failure, what ran to put back the live values and files already written (C(commands)),
      the errors on the way (C(errors)) and whether everything is back (C(ok)).
  returned: on failure after a change started
  type: dict
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.s390x.network.plugins.module_utils.engine import resource as resource_engine
from ansible_collections.s390x.network.plugins.module_utils.smc.sizing import METHOD_NET_SMC, METHOD_TCP
from ansible_collections.s390x.network.plugins.module_utils.smc.sysctl_resource import STATES, SmcSysctls


def main():
    module = AnsibleModule(
        argument_spec=dict(
            state=dict(type="str", default="merged", choices=list(STATES)),
            rmem=dict(type="raw"),
            wmem=dict(type="raw"),
            protocol=dict(type="str", default="smcd", choices=["smcd", "smcr"]),
            settings=dict(type="dict", default={}),
            method=dict(type="str", default="auto", choices=["auto", METHOD_NET_SMC, METHOD_TCP]),
            tcp_rmem_min=dict(type="raw"),
            tcp_rmem_max=dict(type="raw"),
            tcp_wmem_min=dict(type="raw"),
            tcp_wmem_max=dict(type="raw"),
            core_rmem_max=dict(type="raw"),
            core_wmem_max=dict(type="raw"),
            core_mem_max_at_least=dict(type="bool", default=False),
            file=dict(type="str", default="90-smc.conf"),
            load_module=dict(type="bool", default=True),
            modules_load_file=dict(type="str", default="smc.conf"),
            apply=dict(type="bool", default=True),
            require_smc=dict(type="bool", default=False),
        ),
        supports_check_mode=True,
    )
    resource_engine.run(module, SmcSysctls(module))


if __name__ == "__main__":
    main()
