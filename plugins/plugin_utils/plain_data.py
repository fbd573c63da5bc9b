# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Plain Python data from what Ansible hands a filter.

ansible-core 2.19+ passes lazy, tagged containers and tagged strings and numbers; copying them
(``copy.deepcopy`` in the model code) is slow (a tagged string about 40 times a plain one) and keeps
tags, so filters turn their inputs into plain dicts, lists, strings and numbers first.
"""

from __future__ import annotations

from collections.abc import Mapping


def plain(value):
    """``value`` with every mapping as a dict, every list or tuple as a list and every string or
    number of a subclass (a tagged one) as its plain type, recursively."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or kind is float or value is None:
        # the plain leaves first: a model holds thousands, and the Mapping check is an ABC lookup
        return value
    if isinstance(value, dict) or isinstance(value, Mapping):
        return dict((plain(k), plain(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, str):
        return value if type(value) is str else str(value)  # pylint: disable=unidiomatic-typecheck
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return value if type(value) is int else int(value)  # pylint: disable=unidiomatic-typecheck
    if isinstance(value, float):
        return value if type(value) is float else float(value)  # pylint: disable=unidiomatic-typecheck
    return value
