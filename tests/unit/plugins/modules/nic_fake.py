# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A host for nic_tuning tests: network interfaces that ``ethtool``, ``nmcli`` and ``systemctl`` answer
for, and the files of the host root (sysfs queues, /proc/interrupts, /proc/irq, online CPUs).

``ethtool`` follows the tool and the kernel: text output in ethtool 6.x's netlink layout (``n/a``
for what the driver lacks), JSON with ``--json`` where the version has it (and "bad command line"
where it has not), ``-L``/``-G`` refused above the maximum or for a kind the driver lacks,
``-K`` refused for a ``[fixed]`` feature, a channel change adds or removes ``queues/rx-N``.
Failures are injected by argv prefix (``fail``) or written path (``fail_paths``).
"""

from __future__ import absolute_import, division, print_function

import errno
import json
import os

from ansible_collections.s390x.network.plugins.module_utils.engine import kernel_write

LEGACY = {
    "rx": "rx-checksumming",
    "tx": "tx-checksumming",
    "sg": "scatter-gather",
    "tso": "tcp-segmentation-offload",
    "gso": "generic-segmentation-offload",
    "gro": "generic-receive-offload",
    "lro": "large-receive-offload",
}
JSON_SINCE = {"-k": (5, 17), "-g": (6, 2), "-l": (6, 15)}


def virtio_features():
    """(name, active, fixed, members) in ethtool's order, as the captured virtio_net sample."""
    return [
        ("rx-checksumming", True, True, None),
        (
            "tx-checksumming",
            None,
            None,
            [
                ("tx-checksum-ipv4", False, True),
                ("tx-checksum-ip-generic", True, False),
                ("tx-checksum-ipv6", False, True),
            ],
        ),
        (
            "scatter-gather",
            None,
            None,
            [("tx-scatter-gather", True, False), ("tx-scatter-gather-fraglist", False, True)],
        ),
        (
            "tcp-segmentation-offload",
            None,
            None,
            [
                ("tx-tcp-segmentation", True, False),
                ("tx-tcp-ecn-segmentation", False, True),
                ("tx-tcp6-segmentation", True, False),
            ],
        ),
        ("generic-segmentation-offload", True, False, None),
        ("generic-receive-offload", True, False, None),
        ("large-receive-offload", False, True, None),
        ("rx-gro-hw", True, True, None),
        ("rx-udp-gro-forwarding", False, False, None),
    ]


class Iface(object):
    def __init__(self, name, driver, device, channels, rings, features):
        self.name, self.driver, self.device = name, driver, device
        self.channels = channels  # {"max": {...}, "current": {...}} or None
        self.rings = rings
        self.feats = {}  # name -> dict(active, fixed, requested, parent)
        self.order = []  # (name, members or None)
        for name_, active, fixed, members in features or []:
            if members is None:
                self.feats[name_] = {"active": active, "fixed": fixed, "requested": active, "parent": None}
                self.order.append((name_, None))
            else:
                for child, cactive, cfixed in members:
                    self.feats[child] = {"active": cactive, "fixed": cfixed, "requested": cactive, "parent": name_}
                self.order.append((name_, [m[0] for m in members]))


class FakeNicHost(object):
    def __init__(self, root, monkeypatch, version="6.1", cpus="0-3", systemd=True):
        self.root = str(root)
        self.version = version
        self.ifaces = {}
        self.calls = []
        self.fail = {}  # argv tuple prefix -> (rc, stderr)
        self.fail_paths = {}  # host path -> errno
        self.writes = []
        self.irqs = {}  # irq -> [names]
        self.nm = None
        self.systemctl = []
        self.after_channels = None  # called after a channel change (a driver reset renumbering IRQs)
        self._write("/sys/devices/system/cpu/online", cpus + "\n")
        self._write("/proc/interrupts", "")
        if systemd:  # systemd runs as the init system (sd_booted)
            os.makedirs(self.path("/run/systemd/system"))
        monkeypatch.setattr(kernel_write, "write_value", self.write_value)

    # -- files -------------------------------------------------------------------------------------
    def path(self, p):
        return os.path.join(self.root, p.lstrip("/"))

    def _write(self, p, text):
        real = self.path(p)
        if not os.path.isdir(os.path.dirname(real)):
            os.makedirs(os.path.dirname(real))
        with open(real, "w") as handle:
            handle.write(text)

    def read(self, p):
        real = self.path(p)
        if not os.path.exists(real):
            return None
        with open(real) as handle:
            return handle.read()

    def write_value(self, path, text):
        self.writes.append((path, text))
        if path in self.fail_paths:
            raise OSError(self.fail_paths[path], os.strerror(self.fail_paths[path]))
        real = self.path(path)
        if not os.path.exists(real):
            raise OSError(errno.ENOENT, "No such file or directory", path)
        self._write(path, text if text.endswith("\n") else text + "\n")

    # -- building the host -------------------------------------------------------------------------
    def add_iface(self, name, driver, device=None, channels=None, rings=None, features=None, rx_queues=1, rps=True):
        iface = Iface(name, driver, device, channels, rings, features)
        self.ifaces[name] = iface
        base = self.path("/sys/class/net/%s" % name)
        os.makedirs(os.path.join(base, "queues"))
        if device:
            target = os.path.join(self.root, "sys/devices/x", device)
            os.makedirs(target)
            os.symlink(target, os.path.join(base, "device"))
        self.rps = rps
        self._set_rx_queues(iface, rx_queues)
        return iface

    def _set_rx_queues(self, iface, count):
        queues = self.path("/sys/class/net/%s/queues" % iface.name)
        for entry in os.listdir(queues):
            if entry.startswith("rx-") and int(entry[3:]) >= count:
                for f in os.listdir(os.path.join(queues, entry)):
                    os.unlink(os.path.join(queues, entry, f))
                os.rmdir(os.path.join(queues, entry))
        for index in range(count):
            rx = os.path.join(queues, "rx-%d" % index)
            if not os.path.isdir(rx):
                os.makedirs(rx)
                if self.rps:
                    with open(os.path.join(rx, "rps_cpus"), "w") as handle:
                        handle.write("0\n")

    def add_irq(self, irq, name, affinity="0-3"):
        self.irqs[irq] = [name]
        self._write("/proc/irq/%d/smp_affinity_list" % irq, affinity + "\n")
        self._render_interrupts()

    def renumber_irq(self, old, new):
        self.irqs[new] = self.irqs.pop(old)
        self._write("/proc/irq/%d/smp_affinity_list" % new, self.read("/proc/irq/%d/smp_affinity_list" % old))
        self._render_interrupts()

    def _render_interrupts(self):
        lines = ["           CPU0       CPU1       CPU2       CPU3"]
        for irq in sorted(self.irqs):
            lines.append(
                "%4d:          0          0          0          0 PCI-MSIX-0000:00:03.0   %d-edge      %s"
                % (irq, irq, ", ".join(self.irqs[irq]))
            )
        self._write("/proc/interrupts", "\n".join(lines) + "\n")

    def affinity(self, irq):
        return self.read("/proc/irq/%d/smp_affinity_list" % irq).strip()

    def rps_mask(self, ifname, queue):
        return self.read("/sys/class/net/%s/queues/rx-%d/rps_cpus" % (ifname, queue)).strip()

    def with_networkmanager(self, version="1.46.0", devices=None, profiles=None):
        self.nm = {"version": version, "devices": devices or {}, "profiles": profiles or {}}

    # -- commands ----------------------------------------------------------------------------------
    def changing_calls(self):
        return [
            c
            for c in self.calls
            if (os.path.basename(c[0]) == "ethtool" and c[1] in ("-L", "-G", "-K"))
            or (os.path.basename(c[0]) == "nmcli" and c[1:3] == ["connection", "modify"])
            or os.path.basename(c[0]) == "systemctl"
        ]

    def run(self, argv):
        self.calls.append(list(argv))
        for prefix, answer in self.fail.items():
            if tuple(argv[: len(prefix)]) == tuple(prefix):
                return answer
        tool = os.path.basename(argv[0])
        if tool == "ethtool":
            return self._ethtool(argv[1:])
        if tool == "nmcli" and self.nm is not None:
            return self._nmcli(argv[1:])
        if tool == "nmcli":
            return 8, "", "Error: NetworkManager is not running.\n"
        if tool == "systemctl":
            self.systemctl.append(argv[1:])
            if argv[1] in ("enable", "disable"):
                link = self.path(
                    "/etc/systemd/system/sys-subsystem-net-devices-%s.device.wants/%s"
                    % (argv[2][len("s390x-network-nic-tuning-") : -len(".service")], argv[2])
                )
                if argv[1] == "enable":
                    if not os.path.isdir(os.path.dirname(link)):
                        os.makedirs(os.path.dirname(link))
                    os.symlink("../" + argv[2], link)
                elif os.path.lexists(link):
                    os.unlink(link)
            return 0, "", ""
        raise AssertionError("unexpected command %r" % (argv,))

    def _version(self):
        return tuple(int(x) for x in self.version.split("."))

    def _ethtool(self, args):
        if args == ["--version"]:
            return 0, "ethtool version %s\n" % self.version, ""
        json_out = False
        if args[0] == "--json":
            json_out, args = True, args[1:]
            if self._version() >= (5, 14) and self._version() < JSON_SINCE.get(args[0], (99, 0)):
                return 1, "", "ethtool: bad command line argument(s)\nFor more information run ethtool -h\n"
        option, name, rest = args[0], args[1], args[2:]
        iface = self.ifaces.get(name)
        if iface is None:
            return 1, "", "netlink error: no device matches name (offset 24)\nnetlink error: No such device\n"
        if option == "-i":
            return 0, "driver: %s\nversion: 1.0.0\nbus-info: %s\n" % (iface.driver, iface.device or ""), ""
        if option == "-l":
            return self._show(
                iface.channels,
                "Channel",
                ("RX", "TX", "Other", "Combined"),
                ("rx", "tx", "other", "combined"),
                json_out,
                name,
            )
        if option == "-g":
            return self._show(
                iface.rings,
                "Ring",
                ("RX", "RX Mini", "RX Jumbo", "TX"),
                ("rx", "rx_mini", "rx_jumbo", "tx"),
                json_out,
                name,
            )
        if option == "-k":
            return 0, self._features_text(iface, json_out), ""
        if option == "-L":
            return self._set(iface, iface.channels, rest, "channel")
        if option == "-G":
            return self._set(iface, iface.rings, rest, "ring")
        if option == "-K":
            return self._set_features(iface, rest)
        raise AssertionError("unexpected ethtool %r" % (args,))

    def _show(self, info, what, labels, keys, json_out, name):
        if info is None:
            return 1, "", "netlink error: Operation not supported\n"
        if json_out:
            data = {"ifname": name}
            jkeys = [k.replace("_", "-") for k in keys]
            for key, jkey in zip(keys, jkeys):
                if info["max"].get(key):
                    data[jkey + "-max"] = info["max"][key]
            for key, jkey in zip(keys, jkeys):
                if info["max"].get(key):
                    data[jkey] = info["current"][key]
            return 0, "[ " + json.dumps(data, indent=8) + " ]\n", ""
        lines = ["%s parameters for %s:" % (what, name), "Pre-set maximums:"]
        for label, key in zip(labels, keys):
            lines.append("%s:\t\t%s" % (label, info["max"].get(key) or "n/a"))
        lines.append("Current hardware settings:")
        for label, key in zip(labels, keys):
            lines.append("%s:\t\t%s" % (label, info["current"].get(key) if info["max"].get(key) else "n/a"))
        return 0, "\n".join(lines) + "\n", ""

    def _set(self, iface, info, rest, what):
        if info is None:
            return 1, "", "netlink error: Operation not supported\n"
        values = dict((rest[i].replace("-", "_"), int(rest[i + 1])) for i in range(0, len(rest), 2))
        for key, value in values.items():
            if not info["max"].get(key) or value > info["max"][key]:
                return (
                    1,
                    "",
                    "netlink error: requested %s count exceeds maximum\nnetlink error: Invalid argument\n" % what,
                )
        info["current"].update(values)
        if what == "channel":
            self._set_rx_queues(iface, (info["current"].get("rx") or 0) + (info["current"].get("combined") or 0))
            if self.after_channels:
                self.after_channels()
        return 0, "", ""

    def _set_features(self, iface, rest):
        wanted = {}
        for index in range(0, len(rest), 2):
            name, value = LEGACY.get(rest[index], rest[index]), rest[index + 1] == "on"
            members = dict(iface.order).get(name)
            targets = members if members else [name]
            for target in targets:
                if target not in iface.feats:
                    return 1, "", "netlink error: bit name not found (offset 52)\n"
                feat = iface.feats[target]
                if feat["fixed"]:
                    if members:
                        continue
                    if feat["active"] != value:
                        return (
                            1,
                            "Actual changes:\n%s: %s [requested %s]\n"
                            % (target, "on" if feat["active"] else "off", rest[index + 1]),
                            "Could not change any device features\n",
                        )
                    continue
                wanted[target] = value
        for target, value in wanted.items():
            iface.feats[target].update(active=value, requested=value)
        return 0, "", ""

    def _features_text(self, iface, json_out):
        def flags(feat):
            if feat["fixed"]:
                return " [fixed]"
            if feat["active"] != feat["requested"]:
                return " [requested %s]" % ("on" if feat["requested"] else "off")
            return ""

        if json_out:
            data = {"ifname": iface.name}
            for name, members in iface.order:
                if members:
                    data[name] = {
                        "active": any(iface.feats[m]["active"] for m in members),
                        "fixed": None,
                        "requested": None,
                    }
                    for member in members:
                        feat = iface.feats[member]
                        data[member] = {
                            "active": feat["active"],
                            "fixed": feat["fixed"],
                            "requested": feat["requested"] and not feat["fixed"],
                        }
                else:
                    feat = iface.feats[name]
                    data[name] = {
                        "active": feat["active"],
                        "fixed": feat["fixed"],
                        "requested": feat["requested"] and not feat["fixed"],
                    }
            return "[ " + json.dumps(data, indent=8) + " ]\n"
        lines = ["Features for %s:" % iface.name]
        for name, members in iface.order:
            if members:
                lines.append("%s: %s" % (name, "on" if any(iface.feats[m]["active"] for m in members) else "off"))
                for member in members:
                    feat = iface.feats[member]
                    lines.append("\t%s: %s%s" % (member, "on" if feat["active"] else "off", flags(feat)))
            else:
                feat = iface.feats[name]
                lines.append("%s: %s%s" % (name, "on" if feat["active"] else "off", flags(feat)))
        return "\n".join(lines) + "\n"

    def feature(self, ifname, name):
        return self.ifaces[ifname].feats[name]["active"]

    # -- nmcli -------------------------------------------------------------------------------------
    def _nmcli(self, args):
        nm = self.nm
        if args == ["--version"]:
            return 0, "nmcli tool, version %s\n" % nm["version"], ""
        if args[:3] == ["-t", "-f", "GENERAL.NM-MANAGED,GENERAL.CON-UUID"] and args[3:5] == ["device", "show"]:
            managed, uuid = nm["devices"].get(args[5], (False, None))
            return 0, "GENERAL.NM-MANAGED:%s\nGENERAL.CON-UUID:%s\n" % ("yes" if managed else "no", uuid or ""), ""
        if args[:5] == ["-t", "-f", "ethtool", "connection", "show"]:
            profile = nm["profiles"][args[5]]
            return 0, "".join("ethtool.%s:%s\n" % (k, v or "") for k, v in sorted(profile.items())), ""
        if args[:2] == ["connection", "modify"]:
            profile = nm["profiles"][args[2]]
            rest = args[3:]
            for index in range(0, len(rest), 2):
                profile[rest[index][len("ethtool.") :]] = rest[index + 1] or None
            return 0, "", ""
        raise AssertionError("unexpected nmcli %r" % (args,))
