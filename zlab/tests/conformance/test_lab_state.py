# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""lab.json written by two zlab commands at once keeps both commands' host changes."""

import json
import os

from zlab import host


def _lab_with_two_hosts(tmp_path, monkeypatch):
    monkeypatch.setattr(host, "STATE_ROOT", str(tmp_path))
    os.makedirs(os.path.join(str(tmp_path), "t"))
    data = {
        "name": "t",
        "slot": 3,
        "hosts": {"lpar-a": {"index": 0, "pid": 10, "boots": 1}, "lpar-b": {"index": 1, "pid": 20, "boots": 1}},
    }
    host.Lab("t", data).save()


def test_two_reboots_at_once_keep_both_records(tmp_path, monkeypatch):
    _lab_with_two_hosts(tmp_path, monkeypatch)
    first, second = host.Lab.load("t"), host.Lab.load("t")
    record_a = first.hosts["lpar-a"]
    record_a.update(pid=11, boots=2)
    first.save()
    second.hosts["lpar-b"].update(pid=21, boots=2)
    second.save()
    with open(os.path.join(str(tmp_path), "t", "lab.json"), encoding="utf-8") as f:
        disk = json.load(f)
    assert disk["hosts"]["lpar-a"] == {"index": 0, "pid": 11, "boots": 2}
    assert disk["hosts"]["lpar-b"] == {"index": 1, "pid": 21, "boots": 2}
    # the second command now sees the first one's record, through the same dict it holds
    assert second.hosts["lpar-a"]["pid"] == 11
    # and a later change of lpar-a by the first command still lands
    record_a["pid"] = 12
    first.save()
    assert host.Lab.load("t").hosts == {
        "lpar-a": {"index": 0, "pid": 12, "boots": 2},
        "lpar-b": {"index": 1, "pid": 21, "boots": 2},
    }


def test_our_change_wins_over_an_older_disk_value(tmp_path, monkeypatch):
    _lab_with_two_hosts(tmp_path, monkeypatch)
    first, second = host.Lab.load("t"), host.Lab.load("t")
    first.hosts["lpar-a"]["pid"] = 11
    first.save()
    second.hosts["lpar-a"]["pid"] = 13  # both touched lpar-a: the last writer wins for that record
    second.save()
    assert host.Lab.load("t").hosts["lpar-a"]["pid"] == 13


def test_merge_keeps_untouched_top_level_keys_from_disk():
    base = {"slot": 3, "digest": "x", "hosts": {}}
    ours = {"slot": 3, "digest": "y", "hosts": {}}
    disk = {"slot": 4, "digest": "x", "hosts": {"g1": {"pid": 5}}, "new": 1}
    host._merge_unchanged(ours, base, disk)
    assert ours == {"slot": 4, "digest": "y", "hosts": {"g1": {"pid": 5}}, "new": 1}
