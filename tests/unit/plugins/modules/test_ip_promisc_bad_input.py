# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""ip_promisc, bad input: refused with a message that names the field and what is allowed, before
any interface flag, PCI function or boot unit of the host is read and before ip is looked up."""

from __future__ import absolute_import, division, print_function

import pytest

from ansible_collections.s390x.network.plugins.modules import ip_promisc
from ansible_collections.s390x.network.tests.unit.plugins.modules.host_guard import HostGuard

NOT_A_NAME = "is not a network interface name (1 to 15 bytes"

CASES = [
    ("empty name", {"interfaces": [""]}, ["interfaces[0]: ''", NOT_A_NAME, "it is empty"]),
    ("dot dot", {"interfaces": [".."]}, ["interfaces[0]: '..'", ".. names a directory"]),
    ("a path", {"interfaces": ["../eth0"]}, ["interfaces[0]: '../eth0'", "it has a /, : or white space"]),
    ("a newline", {"interfaces": ["eno288\n"]}, ["interfaces[0]:", "it has a control or format character"]),
    ("a blank", {"interfaces": ["eno 288"]}, ["interfaces[0]: 'eno 288'", "white space"]),
    ("16 bytes", {"interfaces": ["e" * 16]}, ["interfaces[0]:", "it has 16 bytes"]),
    ("16 bytes of UTF-8", {"interfaces": ["\u00fc" * 8]}, ["interfaces[0]:", "it has 16 bytes"]),
    ("NO-BREAK SPACE", {"interfaces": ["eno\u00a0x"]}, ["interfaces[0]:", NOT_A_NAME]),
    ("bidirectional override", {"interfaces": ["eno\u202e1"]}, ["control or format character"]),
    ("listed twice", {"interfaces": ["eno288", "eno288"]}, ["interfaces[1]: eno288 is listed twice"]),
    ("the second of two", {"interfaces": ["eno288", "a:b"]}, ["interfaces[1]: 'a:b'"]),
    ("unknown function type", {"interfaces": ["eno288"], "function_types": ["ROCE"]}, ["function_types", "NETD, NETH"]),
    ("unknown state", {"interfaces": ["eno288"], "state": "overridden"}, ["state", "merged, deleted"]),
    ("interfaces missing", {}, ["missing required arguments: interfaces"]),
]


@pytest.mark.parametrize("what,args,fragments", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("check_mode", [False, True])
def test_bad_input_is_refused_before_the_host_is_read(monkeypatch, run_module, what, args, fragments, check_mode):
    HostGuard(monkeypatch, run_module).refuses(ip_promisc.main, args, fragments, check_mode=check_mode)
