# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The collection on Debian's s390x Linux 7.x, real kernels under QEMU 10 (TCG): three guests of
one ``zlab up`` from one image.

- ``l7a`` and ``l7b`` (``zlab_kind: debian13-linux7-smc-s390x``) boot the kernel rebuilt from
  Debian's source of that very version with DIBS, its loopback device and SMC
  (zlab.smc_dibs_kernel): SMC-D v2 over the DIBS loopback on one guest, SMC-R v2 over soft-RoCE
  (``rxe0`` on ``enc1``) between the two, each judged by verify.yml against the pre-flight;
- ``l7n`` (``zlab_kind: debian13-linux7-s390x``) boots Debian's kernel as Debian ships it, built
  without ``CONFIG_DIBS`` and therefore without SMC: the smc role stops before any change,
  verify.yml and the pre-flight name the host and the reason.

What the 6.12 tier proves already (zPCI functions, the netlink client against a real kernel,
smc_check's diagnosis, the PNET boot unit, a real reboot, the SMC-R decline) is not run again here.
Figures (build, boot, each step) are printed, not asserted: they depend on the machine's load.
"""

import base64
import importlib
import json
import os
import re
import sys
import time

import pytest
import yaml

from labutil import LAB_NAME, REPO, SMC_ROLE_PLAYBOOK, playbook_run, run_module, zlab

NAME = LAB_NAME + "-l7"  # ZLAB_TEST_LAB names this run's labs
SMC_A, SMC_B, STOCK = "l7a", "l7b", "l7n"
CPC = """\
cpc:
  name: REAL7
  machine: z17
  partitions:
    - {name: lp1, mif_id: 1, host: l7a}
    - {name: lp2, mif_id: 2, host: l7b}
    - {name: lp3, mif_id: 3, host: l7n}
"""
HOSTS = """\
all:
  children:
    lpars:
      hosts:
        l7a:
        l7b:
        l7n:
"""
PNET_ID, UEID = "NETLAB7", "SMC.LAB7"
# net.smc.rmem/wmem per guest, not 16 KiB x 2^n (the kernel rounds them up), different per guest so
# that each end's peer RMB must be the other guest's
RMEM = {SMC_A: 100000, SMC_B: 200000}
WMEM = {SMC_A: 40000, SMC_B: 40000}
# the 6.19 work-request limits, set by the smc role (kernel default 16 each)
MAX_WR = {"smcr_max_send_wr": 24, "smcr_max_recv_wr": 40}
LIVE_NETDEV = "smclive0"
LIVE_ADDRESSES = {"lpa": "10.77.0.1", "lpb": "10.77.0.2"}
LIVE_BUFFER = "200K"  # net.smc.rmem/wmem; the kernel makes a 256 KiB DMB of it
LIVE_RMB = 256 * 1024 - 32  # an SMC-D RMB is its DMB less the CDC header
FIGURES = {}
sys.path.insert(0, os.path.join(REPO, ".cache", "collections"))  # the collection, as ansible.cfg names it

# What the kernel shows of SMC and DIBS (printed; the recorded copies are the unit tests' fixtures)
CAPTURE = r"""
echo "== uname -r"; uname -r
echo "== /proc/sys/net/smc"; for f in /proc/sys/net/smc/*; do [ -f "$f" ] && echo "$(basename $f) = $(cat $f)"; done 2>&1
echo "== /sys/class/dibs"; for d in /sys/class/dibs/*; do
  [ -e "$d" ] || continue
  echo "$(basename $d) -> $(readlink $d)"
  for a in fabric_id gid; do echo "  $a = $(cat $d/$a 2>&1)"; done
done
echo "== tcp_available_ulp"; cat /proc/sys/net/ipv4/tcp_available_ulp
echo "== lsmod smc dibs"; grep -E '^(smc|smc_diag|dibs|ism) ' /proc/modules | cut -d' ' -f1,3,4
"""

# The collection's netlink client run by the guest's Python: the SMC-D devices, link groups and
# system EID the kernel reports, and (SMC-R guests) enc1 and rxe0 under one PNET ID with a UEID
NETLINK_PROBE = r"""
import base64, json, os, sys, types
mod = types.ModuleType("smc_netlink")
exec(compile(base64.b64decode(sys.argv[1]).decode(), "smc_netlink.py", "exec"), mod.__dict__)
nl = mod.SmcNetlink()
if sys.argv[2] == "smcr":
    nl.pnet_add("%(pnet)s", interface="enc1")
    nl.pnet_add("%(pnet)s", ib_device="rxe0", port=1)
    nl.add_ueid("%(ueid)s")
print(json.dumps({"kernel": os.uname().release, "pnet": nl.pnet_table(), "ueids": nl.ueids(),
                  "smcd": nl.devices_smcd(), "smcr": [d.get("ib_name") for d in nl.devices_smcr()]}, default=str))
""" % {
    "pnet": PNET_ID,
    "ueid": UEID,
}


# The kernel's raw netlink replies to the collection's SMC reads, recorded for the unit tests: each
# call with the datagrams it received (base64), in order, and what the client decoded of them
RECORDER = r"""
import base64, json, os, socket, sys, types
PKG = "ansible_collections.s390x.network.plugins.module_utils.smc"
parts = PKG.split(".")
for i in range(1, len(parts) + 1):
    pkg = types.ModuleType(".".join(parts[:i]))
    pkg.__path__ = []
    sys.modules[pkg.__name__] = pkg
mods = {}
for name, src in zip(("clc", "netlink", "diag"), sys.argv[1:4]):
    mod = types.ModuleType(PKG + "." + name)
    sys.modules[mod.__name__] = mod
    exec(compile(base64.b64decode(src).decode(), name + ".py", "exec"), mod.__dict__)
    mods[name] = mod
nlm, diagm = mods["netlink"], mods["diag"]
received = []

def recording(cls):
    class Recording(cls):
        def recv(self):
            data = cls.recv(self)
            received.append(base64.b64encode(data).decode())
            return data
    return Recording()

calls = []
def record(name, fn):
    del received[:]
    try:
        result, error = fn(), None
    except nlm.NetlinkError as exc:
        result, error = None, [exc.args[0], str(exc)]
    calls.append({"call": name, "received": list(received), "result": result, "error": error})

# an SMC connection within the host (SMC-D over the loopback where the kernel has one) and an SMC
# client of a plain TCP listener (a fallback), both open while SMC_DIAG is dumped
open_socks = []
try:
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 256)
    plain = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    for s in (srv, plain):
        s.bind(("127.0.0.1", 0)); s.listen(1)
    for target in (srv, plain):
        cli = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 256)
        cli.connect(target.getsockname()); conn, _ = target.accept()
        cli.sendall(b"x" * 4096); got = b""
        while len(got) < 4096:
            got += conn.recv(4096)
        open_socks += [cli, conn]
    open_socks += [srv, plain]
except OSError as exc:
    calls.append({"call": "connect", "received": [], "result": None, "error": [exc.errno, str(exc)]})

nl = nlm.SmcNetlink(transport=recording(nlm.NetlinkSocket))
for name in ("sys_info", "devices_smcd", "devices_smcr", "linkgroups_smcd", "linkgroups_smcr", "links_smcr",
             "stats", "fallback_stats", "pnet_table", "ueids"):
    record(name, getattr(nl, name))
record("smc_diag", lambda: diagm.SmcDiag(transport=recording(diagm.DiagSocket)).dump())
print(json.dumps({"kernel": os.uname().release, "byteorder": sys.byteorder, "calls": calls}, default=repr))
"""
# ZLAB_CAPTURE_DIR: where the recordings and captures are written (the unit tests' fixtures come from there)
CAPTURE_DIR = os.environ.get("ZLAB_CAPTURE_DIR")


def _skip_reason():
    if os.geteuid() != 0:
        return "lab tests need root"
    from zlab import image_s390x, qemu_s390x  # pylint: disable=import-outside-toplevel

    why = qemu_s390x.missing()
    if why:
        return "real-kernel hosts need QEMU: " + why
    if not image_s390x.is_built(kind=image_s390x.LINUX7_SMC) and image_s390x.missing_tools():
        return "the Linux 7.x image is not built and building it needs %s" % ", ".join(image_s390x.missing_tools())
    return None


def run(host, script, check=True):
    """sh -c SCRIPT in a guest (over SSH)."""
    return zlab("exec", host, "--", "/bin/sh", "-c", script, check=check, lab=NAME, timeout=900)


def _source(name="netlink"):
    """base64 of a module_utils/smc file, for a probe run by the guest's Python."""
    with open(os.path.join(REPO, "plugins", "module_utils", "smc", name + ".py"), "rb") as handle:
        return base64.b64encode(handle.read()).decode()


def _netlink(host, mode):
    res = zlab("exec", host, "--", "python3", "-c", NETLINK_PROBE, _source(), mode, lab=NAME, timeout=900)
    return json.loads(res.stdout.strip().splitlines()[-1])


def _keep(name, text):
    """Write a capture to ZLAB_CAPTURE_DIR, when set."""
    if CAPTURE_DIR:
        os.makedirs(CAPTURE_DIR, exist_ok=True)
        with open(os.path.join(CAPTURE_DIR, name), "w", encoding="utf-8") as handle:
            handle.write(text)


@pytest.fixture(scope="module")
def linux7(tmp_path_factory):
    reason = _skip_reason()
    if reason:
        pytest.skip(reason)
    from zlab import image_s390x  # pylint: disable=import-outside-toplevel
    from zlab.host import Lab  # pylint: disable=import-outside-toplevel

    kind = image_s390x.LINUX7_SMC
    if not image_s390x.is_built(kind=kind):
        start = time.monotonic()
        image_s390x.build(kind=kind)
        FIGURES["image build (with the SMC kernel)"] = "%.0f s" % (time.monotonic() - start)
    meta = image_s390x.info(kind=kind)
    built = meta.get("smc_kernel") or {}
    FIGURES["SMC kernel"] = "%s: %s modules, compiled in %s s on %s CPUs (%s)" % (
        built.get("release"),
        built.get("modules_built"),
        built.get("compile_seconds"),
        built.get("cpus"),
        built.get("compiler"),
    )
    inv = tmp_path_factory.mktemp("linux7") / "linux7"
    (inv / "group_vars" / "all").mkdir(parents=True)
    (inv / "host_vars").mkdir()
    (inv / "hosts.yml").write_text(HOSTS)
    (inv / "group_vars" / "all" / "cpc.yml").write_text(CPC)
    for host in (SMC_A, SMC_B):
        (inv / "host_vars" / (host + ".yml")).write_text("zlab_kind: %s\n" % image_s390x.LINUX7_SMC)
    (inv / "host_vars" / (STOCK + ".yml")).write_text("zlab_kind: %s\n" % image_s390x.LINUX7)
    zlab("down", NAME, lab=None)
    start = time.monotonic()
    zlab("up", str(inv), "--name", NAME, lab=None, timeout=2400)  # the three guests boot at once
    lab = Lab.load(NAME)
    FIGURES["zlab up (3 guests)"] = "%.0f s (QEMU start to SSH %s)" % (
        time.monotonic() - start,
        ", ".join("%s %s s" % (h, lab.hosts[h]["boot_seconds"]) for h in (SMC_A, SMC_B, STOCK)),
    )
    tmp = tmp_path_factory.mktemp("linux7-inv")
    inventory = tmp / "zlab.yml"
    inventory.write_text(zlab("inventory", lab=NAME).stdout)
    with open(str(inventory), encoding="utf-8") as handle:
        hosts = yaml.safe_load(handle)["all"]["hosts"]
    connection = dict((h, dict((k, v) for k, v in hosts[h].items() if k.startswith("ansible_"))) for h in hosts)
    yield {
        "inventory": str(inventory),
        "connection": connection,
        "ips": dict((h, lab.hosts[h]["ip"]) for h in hosts),
        "meta": meta,
        "tmp": tmp,
        "smc_release": built.get("release"),
    }
    zlab("down", NAME, lab=None, check=False)


def test_debians_7x_kernel_has_no_smc_and_its_rebuild_has_dibs(linux7):
    start = time.monotonic()
    stock = run(STOCK, "uname -r; ls /proc/sys/net/smc /sys/class/dibs 2>&1; modprobe smc 2>&1; echo rc=$?").stdout
    sys.stdout.write("\n%s:\n%s" % (STOCK, stock))
    lines = stock.splitlines()
    assert lines[0] == linux7["meta"]["kernel_release"] == "7.2.11+deb13-s390x", stock
    assert "No such file or directory" in lines[1] and "No such file or directory" in lines[2], stock
    assert lines[-1] != "rc=0" and "smc" in stock, stock
    for host in (SMC_A, SMC_B):
        out = run(host, "uname -r; modprobe smc && modprobe smc_diag && cat /sys/class/dibs/lo/fabric_id").stdout
        release, fabric = out.split()
        assert release == linux7["smc_release"] == "7.2.11+deb13-s390x-smc", out
        assert fabric == "0xffff", out  # the loopback device's fabric ID
    captured = run(SMC_A, CAPTURE).stdout
    sys.stdout.write("\n%s:\n%s" % (SMC_A, captured))
    _keep("smc-kernel-sysfs.txt", captured)
    keys = dict(line.split(" = ", 1) for line in captured.split("== /sys/class/dibs")[0].splitlines() if " = " in line)
    # the 6.19 sysctls, and the TCP ULP "smc" gone (7.0)
    assert "smcr_max_send_wr" in keys and "smcr_max_recv_wr" in keys, keys
    ulp = captured.split("== tcp_available_ulp")[1].split("==")[0].split()
    assert "smc" not in ulp, ulp
    assert re.search(r"^lo -> .*/devices/virtual/dibs/lo$", captured, re.M), captured
    FIGURES["kernels and capture"] = "%.0f s" % (time.monotonic() - start)


def test_the_modules_read_smc_d_the_dibs_way(linux7):
    inv = linux7["inventory"]
    info = run_module(inv, SMC_A, "s390x.network.smcd_info", {"protocol": "smcd", "devices": True}, timeout=900)
    assert not info.get("failed"), info
    assert info["kernel_smc"]["available"] and info["kernel_smc"]["dibs"], info["kernel_smc"]
    assert info["kernel_smc"]["tcp_ulp"] is False, info["kernel_smc"]
    devices = info["smcd_devices"]
    assert devices["layout"] == "dibs", devices
    (lo,) = [d for d in devices["devices"] if d["name"] == "lo"]
    gid = run(SMC_A, "cat /sys/class/dibs/lo/gid").stdout.strip()
    assert (lo["type"], lo["fabric_id"], lo["gid"]) == ("loopback", 0xFFFF, gid), lo
    probe = _netlink(SMC_A, "smcd")
    sys.stdout.write("\nnetlink on %s: %s\n" % (SMC_A, json.dumps(probe, sort_keys=True)))
    stock = run_module(inv, STOCK, "s390x.network.smcd_info", {"protocol": "smcd"}, timeout=900)
    assert stock.get("failed"), stock
    assert stock["kernel_smc"]["available"] is False and stock["kernel_smc"]["state"] == "not built", stock
    assert stock["msg"].startswith("SMC not built into this kernel (7.2.11+deb13-s390x)"), stock["msg"]
    assert "CONFIG_DIBS is not set there either" in stock["msg"], stock["msg"]
    FIGURES["smcd_info on both kinds"] = "DIBS lo gid %s; stock: %s" % (gid, stock["msg"])


def _inventory(linux7, path, hosts, variables):
    inventory = {
        "all": {
            "vars": dict({"cpc": yaml.safe_load(CPC)["cpc"], "smc_install_packages": False}, **variables),
            "children": {"lpars": {"hosts": hosts}, "smc_hosts": {"children": {"lpars": {}}}},
        }
    }
    path.write_text(yaml.safe_dump(inventory, sort_keys=False))
    return str(path)


def _failed(tasks):
    out = {}
    for name, hosts in tasks.items():
        msgs = dict((h, r.get("msg")) for h, r in hosts.items() if r.get("failed") and not r.get("ignore_errors"))
        if msgs:
            out[name] = msgs
    return out


def test_the_smc_role_stops_on_the_stock_kernel_before_any_change(linux7):
    host = dict(linux7["connection"][STOCK], smc_buffer_size="256K", smc_smcr=True)
    inventory = _inventory(
        linux7, linux7["tmp"] / "stock.yml", {STOCK: host}, {"smc_roce_fids": [], "smc_ism_fids": []}
    )
    role = linux7["tmp"] / "smc-role.yml"
    role.write_text(SMC_ROLE_PLAYBOOK)
    before = run(STOCK, "ls /etc/sysctl.d /etc/modules-load.d /etc/systemd/system").stdout
    start = time.monotonic()
    rc, tasks = playbook_run(inventory, str(role))
    took = time.monotonic() - start
    failed = _failed(tasks)
    stop = "s390x.network.smc : Stop on a kernel without SMC"
    assert rc != 0 and list(failed) == [stop], failed
    msg = failed[stop][STOCK]
    assert msg.startswith("SMC not built into this kernel (7.2.11+deb13-s390x)") and "nothing was written" in msg, msg
    changed = [name for name, hosts in tasks.items() if hosts.get(STOCK, {}).get("changed")]
    assert not changed, changed
    assert run(STOCK, "ls /etc/sysctl.d /etc/modules-load.d /etc/systemd/system").stdout == before
    FIGURES["smc role on the stock kernel (stops)"] = "%.0f s: %s" % (took, msg)


def test_preflight_and_verify_yml_name_the_stock_kernel(linux7):
    hosts = {}
    for host in (SMC_A, STOCK):
        hosts[host] = dict(
            linux7["connection"][host], interfaces_config=[{"name": "enc1", "addresses": [linux7["ips"][host] + "/24"]}]
        )
    inventory = _inventory(linux7, linux7["tmp"] / "nosmc.yml", hosts, {"smc_ism_fids": [], "smc_roce_fids": []})
    start = time.monotonic()
    rc, tasks = playbook_run(
        inventory,
        os.path.join(REPO, "playbooks", "preflight.yml"),
        "-e",
        json.dumps({"preflight_pairs": [{"client": STOCK, "server": SMC_A}, {"client": SMC_A, "server": STOCK}]}),
    )
    assert rc == 0, _failed(tasks)
    why = tasks["Show why"]["localhost"]["msg"]
    sys.stdout.write(
        "\npre-flight:\n" + "\n".join(tasks["Show the predictions"]["localhost"]["msg"]) + "\n" + "\n".join(why) + "\n"
    )
    assert len(why) == 2 and all("SMC not built into this kernel" in line for line in why), why
    preflight_took = time.monotonic() - start
    start = time.monotonic()
    rc, tasks = playbook_run(
        inventory, os.path.join(REPO, "playbooks", "verify.yml"), "--tags", "smc", "--limit", STOCK
    )
    check = tasks["Check that the kernel has SMC"][STOCK]
    assert rc != 0 and check.get("failed"), check
    assert check["msg"].startswith("not supported for SMC: SMC not built into this kernel (7.2.11+deb13-s390x)"), check
    FIGURES["pre-flight, verify.yml (stock kernel)"] = "%.0f s, %.0f s" % (preflight_took, time.monotonic() - start)


def _live_rows(tasks, client):
    msg = tasks["Compare each pair's connection with the pre-flight and the smc role's buffer sizes"]
    live = next(iter(msg.values()))
    assert not live.get("failed"), live.get("msg")
    sys.stdout.write("\n" + "\n".join(live["msg"]) + "\n")
    return [[cell.strip() for cell in line.split("|")] for line in live["msg"] if line.startswith(client + " -> ")]


def test_verify_yml_sees_smc_d_v2_over_the_dibs_loopback(linux7):
    # the guest under two inventory names, lpa and lpb, each with its own address on a dummy interface
    run(
        SMC_A,
        "modprobe dummy && ip link add %(dev)s type dummy && ip addr add %(a)s/24 dev %(dev)s "
        "&& ip addr add %(b)s/24 dev %(dev)s && ip link set %(dev)s up"
        % {"dev": LIVE_NETDEV, "a": LIVE_ADDRESSES["lpa"], "b": LIVE_ADDRESSES["lpb"]},
    )
    lo = {"name": "lo", "vchid": 0xFFFF, "pnet_id": "", "v2": True}
    facts = {"kernel": linux7["smc_release"], "smc": True, "ism": [lo], "roce": []}
    hosts = dict(
        (
            name,
            dict(linux7["connection"][SMC_A], interfaces_config=[{"name": LIVE_NETDEV, "addresses": [addr + "/24"]}]),
        )
        for name, addr in LIVE_ADDRESSES.items()
    )
    cpc = {
        "name": "REAL7",
        "machine": "z17",
        "partitions": [{"name": "LPA", "mif_id": 1, "host": "lpa"}, {"name": "LPB", "mif_id": 2, "host": "lpb"}],
        # ISM functions that exist on no machine (smc_ism_fids: [] leaves them alone): they tell the
        # pre-flight that lpa and lpb share a CPC; the facts say the kernel's SMC-D device is the loopback
        "ism": [
            {
                "vchid": "7C9",
                "functions": [
                    {"fid": 0x1001, "uid": 0x1001, "vf": 1, "partition": "LPA"},
                    {"fid": 0x1002, "uid": 0x1002, "vf": 2, "partition": "LPB"},
                ],
            }
        ],
        "smcd_peers": [["LPA", "LPB"]],
    }
    variables = {"cpc": cpc, "smc_ism_fids": [], "smc_buffer_size": LIVE_BUFFER, "smc_preflight_facts": facts}
    variables.update(("smc_" + key, value) for key, value in MAX_WR.items())
    inventory = _inventory(linux7, linux7["tmp"] / "smcd.yml", hosts, variables)
    try:
        role = linux7["tmp"] / "smc-role.yml"
        role.write_text(SMC_ROLE_PLAYBOOK)
        rc, tasks = playbook_run(inventory, str(role))
        assert rc == 0, _failed(tasks)
        values = run(SMC_A, "cat /proc/sys/net/smc/smcr_max_send_wr /proc/sys/net/smc/smcr_max_recv_wr").stdout.split()
        assert [int(v) for v in values] == [MAX_WR["smcr_max_send_wr"], MAX_WR["smcr_max_recv_wr"]], values
        start = time.monotonic()
        rc, tasks = playbook_run(inventory, os.path.join(REPO, "playbooks", "verify.yml"), "--tags", "smc,smc_live")
        took = time.monotonic() - start
        assert rc == 0, _failed(tasks)
        ((_pair, mode, fallback, client, server, group, prediction, verdict),) = _live_rows(tasks, "lpa")
        sizes = "%d/%d/%d" % ((LIVE_RMB,) * 3)  # the loopback: the send buffer is the peer's DMB
        assert (mode, fallback, client, server, prediction, verdict) == (
            "SMC-D v2",
            "client -, server -",
            sizes,
            sizes,
            "SMC-D v2",
            "agree",
        )
        assert re.fullmatch(r"0x[0-9a-f]{8}", group), group
        kernel = tasks["Check that the kernel has SMC"]["lpa"]["msg"]
        assert "DIBS" in kernel, kernel
        FIGURES["verify.yml SMC-D v2 (DIBS loopback)"] = "%s, RMB %d, agree (%.0f s)" % (mode, LIVE_RMB, took)
    finally:
        run(SMC_A, "ip link del %s" % LIVE_NETDEV, check=False)


def test_verify_yml_judges_smc_r_v2_between_two_7x_guests(linux7):
    sizing = importlib.import_module("ansible_collections.s390x.network.plugins.module_utils.smc.sizing")
    for host in (SMC_A, SMC_B):
        run(host, "modprobe rdma_rxe && rdma link add rxe0 type rxe netdev enc1")
        setup = _netlink(host, "smcr")
        assert "rxe0" in setup["smcr"] and setup["ueids"] == [UEID], setup
    roce = {
        "name": "rxe0",
        "port": 1,
        "pnet_id": "",
        "pnet_id_user": PNET_ID,
        "net_device": "enc1",
        "v2": True,
        "ipv4": True,
    }
    hosts = {}
    for host in (SMC_A, SMC_B):
        hosts[host] = dict(
            linux7["connection"][host],
            interfaces_config=[{"name": "enc1", "addresses": [linux7["ips"][host] + "/24"]}],
            smc_rmem=RMEM[host],
            smc_wmem=WMEM[host],
            smc_preflight_facts={
                "kernel": linux7["smc_release"],
                "smc": True,
                "ism": [],
                "roce": [roce],
                "rendezvous": {"interface": "enc1", "pnet_id": PNET_ID},
                "netdev_pnet_ids": [PNET_ID],
                "ueids": [UEID],
            },
        )
    variables = {
        "smc_smcr": True,
        "smc_roce_fids": [],
        "smc_ism_fids": [],
        "smc_pnet_config": [
            {"pnet_id": PNET_ID, "interface": "enc1"},
            {"pnet_id": PNET_ID, "ib_device": "rxe0", "port": 1},
        ],
        "smc_pnet_state": "overridden",
        "smc_pnet_persistent": False,
    }
    inventory = _inventory(linux7, linux7["tmp"] / "smcr.yml", hosts, variables)
    role = linux7["tmp"] / "smc-role.yml"
    role.write_text(SMC_ROLE_PLAYBOOK)
    rc, tasks = playbook_run(inventory, str(role))
    assert rc == 0, _failed(tasks)
    start = time.monotonic()
    rc, tasks = playbook_run(
        inventory,
        os.path.join(REPO, "playbooks", "verify.yml"),
        "--tags",
        "smc,smc_live,smc_preflight",
        "-e",
        "verify_smc_preflight=true",
    )
    took = time.monotonic() - start
    assert rc == 0 and not _failed(tasks), (rc, _failed(tasks))
    ((_pair, mode, fallback, client, server, _group, prediction, status),) = _live_rows(tasks, SMC_A)
    kernel = linux7["smc_release"]
    rmb = dict((h, sizing.effective_buffer(RMEM[h], kernel, "smcr")["size"]) for h in RMEM)
    sndbuf = dict((h, sizing.effective_buffer(WMEM[h], kernel, "smcr")["size"]) for h in WMEM)
    assert client == "%d/%d/%d" % (rmb[SMC_A], rmb[SMC_B], sndbuf[SMC_A]), (client, rmb, sndbuf)
    assert server == "%d/%d/%d" % (rmb[SMC_B], rmb[SMC_A], sndbuf[SMC_B]), (server, rmb, sndbuf)
    assert (mode, fallback, prediction, status) == ("SMC-R v2", "client -, server -", "SMC-R v2", "agree")
    counters = tasks["Check that no host's counters contradict the prediction"]["localhost"]
    sys.stdout.write(counters.get("msg", "") + "\n")
    # the live check connects l7a to l7b only: the pre-flight's l7b -> l7a has no connection to count
    assert counters["msg"] == "pre-flight and statistics: 1 agree, 1 not observed, 0 not compared", counters
    FIGURES["verify.yml SMC-R v2 (two 7.x guests)"] = "%s agree, %.0f s" % (mode, took)


def test_the_netlink_replies_of_both_kernels(linux7):
    # after the SMC-D and SMC-R connections: link groups of both kinds may still be there
    for host, name in ((SMC_A, "netlink-smc-kernel.json"), (STOCK, "netlink-stock-kernel.json")):
        sources = [_source(name) for name in ("clc", "netlink", "diag")]
        res = zlab("exec", host, "--", "python3", "-c", RECORDER, *sources, lab=NAME, timeout=900)
        record = json.loads(res.stdout.strip().splitlines()[-1])
        _keep(name, json.dumps(record, indent=1, sort_keys=True) + "\n")
        calls = dict((c["call"], c) for c in record["calls"])
        if host == STOCK:  # no SMC: no socket, no family, no SMC_DIAG handler
            assert calls["connect"]["error"][0] == 93, calls["connect"]  # EPROTONOSUPPORT
            assert all(c["error"] and c["error"][0] == 2 for n, c in calls.items() if n != "connect"), calls
            continue
        assert not [c for c in calls.values() if c["error"]], calls
        # 7.2 leaves the DIBS loopback out of the SMC-D device dump (sysfs has it: smcd_info's test)
        assert calls["sys_info"]["result"]["ver"] >= 2, calls["sys_info"]
        lo = calls["devices_smcd"]["result"]
        modes = sorted(r["mode"] for r in calls["smc_diag"]["result"] if r.get("mode"))
        sys.stdout.write(
            "\nSMC-D devices over netlink on %s: %s; SMC_DIAG: %s\n" % (host, json.dumps(lo, sort_keys=True), modes)
        )


def test_print_figures(linux7, capsys):
    # pylint: disable=unused-argument
    with capsys.disabled():
        print("\nLinux 7.x real kernels (TCG, -smp 1 each); figures depend on the machine's load:")
        for key, value in FIGURES.items():
            print("  %-45s %s" % (key, value))
