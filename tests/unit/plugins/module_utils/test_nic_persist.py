# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Boot configuration of nic_tuning: unit text, NetworkManager commands and properties per version,
irqbalance's file, and the driver-limit table. The unit and its script with hostile values, run by the
real /bin/sh: test_nic_boot_unit.py."""

from __future__ import absolute_import, division, print_function

import pytest

from ansible_collections.s390x.network.plugins.module_utils.nic import driver_limits as limits
from ansible_collections.s390x.network.plugins.module_utils.nic import persist
from ansible_collections.s390x.network.plugins.module_utils.ip import nm_cli


def test_names_are_systemd_escaped():
    assert persist.systemd_escape("eth0") == "eth0"
    assert persist.systemd_escape("eth-1") == "eth\\x2d1"
    assert persist.systemd_escape(".hidden") == "\\x2ehidden"
    assert persist.device_unit("enc8200") == "sys-subsystem-net-devices-enc8200.device"
    assert persist.unit_name("br-x") == "s390x-network-nic-tuning-br\\x2dx.service"
    assert persist.wants_link("eth0") == (
        "/etc/systemd/system/sys-subsystem-net-devices-eth0.device.wants/s390x-network-nic-tuning-eth0.service"
    )
    assert persist.script_path("eth0") == "/etc/s390x-network/nic-tuning/eth0.sh"


def test_unit_text():
    unit = persist.render_unit("eth0")
    assert unit.splitlines() == [
        persist.HEADER,
        "[Unit]",
        "Description=NIC tuning of eth0 (s390x.network.nic_tuning)",
        "BindsTo=sys-subsystem-net-devices-eth0.device",
        "After=sys-subsystem-net-devices-eth0.device",
        "Before=network-pre.target",
        "Wants=network-pre.target",
        "",
        "[Service]",
        "Type=oneshot",
        "RemainAfterExit=yes",
        "Environment=PATH=/usr/sbin:/usr/bin:/sbin:/bin",
        "",
        "[Install]",
        "WantedBy=sys-subsystem-net-devices-eth0.device",
    ]
    nm = persist.render_unit("eth0", networkmanager=True)
    assert "After=NetworkManager-wait-online.service" in nm and "Before=network-pre.target" not in nm
    full = persist.render_unit(
        "eth0",
        ethtool_argvs=[["-L", "eth0", "combined", "2"], ["-K", "eth0", "tso", "off"]],
        rps=[("all", "3")],
        irqs=[("virtio2-input.0", "1")],
        settings={"rps": {"all": "3"}},
    )
    assert full.splitlines()[1] == '# settings: {"rps":{"all":"3"}}'
    assert [line for line in full.splitlines() if line.startswith("ExecStart=")] == [
        "ExecStart=ethtool -L eth0 combined 2",
        "ExecStart=ethtool -K eth0 tso off",
        "ExecStart=/bin/sh /etc/s390x-network/nic-tuning/eth0.sh eth0 rps all 3 irq virtio2-input.0 1",
    ]
    assert persist.parse_settings(full) == {"rps": {"all": "3"}}
    # the constant script holds no value: the same text for every interface
    assert persist.helper_argv("eth0", [], []) is None
    assert "eth0" not in persist.HELPER


def test_networkmanager_commands_and_output():
    assert persist.argv_nm_device("eth0") == [
        "nmcli",
        "-t",
        "-f",
        "GENERAL.NM-MANAGED,GENERAL.CON-UUID",
        "device",
        "show",
        "eth0",
    ]
    assert persist.parse_nm_device(
        "GENERAL.NM-MANAGED:yes\nGENERAL.CON-UUID:5fb06bd0-0bb0-7ffb-45f1-d6edd65f3e03\n"
    ) == (
        True,
        "5fb06bd0-0bb0-7ffb-45f1-d6edd65f3e03",
    )
    assert persist.parse_nm_device("GENERAL.NM-MANAGED:no\nGENERAL.CON-UUID:\n") == (False, None)
    assert nm_cli.parse_version("nmcli tool, version 1.46.0\n") == (1, 46)
    assert nm_cli.parse_version("nmcli tool, version 1.40.16-1.el8\n") == (1, 40)
    shown = "ethtool.feature-tso:off\nethtool.ring-rx:1024\nethtool.ring-tx:\nethtool.coalesce-rx-usecs:--\nconnection.id:x\n"
    assert persist.parse_nm_ethtool(shown) == {
        "feature-tso": "off",
        "ring-rx": "1024",
        "ring-tx": None,
        "coalesce-rx-usecs": None,
    }
    assert persist.argv_nm_modify("u-1", {"ring-rx": "1024", "feature-tso": "off", "ring-tx": None}) == [
        "nmcli",
        "connection",
        "modify",
        "u-1",
        "ethtool.feature-tso",
        "off",
        "ethtool.ring-rx",
        "1024",
        "ethtool.ring-tx",
        "",
    ]


@pytest.mark.parametrize(
    "version, feature, gro_list, ring, channels",
    [
        ((1, 12), None, None, None, None),
        ((1, 14), "feature-tso", None, None, None),
        ((1, 26), "feature-tso", None, "ring-rx-jumbo", None),
        ((1, 30), "feature-tso", "feature-rx-gro-list", "ring-rx-jumbo", None),
        ((1, 40), "feature-tso", "feature-rx-gro-list", "ring-rx-jumbo", None),
        ((1, 46), "feature-tso", "feature-rx-gro-list", "ring-rx-jumbo", "channels-combined"),
    ],
)
def test_networkmanager_properties_by_version(version, feature, gro_list, ring, channels):
    assert persist.nm_feature_option("tcp-segmentation-offload", version) == feature
    assert persist.nm_feature_option("rx-gro-list", version) == gro_list
    assert persist.nm_ring_option("rx_jumbo", version) == ring
    assert persist.nm_channel_option("combined", version) == channels
    assert persist.nm_feature_option("tx-tcp-accecn-segmentation", version) is None  # not in NetworkManager


def test_irqbalance_file_from_its_unit():
    rhel = "[Service]\nEnvironmentFile=/etc/sysconfig/irqbalance\nExecStart=/usr/sbin/irqbalance --foreground $IRQBALANCE_ARGS\n"
    upstream = "[Service]\nEnvironmentFile=/usr/share/irqbalance.env\nEnvironmentFile=-/etc/default/irqbalance\n"
    assert persist.irqbalance_env_files(upstream) == ["/usr/share/irqbalance.env", "/etc/default/irqbalance"]
    assert persist.choose_irqbalance_file([rhel], lambda p: True) == "/etc/sysconfig/irqbalance"
    assert persist.choose_irqbalance_file([None, upstream], lambda p: False) == "/etc/default/irqbalance"
    assert persist.choose_irqbalance_file([None], lambda p: p == "/etc/default/irqbalance") == "/etc/default/irqbalance"
    assert persist.choose_irqbalance_file([None, None], lambda p: False) is None


# -- driver limits ----------------------------------------------------------------------------------
def test_channel_rules():
    assert limits.channel_problems("virtio_net", {"combined": 4}) == []
    assert limits.channel_problems("virtio_net", {"rx": 2}) == [("rx", "virtio_net sets only combined channels")]
    assert limits.channel_problems("ibmvnic", {"rx": 17, "tx": 0}) == [
        ("rx", "17 is above the ibmvnic maximum 16"),
        ("tx", "0 is below the ibmvnic minimum 1"),
    ]
    assert limits.channel_problems("qeth_l2", {"tx": 1}, card_type="OSD_10GIG") == []
    assert limits.channel_problems("qeth_l2", {"tx": 1}, card_type="HiperSockets") == [
        ("tx", "1 is below the qeth_l2 minimum 2")
    ]
    assert limits.channel_problems("e1000e", {"rx": 99}) == []  # unknown driver: ethtool's maxima only


def test_ring_rules():
    assert limits.ring_problems("mlx5_core", {"rx": 4096, "tx": 1024}) == []
    assert limits.ring_problems("mlx5_core", {"rx": 1000}) == [
        ("rx", "1000 is not a power of 2 (mlx5_core would round it up and report another size)")
    ]
    assert limits.ring_problems("mlx5_core", {"rx": 64}) == [("rx", "64 is below the mlx5_core minimum 128")]
    assert limits.ring_problems("qeth_l3", {"rx": 64}) == [
        (
            "rx",
            "qeth_l3 cannot change ring sizes with ethtool -G (its RX buffers are the qeth buffer_count attribute, "
            "set with s390x.network.qeth_device)",
        )
    ]
    assert limits.ring_problems("veth", {"tx": 256})[0][1] == "veth cannot change ring sizes with ethtool -G"
    assert limits.ring_problems("ibmvnic", {"rx": 8192}) == [("rx", "8192 is above the ibmvnic maximum 4096")]
    assert limits.resets("ibmvnic", "channels") and not limits.resets("mlx5_core", "channels")
    for driver, entry in limits.DRIVER_LIMITS.items():
        assert entry["sources"], driver
