# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""playbooks/drift.yml with the real roles on the built-in lab when hosts do not give the reports
they owe: each owed report is an error row in the table and the JSON, and the summary fails.

One lab, converged once by drift.yml -e correct=true. Two scenarios, each with the three ways a report goes missing:
  lost     lpar-b's sshd off before the run (UNREACHABLE at the qeth role's module); g1's management
           link taken down when the smc role starts smc_sysctl (the middle of the smc entry, which
           g1 started); lpar-a's libvirtd stopped (the kvm_guest_network role's module fails there)
  refused  lpar-a's sshd off before the run; g1's sshd and sessions ended at the same point of the
           smc entry; lpar-b's smc role refused before its modules ran (smc_plan: an smc_protocol
           that is not valid, from a second inventory source)
Each scenario runs on the newest ansible-core (the venv's) and on the oldest the collection
supports (meta/runtime.yml; the support matrix's venv .cache/core-X.Y, `make test-zlab-lab`
builds it), in report mode on one and with correct=true on the other. Every fault is cleared after
its run.
"""

import json
import os
import re
import subprocess
import sys
import threading
import time

import pytest
import yaml

from labutil import BIN, REPO, zlab

# the smc role's task during which g1 is lost: its zpci_function step is done, smc_sysctl starts
CUT_AT = "TASK [s390x.network.smc : Set SMC buffer sizes for the running kernel]"
SMC_KINDS = {"plan", "zpci", "sysctl", "pnet", "ueid", "dropin"}
REPORTED_NOTHING = "reported nothing: host unreachable or the role did not run or finish"
STOPPED = "no result: the role stopped before this step"


def _oldest_core():
    with open(os.path.join(REPO, "meta", "runtime.yml"), encoding="utf-8") as handle:
        wanted = yaml.safe_load(handle)["requires_ansible"]
    version = re.fullmatch(r">=\s*(\d+\.\d+)(\.\d+)?", wanted).group(1)
    return version, os.path.join(REPO, ".cache", "core-%s" % version, "bin", "ansible-playbook")


OLDEST, OLDEST_PLAYBOOK = _oldest_core()
CORES = {"newest": os.path.join(BIN, "ansible-playbook"), OLDEST: OLDEST_PLAYBOOK}


def _env():
    return dict(
        os.environ,
        ANSIBLE_CONFIG=os.path.join(REPO, "ansible.cfg"),
        ANSIBLE_COLLECTIONS_PATH=os.environ.get(
            "ANSIBLE_COLLECTIONS_PATH", os.path.join(REPO, ".cache", "collections")
        ),
        ANSIBLE_HOST_KEY_CHECKING="False",
        ANSIBLE_FORCE_COLOR="0",
        ANSIBLE_NOCOLOR="1",
        ANSIBLE_DEPRECATION_WARNINGS="False",
    )


@pytest.fixture(scope="module")
def converged(lab, tmp_path_factory):
    """The lab converged by drift.yml -e correct=true (the roles of site.yml, without its IOCDS and
    verify plays): every host reachable, no error row."""
    work = tmp_path_factory.mktemp("drift-lost")
    start = time.time()
    report = work / "converge.json"
    argv = [CORES["newest"], "-i", lab["inventory"], os.path.join(REPO, "playbooks", "drift.yml")]
    argv += ["-e", "correct=true", "-e", "drift_report=%s" % report]
    proc = subprocess.run(argv, capture_output=True, text=True, env=_env(), timeout=1200, check=False, cwd=REPO)
    assert proc.returncode == 0, "drift.yml -e correct=true failed:\n%s" % (proc.stdout + proc.stderr)[-6000:]
    assert [r for r in json.loads(report.read_text())["drift"] if r["scope"] == "error"] == []
    sys.stdout.write("\ndrift.yml -e correct=true converged the lab in %.0f s\n" % (time.time() - start))
    # lpar-b's smc_plan refuses this (the refused scenario's second inventory source)
    (work / "refused.yml").write_text("all:\n  hosts:\n    lpar-b:\n      smc_protocol: bogus\n")
    return {"inventory": lab["inventory"], "work": work}


def _drift(playbook, inventories, report, correct, cut):
    """Run drift.yml; ``cut`` (``zlab fault`` arguments) fires when CUT_AT starts. Returns the exit
    code, the output and the JSON report."""
    argv = [playbook]
    for inventory in inventories:
        argv += ["-i", inventory]
    argv += [os.path.join(REPO, "playbooks", "drift.yml"), "-e", "drift_report=%s" % report]
    if correct:
        argv += ["-e", "correct=true"]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=_env(), cwd=REPO)
    killer = threading.Timer(900, proc.kill)
    killer.start()
    lines, cutter, cut_result = [], None, []
    try:
        for line in proc.stdout:
            lines.append(line)
            if cutter is None and line.startswith(CUT_AT):
                cutter = threading.Thread(target=lambda: cut_result.append(zlab("fault", *cut, check=False)))
                cutter.start()
        rc = proc.wait()
    finally:
        killer.cancel()
        if cutter is not None:
            cutter.join()
    out = "".join(lines)
    assert cutter is not None, "the smc role's task %r never started:\n%s" % (CUT_AT, out[-6000:])
    assert cut_result[0].returncode == 0, cut_result[0].stderr
    with open(report, encoding="utf-8") as handle:
        return rc, out, json.load(handle)


def _errors(rows, host):
    return [(r["kind"], r["object"]) for r in rows if r["host"] == host and r["scope"] == "error"]


def _unreachable_from_the_start(rows, host, owed):
    """Every row of ``host``: its first role's unreachable result, then each other owed report."""
    mine = [r for r in rows if r["host"] == host]
    assert [(r["kind"], r["object"], r["scope"]) for r in mine] == [("qeth", "qeth", "error")] + [
        ("role", role, "error") for role in owed
    ], mine
    assert mine[0]["difference"].startswith("host unreachable: "), mine[0]
    assert all(r["difference"].startswith(REPORTED_NOTHING) for r in mine[1:]), mine


def _lost_in_the_smc_entry(rows, host):
    """``host`` gave its reports up to the smc role (the lab is converged: no rows), then the smc
    role's results up to the cut; the result of the task that lost the host is unreachable and every
    later one is missing."""
    mine = [r for r in rows if r["host"] == host and r["scope"] == "error"]
    assert mine and {r["kind"] for r in mine} <= SMC_KINDS - {"plan"}, rows
    assert mine[0]["difference"].startswith("host unreachable: "), mine
    assert mine[0]["kind"] != "zpci", mine  # the cut came after smc_ism_result
    assert [r["difference"] for r in mine[1:]] == [STOPPED] * (len(mine) - 1), mine
    assert mine[-1]["kind"] == "dropin", mine  # up to the role's last result


def _lost(rows):
    _unreachable_from_the_start(rows, "lpar-b", ["network_express", "interfaces", "nic_tuning", "smc"])
    _lost_in_the_smc_entry(rows, "g1")
    # the module of a role failed on one host: its error, nothing else of lpar-a's
    lpar_a = [r for r in rows if r["host"] == "lpar-a"]
    assert [(r["kind"], r["object"], r["scope"]) for r in lpar_a] == [("guest", "guest g1", "error")], lpar_a
    assert lpar_a[0]["difference"].startswith("check failed: "), lpar_a
    assert "libvirt" in lpar_a[0]["difference"], lpar_a


def _refused(rows):
    _unreachable_from_the_start(
        rows, "lpar-a", ["network_express", "ism_passthrough", "kvm_guest_network", "interfaces", "nic_tuning"]
    )
    _lost_in_the_smc_entry(rows, "g1")
    # the smc role refused its input before any module ran: the plan's message names the field,
    # and each module after it failed for want of the plan
    lpar_b = [r for r in rows if r["host"] == "lpar-b"]
    assert lpar_b and {r["scope"] for r in lpar_b} == {"error"} and {r["kind"] for r in lpar_b} <= SMC_KINDS, lpar_b
    assert (lpar_b[0]["kind"], lpar_b[0]["object"]) == ("plan", "smc_plan"), lpar_b
    assert "protocol must be one of" in lpar_b[0]["difference"] and "bogus" in lpar_b[0]["difference"], lpar_b
    assert len(lpar_b) > 1, lpar_b


SCENARIOS = {
    "lost": {
        "before": [("lpar-b", "ssh", "off"), ("lpar-a", "service", "libvirtd", "stop")],
        "cut": ("g1", "link", "off"),
        "refused": False,
        "check": _lost,
    },
    "refused": {
        "before": [("lpar-a", "ssh", "off")],
        "cut": ("g1", "ssh", "off"),
        "refused": True,
        "check": _refused,
    },
}
# (scenario, core, correct): each scenario in both modes, each core in both modes
RUNS = [
    ("lost", "newest", False),
    ("refused", "newest", True),
    ("lost", OLDEST, True),
    ("refused", OLDEST, False),
]


@pytest.mark.slow
@pytest.mark.parametrize(
    "scenario, core, correct", RUNS, ids=["%s-%s-%s" % (s, c, "correct" if k else "report") for s, c, k in RUNS]
)
def test_a_report_a_host_did_not_give_is_an_error_row_and_fails_the_summary(converged, scenario, core, correct):
    playbook = CORES[core]
    assert os.access(playbook, os.X_OK), "no ansible-core %s at %s: make test-zlab-lab builds it" % (core, playbook)
    case = SCENARIOS[scenario]
    inventories = [converged["inventory"]]
    if case["refused"]:
        inventories.append(str(converged["work"] / "refused.yml"))
    report = str(converged["work"] / ("%s-%s-%s.json" % (scenario, core, correct)))
    for fault in case["before"]:
        zlab("fault", *fault)
    start = time.time()
    try:
        rc, out, data = _drift(playbook, inventories, report, correct, case["cut"])
    finally:
        for host in ("lpar-a", "lpar-b", "g1"):
            zlab("fault", host, "clear")
    sys.stdout.write(
        "\ndrift.yml %s on ansible-core %s (correct=%s): %.0f s\n" % (scenario, core, correct, time.time() - start)
    )
    rows = data["drift"]
    assert data["correct"] is correct
    case["check"](rows)
    errors = [r for r in rows if r["scope"] == "error"]
    # the summary's own verdict: it fails on the error rows, in report and in correct mode
    assert rc == 4, out[-6000:]  # a host was unreachable, and the summary failed
    assert "%d error row(s): a host did not give a report it owes" % len(errors) in out, out[-6000:]
    assert "fatal: [localhost]: FAILED!" in out, out[-6000:]
    assert '"no drift"' not in out
    recap = out[out.rindex("PLAY RECAP") :]
    assert re.search(r"^localhost +: .* failed=1 ", recap, re.M), recap
    # the table shows the rows of the JSON, in its order (debug prints each line as a JSON string)
    shown = []
    for line in out[out.rindex("TASK [Show the drift found]") :].splitlines()[3:]:
        if not line.startswith('        "'):
            break
        shown.append(json.loads(line.strip().rstrip(",")))
    assert shown[0].split() == ["HOST", "KIND", "OBJECT", "SCOPE", "DIFFERENCE"], shown
    assert [line.split()[:2] for line in shown[1:]] == [[r["host"], r["kind"]] for r in rows], shown
    for row, line in zip(rows, shown[1:]):
        assert line.endswith("  " + row["difference"]) and row["scope"] in line.split(), (row, line)
