# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""zpci_function with Network Express on a lab LPAR (zlab/tests/fixtures/network_express): a NETD
PF gets its VFs unbound, a VF goes to vfio-pci and the NETH VF to mlx5_core; a second run changes
nothing; a VF count changed behind Ansible's back is drift in check mode and corrected; a reboot
brings back the VFs, their bindings and the PF's autoprobe from the boot files alone. The netdev of
a NETH VF bound to mlx5_core is a real link on its port's segment: the VFs of two partitions on one
port carry TCP, promiscuous mode is the link's flag, and the link goes with the binding."""

import json
import os
import time

import pytest

from labutil import LAB_NAME, REPO, ansible, in_host, run_module, zlab

NAME = LAB_NAME + "-netx"  # ZLAB_TEST_LAB names this run's labs
INVENTORY = os.path.join(REPO, "zlab", "tests", "fixtures", "network_express")
PF = [{"fid": 0x110, "driver": "mlx5_core", "expected_type": "netd", "sriov_numvfs": 2}]
HOST = [
    {"fid": 0x111, "driver": "vfio-pci", "expected_type": "netd"},
    {"fid": 0x120, "driver": "mlx5_core", "expected_type": "neth"},
]
MODULE = "s390x.network.zpci_function"


@pytest.fixture(scope="module")
def netx(images, tmp_path_factory):  # pylint: disable=unused-argument
    from zlab import model  # pylint: disable=import-outside-toplevel

    norm, errors, _warnings = model.cpc_model().normalize_cpc(
        {"name": "X", "machine": "z17", "partitions": [{"name": "A", "mif_id": 1, "host": "a"}], "network_express": []}
    )
    if errors or "network_express" not in norm:
        pytest.skip("the collection's CPC model does not read cpc.network_express")
    zlab("down", NAME, lab=None)
    zlab("up", INVENTORY, "--name", NAME, lab=None)
    inv = tmp_path_factory.mktemp("netx") / "zlab.yml"
    inv.write_text(zlab("inventory", lab=NAME).stdout)
    yield str(inv)
    zlab("down", NAME, lab=None, check=False)


def run(inv, config, **kw):
    return run_module(inv, "netx", MODULE, dict(kw, config=config))


def check_mode(inv, config):
    """The module's result in check mode (``ansible --check``)."""
    res = ansible(
        inv,
        "netx",
        "--check",
        "-m",
        MODULE,
        "-a",
        json.dumps({"config": config}),
        env={"ANSIBLE_LOAD_CALLBACK_PLUGINS": "1", "ANSIBLE_STDOUT_CALLBACK": "ansible.posix.json"},
    )
    return json.loads(res.stdout)["plays"][0]["tasks"][0]["hosts"]["netx"]


def sh(script, host="netx", check=True):
    return in_host(host, script, lab=NAME, check=check).stdout


def bindings():
    """{function_id: driver or '-'} of the host's PCI devices."""
    out = sh(
        "for d in /sys/bus/pci/devices/*; do b=-; [ -e $d/driver ] && b=$(basename $(readlink $d/driver)); "
        "echo $(cat $d/function_id) $b; done"
    )
    return dict(line.split() for line in out.splitlines())


def test_converge_again_drift_and_reboot(netx):
    pf = run(netx, PF)
    assert pf["changed"] is True, pf
    assert pf["functions"][0]["sriov"]["numvfs"] == 2 and pf["functions"][0]["sriov"]["drivers_autoprobe"] is False
    assert bindings() == {"0x00000110": "mlx5_core", "0x00000111": "-", "0x00000112": "-"}
    host = run(netx, HOST)
    assert host["changed"] is True, host
    assert [f.split(" is ")[0] for f in host["findings"]] == ["FID 0x120 (NETH VF 3 at 0001:00:00.0)"]
    neth = [f for f in host["functions"] if f["fid"] == 0x120][0]
    assert (neth["type"], neth["pft"], neth["fidparm"], neth["isolated_vf"]) == ("neth", 0x0C, 1, True)
    assert bindings() == {
        "0x00000110": "mlx5_core",
        "0x00000111": "vfio-pci",
        "0x00000112": "-",
        "0x00000120": "mlx5_core",
    }
    # a second run changes nothing
    for config in (PF, HOST):
        again = run(netx, config)
        assert again["changed"] is False and again["commands"] == [], again
    # behind Ansible's back: 1 VF instead of 2
    sh("d=/sys/bus/pci/devices/0000:00:00.0; echo 0 > $d/sriov_numvfs && echo 1 > $d/sriov_numvfs")
    check = check_mode(netx, PF)
    assert {"kind": "zpci", "object": "0x110", "scope": "active", "difference": "sriov_numvfs 1 -> 2"} in check["drift"]
    assert sh("cat /sys/bus/pci/devices/0000:00:00.0/sriov_numvfs") == "1\n"
    fixed = run(netx, PF)
    assert fixed["changed"] is True and fixed["commands"] == [
        "echo 0 > /sys/bus/pci/devices/0000:00:00.0/sriov_numvfs",
        "echo 2 > /sys/bus/pci/devices/0000:00:00.0/sriov_numvfs",
    ]
    run(netx, HOST)
    # the boot files alone bring it all back
    zlab("reboot", "netx", lab=NAME)
    assert bindings() == {
        "0x00000110": "mlx5_core",
        "0x00000111": "vfio-pci",
        "0x00000112": "-",
        "0x00000120": "mlx5_core",
    }
    assert sh("cat /sys/bus/pci/devices/0000:00:00.0/sriov_drivers_autoprobe") == "0\n"
    for config in (PF, HOST):
        assert run(netx, config)["changed"] is False


def _link(host, ifname):
    """``ip -j link show IFNAME`` in the host, or None when there is no such link."""
    out = sh("ip -j link show %s 2>/dev/null || true" % ifname, host=host)
    return json.loads(out)[0] if out.strip() else None


def _tcp(server, client, ip, port, size):
    """SIZE bytes from CLIENT to a socat listener on SERVER:IP:PORT; all of them arrive."""
    sh("rm -f /tmp/rx; (timeout 20 socat -u TCP-LISTEN:%d,reuseaddr CREATE:/tmp/rx >/dev/null 2>&1 &)" % port, server)
    deadline = time.monotonic() + 10
    while sh("ss -ltn | grep -c ':%d ' || true" % port, server).strip() == "0" and time.monotonic() < deadline:
        time.sleep(0.1)
    sh("head -c %d /dev/zero > /tmp/tx && socat -u FILE:/tmp/tx TCP:%s:%d" % (size, ip, port), client)
    got = -1
    deadline = time.monotonic() + 10
    while got != size and time.monotonic() < deadline:
        got = int(sh("stat -c %s /tmp/rx 2>/dev/null || echo -1", server).strip())
        time.sleep(0.1)
    assert got == size


def test_neth_netdev_is_a_real_link_on_its_port(netx):
    # after the reboot above, the boot files bound 0x120 to mlx5_core: its netdev ens288 (no UID
    # checking: ens<FID>) is a real link of the host, the one sysfs shows under the PCI function
    dev = "/sys/bus/pci/devices/0001:00:00.0"
    assert sh("cat %s/function_id; ls %s/net" % (dev, dev)) == "0x00000120\nens288\n"
    link = _link("netx", "ens288")
    assert link is not None and link["address"] == "02:03:14:01:20:00"
    assert sh("cat /sys/class/net/ens288/address") == link["address"] + "\n"
    assert sh("readlink -f /sys/class/net/ens288/device") == sh("readlink -f %s" % dev)
    # promiscuous mode is the link's flag, read back through sysfs (IFF_PROMISC 0x100)
    sh("ip link set ens288 promisc on")
    assert "PROMISC" in _link("netx", "ens288")["flags"]
    assert int(sh("cat /sys/class/net/ens288/flags"), 16) & 0x100
    sh("ip link set ens288 promisc off")
    assert not int(sh("cat /sys/class/net/ens288/flags"), 16) & 0x100
    # LNXB's VF 0x121 on the same port (PCHID 314): powered on, udev loads mlx5_core, which binds it
    assert _link("netx-b", "ens289") is None
    sh("echo 1 > /sys/bus/pci/slots/00000121/power", host="netx-b")
    assert _link("netx-b", "ens289")["address"] == "02:03:14:01:21:00"
    sh("ip addr add 10.209.253.1/24 dev ens288 && ip link set ens288 up")
    sh("ip addr add 10.209.253.2/24 dev ens289 && ip link set ens289 up", host="netx-b")
    _tcp("netx-b", "netx", "10.209.253.2", 5003, 100000)
    # the NETD PF 0x110 (mlx5_core) has its link too; its VF 0x111 on vfio-pci has none
    assert _link("netx", "ens272") is not None and _link("netx", "ens273") is None
    # unbound: link and sysfs netdev gone; bound again: back, on the same segment
    sh("echo 0001:00:00.0 > /sys/bus/pci/drivers/mlx5_core/unbind")
    assert _link("netx", "ens288") is None and sh("ls %s/net 2>/dev/null || true" % dev) == ""
    sh("echo 0001:00:00.0 > /sys/bus/pci/drivers_probe")
    assert _link("netx", "ens288") is not None
    sh("ip addr add 10.209.253.1/24 dev ens288 && ip link set ens288 up")
    _tcp("netx-b", "netx", "10.209.253.2", 5004, 1000)
    # powered off: gone
    sh("echo 0 > /sys/bus/pci/slots/00000121/power", host="netx-b")
    assert _link("netx-b", "ens289") is None
