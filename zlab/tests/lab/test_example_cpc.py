# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""One CPC of the two-CPC example inventory (inventories/example, `cpc` set per CPC group as a
reference) as a lab: `up --cpc` builds that CPC's hosts only, `zlab inventory` leaves out the other
CPC's hosts and resolves for Ansible, and the devices are the model's."""

import json
import os

import yaml

from labutil import LAB_INVENTORY, LAB_NAME, ansible, in_host, zlab

NAME = LAB_NAME + "-exb"  # ZLAB_TEST_LAB names this run's labs
EXAMPLE = os.path.join(os.path.dirname(LAB_INVENTORY), "example")


def test_prodb_of_the_example_inventory(images, tmp_path):  # pylint: disable=unused-argument
    refused = zlab("up", EXAMPLE, check=False, lab=NAME)
    assert refused.returncode != 0
    assert "the inventory has 2 CPCs (PRODA: " in refused.stderr and "--cpc NAME" in refused.stderr
    zlab("down", NAME, lab=None)
    try:
        up = zlab("up", EXAMPLE, "--cpc", "prodb", lab=NAME)
        assert "zlab: lab %s up: 3 hosts" % NAME in up.stdout
        status = json.loads(zlab("status", "--json", lab=NAME).stdout)[0]
        assert status["cpc"] == "PRODB"
        assert {h: s["role"] for h, s in status["hosts"].items()} == {
            "kvmp2": "kvm_host",
            "dbp2": "lpar",
            "app3": "guest",
        }

        text = zlab("inventory", lab=NAME).stdout
        printed = yaml.safe_load(text)["all"]
        assert set(printed["hosts"]) == {"kvmp2", "dbp2", "app3"}
        assert "cpc_proda" not in printed["children"] or "hosts" not in printed["children"]["cpc_proda"]
        # Ansible itself resolves the group's reference to the PRODB model
        inv = tmp_path / "inventory.yml"
        inv.write_text(text)
        shown = ansible(
            str(inv), "dbp2", "-m", "ansible.builtin.debug", "-a", "msg={{ cpc.name }}/{{ cpc.ism[0].pnet_id }}"
        )
        assert shown.returncode == 0, shown.stdout + shown.stderr
        assert '"msg": "PRODB/PNETB"' in shown.stdout

        # UUID PART=*: the FID 0x1018 with UID 0x18 is PCI domain 0018 on dbp2, in standby
        slot = in_host(
            "dbp2", "cat /sys/bus/pci/slots/00001018/power; ls /sys/bus/pci/devices", lab=NAME
        ).stdout.split()
        assert slot == ["0"]
        in_host("dbp2", "echo 1 > /sys/bus/pci/slots/00001018/power", lab=NAME)
        assert "0018:00:00.0" in in_host("dbp2", "ls /sys/bus/pci/devices", lab=NAME).stdout
        # the F0 HiperSockets devices 8200-820F of the model, none on kvmp2's guest
        ccw = in_host("kvmp2", "ls /sys/bus/ccw/devices", lab=NAME).stdout.split()
        assert "0.0.8200" in ccw and "0.0.820f" in ccw and "0.0.8210" not in ccw
    finally:
        zlab("down", NAME, lab=None)
