# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""qeth_device, bad input: every option refused with a message that names the field and what is
allowed, before the host is read (no sysfs, no udev rule, no chzdev lookup or run)."""

from __future__ import absolute_import, division, print_function

import pytest

from ansible_collections.s390x.network.plugins.modules import qeth_device
from ansible_collections.s390x.network.tests.unit.plugins.modules.host_guard import HostGuard

GROUP = "0.0.8200:0.0.8201:0.0.8202"


def dev(**entry):
    return dict({"id": "0.0.8200"}, **entry)


CASES = [
    # -- id ------------------------------------------------------------------------------------
    ("id not hex", {"config": [{"id": "0.0.82zz"}]}, ["config[0] (id 0.0.82zz)", "not a CCW device ID", "0.0.8200"]),
    ("id empty", {"config": [{"id": ""}]}, ["config[0] (id )", "non-empty string such as 0.0.8200"]),
    ("id blank", {"config": [{"id": "  "}]}, ["config[0]", "non-empty string such as 0.0.8200"]),
    ("id subchannel set 4", {"config": [{"id": "0.4.8200"}]}, ["config[0] (id 0.4.8200)", "not a CCW device ID"]),
    ("id five digits", {"config": [{"id": "0.0.82000"}]}, ["config[0] (id 0.0.82000)", "not a CCW device ID"]),
    ("id as a YAML hex int", {"config": [{"id": 0x8200}]}, ["config[0] (id 33280)", "not a CCW device ID"]),
    ("id with two devices", {"config": [{"id": "0.0.8200:0.0.8201"}]}, ["config[0]", "not enough CCW device IDs"]),
    (
        "id with four devices",
        {"config": [{"id": GROUP + ":0.0.8203"}]},
        ["config[0]", "too many CCW device IDs", "read:write:data"],
    ),
    (
        "id write not read plus one",
        {"config": [{"id": "0.0.8200:0.0.8202:0.0.8201"}]},
        ["config[0]", "the write device must be the read device plus one"],
    ),
    (
        "id with a device twice",
        {"config": [{"id": "0.0.8200:0.0.8201:0.0.8200"}]},
        ["config[0]", "the three CCW device IDs must differ"],
    ),
    (
        "id across subchannel sets",
        {"config": [{"id": "0.0.8200:0.0.8201:0.1.8202"}]},
        ["config[0]", "all CCW devices must be in the same subchannel set"],
    ),
    ("id with an empty part", {"config": [{"id": "0.0.8200::0.0.8202"}]}, ["config[0]", "has an empty CCW device ID"]),
    (
        "read device ffff has no write device",
        {"config": [{"id": "0.0.ffff"}]},
        ["config[0] (id 0.0.ffff)", "cannot be a read device", "read device plus one"],
    ),
    ("id missing", {"config": [{"layer2": True}]}, ["missing required arguments: id", "config"]),
    # -- the same device twice -----------------------------------------------------------------
    (
        "same read device in two spellings",
        {"config": [dev(), {"id": "8200", "buffer_count": 64}]},
        ["config[1] (id 8200): names the same device as config[0] (id 0.0.8200)", "0.0.8200"],
    ),
    (
        "upper and lower case",
        {"config": [{"id": "0.0.bd00"}, {"id": "0.0.BD00"}]},
        ["config[1] (id 0.0.BD00): names the same device as config[0] (id 0.0.bd00)"],
    ),
    (
        "read device and full group",
        {"config": [{"id": GROUP}, dev(online=False)]},
        ["config[1] (id 0.0.8200): names the same device as config[0] (id %s)" % GROUP],
    ),
    (
        "comma and colon spellings of one group",
        {"config": [{"id": GROUP}, {"id": "0.0.8200,0.0.8201,0.0.8202"}]},
        ["config[1] (id 0.0.8200,0.0.8201,0.0.8202): names the same device as config[0]"],
    ),
    (
        "groups that share a data device",
        {"config": [{"id": GROUP}, {"id": "0.0.8203:0.0.8204:0.0.8202"}]},
        ["config[1] (id 0.0.8203:0.0.8204:0.0.8202): names the same device as config[0]", "0.0.8202"],
    ),
    (
        "write device of a group named as a read device",
        {"config": [{"id": GROUP}, {"id": "0.0.8201"}]},
        ["config[1] (id 0.0.8201): names the same device as config[0]", "0.0.8201"],
    ),
    (
        "read devices one apart",
        {"config": [dev(), {"id": "0.0.8201"}]},
        ["config[1] (id 0.0.8201): names the same device as config[0] (id 0.0.8200)", "0.0.8201"],
    ),
    (
        "read device whose write device starts a group",
        {"config": [{"id": "0.0.81ff"}, {"id": GROUP}]},
        ["config[1] (id %s): names the same device as config[0] (id 0.0.81ff)" % GROUP, "0.0.8200"],
    ),
    (
        "rendered, read devices two apart overlap in read, read+1, read+2",
        {"state": "rendered", "config": [dev(), {"id": "0.0.8202"}]},
        ["config[1] (id 0.0.8202): names the same device as config[0] (id 0.0.8200)", "0.0.8202"],
    ),
    (
        "rendered, two spellings",
        {"state": "rendered", "config": [dev(), dev(online=False)]},
        ["config[1] (id 0.0.8200): names the same device as config[0]"],
    ),
    (
        "deleted, two spellings",
        {"state": "deleted", "config": [{"id": GROUP}, {"id": "8200"}]},
        ["config[1] (id 8200): names the same device as config[0]"],
    ),
    # -- top-level attribute options -----------------------------------------------------------
    ("buffer_count 7", {"config": [dev(buffer_count=7)]}, ["config[0] (id 0.0.8200): buffer_count", "8 and 128"]),
    ("buffer_count 129", {"config": [dev(buffer_count=129)]}, ["buffer_count must be between 8 and 128, got 129"]),
    ("buffer_count not a number", {"config": [dev(buffer_count="many")]}, ["buffer_count", "int"]),
    ("portno 2", {"config": [dev(portno=2)]}, ["config[0] (id 0.0.8200): portno must be between 0 and 1, got 2"]),
    ("portno -1", {"config": [dev(portno=-1)]}, ["portno must be between 0 and 1, got -1"]),
    ("isolation choice", {"config": [dev(isolation="block")]}, ["isolation", "none, drop, forward"]),
    ("layer2 not a boolean", {"config": [dev(layer2="maybe")]}, ["layer2", "bool"]),
    ("online not a boolean", {"config": [dev(online="maybe")]}, ["online", "bool"]),
    ("unknown device option", {"config": [dev(layer_2=True)]}, ["layer_2"]),
    # -- attributes ----------------------------------------------------------------------------
    (
        "unknown attribute",
        {"config": [dev(attributes={"bogus": 1})]},
        ["config[0] (id 0.0.8200): attributes.bogus is not a qeth attribute", "vnicc/learning"],
    ),
    ("read-only attribute", {"config": [dev(attributes={"card_type": "x"})]}, ["attributes.card_type cannot be set"]),
    ("trigger attribute", {"config": [dev(attributes={"recover": 1})]}, ["attributes.recover cannot be set"]),
    ("list attribute", {"config": [dev(attributes={"vipa/add4": "1.2.3.4"})]}, ["attributes.vipa/add4 cannot be set"]),
    (
        "managed name in attributes",
        {"config": [dev(attributes={"layer2": 1})]},
        ["attributes.layer2: use the option 'layer2' instead"],
    ),
    ("online in attributes", {"config": [dev(attributes={"online": 1})]}, ["attributes.online: use the option"]),
    ("attribute without value", {"config": [dev(attributes={"hw_trap": None})]}, ["attributes.hw_trap has no value"]),
    ("boolean attribute", {"config": [dev(attributes={"sniffer": "maybe"})]}, ["attributes.sniffer must be 0 or 1"]),
    (
        "choice attribute",
        {"config": [dev(attributes={"hw_trap": "on"})]},
        ["attributes.hw_trap must be one of disarm, arm, got 'on'"],
    ),
    (
        "router choice",
        {"config": [dev(layer2=False, attributes={"route4": "router"})]},
        ["attributes.route4 must be one of no_router, multicast_router"],
    ),
    (
        "learning_timeout below 60",
        {"config": [dev(layer2=True, attributes={"vnicc/learning_timeout": 59})]},
        ["attributes.vnicc/learning_timeout must be between 60 and 86400, got 59"],
    ),
    (
        "learning_timeout not a number",
        {"config": [dev(layer2=True, attributes={"vnicc/learning_timeout": "10m"})]},
        ["attributes.vnicc/learning_timeout must be an integer 60..86400"],
    ),
    (
        "portname too long",
        {"config": [dev(attributes={"portname": "PORTNAME9"})]},
        ["attributes.portname must be 1 to 8 of A-Z a-z 0-9 @ # _ -", "'PORTNAME9'"],
    ),
    (
        "hsuid with a blank",
        {"config": [dev(layer2=False, attributes={"hsuid": "A B"})]},
        ["attributes.hsuid must be 1 to 8 of A-Z a-z 0-9 @ # _ -", "'A B'"],
    ),
    (
        "attribute names that are not strings",
        {"config": [dev(attributes={1: "x", "hw_trap": "arm"})]},
        ["attributes.1 is not a qeth attribute"],
    ),
    (
        "layer 2 attribute on layer 3",
        {"config": [dev(layer2=False, attributes={"vnicc/learning": True})]},
        ["attributes.vnicc/learning needs layer2: true"],
    ),
    (
        "layer 3 attribute on layer 2",
        {"config": [dev(layer2=True, attributes={"route4": "primary_router"})]},
        ["attributes.route4 needs layer2: false"],
    ),
    (
        "bridge and VNIC characteristics",
        {"config": [dev(attributes={"bridge_role": "primary", "vnicc/flooding": 1})]},
        ["bridge attributes (bridge_role) and VNIC characteristics (vnicc/flooding) cannot be configured together"],
    ),
    # -- module options ------------------------------------------------------------------------
    ("state choice", {"state": "present", "config": [dev()]}, ["state", "merged, replaced, overridden"]),
    ("scope choice", {"scope": "all", "config": [dev()]}, ["scope", "both, active, persistent"]),
    ("allow_disruptive not a boolean", {"allow_disruptive": "perhaps", "config": [dev()]}, ["allow_disruptive"]),
    ("merged without config", {}, ["state is merged but all of the following are missing: config"]),
    ("replaced without config", {"state": "replaced"}, ["state is replaced", "config"]),
    ("deleted without config", {"state": "deleted"}, ["state is deleted", "config"]),
    ("rendered without config", {"state": "rendered"}, ["state is rendered", "config"]),
    ("unknown option", {"config": [dev()], "buffercount": 128}, ["buffercount"]),
    # -- every problem in one message ----------------------------------------------------------
    (
        "all problems of the task",
        {"config": [dev(buffer_count=1000, portno=5), {"id": "0.0.82zz"}, {"id": "8200"}]},
        [
            "config[0] (id 0.0.8200): buffer_count must be between 8 and 128",
            "config[0] (id 0.0.8200): portno must be between 0 and 1",
            "config[1] (id 0.0.82zz)",
            "config[2] (id 8200): names the same device as config[0]",
        ],
    ),
]


# chzdev writes portname, hsuid and every other value unescaped into 41-qeth-<busid>.rules
# (ATTR{...}="VALUE"): what could end the value, add a key, start a rule or be substituted by udev
UDEV_BREAKERS = [
    '",RUN+="',
    'A"B',
    "A\\",
    "A\\B",
    "A\nB",
    "A\rB",
    "A\x00B",
    "A\tB",
    "$(id)",
    "`id`",
    "A;B",
    "%k",
    "$env",
    "../A",
    "/A",
    "A B",
    "ABCDEFGHI",
    "\u00c4BC",
    "A\u202eB",
]
for _attr in ("portname", "hsuid"):
    for _value in UDEV_BREAKERS:
        CASES.append(
            (
                "%s %r" % (_attr, _value),
                {"config": [dev(layer2=_attr == "portname", attributes={_attr: _value})]},
                ["config[0] (id 0.0.8200): attributes.%s" % _attr],
            )
        )
for _attr, _value in (
    ("priority_queueing", "no_prio_queueing\n"),
    ("route4", 'no_router",RUN+="x'),
    ("hw_trap", "arm\x00"),
    ("vnicc/learning_timeout", "600\n"),
    ("bridge_hostnotify", "1\r"),
):
    CASES.append(
        (
            "%s %r" % (_attr, _value),
            {"config": [dev(layer2=_attr != "route4", attributes={_attr: _value})]},
            ["config[0] (id 0.0.8200): attributes.%s" % _attr],
        )
    )


@pytest.mark.parametrize("name,args,fragments", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_refused_before_the_host_is_read(monkeypatch, run_module, name, args, fragments):
    HostGuard(monkeypatch, run_module).refuses(qeth_device.main, args, fragments)


@pytest.mark.parametrize("name,args,fragments", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_refused_in_check_mode_too(monkeypatch, run_module, name, args, fragments):
    HostGuard(monkeypatch, run_module).refuses(qeth_device.main, args, fragments, check_mode=True)


def test_the_guard_sees_a_module_that_reads_the_host(monkeypatch, run_module):
    """Good input goes on to the host: the guard stops it there (so a refusal above is real)."""
    guard = HostGuard(monkeypatch, run_module)
    with pytest.raises(AssertionError):
        guard.run(qeth_device.main, {"config": [dev()]})
    assert guard.accesses


def test_rendered_touches_nothing(monkeypatch, run_module):
    guard = HostGuard(monkeypatch, run_module)
    result = guard.run(qeth_device.main, {"state": "rendered", "config": [dev(layer2=True), {"id": "0.0.8203"}]})
    assert not result["failed"], result["msg"]
    assert guard.accesses == []
