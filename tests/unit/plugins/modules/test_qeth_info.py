# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""qeth_info on a fake host: sysfs + udev rules + lszdev, no changes."""

from __future__ import absolute_import, division, print_function

import pytest

from ansible_collections.s390x.network.plugins.modules import qeth_info

LSZDEV = (
    'ID="0.0.8200:0.0.8201:0.0.8202" ON="yes" PERS="yes" NAMES="enc8200"\n'
    'ID="0.0.8203:0.0.8204:0.0.8205" ON="no" PERS="yes" NAMES=""\n'
)


@pytest.fixture
def host(fake_kernel):
    h = fake_kernel()
    h.add_ccw_devices("0.0.8200", 6)
    h.qeth_group(("0.0.8200", "0.0.8201", "0.0.8202"))
    h.qeth_write("0.0.8200", "layer2", "1")
    h.qeth_write("0.0.8200", "online", "1")
    h.write_rule(
        "0.0.8200", ("0.0.8200", "0.0.8201", "0.0.8202"), {"layer2": "1", "buffer_count": "128", "online": "1"}
    )
    h.write_rule("0.0.8203", ("0.0.8203", "0.0.8204", "0.0.8205"), {"online": "1"})
    h.commands = []
    return h


@pytest.fixture
def run(run_module):
    def run_info(host, args):
        def run_command(argv):
            host.commands.append(argv)
            if argv[0].endswith("lszdev"):
                return 0, LSZDEV, ""
            return 127, "", ""

        return run_module(qeth_info.main, args, run_command).result

    return run_info


def test_lists_devices_with_active_and_persistent(host, run):
    result = run(host, {"attributes": ["vnicc/learning"]})
    assert result["changed"] is False and result["lszdev_available"] is True
    assert [d["busid"] for d in result["devices"]] == ["0.0.8200", "0.0.8203"]
    dev = result["devices"][0]
    assert dev["id"] == "0.0.8200:0.0.8201:0.0.8202"
    assert dev["if_name"] == "enc8200" and dev["card_type"] == "HiperSockets" and dev["chpid"] == "F0"
    assert dev["online"] is True and dev["state"] == "UP (LAN ONLINE)"
    assert dev["layer2"] is True and dev["buffer_count"] == 128 and dev["portno"] == 0
    assert dev["isolation"] is None and dev["inbuf_size"] == "40k"
    assert dev["attributes"] == {"vnicc/learning": "0"}
    assert dev["persistent"] == {"layer2": True, "buffer_count": 128, "online": True}
    assert dev["lszdev"] == {"online": True, "persistent": True, "auto_configured": False, "names": ["enc8200"]}
    rule_only = result["devices"][1]
    assert rule_only["exists"] is False and rule_only["online"] is False and rule_only["layer2"] is None
    assert rule_only["persistent"] == {"online": True}
    assert host.commands == [["/usr/sbin/lszdev", "qeth", "--columns", "ID,ON,PERS,NAMES", "--pairs"]]


def test_filter_and_no_lszdev(host, run):
    result = run(host, {"ids": ["8203"], "use_lszdev": False})
    assert [d["busid"] for d in result["devices"]] == ["0.0.8203"]
    assert result["lszdev_available"] is False and host.commands == []
    assert "lszdev" not in result["devices"][0]


def test_bad_input(host, run):
    assert "ids" in run(host, {"ids": ["0.0.zzzz"]})["msg"]
    assert "not a sysfs attribute name" in run(host, {"attributes": ["../../etc/passwd"]})["msg"]
