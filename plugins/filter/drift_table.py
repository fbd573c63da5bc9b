# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter drift_table: the rows of drift_rows as aligned text lines."""

from __future__ import annotations

DOCUMENTATION = r"""
name: drift_table
author: s390x.network contributors (@s390x-network)
version_added: 0.1.0
short_description: Format the rows of drift_rows as an aligned text table
description:
  - Returns a heading line and one line per row (host, kind, object, scope, difference), columns
    aligned, for printing with C(ansible.builtin.debug).
options:
  _input:
    description: The list returned by the P(s390x.network.drift_rows#filter) filter.
    type: list
    elements: dict
    required: true
"""

EXAMPLES = r"""
- name: Print the drift as a table
  ansible.builtin.debug:
    msg: "{{ hostvars | s390x.network.drift_rows(groups['all']) | s390x.network.drift_table }}"
"""

RETURN = r"""
_value:
  description: Text lines, the first one the heading.
  type: list
  elements: str
"""


def drift_table(rows):
    """The rows of drift_rows as aligned text lines, with a heading."""
    cols = ("host", "kind", "object", "scope", "difference")
    widths = [max([len(c)] + [len(str(r.get(c, ""))) for r in rows]) for c in cols[:-1]]
    fmt = "  ".join("%%-%ds" % w for w in widths) + "  %s"
    lines = [fmt % tuple(c.upper() for c in cols)]
    lines.extend(fmt % tuple(str(r.get(c, "")) for c in cols) for r in rows)
    return [line.rstrip() for line in lines]


class FilterModule(object):
    """s390x.network drift table filter."""

    def filters(self):
        return {"drift_table": drift_table}
