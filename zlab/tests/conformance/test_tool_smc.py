# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""smc-tools conformance: smc_rnics, smcd/smcr, smc_pnet, smcss, smc_run (facts sheet section 5,
study appendix 9.3)."""

import errno
import json
import os
import re
import sys

import pytest

from zlab import kernel

import toolrun

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "tools")
HDR_185 = "FID   Power  PCI_ID        PCHID  Type             PFT   VF   PPrt  PNET_ID            " "Net-Dev"
# The study's appendix 9.3 counters (medium request-response workload, 51 connections).
STUDY = {
    "SMCD": {
        "SMC_CLNT_V2_SUCC_CNT": 51,
        "SMC_RX_BYTES": 358191451596,
        "SMC_RX_CNT": 358191491,
        "SMC_TX_BYTES": 71638302336,
        "SMC_TX_CNT": 358191501,
        "SMC_INT_RX_BUF_32K": 51,
        "SMC_INT_TX_BUF_16K": 51,
        "SMC_USR_RX_BUF_8K": 358191490,
        "SMC_USR_RX_BUF_16K": 1,
        "SMC_USR_TX_BUF_8K": 358191501,
        "SMC_INT_RX_BUF_REUSE_CNT": 51,
        "SMC_INT_TX_BUF_REUSE_CNT": 51,
        "SMC_NDLY_CNT": 50,
    }
}


@pytest.fixture(autouse=True)
def _no_stats_cache(host):
    """Each test starts without a ``smcd stats reset`` snapshot."""
    tmp = os.path.join(host.zroot, "tmp")
    if os.path.isdir(tmp):
        for name in os.listdir(tmp):
            if name.startswith(".smcstats."):
                os.unlink(os.path.join(tmp, name))


def run(h, tool, *args, stdin=None, env=None):
    os.makedirs(os.path.join(h.zroot, "tmp"), exist_ok=True)
    return toolrun.run(h, tool, *args, stdin=stdin, env=env)


def enable_ism(h):
    h.write("/sys/bus/pci/slots/00000605/power", "1")


def load_smc(h):
    kernel.load_module(h.state_dir, "smc")


# ---- smc_rnics -----------------------------------------------------------------------------


def test_smc_rnics_185_layout_ism_row(host):
    enable_ism(host)
    r = run(host, "smc_rnics")
    assert r.returncode == 0
    assert r.stdout.splitlines() == [
        HDR_185,
        "-" * 100,
        " 605  1      0605:00:00.0  07c8   ISM              ISM   y    n/a   n/a                n/a",
    ]


def test_smc_rnics_old_layout_as_in_study(host):
    enable_ism(host)
    r = run(host, "smc_rnics", env={"ZLAB_SMC_TOOLS_VERSION": "1.8.3"})
    assert r.stdout.splitlines() == [
        "     FID  Power  PCI_ID        PCHID  Type           PPrt  PNET_ID            Net-Dev",
        "-" * 90,
        "     605  1      0605:00:00.0  07c8   ISM            n/a   n/a                n/a",
    ]


def test_smc_rnics_all_shows_standby_slot(host):
    assert run(host, "smc_rnics").stdout.splitlines() == [HDR_185, "-" * 100]
    r = run(host, "smc_rnics", "-a")
    assert r.stdout.splitlines()[2].rstrip() == " 605  0"


def test_smc_rnics_raw_ids(host):
    enable_ism(host)
    r = run(host, "smc_rnics", "-r")
    assert r.stdout.splitlines()[0] == HDR_185.replace("VF ", "VFN")
    assert r.stdout.splitlines()[2].split() == [
        "605",
        "1",
        "0605:00:00.0",
        "07c8",
        "1014:04ed",
        "0x05",
        "1",
        "n/a",
        "n/a",
        "n/a",
    ]


def test_smc_rnics_enable_disable_and_errors(host):
    r = run(host, "smc_rnics", "-e", "605")
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    assert host.read("/sys/bus/pci/slots/00000605/power") == "1\n"
    r = run(host, "smc_rnics", "-e", "0x605")
    assert (r.returncode, r.stderr) == (6, "Error: FID 605 is already enabled\n")
    r = run(host, "smc_rnics", "-d", "999")
    assert (r.returncode, r.stderr) == (5, "Error: FID 999 does not exist\n")
    r = run(host, "smc_rnics", "-d", "xyz")
    assert (r.returncode, r.stderr) == (3, "Error: 'xyz' is not a valid FID\n")
    assert run(host, "smc_rnics", "-d", "605").returncode == 0
    assert host.read("/sys/bus/pci/slots/00000605/power") == "0\n"


def test_smc_rnics_user_pnet_id_has_star(host):
    enable_ism(host)
    load_smc(host)
    kernel.pnet_add(host.state_dir, "NETA", ib="0605:00:00.0", port=1)
    row = run(host, "smc_rnics").stdout.splitlines()[2]
    assert row.split()[8] == "NETA*"


# ---- smcd / smcr ---------------------------------------------------------------------------


def test_smcd_without_smc_module(host):
    r = run(host, "smcd", "stats")
    assert (r.returncode, r.stderr) == (1, "Error: SMC module not loaded\n")


def test_smcd_detailed_stats_match_study_appendix(host):
    load_smc(host)
    kernel.smc_stats_set(host.state_dir, "SMCD", STUDY)
    r = run(host, "smcd", "-d", "stats", env={"ZLAB_SMC_TOOLS_VERSION": "1.8.3"})
    with open(os.path.join(FIXTURES, "smcd_d_stats_study_v1.8.3.txt"), encoding="ascii") as f:
        assert r.stdout == f.read()


def test_smcd_stats_185_has_buffer_usage_and_short_summary(host):
    load_smc(host)
    kernel.smc_stats_set(host.state_dir, "SMCD", STUDY)
    lines = run(host, "smcd", "stats").stdout.splitlines()
    assert lines[:6] == [
        "SMC-D Connections Summary",
        "  Total connections handled            51",
        "  SMC connections                      51",
        "  Handshake errors                      0",
        "  Avg requests per SMC conn      14046725.0",
        "  TCP fallback                          0",
    ]
    assert "  Buffer usage (Bytes)                  0 (0)" in lines
    assert "  Buffer reuses                        51" not in lines
    assert "  Reqs   358.2M       1       0       0       0       0       0       0" in lines


def test_smcd_stats_json_one_line(host):
    load_smc(host)
    kernel.smc_stats_set(host.state_dir, "SMCD", STUDY)
    out = run(host, "smcd", "stats", "json").stdout
    assert out.count("\n") == 1 and out.startswith('{"SMCD": {"SMC_INT_TX_BUF_8K":0,')
    data = json.loads(out)["SMCD"]
    assert len(data) == 65 and data["SMC_RX_BYTES"] == 358191451596
    old = json.loads(run(host, "smcd", "stats", "json", env={"ZLAB_SMC_TOOLS_VERSION": "1.8.3"}).stdout)["SMCD"]
    assert len(old) == 63 and "SMC_RX_RMB_USAGE" not in old


def test_smcd_stats_relative_to_reset_cache(host):
    load_smc(host)
    kernel.smc_stats_set(host.state_dir, "SMCD", STUDY)
    run(host, "smcd", "stats", "reset")
    cache = os.path.join(host.zroot, "tmp", ".smcstats.u%d" % os.getuid())
    lines = open(cache, encoding="ascii").read().splitlines()
    assert len(lines) == 2 * 65 + 2 + 60 + 2
    assert lines[65 + 51] == "%-12d%-16d" % (65 + 51, 51)  # SMC-D SMC_CLNT_V2_SUCC_CNT
    assert lines[-1] == "%16d" % 0
    kernel.smc_stats_set(host.state_dir, "SMCD", {"SMCD": {"SMC_CLNT_V2_SUCC_CNT": 53}})
    rel = run(host, "smcd", "stats").stdout.splitlines()
    assert rel[1] == "  Total connections handled             2"
    absolute = run(host, "smcd", "-a", "stats").stdout.splitlines()
    assert absolute[1] == "  Total connections handled            53"
    # counters below the cache (e.g. after a reboot): the cache is dropped, absolute shown
    kernel.smc_stats_set(host.state_dir, "SMCD", {"SMCD": {"SMC_CLNT_V2_SUCC_CNT": 1}})
    assert run(host, "smcd", "stats").stdout.splitlines()[1] == "  Total connections handled             1"
    assert not os.path.exists(cache) or os.path.getsize(cache) == 0


def test_smcd_fallback_reasons_detail(host):
    load_smc(host)
    kernel.smc_stats_set(
        host.state_dir,
        "SMCD",
        {"CLNT_FBACK_CNT": 7, "SRV_FBACK_CNT": 0, "FBACK_RSN": {"clnt": [[0x03030001, 2], [0x03010000, 5]], "srv": []}},
    )
    lines = run(host, "smcd", "-d", "-a", "stats").stdout.splitlines()
    # "-d -a" are two options: the second wins (smc.c), so no details
    assert "  TCP fallback                          7" in lines
    lines = run(host, "smcd", "-da", "stats").stdout.splitlines()
    i = lines.index("  TCP fallback                          7 (client 7, server 0)")
    assert lines[i + 1 : i + 4] == [
        "    Client",
        "     PEER_NO_SMC                        5",
        "     NOSMCDDEV                          2",
    ]


def test_smcd_device_and_linkgroup(host):
    load_smc(host)
    assert run(host, "smcd", "device").stdout == ""
    enable_ism(host)
    r = run(host, "smcd", "device")
    assert r.stdout == (
        "FID  Type  PCI-ID        PCHID  InUse  #LGs  PNET-ID  \n"
        "0605 ISM   0605:00:00.0  07c8   No        0                   \n"
    )
    kernel.linkgroups_set(
        host.state_dir, "SMCD", [{"id": 0x1B00, "vlan": 0, "conns": 51, "pnet_id": "", "device": "0605:00:00.0"}]
    )
    assert run(host, "smcd", "linkgroup").stdout == (
        "LG-ID    VLAN  #Conns  PNET-ID \n" "00001b00    0      51                   \n"
    )
    # linkgroup.c prints the header with the dump's first reply, before its LG-ID filter
    assert run(host, "smcd", "l", "1c00").stdout == "LG-ID    VLAN  #Conns  PNET-ID \n"


def test_smcd_object_and_option_errors(host):
    load_smc(host)
    r = run(host, "smcd", "bogus")
    assert (r.returncode, r.stderr) == (1, 'Error: Object "bogus" is unknown, try "smcd help".\n')
    r = run(host, "smcd", "-x", "stats")
    assert (r.returncode, r.stderr) == (255, 'Error: Option "-x" is unknown, try "smcd help".\n')
    r = run(host, "smcd", "stats", "bogus")
    assert (r.returncode, r.stderr) == (255, "Usage: smcd stats [show | reset]\n")


def test_smcr_stats_is_the_smc_r_twin(host):
    load_smc(host)
    kernel.smc_stats_set(host.state_dir, "SMCR", {"SMCR": {"SMC_SRV_V1_SUCC_CNT": 3}})
    lines = run(host, "smcr", "stats").stdout.splitlines()
    assert lines[:3] == [
        "SMC-R Connections Summary",
        "  Total connections handled             3",
        "  SMC connections                       3",
    ]
    assert run(host, "smcd", "stats").stdout.splitlines()[1] == "  Total connections handled             0"


# ---- smcd ueid / smcd seid (smc-tools ueid.c, seid.c; kernel net/smc/smc_clc.c) ----------------


def test_smcd_ueid_table_follows_the_kernel_rules(host):
    load_smc(host)
    assert (run(host, "smcd", "ueid").returncode, run(host, "smcd", "ueid").stdout) == (0, "")
    for eid in ("PLEX1.PROD", "PLEX1.TEST", "A-1", "9"):
        r = run(host, "smcd", "ueid", "add", eid)
        assert (r.returncode, r.stderr) == (0, ""), eid
    # the kernel stores 32 characters, blank padded, in the order added, and holds 4
    assert run(host, "smcd", "ueid", "show").stdout.splitlines() == [
        "PLEX1.PROD".ljust(32),
        "PLEX1.TEST".ljust(32),
        "A-1".ljust(32),
        "9".ljust(32),
    ]
    r = run(host, "smcd", "ueid", "add", "FIFTH")
    assert (r.returncode, r.stderr) == (
        255,
        "Error: specified User EID was rejected because the maximum number of User EIDs is reached\n",
    )
    r = run(host, "smcd", "ueid", "del", "NOPE")
    assert (r.returncode, r.stderr) == (255, "Error: specified User EID is not defined\n")
    assert run(host, "smcd", "ueid", "del", "A-1").returncode == 0
    r = run(host, "smcd", "ueid", "add", "PLEX1.PROD")
    assert (r.returncode, r.stderr) == (255, "Error: specified User EID is already defined\n")
    assert kernel.ueid_list(host.state_dir) == ["PLEX1.PROD".ljust(32), "PLEX1.TEST".ljust(32), "9".ljust(32)]
    assert run(host, "smcd", "ueid", "flush").returncode == 0
    assert run(host, "smcd", "ueid", "show").stdout == ""
    assert run(host, "smcd", "ueid", "flush").returncode == 0  # an empty table: still 0


@pytest.mark.parametrize(
    "eid,message",
    [
        ("plex1", "Error: Invalid User EID specified: unsupported character: 'p'\n"),
        (".A", "Error: Invalid User EID specified: first character must be alphanumeric\n"),
        ("A..B", "Error: Invalid User EID specified: consecutive dots not allowed\n"),
        ("A" * 33, "Error: Invalid User EID specified: EID is longer than 32 characters\n"),
        ("A_B", "Error: Invalid User EID specified: unsupported character: '_'\n"),
    ],
)
def test_smcd_ueid_refuses_what_smc_tools_refuses(host, eid, message):
    load_smc(host)
    r = run(host, "smcd", "ueid", "add", eid)
    assert r.returncode == 255 and r.stderr.startswith(message)
    assert kernel.ueid_list(host.state_dir) == []


def test_kernel_ueid_rules_without_the_tool(host):
    """What smc-tools does not check, the kernel does (EINVAL), and what it allows (no '..' rule)."""
    load_smc(host)
    with pytest.raises(OSError) as info:
        kernel.ueid_add(host.state_dir, "lower")
    assert info.value.errno == errno.EINVAL
    kernel.ueid_add(host.state_dir, "A..B")
    with pytest.raises(OSError) as info:
        kernel.ueid_remove(host.state_dir, "A..B")
    assert info.value.errno == errno.EAGAIN and kernel.ueid_list(host.state_dir) == []


def test_smcd_seid_and_the_last_ueid(host):
    load_smc(host)
    # no ISM device registered: not ISMv2 capable, no system EID
    assert run(host, "smcd", "seid").stdout == "n/a\n"
    r = run(host, "smcd", "seid", "disable")
    assert (r.returncode, r.stdout) == (255, "Error: System EID not available\n")
    enable_ism(host)
    seid = run(host, "smcd", "seid", "show").stdout
    assert re.fullmatch(r"IBM-SYSZ-ISMSEID00000000[0-9A-F]{4}3931 \[enabled\]\n", seid), seid
    r = run(host, "smcd", "seid", "disable")
    assert (r.returncode, r.stderr) == (255, "Error: System EID cannot be disabled because no User EID is defined\n")
    assert run(host, "smcd", "ueid", "add", "U1").returncode == 0
    assert run(host, "smcd", "seid", "disable").returncode == 0
    assert run(host, "smcd", "seid").stdout.endswith(" [disabled]\n")
    # removing the last UEID enables the system EID again; smc-tools fails with an Info line (the
    # subcommand's EXIT_FAILURE, negated by smc.c: 255)
    r = run(host, "smcd", "ueid", "del", "U1")
    assert (r.returncode, r.stderr) == (
        255,
        "Info: the System EID was activated because the last User EID was removed\n",
    )
    assert run(host, "smcd", "seid").stdout.endswith(" [enabled]\n")
    # the table lives in the smc module: unloading it empties the table
    assert run(host, "smcd", "ueid", "add", "U2").returncode == 0
    kernel.unload_module(host.state_dir, "ism")  # ism uses smc
    kernel.unload_module(host.state_dir, "smc")
    r = run(host, "smcd", "ueid")
    assert (r.returncode, r.stderr) == (1, "Error: SMC module not loaded\n")
    load_smc(host)
    assert run(host, "smcd", "ueid").stdout == ""


# ---- smc_pnet ------------------------------------------------------------------------------


def test_smc_pnet_add_show_delete_flush(host):
    enable_ism(host)
    load_smc(host)
    assert run(host, "smc_pnet", "-a", "NETA", "-I", "enc8200").returncode == 0
    assert run(host, "smc_pnet", "-a", "netb", "-D", "0605:00:00.0").returncode == 0
    assert run(host, "smc_pnet").stdout == ("NETA enc8200 n/a 255\n" "NETB n/a 0605:00:00.0 1\n")
    assert run(host, "smc_pnet", "-s", "NETB").stdout == "NETB n/a 0605:00:00.0 1\n"
    r = run(host, "smc_pnet", "-a", "NETC", "-I", "enc8200")
    assert (r.returncode, r.stderr) == (1, "smc_pnet: Object exists\n")
    assert run(host, "smc_pnet", "-d", "NETA").returncode == 0
    r = run(host, "smc_pnet", "-d", "NETA")
    assert (r.returncode, r.stderr) == (1, "smc_pnet: Object not found\n")
    assert run(host, "smc_pnet", "-f").returncode == 0
    assert run(host, "smc_pnet").stdout == ""


def test_smc_pnet_usage_errors_and_module(host):
    r = run(host, "smc_pnet")
    assert (r.returncode, r.stderr) == (1, "smc_pnet: SMC module not loaded\n")
    load_smc(host)
    r = run(host, "smc_pnet", "-a", "NETA")
    assert r.returncode == 1
    assert r.stderr.startswith("smc_pnet: interface or device missing\nUsage: smc_pnet ")


# ---- smcss ---------------------------------------------------------------------------------


def test_smcss_rows_and_filters(host):
    load_smc(host)
    kernel.smc_sockets_set(
        host.state_dir,
        [
            {
                "state": "ACTIVE",
                "uid": 0,
                "inode": 115762,
                "local": "10.101.4.8:60594",
                "peer": "10.101.4.49:3220",
                "intf": 0,
                "mode": "SMCD",
            },
            {
                "state": "ACTIVE",
                "uid": 20000,
                "inode": 115763,
                "local": "10.101.4.8:60596",
                "peer": "10.101.4.49:3220",
                "intf": 0,
                "mode": "TCP",
                "fallback": 0x05000000,
                "peer_diagnosis": 0x0000521E,
            },
            {"state": "LISTEN", "uid": 0, "inode": 99, "local": "0.0.0.0:3220", "mode": "SMCD"},
        ],
    )
    lines = run(host, "smcss").stdout.splitlines()
    assert lines == [
        "State          UID   Inode   Local Address           Peer Address            Intf Mode ",
        "ACTIVE         00000 0115762 10.101.4.8:60594        10.101.4.49:3220        0000 SMCD ",
        "ACTIVE         20000 0115763 10.101.4.8:60596        10.101.4.49:3220        0000 TCP "
        "0x05000000/0x0000521e",
    ]
    assert run(host, "smcss", "-l").stdout.splitlines()[1] == "LISTEN         00000 0000099 0.0.0.0:3220            "
    assert len(run(host, "smcss", "-a").stdout.splitlines()) == 4
    r = run(host, "smcss", "-l", "-a")
    assert r.returncode == 1
    assert r.stderr.startswith("--listening together with --all is not supported\n")


# ---- smc_run -------------------------------------------------------------------------------


def test_smc_run_sets_preload_and_buffer_env_then_execs(host):
    r = run(
        host,
        "smc_run",
        "-r",
        "128k",
        "-t",
        "64K",
        "-d",
        sys.executable,
        "-c",
        "import os; print(os.environ['SMC_RCVBUF'], os.environ['SMC_SNDBUF'], "
        "os.environ['SMC_DEBUG'], os.environ['LD_PRELOAD'])",
        env={"LD_PRELOAD": ""},
    )
    assert r.returncode == 0
    assert r.stdout == "128k 64K 1 :libsmc-preload.so\n"


def test_smc_run_errors(host):
    r = run(host, "smc_run", "-r", "12x", "true")
    assert (r.returncode, r.stdout) == (1, "Error: Invalid buffer size specified: '12x'\n")
    r = run(host, "smc_run")
    assert (r.returncode, r.stdout) == (1, "smc_run: Error: Missing command parameter\n")
    r = run(host, "smc_run", "-v")
    assert r.stdout == "smc_run utility, smc-tools-1.8.5\n"


def test_smcd_linkgroup_details(host):
    load_smc(host)
    kernel.linkgroups_set(
        host.state_dir,
        "SMCD",
        [
            {
                "id": 0x1B00,
                "vlan": 0,
                "conns": 51,
                "pnet_id": "",
                "version": 2,
                "peer_rel": 0,
                "peer_host": "lpar-b",
                "peer_os": 2,
                "eid": "SEID",
                "sndbuf": 3342336,
                "dmb": 6684672,
            },
            {"id": 0x1C00, "vlan": 5, "conns": 1, "pnet_id": "NETA"},
        ],
    )
    r = run(host, "smcd", "-d", "linkgroup")
    assert r.stdout == (
        "LG-ID    : 00001b00\nVLAN     : 0\nPNET-ID  : \nVersion  : 2\n"
        "Peer-Rel : 0\nPeer-Host: lpar-b\nPeer-OS  : LINUX\nEID      : SEID\n"
        "#Conns   : 51\nSndbuf   : 3342336 B\nDMB      : 6684672 B\n"
        "\n"
        "LG-ID    : 00001c00\nVLAN     : 5\nPNET-ID  : NETA\nVersion  : 1\n"
        "#Conns   : 1\nSndbuf   : 0 B\nDMB      : 0 B\n"
    )
    assert run(host, "smcd", "linkgroup", "1c00").stdout.splitlines()[1] == "00001c00  0x5       1  NETA             "


def test_smcss_smcd_detail_columns(host):
    load_smc(host)
    kernel.smc_sockets_set(
        host.state_dir,
        [
            {
                "state": "ACTIVE",
                "uid": 0,
                "inode": 1,
                "local": "10.0.0.1:1",
                "peer": "10.0.0.2:2",
                "intf": 3,
                "mode": "SMCD",
                "gid": 0x1,
                "token": 0x2,
                "peer_gid": 0x3,
                "peer_token": 0x4,
                "linkid": 0x1B00,
            },
            {"state": "ACTIVE", "uid": 0, "inode": 2, "local": "10.0.0.1:3", "peer": "10.0.0.2:4", "mode": "SMCR"},
        ],
    )
    lines = run(host, "smcss", "-D").stdout.splitlines()
    assert lines[0].endswith("Mode GID              Token            Peer-GID         " "Peer-Token       Linkid")
    assert len(lines) == 2
    assert lines[1].endswith(
        "0003 SMCD 0000000000000001 0000000000000002 0000000000000003 " "0000000000000004 00001b00 "
    )


def test_smc_rnics_single_fid_listing_exits_8_like_upstream_pipeline(host):
    enable_ism(host)
    r = run(host, "smc_rnics", "605")
    # smc_rnics counts printed rows in a pipeline subshell: the FID filter always ends in exit 8
    assert r.returncode == 8
    assert r.stdout.splitlines()[2].split()[:3] == ["605", "1", "0605:00:00.0"]
    assert run(host, "smc_rnics", "606").stdout.splitlines()[2:] == []
    r = run(host, "smc_rnics", "-e", "605", "605")
    assert r.returncode == 4
