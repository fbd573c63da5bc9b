# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Lab networking: one switch namespace per lab with the bridges, veths to the hosts.

```
root ns                 zlab-<lab>-sw (switch)                  zlab-<lab>-<host>
zlab<N> 10.209.N.1 ---- uplink ┐
                            ├ mgmt (bridge) ─ m<i> ------------ mgmt0 10.209.N.(10+i)
                            chpf0 (bridge, HiperSockets F0) ─ h<i>-8200 ---- enc8200
                            nx0314 (bridge, Network Express PCHID 314) ─ h<i>-f120 ---- eno288
```

Management subnet 10.209.N.0/24 (N = lab slot, one per running lab). No default route exists in
the hosts, nothing forwards or NATs: hosts reach only each other and the controller's veth.
The netdev hooks (written into each host's kernel state dir) create/remove ``enc<devno>`` veths
attached to the CHPID bridge when the emulated qeth device goes online/offline; the pcinet hooks
create/remove the netdev of a Network Express function bound to mlx5_core (``eno<UID>``/``ens<FID>``)
as a veth attached to its port's segment, the bridge ``nx<PCHID>``.
"""

import os
import subprocess

SUBNET_FMT = os.environ.get("ZLAB_SUBNET_FMT", "10.209.%d")
NETNS_PREFIX = "zlab-"


class NetError(Exception):
    pass


def run(cmd, check=True, ns=None):
    if ns:
        cmd = ["ip", "netns", "exec", ns] + cmd if cmd[0] != "ip" else ["ip", "-n", ns] + cmd[1:]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if check and proc.returncode != 0:
        raise NetError("%s: %s" % (" ".join(cmd), proc.stderr.strip() or proc.stdout.strip()))
    return proc


def switch_ns(lab):
    return "%s%s-sw" % (NETNS_PREFIX, lab)


def host_ns(lab, host):
    return "%s%s-%s" % (NETNS_PREFIX, lab, host)


def uplink(slot):
    return "zlab%d" % slot


def bridge_name(chpid):
    return "chp" + chpid.lower()


def controller_ip(slot):
    return SUBNET_FMT % slot + ".1"


def host_ip(slot, index):
    return SUBNET_FMT % slot + ".%d" % (10 + index)


def netns_list():
    try:
        return sorted(os.listdir("/run/netns"))
    except FileNotFoundError:
        return []


def ns_exists(name):
    return name in netns_list()


def add_ns(name):
    if not ns_exists(name):
        run(["ip", "netns", "add", name])
    run(["ip", "-n", name, "link", "set", "lo", "up"])


def del_ns(name):
    if ns_exists(name):
        run(["ip", "netns", "del", name], check=False)


def _add_bridge(ns, name, mtu=None):
    run(["ip", "-n", ns, "link", "add", name, "type", "bridge", "stp_state", "0", "forward_delay", "0"])
    if mtu:
        run(["ip", "-n", ns, "link", "set", name, "mtu", str(mtu)])
    run(["ip", "-n", ns, "link", "set", name, "up"])


def setup_switch(lab, slot, chpids):
    """Switch namespace, management bridge + controller uplink, one bridge per CHPID."""
    sw = switch_ns(lab)
    add_ns(sw)
    have = run(["ip", "-n", sw, "-o", "link", "show"]).stdout
    if " mgmt:" not in have:
        _add_bridge(sw, "mgmt")
    for chpid, info in sorted(chpids.items()):
        if " %s:" % bridge_name(chpid) not in have:
            _add_bridge(sw, bridge_name(chpid))
    up = uplink(slot)
    if run(["ip", "link", "show", up], check=False).returncode != 0:
        run(["ip", "link", "add", up, "type", "veth", "peer", "name", "uplink", "netns", sw])
        run(["ip", "-n", sw, "link", "set", "uplink", "master", "mgmt", "up"])
        run(["ip", "addr", "add", controller_ip(slot) + "/24", "dev", up])
        run(["ip", "link", "set", up, "up"])
    # the controller's side must never route lab traffic anywhere else
    for key in ("net/ipv4/conf/%s/forwarding" % up, "net/ipv6/conf/%s/disable_ipv6" % up):
        path = "/proc/sys/" + key
        if os.path.exists(path):
            with open(path, "w", encoding="ascii") as f:
                f.write("0" if key.endswith("forwarding") else "1")


def teardown_switch(lab, slot=None):
    if slot is not None:
        run(["ip", "link", "del", uplink(slot)], check=False)
    del_ns(switch_ns(lab))


def attach_host(lab, slot, index, host):
    """Host netns with mgmt0 on the management bridge (recreated at every host boot)."""
    ns = host_ns(lab, host)
    sw = switch_ns(lab)
    del_ns(ns)
    add_ns(ns)
    port = "m%d" % index
    run(["ip", "-n", sw, "link", "del", port], check=False)
    run(["ip", "-n", sw, "link", "add", port, "type", "veth", "peer", "name", "mgmt0", "netns", ns])
    run(["ip", "-n", sw, "link", "set", port, "master", "mgmt", "up"])
    # a fixed MAC: the controller's and the other hosts' ARP entries stay valid across reboots
    run(
        [
            "ip",
            "-n",
            ns,
            "link",
            "set",
            "mgmt0",
            "address",
            "02:5a:%02x:%02x:%02x:%02x" % (slot & 0xFF, 0, (index >> 8) & 0xFF, index & 0xFF),
        ]
    )
    run(["ip", "neigh", "flush", "to", host_ip(slot, index)], check=False)
    run(["ip", "-n", ns, "addr", "add", host_ip(slot, index) + "/24", "dev", "mgmt0"])
    run(["ip", "-n", ns, "link", "set", "mgmt0", "up"])
    # no IPv6 on the management link (no router advertisements, no autoconf noise)
    run(["ip", "netns", "exec", ns, "sysctl", "-q", "-w", "net.ipv6.conf.mgmt0.disable_ipv6=1"], check=False)
    return ns


def detach_host(lab, index, host):
    run(["ip", "-n", switch_ns(lab), "link", "del", "m%d" % index], check=False)
    del_ns(host_ns(lab, host))


def set_mgmt_link(lab, index, up):
    """`zlab fault HOST link off|on`: cut or restore the host's management link."""
    run(["ip", "-n", switch_ns(lab), "link", "set", "m%d" % index, "up" if up else "down"])


def mgmt_link_up(lab, index):
    """False when `zlab fault HOST link off` took the management link down (None: no link)."""
    proc = run(["ip", "-n", switch_ns(lab), "-o", "link", "show", "m%d" % index], check=False)
    if proc.returncode != 0 or "<" not in proc.stdout:
        return None
    return "UP" in proc.stdout.split("<", 1)[1].split(">", 1)[0].split(",")


def chpid_mac(chpid):
    """Shared MAC of layer-3 devices on a CHPID (NOARP: frames go to the device's own address)."""
    return "06:00:%s:00:00:00" % chpid.lower()


def device_mac(chpid, index, devno):
    d = int(devno.split(".")[-1], 16)
    return "06:00:%s:%02x:%02x:%02x" % (chpid.lower(), index & 0xFF, d >> 8, d & 0xFF)


HOOK_UP = r"""#!/bin/sh
# zlab netdev-up hook (lab side of the contract): BUSID IFNAME CHPID LAYER2 MTU
# Creates IFNAME in this host's netns, its peer on the CHPID's bridge in the lab switch namespace.
set -e
busid="$1"; ifname="$2"; chpid=$(echo "$3" | tr 'A-F' 'a-f'); layer2="$4"; mtu="${5:-1500}"
SW=/run/zlab/switch.netns
devno=$(echo "$busid" | sed 's/.*\.//')
peer="@PREFIX@$devno"
ip link del "$ifname" 2>/dev/null || true
nsenter --net="$SW" ip link del "$peer" 2>/dev/null || true
ip link add "$ifname" mtu "$mtu" type veth peer name "$peer" netns "$SW"
if [ "$layer2" = "1" ]; then
    ip link set "$ifname" address "06:00:$chpid:@INDEX@:$(echo $devno | cut -c1-2):$(echo $devno | cut -c3-4)"
    nsenter --net="$SW" ip link set "$peer" mtu "$mtu" master "chp$chpid" up
else
    # layer 3 (HiperSockets NOARP): every layer-3 device on the CHPID has the same address,
    # the switch port floods and does not learn
    ip link set "$ifname" address "06:00:$chpid:00:00:00" arp off
    nsenter --net="$SW" ip link set "$peer" mtu "$mtu" master "chp$chpid" up
    nsenter --net="$SW" bridge link set dev "$peer" learning off flood on
fi
exit 0
"""

HOOK_DOWN = r"""#!/bin/sh
# zlab netdev-down hook: BUSID IFNAME
busid="$1"; ifname="$2"
devno=$(echo "$busid" | sed 's/.*\.//')
ip link del "$ifname" 2>/dev/null || true
nsenter --net=/run/zlab/switch.netns ip link del "@PREFIX@$devno" 2>/dev/null || true
exit 0
"""


# Where a pcinet hook runs: inside the host (the FUSE daemon, a tool there) it is in the host's
# network namespace and finds the switch at /run/zlab/switch.netns; run by zlab itself (a guest's
# functions set before its init starts) it enters the namespaces by their names.
_PCINET_WHERE = r"""
if [ -e /run/zlab/switch.netns ]; then
    SW=/run/zlab/switch.netns; IN=""
elif [ -n "@HOSTNS@" ] && [ -e "/run/netns/@HOSTNS@" ]; then
    SW="/run/netns/@SWNS@"; IN="nsenter --net=/run/netns/@HOSTNS@"
else
    exit 0
fi
"""

HOOK_PCINET_UP = (
    r"""#!/bin/sh
# zlab pcinet-up hook: IFNAME PCHID MAC FID
# The netdev of a Network Express function that mlx5_core bound: IFNAME in this host's netns, its
# peer on the segment of the function's port (bridge nx<PCHID>) in the lab switch namespace.
set -e
ifname="$1"; pchid="$2"; mac="$3"; fid="$4"
peer="@PREFIX@f$fid"
"""
    + _PCINET_WHERE
    + r"""
$IN ip link del "$ifname" 2>/dev/null || true
nsenter --net="$SW" ip link del "$peer" 2>/dev/null || true
nsenter --net="$SW" ip link add "nx$pchid" type bridge stp_state 0 forward_delay 0 2>/dev/null || true
nsenter --net="$SW" ip link set "nx$pchid" up
$IN ip link add "$ifname" type veth peer name "$peer" netns "$SW"
$IN ip link set "$ifname" address "$mac"
nsenter --net="$SW" ip link set "$peer" master "nx$pchid" up
exit 0
"""
)

HOOK_PCINET_DOWN = (
    r"""#!/bin/sh
# zlab pcinet-down hook: IFNAME PCHID MAC FID
ifname="$1"; fid="$4"
"""
    + _PCINET_WHERE
    + r"""
$IN ip link del "$ifname" 2>/dev/null || true
nsenter --net="$SW" ip link del "@PREFIX@f$fid" 2>/dev/null || true
exit 0
"""
)


def pchid_bridge(pchid):
    """The segment of a Network Express port (PCHID, an int) in the switch namespace."""
    return "nx%04x" % pchid


def write_hooks(state_dir, index, prefix="h", netns=None, switch=None):
    """Install the netdev and pcinet hooks into STATE_DIR/hooks (run by the FUSE daemon inside the
    host; the pcinet ones also by zlab for a guest's functions, in ``netns`` and ``switch``)."""
    hooks = os.path.join(state_dir, "hooks")
    os.makedirs(hooks, exist_ok=True)
    for name, text in (
        ("netdev-up", HOOK_UP),
        ("netdev-down", HOOK_DOWN),
        ("pcinet-up", HOOK_PCINET_UP),
        ("pcinet-down", HOOK_PCINET_DOWN),
    ):
        path = os.path.join(hooks, name)
        text = text.replace("@PREFIX@", "%s%d-" % (prefix, index)).replace("@INDEX@", "%02x" % (index & 0xFF))
        text = text.replace("@HOSTNS@", netns or "").replace("@SWNS@", switch or "")
        with open(path, "w", encoding="ascii") as f:
            f.write(text)
        os.chmod(path, 0o755)


def add_guest_nic(lab, guest_ns, index, ifname, bridge, mac, mtu):
    """A guest's virtio-net (from <interface type='direct'>) on ``bridge`` (its source's CHPID
    bridge or Network Express port segment)."""
    sw = switch_ns(lab)
    peer = "g%d-%s" % (index, ifname[-4:])
    run(["ip", "-n", sw, "link", "del", peer], check=False)
    run(["ip", "-n", guest_ns, "link", "del", ifname], check=False)
    run(
        [
            "ip",
            "-n",
            sw,
            "link",
            "add",
            peer,
            "mtu",
            str(mtu),
            "type",
            "veth",
            "peer",
            "name",
            ifname,
            "netns",
            guest_ns,
        ]
    )
    if mac:
        run(["ip", "-n", guest_ns, "link", "set", ifname, "address", mac])
    run(["ip", "-n", guest_ns, "link", "set", ifname, "mtu", str(mtu)])
    run(["ip", "-n", sw, "link", "set", peer, "master", bridge, "up"])
