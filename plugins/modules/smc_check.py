#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: smc_check
short_description: Open one SMC connection between two hosts and report what the kernels negotiated
version_added: 0.1.0
description:
  - With O(mode=listen), listens on O(address) and O(port) with an SMC socket, accepts up to
    O(connections) connections, receives O(bytes) bytes on each, reads the connection through the
    kernel's socket diagnostics (SMC_DIAG, C(NETLINK_SOCK_DIAG)) while it is open, sends the bytes
    back and closes it.
  - With O(mode=connect), connects to O(address) and O(port) (a refused connection is retried until
    O(timeout), as the listener may start a moment later), sends O(bytes) bytes, receives them back,
    reads its own socket through SMC_DIAG and closes it.
  - The record of each connection says whether it is SMC-D, SMC-R or a TCP fallback, with the fallback
    reason and the peer's diagnosis (the kernel's C(SMC_CLC_DECL_*) codes), the buffer sizes of both ends,
    the link group and the GIDs. The SMC version is read from the link group (C(SMC_GEN_NETLINK)), as
    SMC_DIAG does not carry it.
  - The SMC socket is C(IPPROTO_SMC) where the kernel has it (Linux 6.11 and later), else C(AF_SMC)
    (O(protocol)). Where the kernel has neither, the module does not fail; it returns
    RV(smc_available=false) and the RV(reason) (for example a kernel built without C(CONFIG_SMC), or the
    C(smc) module not loaded, which the C(s390x.network.smc) role loads).
  - Every socket the module opens is closed before it returns; it runs at most O(timeout) seconds.
    It changes nothing on the host.
  - playbooks/verify.yml runs it for each SMC pair (docs/smc-live-check.md).
author:
  - s390x.network contributors (@s390x-network)
attributes:
  check_mode:
    description: Opens no connection in check mode and returns RV(skipped_reason).
    support: full
  diff_mode:
    description: Changes nothing, so there is no diff to return.
    support: none
  idempotent:
    description: Never changes the host; every run opens a new connection and reports V(changed=false).
    support: full
options:
  mode:
    description:
      - V(listen) accepts connections, V(connect) opens one.
    type: str
    required: true
    choices: [listen, connect]
  address:
    description:
      - An IPv4 or IPv6 literal (no host name, no zone). With O(mode=listen) the local address to listen on
        (V(0.0.0.0) or V(::) for every address); with O(mode=connect) the listener's address.
    type: str
    required: true
  port:
    description:
      - The TCP port of the listener, 1024 to 65535. A port that another socket holds is refused.
    type: int
    required: true
  timeout:
    description:
      - Seconds the module runs at most, 1 to 120. With O(mode=listen), the time to accept and serve every
        connection; with O(mode=connect), the time to connect (retrying refused connections) and exchange the data.
    type: int
    default: 30
  bytes:
    description:
      - Bytes sent each way on each connection, 1024 (1 KiB) to 1048576 (1 MiB).
    type: int
    default: 16384
  connections:
    description:
      - With O(mode=listen), how many connections to accept, 1 to 64. Ignored with O(mode=connect).
    type: int
    default: 1
  protocol:
    description:
      - The SMC socket. V(ipproto_smc) is C(socket(AF_INET or AF_INET6, SOCK_STREAM, IPPROTO_SMC)) (Linux 6.11+);
        V(af_smc) is C(socket(AF_SMC, SOCK_STREAM, SMCPROTO_SMC or SMCPROTO_SMC6)) with an IP address, as
        smc-tools' C(smc_run) makes it; V(auto) takes V(ipproto_smc) where the kernel has it, else V(af_smc).
    type: str
    choices: [auto, af_smc, ipproto_smc]
    default: auto
notes:
  - The diagnostics need the C(smc_diag) kernel module, which the kernel loads on the first request where it
    can; without it the connection is still made and RV(diag_error) says why there is no record.
  - A listener runs until its connections are served or O(timeout) passes; start it with C(async) and
    C(poll=0) before the clients connect, and collect it with M(ansible.builtin.async_status).
seealso:
  - module: s390x.network.smcd_info
"""

EXAMPLES = r"""
- name: Listen for the SMC peers (in the background)
  s390x.network.smc_check:
    mode: listen
    address: 10.1.0.2
    port: 50051
    connections: 2
    timeout: 60
  async: 90
  poll: 0
  register: smc_listener

- name: Connect to the listener
  s390x.network.smc_check:
    mode: connect
    address: 10.1.0.2
    port: 50051
    timeout: 30
  register: smc_client

- name: Show what the kernels negotiated
  ansible.builtin.debug:
    msg: "{{ smc_client.diag.mode }} v{{ smc_client.diag.version }}, fallback {{ smc_client.diag.fallback.reason_name }}"
  when: smc_client.smc_available
"""

RETURN = r"""
smc_available:
  description: Whether the kernel has SMC sockets; false with RV(reason) when it has none. Null in check mode.
  returned: always
  type: bool
  sample: true
reason:
  description: What is missing when RV(smc_available) is false.
  returned: when smc_available is false
  type: str
  sample: "this kernel has no SMC sockets (IPPROTO_SMC: Protocol not supported; AF_SMC: Address family not supported by protocol): ..."
skipped_reason:
  description: Why nothing ran (check mode).
  returned: in check mode
  type: str
  sample: check mode opens no connection
mode:
  description: O(mode).
  returned: always
  type: str
protocol:
  description: The socket used, V(ipproto_smc) or V(af_smc).
  returned: when smc_available
  type: str
  sample: ipproto_smc
address:
  description: The address listened on or connected to, as the module read it.
  returned: always
  type: str
  sample: 10.1.0.2
port:
  description: O(port).
  returned: always
  type: int
elapsed:
  description: Seconds the connection or the listener took.
  returned: when smc_available
  type: float
expected:
  description: O(connections) (listen).
  returned: when mode is listen and smc_available
  type: int
accepted:
  description: The connections accepted (listen).
  returned: when mode is listen and smc_available
  type: int
timed_out:
  description: Whether O(timeout) passed before every expected connection came (listen).
  returned: when mode is listen and smc_available
  type: bool
connections:
  description:
    - One per accepted connection (listen) - C(local) and C(peer) (C(address), C(port)), C(bytes_received),
      C(bytes_sent), C(diag) (the record, as RV(diag)), C(diag_error) and C(error) (null when served in full).
  returned: when mode is listen and smc_available
  type: list
  elements: dict
attempts:
  description: Connection attempts (connect; refused ones are retried).
  returned: when mode is connect and smc_available
  type: int
local:
  description: The client's own address and port (connect).
  returned: when mode is connect and smc_available
  type: dict
peer:
  description: The listener's address and port (connect).
  returned: when mode is connect and smc_available
  type: dict
bytes_sent:
  description: Bytes sent (connect).
  returned: when mode is connect and smc_available
  type: int
bytes_received:
  description: Bytes received back (connect).
  returned: when mode is connect and smc_available
  type: int
data_ok:
  description: Whether the bytes came back unchanged (connect).
  returned: when mode is connect and smc_available
  type: bool
error:
  description: What went wrong after the connection was made (connect), null when nothing did.
  returned: when mode is connect and smc_available
  type: str
diag_error:
  description: Why RV(diag) is null (for example no C(smc_diag) module).
  returned: when mode is connect and smc_available
  type: str
diag:
  description:
    - The SMC_DIAG record of the connection (connect; per connection in RV(connections) for listen), null when it
      could not be read.
    - C(mode) (V(SMC-D), V(SMC-R) or V(TCP) for a fallback), C(version) (1, 2 or null) and C(version_source),
      C(fallback) (C(reason), C(reason_name), C(peer_diagnosis), C(peer_diagnosis_name), codes as C(0x%08x), names
      C(SMC_CLC_DECL_*)), C(sndbuf_size), C(rmbe_size) and C(peer_rmbe_size) (bytes; an SMC-D RMB is its DMB less a
      32 byte header), C(link_group) (C(0x%08x)), C(role), C(link_id), C(ib_device), C(ib_port), C(gid) and
      C(peer_gid) (SMC-R GIDs as text, SMC-D GIDs as C(0x%016x), with C(gid_ext)/C(peer_gid_ext)), C(token),
      C(token_dmb), C(peer_token), C(state), C(family), C(local), C(peer), C(inode), C(uid), C(cookie), C(shutdown).
  returned: when mode is connect and smc_available
  type: dict
  sample:
    mode: SMC-D
    version: 2
    fallback: {reason: "0x00000000", reason_name: null, peer_diagnosis: "0x00000000", peer_diagnosis_name: null}
    sndbuf_size: 131072
    rmbe_size: 131040
    peer_rmbe_size: 131040
    link_group: "0x00000f01"
    gid: "0x0000000000001234"
    peer_gid: "0x0000000000005678"
changed:
  description: Always false; the module changes nothing.
  returned: always
  type: bool
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.s390x.network.plugins.module_utils.smc import live

CHECK_MODE_TEXT = "check mode opens no connection"


def _validate(params):
    address, family = live.parse_address(params["address"])
    live.check_range("port", params["port"], live.PORT_MIN, live.PORT_MAX)
    live.check_range("timeout", params["timeout"], live.TIMEOUT_MIN, live.TIMEOUT_MAX, " seconds")
    live.check_range("bytes", params["bytes"], live.BYTES_MIN, live.BYTES_MAX, " bytes (1 KiB to 1 MiB)")
    live.check_range("connections", params["connections"], live.CONNECTIONS_MIN, live.CONNECTIONS_MAX)
    return address


def _problem(mode, result):
    """Why a connection that was made did not serve in full (the result is returned with the failure)."""
    if mode == "connect":
        if result["error"]:
            return result["error"]
        if not result["data_ok"]:
            return "the bytes came back changed"
        return None
    problems = ["%s: %s" % ((c["peer"] or {}).get("address"), c["error"]) for c in result["connections"] if c["error"]]
    if result["timed_out"]:
        problems.append("timed out after %d of %d connections" % (result["accepted"], result["expected"]))
    return "; ".join(problems) or None


def main():
    module = AnsibleModule(
        argument_spec=dict(
            mode=dict(type="str", required=True, choices=["listen", "connect"]),
            address=dict(type="str", required=True),
            port=dict(type="int", required=True),
            timeout=dict(type="int", default=30),
            bytes=dict(type="int", default=16384),
            connections=dict(type="int", default=1),
            protocol=dict(type="str", default="auto", choices=list(live.PROTOCOLS)),
        ),
        supports_check_mode=True,
    )
    params = module.params
    try:
        address = _validate(params)
    except ValueError as exc:
        module.fail_json(msg=str(exc))
    base = dict(changed=False, mode=params["mode"], address=address, port=params["port"])
    if module.check_mode:
        module.exit_json(smc_available=None, skipped_reason=CHECK_MODE_TEXT, msg=CHECK_MODE_TEXT, **base)
    try:
        if params["mode"] == "listen":
            result = live.listen(
                address,
                params["port"],
                connections=params["connections"],
                size=params["bytes"],
                timeout=params["timeout"],
                protocol=params["protocol"],
            )
            msg = "accepted %d of %d connections" % (result["accepted"], result["expected"])
        else:
            result = live.connect(
                address, params["port"], size=params["bytes"], timeout=params["timeout"], protocol=params["protocol"]
            )
            msg = "connected: %s" % (result["diag"]["mode"] if result["diag"] else "no SMC_DIAG record")
    except live.NoSmc as exc:
        module.exit_json(smc_available=False, reason=exc.reason, msg=exc.reason, **base)
    except live.LiveError as exc:
        module.fail_json(msg=str(exc), smc_available=True, **base)
    except OSError as exc:
        module.fail_json(msg="SMC socket: %s" % exc, **base)
    result.update(base)
    problem = _problem(params["mode"], result)
    if problem:
        module.fail_json(smc_available=True, **dict(result, msg=problem))
    module.exit_json(smc_available=True, msg=msg, **result)


if __name__ == "__main__":
    main()
