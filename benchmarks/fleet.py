#!/usr/bin/env python3
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fleet benchmark (a benchmark, not a test): the collection's roles vs a naive playbook on zlab.

For every size N (default 8 and 24) the script generates a CPC inventory in a temporary directory:
N LPARs `lpNN` without KVM guests, each with 8 HiperSockets qeth devices on CHPID F0 (layer 2,
buffer_count 128), 8 ISM functions on VCHID 7C8 (UID checking on every partition, UID = FID)
and the SMC role (smc_buffer_size 128K), kernel profile linux6.12 (net.smc.rmem/wmem exist).
Then, each on a fresh lab (`zlab up DIR --name bench-N`, `zlab down bench-N` afterwards):

- ours:  benchmarks/fleet/converge.yml (qeth role; smc role incl. its ISM power-on + ism bind)
- naive: benchmarks/naive/site.yml (one command/shell/lineinfile/sysctl task per device and
         attribute, the way it is written by hand)
- with --mitogen, the same two again with the mitogen_linear strategy (if ansible_mitogen imports)

and measures the first converge and a second (no-op for ours) run: wall time, changed results,
module invocations per host (callback benchmarks/fleet/callback_plugins/fleet_counts.py: remote =
task results that ran a module on the host, a loop counts per item; controller = assert,
set_fact ... ). Afterwards each lab is checked (lsqeth/lszdev/sysfs through `zlab exec`) so a
fast run that did not configure anything cannot pass unnoticed.

Usage (root, the venv's python): .venv/bin/python benchmarks/fleet.py [--sizes 8,15]
    [--variants ours,naive] [--mitogen | --mitogen-only ours,naive] [--json FILE]
    [--keep-inventory DIR]; --table-from A.json B.json prints the table of earlier runs.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.dirname(sys.executable)
ZLAB = [os.path.join(BIN, "zlab")]
HERE = os.path.join(REPO, "benchmarks")
PLAYBOOKS = {"ours": os.path.join(HERE, "fleet", "converge.yml"), "naive": os.path.join(HERE, "naive", "site.yml")}
QETH_PER_LPAR = 8
ISM_PER_LPAR = 8
FOREIGN_LABS = ("demo", "lab")  # and m-*: other people's labs, never touched


def generate(path, n):
    """Write the CPC inventory of n LPARs into path; return the host names."""
    import yaml  # pylint: disable=import-outside-toplevel

    os.makedirs(os.path.join(path, "group_vars", "all"), exist_ok=True)
    os.makedirs(os.path.join(path, "host_vars"), exist_ok=True)
    hosts = ["lp%02d" % i for i in range(1, n + 1)]
    parts = [{"name": "LP%02d" % i, "mif_id": i, "host": h} for i, h in enumerate(hosts, 1)]
    names = [p["name"] for p in parts]
    functions, per_host = [], {}
    for i, host in enumerate(hosts, 1):
        for j in range(ISM_PER_LPAR):
            fid = 0x1000 + i * 0x10 + j
            functions.append({"fid": fid, "uid": fid, "vf": (i - 1) * ISM_PER_LPAR + j + 1, "partition": names[i - 1]})
            per_host.setdefault(host, []).append({"fid": fid, "uid": fid})
    cpc = {
        "name": "FLEET",
        "machine": "z16",
        "css": 0,
        "uid_checking": names,
        "partitions": parts,
        "hipersockets": [
            {
                "chpid": "F0",
                "frame_size": "40K",
                "control_unit": "F000",
                "devices": {"first": "8200", "count": 3 * QETH_PER_LPAR},
                "partitions": names,
            }
        ],
        "ism": [{"vchid": "7C8", "pnet_id": None, "functions": functions}],
    }
    qeth = [{"id": "0.0.%04x" % (0x8200 + 3 * j), "layer2": True, "buffer_count": 128} for j in range(QETH_PER_LPAR)]
    dump = lambda rel, data: _write(os.path.join(path, rel), yaml.safe_dump(data, sort_keys=False))
    dump("group_vars/all/cpc.yml", {"cpc": cpc})
    dump(
        "group_vars/all/fleet.yml",
        {
            "zlab_kernel": "linux6.12",
            # The lab hosts reach no package mirror; zlab installs the emulated s390-tools/smc-tools.
            "qeth_install_packages": False,
            "smc_install_packages": False,
            "qeth_devices": qeth,
            "smc_buffer_size": "128K",
        },
    )
    for host in hosts:
        dump("host_vars/%s.yml" % host, {"fleet_ism_functions": per_host[host]})
    dump(
        "hosts.yml",
        {
            "all": {
                "children": {
                    "lpars": {"hosts": {h: None for h in hosts}},
                    "smc_hosts": {"hosts": {h: None for h in hosts}},
                }
            }
        },
    )
    return hosts


def _write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write("---\n" + text)


def zlab(*args, check=True):
    proc = subprocess.run(ZLAB + list(args), capture_output=True, text=True, check=False)
    if check and proc.returncode != 0:
        raise RuntimeError(
            "zlab %s failed (%d): %s%s" % (" ".join(args), proc.returncode, proc.stdout[-2000:], proc.stderr[-2000:])
        )
    return proc.stdout


def lab_up(inv_dir, name):
    if name in FOREIGN_LABS or name.startswith("m-") or not name.startswith("bench-"):
        raise SystemExit("refusing to touch lab %s" % name)
    zlab("down", name, check=False)
    t0 = time.monotonic()
    zlab("up", inv_dir, "--name", name)
    up = time.monotonic() - t0
    inv = os.path.join(inv_dir, "..", "%s-inventory.yml" % name)
    _write(inv, zlab("--lab", name, "inventory", "--format", "yaml").removeprefix("---\n"))
    return up, os.path.abspath(inv)


def mitogen_strategy_dir():
    try:
        import ansible_mitogen  # pylint: disable=import-outside-toplevel
    except ImportError:
        return None
    return os.path.join(os.path.dirname(ansible_mitogen.__file__), "plugins", "strategy")


def run_playbook(playbook, inventory, forks, workdir, label, strategy=None):
    counts = os.path.join(workdir, "%s.counts.json" % label)
    log = os.path.join(workdir, "%s.log" % label)
    env = dict(
        os.environ,
        ANSIBLE_CONFIG=os.path.join(REPO, "ansible.cfg"),
        ANSIBLE_COLLECTIONS_PATH=os.path.join(REPO, ".cache", "collections"),
        ANSIBLE_CALLBACK_PLUGINS=os.path.join(HERE, "fleet", "callback_plugins"),
        ANSIBLE_CALLBACKS_ENABLED="fleet_counts,ansible.posix.profile_tasks",
        ANSIBLE_HOST_KEY_CHECKING="False",
        ANSIBLE_FORKS=str(forks),
        FLEET_COUNTS_FILE=counts,
    )
    if strategy:
        env["ANSIBLE_STRATEGY_PLUGINS"] = strategy[0]
        env["ANSIBLE_STRATEGY"] = strategy[1]
    cmd = [os.path.join(BIN, "ansible-playbook"), "-i", inventory, "-f", str(forks), playbook]
    t0 = time.monotonic()
    with open(log, "w", encoding="utf-8") as out:
        proc = subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, env=env, check=False)
    wall = time.monotonic() - t0
    try:
        with open(counts, encoding="utf-8") as f:
            per_host = json.load(f)
    except (OSError, ValueError):
        per_host = {}
    return {"wall": round(wall, 1), "rc": proc.returncode, "log": log, "per_host": per_host}


def summarize(run, hosts):
    ph = [run["per_host"].get(h, {}) for h in hosts]
    get = lambda k: [p.get(k, 0) for p in ph]
    remote, ctrl, changed, failed = get("remote"), get("controller"), get("changed"), get("failed")
    return {
        "wall": run["wall"],
        "rc": run["rc"],
        "remote_per_host": max(remote) if remote else 0,
        "remote_per_host_min": min(remote) if remote else 0,
        "controller_per_host": max(ctrl) if ctrl else 0,
        "changed_per_host": max(changed) if changed else 0,
        "failed": sum(failed),
        "hosts_counted": sum(1 for p in ph if p),
    }


def check_end_state(lab, hosts):
    """A sample of hosts: every qeth device online, layer2 1, buffer_count 128; FIDs bound to ism;
    net.smc.rmem 131072; persistent chzdev rules. Returns a list of problems."""
    problems = []
    sample = sorted({hosts[0], hosts[len(hosts) // 2], hosts[-1]})
    script = (
        "for d in /sys/bus/ccwgroup/drivers/qeth/0.0.*; do b=$(basename $d); "
        "echo qeth $b $(cat $d/online) $(cat $d/layer2) $(cat $d/buffer_count); done; "
        "for s in /sys/bus/pci/slots/*; do a=$(cat $s/address 2>/dev/null); "
        "echo pci $(basename $s) $(cat $s/power) "
        "$(basename $(readlink /sys/bus/pci/devices/$a.0/driver 2>/dev/null) 2>/dev/null); done; "
        "echo smc $(cat /proc/sys/net/smc/rmem 2>/dev/null) $(cat /proc/sys/net/smc/wmem 2>/dev/null); "
        "echo rules $(ls /etc/udev/rules.d | grep -c qeth)"
    )
    for host in sample:
        out = zlab("--lab", lab, "exec", host, "--", "sh", "-c", script, check=False)
        qeth = [line.split() for line in out.splitlines() if line.startswith("qeth ")]
        pci = [line.split() for line in out.splitlines() if line.startswith("pci ")]
        smc = [line.split() for line in out.splitlines() if line.startswith("smc")]
        rules = [line.split() for line in out.splitlines() if line.startswith("rules")]
        good_qeth = [q for q in qeth if q[2:] == ["1", "1", "128"]]
        if len(good_qeth) != QETH_PER_LPAR:
            problems.append(
                "%s: %d of %d qeth devices online/layer2/128: %s" % (host, len(good_qeth), QETH_PER_LPAR, qeth)
            )
        good_pci = [p for p in pci if p[2:4] == ["1", "ism"]]
        if len(good_pci) != ISM_PER_LPAR:
            problems.append("%s: %d of %d FIDs on and bound to ism: %s" % (host, len(good_pci), ISM_PER_LPAR, pci))
        if not smc or smc[0][1:] != ["131072", "131072"]:
            problems.append("%s: net.smc.rmem/wmem %s" % (host, smc))
        if not rules or int(rules[0][1]) < QETH_PER_LPAR:
            problems.append("%s: persistent qeth rules %s" % (host, rules))
    return problems


def measure(inv_dir, workdir, n, hosts, variant, strategy=None):
    lab = "bench-%d" % n
    label = "%s-%d%s" % (variant, n, "-mitogen" if strategy else "")
    print("== %s: zlab up %s --name %s" % (label, inv_dir, lab), flush=True)
    res = {"variant": variant, "n": n, "strategy": "mitogen_linear" if strategy else "linear"}
    try:
        res["up"], inventory = lab_up(inv_dir, lab)
        print("   lab up in %.1f s; first converge" % res["up"], flush=True)
        first = run_playbook(PLAYBOOKS[variant], inventory, n, workdir, label + "-first", strategy)
        res["first"] = summarize(first, hosts)
        print("   first: %s" % res["first"], flush=True)
        second = run_playbook(PLAYBOOKS[variant], inventory, n, workdir, label + "-second", strategy)
        res["second"] = summarize(second, hosts)
        print("   second: %s" % res["second"], flush=True)
        res["problems"] = check_end_state(lab, hosts)
        for p in res["problems"]:
            print("   END STATE: " + p, flush=True)
        res["logs"] = [first["log"], second["log"]]
    finally:
        zlab("down", lab, check=False)
        print("   zlab down %s" % lab, flush=True)
    return res


def ratio(a, b):
    return "%.2f" % (a / b) if b else "-"


def table(results):
    lines = [
        "| N | variant | strategy | first converge [s] | re-run [s] | changed on re-run /host "
        "| module invocations /host (remote + controller) | rc first/re-run | end state |",
        "|---:|---|---|---:|---:|---:|---:|---|---|",
    ]
    for r in results:
        if "first" not in r:
            continue
        f, s = r["first"], r["second"]
        lines.append(
            "| %d | %s | %s | %.1f | %.1f | %d | %d + %d | %d/%d | %s |"
            % (
                r["n"],
                r["variant"],
                r["strategy"],
                f["wall"],
                s["wall"],
                s["changed_per_host"],
                f["remote_per_host"],
                f["controller_per_host"],
                f["rc"],
                s["rc"],
                "ok" if not r["problems"] else "%d problems" % len(r["problems"]),
            )
        )
    idx = {(r["n"], r["variant"], r["strategy"]): r for r in results if "first" in r}
    lines += ["", "| ratio | first converge | re-run | remote module invocations /host |", "|---|---:|---:|---:|"]
    sizes = sorted({r["n"] for r in results})
    for strat in ("linear", "mitogen_linear"):
        for n in sizes:
            o, v = idx.get((n, "ours", strat)), idx.get((n, "naive", strat))
            if o and v:
                lines.append(
                    "| ours / naive, N=%d, %s | %s | %s | %s |"
                    % (
                        n,
                        strat,
                        ratio(o["first"]["wall"], v["first"]["wall"]),
                        ratio(o["second"]["wall"], v["second"]["wall"]),
                        ratio(o["first"]["remote_per_host"], v["first"]["remote_per_host"]),
                    )
                )
        if len(sizes) >= 2:
            lo, hi = sizes[0], sizes[-1]
            for variant in ("ours", "naive"):
                a, b = idx.get((hi, variant, strat)), idx.get((lo, variant, strat))
                if a and b:
                    lines.append(
                        "| %s N=%d / N=%d, %s | %s | %s | %s |"
                        % (
                            variant,
                            hi,
                            lo,
                            strat,
                            ratio(a["first"]["wall"], b["first"]["wall"]),
                            ratio(a["second"]["wall"], b["second"]["wall"]),
                            ratio(a["first"]["remote_per_host"], b["first"]["remote_per_host"]),
                        )
                    )
    for strat in ("mitogen_linear",):
        for n in sizes:
            for variant in ("ours", "naive"):
                m, l = idx.get((n, variant, strat)), idx.get((n, variant, "linear"))
                if m and l:
                    lines.append(
                        "| %s N=%d, mitogen / linear | %s | %s | - |"
                        % (
                            variant,
                            n,
                            ratio(m["first"]["wall"], l["first"]["wall"]),
                            ratio(m["second"]["wall"], l["second"]["wall"]),
                        )
                    )
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--sizes", default="8,15", help="LPAR counts, comma separated (8,15; at most 15)")
    ap.add_argument("--variants", default="ours,naive", help="ours,naive")
    ap.add_argument("--mitogen", action="store_true", help="also run every variant with the mitogen_linear strategy")
    ap.add_argument(
        "--mitogen-only", default="", help="variants (ours,naive) to run once more with mitogen_linear only"
    )
    ap.add_argument("--json", help="also write the figures to this file")
    ap.add_argument("--keep-inventory", help="copy the generated inventories and logs here")
    ap.add_argument(
        "--table-from", nargs="+", metavar="JSON", help="only print the table of earlier --json files (no lab)"
    )
    args = ap.parse_args()
    if args.table_from:
        results = []
        for path in args.table_from:
            with open(path, encoding="utf-8") as f:
                results += json.load(f)
        print(table(results))
        return 0
    if os.geteuid() != 0:
        raise SystemExit("run as root (zlab)")
    sizes = [int(s) for s in args.sizes.split(",") if s]
    if any(not 1 <= n <= 15 for n in sizes):
        # one CPC model has one channel subsystem, whose MIF image IDs are 1-F
        ap.error("--sizes: a single-CPC fleet has 1 to 15 partitions, got %s" % args.sizes)
    strategies = [None]
    sdir = mitogen_strategy_dir()
    mitogen = (sdir, "mitogen_linear") if sdir else None
    if args.mitogen:
        if mitogen is None:
            print("mitogen is not installed (pip install mitogen): skipped", flush=True)
        else:
            strategies.append(mitogen)
    results = []
    with tempfile.TemporaryDirectory(prefix="fleet-bench-") as tmp:
        for n in sizes:
            inv_dir = os.path.join(tmp, "fleet-%d" % n, "inventory")
            hosts = generate(inv_dir, n)
            for strategy in strategies:
                for variant in [v for v in args.variants.split(",") if v]:
                    results.append(measure(inv_dir, os.path.dirname(inv_dir), n, hosts, variant, strategy))
            for variant in [v for v in args.mitogen_only.split(",") if v]:
                if mitogen is None:
                    print("mitogen is not installed (pip install mitogen): skipped", flush=True)
                    break
                results.append(measure(inv_dir, os.path.dirname(inv_dir), n, hosts, variant, mitogen))
        if args.keep_inventory:
            shutil.copytree(tmp, args.keep_inventory, dirs_exist_ok=True)
    text = table(results)
    print()
    print(text)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1)
    return 0 if all("first" in r and not r["problems"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
