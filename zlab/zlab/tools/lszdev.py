"""lszdev (s390-tools zdev): list qeth devices, active and persistent configuration.

Emulated: ``[TYPE] [DEVICE...]``, ``--columns``/``-c`` (TYPE, ID, ON, EXISTS, PERS, AUTO, FAILED,
NAMES, BLOCKDEVS, CHARDEVS, NETDEVS, MODULES, ATTR:<name>, ATTRPATH:<name>), ``--no-headings``,
``--pairs``, ``--shell``, ``--info``/``-i``, ``-a``/``--active``, ``-p``/``--persistent``,
``--online``, ``--offline``, ``--configured``, ``--existing``, ``--by-interface``,
``--list-columns``, ``-h``, ``-v``.

Layout (zdev/src/table.c): columns joined by two blanks, last column unpadded, headings as typed.
ATTR values merge active/persistent like lszdev's merge_str(): ``act/pers/-`` by default (the
trailing element is the site-0 slot added since s390-tools 2.24), ``act`` with ``-a``, ``pers``
with ``-p``; ``-`` where a configuration has no value.
"""

import sys

from . import _paths, _qeth, _udevrules, _zdevcli

TOOL = "lszdev"
VERSION_TEXT = ("lszdev: Display z Systems device configuration version 2.33.1\n"
                "Copyright IBM Corp. 2016, 2024\n")
SHORT = "tilLhvapPc:nVqs:"
LONG = ["all", "configured", "existing", "online", "offline", "failed", "ipldev", "by-path=",
        "by-node=", "by-interface=", "by-attrib=", "type", "info", "list-columns", "list-types",
        "help", "version", "active", "persistent", "auto-conf", "columns=", "no-headings",
        "base=", "pairs", "shell", "verbose", "quiet", "site="]

COLUMNS = [
    ("TYPE", True, "Device type"),
    ("ID", True, "Device identifier"),
    ("ON", True, "Device is online in the active configuration"),
    ("EXISTS", False, "Device exists in the active configuration"),
    ("PERS", True, "Device is configured persistently"),
    ("AUTO", False, "Auto-configuration exists for device"),
    ("FAILED", False, "Device is in error"),
    ("NAMES", True, "Associated Linux device names"),
    ("BLOCKDEVS", False, "Associated block devices including partitions"),
    ("CHARDEVS", False, "Associated character devices"),
    ("NETDEVS", False, "Associated network interfaces"),
    ("MODULES", False, "Required kernel modules"),
    ("ATTR:", False, "Value of specific attribute, e.g. ATTR:online"),
    ("ATTRPATH:", False, "Path to specific attribute in active configuration"),
]

USAGE = """Usage: lszdev [TYPE] [DEVICE] [SELECTION] [ACTIONS] [OPTIONS]

Use lszdev to display the configuration of z Systems specific devices and
device types.

""" + _zdevcli.USAGE_TYPE_DEVICE + """
SELECTION
  --all                  List all existing and configured devices (default)
  --configured           List devices with a persistent configuration
  --existing             List devices found in the active configuration
  --online/--offline     List devices that are online/offline
  --by-interface NAME    Select device providing network interface, e.g. eth0

ACTIONS
  -i, --info             Display detailed information
  -l, --list-columns     List available output columns
  -h, --help             Print usage information, then exit
  -v, --version          Print version information, then exit

OPTIONS
  -a, --active           List information from the active configuration only
  -p, --persistent       List information from the persistent configuration only
  -c, --columns COLUMNS  Comma-separated list of columns to display
  -n, --no-headings      Do not print column headings
  -P, --pairs            List output in KEY="VALUE" format
      --shell            List output in shell variable format
"""


def main(argv=None):
    return _zdevcli.run(TOOL, _main, argv)


def _quote(value, force=True):
    special = any(c in '\\"\n' for c in value)
    if not special:
        if force or " " in value or not value:
            return '"%s"' % value
        return value
    out = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return '"%s"' % out


def _column(name):
    for col, default, desc in COLUMNS:
        if col.endswith(":"):
            if name.upper().startswith(col):
                return col
        elif col == name.upper():
            return col
    return None


class Dev:
    def __init__(self, ids):
        self.ids = ids
        self.busid = ids[0]
        self.id = _qeth.fmt_id(ids)
        self.grouped = _qeth.group_exists(self.busid)
        rule = _udevrules.read_rule("qeth", self.busid)
        self.pers_exists = rule is not None
        self.pers = dict(rule["settings"]) if rule else {}
        if rule:
            self.pers.update(rule["internal"])
        self.active = dict(_qeth.active_settings(self.busid)) if self.grouped else {}
        self.online = self.grouped and self.active.get("online") == "1"
        self.exists = True if self.grouped else None  # definable decided by caller

    def names(self):
        if not self.grouped:
            return ""
        nets = _paths.listdir(_qeth.group_dir(self.busid) + "/net")
        if nets:
            return " ".join(nets)
        if self.online:
            return _qeth.if_name(self.busid)
        return ""

    def modules(self):
        return "qeth"


def _collect(devtype, selection, opts):
    """Devices of the selection: dict id -> Dev, in id order."""
    if devtype not in (None, "qeth"):
        return []
    devs = {}
    for busid in _qeth.existing_groups():
        ids = _qeth.group_ids(busid)
        if ids:
            devs[busid] = Dev(ids)
    definable = set()
    for ids in _qeth.groupable_ids():
        if ids[0] not in devs:
            d = Dev(ids)
            devs[ids[0]] = d
            definable.add(ids[0])
    for full in _udevrules.list_rule_ids("qeth"):
        ids = full.split(":")
        if ids[0] not in devs:
            devs[ids[0]] = Dev(ids)
    for busid, d in devs.items():
        d.exists = d.grouped or busid in definable
    res = sorted(devs.values(), key=lambda d: _qeth.ccw_key(d.busid))
    if selection is not None:
        res = [d for d in res if any(s in d.ids or s == d.id for s in selection)]
    if opts.get("online"):
        res = [d for d in res if d.online]
    if opts.get("offline"):
        res = [d for d in res if not d.online]
    if opts.get("configured"):
        res = [d for d in res if d.pers_exists]
    if opts.get("existing"):
        res = [d for d in res if d.exists]
    if opts.get("by_if"):
        res = [d for d in res if opts["by_if"] in d.names().split()]
    return res


def _attr(dev, name, scope_a, scope_p, only_p):
    act = pers = None
    if scope_a:
        act = dev.active.get(name)
        if act is None and dev.grouped:
            act = _qeth.read_attr(dev.busid, name)
    if scope_p:
        pers = dev.pers.get(name)
    parts = []
    if scope_a:
        parts.append(act if act is not None else "-")
    if scope_p:
        parts.append(pers if pers is not None else "-")
        if not only_p:
            parts.append("-")
    return "/".join(parts)


def _value(dev, col, heading, scope_a, scope_p, only_p):
    if col == "TYPE":
        return "qeth"
    if col == "ID":
        return dev.id
    if col == "ON":
        return "yes" if dev.online else "no"
    if col == "EXISTS":
        return "yes" if dev.exists else "no"
    if col == "PERS":
        return "yes" if dev.pers_exists else "no"
    if col in ("AUTO", "FAILED", "BLOCKDEVS", "CHARDEVS"):
        return "no" if col in ("AUTO", "FAILED") else ""
    if col in ("NAMES", "NETDEVS"):
        return dev.names()
    if col == "MODULES":
        return dev.modules()
    if col == "ATTR:":
        return _attr(dev, heading.split(":", 1)[1], scope_a, scope_p, only_p)
    if col == "ATTRPATH:":
        return _qeth.attr_path(dev.busid, heading.split(":", 1)[1])
    return ""


def _print_table(headings, rows, no_headings, indent=0):
    widths = [len(h) for h in headings]
    for r in rows:
        for i, v in enumerate(r):
            widths[i] = max(widths[i], len(v))

    def line(cells):
        out = []
        for i, v in enumerate(cells):
            if i == len(cells) - 1:
                out.append(v)
            else:
                out.append(v.ljust(widths[i]))
        return " " * indent + "  ".join(out) + "\n"

    if not no_headings:
        sys.stdout.write(line(headings))
    for r in rows:
        sys.stdout.write(line(r))


def _main(argv):
    opts, args = _zdevcli.parse(TOOL, argv, SHORT, LONG)
    o = {}
    columns = []
    for k, v in opts:
        if _paths.help_or_version(k, USAGE, VERSION_TEXT):
            return 0
        if k in ("-c", "--columns"):
            columns.extend(c for c in v.split(",") if c)
        elif k in ("-i", "--info"):
            o["info"] = o.get("info", 0) + 1
        else:
            o[k.lstrip("-").replace("-", "_")] = v if v else True
    if o.get("online") and o.get("offline"):
        _zdevcli.syntax(TOOL, "Cannot specify '--online' and '--offline' together")
        return 1
    if o.get("info") and (columns or o.get("n") or o.get("no_headings")):
        _zdevcli.syntax(TOOL, "Cannot specify '--info' together with '--columns' or "
                        "'--no-headings'")
        return 1
    if o.get("shell") and not (o.get("P") or o.get("pairs")):
        _zdevcli.syntax(TOOL, "'--shell' must be used together with '--pairs' and '--columns'")
        return 1
    if o.get("base") and "=" not in o["base"]:
        import os
        os.environ["ZLAB_ROOT"] = _paths.root() + o["base"].rstrip("/")
    if o.get("by_interface"):
        o["by_if"] = o["by_interface"]
    active_only = bool(o.get("a") or o.get("active"))
    pers_only = bool(o.get("p") or o.get("persistent"))
    scope_a = active_only or not pers_only
    scope_p = pers_only or not active_only
    only_p = pers_only and not active_only
    pairs = bool(o.get("P") or o.get("pairs") or o.get("shell"))
    no_headings = bool(o.get("n") or o.get("no_headings"))

    if o.get("l") or o.get("list_columns"):
        _print_table(["COLUMN", "DESCRIPTION"], [[c, d] for c, _, d in COLUMNS], no_headings)
        return 0

    devtype = None
    selection = None
    for a in args:
        if devtype is None and selection is None and a in _zdevcli.DEVTYPES:
            devtype = a
            continue
        norm = []
        for x in _zdevcli.select(TOOL, devtype, a):
            g = _qeth.parse_group_id(x)
            if g is None:
                _zdevcli.error(TOOL, "Unrecognized QETH ID format: %s" % x)
                return 10
            norm.append(_qeth.fmt_id(g) if len(g) > 1 else g[0])
        selection = (selection or []) + norm

    for c in columns:
        if _column(c) is None:
            _zdevcli.error(TOOL, "Unknown column name specified: %s" % c)
            return 13

    devs = _collect(devtype, selection, o)
    # select_devices() only looks into the chosen configuration set
    if only_p:
        devs = [d for d in devs if d.pers_exists]
    elif active_only and not pers_only:
        devs = [d for d in devs if d.exists]
    if not devs:
        _zdevcli.error(TOOL, "No device was selected!")
        return 8

    if o.get("info"):
        first = True
        for d in devs:
            if not first and not pairs:
                sys.stdout.write("\n")
            first = False
            _info(d, pairs, scope_a, scope_p)
        return 0

    if not columns:
        columns = [c for c, default, _ in COLUMNS if default and not c.endswith(":")]
        if not scope_a:
            columns = [c for c in columns if c not in ("ON", "NAMES")]
        if not scope_p:
            columns = [c for c in columns if c != "PERS"]
    rows = [[_value(d, _column(c), c, scope_a, scope_p, only_p) for c in columns] for d in devs]
    if pairs:
        shell = bool(o.get("shell"))
        for r in rows:
            parts = []
            for c, v in zip(columns, r):
                key = "".join(ch if (ch.isalnum() or ch == "_") else "_" for ch in c) if shell \
                    else c
                if shell and key[:1].isdigit():
                    key = "_" + key[1:]
                parts.append("%s=%s" % (key, _quote(v)))
            sys.stdout.write(" ".join(parts) + "\n")
        return 0
    _print_table(columns, rows, no_headings)
    return 0


def _print_info(key, value):
    if not value:
        value = "-"
    sys.stdout.write("  %-19s%s %s\n" % (key, ":" if key else " ", value))


def _info(d, pairs, scope_a, scope_p):
    names = d.names()
    online = "yes" if d.online else "no"
    exists = "yes" if d.exists else "no"
    pers = "yes" if d.pers_exists else "no"
    if pairs:
        for k, v in (("ID", d.id), ("TYPE", "qeth"), ("NAMES", names), ("BLOCKDEVS", ""),
                     ("CHARDEVS", ""), ("NETDEVS", names), ("MODULES", d.modules()),
                     ("ONLINE", online), ("EXISTS", exists), ("PERSISTENT", pers)):
            sys.stdout.write("%s=%s\n" % (k, _quote(v)))
    else:
        sys.stdout.write("DEVICE qeth %s\n" % d.id)
        _print_info("Names", names)
        if names:
            _print_info("Network interfaces", names)
        _print_info("Modules", d.modules())
        _print_info("Online", online)
        _print_info("Exists", exists)
        _print_info("Persistent", pers)
    act = d.active if (scope_a and d.grouped) else {}
    per = d.pers if (scope_p and d.pers_exists) else {}
    names_set = sorted(set(act) | set(per))
    if not names_set:
        if not pairs:
            sys.stdout.write("\n  No settings found\n")
        return
    headings = ["ATTRIBUTE"]
    if scope_a:
        headings.append("ACTIVE")
    if scope_p:
        headings.append("PERSISTENT")
    rows = []
    for n in names_set:
        row = [n]
        if scope_a:
            row.append((act[n] if pairs else _quote(act[n])) if n in act else
                       ("" if pairs else "-"))
        if scope_p:
            row.append((per[n] if pairs else _quote(per[n])) if n in per else
                       ("" if pairs else "-"))
        rows.append(row)
    if pairs:
        for r in rows:
            sys.stdout.write(" ".join("%s=%s" % (h, _quote(v)) for h, v in zip(headings, r))
                             + "\n")
        return
    sys.stdout.write("\n")
    _print_table(headings, rows, False, indent=2)


if __name__ == "__main__":
    sys.exit(main())
