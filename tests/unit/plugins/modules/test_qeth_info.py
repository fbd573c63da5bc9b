# -*- coding: utf-8 -*-
# Copyright (c) s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""qeth_info on a fake host: sysfs + udev rules + lszdev, no changes."""

from __future__ import annotations

import importlib.util
import os

import pytest

from ansible.module_utils import basic
from ansible.module_utils.testing import patch_module_args

from ansible_collections.s390x.network.plugins.module_utils import qeth_sysfs
from ansible_collections.s390x.network.plugins.modules import qeth_info

HERE = os.path.dirname(__file__)
_SPEC = importlib.util.spec_from_file_location("qeth_fake_host_info", os.path.join(HERE, "fixtures", "qeth_fake_host.py"))
fake = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(fake)

LSZDEV = ('ID="0.0.8200:0.0.8201:0.0.8202" ON="yes" PERS="yes" NAMES="enc8200"\n'
          'ID="0.0.8203:0.0.8204:0.0.8205" ON="no" PERS="yes" NAMES=""\n')


class Done(Exception):
    pass


@pytest.fixture
def host(tmp_path, monkeypatch):
    h = fake.FakeQethHost(tmp_path)
    h.add_devices("0.0.8200", 6)
    h.group(("0.0.8200", "0.0.8201", "0.0.8202"))
    h.write("0.0.8200", "layer2", "1")
    h.write("0.0.8200", "online", "1")
    h.write_rule("0.0.8200", ("0.0.8200", "0.0.8201", "0.0.8202"),
                 {"layer2": "1", "buffer_count": "128", "online": "1"})
    h.write_rule("0.0.8203", ("0.0.8203", "0.0.8204", "0.0.8205"), {"online": "1"})
    monkeypatch.setattr(qeth_sysfs, "HOST_ROOT", str(tmp_path))
    h.commands = []

    def exit_json(self, **kw):
        h.result = kw
        raise Done()

    def fail_json(self, msg, **kw):
        h.result = dict(kw, msg=msg, failed=True)
        raise Done()

    def run_command(self, args, **kw):
        h.commands.append(args)
        if args[0].endswith("lszdev"):
            return 0, LSZDEV, ""
        return 127, "", ""

    monkeypatch.setattr(basic.AnsibleModule, "exit_json", exit_json)
    monkeypatch.setattr(basic.AnsibleModule, "fail_json", fail_json)
    monkeypatch.setattr(basic.AnsibleModule, "run_command", run_command)
    monkeypatch.setattr(basic.AnsibleModule, "get_bin_path",
                        lambda self, name, required=False, opt_dirs=None: "/usr/sbin/" + name)
    return h


def run(host, args):
    with patch_module_args(args):
        with pytest.raises(Done):
            qeth_info.main()
    return host.result


def test_lists_devices_with_active_and_persistent(host):
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


def test_filter_and_no_lszdev(host):
    result = run(host, {"ids": ["8203"], "use_lszdev": False})
    assert [d["busid"] for d in result["devices"]] == ["0.0.8203"]
    assert result["lszdev_available"] is False and host.commands == []
    assert "lszdev" not in result["devices"][0]


def test_bad_input(host):
    assert "ids" in run(host, {"ids": ["0.0.zzzz"]})["msg"]
    assert "not a sysfs attribute name" in run(host, {"attributes": ["../../etc/passwd"]})["msg"]
