# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""smc_netlink: request bytes written out by hand from include/uapi/linux/smc.h and the netlink
headers, replies from the independent fake kernel (smc_netlink_fake), in both byte orders."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import os
import struct

import pytest

from ansible_collections.s390x.network.plugins.module_utils.smc import netlink as nl
from ansible_collections.s390x.network.tests.unit.plugins.module_utils.smc_netlink_fake import (
    FakeSmcKernel,
    Writer,
    stats_tech,
)

ORDERS = ("little", "big")


def unhex(text):
    """Bytes from hex digits; blanks and ``#`` comments (to the end of the line) are ignored."""
    return bytes.fromhex("".join(line.split("#", 1)[0].replace(" ", "") for line in text.splitlines()))


# -- requests, byte by byte -----------------------------------------------------------------------
def test_add_pnet_interface_request_little_endian():
    request = nl.genl_request(0x1B, nl.SMC_PNETID_ADD, 1, "little", attrs=nl.pnet_attrs("NETA", "little", "eth1"))
    assert request == unhex("""
        2c000000 1b00 0500 01000000 00000000  # nlmsghdr: 44 bytes, family 0x1b, REQUEST|ACK, seq 1, pid 0
        02 01 0000                            # genlmsghdr: SMC_PNETID_ADD, version 1
        0900 0100 4e455441 00 000000          # SMC_PNETID_NAME "NETA", NUL, 3 bytes of padding
        0900 0200 65746831 00 000000          # SMC_PNETID_ETHNAME "eth1", NUL, padding
        """)


def test_add_pnet_device_port_request_big_endian():
    attrs = nl.pnet_attrs("NETR", "big", ib_device="mlx5_0", port=2)
    request = nl.genl_request(0x1B, nl.SMC_PNETID_ADD, 2, "big", attrs=attrs)
    assert request == unhex("""
        00000034 001b 0005 00000002 00000000  # 52 bytes, SMC_PNETID, REQUEST|ACK, seq 2
        02 01 0000                            # SMC_PNETID_ADD, version 1
        0009 0001 4e455452 00 000000          # NAME "NETR"
        000b 0003 6d6c78355f30 00 00          # IBNAME "mlx5_0": 7 bytes and 1 of padding
        0005 0004 02 000000                   # IBPORT u8 2
        """)


@pytest.mark.parametrize(
    "byteorder,header",
    [
        ("little", "3c000000 1c00 0500 03000000 00000000 0a010000 2500 0100"),
        ("big", "0000003c 001c 0005 00000003 00000000 0a010000 0025 0001"),
    ],
)
def test_add_ueid_request_is_32_blank_padded_bytes_and_a_nul(byteorder, header):
    request = nl.genl_request(0x1C, nl.SMC_NETLINK_ADD_UEID, 3, byteorder, attrs=nl.ueid_attr("PLEX1.PROD", byteorder))
    # smc_nl_add_ueid insists on nla_len(entry) == SMC_MAX_EID_LEN + 1 == 33 (0x25 with the header)
    assert request == unhex(header + "504c4558312e50524f44" + "20" * 22 + "00" + "000000")


def test_dump_and_family_requests():
    assert nl.genl_request(0x1C, nl.SMC_NETLINK_GET_STATS, 4, "little", dump=True) == unhex(
        "14000000 1c00 0103 04000000 00000000 07010000"  # REQUEST|DUMP (0x301)
    )
    # the controller's family list as a dump: asking by name would load smc on demand
    assert nl.family_dump_request(5, "big") == unhex("00000014 0010 0301 00000005 00000000 03010000")


# -- attribute decoding ---------------------------------------------------------------------------
@pytest.mark.parametrize("byteorder", ORDERS)
@pytest.mark.parametrize("pad64", [True, False])
def test_u64_with_and_without_pad_attributes_decode_alike(byteorder, pad64):
    order = "<" if byteorder == "little" else ">"
    writer = Writer(order, base=20, pad64=pad64)
    writer.nest(
        1, lambda n: (n.u64(7, 5, 0), n.u64(8, 2**40 + 3, 0), n.u32(40, 1), n.u64(16, 358191451596, 0))
    )  # 40: unknown
    pads = [
        t for t, p, dummy in nl.split_attrs(nl.split_attrs(bytes(writer.buf), byteorder)[0][1], byteorder) if t == 0
    ]
    assert (len(pads) > 0) == pad64  # the writer puts SMC_NLA_STATS_PAD where the kernel would
    decoded = nl.decode_attrs(bytes(writer.buf), {1: ("tech", nl.NEST, nl.STATS_TECH)}, byteorder)["tech"]
    assert (decoded["clnt_v1_succ"], decoded["clnt_v2_succ"], decoded["rx_bytes"]) == (5, 2**40 + 3, 358191451596)
    assert decoded["tx_bytes"] is None and decoded["tx_rmb_size"] is None  # missing: None
    assert set(decoded) == set(name for name, dummy, dummy in nl.STATS_TECH.values())  # 40 skipped


@pytest.mark.parametrize("byteorder", ORDERS)
def test_integers_are_read_by_their_length(byteorder):
    order = "<" if byteorder == "little" else ">"
    writer = Writer(order, base=0)
    writer.u32(7, 0x7C8)  # SMC_NLA_LGR_D_CHID: declared u16, put with nla_put_u32
    writer.uint(12, 835584)  # nla_put_uint: 4 bytes
    writer.uint(13, 2**33)  # 8 bytes, no pad attribute
    writer.put(4, b"NETA" + b" " * 12 + b"\0")
    writer.put(5, b"\x01\x02\x03")  # a length no integer has
    decoded = nl.decode_attrs(bytes(writer.buf), nl.LGR_SMCD, byteorder)
    assert (decoded["chid"], decoded["sndbuf_alloc"], decoded["dmb_alloc"]) == (0x7C8, 835584, 2**33)
    assert decoded["vlan_id"] is None and decoded["pnetid"] is None  # 5 is VLAN_ID (u8): wrong length


@pytest.mark.parametrize("nested_flag", [True, False])
def test_nests_with_and_without_the_nested_flag_and_v2_attributes_from_zero(nested_flag):
    kernel = FakeSmcKernel(nested_flag=nested_flag)
    kernel.lgr_smcd = [
        {
            "id": 0x100,
            "vlan": 0,
            "conns": 51,
            "pnetid": "",
            "v2": {"ver": 2, "rel": 1, "os": 2, "host": "lpar-b", "eid": "SEID-ZLAB"},
            "sndbuf": 835584,
            "dmb": 3342336,
        }
    ]
    smc = nl.SmcNetlink(kernel, "little")
    (group,) = smc.linkgroups_smcd()
    # SMC_NLA_LGR_V2_VER is attribute 0: not a pad in this nest
    assert group["v2_common"] == {
        "ver": 2,
        "rel": 1,
        "os": 2,
        "neg_eid": "SEID-ZLAB" + " " * 23,
        "peer_host": "lpar-b" + " " * 26,
    }
    assert (group["id"], group["gid"], group["peer_gid"], group["chid"]) == (0x100, 0x1111, 0x2222, 0x7C8)
    assert group["ext_gid"] is None  # a later kernel's attribute this one does not put


def test_truncated_replies_are_errors():
    with pytest.raises(nl.NetlinkDecodeError):
        nl.split_attrs(struct.pack("<HH", 12, 1) + b"abcd", "little")
    with pytest.raises(nl.NetlinkDecodeError):
        nl.split_messages(struct.pack("<IHHII", 64, 3, 2, 1, 0), "little")
    kernel = FakeSmcKernel()
    original = kernel._datagrams
    kernel._datagrams = lambda *a: [d[:-6] for d in original(*a)]
    with pytest.raises(nl.NetlinkError) as info:
        nl.SmcNetlink(kernel, "little").ueids()
    assert info.value.errno == errno.EPROTO and "unexpected reply" in str(info.value)


# -- the client against the fake kernel ------------------------------------------------------------
@pytest.mark.parametrize("byteorder", ORDERS)
def test_family_lookup_is_a_dump_and_cached(byteorder):
    kernel = FakeSmcKernel(byteorder)
    smc = nl.SmcNetlink(kernel, byteorder)
    assert smc.ueids() == [] and smc.pnet_table() == []
    assert kernel.sent() == [("nlctrl", 3), ("SMC_GEN_NETLINK", 9), ("SMC_PNETID", 1)]
    assert [r.seq for r in kernel.requests] == [1, 2, 3]
    assert kernel.requests[0].flags == nl.NLM_F_REQUEST | nl.NLM_F_DUMP


def test_family_not_found_says_the_module_is_not_loaded(monkeypatch, tmp_path):
    monkeypatch.setattr(nl, "SYS_MODULE_SMC", str(tmp_path / "absent"))
    kernel = FakeSmcKernel(loaded=False)
    with pytest.raises(nl.FamilyNotFound) as info:
        nl.SmcNetlink(kernel, "little").stats()
    assert info.value.errno == errno.ENOENT
    assert "SMC_GEN_NETLINK not found" in str(info.value) and "smc kernel module is not loaded" in str(info.value)
    assert kernel.sent() == [("nlctrl", 3)]


def test_a_loaded_smc_without_the_family_gives_no_modprobe_advice(monkeypatch, tmp_path):
    """/sys/module/smc exists (lsmod shows smc), the family list has no SMC family: loading the
    module again cannot help, the kernel's SMC lacks the family."""
    (tmp_path / "smc").mkdir()
    monkeypatch.setattr(nl, "SYS_MODULE_SMC", str(tmp_path / "smc"))
    kernel = FakeSmcKernel(loaded=False)
    with pytest.raises(nl.FamilyNotFound) as info:
        nl.SmcNetlink(kernel, "little").ueids()
    text = str(info.value)
    assert "modprobe" not in text and "not loaded" not in text
    assert "SMC_GEN_NETLINK not found" in text and "lacks this generic netlink family" in text and "5.11" in text


def test_a_kernel_with_the_pnet_family_only_is_older_not_unloaded():
    kernel = FakeSmcKernel()
    del kernel.families["SMC_GEN_NETLINK"]  # before Linux 5.11: smc_pnet.c's family only
    with pytest.raises(nl.FamilyNotFound) as info:
        nl.SmcNetlink(kernel, "little").stats()
    assert "smc kernel module is loaded" in str(info.value) and "5.11" in str(info.value)


@pytest.mark.parametrize("byteorder", ORDERS)
@pytest.mark.parametrize("per_datagram", [1, 2, 10])
def test_multi_part_dumps_until_done(byteorder, per_datagram):
    kernel = FakeSmcKernel(byteorder, per_datagram=per_datagram)
    kernel.dev_smcd = [
        {
            "use_cnt": n,
            "fid": 0x600 + n,
            "chid": 0x7C8,
            "device": 0x04ED,
            "pci_id": "000%d:00:00.0" % n,
            "pnet_usr": 0,
            "pnetid": "",
        }
        for n in range(5)
    ]
    devices = nl.SmcNetlink(kernel, byteorder).devices_smcd()
    assert [d["pci_fid"] for d in devices] == [0x600, 0x601, 0x602, 0x603, 0x604]
    assert [d["is_crit"] for d in devices] == [0, 1, 1, 1, 1]  # IS_CRIT is use_cnt > 0
    assert devices[2]["port"] == {
        "pnet_usr": 0,
        "pnetid": " " * 16,
        "netdev": None,
        "state": None,
        "valid": None,
        "lnk_cnt": None,
    }


def test_messages_of_other_sequence_numbers_are_skipped():
    kernel = FakeSmcKernel()
    kernel.noise = True
    kernel.ueids = [b"PLEX1.PROD".ljust(32)]
    assert nl.SmcNetlink(kernel, "little").ueids() == ["PLEX1.PROD"]


def test_nlmsg_error_names_the_command_and_the_errno():
    kernel = FakeSmcKernel()
    kernel.admin = False
    smc = nl.SmcNetlink(kernel, "little")
    with pytest.raises(nl.NetlinkError) as info:
        smc.pnet_add("NETA", interface="eth1")
    assert info.value.errno == errno.EPERM
    assert str(info.value).startswith("SMC_PNETID_ADD failed: Operation not permitted (EPERM)")
    assert "CAP_NET_ADMIN" in str(info.value)
    kernel.errors[("SMC_GEN_NETLINK", nl.SMC_NETLINK_GET_FBACK_STATS)] = errno.EOPNOTSUPP
    with pytest.raises(nl.NetlinkError) as info:
        smc.fallback_stats()
    assert "SMC_NETLINK_GET_FBACK_STATS failed: Operation not supported (EOPNOTSUPP)" in str(info.value)
    assert "later release" in str(info.value)


def test_an_error_carried_by_nlmsg_done_fails_the_dump():
    kernel = FakeSmcKernel()
    kernel.done_errors[("SMC_GEN_NETLINK", nl.SMC_NETLINK_GET_DEV_SMCR)] = errno.EMSGSIZE
    with pytest.raises(nl.NetlinkError) as info:
        nl.SmcNetlink(kernel, "little").devices_smcr()
    assert info.value.errno == errno.EMSGSIZE and "SMC_NETLINK_GET_DEV_SMCR" in str(info.value)


@pytest.mark.parametrize("byteorder", ORDERS)
def test_sys_info_with_and_without_system_eid(byteorder):
    kernel = FakeSmcKernel(byteorder)
    info = nl.SmcNetlink(kernel, byteorder).sys_info()
    assert info == {
        "ver": 2,
        "rel": 1,
        "is_ism_v2": 1,
        "local_host": "lpar-a" + " " * 26,
        "seid": "IBM-SYSZ-ISMSEID00000000C0DE8561",
        "is_smcr_v2": 1,
    }
    kernel.seid = None
    assert nl.SmcNetlink(kernel, byteorder).sys_info()["seid"] is None


@pytest.mark.parametrize("byteorder", ORDERS)
def test_stats_of_both_technologies(byteorder):
    kernel = FakeSmcKernel(byteorder)
    kernel.stats["smcd"] = stats_tech(
        clnt_v2_succ=51,
        rx_bytes=358191451596,
        rx_rmb_size=[0, 0, 0, 51, 0, 0, 0, 0, 0],
        rx_rmb_usage=2**33,
        tx_rmb_usage=98304,
    )
    kernel.stats["smcd"]["tx_rmb_stats"]["full_peer_cnt"] = 99
    kernel.stats["clnt_hs_err"], kernel.stats["srv_hs_err"] = 1, 2
    stats = nl.SmcNetlink(kernel, byteorder).stats()
    smcd = stats["smcd_tech"]
    assert (smcd["clnt_v2_succ"], smcd["rx_bytes"], smcd["rx_rmb_size"]["64k"]) == (51, 358191451596, 51)
    assert (smcd["rx_rmb_usage"], smcd["tx_rmb_usage"]) == (2**33, 98304)
    assert smcd["tx_rmb_stats"]["full_peer_cnt"] == 99 and smcd["tx_rmb_stats"]["dgrade_cnt"] == 0
    assert stats["smcr_tech"]["rx_rmb_usage"] is None  # kernels before the attribute
    assert (stats["clnt_hs_err_cnt"], stats["srv_hs_err_cnt"]) == (1, 2)


def test_fallback_stats_totals_come_once_and_reasons_per_role():
    kernel = FakeSmcKernel()
    assert nl.SmcNetlink(kernel, "little").fallback_stats() == {
        "server_total": 0,
        "client_total": 0,
        "server": {},
        "client": {},
    }
    kernel.fallback = {
        "srv_cnt": 31,
        "clnt_cnt": 12,
        "server": [(0x03030000, 19), (0x03010000, 9), (0x03070000, 2)],
        "client": [(0x03010000, 7), (0x03030001, 5)],
    }
    result = nl.SmcNetlink(kernel, "little").fallback_stats()
    assert result == {
        "server_total": 31,
        "client_total": 12,
        "server": {0x03030000: 19, 0x03010000: 9, 0x03070000: 2},
        "client": {0x03010000: 7, 0x03030001: 5},
    }


def test_smcr_devices_links_and_groups():
    kernel = FakeSmcKernel("big")
    kernel.dev_smcr = [
        {
            "crit": 1,
            "fid": 0x101,
            "chid": 0x1C4,
            "device": 0x1016,
            "pci_id": "0003:00:00.0",
            "ib_name": "mlx5_0",
            "ports": {2: {"pnet_usr": 1, "pnetid": "NETR", "ifindex": 7, "state": 1, "links": 2}},
        }
    ]
    link = {"id": 1, "state": 3, "conns": 12, "ib_port": 1, "ifindex": 7, "ib_dev": "mlx5_0", "uid": 0x0A0B0C0D}
    link.update(peer_uid=0x01020304, gid="fe80:0000:0000:0000:0000:0000:0000:0001", peer_gid="fe80::2")
    kernel.lgr_smcr = [
        {"id": 0x06000100, "role": 0, "type": 2, "vlan": 0, "conns": 12, "pnetid": "NETR", "links": [link]}
    ]
    smc = nl.SmcNetlink(kernel, "big")
    (dev,) = smc.devices_smcr()
    assert dev["port"] is None and dev["port2"]["netdev"] == 7 and dev["port2"]["valid"] == 1
    assert (dev["ib_name"], dev["pci_device"], dev["is_crit"]) == ("mlx5_0", 0x1016, 1)
    (group,) = smc.linkgroups_smcr()
    assert (group["id"], group["type"], group["net_cookie"], group["v2_common"]) == (0x06000100, 2, 1, None)
    (found,) = smc.links_smcr()
    assert found["lgr"]["id"] == 0x06000100 and found["state"] == 3 and found["peer_uid"] == 0x01020304
    assert smc.requests == ["SMC_NETLINK_GET_DEV_SMCR", "SMC_NETLINK_GET_LGR_SMCR", "SMC_NETLINK_GET_LINK_SMCR"]


# -- UEIDs and the system EID ----------------------------------------------------------------------
@pytest.mark.parametrize(
    "value,expected",
    [
        ("PLEX1.PROD", "PLEX1.PROD"),
        ("0-A.B", "0-A.B"),
        ("A" * 32, "A" * 32),
        ("PLEX1   ", "PLEX1"),  # the kernel pads with blanks: trailing blanks are padding
    ],
)
def test_ueids_the_kernel_accepts(value, expected):
    assert nl.normalize_ueid(value) == expected
    assert nl.ueid_bytes(value) == expected.encode().ljust(32)


@pytest.mark.parametrize(
    "value,msg",
    [
        ("", "empty"),
        ("   ", "empty"),
        ("A" * 33, "at most 32"),
        ("plex1.prod", "upper case only (PLEX1.PROD)"),
        (".PLEX", "first character"),
        ("-PLEX", "first character"),
        (" PLEX", "first character"),
        ("PL EX", "first character"),
        ("PLEX_1", "first character"),
        ("PLÉX", "first character"),
        (5, "not a string"),
    ],
)
def test_ueids_the_kernel_refuses(value, msg):
    with pytest.raises(ValueError) as info:
        nl.normalize_ueid(value)
    assert msg in str(info.value)


def test_the_fake_kernel_refuses_what_normalize_refuses():
    """The fake applies smc_clc_ueid_valid to the raw bytes: it agrees with the module's check."""
    for good in ("PLEX1.PROD", "9", "A-B.C"):
        assert FakeSmcKernel._ueid_valid(good.encode().ljust(32))
    for bad in (b"plex", b".A", b"A B", b"A_B", b""):
        assert not FakeSmcKernel._ueid_valid(bad.ljust(32))


def test_ueid_table_changes_and_the_kernel_rules():
    kernel = FakeSmcKernel()
    smc = nl.SmcNetlink(kernel, "little")
    for ueid in ("U1", "U2", "U3", "U4"):
        smc.add_ueid(ueid)
    assert smc.ueids() == ["U1", "U2", "U3", "U4"]
    with pytest.raises(nl.NetlinkError) as info:
        smc.add_ueid("U5")
    assert info.value.errno == errno.ERANGE and "SMC_NETLINK_ADD_UEID failed" in str(info.value)
    with pytest.raises(nl.NetlinkError) as info:
        smc.add_ueid("U1")
    assert info.value.errno == errno.ERANGE  # the count is checked before the duplicate
    smc.disable_seid()
    assert smc.seid() == {"seid": "IBM-SYSZ-ISMSEID00000000C0DE8561", "enabled": False}
    assert smc.remove_ueid("U1") is False
    with pytest.raises(nl.NetlinkError) as info:
        smc.remove_ueid("U1")
    assert info.value.errno == errno.ENOENT
    smc.remove_ueid("U2")
    smc.remove_ueid("U3")
    # the last one: the kernel answers EAGAIN and offers the system EID again
    assert smc.remove_ueid("U4") is True
    assert smc.seid()["enabled"] is True
    with pytest.raises(nl.NetlinkError) as info:
        smc.disable_seid()
    assert info.value.errno == errno.ENOENT
    smc.flush_ueids()
    assert [r.attrs.get(1) for r in kernel.changes() if r.cmd == nl.SMC_NETLINK_ADD_UEID][
        0
    ] == b"U1" + b" " * 30 + b"\0"
    assert smc.requests[:2] == ["SMC_NETLINK_ADD_UEID U1", "SMC_NETLINK_ADD_UEID U2"]


def test_no_system_eid_without_ismv2():
    kernel = FakeSmcKernel()
    kernel.seid = None
    assert nl.SmcNetlink(kernel, "little").seid() == {"seid": None, "enabled": None}


# -- PNET table ------------------------------------------------------------------------------------
@pytest.mark.parametrize("byteorder", ORDERS)
def test_pnet_table_round_trip(byteorder):
    kernel = FakeSmcKernel(byteorder)
    smc = nl.SmcNetlink(kernel, byteorder)
    smc.pnet_add("NETA", interface="enc8200")
    smc.pnet_add("NETA", ib_device="mlx5_0", port=1)
    smc.pnet_add("NETR", ib_device="mlx5_1", port=2)
    assert smc.pnet_table() == [
        {"pnet_id": "NETA", "interface": "enc8200", "ib_device": None, "port": None},
        {"pnet_id": "NETA", "interface": None, "ib_device": "mlx5_0", "port": 1},
        {"pnet_id": "NETR", "interface": None, "ib_device": "mlx5_1", "port": 2},
    ]
    with pytest.raises(nl.NetlinkError) as info:
        smc.pnet_add("NETB", interface="enc8200")
    assert info.value.errno == errno.EEXIST
    smc.pnet_delete("NETA")
    assert [e["pnet_id"] for e in smc.pnet_table()] == ["NETR"]
    smc.pnet_flush()
    assert smc.pnet_table() == []
    assert "SMC_PNETID_ADD NETR ibname=mlx5_1 ibport=2" in smc.requests


@pytest.mark.parametrize("byteorder", ORDERS)
def test_interface_names_are_their_utf8_bytes_both_ways(byteorder):
    # the kernel takes any bytes but "/", ":", blanks and NUL in a name (dev_valid_name), and
    # smc_pnet accepts UTF-8 names: sent as UTF-8, read back as the same string
    name = u"vlan\u00e9\u00df1"  # 9 bytes in UTF-8
    request = nl.genl_request(0x1B, nl.SMC_PNETID_ADD, 1, byteorder, attrs=nl.pnet_attrs("NETA", byteorder, name))
    assert name.encode("utf-8") + b"\0" in request
    kernel = FakeSmcKernel(byteorder)
    smc = nl.SmcNetlink(kernel, byteorder)
    smc.pnet_add("NETA", interface=name)
    assert smc.pnet_table() == [{"pnet_id": "NETA", "interface": name, "ib_device": None, "port": None}]
    # a name that is not UTF-8 at all goes back to the kernel as the bytes it came as
    raw = nl.decode_string(b"eth\xff\x00junk")
    assert raw == u"eth\udcff"
    attr = nl.nla_string(2, raw, byteorder)
    assert attr[4:9] == b"eth\xff\x00" and len(attr) == 12  # 4 header bytes, 5 of string, 3 of padding


def test_flush_of_an_empty_table_is_not_an_error_but_a_missing_family_is():
    kernel = FakeSmcKernel()
    kernel.flush_empty_enoent = True  # some kernels answer ENOENT
    nl.SmcNetlink(kernel, "little").pnet_flush()
    with pytest.raises(nl.FamilyNotFound):
        nl.SmcNetlink(FakeSmcKernel(loaded=False), "little").pnet_flush()


def test_interface_name_of_no_index_is_none():
    assert nl.interface_name(0) is None and nl.interface_name(None) is None
    assert nl.interface_name(2**31 - 1) is None  # no such interface


def test_errno_text():
    assert nl.errno_text(errno.EEXIST) == "%s (EEXIST)" % os.strerror(errno.EEXIST)
    assert nl.errno_text(errno.EOPNOTSUPP).endswith("(EOPNOTSUPP)")
