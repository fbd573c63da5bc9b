# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""qeth attribute rules: validation, value spellings, defaults, order, combinations."""

from __future__ import absolute_import, division, print_function

import pytest

from ansible_collections.s390x.network.plugins.module_utils.qeth.attributes import (
    EXTRA_NAMES,
    AttrError,
    canonical,
    check_combination,
    default_for,
    normalize_read,
    order_settings,
    to_setting,
)


@pytest.mark.parametrize(
    "name, value, expected",
    [
        ("layer2", True, "1"),
        ("layer2", False, "0"),
        ("layer2", "yes", "1"),
        ("layer2", 0, "0"),
        ("buffer_count", 128, "128"),
        ("buffer_count", "8", "8"),
        ("portno", 1, "1"),
        ("isolation", "forward", "forward"),
        ("vnicc/learning_timeout", 86400, "86400"),
        ("vnicc/rx_bcast", False, "0"),
        ("route4", "primary_connector", "primary_connector"),
        ("hsuid", "HSUID1", "HSUID1"),
        ("priority_queueing", "no_prio_queueing:1", "no_prio_queueing:1"),
    ],
)
def test_to_setting(name, value, expected):
    assert to_setting(name, value) == expected


@pytest.mark.parametrize(
    "name, value, fragment",
    [
        ("buffer_count", 129, "between 8 and 128, got 129"),
        ("buffer_count", 7, "between 8 and 128, got 7"),
        ("buffer_count", "many", "integer 8..128"),
        ("buffer_count", True, "integer 8..128"),
        ("portno", 2, "between 0 and 1"),
        ("layer2", 2, "must be 0 or 1"),
        ("isolation", "block", "one of none, drop, forward"),
        ("vnicc/learning_timeout", 59, "between 60 and 86400"),
        ("hsuid", "TOOLONGID", "1 to 8 of A-Z a-z 0-9 @ # _ -"),
        ("hsuid", "a b", "1 to 8 of A-Z a-z 0-9 @ # _ -"),
        ("hsuid", 'A",RUN+="', "udev rule"),
        ("portname", "A\\", "udev rule"),
        ("portname", "A\nB", "control or format character"),
        ("isolation", "none\n", "control or format character"),
        ("buffer_count", "64\x00", "control or format character"),
        ("portname", True, "1 to 8 of A-Z"),
        ("portname", ["A"], "a string, number or boolean"),
        ("state", "UP", "read-only"),
        ("online", 1, "use the option 'online'"),
        ("vipa/add4", "10.0.0.1", "multi-valued"),
        ("recover", 1, "trigger"),
        ("nosuch", 1, "not a qeth attribute"),
    ],
)
def test_to_setting_errors_name_field_and_allowed_values(name, value, fragment):
    with pytest.raises(AttrError) as err:
        to_setting(name, value, "config[3] (id 0.0.8200)")
    assert fragment in str(err.value)
    assert "config[3] (id 0.0.8200)" in str(err.value)


def test_unknown_attribute_lists_the_allowed_ones():
    with pytest.raises(AttrError) as err:
        to_setting("bogus", 1)
    for name in EXTRA_NAMES:
        assert name in str(err.value)


@pytest.mark.parametrize(
    "name, raw, expected",
    [
        ("portname", "no portname required", ""),
        ("priority_queueing", "always queue 2", "no_prio_queueing"),
        ("priority_queueing", "always queue 0", "no_prio_queueing:0"),
        ("priority_queueing", "by skb-priority", "prio_queueing_skb"),
        ("route4", "primary connector+", "primary_connector"),
        ("route6", "no", "no_router"),
        ("isolation", "N/A", None),
        ("vnicc/learning", "n/a", None),
        ("buffer_count", "0128\n", "128"),
        ("layer2", "-1", "-1"),
        ("bridge_role", None, None),
    ],
)
def test_normalize_read(name, raw, expected):
    assert normalize_read(name, raw) == expected


def test_canonical_prio_queue_2():
    assert canonical("priority_queueing", "no_prio_queueing:2") == canonical("priority_queueing", "no_prio_queueing")
    assert canonical("priority_queueing", "no_prio_queueing:1") != canonical("priority_queueing", "no_prio_queueing")


def test_defaults_depend_on_card():
    assert default_for("buffer_count", "HiperSockets") == "128"
    assert default_for("buffer_count", "OSD_10GIG") == "64"
    assert default_for("layer2", "HiperSockets") == "0"
    assert default_for("layer2", "OSD_1000") == "1"
    assert default_for("isolation", "HiperSockets") is None
    assert default_for("isolation", "OSD_10GIG") == "none"
    assert default_for("vnicc/rx_bcast", "OSD_10GIG") == "1"
    assert default_for("nosuch", "OSD_10GIG") is None


def test_order_layer2_then_offline_only_then_rest():
    names = ["vnicc/learning", "isolation", "portno", "hw_trap", "buffer_count", "layer2", "priority_queueing"]
    assert order_settings(names) == [
        "layer2",
        "priority_queueing",
        "buffer_count",
        "portno",
        "isolation",
        "hw_trap",
        "vnicc/learning",
    ]


def test_combinations():
    assert check_combination({"layer2": "1", "vnicc/learning": "1"}) == []
    errors = check_combination({"layer2": "0", "vnicc/learning": "1", "bridge_role": "primary"}, "dev")
    assert any("cannot be configured together" in e for e in errors)
    assert any("vnicc/learning needs layer2: true" in e for e in errors)
    assert check_combination({"layer2": "1", "route4": "primary_router"}) == [
        "config: attributes.route4 needs layer2: false"
    ]
    assert check_combination({"isolation": "drop"}, "d", "HiperSockets")
    assert check_combination({"isolation": "none"}, "d", "HiperSockets") == []
    assert check_combination({"isolation": "drop"}, "d", "OSD_10GIG") == []
