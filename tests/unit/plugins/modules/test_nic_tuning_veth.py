# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""nic_tuning against the real kernel: a veth pair in a network namespace this test creates
(``nic-test-<pid>``) and deletes, never an interface of the machine.

The module runs as Ansible runs it - the module file as a program, its arguments in a JSON file -
inside the namespace (``ip netns exec``): that gives it the namespace's own ``/sys`` (sysfs shows
the network devices of the namespace that mounts it, and ``ip netns exec`` mounts a fresh one),
so its sysfs reads and writes and its ``ethtool`` calls all reach the veth pair. Running ``main()``
in-process with commands wrapped in ``ip netns exec`` would not: the test process's ``/sys`` shows
the host's interfaces.

veth facts used (drivers/net/veth.c): ``ethtool -L`` takes rx and tx (1 up to the
``numrxqueues``/``numtxqueues`` given at creation; Linux 5.13) and refuses combined; there is no
``ethtool -g``; offloads such as tso and gro can be toggled, lro is ``[fixed]`` off.
``persistent: false`` throughout: nothing is written to the machine's /etc.
"""

from __future__ import absolute_import, division, print_function

import json
import os
import shutil
import subprocess
import sys

import pytest

from ansible_collections.s390x.network.plugins.module_utils.nic import ethtool as et

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
MODULE = os.path.join(REPO, "plugins", "modules", "nic_tuning.py")
COLLECTIONS = os.path.join(REPO, ".cache", "collections")
IP = shutil.which("ip") or ("/usr/sbin/ip" if os.path.exists("/usr/sbin/ip") else None)
ETHTOOL = shutil.which("ethtool") or ("/usr/sbin/ethtool" if os.path.exists("/usr/sbin/ethtool") else None)

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root to create a network namespace and veth devices"),
    pytest.mark.skipif(IP is None, reason="ip (iproute2) is not installed"),
    pytest.mark.skipif(ETHTOOL is None, reason="ethtool is not installed (apt-get install -y ethtool)"),
    pytest.mark.skipif(
        not os.path.isdir(os.path.join(COLLECTIONS, "ansible_collections", "s390x", "network")),
        reason="the collection link .cache/collections is missing (make collection-link)",
    ),
]


def ns_run(ns, argv, env=None, check=True):
    done = subprocess.run(
        [IP, "netns", "exec", ns] + argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        universal_newlines=True,
        env=env,
        check=False,
    )
    if check and done.returncode != 0:
        raise AssertionError("%s failed: %s" % (argv, done.stderr))
    return done


@pytest.fixture
def netns():
    """A namespace with the veth pair nt0/nt1 (4 RX and 4 TX queues each), up; deleted afterwards."""
    ns = "nic-test-%d" % os.getpid()
    done = subprocess.run(
        [IP, "netns", "add", ns], stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, check=False
    )
    if done.returncode != 0:
        pytest.skip("cannot create a network namespace here: %s" % done.stderr.strip())
    try:
        ns_run(
            ns,
            [IP, "link", "add", "nt0", "numtxqueues", "4", "numrxqueues", "4", "type", "veth", "peer", "name", "nt1"]
            + ["numtxqueues", "4", "numrxqueues", "4"],
        )
        ns_run(ns, [IP, "link", "set", "nt0", "up"])
        ns_run(ns, [IP, "link", "set", "nt1", "up"])
        if et.parse_channels(ns_run(ns, [ETHTOOL, "-l", "nt0"]).stdout)["max"]["rx"] != 4:
            pytest.skip("this kernel's veth has no settable channels (needs Linux 5.13)")
        yield ns
    finally:
        subprocess.run([IP, "netns", "del", ns], stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)


def module(ns, tmp_path, args, path_prefix=None, check_mode=False):
    """Run the module in the namespace; its JSON result."""
    args = dict(args, persistent=False, _ansible_check_mode=check_mode, _ansible_diff=True)
    argsfile = tmp_path / "args.json"
    argsfile.write_text(json.dumps({"ANSIBLE_MODULE_ARGS": args}))
    env = dict(os.environ, PYTHONPATH=COLLECTIONS)
    if path_prefix:
        env["PATH"] = "%s:%s" % (path_prefix, env.get("PATH", "/usr/sbin:/usr/bin:/sbin:/bin"))
    done = ns_run(ns, [sys.executable, MODULE, str(argsfile)], env=env, check=False)
    try:
        return json.loads(done.stdout)
    except ValueError:
        raise AssertionError("no JSON from the module (exit %d): %s %s" % (done.returncode, done.stdout, done.stderr))


def channels(ns):
    return et.parse_channels(ns_run(ns, [ETHTOOL, "-l", "nt0"]).stdout)["current"]


def features(ns):
    feats = et.parse_features(ns_run(ns, [ETHTOOL, "-k", "nt0"]).stdout)
    return dict((name, et.feature_value(feats[name], feats)) for name in feats)


def rps(ns, queue):
    return ns_run(ns, ["cat", "/sys/class/net/nt0/queues/rx-%d/rps_cpus" % queue]).stdout.strip()


ARGS = {
    "config": [
        {
            "name": "nt0",
            "channels": {"rx": 2, "tx": 3},
            "features": {"tso": False, "gro": True},
            "rps_cpus": {"all": "0"},
        }
    ]
}


def test_merged_on_veth_then_nothing_to_do(netns, tmp_path):
    assert features(netns)["tcp-segmentation-offload"] is True
    result = module(netns, tmp_path, ARGS)
    assert not result.get("failed"), result
    assert result["changed"] is True
    assert result["commands"] == [
        "ethtool -L nt0 rx 2 tx 3",
        "ethtool -K nt0 tso off gro on",
        "echo 1 > /sys/class/net/nt0/queues/rx-0/rps_cpus",
        "echo 1 > /sys/class/net/nt0/queues/rx-1/rps_cpus",
    ]
    assert channels(netns) == {"rx": 2, "tx": 3, "other": None, "combined": None}
    feats = features(netns)
    assert feats["tcp-segmentation-offload"] is False and feats["generic-receive-offload"] is True
    assert int(rps(netns, 0), 16) == 1 and int(rps(netns, 1), 16) == 1
    assert ns_run(netns, ["ls", "/sys/class/net/nt0/queues"]).stdout.split() == ["rx-0", "rx-1", "tx-0", "tx-1", "tx-2"]
    # the peer is untouched
    assert et.parse_channels(ns_run(netns, [ETHTOOL, "-l", "nt1"]).stdout)["current"]["rx"] == 4
    again = module(netns, tmp_path, ARGS)
    assert again["changed"] is False and again["commands"] == [], again


def test_check_mode_changes_nothing_on_veth(netns, tmp_path):
    before = (channels(netns), features(netns))
    result = module(netns, tmp_path, ARGS, check_mode=True)
    assert result["changed"] is True and result["commands"][0] == "ethtool -L nt0 rx 2 tx 3"
    assert (channels(netns), features(netns)) == before
    assert int(rps(netns, 0), 16) == 0


def test_refused_by_what_veth_reports(netns, tmp_path):
    result = module(
        netns,
        tmp_path,
        {
            "config": [
                {"name": "nt0", "channels": {"rx": 5, "combined": 1}, "rings": {"rx": 256}, "features": {"lro": True}}
            ]
        },
    )
    assert result["failed"] and result["commands"] == []
    assert result["msg"].split("; ") == [
        "config[0] (nt0).channels.combined: veth has no combined channels (ethtool -l shows n/a), only rx, tx",
        "config[0] (nt0).channels.rx: 5 is above the maximum 4 that veth reports (ethtool -l nt0, pre-set maximums)",
        "config[0] (nt0).rings.rx: veth cannot change ring sizes with ethtool -G",
        "config[0] (nt0).features.lro: cannot be on: fixed off by the driver ([fixed] in ethtool -k)",
    ]
    assert channels(netns)["rx"] == 4


def test_rollback_on_the_real_kernel_when_the_second_of_three_changes_fails(netns, tmp_path):
    """channels (real), features (ethtool -K fails: a wrapper injects the failure; everything else is
    the real ethtool), RPS (never runs). The real channel count is put back."""
    wrapper = tmp_path / "bin"
    wrapper.mkdir()
    fake = wrapper / "ethtool"
    fake.write_text(
        '#!/bin/sh\nif [ "$1" = "-K" ]; then echo "netlink error: Operation not permitted" >&2; exit 1; fi\n'
        'exec %s "$@"\n' % ETHTOOL
    )
    fake.chmod(0o755)
    result = module(netns, tmp_path, ARGS, path_prefix=str(wrapper))
    assert result["failed"]
    assert result["commands"] == ["ethtool -L nt0 rx 2 tx 3", "ethtool -K nt0 tso off gro on"]
    assert result["rollback"] == {"commands": ["ethtool -L nt0 rx 4 tx 4"], "ok": True, "errors": []}
    assert result["changed"] is False
    assert "Operation not permitted" in result["msg"] and "previous settings restored" in result["msg"]
    assert channels(netns) == {"rx": 4, "tx": 4, "other": None, "combined": None}
    assert features(netns)["tcp-segmentation-offload"] is True
    assert int(rps(netns, 0), 16) == 0


def test_gathered_from_veth(netns, tmp_path):
    ns_run(netns, [ETHTOOL, "-L", "nt0", "rx", "3", "tx", "1"])
    result = module(netns, tmp_path, {"state": "gathered", "config": [{"name": "nt0"}]})
    assert not result.get("failed"), result
    gathered = result["gathered"][0]
    assert gathered["channels"] == {"rx": 3, "tx": 1}
    assert "rings" not in gathered and "irq_affinity" not in gathered
    assert gathered["features"]["generic-segmentation-offload"] is True
    assert "large-receive-offload" not in gathered["features"]  # fixed
