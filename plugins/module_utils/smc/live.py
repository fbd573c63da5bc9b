# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""One SMC connection between two hosts, opened to see what the kernels negotiate (smc_check).

``listen`` accepts connections on an address and port, receives a number of bytes on each, reads
the connection through SMC_DIAG while it is open (``diag.read_socket``), sends the bytes back and
waits for the peer to close; ``connect`` connects (retrying a refused connection until the timeout:
the listener may start a moment later), sends the bytes, receives them back, reads its own socket
and closes. Both are bounded by a deadline and close every socket they opened.

SMC sockets (``smc_socket``): ``IPPROTO_SMC`` (256) on an AF_INET/AF_INET6 socket where the kernel
has it (net/smc/smc_inet.c, Linux 6.11+), else ``AF_SMC`` (43) with protocol ``SMCPROTO_SMC`` (0,
IPv4) or ``SMCPROTO_SMC6`` (1, IPv6) (``smc_create`` in net/smc/af_smc.c), whose addresses are the
sockaddr_in/sockaddr_in6 of that family, as smc-tools' preload library hands them over. Python's
socket module does not know AF_SMC addresses, so the AF_SMC descriptor is wrapped in a socket object
of the IP family (``fileno=``). Where neither exists ``NoSmc`` says what is missing.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import ipaddress
import os
import re
import socket
import time

from ansible_collections.s390x.network.plugins.module_utils.smc import diag as smc_diag
from ansible_collections.s390x.network.plugins.module_utils.smc import kernel_support
from ansible_collections.s390x.network.plugins.module_utils.smc.netlink import NetlinkError

AF_SMC = 43
SMCPROTO_SMC = 0
SMCPROTO_SMC6 = 1
IPPROTO_SMC = 256
PROTOCOLS = ("auto", "af_smc", "ipproto_smc")
_LABELS = {"af_smc": "AF_SMC", "ipproto_smc": "IPPROTO_SMC"}
# socket() errors that mean "no such socket here", not a failure of this one
_NO_SMC = (errno.EAFNOSUPPORT, errno.EPROTONOSUPPORT, errno.ESOCKTNOSUPPORT, errno.EPFNOSUPPORT)
RETRY_INTERVAL = 0.25

PORT_MIN, PORT_MAX = 1024, 65535
TIMEOUT_MIN, TIMEOUT_MAX = 1, 120
BYTES_MIN, BYTES_MAX = 1024, 1024 * 1024
CONNECTIONS_MIN, CONNECTIONS_MAX = 1, 64

_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
_IPV4_RE = re.compile(r"%s(?:\.%s){3}" % (_OCTET, _OCTET))
# the characters of an IPv6 literal (no zone: SMC peers are not link-local); ipaddress checks the rest
_IPV6_RE = re.compile(r"[0-9A-Fa-f:.]{2,45}")


class NoSmc(Exception):
    """The kernel has no SMC sockets of the kind asked for; ``reason`` says what is missing."""

    def __init__(self, reason):
        super(NoSmc, self).__init__(reason)
        self.reason = reason


class LiveError(Exception):
    """The connection could not be made or served (a port in use, no listener until the timeout)."""


def parse_address(value):
    """``(text, family)`` of an IPv4 or IPv6 literal (fullmatch, then ``ipaddress``); ValueError otherwise."""
    text = str(value)
    if _IPV4_RE.fullmatch(text):
        return str(ipaddress.IPv4Address(text)), socket.AF_INET
    if _IPV6_RE.fullmatch(text) and ":" in text:
        try:
            return str(ipaddress.IPv6Address(text)), socket.AF_INET6
        except ValueError:
            pass
    raise ValueError(
        "address: an IPv4 or IPv6 literal such as 10.1.0.2 or fd00::2 (no name, no zone), got %r" % (text,)
    )


def check_range(name, value, low, high, unit=""):
    """``value`` within ``low``..``high``; ValueError naming the option otherwise."""
    if not low <= value <= high:
        raise ValueError("%s: between %d and %d%s, got %d" % (name, low, high, unit, value))
    return value


def no_smc_reason(errors):
    """The sentence of ``NoSmc``: the socket() errors, then what the host shows about SMC
    (``kernel_support.probe``: loaded, installed, or not built with the evidence)."""
    text = "this kernel has no SMC sockets (%s)" % "; ".join(errors)
    support = kernel_support.probe(kernel_support.kernel_release())
    if support["state"] in (kernel_support.LOADED, kernel_support.BUILTIN):
        return text + ": %s, yet the kernel refused the socket" % support["reason"]
    if support["state"] == kernel_support.MODULE:
        return text + ": the smc kernel module is installed but not loaded (the smc role loads it: smc_load_module)"
    if support["state"] == kernel_support.NOT_BUILT:
        return text + ": " + support["reason"]
    return text + ": the smc kernel module is not loaded (%s is absent)" % kernel_support.SYS_MODULE_SMC


def smc_socket(family, protocol="auto"):
    """``(socket, kind)``: an SMC stream socket of the IP ``family``; ``kind`` is ``ipproto_smc`` or
    ``af_smc``. NoSmc when the kernel has none; OSError for other socket() errors."""
    order = {"auto": ("ipproto_smc", "af_smc"), "af_smc": ("af_smc",), "ipproto_smc": ("ipproto_smc",)}[protocol]
    errors = []
    for kind in order:
        try:
            if kind == "ipproto_smc":
                return socket.socket(family, socket.SOCK_STREAM, IPPROTO_SMC), kind
            raw = socket.socket(
                AF_SMC, socket.SOCK_STREAM, SMCPROTO_SMC6 if family == socket.AF_INET6 else SMCPROTO_SMC
            )
        except OSError as exc:
            if exc.errno not in _NO_SMC:
                raise
            errors.append("%s: %s" % (_LABELS[kind], os.strerror(exc.errno)))
            continue
        return socket.socket(family, socket.SOCK_STREAM, 0, raw.detach()), kind
    raise NoSmc(no_smc_reason(errors))


def _endpoint(address):
    return {"address": address[0], "port": address[1]} if address else None


def _name(sock, peer=False):
    try:
        return _endpoint(sock.getpeername() if peer else sock.getsockname())
    except OSError:
        return None


def _remaining(deadline):
    return deadline - time.monotonic()


def payload(size):
    """The bytes sent: a fixed pattern, so that the echo can be compared."""
    block = bytes(bytearray(range(256)))
    return (block * (size // 256 + 1))[:size]


def recv_exactly(sock, size, deadline):
    """``size`` bytes, or fewer when the peer closes; socket.timeout at the deadline."""
    chunks, got = [], 0
    while got < size:
        left = _remaining(deadline)
        if left <= 0:
            raise socket.timeout("timed out")
        sock.settimeout(left)
        chunk = sock.recv(min(65536, size - got))
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def send_all(sock, data, deadline):
    left = _remaining(deadline)
    if left <= 0:
        raise socket.timeout("timed out")
    sock.settimeout(left)
    sock.sendall(data)


def read_diag(sock):
    """``(record, error)``: the SMC_DIAG record of an open socket, or why there is none."""
    try:
        return smc_diag.read_socket(sock), None
    except (NetlinkError, OSError) as exc:
        return None, str(exc)


def _sockaddr(address, port, family):
    return (address, port) if family == socket.AF_INET else (address, port, 0, 0)


def _wait_for_close(conn, deadline):
    """Read until the peer closes (it reads its socket through SMC_DIAG first) or the deadline."""
    while _remaining(deadline) > 0:
        conn.settimeout(_remaining(deadline))
        try:
            if not conn.recv(65536):
                return True
        except socket.timeout:
            return False
        except OSError:
            return False  # a reset after the exchange: the data and the record are in already
    return False


def serve(conn, size, deadline, reader):
    """One accepted connection: receive, read SMC_DIAG, send back, wait for the peer's close."""
    entry = {
        "local": _name(conn),
        "peer": _name(conn, peer=True),
        "bytes_received": 0,
        "bytes_sent": 0,
        "diag": None,
        "diag_error": None,
        "error": None,
    }
    try:
        data = recv_exactly(conn, size, deadline)
        entry["bytes_received"] = len(data)
        entry["diag"], entry["diag_error"] = reader(conn)
        if len(data) < size:
            entry["error"] = "the peer closed after %d of %d bytes" % (len(data), size)
            return entry
        send_all(conn, data, deadline)
        entry["bytes_sent"] = len(data)
        _wait_for_close(conn, deadline)
    except socket.timeout:
        entry["error"] = "timed out after %d of %d bytes received" % (entry["bytes_received"], size)
    except OSError as exc:
        entry["error"] = "connection failed: %s" % exc
    return entry


def _bind(sock, address, port, family):
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    except OSError:
        pass  # only for a port left in TIME_WAIT; bind tells the rest
    try:
        sock.bind(_sockaddr(address, port, family))
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise LiveError(
                "port %d on %s is in use by another socket; a port in use is refused: choose another port "
                "(verify_smc_live_port)" % (port, address)
            )
        if exc.errno == errno.EADDRNOTAVAIL:
            raise LiveError("cannot listen on %s port %d: the address is not on this host" % (address, port))
        raise LiveError("cannot listen on %s port %d: %s" % (address, port, exc))


def listen(address, port, connections=1, size=16384, timeout=30, protocol="auto", reader=None, factory=None):
    """Accept up to ``connections`` connections and serve each; returns a dict (see smc_check's RETURN).
    NoSmc when the kernel has no SMC sockets; LiveError when the port cannot be bound."""
    reader = reader or read_diag
    factory = factory or smc_socket
    address, family = parse_address(address)
    start = time.monotonic()
    deadline = start + timeout
    sock, kind = factory(family, protocol)
    served = []
    timed_out = False
    try:
        _bind(sock, address, port, family)
        sock.listen(connections)
        while len(served) < connections:
            left = _remaining(deadline)
            if left <= 0:
                timed_out = True
                break
            sock.settimeout(left)
            try:
                conn, dummy = sock.accept()
            except socket.timeout:
                timed_out = True
                break
            except OSError as exc:
                # a connection that ended before it was accepted counts as one, with its error
                served.append(
                    {
                        "local": None,
                        "peer": None,
                        "bytes_received": 0,
                        "bytes_sent": 0,
                        "diag": None,
                        "diag_error": None,
                        "error": "accept failed: %s" % exc,
                    }
                )
                continue
            try:
                served.append(serve(conn, size, deadline, reader))
            finally:
                conn.close()
    finally:
        sock.close()
    return {
        "protocol": kind,
        "address": address,
        "port": port,
        "expected": connections,
        "accepted": len([entry for entry in served if entry["local"] is not None]),
        "timed_out": timed_out,
        "connections": served,
        "elapsed": round(time.monotonic() - start, 3),
    }


def _open(address, port, family, protocol, deadline, factory):
    """A connected socket; refused connections are retried until the deadline."""
    attempts = 0
    while True:
        sock, kind = factory(family, protocol)
        attempts += 1
        try:
            left = _remaining(deadline)
            if left <= 0:
                raise socket.timeout("timed out")
            sock.settimeout(left)
            sock.connect(_sockaddr(address, port, family))
            return sock, kind, attempts
        except socket.timeout:
            sock.close()
            raise LiveError("no connection to %s port %d within the timeout (%d attempts)" % (address, port, attempts))
        except OSError as exc:
            sock.close()
            if exc.errno == errno.ECONNREFUSED and _remaining(deadline) > RETRY_INTERVAL:
                time.sleep(RETRY_INTERVAL)
                continue
            raise LiveError("connect to %s port %d: %s (%d attempts)" % (address, port, exc, attempts))


def connect(address, port, size=16384, timeout=30, protocol="auto", reader=None, factory=None):
    """Connect, send ``size`` bytes, receive them back, read SMC_DIAG, close; returns a dict (see
    smc_check's RETURN). NoSmc when the kernel has no SMC sockets; LiveError when no connection is made."""
    reader = reader or read_diag
    factory = factory or smc_socket
    address, family = parse_address(address)
    start = time.monotonic()
    deadline = start + timeout
    sock, kind, attempts = _open(address, port, family, protocol, deadline, factory)
    data = payload(size)
    result = {
        "protocol": kind,
        "address": address,
        "port": port,
        "attempts": attempts,
        "local": _name(sock),
        "peer": _name(sock, peer=True),
        "bytes_sent": 0,
        "bytes_received": 0,
        "data_ok": False,
        "diag": None,
        "diag_error": None,
        "error": None,
    }
    try:
        send_all(sock, data, deadline)
        result["bytes_sent"] = len(data)
        echo = recv_exactly(sock, size, deadline)
        result["bytes_received"] = len(echo)
        result["data_ok"] = echo == data
        result["diag"], result["diag_error"] = reader(sock)
        if len(echo) < size:
            result["error"] = "the listener closed after %d of %d bytes" % (len(echo), size)
    except socket.timeout:
        result["error"] = "timed out after %d bytes sent, %d received" % (
            result["bytes_sent"],
            result["bytes_received"],
        )
    except OSError as exc:
        result["error"] = "connection failed: %s" % exc
    finally:
        sock.close()
    result["elapsed"] = round(time.monotonic() - start, 3)
    return result
