# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The built-in lab end to end: up, SSH, exec, HiperSockets TCP, MacVTap, reboot persistence,
drift, faults, KVM guest devices from the domain XML. Tests run in file order on one lab."""

import json
import time

import yaml

from labutil import LAB_INVENTORY, LAB_NAME, ansible, in_host, port_open, zlab

HOSTS = {"lpar-a", "lpar-b", "g1"}


def test_up_reports_every_host(lab):
    for h in HOSTS:
        assert h in lab["up"]
    status = json.loads(zlab("status", "--json").stdout)[0]
    assert set(status["hosts"]) == HOSTS
    assert all(h["state"] == "running" for h in status["hosts"].values())
    assert status["hosts"]["lpar-a"]["role"] == "kvm_host"
    assert status["hosts"]["g1"]["kvm_host"] == "lpar-a"
    assert status["emulator"] is True
    # up again: nothing to do; `zlab --lab NAME up DIR` names the lab (not DIR's name "lab")
    again = zlab("up", LAB_INVENTORY)
    assert "lab %s is already up (3 hosts); inventory variables unchanged" % LAB_NAME in again.stdout


def test_start_guest_right_after_up_says_it_runs(lab):
    # `up` started g1 with its base devices: starting it again is refused with what to do
    res = zlab("start-guest", "g1", check=False)
    assert res.returncode == 1
    assert res.stderr.startswith("zlab: g1 is already running (zlab up starts every guest")
    assert "zlab stop-guest g1 first, or zlab reboot g1" in res.stderr
    assert json.loads(zlab("status", "--json").stdout)[0]["hosts"]["g1"]["state"] == "running"


def test_inventory_is_usable_and_keeps_cpc(lab):
    inv = yaml.safe_load(open(lab["inventory"], encoding="utf-8"))
    hosts = inv["all"]["hosts"]
    assert set(hosts) == HOSTS
    for h in hosts.values():
        assert h["ansible_user"] == "root"
        assert h["ansible_python_interpreter"] == "/usr/bin/python3"
        assert "StrictHostKeyChecking=no" in h["ansible_ssh_common_args"]
    assert inv["all"]["vars"]["cpc"]["name"] == "ZLAB"
    assert set(inv["all"]["children"]["kvm_hosts"]["hosts"]) == {"lpar-a"}
    assert hosts["lpar-a"]["qeth_devices"][0]["buffer_count"] == 128


def test_ansible_ping_over_ssh(lab):
    res = ansible(lab["inventory"], "all", "-m", "ping")
    assert res.returncode == 0, res.stdout + res.stderr
    assert res.stdout.count("SUCCESS") == 3
    # facts: an s390x RHEL 8.8 with the profile's kernel
    res = ansible(lab["inventory"], "lpar-a", "-m", "setup", "-a", "filter=ansible_[adkm]*")
    assert res.returncode == 0, res.stdout + res.stderr
    facts = json.loads(res.stdout.split("=>", 1)[1])["ansible_facts"]
    assert facts["ansible_architecture"] == "s390x"
    assert facts["ansible_kernel"] == "4.18.0-477.10.1.el8_8.s390x"
    assert (facts["ansible_distribution"], facts["ansible_distribution_version"]) == ("RedHat", "8.8")


def test_exec_runs_inside_the_host_and_returns_its_exit_code(lab):
    assert zlab("exec", "lpar-b", "--", "hostname").stdout.strip() == "lpar-b"
    assert zlab("exec", "lpar-a", "--", "sh", "-c", "exit 7", check=False).returncode == 7
    # own PID namespace: PID 1 is the lab's init, not the machine's
    init = in_host("lpar-a", "cat /proc/1/cmdline | tr '\\0' ' '").stdout
    assert "hostinit.py" in init
    # the kernel profile shows through
    assert in_host("lpar-a", "cat /proc/sys/kernel/osrelease").stdout.strip().endswith(".s390x")
    assert 'ID="rhel"' in in_host("lpar-a", "cat /etc/os-release").stdout
    # the lab has no way out: no default route
    assert "default" not in in_host("lpar-a", "ip route").stdout


def _online(host, busid, layer2):
    res = in_host(host, "chzdev -e qeth %s layer2=%d" % (busid, layer2))
    assert "configured" in res.stdout


def test_hipersockets_layer2_tcp_between_lpars(lab):
    _online("lpar-a", "0.0.8200", 1)
    _online("lpar-b", "0.0.8200", 1)
    in_host("lpar-a", "ip addr add 10.209.250.1/24 dev enc8200 && ip link set enc8200 up")
    in_host("lpar-b", "ip addr add 10.209.250.2/24 dev enc8200 && ip link set enc8200 up")
    link = in_host("lpar-a", "ip -d -j link show enc8200").stdout
    assert json.loads(link)[0]["mtu"] == 32768  # CHPID F0: 40K frames -> MTU 32K
    _tcp("lpar-b", "lpar-a", "10.209.250.2", 5001, 100000)


def _tcp(server, client, ip, port, size):
    """Send SIZE bytes from CLIENT to a socat listener on SERVER:IP:PORT; check all arrived."""
    in_host(
        server,
        "rm -f /tmp/rx; (timeout 20 socat -u TCP-LISTEN:%d,reuseaddr " "CREATE:/tmp/rx >/dev/null 2>&1 &)" % port,
    )
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if in_host(server, "ss -ltn | grep -q ':%d '" % port, check=False).returncode == 0:
            break
        time.sleep(0.1)
    in_host(client, "head -c %d /dev/zero > /tmp/tx && socat -u FILE:/tmp/tx TCP:%s:%d" % (size, ip, port))
    got = -1
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        got = int(in_host(server, "stat -c %s /tmp/rx 2>/dev/null || echo -1").stdout.strip())
        if got == size:
            break
        time.sleep(0.1)
    assert got == size


def test_hipersockets_layer3_noarp_tcp(lab):
    _online("lpar-a", "0.0.8203", 0)
    _online("lpar-b", "0.0.8203", 0)
    flags = in_host("lpar-a", "ip -j link show enc8203").stdout
    assert "NOARP" in json.loads(flags)[0]["flags"]
    in_host("lpar-a", "ip addr add 10.209.251.1/24 dev enc8203 && ip link set enc8203 up")
    in_host("lpar-b", "ip addr add 10.209.251.2/24 dev enc8203 && ip link set enc8203 up")
    _tcp("lpar-a", "lpar-b", "10.209.251.1", 5002, 5000)


def test_study_6_1_2_sysfs_procedure_on_lpar_a(lab):
    """The study's manual steps (after grouping: hosts start unconfigured), run by bash."""
    dev = "/sys/devices/qeth/0.0.820c"
    in_host(
        "lpar-a",
        "echo 0.0.820c,0.0.820d,0.0.820e > /sys/bus/ccwgroup/drivers/qeth/group && " "echo 1 > %s/online" % dev,
    )
    res = in_host("lpar-a", "echo 128 > %s/buffer_count" % dev, check=False)
    assert res.returncode == 1 and "Operation not permitted" in res.stderr
    in_host(
        "lpar-a",
        "echo 0 > {d}/online && echo 1 > {d}/layer2 && "
        "echo 128 > {d}/buffer_count && echo 1 > {d}/online".format(d=dev),
    )
    out = in_host("lpar-a", "lsqeth enc820c").stdout
    assert "buffer_count" in out and "128" in out
    layer2, state = in_host("lpar-a", "cat %s/layer2 %s/state" % (dev, dev)).stdout.split("\n")[:2]
    # SOFTSETUP until the interface is up; lpar-a (RHEL 8.8) runs NetworkManager, which sets the link
    # of a new managed device up to see its carrier, as on a real RHEL host
    assert layer2 == "1" and state in ("SOFTSETUP", "UP (LAN ONLINE)")
    in_host("lpar-a", "ip link set enc820c up")
    assert in_host("lpar-a", "cat %s/state" % dev).stdout.strip() == "UP (LAN ONLINE)"


def test_macvtap_on_hipersockets_netdev(lab):
    in_host("lpar-a", "ip link add link enc8200 name macvtap0 type macvtap mode bridge && " "ip link set macvtap0 up")
    info = json.loads(in_host("lpar-a", "ip -d -j link show macvtap0").stdout)[0]
    assert info["linkinfo"]["info_kind"] == "macvtap"
    assert info["link"] == "enc8200"
    in_host("lpar-a", "ip link del macvtap0")


def test_drift_changes_state_behind_ansibles_back(lab):
    # offline-only attribute while online: the kernel's EPERM, as bash reports it
    res = zlab("drift", "lpar-b", "set", "/sys/devices/qeth/0.0.8200/buffer_count", "64", check=False)
    assert res.returncode != 0
    assert "Operation not permitted" in res.stderr
    zlab("drift", "lpar-b", "offline", "0.0.8200")
    assert in_host("lpar-b", "cat /sys/devices/qeth/0.0.8200/online").stdout.strip() == "0"
    assert in_host("lpar-b", "ip link show enc8200", check=False).returncode != 0
    zlab("drift", "lpar-b", "set", "/sys/devices/qeth/0.0.8200/buffer_count", "64")
    assert in_host("lpar-b", "cat /sys/devices/qeth/0.0.8200/buffer_count").stdout.strip() == "64"
    zlab("drift", "lpar-b", "rm", "/etc/udev/rules.d/41-qeth-0.0.8200.rules")
    assert in_host("lpar-b", "test -e /etc/udev/rules.d/41-qeth-0.0.8200.rules", check=False).returncode == 1


def test_faults_write_tool_ssh(lab):
    path = "/sys/bus/pci/slots/00000606/power"
    zlab("fault", "lpar-b", "write", path, "EBUSY", "--count", "1")
    first = in_host("lpar-b", "echo 1 > %s" % path, check=False)
    assert first.returncode != 0 and "Device or resource busy" in first.stderr
    in_host("lpar-b", "echo 1 > %s" % path)
    assert in_host("lpar-b", "cat %s" % path).stdout.strip() == "1"

    zlab("fault", "lpar-b", "tool", "lszdev", "17", "--count", "2", "--stderr", "boom")
    for _ in range(2):
        res = zlab("exec", "lpar-b", "--", "lszdev", "qeth", check=False)
        assert res.returncode == 17
    assert zlab("exec", "lpar-b", "--", "lszdev", "qeth").returncode == 0

    ip = lab["lab"].hosts["lpar-b"]["ip"]
    zlab("fault", "lpar-b", "ssh", "off")
    try:
        assert not port_open(ip, timeout=1.5)
        res = ansible(lab["inventory"], "lpar-b", "-m", "ping", timeout=60)
        assert "UNREACHABLE" in res.stdout
    finally:
        zlab("fault", "lpar-b", "ssh", "on")
    assert port_open(ip, timeout=5)
    zlab("fault", "lpar-b", "link", "off")
    try:
        assert not port_open(ip, timeout=1.5)
    finally:
        zlab("fault", "lpar-b", "link", "on")
    assert port_open(ip, timeout=5)


def test_reboot_keeps_only_what_persists(lab):
    # persistent: chzdev (udev rule), sysctl.d, modules-load.d; active only: chzdev -a, /tmp, IPs
    in_host(
        "lpar-b",
        "chzdev -e qeth 0.0.8206 layer2=1 buffer_count=64 && "
        "chzdev -e -a qeth 0.0.8209 layer2=1 && "
        "echo 'net.ipv4.tcp_rmem = 4096 262144 6291456' > /etc/sysctl.d/90-zlab.conf && "
        "sysctl -w net.ipv4.tcp_wmem='4096 32768 4194304' && touch /tmp/volatile && "
        "ip addr add 10.209.252.2/24 dev enc8206",
    )
    zlab("reboot", "lpar-b")
    out = in_host(
        "lpar-b",
        "cat /sys/devices/qeth/0.0.8206/online "
        "/sys/devices/qeth/0.0.8206/buffer_count; "
        "test -e /sys/devices/qeth/0.0.8209 && echo grouped || echo ungrouped; "
        "sysctl -n net.ipv4.tcp_rmem net.ipv4.tcp_wmem; "
        "test -e /tmp/volatile && echo tmp-kept || echo tmp-gone; "
        "ip -br addr show enc8206",
    ).stdout.split("\n")
    assert out[0] == "1" and out[1] == "64"
    assert out[2] == "ungrouped"
    assert out[3].split() == ["4096", "262144", "6291456"]
    assert out[4].split() != ["4096", "32768", "4194304"]
    assert out[5] == "tmp-gone"
    assert "10.209.252.2" not in out[6] and out[6].startswith("enc8206")
    # 0.0.8200's rule was deleted by drift: it does not come back
    assert in_host("lpar-b", "test -e /sys/devices/qeth/0.0.8200", check=False).returncode == 1
    res = ansible(lab["inventory"], "lpar-b", "-m", "ping")
    assert res.returncode == 0, res.stdout


GUEST_HOSTDEV = (
    "<hostdev mode='subsystem' type='pci' managed='{managed}'><source><address "
    "domain='0x0605' bus='0x00' slot='0x00' function='0x0'/></source><address "
    "type='pci'><zpci uid='0x0605' fid='0x00000605'/></address></hostdev>"
)
GUEST_NIC = (
    "<interface type='direct'><mac address='12:34:56:78:9a:bc'/><source dev='enc8200' "
    "mode='bridge'/><model type='virtio'/></interface>"
)


def test_guest_devices_follow_the_domain_xml(lab):
    # base devices only at up
    assert in_host("g1", "ls /sys/bus/pci/devices | wc -l").stdout.strip() == "0"
    assert "g1" in in_host("lpar-a", "virsh list --all --name").stdout
    in_host(
        "lpar-a",
        "cat > /tmp/hd.xml <<'EOF'\n%s\nEOF\ncat > /tmp/nic.xml <<'EOF'\n%s\nEOF\n"
        "virsh -q attach-device g1 /tmp/hd.xml --config && "
        "virsh -q attach-device g1 /tmp/nic.xml --config" % (GUEST_HOSTDEV.format(managed="no"), GUEST_NIC),
    )
    # FID 0x605 is in standby on the host: libvirt cannot find the device
    res = zlab("reboot", "g1", check=False)
    assert res.returncode == 1 and "Device 0605:00:00.0 not found" in res.stderr
    # configured but still bound to ism: an unmanaged hostdev must be detached first
    in_host("lpar-a", "echo 1 > /sys/bus/pci/slots/00000605/power")
    res = zlab("start-guest", "g1", check=False)
    assert "must be manually detached from the host" in res.stderr
    in_host(
        "lpar-a",
        "modprobe vfio_pci; d=/sys/bus/pci/devices/0605:00:00.0; "
        "echo vfio-pci > $d/driver_override; echo 0605:00:00.0 > $d/driver/unbind; "
        "echo 0605:00:00.0 > /sys/bus/pci/drivers_probe",
    )
    zlab("start-guest", "g1")
    g = in_host(
        "g1",
        "d=/sys/bus/pci/devices/0605:00:00.0; cat $d/function_id $d/uid $d/pchid "
        "$d/pft $d/vfn; ip -br link show enc2",
    ).stdout.split("\n")
    assert g[:5] == ["0x00000605", "0x605", "0x07c8", "0x05", "0x0001"]
    assert "12:34:56:78:9a:bc" in g[5]
    host_drv = in_host("lpar-a", "basename $(readlink /sys/bus/pci/devices/0605:00:00.0/driver)")
    assert host_drv.stdout.strip() == "vfio-pci"
    # the guest's virtio-net sits on CHPID F0 with the LPARs' HiperSockets devices
    in_host("g1", "ip addr add 10.209.250.3/24 dev enc2 && ip link set enc2 up")
    _tcp("lpar-a", "g1", "10.209.250.1", 5003, 3000)
    assert zlab("reboot", "g1").returncode == 0
    res = ansible(lab["inventory"], "g1", "-m", "ping")
    assert res.returncode == 0, res.stdout


def test_managed_hostdev_is_bound_to_vfio_while_the_guest_runs(lab):
    drv = "basename $(readlink /sys/bus/pci/devices/0605:00:00.0/driver)"
    in_host(
        "lpar-a",
        "virsh -q detach-device g1 /tmp/hd.xml --config && "
        "cat > /tmp/hdm.xml <<'EOF'\n%s\nEOF\n"
        "virsh -q attach-device g1 /tmp/hdm.xml --config" % GUEST_HOSTDEV.format(managed="yes"),
    )
    zlab("stop-guest", "g1")
    # give the function back to ism, as before any pass-through
    in_host(
        "lpar-a",
        "d=/sys/bus/pci/devices/0605:00:00.0; echo > $d/driver_override; "
        "echo 0605:00:00.0 > $d/driver/unbind; echo 0605:00:00.0 > /sys/bus/pci/drivers_probe",
    )
    assert in_host("lpar-a", drv).stdout.strip() == "ism"
    zlab("start-guest", "g1")
    assert in_host("lpar-a", drv).stdout.strip() == "vfio-pci"
    assert in_host("g1", "cat /sys/bus/pci/devices/0605:00:00.0/function_id").stdout.strip() == "0x00000605"
    zlab("stop-guest", "g1")
    assert in_host("lpar-a", drv).stdout.strip() == "ism"
    assert in_host("lpar-a", "cat /sys/bus/pci/devices/0605:00:00.0/driver_override").stdout.strip() == "(null)"


def test_kvm_host_reboot_starts_only_the_guests_that_were_running(lab):
    # g1 is stopped after the test above: a reboot of lpar-a leaves it stopped
    zlab("reboot", "lpar-a")
    status = json.loads(zlab("status", "--json").stdout)[0]["hosts"]
    assert status["g1"]["state"] == "stopped", status["g1"]
    # FID 0x605 was powered on by hand above, not persistently: after the re-IPL it is in standby
    # and the guest's hostdev cannot start until it is configured again, this time at boot too
    assert "Device 0605:00:00.0 not found" in zlab("start-guest", "g1", check=False).stderr
    in_host(
        "lpar-a",
        "echo 'w /sys/bus/pci/slots/00000605/power - - - - 1' > /etc/tmpfiles.d/t.conf; "
        "echo 1 > /sys/bus/pci/slots/00000605/power",
    )
    zlab("start-guest", "g1")
    zlab("reboot", "lpar-a")
    status = json.loads(zlab("status", "--json").stdout)[0]["hosts"]
    assert status["g1"]["state"] == "running", status["g1"]
