# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""ip_interfaces on the resource engine: one change per interface (and per VLAN on it), each a
NetworkManager connection profile and its activation.

Order of a change: ``nmcli connection add`` (no profile of that name yet) or ``modify`` (only the
properties that differ), then ``nmcli connection up`` when the profile changed, is not the active
one of the device, or the device's addresses or MTU differ from it. Everything that needs no host
is checked first (ip_interface_config); on the host the interface is resolved (a qeth device ID
through its ``if_name``, a MAC through ``/sys/class/net/*/address``), the MTU is checked against the
device's ``max_mtu`` (``ip -d -j addr``) and a VLAN against its parent (a qeth device must be a
layer-2 one). A failed step puts the profile back as it was (or deletes the one this run added) and
re-activates it when it was active.
"""

import ipaddress
import json
import os
import time

from ansible_collections.s390x.network.plugins.module_utils.engine import host_files
from ansible_collections.s390x.network.plugins.module_utils.ip import ifname as ip_ifname
from ansible_collections.s390x.network.plugins.module_utils.ip import config as cfg
from ansible_collections.s390x.network.plugins.module_utils.ip import netplan as ip_netplan
from ansible_collections.s390x.network.plugins.module_utils.ip import nm_cli
from ansible_collections.s390x.network.plugins.module_utils.engine.mgmt_connection import (
    InterfaceGuard,
)
from ansible_collections.s390x.network.plugins.module_utils.engine.resource import Change, Resource, ResourceError, Step

STATES = ("merged", "replaced", "deleted", "gathered", "rendered")
# NMDeviceState: 40 (prepare) .. 90 (secondaries) are the steps of an activation, 100 is activated
NM_ACTIVATING = (40, 100)
ACTIVATION_WAIT = 15.0
CCWGROUP = "/sys/bus/ccwgroup/devices"
SYS_NET = "/sys/class/net"
NO_NM_HINT = (
    "this module configures interfaces through NetworkManager (RHEL 8/9/10, SLES 16, and hosts of other "
    "distributions that run it) or netplan (Ubuntu: the netplan command and %s); SLES 15 (wicked) is not "
    "supported" % ip_netplan.NETPLAN_DIR
)
OS_RELEASE = "/etc/os-release"
WICKED = "/usr/sbin/wicked"


def os_release():
    """/etc/os-release as {KEY: value} (quotes taken off); {} when it cannot be read."""
    text = host_files.read_attr(OS_RELEASE) or ""
    result = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip():
            result[key.strip()] = value.strip().strip("\"'")
    return result


def wicked_host():
    """How the host shows that wicked configures it (SLES 15, openSUSE Leap 15), None when not."""
    release = os_release()
    ids = (release.get("ID", "") + " " + release.get("ID_LIKE", "")).split()
    if ("sles" in ids or "suse" in ids or "opensuse" in ids) and release.get("VERSION_ID", "").startswith("15"):
        return "%s (wicked)" % (release.get("PRETTY_NAME") or "SLES 15")
    if os.path.exists(host_files.path(WICKED)):
        return "wicked (%s)" % WICKED
    return None


def qeth_ifname(busid):
    name = host_files.read_attr("%s/%s/if_name" % (CCWGROUP, busid))
    return None if not name or name.startswith("(") else name


def ifname_by_mac(mac):
    """The Ethernet interface with address ``mac`` that sits on no other device (a VLAN or MacVTap
    on top of it has the same address)."""
    try:
        names = sorted(os.listdir(host_files.path(SYS_NET)))
    except (IOError, OSError):
        return None
    for name in names:
        base = "%s/%s" % (SYS_NET, name)
        if (host_files.read_attr(base + "/address") or "").lower() != mac or host_files.read_attr(
            base + "/type"
        ) != "1":
            continue
        try:
            entries = os.listdir(host_files.path(base))
        except (IOError, OSError):
            continue
        if not any(e.startswith("lower_") for e in entries):
            return name
    return None


def qeth_layer2(ifname):
    """True/False for a qeth interface (its device's ``layer2``), None for others."""
    value = host_files.read_attr("%s/%s/device/layer2" % (SYS_NET, ifname))
    return None if value is None else value == "1"


def parse_ip_addr_json(text):
    """``ip -d -j addr show dev IF`` -> dict(mtu, max_mtu, operstate, addresses) or None."""
    try:
        data = json.loads(text or "[]")
    except ValueError:
        return None
    if not data:
        return None
    link = data[0]
    addresses = []
    for info in link.get("addr_info") or []:
        if info.get("family") not in ("inet", "inet6") or info.get("scope") == "link":
            continue
        addresses.append("%s/%s" % (info.get("local"), info.get("prefixlen")))
    return {
        "mtu": link.get("mtu"),
        "max_mtu": link.get("max_mtu"),
        "operstate": link.get("operstate"),
        "addresses": sorted(addresses, key=_addr_key),
    }


def _addr_key(text):
    iface = ipaddress.ip_interface(text)
    return (iface.version, iface.ip)


class Target(object):
    """One profile to manage: the interface (or VLAN) of a config entry, resolved on the host."""

    def __init__(self, entry, index, ifname, ctype=cfg.ETHERNET, parent=None, vlan_id=None, spec=None):
        self.entry = entry
        self.index = index
        self.ifname = ifname
        self.ctype = ctype
        self.parent = parent
        self.vlan_id = vlan_id
        self.spec = spec if spec is not None else entry
        self.where = "config[%d]" % index + (".vlans[id=%d]" % vlan_id if vlan_id is not None else "")

    @property
    def connection(self):
        return self.spec["connection"] or self.ifname


class IpInterfaces(Resource):
    kind = "ip"
    drift_kind = "ip"
    scopes = ("active", "persistent")
    runner_name = "nmcli"
    restores = "previous profile"

    def __init__(self, module):
        super(IpInterfaces, self).__init__(module)
        self.entries = []
        self.nmcli = None
        self.netplan = None
        self.ip = None
        self._interface_guard = InterfaceGuard(module)
        self.missing = []
        self._warned = set()

    # -- no host -------------------------------------------------------------------------------
    def validate(self):
        errors = []
        for index, item in enumerate(self.params["config"] or []):
            try:
                self.entries.append(cfg.normalize_entry(item, index))
            except cfg.ConfigError as exc:
                errors.append(str(exc))
        if not errors and self.params["state"] in ("merged", "replaced", "rendered") and not self.entries:
            errors.append("config: state %s needs at least one entry" % self.params["state"])
        return errors

    def render(self):
        commands = []
        for index, entry in enumerate(self.entries):
            ifname = entry["name"] or "{%s}" % cfg.selector_text(entry)
            for target in self._targets(entry, index, ifname):
                props = self._wanted(target)
                commands.append(nm_cli.argv_add(props))
                commands.append(nm_cli.argv_up(("id", props["connection.id"])))
        return [" ".join(c) for c in commands]

    # -- host ----------------------------------------------------------------------------------
    def prepare(self):
        self._find_nmcli()
        return []

    def _find_nmcli(self):
        """nmcli and ip, and NetworkManager running (also for state gathered, which has no prepare
        step)."""
        if self.nmcli:
            return
        if self.detect_stack() != "nm":
            raise ResourceError("NetworkManager is not running: %s" % NO_NM_HINT)

    def detect_stack(self):
        """The host's network configuration: ``nm`` (NetworkManager runs: nmcli), ``netplan`` (no
        NetworkManager running, not a wicked host, the netplan command and its directory present).
        Anything else raises ResourceError naming what the host has (SLES 15's wicked by its
        os-release, also when netplan happens to be installed)."""
        nmcli = self.module.get_bin_path("nmcli")
        if nmcli:
            rc, out, err = self._cmd(nm_cli.argv_running(nmcli))
            if rc == 0:
                self.nmcli = nmcli
                self.ip = self.module.get_bin_path("ip", required=True)
                return "nm"
            reason = "NetworkManager is not running (nmcli exit code %d: %s)" % (rc, (err or out).strip())
        else:
            reason = "nmcli not found"
        wicked = wicked_host()
        if wicked:
            raise ResourceError(
                "%s and this host is configured by %s, which ip_interfaces does not manage (SLES 15 (wicked) is "
                "not supported; SLES 16 runs NetworkManager): configure its interfaces with wicked (yast2 lan, "
                "/etc/sysconfig/network/ifcfg-*)" % (reason, wicked)
            )
        netplan = self.module.get_bin_path("netplan")
        if netplan and os.path.isdir(host_files.path(ip_netplan.NETPLAN_DIR)):
            self.netplan = netplan
            self.ip = self.module.get_bin_path("ip", required=True)
            return "netplan"
        raise ResourceError("%s: %s" % (reason, NO_NM_HINT))

    def _cmd(self, argv):
        return self.module.run_command(argv, environ_update={"LC_ALL": "C"})

    def _targets(self, entry, index, ifname):
        yield Target(entry, index, ifname)
        for vlan in entry["vlans"]:
            yield Target(
                entry,
                index,
                cfg.vlan_ifname(ifname, vlan["id"]),
                ctype=cfg.VLAN,
                parent=ifname,
                vlan_id=vlan["id"],
                spec=vlan,
            )

    def _resolve(self, entry, index):
        if entry["name"]:
            return entry["name"]
        name = self._resolve_on_host(entry, index)
        # a name read from the host is data, but it goes into nmcli's argv like a given one
        field = cfg.selector_field(entry, index)
        problem = nm_cli.ifname_problem(name)
        if problem:
            raise ResourceError(
                "%s: %s resolves to an interface this module cannot pass to nmcli: %s"
                % (field, cfg.selector_text(entry), problem)
            )
        for vlan in entry["vlans"]:
            problem = ip_ifname.ifname_problem(cfg.vlan_ifname(name, vlan["id"]))
            if problem:
                raise ResourceError("%s: the VLAN interface of VLAN %d on %s: %s" % (field, vlan["id"], name, problem))
        return name

    def _resolve_on_host(self, entry, index):
        if entry["device"]:
            name = qeth_ifname(entry["device"])
            if not name:
                exists = os.path.isdir(host_files.path("%s/%s" % (CCWGROUP, entry["device"])))
                raise ResourceError(
                    "config[%d].device: qeth device %s %s"
                    % (
                        index,
                        entry["device"],
                        "has no network interface (it is not online)" if exists else "does not exist (not grouped)",
                    )
                )
            return name
        name = ifname_by_mac(entry["mac"])
        if not name:
            raise ResourceError("config[%d].mac: no network interface has the address %s" % (index, entry["mac"]))
        return name

    def read(self):
        self._find_nmcli()
        rc, out, err = self._cmd(nm_cli.argv_list_profiles(self.nmcli))
        if rc != 0:
            raise ResourceError("nmcli connection show failed (exit code %d): %s" % (rc, err.strip()))
        profiles = {}
        for row in nm_cli.parse_list_profiles(out):
            if row["type"] not in (cfg.ETHERNET, cfg.VLAN):
                continue
            rc, out, err = self._cmd(nm_cli.argv_show_profile(row["uuid"], row["type"], self.nmcli))
            if rc != 0:
                continue  # deleted between the two calls
            props = nm_cli.parse_terse(out)
            profiles[row["uuid"]] = {"props": props, "device": row["device"]}
        targets, ifaces = [], {}
        self.missing = []
        for index, entry in enumerate(self.entries):
            try:
                ifname = self._resolve(entry, index)
            except ResourceError as exc:
                if self.params["if_missing"] != "warn" or self.params["state"] == "deleted":
                    raise
                # a guest NIC that appears when the guest starts with its new definition
                self.missing.append({"entry": cfg.selector_text(entry), "reason": exc.msg})
                continue
            for target in self._targets(entry, index, ifname):
                targets.append(target)
        for target in targets:
            for name in (target.ifname, target.parent):
                if name and name not in ifaces:
                    ifaces[name] = self._read_iface(name)
        return {"profiles": profiles, "ifaces": ifaces, "targets": targets}

    def _read_iface(self, ifname):
        # NetworkManager may still be activating the device (after a boot, or when the device just
        # appeared): wait for it to settle, so that its addresses are not read half-way
        deadline = time.time() + ACTIVATION_WAIT
        while True:
            info = self._read_iface_once(ifname)
            state = info["nm_state"] if info else None
            if state is None or not NM_ACTIVATING[0] <= state < NM_ACTIVATING[1] or time.time() >= deadline:
                return info
            time.sleep(0.5)

    def read_link(self, ifname):
        """The device as ``ip`` and sysfs show it (mtu, max_mtu, addresses, layer2, type); None when
        it does not exist."""
        rc, out, _err = self._cmd([self.ip, "-d", "-j", "addr", "show", "dev", ifname])
        info = parse_ip_addr_json(out) if rc == 0 else None
        if info is None:
            return None
        info["layer2"] = qeth_layer2(ifname)
        info["type"] = host_files.read_attr("%s/%s/type" % (SYS_NET, ifname))
        return info

    def _read_iface_once(self, ifname):
        info = self.read_link(ifname)
        if info is None:
            return None
        rc, out, _err = self._cmd(nm_cli.argv_device_show(ifname, self.nmcli))
        info["nm_state"], info["active_uuid"] = nm_cli.parse_device_state(out) if rc == 0 else (None, None)
        return info

    @staticmethod
    def profiles_named(current, name):
        return sorted(
            (uuid for uuid, p in current["profiles"].items() if p["props"].get("connection.id") == name),
        )

    def gather(self, current):
        result = []
        wanted = set(t.ifname for t in current["targets"])
        for uuid in sorted(current["profiles"]):
            props = current["profiles"][uuid]["props"]
            ifname = props.get("connection.interface-name")
            if wanted and ifname not in wanted:
                continue
            addresses = nm_cli.split_list(props.get("ipv4.addresses")) + nm_cli.split_list(props.get("ipv6.addresses"))
            routes = [
                cfg.parse_route_text(text)
                for key in ("ipv4.routes", "ipv6.routes")
                for text in nm_cli.split_list(props.get(key))
            ]
            mtu = props.get("802-3-ethernet.mtu")
            entry = {
                "name": ifname,
                "connection": props.get("connection.id"),
                "addresses": addresses,
                "routes": routes,
                "mtu": int(mtu) if mtu and mtu.isdigit() and mtu != "0" else None,
                "autoconnect": props.get("connection.autoconnect") == "yes",
            }
            if props.get("connection.type") == cfg.VLAN:
                entry["vlan"] = {"parent": props.get("vlan.parent"), "id": int(props.get("vlan.id") or 0)}
            result.append(entry)
        return result

    # -- plan ----------------------------------------------------------------------------------
    def _wanted(self, target):
        return cfg.wanted_properties(
            target.spec,
            target.ifname,
            ctype=target.ctype,
            parent=target.parent,
            vlan_id=target.vlan_id,
            replace=self.params["state"] == "replaced",
        )

    @staticmethod
    def _refuse_loopback(current, target):
        for name in (target.ifname, target.parent):
            info = current["ifaces"].get(name) if name else None
            if name == cfg.LOOPBACK_NAME or (info is not None and info.get("type") == cfg.ARPHRD_LOOPBACK):
                raise ResourceError(
                    "%s: %s is a loopback interface (type %s); ip_interfaces manages Ethernet interfaces and "
                    "VLANs, not loopback" % (cfg.selector_field(target.entry, target.index), name, cfg.ARPHRD_LOOPBACK)
                )

    def _check_on_host(self, current, target):
        iface = current["ifaces"].get(target.ifname)
        if target.vlan_id is not None:
            parent = current["ifaces"].get(target.parent)
            if parent is None:
                raise ResourceError("%s: the VLAN's parent %s does not exist" % (target.where, target.parent))
            if parent["layer2"] is False:
                raise ResourceError(
                    "%s: %s is a layer-3 qeth device; VLANs need a layer-2 device (qeth layer2: true)"
                    % (target.where, target.parent)
                )
            limit = parent.get("max_mtu")
        else:
            if iface is None:
                raise ResourceError("%s: interface %s does not exist" % (target.where, target.ifname))
            limit = iface.get("max_mtu")
        mtu = target.spec["mtu"]
        if mtu is not None and limit and mtu > limit:
            raise ResourceError(
                "%s.mtu: %d is above the maximum MTU %d of %s"
                % (target.where, mtu, limit, target.parent if target.vlan_id is not None else target.ifname)
            )

    def plan(self, current):
        changes = []
        deleting = self.params["state"] == "deleted"
        targets = current["targets"]
        if deleting:
            # VLANs before the interface they sit on
            targets = [t for t in targets if t.vlan_id is not None] + [t for t in targets if t.vlan_id is None]
        for target in targets:
            self._refuse_loopback(current, target)
        for target in targets:
            named = self.profiles_named(current, target.connection)
            if len(named) > 1:
                raise ResourceError(
                    "%s: %d NetworkManager profiles are named %s (%s); delete the extra ones or give connection"
                    % (target.where, len(named), target.connection, ", ".join(named))
                )
            have = current["profiles"][named[0]] if named else None
            ref = ("uuid", named[0]) if named else ("id", target.connection)
            if deleting:
                steps = [] if have is None else [Step(nm_cli.argv_delete(ref, self.nmcli), kind="delete")]
                changes.append(Change(target.ifname, steps, want={"target": target, "delete": True}))
                continue
            self._check_on_host(current, target)
            wanted = self._wanted(target)
            steps = []
            if have is None:
                steps.append(Step(nm_cli.argv_add(wanted, self.nmcli), kind="configure", scope="persistent"))
            else:
                names = cfg.differing(wanted, have["props"])
                if names:
                    update = dict((n, wanted[n]) for n in names)
                    steps.append(
                        Step(nm_cli.argv_modify(ref, update, self.nmcli), kind="configure", scope="persistent")
                    )
            merged = dict(have["props"]) if have else {}
            merged.update(wanted)
            if steps or self._active_differs(current, target, merged, named[0] if named else None):
                steps.append(Step(nm_cli.argv_up(ref, self.nmcli), kind="activate", scope="active", disruptive=True))
            changes.append(Change(target.ifname, steps, want={"target": target, "props": merged}))
        return changes

    @staticmethod
    def _profile_addresses(props):
        return sorted(
            (
                str(ipaddress.ip_interface(a))
                for k in ("ipv4.addresses", "ipv6.addresses")
                for a in nm_cli.split_list(props.get(k))
            ),
            key=_addr_key,
        )

    def _active_differs(self, current, target, props, uuid):
        iface = current["ifaces"].get(target.ifname)
        if iface is None or uuid is None or iface.get("active_uuid") != uuid:
            return True
        if iface["addresses"] != self._profile_addresses(props):
            return True
        mtu = cfg.canonical("802-3-ethernet.mtu", props.get("802-3-ethernet.mtu"))
        return mtu != "auto" and str(iface.get("mtu")) != mtu

    def guard(self, current, changes):
        for change in changes:
            if not any(s.disruptive or s.kind == "delete" for s in change.steps):
                continue
            target = change.want["target"]
            self._interface_guard.check(
                target,
                [s.command for s in change.steps],
                (
                    "delete its profile and its addresses"
                    if change.want.get("delete")
                    else "re-activate it with the profile's addresses"
                ),
            )

    # -- prediction, views, drift --------------------------------------------------------------
    def predict(self, current, changes):
        predicted = {
            "profiles": dict(current["profiles"]),
            "ifaces": dict(current["ifaces"]),
            "targets": current["targets"],
        }
        for change in changes:
            target = change.want["target"]
            named = self.profiles_named(predicted, target.connection)
            if change.want.get("delete"):
                for uuid in named:
                    predicted["profiles"].pop(uuid, None)
                iface = predicted["ifaces"].get(target.ifname)
                if iface is not None and named and iface.get("active_uuid") in named:
                    iface = dict(iface, addresses=[], active_uuid=None)
                    predicted["ifaces"][target.ifname] = iface
                continue
            if not change.steps:
                continue
            uuid = named[0] if named else "(new)"
            predicted["profiles"][uuid] = {
                "props": dict(change.want["props"], **{"connection.uuid": uuid}),
                "device": target.ifname,
            }
            iface = dict(predicted["ifaces"].get(target.ifname) or {})
            iface["addresses"] = self._profile_addresses(change.want["props"])
            mtu = cfg.canonical("802-3-ethernet.mtu", change.want["props"].get("802-3-ethernet.mtu"))
            if mtu != "auto":
                iface["mtu"] = int(mtu)
            iface["active_uuid"] = uuid
            predicted["ifaces"][target.ifname] = iface
        return predicted

    def public_view(self, state, change):
        target = change.want["target"]
        named = self.profiles_named(state, target.connection)
        profile = None
        if named:
            props = state["profiles"][named[0]]["props"]
            profile = dict((k, cfg.canonical(k, props.get(k))) for k in sorted(nm_cli.managed_fields(target.ctype)))
        iface = state["ifaces"].get(target.ifname) or {}
        return {
            "interface": target.ifname,
            "connection": target.connection,
            "profile": profile,
            "active": (
                {
                    "addresses": list(iface.get("addresses") or []),
                    "mtu": iface.get("mtu"),
                    "profile_active": bool(named) and iface.get("active_uuid") in named,
                }
                if iface
                else None
            ),
        }

    def view(self, state, change):
        public = self.public_view(state, change)
        return {"active": public["active"], "persistent": public["profile"]}

    def unplanned_drift(self, state):
        return [(item["entry"], "active", "missing") for item in self.missing]

    def extras(self, state, changes, failed=False):
        result = {}
        for change in changes:
            target = change.want["target"]
            if target.vlan_id is None:
                result[cfg.selector_text(target.entry)] = target.ifname
        for item in self.missing:
            if item["entry"] not in self._warned:
                self._warned.add(item["entry"])
                self.module.warn("ip: %s skipped: %s" % (item["entry"], item["reason"]))
        return {"interfaces": result, "missing": list(self.missing)}

    # -- failure -------------------------------------------------------------------------------
    def rollback(self, before, now, change, ran):
        target = change.want["target"]
        was = self.profiles_named(before, target.connection)
        is_now = self.profiles_named(now, target.connection)
        steps = []
        if not was:
            for uuid in is_now:
                steps.append(Step(nm_cli.argv_delete(("uuid", uuid), self.nmcli), kind="rollback"))
            return steps
        uuid = was[0]
        old = before["profiles"][uuid]["props"]
        cur = now["profiles"].get(uuid, {}).get("props", {})
        back = dict(
            (k, old.get(k))
            for k in nm_cli.managed_fields(target.ctype)
            if cfg.canonical(k, old.get(k)) != cfg.canonical(k, cur.get(k))
        )
        if back:
            steps.append(Step(nm_cli.argv_modify(("uuid", uuid), back, self.nmcli), kind="rollback"))
        iface = before["ifaces"].get(target.ifname) or {}
        if iface.get("active_uuid") == uuid:
            steps.append(Step(nm_cli.argv_up(("uuid", uuid), self.nmcli), kind="rollback"))
        return steps


class IpInterfacesOnHost(object):
    """The resource ip_interfaces runs: the NetworkManager one (IpInterfaces) or, on a host that
    netplan configures, ip_netplan.NetplanInterfaces; chosen when the host is first read, after every
    check that needs no host passed. Every other hook goes to the chosen one."""

    def __init__(self, module):
        self.nm = IpInterfaces(module)
        self.impl = None

    def validate(self):
        return self.nm.validate()

    def render(self):
        return self.nm.render()

    def _pick(self):
        if self.impl is None:
            if self.nm.detect_stack() == "netplan":
                errors = ip_netplan.validate_entries(self.nm.entries)
                if errors:
                    raise ResourceError("; ".join(errors), backend="netplan")
                self.impl = ip_netplan.NetplanInterfaces(self.nm.module, self.nm, self.nm.netplan)
            else:
                self.impl = self.nm
        return self.impl

    def prepare(self):
        return self._pick().prepare()

    def read(self):
        return self._pick().read()

    def close(self):
        (self.impl or self.nm).close()

    def __getattr__(self, name):
        impl = self.__dict__.get("impl") or self.__dict__["nm"]
        return getattr(impl, name)
