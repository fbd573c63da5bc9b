# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The SMC_DIAG reader (module_utils/smc/diag.py) on bytes built here field by field from the uapi
structs of include/uapi/linux/smc_diag.h, in both byte orders (s390x is big-endian).

A round trip with a real SMC socket through the kernel's netlink is impossible on this test host (its
kernel has no SMC); the real-kernel tier runs smc_check there. What runs here against the real kernel is
the request itself: without an SMC_DIAG handler the kernel answers ENOENT."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import socket
import struct

import pytest

from ansible_collections.s390x.network.plugins.module_utils.smc import diag
from ansible_collections.s390x.network.plugins.module_utils.smc.netlink import (
    NLM_F_MULTI,
    NLMSG_DONE,
    NLMSG_ERROR,
    NetlinkDecodeError,
    NetlinkError,
    nla,
    nlmsg,
)

ORDERS = ["big", "little"]


def _o(byteorder):
    return ">" if byteorder == "big" else "<"


def sockid(sport, dport, src, dst, family=socket.AF_INET, ifindex=0, cookie=0):
    """``inet_diag_sockid``: ports and addresses in network order, the rest in host order."""
    src_bytes, dst_bytes = (socket.inet_pton(family, a).ljust(16, b"\0") for a in (src, dst))
    return struct.pack(">HH", sport, dport) + src_bytes + dst_bytes, (ifindex, cookie & 0xFFFFFFFF, cookie >> 32)


def diag_msg(byteorder, mode, inode, family=socket.AF_INET, state=1, uid=0, attrs=b"", **ids):
    """``smc_diag_msg`` (64 bytes) followed by its attributes."""
    o = _o(byteorder)
    ports_addrs, (ifindex, c_lo, c_hi) = sockid(
        ids.get("sport", 50000),
        ids.get("dport", 31830),
        ids.get("src", "10.1.0.1"),
        ids.get("dst", "10.1.0.2"),
        family=socket.AF_INET6 if family == socket.AF_INET6 else socket.AF_INET,
        ifindex=ids.get("ifindex", 0),
        cookie=ids.get("cookie", 0),
    )
    head = struct.pack("BBBB", family, state, mode, 0) + ports_addrs + struct.pack(o + "IIII", ifindex, c_lo, c_hi, uid)
    head += struct.pack(o + "Q", inode)
    assert len(head) == diag.MSG_LEN == 64
    return head + attrs


def conninfo(byteorder, token=7, sndbuf=131072, rmbe=131040, peer_rmbe=131040):
    """``smc_diag_conninfo``: four u32, four cursors, four flag bytes, three cursors (76 bytes)."""
    o = _o(byteorder)
    cursor = struct.pack(o + "HHI", 0, 1, 4096)
    data = struct.pack(o + "IIII", token, sndbuf, rmbe, peer_rmbe) + cursor * 4 + b"\x01\x02\x03\x04" + cursor * 3
    assert len(data) == 76
    return nla(diag.SMC_DIAG_CONNINFO, data, byteorder)


def dmbinfo(byteorder, linkid=0xF01, peer_gid=0x5678, my_gid=0x1234, ext=(0xAA, 0xBB)):
    """``smcd_diag_dmbinfo``: u32 linkid, 4 bytes of padding, then aligned u64s (40 bytes, 56 with the
    extended GIDs of 6.9+)."""
    o = _o(byteorder)
    data = struct.pack(o + "I", linkid) + b"\0" * 4 + struct.pack(o + "QQQQ", peer_gid, my_gid, 0x1000, 0x2000)
    if ext:
        data += struct.pack(o + "QQ", ext[0], ext[1])
    return nla(diag.SMC_DIAG_DMBINFO, data, byteorder)


def lgrinfo(
    byteorder="big",
    link_id=1,
    ib="mlx5_0",
    port=1,
    gid="fe80:0000:0000:0000:0000:0000:0000:0001",
    peer="fe80::2",
    role=1,
):
    """``smc_diag_lgrinfo``: one ``smc_diag_linkinfo`` (u8, char[64], u8, char[40], char[40]) and the role."""
    data = struct.pack("B", link_id) + ib.encode().ljust(64, b"\0") + struct.pack("B", port)
    data += gid.encode().ljust(40, b"\0") + peer.encode().ljust(40, b"\0") + struct.pack("B", role)
    assert len(data) == diag.LGRINFO_LEN == 147
    return nla(diag.SMC_DIAG_LGRINFO, data, byteorder)


def fallback(byteorder, reason=0, peer=0):
    return nla(diag.SMC_DIAG_FALLBACK, struct.pack(_o(byteorder) + "II", reason, peer), byteorder)


def shutdown(byteorder, value=0):
    return nla(diag.SMC_DIAG_SHUTDOWN, b"%c" % value, byteorder)


def message(payload, byteorder, seq=1, msg_type=diag.SOCK_DIAG_BY_FAMILY):
    return nlmsg(msg_type, NLM_F_MULTI, seq, payload, byteorder)


def done(byteorder, seq=1):
    return nlmsg(NLMSG_DONE, NLM_F_MULTI, seq, struct.pack(_o(byteorder) + "i", 0), byteorder)


def error(byteorder, code, seq=1):
    return nlmsg(NLMSG_ERROR, 0, seq, struct.pack(_o(byteorder) + "i", -code) + b"\0" * 16, byteorder)


@pytest.mark.parametrize("byteorder", ORDERS)
def test_an_smcd_connection(byteorder):
    attrs = shutdown(byteorder) + fallback(byteorder) + conninfo(byteorder) + dmbinfo(byteorder)
    payload = diag_msg(byteorder, diag.SMC_DIAG_MODE_SMCD, 4242, uid=1000, cookie=(5 << 32) | 9, attrs=attrs)
    record = diag.decode_record(payload, byteorder)
    assert record["mode"] == "SMC-D" and record["mode_code"] == 2
    assert record["inode"] == 4242 and record["uid"] == 1000 and record["cookie"] == (5 << 32) | 9
    assert record["family"] == "AF_INET" and record["state"] == "ACTIVE" and record["shutdown"] == 0
    assert record["local"] == {"address": "10.1.0.1", "port": 50000}
    assert record["peer"] == {"address": "10.1.0.2", "port": 31830}
    assert (record["sndbuf_size"], record["rmbe_size"], record["peer_rmbe_size"], record["token"]) == (
        131072,
        131040,
        131040,
        7,
    )
    assert record["link_group"] == "0x00000f01"
    assert (record["gid"], record["peer_gid"]) == ("0x0000000000001234", "0x0000000000005678")
    assert (record["gid_ext"], record["peer_gid_ext"]) == ("0x00000000000000bb", "0x00000000000000aa")
    assert (record["token_dmb"], record["peer_token"]) == ("0x0000000000001000", "0x0000000000002000")
    assert record["fallback"] == {
        "reason": "0x00000000",
        "reason_name": None,
        "peer_diagnosis": "0x00000000",
        "peer_diagnosis_name": None,
    }
    assert record["role"] is None and record["version"] is None


def test_a_dmbinfo_without_the_extended_gids_leaves_them_none():
    payload = diag_msg("big", diag.SMC_DIAG_MODE_SMCD, 1, attrs=dmbinfo("big", ext=None))
    record = diag.decode_record(payload, "big")
    assert record["gid"] == "0x0000000000001234" and record["gid_ext"] is None and record["peer_gid_ext"] is None


@pytest.mark.parametrize("byteorder", ORDERS)
def test_an_smcr_connection(byteorder):
    attrs = fallback(byteorder) + conninfo(byteorder, sndbuf=65536, rmbe=65536, peer_rmbe=131072) + lgrinfo(byteorder)
    record = diag.decode_record(diag_msg(byteorder, diag.SMC_DIAG_MODE_SMCR, 9, attrs=attrs), byteorder)
    assert record["mode"] == "SMC-R"
    assert (record["rmbe_size"], record["peer_rmbe_size"]) == (65536, 131072)
    assert (record["link_id"], record["ib_device"], record["ib_port"]) == (1, "mlx5_0", 1)
    assert record["gid"] == "fe80:0000:0000:0000:0000:0000:0000:0001" and record["peer_gid"] == "fe80::2"
    assert record["role"] == "server"
    assert record["link_group"] is None  # SMC_DIAG does not carry the SMC-R link group id


@pytest.mark.parametrize("byteorder", ORDERS)
def test_a_fallback_names_the_decline_codes_and_has_no_buffers(byteorder):
    attrs = fallback(byteorder, reason=0x05000000, peer=0x03030001)
    record = diag.decode_record(diag_msg(byteorder, diag.SMC_DIAG_MODE_FALLBACK_TCP, 3, attrs=attrs), byteorder)
    assert record["mode"] == "TCP"
    assert record["fallback"] == {
        "reason": "0x05000000",
        "reason_name": "SMC_CLC_DECL_PEERDECL",
        "peer_diagnosis": "0x03030001",
        "peer_diagnosis_name": "SMC_CLC_DECL_NOSMCDDEV",
    }
    assert record["rmbe_size"] is None and record["sndbuf_size"] is None and record["link_group"] is None


def test_an_unknown_code_keeps_its_hex_and_has_no_name():
    record = diag.decode_record(diag_msg("big", 1, 3, attrs=fallback("big", reason=0x0303FFFF)), "big")
    assert record["fallback"]["reason"] == "0x0303ffff" and record["fallback"]["reason_name"] is None


def test_ipv6_and_the_af_smc_family():
    v6 = diag_msg("big", 0, 1, family=socket.AF_INET6, src="fd00::1", dst="fd00::2")
    record = diag.decode_record(v6, "big")
    assert record["family"] == "AF_INET6" and record["local"]["address"] == "fd00::1"
    # an AF_SMC socket of SMCPROTO_SMC: four bytes of each address, the rest zero
    smc4 = diag_msg("big", 0, 1, family=diag.AF_SMC)
    record = diag.decode_record(smc4, "big")
    assert record["family"] == "AF_SMC" and record["peer"]["address"] == "10.1.0.2"


def test_unknown_attributes_are_skipped_and_short_ones_ignored():
    attrs = nla(99, b"\xff" * 12, "big") + nla(diag.SMC_DIAG_CONNINFO, b"\0" * 8, "big")
    attrs += nla(diag.SMC_DIAG_DMBINFO, b"\0" * 20, "big") + nla(diag.SMC_DIAG_LGRINFO, b"\0" * 100, "big")
    attrs += nla(diag.SMC_DIAG_FALLBACK, b"\0" * 4, "big") + nla(diag.SMC_DIAG_SHUTDOWN, b"", "big")
    record = diag.decode_record(diag_msg("big", 2, 5, attrs=attrs), "big")
    for key in ("rmbe_size", "link_group", "link_id", "fallback", "shutdown"):
        assert record[key] is None, key
    assert record["mode"] == "SMC-D"


def test_a_short_message_or_attribute_is_refused():
    with pytest.raises(NetlinkDecodeError, match="smc_diag_msg of 63 bytes"):
        diag.decode_record(b"\0" * 63, "big")
    payload = diag_msg("big", 2, 5) + struct.pack(">HH", 40, diag.SMC_DIAG_CONNINFO) + b"\0" * 8
    with pytest.raises(NetlinkDecodeError, match="beyond"):
        diag.decode_record(payload, "big")


def test_an_unknown_mode_and_state_are_named_by_number():
    record = diag.decode_record(diag_msg("big", 7, 5, state=99), "big")
    assert record["mode"] == "mode 7" and record["state"] == "state 99"


@pytest.mark.parametrize("byteorder", ORDERS)
def test_the_request_asks_for_every_smc_socket_with_the_extensions(byteorder):
    data = diag.diag_request(3, byteorder)
    length, msg_type, flags, seq, pid = struct.unpack_from(_o(byteorder) + "IHHII", data, 0)
    assert (length, msg_type, flags, seq, pid) == (16 + 52, 20, 0x301, 3, 0)
    family, pad1, pad2, ext = struct.unpack_from("BBBB", data, 16)
    assert (family, pad1, pad2) == (43, 0, 0)
    # CONNINFO, LGRINFO, DMBINFO and FALLBACK: bits (type - 1)
    assert ext == 0b11011 == diag.DIAG_EXT
    assert data[20:] == b"\0" * 48


def test_messages_of_other_requests_are_skipped_and_done_ends_the_dump():
    chunk = message(diag_msg("big", 2, 1), "big", seq=9) + message(diag_msg("big", 0, 2), "big") + done("big")
    records, finished = diag.decode_messages([chunk], 1, "big")
    assert [r["inode"] for r in records] == [2] and finished


def test_an_error_reply_names_the_missing_handler():
    with pytest.raises(diag.DiagError) as info:
        diag.decode_messages([error("big", errno.ENOENT)], 1, "big")
    assert info.value.errno == errno.ENOENT and "smc_diag" in str(info.value)
    with pytest.raises(diag.DiagError, match="EPERM"):
        diag.decode_messages([error("little", errno.EPERM)], 1, "little")


class FakeTransport(object):
    """Answers a dump request with the datagrams given (the seq is taken from the request)."""

    def __init__(self, datagrams, byteorder="big"):
        self.datagrams = list(datagrams)
        self.byteorder = byteorder
        self.sent = []
        self.closed = False

    def send(self, data):
        self.sent.append(data)

    def recv(self):
        return self.datagrams.pop(0) if self.datagrams else b""

    def close(self):
        self.closed = True


def test_a_dump_over_two_datagrams_and_the_socket_found_by_inode():
    first = message(diag_msg("big", 2, 11, attrs=conninfo("big")), "big")
    second = message(diag_msg("big", 1, 12, attrs=fallback("big", 0x03030000)), "big") + done("big")
    reader = diag.SmcDiag(FakeTransport([first, second]), byteorder="big")
    record = reader.record_of_inode(12)
    assert record["mode"] == "TCP" and record["fallback"]["reason_name"] == "SMC_CLC_DECL_NOSMCDEV"
    with pytest.raises(diag.DiagError, match="inode 13 is not among the 2 SMC sockets"):
        diag.SmcDiag(FakeTransport([first, second]), byteorder="big").record_of_inode(13)


def test_a_closed_socket_or_a_garbled_reply_is_an_error():
    with pytest.raises(diag.DiagError, match="closed"):
        diag.SmcDiag(FakeTransport([]), byteorder="big").dump()
    with pytest.raises(diag.DiagError, match="unexpected reply"):
        diag.SmcDiag(FakeTransport([struct.pack(">IHHII", 99, 20, 2, 1, 0)]), byteorder="big").dump()


class FakeSmcNetlink(object):
    def __init__(self, smcd=(), links=(), fail=None):
        self.smcd, self.links, self.fail = list(smcd), list(links), fail

    def linkgroups_smcd(self):
        if self.fail:
            raise self.fail
        return self.smcd

    def links_smcr(self):
        return self.links


def _smcd_record():
    return diag.decode_record(diag_msg("big", 2, 1, attrs=dmbinfo("big")), "big")


def test_the_version_of_an_smcd_link_group():
    v2 = FakeSmcNetlink(smcd=[{"id": 0xE00}, {"id": 0xF01, "v2_common": {"ver": 2}}])
    record = diag.add_link_group(_smcd_record(), v2)
    assert record["version"] == 2 and "0x00000f01" in record["version_source"]
    # the kernel puts the V2_COMMON nest only for link groups above version 1
    record = diag.add_link_group(_smcd_record(), FakeSmcNetlink(smcd=[{"id": 0xF01, "v2_common": None}]))
    assert record["version"] == 1 and "no V2_COMMON" in record["version_source"]
    record = diag.add_link_group(_smcd_record(), FakeSmcNetlink(smcd=[{"id": 0xE00}]))
    assert record["version"] is None and "not in the SMC_GEN_NETLINK dump" in record["version_source"]
    failing = FakeSmcNetlink(fail=NetlinkError(errno.ENOENT, "generic netlink family SMC_GEN_NETLINK not found"))
    record = diag.add_link_group(_smcd_record(), failing)
    assert record["version"] is None and record["version_source"].startswith("not read: generic netlink")


def test_the_link_group_and_version_of_an_smcr_link():
    record = diag.decode_record(diag_msg("big", 0, 1, attrs=lgrinfo()), "big")
    link = {
        "id": 1,
        "ib_dev": "mlx5_0",
        "ib_port": 1,
        "gid": "fe80:0000:0000:0000:0000:0000:0000:0001",
        "peer_gid": "fe80::2",
        "lgr": {"id": 0x300, "v2_common": {"ver": 2}},
    }
    other = dict(link, ib_port=2, lgr={"id": 0x200})
    record = diag.add_link_group(record, FakeSmcNetlink(links=[other, link]))
    assert record["link_group"] == "0x00000300" and record["version"] == 2


def test_a_fallback_has_no_link_group():
    record = diag.decode_record(diag_msg("big", 1, 1), "big")
    record = diag.add_link_group(record, FakeSmcNetlink(fail=AssertionError("not asked")))
    assert record["version"] is None and record["version_source"] == "no link group: the connection is not SMC"


def _kernel_has_smc():
    try:
        socket.socket(diag.AF_SMC, socket.SOCK_STREAM, 0).close()
        return True
    except OSError:
        return False


@pytest.mark.skipif(_kernel_has_smc(), reason="this kernel has SMC: the real-kernel tier reads SMC_DIAG there")
def test_the_real_kernel_without_smc_answers_the_request_with_enoent():
    reader = diag.SmcDiag()
    try:
        with pytest.raises(diag.DiagError) as info:
            reader.dump()
    finally:
        reader.close()
    assert info.value.errno == errno.ENOENT and "no SMC_DIAG handler" in str(info.value)


@pytest.mark.parametrize("byteorder", ORDERS)
def test_an_ipproto_smc_socket_whose_addresses_the_kernel_left_out(byteorder):
    # 6.12 fills the addresses only for AF_SMC sockets: an IPPROTO_SMC one has its ports and zeros
    # (seen as 0.0.0.0:35182 -> 0.0.0.0:50172 in smcss -a on the real-kernel tier)
    payload = diag_msg(byteorder, diag.SMC_DIAG_MODE_SMCD, 2961, src="0.0.0.0", dst="0.0.0.0", sport=35182, dport=50172)
    record = diag.decode_record(payload, byteorder)
    assert record["local"] == {"address": None, "port": 35182}
    assert record["peer"] == {"address": None, "port": 50172}
