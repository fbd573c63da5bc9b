# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""qeth_device's drift rows: what differs between a device's before and after view, per scope."""

from __future__ import absolute_import, division, print_function

from ansible_collections.s390x.network.plugins.module_utils.engine.drift_text import view_drift as _rows
from ansible_collections.s390x.network.plugins.module_utils.qeth.resource import scoped_view

IDS = "0.0.8200:0.0.8201:0.0.8202"


def _dev(busid, **kw):
    dev = {
        "id": busid,
        "exists": True,
        "if_name": "enc8200",
        "card_type": "HiperSockets",
        "online": True,
        "layer2": True,
        "buffer_count": 128,
        "portno": 0,
        "isolation": None,
        "attributes": {},
        "hidden": [],
        "persistent": {"online": True, "layer2": True, "buffer_count": 128},
        "hidden_at_boot": [],
    }
    dev.update(kw)
    return dev


def view_drift(before, after):
    return _rows(after["id"], scoped_view(before), scoped_view(after), ("active", "persistent"))


def test_active_and_persistent_differences_are_separate_rows():
    assert view_drift(_dev(IDS, online=False, persistent=None), _dev(IDS)) == [
        (IDS, "active", "online 0 -> 1"),
        (IDS, "persistent", "missing"),
    ]
    before = _dev("0.0.8300", buffer_count=64, persistent={"online": True, "layer2": True, "buffer_count": 64})
    assert view_drift(before, _dev("0.0.8300")) == [
        ("0.0.8300", "active", "buffer_count 64 -> 128"),
        ("0.0.8300", "persistent", "buffer_count 64 -> 128"),
    ]
    assert view_drift(_dev("0.0.8400"), _dev("0.0.8400")) == []
    assert view_drift(_dev("0.0.8400"), _dev("0.0.8400", persistent=None)) == [("0.0.8400", "persistent", "to remove")]


def test_hidden_now_and_at_boot_are_rows_of_their_scope():
    hidden = IDS.split(":")
    assert view_drift(_dev(IDS, exists=False, online=None, hidden=hidden, hidden_at_boot=hidden), _dev(IDS)) == [
        (IDS, "active", "exists 0 -> 1, hidden 0.0.8200,0.0.8201,0.0.8202 -> none, online - -> 1"),
        (
            IDS,
            "persistent",
            "hidden_at_boot 0.0.8200,0.0.8201,0.0.8202 -> none",
        ),
    ]


def test_a_scope_left_out_of_the_view_gives_no_row():
    active_only = {k: v for k, v in _dev(IDS, buffer_count=64).items() if k not in ("persistent", "hidden_at_boot")}
    assert view_drift(active_only, dict(active_only, buffer_count=128)) == [(IDS, "active", "buffer_count 64 -> 128")]
    pers_only = {"id": IDS, "persistent": None, "hidden_at_boot": []}
    assert view_drift(pers_only, dict(pers_only, persistent={"online": True})) == [(IDS, "persistent", "missing")]
