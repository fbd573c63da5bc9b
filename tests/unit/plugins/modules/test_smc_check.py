# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""smc_check: its arguments, check mode, and what it does with real sockets on this test host.

The host's kernel has no SMC, so the no-SMC path is the real socket() call. The listener and the
connector themselves run here over plain TCP sockets (the SMC socket factory replaced by one that
makes TCP sockets; binding, connecting, the data and the timing are real): a port in use, a refused
connection retried until the timeout, a listener nobody connects to, and a full exchange (whose
SMC_DIAG read then finds no SMC socket). A real SMC connection runs in the real-kernel tier."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import os
import socket
import threading
import time

import pytest

from ansible_collections.s390x.network.plugins.module_utils.smc import live
from ansible_collections.s390x.network.plugins.modules import smc_check

ARGS = {"mode": "listen", "address": "127.0.0.1", "port": 31830}


def _kernel_has_smc():
    for family, proto in ((live.AF_SMC, 0), (socket.AF_INET, live.IPPROTO_SMC)):
        try:
            socket.socket(family, socket.SOCK_STREAM, proto).close()
            return True
        except OSError:
            pass
    return False


NO_SMC = not _kernel_has_smc()


def no_socket(family, protocol):
    raise AssertionError("an SMC socket was opened (family %s, %s)" % (family, protocol))


def tcp_socket(family, protocol):
    return socket.socket(family, socket.SOCK_STREAM), "tcp (test)"


def free_port():
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    return port


BAD = [
    ("a host name", {"address": "lpar-a.example.com"}, ["address: an IPv4 or IPv6 literal", "lpar-a.example.com"]),
    ("an octet above 255", {"address": "10.0.0.256"}, ["address:", "10.0.0.256"]),
    ("a leading zero", {"address": "010.1.1.1"}, ["address:"]),
    ("an IPv6 zone", {"address": "fe80::1%eth0"}, ["no zone"]),
    ("two double colons", {"address": "fd00::1::2"}, ["address:"]),
    ("a blank", {"address": "10.0.0.1 "}, ["address:"]),
    ("a privileged port", {"port": 80}, ["port: between 1024 and 65535, got 80"]),
    ("a port above 65535", {"port": 70000}, ["port: between 1024 and 65535, got 70000"]),
    ("no timeout", {"timeout": 0}, ["timeout: between 1 and 120 seconds, got 0"]),
    ("a long timeout", {"timeout": 121}, ["timeout: between 1 and 120 seconds, got 121"]),
    ("too few bytes", {"bytes": 1023}, ["bytes: between 1024 and 1048576", "got 1023"]),
    ("too many bytes", {"bytes": 1048577}, ["bytes: between 1024 and 1048576"]),
    ("no connections", {"connections": 0}, ["connections: between 1 and 64, got 0"]),
    ("65 connections", {"connections": 65}, ["connections: between 1 and 64, got 65"]),
    ("a mode", {"mode": "serve"}, ["value of mode must be one of: listen, connect, got: serve"]),
    ("a protocol", {"protocol": "tcp"}, ["value of protocol must be one of: auto, af_smc, ipproto_smc, got: tcp"]),
    ("a port that is no number", {"port": "ssh"}, ["port"]),
    ("an unknown option", {"host": "x"}, ["Unsupported parameters", "host"]),
]


@pytest.mark.parametrize("check_mode", [False, True])
@pytest.mark.parametrize("name,args,fragments", BAD, ids=[b[0] for b in BAD])
def test_bad_input_is_refused_before_a_socket_opens(monkeypatch, run_module, name, args, fragments, check_mode):
    monkeypatch.setattr(live, "smc_socket", no_socket)
    result = run_module(smc_check.main, dict(ARGS, **args), check_mode=check_mode).result
    assert result["failed"], result
    for fragment in fragments:
        assert fragment in result["msg"], (fragment, result["msg"])


def test_the_edges_of_the_ranges_are_taken(monkeypatch, run_module):
    monkeypatch.setattr(live, "smc_socket", no_socket)
    for args in (
        {"port": 1024, "timeout": 1, "bytes": 1024, "connections": 1},
        {"port": 65535, "timeout": 120, "bytes": 1048576, "connections": 64, "address": "fd00::2"},
        {"address": "0.0.0.0"},
        {"address": "::"},
    ):
        result = run_module(smc_check.main, dict(ARGS, **args), check_mode=True).result
        assert not result["failed"], result


@pytest.mark.parametrize("mode", ["listen", "connect"])
def test_check_mode_opens_no_connection(monkeypatch, run_module, mode):
    monkeypatch.setattr(live, "smc_socket", no_socket)
    result = run_module(smc_check.main, dict(ARGS, mode=mode, address="FD00::0002"), check_mode=True).result
    assert result["changed"] is False and not result["failed"]
    assert result["skipped_reason"] == result["msg"] == "check mode opens no connection"
    assert result["smc_available"] is None and result["address"] == "fd00::2"


@pytest.mark.skipif(not NO_SMC, reason="this kernel has SMC sockets")
@pytest.mark.parametrize("mode", ["listen", "connect"])
@pytest.mark.parametrize("protocol", ["auto", "af_smc", "ipproto_smc"])
def test_a_kernel_without_smc_is_reported_not_failed(run_module, mode, protocol):
    args = dict(ARGS, mode=mode, port=free_port(), protocol=protocol, timeout=1)
    started = time.monotonic()
    result = run_module(smc_check.main, args).result
    assert time.monotonic() - started < 1, "it waited for a connection"
    assert not result["failed"] and result["changed"] is False
    assert result["smc_available"] is False and result["msg"] == result["reason"]
    assert result["reason"].startswith("this kernel has no SMC sockets (")
    if protocol in ("auto", "af_smc"):
        assert "AF_SMC: " + os.strerror(errno.EAFNOSUPPORT) in result["reason"]
    if protocol in ("auto", "ipproto_smc"):
        assert "IPPROTO_SMC: " in result["reason"]
    missing = result["reason"].split("): ", 1)[1]
    assert any(text in missing for text in ("not loaded", "without CONFIG_SMC", "refused the socket")), missing


def test_a_port_in_use_is_refused_naming_it(monkeypatch, run_module):
    monkeypatch.setattr(live, "smc_socket", tcp_socket)
    holder = socket.socket()
    holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    holder.bind(("127.0.0.1", 0))
    holder.listen(1)
    port = holder.getsockname()[1]
    try:
        result = run_module(smc_check.main, dict(ARGS, port=port, timeout=2)).result
    finally:
        holder.close()
    assert result["failed"]
    assert "port %d on 127.0.0.1 is in use" % port in result["msg"] and "a port in use is refused" in result["msg"]


def test_an_address_of_another_host_is_refused(monkeypatch, run_module):
    monkeypatch.setattr(live, "smc_socket", tcp_socket)
    result = run_module(smc_check.main, dict(ARGS, address="192.0.2.77", port=free_port())).result
    assert result["failed"] and "192.0.2.77" in result["msg"] and "not on this host" in result["msg"]


def test_a_refused_connection_is_retried_until_the_timeout(monkeypatch, run_module):
    monkeypatch.setattr(live, "smc_socket", tcp_socket)
    port = free_port()
    started = time.monotonic()
    result = run_module(smc_check.main, dict(ARGS, mode="connect", port=port, timeout=1)).result
    took = time.monotonic() - started
    assert result["failed"] and "Connection refused" in result["msg"]
    attempts = int(result["msg"].rsplit("(", 1)[1].split()[0])
    # one attempt every RETRY_INTERVAL, none started later than the timeout allows
    assert 1 / live.RETRY_INTERVAL - 1 <= attempts <= 1 / live.RETRY_INTERVAL + 1, result["msg"]
    assert 1 - live.RETRY_INTERVAL <= took < 1.5, took


def test_a_listener_nobody_connects_to_gives_up_at_the_timeout(monkeypatch, run_module):
    monkeypatch.setattr(live, "smc_socket", tcp_socket)
    port = free_port()
    started = time.monotonic()
    result = run_module(smc_check.main, dict(ARGS, port=port, timeout=1, connections=2)).result
    assert 1 <= time.monotonic() - started < 1.5
    assert result["failed"] and result["msg"] == "timed out after 0 of 2 connections"
    assert result["accepted"] == 0 and result["timed_out"] and result["connections"] == []
    # nothing is left listening
    probe = socket.socket()
    try:
        assert probe.connect_ex(("127.0.0.1", port)) == errno.ECONNREFUSED
    finally:
        probe.close()


def test_a_full_exchange_with_a_listener_that_starts_late(monkeypatch, run_module):
    monkeypatch.setattr(live, "smc_socket", tcp_socket)
    port = free_port()
    served = {}

    def serve():
        time.sleep(0.6)  # the client's first attempts are refused
        served["result"] = live.listen("127.0.0.1", port, connections=1, size=40000, timeout=5, factory=tcp_socket)

    thread = threading.Thread(target=serve)
    thread.start()
    try:
        result = run_module(smc_check.main, dict(ARGS, mode="connect", port=port, bytes=40000, timeout=5)).result
    finally:
        thread.join()
    assert not result["failed"] and result["changed"] is False, result
    assert result["smc_available"] is True and result["protocol"] == "tcp (test)"
    assert result["attempts"] > 1 and result["data_ok"] and result["bytes_sent"] == result["bytes_received"] == 40000
    assert result["peer"] == {"address": "127.0.0.1", "port": port}
    # a TCP socket is not among the SMC sockets (or there is no SMC_DIAG handler at all)
    assert result["diag"] is None and result["diag_error"].startswith("SMC_DIAG")
    assert result["msg"] == "connected: no SMC_DIAG record"
    server = served["result"]
    assert server["accepted"] == 1 and not server["timed_out"]
    (conn,) = server["connections"]
    assert conn["peer"] == result["local"] and conn["bytes_received"] == conn["bytes_sent"] == 40000
    assert conn["error"] is None and conn["diag"] is None


def test_the_socket_kinds_asked_for(monkeypatch):
    calls = []

    def fake_socket(family=-1, kind=-1, proto=-1, fileno=None):
        calls.append((family, proto, fileno))
        raise OSError(errno.EAFNOSUPPORT if family == live.AF_SMC else errno.EPROTONOSUPPORT, "no")

    monkeypatch.setattr(live.socket, "socket", fake_socket)
    monkeypatch.setattr(live.kernel_support, "probe", lambda release: {"state": live.kernel_support.MODULE})
    with pytest.raises(live.NoSmc) as info:
        live.smc_socket(socket.AF_INET6, "auto")
    # IPPROTO_SMC on the IP family first, then AF_SMC with SMCPROTO_SMC6 for IPv6
    assert calls == [(socket.AF_INET6, live.IPPROTO_SMC, None), (live.AF_SMC, live.SMCPROTO_SMC6, None)]
    assert "installed but not loaded" in info.value.reason
    calls[:] = []
    with pytest.raises(live.NoSmc):
        live.smc_socket(socket.AF_INET, "af_smc")
    assert calls == [(live.AF_SMC, live.SMCPROTO_SMC, None)]


def test_the_reason_names_what_is_missing(host_root):
    release = "7.2.0-1-s390x"
    (host_root / "proc/sys/kernel").mkdir(parents=True)
    (host_root / "proc/sys/kernel/osrelease").write_text(release + "\n")
    tree = host_root / "lib/modules" / release
    tree.mkdir(parents=True)
    errors = ["AF_SMC: Address family not supported by protocol"]
    assert live.no_smc_reason(errors).endswith(": the smc kernel module is not loaded (/sys/module/smc is absent)")
    (tree / "modules.dep").write_text("kernel/net/ipv4/tcp_bbr.ko.xz:\n")
    (tree / "modules.builtin").write_text("kernel/net/ipv4/tcp_cubic.ko\n")
    assert live.no_smc_reason(errors).endswith(
        ": SMC not built into this kernel (%s): no net/smc/smc.ko in /lib/modules/%s/modules.dep or modules.builtin"
        % (release, release)
    )
    (tree / "modules.dep").write_text("kernel/net/smc/smc.ko.xz: kernel/drivers/infiniband/core/ib_core.ko.xz\n")
    assert "installed but not loaded (the smc role loads it: smc_load_module)" in live.no_smc_reason(errors)
    (host_root / "sys/module/smc").mkdir(parents=True)
    assert live.no_smc_reason(errors) == (
        "this kernel has no SMC sockets (AF_SMC: Address family not supported by protocol): smc is loaded "
        "(/sys/module/smc exists), yet the kernel refused the socket"
    )


class AbortingSocket(socket.socket):
    """A TCP socket whose first accept() fails as one whose connection ended in the backlog does."""

    aborted = 0

    def accept(self):
        if not AbortingSocket.aborted:
            AbortingSocket.aborted += 1
            raise OSError(errno.ECONNABORTED, os.strerror(errno.ECONNABORTED))
        return super(AbortingSocket, self).accept()


def test_a_connection_lost_before_accept_counts_with_its_error():
    port = free_port()
    served = {}

    def serve():
        served["result"] = live.listen(
            "127.0.0.1", port, connections=2, timeout=5, factory=lambda f, p: (AbortingSocket(f), "tcp (test)")
        )

    thread = threading.Thread(target=serve)
    thread.start()
    try:
        client = live.connect("127.0.0.1", port, timeout=5, factory=tcp_socket)
    finally:
        thread.join()
    assert client["data_ok"] and client["error"] is None
    first, second = served["result"]["connections"]
    assert first["error"] == "accept failed: [Errno %d] %s" % (errno.ECONNABORTED, os.strerror(errno.ECONNABORTED))
    assert second["error"] is None and second["peer"] == client["local"]
    assert served["result"]["accepted"] == 1 and not served["result"]["timed_out"]
