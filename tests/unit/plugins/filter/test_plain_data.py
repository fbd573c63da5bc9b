# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""plain(): what ansible-core 2.19+ hands a filter (tagged containers, strings and numbers) as plain data."""

import copy

import pytest

from ansible_collections.s390x.network.plugins.plugin_utils.plain_data import plain

tags = pytest.importorskip("ansible._internal._datatag._tags", reason="data tagging: ansible-core 2.19 and later")


def _origin():
    return tags.Origin(path="/inventory/group_vars/all/cpc.yml", line_num=3)


def test_tagged_strings_numbers_and_containers_become_plain():
    origin = _origin()
    value = origin.tag(
        {
            origin.tag("partitions"): origin.tag(
                [origin.tag({origin.tag("name"): origin.tag("LP01"), "mif_id": origin.tag(1)})]
            ),
            "ratio": origin.tag(1.5),
            "uid_checking": True,
            "pnet_id": None,
        }
    )
    got = plain(value)
    assert got == {"partitions": [{"name": "LP01", "mif_id": 1}], "ratio": 1.5, "uid_checking": True, "pnet_id": None}

    def types(v):
        if isinstance(v, dict):
            return [(type(k), types(x)) for k, x in v.items()]
        if isinstance(v, list):
            return [types(x) for x in v]
        return type(v)

    assert types(got) == [
        (str, [[(str, str), (str, int)]]),
        (str, float),
        (str, bool),
        (str, type(None)),
    ]
    assert tags.Origin.get_tag(got["partitions"][0]["name"]) is None  # no tag is kept


def test_plain_data_is_returned_as_it_is_and_copies_fast():
    data = {"a": ["x", 1, 2.0, True, None], "b": ("t",)}
    assert plain(data) == {"a": ["x", 1, 2.0, True, None], "b": ["t"]}
    assert plain("x") == "x" and plain(7) == 7 and plain(False) is False
    origin = _origin()
    tagged = {"functions": [origin.tag("0x%04x" % i) for i in range(200)]}
    assert copy.deepcopy(plain(tagged)) == {"functions": ["0x%04x" % i for i in range(200)]}
