# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""SMC through the kernel's generic netlink families, without smc-tools.

smc-tools (``smcd``, ``smcr``, ``smc_pnet``) are clients of two generic netlink families of the
``smc`` kernel module; this file talks to them directly. It has three layers:

* encoding and decoding (pure functions over bytes, no socket): netlink and generic netlink
  headers, attributes with nesting, the requests this collection sends and the replies it reads;
* ``NetlinkSocket``: the transport (a ``NETLINK_GENERIC`` socket; tests replace it by an object
  with the same ``send``/``recv``/``close``);
* ``GenericNetlink`` (family lookup, dumps, acknowledged requests, errors) and ``SmcNetlink`` (one
  method per SMC command, returning plain dicts).

Sources (kernel uapi header ``include/uapi/linux/smc.h`` and ``net/smc``):

* Families ``SMC_GEN_NETLINK`` (``SMC_GENL_FAMILY_NAME``, registered by ``smc_nl_init`` in
  smc_netlink.c; commands ``SMC_NETLINK_*``, top-level attributes ``SMC_GEN_*``, each a nest) and
  ``SMC_PNETID`` (``SMCR_GENL_FAMILY_NAME``, ``smc_pnet_init`` in smc_pnet.c; commands
  ``SMC_PNETID_GET/ADD/DEL/FLUSH``, attributes ``SMC_PNETID_NAME/ETHNAME/IBNAME/IBPORT`` at the top
  level, no nest). Both use version 1, no family header; every read command is a dump.
* Replies: ``smc_nl_get_sys_info``, ``smc_nl_fill_lgr``, ``smc_nl_fill_lgr_link``,
  ``smc_nl_fill_smcd_lgr`` and ``smc_nl_fill_lgr_v2_common`` (smc_core.c); ``smc_nl_handle_smcd_dev``
  (smc_ism.c: ``IS_CRIT`` is ``use_cnt > 0``; loopback-ism is not listed); ``smc_nl_handle_smcr_dev``
  and ``smc_nl_handle_dev_port`` (smc_ib.c: one ``SMC_NLA_DEV_PORT``/``PORT2`` nest per valid port,
  the net device as an ifindex); ``smc_nl_get_stats``, ``smc_nl_fill_stats_tech_data``,
  ``smc_nl_fill_stats_rmb_data``, ``smc_nl_fill_stats_bufsize_data`` and
  ``smc_nl_get_fback_details`` (smc_stats.c: one message per fallback reason and role, the two
  totals only in the first, the per-reason count a u16); ``smc_pnet_set_nla`` (smc_pnet.c: ``n/a``
  and port 255 for the half an entry does not use); ``smc_nl_ueid_dumpinfo``, ``smc_nl_dump_seid``
  (smc_clc.c: no attributes at all when the system has no ISMv2, so no SEID).
* 64-bit counters are put with ``nla_put_u64_64bit``, which on architectures without efficient
  unaligned access first puts a 4-byte pad attribute (``SMC_NLA_*_PAD``, type 0 in the stats nests)
  so that the value is 8-byte aligned; newer attributes (``*_RMB_USAGE``, ``*_ALLOC``) are
  ``nla_put_uint``: 4 or 8 bytes. ``SMC_NLA_LGR_D_CHID`` is declared u16 but put with
  ``nla_put_u32``. Integers are therefore read by their length, in host byte order.
* ``nla_nest_start`` sets ``NLA_F_NESTED`` on newer kernels; the type is read without the flag
  bits. ``SMC_NLA_LGR_V2_*`` starts at 0 (no UNSPEC). Attributes an older or newer kernel does not
  put are None; attributes this file does not know are skipped.
* Requests: ``smc_pnet_enter`` (ADD: ``NAME`` 1-16 alphanumerics, upper-cased by the kernel;
  ``ETHNAME`` or ``IBNAME`` + ``IBPORT`` 1-2; ``EEXIST`` for an interface or device already in the
  table or with a PNET ID from the hardware), ``smc_pnet_del`` (``NAME``, compared as sent:
  upper case), ``smc_pnet_flush``; ``smc_nl_add_ueid``/``smc_nl_remove_ueid`` (the entry must be
  exactly ``SMC_MAX_EID_LEN`` + 1 = 33 bytes: 32 characters padded with blanks and a NUL;
  ``smc_clc_ueid_valid``: first character A-Z or 0-9, then A-Z, 0-9, ``.``, ``-``, trailing blanks
  only; at most ``SMC_MAX_UEID`` = 4, else ``ERANGE``; ``EEXIST`` for a duplicate; removing the last
  UEID re-enables the system EID and is answered with ``EAGAIN``, which is a success),
  ``smc_nl_flush_ueid``, ``smc_nl_enable_seid``, ``smc_nl_disable_seid`` (``ENOENT`` while no UEID
  is defined). Changing commands need CAP_NET_ADMIN (``GENL_ADMIN_PERM``).
* Family lookup: ``CTRL_CMD_GETFAMILY`` of the controller ``nlctrl``. Asked by name, the
  controller loads a module that declares the family (``MODULE_ALIAS_GENL_FAMILY`` in af_smc.c and
  smc_diag.c) before answering ``ENOENT``; this file dumps the family list instead, so reading
  never loads ``smc`` as a side effect.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import os
import re
import socket
import struct
import sys

NETLINK_GENERIC = 16

NLMSG_NOOP = 1
NLMSG_ERROR = 2
NLMSG_DONE = 3
NLMSG_OVERRUN = 4

NLM_F_REQUEST = 0x01
NLM_F_MULTI = 0x02
NLM_F_ACK = 0x04
NLM_F_DUMP_INTR = 0x10
NLM_F_DUMP = 0x300

NLA_F_NESTED = 0x8000
NLA_F_NET_BYTEORDER = 0x4000
NLA_TYPE_MASK = 0x3FFF

NLMSG_HDRLEN = 16
GENL_HDRLEN = 4
NLA_HDRLEN = 4

GENL_ID_CTRL = 0x10
CTRL_CMD_NEWFAMILY = 1
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2
CTRL_ATTR_VERSION = 3

#: present while the smc module is loaded (or built in)
SYS_MODULE_SMC = "/sys/module/smc"

SMC_GENL_FAMILY_NAME = "SMC_GEN_NETLINK"
SMCR_GENL_FAMILY_NAME = "SMC_PNETID"
FAMILY_VERSION = 1

# SMC_GEN_NETLINK commands
SMC_NETLINK_GET_SYS_INFO = 1
SMC_NETLINK_GET_LGR_SMCR = 2
SMC_NETLINK_GET_LINK_SMCR = 3
SMC_NETLINK_GET_LGR_SMCD = 4
SMC_NETLINK_GET_DEV_SMCD = 5
SMC_NETLINK_GET_DEV_SMCR = 6
SMC_NETLINK_GET_STATS = 7
SMC_NETLINK_GET_FBACK_STATS = 8
SMC_NETLINK_DUMP_UEID = 9
SMC_NETLINK_ADD_UEID = 10
SMC_NETLINK_REMOVE_UEID = 11
SMC_NETLINK_FLUSH_UEID = 12
SMC_NETLINK_DUMP_SEID = 13
SMC_NETLINK_ENABLE_SEID = 14
SMC_NETLINK_DISABLE_SEID = 15

# SMC_PNETID commands and attributes
SMC_PNETID_GET = 1
SMC_PNETID_ADD = 2
SMC_PNETID_DEL = 3
SMC_PNETID_FLUSH = 4
SMC_PNETID_NAME = 1
SMC_PNETID_ETHNAME = 2
SMC_PNETID_IBNAME = 3
SMC_PNETID_IBPORT = 4

# SMC_NETLINK_UEID / SEID attributes
SMC_NLA_EID_TABLE_ENTRY = 1
SMC_NLA_SEID_ENTRY = 1
SMC_NLA_SEID_ENABLED = 2

COMMAND_NAMES = {
    SMC_GENL_FAMILY_NAME: {
        SMC_NETLINK_GET_SYS_INFO: "SMC_NETLINK_GET_SYS_INFO",
        SMC_NETLINK_GET_LGR_SMCR: "SMC_NETLINK_GET_LGR_SMCR",
        SMC_NETLINK_GET_LINK_SMCR: "SMC_NETLINK_GET_LINK_SMCR",
        SMC_NETLINK_GET_LGR_SMCD: "SMC_NETLINK_GET_LGR_SMCD",
        SMC_NETLINK_GET_DEV_SMCD: "SMC_NETLINK_GET_DEV_SMCD",
        SMC_NETLINK_GET_DEV_SMCR: "SMC_NETLINK_GET_DEV_SMCR",
        SMC_NETLINK_GET_STATS: "SMC_NETLINK_GET_STATS",
        SMC_NETLINK_GET_FBACK_STATS: "SMC_NETLINK_GET_FBACK_STATS",
        SMC_NETLINK_DUMP_UEID: "SMC_NETLINK_DUMP_UEID",
        SMC_NETLINK_ADD_UEID: "SMC_NETLINK_ADD_UEID",
        SMC_NETLINK_REMOVE_UEID: "SMC_NETLINK_REMOVE_UEID",
        SMC_NETLINK_FLUSH_UEID: "SMC_NETLINK_FLUSH_UEID",
        SMC_NETLINK_DUMP_SEID: "SMC_NETLINK_DUMP_SEID",
        SMC_NETLINK_ENABLE_SEID: "SMC_NETLINK_ENABLE_SEID",
        SMC_NETLINK_DISABLE_SEID: "SMC_NETLINK_DISABLE_SEID",
    },
    SMCR_GENL_FAMILY_NAME: {
        SMC_PNETID_GET: "SMC_PNETID_GET",
        SMC_PNETID_ADD: "SMC_PNETID_ADD",
        SMC_PNETID_DEL: "SMC_PNETID_DEL",
        SMC_PNETID_FLUSH: "SMC_PNETID_FLUSH",
    },
    "nlctrl": {CTRL_CMD_GETFAMILY: "CTRL_CMD_GETFAMILY"},
}

SMC_MAX_EID_LEN = 32
SMC_MAX_UEID = 4
SMC_MAX_PNETID_LEN = 16
PNET_PORT_NONE = 0xFF
NOT_APPLICABLE = "n/a"

# -- attribute schemas --------------------------------------------------------------------------
# A schema maps an attribute type to (name, kind, nested schema). Names are the uapi names in
# lower case without their SMC_NLA_<group>_ prefix. Integers are read by their length (1, 2, 4
# or 8 bytes); the kind says what the header declares.
U8, U16, U32, U64, UINT, STRING, NEST = "u8", "u16", "u32", "u64", "uint", "string", "nest"
_INTS = (U8, U16, U32, U64, UINT)


def _schema(*entries):
    result = {}
    for entry in entries:
        atype, name, kind = entry[0], entry[1], entry[2]
        result[atype] = (name, kind, entry[3] if len(entry) > 3 else None)
    return result


SYS_INFO = _schema(
    (1, "ver", U8),
    (2, "rel", U8),
    (3, "is_ism_v2", U8),
    (4, "local_host", STRING),
    (5, "seid", STRING),
    (6, "is_smcr_v2", U8),
)
LGR_V2_COMMON = _schema(
    (0, "ver", U8),
    (1, "rel", U8),
    (2, "os", U8),
    (3, "neg_eid", STRING),
    (4, "peer_host", STRING),
)
LGR_R_V2 = _schema((1, "direct", U8))
LGR_SMCR = _schema(
    (1, "id", U32),
    (2, "role", U8),
    (3, "type", U8),
    (4, "pnetid", STRING),
    (5, "vlan_id", U8),
    (6, "conns_num", U32),
    (7, "v2_common", NEST, LGR_V2_COMMON),
    (8, "v2", NEST, LGR_R_V2),
    (9, "net_cookie", U64),
    (11, "buf_type", U8),
    (12, "sndbuf_alloc", UINT),
    (13, "rmb_alloc", UINT),
)
LINK_SMCR = _schema(
    (1, "id", U8),
    (2, "ib_dev", STRING),
    (3, "ib_port", U8),
    (4, "gid", STRING),
    (5, "peer_gid", STRING),
    (6, "conn_cnt", U32),
    (7, "net_dev", U32),
    (8, "uid", U32),
    (9, "peer_uid", U32),
    (10, "state", U32),
)
LGR_SMCD = _schema(
    (1, "id", U32),
    (2, "gid", U64),
    (3, "peer_gid", U64),
    (4, "vlan_id", U8),
    (5, "conns_num", U32),
    (6, "pnetid", STRING),
    (7, "chid", U16),
    (9, "v2_common", NEST, LGR_V2_COMMON),
    (10, "ext_gid", U64),
    (11, "peer_ext_gid", U64),
    (12, "sndbuf_alloc", UINT),
    (13, "dmb_alloc", UINT),
)
DEV_PORT = _schema(
    (1, "pnet_usr", U8),
    (2, "pnetid", STRING),
    (3, "netdev", U32),
    (4, "state", U8),
    (5, "valid", U8),
    (6, "lnk_cnt", U32),
)
DEV = _schema(
    (1, "use_cnt", U32),
    (2, "is_crit", U8),
    (3, "pci_fid", U32),
    (4, "pci_chid", U16),
    (5, "pci_vendor", U16),
    (6, "pci_device", U16),
    (7, "pci_id", STRING),
    (8, "port", NEST, DEV_PORT),
    (9, "port2", NEST, DEV_PORT),
    (10, "ib_name", STRING),
)
BUCKETS = ("8k", "16k", "32k", "64k", "128k", "256k", "512k", "1024k", "g_1024k")
STATS_PLOAD = _schema(*[(index + 1, name, U64) for index, name in enumerate(BUCKETS)])
STATS_RMB = _schema(
    (1, "size_sm_peer_cnt", U64),
    (2, "size_sm_cnt", U64),
    (3, "full_peer_cnt", U64),
    (4, "full_cnt", U64),
    (5, "reuse_cnt", U64),
    (6, "alloc_cnt", U64),
    (7, "dgrade_cnt", U64),
)
STATS_TECH = _schema(
    (1, "tx_rmb_size", NEST, STATS_PLOAD),
    (2, "rx_rmb_size", NEST, STATS_PLOAD),
    (3, "txpload_size", NEST, STATS_PLOAD),
    (4, "rxpload_size", NEST, STATS_PLOAD),
    (5, "tx_rmb_stats", NEST, STATS_RMB),
    (6, "rx_rmb_stats", NEST, STATS_RMB),
    (7, "clnt_v1_succ", U64),
    (8, "clnt_v2_succ", U64),
    (9, "srv_v1_succ", U64),
    (10, "srv_v2_succ", U64),
    (11, "sendpage_cnt", U64),
    (12, "splice_cnt", U64),
    (13, "cork_cnt", U64),
    (14, "ndly_cnt", U64),
    (15, "urg_data_cnt", U64),
    (16, "rx_bytes", U64),
    (17, "tx_bytes", U64),
    (18, "rx_cnt", U64),
    (19, "tx_cnt", U64),
    (20, "rx_rmb_usage", UINT),
    (21, "tx_rmb_usage", UINT),
)
STATS = _schema(
    (1, "smcd_tech", NEST, STATS_TECH),
    (2, "smcr_tech", NEST, STATS_TECH),
    (3, "clnt_hs_err_cnt", U64),
    (4, "srv_hs_err_cnt", U64),
)
FBACK_STATS = _schema(
    (1, "type", U8),
    (2, "srv_cnt", U64),
    (3, "clnt_cnt", U64),
    (4, "rsn_code", U32),
    (5, "rsn_cnt", U16),
)
GEN = _schema(
    (1, "sys_info", NEST, SYS_INFO),
    (2, "lgr_smcr", NEST, LGR_SMCR),
    (3, "link_smcr", NEST, LINK_SMCR),
    (4, "lgr_smcd", NEST, LGR_SMCD),
    (5, "dev_smcd", NEST, DEV),
    (6, "dev_smcr", NEST, DEV),
    (7, "stats", NEST, STATS),
    (8, "fback_stats", NEST, FBACK_STATS),
)
UEID_TABLE = _schema((SMC_NLA_EID_TABLE_ENTRY, "entry", STRING))
SEID_TABLE = _schema((SMC_NLA_SEID_ENTRY, "entry", STRING), (SMC_NLA_SEID_ENABLED, "enabled", U8))
PNETID = _schema(
    (SMC_PNETID_NAME, "name", STRING),
    (SMC_PNETID_ETHNAME, "ethname", STRING),
    (SMC_PNETID_IBNAME, "ibname", STRING),
    (SMC_PNETID_IBPORT, "ibport", U8),
)
CTRL = _schema(
    (CTRL_ATTR_FAMILY_ID, "family_id", U16),
    (CTRL_ATTR_FAMILY_NAME, "family_name", STRING),
    (CTRL_ATTR_VERSION, "version", U32),
)


class NetlinkDecodeError(ValueError):
    """Bytes that are not the netlink the kernel sends (a length beyond the data)."""


class NetlinkError(OSError):
    """A failed request or an unusable socket; ``errno`` is the kernel's (positive) error."""

    def __init__(self, code, message):
        super(NetlinkError, self).__init__(code, message)
        self.message = message

    def __str__(self):
        return self.message


class FamilyNotFound(NetlinkError):
    """The generic netlink family is not registered: the smc module is not loaded."""


# the kernel's names where Python's table has an alias first
_ERRNO_NAMES = {errno.EOPNOTSUPP: "EOPNOTSUPP", errno.EAGAIN: "EAGAIN"}


def errno_text(code):
    """``File exists (EEXIST)`` for 17."""
    return "%s (%s)" % (os.strerror(code), _ERRNO_NAMES.get(code) or errno.errorcode.get(code, "errno %d" % code))


def _failure(what, code):
    text = "%s failed: %s" % (what, errno_text(code))
    if code == errno.EOPNOTSUPP:
        text += ": this kernel does not have the command (added in a later release)"
    elif code == errno.EPERM:
        text += ": changing SMC settings needs CAP_NET_ADMIN (become root)"
    return text


def _order(byteorder):
    if byteorder not in ("little", "big"):
        raise ValueError("byteorder: little or big, got %r" % (byteorder,))
    return "<" if byteorder == "little" else ">"


def align(length):
    return (length + 3) & ~3


# -- encoding -----------------------------------------------------------------------------------
def nla(atype, payload, byteorder, nested=False):
    """One attribute: header, payload, padding to 4 bytes."""
    header = struct.pack(_order(byteorder) + "HH", NLA_HDRLEN + len(payload), atype | (NLA_F_NESTED if nested else 0))
    return header + payload + b"\0" * (align(len(payload)) - len(payload))


def nla_u8(atype, value, byteorder):
    return nla(atype, struct.pack("B", value), byteorder)


def nla_u16(atype, value, byteorder):
    return nla(atype, struct.pack(_order(byteorder) + "H", value), byteorder)


def nla_u32(atype, value, byteorder):
    return nla(atype, struct.pack(_order(byteorder) + "I", value), byteorder)


def nla_u64(atype, value, byteorder):
    return nla(atype, struct.pack(_order(byteorder) + "Q", value), byteorder)


def nla_string(atype, text, byteorder):
    """A NUL-terminated string (``nla_put_string``). Interface names are bytes to the kernel: a
    UTF-8 name is sent as its UTF-8 bytes, and a name read with ``decode_string`` goes back as the
    bytes it came from."""
    return nla(atype, text.encode("utf-8", "surrogateescape") + b"\0", byteorder)


def nlmsg(msg_type, flags, seq, payload, byteorder, pid=0):
    header = struct.pack(_order(byteorder) + "IHHII", NLMSG_HDRLEN + len(payload), msg_type, flags, seq, pid)
    return header + payload + b"\0" * (align(len(payload)) - len(payload))


def genl_request(family_id, cmd, seq, byteorder, attrs=b"", dump=False, version=FAMILY_VERSION):
    """A generic netlink request: a dump (``NLM_F_DUMP``) or a command that is acknowledged."""
    flags = NLM_F_REQUEST | (NLM_F_DUMP if dump else NLM_F_ACK)
    return nlmsg(family_id, flags, seq, struct.pack("BBH", cmd, version, 0) + attrs, byteorder)


def family_dump_request(seq, byteorder):
    """``CTRL_CMD_GETFAMILY`` as a dump: every registered family, nothing loaded on demand."""
    return genl_request(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, seq, byteorder, dump=True)


def pnet_attrs(pnet_id, byteorder, interface=None, ib_device=None, port=None):
    """Attributes of ``SMC_PNETID_ADD`` (with ``interface`` or ``ib_device``) or ``_DEL`` (neither)."""
    attrs = nla_string(SMC_PNETID_NAME, pnet_id, byteorder)
    if interface is not None:
        attrs += nla_string(SMC_PNETID_ETHNAME, interface, byteorder)
    if ib_device is not None:
        attrs += nla_string(SMC_PNETID_IBNAME, ib_device, byteorder)
        attrs += nla_u8(SMC_PNETID_IBPORT, 1 if port is None else port, byteorder)
    return attrs


def ueid_attr(ueid, byteorder):
    """The ``SMC_NLA_EID_TABLE_ENTRY`` of ADD/REMOVE_UEID: 32 characters padded with blanks, NUL."""
    return nla(SMC_NLA_EID_TABLE_ENTRY, ueid_bytes(ueid) + b"\0", byteorder)


# -- decoding -----------------------------------------------------------------------------------
class Message(object):
    """One netlink message: header fields and payload (without padding)."""

    def __init__(self, msg_type, flags, seq, pid, payload):
        self.type = msg_type
        self.flags = flags
        self.seq = seq
        self.pid = pid
        self.payload = payload

    def __repr__(self):
        return "Message(type=%d, flags=%#x, seq=%d, %d bytes)" % (self.type, self.flags, self.seq, len(self.payload))


def split_messages(data, byteorder):
    """The messages of one datagram."""
    fmt = _order(byteorder) + "IHHII"
    messages = []
    offset = 0
    while len(data) - offset >= NLMSG_HDRLEN:
        length, msg_type, flags, seq, pid = struct.unpack_from(fmt, data, offset)
        if length < NLMSG_HDRLEN or offset + length > len(data):
            raise NetlinkDecodeError(
                "netlink message at offset %d: length %d beyond %d bytes" % (offset, length, len(data))
            )
        messages.append(Message(msg_type, flags, seq, pid, bytes(data[offset + NLMSG_HDRLEN : offset + length])))
        offset += align(length)
    return messages


def split_attrs(data, byteorder):
    """``(type, payload, nested_flag)`` of each attribute (type without the flag bits)."""
    fmt = _order(byteorder) + "HH"
    attrs = []
    offset = 0
    while len(data) - offset >= NLA_HDRLEN:
        length, atype = struct.unpack_from(fmt, data, offset)
        if length < NLA_HDRLEN or offset + length > len(data):
            raise NetlinkDecodeError("attribute at offset %d: length %d beyond %d bytes" % (offset, length, len(data)))
        attrs.append(
            (atype & NLA_TYPE_MASK, bytes(data[offset + NLA_HDRLEN : offset + length]), bool(atype & NLA_F_NESTED))
        )
        offset += align(length)
    return attrs


def decode_int(payload, byteorder):
    """An unsigned integer of 1, 2, 4 or 8 bytes; None for another length."""
    if len(payload) not in (1, 2, 4, 8):
        return None
    return int.from_bytes(payload, byteorder)


def decode_string(payload):
    """Up to the first NUL, as UTF-8 (what smc_pnet accepts for interface names); a byte that is
    not UTF-8 is kept as a surrogate escape, so that ``nla_string`` sends the same bytes back."""
    return payload.split(b"\0", 1)[0].decode("utf-8", "surrogateescape")


def decode_attrs(data, schema, byteorder):
    """Every attribute ``schema`` names (None when the kernel did not put it); others skipped."""
    result = dict((name, None) for name, dummy, dummy in schema.values())
    for atype, payload, dummy in split_attrs(data, byteorder):
        if atype not in schema:
            continue
        name, kind, nested = schema[atype]
        if kind in _INTS:
            result[name] = decode_int(payload, byteorder)
        elif kind == STRING:
            result[name] = decode_string(payload)
        else:
            result[name] = decode_attrs(payload, nested, byteorder)
    return result


def genl_split(message):
    """``(cmd, version, attribute bytes)`` of a generic netlink message."""
    if len(message.payload) < GENL_HDRLEN:
        raise NetlinkDecodeError("generic netlink message of %d bytes" % len(message.payload))
    cmd, version, dummy = struct.unpack_from("BBH", message.payload, 0)
    return cmd, version, message.payload[GENL_HDRLEN:]


def error_code(message, byteorder):
    """The (negative or zero) error of an NLMSG_ERROR or NLMSG_DONE message."""
    if len(message.payload) < 4:
        return 0
    return struct.unpack_from(_order(byteorder) + "i", message.payload, 0)[0]


def decode_families(messages, byteorder):
    """``{name: {"id", "version"}}`` from the replies of a GETFAMILY dump."""
    families = {}
    for message in messages:
        dummy, dummy, data = genl_split(message)
        attrs = decode_attrs(data, CTRL, byteorder)
        if attrs["family_name"] is not None and attrs["family_id"] is not None:
            families[attrs["family_name"]] = {"id": attrs["family_id"], "version": attrs["version"]}
    return families


# -- UEIDs --------------------------------------------------------------------------------------
_UEID_RE = re.compile(r"[A-Z0-9][A-Z0-9.-]{0,31}")


def normalize_ueid(value):
    """A user EID as the kernel accepts it, without the padding blanks; ValueError otherwise.

    ``smc_clc_ueid_valid``: at most 32 characters; the first A-Z or 0-9; then A-Z, 0-9, ``.`` or
    ``-``; blanks only as trailing padding (stripped here, added again when sent). Lower case is
    refused, as the kernel refuses it (it does not convert). Other trailing white space (a newline,
    a tab) is refused: it is no padding the kernel shows.
    """
    if not isinstance(value, str):
        raise ValueError("%r is not a string" % (value,))
    text = value.rstrip(" ")
    if not text:
        raise ValueError("%r is empty" % (value,))
    if len(text) > SMC_MAX_EID_LEN:
        raise ValueError("%r has %d characters; at most %d" % (value, len(text), SMC_MAX_EID_LEN))
    if not _UEID_RE.fullmatch(text):
        if text.upper() != text and _UEID_RE.fullmatch(text.upper()):
            raise ValueError("%r has lower case letters; the kernel takes upper case only (%s)" % (value, text.upper()))
        raise ValueError("%r: the first character must be A-Z or 0-9, the others A-Z, 0-9, '.' or '-'" % (value,))
    return text


def ueid_bytes(ueid):
    """The 32 bytes the kernel stores: the UEID padded with blanks."""
    return normalize_ueid(ueid).encode("ascii").ljust(SMC_MAX_EID_LEN, b" ")


def smc_module_present():
    """Whether the kernel has the smc module loaded or built in (``/sys/module/smc``)."""
    return os.path.isdir(SYS_MODULE_SMC)


# -- transport ----------------------------------------------------------------------------------
class NetlinkSocket(object):
    """A ``NETLINK_GENERIC`` socket: ``send`` a request, ``recv`` the next datagram, ``close``."""

    RECV_SIZE = 1 << 17

    def __init__(self, timeout=10.0):
        family = getattr(socket, "AF_NETLINK", None)
        if family is None:
            raise NetlinkError(errno.EAFNOSUPPORT, "this system has no netlink sockets (Linux only)")
        try:
            self.sock = socket.socket(family, socket.SOCK_RAW, NETLINK_GENERIC)
        except OSError as exc:
            raise NetlinkError(exc.errno or errno.EIO, "cannot open a generic netlink socket: %s" % exc)
        self.sock.settimeout(timeout)
        try:
            self.sock.bind((0, 0))
        except OSError as exc:
            self.sock.close()
            raise NetlinkError(exc.errno or errno.EIO, "cannot bind the generic netlink socket: %s" % exc)

    def send(self, data):
        self.sock.sendto(data, (0, 0))

    def recv(self):
        data, dummy, flags, dummy = self.sock.recvmsg(self.RECV_SIZE)
        if flags & socket.MSG_TRUNC:
            raise NetlinkError(errno.EMSGSIZE, "a netlink reply was larger than %d bytes" % self.RECV_SIZE)
        return data

    def close(self):
        self.sock.close()


# -- requests -----------------------------------------------------------------------------------
class GenericNetlink(object):
    """Family lookup, dumps and acknowledged requests over a transport."""

    def __init__(self, transport, byteorder=None):
        self.transport = transport
        self.byteorder = byteorder or sys.byteorder
        self.seq = 0
        self.families = None

    def close(self):
        self.transport.close()

    def _next_seq(self):
        self.seq += 1
        return self.seq

    def _exchange(self, data, seq, what):
        """Send ``data``; the data messages of the reply (up to NLMSG_DONE, or the ACK)."""
        try:
            self.transport.send(data)
            replies = []
            while True:
                chunk = self.transport.recv()
                if not chunk:
                    raise NetlinkError(errno.EIO, "%s: the kernel closed the netlink socket" % what)
                for message in split_messages(chunk, self.byteorder):
                    if message.seq != seq or message.type in (NLMSG_NOOP, NLMSG_OVERRUN):
                        continue
                    if message.type == NLMSG_ERROR:
                        code = -error_code(message, self.byteorder)
                        if code == 0:
                            return replies
                        raise NetlinkError(code, _failure(what, code))
                    if message.type == NLMSG_DONE:
                        code = -error_code(message, self.byteorder)
                        if code > 0:
                            raise NetlinkError(code, _failure(what, code))
                        return replies
                    if message.flags & NLM_F_DUMP_INTR:
                        raise NetlinkError(
                            errno.EINTR, "%s: the kernel's table changed during the dump; run again" % what
                        )
                    replies.append(message)
        except NetlinkDecodeError as exc:
            raise NetlinkError(errno.EPROTO, "%s: unexpected reply: %s" % (what, exc))
        except socket.timeout:
            raise NetlinkError(errno.ETIMEDOUT, "%s: no reply from the kernel" % what)
        except NetlinkError:
            raise
        except OSError as exc:
            raise NetlinkError(exc.errno or errno.EIO, "%s: %s" % (what, exc))

    def family(self, name):
        """``{"id", "version"}`` of a registered family; FamilyNotFound when it is not."""
        if self.families is None:
            seq = self._next_seq()
            replies = self._exchange(family_dump_request(seq, self.byteorder), seq, "nlctrl CTRL_CMD_GETFAMILY")
            self.families = decode_families(replies, self.byteorder)
        if name not in self.families:
            if SMCR_GENL_FAMILY_NAME in self.families:  # smc is loaded: an older kernel
                raise FamilyNotFound(
                    errno.ENOENT,
                    "generic netlink family %s not found: the smc kernel module is loaded, but this kernel "
                    "release does not have the family (SMC_GEN_NETLINK came with Linux 5.11)" % name,
                )
            if smc_module_present():
                # modprobe would change nothing: the SMC this kernel runs has no such family
                raise FamilyNotFound(
                    errno.ENOENT,
                    "generic netlink family %s not found: the smc kernel module is loaded (%s), but the "
                    "kernel's SMC lacks this generic netlink family (a kernel older than Linux 5.11, or SMC "
                    "built without it)" % (name, SYS_MODULE_SMC),
                )
            raise FamilyNotFound(
                errno.ENOENT,
                "generic netlink family %s not found: the smc kernel module is not loaded "
                "(modprobe smc) or this kernel has no SMC" % name,
            )
        return self.families[name]

    def command_name(self, family_name, cmd):
        return COMMAND_NAMES.get(family_name, {}).get(cmd, "%s command %d" % (family_name, cmd))

    def dump(self, family_name, cmd):
        """The attribute bytes of every message of a dump."""
        family = self.family(family_name)
        seq = self._next_seq()
        what = self.command_name(family_name, cmd)
        request = genl_request(family["id"], cmd, seq, self.byteorder, dump=True)
        return [genl_split(m)[2] for m in self._exchange(request, seq, what)]

    def do(self, family_name, cmd, attrs=b""):
        """Send a changing command and wait for its acknowledgement."""
        family = self.family(family_name)
        seq = self._next_seq()
        what = self.command_name(family_name, cmd)
        self._exchange(genl_request(family["id"], cmd, seq, self.byteorder, attrs=attrs), seq, what)


def interface_name(ifindex):
    """The name of a network interface by index (None for 0 or an index that is gone)."""
    if not ifindex:
        return None
    try:
        return socket.if_indextoname(ifindex)
    except (OSError, AttributeError):
        return None


class SmcNetlink(object):
    """The SMC commands. ``requests`` lists what was sent (command names and arguments)."""

    def __init__(self, transport=None, byteorder=None):
        self.genl = GenericNetlink(transport if transport is not None else NetlinkSocket(), byteorder)
        self.byteorder = self.genl.byteorder
        self.requests = []

    def close(self):
        self.genl.close()

    def _dump(self, family_name, cmd, schema, key=None):
        self.requests.append(self.genl.command_name(family_name, cmd))
        result = []
        for data in self.genl.dump(family_name, cmd):
            decoded = decode_attrs(data, schema, self.byteorder)
            if key is not None:
                decoded = decoded[key]
                if decoded is None:
                    continue
            result.append(decoded)
        return result

    def _do(self, family_name, cmd, attrs=b"", text=""):
        self.requests.append((self.genl.command_name(family_name, cmd) + " " + text).strip())
        self.genl.do(family_name, cmd, attrs)

    # SMC_GEN_NETLINK: reading
    def sys_info(self):
        infos = self._dump(SMC_GENL_FAMILY_NAME, SMC_NETLINK_GET_SYS_INFO, GEN, "sys_info")
        return infos[0] if infos else None

    def linkgroups_smcr(self):
        return self._dump(SMC_GENL_FAMILY_NAME, SMC_NETLINK_GET_LGR_SMCR, GEN, "lgr_smcr")

    def links_smcr(self):
        """The SMC-R links, each with the link group it belongs to (``lgr``)."""
        self.requests.append(self.genl.command_name(SMC_GENL_FAMILY_NAME, SMC_NETLINK_GET_LINK_SMCR))
        links = []
        group = None
        for data in self.genl.dump(SMC_GENL_FAMILY_NAME, SMC_NETLINK_GET_LINK_SMCR):
            decoded = decode_attrs(data, GEN, self.byteorder)
            if decoded["lgr_smcr"] is not None:
                group = decoded["lgr_smcr"]
            if decoded["link_smcr"] is not None:
                links.append(dict(decoded["link_smcr"], lgr=group))
        return links

    def linkgroups_smcd(self):
        return self._dump(SMC_GENL_FAMILY_NAME, SMC_NETLINK_GET_LGR_SMCD, GEN, "lgr_smcd")

    def devices_smcd(self):
        return self._dump(SMC_GENL_FAMILY_NAME, SMC_NETLINK_GET_DEV_SMCD, GEN, "dev_smcd")

    def devices_smcr(self):
        return self._dump(SMC_GENL_FAMILY_NAME, SMC_NETLINK_GET_DEV_SMCR, GEN, "dev_smcr")

    def stats(self):
        """The ``SMC_GEN_STATS`` nest (``smcd_tech``, ``smcr_tech``, handshake errors)."""
        stats = self._dump(SMC_GENL_FAMILY_NAME, SMC_NETLINK_GET_STATS, GEN, "stats")
        return stats[0] if stats else None

    def fallback_stats(self):
        """``{"server_total", "client_total", "server": {code: count}, "client": {...}}``.

        The totals are 0 when the dump is empty (no connection fell back)."""
        result = {"server_total": 0, "client_total": 0, "server": {}, "client": {}}
        for entry in self._dump(SMC_GENL_FAMILY_NAME, SMC_NETLINK_GET_FBACK_STATS, GEN, "fback_stats"):
            if entry["srv_cnt"] is not None:
                result["server_total"] = entry["srv_cnt"]
            if entry["clnt_cnt"] is not None:
                result["client_total"] = entry["clnt_cnt"]
            if entry["type"] is None or entry["rsn_code"] is None:
                continue
            role = result["server"] if entry["type"] else result["client"]
            role[entry["rsn_code"]] = role.get(entry["rsn_code"], 0) + (entry["rsn_cnt"] or 0)
        return result

    # UEIDs and the system EID
    def ueids(self):
        """The user EIDs, without their padding blanks, in the kernel's order."""
        return [
            e["entry"].rstrip(" ")
            for e in self._dump(SMC_GENL_FAMILY_NAME, SMC_NETLINK_DUMP_UEID, UEID_TABLE)
            if e["entry"] is not None
        ]

    def add_ueid(self, ueid):
        self._do(SMC_GENL_FAMILY_NAME, SMC_NETLINK_ADD_UEID, ueid_attr(ueid, self.byteorder), normalize_ueid(ueid))

    def remove_ueid(self, ueid):
        """Remove one UEID; True when it was the last one and the kernel enabled the system EID."""
        try:
            self._do(
                SMC_GENL_FAMILY_NAME, SMC_NETLINK_REMOVE_UEID, ueid_attr(ueid, self.byteorder), normalize_ueid(ueid)
            )
        except NetlinkError as exc:
            if exc.errno == errno.EAGAIN:
                return True
            raise
        return False

    def flush_ueids(self):
        self._do(SMC_GENL_FAMILY_NAME, SMC_NETLINK_FLUSH_UEID)

    def seid(self):
        """``{"seid", "enabled"}``: both None when the system has no system EID (no ISMv2)."""
        entries = self._dump(SMC_GENL_FAMILY_NAME, SMC_NETLINK_DUMP_SEID, SEID_TABLE)
        if not entries or entries[0]["entry"] is None:
            return {"seid": None, "enabled": None}
        enabled = entries[0]["enabled"]
        return {"seid": entries[0]["entry"].rstrip(" "), "enabled": None if enabled is None else bool(enabled)}

    def enable_seid(self):
        self._do(SMC_GENL_FAMILY_NAME, SMC_NETLINK_ENABLE_SEID)

    def disable_seid(self):
        self._do(SMC_GENL_FAMILY_NAME, SMC_NETLINK_DISABLE_SEID)

    # SMC_PNETID
    def pnet_table(self):
        """``{pnet_id, interface, ib_device, port}`` per entry (the ``smc_pnet_cmd`` form)."""
        entries = []
        for e in self._dump(SMCR_GENL_FAMILY_NAME, SMC_PNETID_GET, PNETID):
            if not e["name"]:
                continue
            pnet_id = e["name"].strip().upper()
            if e["ethname"] and e["ethname"] != NOT_APPLICABLE:
                entries.append({"pnet_id": pnet_id, "interface": e["ethname"], "ib_device": None, "port": None})
            elif e["ibname"] and e["ibname"] != NOT_APPLICABLE:
                entries.append({"pnet_id": pnet_id, "interface": None, "ib_device": e["ibname"], "port": e["ibport"]})
        return entries

    def pnet_add(self, pnet_id, interface=None, ib_device=None, port=None):
        if interface is not None:
            text = "%s ethname=%s" % (pnet_id, interface)
        else:
            text = "%s ibname=%s ibport=%d" % (pnet_id, ib_device, 1 if port is None else port)
        attrs = pnet_attrs(pnet_id, self.byteorder, interface=interface, ib_device=ib_device, port=port)
        self._do(SMCR_GENL_FAMILY_NAME, SMC_PNETID_ADD, attrs, text)

    def pnet_delete(self, pnet_id):
        self._do(SMCR_GENL_FAMILY_NAME, SMC_PNETID_DEL, pnet_attrs(pnet_id, self.byteorder), pnet_id)

    def pnet_flush(self):
        """Flush the table; an empty table is not an error (some kernels answer ENOENT)."""
        try:
            self._do(SMCR_GENL_FAMILY_NAME, SMC_PNETID_FLUSH)
        except FamilyNotFound:  # ENOENT too, but not an empty table
            raise
        except NetlinkError as exc:
            if exc.errno != errno.ENOENT:
                raise
