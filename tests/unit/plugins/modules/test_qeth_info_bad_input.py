# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""qeth_info, bad input: refused with a message that names the field and what is allowed, before
sysfs, the udev rules or lszdev are looked at."""

from __future__ import absolute_import, division, print_function

import pytest

from ansible_collections.s390x.network.plugins.modules import qeth_info
from ansible_collections.s390x.network.tests.unit.plugins.modules.host_guard import HostGuard

CASES = [
    ("id not hex", {"ids": ["0.0.zzzz"]}, ["ids[0]: '0.0.zzzz' is not a CCW device ID", "such as 0.0.8200"]),
    ("second id bad", {"ids": ["0.0.8200", "0.0.8200:0.0.8201"]}, ["ids[1]: ", "not enough CCW device IDs"]),
    ("empty id", {"ids": [""]}, ["ids[0]: a qeth device ID must be a non-empty string"]),
    ("id with a bad group", {"ids": ["0.0.8200:0.0.8202:0.0.8201"]}, ["ids[0]: ", "read device plus one"]),
    ("every bad id", {"ids": ["x", "0.0.8200", "y"]}, ["ids[0]: 'x'", "ids[2]: 'y'"]),
    ("attribute path escape", {"attributes": ["../../etc/passwd"]}, ["attributes[0]: '../../etc/passwd'", "vnicc/"]),
    ("absolute attribute", {"attributes": ["/etc/shadow"]}, ["attributes[0]: '/etc/shadow' is not a sysfs attribute"]),
    ("empty attribute", {"attributes": [""]}, ["attributes[0]: '' is not a sysfs attribute name"]),
    ("dot attribute", {"attributes": ["."]}, ["attributes[0]: '.' is not a sysfs attribute name"]),
    ("dot part", {"attributes": ["vnicc/./learning"]}, ["attributes[0]: 'vnicc/./learning'"]),
    ("dot-dot part", {"attributes": ["vnicc/.."]}, ["attributes[0]: 'vnicc/..'"]),
    ("double slash", {"attributes": ["vnicc//learning"]}, ["attributes[0]: 'vnicc//learning'"]),
    ("trailing slash", {"attributes": ["vnicc/"]}, ["attributes[0]: 'vnicc/'"]),
    ("blank in attribute", {"attributes": ["layer 2"]}, ["attributes[0]: 'layer 2'"]),
    ("newline in attribute", {"attributes": ["layer2\n"]}, ["attributes[0]: 'layer2\\n'"]),
    ("second attribute bad", {"attributes": ["layer2", "a*b"]}, ["attributes[1]: 'a*b'"]),
    ("ids and attributes bad together", {"ids": ["q"], "attributes": [".."]}, ["ids[0]: 'q'", "attributes[0]: '..'"]),
    ("use_lszdev not a boolean", {"use_lszdev": "perhaps"}, ["use_lszdev", "bool"]),
    ("ids not a list of strings", {"ids": [["0.0.8200"]]}, ["ids"]),
    ("unknown option", {"id": "0.0.8200"}, ["Unsupported parameters", "id"]),
]


@pytest.mark.parametrize("name,args,fragments", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_refused_before_the_host_is_read(monkeypatch, run_module, name, args, fragments):
    HostGuard(monkeypatch, run_module).refuses(qeth_info.main, args, fragments)


def test_the_guard_sees_a_module_that_reads_the_host(monkeypatch, run_module):
    guard = HostGuard(monkeypatch, run_module)
    with pytest.raises(AssertionError):
        guard.run(qeth_info.main, {"ids": ["0.0.8200"], "attributes": ["vnicc/learning", "layer2"]})
    assert guard.accesses
