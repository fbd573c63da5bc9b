# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Plain Python data from what Ansible hands a filter.

ansible-core 2.19+ passes lazy, tagged containers; copying them (``copy.deepcopy`` in the model
code) is slow and keeps tags, so filters turn their inputs into plain dicts and lists first.
"""

from __future__ import annotations

from collections.abc import Mapping


def plain(value):
    """``value`` with every mapping as a dict and every list or tuple as a list, recursively."""
    if isinstance(value, Mapping):
        return dict((k, plain(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value
