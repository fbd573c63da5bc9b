# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""nic_tuning against a fake host (tests/unit/plugins/modules/nic_fake.py): exact commands, checks
against what the driver reports before anything changes, rollback, idempotence, check mode, boot
configuration (unit and NetworkManager), irqbalance."""

from __future__ import absolute_import, division, print_function

import errno

import pytest

from ansible_collections.s390x.network.plugins.module_utils.nic import persist
from ansible_collections.s390x.network.plugins.module_utils.nic import resource as nic_tuning_resource
from ansible_collections.s390x.network.plugins.module_utils.engine import unit_syntax
from ansible_collections.s390x.network.plugins.modules import nic_tuning
from ansible_collections.s390x.network.tests.unit.plugins.module_utils.test_nic_boot_unit import systemd_exec
from ansible_collections.s390x.network.tests.unit.plugins.modules.nic_fake import FakeNicHost, virtio_features

ETHTOOL = "/usr/sbin/ethtool"


def virtio_host(host_root, monkeypatch, version="6.1", cpus="0-3", queues=4, systemd=True):
    host = FakeNicHost(host_root, monkeypatch, version=version, cpus=cpus, systemd=systemd)
    host.add_iface(
        "eth0",
        "virtio_net",
        device="virtio2",
        channels={"max": {"combined": queues}, "current": {"combined": 1}},
        rings={"max": {"rx": 1024, "tx": 1024}, "current": {"rx": 256, "tx": 256}},
        features=virtio_features(),
        rx_queues=1,
    )
    for queue in range(queues):
        host.add_irq(38 + 2 * queue, "virtio2-input.%d" % queue)
        host.add_irq(39 + 2 * queue, "virtio2-output.%d" % queue)
    return host


def run(run_module, host, args, bin_paths=None, **kwargs):
    args = dict(args)
    args.setdefault("persistent", False)
    return run_module(
        nic_tuning.main,
        args,
        run_command=host.run,
        bin_paths={"nmcli": None} if bin_paths is None else bin_paths,
        **kwargs,
    )


FULL = {
    "config": [
        {
            "name": "eth0",
            "channels": {"combined": 4},
            "rings": {"rx": 512, "tx": 512},
            "features": {"tso": False, "gro": False, "rx-udp-gro-forwarding": True},
            "rps_cpus": {"all": "0-1"},
            "irq_affinity": {"rx-0": "1", "tx-0": [2]},
        }
    ]
}
FULL_COMMANDS = [
    "ethtool -L eth0 combined 4",
    "ethtool -G eth0 rx 512 tx 512",
    "ethtool -K eth0 tso off gro off rx-udp-gro-forwarding on",
    "echo 3 > /sys/class/net/eth0/queues/rx-0/rps_cpus",
    "echo 3 > /sys/class/net/eth0/queues/rx-1/rps_cpus",
    "echo 3 > /sys/class/net/eth0/queues/rx-2/rps_cpus",
    "echo 3 > /sys/class/net/eth0/queues/rx-3/rps_cpus",
    "echo 1 > /proc/irq/38/smp_affinity_list",
    "echo 2 > /proc/irq/39/smp_affinity_list",
]


def test_merged_applies_in_order_and_a_second_run_changes_nothing(run_module, host_root, monkeypatch):
    host = virtio_host(host_root, monkeypatch)
    out = run(run_module, host, FULL, diff=True)
    assert not out.failed, out.result
    result = out.result
    assert result["changed"] is True
    assert result["commands"] == FULL_COMMANDS
    assert [c[1:] for c in host.changing_calls()] == [
        ["-L", "eth0", "combined", "4"],
        ["-G", "eth0", "rx", "512", "tx", "512"],
        ["-K", "eth0", "tso", "off", "gro", "off", "rx-udp-gro-forwarding", "on"],
    ]
    iface = host.ifaces["eth0"]
    assert iface.channels["current"]["combined"] == 4 and iface.rings["current"] == {"rx": 512, "tx": 512}
    assert not host.feature("eth0", "tx-tcp-segmentation") and not host.feature("eth0", "tx-tcp6-segmentation")
    assert not host.feature("eth0", "generic-receive-offload") and host.feature("eth0", "rx-udp-gro-forwarding")
    assert [host.rps_mask("eth0", q) for q in range(4)] == ["3"] * 4
    assert (host.affinity(38), host.affinity(39), host.affinity(40)) == ("1", "2", "0-3")
    assert result["before"] == [
        {
            "name": "eth0",
            "channels": {"combined": 1},
            "rings": {"rx": 256, "tx": 256},
            "features": {
                "tcp-segmentation-offload": True,
                "generic-receive-offload": True,
                "rx-udp-gro-forwarding": False,
            },
            "rps_cpus": {0: "", 1: "", 2: "", 3: ""},
            "irq_affinity": {"virtio2-input.0": "0-3", "virtio2-output.0": "0-3"},
        }
    ]
    assert result["after"][0]["channels"] == {"combined": 4} and result["after"][0]["rps_cpus"][3] == "0-1"
    assert [(r["kind"], r["object"], r["scope"]) for r in result["drift"]] == [("nic", "eth0", "active")]
    differences = result["drift"][0]["difference"].split(", ")
    assert "channels.combined 1 -> 4" in differences
    assert "features.tcp-segmentation-offload on -> off" in differences
    assert "irq_affinity.virtio2-input.0 0-3 -> 1" in differences
    assert "rps_cpus.3 none -> 0-1" in differences
    assert len(differences) == 12
    assert "    channels.combined: 1\n" in result["diff"]["before"]
    assert "    channels.combined: 4\n" in result["diff"]["after"]
    assert result["ethtool_version"] == "6.1" and result["json"] == {"-g": False, "-k": True, "-l": False}
    assert result["interfaces"] == {"eth0": {"driver": "virtio_net", "persist_method": None}}
    assert result["warnings"] == []
    host.calls[:] = []
    again = run(run_module, host, FULL).result
    assert again["changed"] is False and again["commands"] == [] and again["drift"] == []
    assert host.changing_calls() == []


def test_check_mode_predicts_and_changes_nothing(run_module, host_root, monkeypatch):
    host = virtio_host(host_root, monkeypatch)
    out = run(run_module, host, FULL, check_mode=True)
    assert not out.failed, out.result
    assert out.result["changed"] is True and out.result["commands"] == FULL_COMMANDS
    assert out.result["after"][0]["rps_cpus"] == {0: "0-1", 1: "0-1", 2: "0-1", 3: "0-1"}
    assert host.changing_calls() == [] and host.writes == []
    assert host.ifaces["eth0"].channels["current"]["combined"] == 1


def test_json_output_where_the_version_has_it(run_module, host_root, monkeypatch):
    host = virtio_host(host_root, monkeypatch, version="6.15")
    out = run(run_module, host, FULL)
    assert not out.failed, out.result
    assert out.result["commands"] == FULL_COMMANDS
    assert out.result["json"] == {"-g": True, "-k": True, "-l": True}
    shows = [c[1:] for c in host.calls if c[0] == ETHTOOL and "--json" in c]
    assert ["--json", "-l", "eth0"] in shows and ["--json", "-g", "eth0"] in shows and ["--json", "-k", "eth0"] in shows
    assert run(run_module, host, FULL).result["changed"] is False


def test_json_refused_falls_back_to_text(run_module, host_root, monkeypatch):
    host = virtio_host(host_root, monkeypatch, version="6.15")
    host.fail[(ETHTOOL, "--json", "-l")] = (1, "", "ethtool: bad command line argument(s)\n")
    out = run(run_module, host, {"config": [{"name": "eth0", "channels": {"combined": 2}}]})
    assert not out.failed, out.result
    assert out.result["json"] == {"-l": False}
    assert [ETHTOOL, "-l", "eth0"] in host.calls and out.result["commands"] == ["ethtool -L eth0 combined 2"]


ERRORS = [
    (
        {"channels": {"combined": 9}},
        "config[0] (eth0).channels.combined: 9 is above the maximum 4 that virtio_net reports (ethtool -l eth0, "
        "pre-set maximums)",
    ),
    (
        {"channels": {"rx": 2}},
        "config[0] (eth0).channels.rx: virtio_net has no rx channels (ethtool -l shows n/a), only combined",
    ),
    (
        {"rings": {"rx": 2048}},
        "config[0] (eth0).rings.rx: 2048 is above the maximum 1024 that virtio_net reports (ethtool -g eth0, "
        "pre-set maximums)",
    ),
    (
        {"rings": {"rx_jumbo": 8}},
        "config[0] (eth0).rings.rx_jumbo: virtio_net has no rx-jumbo ring (ethtool -g shows n/a)",
    ),
    (
        {"features": {"lro": True}},
        "config[0] (eth0).features.lro: cannot be on: fixed off by the driver ([fixed] in ethtool -k)",
    ),
    (
        {"features": {"turbo": True}},
        "config[0] (eth0).features.turbo: virtio_net reports no such feature (ethtool -k eth0)",
    ),
    (
        {"features": {"tso": True, "tx-tcp6-segmentation": False}},
        "config[0] (eth0).features.tx-tcp6-segmentation: tx-tcp6-segmentation is a member of tcp-segmentation-offload; "
        "set the group or its members, not both",
    ),
    ({"features": {"gro": True, "rx-gro": False}}, "names the same feature (generic-receive-offload) as features.gro"),
    ({"rps_cpus": {"0": "2-5"}}, "config[0] (eth0).rps_cpus.0: CPU 4-5 not online (online: 0-3)"),
    ({"rps_cpus": {"1": "0"}}, "config[0] (eth0).rps_cpus.1: eth0 has 1 RX queue (rx-0..rx-0)"),
    (
        {"channels": {"combined": 2}, "rps_cpus": {"2": "0"}},
        "config[0] (eth0).rps_cpus.2: eth0 has 2 RX queues (rx-0..rx-1) after the channel change",
    ),
    ({"irq_affinity": {"eth9-*": "0"}}, "config[0] (eth0).irq_affinity.eth9-*: matches no IRQ in /proc/interrupts"),
    ({"irq_affinity": {"rx-0": "7"}}, "config[0] (eth0).irq_affinity.rx-0: CPU 7 not online (online: 0-3)"),
    (
        {"irq_affinity": {"all": "1", "0": "2"}},
        "config[0] (eth0).irq_affinity.all: IRQ 38 (virtio2-input.0) is also irq_affinity.0 with other CPUs",
    ),
]


@pytest.mark.parametrize("settings, message", ERRORS)
def test_refused_against_what_the_driver_reports_before_any_change(
    run_module, host_root, monkeypatch, settings, message
):
    host = virtio_host(host_root, monkeypatch)
    out = run(run_module, host, {"config": [dict(settings, name="eth0")]})
    assert out.failed
    assert message in out.result["msg"]
    assert out.result["commands"] == [] and host.changing_calls() == [] and host.writes == []


def test_every_problem_is_reported_at_once(run_module, host_root, monkeypatch):
    host = virtio_host(host_root, monkeypatch)
    config = [
        {"name": "eth0", "channels": {"combined": 5}, "features": {"lro": True}},
        {"name": "eth7", "channels": {"combined": 1}},
    ]
    out = run(run_module, host, {"config": config})
    assert out.failed
    assert out.result["msg"].split("; ") == [
        "config[0] (eth0).channels.combined: 5 is above the maximum 4 that virtio_net reports (ethtool -l eth0, "
        "pre-set maximums)",
        "config[0] (eth0).features.lro: cannot be on: fixed off by the driver ([fixed] in ethtool -k)",
        "config[1] (eth7): no such network interface (/sys/class/net/eth7)",
    ]
    assert host.changing_calls() == []


def test_driver_table_rules(run_module, host_root, monkeypatch):
    host = FakeNicHost(host_root, monkeypatch)
    host.add_iface(
        "ens1f0",
        "mlx5_core",
        device="0001:00:00.0",
        channels={"max": {"combined": 16}, "current": {"combined": 8}},
        rings={"max": {"rx": 8192, "tx": 8192}, "current": {"rx": 1024, "tx": 1024}},
    )
    host.add_iface(
        "encbd00",
        "qeth_l2",
        device="0.0.bd00",
        channels={"max": {"rx": 1, "tx": 4}, "current": {"rx": 1, "tx": 4}},
        rings={"max": {"rx": 128, "tx": 128}, "current": {"rx": 128, "tx": 128}},
    )
    host._write("/sys/class/net/encbd00/device/card_type", "HiperSockets\n")
    host.add_iface("veth0", "veth", channels={"max": {"rx": 4, "tx": 4}, "current": {"rx": 4, "tx": 4}})
    config = [
        {"name": "ens1f0", "rings": {"rx": 3000}},
        {"name": "encbd00", "rings": {"rx": 64}, "channels": {"tx": 1}},
        {"name": "veth0", "rings": {"tx": 256}, "channels": {"combined": 1}},
    ]
    out = run(run_module, host, {"config": config})
    assert out.failed
    assert out.result["msg"].split("; ") == [
        "config[0] (ens1f0).rings.rx: 3000 is not a power of 2 (mlx5_core would round it up and report another size)",
        "config[1] (encbd00).channels.tx: 1 is below the qeth_l2 minimum 2",
        "config[1] (encbd00).rings.rx: qeth_l2 cannot change ring sizes with ethtool -G (its RX buffers are the qeth "
        "buffer_count attribute, set with s390x.network.qeth_device)",
        "config[2] (veth0).channels.combined: veth has no combined channels (ethtool -l shows n/a), only rx, tx",
        "config[2] (veth0).rings.tx: veth cannot change ring sizes with ethtool -G",
    ]
    assert host.changing_calls() == []


def test_rollback_when_the_second_of_three_changes_fails(run_module, host_root, monkeypatch):
    host = virtio_host(host_root, monkeypatch)
    host.fail[(ETHTOOL, "-G")] = (1, "", "netlink error: Cannot allocate memory\n")
    args = {
        "config": [{"name": "eth0", "channels": {"combined": 4}, "rings": {"rx": 1024}, "features": {"tso": False}}]
    }
    out = run(run_module, host, args)
    assert out.failed
    result = out.result
    assert result["commands"] == ["ethtool -L eth0 combined 4", "ethtool -G eth0 rx 1024"]
    assert result["rollback"] == {"commands": ["ethtool -L eth0 combined 1"], "ok": True, "errors": []}
    assert result["msg"] == (
        "nic eth0: ethtool -G eth0 rx 1024 failed (exit code 1): netlink error: Cannot allocate memory (the driver could "
        "not allocate the buffers; smaller rings or fewer channels may fit); previous settings restored "
        "(ethtool -L eth0 combined 1)"
    )
    assert result["changed"] is False
    assert host.ifaces["eth0"].channels["current"]["combined"] == 1
    assert host.feature("eth0", "tx-tcp-segmentation") is True  # the third change never ran
    assert result["after"][0]["channels"] == {"combined": 1}


def test_rollback_of_rps_masks_and_channels(run_module, host_root, monkeypatch):
    host = virtio_host(host_root, monkeypatch)
    host.fail_paths["/sys/class/net/eth0/queues/rx-2/rps_cpus"] = errno.EIO
    args = {"config": [{"name": "eth0", "channels": {"combined": 4}, "rps_cpus": {"all": "2"}}]}
    out = run(run_module, host, args)
    assert out.failed
    assert out.result["commands"] == [
        "ethtool -L eth0 combined 4",
        "echo 4 > /sys/class/net/eth0/queues/rx-0/rps_cpus",
        "echo 4 > /sys/class/net/eth0/queues/rx-1/rps_cpus",
        "echo 4 > /sys/class/net/eth0/queues/rx-2/rps_cpus",
    ]
    # rx-1 did not exist before: it goes away with the channel count
    assert out.result["rollback"]["commands"] == [
        "echo 0 > /sys/class/net/eth0/queues/rx-0/rps_cpus",
        "ethtool -L eth0 combined 1",
    ]
    assert out.result["rollback"]["ok"] is True
    assert host.rps_mask("eth0", 0) == "0" and host.ifaces["eth0"].channels["current"]["combined"] == 1
    assert "Input/output error" in out.result["msg"]


def test_a_second_change_failing_leaves_the_first_interface_changed(run_module, host_root, monkeypatch):
    host = virtio_host(host_root, monkeypatch)
    host.add_iface("eth1", "veth", channels={"max": {"rx": 4, "tx": 4}, "current": {"rx": 1, "tx": 1}})
    host.fail[(ETHTOOL, "-L", "eth1")] = (1, "", "netlink error: Invalid argument\n")
    config = [{"name": "eth0", "channels": {"combined": 2}}, {"name": "eth1", "channels": {"rx": 2}}]
    out = run(run_module, host, {"config": config})
    assert out.failed and out.result["changed"] is True
    assert out.result["rollback"] == {"commands": [], "ok": True, "errors": []}
    assert host.ifaces["eth0"].channels["current"]["combined"] == 2


def test_irq_looked_up_by_name_after_a_driver_reset(run_module, host_root, monkeypatch):
    """ibmvnic resets on a channel change and its IRQs get new numbers."""
    host = FakeNicHost(host_root, monkeypatch)
    host.add_iface(
        "env2",
        "ibmvnic",
        device="30000002",
        channels={"max": {"rx": 16, "tx": 16}, "current": {"rx": 4, "tx": 4}},
        rx_queues=4,
    )
    host.add_irq(70, "ibmvnic-30000002-rx0")
    host.add_irq(71, "ibmvnic-30000002-tx0")
    host.after_channels = lambda: host.renumber_irq(70, 170)
    args = {"config": [{"name": "env2", "channels": {"rx": 8, "tx": 8}, "irq_affinity": {"rx-0": "3"}}]}
    check = run(run_module, host, args, check_mode=True).result
    assert check["commands"] == ["ethtool -L env2 rx 8 tx 8", "echo 3 > /proc/irq/70/smp_affinity_list"]
    out = run(run_module, host, args)
    assert not out.failed, out.result
    assert out.result["commands"] == ["ethtool -L env2 rx 8 tx 8", "echo 3 > /proc/irq/170/smp_affinity_list"]
    assert host.affinity(170) == "3"


def test_disruptive_change_on_the_management_interface(run_module, host_root, monkeypatch):
    host = FakeNicHost(host_root, monkeypatch)
    host.add_iface(
        "env2", "ibmvnic", device="30000002", channels={"max": {"rx": 16, "tx": 16}, "current": {"rx": 4, "tx": 4}}
    )
    monkeypatch.setattr(
        nic_tuning_resource,
        "management_connection",
        lambda module: ({"env2"}, {"ssh_connection": {"client": "10.1.1.9", "server": "10.1.1.5"}}),
    )
    args = {"config": [{"name": "env2", "channels": {"rx": 8, "tx": 8}}]}
    out = run(run_module, host, args)
    assert out.failed
    assert out.result["msg"] == (
        "nic env2: it carries the management connection (SSH from 10.1.1.9 to 10.1.1.5), and ibmvnic resets the "
        "device on ethtool -L env2 rx 8 tx 8, which takes the link down. Set allow_disruptive: true to do it anyway."
    )
    assert host.changing_calls() == [] and out.result["management_interfaces"] == ["env2"]
    out = run(run_module, host, dict(args, allow_disruptive=True))
    assert not out.failed and out.result["commands"] == ["ethtool -L env2 rx 8 tx 8"]


def irqbalance(host, running=True):
    host._write("/usr/lib/systemd/system/irqbalance.service", "[Service]\nEnvironmentFile=/etc/sysconfig/irqbalance\n")
    host._write("/etc/sysconfig/irqbalance", '# irqbalance\nIRQBALANCE_ARGS="--hintpolicy=ignore"\n')
    if running:
        host._write("/proc/4242/comm", "irqbalance\n")


def test_irqbalance_running_is_warned_about(run_module, host_root, monkeypatch):
    host = virtio_host(host_root, monkeypatch)
    irqbalance(host)
    out = run(run_module, host, {"config": [{"name": "eth0", "irq_affinity": {"0": "1"}}]})
    assert not out.failed, out.result
    assert out.result["commands"] == [
        "echo 1 > /proc/irq/38/smp_affinity_list",
        "echo 1 > /proc/irq/39/smp_affinity_list",
    ]
    assert out.result["warnings"] == [
        "config[0] (eth0): irqbalance is running and moves IRQs again (every 10 s); the affinities set here may not "
        "last. Use irqbalance: ban (the module never stops irqbalance)"
    ]
    assert out.result["irqbalance"] == {
        "running": True,
        "file": "/etc/sysconfig/irqbalance",
        "banned": [],
        "restart_needed": False,
    }


def test_irqbalance_ban(run_module, host_root, monkeypatch):
    host = virtio_host(host_root, monkeypatch)
    irqbalance(host)
    args = {"config": [{"name": "eth0", "irq_affinity": {"0": "1"}, "irqbalance": "ban"}]}
    out = run(run_module, host, args)
    assert not out.failed, out.result
    result = out.result
    assert result["commands"] == [
        "echo 1 > /proc/irq/38/smp_affinity_list",
        "echo 1 > /proc/irq/39/smp_affinity_list",
        "write /etc/sysconfig/irqbalance",
    ]
    assert host.read("/etc/sysconfig/irqbalance") == (
        '# irqbalance\nIRQBALANCE_ARGS="--hintpolicy=ignore --banirq=38 --banirq=39"\n'
    )
    assert result["irqbalance"]["restart_needed"] is True and result["irqbalance"]["banned"] == [38, 39]
    assert any("restart it so that it leaves IRQ 38, 39 alone" in w for w in result["warnings"])
    assert {
        "kind": "nic",
        "object": "irqbalance",
        "scope": "persistent",
        "difference": "banned none -> 38,39",
    } in result["drift"]
    again = run(run_module, host, args).result
    assert again["changed"] is False and again["irqbalance"]["restart_needed"] is False


def exec_argvs(unit):
    """The ExecStart= lines of a unit, read back as systemd reads what unit_syntax wrote."""
    return [unit_syntax.parse_exec_line(line)[0] for line in unit.splitlines() if line.startswith("ExecStart=")]


def test_persistent_boot_unit(run_module, host_root, monkeypatch):
    host = virtio_host(host_root, monkeypatch)
    args = {
        "persistent": True,
        "config": [
            {"name": "eth0", "channels": {"combined": 2}, "rps_cpus": {"all": "0-1"}, "irq_affinity": {"rx-0": "1"}}
        ],
    }
    out = run(run_module, host, args)
    assert not out.failed, out.result
    assert out.result["commands"] == [
        "ethtool -L eth0 combined 2",
        "echo 3 > /sys/class/net/eth0/queues/rx-0/rps_cpus",
        "echo 3 > /sys/class/net/eth0/queues/rx-1/rps_cpus",
        "echo 1 > /proc/irq/38/smp_affinity_list",
        "write /etc/s390x-network/nic-tuning/eth0.sh",
        "write /etc/systemd/system/s390x-network-nic-tuning-eth0.service",
        "systemctl daemon-reload",
        "systemctl enable s390x-network-nic-tuning-eth0.service",
    ]
    # the script is the same constant text for every interface; the values are the unit's argv
    assert host.read(persist.script_path("eth0")) == persist.HELPER
    unit = host.read(persist.unit_path("eth0"))
    assert unit.splitlines()[:2] == [
        persist.HEADER,
        '# settings: {"channels":{"combined":2},"features":{},"irqs":{"virtio2-input.0":"1"},"rings":{},'
        '"rps":{"all":"3"}}',
    ]
    assert exec_argvs(unit) == [
        ["ethtool", "-L", "eth0", "combined", "2"],
        ["/bin/sh", "/etc/s390x-network/nic-tuning/eth0.sh", "eth0", "rps", "all", "3", "irq", "virtio2-input.0", "1"],
    ]
    assert out.result["interfaces"]["eth0"]["persist_method"] == "unit"
    persistent = [r["difference"] for r in out.result["drift"] if r["scope"] == "persistent"]
    assert persistent == [
        "unit - -> /etc/systemd/system/s390x-network-nic-tuning-eth0.service, enabled 0 -> 1, "
        "settings.channels.combined - -> 2, settings.rps.all - -> 3, settings.irqs.virtio2-input.0 - -> 1"
    ]
    assert run(run_module, host, args).result["changed"] is False
    # merged keeps what the boot unit held; replaced keeps only what is given
    out = run(run_module, host, {"persistent": True, "config": [{"name": "eth0", "features": {"gro": False}}]})
    settings = persist.parse_settings(host.read(persist.unit_path("eth0")))
    assert settings == {
        "channels": {"combined": 2},
        "features": {"generic-receive-offload": False},
        "irqs": {"virtio2-input.0": "1"},
        "rings": {},
        "rps": {"all": "3"},
    }
    assert out.result["commands"] == [
        "ethtool -K eth0 gro off",
        "write /etc/systemd/system/s390x-network-nic-tuning-eth0.service",
        "systemctl daemon-reload",
    ]
    assert exec_argvs(host.read(persist.unit_path("eth0")))[1] == ["ethtool", "-K", "eth0", "gro", "off"]
    out = run(
        run_module,
        host,
        {"state": "replaced", "persistent": True, "config": [{"name": "eth0", "features": {"gro": False}}]},
    )
    assert not out.failed, out.result
    assert out.result["commands"] == [
        "echo 0 > /sys/class/net/eth0/queues/rx-0/rps_cpus",
        "echo 0 > /sys/class/net/eth0/queues/rx-1/rps_cpus",
        "rm /etc/s390x-network/nic-tuning/eth0.sh",
        "write /etc/systemd/system/s390x-network-nic-tuning-eth0.service",
        "systemctl daemon-reload",
    ]
    unit = host.read(persist.unit_path("eth0"))
    assert persist.parse_settings(unit)["rps"] == {}
    assert exec_argvs(unit) == [["ethtool", "-K", "eth0", "gro", "off"]]
    # nothing left for the boot unit: the unit goes
    out = run(run_module, host, {"state": "replaced", "persistent": True, "config": [{"name": "eth0"}]})
    assert out.result["commands"] == [
        "systemctl disable s390x-network-nic-tuning-eth0.service",
        "rm /etc/systemd/system/s390x-network-nic-tuning-eth0.service",
        "systemctl daemon-reload",
    ]
    assert host.read(persist.unit_path("eth0")) is None and host.read(persist.script_path("eth0")) is None


def test_persistent_boot_unit_without_a_running_systemd(run_module, host_root, monkeypatch):
    """systemd installed but not the init system (a container, a chroot): daemon-reload would fail
    ("System has not been booted with systemd"); the files and the enable link are written."""
    host = virtio_host(host_root, monkeypatch, systemd=False)
    host.fail[("/usr/sbin/systemctl", "daemon-reload")] = (1, "", "System has not been booted with systemd\n")
    args = {"persistent": True, "config": [{"name": "eth0", "channels": {"combined": 2}}]}
    out = run(run_module, host, args)
    assert not out.failed, out.result
    assert out.result["commands"] == [
        "ethtool -L eth0 combined 2",
        "write /etc/systemd/system/s390x-network-nic-tuning-eth0.service",
        "systemctl enable s390x-network-nic-tuning-eth0.service",
    ]
    assert host.systemctl == [["enable", "s390x-network-nic-tuning-eth0.service"]]
    assert exec_argvs(host.read(persist.unit_path("eth0"))) == [["ethtool", "-L", "eth0", "combined", "2"]]
    assert host.read(persist.script_path("eth0")) is None  # no RPS or IRQ: no script
    assert run(run_module, host, args).result["changed"] is False
    out = run(run_module, host, {"state": "replaced", "persistent": True, "config": [{"name": "eth0"}]})
    assert out.result["commands"] == [
        "systemctl disable s390x-network-nic-tuning-eth0.service",
        "rm /etc/systemd/system/s390x-network-nic-tuning-eth0.service",
    ]
    # a failure rolls back without daemon-reload either
    host.fail[("/usr/sbin/systemctl", "enable")] = (1, "", "Failed to enable unit\n")
    out = run(run_module, host, args)
    assert out.failed
    assert out.result["rollback"]["commands"] == [
        "rm /etc/systemd/system/s390x-network-nic-tuning-eth0.service",
    ]
    assert ["daemon-reload"] not in host.systemctl


def test_persistent_rollback_puts_files_back(run_module, host_root, monkeypatch):
    host = virtio_host(host_root, monkeypatch)
    host.fail[("/usr/sbin/systemctl", "enable")] = (1, "", "Failed to enable unit\n")
    out = run(run_module, host, {"persistent": True, "config": [{"name": "eth0", "channels": {"combined": 2}}]})
    assert out.failed
    assert out.result["rollback"]["commands"] == [
        "rm /etc/systemd/system/s390x-network-nic-tuning-eth0.service",
        "ethtool -L eth0 combined 1",
        "systemctl daemon-reload",
    ]
    assert out.result["rollback"]["ok"] is True
    assert host.read(persist.unit_path("eth0")) is None and host.ifaces["eth0"].channels["current"]["combined"] == 1


def nm_host(host_root, monkeypatch, version):
    host = virtio_host(host_root, monkeypatch)
    host.with_networkmanager(
        version=version,
        devices={"eth0": (True, "5fb06bd0-0bb0-7ffb-45f1-d6edd65f3e03")},
        profiles={"5fb06bd0-0bb0-7ffb-45f1-d6edd65f3e03": {"feature-gro": "on", "ring-rx": None}},
    )
    return host


UUID = "5fb06bd0-0bb0-7ffb-45f1-d6edd65f3e03"
NM_ARGS = {
    "persistent": True,
    "config": [{"name": "eth0", "channels": {"combined": 2}, "rings": {"rx": 512}, "features": {"tso": False}}],
}


def test_networkmanager_without_channel_properties(run_module, host_root, monkeypatch):
    """NetworkManager 1.42 has ethtool.ring-* and features, not ethtool.channels-*: those go to the unit."""
    host = nm_host(host_root, monkeypatch, "1.42.2")
    out = run(run_module, host, NM_ARGS, bin_paths={})
    assert not out.failed, out.result
    assert out.result["commands"] == [
        "ethtool -L eth0 combined 2",
        "ethtool -G eth0 rx 512",
        "ethtool -K eth0 tso off",
        "nmcli connection modify %s ethtool.feature-tso off ethtool.ring-rx 512" % UUID,
        "write /etc/systemd/system/s390x-network-nic-tuning-eth0.service",
        "systemctl daemon-reload",
        "systemctl enable s390x-network-nic-tuning-eth0.service",
    ]
    assert host.nm["profiles"][UUID] == {"feature-gro": "on", "feature-tso": "off", "ring-rx": "512"}
    unit = host.read(persist.unit_path("eth0"))
    assert "After=NetworkManager-wait-online.service" in unit.splitlines()
    assert exec_argvs(unit) == [["ethtool", "-L", "eth0", "combined", "2"]]
    assert out.result["interfaces"]["eth0"]["persist_method"] == "networkmanager"
    assert out.result["networkmanager_version"] == "1.42"
    assert run(run_module, host, NM_ARGS, bin_paths={}).result["changed"] is False


def test_networkmanager_with_channel_properties_and_replaced(run_module, host_root, monkeypatch):
    host = nm_host(host_root, monkeypatch, "1.46.0")
    out = run(run_module, host, dict(NM_ARGS, state="replaced"), bin_paths={})
    assert not out.failed, out.result
    assert out.result["commands"][3:] == [
        "nmcli connection modify %s ethtool.channels-combined 2 ethtool.feature-gro '' ethtool.feature-tso off "
        "ethtool.ring-rx 512" % UUID,
    ]
    assert host.nm["profiles"][UUID] == {
        "channels-combined": "2",
        "feature-gro": None,
        "feature-tso": "off",
        "ring-rx": "512",
    }
    persistent = [r["difference"] for r in out.result["drift"] if r["scope"] == "persistent"]
    assert len(persistent) == 1 and "networkmanager.feature-gro on -> -" in persistent[0].split(", ")
    assert host.read(persist.unit_path("eth0")) is None


def test_networkmanager_required_but_not_managing(run_module, host_root, monkeypatch):
    host = virtio_host(host_root, monkeypatch)
    host.with_networkmanager(version="1.46.0", devices={"eth0": (False, None)})
    out = run(run_module, host, dict(NM_ARGS, persist_method="networkmanager"), bin_paths={})
    assert out.failed
    assert out.result["msg"] == (
        "config[0] (eth0): persist_method networkmanager, but NetworkManager does not manage eth0 with an active profile"
    )
    assert host.changing_calls() == []


def test_gathered(run_module, host_root, monkeypatch):
    host = virtio_host(host_root, monkeypatch, queues=2)
    host._write("/sys/class/net/eth0/queues/rx-0/rps_cpus", "3\n")
    out = run(run_module, host, {"state": "gathered", "config": [{"name": "eth0"}]})
    assert not out.failed, out.result
    gathered = out.result["gathered"]
    assert gathered == [
        {
            "name": "eth0",
            "channels": {"combined": 1},
            "rings": {"rx": 256, "tx": 256},
            "features": {
                "tx-checksum-ip-generic": True,
                "tx-scatter-gather": True,
                "tx-tcp-segmentation": True,
                "tx-tcp6-segmentation": True,
                "generic-segmentation-offload": True,
                "generic-receive-offload": True,
                "rx-udp-gro-forwarding": False,
            },
            "rps_cpus": {0: "0-1"},
            "irq_affinity": {
                "virtio2-input.0": "0-3",
                "virtio2-output.0": "0-3",
                "virtio2-input.1": "0-3",
                "virtio2-output.1": "0-3",
            },
        }
    ]
    assert out.result["changed"] is False and host.changing_calls() == []
    # what gathered returns is accepted as config and changes nothing
    again = run(run_module, host, {"config": gathered})
    assert not again.failed, again.result
    assert again.result["changed"] is False


def test_rendered_needs_no_host(run_module):
    out = run_module(
        nic_tuning.main,
        {
            "state": "rendered",
            "config": [
                {
                    "name": "eth0",
                    "channels": {"combined": 4},
                    "rings": {"rx": 1024},
                    "features": {"tcp-segmentation-offload": False},
                    "rps_cpus": {"all": "0-3"},
                    "irq_affinity": {"rx-0": "1"},
                }
            ],
        },
    )
    assert not out.failed, out.result
    assert out.result["rendered"] == [
        "ethtool -L eth0 combined 4",
        "ethtool -G eth0 rx 1024",
        "ethtool -K eth0 tso off",
        "echo f > /sys/class/net/eth0/queues/rx-*/rps_cpus",
        "echo 1 > /proc/irq/<IRQ of eth0 rx-0>/smp_affinity_list",
    ]


def test_rollback_of_irq_affinities(run_module, host_root, monkeypatch):
    host = virtio_host(host_root, monkeypatch)
    host.fail_paths["/proc/irq/39/smp_affinity_list"] = errno.EINVAL
    out = run(run_module, host, {"config": [{"name": "eth0", "irq_affinity": {"0": "1"}}]})
    assert out.failed
    assert out.result["commands"] == [
        "echo 1 > /proc/irq/38/smp_affinity_list",
        "echo 1 > /proc/irq/39/smp_affinity_list",
    ]
    # IRQ 39 refused the value and kept its CPUs: only IRQ 38 is put back
    assert out.result["rollback"] == {
        "commands": ["echo 0-3 > /proc/irq/38/smp_affinity_list"],
        "ok": True,
        "errors": [],
    }
    # IRQ 39 never changed; IRQ 38 is back
    assert host.affinity(38) == "0-3" and host.affinity(39) == "0-3"
    assert out.result["msg"].startswith(
        "nic eth0: echo 1 > /proc/irq/39/smp_affinity_list failed (exit code 1): Invalid argument"
    )


def test_an_irq_that_disappeared_is_not_written_under_its_old_number(run_module, host_root, monkeypatch):
    host = FakeNicHost(host_root, monkeypatch)
    host.add_iface(
        "env2", "ibmvnic", device="30000002", channels={"max": {"rx": 16, "tx": 16}, "current": {"rx": 4, "tx": 4}}
    )
    host.add_irq(70, "ibmvnic-30000002-rx0")

    def reset():
        host.irqs.pop(70, None)
        host._render_interrupts()

    host.after_channels = reset
    out = run(run_module, host, {"config": [{"name": "env2", "channels": {"rx": 2}, "irq_affinity": {"rx-0": "3"}}]})
    assert out.failed
    assert "no IRQ named ibmvnic-30000002-rx0 in /proc/interrupts (it was IRQ 70)" in out.result["msg"]
    assert ("/proc/irq/70/smp_affinity_list", "3") not in host.writes
    assert out.result["rollback"]["commands"] == ["ethtool -L env2 rx 4"]


# -- hostile but kernel-legal interface names ---------------------------------------------------------
@pytest.mark.parametrize("name", ["a$(id>pwn)", "x;id>pwn", "`id>pwn`", "p%n", 'q"r', "s'\\", "t\\", "${PATH}"])
def test_a_hostile_but_kernel_legal_name_is_data_live_and_in_the_boot_unit(run_module, host_root, monkeypatch, name):
    host = FakeNicHost(host_root, monkeypatch)
    host.add_iface(
        name,
        "virtio_net",
        device="virtio2",
        channels={"max": {"combined": 4}, "current": {"combined": 1}},
        features=virtio_features(),
        rx_queues=1,
    )
    for queue in range(4):
        host.add_irq(38 + 2 * queue, "virtio2-input.%d" % queue)
        host.add_irq(39 + 2 * queue, "virtio2-output.%d" % queue)
    args = {
        "persistent": True,
        "config": [
            {"name": name, "channels": {"combined": 2}, "rps_cpus": {"all": "0-1"}, "irq_affinity": {"rx-0": "1"}}
        ],
    }
    out = run(run_module, host, args)
    assert not out.failed, out.result
    # live: argv lists, the name one element
    assert [c for c in host.calls if c[1:2] == ["-L"]] == [["/usr/sbin/ethtool", "-L", name, "combined", "2"]]
    assert host.rps_mask(name, 1) == "3"
    # at boot: what systemd reads from the unit, the script a constant text
    unit = host.read(persist.unit_path(name))
    assert systemd_exec(unit) == [
        (["ethtool", "-L", name, "combined", "2"], False),
        (["/bin/sh", persist.script_path(name), name, "rps", "all", "3", "irq", "virtio2-input.0", "1"], False),
    ]
    assert host.read(persist.script_path(name)) == persist.HELPER
    assert host.systemctl[-1] == ["enable", persist.unit_name(name)]
    assert run(run_module, host, args).result["changed"] is False


def test_the_unit_and_script_of_an_earlier_release_are_replaced_keeping_their_settings(
    run_module, host_root, monkeypatch
):
    """An earlier release wrote the values into the script (``ethtool '-L' 'eth0' ...``) and its
    ``# settings:`` line; the unit ran ``/bin/sh SCRIPT``. The settings carry over into the new unit."""
    host = virtio_host(host_root, monkeypatch)
    old_script = "\n".join(
        [
            "#!/bin/sh",
            persist.HEADER,
            '# settings: {"channels":{"combined":2},"features":{},"irqs":{},"rings":{},"rps":{"all":"3"}}',
            "# Run by s390x-network-nic-tuning-eth0.service whenever eth0 appears.",
            'r="${NIC_TUNING_ROOT:-}"',
            "rc=0",
            "ethtool '-L' 'eth0' 'combined' '2' || rc=1",
            "exit $rc",
            "",
        ]
    )
    old_unit = "\n".join(
        [
            persist.HEADER,
            "[Unit]",
            "Description=NIC tuning of eth0 (s390x.network.nic_tuning)",
            "[Service]",
            "Type=oneshot",
            "ExecStart=/bin/sh /etc/s390x-network/nic-tuning/eth0.sh",
            "[Install]",
            "WantedBy=sys-subsystem-net-devices-eth0.device",
            "",
        ]
    )
    host._write(persist.script_path("eth0"), old_script)
    host._write(persist.unit_path("eth0"), old_unit)
    host._write(persist.wants_link("eth0"), "")
    out = run(run_module, host, {"persistent": True, "config": [{"name": "eth0", "features": {"gro": False}}]})
    assert not out.failed, out.result
    assert out.result["commands"] == [
        "ethtool -K eth0 gro off",
        "write /etc/s390x-network/nic-tuning/eth0.sh",
        "write /etc/systemd/system/s390x-network-nic-tuning-eth0.service",
        "systemctl daemon-reload",
    ]
    unit = host.read(persist.unit_path("eth0"))
    assert persist.parse_settings(unit) == {
        "channels": {"combined": 2},
        "features": {"generic-receive-offload": False},
        "irqs": {},
        "rings": {},
        "rps": {"all": "3"},
    }
    assert systemd_exec(unit) == [
        (["ethtool", "-L", "eth0", "combined", "2"], False),
        (["ethtool", "-K", "eth0", "gro", "off"], False),
        (["/bin/sh", persist.script_path("eth0"), "eth0", "rps", "all", "3"], False),
    ]
    assert host.read(persist.script_path("eth0")) == persist.HELPER


def test_settings_edited_into_the_unit_by_hand_do_not_reach_the_next_unit(run_module, host_root, monkeypatch):
    host = virtio_host(host_root, monkeypatch)
    edited = (
        '# settings: {"channels":{"combined":"2; id"},"features":{"x y":true,"tso":"on"},'
        '"irqs":{"a b":"1","ok-1":"1\\n"},"rings":{"rx":true},"rps":{"../x":"3","0":"f;id"}}\n'
    )
    host._write(persist.unit_path("eth0"), edited)
    host._write(persist.wants_link("eth0"), "")
    out = run(run_module, host, {"persistent": True, "config": [{"name": "eth0", "channels": {"combined": 2}}]})
    assert not out.failed, out.result
    unit = host.read(persist.unit_path("eth0"))
    assert persist.parse_settings(unit) == {
        "channels": {"combined": 2},
        "features": {},
        "irqs": {},
        "rings": {},
        "rps": {},
    }
    assert systemd_exec(unit) == [(["ethtool", "-L", "eth0", "combined", "2"], False)]
