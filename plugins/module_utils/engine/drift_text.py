# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""How drift rows write values and differences: ``key old -> new``, ``-`` for none."""


def value_text(value):
    if isinstance(value, bool):
        return "1" if value else "0"
    if value is None:
        return "-"
    if isinstance(value, dict):
        return ",".join("%s=%s" % (k, value_text(v)) for k, v in sorted(value.items())) or "{}"
    if isinstance(value, list):
        return ",".join(value_text(v) for v in value) or "none"
    return str(value)


def changes(old, new, keys):
    """``key old -> new`` for each of ``keys`` that differs between two dicts."""
    return [
        "%s %s -> %s" % (key, value_text(old.get(key)), value_text(new.get(key)))
        for key in keys
        if old.get(key) != new.get(key)
    ]
