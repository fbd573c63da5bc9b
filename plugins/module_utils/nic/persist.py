# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""How nic_tuning makes its settings survive a reboot: NetworkManager profiles, or a boot unit.

Two ways, chosen per interface:

* **NetworkManager**, when NetworkManager manages the interface and has an active profile for it
  (``nmcli -t -f GENERAL.NM-MANAGED,GENERAL.CON-UUID device show IF``). The ethtool settings go
  into that profile with ``nmcli connection modify UUID ethtool.feature-tso off ethtool.ring-rx 1024
  ...``; NetworkManager applies them whenever it activates the profile, so it stays the one owner of
  the interface's configuration (a second mechanism could run before NetworkManager's activation
  and be undone by it). The profile keeps what is not set here. Properties by NetworkManager
  version (git history of ``src/libnm-base/nm-ethtool-utils-base.h``, NEWS):
  ``ethtool.feature-*`` 1.14 (six of them 1.30), ``ethtool.ring-*`` 1.26, ``ethtool.channels-*``
  1.46 ("Support configuring ethtool channels property to configure NIC multiqueue"). A setting
  the installed NetworkManager has no property for goes to the boot unit instead. ``nmcli
  connection modify`` changes the stored profile only; the live values are set with ethtool.
* **Boot unit** otherwise (and always for RPS and IRQ affinity, which no network stack keeps):
  ``/etc/systemd/system/s390x-network-nic-tuning-<if>.service``, wanted by and bound to the
  interface's device unit ``sys-subsystem-net-devices-<if>.device`` (enabled with ``systemctl
  enable``), so it runs whenever the interface appears -- at boot, after a driver reload, after a
  PCI function comes back -- under its final (udev-renamed) name. No value is ever put into shell
  code: the unit's ``ExecStart=`` lines are argument vectors written with unit_syntax (``%`` as
  ``%%``, ``$`` as ``$$``, quoting), first ``ethtool -L/-G/-K`` (before ``network-pre.target``, so
  before the network stack configures the interface), then, for RPS masks and IRQ affinities,
  ``/bin/sh /etc/s390x-network/nic-tuning/<if>.sh IF rps QUEUE MASK ... irq NAME CPUS ...``: the
  script is the same constant text for every interface and takes everything as its arguments. It
  writes the RPS masks and looks each IRQ up by name in ``/proc/interrupts`` (IRQ numbers change
  across boots), goes on after a failure and exits 1 when one failed; systemd stops at a failing
  ``ethtool`` line and marks the unit failed. With NetworkManager the unit runs after
  ``NetworkManager-wait-online.service`` instead, because NetworkManager may change the channel
  count (and with it the queues and IRQs) when it activates the profile. The unit's second line
  (``# settings: {json}``) records the settings it was written from.

  A udev ``RUN`` rule was not used: it matches the kernel name before the rename by
  ``80-net-setup-link.rules`` unless ordered after it, and IRQ lookups need more than one command.
  NetworkManager dispatcher scripts, wicked ``ifcfg`` ``ETHTOOL_OPTIONS`` and systemd-networkd
  ``.link`` files would be three more formats, each for one network stack only.

irqbalance (``irqbalance: ban``): irqbalance reads ``IRQBALANCE_ARGS`` from the environment file
of its service (``EnvironmentFile=`` of ``irqbalance.service``: ``/etc/sysconfig/irqbalance`` on
RHEL and SLES, ``/etc/default/irqbalance`` on Debian and Ubuntu and upstream's default); the
option ``--banirq=N`` (irqbalance(1)) keeps it away from IRQ N. There is no
``IRQBALANCE_BANNED_IRQS`` variable (upstream ``misc/irqbalance.env`` knows IRQBALANCE_ONESHOT,
IRQBALANCE_BANNED_CPUS, IRQBALANCE_BANNED_CPULIST and IRQBALANCE_ARGS). irqbalance reads the file
when it starts; the module never stops or restarts it and reports ``restart_needed`` instead.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import re

from ansible_collections.s390x.network.plugins.module_utils.nic import ethtool as nic_ethtool
from ansible_collections.s390x.network.plugins.module_utils.engine import unit_syntax
from ansible_collections.s390x.network.plugins.module_utils.ip.nm_cli import NMCLI, parse_terse

HEADER = "# Managed by s390x.network.nic_tuning. Changes are overwritten."
UNIT_DIR = "/etc/systemd/system"
SCRIPT_DIR = "/etc/s390x-network/nic-tuning"
SYSTEMCTL = "systemctl"
IRQBALANCE_UNITS = (
    "/etc/systemd/system/irqbalance.service",
    "/usr/lib/systemd/system/irqbalance.service",
    "/lib/systemd/system/irqbalance.service",
)
IRQBALANCE_FILES = ("/etc/sysconfig/irqbalance", "/etc/default/irqbalance")
PATH_ENV = "/usr/sbin:/usr/bin:/sbin:/bin"

#: NetworkManager version that first has the property, by kind
NM_RINGS_SINCE = (1, 26)
NM_CHANNELS_SINCE = (1, 46)
NM_FEATURES_SINCE = (1, 14)
#: ethtool -k long legacy names -> NetworkManager's short feature names (nmp-ethtool-ioctl.c)
NM_LEGACY = {
    "rx-checksumming": "rx",
    "tx-checksumming": "tx",
    "scatter-gather": "sg",
    "tcp-segmentation-offload": "tso",
    "generic-segmentation-offload": "gso",
    "generic-receive-offload": "gro",
    "large-receive-offload": "lro",
    "rx-vlan-offload": "rxvlan",
    "tx-vlan-offload": "txvlan",
    "ntuple-filters": "ntuple",
    "receive-hashing": "rxhash",
}
#: kernel feature names NetworkManager has a property for, and the version that added them
NM_KERNEL_FEATURES = dict(
    [
        (name, (1, 14))
        for name in (
            "esp-hw-offload esp-tx-csum-hw-offload fcoe-mtu highdma hw-tc-offload l2-fwd-offload loopback "
            "rx-all rx-fcs rx-gro-hw rx-udp_tunnel-port-offload rx-vlan-filter rx-vlan-stag-filter "
            "rx-vlan-stag-hw-parse tls-hw-record tls-hw-tx-offload tx-checksum-fcoe-crc tx-checksum-ipv4 "
            "tx-checksum-ipv6 tx-checksum-ip-generic tx-checksum-sctp tx-esp-segmentation tx-fcoe-segmentation "
            "tx-gre-csum-segmentation tx-gre-segmentation tx-gso-partial tx-gso-robust tx-ipxip4-segmentation "
            "tx-ipxip6-segmentation tx-nocache-copy tx-scatter-gather tx-scatter-gather-fraglist "
            "tx-sctp-segmentation tx-tcp6-segmentation tx-tcp-ecn-segmentation tx-tcp-mangleid-segmentation "
            "tx-tcp-segmentation tx-udp-segmentation tx-udp_tnl-csum-segmentation tx-udp_tnl-segmentation "
            "tx-vlan-stag-hw-insert"
        ).split()
    ]
    + [
        (name, (1, 30))
        for name in (
            "macsec-hw-offload rx-gro-list rx-udp-gro-forwarding tls-hw-rx-offload tx-gso-list "
            "tx-tunnel-remcsum-segmentation"
        ).split()
    ]
)

_UNIT_SAFE = re.compile(r"[A-Za-z0-9:_.]")
_ENVFILE_RE = re.compile(r"\s*EnvironmentFile\s*=\s*-?(\S+)\s*")
_SETTINGS_RE = re.compile(r"# settings: (\{.*\})")
SHELL = "/bin/sh"
#: the program of the unit's ethtool lines: systemd (239 and later) finds it in its fixed search path
ETHTOOL = "ethtool"

#: The script the boot unit runs for RPS masks and IRQ affinities, the same for every interface: it
#: holds no value, it gets the interface and the settings as arguments.
HELPER = "#!/bin/sh\n" + HEADER + r"""
# Run by the interface's boot unit: sh THIS-FILE IFNAME [rps QUEUE MASK]... [irq NAME CPUS]...
# (QUEUE: an RX queue index or all). Writes every setting, exits 1 when one failed.
r="${NIC_TUNING_ROOT:-}"
dev="$1"
case "$dev" in
'' | . | .. | */*) printf 'nic_tuning: %s is not an interface name\n' "$dev" >&2; exit 2 ;;
esac
shift
rc=0
irq_affinity() {
  n=$(NIC_IRQ="$1" awk '$1 ~ /^[0-9]+:$/ { for (i = 2; i <= NF; i++) { t = $i; sub(/,$/, "", t);
    if (t == ENVIRON["NIC_IRQ"]) { sub(/:$/, "", $1); print $1; exit } } }' "$r/proc/interrupts")
  if [ -z "$n" ]; then printf 'nic_tuning: no IRQ named %s\n' "$1" >&2; return 1; fi
  printf '%s\n' "$2" > "$r/proc/irq/$n/smp_affinity_list"
}
while [ $# -ge 3 ]; do
  case "$1" in
  rps)
    case "$2" in
    all) for q in "$r/sys/class/net/$dev/queues/"rx-*; do printf '%s\n' "$3" > "$q/rps_cpus" || rc=1; done ;;
    '' | *[!0-9]*) printf 'nic_tuning: %s is not an RX queue\n' "$2" >&2; rc=1 ;;
    *) printf '%s\n' "$3" > "$r/sys/class/net/$dev/queues/rx-$2/rps_cpus" || rc=1 ;;
    esac ;;
  irq) irq_affinity "$2" "$3" || rc=1 ;;
  *) printf 'nic_tuning: unknown setting %s\n' "$1" >&2; rc=1 ;;
  esac
  shift 3
done
if [ $# -ne 0 ]; then printf 'nic_tuning: %d arguments left over\n' $# >&2; rc=1; fi
exit $rc
"""


# -- names and paths --------------------------------------------------------------------------------
def systemd_escape(name):
    """``systemd-escape`` of one path component: characters outside [A-Za-z0-9:_.] (and a leading
    ``.``) as ``\\xNN``."""
    out = []
    for index, char in enumerate(name):
        if _UNIT_SAFE.fullmatch(char) and not (index == 0 and char == "."):
            out.append(char)
        else:
            out.extend("\\x%02x" % b for b in char.encode("utf-8"))
    return "".join(out)


def device_unit(ifname):
    return "sys-subsystem-net-devices-%s.device" % systemd_escape(ifname)


def unit_name(ifname):
    return "s390x-network-nic-tuning-%s.service" % systemd_escape(ifname)


def unit_path(ifname):
    return "%s/%s" % (UNIT_DIR, unit_name(ifname))


def wants_link(ifname):
    """The link ``systemctl enable`` creates (its presence: the unit is enabled)."""
    return "%s/%s.wants/%s" % (UNIT_DIR, device_unit(ifname), unit_name(ifname))


def script_path(ifname):
    return "%s/%s.sh" % (SCRIPT_DIR, ifname)


# -- the boot unit and its script -------------------------------------------------------------------
def helper_argv(ifname, rps, irqs):
    """The unit's command for the RPS masks (``rps``: (queue index or ``all``, mask text)) and IRQ
    affinities (``irqs``: (IRQ name, CPU list text)); None when there are none."""
    if not rps and not irqs:
        return None
    argv = [SHELL, script_path(ifname), ifname]
    for queue, mask in rps:
        argv += ["rps", str(queue), mask]
    for name, cpus in irqs:
        argv += ["irq", name, cpus]
    return argv


def render_unit(ifname, networkmanager=False, ethtool_argvs=(), rps=(), irqs=(), settings=None):
    """The boot unit of ``ifname``: ``ethtool_argvs`` (argv lists after the program name ``ethtool``,
    such as ``["-L", "eth0", "combined", "2"]``), ``rps`` and ``irqs`` (see helper_argv), and the
    ``# settings:`` line from ``settings``. Raises unit_syntax.UnitSyntaxError for a value no unit
    file can hold (a control character)."""
    dev = device_unit(ifname)
    lines = [unit_syntax.comment_line(HEADER[2:])]
    if settings is not None:
        lines.append(unit_syntax.comment_line("settings: " + settings_text(settings)))
    lines += [
        "[Unit]",
        unit_syntax.text_line("Description", "NIC tuning of %s (s390x.network.nic_tuning)" % systemd_escape(ifname)),
        "BindsTo=%s" % dev,
        "After=%s" % dev,
    ]
    if networkmanager:
        lines.append("After=NetworkManager-wait-online.service")
    else:
        lines += ["Before=network-pre.target", "Wants=network-pre.target"]
    lines += [
        "",
        "[Service]",
        "Type=oneshot",
        "RemainAfterExit=yes",
        unit_syntax.environment_line([("PATH", PATH_ENV)]),
    ]
    for argv in ethtool_argvs:
        lines.append(unit_syntax.exec_line([ETHTOOL] + list(argv), field="ethtool"))
    helper = helper_argv(ifname, rps, irqs)
    if helper:
        lines.append(unit_syntax.exec_line(helper, field="rps_cpus/irq_affinity"))
    lines += [
        "",
        "[Install]",
        "WantedBy=%s" % dev,
        "",
    ]
    return "\n".join(lines)


def settings_text(settings):
    """The settings as one JSON line (ASCII: every control character escaped)."""
    return json.dumps(settings, sort_keys=True, separators=(",", ":"))


def parse_settings(text):
    """The settings a boot unit (or the script of an earlier release) was written from: its
    ``# settings:`` line; {} when none."""
    for line in (text or "").splitlines():
        match = _SETTINGS_RE.fullmatch(line)
        if match:
            try:
                data = json.loads(match.group(1))
            except ValueError:
                return {}
            return data if isinstance(data, dict) else {}
    return {}


# -- NetworkManager ---------------------------------------------------------------------------------
def argv_nm_device(ifname, tool=NMCLI):
    return [tool, "-t", "-f", "GENERAL.NM-MANAGED,GENERAL.CON-UUID", "device", "show", ifname]


def parse_nm_device(text):
    """(managed, profile UUID or None) from ``argv_nm_device`` output."""
    values = parse_terse(text)
    managed = (values.get("GENERAL.NM-MANAGED") or "").lower() in ("yes", "true")
    return managed, values.get("GENERAL.CON-UUID")


def argv_nm_show(uuid, tool=NMCLI):
    return [tool, "-t", "-f", "ethtool", "connection", "show", uuid]


def parse_nm_ethtool(text):
    """``ethtool.*`` properties of a profile -> {option (``feature-tso``): value or None}."""
    return dict(
        (key[len("ethtool.") :], value) for key, value in parse_terse(text).items() if key.startswith("ethtool.")
    )


def argv_nm_modify(uuid, values, tool=NMCLI):
    """``nmcli connection modify UUID ethtool.OPT VALUE ...`` (None resets the property)."""
    argv = [tool, "connection", "modify", uuid]
    for option in sorted(values):
        argv += ["ethtool.%s" % option, "" if values[option] is None else str(values[option])]
    return argv


def nm_feature_option(name, version):
    """The NetworkManager option of the feature ``name`` (as ethtool -k shows it), None when the
    installed NetworkManager has none."""
    if not version:
        return None
    if name in NM_LEGACY:
        return "feature-%s" % NM_LEGACY[name] if tuple(version) >= NM_FEATURES_SINCE else None
    since = NM_KERNEL_FEATURES.get(name)
    return "feature-%s" % name if since and tuple(version) >= since else None


def nm_ring_option(key, version):
    if not version or tuple(version) < NM_RINGS_SINCE:
        return None
    return "ring-%s" % nic_ethtool.RING_ARGS[key]


def nm_channel_option(key, version):
    if not version or tuple(version) < NM_CHANNELS_SINCE:
        return None
    return "channels-%s" % key


def nm_value(value):
    """A setting as NetworkManager stores it (``on``/``off`` for features)."""
    if isinstance(value, bool):
        return "on" if value else "off"
    return None if value is None else str(value)


# -- irqbalance -------------------------------------------------------------------------------------
def irqbalance_env_files(unit_text):
    """The ``EnvironmentFile=`` paths of an irqbalance.service (the ``-`` prefix removed)."""
    paths = []
    for line in (unit_text or "").splitlines():
        match = _ENVFILE_RE.fullmatch(line)
        if match:
            paths.append(match.group(1))
    return paths


def choose_irqbalance_file(unit_texts, exists):
    """The environment file irqbalance reads: of its unit's ``EnvironmentFile=`` paths under /etc the
    first that exists, else the last one under /etc; without a unit, the first of
    ``IRQBALANCE_FILES`` that exists. None when irqbalance has no such file (not installed)."""
    for text in unit_texts:
        if text is None:
            continue
        paths = [p for p in irqbalance_env_files(text) if p.startswith("/etc/")]
        for path in paths:
            if exists(path):
                return path
        if paths:
            return paths[-1]
    for path in IRQBALANCE_FILES:
        if exists(path):
            return path
    return None
