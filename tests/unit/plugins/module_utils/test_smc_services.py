# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""smc_services: the smc role's services, the drop-in's name and text, and the stale drop-ins.

Every value either fails with an error naming the variable (and then no path or text is planned:
the role writes nothing) or ends up in the drop-in exactly as given, read back with the
independent reader of systemd's syntax (test_unit_syntax)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.s390x.network.plugins.module_utils.smc.services import smc_services_plan, stale_dropins
from ansible_collections.s390x.network.tests.unit.plugins.module_utils.test_unit_syntax import (
    environment_of,
    read_unit,
)

DROPIN = "50-s390x-network-smc.conf"


def test_drop_ins_hold_exactly_the_environment():
    plan = smc_services_plan(
        [{"name": "smc-demo", "rmem": "256K", "wmem": 65536}, "db2@inst-1.service", "a:b.socket"],
        dropin_name=DROPIN,
    )
    assert plan["errors"] == [] and plan["dropin_name"] == DROPIN
    assert [s["path"] for s in plan["services"]] == [
        "/etc/systemd/system/smc-demo.service.d/" + DROPIN,
        "/etc/systemd/system/db2@inst-1.service.d/" + DROPIN,
        "/etc/systemd/system/a:b.socket.d/" + DROPIN,
    ]
    assert plan["services"][0]["dir"] == "/etc/systemd/system/smc-demo.service.d"
    first = read_unit(plan["services"][0]["dropin"])
    assert [d[:2] for d in first] == [("Service", "Environment")] * 3
    env = {}
    for d in first:
        env.update(environment_of(d[2]))
    assert env == {"LD_PRELOAD": "libsmc-preload.so", "SMC_RCVBUF": "256K", "SMC_SNDBUF": "65536"}
    second = read_unit(plan["services"][1]["dropin"])
    assert second == [("Service", "Environment", "LD_PRELOAD=libsmc-preload.so")]
    # the text the role's template wrote before, line for line
    assert plan["services"][0]["dropin"].splitlines()[2:] == [
        "[Service]",
        "Environment=LD_PRELOAD=libsmc-preload.so",
        "Environment=SMC_RCVBUF=256K",
        "Environment=SMC_SNDBUF=65536",
    ]


def test_without_a_dropin_name_the_plan_has_its_old_shape():
    plan = smc_services_plan(["db2"])
    assert sorted(plan) == ["errors", "max_rmem", "max_wmem", "names", "services"]
    assert sorted(plan["services"][0]) == ["name", "rmem", "rmem_bytes", "wmem", "wmem_bytes"]


BAD_DROPIN_NAMES = [
    "../../../x.conf",
    "/etc/x.conf",
    "*.service",
    "*.conf",
    "x?.conf",
    "[ab].conf",
    "-x.conf",
    ".x.conf",
    "x.conf\n",
    "x\r.conf",
    "x\x00.conf",
    'x".conf',
    "x'.conf",
    "x\\.conf",
    "$(id).conf",
    "`id`.conf",
    "x;y.conf",
    "%n.conf",
    "x y.conf",
    "x.service",
    "",
    "x" * 251 + ".conf",
    None,
    ["x.conf"],
]


@pytest.mark.parametrize("name", BAD_DROPIN_NAMES, ids=[repr(n)[:40] for n in BAD_DROPIN_NAMES])
def test_a_bad_dropin_name_is_refused_and_nothing_is_planned(name):
    plan = smc_services_plan(["db2"], dropin_name=name, found=["/etc/systemd/system/x.service.d/x.conf"])
    assert [e for e in plan["errors"] if e.startswith("smc_dropin_name: ")] == plan["errors"] != []
    assert "[A-Za-z0-9_][A-Za-z0-9_.-]*.conf" in plan["errors"][0]
    assert plan["dropin_name"] is None and plan["stale"] == []
    assert [(s["dir"], s["path"], s["dropin"]) for s in plan["services"]] == [(None, None, None)]


BAD_SERVICE_NAMES = [
    "x\nExecStartPre=/bin/id",
    "x.service\n",
    "x\r",
    "x\x00",
    'x"',
    "x'",
    "x\\",
    "$(id)",
    "`id`",
    "x;y",
    "%n",
    "../x",
    "/etc/x",
    "-x",
    "--help",
    ".x",
    "*",
    "*.service",
    "x y",
    "a@b@c",
    "",
    "x" * 250,
    True,
    ["x"],
]


@pytest.mark.parametrize("name", BAD_SERVICE_NAMES, ids=[repr(n)[:40] for n in BAD_SERVICE_NAMES])
def test_a_bad_service_name_is_refused_naming_the_entry(name):
    plan = smc_services_plan(["ok", {"name": name}], dropin_name=DROPIN)
    assert len(plan["errors"]) == 1 and plan["errors"][0].startswith("smc_services[1].name: "), plan["errors"]
    assert "is not a systemd unit name" in plan["errors"][0]
    assert plan["dropin_name"] is None and all(s["path"] is None for s in plan["services"])


BAD_SIZES = ["16K\n", "16K\nExecStartPre=/bin/id", "16K;x", "$(id)", "`id`", "%n", "16 K", "-16K", "0x4000", "", True]


@pytest.mark.parametrize("value", BAD_SIZES, ids=[repr(v) for v in BAD_SIZES])
@pytest.mark.parametrize("key", ["rmem", "wmem"])
def test_a_bad_size_is_refused_naming_the_field(key, value):
    plan = smc_services_plan([{"name": "db2", key: value}], dropin_name=DROPIN)
    assert len(plan["errors"]) == 1 and plan["errors"][0].startswith("smc_services[0].%s: " % key), plan["errors"]
    assert plan["services"][0]["dropin"] is None


def test_stale_dropins_are_only_those_of_valid_units_not_listed():
    found = [
        "/etc/systemd/system/old.service.d/" + DROPIN,
        "/etc/systemd/system/db2.service.d/" + DROPIN,  # listed
        "/etc/systemd/system/" + DROPIN,  # not in a drop-in directory
        "/etc/systemd/system/multi-user.target.wants/" + DROPIN,
        "/etc/systemd/system/a b.service.d/" + DROPIN,  # not a unit name
        "/etc/systemd/system/x.service.d/other.conf",  # another name
        "/etc/systemd/system/x.service.d/sub/" + DROPIN,
        "/etc/systemd/system/../x.service.d/" + DROPIN,
        "/run/systemd/system/y.service.d/" + DROPIN,
        "/etc/systemd/system/old.socket.d/" + DROPIN,
        None,
    ]
    assert stale_dropins(found, DROPIN, ["db2.service"]) == [
        {"name": "old.service", "path": "/etc/systemd/system/old.service.d/" + DROPIN},
        {"name": "old.socket", "path": "/etc/systemd/system/old.socket.d/" + DROPIN},
    ]
    plan = smc_services_plan(["db2"], dropin_name=DROPIN, found=found)
    assert [s["name"] for s in plan["stale"]] == ["old.service", "old.socket"]
