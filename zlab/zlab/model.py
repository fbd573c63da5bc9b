# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The CPC model of a lab, read from an Ansible inventory directory.

Inputs (docs/cpc-model.md): the ``cpc:`` variable (group_vars/all, or per CPC group, also as a
``{{ name }}`` reference; one CPC per lab, chosen with ``--cpc``), per host ``zlab_kernel`` (kernel
profile), ``zlab_python`` (the distribution's Python 3.6, zlab.syspython), ``kvm_guests`` (guests
of a KVM host), ``qeth_devices`` (desired config, not applied by zlab: hosts start unconfigured).
Every partition of ``cpc.partitions`` with a ``host`` becomes an emulated host (an LPAR; a KVM host
when it has ``kvm_guests`` or is in group ``kvm_hosts``), and
every guest named in a KVM host's ``kvm_guests`` (or as ``guest:`` of an ISM function) becomes an
emulated KVM guest. ``cpc`` is read with the collection's own normaliser
(plugins/module_utils/iocp/cpc_model.py, docs/cpc-model.md): zlab accepts exactly the models the
``iocds`` role accepts (range strings, ``control_units`` lists, bus-IDs, any-case partition names,
unquoted CHPIDs read as hex) and rejects the same ones with the same messages.

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

from . import image_s390x, syspython
from .kernel.spec import PCI_IDS

DEFAULT_KERNEL = "linux6.12"
KERNEL_PROFILES = (
    "rhel8.8",
    "sles15sp5",
    "ubuntu23.04",
    "linux6.12",
    "rhel9.4",
    "rhel10.0",
    "sles15sp6",
    "sles16.0",
    "ubuntu24.04",
    "linux6.19",
    "ubuntu26.04",
    "debian7.2-nosmc",
)
# zlab_kind: a namespace host over the emulated kernel (default), or a real s390x kernel under
# qemu-system-s390x (zlab.qemu_s390x), for LPARs only: the kinds of zlab.image_s390x
HOST_KINDS = ("namespace",) + tuple(image_s390x.KINDS)
# RoCE functions: the kernel spec's kind per IOCP type (ROCE: RoCE Express, mlx4; ROC2: RoCE
# Express2, or RoCE Express3 with zlab's own key ``adapter: express3`` on the PCHID, both mlx5;
# IOCP has one type for both generations). zlab.kernel.spec.PCI_IDS holds their ids and PFT.
ROCE_KINDS = {"ROCE": "roce", "ROC2": "roce2"}
ROCE_ADAPTERS = {"express": "roce", "express2": "roce2", "express3": "roce3"}
# Network Express ports (cpc.network_express): the kernel spec's kind per IOCP type
NETX_KINDS = ("neth", "netd")


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
    env = dict(
        os.environ,
        ANSIBLE_INVENTORY_UNPARSED_WARNING="False",
        ANSIBLE_LOCALHOST_WARNING="False",
        ANSIBLE_DEPRECATION_WARNINGS="False",
    )
    proc = subprocess.run(
        [exe, "-i", inv_dir, "--list", "--export"], capture_output=True, text=True, env=env, check=False
    )
    if proc.returncode != 0:
        raise ModelError("ansible-inventory -i %s failed: %s" % (inv_dir, proc.stderr.strip()))
    data = json.loads(proc.stdout)
    meta = data.pop("_meta", {}).get("hostvars", {})
    groups = {}
    for name, g in data.items():
        groups[name] = {
            "hosts": list(g.get("hosts", [])),
            "children": list(g.get("children", [])),
            "vars": dict(g.get("vars", {})),
        }
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

# zlab reads ``cpc`` with the collection's normaliser (docs/cpc-model.md), imported by its
# collection name: iocp/cpc_model.py imports iocp/validate that way. The checkout zlab runs from is that
# collection through the link `make collection-link` creates (the path pytest.ini gives the tests).
CHECKOUT_COLLECTIONS = os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), ".cache", "collections"
)
# cpc_model warns about keys it does not know; this one is zlab's own and is used
ZLAB_KEY_WARNING = re.compile(r"^OSA [^:]*: ports is not a known field")


def cpc_model():
    """The collection's ``cpc_model`` module (``normalize_cpc``): the checkout's, else an
    installed collection's."""
    linked = os.path.join(CHECKOUT_COLLECTIONS, "ansible_collections", "s390x", "network")
    if os.path.isdir(linked) and CHECKOUT_COLLECTIONS not in sys.path:
        sys.path.insert(0, CHECKOUT_COLLECTIONS)
    try:
        # pylint: disable-next=import-outside-toplevel
        from ansible_collections.s390x.network.plugins.module_utils.iocp import cpc_model as mod
    except ImportError:
        raise ModelError(
            "cpc: zlab reads the model with the collection's cpc_model.py: link "
            "the checkout as the collection (make collection-link: %s) or install "
            "s390x.network" % linked
        ) from None
    return mod


def _int(value, field, lo, hi):
    """A decimal int (or decimal string) in lo..hi."""
    try:
        if isinstance(value, bool):
            raise ValueError
        n = value if isinstance(value, int) else int(str(value).strip(), 10)
    except (TypeError, ValueError):
        raise ModelError("%s: %r is not a number" % (field, value)) from None
    if n < lo or n > hi:
        raise ModelError("%s: %d out of range %d..%d" % (field, n, lo, hi))
    return n


_REFERENCE = re.compile(r"^\s*\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}\s*$")


def _resolve_cpc(value, variables, where):
    """``cpc`` as a mapping, following ``{{ name }}`` references through ``variables``."""
    seen = []
    while isinstance(value, str):
        ref = _REFERENCE.match(value)
        if not ref:
            raise ModelError(
                "cpc of %s is %r: zlab follows only a plain reference to another "
                "variable ({{ name }}), not other Jinja expressions" % (where, value)
            )
        name = ref.group(1)
        if name in seen or name not in variables:
            raise ModelError(
                "cpc of %s refers to %s, which %s"
                % (where, name, "refers back to itself" if name in seen else "is not defined")
            )
        seen.append(name)
        value = variables[name]
    if not isinstance(value, dict):
        raise ModelError("cpc of %s: a mapping is required (docs/cpc-model.md), got %s" % (where, type(value).__name__))
    return value


def _cpc_label(cpc, hosts):
    name = cpc.get("name") or "(unnamed)"
    return "%s: %s" % (name, ", ".join(hosts)) if hosts else str(name)


class Model:
    """A CPC model: ``hosts`` (ordered name -> dict), ``groups``, ``hostvars``, ``cpc``.

    ``cpc`` is the inventory's variable as written; ``normalized`` is cpc_model's canonical form
    (upper-case partition names and hex ids, ``control_units`` lists, ...) that the hosts and
    CHPIDs are built from, so zlab takes exactly the models the ``iocds`` role takes.
    ``warnings`` are the normaliser's warnings.
    """

    def __init__(self, inv_dir, groups, own_hostvars, cpc_name=None):
        self.inventory = os.path.abspath(inv_dir)
        self.groups = groups
        self.own_hostvars = own_hostvars  # host_vars only (for `zlab inventory`)
        self.hostvars = _merge_vars(groups, own_hostvars)  # effective vars
        self.cpc = self._find_cpc(cpc_name)
        self.normalized = {}
        self.warnings = []
        self.hosts = {}
        self.chpids = {}
        self._build()

    # -- reading
    def _find_cpc(self, cpc_name=None):
        """The ``cpc`` to emulate: the one of group ``all`` or of the hosts.

        An inventory of several CPCs sets ``cpc`` per CPC group, often as a reference
        (``cpc: "{{ cpc_proda }}"``); zlab follows plain ``{{ name }}`` references within the
        host's variables and emulates one CPC, chosen with ``cpc_name`` when there are several.
        """
        found = []  # [(cpc, [hosts])] in inventory order
        top = self.groups.get("all", {}).get("vars", {})
        if "cpc" in top:
            found.append((_resolve_cpc(top["cpc"], top, "group all"), []))
        for host, hv in self.hostvars.items():
            if "cpc" not in hv:
                continue
            cpc = _resolve_cpc(hv["cpc"], hv, "host " + host)
            for known, hosts in found:
                if known == cpc:
                    hosts.append(host)
                    break
            else:
                found.append((cpc, [host]))
        if not found:
            raise ModelError(
                "cpc: the inventory defines no cpc mapping (group_vars/all/cpc.yml, "
                "or `cpc` in the group_vars of each CPC's group)"
            )
        if cpc_name is not None:
            chosen = [c for c, _ in found if str(c.get("name", "")).upper() == cpc_name.upper()]
            if not chosen:
                raise ModelError(
                    "--cpc %s: the inventory has CPC(s) %s" % (cpc_name, "; ".join(_cpc_label(c, h) for c, h in found))
                )
            return chosen[0]
        if len(found) > 1:
            raise ModelError(
                "cpc: the inventory has %d CPCs (%s); a lab emulates one: "
                "zlab up --cpc NAME" % (len(found), "; ".join(_cpc_label(c, h) for c, h in found))
            )
        return found[0][0]

    def _normalize(self):
        cm = cpc_model()
        norm, errors, warnings = cm.normalize_cpc(self.cpc)
        if errors:
            raise ModelError("cpc: %d error(s) (docs/cpc-model.md): %s" % (len(errors), "; ".join(errors)))
        self.normalized = norm
        self.warnings = [w for w in warnings if not ZLAB_KEY_WARNING.match(w)]
        return cm, norm

    def _build(self):
        cm, norm = self._normalize()
        names = {p["name"]: p for p in norm["partitions"]}
        uidc = set(norm["uid_checking"])
        kvm_group = set(self._group_members("kvm_hosts"))
        # partition hosts
        for index, p in enumerate(norm["partitions"]):
            host = p["host"]
            if not host:
                continue
            if host in self.hosts:
                raise ModelError("cpc.partitions: host %s is used by two partitions" % host)
            hv = self.hostvars.get(host, {})
            guests = hv.get("kvm_guests") or []
            role = "kvm_host" if (guests or host in kvm_group) else "lpar"
            self.hosts[host] = self._host(host, p["name"], role, p["name"] in uidc, hv)
            # /proc/sysinfo "LPAR Number": the partition's MIF image ID, else its position
            self.hosts[host]["lpar_number"] = p.get("mif_id") or index + 1
        # CCW devices (HiperSockets, OSA): every device of every control unit of the CHPID
        for kind, ctype in (("hipersockets", "IQD"), ("osa", "OSD")):
            raw = self.cpc.get(kind) or []
            for i, ch in enumerate(norm[kind]):
                chpid = ch["chpid"]
                frame = ch["frame_size"] if ctype == "IQD" else None
                ports = 1
                if ctype == "OSD":
                    ports = _int(raw[i].get("ports", 1), "cpc.osa[%d].ports" % i, 1, 16)
                self.chpids[chpid] = {
                    "chpid": chpid,
                    "type": ctype,
                    "frame_size": frame,
                    "mtu": cm.FRAME_SIZE_MTU.get(frame, 1500),
                }
                for pname in ch["partitions"]:
                    host = names[pname]["host"]
                    if host not in self.hosts:
                        continue
                    for cu in ch["control_units"]:
                        first = int(cu["devices"]["first"], 16)
                        for d in range(first, first + cu["devices"]["count"]):
                            entry = {
                                "devno": "0.0.%04x" % d,
                                "chpid": chpid,
                                "chpid_type": ctype,
                                "ports": ports,
                                "pnet_id": ch.get("pnet_id"),
                            }
                            if frame:
                                entry["frame_size"] = frame
                            self.hosts[host]["ccw"].append(entry)
        # PCI functions (ISM, RoCE)
        raw_roce = self.cpc.get("roce") or []
        for kind in ("ism", "roce"):
            for i, v in enumerate(norm[kind]):
                chid = v["vchid" if kind == "ism" else "pchid"]
                ptype = "ism" if kind == "ism" else self._roce_kind(v, raw_roce[i] if i < len(raw_roce) else {}, i)
                for f in v["functions"]:
                    host = names[f["partition"]]["host"]
                    if host not in self.hosts:
                        continue
                    vendor, device, pft = PCI_IDS[ptype]
                    self.hosts[host]["pci"].append(
                        {
                            "fid": f["fid"],
                            "uid": f["fid"] if f["uid"] is None else f["uid"],
                            "pchid": chid,
                            "pft": pft,
                            "vendor": vendor,
                            "device": device,
                            "vfn": f["vf"],
                            # ROC2: the port of the FID (1 or 2); a RoCE Express FID has both
                            "port": f.get("port") or 0,
                            "pnet_id": f["pnet_id"],
                            "type": ptype,
                        }
                    )
                    if f.get("guest"):
                        self._add_guest(f["guest"], host)
        self._network_express(names)
        if not self.hosts:
            raise ModelError("cpc.partitions: no partition has a host (the inventory hostname " "of its Linux)")
        # guests named by KVM hosts
        for host in list(self.hosts):
            h = self.hosts[host]
            for j, g in enumerate(self.hostvars.get(host, {}).get("kvm_guests") or []):
                name = g.get("name") if isinstance(g, dict) else g
                if not name:
                    raise ModelError("%s: kvm_guests[%d].name is required" % (host, j))
                self._add_guest(name, host)
            h["guests"] = [n for n, x in self.hosts.items() if x.get("kvm_host") == host]
        for name, h in self.hosts.items():
            if h.get("kind") and h["role"] != "lpar":
                raise ModelError(
                    "%s: zlab_kind %s is for LPARs; a %s stays a namespace host" % (name, h["kind"], h["role"])
                )
            if h.get("kind") and h["ccw"]:
                self.warnings.append(
                    "%s: zlab_kind %s: its %d CCW devices (HiperSockets, OSA) are not there: QEMU "
                    "emulates no qeth device" % (name, h["kind"], len(h["ccw"]))
                )

    def _network_express(self, names):
        """Network Express ports (``cpc.network_express``, type NETH or NETD): each function in its
        partition's host. A NETD port's PF offers as many VFs as the port defines; a VF in the PF's
        partition appears when the PF creates it (sriov_numvfs), a VF elsewhere is an isolated VF there
        and present from the start (the lab does not follow a PF's count into another partition)."""
        for port in self.normalized.get("network_express") or []:
            ptype = str(port["type"]).lower()
            if ptype not in NETX_KINDS:
                raise ModelError("cpc.network_express: type %r is not NETH or NETD" % port["type"])
            vendor, device, pft = PCI_IDS[ptype]
            funcs = port["functions"]
            pf = [f for f in funcs if f.get("pf")]
            vfs = [f for f in funcs if not f.get("pf")]
            for f in funcs:
                host = names[f["partition"]]["host"]
                if host not in self.hosts:
                    continue
                entry = {
                    "fid": f["fid"],
                    "uid": f["fid"] if f["uid"] is None else f["uid"],
                    "pchid": port["pchid"],
                    "pft": pft,
                    "vendor": vendor,
                    "device": device,
                    "vfn": 0 if f.get("pf") else f["vf"],
                    "port": 1,
                    "pnet_id": f.get("pnet_id") or port.get("pnet_id"),
                    "type": ptype,
                    "fidparm": int(f.get("fidparm") or "0", 16),
                }
                if f.get("pf"):
                    entry["sriov_totalvfs"] = len(vfs)
                elif pf and pf[0]["partition"] == f["partition"]:
                    entry["pf"] = pf[0]["fid"]
                self.hosts[host]["pci"].append(entry)
                if f.get("guest"):
                    self._add_guest(f["guest"], host)

    @staticmethod
    def _roce_kind(card, raw, index):
        """spec kind of a RoCE PCHID: by its IOCP type, ROC2 refined by ``adapter``."""
        adapter = raw.get("adapter") if isinstance(raw, dict) else None
        kind = ROCE_KINDS[card["type"]]
        if adapter is None:
            return kind
        want = ROCE_ADAPTERS.get(str(adapter).lower().replace(" ", "").replace("_", "").replace("roce", ""))
        if want is None:
            raise ModelError(
                "cpc.roce[%d].adapter: %r is not one of %s" % (index, adapter, ", ".join(sorted(ROCE_ADAPTERS)))
            )
        if (want == "roce") != (kind == "roce"):
            raise ModelError(
                "cpc.roce[%d].adapter: %s does not fit type %s (ROCE is RoCE Express, ROC2 RoCE Express2 or "
                "Express3)" % (index, adapter, card["type"])
            )
        return want

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
            raise ModelError("%s: zlab_kernel %s not one of %s" % (name, kernel, ", ".join(KERNEL_PROFILES)))
        cio_ignore = hv.get("zlab_cio_ignore")
        if cio_ignore is not None and not isinstance(cio_ignore, str):
            raise ModelError(
                "%s: zlab_cio_ignore must be a string (the kernel parameter's value, "
                "e.g. \"all,!condev\"), not %r" % (name, cio_ignore)
            )
        if cio_ignore:
            from .kernel import cio  # pylint: disable=import-outside-toplevel

            msgs = []
            cio.apply_list([], cio_ignore, "add", msgs)
            # the kernel skips what it cannot parse (and says so at boot)
            self.warnings.extend("%s: zlab_cio_ignore: %s" % (name, m) for m in msgs)
        host = {
            "name": name,
            "partition": partition,
            "role": role,
            "kernel_profile": kernel,
            "uid_checking": bool(uid_checking),
            "cio_ignore": cio_ignore or None,
            "ccw": [],
            "pci": [],
            "kvm_host": None,
            "guests": [],
        }
        kind = str(hv.get("zlab_kind", HOST_KINDS[0]))
        if kind not in HOST_KINDS:
            raise ModelError("%s: zlab_kind %s not one of %s" % (name, kind, ", ".join(HOST_KINDS)))
        if kind != HOST_KINDS[0]:
            host["kind"] = kind  # a real kernel under QEMU (zlab.qemu_s390x)
        try:
            python = syspython.check(name, hv.get("zlab_python"), kernel, host.get("kind"))
        except ValueError as exc:
            raise ModelError(str(exc)) from None
        if python:
            host["python"] = python  # the distribution's Python 3.6 (zlab.syspython)
        return host

    def _add_guest(self, name, kvm_host):
        if name in self.hosts:
            if self.hosts[name]["role"] != "guest" or self.hosts[name]["kvm_host"] != kvm_host:
                raise ModelError(
                    "kvm guest %s: also defined as %s"
                    % (name, self.hosts[name]["kvm_host"] or self.hosts[name]["role"])
                )
            return
        if self.hosts[kvm_host]["role"] != "kvm_host":
            self.hosts[kvm_host]["role"] = "kvm_host"
        h = self._host(name, self.hosts[kvm_host]["partition"], "guest", True, self.hostvars.get(name, {}))
        h["kvm_host"] = kvm_host
        h["lpar_number"] = self.hosts[kvm_host].get("lpar_number")
        self.hosts[name] = h

    # -- outputs
    def host_spec(self, name):
        """The zlab.kernel HostSpec dict of a host (contract)."""
        h = self.hosts[name]
        spec = {
            k: h[k]
            for k in (
                "name",
                "partition",
                "role",
                "kernel_profile",
                "uid_checking",
                "ccw",
                "pci",
                "cio_ignore",
                "lpar_number",
            )
        }
        spec["cpc"] = {k: self.normalized.get(k) for k in ("name", "machine")}
        return spec

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

        blob = json.dumps(
            {
                "hosts": self.hosts,
                "chpids": self.chpids,
                "guests": {n: self.guest_config(n) for n, h in self.hosts.items() if h["role"] == "guest"},
            },
            sort_keys=True,
            default=str,
        )
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def to_dict(self):
        return {
            "inventory": self.inventory,
            "cpc_name": self.cpc.get("name"),
            "hosts": self.hosts,
            "chpids": self.chpids,
        }


def load(inv_dir, cpc_name=None):
    groups, hostvars = read_inventory(inv_dir)
    return Model(inv_dir, groups, hostvars, cpc_name)
