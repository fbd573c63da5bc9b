# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""chzdev (s390-tools zdev): the one place where its command lines are built.

Forms used (all argv lists, never a shell):

- ``chzdev -e [-a|-p] qeth <id> <attr>=<value>...``: configure and enable; chzdev adds
  ``online=1`` itself and applies ``layer2`` first, then the other offline-only attributes, then
  ``online=1``, then the rest.
- ``chzdev [-a|-p] qeth <id> online=0 <attr>=<value>...``: set the device offline and then apply
  the offline-only attributes (chzdev orders them after ``online=0``). Used with ``-a`` as the first
  half of a bounce, and for devices that are to stay configured but offline.
- ``chzdev -d [-a|-p] -y qeth <id>``: deconfigure (offline, ungroup, remove the udev rule);
  ``-y`` answers chzdev's "device is in use" question (asked for any interface with an IP address),
  since modules run unattended and check the management connection themselves first.
- ``chzdev -p qeth <id> -r <attr>...``: drop settings from the persistent configuration
  (chzdev refuses ``-r`` for the active configuration of these attributes).
- ``chzdev -e -p --force qeth <id> ...``: rewrite a persistent configuration that is already right,
  so that chzdev writes ``41-cio-ignore.rules`` again (without ``--force`` it reports "already
  configured" and writes nothing).

chzdev frees CCW devices hidden by cio_ignore that it configures (given the full
``read:write:data`` ID), and lists them in ``41-cio-ignore.rules`` for the next boot.

Scope flags: none = active and persistent, ``-a`` = active only, ``-p`` = persistent only.
"""

from ansible_collections.s390x.network.plugins.module_utils.engine.resource import render_argv

DEVTYPE = "qeth"
TOOL = "chzdev"

SCOPE_FLAGS = {"both": [], "active": ["-a"], "persistent": ["-p"]}

# zdev/include/exit_code.h
EXIT_CODES = {
    0: "success",
    1: "usage error",
    2: "unknown device type",
    3: "device not found",
    4: "attribute not found",
    5: "invalid device type",
    6: "invalid attribute value",
    7: "setting not found",
    8: "empty selection",
    9: "invalid configuration",
    10: "invalid device ID",
    11: "incomplete device ID",
    12: "configuration data not found",
    15: "run-time error",
    16: "aborted (a confirmation was refused, e.g. the device is in use)",
    17: "error while applying a setting",
    18: "file format error",
    21: "kernel module could not be loaded",
    28: "CCW device not found",
    29: "CCW devices are not a valid group",
    30: "CCW device already grouped",
    31: "CCW group device grouping failed",
    32: "CCW group device ungrouping failed",
    99: "internal error",
}

# Package that ships chzdev, by /etc/os-release ID or ID_LIKE word.
PACKAGES = (
    (("rhel", "centos", "fedora", "rocky", "almalinux", "ol"), "s390utils-base", "Red Hat Enterprise Linux"),
    (("sles", "sled", "suse", "opensuse", "opensuse-leap"), "s390-tools", "SUSE Linux Enterprise Server"),
    (("ubuntu", "debian"), "s390-tools", "Ubuntu"),
)


def _settings_args(settings):
    return ["%s=%s" % (name, value) for name, value in settings]


def _force(force):
    return ["--force"] if force else []


def enable_argv(binary, group_id, settings, scope="both", force=False):
    """Configure and set online. settings: ordered list of (name, value) strings."""
    return [binary, "-e"] + SCOPE_FLAGS[scope] + _force(force) + [DEVTYPE, group_id] + _settings_args(settings)


def offline_argv(binary, group_id, settings, scope="both", force=False):
    """Set offline (``online=0`` first), then apply settings."""
    return [binary] + SCOPE_FLAGS[scope] + _force(force) + [DEVTYPE, group_id, "online=0"] + _settings_args(settings)


def disable_argv(binary, group_id, scope="both", yes=False):
    return [binary, "-d"] + SCOPE_FLAGS[scope] + (["-y"] if yes else []) + [DEVTYPE, group_id]


def remove_argv(binary, group_id, names):
    argv = [binary, "-p", DEVTYPE, group_id]
    for name in names:
        argv.extend(["-r", name])
    return argv


def render(argv):
    """A command line as a string (what the module returns in ``commands``).

    The program is shown by its name; the module runs it by the path found in PATH.
    """
    return render_argv(argv)


def describe_exit(rc):
    return EXIT_CODES.get(rc, "exit code %s" % rc)


def failure_message(argv, rc, stdout, stderr):
    text = "%s failed with exit code %s (%s)" % (render(argv), rc, describe_exit(rc))
    detail = "\n".join(x.strip() for x in (stderr or "", stdout or "") if x and x.strip())
    if detail:
        text += ": " + detail
    return text


def parse_os_release(text):
    data = {}
    for line in (text or "").splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, value = line.split("=", 1)
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        data[key.strip()] = value
    return data


def package_hint(os_release_text):
    """Sentence naming the package that provides chzdev on this distribution (and the others)."""
    info = parse_os_release(os_release_text)
    words = [info.get("ID", "").lower()] + info.get("ID_LIKE", "").lower().split()
    for ids, package, label in PACKAGES:
        if any(w in ids for w in words if w):
            return "install the package %s, which provides chzdev on %s" % (package, info.get("PRETTY_NAME") or label)
    return (
        "install s390-tools: package s390utils-base on Red Hat Enterprise Linux, "
        "s390-tools on SUSE Linux Enterprise Server and Ubuntu"
    )


def missing_tool_message(os_release_text, tool=TOOL):
    return "%s was not found in PATH; %s" % (tool, package_hint(os_release_text))
