# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""ethtool argument builders and parsers against the outputs of tests/unit/fixtures/ethtool (see its
README for which are captured, public or constructed)."""

from __future__ import absolute_import, division, print_function

import os

import pytest

from ansible_collections.s390x.network.plugins.module_utils.nic import ethtool as et

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "ethtool")


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


# -- versions and argv ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text, version",
    [
        ("ethtool version 6.1\n", (6, 1)),
        ("ethtool version 5.13\n", (5, 13)),
        ("ethtool version 6.15\n", (6, 15)),
        ("ethtool version 4.8\n", (4, 8)),
        ("not ethtool\n", None),
        ("", None),
    ],
)
def test_parse_version(text, version):
    assert et.parse_version(text) == version


@pytest.mark.parametrize(
    "version, expected",
    [
        ((5, 13), {"-k": False, "-g": False, "-l": False}),
        ((5, 16), {"-k": False, "-g": False, "-l": False}),
        ((5, 17), {"-k": True, "-g": False, "-l": False}),
        ((6, 1), {"-k": True, "-g": False, "-l": False}),
        ((6, 2), {"-k": True, "-g": True, "-l": False}),
        ((6, 14), {"-k": True, "-g": True, "-l": False}),
        ((6, 15), {"-k": True, "-g": True, "-l": True}),
        ((7, 0), {"-k": True, "-g": True, "-l": True}),
        (None, {"-k": False, "-g": False, "-l": False}),
    ],
)
def test_json_only_where_the_version_has_it(version, expected):
    assert dict((o, et.uses_json(version, o)) for o in expected) == expected


def test_argv_builders():
    assert et.argv_version() == ["ethtool", "--version"]
    assert et.argv_driver("eth0") == ["ethtool", "-i", "eth0"]
    assert et.argv_show("-l", "eth0") == ["ethtool", "-l", "eth0"]
    assert et.argv_show("-k", "eth0", True, "/usr/sbin/ethtool") == ["/usr/sbin/ethtool", "--json", "-k", "eth0"]
    assert et.argv_set_channels("eth0", {"combined": 4}) == ["ethtool", "-L", "eth0", "combined", "4"]
    assert et.argv_set_channels("env2", {"tx": 8, "rx": 8, "other": None}) == [
        "ethtool",
        "-L",
        "env2",
        "rx",
        "8",
        "tx",
        "8",
    ]
    assert et.argv_set_rings("eth0", {"tx": 512, "rx_jumbo": 0, "rx": 1024, "rx_mini": 2}) == [
        "ethtool",
        "-G",
        "eth0",
        "rx",
        "1024",
        "rx-mini",
        "2",
        "rx-jumbo",
        "0",
        "tx",
        "512",
    ]
    # long legacy names go out as the short ones every ethtool version takes
    assert et.argv_set_features(
        "eth0", [("tcp-segmentation-offload", False), ("rx-gro-hw", True), ("generic-receive-offload", True)]
    ) == ["ethtool", "-K", "eth0", "tso", "off", "rx-gro-hw", "on", "gro", "on"]
    with pytest.raises(ValueError):
        et.argv_show("-K", "eth0")


# -- channels ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name, maxima, current",
    [
        (
            "veth",
            {"rx": 4, "tx": 4, "other": None, "combined": None},
            {"rx": 2, "tx": 3, "other": None, "combined": None},
        ),
        (
            "virtio_net",
            {"rx": None, "tx": None, "other": None, "combined": 1},
            {"rx": None, "tx": None, "other": None, "combined": 1},
        ),
        (
            "mlx5_core",
            {"rx": None, "tx": None, "other": None, "combined": 16},
            {"rx": None, "tx": None, "other": None, "combined": 8},
        ),
        (
            "ibmvnic",
            {"rx": 16, "tx": 16, "other": None, "combined": None},
            {"rx": 8, "tx": 8, "other": None, "combined": None},
        ),
        (
            "qeth",
            {"rx": 1, "tx": 4, "other": None, "combined": None},
            {"rx": 1, "tx": 4, "other": None, "combined": None},
        ),
    ],
)
def test_channels_text_and_json_agree(name, maxima, current):
    text = et.parse_channels(fixture("%s_l.txt" % name))
    assert text == {"max": maxima, "current": current}
    assert et.parse_channels(fixture("%s_l.json" % name)) == text


def test_channels_ioctl_form_zero_means_absent():
    """ethtool before netlink prints 0 where the driver has no such channel (xdp-newbies sample)."""
    parsed = et.parse_channels(fixture("virtio_net_l_xdp_newbies_2020.txt"))
    assert parsed == {
        "max": {"rx": None, "tx": None, "other": None, "combined": 8},
        "current": {"rx": None, "tx": None, "other": None, "combined": 1},
    }
    assert et.parse_channels(fixture("virtio_net_l_vk_cloud.txt"))["current"]["combined"] == 2
    assert et.parse_channels(fixture("virtio_net_l_vk_cloud.txt"))["max"]["combined"] == 4


def test_channels_other_layouts():
    """Spaces instead of tabs, a missing line, an unknown line, a driver with both rx/tx and combined."""
    text = (
        "Channel parameters for bnx0:\nPre-set maximums:\nRX:    8\nTX: 8\nCombined: 8\nFoo: 3\n"
        "Current hardware settings:\nRX: 0\nTX:\t0\nCombined:\t4\n"
    )
    parsed = et.parse_channels(text)
    assert parsed["max"] == {"rx": 8, "tx": 8, "other": None, "combined": 8}
    assert parsed["current"] == {"rx": 0, "tx": 0, "other": None, "combined": 4}
    # JSON without the keys the kernel did not send
    assert et.parse_channels('[ {"ifname": "x", "combined-max": 2, "combined": 2} ]')["max"]["rx"] is None


@pytest.mark.parametrize("text", ["", "garbage\n", "[ {\"ifname\": 1", "RX: 4\n"])
def test_channels_rejects_what_is_not_ethtool_output(text):
    with pytest.raises(et.EthtoolParseError):
        et.parse_channels(text)


def test_channels_rejects_odd_values():
    with pytest.raises(et.EthtoolParseError):
        et.parse_channels("Channel parameters for x:\nPre-set maximums:\nRX: lots\n")
    with pytest.raises(et.EthtoolParseError):
        et.parse_channels('[ {"rx-max": true} ]')


# -- rings ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name, maxima, current",
    [
        ("virtio_net", (256, None, None, 256), (256, None, None, 256)),
        ("mlx5_core", (8192, None, None, 8192), (1024, None, None, 1024)),
        ("ibmvnic", (4096, None, None, 4096), (512, None, None, 512)),
        ("qeth", (128, None, None, 128), (128, None, None, 128)),
    ],
)
def test_rings_text_and_json_agree(name, maxima, current):
    parsed = et.parse_rings(fixture("%s_g.txt" % name))
    assert parsed == {"max": dict(zip(et.RING_KEYS, maxima)), "current": dict(zip(et.RING_KEYS, current))}
    assert et.parse_rings(fixture("%s_g.json" % name)) == parsed


def test_rings_ioctl_form_and_extra_lines():
    """ethtool 4.x prints zeros for rx-mini/rx-jumbo; ethtool 6.x adds lines the parser ignores."""
    old = (
        "Ring parameters for eth0:\nPre-set maximums:\nRX:\t\t4096\nRX Mini:\t0\nRX Jumbo:\t0\nTX:\t\t4096\n"
        "Current hardware settings:\nRX:\t\t256\nRX Mini:\t0\nRX Jumbo:\t0\nTX:\t\t256\n\n"
    )
    parsed = et.parse_rings(old)
    assert parsed["max"] == {"rx": 4096, "rx_mini": None, "rx_jumbo": None, "tx": 4096}
    assert parsed["current"] == {"rx": 256, "rx_mini": None, "rx_jumbo": None, "tx": 256}
    # "TX push buff len" appears in both sections and must not be taken for TX
    assert et.parse_rings(fixture("mlx5_core_g.txt"))["current"]["tx"] == 1024


# -- features ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["veth", "virtio_net", "mlx5_core", "ibmvnic", "qeth"])
def test_features_text_and_json_agree(name):
    text = et.parse_features(fixture("%s_k.txt" % name))
    data = et.parse_features(fixture("%s_k.json" % name))
    assert list(text) == list(data)
    for fname in text:
        # the text form does not say what was requested for a fixed feature; JSON does
        left, right = dict(text[fname]), dict(data[fname])
        if left["fixed"]:
            left.pop("requested"), right.pop("requested")
        assert left == right, fname
        assert et.feature_value(text[fname], text) == et.feature_value(data[fname], data), fname


def test_features_groups_fixed_and_values():
    feats = et.parse_features(fixture("virtio_net_k.txt"))
    tso = feats["tcp-segmentation-offload"]
    assert tso["group"] and tso["children"] == [
        "tx-tcp-segmentation",
        "tx-tcp-ecn-segmentation",
        "tx-tcp-mangleid-segmentation",
        "tx-tcp6-segmentation",
        "tx-tcp-accecn-segmentation",
    ]
    assert feats["tx-tcp6-segmentation"]["parent"] == "tcp-segmentation-offload"
    # members: on, fixed off, off, on, fixed off -> the changeable ones are mixed
    assert et.feature_value(tso, feats) == "mixed"
    assert feats["rx-checksumming"] == {
        "active": True,
        "fixed": True,
        "requested": None,
        "group": False,
        "children": [],
        "parent": None,
    }
    assert et.feature_value(feats["rx-checksumming"], feats) is True
    assert feats["large-receive-offload"]["fixed"] and not feats["large-receive-offload"]["active"]
    assert not feats["generic-segmentation-offload"]["group"]


def test_features_requested_suffix_and_json_fixed_on():
    text = "Features for bond0.100:\ntx-udp_tnl-segmentation: off [requested on]\ngro: on\n"
    feats = et.parse_features(text)
    assert feats["tx-udp_tnl-segmentation"]["requested"] is True
    assert feats["tx-udp_tnl-segmentation"]["active"] is False
    assert et.feature_value(feats["tx-udp_tnl-segmentation"], feats) is True
    # JSON says requested false for a fixed feature the kernel turned on itself (captured virtio sample)
    data = et.parse_features(fixture("virtio_net_k.json"))
    assert data["highdma"]["requested"] is False and et.feature_value(data["highdma"], data) is True


def test_features_public_excerpt_without_header():
    feats = et.parse_features(fixture("mlx5_core_k_udp_excerpt.txt"))
    assert sorted(k for k, v in feats.items() if v["active"]) == [
        "rx-udp_tunnel-port-offload",
        "tx-udp-segmentation",
        "tx-udp_tnl-csum-segmentation",
        "tx-udp_tnl-segmentation",
    ]
    assert feats["rx-udp-gro-forwarding"]["active"] is False


def test_features_stop_at_actual_changes():
    text = fixture("veth_k.txt") + "Actual changes:\nrx-lro: off [requested on]\n"
    assert et.parse_features(text)["large-receive-offload"]["fixed"] is True
    assert "rx-lro" not in et.parse_features(text)


@pytest.mark.parametrize(
    "name, expected",
    [
        ("tso", "tcp-segmentation-offload"),
        ("tcp-segmentation-offload", "tcp-segmentation-offload"),
        ("tx-tcp6-segmentation", "tx-tcp6-segmentation"),
        ("gro", "generic-receive-offload"),
        ("rx-gro", "generic-receive-offload"),  # shown under its legacy name only
        ("tx-generic-segmentation", "generic-segmentation-offload"),
        ("rx-gro-hw", "rx-gro-hw"),
        ("tx-nosuch", None),
        ("ufo", None),
    ],
)
def test_resolve_feature(name, expected):
    assert et.resolve_feature(name, et.parse_features(fixture("virtio_net_k.txt"))) == expected


def test_feature_problems():
    feats = et.parse_features(fixture("virtio_net_k.txt"))
    assert et.feature_problem("large-receive-offload", feats["large-receive-offload"], feats, True) == (
        "fixed off by the driver ([fixed] in ethtool -k)"
    )
    assert et.feature_problem("large-receive-offload", feats["large-receive-offload"], feats, False) is None
    assert et.feature_problem("rx-checksumming", feats["rx-checksumming"], feats, False) == (
        "fixed on by the driver ([fixed] in ethtool -k)"
    )
    assert et.feature_problem("tcp-segmentation-offload", feats["tcp-segmentation-offload"], feats, False) is None
    veth = et.parse_features(fixture("veth_k.txt"))
    assert et.feature_problem("tcp-segmentation-offload", veth["tcp-segmentation-offload"], veth, True) is None
    # a group whose members are all fixed off cannot be turned on
    text = "Features for x:\ntx-checksumming: off\n\ttx-checksum-ipv4: off [fixed]\n\ttx-checksum-ipv6: off [fixed]\n"
    fixed = et.parse_features(text)
    assert "every member is fixed off" in et.feature_problem("tx-checksumming", fixed["tx-checksumming"], fixed, True)
    # a group with a member fixed on cannot be turned off
    text = "Features for x:\nscatter-gather: on\n\ttx-scatter-gather: on [fixed]\n\ttx-scatter-gather-fraglist: off\n"
    stuck = et.parse_features(text)
    assert et.feature_problem("scatter-gather", stuck["scatter-gather"], stuck, False) == (
        "member tx-scatter-gather is fixed on by the driver"
    )


# -- other output -----------------------------------------------------------------------------------
def test_driver_info():
    assert et.parse_driver(fixture("virtio_net_i.txt"))["driver"] == "virtio_net"
    assert et.parse_driver(fixture("qeth_i.txt"))["bus-info"] == "0.0.bd00/0.0.bd01/0.0.bd02"
    assert et.parse_driver(fixture("ibmvnic_i.txt"))["driver"] == "ibmvnic"
    with pytest.raises(et.EthtoolParseError):
        et.parse_driver("nothing here")


def test_errors_unsupported_and_json_refused():
    assert et.unsupported(1, fixture("veth_g.stderr"))
    assert not et.unsupported(0, "")
    assert not et.unsupported(1, "netlink error: No such device")
    assert et.json_refused(1, "", "ethtool: bad command line argument(s)\nFor more information run ethtool -h\n")
    assert not et.json_refused(0, "[ {} ]", "")
    assert not et.json_refused(1, "", "netlink error: Operation not supported")
    assert et.pattern_match("tx-tcp6-segmentation", "tx-tcp*-segmentation")
    assert not et.pattern_match("tx-tcp6-segmentation-x", "tx-tcp*-segmentation")
    assert et.pattern_match("rx-checksum", "rx-checksum") and not et.pattern_match("rx-checksums", "rx-checksum")
