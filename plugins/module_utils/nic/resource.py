# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""nic_tuning on the resource engine: one change per network interface (its channels, rings,
offload features, RPS masks, IRQ affinities and their boot configuration) and one for
irqbalance's banned IRQs.

Order of an interface's steps: ``ethtool -L`` (the channel count decides which queues and IRQs
exist), ``-G``, ``-K``, the RPS masks, the IRQ affinities (each IRQ looked up by name when it is
written: a driver that resets on a channel change gives its IRQs new numbers), then the boot
configuration (NetworkManager profile, boot script and unit). Everything is checked against what the
driver reports (``ethtool -l/-g/-k``, the online CPUs, the IRQs in ``/proc/interrupts``) and
against the driver-limit table before the first command runs. A failure puts back what the change
had done (compared with the state read before it) and reports what it ran to do so.
"""

import copy
import errno
import os

from ansible_collections.s390x.network.plugins.module_utils.engine import host_files
from ansible_collections.s390x.network.plugins.module_utils.engine import kernel_write
from ansible_collections.s390x.network.plugins.module_utils.nic import driver_limits as limits
from ansible_collections.s390x.network.plugins.module_utils.nic import ethtool as et
from ansible_collections.s390x.network.plugins.module_utils.nic import irq as nic_irq
from ansible_collections.s390x.network.plugins.module_utils.nic import persist
from ansible_collections.s390x.network.plugins.module_utils.nic import plan as nic_plan
from ansible_collections.s390x.network.plugins.module_utils.nic.plan import U32_MAX, normalize_entry
from ansible_collections.s390x.network.plugins.module_utils.nic.plan import is_digits as _is_digits
from ansible_collections.s390x.network.plugins.module_utils.ip import nm_cli
from ansible_collections.s390x.network.plugins.module_utils.engine import unit_syntax
from ansible_collections.s390x.network.plugins.module_utils.engine.mgmt_connection import management_connection
from ansible_collections.s390x.network.plugins.module_utils.engine.resource import Change, Resource, ResourceError, Step

STATES = ("merged", "replaced", "gathered", "rendered")
IRQBALANCE = "irqbalance"
CPU_ONLINE = "/sys/devices/system/cpu/online"
PROC_INTERRUPTS = "/proc/interrupts"
#: present while systemd runs as the init system (sd_booted(3))
SYSTEMD_RUNNING = "/run/systemd/system"


def net_path(ifname, *parts):
    return "/".join(["/sys/class/net", ifname] + list(parts))


def rps_path(ifname, queue):
    return net_path(ifname, "queues", "rx-%d" % queue, "rps_cpus")


def affinity_path(irq):
    return "/proc/irq/%d/smp_affinity_list" % irq


def normalize_config(config, state):
    entries, errors, names = [], [], {}
    if state != "rendered" and state != "gathered" and not config:
        return [], []
    for index, item in enumerate(config or []):
        entry, errs = normalize_entry(item, index, state)
        errors.extend(errs)
        if entry is None:
            continue
        if entry["name"] in names:
            errors.append("%s: interface %s is also config[%d]" % (entry["where"], entry["name"], names[entry["name"]]))
            continue
        names[entry["name"]] = index
        entries.append(entry)
    return entries, errors


SETTING_PARTS = ("channels", "rings", "features", "rps", "irqs")


def boot_settings(info):
    """The settings the interface's boot unit holds (its ``# settings:`` line; the script of an
    earlier release had it), keeping only what the module itself would write: a unit edited by hand
    cannot bring other values into the next unit it writes."""
    data = persist.parse_settings(info.get("unit")) or persist.parse_settings(info.get("script"))
    clean = dict((part, {}) for part in SETTING_PARTS)
    for key, value in (data.get("channels") or {}).items() if isinstance(data.get("channels"), dict) else ():
        if key in et.CHANNEL_KEYS and isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= U32_MAX:
            clean["channels"][key] = value
    for key, value in (data.get("rings") or {}).items() if isinstance(data.get("rings"), dict) else ():
        if key in et.RING_KEYS and isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= U32_MAX:
            clean["rings"][key] = value
    for key, value in (data.get("features") or {}).items() if isinstance(data.get("features"), dict) else ():
        if isinstance(key, str) and et.FEATURE_NAME_RE.fullmatch(key) and isinstance(value, bool):
            clean["features"][key] = value
    for key, value in (data.get("rps") or {}).items() if isinstance(data.get("rps"), dict) else ():
        if (key == "all" or _is_digits(key)) and isinstance(value, str) and nic_irq.is_mask(value):
            clean["rps"][key] = value
    for key, value in (data.get("irqs") or {}).items() if isinstance(data.get("irqs"), dict) else ():
        if nic_irq.is_irq_name(key) and isinstance(value, str) and nic_irq.is_cpulist(value):
            clean["irqs"][key] = value
    return clean


class NicTuning(Resource):
    kind = "nic"
    drift_kind = "nic"
    scopes = ("active", "persistent")
    runner_name = "nic_tuning"
    restores = "previous settings"
    rollback_continues = True

    def __init__(self, module):
        super(NicTuning, self).__init__(module)
        self.state = self.params["state"]
        self.entries = []
        self.files = host_files.FileChanges(module)
        self.ethtool = None
        self.version = None
        self.json_used = {}
        self.nm_version = None
        self.systemctl = None
        self.nmcli = None
        self._mgmt_cache = None
        self.restart_needed = False
        self.warned = set()

    # -- no host -----------------------------------------------------------------------------------
    def validate(self):
        entries, errors = normalize_config(self.params.get("config"), self.state)
        if self.state in ("merged", "replaced", "gathered", "rendered") and not (self.params.get("config") or []):
            errors.append("config: give at least one interface (a list of dicts with name)")
        self.entries = entries
        return errors

    def render(self):
        rendered = []
        for entry in self.entries:
            name = entry["name"]
            if entry["channels"]:
                rendered.append(" ".join(et.argv_set_channels(name, entry["channels"])))
            if entry["rings"]:
                rendered.append(" ".join(et.argv_set_rings(name, entry["rings"])))
            if entry["features"]:
                rendered.append(" ".join(et.argv_set_features(name, sorted(entry["features"].items()))))
            for queue, cpus in sorted(entry["rps_cpus"].items(), key=lambda kv: str(kv[0])):
                target = net_path(name, "queues", "rx-*" if queue == "all" else "rx-%d" % queue, "rps_cpus")
                rendered.append("echo %s > %s" % (nic_irq.format_mask(cpus), target))
            for key, cpus in sorted(entry["irq_affinity"].items()):
                rendered.append(
                    "echo %s > /proc/irq/<IRQ of %s %s>/smp_affinity_list" % (nic_irq.format_cpulist(cpus), name, key)
                )
        return rendered

    # -- host: reading -----------------------------------------------------------------------------
    def _run(self, argv):
        return self.module.run_command(argv, environ_update={"LC_ALL": "C"})

    def _tool(self, name, required_for=None):
        # PATH first, then /sbin, /usr/sbin and /usr/local/sbin (get_bin_path adds those itself)
        path = self.module.get_bin_path(name)
        if path is None and required_for:
            raise ResourceError("%s was not found on the host; it is needed %s" % (name, required_for))
        return path

    def _show(self, option, ifname):
        want_json = et.uses_json(self.version, option)
        argv = et.argv_show(option, ifname, want_json, self.ethtool)
        rc, out, err = self._run(argv)
        if rc != 0 and want_json and et.json_refused(rc, out, err):
            argv = et.argv_show(option, ifname, False, self.ethtool)
            rc, out, err = self._run(argv)
        if rc != 0:
            if et.unsupported(rc, err):
                return None
            raise ResourceError(
                "cannot read %s: %s exited %d: %s" % (ifname, " ".join(argv[1:]), rc, (err or out).strip()),
                rc=rc,
                stderr=err,
            )
        self.json_used[option] = et.is_json(out)
        parser = {"-l": et.parse_channels, "-g": et.parse_rings, "-k": et.parse_features}[option]
        try:
            return parser(out)
        except et.EthtoolParseError as exc:
            raise ResourceError("cannot read %s: %s" % (ifname, exc))

    def _read_text(self, path):
        try:
            return host_files.read_text(path)
        except (IOError, OSError) as exc:
            raise ResourceError("cannot read %s: %s" % (path, exc.strerror or exc))

    def read(self):
        self.ethtool = self._tool("ethtool", "to read and change NIC settings (install the ethtool package)")
        rc, out, err = self._run(et.argv_version(self.ethtool))
        self.version = et.parse_version(out) if rc == 0 else None
        online_text = self._read_text(CPU_ONLINE)
        state = {
            "online": nic_irq.parse_cpulist(online_text) if online_text else None,
            "ifaces": {},
            "interrupts": [],
            "irqbalance": None,
        }
        if any(e["irq_affinity"] for e in self.entries) or self.state == "gathered":
            state["interrupts"] = nic_irq.parse_interrupts(self._read_text(PROC_INTERRUPTS) or "")
        persistent = self.params["persistent"] and self.state != "gathered"
        if persistent:
            self._read_nm_version()
        for entry in self.entries:
            state["ifaces"][entry["name"]] = self._read_iface(entry, state, persistent)
        if any(e["irq_affinity"] for e in self.entries):
            state["irqbalance"] = self._read_irqbalance()
        return state

    def _read_nm_version(self):
        if self.params["persist_method"] == "unit":
            return
        self.nmcli = self._tool("nmcli")
        if self.nmcli is None:
            return
        rc, out, err = self._run(nm_cli.argv_version(self.nmcli))
        self.nm_version = nm_cli.parse_version(out) if rc == 0 else None

    def _read_iface(self, entry, state, persistent):
        name = entry["name"]
        iface = {
            "name": name,
            "exists": os.path.isdir(host_files.path(net_path(name))),
            "driver": None,
            "device": None,
            "card_type": None,
            "channels": None,
            "rings": None,
            "features": None,
            "rps": None,
            "rx_queues": 0,
            "queue_irqs": [],
            "irq_sel": {},
            "affinity": {},
            "persist": None,
        }
        if not iface["exists"]:
            return iface
        rc, out, err = self._run(et.argv_driver(name, self.ethtool))
        if rc == 0:
            try:
                iface["driver"] = et.parse_driver(out).get("driver")
            except et.EthtoolParseError:
                iface["driver"] = None
        device = host_files.path(net_path(name, "device"))
        if os.path.islink(device):
            iface["device"] = os.path.basename(os.readlink(device))
        if iface["driver"] in ("qeth_l2", "qeth_l3"):
            card = self._read_text(net_path(name, "device", "card_type"))
            iface["card_type"] = card.strip() if card else None
        if entry["channels"] or self.state == "gathered":
            iface["channels"] = self._show("-l", name)
        if entry["rings"] or self.state == "gathered":
            iface["rings"] = self._show("-g", name)
        if entry["features"] or self.state == "gathered":
            iface["features"] = self._show("-k", name)
        iface["rps"], iface["rx_queues"] = self._read_rps(name)
        if state["interrupts"]:
            iface["queue_irqs"] = nic_irq.interface_irqs(iface["driver"], iface["device"], state["interrupts"])
            for key in entry["irq_affinity"]:
                iface["irq_sel"][key] = nic_irq.select_irqs(key, iface["queue_irqs"], state["interrupts"])
            irqs = set(irq for sel in iface["irq_sel"].values() for irq, _n in sel)
            if self.state == "gathered":
                irqs |= set(q["irq"] for q in iface["queue_irqs"])
            for irq in sorted(irqs):
                text = self._read_text(affinity_path(irq))
                if text is not None:
                    iface["affinity"][irq] = nic_irq.parse_cpulist(text.strip())
        if persistent:
            iface["persist"] = self._read_persist(name)
        return iface

    def _read_rps(self, ifname):
        queues_dir = host_files.path(net_path(ifname, "queues"))
        try:
            names = os.listdir(queues_dir)
        except (IOError, OSError):
            return None, 0
        indices = sorted(int(n[3:]) for n in names if n.startswith("rx-") and _is_digits(n[3:]))
        masks = {}
        for index in indices:
            text = self._read_text(rps_path(ifname, index))
            if text is None:
                return None, len(indices)  # a kernel without CONFIG_RPS
            try:
                masks[index] = nic_irq.parse_mask(text.strip() or "0")
            except nic_irq.CpuSetError as exc:
                raise ResourceError("cannot read %s: %s" % (rps_path(ifname, index), exc))
        return masks, len(indices)

    def _read_persist(self, ifname):
        info = {
            "method": "unit",
            "nm_uuid": None,
            "nm": {},
            "unit": self._read_text(persist.unit_path(ifname)),
            "script": self._read_text(persist.script_path(ifname)),
            "settings": None,
            "enabled": os.path.lexists(host_files.path(persist.wants_link(ifname))),
        }
        if self.nmcli and self.nm_version:
            rc, out, err = self._run(persist.argv_nm_device(ifname, self.nmcli))
            managed, uuid = persist.parse_nm_device(out) if rc == 0 else (False, None)
            if managed and uuid:
                rc, out, err = self._run(persist.argv_nm_show(uuid, self.nmcli))
                if rc != 0:
                    raise ResourceError(
                        "cannot read the NetworkManager profile %s of %s: %s" % (uuid, ifname, (err or out).strip())
                    )
                info.update(method="networkmanager", nm_uuid=uuid, nm=persist.parse_nm_ethtool(out))
        info["settings"] = boot_settings(info)
        return info

    def _read_irqbalance(self):
        units = [self._read_text(p) for p in persist.IRQBALANCE_UNITS]
        path = persist.choose_irqbalance_file(units, lambda p: os.path.exists(host_files.path(p)))
        text = self._read_text(path) if path else None
        return {
            "running": self._irqbalance_running(),
            "file": path,
            "text": text,
            "banned": nic_irq.banned_irqs(text),
        }

    @staticmethod
    def _irqbalance_running():
        proc = host_files.path("/proc")
        try:
            pids = [p for p in os.listdir(proc) if p.isdigit()]
        except (IOError, OSError):
            return False
        for pid in pids:
            try:
                with open(os.path.join(proc, pid, "comm")) as handle:
                    if handle.read().strip() == "irqbalance":
                        return True
            except (IOError, OSError):
                continue
        return False

    # -- gathered ----------------------------------------------------------------------------------
    def gather(self, current):
        gathered = []
        for entry in self.entries:
            iface = current["ifaces"][entry["name"]]
            if not iface["exists"]:
                raise ResourceError("%s: no such network interface" % entry["where"])
            item = {"name": entry["name"]}
            if iface["channels"]:
                counts = dict((k, v) for k, v in iface["channels"]["current"].items() if v is not None)
                if counts:
                    item["channels"] = counts
            if iface["rings"]:
                sizes = dict((k, v) for k, v in iface["rings"]["current"].items() if v is not None)
                if sizes:
                    item["rings"] = sizes
            if iface["features"]:
                feats = iface["features"]
                item["features"] = dict(
                    (name, et.feature_value(f, feats)) for name, f in feats.items() if not f["group"] and not f["fixed"]
                )
            if iface["rps"]:
                masks = dict((q, nic_irq.format_cpulist(c)) for q, c in iface["rps"].items() if c)
                if masks:
                    item["rps_cpus"] = masks
            if iface["queue_irqs"]:
                item["irq_affinity"] = dict(
                    (q["name"], nic_irq.format_cpulist(iface["affinity"][q["irq"]]))
                    for q in iface["queue_irqs"]
                    if q["irq"] in iface["affinity"]
                )
            gathered.append(item)
        return gathered

    # -- planning ----------------------------------------------------------------------------------
    def plan(self, current):
        errors, wants = [], []
        for entry in self.entries:
            want, errs = self._resolve(entry, current)
            errors.extend(errs)
            wants.append(want)
        if errors:
            raise ResourceError("; ".join(errors), commands=[])
        changes = [self._change(entry, want, current) for entry, want in zip(self.entries, wants)]
        ban = self._irqbalance_change(current, wants)
        if ban is not None:
            changes.append(ban)
        return changes

    def _resolve(self, entry, current):
        """What the entry asks of this host, checked against the driver: ``(want, errors)``."""
        want, errors = nic_plan.resolve(entry, current, self.state == "replaced", self._warn)
        if want is not None and self.params["persistent"]:
            errors.extend(self._check_persist(entry, current["ifaces"][entry["name"]]))
        return want, errors

    def _check_persist(self, entry, iface):
        method = self.params["persist_method"]
        info = iface["persist"] or {}
        if method == "networkmanager" and info.get("method") != "networkmanager":
            return [
                "%s: persist_method networkmanager, but NetworkManager does not manage %s with an active profile"
                % (entry["where"], entry["name"])
            ]
        return []

    _rx_queues_after = staticmethod(nic_plan.rx_queues_after)

    def _warn(self, text):
        if text not in self.warned:
            self.warned.add(text)
            self.module.warn(text)

    # -- steps -------------------------------------------------------------------------------------
    def _change(self, entry, want, current):
        name, iface = entry["name"], current["ifaces"][entry["name"]]
        after = copy.deepcopy(iface)
        steps = []
        channels = (
            dict((k, v) for k, v in want["channels"].items() if iface["channels"]["current"][k] != v)
            if want["channels"]
            else {}
        )
        if channels:
            steps.append(
                self._ethtool_step(
                    name, "channels", et.argv_set_channels(name, channels, self.ethtool), channels, iface
                )
            )
            after["channels"]["current"].update(channels)
            after["rx_queues"] = self._rx_queues_after(iface, channels)
        rings = (
            dict((k, v) for k, v in want["rings"].items() if iface["rings"]["current"][k] != v) if want["rings"] else {}
        )
        if rings:
            steps.append(self._ethtool_step(name, "rings", et.argv_set_rings(name, rings, self.ethtool), rings, iface))
            after["rings"]["current"].update(rings)
        feats = []
        for real, value in want["features"]:
            if et.feature_value(iface["features"][real], iface["features"]) != value:
                feats.append((real, value))
        if feats:
            steps.append(
                self._ethtool_step(
                    name, "features", et.argv_set_features(name, feats, self.ethtool), dict(feats), iface
                )
            )
            _apply_features(after["features"], feats)
        for queue, cpus in sorted(want["rps"].items()):
            old = (iface["rps"] or {}).get(queue, frozenset())
            if old != cpus:
                steps.append(self._rps_step(name, queue, cpus))
                after["rps"] = dict(after["rps"] or {})
                after["rps"][queue] = cpus
        for irq, (irqname, cpus) in sorted(want["affinity"].items()):
            if iface["affinity"].get(irq) != cpus:
                steps.append(self._irq_step(name, irq, irqname, cpus))
                after["affinity"][irq] = cpus
        if self.params["persistent"]:
            steps.extend(self._persist_steps(entry, want, iface, after))
        change = Change(name, steps, want=after, label=name)
        change.entry, change.resolved = entry, want
        return change

    def _ethtool_step(self, name, area, argv, values, iface):
        step = Step(
            argv=argv,
            scope="active",
            kind="change",
            subject=name,
            disruptive=limits.resets(iface["driver"], area),
        )
        step.area, step.values = area, values
        return step

    def _rps_step(self, name, queue, cpus, kind="change"):
        path, mask = rps_path(name, queue), nic_irq.format_mask(cpus)
        step = Step(
            action=lambda: kernel_write.write_value(path, mask),
            text="echo %s > %s" % (mask, path),
            scope="active",
            kind=kind,
            subject=name,
        )
        step.area, step.values = "rps", {queue: cpus}
        return step

    def _irq_step(self, name, irq, irqname, cpus, kind="change"):
        """Write the affinity of the IRQ named ``irqname`` (number ``irq`` when planned; looked up again
        when it runs, since a driver reset renumbers IRQs)."""
        text = nic_irq.format_cpulist(cpus)
        step = Step(
            action=lambda: self._write_affinity(step, irqname, irq, text),
            texts=["echo %s > %s" % (text, affinity_path(irq))],
            scope="active",
            kind=kind,
            subject=name,
        )
        step.area, step.values, step.irqname = "irq", {irq: cpus}, irqname
        return step

    def _write_affinity(self, step, irqname, planned, text):
        table = nic_irq.parse_interrupts(host_files.read_text(PROC_INTERRUPTS) or "")
        found = [e["irq"] for e in table if irqname in e["names"]]
        if not found:
            raise OSError(errno.ENOENT, "no IRQ named %s in /proc/interrupts (it was IRQ %d)" % (irqname, planned))
        step.ran = ["echo %s > %s" % (text, affinity_path(found[0]))]
        kernel_write.write_value(affinity_path(found[0]), text)

    def _file_step(self, path, content, name, kind="change"):
        step = Step(
            action=lambda: self.files.write(path, content),
            text=host_files.change_text(path, content),
            scope="persistent",
            kind=kind,
            subject=name,
        )
        step.area, step.values = "file", {"path": path}
        return step

    def _command_step(self, argv, name, area, values=None, kind="change"):
        step = Step(argv=argv, scope="persistent", kind=kind, subject=name)
        step.area, step.values = area, values or {}
        return step

    # -- boot configuration ------------------------------------------------------------------------
    def _persist_plan(self, entry, want, iface):
        """(NetworkManager values to set, script settings) for the interface."""
        info = iface["persist"] or {}
        nm = info.get("method") == "networkmanager" and self.params["persist_method"] != "unit"
        nm_values, script = {}, {"channels": {}, "rings": {}, "features": {}, "rps": {}, "irqs": {}}
        for key, value in sorted(want["channels"].items()):
            option = persist.nm_channel_option(key, self.nm_version) if nm else None
            if option:
                nm_values[option] = str(value)
            else:
                script["channels"][key] = value
        for key, value in sorted(want["rings"].items()):
            option = persist.nm_ring_option(key, self.nm_version) if nm else None
            if option:
                nm_values[option] = str(value)
            else:
                script["rings"][key] = value
        for real, value in want["features"]:
            option = persist.nm_feature_option(real, self.nm_version) if nm else None
            if option:
                nm_values[option] = persist.nm_value(value)
            else:
                script["features"][real] = value
        if entry["rps_cpus"]:
            for queue, cpus in entry["rps_cpus"].items():
                script["rps"][str(queue)] = nic_irq.format_mask(cpus)
        for irq, (irqname, cpus) in want["affinity"].items():
            script["irqs"][irqname] = nic_irq.format_cpulist(cpus)
        if self.state == "merged":
            old = info.get("settings") or {}
            for part in script:
                merged = dict(old.get(part) or {})
                if part == "rps" and script["rps"]:
                    merged = {}  # the RPS masks of one run describe the queues as a whole
                merged.update(script[part])
                script[part] = merged
        return nm, nm_values, script

    def _persist_steps(self, entry, want, iface, after):
        name, info = entry["name"], iface["persist"] or {}
        nm, nm_values, script = self._persist_plan(entry, want, iface)
        steps = []
        after["persist"] = dict(info, nm=dict(info.get("nm") or {}))
        if nm:
            target = dict(nm_values)
            if self.state == "replaced":
                for option, value in (info.get("nm") or {}).items():
                    if value is not None and option not in target:
                        target[option] = None
            differ = dict((o, v) for o, v in target.items() if (info["nm"].get(o)) != v)
            if differ:
                steps.append(
                    self._command_step(persist.argv_nm_modify(info["nm_uuid"], differ, self.nmcli), name, "nm", differ)
                )
                after["persist"]["nm"].update(differ)
        has_unit = any(script[p] for p in script)
        unit = self._unit_text(entry, script, nm) if has_unit else None
        # the script the unit runs for RPS and IRQs: constant text, the values are its arguments
        helper = persist.HELPER if has_unit and (script["rps"] or script["irqs"]) else None
        changed_unit = False
        needs_unit = has_unit and (helper != info.get("script") or unit != info.get("unit") or not info.get("enabled"))
        stale = not has_unit and (info.get("unit") is not None or info.get("script") is not None)
        if (needs_unit or stale) and self.systemctl is None:
            self.systemctl = self._tool("systemctl", "for the boot unit of persistent: true (or set persistent: false)")
        if has_unit:
            if helper != info.get("script"):
                steps.append(self._file_step(persist.script_path(name), helper, name))
            if unit != info.get("unit"):
                steps.append(self._file_step(persist.unit_path(name), unit, name))
                changed_unit = True
            if changed_unit and self._systemd_running():
                steps.append(self._command_step([self.systemctl, "daemon-reload"], name, "reload"))
            if not info.get("enabled"):
                steps.append(
                    self._command_step(
                        [self.systemctl, "enable", persist.unit_name(name)], name, "enable", {"to": True}
                    )
                )
        elif info.get("unit") is not None or info.get("script") is not None:
            if info.get("enabled"):
                steps.append(
                    self._command_step(
                        [self.systemctl, "disable", persist.unit_name(name)], name, "enable", {"to": False}
                    )
                )
            for path, old in (
                (persist.unit_path(name), info.get("unit")),
                (persist.script_path(name), info.get("script")),
            ):
                if old is not None:
                    steps.append(self._file_step(path, None, name))
            if self._systemd_running():
                steps.append(self._command_step([self.systemctl, "daemon-reload"], name, "reload"))
        after["persist"].update(script=helper, unit=unit, enabled=has_unit, settings=script if has_unit else None)
        return steps

    def _unit_text(self, entry, settings, networkmanager):
        """The boot unit for ``settings``; a value no unit file can hold (an IRQ name read from the
        host with a control character) fails the run before anything changes, naming the field."""
        try:
            return _unit_text(entry["name"], settings, networkmanager)
        except unit_syntax.UnitSyntaxError as exc:
            raise ResourceError("%s: the boot unit cannot hold a value: %s" % (entry["where"], exc), commands=[])

    @staticmethod
    def _systemd_running():
        """Whether systemd runs as the init system. Without it (a container, a chroot, an image being
        built) ``systemctl daemon-reload`` fails ("System has not been booted with systemd"), while
        ``systemctl enable`` works on the files alone; systemd reads the unit when it starts."""
        return os.path.isdir(host_files.path(SYSTEMD_RUNNING))

    def _irqbalance_change(self, current, wants):
        info = current["irqbalance"]
        banned = sorted(set(irq for w in wants if w for irq in w["ban"]))
        if info is None or not banned:
            return None
        if info["file"] is None:
            self._warn(
                "irqbalance: ban: irqbalance is not installed (no irqbalance.service environment file); nothing to ban"
            )
            return None
        missing = [irq for irq in banned if irq not in info["banned"]]
        after = dict(info)
        steps = []
        if missing:
            text = nic_irq.with_banned_irqs(info["text"], add=sorted(set(info["banned"]) | set(banned)))
            steps.append(self._file_step(info["file"], text, IRQBALANCE))
            after.update(text=text, banned=nic_irq.banned_irqs(text))
            self.restart_needed = info["running"]
        change = Change(IRQBALANCE, steps, want=after, label="irqbalance")
        change.entry = None
        return change

    # -- guard -------------------------------------------------------------------------------------
    def guard(self, current, changes):
        for change in changes:
            disruptive = [s for s in change.steps if s.disruptive]
            if not disruptive or change.subject == IRQBALANCE:
                continue
            if self._mgmt_cache is None:
                self._mgmt_cache = management_connection(self.module)
            mgmt, details = self._mgmt_cache
            if change.subject in mgmt and not self.params["allow_disruptive"]:
                conn = details.get("ssh_connection") or {}
                iface = current["ifaces"][change.subject]
                raise ResourceError(
                    "nic %s: it carries the management connection (SSH from %s to %s), and %s resets the device on "
                    "%s, which takes the link down. Set allow_disruptive: true to do it anyway."
                    % (
                        change.subject,
                        conn.get("client"),
                        conn.get("server"),
                        iface["driver"],
                        "; ".join(s.command for s in disruptive),
                    ),
                    commands=[],
                    management_interfaces=sorted(mgmt),
                )

    # -- prediction, views, drift ------------------------------------------------------------------
    def predict(self, current, changes):
        predicted = dict(current)
        predicted["ifaces"] = dict(current["ifaces"])
        for change in changes:
            if change.subject == IRQBALANCE:
                predicted["irqbalance"] = change.want
            else:
                predicted["ifaces"][change.subject] = change.want
        return predicted

    def public_view(self, state, change):
        if change.subject == IRQBALANCE:
            info = state.get("irqbalance") or {}
            return {"irqbalance": {"file": info.get("file"), "banned": list(info.get("banned") or [])}}
        iface = state["ifaces"].get(change.subject) or {}
        want = change.resolved
        view = {"name": change.subject}
        if want["channels"]:
            view["channels"] = dict((k, iface["channels"]["current"].get(k)) for k in sorted(want["channels"]))
        if want["rings"]:
            view["rings"] = dict((k, iface["rings"]["current"].get(k)) for k in sorted(want["rings"]))
        if want["features"]:
            feats = iface["features"] or {}
            view["features"] = dict(
                (real, et.feature_value(feats[real], feats) if real in feats else None) for real, _v in want["features"]
            )
        if want["rps"]:
            view["rps_cpus"] = dict(
                (q, nic_irq.format_cpulist((iface["rps"] or {}).get(q, frozenset()))) for q in sorted(want["rps"])
            )
        if want["affinity"]:
            view["irq_affinity"] = dict(
                (name, nic_irq.format_cpulist(iface["affinity"].get(irq, frozenset())))
                for irq, (name, _c) in sorted(want["affinity"].items())
            )
        info = iface.get("persist")
        if info is not None:
            nm = dict((o, v) for o, v in (info.get("nm") or {}).items() if v is not None)
            view["persistent"] = {
                "method": (
                    "networkmanager"
                    if info.get("method") == "networkmanager" and self.params["persist_method"] != "unit"
                    else "unit"
                ),
                "networkmanager": nm if info.get("method") == "networkmanager" else None,
                "unit": persist.unit_path(change.subject) if info.get("unit") is not None else None,
                "settings": _non_empty(info.get("settings")),
                "enabled": bool(info.get("enabled")),
            }
        return view

    def view(self, state, change):
        public = self.public_view(state, change)
        if change.subject == IRQBALANCE:
            return {"persistent": public["irqbalance"]}
        active = dict((k, v) for k, v in public.items() if k not in ("name", "persistent"))
        active["features"] = dict((k, _onoff(v)) for k, v in (active.get("features") or {}).items())
        active["rps_cpus"] = dict((q, cpus or "none") for q, cpus in (active.get("rps_cpus") or {}).items())
        active["irq_affinity"] = dict((n, cpus or None) for n, cpus in (active.get("irq_affinity") or {}).items())
        view = {"active": _flatten(active)}
        if "persistent" in public:
            view["persistent"] = _flatten(public["persistent"])
        return view

    # -- failure -----------------------------------------------------------------------------------
    def error_text(self, exc):
        return exc.strerror or str(exc) if isinstance(exc, EnvironmentError) else str(exc)

    def rollback(self, before, now, change, ran):
        """Steps that put back what ``ran`` changed, compared with the state before (``before``) and
        now (``now``), in reverse order. The failed step is included: ``-K`` can change part of its
        features before it fails, an IRQ write may have hit a renumbered IRQ."""
        if change.subject == IRQBALANCE:
            return [
                self._restore_file(s)
                for s in reversed(ran)
                if getattr(s, "area", None) == "file" and s.values["path"] in self.files.old
            ]
        name = change.subject
        old, cur = before["ifaces"][name], now["ifaces"].get(name) or {}
        steps = []
        for step in reversed(ran):
            area = getattr(step, "area", None)
            if area in ("channels", "rings"):
                back = dict(
                    (k, old[area]["current"][k])
                    for k in step.values
                    if cur.get(area) and cur[area]["current"].get(k) != old[area]["current"][k]
                )
                if back:
                    build = et.argv_set_channels if area == "channels" else et.argv_set_rings
                    steps.append(self._ethtool_step(name, area, build(name, back, self.ethtool), back, old))
            elif area == "features":
                back = _feature_restore(old["features"], cur.get("features") or {}, step.values)
                if back:
                    steps.append(
                        self._ethtool_step(
                            name, "features", et.argv_set_features(name, back, self.ethtool), dict(back), old
                        )
                    )
            elif area == "rps":
                for queue in step.values:
                    if (
                        old["rps"] is not None
                        and queue in old["rps"]
                        and (cur.get("rps") or {}).get(queue) != old["rps"][queue]
                    ):
                        steps.append(self._rps_step(name, queue, old["rps"][queue], kind="rollback"))
            elif area == "irq":
                now_by_name = _affinity_by_name(cur)
                for irq in step.values:
                    now_cpus = now_by_name.get(step.irqname)
                    if irq in old["affinity"] and now_cpus is not None and now_cpus != old["affinity"][irq]:
                        steps.append(self._irq_step(name, irq, step.irqname, old["affinity"][irq], kind="rollback"))
            elif area == "file" and step.values["path"] in self.files.old:
                steps.append(self._restore_file(step))
            elif area == "nm":
                back = dict((o, (old["persist"]["nm"] or {}).get(o)) for o in step.values)
                steps.append(
                    self._command_step(
                        persist.argv_nm_modify(old["persist"]["nm_uuid"], back, self.nmcli),
                        name,
                        "nm",
                        back,
                        "rollback",
                    )
                )
            elif area == "enable" and step is not ran[-1]:
                verb = "disable" if step.values.get("to") else "enable"
                steps.append(
                    self._command_step([self.systemctl, verb, persist.unit_name(name)], name, "enable", {}, "rollback")
                )
        if self._systemd_running() and any(
            getattr(s, "area", None) == "file" and s.values["path"].endswith(".service") for s in ran
        ):
            steps.append(self._command_step([self.systemctl, "daemon-reload"], name, "reload", {}, "rollback"))
        return steps

    def _restore_file(self, step):
        path = step.values["path"]
        restore = Step(
            action=lambda: self.files.restore(path),
            text=self.files.restore_text(path),
            scope="persistent",
            kind="rollback",
            subject=step.subject,
        )
        restore.area, restore.values = "file", {"path": path}
        return restore

    def failure_message(self, change, step, rc, out, err):
        detail = "\n".join(x.strip() for x in (err or "", out or "") if x and x.strip())
        hint = ""
        if "Cannot allocate memory" in detail or "cannot allocate memory" in detail.lower():
            hint = " (the driver could not allocate the buffers; smaller rings or fewer channels may fit)"
        return "nic %s: %s failed (exit code %s)%s%s" % (
            change.label,
            "; ".join(step.ran or step.commands),
            rc,
            ": " + detail if detail else "",
            hint,
        )

    # -- after the run -----------------------------------------------------------------------------
    def remaining(self, after, change):
        if change.subject == IRQBALANCE:
            return []
        iface = after["ifaces"].get(change.subject)
        if not iface or not iface["exists"]:
            return []
        try:
            again = self._change(change.entry, self._resolve(change.entry, after)[0] or change.resolved, after)
        except ResourceError:
            return []
        for real, value in change.resolved["features"]:
            feats = iface["features"] or {}
            entry = feats.get(real)
            if entry and not entry["group"] and entry["active"] != value and entry["requested"] == value:
                self._warn(
                    "%s: feature %s is requested %s but the driver keeps it %s (a feature it depends on is off)"
                    % (change.subject, real, _onoff(value), _onoff(entry["active"]))
                )
        return [s for s in again.steps if s.scope == "active"]

    def extras(self, state, changes, failed=False):
        ifaces = {}
        for change in changes:
            if change.subject == IRQBALANCE:
                continue
            iface = state["ifaces"].get(change.subject) or {}
            info = iface.get("persist")
            ifaces[change.subject] = {
                "driver": iface.get("driver"),
                "persist_method": None if info is None else self.view(state, change)["persistent"]["method"],
            }
        irqbalance = state.get("irqbalance")
        result = {
            "ethtool_version": et.version_text(self.version),
            "json": dict((o, bool(self.json_used.get(o))) for o in sorted(self.json_used)),
            "interfaces": ifaces,
            "networkmanager_version": et.version_text(self.nm_version) if self.nm_version else None,
        }
        if irqbalance is not None:
            result["irqbalance"] = {
                "running": irqbalance["running"],
                "file": irqbalance["file"],
                "banned": list(irqbalance["banned"]),
                "restart_needed": bool(
                    self.restart_needed and any(c.subject == IRQBALANCE and c.steps for c in changes)
                ),
            }
            if result["irqbalance"]["restart_needed"] and not failed:
                self._warn(
                    "irqbalance reads %s only when it starts: restart it so that it leaves IRQ %s alone (the "
                    "nic_tuning role does it when nic_tuning_restart_irqbalance is true)"
                    % (irqbalance["file"], ", ".join(str(i) for i in irqbalance["banned"]))
                )
        return result


# -- helpers ----------------------------------------------------------------------------------------
def _onoff(value):
    if value is True:
        return "on"
    if value is False:
        return "off"
    return "-" if value is None else str(value)


def _flatten(view, prefix=""):
    out = {}
    for key, value in view.items():
        name = "%s%s" % (prefix, key)
        if isinstance(value, dict):
            out.update(_flatten(value, name + "."))
        else:
            out[name] = value
    return out


def _affinity_by_name(iface):
    """{IRQ name: CPUs} of the IRQs read for ``iface`` (numbers may have changed since planning)."""
    names = {}
    for selected in (iface.get("irq_sel") or {}).values():
        for irq, name in selected:
            names[irq] = name
    for queue in iface.get("queue_irqs") or []:
        names[queue["irq"]] = queue["name"]
    return dict((names[irq], cpus) for irq, cpus in (iface.get("affinity") or {}).items() if irq in names)


def _apply_features(features, wanted):
    """Set the requested (and, for changeable features, active) values of ``wanted`` in ``features``."""
    for real, value in wanted:
        entry = features[real]
        targets = [features[c] for c in entry["children"]] if entry["group"] else [entry]
        for target in targets:
            if target["fixed"]:
                continue
            target["requested"] = value
            target["active"] = value
        if entry["group"]:
            entry["active"] = (
                any(features[c]["active"] for c in entry["children"]) if entry["children"] else entry["active"]
            )


def _feature_restore(old, now, names):
    """(feature, value) pairs that put the features ``names`` back from ``now`` to ``old``: single
    features by name, groups member by member (a group may have been mixed)."""
    back = []
    for name in names:
        entry = old.get(name)
        if entry is None:
            continue
        members = entry["children"] if entry["group"] else [name]
        for member in members:
            before = old[member]
            if before["fixed"]:
                continue
            value = before["requested"] if before["requested"] is not None else before["active"]
            current = now.get(member)
            if current is not None:
                cur = current["requested"] if current["requested"] is not None else current["active"]
                if cur == value:
                    continue
            back.append((member, value))
    return back


def _non_empty(settings):
    """The settings of a boot unit as the view shows them: None when there are none."""
    if not settings or not any(settings.get(part) for part in SETTING_PARTS):
        return None
    return dict((part, dict(settings.get(part) or {})) for part in SETTING_PARTS)


def _unit_text(name, settings, networkmanager):
    argvs = []
    if settings["channels"]:
        argvs.append(et.argv_set_channels(name, settings["channels"], persist.ETHTOOL)[1:])
    if settings["rings"]:
        argvs.append(et.argv_set_rings(name, settings["rings"], persist.ETHTOOL)[1:])
    if settings["features"]:
        argvs.append(et.argv_set_features(name, sorted(settings["features"].items()), persist.ETHTOOL)[1:])
    rps = sorted(settings["rps"].items(), key=lambda kv: (kv[0] != "all", int(kv[0]) if kv[0] != "all" else 0))
    irqs = sorted(settings["irqs"].items())
    return persist.render_unit(
        name, networkmanager=networkmanager, ethtool_argvs=argvs, rps=rps, irqs=irqs, settings=settings
    )
