"""The CPC model of a lab, read from an Ansible inventory directory.

Inputs (design section 1a): the ``cpc:`` variable (group_vars/all), per host ``zlab_kernel`` (kernel
profile), ``kvm_guests`` (guests of a KVM host), ``qeth_devices`` (desired config, not applied by
zlab: hosts start unconfigured). Every partition of ``cpc.partitions`` with a ``host`` becomes an
emulated host (an LPAR; a KVM host when it has ``kvm_guests`` or is in group ``kvm_hosts``), and
every guest named in a KVM host's ``kvm_guests`` (or as ``guest:`` of an ISM function) becomes an
emulated KVM guest.

The inventory is read with ``ansible-inventory --list --export`` when Ansible is installed (any
inventory source Ansible understands), else hosts.yml/hosts.ini-less YAML plus group_vars/host_vars
are parsed directly.
"""

import json
import os
import re
import shutil
import subprocess
import sys

import yaml

DEFAULT_KERNEL = "linux6.12"
KERNEL_PROFILES = ("rhel8.8", "sles15sp5", "ubuntu23.04", "linux6.12")
FRAME_SIZES = {"16K": 8192, "24K": 16384, "40K": 32768, "64K": 57344}  # frame -> MTU
PFT = {"ism": 0x05, "roce": 0x0A}
PCI_IDS = {"ism": (0x1014, 0x04ED), "roce": (0x15B3, 0x1016)}


class ModelError(Exception):
    """The inventory does not describe a valid CPC; the message names the field."""


# ----------------------------------------------------------------------------- inventory reading

def _ansible_inventory_bin():
    cand = os.path.join(os.path.dirname(sys.executable), "ansible-inventory")
    if os.access(cand, os.X_OK):
        return cand
    return shutil.which("ansible-inventory")


def read_inventory(inv_dir):
    """Return (groups, hostvars): groups = {name: {"hosts": [...], "children": [...], "vars": {}}},
    hostvars = {host: {merged vars}} (group vars applied by depth, host vars last)."""
    if not os.path.exists(inv_dir):
        raise ModelError("inventory %s does not exist" % inv_dir)
    exe = _ansible_inventory_bin()
    if exe and os.environ.get("ZLAB_NO_ANSIBLE_INVENTORY") != "1":
        return _read_with_ansible(exe, inv_dir)
    return _read_yaml(inv_dir)


def _read_with_ansible(exe, inv_dir):
    env = dict(os.environ, ANSIBLE_INVENTORY_UNPARSED_WARNING="False",
               ANSIBLE_LOCALHOST_WARNING="False", ANSIBLE_DEPRECATION_WARNINGS="False")
    proc = subprocess.run([exe, "-i", inv_dir, "--list", "--export"], capture_output=True,
                          text=True, env=env, check=False)
    if proc.returncode != 0:
        raise ModelError("ansible-inventory -i %s failed: %s" % (inv_dir, proc.stderr.strip()))
    data = json.loads(proc.stdout)
    meta = data.pop("_meta", {}).get("hostvars", {})
    groups = {}
    for name, g in data.items():
        groups[name] = {"hosts": list(g.get("hosts", [])), "children": list(g.get("children", [])),
                        "vars": dict(g.get("vars", {}))}
    return groups, {h: dict(v) for h, v in meta.items()}


def _load_vars_path(base):
    """group_vars/NAME(.yml|.yaml|/ *.yml)."""
    out = {}
    paths = []
    for ext in ("", ".yml", ".yaml", ".json"):
        if os.path.isfile(base + ext):
            paths.append(base + ext)
    if os.path.isdir(base):
        for f in sorted(os.listdir(base)):
            if f.endswith((".yml", ".yaml", ".json")):
                paths.append(os.path.join(base, f))
    for p in paths:
        with open(p, encoding="utf-8") as fh:
            d = yaml.safe_load(fh) or {}
        if not isinstance(d, dict):
            raise ModelError("%s: expected a mapping" % p)
        out.update(d)
    return out


def _read_yaml(inv_dir):
    if os.path.isdir(inv_dir):
        hosts_file = None
        for cand in ("hosts.yml", "hosts.yaml", "inventory.yml", "hosts"):
            if os.path.isfile(os.path.join(inv_dir, cand)):
                hosts_file = os.path.join(inv_dir, cand)
                break
        if hosts_file is None:
            raise ModelError("%s: no hosts.yml" % inv_dir)
        base = inv_dir
    else:
        hosts_file, base = inv_dir, os.path.dirname(inv_dir)
    with open(hosts_file, encoding="utf-8") as fh:
        data = yaml.safe_load(fh) or {}
    groups = {}
    host_inline = {}

    def walk(name, g):
        g = g or {}
        entry = groups.setdefault(name, {"hosts": [], "children": [], "vars": {}})
        for h, hv in (g.get("hosts") or {}).items():
            if h not in entry["hosts"]:
                entry["hosts"].append(h)
            host_inline.setdefault(h, {}).update(hv or {})
        entry["vars"].update(g.get("vars") or {})
        for child, cg in (g.get("children") or {}).items():
            if child not in entry["children"]:
                entry["children"].append(child)
            walk(child, cg)

    for top, g in data.items():
        walk(top, g)
    if "all" not in groups:
        groups["all"] = {"hosts": [], "children": [k for k in groups], "vars": {}}
    for name, g in groups.items():
        g["vars"].update(_load_vars_path(os.path.join(base, "group_vars", name)))
    hostvars = {}
    for h, hv in host_inline.items():
        hostvars[h] = dict(hv)
        hostvars[h].update(_load_vars_path(os.path.join(base, "host_vars", h)))
    for g in groups.values():
        for h in g["hosts"]:
            hostvars.setdefault(h, {})
    return groups, hostvars


def _group_depths(groups):
    depth = {"all": 0}
    changed = True
    while changed:
        changed = False
        for name, g in groups.items():
            for child in g["children"]:
                d = depth.get(name, 0) + 1
                if depth.get(child, -1) < d:
                    depth[child] = d
                    changed = True
    return depth


def _host_groups(groups, host):
    direct = {n for n, g in groups.items() if host in g["hosts"]}
    result = set(direct) | {"all"}
    changed = True
    while changed:
        changed = False
        for n, g in groups.items():
            if n not in result and any(c in result for c in g["children"]):
                result.add(n)
                changed = True
    return result


def _merge_vars(groups, hostvars):
    depth = _group_depths(groups)
    all_hosts = set(hostvars)
    for g in groups.values():
        all_hosts.update(g["hosts"])
    merged = {}
    for h in sorted(all_hosts):
        mine = sorted(_host_groups(groups, h), key=lambda n: (depth.get(n, 1), n))
        v = {}
        for n in mine:
            v.update(groups.get(n, {}).get("vars", {}))
        v.update(hostvars.get(h, {}))
        merged[h] = v
    return merged


# ----------------------------------------------------------------------------- the model

def _int(value, field, lo=None, hi=None, base=16):
    """Accept 0x605, 1541, '0x605', '605' (hex strings are hex as in IOCP)."""
    try:
        if isinstance(value, bool):
            raise ValueError
        if isinstance(value, int):
            n = value
        else:
            s = str(value).strip().lower()
            n = int(s[2:], 16) if s.startswith("0x") else int(s, base)
    except (TypeError, ValueError):
        raise ModelError("%s: %r is not a number" % (field, value)) from None
    if (lo is not None and n < lo) or (hi is not None and n > hi):
        raise ModelError("%s: %#x out of range %#x..%#x" % (field, n, lo, hi))
    return n


def _chpid(value, field):
    if isinstance(value, int) and not isinstance(value, bool):
        # YAML reads F0 as a string, but 10 or 0x10 as numbers: take them as written in hex
        value = "%X" % value if value > 0xFF else "%02d" % value if value < 100 else str(value)
    s = str(value).upper()
    if not re.fullmatch(r"[0-9A-F]{1,2}", s):
        raise ModelError("%s: %r is not a CHPID (two hex digits)" % (field, value))
    return s.zfill(2)


class Model:
    """A CPC model: ``hosts`` (ordered name -> dict), ``groups``, ``hostvars``, ``cpc``."""

    def __init__(self, inv_dir, groups, own_hostvars):
        self.inventory = os.path.abspath(inv_dir)
        self.groups = groups
        self.own_hostvars = own_hostvars          # host_vars only (for `zlab inventory`)
        self.hostvars = _merge_vars(groups, own_hostvars)  # effective vars
        self.cpc = self._find_cpc()
        self.hosts = {}
        self.chpids = {}
        self._build()

    # -- reading
    def _find_cpc(self):
        cpc = self.groups.get("all", {}).get("vars", {}).get("cpc")
        if cpc is None:
            for hv in self.hostvars.values():
                if "cpc" in hv:
                    cpc = hv["cpc"]
                    break
        if not isinstance(cpc, dict):
            raise ModelError("cpc: the inventory defines no cpc mapping (group_vars/all/cpc.yml)")
        return cpc

    def _validate_external(self):
        """Use the collection's own validator (plugins/module_utils/cpc_model.py) when present."""
        here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        path = os.path.join(here, "plugins", "module_utils", "cpc_model.py")
        if not os.path.isfile(path):
            return
        try:
            import importlib.util
            spec = importlib.util.spec_from_file_location("_zlab_cpc_model", path)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
        except Exception:  # pylint: disable=broad-except
            return  # it imports collection siblings: rely on our own checks
        fn = getattr(mod, "validate_cpc", None) or getattr(mod, "validate", None)
        if fn is None:
            return
        try:
            errors = fn(self.cpc)
        except Exception as exc:  # pylint: disable=broad-except
            raise ModelError("cpc: %s" % exc) from None
        if isinstance(errors, (list, tuple)) and errors and all(isinstance(e, str) for e in errors):
            raise ModelError("cpc: " + "; ".join(errors))

    def _build(self):
        self._validate_external()
        cpc = self.cpc
        parts = cpc.get("partitions") or []
        if not isinstance(parts, list) or not parts:
            raise ModelError("cpc.partitions: a non-empty list is required")
        names = {}
        for i, p in enumerate(parts):
            if not isinstance(p, dict) or not p.get("name"):
                raise ModelError("cpc.partitions[%d].name is required" % i)
            if p["name"] in names:
                raise ModelError("cpc.partitions[%d].name: duplicate %s" % (i, p["name"]))
            names[p["name"]] = p
        uidc = cpc.get("uid_checking", [])
        if uidc in ("*", True):
            uidc = list(names)
        for n in uidc or []:
            if n not in names:
                raise ModelError("cpc.uid_checking: unknown partition %s (known: %s)"
                                 % (n, ", ".join(names)))
        kvm_group = set(self._group_members("kvm_hosts"))
        # partition hosts
        for p in parts:
            host = p.get("host")
            if not host:
                continue
            if host in self.hosts:
                raise ModelError("cpc.partitions: host %s is used by two partitions" % host)
            hv = self.hostvars.get(host, {})
            guests = hv.get("kvm_guests") or []
            role = "kvm_host" if (guests or host in kvm_group) else "lpar"
            self.hosts[host] = self._host(host, p["name"], role, p["name"] in (uidc or []), hv)
        # CCW devices (HiperSockets, OSA)
        for kind, ctype in (("hipersockets", "IQD"), ("osa", "OSD")):
            for i, ch in enumerate(cpc.get(kind) or []):
                field = "cpc.%s[%d]" % (kind, i)
                chpid = _chpid(ch.get("chpid"), field + ".chpid")
                frame = str(ch.get("frame_size", "16K")).upper() if ctype == "IQD" else None
                if ctype == "IQD" and frame not in FRAME_SIZES:
                    raise ModelError("%s.frame_size: %s not one of %s"
                                     % (field, frame, ", ".join(FRAME_SIZES)))
                devs = ch.get("devices") or {}
                first = _int(devs.get("first"), field + ".devices.first", 0, 0xFFFF)
                count = _int(devs.get("count", 3), field + ".devices.count", 1, 256, base=10)
                if first + count > 0x10000:
                    raise ModelError("%s.devices: range passes 0xFFFF" % field)
                ssid = _int(devs.get("ssid", 0), field + ".devices.ssid", 0, 3, base=10)
                self.chpids[chpid] = {"chpid": chpid, "type": ctype, "frame_size": frame,
                                      "mtu": FRAME_SIZES.get(frame, 1500)}
                for pname in ch.get("partitions") or []:
                    if pname not in names:
                        raise ModelError("%s.partitions: unknown partition %s" % (field, pname))
                    host = names[pname].get("host")
                    if host not in self.hosts:
                        continue
                    for d in range(first, first + count):
                        entry = {"devno": "0.%d.%04x" % (ssid, d), "chpid": chpid,
                                 "chpid_type": ctype, "ports": int(ch.get("ports", 1))}
                        if frame:
                            entry["frame_size"] = frame
                        self.hosts[host]["ccw"].append(entry)
        # PCI functions (ISM, RoCE)
        for kind in ("ism", "roce"):
            for i, v in enumerate(cpc.get(kind) or []):
                field = "cpc.%s[%d]" % (kind, i)
                chid = _int(v.get("vchid" if kind == "ism" else "pchid"),
                            field + (".vchid" if kind == "ism" else ".pchid"), 0, 0xFFFF)
                for j, f in enumerate(v.get("functions") or []):
                    ff = "%s.functions[%d]" % (field, j)
                    fid = _int(f.get("fid"), ff + ".fid", 0, 0xFFFFFFFF)
                    uid = _int(f.get("uid", fid), ff + ".uid", 0, 0xFFFF)
                    pname = f.get("partition")
                    if pname not in names:
                        raise ModelError("%s.partition: unknown partition %s" % (ff, pname))
                    host = names[pname].get("host")
                    pnet = f.get("pnet_id", v.get("pnet_id"))
                    entry = {"fid": fid, "uid": uid, "pchid": chid, "pft": PFT[kind],
                             "vfn": _int(f.get("vf", 0), ff + ".vf", 0, 0xFFFF, base=10),
                             "port": int(f.get("port", 0)), "pnet_id": pnet,
                             "vendor": PCI_IDS[kind][0], "device": PCI_IDS[kind][1],
                             "type": kind}
                    if host in self.hosts:
                        if any(x["fid"] == fid for x in self.hosts[host]["pci"]):
                            raise ModelError("%s.fid: %#x twice on %s" % (ff, fid, host))
                        self.hosts[host]["pci"].append(entry)
                        if f.get("guest"):
                            self._add_guest(f["guest"], host)
        if not self.hosts:
            raise ModelError("cpc.partitions: no partition has a host (the inventory hostname "
                             "of its Linux)")
        # guests named by KVM hosts
        for host in list(self.hosts):
            h = self.hosts[host]
            for j, g in enumerate(self.hostvars.get(host, {}).get("kvm_guests") or []):
                name = g.get("name") if isinstance(g, dict) else g
                if not name:
                    raise ModelError("%s: kvm_guests[%d].name is required" % (host, j))
                self._add_guest(name, host)
            h["guests"] = [n for n, x in self.hosts.items() if x.get("kvm_host") == host]

    def _group_members(self, group, seen=None):
        seen = seen or set()
        if group in seen or group not in self.groups:
            return []
        seen.add(group)
        out = list(self.groups[group]["hosts"])
        for c in self.groups[group]["children"]:
            out += self._group_members(c, seen)
        return out

    def _host(self, name, partition, role, uid_checking, hv):
        kernel = str(hv.get("zlab_kernel", DEFAULT_KERNEL))
        if kernel not in KERNEL_PROFILES:
            raise ModelError("%s: zlab_kernel %s not one of %s"
                             % (name, kernel, ", ".join(KERNEL_PROFILES)))
        return {"name": name, "partition": partition, "role": role,
                "kernel_profile": kernel, "uid_checking": bool(uid_checking),
                "ccw": [], "pci": [], "kvm_host": None, "guests": []}

    def _add_guest(self, name, kvm_host):
        if name in self.hosts:
            if self.hosts[name]["role"] != "guest" or self.hosts[name]["kvm_host"] != kvm_host:
                raise ModelError("kvm guest %s: also defined as %s" % (
                    name, self.hosts[name]["kvm_host"] or self.hosts[name]["role"]))
            return
        if self.hosts[kvm_host]["role"] != "kvm_host":
            self.hosts[kvm_host]["role"] = "kvm_host"
        h = self._host(name, self.hosts[kvm_host]["partition"], "guest", True,
                       self.hostvars.get(name, {}))
        h["kvm_host"] = kvm_host
        self.hosts[name] = h

    # -- outputs
    def host_spec(self, name):
        """The zlab.kernel HostSpec dict of a host (contract)."""
        h = self.hosts[name]
        return {k: h[k] for k in ("name", "partition", "role", "kernel_profile", "uid_checking",
                                  "ccw", "pci")}

    def guest_config(self, name):
        """The guest's entry of its KVM host's kvm_guests (may be empty)."""
        h = self.hosts[name]
        for g in self.hostvars.get(h["kvm_host"], {}).get("kvm_guests") or []:
            if (g.get("name") if isinstance(g, dict) else g) == name:
                return g if isinstance(g, dict) else {"name": g}
        return {"name": name}

    def digest(self):
        """Changes when anything zlab builds from the inventory changes."""
        import hashlib  # pylint: disable=import-outside-toplevel
        blob = json.dumps({"hosts": self.hosts, "chpids": self.chpids,
                           "guests": {n: self.guest_config(n) for n, h in self.hosts.items()
                                      if h["role"] == "guest"}},
                          sort_keys=True, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def to_dict(self):
        return {"inventory": self.inventory, "cpc_name": self.cpc.get("name"),
                "hosts": self.hosts, "chpids": self.chpids}


def load(inv_dir):
    groups, hostvars = read_inventory(inv_dir)
    return Model(inv_dir, groups, hostvars)
