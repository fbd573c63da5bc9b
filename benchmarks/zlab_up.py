#!/usr/bin/env python3
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""zlab figures (a benchmark, not a test): run as root with the venv's python.

1. `zlab up inventories/lab` (3 hosts) with a warm image cache: seconds, peak memory.
2. `zlab up` of a generated 24-host CPC (18 LPARs, 3 KVM hosts with 1 guest each): same.
3. Ansible `-m setup` round trip per host (one host alone, and all hosts of the lab at once).

"up" is the whole `zlab up` command (reading the inventory with ansible-inventory included),
"boot" the part after the model is read (namespaces, overlays, FUSE daemons, sshd, libvirtd).
Memory: "lab PSS" = summed PSS of every process of the lab's hosts (init, FUSE daemon, sshd,
libvirtd) after up; "mem used" = drop of MemAvailable across up (includes tmpfs, page cache of
the hosts' new files); "cli peak" = max RSS of the zlab process.

Usage: .venv/bin/python benchmarks/zlab_up.py [--json FILE] [--skip-24]
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.dirname(sys.executable)
ZLAB = [sys.executable, "-m", "zlab.cli"]


def mem_available_kib():
    with open("/proc/meminfo", encoding="ascii") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1])
    return 0


def lab_pss_kib(lab):
    from zlab import host  # pylint: disable=import-outside-toplevel

    data = host.Lab.load(lab)
    pids = set(host.processes_in_netns([h["netns"] for h in data.hosts.values()]))
    total = 0
    for pid in pids:
        try:
            with open("/proc/%d/smaps_rollup" % pid, encoding="ascii") as f:
                for line in f:
                    if line.startswith("Pss:"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total, len(pids)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, check=True, **kw)


def bench_up(inventory, name):
    subprocess.run(ZLAB + ["down", name], capture_output=True, check=False)
    before = mem_available_kib()
    t0 = time.monotonic()
    proc = subprocess.Popen(
        ZLAB + ["up", inventory, "--name", name], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    out, err = proc.communicate()
    secs = time.monotonic() - t0
    # ru_maxrss of waited-for children: the zlab CLI (and ansible-inventory it ran)
    cli_peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if proc.returncode != 0:
        raise SystemExit("zlab up %s failed: %s" % (inventory, err))
    time.sleep(1)
    pss, nproc = lab_pss_kib(name)
    used = before - mem_available_kib()
    inv = run(ZLAB + ["--lab", name, "inventory"]).stdout
    hosts = json.loads(run(ZLAB + ["--lab", name, "status", "--json"]).stdout)[0]["hosts"]
    import re  # pylint: disable=import-outside-toplevel

    m = re.search(r"hosts in ([0-9.]+) s", out)
    return {
        "lab": name,
        "hosts": len(hosts),
        "up_seconds": round(secs, 2),
        "boot_seconds": float(m.group(1)) if m else None,
        "lab_pss_mib": round(pss / 1024, 1),
        "lab_processes": nproc,
        "mem_used_mib": round(used / 1024, 1),
        "cli_peak_rss_mib": round(cli_peak / 1024, 1),
        "inventory": inv,
        "host_names": sorted(hosts),
    }


def bench_setup(result):
    """Ansible's own start-up (~5 s on this 2-core machine) dominates one `ansible` call, so the
    per-host round trip is measured inside one run: `-m setup -f 1` over every host, minus the
    same run's fixed cost (a local `-m setup` with the same start-up), divided by the hosts."""
    with tempfile.NamedTemporaryFile("w", suffix=".yml", delete=False) as f:
        f.write(result["inventory"])
        inv = f.name
    env = dict(os.environ, ANSIBLE_HOST_KEY_CHECKING="False")
    ans = os.path.join(BIN, "ansible")

    def timed(*args):
        t0 = time.monotonic()
        run([ans] + list(args), env=env)
        return time.monotonic() - t0

    base = min(
        timed(
            "-i",
            "localhost,",
            "-c",
            "local",
            "all",
            "-m",
            "setup",
            "-e",
            "ansible_python_interpreter=" + sys.executable,
        )
        for _ in range(2)
    )
    one = result["host_names"][0]
    single = min(timed("-i", inv, one, "-m", "setup") for _ in range(2))
    serial = timed("-i", inv, "all", "-m", "setup", "-f", "1")
    parallel = timed("-i", inv, "all", "-m", "setup", "-f", "25")
    os.unlink(inv)
    n = result["hosts"]
    return {
        "ansible_startup_seconds": round(base, 2),
        "setup_one_host_wall_seconds": round(single, 2),
        "setup_per_host_seconds": round(max(serial - base, 0) / n, 2),
        "setup_all_parallel_seconds": round(parallel, 2),
    }


def generate_cpc(path, lpars=18, kvm_hosts=3):
    os.makedirs(os.path.join(path, "group_vars", "all"), exist_ok=True)
    os.makedirs(os.path.join(path, "host_vars"), exist_ok=True)
    parts, lp_hosts, kvm = [], [], []
    for i in range(1, lpars + kvm_hosts + 1):
        host = "lp%02d" % i
        parts.append({"name": "LP%02d" % i, "mif_id": i, "host": host})
        (kvm if i > lpars else lp_hosts).append(host)
    names = [p["name"] for p in parts]
    cpc = {
        "name": "BIG",
        "machine": "z16",
        "uid_checking": names,
        "partitions": parts,
        "hipersockets": [
            {"chpid": "F0", "frame_size": "40K", "devices": {"first": "8200", "count": 12}, "partitions": names},
            {"chpid": "F1", "frame_size": "16K", "devices": {"first": "9000", "count": 6}, "partitions": names},
        ],
        "ism": [
            {
                "vchid": "7C8",
                "pnet_id": None,
                "functions": [
                    {"fid": 0x600 + i, "uid": 0x600 + i, "vf": i, "partition": n} for i, n in enumerate(names, 1)
                ],
            }
        ],
    }
    import yaml  # pylint: disable=import-outside-toplevel

    with open(os.path.join(path, "group_vars", "all", "cpc.yml"), "w", encoding="utf-8") as f:
        yaml.safe_dump({"cpc": cpc, "zlab_kernel": "linux6.12"}, f)
    for n, host in enumerate(kvm, 1):
        with open(os.path.join(path, "host_vars", host + ".yml"), "w", encoding="utf-8") as f:
            yaml.safe_dump({"kvm_guests": [{"name": "guest%02d" % n}]}, f)
    inv = {
        "all": {
            "children": {
                "lpars": {"hosts": {h: None for h in lp_hosts + kvm}},
                "kvm_hosts": {"hosts": {h: None for h in kvm}},
            }
        }
    }
    with open(os.path.join(path, "hosts.yml"), "w", encoding="utf-8") as f:
        yaml.safe_dump(inv, f)
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", help="also write the figures to this file")
    ap.add_argument("--skip-24", action="store_true")
    ap.add_argument("--keep", action="store_true", help="leave the labs up")
    args = ap.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("run as root")
    from zlab import image  # pylint: disable=import-outside-toplevel

    image.build_all()  # warm cache: not measured
    figures = []
    res = bench_up(os.path.join(REPO, "inventories", "lab"), "bench-lab")
    res.update(bench_setup(res))
    figures.append(res)
    if not args.keep:
        subprocess.run(ZLAB + ["down", "bench-lab"], capture_output=True, check=False)
    if not args.skip_24:
        with tempfile.TemporaryDirectory() as tmp:
            res = bench_up(generate_cpc(os.path.join(tmp, "big")), "bench-24")
            res.update(bench_setup(res))
            figures.append(res)
            if not args.keep:
                subprocess.run(ZLAB + ["down", "bench-24"], capture_output=True, check=False)
    print(
        "%-10s %5s %7s %7s %8s %6s %9s %8s | %8s %9s %9s %9s"
        % (
            "lab",
            "hosts",
            "up[s]",
            "boot[s]",
            "PSS[MiB]",
            "procs",
            "used[MiB]",
            "cli[MiB]",
            "ans.0[s]",
            "1 host[s]",
            "/host[s]",
            "all -f25",
        )
    )
    for r in figures:
        print(
            "%-10s %5d %7.2f %7.2f %8.1f %6d %9.1f %8.1f | %8.2f %9.2f %9.2f %9.2f"
            % (
                r["lab"],
                r["hosts"],
                r["up_seconds"],
                r["boot_seconds"] or -1,
                r["lab_pss_mib"],
                r["lab_processes"],
                r["mem_used_mib"],
                r["cli_peak_rss_mib"],
                r["ansible_startup_seconds"],
                r["setup_one_host_wall_seconds"],
                r["setup_per_host_seconds"],
                r["setup_all_parallel_seconds"],
            )
        )
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump([{k: v for k, v in r.items() if k != "inventory"} for r in figures], f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
