# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""`zlab --lab NAME up DIR` on a lab that is up (an inventory outside the repository, one LPAR):
the lab is named by --lab, edited variables are refreshed without a rebuild, a changed CPC is
rebuilt."""

import json

import yaml

from labutil import LAB_NAME, in_host, tiny_inventory, zlab

NAME = LAB_NAME + "-up"  # ZLAB_TEST_LAB names this run's labs
CPC = """\
cpc:
  name: TINY
  machine: z15
  partitions:
    - {name: lp1, mif_id: 1, host: solo}
  hipersockets:
    - {chpid: "E1", control_unit: E100, devices: "7000-7002", partitions: [LP1]}
"""


def _lab():
    from zlab.host import Lab  # pylint: disable=import-outside-toplevel

    return Lab.load(NAME)


def test_up_again_refreshes_variables_and_rebuilds_a_changed_cpc(images, tmp_path):
    # pylint: disable=unused-argument
    inv = tiny_inventory(tmp_path / "tiny", CPC)
    (inv / "host_vars").mkdir()
    (inv / "host_vars" / "solo.yml").write_text("qeth_devices: [{id: 0.0.7000, layer2: true}]\n")
    zlab("down", NAME, lab=None)
    try:
        # --lab before the command names the lab (not the directory's name "tiny")
        up = zlab("up", str(inv), lab=NAME)
        assert "zlab: lab %s up: 1 hosts" % NAME in up.stdout
        status = json.loads(zlab("status", "--json", lab=NAME).stdout)[0]
        assert (status["lab"], status["inventory"]) == (NAME, str(inv))
        assert status["hosts"]["solo"]["partition"] == "LP1"
        pid = _lab().hosts["solo"]["pid"]

        # edited host and group variables: refreshed, hosts left running as they are
        (inv / "host_vars" / "solo.yml").write_text("qeth_devices: [{id: 0.0.7000, layer2: false}]\n")
        (inv / "group_vars" / "lpars.yml").write_text("smc_buffer_size: 1M\n")
        again = zlab("up", str(inv), lab=NAME)
        assert (
            "zlab: lab %s is already up (1 hosts); groups and host variables refreshed "
            "from %s" % (NAME, inv) in again.stdout
        )
        printed = yaml.safe_load(zlab("inventory", lab=NAME).stdout)["all"]
        assert printed["hosts"]["solo"]["qeth_devices"] == [{"id": "0.0.7000", "layer2": False}]
        assert printed["children"]["lpars"]["vars"] == {"smc_buffer_size": "1M"}
        assert _lab().hosts["solo"]["pid"] == pid
        assert "inventory variables unchanged" in zlab("up", str(inv), lab=NAME).stdout

        # a changed CPC (one more device): the lab is built again
        (inv / "group_vars" / "all" / "cpc.yml").write_text(CPC.replace("7002", "7003"))
        rebuilt = zlab("up", str(inv), lab=NAME)
        assert "rebuilding" in rebuilt.stderr and "lab %s up: 1 hosts" % NAME in rebuilt.stdout
        assert _lab().hosts["solo"]["pid"] != pid
        assert in_host("solo", "ls /sys/bus/ccw/devices", lab=NAME).stdout.split() == [
            "0.0.7000",
            "0.0.7001",
            "0.0.7002",
            "0.0.7003",
        ]
    finally:
        zlab("down", NAME, lab=None)
