# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""/proc/sys/net (smc), /proc/modules, osrelease and the SMC buffer rules per kernel profile
(facts sheet section 4; net/smc/smc_sysctl.c, smc_core.c; kernel/module/procfs.c)."""

import errno
import os
import re

import pytest

from zlab import kernel, profiles

SMC = "/proc/sys/net/smc"


@pytest.mark.parametrize(
    "prof,release",
    [
        ("rhel8.8", "4.18.0-477.10.1.el8_8.s390x"),
        ("sles15sp5", "5.14.21-150500.53-default"),
        ("ubuntu23.04", "6.2.0-20-generic"),
        ("linux6.12", "6.12.0"),
    ],
)
def test_osrelease_per_profile(boot_host, prof, release):
    h = boot_host(kernel_profile=prof)
    assert h.read("/proc/sys/kernel/osrelease") == release + "\n"


def test_real_proc_sys_net_passes_through_and_real_smc_hidden(host):
    assert host.read("/proc/sys/net/ipv4/tcp_rmem") == "4096\t262144\t6291456\n"
    assert "smc" not in host.listdir("/proc/sys/net")
    assert host.listdir("/proc/sys/net") == ["core", "ipv4"]


def test_passthrough_write_reaches_real_file(host):
    host.write("/proc/sys/net/core/somaxconn", "1024\n")
    with open(host.real_net + "/core/somaxconn", encoding="ascii") as f:
        assert f.read() == "1024\n"
    host.write("/proc/sys/net/core/somaxconn", "4096\n")


def test_smc_sysctls_absent_until_smc_loaded(boot_host):
    h = boot_host(kernel_profile="linux6.12")
    assert not h.exists(SMC)
    kernel.load_module(h.state_dir, "smc")
    assert h.listdir(SMC) == sorted(
        [
            "autocorking_size",
            "smcr_buf_type",
            "smcr_testlink_time",
            "wmem",
            "rmem",
            "smcr_max_links_per_lgr",
            "smcr_max_conns_per_lgr",
            "limit_smc_hs",
        ]
    )


def test_rhel88_has_no_smc_sysctls_even_with_smc(host):
    kernel.load_module(host.state_dir, "smc")
    assert "smc" in host.read("/proc/modules")
    assert not host.exists(SMC)


@pytest.mark.parametrize("prof", ["sles15sp5", "ubuntu23.04"])
def test_61_style_keys_and_tcp_derived_defaults(boot_host, prof):
    h = boot_host(kernel_profile=prof)
    kernel.load_module(h.state_dir, "smc")
    assert h.listdir(SMC) == sorted(["autocorking_size", "smcr_buf_type", "smcr_testlink_time", "wmem", "rmem"])
    # defaults inherit tcp_{r,w}mem[1] of the namespace (fake: 262144 / 16384)
    assert h.read(SMC + "/rmem") == "262144\n"
    assert h.read(SMC + "/wmem") == "16384\n"
    assert h.read(SMC + "/autocorking_size") == "65536\n"
    assert h.read(SMC + "/smcr_testlink_time") == "30\n"


def test_65_plus_defaults_are_64k(boot_host):
    h = boot_host(kernel_profile="linux6.12")
    kernel.load_module(h.state_dir, "smc")
    assert h.read(SMC + "/rmem") == "65536\n"
    assert h.read(SMC + "/wmem") == "65536\n"
    assert h.read(SMC + "/smcr_max_conns_per_lgr") == "255\n"


@pytest.mark.parametrize(
    "key,bad,good",
    [
        ("rmem", "16383", "16384"),
        ("wmem", "abc", "131072"),
        ("smcr_buf_type", "3", "2"),
        ("smcr_max_links_per_lgr", "0", "1"),
        ("smcr_max_conns_per_lgr", "15", "16"),
        ("smcr_max_conns_per_lgr", "256", "255"),
        ("limit_smc_hs", "2", "1"),
        ("autocorking_size", "-1", "0"),
        ("rmem", "1073741824", "1073741823"),
    ],
)
def test_smc_sysctl_ranges(boot_host, key, bad, good):
    h = boot_host(kernel_profile="linux6.12")
    kernel.load_module(h.state_dir, "smc")
    before = h.read(SMC + "/" + key)
    assert h.errno_of_write(SMC + "/" + key, bad + "\n") == errno.EINVAL
    assert h.read(SMC + "/" + key) == before
    h.write(SMC + "/" + key, good + "\n")
    assert h.read(SMC + "/" + key) == good + "\n"


def test_no_upper_limit_before_65(boot_host):
    h = boot_host(kernel_profile="ubuntu23.04")
    kernel.load_module(h.state_dir, "smc")
    h.write(SMC + "/rmem", "1073741824")
    assert h.read(SMC + "/rmem") == "1073741824\n"


def test_sysctl_via_bash_and_unload_removes(boot_host):
    h = boot_host(kernel_profile="linux6.12")
    kernel.load_module(h.state_dir, "smc")
    res = h.bash('echo 131072 > "$P/smc/rmem" && cat "$P/smc/rmem"; echo 1 > "$P/smc/wmem"')
    assert res.stdout == "131072\n"
    assert "write error: Invalid argument" in res.stderr
    kernel.unload_module(h.state_dir, "smc")
    assert not h.exists(SMC)
    assert kernel.smc_sysctl(h.state_dir) is None


def test_proc_modules_format(host):
    text = host.read("/proc/modules")
    lines = text.splitlines()
    names = [ln.split()[0] for ln in lines]
    assert names[-3:] == ["qeth", "ccwgroup", "qdio"]  # most recent first
    pat = re.compile(r"^[a-z0-9_]+ \d+ \d+ (-|([a-z0-9_]+,)+) Live 0x[0-9a-f]{16}$")
    assert all(pat.match(ln) for ln in lines), lines
    qeth = [ln for ln in lines if ln.startswith("qeth ")][0].split()
    assert qeth[2] == "0" and qeth[3] == "-"
    qdio = [ln for ln in lines if ln.startswith("qdio ")][0].split()
    assert qdio[2] == "1" and qdio[3] == "qeth,"


def test_modules_dependencies_refcount_and_in_use(host):
    kernel.load_module(host.state_dir, "smc_diag")
    mods = {m["name"]: m for m in kernel.modules_loaded(host.state_dir)}
    assert mods["smc"]["holders"] == ["smc_diag"]
    with pytest.raises(kernel.ModuleError) as exc:
        kernel.unload_module(host.state_dir, "smc")
    assert exc.value.reason == "in_use"
    kernel.unload_module(host.state_dir, "smc_diag")
    kernel.unload_module(host.state_dir, "smc")
    assert "smc" not in host.listdir("/sys/module")


def test_module_errors(boot_host):
    h = boot_host(kernel_profile="ubuntu23.04")
    with pytest.raises(kernel.ModuleError) as exc:
        kernel.load_module(h.state_dir, "nosuchmod")
    assert exc.value.reason == "not_found"
    with pytest.raises(kernel.ModuleError) as exc:
        kernel.unload_module(h.state_dir, "vfio_pci")
    assert exc.value.reason == "builtin"
    with pytest.raises(kernel.ModuleError) as exc:
        kernel.unload_module(h.state_dir, "smc")
    assert exc.value.reason == "not_loaded"
    assert kernel.load_module(h.state_dir, "vfio-pci") is False


def test_sys_module_entries(host):
    kernel.load_module(host.state_dir, "vfio-pci", params="ids=1014:04ed")
    assert host.read("/sys/module/vfio_pci/parameters/ids") == "1014:04ed\n"
    assert host.read("/sys/module/qdio/refcnt") == "1\n"
    assert host.listdir("/sys/module/qdio/holders") == ["qeth"]
    assert "ext4" in host.listdir("/sys/module")  # real modules pass through


def test_vfio_ids_param_claims_ism_at_power_on(host):
    kernel.load_module(host.state_dir, "vfio-pci", params="ids=1014:04ed")
    host.write("/sys/bus/pci/slots/00000605/power", "1")
    assert host.readlink("/sys/bus/pci/devices/0605:00:00.0/driver").endswith("/vfio-pci")


@pytest.mark.parametrize(
    "req,proto,size",
    [
        (16384, "SMCD", 16384),
        (1, "SMCD", 16384),
        (16385, "SMCD", 32768),
        (131072, "SMCD", 131072),
        (100000, "SMCD", 131072),
        (131073, "SMCD", 262144),
        (4 << 20, "SMCD", 1 << 20),
        (4 << 20, "SMCR", 512 << 10),
        (600000, "SMCR", 512 << 10),
    ],
)
def test_smc_effective_buffer_size(req, proto, size):
    assert profiles.smc_effective_size(req, proto) == size


def test_smc_buffer_rule_per_profile():
    rhel = profiles.get("rhel8.8")
    # the study: tcp_rmem[1] = 262144 -> 128 KiB SMC-D buffers on RHEL 8.8
    assert profiles.smc_buffer_size(rhel, "rmem", "SMCD", tcp_mem1=262144) == 131072
    new = profiles.get("linux6.12")
    assert profiles.smc_buffer_size(new, "rmem", "SMCD", tcp_mem1=262144) == 65536
    assert profiles.smc_buffer_size(new, "rmem", "SMCD", smc_sysctl={"rmem": 131072}) == 131072
    ub = profiles.get("ubuntu23.04")
    assert profiles.smc_buffer_size(ub, "rmem", "SMCD", tcp_mem1=262144) == 262144


def test_profiles_distribution_data():
    assert profiles.get("rhel8.8")["packages"]["s390-tools"] == "s390utils-base"
    assert 'ID="rhel"' in profiles.get("rhel8.8")["os_release"]
    assert "ID=ubuntu" in profiles.get("ubuntu23.04")["os_release"]
    assert profiles.get("sles15sp5")["packages"]["smc-tools"] == "smc-tools"
    with pytest.raises(KeyError):
        profiles.get("rhel9")


def test_pnet_table_and_smcd_devices(host):
    host.write("/sys/bus/pci/slots/00000605/power", "1")
    assert kernel.smcd_devices(host.state_dir)[0]["pci_id"] == "0605:00:00.0"  # smc via ism dep
    kernel.pnet_add(host.state_dir, "neta", ib="0605:00:00.0")
    with pytest.raises(OSError) as exc:
        kernel.pnet_add(host.state_dir, "NETB", ib="0605:00:00.0")
    assert exc.value.errno == errno.EEXIST
    with pytest.raises(OSError) as exc:
        kernel.pnet_add(host.state_dir, "BAD-ID", eth="enc8200")
    assert exc.value.errno == errno.EINVAL
    assert kernel.pnet_list(host.state_dir) == [{"pnet_id": "NETA", "eth": None, "ib": "0605:00:00.0", "port": 1}]
    dev = kernel.smcd_devices(host.state_dir)[0]
    assert dev["pnet_id"] == "NETA" and dev["pnet_user_set"] is True
    kernel.pnet_del(host.state_dir, "NETA")
    with pytest.raises(OSError) as exc:
        kernel.pnet_del(host.state_dir, "NETA")
    assert exc.value.errno == errno.ENOENT


def test_smc_stats_layout_and_set(host):
    st = kernel.smc_stats(host.state_dir, "SMCD")
    assert len(st["SMCD"]) == 63
    assert st["SMCD"]["SMC_CLNT_V2_SUCC_CNT"] == 0
    kernel.smc_stats_set(host.state_dir, "SMCD", {"SMCD": {"SMC_CLNT_V2_SUCC_CNT": 51}, "CLNT_FBACK_CNT": 0})
    assert kernel.smc_stats(host.state_dir, "smcd")["SMCD"]["SMC_CLNT_V2_SUCC_CNT"] == 51
    assert kernel.smc_stats(host.state_dir, "SMCR")["SMCR"]["SMC_CLNT_V2_SUCC_CNT"] == 0


def test_tool_fault(host):
    assert kernel.consume_tool_fault(host.state_dir, "chzdev") is None
    kernel.add_tool_fault(host.state_dir, "chzdev", 15, count=1, stderr="boom")
    assert kernel.consume_tool_fault(host.state_dir, "chzdev") == {
        "exit_code": 15,
        "stderr": "boom",
        "sleep": 0.0,
        "half_way": False,
    }
    assert kernel.consume_tool_fault(host.state_dir, "chzdev") is None


def test_module_files_for_kmod_shims():
    rhel = profiles.get("rhel8.8")
    assert profiles.module_filename(rhel, "vfio-pci") == "kernel/drivers/vfio/pci/vfio-pci.ko.xz"
    assert profiles.module_filename(rhel, "nosuch") is None
    ub = profiles.get("ubuntu23.04")
    assert profiles.module_filename(ub, "vfio_pci") == "(builtin)"
    assert "kernel/drivers/vfio/pci/vfio-pci.ko\n" in profiles.modules_builtin(ub)
    dep = profiles.modules_dep(rhel)
    assert (
        "kernel/net/smc/smc_diag.ko.xz: kernel/net/smc/smc.ko.xz " "kernel/drivers/infiniband/core/ib_core.ko.xz\n"
    ) in dep


# ---- per-profile sysctl boot values -----------------------------------------------------------

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def _collection_sysctls():
    """net.ipv4/net.core keys the collection's plugins and roles mention."""
    keys = set()
    for top in ("plugins", "roles"):
        for dirpath, _dirs, files in os.walk(os.path.join(REPO, top)):
            for name in files:
                if not name.endswith((".py", ".yml", ".yaml", ".j2", ".md")):
                    continue  # source only: no compiled or other binary files
                with open(os.path.join(dirpath, name), encoding="utf-8", errors="replace") as f:
                    keys.update(re.findall(r"\bnet\.(?:ipv4|core)\.[a-z0-9_]*[a-z0-9]\b", f.read()))
    return keys


@pytest.mark.parametrize("prof", sorted(profiles.PROFILES))
def test_profile_sysctl_boot_values(prof):
    p = profiles.get(prof)
    # RHEL 8.8, SLES 15 SP5 (5.14), Ubuntu 23.04 (6.2), Debian 13 (6.12) on s390x; 6.16 raised
    # tcp_rmem[2] to 32 MiB
    rmem_max = "33554432" if tuple(p["version"]) >= (6, 16) else "6291456"
    assert p["sysctls"]["net.ipv4.tcp_rmem"].split() == ["4096", "131072", rmem_max]
    assert p["sysctls"]["net.ipv4.tcp_wmem"].split() == ["4096", "16384", "4194304"]
    assert p["sysctls"]["net.core.rmem_max"] == p["sysctls"]["net.core.wmem_max"] == "262144"
    assert _collection_sysctls() <= set(p["sysctls"])
    assert profiles.tcp_mem1_default(p, "tcp_rmem") == 131072
    assert profiles.tcp_mem1_default(p, "tcp_wmem") == 16384
    if p["smc_sysctls"].get("rmem", (0, 0, 0, 0))[3] == "tcp_rmem1":
        assert profiles.smc_sysctl_defaults(p)["rmem"] == 131072
        assert profiles.smc_sysctl_defaults(p)["wmem"] == 16384


def test_collection_sysctls_found():
    assert {"net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem", "net.core.rmem_max", "net.core.wmem_max"} <= _collection_sysctls()


def test_smc_buffer_without_tcp_values_uses_profile_defaults():
    # RHEL 8.8 at its defaults: tcp_rmem[1] 131072 / 2 -> 64 KiB, tcp_wmem[1] 16384 / 2 -> 16 KiB
    rhel = profiles.get("rhel8.8")
    assert profiles.smc_buffer_size(rhel, "rmem", "SMCD") == 65536
    assert profiles.smc_buffer_size(rhel, "wmem", "SMCD") == 16384
    assert profiles.smc_requested_size(profiles.get("sles15sp5"), "rmem") == 131072


@pytest.mark.parametrize("prof", ["rhel8.8", "sles15sp5"])
def test_boot_applies_profile_sysctls_before_smc_loads(boot_host, prof):
    # hostinit writes them at boot before apply_persistent; the namespace had other values
    h = boot_host(kernel_profile=prof)
    proc_sys = os.path.join(h.zroot, "proc", "sys")
    real = {k: os.path.join(h.real_net, "ipv4", k) for k in ("tcp_rmem", "tcp_wmem")}
    saved = {}
    for k, p in real.items():
        with open(p, encoding="ascii") as f:
            saved[k] = f.read()
    try:
        done = kernel.apply_sysctl_defaults(h.state_dir, proc_sys)
        assert [k for k, _v in done] == [
            "net.core.rmem_max",
            "net.core.wmem_max",
            "net.ipv4.tcp_rmem",
            "net.ipv4.tcp_wmem",
        ]
        with open(real["tcp_rmem"], encoding="ascii") as f:
            assert f.read().split() == ["4096", "131072", "6291456"]
        with open(real["tcp_wmem"], encoding="ascii") as f:
            assert f.read().split() == ["4096", "16384", "4194304"]
        assert h.read("/proc/sys/net/core/rmem_max") == "262144\n"
        kernel.load_module(h.state_dir, "smc")
        if prof == "sles15sp5":  # 6.1-style net.smc.{r,w}mem start from tcp_{r,w}mem[1]
            assert h.read(SMC + "/rmem") == "131072\n"
            assert h.read(SMC + "/wmem") == "16384\n"
    finally:
        for k, p in real.items():
            with open(p, "w", encoding="ascii") as f:
                f.write(saved[k])


@pytest.mark.parametrize("key,low", [("rmem_max", "2303"), ("wmem_max", "4607")])
def test_core_mem_max_is_the_lpar_kernels(boot_host, key, low):
    # global sysctls of the LPAR's kernel: the profile's value, writable (proc_dointvec_minmax,
    # min SOCK_MIN_RCVBUF / SOCK_MIN_SNDBUF), reset at boot; the rest of net.core passes through
    h = boot_host(kernel_profile="linux6.12")
    p = "/proc/sys/net/core/" + key
    assert h.read(p) == "262144\n"
    h.write(p, "1048576\n")
    assert h.read(p) == "1048576\n"
    assert h.errno_of_write(p, low + "\n") == errno.EINVAL
    assert h.errno_of_write(p, "2147483648\n") == errno.EINVAL
    assert h.errno_of_write(p, "12x\n") == errno.EINVAL
    assert h.read(p) == "1048576\n"
    assert h.read("/proc/sys/net/core/somaxconn") == "4096\n"
    assert h.listdir("/proc/sys/net/core") == ["rmem_max", "somaxconn", "wmem_max"]
    h = boot_host(kernel_profile="linux6.12")
    assert h.read(p) == "262144\n"
