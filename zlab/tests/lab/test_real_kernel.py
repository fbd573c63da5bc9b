# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A lab host on a real s390x kernel: ``zlab_kind: debian13-s390x`` boots Debian's s390x kernel
under qemu-system-s390x (TCG) on the lab's management network.

What only a real kernel can show: the machine and release are the kernel's own, a zPCI function of
the CPC model appears with the PCI domain = UID, its FID and UID in sysfs, and its slot powers it
off and on; Ansible reaches the host over SSH, and a reboot is a real one (new boot ID, same QEMU).
The measured times (image build when this run built it, boot to SSH, reboot) and QEMU's memory
are printed, not asserted: they depend on the machine's load (TCG, two cores).
"""

import json
import os
import re
import sys
import time

import pytest

from labutil import LAB_NAME, REPO, SMC_ROLE_PLAYBOOK, ansible, playbook_run, run_module, tiny_inventory, zlab

NAME = LAB_NAME + "-s390x"  # ZLAB_TEST_LAB names this run's labs
FID, UID = 0x605, 0x605
CPC = """\
cpc:
  name: REAL
  machine: z16
  uid_checking: [LP1]
  partitions:
    - {name: lp1, mif_id: 1, host: solo}
  ism:
    - vchid: 7C8
      functions:
        - {fid: 0x605, uid: 0x605, vf: 1, partition: LP1}
"""
HIPERSOCKETS = """\
  hipersockets:
    - {chpid: "E1", control_unit: E100, devices: "7000-7002", partitions: [LP1]}
"""
FIGURES = {}


def _skip_reason():
    if os.geteuid() != 0:
        return "lab tests need root"
    from zlab import image_s390x, qemu_s390x  # pylint: disable=import-outside-toplevel

    why = qemu_s390x.missing()
    if why:
        return "real-kernel hosts need QEMU: " + why
    if not image_s390x.is_built() and image_s390x.missing_tools():
        return "the %s image is not built and building it needs %s" % (
            image_s390x.KIND,
            ", ".join(image_s390x.missing_tools()),
        )
    return None


def _lab():
    from zlab.host import Lab  # pylint: disable=import-outside-toplevel

    return Lab.load(NAME)


def run(script, check=True):
    """sh -c SCRIPT in the real-kernel host (zlab exec runs it over SSH)."""
    return zlab("exec", "solo", "--", "/bin/sh", "-c", script, check=check, lab=NAME, timeout=600)


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    reason = _skip_reason()
    if reason:
        pytest.skip(reason)
    from zlab import image_s390x  # pylint: disable=import-outside-toplevel

    if not image_s390x.is_built():
        start = time.monotonic()
        image_s390x.build()
        FIGURES["image build"] = "%.0f s" % (time.monotonic() - start)
    meta = image_s390x.info()
    FIGURES["image"] = "%s: disk %.0f MiB (root tree %.0f MiB), kernel %.1f MiB, initrd %.1f MiB" % (
        meta["kernel_release"],
        meta["disk_bytes"] / 2**20,
        meta["root_bytes"] / 2**20,
        meta["kernel_bytes"] / 2**20,
        meta["initrd_bytes"] / 2**20,
    )
    inv = tiny_inventory(tmp_path_factory.mktemp("real") / "real", CPC)
    (inv / "host_vars").mkdir()
    (inv / "host_vars" / "solo.yml").write_text("zlab_kind: debian13-s390x\n")
    zlab("down", NAME, lab=None)
    start = time.monotonic()
    up = zlab("up", str(inv), "--name", NAME, lab=None, timeout=1200)
    FIGURES["zlab up (boot to SSH)"] = "%.0f s (QEMU start to SSH %s s)" % (
        time.monotonic() - start,
        _lab().hosts["solo"]["boot_seconds"],
    )
    inventory = tmp_path_factory.mktemp("real-inv") / "zlab.yml"
    inventory.write_text(zlab("inventory", lab=NAME).stdout)
    yield {"up": up.stdout, "inventory": str(inventory), "meta": meta}
    zlab("down", NAME, lab=None, check=False)


def test_the_kernel_is_a_real_s390x_kernel(real):
    assert "solo" in real["up"] and "debian13-s390x" in real["up"]
    machine, release = run("uname -m; uname -r").stdout.split()
    assert machine == "s390x"
    assert release == real["meta"]["kernel_release"]
    assert re.match(r"^\d+\.\d+\.\d+", release)
    # the kernel's own s390 interfaces, no emulator in between
    assert "Manufacturer:" in run("cat /proc/sysinfo").stdout
    assert run("stat -f -c %T /sys").stdout.strip() == "sysfs"
    FIGURES["kernel"] = "%s %s" % (machine, release)


def test_a_zpci_function_of_the_model_appears_with_its_fid_and_uid(real):
    # pylint: disable=unused-argument
    dev = "/sys/bus/pci/devices/%04x:00:00.0" % UID  # PCI domain = UID (UID checking)
    slot = "/sys/bus/pci/slots/%08x" % FID
    out = run("cat %s/function_id %s/uid; readlink %s/iommu_group; cat %s/power" % (dev, dev, dev, slot))
    fid, uid, group, power = out.stdout.split()
    assert (int(fid, 16), int(uid, 16), power) == (FID, UID, "1")
    assert "/iommu_groups/" in group

    # the slot powers the function off (the device goes) and on again (back at the same address)
    start = time.monotonic()
    run("echo 0 > %s/power" % slot)
    assert run("test -e %s" % dev, check=False).returncode != 0
    assert run("cat %s/power" % slot).stdout.strip() == "0"
    run("echo 1 > %s/power; for i in $(seq 100); do [ -e %s ] && break; sleep 0.2; done" % (slot, dev))
    assert int(run("cat %s/function_id" % dev).stdout, 16) == FID
    FIGURES["slot power off/on"] = "%.1f s" % (time.monotonic() - start)


def test_ansible_reaches_the_host(real):
    res = ansible(real["inventory"], "solo", "-m", "ping", timeout=600)
    assert res.returncode == 0, res.stdout + res.stderr
    assert '"ping": "pong"' in res.stdout
    res = ansible(real["inventory"], "solo", "-m", "setup", "-a", "gather_subset=min", timeout=600)
    assert res.returncode == 0, res.stdout + res.stderr
    facts = json.loads(res.stdout.split("=>", 1)[1])["ansible_facts"]
    assert facts["ansible_architecture"] == "s390x"
    assert facts["ansible_kernel"] == real["meta"]["kernel_release"]


def test_emulated_kernel_commands_are_refused(real):
    # pylint: disable=unused-argument
    res = zlab("drift", "solo", "sysctl", "net.smc.rmem", "65536", lab=NAME, check=False)
    assert res.returncode == 1
    assert "not supported on real-kernel hosts" in res.stderr
    res = zlab("fault", "solo", "tool", "chzdev", "1", lab=NAME, check=False)
    assert res.returncode == 1
    assert "not supported on real-kernel hosts" in res.stderr


# The collection's netlink client (plugins/module_utils/smc/netlink.py, standard library only) run
# by the guest's Python against its real kernel: one AF_SMC connection over loopback, the counters
# before and after, and a PNET entry and a UEID added, read back and removed.
NETLINK_PROBE = r"""
import base64, json, socket, sys, types
mod = types.ModuleType("smc_netlink")
exec(compile(base64.b64decode(sys.argv[1]).decode(), "smc_netlink.py", "exec"), mod.__dict__)
nl = mod.SmcNetlink()
def counters():
    stats, fb = nl.stats(), nl.fallback_stats()
    tech = {}
    for name in ("smcd_tech", "smcr_tech"):
        t = (stats or {}).get(name) or {}
        tech[name] = {k: t.get(k) for k in ("clnt_v1_succ", "clnt_v2_succ", "srv_v1_succ", "srv_v2_succ")}
    return {"tech": tech, "fallback": {"client_total": fb["client_total"], "server_total": fb["server_total"],
            "client": {"0x%08x" % k: v for k, v in fb["client"].items()}}}
out = {"before": counters()}
IPPROTO_SMC = 256  # an SMC socket with AF_INET addresses (Linux 6.11+)
srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM, IPPROTO_SMC)
srv.bind(("127.0.0.1", 0)); srv.listen(1)
cli = socket.socket(socket.AF_INET, socket.SOCK_STREAM, IPPROTO_SMC)
cli.connect(srv.getsockname()); conn, _ = srv.accept()
cli.sendall(b"x" * 4096); got = b""
while len(got) < 4096:
    got += conn.recv(4096)
for s in (cli, conn, srv):
    s.close()
out["after"] = counters()
nl.pnet_add("NETLAB", interface="lo")
out["pnet_added"] = nl.pnet_table()
nl.pnet_delete("NETLAB")
out["pnet_deleted"] = nl.pnet_table()
nl.add_ueid("LAB.UEID-1")
out["ueids_added"] = nl.ueids()
nl.flush_ueids()
out["ueids_flushed"] = nl.ueids()
print(json.dumps(out))
"""


def test_the_netlink_client_reads_and_writes_the_real_kernels_smc_state(real):
    import base64  # pylint: disable=import-outside-toplevel

    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    with open(os.path.join(repo, "plugins", "module_utils", "smc", "netlink.py"), "rb") as handle:
        source = base64.b64encode(handle.read()).decode()
    start = time.monotonic()
    run("modprobe smc")
    FIGURES["modprobe smc"] = "%.1f s" % (time.monotonic() - start)
    res = zlab("exec", "solo", "--", "python3", "-c", NETLINK_PROBE, source, lab=NAME, timeout=600)
    out = json.loads(res.stdout)
    before, after = out["before"], out["after"]
    # one connection: either it used SMC (a success counted on both sides of one technology and
    # version) or both sides fell back, the client with the reason the kernel gives for a host
    # without an SMC device (SMC_CLC_DECL_NOSMCDEV 0x03030000)
    succ = dict(
        (tech + "." + key, (after["tech"][tech][key] or 0) - (before["tech"][tech][key] or 0))
        for tech in after["tech"]
        for key in after["tech"][tech]
    )
    fell_back = after["fallback"]["client_total"] - before["fallback"]["client_total"]
    FIGURES["AF_SMC over loopback"] = "fell back" if fell_back else "SMC: %s" % [k for k, v in succ.items() if v]
    if fell_back:
        assert fell_back == 1, out
        assert after["fallback"]["server_total"] - before["fallback"]["server_total"] == 1, out
        reasons = after["fallback"]["client"]
        assert reasons.get("0x03030000", 0) - before["fallback"]["client"].get("0x03030000", 0) == 1, out
        assert sum(succ.values()) == 0, out
    else:
        assert sorted(v for v in succ.values() if v) == [1, 1], out  # client and server of one kind
    # the module on the host: Debian has no smc-tools, so backend auto takes the netlink path
    res = run_module(real["inventory"], "solo", "s390x.network.smcd_info", {"protocol": "smcd"})
    assert not res.get("failed"), res.get("msg")
    assert res["backend"] == "netlink"
    conns = res["stats"]["connections"]
    FIGURES["smcd_info connections"] = json.dumps(conns, sort_keys=True)
    if fell_back:  # the same counters, by name: the client found no device, the server saw the decline
        assert conns["tcp_fallback_client"] == after["fallback"]["client_total"], conns
        assert conns["tcp_fallback_server"] == after["fallback"]["server_total"], conns
        assert conns["fallback_reasons_by_role"]["client"].get("NOSMCDEV") == reasons["0x03030000"], conns
        assert conns["fallback_reasons_by_role"]["server"].get("PEERDECL", 0) >= 1, conns
    assert out["pnet_added"] == [{"pnet_id": "NETLAB", "interface": "lo", "ib_device": None, "port": None}]
    assert out["pnet_deleted"] == []
    assert out["ueids_added"] == ["LAB.UEID-1"]
    assert out["ueids_flushed"] == []


# SMC-D for real: the image's smc.ko is built with CONFIG_SMC_LO=y (zlab.smc_lo_module), so the
# kernel has loopback-ism, an SMC-Dv2 device for connections within the host. Linux 6.12 does not
# list it in the SMC-D device dump; it shows as ISMv2 capability and a system EID (on s390 the
# SEID is enabled by default, so no UEID is needed) and as link groups on CHID 0xffff. The socket
# states are read with SMC_DIAG (sock_diag of AF_SMC), the counters with the netlink client.
SMCD_PROBE = r"""
import base64, json, socket, struct, subprocess, sys, types
mod = types.ModuleType("smc_netlink")
exec(compile(base64.b64decode(sys.argv[1]).decode(), "smc_netlink.py", "exec"), mod.__dict__)
subprocess.run(["modprobe", "smc"], check=True)
nl = mod.SmcNetlink()
IPPROTO_SMC = 256
MODES = {0: "SMCR", 1: "TCP", 2: "SMCD"}
def diag():
    # SOCK_DIAG_BY_FAMILY dump of AF_SMC (43): conninfo (1), DMB info (4); fallback comes always
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 4)
    req = struct.pack("=BBBB", 43, 0, 0, (1 << 0) | (1 << 3)) + bytes(48)
    s.sendto(struct.pack("=IHHII", 16 + len(req), 20, 0x301, 1, 0) + req, (0, 0))
    socks, done = [], False
    while not done:
        data = s.recv(65536); off = 0
        while off < len(data):
            ln, typ = struct.unpack_from("=IH", data, off)
            if typ in (2, 3):
                done = True; break
            body = data[off + 16:off + ln]
            fam, state, mode, shut = struct.unpack_from("=BBBB", body, 0)
            sport, dport = struct.unpack_from(">HH", body, 4)
            e = {"state": state, "mode": MODES.get(mode, mode), "sport": sport, "dport": dport}
            a = 64
            while a + 4 <= len(body):
                alen, atype = struct.unpack_from("=HH", body, a)
                pl = body[a + 4:a + alen]
                if atype == 1:
                    e["token"], e["sndbuf"], e["rmbe"], e["peer_rmbe"] = struct.unpack_from("=IIII", pl, 0)
                elif atype == 4:
                    e["dmb"] = dict(zip(("linkid", "peer_gid", "my_gid", "token", "peer_token", "peer_gid_ext",
                                         "my_gid_ext"), struct.unpack_from("=I4xQQQQQQ", pl, 0)))
                elif atype == 5:
                    e["fallback"], e["peer_diagnosis"] = struct.unpack_from("=II", pl, 0)
                a += (alen + 3) & ~3
            socks.append(e)
            off += (ln + 3) & ~3
    s.close()
    return socks
def counters():
    t = (nl.stats() or {}).get("smcd_tech") or {}
    fb = nl.fallback_stats()
    return {"smcd": {k: t.get(k) or 0 for k in ("clnt_v1_succ", "clnt_v2_succ", "srv_v1_succ", "srv_v2_succ")},
            "fb_client": {"0x%08x" % k: v for k, v in fb["client"].items()}, "fb_client_total": fb["client_total"],
            "fb_server": {"0x%08x" % k: v for k, v in fb["server"].items()}, "fb_server_total": fb["server_total"]}
def ports(socks, *nums):
    return [e for e in socks if e["sport"] in nums]
out = {"module": subprocess.run(["modinfo", "-n", "smc"], stdout=subprocess.PIPE, text=True).stdout.strip(),
       "sys_info": nl.sys_info(), "devices_smcd": nl.devices_smcd(), "seid": nl.seid(), "ueids": nl.ueids(),
       "before": counters()}
# SMC-D over loopback-ism: SMC sockets on both ends
srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM, IPPROTO_SMC)
srv.bind(("127.0.0.1", 0)); srv.listen(1)
cli = socket.socket(socket.AF_INET, socket.SOCK_STREAM, IPPROTO_SMC)
cli.connect(srv.getsockname()); conn, _ = srv.accept()
cli.sendall(b"d" * 8192); got = 0  # within the peer's DMB: loopback-ism sends into it (no copy)
while got < 8192:
    got += len(conn.recv(65536))
lport, cport = srv.getsockname()[1], cli.getsockname()[1]
socks = diag()
out["smcd_client"] = ports(socks, cport)
out["smcd_server"] = [e for e in ports(socks, lport) if e["dport"] == cport]
out["lgr_smcd"] = nl.linkgroups_smcd()
for s in (cli, conn, srv):
    s.close()
out["after_smcd"] = counters()
# a real fallback: an SMC client to a plain TCP listener (no SMC option in its SYN-ACK), and a plain
# TCP client to an SMC listener
tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
tcp.bind(("127.0.0.1", 0)); tcp.listen(1)
cli = socket.socket(socket.AF_INET, socket.SOCK_STREAM, IPPROTO_SMC)
cli.connect(tcp.getsockname()); conn, _ = tcp.accept()
cli.sendall(b"t"); conn.recv(1)
out["fallback_client"] = ports(diag(), cli.getsockname()[1])
for s in (cli, conn, tcp):
    s.close()
srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM, IPPROTO_SMC)
srv.bind(("127.0.0.1", 0)); srv.listen(1)
cli = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
cli.connect(srv.getsockname()); conn, _ = srv.accept()
cli.sendall(b"t"); conn.recv(1)
out["fallback_server"] = [e for e in ports(diag(), srv.getsockname()[1]) if e["dport"] == cli.getsockname()[1]]
for s in (cli, conn, srv):
    s.close()
out["after_fallback"] = counters()
print(json.dumps(out, default=str))
"""
SMCD_SEEN = {}
PEERNOSMC = 0x03010000  # SMC_CLC_DECL_PEERNOSMC: the peer's SYN did not carry the SMC option


def test_loopback_ism_carries_smc_d_v2_and_a_plain_tcp_peer_makes_smc_fall_back(real):
    # pylint: disable=unused-argument
    import base64  # pylint: disable=import-outside-toplevel

    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    with open(os.path.join(repo, "plugins", "module_utils", "smc", "netlink.py"), "rb") as handle:
        source = base64.b64encode(handle.read()).decode()
    start = time.monotonic()
    res = zlab("exec", "solo", "--", "python3", "-c", SMCD_PROBE, source, lab=NAME, timeout=600)
    FIGURES["SMC-D/fallback probe"] = "%.1f s" % (time.monotonic() - start)
    out = json.loads(res.stdout)
    sys.stdout.write("\nSMC-D over loopback-ism: %s\n" % json.dumps(out, sort_keys=True))
    # the rebuilt module is the one loaded
    assert out["module"] == "/lib/modules/%s/updates/smc.ko" % real["meta"]["kernel_release"], out["module"]
    assert out["sys_info"]["is_ism_v2"] == 1, out["sys_info"]
    assert out["seid"]["enabled"] is True and out["seid"]["seid"].startswith("IBM-SYSZ-ISMSEID"), out["seid"]
    assert out["devices_smcd"] == [], out["devices_smcd"]  # 6.12 leaves loopback-ism out of the dump
    before, after = out["before"]["smcd"], out["after_smcd"]["smcd"]
    assert dict((k, after[k] - before[k]) for k in after) == {
        "clnt_v1_succ": 0,
        "clnt_v2_succ": 1,
        "srv_v1_succ": 0,
        "srv_v2_succ": 1,
    }, out
    (client,), (server,) = out["smcd_client"], out["smcd_server"]
    for end in (client, server):
        assert end["mode"] == "SMCD" and end["fallback"] == 0, end
        assert end["sndbuf"] > 0 and end["rmbe"] > 0 and end["peer_rmbe"] > 0, end
        assert end["dmb"]["my_gid"] == end["dmb"]["peer_gid"], end  # both ends on the one device
    assert (client["rmbe"], client["sndbuf"]) == (server["peer_rmbe"], server["sndbuf"]), out
    groups = [g for g in out["lgr_smcd"] if g["chid"] == 0xFFFF]  # SMC_LO_RESERVED_CHID
    assert groups and all(g["v2_common"]["ver"] == 2 for g in groups), out["lgr_smcd"]
    SMCD_SEEN["sizes"] = (client["sndbuf"], client["rmbe"], client["peer_rmbe"])
    FIGURES["SMC-D over loopback-ism"] = "v2, sndbuf %d, RMB %d, peer RMB %d" % (
        client["sndbuf"],
        client["rmbe"],
        client["peer_rmbe"],
    )
    # the fallbacks: the kernel's own reason in SMC_DIAG and in the fallback counters
    (fb_client,), (fb_server,) = out["fallback_client"], out["fallback_server"]
    assert (fb_client["mode"], fb_client["fallback"]) == ("TCP", PEERNOSMC), fb_client
    assert (fb_server["mode"], fb_server["fallback"]) == ("TCP", PEERNOSMC), fb_server
    fb0, fb1 = out["after_smcd"], out["after_fallback"]
    code = "0x%08x" % PEERNOSMC
    assert fb1["fb_client"].get(code, 0) - fb0["fb_client"].get(code, 0) == 1, out
    assert fb1["fb_server"].get(code, 0) - fb0["fb_server"].get(code, 0) == 1, out
    assert (fb1["fb_client_total"] - fb0["fb_client_total"], fb1["fb_server_total"] - fb0["fb_server_total"]) == (1, 1)
    assert fb1["smcd"] == fb0["smcd"], out  # no SMC-D success counted for them


# A plain TCP echo server for smc_check's client (started in the background in the guest).
TCP_ECHO = r"""
import socket, sys
srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", int(sys.argv[1]))); srv.listen(1); srv.settimeout(300)
conn, _ = srv.accept(); conn.settimeout(120)
while True:
    data = conn.recv(65536)
    if not data:
        break
    conn.sendall(data)
"""
SMCD_PORT, TCP_PORT = 50161, 50162


def _adhoc(inventory, *args):
    """One ad-hoc ansible run on solo (its extra arguments, such as async); the host's result."""
    res = ansible(
        inventory,
        "solo",
        *args,
        timeout=600,
        env={"ANSIBLE_LOAD_CALLBACK_PLUGINS": "1", "ANSIBLE_STDOUT_CALLBACK": "ansible.posix.json"},
    )
    try:
        return json.loads(res.stdout)["plays"][0]["tasks"][0]["hosts"]["solo"]
    except (ValueError, KeyError, IndexError):
        raise AssertionError("no result\nstdout: %s\nstderr: %s" % (res.stdout, res.stderr))


def test_smc_check_reports_the_real_kernels_smc_d_and_fallback(real):
    inv = real["inventory"]
    start = time.monotonic()
    # SMC-D: the listener in the background (async, poll 0), the client, then the listener's result
    args = {"mode": "listen", "address": "127.0.0.1", "port": SMCD_PORT, "timeout": 120}
    job = _adhoc(inv, "-m", "s390x.network.smc_check", "-a", json.dumps(args), "-B", "300", "-P", "0")
    assert job.get("ansible_job_id"), job
    client = run_module(inv, "solo", "s390x.network.smc_check", dict(args, mode="connect", timeout=90), timeout=600)
    listener = {}
    for _ in range(30):
        listener = run_module(inv, "solo", "ansible.builtin.async_status", {"jid": job["ansible_job_id"]}, timeout=600)
        if listener.get("finished"):
            break
        time.sleep(2)
    assert client.get("smc_available") and not client.get("failed"), client
    assert listener.get("finished") and not listener.get("failed"), listener
    sys.stdout.write("\nsmc_check SMC-D client diag: %s\n" % json.dumps(client["diag"], sort_keys=True))
    assert (client["protocol"], client["data_ok"], listener["accepted"]) == ("ipproto_smc", True, 1), client
    mine, theirs = client["diag"], listener["connections"][0]["diag"]
    for end in (mine, theirs):
        assert (end["mode"], end["version"], end["fallback"]["reason"]) == ("SMC-D", 2, "0x00000000"), end
        assert end["sndbuf_size"] > 0 and end["rmbe_size"] > 0 and end["peer_rmbe_size"] > 0, end
        assert end["gid"] == end["peer_gid"] and end["link_group"], end  # one loopback-ism device
    assert (mine["rmbe_size"], mine["peer_rmbe_size"]) == (theirs["peer_rmbe_size"], theirs["rmbe_size"]), client
    assert (mine["local"], mine["peer"]) == (theirs["peer"], theirs["local"]), (mine, theirs)
    # 6.12 leaves the addresses of IPPROTO_SMC sockets out of SMC_DIAG (zeros): unknown, not 0.0.0.0
    assert mine["local"]["address"] is None and mine["peer"]["address"] is None, mine
    if SMCD_SEEN:  # what the probe read through SMC_DIAG for its own connection
        assert (mine["sndbuf_size"], mine["rmbe_size"], mine["peer_rmbe_size"]) == SMCD_SEEN["sizes"], SMCD_SEEN
    # a fallback: smc_check's client to a plain TCP echo server
    run("setsid python3 -c '%s' %d </dev/null >/dev/null 2>&1 &" % (TCP_ECHO.replace("'", "'\\''"), TCP_PORT))
    fb = run_module(
        inv,
        "solo",
        "s390x.network.smc_check",
        {"mode": "connect", "address": "127.0.0.1", "port": TCP_PORT, "timeout": 90},
        timeout=600,
    )
    sys.stdout.write("smc_check fallback diag: %s\n" % json.dumps(fb.get("diag"), sort_keys=True))
    assert fb.get("smc_available") and not fb.get("failed") and fb["data_ok"], fb
    assert fb["diag"]["mode"] == "TCP" and fb["diag"]["version"] is None, fb["diag"]
    assert fb["diag"]["fallback"]["reason"] == "0x%08x" % PEERNOSMC, fb["diag"]
    assert fb["diag"]["fallback"]["reason_name"] == "SMC_CLC_DECL_PEERNOSMC", fb["diag"]
    FIGURES["smc_check (SMC-D, fallback)"] = "%.0f s" % (time.monotonic() - start)


# verify.yml's live check over loopback-ism: the guest under two inventory names, lpa and lpb, as two
# partitions of a CPC model whose smcd_peers pair them, each with its own address on a dummy
# interface of the guest. The model's ISM functions (VCHID 7C9) exist on no machine, so the smc role
# leaves ISM alone (smc_ism_fids: []) and smc_preflight_facts tell the pre-flight which SMC-D device
# the kernel has: loopback-ism, CHID FFFF, ISMv2.
LIVE_ADDRESSES = {"lpa": "10.77.0.1", "lpb": "10.77.0.2"}
LIVE_NETDEV = "smclive0"
LIVE_PNET = "NOWHERE"  # a PNET ID no interface of the guest has
LIVE_BUFFER = "200K"  # net.smc.rmem/wmem; the kernel makes a 256 KiB DMB of it (16 KiB x 2^n)
LIVE_RMB = 256 * 1024 - 32  # an SMC-D RMB is its DMB less the CDC header
LIVE_CPC = {
    "name": "REAL",
    "machine": "z16",
    "partitions": [{"name": "LPA", "mif_id": 1, "host": "lpa"}, {"name": "LPB", "mif_id": 2, "host": "lpb"}],
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


def _live_inventory(real, path, loopback_pnet=None):
    """Inventory of lpa and lpb, both the guest (its connection variables from zlab's inventory).
    With ``loopback_pnet`` the pre-flight is told that loopback-ism carries that user-defined PNET ID
    and that no interface has one."""
    import yaml  # pylint: disable=import-outside-toplevel

    with open(real["inventory"], encoding="utf-8") as handle:
        solo = yaml.safe_load(handle)["all"]["hosts"]["solo"]
    connection = dict((k, v) for k, v in solo.items() if k.startswith("ansible_"))
    ism = {"name": "loopback-ism", "vchid": 0xFFFF, "pnet_id": "", "v2": True}
    facts = {"kernel": real["meta"]["kernel_release"], "smc": True, "ism": [ism], "roce": []}
    if loopback_pnet:
        ism["pnet_id_user"] = loopback_pnet
        facts.update(rendezvous={"pnet_id": ""}, netdev_pnet_ids=[])
    hosts = dict(
        (host, {"interfaces_config": [{"name": LIVE_NETDEV, "addresses": [address + "/24"]}]})
        for host, address in LIVE_ADDRESSES.items()
    )
    variables = dict(
        connection,
        cpc=LIVE_CPC,
        smc_ism_fids=[],
        smc_install_packages=False,
        smc_buffer_size=LIVE_BUFFER,
        smc_preflight_facts=facts,
    )
    inventory = {
        "all": {"vars": variables, "children": {"lpars": {"hosts": hosts}, "smc_hosts": {"children": {"lpars": {}}}}}
    }
    path.write_text(yaml.safe_dump(inventory, sort_keys=False))
    return str(path)


def _live_rows(tasks):
    """The table rows of the live check's verdict (lpa runs it once for the play)."""
    msg = tasks["Compare each pair's connection with the pre-flight and the smc role's buffer sizes"]["lpa"]
    assert not msg.get("failed"), msg.get("msg")
    lines = msg["msg"]
    sys.stdout.write("\n" + "\n".join(lines) + "\n")
    return [[cell.strip() for cell in line.split("|")] for line in lines if line.startswith("lpa -> lpb")]


def test_verify_yml_sees_smc_d_over_loopback_ism_and_a_real_decline(real, tmp_path):
    run(
        "modprobe dummy && ip link add %(dev)s type dummy && ip addr add %(a)s/24 dev %(dev)s "
        "&& ip addr add %(b)s/24 dev %(dev)s && ip link set %(dev)s up"
        % {"dev": LIVE_NETDEV, "a": LIVE_ADDRESSES["lpa"], "b": LIVE_ADDRESSES["lpb"]}
    )
    inventory = _live_inventory(real, tmp_path / "live.yml")
    role = tmp_path / "smc.yml"
    role.write_text(SMC_ROLE_PLAYBOOK)
    rc, tasks = playbook_run(inventory, str(role))
    assert rc == 0, tasks
    verify = os.path.join(REPO, "playbooks", "verify.yml")
    # SMC-D v2: the smc role's buffers (check mode, --tags smc) and the live connection (--tags smc_live)
    start = time.monotonic()
    rc, tasks = playbook_run(inventory, verify, "--tags", "smc,smc_live")
    seconds = time.monotonic() - start
    assert rc == 0, tasks
    ((_pair, mode, fallback, client, server, group, prediction, verdict),) = _live_rows(tasks)
    sizes = "%d/%d/%d" % ((LIVE_RMB,) * 3)  # loopback-ism: the send buffer is the peer's DMB
    assert (mode, fallback, client, server, prediction, verdict) == (
        "SMC-D v2",
        "client -, server -",
        sizes,
        sizes,
        "SMC-D v2",
        "agree",
    )
    assert re.fullmatch(r"0x[0-9a-f]{8}", group), group
    FIGURES["verify.yml SMC-D (loopback-ism)"] = "%s, RMB %d, agree (%.0f s)" % (mode, LIVE_RMB, seconds)
    # a real decline: loopback-ism gets a PNET ID that no interface has, so the client proposes no
    # SMC-D device (SMC_CLC_DECL_NOSMCDEV) and the server falls back on the client's decline; the
    # pre-flight predicts it from the facts, and the counters of the hosts agree
    pnet = {"state": "merged", "config": [{"pnet_id": LIVE_PNET, "ib_device": "loopback-ism"}]}
    res = run_module(real["inventory"], "solo", "s390x.network.smc_pnet", pnet, timeout=600)
    assert res.get("changed") and not res.get("failed"), res
    try:
        inventory = _live_inventory(real, tmp_path / "decline.yml", loopback_pnet=LIVE_PNET)
        start = time.monotonic()
        rc, tasks = playbook_run(
            inventory, verify, "--tags", "smc_live,smc_preflight", "-e", "verify_smc_preflight=true"
        )
        seconds = time.monotonic() - start
        assert rc == 0, tasks
        ((_pair, mode, fallback, client, server, _group, prediction, verdict),) = _live_rows(tasks)
        assert (mode, prediction, verdict) == ("TCP", "TCP", "agree")
        assert fallback == "client 0x03030000 SMC_CLC_DECL_NOSMCDEV, server 0x05000000 SMC_CLC_DECL_PEERDECL", fallback
        counters = tasks["Check that no host's counters contradict the prediction"]["localhost"]
        assert not counters.get("failed") and counters["msg"].startswith("pre-flight and statistics: 2 agree"), counters
        FIGURES["verify.yml fallback (NOSMCDEV)"] = "client NOSMCDEV, server PEERDECL, agree (%.0f s)" % seconds
    finally:
        pnet["state"] = "deleted"
        run_module(real["inventory"], "solo", "s390x.network.smc_pnet", pnet, timeout=600)
        run("ip link del %s" % LIVE_NETDEV, check=False)


PNET_BOOT = {"pnet_id": "NETBOOT", "interface": None}


def test_the_pnet_boot_unit_without_smc_tools_runs_the_netlink_client(real):
    """Debian has no smc-tools: smc_pnet's boot unit runs the collection's restore program, which
    adds the entries through the kernel's SMC_PNETID family (checked again after the reboot)."""
    PNET_BOOT["interface"] = run("ls /sys/class/net | grep -vx lo | head -n 1").stdout.strip()
    args = {"config": [dict(PNET_BOOT)], "boot_unit": "present"}
    res = run_module(real["inventory"], "solo", "s390x.network.smc_pnet", args, timeout=600)
    assert not res.get("failed") and res["changed"], res.get("msg")
    assert res["backend"] == "netlink", res
    unit = run("cat /etc/systemd/system/s390x-network-smc-pnet.service").stdout
    assert "/usr/local/libexec/s390x-network/smc-pnet-restore /etc/s390x-network/smc-pnet.json" in unit, unit
    # the program on its own: the entry is there already, which counts as added (exit 0)
    out = run(
        "python3 -I /usr/local/libexec/s390x-network/smc-pnet-restore /etc/s390x-network/smc-pnet.json; echo rc=$?"
    )
    assert out.stdout.strip().endswith("rc=0"), out.stdout + out.stderr
    assert run("systemd-analyze verify /etc/systemd/system/s390x-network-smc-pnet.service", check=False).returncode == 0
    again = run_module(real["inventory"], "solo", "s390x.network.smc_pnet", args, timeout=600)
    assert again["changed"] is False, again


def test_reboot_is_a_real_reboot_and_udev_applies_the_persistent_binding(real):
    # the collection's zpci_function binds the function to vfio-pci now and at boot (a udev rule
    # by FID): the real udev of the next boot applies it
    res = ansible(
        real["inventory"],
        "solo",
        "-m",
        "s390x.network.zpci_function",
        "-a",
        json.dumps({"config": [{"fid": "0x%x" % FID, "driver": "vfio-pci"}]}),
        timeout=600,
    )
    assert res.returncode == 0 and "CHANGED" in res.stdout, res.stdout + res.stderr
    dev = "/sys/bus/pci/devices/%04x:00:00.0" % UID
    before = run("cat /proc/sys/kernel/random/boot_id").stdout.strip()
    pid = _lab().hosts["solo"]["pid"]
    rss = _rss(pid)
    start = time.monotonic()
    res = zlab("reboot", "solo", lab=NAME, timeout=1200)
    assert "solo rebooted" in res.stdout
    FIGURES["zlab reboot (to SSH)"] = "%.0f s" % (time.monotonic() - start)
    after = run("cat /proc/sys/kernel/random/boot_id").stdout.strip()
    assert after and after != before
    assert _lab().hosts["solo"]["pid"] == pid  # the same QEMU: the guest rebooted itself
    # the function is back (configured at IPL), bound to vfio-pci by the rule, its group open to QEMU
    out = run("cat %s/function_id; basename $(readlink %s/driver); basename $(readlink %s/iommu_group)" % ((dev,) * 3))
    fid, driver, group = out.stdout.split()
    assert (int(fid, 16), driver) == (FID, "vfio-pci")
    assert run("test -c /dev/vfio/%s" % group, check=False).returncode == 0
    FIGURES["QEMU memory (VmRSS)"] = "%s MiB after boot, %s MiB after reboot" % (rss, _rss(pid))
    # the kernel forgot the PNET table; the boot unit's restore program added the entry again
    if PNET_BOOT["interface"]:
        state = run("systemctl is-active s390x-network-smc-pnet.service", check=False).stdout.strip()
        table = run_module(real["inventory"], "solo", "s390x.network.smc_pnet", {"state": "gathered"}, timeout=600)
        entries = [(e["pnet_id"], e["interface"]) for e in table.get("gathered") or table.get("before") or []]
        assert state == "active" and ("NETBOOT", PNET_BOOT["interface"]) in entries, (state, table)
        FIGURES["PNET entry restored at boot (no smc-tools)"] = "%s %s" % ("NETBOOT", PNET_BOOT["interface"])


def test_stop_powers_the_guest_off(real):
    # pylint: disable=unused-argument
    lab = _lab()
    start = time.monotonic()
    lab.stop_host("solo")  # a clean stop (zlab down ends QEMU at once: the overlay goes with it)
    FIGURES["poweroff (QEMU ends)"] = "%.0f s" % (time.monotonic() - start)
    assert lab.host_state("solo") == "stopped"
    assert lab.hosts["solo"]["stopped_by"] == "poweroff"


def test_down_stops_qemu_and_removes_the_host(real):
    # pylint: disable=unused-argument
    lab = _lab()
    lab.start_host("solo")  # booted again from its own overlay
    lab.wait_ready(["solo"])
    pid, netns, hdir = lab.hosts["solo"]["pid"], lab.hosts["solo"]["netns"], lab.hdir("solo")
    assert os.path.isfile(os.path.join(hdir, "disk.qcow2"))
    # the overlay kept what the host wrote: the binding rule of the zpci_function run
    assert run("ls /etc/udev/rules.d").stdout.count("zpci") == 1
    start = time.monotonic()
    zlab("down", NAME, lab=None, timeout=300)
    FIGURES["zlab down"] = "%.0f s" % (time.monotonic() - start)
    assert "qemu-system-s390x" not in _cmdline(pid)
    assert not os.path.exists("/run/netns/" + netns)
    assert not os.path.exists(hdir)


def test_zlab_kind_is_read_from_the_inventory_for_lpars_only(tmp_path):
    # no QEMU needed: the model and the command line a host would get
    from zlab import model  # pylint: disable=import-outside-toplevel

    inv = tiny_inventory(tmp_path / "kinds", CPC + HIPERSOCKETS)
    (inv / "host_vars").mkdir()
    (inv / "host_vars" / "solo.yml").write_text("zlab_kind: debian13-s390x\n")
    mdl = model.load(str(inv))
    assert mdl.hosts["solo"]["kind"] == "debian13-s390x"
    assert any("CCW devices (HiperSockets, OSA) are not there" in w for w in mdl.warnings)
    (inv / "host_vars" / "solo.yml").write_text("zlab_kind: namespace\n")
    assert "kind" not in model.load(str(inv)).hosts["solo"]  # the default: digests unchanged
    (inv / "host_vars" / "solo.yml").write_text("zlab_kind: debian12-s390x\n")
    with pytest.raises(model.ModelError, match="zlab_kind debian12-s390x not one of namespace, debian13-s390x"):
        model.load(str(inv))
    (inv / "host_vars" / "solo.yml").write_text("zlab_kind: debian13-s390x\nkvm_guests: [{name: g1}]\n")
    with pytest.raises(model.ModelError, match="solo: zlab_kind debian13-s390x is for LPARs; a kvm_host"):
        model.load(str(inv))


def test_qemu_command_line(tmp_path):
    from zlab import qemu_s390x  # pylint: disable=import-outside-toplevel

    class StubLab:  # what qemu_argv reads of a Lab
        name = "x"
        hosts = {"solo": {"ip": "10.209.7.10", "spec": {"pci": [{"fid": FID, "uid": UID}, {"fid": 0x20, "uid": 0x7}]}}}

        @staticmethod
        def key_file():
            return str(tmp_path / "id_ed25519")

        @staticmethod
        def hdir(host, *parts):
            return os.path.join(str(tmp_path), host, *parts)

    (tmp_path / "id_ed25519.pub").write_text("ssh-ed25519 AAAAKEY zlab-x\n")
    argv = qemu_s390x.qemu_argv(StubLab(), "solo", "02:5a:07:00:00:00", "/d.qcow2")
    line = " ".join(argv)
    assert argv[argv.index("-cpu") + 1].startswith("max,vx=off")
    assert "zpci,uid=0x605,fid=0x605,target=zpci0" in line and "zpci,uid=0x7,fid=0x20,target=zpci1" in line
    assert "virtio-net-pci,id=zpci1,netdev=zpcinet1,romfile=" in line
    assert "zlab.ip=10.209.7.10/24 zlab.mac=02:5a:07:00:00:00 zlab.key=AAAAKEY" in line
    # the network rule: one tap (on the lab's bridge), isolated hubs, no user-mode networking
    netdevs = [argv[i + 1].split(",")[0] for i, a in enumerate(argv) if a == "-netdev"]
    assert netdevs == ["tap", "hubport", "hubport"]
    assert "-nic" not in argv and "-net" not in argv


def test_smc_lo_module_build_inputs(tmp_path):
    # no QEMU, no build: the names and checks around the cached smc.ko
    from zlab import smc_lo_module  # pylint: disable=import-outside-toplevel

    assert smc_lo_module.source_package("6.12.107+deb13-s390x") == "linux-source-6.12"
    path = smc_lo_module.cache_path("6.12.107-1", str(tmp_path))
    assert path == str(tmp_path / "smc-lo" / ("6.12.107-1-" + smc_lo_module.recipe_key()))
    for bad in ("../x", "6.12 x", ""):
        with pytest.raises(ValueError):
            smc_lo_module.cache_path(bad, str(tmp_path))
    with pytest.raises(ValueError):
        smc_lo_module.build("6.12/../x", "6.12.107-1", "http://mirror", "stable", str(tmp_path))
    ko = tmp_path / "m.ko"
    ko.write_bytes(b"\x7fELF...\0license=GPL\0vermagic=6.12.107+deb13-s390x SMP mod_unload modversions \0name=smc\0")
    assert smc_lo_module.vermagic(str(ko)) == "6.12.107+deb13-s390x SMP mod_unload modversions "
    assert "CONFIG_SMC_LO=y" in smc_lo_module.CONFIG
    assert smc_lo_module.info("6.12.107+deb13-s390x", "6.12.107-1", str(tmp_path)) is None
    # autoconf.h: toolchain facts may differ, a configuration that shapes the kernel's code may not
    debian = {"CONFIG_GCC_VERSION": "140200", "CONFIG_DEBUG_INFO_BTF_MODULES": "1", "CONFIG_SMC": "1"}
    rebuild = {"CONFIG_GCC_VERSION": "120200", "CONFIG_SMC": "1", "CONFIG_SMC_LO": "1"}
    assert smc_lo_module.autoconf_differences(debian, rebuild) == ["CONFIG_DEBUG_INFO_BTF_MODULES"]
    assert smc_lo_module.autoconf_differences(debian, dict(rebuild, CONFIG_DEBUG_INFO_BTF_MODULES="1")) == []


def test_print_figures(real, capsys):
    # pylint: disable=unused-argument
    with capsys.disabled():
        print("\nreal-kernel host (qemu-system-s390x TCG, -smp 1); figures depend on the machine's load:")
        for key, value in FIGURES.items():
            print("  %-24s %s" % (key, value))


def _rss(pid):
    try:
        with open("/proc/%d/status" % pid, encoding="ascii") as f:
            kib = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
        return "%.0f" % (kib / 1024)
    except (OSError, StopIteration):
        return "?"


def _cmdline(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return f.read().decode(errors="replace")
    except OSError:
        return ""
