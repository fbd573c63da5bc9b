# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Helpers of the lab tests (run zlab, run in a host, run ansible)."""

import json
import os
import shutil
import socket
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
LAB_INVENTORY = os.path.join(REPO, "inventories", "lab")
# several checkouts may test at once on one machine: ZLAB_TEST_LAB names this run's lab
LAB_NAME = os.environ.get("ZLAB_TEST_LAB", "t-lab")
BIN = os.path.dirname(sys.executable)
ZLAB = [sys.executable, "-m", "zlab.cli"]


def skip_reason():
    if os.geteuid() != 0:
        return "lab tests need root"
    for tool in ("unshare", "nsenter", "ip", "mmdebstrap"):
        if shutil.which(tool) is None:
            return "%s is missing (make zlab-deps)" % tool
    if not os.path.exists("/dev/fuse"):
        return "no /dev/fuse"
    return None


def zlab(*args, check=True, timeout=300, lab=LAB_NAME):
    cmd = ZLAB + (["--lab", lab] if lab else []) + list(args)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    if check and proc.returncode != 0:
        raise AssertionError(
            "%s -> %d\nstdout: %s\nstderr: %s" % (" ".join(args), proc.returncode, proc.stdout, proc.stderr)
        )
    return proc


def in_host(host, script, check=True, lab=LAB_NAME):
    """bash -c SCRIPT inside a lab host."""
    return zlab("exec", host, "--", "/bin/bash", "-c", script, check=check, lab=lab)


# one LPAR "solo" in group lpars: the inventories of the tests' small labs outside the repository
TINY_HOSTS = """\
all:
  children:
    lpars:
      hosts:
        solo:
"""


def tiny_inventory(path, cpc):
    """Write an inventory directory (hosts.yml, group_vars/all/cpc.yml) at ``path``."""
    (path / "group_vars" / "all").mkdir(parents=True)
    (path / "hosts.yml").write_text(TINY_HOSTS)
    (path / "group_vars" / "all" / "cpc.yml").write_text(cpc)
    return path


def port_open(ip, port=22, timeout=1.0):
    try:
        with socket.create_connection((ip, port), timeout=timeout):
            return True
    except OSError:
        return False


def ansible(inventory, *args, timeout=180, env=None, command="ansible"):
    """Run ``command`` (ansible, or ansible-playbook) of the venv against ``inventory``."""
    env = dict(
        os.environ,
        ANSIBLE_HOST_KEY_CHECKING="False",
        ANSIBLE_FORCE_COLOR="0",
        ANSIBLE_NOCOLOR="1",
        ANSIBLE_DEPRECATION_WARNINGS="False",
        **(env or {}),
    )
    return subprocess.run(
        [os.path.join(BIN, command), "-i", inventory] + list(args),
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        check=False,
        cwd=REPO,
    )


# A play that applies the collection's smc role to the hosts of smc_hosts.
SMC_ROLE_PLAYBOOK = "- hosts: smc_hosts\n  gather_facts: false\n  roles: [s390x.network.smc]\n"


def playbook_run(inventory, *args, timeout=900):
    """``ansible-playbook`` with the JSON callback: its exit code and {task name: {host: result}}
    over every play (the hosts of tasks of one name in several plays together)."""
    env = {"ANSIBLE_STDOUT_CALLBACK": "ansible.posix.json", "ANSIBLE_LOAD_CALLBACK_PLUGINS": "1"}
    res = ansible(inventory, *args, timeout=timeout, env=env, command="ansible-playbook")
    try:
        plays = json.loads(res.stdout)["plays"]
    except (ValueError, KeyError):
        raise AssertionError("no result\nstdout: %s\nstderr: %s" % (res.stdout, res.stderr))
    tasks = {}
    for play in plays:
        for task in play["tasks"]:
            tasks.setdefault(task["task"]["name"], {}).update(task["hosts"])
    return res.returncode, tasks


def run_module(inventory, host, module, args, timeout=180):
    """Run one module on one host with ``ansible`` (arguments as JSON); the host's result dict."""
    res = ansible(
        inventory,
        host,
        "-m",
        module,
        "-a",
        json.dumps(args),
        timeout=timeout,
        env={"ANSIBLE_LOAD_CALLBACK_PLUGINS": "1", "ANSIBLE_STDOUT_CALLBACK": "ansible.posix.json"},
    )
    try:
        return json.loads(res.stdout)["plays"][0]["tasks"][0]["hosts"][host]
    except (ValueError, KeyError, IndexError):
        raise AssertionError("%s on %s: no result\nstdout: %s\nstderr: %s" % (module, host, res.stdout, res.stderr))
