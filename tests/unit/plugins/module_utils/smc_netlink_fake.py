# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A fake of the smc kernel module's generic netlink families, for the tests of smc_netlink and of
the modules that use it.

It is a transport (``send``/``recv``/``close``): it parses each request and queues the datagrams
the kernel would answer with. Its encoder is its own (``struct``, numbers typed in from
``include/uapi/linux/smc.h``), not smc_netlink's, and it puts attributes in the kernel's order and
widths: ``nla_put_u64_64bit`` with its pad attribute when the value would not be 8-byte aligned
(``pad64``; architectures with efficient unaligned access, s390x among them, put none),
``nla_put_uint`` as 4 or 8 bytes, ``SMC_NLA_LGR_D_CHID`` as u32, nests with ``NLA_F_NESTED``
(``nested_flag``), the fallback totals only in the first fallback message, ``n/a``/255 for the
unused half of a PNET entry. State follows the kernel's rules of smc_pnet.c and smc_clc.c.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import struct

# netlink
NLMSG_ERROR, NLMSG_DONE = 2, 3
F_REQUEST, F_MULTI, F_ACK, F_DUMP = 0x1, 0x2, 0x4, 0x300
NESTED = 0x8000
CTRL_ID = 0x10

# SMC_GEN_NETLINK commands
GET_SYS_INFO, GET_LGR_SMCR, GET_LINK_SMCR, GET_LGR_SMCD = 1, 2, 3, 4
GET_DEV_SMCD, GET_DEV_SMCR, GET_STATS, GET_FBACK_STATS = 5, 6, 7, 8
DUMP_UEID, ADD_UEID, REMOVE_UEID, FLUSH_UEID = 9, 10, 11, 12
DUMP_SEID, ENABLE_SEID, DISABLE_SEID = 13, 14, 15
# SMC_PNETID commands
PNET_GET, PNET_ADD, PNET_DEL, PNET_FLUSH = 1, 2, 3, 4

STATS_BUCKETS = ("8k", "16k", "32k", "64k", "128k", "256k", "512k", "1024k", "g_1024k")
RMB_COUNTERS = (
    "size_sm_peer_cnt",
    "size_sm_cnt",
    "full_peer_cnt",
    "full_cnt",
    "reuse_cnt",
    "alloc_cnt",
    "dgrade_cnt",
)


def align4(n):
    return (n + 3) // 4 * 4


class Writer(object):
    """Attributes into a buffer whose first byte sits at ``base`` in the datagram."""

    def __init__(self, order, base, pad64=True, nested_flag=True):
        self.o = order
        self.base = base
        self.pad64 = pad64
        self.nested_flag = nested_flag
        self.buf = bytearray()

    def put(self, atype, payload):
        self.buf += struct.pack(self.o + "HH", 4 + len(payload), atype) + payload
        self.buf += b"\0" * (align4(len(payload)) - len(payload))

    def u8(self, atype, value):
        self.put(atype, struct.pack("B", value))

    def u16(self, atype, value):
        self.put(atype, struct.pack(self.o + "H", value))

    def u32(self, atype, value):
        self.put(atype, struct.pack(self.o + "I", value))

    def u64(self, atype, value, pad_type):
        """nla_put_u64_64bit: a pad attribute first when the header would start 8-byte aligned."""
        if self.pad64 and (self.base + len(self.buf)) % 8 == 0:
            self.put(pad_type, b"")
        self.put(atype, struct.pack(self.o + "Q", value))

    def uint(self, atype, value):
        """nla_put_uint: u32 when it fits, else 8 bytes without padding."""
        if value < 1 << 32:
            self.u32(atype, value)
        else:
            self.put(atype, struct.pack(self.o + "Q", value))

    def string(self, atype, text):
        self.put(atype, text.encode("utf-8", "surrogateescape") + b"\0")  # names are bytes to the kernel

    def nest(self, atype, fill):
        """A nest whose content ``fill(writer)`` writes."""
        start = len(self.buf)
        self.buf += b"\0\0\0\0"
        fill(self)
        flag = NESTED if self.nested_flag else 0
        struct.pack_into(self.o + "HH", self.buf, start, len(self.buf) - start, atype | flag)


def stats_tech(**counters):
    """A technology's counters (header names), every one 0 unless given."""
    tech = {
        "tx_rmb_size": [0] * 9,
        "rx_rmb_size": [0] * 9,
        "txpload_size": [0] * 9,
        "rxpload_size": [0] * 9,
        "tx_rmb_stats": dict((k, 0) for k in RMB_COUNTERS),
        "rx_rmb_stats": dict((k, 0) for k in RMB_COUNTERS),
        "rx_rmb_usage": None,
        "tx_rmb_usage": None,
    }
    for name in (
        "clnt_v1_succ",
        "clnt_v2_succ",
        "srv_v1_succ",
        "srv_v2_succ",
        "sendpage_cnt",
        "splice_cnt",
        "cork_cnt",
        "ndly_cnt",
        "urg_data_cnt",
        "rx_bytes",
        "tx_bytes",
        "rx_cnt",
        "tx_cnt",
    ):
        tech[name] = 0
    tech.update(counters)
    return tech


def tech_from_json(counters):
    """A technology's counters from the ``smcd stats json`` names (the tool path's fixtures)."""
    get = counters.get

    def hist(prefix):
        names = ("8K", "16K", "32K", "64K", "128K", "256K", "512K", "1024K", "G_1024K")
        return [get("%s_%s" % (prefix, n), 0) for n in names]

    def rmb(direction):
        names = ("SIZE_SM_PEER_CNT", "SIZE_SM_CNT", "FULL_PEER_CNT", "FULL_CNT", "REUSE_CNT", "ALLOC_CNT", "DGRADE_CNT")
        return dict((k, get("SMC_INT_%s_BUF_%s" % (direction, n), 0)) for k, n in zip(RMB_COUNTERS, names))

    return stats_tech(
        tx_rmb_size=hist("SMC_INT_TX_BUF"),
        rx_rmb_size=hist("SMC_INT_RX_BUF"),
        txpload_size=hist("SMC_USR_TX_BUF"),
        rxpload_size=hist("SMC_USR_RX_BUF"),
        tx_rmb_stats=rmb("TX"),
        rx_rmb_stats=rmb("RX"),
        clnt_v1_succ=get("SMC_CLNT_V1_SUCC_CNT"),
        clnt_v2_succ=get("SMC_CLNT_V2_SUCC_CNT"),
        srv_v1_succ=get("SMC_SRV_V1_SUCC_CNT"),
        srv_v2_succ=get("SMC_SRV_V2_SUCC_CNT"),
        sendpage_cnt=get("SMC_SENDPAGE_CNT"),
        splice_cnt=get("SMC_SPLICE_CNT"),
        cork_cnt=get("SMC_CORK_CNT"),
        ndly_cnt=get("SMC_NDLY_CNT"),
        urg_data_cnt=get("SMC_URG_DATA_CNT"),
        rx_bytes=get("SMC_RX_BYTES"),
        tx_bytes=get("SMC_TX_BYTES"),
        rx_cnt=get("SMC_RX_CNT"),
        tx_cnt=get("SMC_TX_CNT"),
        rx_rmb_usage=get("SMC_RX_RMB_USAGE"),
        tx_rmb_usage=get("SMC_TX_RMB_USAGE"),
    )


class Request(object):
    def __init__(self, family, cmd, flags, seq, attrs, raw):
        self.family = family
        self.cmd = cmd
        self.flags = flags
        self.seq = seq
        self.attrs = attrs  # type -> payload
        self.raw = raw

    def __repr__(self):
        return "Request(%s, %d, %#x)" % (self.family, self.cmd, self.flags)


class FakeSmcKernel(object):
    """Transport answering like the smc module (see the module docstring). State is public."""

    PORTID = 4242

    def __init__(self, byteorder="little", loaded=True, pad64=True, nested_flag=True, per_datagram=2):
        self.o = "<" if byteorder == "little" else ">"
        self.families = {"nlctrl": CTRL_ID}
        if loaded:
            self.families.update({"SMC_PNETID": 0x1B, "SMC_GEN_NETLINK": 0x1C})
        self.pad64 = pad64
        self.nested_flag = nested_flag
        self.per_datagram = per_datagram
        self.requests = []
        self.queue = []
        self.closed = False
        self.admin = True
        self.errors = {}  # (family, cmd) -> errno answered instead
        self.done_errors = {}  # (family, cmd) -> errno carried by NLMSG_DONE of a dump
        self.flush_empty_enoent = False
        self.noise = False  # a stale message of another sequence number before each reply
        self.unknown_attrs = True  # attributes of later kernels the decoder does not know
        # kernel state
        self.pnet = []  # [name, ethname or None, ibname or None, port]
        self.hw_pnet_ib = set()  # IB/ISM device names with a PNET ID from the hardware
        self.ueids = []  # 32-byte blank-padded
        self.seid = "IBM-SYSZ-ISMSEID00000000C0DE8561"  # None: no ISMv2
        self.seid_enabled = 1
        self.sys = {"ver": 2, "rel": 1, "ism_v2": 1, "host": "lpar-a", "smcr_v2": 1}
        self.stats = {"smcd": stats_tech(), "smcr": stats_tech(), "clnt_hs_err": 0, "srv_hs_err": 0}
        self.fallback = {"srv_cnt": 0, "clnt_cnt": 0, "server": [], "client": []}  # [(code, count)]
        self.dev_smcd = []  # dicts: use_cnt, fid, chid, vendor, device, pci_id, pnet_usr, pnetid
        self.dev_smcr = []  # dicts: crit, fid, chid, vendor, device, pci_id, ib_name, ports {1: {...}}
        self.lgr_smcd = []  # dicts: id, gid, peer_gid, vlan, conns, chid, pnetid, v2 (dict), sndbuf, dmb
        self.lgr_smcr = []  # dicts: id, role, type, vlan, conns, pnetid, cookie, v2, direct, links, sndbuf, rmb

    # -- transport ---------------------------------------------------------------------------
    def send(self, data):
        length, ftype, flags, seq, dummy = struct.unpack_from(self.o + "IHHII", data, 0)
        assert length == len(data), "nlmsg_len %d of a %d-byte request" % (length, len(data))
        cmd, version, reserved = struct.unpack_from("BBH", data, 16)
        assert version == 1 and reserved == 0
        attrs = {}
        offset = 20
        while offset + 4 <= len(data):
            alen, atype = struct.unpack_from(self.o + "HH", data, offset)
            attrs[atype & 0x3FFF] = bytes(data[offset + 4 : offset + alen])
            offset += align4(alen)
        names = dict((v, k) for k, v in self.families.items())
        request = Request(names.get(ftype, ftype), cmd, flags, seq, attrs, bytes(data))
        self.requests.append(request)
        self.queue.extend(self._answer(request))

    def recv(self):
        assert self.queue, "recv() with no reply pending"
        return self.queue.pop(0)

    def close(self):
        self.closed = True

    # -- framing -----------------------------------------------------------------------------
    def _datagrams(self, request, bodies, cmd):
        """Datagrams of ``per_datagram`` messages, NLMSG_DONE last (a dump)."""
        out = []
        chunk = bytearray()
        count = 0
        for fill in bodies:
            chunk += self._message(request, fill, cmd, len(chunk))
            count += 1
            if count == self.per_datagram:
                out.append(bytes(chunk))
                chunk, count = bytearray(), 0
        code = self.done_errors.get((request.family, request.cmd), 0)
        chunk += struct.pack(self.o + "IHHIIi", 20, NLMSG_DONE, F_MULTI, request.seq, self.PORTID, -code)
        out.append(bytes(chunk))
        if self.noise:
            stale = struct.pack(self.o + "IHHIIi", 20, NLMSG_DONE, F_MULTI, request.seq + 1000, self.PORTID, 0)
            out[0] = stale + out[0]
        return out

    def _message(self, request, fill, cmd, base):
        writer = Writer(self.o, base + 20, self.pad64, self.nested_flag)
        fill(writer)
        ftype = self.families[request.family] if request.family != "nlctrl" else CTRL_ID
        header = struct.pack(self.o + "IHHII", 20 + len(writer.buf), ftype, F_MULTI, request.seq, self.PORTID)
        return header + struct.pack("BBH", cmd, 1, 0) + bytes(writer.buf)

    def _status(self, request, code):
        """NLMSG_ERROR: an error, or the ACK (code 0)."""
        body = struct.pack(self.o + "i", -code) + request.raw[:16]
        return [struct.pack(self.o + "IHHII", 16 + len(body), NLMSG_ERROR, 0, request.seq, self.PORTID) + body]

    # -- dispatch ----------------------------------------------------------------------------
    def _answer(self, request):
        if (request.family, request.cmd) in self.errors:
            return self._status(request, self.errors[(request.family, request.cmd)])
        if request.family == "nlctrl":
            return self._families(request)
        if request.family not in ("SMC_PNETID", "SMC_GEN_NETLINK"):
            return self._status(request, errno.ENOENT)
        dump = request.flags & F_DUMP == F_DUMP
        if dump:
            handler = getattr(self, "_dump_%s_%d" % (request.family.lower(), request.cmd), None)
            if handler is None:
                return self._status(request, errno.EOPNOTSUPP)
            return self._datagrams(request, handler(), request.cmd)
        handler = getattr(self, "_do_%s_%d" % (request.family.lower(), request.cmd), None)
        if handler is None:
            return self._status(request, errno.EOPNOTSUPP)
        if not self.admin:
            return self._status(request, errno.EPERM)
        return self._status(request, handler(request.attrs))

    def _families(self, request):
        def family(name, fid):
            def fill(w):
                w.u16(1, fid)
                w.string(2, name)
                w.u32(3, 1)
                w.u32(4, 0)  # CTRL_ATTR_HDRSIZE: not read
                w.nest(6, lambda o: o.nest(1, lambda op: (op.u32(1, 1), op.u32(2, 0x0E))))

            return fill

        assert request.flags & F_DUMP == F_DUMP, "family lookup by name loads modules on demand"
        return self._datagrams(request, [family(n, i) for n, i in sorted(self.families.items())], 1)

    # -- SMC_GEN_NETLINK dumps ---------------------------------------------------------------
    def _dump_smc_gen_netlink_1(self):
        s = self.sys

        def fill(w):
            def info(n):
                n.u8(1, s["ver"])
                n.u8(2, s["rel"])
                n.u8(3, s["ism_v2"])
                n.u8(6, s["smcr_v2"])
                n.string(4, s["host"].ljust(32))
                if self.seid is not None:
                    n.string(5, self.seid)
                if self.unknown_attrs:
                    n.u32(40, 7)

            w.nest(1, info)

        return [fill]

    def _v2_common(self, n, v2):
        n.u8(0, v2["ver"])
        n.u8(1, v2["rel"])
        n.u8(2, v2["os"])
        n.string(4, v2["host"].ljust(32))
        n.string(3, v2["eid"].ljust(32))

    def _dump_smc_gen_netlink_4(self):
        bodies = []
        for lgr in self.lgr_smcd:

            def fill(w, lgr=lgr):
                def body(n):
                    n.u32(1, lgr["id"])
                    n.u64(2, lgr.get("gid", 0x1111), 8)
                    n.u64(3, lgr.get("peer_gid", 0x2222), 8)
                    n.u8(4, lgr["vlan"])
                    n.u32(5, lgr["conns"])
                    n.u32(7, lgr.get("chid", 0x7C8))  # declared u16, put as u32
                    n.string(6, lgr["pnetid"].ljust(16))
                    if lgr.get("v2"):
                        n.nest(9, lambda v: self._v2_common(v, lgr["v2"]))
                    if lgr.get("sndbuf") is not None:
                        n.uint(12, lgr["sndbuf"])
                        n.uint(13, lgr["dmb"])

                w.nest(4, body)

            bodies.append(fill)
        return bodies

    def _lgr_smcr_body(self, lgr):
        def body(n):
            n.u32(1, lgr["id"])
            n.u32(6, lgr["conns"])
            n.u8(2, lgr["role"])
            n.u8(3, lgr["type"])
            n.u8(11, 0)
            n.u8(5, lgr["vlan"])
            n.u64(9, lgr.get("cookie", 1), 10)
            n.string(4, lgr["pnetid"].ljust(16))
            if lgr.get("v2"):
                n.nest(7, lambda v: self._v2_common(v, lgr["v2"]))
                n.nest(8, lambda v: v.u8(1, lgr.get("direct", 1)))
            if lgr.get("sndbuf") is not None:
                n.uint(12, lgr["sndbuf"])
                n.uint(13, lgr["rmb"])

        return body

    def _dump_smc_gen_netlink_2(self):
        return [lambda w, lgr=lgr: w.nest(2, self._lgr_smcr_body(lgr)) for lgr in self.lgr_smcr]

    def _dump_smc_gen_netlink_3(self):
        bodies = []
        for lgr in self.lgr_smcr:
            bodies.append(lambda w, lgr=lgr: w.nest(2, self._lgr_smcr_body(lgr)))
            for link in lgr.get("links", []):

                def fill(w, link=link):
                    def body(n):
                        n.u8(1, link["id"])
                        n.u32(10, link["state"])
                        n.u32(6, link["conns"])
                        n.u8(3, link["ib_port"])
                        n.u32(7, link["ifindex"])
                        n.string(2, link["ib_dev"])
                        n.u32(8, link["uid"])
                        n.u32(9, link["peer_uid"])
                        n.string(4, link["gid"])
                        n.string(5, link["peer_gid"])

                    w.nest(3, body)

                bodies.append(fill)
        return bodies

    def _pci(self, n, dev):
        n.u32(3, dev["fid"])
        n.u16(4, dev["chid"])
        n.u16(5, dev.get("vendor", 0x1014))
        n.u16(6, dev["device"])
        n.string(7, dev["pci_id"])

    def _dump_smc_gen_netlink_5(self):
        bodies = []
        for dev in self.dev_smcd:

            def fill(w, dev=dev):
                def body(n):
                    n.u32(1, dev["use_cnt"])
                    n.u8(2, 1 if dev["use_cnt"] > 0 else 0)
                    self._pci(n, dev)

                    def port(p):
                        p.u8(1, dev["pnet_usr"])
                        p.string(2, dev["pnetid"].ljust(16))

                    n.nest(8, port)

                w.nest(5, body)

            bodies.append(fill)
        return bodies

    def _dump_smc_gen_netlink_6(self):
        bodies = []
        for dev in self.dev_smcr:

            def fill(w, dev=dev):
                def body(n):
                    n.u8(2, dev["crit"])
                    self._pci(n, dev)
                    n.string(10, dev["ib_name"])
                    for number in sorted(dev["ports"]):
                        port = dev["ports"][number]

                        def fill_port(p, port=port):
                            p.u8(1, port["pnet_usr"])
                            p.string(2, port["pnetid"].ljust(16))
                            p.u32(3, port["ifindex"])
                            p.u8(5, 1)
                            p.u8(4, port["state"])
                            p.u32(6, port["links"])

                        n.nest(8 + number - 1, fill_port)

                w.nest(6, body)

            bodies.append(fill)
        return bodies

    def _tech(self, n, tech):
        def rmb(stats):
            def fill(r):
                r.u64(5, stats["reuse_cnt"], 0)
                r.u64(1, stats["size_sm_peer_cnt"], 0)
                r.u64(2, stats["size_sm_cnt"], 0)
                r.u64(3, stats["full_peer_cnt"], 0)
                r.u64(4, stats["full_cnt"], 0)
                r.u64(6, stats["alloc_cnt"], 0)
                r.u64(7, stats["dgrade_cnt"], 0)

            return fill

        def sizes(values):
            def fill(h):
                for index, value in enumerate(values):
                    h.u64(index + 1, value, 0)

            return fill

        n.nest(5, rmb(tech["tx_rmb_stats"]))
        n.nest(6, rmb(tech["rx_rmb_stats"]))
        n.nest(3, sizes(tech["txpload_size"]))
        n.nest(4, sizes(tech["rxpload_size"]))
        n.nest(1, sizes(tech["tx_rmb_size"]))
        n.nest(2, sizes(tech["rx_rmb_size"]))
        for atype, name in ((7, "clnt_v1_succ"), (8, "clnt_v2_succ"), (9, "srv_v1_succ"), (10, "srv_v2_succ")):
            n.u64(atype, tech[name], 0)
        n.u64(16, tech["rx_bytes"], 0)
        n.u64(17, tech["tx_bytes"], 0)
        if tech["rx_rmb_usage"] is not None:
            n.uint(20, tech["rx_rmb_usage"])
            n.uint(21, tech["tx_rmb_usage"])
        n.u64(18, tech["rx_cnt"], 0)
        n.u64(19, tech["tx_cnt"], 0)
        for atype, name in ((11, "sendpage_cnt"), (13, "cork_cnt"), (14, "ndly_cnt"), (12, "splice_cnt")):
            n.u64(atype, tech[name], 0)
        n.u64(15, tech["urg_data_cnt"], 0)
        if self.unknown_attrs:
            n.u64(30, 99, 0)

    def _dump_smc_gen_netlink_7(self):
        def fill(w):
            def body(n):
                n.nest(1, lambda t: self._tech(t, self.stats["smcd"]))
                n.nest(2, lambda t: self._tech(t, self.stats["smcr"]))
                n.u64(3, self.stats["clnt_hs_err"], 0)
                n.u64(4, self.stats["srv_hs_err"], 0)

            w.nest(7, body)

        return [fill]

    def _dump_smc_gen_netlink_8(self):
        bodies = []
        first = [True]
        server, client = self.fallback["server"], self.fallback["client"]
        for k in range(max(len(server), len(client))):
            for is_srv, reasons in ((1, server), (0, client)):
                if k >= len(reasons):
                    continue
                code, count = reasons[k]
                counts = first[0]
                first[0] = False

                def fill(w, is_srv=is_srv, code=code, count=count, counts=counts):
                    def body(n):
                        n.u8(1, is_srv)
                        if counts:
                            n.u64(2, self.fallback["srv_cnt"], 0)
                            n.u64(3, self.fallback["clnt_cnt"], 0)
                        n.u32(4, code)
                        n.u16(5, count & 0xFFFF)

                    w.nest(8, body)

                bodies.append(fill)
        return bodies

    def _dump_smc_gen_netlink_9(self):
        return [lambda w, e=e: w.put(1, e + b"\0") for e in self.ueids]

    def _dump_smc_gen_netlink_13(self):
        def fill(w):
            if self.seid is None:
                return  # smc_nl_dump_seid: no ISMv2, a message without attributes
            w.string(1, self.seid)
            w.u8(2, self.seid_enabled)

        return [fill]

    # -- SMC_GEN_NETLINK changes (smc_clc.c) -------------------------------------------------
    @staticmethod
    def _ueid_valid(raw):
        text = raw.rstrip(b" \t\n\r\v\f")
        if not text or not (text[:1].isdigit() or text[:1].isupper()):
            return False
        return all(c in b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-" for c in text)

    def _do_smc_gen_netlink_10(self, attrs):
        raw = attrs.get(1)
        if raw is None or len(raw) != 33:
            return errno.EINVAL
        eid = raw[:32]
        if not self._ueid_valid(eid):
            return errno.EINVAL
        if len(self.ueids) >= 4:
            return errno.ERANGE
        if eid in self.ueids:
            return errno.EEXIST
        self.ueids.append(eid)
        return 0

    def _do_smc_gen_netlink_11(self, attrs):
        raw = attrs.get(1)
        if raw is None or len(raw) != 33:
            return errno.EINVAL
        if raw[:32] not in self.ueids:
            return errno.ENOENT
        self.ueids.remove(raw[:32])
        if not self.ueids:
            self.seid_enabled = 1
            return errno.EAGAIN
        return 0

    def _do_smc_gen_netlink_12(self, attrs):
        if self.ueids:
            self.seid_enabled = 1
        self.ueids = []
        return 0

    def _do_smc_gen_netlink_14(self, attrs):
        self.seid_enabled = 1
        return 0

    def _do_smc_gen_netlink_15(self, attrs):
        if not self.ueids:
            return errno.ENOENT
        self.seid_enabled = 0
        return 0

    # -- SMC_PNETID (smc_pnet.c) -------------------------------------------------------------
    def _dump_smc_pnetid_1(self):
        bodies = []
        for name, eth, ib, port in self.pnet:

            def fill(w, name=name, eth=eth, ib=ib, port=port):
                w.string(1, name)
                w.string(2, eth if eth is not None else "n/a")
                w.string(3, ib if ib is not None else "n/a")
                w.u8(4, port if ib is not None else 0xFF)

            bodies.append(fill)
        return bodies

    @staticmethod
    def _string(raw):
        return raw.split(b"\0", 1)[0].decode("utf-8", "surrogateescape") if raw is not None else None

    def _do_smc_pnetid_2(self, attrs):
        name = (self._string(attrs.get(1)) or "").strip()
        if not name or len(name) > 16 or not name.isalnum():
            return errno.EINVAL
        name = name.upper()
        eth, ib = self._string(attrs.get(2)), self._string(attrs.get(3))
        added = False
        if eth is not None:
            if any(e[1] == eth for e in self.pnet):
                return errno.EEXIST
            self.pnet.append([name, eth, None, 255])
            added = True
        if ib is not None:
            port = struct.unpack("B", attrs[4][:1])[0] if 4 in attrs else 1
            if port not in (1, 2):
                return errno.EINVAL
            if ib in self.hw_pnet_ib or any(e[2] == ib for e in self.pnet):
                return errno.EEXIST
            self.pnet.append([name, None, ib, port])
            added = True
        return 0 if added else errno.EEXIST

    def _do_smc_pnetid_3(self, attrs):
        name = self._string(attrs.get(1))
        if name is None:
            return errno.EINVAL
        kept = [e for e in self.pnet if e[0] != name]  # compared as sent: no upper-casing
        if len(kept) == len(self.pnet):
            return errno.ENOENT
        self.pnet = kept
        return 0

    def _do_smc_pnetid_4(self, attrs):
        if not self.pnet and self.flush_empty_enoent:
            return errno.ENOENT
        self.pnet = []
        return 0

    # -- helpers for tests -------------------------------------------------------------------
    def sent(self, family=None):
        """``(family, cmd)`` of each request, optionally of one family only."""
        return [(r.family, r.cmd) for r in self.requests if family is None or r.family == family]

    def changes(self):
        """Requests that are not dumps."""
        return [r for r in self.requests if r.flags & F_DUMP != F_DUMP]
