# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The netlink and SMC_DIAG replies of real Linux 7.2 kernels, replayed through the collection's
clients: Debian's kernel rebuilt with DIBS and SMC, and Debian's kernel as shipped (no SMC).

``tests/unit/fixtures/smc/real-7.2.11/netlink-*.json`` hold every datagram the kernel sent for each
read, in order, and what the client decoded of them on the guest (README there)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import errno
import json
import os

import pytest

from ansible_collections.s390x.network.plugins.module_utils.smc import netlink
from ansible_collections.s390x.network.plugins.module_utils.smc.diag import SmcDiag

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "smc", "real-7.2.11")
NETLINK_CALLS = (
    "sys_info",
    "devices_smcd",
    "devices_smcr",
    "linkgroups_smcd",
    "linkgroups_smcr",
    "links_smcr",
    "stats",
    "fallback_stats",
    "pnet_table",
    "ueids",
)


class Replay(object):
    """A transport that answers with the recorded datagrams, in order."""

    def __init__(self, received):
        self.chunks = [base64.b64decode(chunk) for chunk in received]
        self.sent = 0

    def send(self, data):
        self.sent += 1

    def recv(self):
        assert self.chunks, "the client read more than the kernel sent"
        return self.chunks.pop(0)

    def close(self):
        pass


def _record(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        record = json.load(handle)
    return record, dict((call["call"], call) for call in record["calls"])


def _plain(value):
    return json.loads(json.dumps(value, default=repr))


def test_every_read_of_the_smc_kernel_decodes_as_on_the_guest():
    record, calls = _record("netlink-smc-kernel.json")
    assert record["kernel"] == "7.2.11+deb13-s390x-smc" and record["byteorder"] == "big"
    replay = Replay([chunk for name in NETLINK_CALLS for chunk in calls[name]["received"]])
    client = netlink.SmcNetlink(transport=replay, byteorder=record["byteorder"])
    for name in NETLINK_CALLS:
        assert calls[name]["error"] is None, calls[name]
        assert _plain(getattr(client, name)()) == calls[name]["result"], name
    assert not replay.chunks  # every datagram read, none left over


def test_the_smc_kernel_leaves_the_dibs_loopback_out_of_the_device_dump_but_not_out_of_link_groups():
    record, calls = _record("netlink-smc-kernel.json")
    replay = Replay([chunk for name in NETLINK_CALLS for chunk in calls[name]["received"]])
    client = netlink.SmcNetlink(transport=replay, byteorder=record["byteorder"])
    info = client.sys_info()
    assert (info["ver"], info["is_ism_v2"], info["is_smcr_v2"]) == (2, 1, 1), info
    assert client.devices_smcd() == []  # sysfs has /sys/class/dibs/lo; the SMC-D device dump does not
    client.devices_smcr()
    groups = client.linkgroups_smcd()
    assert groups and {g["chid"] for g in groups} == {0xFFFF}, groups  # the loopback's CHID
    assert all(g["gid"] == g["peer_gid"] for g in groups), groups  # one kernel talks to itself


def test_smc_diag_of_the_smc_kernel_decodes_as_on_the_guest():
    record, calls = _record("netlink-smc-kernel.json")
    diag = SmcDiag(transport=Replay(calls["smc_diag"]["received"]), byteorder=record["byteorder"])
    records = diag.dump()
    assert _plain(records) == calls["smc_diag"]["result"]
    modes = sorted(r["mode"] for r in records if r["mode"])
    # the connection over the loopback (both ends) and the client that fell back to a plain listener
    assert modes.count("SMC-D") == 2 and "TCP" in modes, modes
    fallback = [r for r in records if r["mode"] == "TCP"]
    assert {r["fallback"]["reason_name"] for r in fallback} == {"SMC_CLC_DECL_PEERNOSMC"}, fallback


def test_the_stock_kernel_has_no_smc_family_and_no_smc_diag_handler():
    record, calls = _record("netlink-stock-kernel.json")
    assert record["kernel"] == "7.2.11+deb13-s390x"
    assert calls["connect"]["error"][0] == errno.EPROTONOSUPPORT
    client = netlink.SmcNetlink(transport=Replay(calls["sys_info"]["received"]), byteorder=record["byteorder"])
    with pytest.raises(netlink.FamilyNotFound) as raised:
        client.sys_info()
    assert raised.value.args[0] == errno.ENOENT
    diag = SmcDiag(transport=Replay(calls["smc_diag"]["received"]), byteorder=record["byteorder"])
    with pytest.raises(netlink.NetlinkError) as raised:
        diag.dump()
    assert raised.value.args[0] == errno.ENOENT and "no SMC_DIAG handler" in str(raised.value)
