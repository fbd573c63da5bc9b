# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""SMC-R on a real s390x kernel (``zlab_kind: debian13-s390x``), in a lab of its own: after the
connection the guest keeps SMC-R link groups on the soft-RoCE device for minutes, which can stall
it under TCG, so no reboot or clean poweroff follows here (``zlab down`` ends QEMU)."""

import base64
import json
import os
import sys

import pytest

from labutil import LAB_NAME, run_module, tiny_inventory, zlab
from test_real_kernel import CPC, _skip_reason

SMCR_NAME = LAB_NAME + "-smcr"  # ZLAB_TEST_LAB names this run's labs


@pytest.fixture(scope="module")
def smcr_host(tmp_path_factory):
    reason = _skip_reason()
    if reason:
        pytest.skip(reason)
    inv = tiny_inventory(tmp_path_factory.mktemp("smcr") / "smcr", CPC)
    (inv / "host_vars").mkdir()
    (inv / "host_vars" / "solo.yml").write_text("zlab_kind: debian13-s390x\n")
    zlab("down", SMCR_NAME, lab=None)
    zlab("up", str(inv), "--name", SMCR_NAME, lab=None, timeout=1200)
    inventory = tmp_path_factory.mktemp("smcr-inv") / "zlab.yml"
    inventory.write_text(zlab("inventory", lab=SMCR_NAME).stdout)
    yield {"inventory": str(inventory)}
    zlab("down", SMCR_NAME, lab=None, check=False)


# SMC-R for real: soft-RoCE (rdma_rxe) on the loopback interface, grouped with lo under one PNET ID
# and a UEID through the netlink client; one SMC socket over 127.0.0.1 then uses SMC-R v2, and the
# link groups, links and device are read while it is open.
SMCR_PROBE = r"""
import base64, json, socket, subprocess, sys, types
mod = types.ModuleType("smc_netlink")
exec(compile(base64.b64decode(sys.argv[1]).decode(), "smc_netlink.py", "exec"), mod.__dict__)
nl = mod.SmcNetlink()
def succ():
    t = (nl.stats() or {}).get("smcr_tech") or {}
    return {k: t.get(k) or 0 for k in ("clnt_v1_succ", "clnt_v2_succ", "srv_v1_succ", "srv_v2_succ")}
subprocess.run(["modprobe", "rdma_rxe"], check=True)
subprocess.run(["rdma", "link", "add", "rxe_lo", "type", "rxe", "netdev", "lo"], check=True)
nl.pnet_add("NETLO", interface="lo")
nl.pnet_add("NETLO", ib_device="rxe_lo", port=1)
nl.add_ueid("SMC.LAB")  # SMC-R v2 needs an EID in common
out = {"pnet": nl.pnet_table(), "before": succ()}
srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 256)
srv.bind(("127.0.0.1", 0)); srv.listen(1)
cli = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 256)
cli.connect(srv.getsockname()); conn, _ = srv.accept()
cli.sendall(b"y" * 65536); got = 0
while got < 65536:
    got += len(conn.recv(65536))
out["lgr"] = nl.linkgroups_smcr()
out["links"] = nl.links_smcr()
out["devices"] = nl.devices_smcr()
for s in (cli, conn, srv):
    s.close()
out["after"] = succ()
out["fallback"] = nl.fallback_stats()
print(json.dumps(out, default=str))
"""


def test_smc_r_over_soft_roce_is_read_back_through_netlink(smcr_host):
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    with open(os.path.join(repo, "plugins", "module_utils", "smc", "netlink.py"), "rb") as handle:
        source = base64.b64encode(handle.read()).decode()
    # Debian's own smc.ko, not the image's rebuild with loopback-ism (zlab.smc_lo_module): with an
    # SMC-D device the server would choose SMC-D, which it tries before SMC-R
    load = "modprobe -a ib_core pnet && insmod /lib/modules/$(uname -r)/kernel/net/smc/smc.ko*"
    zlab("exec", "solo", "--", "sh", "-c", load, lab=SMCR_NAME, timeout=600)
    res = zlab("exec", "solo", "--", "python3", "-c", SMCR_PROBE, source, lab=SMCR_NAME, timeout=600)
    out = json.loads(res.stdout)
    sys.stdout.write(
        "\nSMC-R over rxe on lo: %s\n" % json.dumps({k: out[k] for k in ("before", "after")}, sort_keys=True)
    )
    assert sorted(out["pnet"], key=lambda e: str(e["interface"])) == [
        {"pnet_id": "NETLO", "interface": None, "ib_device": "rxe_lo", "port": 1},
        {"pnet_id": "NETLO", "interface": "lo", "ib_device": None, "port": None},
    ]
    delta = dict((k, out["after"][k] - out["before"][k]) for k in out["after"])
    assert delta["clnt_v1_succ"] + delta["clnt_v2_succ"] == 1, (out["fallback"], out["devices"])
    assert delta["srv_v1_succ"] + delta["srv_v2_succ"] == 1, out
    # both ends on one host: a link group in the client role (0) and one in the server role (1)
    assert sorted((g["role"], g["pnetid"].strip()) for g in out["lgr"]) == [(0, "NETLO"), (1, "NETLO")], out["lgr"]
    assert [link["ib_dev"] for link in out["links"]] == ["rxe_lo", "rxe_lo"], out["links"]
    assert any(d.get("ib_name") == "rxe_lo" for d in out["devices"]), out["devices"]
    # the module reads the same SMC-R counters (netlink: Debian has no smc-tools)
    res = run_module(smcr_host["inventory"], "solo", "s390x.network.smcd_info", {"protocol": "smcr"})
    assert not res.get("failed"), res.get("msg")
    conns = res["stats"]["connections"]
    assert (res["backend"], conns["smc_client"], conns["smc_server"], conns["v2"]) == ("netlink", 1, 1, 2), conns
