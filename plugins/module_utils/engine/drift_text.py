# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""How drift rows and ``--diff`` write values and differences: ``key old -> new``, ``-`` for none.

The engine derives both from the views of an object (``Resource.view``): one dict of plain values
per scope, or None where the object does not exist (its row says ``missing``, or ``to remove``).
"""


class Content(str):
    """A file's text as a view value: a row names the file (``PATH differs``, ``PATH missing``,
    ``PATH to remove``) instead of writing the text."""


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


def difference(key, old, new):
    """``key old -> new``; for a file's text (``Content``) ``key differs``, ``missing`` or ``to remove``."""
    if isinstance(old, Content) or isinstance(new, Content):
        return "%s %s" % (key, "missing" if old is None else "to remove" if new is None else "differs")
    return "%s %s -> %s" % (key, value_text(old), value_text(new))


def changes(old, new, keys):
    """``key old -> new`` for each of ``keys`` that differs between two dicts."""
    return [difference(key, old.get(key), new.get(key)) for key in keys if old.get(key) != new.get(key)]


def _keys(old, new):
    return list(old) + [k for k in new if k not in old]


def view_drift(obj, before, after, scopes):
    """Rows ``(object, scope, difference)`` between two views of one object: per scope ``missing``
    (the object is not there), ``to remove`` (it should not be), else ``key old -> new, ...``."""
    rows = []
    for scope in scopes:
        old, new = before.get(scope), after.get(scope)
        if old == new:
            continue
        if old is None or new is None:
            rows.append((obj, scope, "missing" if old is None else "to remove"))
            continue
        what = changes(old, new, _keys(old, new))
        if what:
            rows.append((obj, scope, ", ".join(what)))
    return rows


def view_text(obj, view, scopes):
    """The ``--diff`` block of one object: its name, then ``key: value`` lines per scope (the set
    values; ``(none)`` where the object does not exist)."""
    lines = [obj]
    for scope in [s for s in scopes if s in view]:
        values = view[scope]
        if values is None:
            lines.append("  %s: (none)" % scope)
            continue
        lines.append("  %s:" % scope)
        for key, value in values.items():
            if value is None or value in ({}, []):  # unset: a diff line only where it is set
                continue
            shown = "(%d lines)" % len(value.splitlines()) if isinstance(value, Content) else value_text(value)
            lines.append("    %s: %s" % (key, shown))
    return "\n".join(lines) + "\n"
