# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""ip_interfaces on hosts configured with netplan (Ubuntu): one netplan file that the collection
owns, applied with ``netplan apply``.

Facts relied on (netplan.io 0.106, netplan(5)):

* netplan reads ``/lib/netplan``, ``/etc/netplan`` and ``/run/netplan`` ``*.yaml`` in the order of
  their file names; a file in ``/etc/netplan`` that others can read draws the warning "Permissions
  ... are too open", so the file is written with mode 0600.
* An interface defined in several files is merged: a scalar of the later file wins, a list (such as
  ``addresses``) is the lists of all files appended. The collection's file, ``60-s390x-network.yaml``,
  sorts after the installer's and cloud-init's ``50-*`` and ``01-*`` files, so its MTU wins; the
  addresses of an interface belong in one file.
* An ``ethernets`` ID without ``match`` is the interface name; a VLAN's ``link`` must name an
  interface the configuration defines (an empty mapping is enough).
* JSON is YAML: the file is the data dumped with ``json.dumps``, never a text template, so a value
  cannot become a key or a document of its own.
* ``netplan apply`` runs ``netplan generate`` (which refuses a bad file before a renderer sees it),
  ``systemctl daemon-reload`` and restarts or reloads the renderer (systemd-networkd or
  NetworkManager); it needs systemd as PID 1.

A run reads the file, builds the wanted data (per interface: ``addresses``, ``routes``, ``mtu``;
VLANs under ``vlans`` with ``id`` and ``link``), compares it with the file's parsed data (not its
text), writes the file when it differs and runs ``netplan apply`` when the file changed or the
device's addresses or MTU differ from it. When ``netplan apply`` fails, the previous file is put
back (removed when there was none) and applied again.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ipaddress
import json
import os
import re
import stat

try:
    import yaml
except ImportError:  # the file is JSON; yaml only reads a file edited by hand
    yaml = None

from ansible_collections.s390x.network.plugins.module_utils.engine import host_files
from ansible_collections.s390x.network.plugins.module_utils.ip import config as cfg
from ansible_collections.s390x.network.plugins.module_utils.engine.mgmt_connection import (
    InterfaceGuard,
)
from ansible_collections.s390x.network.plugins.module_utils.engine.resource import Change, Resource, ResourceError, Step

NETPLAN_DIR = "/etc/netplan"
FILE_NAME = "60-s390x-network.yaml"
FILE_PATH = NETPLAN_DIR + "/" + FILE_NAME
FILE_MODE = 0o600
#: the name of PID 1; netplan apply needs systemd there. (/run/systemd/system, which sd_booted(3)
#: tests, is no proof: netplan generate itself writes netplan-ovs-cleanup.service into it.)
PID1_COMM = "/proc/1/comm"
HEADER_KEY = "network"
#: an interface (or VLAN) ID netplan writes into systemd-networkd's Name= (a glob: * ? [ ] match
#: other interfaces) and NetworkManager's keyfiles; only plain names pass
NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,14}")
NAME_GRAMMAR = "letters, digits, _, . and -, not - or . first, at most 15 characters"
STANZA_KEYS = ("addresses", "routes", "mtu")


def netplan_name_problem(name):
    if NAME_RE.fullmatch(name):
        return None
    return "%r cannot be a netplan interface ID (%s)" % (name, NAME_GRAMMAR)


def validate_entries(entries):
    """Errors of entries the netplan backend cannot express (checked before the host changes)."""
    errors = []
    for index, entry in enumerate(entries):
        where = "config[%d]" % index
        if entry["name"]:
            problem = netplan_name_problem(entry["name"])
            if problem:
                errors.append("%s.name: %s" % (where, problem))
        for vwhere, spec in [(where, entry)] + [("%s.vlans[id=%d]" % (where, v["id"]), v) for v in entry["vlans"]]:
            if spec["connection"]:
                errors.append(
                    "%s.connection: netplan hosts have no NetworkManager profile names; leave connection out" % vwhere
                )
            if not spec["autoconnect"]:
                errors.append(
                    "%s.autoconnect: netplan brings every interface it configures up; autoconnect: false is for "
                    "NetworkManager hosts" % vwhere
                )
    return errors


# -- the data ------------------------------------------------------------------------------------
def _route_data(route):
    item = {"to": str(route["to"])}
    if route["via"] is not None:
        item["via"] = str(route["via"])
    if route["metric"] is not None:
        item["metric"] = route["metric"]
    return item


def stanza(spec, old, replace):
    """The mapping of one interface: ``old`` (the file's, or None) with what ``spec`` gives; with
    ``replace`` only what ``spec`` gives."""
    data = {} if replace or not isinstance(old, dict) else dict(old)
    if spec["addresses"] is not None:
        data.pop("addresses", None)
        if spec["addresses"]:
            data["addresses"] = [str(a) for a in spec["addresses"]]
    if spec["routes"] is not None:
        data.pop("routes", None)
        if spec["routes"]:
            data["routes"] = [_route_data(r) for r in spec["routes"]]
    if spec["mtu"] is not None:
        data["mtu"] = spec["mtu"]
    return data


def _canonical_route(item):
    if not isinstance(item, dict):
        return item
    out = dict(item)
    to = str(out.get("to"))
    if to == "default":
        to = "::/0" if ":" in str(out.get("via") or "") else "0.0.0.0/0"
    try:
        out["to"] = str(ipaddress.ip_network(to, strict=False))
    except ValueError:
        pass
    if out.get("via") is not None:
        try:
            out["via"] = str(ipaddress.ip_address(str(out["via"])))
        except ValueError:
            pass
    if "metric" in out:
        try:
            out["metric"] = int(out["metric"])
        except (TypeError, ValueError):
            pass
    return out


def canonical_stanza(data):
    """A stanza in one form: addresses and routes as ipaddress prints them, numbers as int."""
    if not isinstance(data, dict):
        return data
    out = dict(data)
    if isinstance(out.get("addresses"), list):
        addresses = []
        for item in out["addresses"]:
            try:
                addresses.append(str(ipaddress.ip_interface(str(item))))
            except ValueError:
                addresses.append(item)
        out["addresses"] = addresses
    if isinstance(out.get("routes"), list):
        out["routes"] = [_canonical_route(r) for r in out["routes"]]
    for key in ("mtu", "id"):
        if key in out:
            try:
                out[key] = int(out[key])
            except (TypeError, ValueError):
                pass
    return out


def canonical_doc(doc):
    """The parsed file in one form, for comparing data (not text)."""
    if not doc:
        return {}
    net = doc.get(HEADER_KEY) if isinstance(doc, dict) else None
    if not isinstance(net, dict):
        return doc
    out = dict(net)
    for section in ("ethernets", "vlans"):
        if isinstance(out.get(section), dict):
            out[section] = dict((k, canonical_stanza(v or {})) for k, v in out[section].items())
            if not out[section]:
                out.pop(section)
    if "version" in out:
        out["version"] = int(out["version"]) if str(out["version"]).isdigit() else out["version"]
    return {HEADER_KEY: out}


def dump(doc):
    """The file's text: the data as JSON (a subset of YAML), keys sorted, one trailing newline."""
    return json.dumps(doc, indent=2, sort_keys=True) + "\n"


def parse(text):
    """The file's data; raises ValueError when it is neither YAML nor JSON or not a mapping."""
    if text is None or not text.strip():
        return {}
    if yaml is not None:
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise ValueError(str(exc).replace("\n", " "))
    else:
        data = json.loads(text)
    if data is None:
        return {}
    if not isinstance(data, dict) or not isinstance(data.get(HEADER_KEY, {}), dict):
        raise ValueError("expected a mapping with the key network")
    return data


def sections(doc):
    net = (doc or {}).get(HEADER_KEY) or {}
    return dict(net.get("ethernets") or {}), dict(net.get("vlans") or {})


def build_doc(ethernets, vlans, old_doc):
    """The whole file from its two sections; None (no file) when it configures nothing."""
    if not ethernets and not vlans:
        return None
    net = dict((k, v) for k, v in ((old_doc or {}).get(HEADER_KEY) or {}).items() if k not in ("ethernets", "vlans"))
    net["version"] = 2
    if ethernets:
        net["ethernets"] = ethernets
    if vlans:
        net["vlans"] = vlans
    return {HEADER_KEY: net}


class NetplanInterfaces(Resource):
    """The engine's hooks for a netplan host; ``nm`` is the IpInterfaces of the same run, whose host
    readers (interface resolution, ``ip`` output) are shared."""

    kind = "ip"
    drift_kind = "ip"
    scopes = ("active", "persistent")
    runner_name = "netplan apply"
    restores = "previous netplan file"

    def __init__(self, module, nm, netplan):
        super(NetplanInterfaces, self).__init__(module)
        self.nm = nm
        self.netplan = netplan
        self.ip = None
        self._interface_guard = InterfaceGuard(module)

    # -- host ----------------------------------------------------------------------------------
    def prepare(self):
        self.ip = self.module.get_bin_path("ip", required=True)
        return []

    def _cmd(self, argv):
        return self.module.run_command(argv, environ_update={"LC_ALL": "C"})

    def read(self):
        if self.ip is None:
            self.ip = self.module.get_bin_path("ip", required=True)
        try:
            text = host_files.read_text(FILE_PATH)
        except (IOError, OSError) as exc:
            raise ResourceError("cannot read %s: %s" % (FILE_PATH, exc))
        try:
            doc = parse(text)
        except ValueError as exc:
            raise ResourceError(
                "%s (the file this collection owns) is not a netplan configuration it can read: %s; move it "
                "away or fix it" % (FILE_PATH, exc)
            )
        targets, missing = [], []
        for index, entry in enumerate(self.nm.entries):
            try:
                ifname = self.nm._resolve(entry, index)
                problem = netplan_name_problem(ifname)
                if problem:
                    raise ResourceError("%s: %s" % (cfg.selector_field(entry, index), problem))
            except ResourceError as exc:
                if self.params["if_missing"] != "warn" or self.params["state"] == "deleted":
                    raise
                missing.append({"entry": cfg.selector_text(entry), "reason": exc.msg})
                continue
            targets.extend(self.nm._targets(entry, index, ifname))
        self.nm.missing = missing
        ifaces = {}
        for target in targets:
            for name in (target.ifname, target.parent):
                if name and name not in ifaces:
                    ifaces[name] = self.nm.read_link(name)
        return {"text": text, "doc": doc, "mode": self._mode(), "ifaces": ifaces, "targets": targets}

    @staticmethod
    def _mode():
        try:
            return stat.S_IMODE(os.stat(host_files.path(FILE_PATH)).st_mode)
        except (IOError, OSError):
            return None

    def gather(self, current):
        ethernets, vlans = sections(current["doc"])
        wanted = set(t.ifname for t in current["targets"])
        result = []
        for section, items in (("ethernets", ethernets), ("vlans", vlans)):
            for name in sorted(items):
                if wanted and name not in wanted:
                    continue
                data = canonical_stanza(items[name] or {})
                entry = {
                    "name": name,
                    "addresses": list(data.get("addresses") or []),
                    "routes": list(data.get("routes") or []),
                    "mtu": data.get("mtu"),
                }
                if section == "vlans":
                    entry["vlan"] = {"parent": data.get("link"), "id": data.get("id")}
                result.append(entry)
        return result

    # -- plan ----------------------------------------------------------------------------------
    def _wanted_doc(self, current):
        ethernets, vlans = sections(current["doc"])
        replace = self.params["state"] == "replaced"
        deleting = self.params["state"] == "deleted"
        for target in current["targets"]:
            if target.vlan_id is None:
                if deleting:
                    ethernets.pop(target.ifname, None)
                else:
                    ethernets[target.ifname] = stanza(target.spec, ethernets.get(target.ifname), replace)
            else:
                if deleting:
                    vlans.pop(target.ifname, None)
                    continue
                data = stanza(target.spec, vlans.get(target.ifname), replace)
                data["id"] = target.vlan_id
                data["link"] = target.parent
                vlans[target.ifname] = data
        if not deleting:
            # netplan needs the link of a VLAN defined; an empty mapping adds nothing to it
            for data in vlans.values():
                link = (data or {}).get("link")
                if link and link not in ethernets:
                    ethernets[link] = {}
        return build_doc(ethernets, vlans, current["doc"])

    def plan(self, current):
        for target in current["targets"]:
            self.nm._refuse_loopback(current, target)
        if self.params["state"] != "deleted":
            for target in current["targets"]:
                self.nm._check_on_host(current, target)
        wanted = self._wanted_doc(current)
        file_changes = canonical_doc(wanted) != canonical_doc(current["doc"])
        changes = []
        apply_needed = file_changes
        for target in current["targets"]:
            differs = self._stanza(current["doc"], target) != self._stanza(wanted, target)
            active = self._active_differs(current, target, wanted) if wanted is not None else False
            apply_needed = apply_needed or active
            changes.append(Change(target.ifname, [], want={"target": target, "differs": differs or active}))
        steps = []
        if file_changes:
            steps.append(
                Step(
                    action=lambda: self._write(wanted),
                    text=host_files.change_text(FILE_PATH, wanted),
                    kind="configure",
                    scope="persistent",
                )
            )
        elif wanted is not None and current["mode"] not in (None, FILE_MODE):
            # netplan warns about a configuration others can read; the mode alone needs no apply
            steps.append(
                Step(
                    action=self._chmod,
                    text="chmod %04o %s" % (FILE_MODE, FILE_PATH),
                    kind="configure",
                    scope="persistent",
                )
            )
        if apply_needed:
            steps.extend(self._apply_steps(current, "activate"))
        if self.params["state"] == "deleted" and file_changes:
            for target in current["targets"]:
                info = current["ifaces"].get(target.ifname)
                if info and info.get("addresses"):
                    steps.append(
                        Step(
                            [self.ip, "address", "flush", "dev", target.ifname, "scope", "global"],
                            kind="delete",
                            scope="active",
                            disruptive=True,
                        )
                    )
        changes.append(Change(FILE_PATH, steps, want={"file": True, "doc": wanted}, label=FILE_PATH))
        return changes

    def _apply_steps(self, current, kind):
        """``netplan apply`` when systemd is PID 1. Without it (a container) ``netplan apply`` stops at
        ``systemctl daemon-reload``; then the steps it takes for systemd-networkd without systemctl:
        ``netplan generate``, ``networkctl reload`` (reads the new files, creates new VLANs) and
        ``networkctl reconfigure`` of the configured interfaces that exist."""
        pid1 = host_files.read_attr(PID1_COMM)
        if pid1 is None or pid1.strip() == "systemd":
            return [Step([self.netplan, "apply"], kind=kind, scope="active", disruptive=True)]
        networkctl = self.module.get_bin_path("networkctl")
        if not networkctl:
            raise ResourceError(
                "%s needs applying, but PID 1 is %s, not systemd, which netplan apply needs for systemctl "
                "daemon-reload, and networkctl (systemd-networkd) is not installed: nothing was changed"
                % (FILE_PATH, pid1.strip())
            )
        names = []
        for target in current["targets"]:
            if current["ifaces"].get(target.ifname) is not None and target.ifname not in names:
                names.append(target.ifname)
        steps = [
            Step([self.netplan, "generate"], kind=kind, scope="active"),
            Step([networkctl, "reload"], kind=kind, scope="active"),
        ]
        if names:
            steps.append(Step([networkctl, "reconfigure"] + names, kind=kind, scope="active", disruptive=True))
        return steps

    @staticmethod
    def _stanza(doc, target):
        ethernets, vlans = sections(doc)
        items = vlans if target.vlan_id is not None else ethernets
        data = items.get(target.ifname)
        return canonical_stanza(data) if data is not None else None

    def _active_differs(self, current, target, doc):
        iface = current["ifaces"].get(target.ifname)
        data = self._stanza(doc, target) or {}
        if iface is None:
            return True  # a VLAN netplan creates
        if "addresses" in data and sorted(data["addresses"], key=_key) != iface["addresses"]:
            return True
        return "mtu" in data and data["mtu"] != iface.get("mtu")

    def _write(self, doc):
        if doc is None:
            host_files.remove(FILE_PATH)
        else:
            host_files.write_atomic(FILE_PATH, dump(doc), module=self.module, mode=FILE_MODE)
            self._chmod()

    @staticmethod
    def _chmod():
        # an existing file keeps its mode through write_atomic; this one is always 0600
        os.chmod(host_files.path(FILE_PATH), FILE_MODE)

    def _restore(self, text):
        if text is None:
            host_files.remove(FILE_PATH)
        else:
            host_files.write_atomic(FILE_PATH, text, module=self.module, mode=FILE_MODE)

    def guard(self, current, changes):
        file_change = changes[-1]
        if not any(s.disruptive for s in file_change.steps):
            return
        for change in changes[:-1]:
            if not change.want["differs"]:
                continue
            target = change.want["target"]
            self._interface_guard.check(
                target,
                [s.command for s in file_change.steps],
                (
                    "remove its netplan configuration and its addresses"
                    if self.params["state"] == "deleted"
                    else "re-apply it with the netplan file's addresses"
                ),
            )

    # -- prediction, views, drift --------------------------------------------------------------
    def predict(self, current, changes):
        file_change = changes[-1]
        doc = file_change.want["doc"]
        ifaces = dict(current["ifaces"])
        if file_change.steps:
            for target in current["targets"]:
                iface = dict(ifaces.get(target.ifname) or {})
                data = self._stanza(doc, target) or {}
                if self.params["state"] == "deleted":
                    if iface:
                        iface["addresses"] = []
                        ifaces[target.ifname] = iface
                    continue
                if "addresses" in data:
                    iface["addresses"] = sorted(data["addresses"], key=_key)
                if "mtu" in data:
                    iface["mtu"] = data["mtu"]
                ifaces[target.ifname] = iface
        return {
            "text": dump(doc) if doc is not None else None,
            "doc": doc or {},
            "mode": FILE_MODE if doc is not None else None,
            "ifaces": ifaces,
            "targets": current["targets"],
        }

    def public_view(self, state, change):
        if change.want.get("file"):
            mode = state.get("mode")
            return {
                "file": FILE_PATH,
                "present": state["text"] is not None,
                "mode": "%04o" % mode if mode is not None else None,
                "network": canonical_doc(state["doc"]),
            }
        target = change.want["target"]
        iface = state["ifaces"].get(target.ifname) or {}
        return {
            "interface": target.ifname,
            "file": FILE_PATH,
            "netplan": self._stanza(state["doc"], target),
            "active": {"addresses": list(iface.get("addresses") or []), "mtu": iface.get("mtu")} if iface else None,
        }

    def view(self, state, change):
        public = self.public_view(state, change)
        if change.want.get("file"):
            return {"persistent": {"mode": public["mode"]} if public["present"] else None}
        return {"active": public["active"], "persistent": public["netplan"]}

    def drift(self, before, after, change):
        if change.want.get("file") and (before["persistent"] is None or after["persistent"] is None):
            return []  # the file's content is in the rows of its interfaces; only its mode is its own
        return super(NetplanInterfaces, self).drift(before, after, change)

    def unplanned_drift(self, state):
        return self.nm.unplanned_drift(state)

    def diff(self, before_state, after_state, changes):
        return {
            "before": before_state["text"] or "",
            "after": after_state["text"] or "",
            "before_header": "%s (before)" % FILE_PATH,
            "after_header": "%s (after)" % FILE_PATH,
        }

    def extras(self, state, changes, failed=False):
        result = self.nm.extras(state, [c for c in changes if not c.want.get("file")], failed)
        result["backend"] = "netplan"
        result["netplan_file"] = FILE_PATH
        return result

    # -- failure -------------------------------------------------------------------------------
    def rollback(self, before, now, change, ran):
        """After a failed ``netplan apply`` (or address flush): the previous file back, applied again.
        A failed write changed nothing (the file is replaced by a rename)."""
        if not change.want.get("file") or not ran or ran[-1].kind == "configure":
            return []
        if not any(s.kind == "configure" for s in ran):
            return []
        text = before["text"]
        steps = [
            Step(action=lambda: self._restore(text), text=host_files.change_text(FILE_PATH, text), kind="rollback")
        ]
        try:
            return steps + self._apply_steps(before, "rollback")
        except ResourceError:
            return steps

    def failure_message(self, change, step, rc, out, err):
        detail = "\n".join(x.strip() for x in (err or "", out or "") if x and x.strip())
        return "ip %s: %s failed (exit code %s)%s" % (change.label, step.command, rc, ": " + detail if detail else "")


def _key(text):
    iface = ipaddress.ip_interface(text)
    return (iface.version, iface.ip)
