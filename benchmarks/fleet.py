#!/usr/bin/env python3
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fleet benchmark (a benchmark, not a test): the collection's roles vs a naive playbook on zlab.

For every size N (default 8 and 15) the script generates a CPC inventory in a temporary directory:
N LPARs `lpNN` without KVM guests, each with 8 HiperSockets qeth devices on CHPID F0 (layer 2,
buffer_count 128), 8 ISM functions on VCHID 7C8 (UID checking on every partition, UID = FID)
and the SMC role (smc_buffer_size 128K), kernel profile linux6.12 (net.smc.rmem/wmem exist).
Then, for each size, --runs rounds (default 3; ours and naive alternate which goes first), each
variant on a fresh lab (`zlab up DIR --name PREFIX<N>`, `zlab down` afterwards; PREFIX `bench-`):

- ours:  benchmarks/fleet/converge.yml (qeth role; smc role incl. its ISM power-on + ism bind):
         first converge, then on the configured lab, one after the other: the re-run (a no-op),
         - floor: a playbook of K plain `ansible.builtin.ping` tasks per host, K = the remote module
           calls per host the callback counted for ours' re-run: Ansible's own cost of those calls;
         - modules: the same four module calls as plain tasks, with the arguments the roles pass
           (computed ahead by the collection's filters): the modules without the roles' other tasks;
         - drift: playbooks/drift.yml --check on the configured lab (a no-drift pass).
- naive: benchmarks/naive/site.yml (one command/shell/lineinfile/sysctl task per device and
         attribute, the way it is written by hand): first converge and a second run.
- with --mitogen, the same again with the mitogen_linear strategy (if ansible_mitogen imports)

Per run: wall time, changed results, tasks per host (callback
benchmarks/fleet/callback_plugins/fleet_counts.py: remote = task results that ran a module on the
host, a loop counts per item; controller = assert, set_fact ...; skipped tasks). The table shows
medians over the rounds and the ratios ours re-run / floor (split into modules / floor and ours
re-run / modules) and ours first converge / naive. After each round the lab is checked
(lsqeth/lszdev/sysfs through `zlab exec`) so a fast run that did not configure anything cannot
pass unnoticed.

Usage (root, the venv's python): .venv/bin/python benchmarks/fleet.py [--sizes 8,15] [--runs 3]
    [--variants ours,naive] [--lab-prefix bench-] [--mitogen] [--json FILE] [--keep-inventory DIR];
    --table-from A.json B.json prints the table of earlier runs.
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.dirname(sys.executable)
ZLAB = [os.path.join(BIN, "zlab")]
HERE = os.path.join(REPO, "benchmarks")
PLAYBOOKS = {
    "ours": os.path.join(HERE, "fleet", "converge.yml"),
    "naive": os.path.join(HERE, "naive", "site.yml"),
    "drift": os.path.join(REPO, "playbooks", "drift.yml"),
}
QETH_PER_LPAR = 8
ISM_PER_LPAR = 8
FOREIGN_LABS = ("demo", "lab")  # and m-*, t-*: other people's labs, never touched


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
    for host in hosts:  # the naive playbook's loop over the host's functions
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
    if name in FOREIGN_LABS or name.startswith(("m-", "t-")):
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


def run_playbook(playbook, inventory, forks, workdir, label, strategy=None, extra=()):
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
    cmd = [os.path.join(BIN, "ansible-playbook"), "-i", inventory, "-f", str(forks), playbook] + list(extra)
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
        "tasks_per_host": max(get("tasks")) if ph else 0,
        "skipped_per_host": max(get("skipped")) if ph else 0,
        "changed_per_host": max(changed) if changed else 0,
        "failed": sum(failed),
        "hosts_counted": sum(1 for p in ph if p),
    }


def _uid_is_domain(line):
    """``pci SLOT POWER ADDRESS UID DRIVER``: the inventory gives every function UID = FID, and with
    UID checking on, the UID names the PCI domain."""
    try:
        fid, uid, domain = int(line[1], 16), int(line[4], 16), int(line[3].split(":")[0], 16)
    except (ValueError, IndexError):
        return False
    return fid == uid == domain


def check_end_state(lab, hosts):
    """A sample of hosts: every qeth device online, layer2 1, buffer_count 128; FIDs powered on,
    bound to ism, their UID the FID and the PCI domain; net.smc.rmem 131072; persistent chzdev
    rules. Returns a list of problems."""
    problems = []
    sample = sorted({hosts[0], hosts[len(hosts) // 2], hosts[-1]})
    script = (
        "for d in /sys/bus/ccwgroup/drivers/qeth/0.0.*; do b=$(basename $d); "
        "echo qeth $b $(cat $d/online) $(cat $d/layer2) $(cat $d/buffer_count); done; "
        "for s in /sys/bus/pci/slots/*; do a=$(cat $s/address 2>/dev/null); "
        "echo pci $(basename $s) $(cat $s/power) $a $(cat /sys/bus/pci/devices/$a.0/uid 2>/dev/null || echo -) "
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
        good_pci = [p for p in pci if len(p) == 6 and p[2] == "1" and p[5] == "ism" and _uid_is_domain(p)]
        if len(good_pci) != ISM_PER_LPAR:
            problems.append(
                "%s: %d of %d FIDs on, bound to ism, UID = FID = PCI domain: %s"
                % (host, len(good_pci), ISM_PER_LPAR, pci)
            )
        if not smc or smc[0][1:] != ["131072", "131072"]:
            problems.append("%s: net.smc.rmem/wmem %s" % (host, smc))
        if not rules or int(rules[0][1]) < QETH_PER_LPAR:
            problems.append("%s: persistent qeth rules %s" % (host, rules))
    return problems


def floor_playbook(workdir, k):
    """K plain ansible.builtin.ping tasks per host: Ansible's own cost of K remote module calls."""
    path = os.path.join(workdir, "floor-%d.yml" % k)
    tasks = "".join("    - name: Ping %d\n      ansible.builtin.ping:\n" % (i + 1) for i in range(k))
    _write(
        path,
        "- name: Ansible's floor, %d pings per host\n  hosts: lpars\n  gather_facts: false\n  tasks:\n%s" % (k, tasks),
    )
    return path


def modules_playbook(workdir, inv_dir, hosts):
    """The four module calls of ours' re-run as plain tasks, with the arguments the roles pass on
    this inventory (the smc plan from the collection's own planning code), written per host beside the
    playbook: what the modules cost without the roles' other tasks (validations, plan, skipped
    steps). Its run on the configured lab must change nothing."""
    import yaml  # pylint: disable=import-outside-toplevel

    sys.path.insert(0, os.path.join(REPO, ".cache", "collections"))
    # pylint: disable=import-outside-toplevel
    from ansible_collections.s390x.network.plugins.plugin_utils.cpc_host import host_view
    from ansible_collections.s390x.network.plugins.plugin_utils.smc_role_plan import role_plan

    fleet = {}
    for name in ("cpc.yml", "fleet.yml"):
        with open(os.path.join(inv_dir, "group_vars", "all", name), encoding="utf-8") as f:
            fleet.update(yaml.safe_load(f))
    with open(os.path.join(REPO, "roles", "qeth", "defaults", "main.yml"), encoding="utf-8") as f:
        qeth_defaults = yaml.safe_load(f)["qeth_device_defaults"]
    size = fleet["smc_buffer_size"]
    per_host = {}
    for host in hosts:
        plan = role_plan(
            host_view(fleet["cpc"], host),
            dict(
                protocol="smcd",
                services=[],
                dropin_name="50-s390x-network-smc.conf",
                pnet_config=[],
                pnet_state="merged",
                rmem=size,
                wmem=size,
            ),
        )
        sysctl = dict((k, v) for k, v in plan["sysctl"].items() if v is not None)  # the role omits null
        sysctl.update(settings={}, core_mem_max_at_least=True, file="90-smc.conf", load_module=True, require_smc=False)
        per_host[host] = {
            "qeth_device": {
                "config": fleet["qeth_devices"],
                "device_defaults": qeth_defaults,
                "state": "merged",
                "scope": "both",
                "allow_disruptive": False,
            },
            "zpci_function": {"config": plan["functions"]["config"], "persistent": True},
            "smc_sysctl": sysctl,
            "smc_services": {
                "config": [],
                "state": "overridden",
                "dropin_name": "50-s390x-network-smc.conf",
                "restart": False,
            },
        }
    path = os.path.join(workdir, "modules", "modules.yml")
    os.makedirs(os.path.join(workdir, "modules", "host_vars"), exist_ok=True)
    for host, calls in per_host.items():
        _write(os.path.join(workdir, "modules", "host_vars", host + ".yml"), yaml.safe_dump({"fleet_calls": calls}))
    tasks = "".join(
        "    - name: %s\n      s390x.network.%s:\n%s"
        % (m, m, "".join('        %s: "{{ fleet_calls.%s.%s }}"\n' % (k, m, k) for k in sorted(args)))
        for m, args in per_host[hosts[0]].items()
    )
    _write(path, "- name: The roles' module calls alone\n  hosts: lpars\n  gather_facts: false\n  tasks:\n" + tasks)
    return path


def lab_name(prefix, n):
    return "%s%d" % (prefix, n)


def ours_round(inv_dir, workdir, n, hosts, r, prefix, strategy=None):
    """One round of ours on a fresh lab: first converge, then on the configured lab, interleaved,
    the re-run (no-op), the floor (K pings, K = the re-run's remote calls per host) and drift.yml
    (check mode). Returns {variant: {first|run: summary}} and the end-state problems."""
    lab = lab_name(prefix, n)
    tag = "-%d%s-r%d" % (n, "-mitogen" if strategy else "", r)
    print("== ours%s: zlab up %s --name %s" % (tag, inv_dir, lab), flush=True)
    out = {}
    try:
        up, inventory = lab_up(inv_dir, lab)
        print("   lab up in %.1f s; first converge" % up, flush=True)
        first = summarize(run_playbook(PLAYBOOKS["ours"], inventory, n, workdir, "ours%s-first" % tag, strategy), hosts)
        print("   ours first: %s" % first, flush=True)
        rerun = summarize(run_playbook(PLAYBOOKS["ours"], inventory, n, workdir, "ours%s-rerun" % tag, strategy), hosts)
        print("   ours re-run: %s" % rerun, flush=True)
        k = rerun["remote_per_host"]
        floor = summarize(
            run_playbook(floor_playbook(workdir, k), inventory, n, workdir, "floor%s" % tag, strategy), hosts
        )
        print("   floor (%d pings): %s" % (k, floor), flush=True)
        modules = summarize(
            run_playbook(modules_playbook(workdir, inv_dir, hosts), inventory, n, workdir, "modules%s" % tag, strategy),
            hosts,
        )
        print("   modules (the roles' calls alone): %s" % modules, flush=True)
        drift = summarize(
            run_playbook(PLAYBOOKS["drift"], inventory, n, workdir, "drift%s" % tag, strategy, extra=["--check"]), hosts
        )
        print("   drift.yml (check mode): %s" % drift, flush=True)
        out = {
            "ours": {"first": first, "run": rerun},
            "floor": {"run": floor},
            "modules": {"run": modules},
            "drift": {"run": drift},
        }
        problems = check_end_state(lab, hosts)
        for p in problems:
            print("   END STATE: " + p, flush=True)
    finally:
        zlab("down", lab, check=False)
        print("   zlab down %s" % lab, flush=True)
    return out, problems


def naive_round(inv_dir, workdir, n, hosts, r, prefix, strategy=None):
    lab = lab_name(prefix, n)
    tag = "-%d%s-r%d" % (n, "-mitogen" if strategy else "", r)
    print("== naive%s: zlab up %s --name %s" % (tag, inv_dir, lab), flush=True)
    try:
        up, inventory = lab_up(inv_dir, lab)
        print("   lab up in %.1f s; first converge" % up, flush=True)
        first = summarize(
            run_playbook(PLAYBOOKS["naive"], inventory, n, workdir, "naive%s-first" % tag, strategy), hosts
        )
        print("   naive first: %s" % first, flush=True)
        second = summarize(
            run_playbook(PLAYBOOKS["naive"], inventory, n, workdir, "naive%s-rerun" % tag, strategy), hosts
        )
        print("   naive re-run: %s" % second, flush=True)
        problems = check_end_state(lab, hosts)
        for p in problems:
            print("   END STATE: " + p, flush=True)
    finally:
        zlab("down", lab, check=False)
        print("   zlab down %s" % lab, flush=True)
    return {"naive": {"first": first, "run": second}}, problems


def measure(inv_dir, workdir, n, hosts, variants, runs, prefix, strategy=None):
    """``runs`` rounds, ours and naive interleaved (each round on fresh labs); the medians."""
    samples, problems = {}, []
    for r in range(1, runs + 1):
        rounds = []
        if "ours" in variants:
            rounds.append(ours_round)
        if "naive" in variants:
            rounds.append(naive_round)
        for fn in rounds if r % 2 else list(reversed(rounds)):
            got, bad = fn(inv_dir, workdir, n, hosts, r, prefix, strategy)
            problems += bad
            for variant, phases in got.items():
                for phase, summary in phases.items():
                    samples.setdefault(variant, {}).setdefault(phase, []).append(summary)
    res = {"n": n, "strategy": "mitogen_linear" if strategy else "linear", "runs": runs, "problems": problems}
    res["variants"] = dict(
        (variant, dict((phase, median_summary(s)) for phase, s in phases.items()))
        for variant, phases in samples.items()
    )
    res["samples"] = samples
    return res


def median_summary(summaries):
    """Median wall time; counts of the first sample (they do not vary between runs); worst rc."""
    out = dict(summaries[0])
    out["wall"] = round(statistics.median(s["wall"] for s in summaries), 1)
    out["walls"] = [s["wall"] for s in summaries]
    out["rc"] = max(s["rc"] for s in summaries)
    return out


def ratio(a, b):
    return "%.2f" % (a / b) if b else "-"


ROWS = (
    ("ours", "first", "ours: first converge"),
    ("ours", "run", "ours: re-run (no-op)"),
    ("floor", "run", "floor: K x ansible.builtin.ping"),
    ("modules", "run", "modules: the roles' module calls alone"),
    ("drift", "run", "drift.yml --check (no drift)"),
    ("naive", "first", "naive: first converge"),
    ("naive", "run", "naive: re-run"),
)


def table(results):
    lines = [
        "| N | strategy | run | wall [s] (median) | runs | remote + controller /host | tasks run + skipped /host "
        "| changed /host | rc |",
        "|---:|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        for variant, phase, label in ROWS:
            s = r["variants"].get(variant, {}).get(phase)
            if not s:
                continue
            lines.append(
                "| %d | %s | %s | %.1f | %d | %d + %d | %d + %d | %d | %d |"
                % (
                    r["n"],
                    r["strategy"],
                    (
                        label.replace("K", str(r["variants"]["floor"]["run"]["remote_per_host"]))
                        if variant == "floor"
                        else label
                    ),
                    s["wall"],
                    len(s["walls"]),
                    s["remote_per_host"],
                    s["controller_per_host"],
                    s["tasks_per_host"],
                    s["skipped_per_host"],
                    s["changed_per_host"],
                    s["rc"],
                )
            )
    lines += ["", "| ratio (medians) | value |", "|---|---:|"]
    for r in results:
        v = r["variants"]
        get = lambda variant, phase: v.get(variant, {}).get(phase, {}).get("wall")
        pairs = (
            ("ours re-run / floor", get("ours", "run"), get("floor", "run")),
            ("modules / floor", get("modules", "run"), get("floor", "run")),
            ("ours re-run / modules", get("ours", "run"), get("modules", "run")),
            ("drift.yml --check / floor", get("drift", "run"), get("floor", "run")),
            ("ours first converge / naive first converge", get("ours", "first"), get("naive", "first")),
            ("ours re-run / naive re-run", get("ours", "run"), get("naive", "run")),
        )
        for label, a, b in pairs:
            if a is not None and b is not None:
                lines.append("| %s, N=%d, %s | %s |" % (label, r["n"], r["strategy"], ratio(a, b)))
        if r["problems"]:
            lines.append("| end state, N=%d, %s | %d problems |" % (r["n"], r["strategy"], len(r["problems"])))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--sizes", default="8,15", help="LPAR counts, comma separated (8,15; at most 15)")
    ap.add_argument(
        "--variants", default="ours,naive", help="ours (with floor and drift.yml on its configured lab),naive"
    )
    ap.add_argument("--runs", type=int, default=3, help="rounds per size, ours and naive interleaved; medians (3)")
    ap.add_argument("--lab-prefix", default="bench-", help="labs are named PREFIX<N> (bench-)")
    ap.add_argument("--mitogen", action="store_true", help="also run every variant with the mitogen_linear strategy")
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
    if args.runs < 1:
        ap.error("--runs: at least 1")
    if not re.fullmatch(r"[a-z][a-z0-9-]*-", args.lab_prefix):
        ap.error("--lab-prefix: lower-case letters, digits and -, ending in -")
    variants = [v for v in args.variants.split(",") if v]
    if not variants or set(variants) - {"ours", "naive"}:
        ap.error("--variants: ours and/or naive")
    strategies = [None]
    sdir = mitogen_strategy_dir()
    if args.mitogen:
        if sdir is None:
            print("mitogen is not installed (pip install mitogen): skipped", flush=True)
        else:
            strategies.append((sdir, "mitogen_linear"))
    results = []
    with tempfile.TemporaryDirectory(prefix="fleet-bench-") as tmp:
        for n in sizes:
            inv_dir = os.path.join(tmp, "fleet-%d" % n, "inventory")
            hosts = generate(inv_dir, n)
            for strategy in strategies:
                results.append(
                    measure(inv_dir, os.path.dirname(inv_dir), n, hosts, variants, args.runs, args.lab_prefix, strategy)
                )
        if args.keep_inventory:
            shutil.copytree(tmp, args.keep_inventory, dirs_exist_ok=True)
    text = table(results)
    print()
    print(text)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1)
    return 0 if all(not r["problems"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
