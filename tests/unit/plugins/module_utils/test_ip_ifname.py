# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The interface name grammar: the kernel's dev_valid_name (net/core/dev.c), without control and
format characters."""

from __future__ import absolute_import, division, print_function

import pytest

from ansible_collections.s390x.network.plugins.module_utils.ip import ifname as ip_ifname

KERNEL_LEGAL = [
    "eth0",
    "enc8200",
    "a$(id>x)",
    "x;y",
    "p%n",
    'q"r',
    "s'\\",
    "`id`",
    "-a",
    "*",
    "a<b&c",
    "x" * 15,
    "\u00e9" * 7,
]


@pytest.mark.parametrize("name", KERNEL_LEGAL)
def test_what_the_kernel_takes_is_a_name(name):
    assert ip_ifname.ifname_problem(name) is None


@pytest.mark.parametrize(
    "name, reason",
    [
        ("", "it is empty"),
        (".", ". names a directory"),
        ("..", ".. names a directory"),
        ("x" * 16, "it has 16 bytes"),
        ("\u00e9" * 8, "it has 16 bytes"),
        ("a/b", "it has a /, : or white space"),
        ("a:b", "it has a /, : or white space"),
        ("a b", "it has a /, : or white space"),
        ("eth0\n", "control or format character"),
        ("eth0\r", "control or format character"),
        ("e\x00", "control or format character"),
        ("e\t", "control or format character"),
        ("e\x0b", "control or format character"),
        ("e\x7f", "control or format character"),
        ("e\x85", "control or format character"),
        ("e\u200b", "control or format character"),
        ("e\u202e", "control or format character"),
        ("e\udcff", "it is not valid UTF-8"),
        ("e\u2028", "it has a /, : or white space"),
        ("e\u00a0", "it has a /, : or white space"),
        ("\u00e0", "holds the byte 0xa0, which the kernel takes for white space"),
    ],
)
def test_what_the_kernel_or_a_file_line_refuses_is_not(name, reason):
    problem = ip_ifname.ifname_problem(name)
    assert problem is not None and problem.startswith("%r is not a network interface name" % name)
    assert problem.endswith(reason)


@pytest.mark.parametrize("value", [None, 5, b"eth0", ["eth0"]])
def test_a_value_that_is_not_a_string(value):
    assert ip_ifname.ifname_problem(value).startswith("expected a network interface name")
