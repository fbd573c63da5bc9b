"""chzdev (s390-tools zdev): configure qeth devices, active (sysfs) and persistent (udev rules).

Emulated: TYPE qeth; DEVICE as ID, FROM-TO, list, full group id ``a:b:c``; settings
``KEY=VALUE``; ``-e/--enable``, ``-d/--disable``, ``-a/--active``, ``-p/--persistent``,
``-r/--remove ATTR``, ``-R/--remove-all``, ``-f/--force``, ``-y/--yes``, ``--dry-run``,
``-V/--verbose``, ``-q/--quiet``, ``--no-root-update``, ``--no-settle``, ``--no-module-load``,
``--base PATH``, ``-h``, ``-v``.  Other device types are known names whose devices do not exist in
a zlab host (``Error: Device not found``, exit 3).

Semantics follow zdev/src/chzdev.c, ccwgroup.c, qeth.c, qeth_auto.c, setting.c, udev_ccwgroup.c:
single id auto-completed to the read/write(+1)/data group; grouping through
``/sys/bus/ccwgroup/drivers/qeth/group``; settings applied in zdev order (layer2 and other
offline-only attributes before ``online=1``); offline-only attributes refused on an online device
unless ``online=0`` is part of the change (exit 9, or a warning with ``--force``); failing sysfs
writes reported as ``Error: Could not write file PATH: STRERROR`` (exit 17).
"""

import errno
import subprocess
import sys
import time

from . import _paths, _qeth, _udevrules, _zdevcli

TOOL = "chzdev"
VERSION = "2.33.1"
VERSION_TEXT = ("chzdev: zSeries device configuration program version %s\n"
                "Copyright IBM Corp. 2016, 2024\n" % VERSION)
SHORT = "edDlHLapr:RfyhvVqts:"
LONG = ["all", "configured", "existing", "online", "offline", "failed", "ipldev", "by-path=",
        "by-node=", "by-interface=", "by-attrib=", "type", "enable", "disable", "disable-all",
        "list-attributes", "help-attribute", "list-types", "export=", "import=", "is-owner=",
        "apply", "help", "version", "active", "persistent", "auto-conf", "remove=", "remove-all",
        "force", "yes", "no-root-update", "dry-run", "base=", "verbose", "quiet", "no-settle",
        "site=", "no-module-load"]

USAGE = """Usage: chzdev TYPE DEVICE [SELECTION] [SETTINGS] [ACTION] [OPTIONS]

Use chzdev to manage the configuration of z Systems specific devices in either:
 - active configuration (running system), or
 - persistent configuration (configuration files)

Actions apply to both configurations unless specified otherwise.

""" + _zdevcli.USAGE_TYPE_DEVICE + """
SETTINGS
  Specifications in the form ATTRIB=VALUE used to modify device or device type
  settings.  Use --list-attributes (also with --type) to list available
  attributes.

ACTIONS
  -e, --enable           Enable device
  -d, --disable          Disable specified setting of the device
  -D, --disable-all      Disable all the settings of the device
  -l, --list-attributes  List attributes
  -h, --help             Print usage information, then exit
  -v, --version          Print version information, then exit

OPTIONS
  -a, --active           Apply changes to active configuration only
  -p, --persistent       Apply changes to persistent configuration only
  -r, --remove ATTRIB    Remove setting for specified attribute
  -R, --remove-all       Remove settings for all attributes
  -f, --force            Override safety checks
  -y, --yes              Answer all confirmation questions with 'yes'
      --no-root-update   Skip root device update
      --dry-run          Display changes without applying
      --base PATH        Use PATH as base for accessing files
  -V, --verbose          Print additional run-time information
  -q, --quiet            Print only minimal run-time information
"""


class Run:
    """Per-invocation state: options and the delayed message queue of zdev/src/misc.c."""

    def __init__(self):
        self.force = False
        self.quiet = False
        self.verbose = False
        self.dryrun = False
        self.yes = False
        self.found_forceable = False
        self.delayed = []  # (is_error_stream, text)
        self.delayed_errors = 0

    def info(self, text):
        if not self.quiet:
            sys.stdout.write(text)

    def d_err(self, text):
        self.delayed_errors += 1
        self.delayed.append((True, "Error: " + text))

    def d_warn(self, text):
        self.delayed.append((True, "Warning: " + text))

    def d_info(self, text):
        if not self.quiet:
            self.delayed.append((False, text))

    def d_forceable(self, text):
        self.found_forceable = True
        self.delayed_errors += 1
        text = text.rstrip("\n")
        if self.force:
            self.delayed.append((True, "Warning: %s\n" % text))
        else:
            self.delayed.append((True, "Error: %s (*)\n" % text))

    def flush(self, indent=4):
        for is_err, text in self.delayed:
            if is_err:
                sys.stderr.write(" " * indent + text)
            else:
                self.info(" " * indent + text)
        self.delayed = []
        self.delayed_errors = 0


class Setting:
    def __init__(self, name, value, actual=None, specified=False, derived=False):
        self.name = name
        self.value = value
        self.actual = actual
        self.specified = specified
        self.derived = derived
        self.removed = False

    @property
    def modified(self):
        return self.removed or self.actual is None or self.actual != self.value


def _find(lst, name):
    for s in lst:
        if s.name == name:
            return s
    return None


def _apply(lst, name, value, specified=True):
    s = _find(lst, name)
    if s is None:
        s = Setting(name, value, None, specified)
        lst.append(s)
    else:
        s.value = value
        s.removed = False
        s.specified = s.specified or specified
    return s


def main(argv=None):
    return _zdevcli.run(TOOL, _main, argv)


def _main(argv):
    opts, args = _zdevcli.parse(TOOL, argv, SHORT, LONG)
    run = Run()
    enable = disable = active_only = persistent_only = remove_all = False
    removes = []
    type_mode = False
    for o, v in opts:
        if _paths.help_or_version(o, USAGE, VERSION_TEXT):
            return 0
        if o in ("-e", "--enable"):
            enable = True
        elif o in ("-d", "--disable", "-D", "--disable-all"):
            disable = True
        elif o in ("-a", "--active"):
            active_only = True
        elif o in ("-p", "--persistent"):
            persistent_only = True
        elif o in ("-f", "--force"):
            run.force = True
        elif o in ("-y", "--yes"):
            run.yes = True
        elif o in ("-V", "--verbose"):
            run.verbose = True
        elif o in ("-q", "--quiet"):
            run.quiet = True
        elif o == "--dry-run":
            run.dryrun = True
        elif o in ("-r", "--remove"):
            removes.append(v)
        elif o in ("-R", "--remove-all"):
            remove_all = True
        elif o == "--base":
            if "=" not in v:
                import os
                os.environ["ZLAB_ROOT"] = _paths.root() + v.rstrip("/")
        elif o in ("-l", "--list-attributes"):
            for name, meta in _qeth.ATTRS:
                if not meta.get("internal"):
                    sys.stdout.write("%s\n" % name)
            return 0
        elif o in ("-t", "--type"):
            type_mode = True
        elif o in ("-L", "--list-types", "-H", "--help-attribute", "--export",
                   "--import", "--is-owner", "--apply", "--auto-conf", "-s", "--site"):
            _zdevcli.error(TOOL, "Option '%s' is not supported by this zlab emulation" % o)
            return 1
    if run.quiet and run.verbose:
        _zdevcli.syntax(TOOL, "Cannot specify '--quiet' and '--verbose' together")
        return 1
    if enable and disable:
        _zdevcli.syntax(TOOL, "Cannot specify '--enable' and '--disable' together")
        return 1

    devtype = None
    selection = []
    settings = []
    for a in args:
        if "=" in a:
            settings.append(a)
        elif devtype is None and not selection and a in _zdevcli.DEVTYPES:
            devtype = a
        else:
            selection.append(a)
    if type_mode:
        # zdev --type: qeth (like every device type emulated here) has no type attributes.
        if selection:
            _zdevcli.error(TOOL, "Cannot specify '--type' and select a device when configuring")
            return 1
        if devtype is None:
            _zdevcli.error(TOOL, "Please specify a device type\n"
                           "Use '%s --list-types' to get a list of device types" % TOOL)
            return 1
        if settings:
            _zdevcli.error(TOOL, "%s type attribute '%s' not found!"
                           % (devtype, settings[0].split("=", 1)[0]))
            return 4
        _zdevcli.error(TOOL, "Device type %s does not provide type attributes" % devtype)
        return 4
    if not selection:
        if disable:
            _zdevcli.syntax(TOOL, "Please specify a device to deconfigure")
        elif enable or settings:
            _zdevcli.syntax(TOOL, "Please specify a device to configure")
        else:
            _zdevcli.syntax(TOOL, "Please specify a device or device type to configure")
        return 1
    if not (enable or disable or settings or removes or remove_all):
        _zdevcli.syntax(TOOL, "Please specify an action")
        return 1
    if disable and settings:
        _zdevcli.syntax(TOOL, "Cannot specify settings with '--disable'")
        return 1

    ids = []
    for spec in selection:
        ids.extend(_zdevcli.select(TOOL, devtype, spec))
    if devtype is None:
        devtype = "qeth"

    scope_active = not persistent_only or active_only
    scope_pers = not active_only or persistent_only

    if run.dryrun:
        run.info("Starting dry-run, configuration will not be changed\n")

    drc = 0
    done = set()
    for devid in ids:
        if devtype != "qeth":
            rc = _not_found(run, _zdevcli.DEVTYPES[devtype], devid, disable)
        elif disable:
            rc = _deconfigure(run, devid, scope_active, scope_pers, done)
        else:
            rc = _configure(run, devid, scope_active, scope_pers, enable, settings, removes,
                            remove_all, done)
        if rc and not drc:
            drc = rc
    if run.found_forceable and not run.force:
        run.info("Note: You can use --force to override safety checks (*)\n")
    return drc


def _not_found(run, devname, devid, disable):
    sys.stderr.write("%s device %s %s failed\n"
                     % (devname, devid, "deconfigure" if disable else "configure"))
    run.d_err("Device not found\n")
    run.flush()
    return 3


def _resolve(run, devid, scope_active, scope_pers):
    """Full ccw id list of a qeth device: (ids, rc, message)."""
    ids = _qeth.parse_group_id(devid)
    if ids is None:
        _zdevcli.error(TOOL, "Unrecognized QETH ID format: %s" % devid)
        return None, 10, None
    if len(ids) == 3:
        return ids, 0, None
    if len(ids) != 1:
        return None, 10, "Invalid number of CCW device IDs"
    first = ids[0]
    if _qeth.group_exists(first):
        full = _qeth.group_ids(first)
        if full and len(full) == 3:
            return full, 0, None
    rule = _udevrules.read_rule("qeth", first)
    if rule and len(rule["ids"]) == 3:
        return rule["ids"], 0, None
    full, msg, rc = _qeth.auto_group(first)
    if full:
        return full, 0, None
    if not scope_active:
        return None, 11, "Incomplete device ID specified"
    return None, rc, msg


def _persistent_list(busid):
    rule = _udevrules.read_rule("qeth", busid)
    if rule is None:
        return None
    return [Setting(n, v, v) for n, v in rule["settings"]] + \
        [Setting(n, v, v) for n, v in rule["internal"].items()]


def _check_setting(run, key, value, scope_active, scope_pers, processed):
    meta = _qeth.ATTR.get(key)
    if meta is None:
        run.d_forceable("Unknown QETH attribute specified: %s\n" % key)
        return 0 if run.force else 4
    if not run.force and not _qeth.check_value(key, value):
        run.d_forceable("Invalid value for qeth attribute: %s=%s\n" % (key, value))
        run.d_info("Acceptable values:\n")
        for line in _qeth.acceptable_lines(key):
            run.d_info("  %s\n" % line)
        run.d_info("Use '%s qeth --help-attribute %s' for more information\n" % (TOOL, key))
        return 6
    if not run.force and scope_pers and meta.get("activeonly"):
        run.d_forceable("Attribute '%s' should only be changed in the active config\n" % key)
        return 6
    if scope_active and not scope_pers and meta.get("internal"):
        run.d_err("Internal attribute '%s' cannot be set in the active config\n" % key)
        return 6
    if not run.force and key in processed:
        run.d_forceable("Cannot specify multiple values for attribute '%s'\n" % key)
        return 6
    processed.add(key)
    return 0


def _configure(run, devid, scope_active, scope_pers, enable, settings, removes, remove_all, done):
    parsed = _qeth.parse_group_id(devid)
    if parsed and all(p in done for p in parsed):
        return 0  # combined into a device processed before (subtype_rem_combined)
    ids, rc, msg = _resolve(run, devid, scope_active, scope_pers)
    if ids is None:
        parsed = _qeth.parse_group_id(devid)
        if parsed:
            devid = _qeth.fmt_id(parsed)
        if msg:
            sys.stderr.write("QETH device %s configure failed\n" % devid)
            run.d_err(msg + "\n")
            run.flush()
        return rc
    busid = ids[0]
    full = _qeth.fmt_id(ids)
    if busid in done:
        return 0
    done.update(ids)

    grouped = _qeth.group_exists(busid)
    if grouped:
        active = [Setting(n, v, v) for n, v in _qeth.active_settings(busid)]
        online_actual = _qeth.read_attr(busid, "online") or "0"
    else:
        active = []
        online_actual = "0"
    pers = _persistent_list(busid)
    pers_exists = pers is not None
    if pers is None:
        pers = []

    def fail(code):
        sys.stderr.write("QETH device %s configure failed\n" % full)
        run.flush()
        return code

    # Removal of settings (persistent only: active settings cannot be removed).
    if remove_all:
        if scope_pers:
            for s in pers:
                if s.name != "online":
                    s.removed = True
    if removes:
        notfound = []
        for name in removes:
            if scope_active and not scope_pers:
                run.d_err("Cannot remove setting '%s' from the active configuration\n" % name)
                return fail(1)
            if name == "online":
                run.d_err("Cannot remove setting for mandatory attribute '%s'\n" % name)
                return fail(1)
            s = _find(pers, name)
            if s is None or s.removed:
                notfound.append(name)
            else:
                s.removed = True
        if notfound:
            run.d_err("Setting not found: %s\n" % " ".join(notfound))
            return fail(7)

    processed = set()
    specified_active = []
    for item in settings:
        key, _, value = item.partition("=")
        rc = _check_setting(run, key, value, scope_active, scope_pers, processed)
        if rc:
            return fail(rc)
        if key not in _qeth.ATTR and not run.force:
            continue
        if scope_active and not _qeth.ATTR.get(key, {}).get("internal"):
            specified_active.append(_apply(active, key, value))
        if scope_pers:
            _apply(pers, key, value)

    if enable:
        if scope_active and not _find_specified(active, "online") and online_actual != "1":
            s = _apply(active, "online", "1")
            s.actual = online_actual
            specified_active.append(s)
        if scope_pers:
            s = _find(pers, "online")
            if s is None or not s.specified:
                if s is None or s.value != "1":
                    _apply(pers, "online", "1")
    if scope_pers and _find(pers, "online") is None:
        pers.append(Setting("online", "0", "0", derived=True))

    online_set = _find(active, "online")
    if online_set is not None and online_set.actual is None:
        online_set.actual = online_actual

    active_changes = [s for s in active if s.specified and
                      (run.force or s.actual is None or s.actual != s.value)]
    need_group = scope_active and not grouped and (enable or specified_active)
    pers_sorted = _udevrules.sort_settings([(s.name, s.value) for s in pers if not s.removed])
    pers_modified = scope_pers and (not pers_exists or any(s.modified for s in pers))
    changed = bool(need_group or active_changes or pers_modified)
    if run.force:
        changed = True
    if not changed:
        # device_needs_writing() is false: nothing is checked or written.
        sys.stdout.write("QETH device %s already configured\n" % full)
        run.flush()
        return 0

    # Conflict check (setting_list_check_conflict) on the active configuration.
    if scope_active:
        on = online_set if online_set is not None else Setting("online", online_actual,
                                                               online_actual)
        for s in active:
            if s.name not in _udevrules.OFFLINE_ONLY:
                continue
            if not (s.specified or s.modified):
                continue
            if on.value == "0" or on.actual == "0":
                continue
            run.d_forceable("Cannot set %s='%s' while online='%s'\n" % (s.name, s.value, on.value))
            if not run.force:
                return fail(9)
            break

    if not run.dryrun:
        if need_group:
            rc = _group(run, ids)
            if rc:
                return fail(rc)
            online_actual = _qeth.read_attr(busid, "online") or "0"
            for s in active_changes:
                cur = _qeth.read_attr(busid, s.name)
                s.actual = cur
        if scope_active:
            order = _udevrules.sort_settings([(s.name, s.value) for s in active_changes])
            order = _layer2_first(order)
            for name, value in order:
                cur = _qeth.read_attr(busid, name)
                if not run.force and cur is not None and cur == value:
                    continue
                if not _write_retry(run, _qeth.attr_path(busid, name), value):
                    return fail(17)
        if scope_pers and pers_modified:
            try:
                _udevrules.write_rule("qeth", "qeth", ids, pers_sorted)
            except OSError as exc:
                _zdevcli.error(TOOL, "Could not write to file %s: %s"
                               % (_udevrules.rule_path("qeth", busid), _paths.strerror(exc)))
                return fail(15)

    sys.stdout.write("QETH device %s configured\n" % full)
    if run.verbose:
        if _qeth.group_exists(busid):
            name = _qeth.if_name(busid)
            if name:
                run.info("    Network interface: %s\n" % name)
    run.flush()
    return 0


def _write_retry(run, path, value):
    """misc_write_text_file_retry(): retried on EAGAIN after 0.1, 0.2, 0.5 s; every failed
    attempt queues its ``Could not write file`` error."""
    for delay in (0, 0.1, 0.2, 0.5):
        if delay:
            time.sleep(delay)
        try:
            _paths.write(path, value)
            return True
        except OSError as exc:
            run.d_err("Could not write file %s: %s\n" % (path, _paths.strerror(exc)))
            if exc.errno != errno.EAGAIN:
                return False
    return False


def _find_specified(lst, name):
    s = _find(lst, name)
    return s if s is not None and s.specified else None


def _layer2_first(order):
    """Apply layer2 before the other offline-only attributes (it may reset them in the driver)
    and before ``online=1``, but after ``online=0``: sort_settings() has put the offline-only
    attributes after an ``online=0`` (ccw_offline_only_order_cmp), and layer2 must stay there."""
    l2 = [x for x in order if x[0] == "layer2"]
    if not l2:
        return order
    rest = [x for x in order if x[0] != "layer2"]
    idx = next((i for i, x in enumerate(rest)
                if x[0] in _udevrules.OFFLINE_ONLY
                or (x[0] == "online" and x[1] in ("1", "force"))), len(rest))
    return rest[:idx] + l2 + rest[idx:]


def _group(run, ids):
    """ccwgroup_group(): checks, then write the group attribute.  Returns an exit code."""
    for cid in ids:
        info = _qeth.ccw_info(cid)
        if not info["exists"]:
            run.d_err("CCW device %s not found\n" % cid)
            return 28
        if info["grouped"]:
            run.d_err("CCW device %s already grouped\n" % cid)
            return 30
    try:
        _paths.write(_qeth.GROUP_FILE, ",".join(ids))
    except OSError as exc:
        run.d_err("Could not write file %s: %s\n" % (_qeth.GROUP_FILE, _paths.strerror(exc)))
        return 31
    return 0


def _ip_addresses(ifname):
    """``ip address show IFNAME``: ["IPv4 address a/p", "IPv6 address b/q"] (inuse.c)."""
    try:
        out = subprocess.run(["ip", "address", "show", ifname], capture_output=True, text=True,
                             timeout=30, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    res = []
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 2 and f[0] == "inet":
            res.append("IPv4 address %s" % f[1])
        elif len(f) >= 2 and f[0] == "inet6":
            res.append("IPv6 address %s" % f[1])
    return res


def _check_in_use(run, busid, name):
    """check_in_use(): an interface with IP addresses makes chzdev ask (unless -y / -f)."""
    ifname = _qeth.if_name(busid)
    if not ifname or ifname == "lo" or not _paths.exists("/sys/class/net/" + ifname):
        return 0
    addrs = _ip_addresses(ifname)
    if not addrs:
        return 0
    sys.stderr.write("Warning: QETH device %s is in use!\n" % name)
    sys.stderr.write("         The following resources may be affected:\n")
    for a in addrs:
        sys.stderr.write("          - %s\n" % a)
    if run.yes:
        if run.verbose:
            run.info("Continue with operation? - assuming 'yes' due to --yes\n")
        return 0
    while True:
        sys.stdout.write("Continue with operation? (yes/no) ")
        sys.stdout.flush()
        line = sys.stdin.readline()
        if not line:
            sys.stderr.write("Operation canceled due to missing input\n")
            return 16
        if line.lower() in ("yes\n", "y\n"):
            return 0
        if line.lower() in ("no\n", "n\n"):
            sys.stderr.write("Operation canceled on user request\n")
            return 16
        sys.stdout.write("Unrecognized input: %s\n" % line)
        sys.stdout.write("Please enter 'yes' or 'y' to continue or 'no' or 'n' to abort\n")


def _deconfigure(run, devid, scope_active, scope_pers, done):
    ids = _qeth.parse_group_id(devid)
    if ids is None:
        _zdevcli.error(TOOL, "Unrecognized QETH ID format: %s" % devid)
        return 10
    if all(p in done for p in ids):
        return 0
    first = ids[0]
    full = None
    grouped = _qeth.group_exists(first)
    if grouped:
        full = _qeth.group_ids(first)
    rule = _udevrules.read_rule("qeth", first)
    if full is None and rule is not None:
        full = rule["ids"]
    if full is None and len(ids) == 3:
        full = ids
    if full is None and len(ids) == 1:
        # definable (groupable) devices "exist" for zdev: nothing to undo
        full, _msg, _rc = _qeth.auto_group(ids[0])
    if full is None:
        devid = _qeth.fmt_id(ids)
        if scope_active:
            sys.stderr.write("QETH device %s deconfigure failed\n" % devid)
            run.d_err("Device not found\n")
            run.flush()
            return 3
        sys.stdout.write("QETH device %s already deconfigured\n" % devid)
        return 0
    busid = full[0]
    if busid in done:
        return 0
    done.update(full)
    name = _qeth.fmt_id(full)
    changed = False
    if grouped and not run.force:
        rc = _check_in_use(run, busid, name)
        if rc:
            sys.stderr.write("QETH device %s deconfigure failed\n" % name)
            if not run.delayed_errors:
                run.d_err("Operation aborted on user request\n")
            run.flush()
            return rc
    if scope_active and grouped:
        # subtype_write_device(): deconfigure_active (online=0 if online), then device_undefine
        # (ccwgroup_ungroup: write "\n" to the group device's ungroup attribute).
        changed = True
        if not run.dryrun:
            if _qeth.is_online(busid) and \
                    not _write_retry(run, _qeth.attr_path(busid, "online"), "0"):
                sys.stderr.write("QETH device %s deconfigure failed\n" % name)
                run.flush()
                return 17
            try:
                _paths.write(_qeth.attr_path(busid, "ungroup"), "\n")
            except OSError as exc:
                run.d_err("Could not write file %s: %s\n"
                          % (_qeth.attr_path(busid, "ungroup"), _paths.strerror(exc)))
                sys.stderr.write("QETH device %s deconfigure failed\n" % name)
                run.flush()
                return 32
    if scope_pers and rule is not None:
        changed = True
        if not run.dryrun:
            _udevrules.remove_rule("qeth", busid)
    if run.force:
        changed = True
    sys.stdout.write("QETH device %s %s\n" % (name, "deconfigured" if changed
                                                 else "already deconfigured"))
    run.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
