# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the kernel negotiated for one SMC socket, read through SMC_DIAG (``NETLINK_SOCK_DIAG``).

``read_socket(sock)`` (or ``SmcDiag().record_of_inode(inode)``) returns the record of a socket
that is open in this process, found in the kernel's dump by its inode; ``decode_messages`` and
``decode_record`` are the pure parsers the tests feed with bytes. A record is a dict:

* ``inode``, ``uid``, ``cookie`` (ints), ``family`` (``AF_INET``, ``AF_INET6``, ``AF_SMC`` or the
  number), ``state`` (the SMC socket state, such as ``ACTIVE``, or ``state N``), ``shutdown`` (int
  or None);
* ``local``, ``peer``: ``{"address", "port"}`` of the TCP (CLC) socket underneath;
* ``mode``: ``SMC-D``, ``SMC-R`` or ``TCP`` (the fallback), ``mode_code`` (the kernel's
  ``diag_mode``);
* ``fallback``: ``{"reason", "reason_name", "peer_diagnosis", "peer_diagnosis_name"}`` (codes as
  ``0x%08x``, names ``SMC_CLC_DECL_*`` or None) or None when the kernel does not put it (older kernels);
* ``sndbuf_size``, ``rmbe_size``, ``peer_rmbe_size``, ``token`` (SMC_DIAG_CONNINFO; None while the
  connection has no SMC buffers: a fallback). SMC-D RMB sizes are the DMB less its 32 byte CDC
  header (``smcd_new_buf_create``), so a 128 KiB DMB shows 131040;
* ``link_group``: the link group id as ``0x%08x`` (SMC-D: the DMB info's ``linkid``; SMC-R: from
  the link in ``SMC_GEN_NETLINK``, see ``add_link_group``), ``role`` (SMC-R: ``client``/``server``),
  ``link_id``, ``ib_device``, ``ib_port``, ``gid``, ``peer_gid`` (SMC-R GIDs as text; SMC-D GIDs as
  ``0x%016x``, with ``gid_ext``/``peer_gid_ext`` where the kernel puts them), ``token_dmb``,
  ``peer_token`` (SMC-D);
* ``version``: 1 or 2, or None when unknown, and ``version_source``: SMC_DIAG does not carry the
  version. ``add_link_group`` reads it from the socket's link group through ``SMC_GEN_NETLINK``
  (``SMC_NLA_LGR_V2_VER`` in the ``V2_COMMON`` nest, which ``smc_nl_fill_lgr`` and
  ``smc_nl_fill_smcd_lgr`` put only for link groups above version 1: a link group found without the
  nest is version 1).

Sources: include/uapi/linux/smc_diag.h (``smc_diag_req``, ``smc_diag_msg``, ``smc_diag_conninfo``,
``smc_diag_lgrinfo``, ``smc_diag_fallback``, ``smcd_diag_dmbinfo``), net/smc/smc_diag.c
(``__smc_diag_dump``: a dump of every SMC socket of the network namespace, no filter by address;
``FALLBACK`` and ``SHUTDOWN`` always, ``CONNINFO`` once the connection has an alert token, ``LGRINFO``
for SMC-R and ``DMBINFO`` for SMC-D when asked in ``diag_ext``). Structures are in host byte order
except ports and addresses (network order). The handler is the ``smc_diag`` module, which the kernel
loads on the first request when it can; without it the request is answered with ENOENT.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import os
import socket
import struct
import sys

from ansible_collections.s390x.network.plugins.module_utils.smc.clc import CODE_OF
from ansible_collections.s390x.network.plugins.module_utils.smc.netlink import (
    NLM_F_DUMP,
    NLM_F_DUMP_INTR,
    NLM_F_REQUEST,
    NLMSG_DONE,
    NLMSG_ERROR,
    NetlinkDecodeError,
    NetlinkError,
    SmcNetlink,
    error_code,
    errno_text,
    nlmsg,
    split_attrs,
    split_messages,
)

NETLINK_SOCK_DIAG = 4
SOCK_DIAG_BY_FAMILY = 20
AF_SMC = 43

# diag_mode (smc_diag_msg byte 2, "diag_fallback" in headers before 5.2)
SMC_DIAG_MODE_SMCR = 0
SMC_DIAG_MODE_FALLBACK_TCP = 1
SMC_DIAG_MODE_SMCD = 2
MODE_NAMES = {SMC_DIAG_MODE_SMCR: "SMC-R", SMC_DIAG_MODE_FALLBACK_TCP: "TCP", SMC_DIAG_MODE_SMCD: "SMC-D"}

# attributes (the extensions of diag_ext are bit (type - 1))
SMC_DIAG_CONNINFO = 1
SMC_DIAG_LGRINFO = 2
SMC_DIAG_SHUTDOWN = 3
SMC_DIAG_DMBINFO = 4
SMC_DIAG_FALLBACK = 5
DIAG_EXT = 0
for _ext in (SMC_DIAG_CONNINFO, SMC_DIAG_LGRINFO, SMC_DIAG_DMBINFO, SMC_DIAG_FALLBACK):
    DIAG_EXT |= 1 << (_ext - 1)

# enum smc_state (net/smc/smc.h)
STATE_NAMES = {
    1: "ACTIVE",
    2: "INIT",
    7: "CLOSED",
    10: "LISTEN",
    20: "PEERCLOSEWAIT1",
    21: "PEERCLOSEWAIT2",
    22: "APPCLOSEWAIT1",
    23: "APPCLOSEWAIT2",
    24: "APPFINCLOSEWAIT",
    25: "PEERFINCLOSEWAIT",
    26: "PEERABORTWAIT",
    27: "PROCESSABORT",
}

# struct sizes (bytes)
SOCKID_LEN = 48  # inet_diag_sockid: sport, dport, src[4], dst[4], if, cookie[2]
REQ_LEN = 4 + SOCKID_LEN
MSG_LEN = 4 + SOCKID_LEN + 4 + 8  # ... diag_uid, diag_inode (8-aligned at offset 56)
CONNINFO_LEN = 16  # token, sndbuf_size, rmbe_size, peer_rmbe_size (cursors follow; not read)
IB_DEVICE_NAME_MAX = 64
LINKINFO_LEN = 1 + IB_DEVICE_NAME_MAX + 1 + 40 + 40
LGRINFO_LEN = LINKINFO_LEN + 1
DMBINFO_LEN = 40  # linkid, 4 bytes padding, peer_gid, my_gid, token, peer_token
DMBINFO_EXT_LEN = 56  # + peer_gid_ext, my_gid_ext (6.9+)
FALLBACK_LEN = 8
SMC_ROLES = {0: "client", 1: "server"}

_NAME_OF_CODE = dict((code, name) for name, code in CODE_OF.items())


class DiagError(NetlinkError):
    """SMC_DIAG could not be read (no handler, a request the kernel refused, a reply out of form)."""


def _order(byteorder):
    return "<" if byteorder == "little" else ">"


def decline_text(code):
    """``(hex, name)`` of a decline code: ``("0x03030000", "SMC_CLC_DECL_NOSMCDEV")``; name None when unknown."""
    return "0x%08x" % code, _NAME_OF_CODE.get(code)


# -- encoding -----------------------------------------------------------------------------------
def diag_request(seq, byteorder, ext=DIAG_EXT):
    """A dump request for every SMC socket: ``smc_diag_req`` (family AF_SMC, ``diag_ext``, a zero id)."""
    payload = struct.pack("BBBB", AF_SMC, 0, 0, ext) + b"\0" * SOCKID_LEN
    return nlmsg(SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | NLM_F_DUMP, seq, payload, byteorder)


# -- decoding -----------------------------------------------------------------------------------
def _text(raw):
    return raw.split(b"\0", 1)[0].decode("latin-1")


def _addresses(family, src, dst):
    """The addresses of the id, or None where the kernel left them out. ``smc_diag_msg_common_fill``
    puts 4 bytes for an IPv4 socket and 16 for IPv6 only for the AF_SMC protocols (SMCPROTO_SMC,
    SMCPROTO_SMC6); an IPPROTO_SMC socket (family AF_INET or AF_INET6) gets zeros there on 6.12 (its
    ports are filled), so both-zero addresses are no address. For AF_SMC, 12 zero bytes after the
    first four of both addresses are read as IPv4."""
    if not (src + dst).strip(b"\0"):
        return None, None
    if family == socket.AF_INET or (family != socket.AF_INET6 and not (src[4:] + dst[4:]).strip(b"\0")):
        return socket.inet_ntop(socket.AF_INET, src[:4]), socket.inet_ntop(socket.AF_INET, dst[:4])
    return socket.inet_ntop(socket.AF_INET6, src), socket.inet_ntop(socket.AF_INET6, dst)


def _family_name(family):
    return {socket.AF_INET: "AF_INET", socket.AF_INET6: "AF_INET6", AF_SMC: "AF_SMC"}.get(family, family)


def _conninfo(payload, order, record):
    if len(payload) < CONNINFO_LEN:
        return
    token, sndbuf, rmbe, peer_rmbe = struct.unpack_from(order + "IIII", payload, 0)
    record.update(token=token, sndbuf_size=sndbuf, rmbe_size=rmbe, peer_rmbe_size=peer_rmbe)


def _lgrinfo(payload, record):
    if len(payload) < LGRINFO_LEN:
        return
    offset = 0
    link_id = bytearray(payload[offset : offset + 1])[0]
    offset += 1
    ib_device = _text(payload[offset : offset + IB_DEVICE_NAME_MAX])
    offset += IB_DEVICE_NAME_MAX
    ib_port = bytearray(payload[offset : offset + 1])[0]
    offset += 1
    gid = _text(payload[offset : offset + 40])
    peer_gid = _text(payload[offset + 40 : offset + 80])
    role = bytearray(payload[LINKINFO_LEN : LINKINFO_LEN + 1])[0]
    record.update(
        link_id=link_id,
        ib_device=ib_device,
        ib_port=ib_port,
        gid=gid,
        peer_gid=peer_gid,
        role=SMC_ROLES.get(role, "role %d" % role),
    )


def _dmbinfo(payload, order, record):
    if len(payload) < DMBINFO_LEN:
        return
    linkid = struct.unpack_from(order + "I", payload, 0)[0]
    peer_gid, my_gid, token, peer_token = struct.unpack_from(order + "QQQQ", payload, 8)
    record.update(
        link_group="0x%08x" % linkid,
        gid="0x%016x" % my_gid,
        peer_gid="0x%016x" % peer_gid,
        token_dmb="0x%016x" % token,
        peer_token="0x%016x" % peer_token,
    )
    if len(payload) >= DMBINFO_EXT_LEN:
        peer_ext, my_ext = struct.unpack_from(order + "QQ", payload, 40)
        record.update(gid_ext="0x%016x" % my_ext, peer_gid_ext="0x%016x" % peer_ext)


def _fallback(payload, order, record):
    if len(payload) < FALLBACK_LEN:
        return
    reason, diagnosis = struct.unpack_from(order + "II", payload, 0)
    reason_hex, reason_name = decline_text(reason)
    diagnosis_hex, diagnosis_name = decline_text(diagnosis)
    record["fallback"] = {
        "reason": reason_hex,
        "reason_name": reason_name,
        "peer_diagnosis": diagnosis_hex,
        "peer_diagnosis_name": diagnosis_name,
    }


def empty_record():
    return {
        "inode": None,
        "uid": None,
        "cookie": None,
        "family": None,
        "state": None,
        "shutdown": None,
        "local": None,
        "peer": None,
        "interface": None,
        "mode": None,
        "mode_code": None,
        "fallback": None,
        "token": None,
        "sndbuf_size": None,
        "rmbe_size": None,
        "peer_rmbe_size": None,
        "link_group": None,
        "role": None,
        "link_id": None,
        "ib_device": None,
        "ib_port": None,
        "gid": None,
        "peer_gid": None,
        "gid_ext": None,
        "peer_gid_ext": None,
        "token_dmb": None,
        "peer_token": None,
        "version": None,
        "version_source": None,
    }


def decode_record(payload, byteorder):
    """The record of one ``smc_diag_msg`` and its attributes (NetlinkDecodeError when too short)."""
    if len(payload) < MSG_LEN:
        raise NetlinkDecodeError("smc_diag_msg of %d bytes, expected at least %d" % (len(payload), MSG_LEN))
    order = _order(byteorder)
    # byte 3 (diag_shutdown) stays 0: the kernel reports the shutdown state in SMC_DIAG_SHUTDOWN
    family, state, mode = struct.unpack_from("BBB", payload, 0)
    sport, dport = struct.unpack_from(">HH", payload, 4)
    src, dst = payload[8:24], payload[24:40]
    ifindex, cookie_lo, cookie_hi, uid = struct.unpack_from(order + "IIII", payload, 40)
    inode = struct.unpack_from(order + "Q", payload, 56)[0]
    local, peer = _addresses(family, src, dst)
    record = empty_record()
    record.update(
        inode=inode,
        uid=uid,
        cookie=cookie_lo | (cookie_hi << 32),
        family=_family_name(family),
        state=STATE_NAMES.get(state, "state %d" % state),
        local={"address": local, "port": sport},
        peer={"address": peer, "port": dport},
        interface=ifindex,
        mode=MODE_NAMES.get(mode, "mode %d" % mode),
        mode_code=mode,
    )
    for atype, data, dummy in split_attrs(payload[MSG_LEN:], byteorder):
        if atype == SMC_DIAG_CONNINFO:
            _conninfo(data, order, record)
        elif atype == SMC_DIAG_LGRINFO:
            _lgrinfo(data, record)
        elif atype == SMC_DIAG_DMBINFO:
            _dmbinfo(data, order, record)
        elif atype == SMC_DIAG_FALLBACK:
            _fallback(data, order, record)
        elif atype == SMC_DIAG_SHUTDOWN and len(data) >= 1:
            record["shutdown"] = bytearray(data[:1])[0]
    return record


def decode_messages(chunks, seq, byteorder):
    """``(records, done)`` from the datagrams of a dump; DiagError for an error the kernel answered."""
    records = []
    for chunk in chunks:
        for message in split_messages(chunk, byteorder):
            if message.seq != seq:
                continue
            if message.type == NLMSG_ERROR:
                code = -error_code(message, byteorder)
                if code:
                    raise DiagError(code, _failure(code))
                return records, True
            if message.type == NLMSG_DONE:
                return records, True
            if message.flags & NLM_F_DUMP_INTR:
                raise DiagError(errno.EINTR, "SMC_DIAG: the socket table changed during the dump; run again")
            if message.type == SOCK_DIAG_BY_FAMILY:
                records.append(decode_record(message.payload, byteorder))
    return records, False


def _failure(code):
    text = "SMC_DIAG request failed: %s" % errno_text(code)
    if code == errno.ENOENT:
        text += (
            ": no SMC_DIAG handler (the smc_diag module is not loaded and could not be, or the kernel has "
            "no CONFIG_SMC_DIAG)"
        )
    return text


# -- transport ----------------------------------------------------------------------------------
class DiagSocket(object):
    """A ``NETLINK_SOCK_DIAG`` socket: ``send``, ``recv`` the next datagram, ``close``."""

    RECV_SIZE = 1 << 17

    def __init__(self, timeout=5.0):
        family = getattr(socket, "AF_NETLINK", None)
        if family is None:
            raise DiagError(errno.EAFNOSUPPORT, "this system has no netlink sockets (Linux only)")
        try:
            self.sock = socket.socket(family, socket.SOCK_RAW, NETLINK_SOCK_DIAG)
        except OSError as exc:
            raise DiagError(exc.errno or errno.EIO, "cannot open a NETLINK_SOCK_DIAG socket: %s" % exc)
        self.sock.settimeout(timeout)
        try:
            self.sock.bind((0, 0))
        except OSError as exc:
            self.sock.close()
            raise DiagError(exc.errno or errno.EIO, "cannot bind the NETLINK_SOCK_DIAG socket: %s" % exc)

    def send(self, data):
        self.sock.sendto(data, (0, 0))

    def recv(self):
        data, dummy, flags, dummy = self.sock.recvmsg(self.RECV_SIZE)
        if flags & socket.MSG_TRUNC:
            raise DiagError(errno.EMSGSIZE, "SMC_DIAG: a reply was larger than %d bytes" % self.RECV_SIZE)
        return data

    def close(self):
        self.sock.close()


class SmcDiag(object):
    """Dumps of the SMC sockets over a transport (a ``DiagSocket`` unless one is given)."""

    def __init__(self, transport=None, byteorder=None):
        self.transport = transport if transport is not None else DiagSocket()
        self.byteorder = byteorder or sys.byteorder
        self.seq = 0

    def close(self):
        self.transport.close()

    def dump(self):
        """Every SMC socket of the network namespace, as records."""
        self.seq += 1
        seq = self.seq
        try:
            self.transport.send(diag_request(seq, self.byteorder))
            records = []
            while True:
                chunk = self.transport.recv()
                if not chunk:
                    raise DiagError(errno.EIO, "SMC_DIAG: the kernel closed the netlink socket")
                found, done = decode_messages([chunk], seq, self.byteorder)
                records.extend(found)
                if done:
                    return records
        except NetlinkDecodeError as exc:
            raise DiagError(errno.EPROTO, "SMC_DIAG: unexpected reply: %s" % exc)
        except socket.timeout:
            raise DiagError(errno.ETIMEDOUT, "SMC_DIAG: no reply from the kernel")
        except NetlinkError:
            raise
        except OSError as exc:
            raise DiagError(exc.errno or errno.EIO, "SMC_DIAG: %s" % exc)

    def record_of_inode(self, inode):
        """The record of the socket with that inode; DiagError when the dump does not have it."""
        records = self.dump()
        for record in records:
            if record["inode"] == inode:
                return record
        raise DiagError(
            errno.ENOENT,
            "SMC_DIAG: socket inode %d is not among the %d SMC sockets of this network namespace "
            "(not an SMC socket)" % (inode, len(records)),
        )


# -- the version, from the link group -----------------------------------------------------------
def _version_of(group):
    common = group.get("v2_common") or None
    if common and common.get("ver") is not None:
        return common["ver"], "SMC_GEN_NETLINK link group %s: SMC_NLA_LGR_V2_VER" % group.get("id_text")
    return 1, "SMC_GEN_NETLINK link group %s: no V2_COMMON nest, which the kernel puts for v2 only" % group.get(
        "id_text"
    )


def add_link_group(record, smc_netlink):
    """Fill ``version``/``version_source`` (and, for SMC-R, ``link_group``) from the link group of the
    record, read with ``smc_netlink`` (an ``SmcNetlink``). A fallback has neither; errors are noted
    in ``version_source``, never raised."""
    if record.get("mode") not in ("SMC-D", "SMC-R"):
        record["version_source"] = "no link group: the connection is not SMC"
        return record
    try:
        if record["mode"] == "SMC-D":
            groups = smc_netlink.linkgroups_smcd()
            for group in groups:
                if group.get("id") is not None and "0x%08x" % group["id"] == record.get("link_group"):
                    group = dict(group, id_text=record["link_group"])
                    record["version"], record["version_source"] = _version_of(group)
                    return record
        else:
            for link in smc_netlink.links_smcr():
                if (
                    link.get("id") == record.get("link_id")
                    and link.get("ib_dev") == record.get("ib_device")
                    and link.get("ib_port") == record.get("ib_port")
                    and (link.get("gid") or "") == (record.get("gid") or "")
                    and (link.get("peer_gid") or "") == (record.get("peer_gid") or "")
                    and link.get("lgr")
                ):
                    group = link["lgr"]
                    if group.get("id") is not None:
                        record["link_group"] = "0x%08x" % group["id"]
                    group = dict(group, id_text=record.get("link_group"))
                    record["version"], record["version_source"] = _version_of(group)
                    return record
        record["version_source"] = "the socket's link group is not in the SMC_GEN_NETLINK dump"
    except NetlinkError as exc:
        record["version_source"] = "not read: %s" % exc
    return record


def read_socket(sock, diag=None, smc_netlink=None):
    """The record of ``sock`` (a socket of this process), with its version; DiagError when SMC_DIAG
    cannot be read or does not list it."""
    inode = os.fstat(sock.fileno()).st_ino
    own_diag = diag is None
    diag = diag if diag is not None else SmcDiag()
    try:
        record = diag.record_of_inode(inode)
    finally:
        if own_diag:
            diag.close()
    own_nl = smc_netlink is None
    try:
        if own_nl:
            smc_netlink = SmcNetlink()
    except NetlinkError as exc:
        record["version_source"] = "not read: %s" % exc
        return record
    try:
        return add_link_group(record, smc_netlink)
    finally:
        if own_nl:
            smc_netlink.close()
