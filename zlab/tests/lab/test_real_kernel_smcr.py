# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""SMC-R between two real s390x kernels (two ``zlab_kind: debian13-s390x`` guests, booted in one
``zlab up``), read by the collection's ``smc_check`` on both ends.

Each guest loads Debian's own smc.ko (not the image's rebuild with loopback-ism,
zlab.smc_lo_module: with an SMC-D device the server would choose SMC-D, which it tries before
SMC-R), adds soft-RoCE (rdma_rxe) on its lab interface enc1 (virtio-net on the lab's management
bridge: the zPCI functions' NICs are on hubs with no other port, so only enc1 reaches the other
guest), sets net.smc.rmem/wmem and, through the collection's netlink client, groups enc1 and rxe0
under one PNET ID and adds a UEID both have (SMC-R v2 needs an EID in common). smc_check's listener
runs on one guest (async), its client on the other; for the decline, smc_pnet moves the server's
enc1 to a PNET ID without a RoCE port. Last, the smc role puts the PNET table back and sets the
buffers, and verify.yml judges the pair (the live check, the pre-flight, the counters). After a
connection the guests keep SMC-R link groups on the soft-RoCE device for minutes, which can stall
them under TCG, so no reboot or clean poweroff follows here (``zlab down`` ends QEMU).
"""

import base64
import concurrent.futures
import importlib
import json
import os
import sys
import time

import pytest

from labutil import LAB_NAME, REPO, SMC_ROLE_PLAYBOOK, playbook_run, zlab
from test_real_kernel import _skip_reason

SMCR_NAME = LAB_NAME + "-smcr"  # ZLAB_TEST_LAB names this run's labs
SERVER, CLIENT = "smca", "smcb"
CPC = """\
cpc:
  name: REAL
  machine: z16
  partitions:
    - {name: lp1, mif_id: 1, host: smca}
    - {name: lp2, mif_id: 2, host: smcb}
"""
HOSTS = """\
all:
  children:
    lpars:
      hosts:
        smca:
        smcb:
"""
# net.smc.rmem/wmem per guest: not 16 KiB x 2^n, so the kernel rounds them up; the two guests
# differ so that each end's peer RMB must be the other guest's RMB
RMEM = {SERVER: 100000, CLIENT: 200000}
WMEM = {SERVER: 40000, CLIENT: 40000}
PNET_ID, UEID = "NETLAB", "SMC.LAB"
SMCR_PORT, DECLINE_PORT = 50171, 50172
SMC_CLC_DECL_PEERDECL = 0x05000000  # the peer declined during the handshake
FIGURES = {}
MOVE_PNET = """
    - name: pnet
      s390x.network.smc_pnet:
        state: overridden
        config:
          - {pnet_id: NETOTHER, interface: enc1}
          - {pnet_id: %s, ib_device: rxe0, port: 1}""" % PNET_ID
sys.path.insert(0, os.path.join(REPO, ".cache", "collections"))  # the collection, as ansible.cfg names it


def _setup_script(host):
    """sh: Debian's smc.ko and smc_diag.ko (the image's smc_diag.ko in updates/ goes with its own
    smc.ko, which modprobe would take) with their dependencies, rxe0 on enc1, the buffer sizes, then
    SETUP_PROBE (the netlink client's source is its first argument)."""
    mod = "/lib/modules/$(uname -r)/kernel/net/smc"
    return (
        "set -e; deps=$(modinfo -F depends %s/smc.ko* | tr , ' '); modprobe -a rdma_rxe $deps; "
        "insmod %s/smc.ko*; insmod %s/smc_diag.ko*; rdma link add rxe0 type rxe netdev enc1; "
        "sysctl -q -w net.smc.rmem=%d net.smc.wmem=%d; exec python3 -c \"$1\" \"$2\""
        % (mod, mod, mod, RMEM[host], WMEM[host])
    )


# The collection's netlink client (plugins/module_utils/smc/netlink.py) run by the guest's Python:
# enc1 and rxe0 under one PNET ID, a UEID in common, read back with what the kernel now has.
SETUP_PROBE = r"""
import base64, json, os, sys, types
mod = types.ModuleType("smc_netlink")
exec(compile(base64.b64decode(sys.argv[1]).decode(), "smc_netlink.py", "exec"), mod.__dict__)
nl = mod.SmcNetlink()
nl.pnet_add("%(pnet)s", interface="enc1")
nl.pnet_add("%(pnet)s", ib_device="rxe0", port=1)
nl.add_ueid("%(ueid)s")
sysctl = dict((k, int(open("/proc/sys/net/smc/" + k).read())) for k in ("rmem", "wmem"))
print(json.dumps({"pnet": nl.pnet_table(), "ueids": nl.ueids(), "sysctl": sysctl, "kernel": os.uname().release,
                  "devices": [d.get("ib_name") for d in nl.devices_smcr()]}))
""" % {
    "pnet": PNET_ID,
    "ueid": UEID,
}


def playbook(inventory, path, text, timeout=900):
    """Run a playbook (YAML text) with the JSON callback: {task name: {host: result}}."""
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return playbook_run(inventory, path, timeout=timeout)[1]


def pair_playbook(server_ip, port, server_tasks="", counters=True):
    """``server_tasks`` on SERVER, smc_check's listener there (in the background), its client on CLIENT,
    the listener's result, and (``counters``) smcd_info's SMC-R counters of both."""
    args = {"address": server_ip, "port": port, "bytes": 65536}
    text = """
- hosts: %(server)s
  gather_facts: false
  tasks:%(server_tasks)s
    - name: listen
      s390x.network.smc_check: %(listen)s
      async: 300
      poll: 0
      register: listener
- hosts: %(client)s
  gather_facts: false
  tasks:
    - name: connect
      s390x.network.smc_check: %(connect)s
      ignore_errors: true
- hosts: %(server)s
  gather_facts: false
  tasks:
    - name: listener
      ansible.builtin.async_status:
        jid: "{{ listener.ansible_job_id }}"
      register: served
      until: served.finished
      retries: 60
      delay: 2
      ignore_errors: true
""" % {
        "server": SERVER,
        "client": CLIENT,
        "server_tasks": server_tasks,
        "listen": json.dumps(dict(args, mode="listen", timeout=120)),
        "connect": json.dumps(dict(args, mode="connect", timeout=90)),
    }
    if counters:
        text += """
- hosts: all
  gather_facts: false
  tasks:
    - name: counters
      s390x.network.smcd_info: {protocol: smcr}
"""
    return text


def _setup(host, source):
    res = zlab(
        "exec", host, "--", "sh", "-c", _setup_script(host), "sh", SETUP_PROBE, source, lab=SMCR_NAME, timeout=900
    )
    return json.loads(res.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    reason = _skip_reason()
    if reason:
        pytest.skip(reason)
    from zlab.host import Lab  # pylint: disable=import-outside-toplevel

    inv = tmp_path_factory.mktemp("smcr") / "smcr"
    (inv / "group_vars" / "all").mkdir(parents=True)
    (inv / "host_vars").mkdir()
    (inv / "hosts.yml").write_text(HOSTS)
    (inv / "group_vars" / "all" / "cpc.yml").write_text(CPC)
    for host in (SERVER, CLIENT):
        (inv / "host_vars" / (host + ".yml")).write_text("zlab_kind: debian13-s390x\n")
    zlab("down", SMCR_NAME, lab=None)
    start = time.monotonic()
    zlab("up", str(inv), "--name", SMCR_NAME, lab=None, timeout=1500)  # both guests boot at once
    lab = Lab.load(SMCR_NAME)
    FIGURES["zlab up (2 guests)"] = "%.0f s (QEMU start to SSH %s)" % (
        time.monotonic() - start,
        ", ".join("%s %s s" % (h, lab.hosts[h]["boot_seconds"]) for h in (SERVER, CLIENT)),
    )
    tmp = tmp_path_factory.mktemp("smcr-inv")
    inventory = tmp / "zlab.yml"
    inventory.write_text(zlab("inventory", lab=SMCR_NAME).stdout)
    ips = dict((h, lab.hosts[h]["ip"]) for h in (SERVER, CLIENT))
    with open(os.path.join(REPO, "plugins", "module_utils", "smc", "netlink.py"), "rb") as handle:
        source = base64.b64encode(handle.read()).decode()
    start = time.monotonic()
    try:
        with concurrent.futures.ThreadPoolExecutor(2) as pool:  # both guests at once
            done = dict((h, pool.submit(_setup, h, source)) for h in (SERVER, CLIENT))
            setup = dict((h, f.result()) for h, f in done.items())
    except BaseException:
        zlab("down", SMCR_NAME, lab=None, check=False)
        raise
    FIGURES["setup (smc.ko, rxe0, sysctl, PNET, UEID)"] = "%.0f s" % (time.monotonic() - start)
    yield {"inventory": str(inventory), "ips": ips, "setup": setup, "tmp": tmp}
    zlab("down", SMCR_NAME, lab=None, check=False)


def _results(out):
    client, listener = out["connect"][CLIENT], out["listener"][SERVER]
    assert listener.get("finished"), listener
    return client, listener


def test_setup_groups_enc1_and_rxe0_under_one_pnet_id_with_a_common_ueid(pair):
    for host in (SERVER, CLIENT):
        out = pair["setup"][host]
        assert sorted(out["pnet"], key=lambda e: str(e["interface"])) == [
            {"pnet_id": PNET_ID, "interface": None, "ib_device": "rxe0", "port": 1},
            {"pnet_id": PNET_ID, "interface": "enc1", "ib_device": None, "port": None},
        ], out
        assert out["ueids"] == [UEID] and "rxe0" in out["devices"], out
        assert out["sysctl"] == {"rmem": RMEM[host], "wmem": WMEM[host]}, out


def test_smc_r_v2_between_two_real_kernels(pair):
    # the collection's rule for what the kernel allocates (plugins/module_utils/smc/sizing.py)
    sizing = importlib.import_module("ansible_collections.s390x.network.plugins.module_utils.smc.sizing")
    start = time.monotonic()
    out = playbook(pair["inventory"], str(pair["tmp"] / "smcr.yml"), pair_playbook(pair["ips"][SERVER], SMCR_PORT))
    took = time.monotonic() - start
    client, listener = _results(out)
    assert not client.get("failed") and client["data_ok"], client
    assert not listener.get("failed") and listener["accepted"] == 1, listener
    ends = {CLIENT: client["diag"], SERVER: listener["connections"][0]["diag"]}
    kernel = pair["setup"][CLIENT]["kernel"]
    rmb = dict((h, sizing.effective_buffer(RMEM[h], kernel, "smcr")["size"]) for h in RMEM)
    sndbuf = dict((h, sizing.effective_buffer(WMEM[h], kernel, "smcr")["size"]) for h in WMEM)
    for host, end in ends.items():
        peer = SERVER if host == CLIENT else CLIENT
        sys.stdout.write(
            "\nSMC-R %s (%s) -> %s: %s v%s, fallback %s, sndbuf %s, RMB %s, peer RMB %s, link group %s on %s:%s, "
            "%s; smc_check %.1f s, pair %.0f s\n"
            % (
                host,
                end.get("role"),
                peer,
                end["mode"],
                end["version"],
                end["fallback"]["reason"],
                end["sndbuf_size"],
                end["rmbe_size"],
                end["peer_rmbe_size"],
                end["link_group"],
                end.get("ib_device"),
                end.get("ib_port"),
                end.get("gid"),
                client["elapsed"] if host == CLIENT else listener["elapsed"],
                took,
            )
        )
        assert (end["mode"], end["version"], end["fallback"]["reason"]) == ("SMC-R", 2, "0x00000000"), end
        # the sizes net.smc.rmem/wmem set on each guest, rounded by the kernel; the peer's RMB is the other's
        assert (end["sndbuf_size"], end["rmbe_size"], end["peer_rmbe_size"]) == (sndbuf[host], rmb[host], rmb[peer]), (
            end,
            rmb,
            sndbuf,
        )
        assert end["ib_device"] == "rxe0" and end["link_group"], end
    assert (ends[CLIENT]["role"], ends[SERVER]["role"]) == ("client", "server"), ends
    assert ends[CLIENT]["link_group"] == ends[SERVER]["link_group"], ends  # one link group, both ends
    assert (ends[CLIENT]["gid"], ends[CLIENT]["peer_gid"]) == (ends[SERVER]["peer_gid"], ends[SERVER]["gid"]), ends
    # the kernels counted it: an SMC-R v2 client on one, a server on the other (netlink: no smc-tools)
    for host, role in ((CLIENT, "smc_client"), (SERVER, "smc_server")):
        info = out["counters"][host]
        assert not info.get("failed") and info["backend"] == "netlink", info
        conns = info["stats"]["connections"]
        assert (conns[role], conns["v2"], conns["tcp_fallback"]) == (1, 1, 0), (host, conns)
    FIGURES["SMC-R v2 pair (listen, connect, collect, counters)"] = "%.0f s" % took


def test_a_server_without_a_roce_device_for_the_interface_declines(pair):
    # after the SMC-R case (pytest keeps the file's order): the server's enc1 moves to another
    # PNET ID, which no RoCE port has, so the server finds no device and declines
    start = time.monotonic()
    text = pair_playbook(pair["ips"][SERVER], DECLINE_PORT, MOVE_PNET, counters=False)
    out = playbook(pair["inventory"], str(pair["tmp"] / "decline.yml"), text)
    took = time.monotonic() - start
    assert out["pnet"][SERVER].get("changed") and not out["pnet"][SERVER].get("failed"), out["pnet"]
    client, listener = _results(out)
    assert not client.get("failed") and client["data_ok"], client
    assert not listener.get("failed") and listener["accepted"] == 1, listener
    mine, theirs = client["diag"], listener["connections"][0]["diag"]
    sys.stdout.write(
        "\nSMC-R decline: client %s (%s, peer diagnosis %s), server %s (%s); %.0f s\n"
        % (
            mine["mode"],
            mine["fallback"]["reason_name"] or mine["fallback"]["reason"],
            mine["fallback"]["peer_diagnosis_name"] or mine["fallback"]["peer_diagnosis"],
            theirs["mode"],
            theirs["fallback"]["reason_name"] or theirs["fallback"]["reason"],
            took,
        )
    )
    assert (mine["mode"], theirs["mode"]) == ("TCP", "TCP"), (mine, theirs)
    # the client falls back because the peer declined; the server's own reason is the client's peer diagnosis
    assert mine["fallback"]["reason"] == "0x%08x" % SMC_CLC_DECL_PEERDECL, mine["fallback"]
    assert theirs["fallback"]["reason"] == mine["fallback"]["peer_diagnosis"] != "0x00000000", (mine, theirs)
    assert theirs["fallback"]["reason_name"] == "SMC_CLC_DECL_NOSMCRDEV", theirs["fallback"]
    FIGURES["decline pair (PNET move, listen, connect, collect)"] = "%.0f s" % took


def _verify_inventory(pair, path):
    """The lab's inventory for verify.yml: both guests use SMC-R (smc_smcr, no RoCE functions to power
    on: rxe0 is soft-RoCE), the buffer sizes the setup gave them, enc1's address as their common
    subnet, and for the pre-flight what a model cannot say about soft-RoCE: rxe0 port 1 on enc1 under
    the user-defined PNET ID, RoCEv2 with an IPv4 GID."""
    import yaml  # pylint: disable=import-outside-toplevel

    with open(pair["inventory"], encoding="utf-8") as handle:
        zlab_hosts = yaml.safe_load(handle)["all"]["hosts"]
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
    for host in (SERVER, CLIENT):
        hosts[host] = dict((k, v) for k, v in zlab_hosts[host].items() if k.startswith("ansible_"))
        hosts[host].update(
            interfaces_config=[{"name": "enc1", "addresses": [pair["ips"][host] + "/24"]}],
            smc_rmem=RMEM[host],
            smc_wmem=WMEM[host],
            smc_preflight_facts={
                "kernel": pair["setup"][host]["kernel"],
                "smc": True,
                "ism": [],
                "roce": [roce],
                "rendezvous": {"interface": "enc1", "pnet_id": PNET_ID},
                "netdev_pnet_ids": [PNET_ID],
                "ueids": [UEID],
            },
        )
    variables = {
        "cpc": yaml.safe_load(CPC)["cpc"],
        "smc_smcr": True,
        "smc_roce_fids": [],
        "smc_ism_fids": [],
        "smc_install_packages": False,
        "smc_load_module": False,
        # the PNET table of the setup, which the decline test changed on smca
        "smc_pnet_config": [
            {"pnet_id": PNET_ID, "interface": "enc1"},
            {"pnet_id": PNET_ID, "ib_device": "rxe0", "port": 1},
        ],
        "smc_pnet_state": "overridden",
        "smc_pnet_persistent": False,
    }
    inventory = {
        "all": {"vars": variables, "children": {"lpars": {"hosts": hosts}, "smc_hosts": {"children": {"lpars": {}}}}}
    }
    path.write_text(yaml.safe_dump(inventory, sort_keys=False))
    return str(path)


def test_verify_yml_judges_the_smc_r_pair_with_the_pre_flight_and_the_counters(pair):
    # last: the smc role puts back the PNET table the decline test changed. verify.yml pairs the two
    # SMC-R hosts itself (smc_plan.roce.enabled of the smc role's check-mode run), in host order: smca
    # connects to smcb
    sizing = importlib.import_module("ansible_collections.s390x.network.plugins.module_utils.smc.sizing")
    inventory = _verify_inventory(pair, pair["tmp"] / "verify.yml")
    # the smc role sets the buffers the setup gave the kernels (now and persistently) and the PNET table
    role = pair["tmp"] / "smc-role.yml"
    role.write_text(SMC_ROLE_PLAYBOOK)
    rc, tasks = playbook_run(inventory, str(role))
    assert rc == 0, tasks
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
    failed = dict(
        (name, dict((h, r.get("msg")) for h, r in hosts.items() if r.get("failed") and not r.get("ignore_errors")))
        for name, hosts in tasks.items()
    )
    failed = dict((name, msgs) for name, msgs in failed.items() if msgs)
    assert rc == 0 and not failed, (rc, failed)
    verdict = tasks["Compare each pair's connection with the pre-flight and the smc role's buffer sizes"]
    live = next(iter(verdict.values()))
    sys.stdout.write("\n" + "\n".join(live.get("msg") or []) + "\n")
    rows = [[c.strip() for c in line.split("|")] for line in live["msg"] if line.startswith(SERVER + " -> ")]
    ((_pair, mode, fallback, client, server, _group, prediction, status),) = rows
    kernel = pair["setup"][CLIENT]["kernel"]
    rmb = dict((h, sizing.effective_buffer(RMEM[h], kernel, "smcr")["size"]) for h in RMEM)
    sndbuf = dict((h, sizing.effective_buffer(WMEM[h], kernel, "smcr")["size"]) for h in WMEM)
    # verify.yml's client is smca (SERVER of the other tests), its server smcb
    assert client == "%d/%d/%d" % (rmb[SERVER], rmb[CLIENT], sndbuf[SERVER]), (client, rmb, sndbuf)
    assert server == "%d/%d/%d" % (rmb[CLIENT], rmb[SERVER], sndbuf[CLIENT]), (server, rmb, sndbuf)
    assert (mode, fallback, prediction, status) == ("SMC-R v2", "client -, server -", "SMC-R v2", "agree")
    counters = tasks["Check that no host's counters contradict the prediction"]["localhost"]
    sys.stdout.write(counters.get("msg", "") + "\n")
    assert not counters.get("failed") and counters["msg"].startswith("pre-flight and statistics: 2 agree"), counters
    FIGURES["verify.yml --tags smc,smc_live,smc_preflight"] = "%s agree, %.0f s" % (mode, took)


def test_print_figures(pair, capsys):
    # pylint: disable=unused-argument
    with capsys.disabled():
        print("\nSMC-R between two real-kernel guests (TCG, -smp 1 each); figures depend on the machine's load:")
        for key, value in FIGURES.items():
            print("  %-50s %s" % (key, value))
