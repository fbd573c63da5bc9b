# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which network interfaces carry the management connection (the SSH session Ansible uses).

Modules that may take an interface down call ``management_interfaces(module)`` and refuse to touch
an interface in the returned set unless the user allows disruption.

How the set is found:
1. The SSH connection: ``SSH_CONNECTION`` (``client_ip client_port server_ip server_port``) from
   the module's environment; when ``become`` dropped it (sudo resets the environment), from the
   environment of the nearest ancestor process that has it (``/proc/<pid>/environ``).
2. The interface that owns the server address (``ip -o addr show``), and the interface the kernel
   routes the client address through (``ip route get <client>``).
3. Without ``ip``: ``/proc/net/if_inet6`` (IPv6 addresses) and ``/proc/net/route`` (IPv4: the
   longest matching route for the client and the server address).
4. Stacked devices: an interface under a bridge, bond, VLAN or macvlan that carries the connection
   carries it too (``/sys/class/net/<if>/lower_*`` and ``brif/``), so lower devices are added.

The parsers are pure functions; ``management_interfaces`` does the I/O, reading ``/proc`` and
``/sys`` below the host root (``host_files.path``).
"""

import ipaddress
import os
import re
import socket
import struct

from ansible_collections.s390x.network.plugins.module_utils.engine import host_files
from ansible_collections.s390x.network.plugins.module_utils.engine.resource import ResourceError


def parse_ssh_connection(value):
    """``"10.0.0.1 51234 10.0.0.5 22"`` -> dict(client, client_port, server, server_port) or None."""
    if not value:
        return None
    parts = value.split()
    if len(parts) != 4:
        return None
    try:
        client = str(ipaddress.ip_address(parts[0].split("%")[0]))
        server = str(ipaddress.ip_address(parts[2].split("%")[0]))
        return {"client": client, "client_port": int(parts[1]), "server": server, "server_port": int(parts[3])}
    except ValueError:
        return None


def parse_environ(data):
    """Contents of ``/proc/<pid>/environ`` (NUL separated) as a dict."""
    if isinstance(data, bytes):
        data = data.decode("utf-8", "replace")
    env = {}
    for item in data.split("\0"):
        if "=" in item:
            key, value = item.split("=", 1)
            env[key] = value
    return env


_ADDR_LINE = re.compile(
    r"^\d+:\s+(?P<ifname>\S+?)(?:@\S+)?\s+(?P<family>inet6?)\s+(?P<addr>[0-9a-fA-F.:]+)(?:/(?P<plen>\d+))?"
)


def parse_ip_addr(text):
    """``ip -o addr show`` -> list of (ifname, address, prefixlen)."""
    result = []
    for line in (text or "").splitlines():
        match = _ADDR_LINE.match(line.strip())
        if not match:
            continue
        try:
            address = str(ipaddress.ip_address(match.group("addr")))
        except ValueError:
            continue
        plen = int(match.group("plen")) if match.group("plen") else (32 if match.group("family") == "inet" else 128)
        result.append((match.group("ifname"), address, plen))
    return result


def interfaces_with_address(addr_entries, address):
    try:
        wanted = ipaddress.ip_address(address)
    except ValueError:
        return set()
    return set(name for name, addr, _plen in addr_entries if ipaddress.ip_address(addr) == wanted)


def parse_ip_route_get(text):
    """``ip route get <addr>`` -> the ``dev`` of the route, or None."""
    for line in (text or "").splitlines():
        tokens = line.split()
        for index, token in enumerate(tokens[:-1]):
            if token == "dev":
                return tokens[index + 1]
    return None


def _hex_le_ipv4(text):
    return socket.inet_ntoa(struct.pack("<I", int(text, 16)))


def parse_proc_net_route(text):
    """``/proc/net/route`` -> list of dict(ifname, destination, mask, gateway, metric, flags)."""
    routes = []
    lines = (text or "").splitlines()
    for line in lines[1:]:
        cells = line.split()
        if len(cells) < 8:
            continue
        try:
            routes.append(
                {
                    "ifname": cells[0],
                    "destination": _hex_le_ipv4(cells[1]),
                    "gateway": _hex_le_ipv4(cells[2]),
                    "flags": int(cells[3], 16),
                    "metric": int(cells[6]),
                    "mask": _hex_le_ipv4(cells[7]),
                }
            )
        except (ValueError, struct.error):
            continue
    return routes


def route_interface(routes, address):
    """Interface of the longest-prefix route (lowest metric on ties) for an IPv4 address."""
    try:
        target = ipaddress.IPv4Address(address)
    except ValueError:
        return None
    best = None
    for route in routes:
        if not route["flags"] & 0x1:  # RTF_UP
            continue
        try:
            network = ipaddress.IPv4Network("%s/%s" % (route["destination"], route["mask"]), strict=False)
        except ValueError:
            continue
        if target in network:
            key = (network.prefixlen, -route["metric"])
            if best is None or key > best[0]:
                best = (key, route["ifname"])
    return best[1] if best else None


def parse_if_inet6(text):
    """``/proc/net/if_inet6`` -> list of (ifname, address, prefixlen)."""
    result = []
    for line in (text or "").splitlines():
        cells = line.split()
        if len(cells) < 6 or len(cells[0]) != 32:
            continue
        try:
            address = str(ipaddress.IPv6Address(bytes.fromhex(cells[0])))
        except ValueError:
            continue
        result.append((cells[5], address, int(cells[2], 16)))
    return result


def _read(path, binary=False):
    # not host_files.read_attr: whole files of other processes, which may end or deny access any time
    try:
        with open(path, "rb" if binary else "r") as handle:
            return handle.read()
    except (IOError, OSError):
        return None


def find_ssh_connection(environ, pid=None, max_depth=32):
    """SSH_CONNECTION parsed from ``environ`` or, failing that, from the nearest ancestor."""
    parsed = parse_ssh_connection((environ or {}).get("SSH_CONNECTION"))
    if parsed:
        return parsed
    pid = os.getpid() if pid is None else pid
    proc_root = host_files.path("/proc")
    for _depth in range(max_depth):
        status = _read(os.path.join(proc_root, str(pid), "status"))
        if not status:
            return None
        match = re.search(r"^PPid:\s*(\d+)", status, re.M)
        if not match or int(match.group(1)) <= 1:
            return None
        pid = int(match.group(1))
        env = _read(os.path.join(proc_root, str(pid), "environ"), binary=True)
        if env:
            parsed = parse_ssh_connection(parse_environ(env).get("SSH_CONNECTION"))
            if parsed:
                return parsed
    return None


def lower_devices(ifname, _seen=None):
    """Every device below ``ifname`` in a stack (bridge ports, bond/VLAN/macvlan lowers)."""
    seen = _seen if _seen is not None else set()
    base = host_files.path(os.path.join("/sys/class/net", ifname))
    found = set()
    try:
        entries = os.listdir(base)
    except (IOError, OSError):
        return found
    names = [e[len("lower_") :] for e in entries if e.startswith("lower_")]
    try:
        names.extend(os.listdir(os.path.join(base, "brif")))
    except (IOError, OSError):
        pass
    for name in names:
        if name in seen:
            continue
        seen.add(name)
        found.add(name)
        found |= lower_devices(name, seen)
    return found


def management_interfaces(module, environ=None):
    """Set of interface names that carry the management connection (empty when not over SSH)."""
    return management_connection(module, environ)[0]


def management_connection(module, environ=None):
    """(set of interface names, details) where details holds the SSH connection and the method."""
    env = os.environ if environ is None else environ
    conn = find_ssh_connection(env)
    details = {"ssh_connection": conn, "method": None}
    if not conn:
        details["method"] = "no SSH connection found"
        return set(), details
    names = set()
    ip_bin = module.get_bin_path("ip") if module is not None else None
    if ip_bin:
        rc, out, _err = module.run_command([ip_bin, "-o", "addr", "show"], environ_update={"LC_ALL": "C"})
        if rc == 0:
            names |= interfaces_with_address(parse_ip_addr(out), conn["server"])
        rc, out, _err = module.run_command([ip_bin, "route", "get", conn["client"]], environ_update={"LC_ALL": "C"})
        if rc == 0:
            dev = parse_ip_route_get(out)
            if dev and dev != "lo":
                names.add(dev)
        details["method"] = "ip"
    if not names:
        if ":" in conn["server"]:
            names |= interfaces_with_address(
                parse_if_inet6(_read(host_files.path("/proc/net/if_inet6"))), conn["server"]
            )
        else:
            routes = parse_proc_net_route(_read(host_files.path("/proc/net/route")))
            for address in (conn["client"], conn["server"]):
                dev = route_interface(routes, address)
                if dev and dev != "lo":
                    names.add(dev)
        details["method"] = "proc"
    for name in list(names):
        names |= lower_devices(name)
    names.discard("lo")
    return names, details


def interface_refusal(mgmt, target, commands, action):
    """Why a change of ``target`` (an interface with ``ifname`` and ``parent``) must not run without
    allow_disruptive: it or its VLAN parent carries the management connection; None when neither
    does. ``mgmt`` is what ``management_connection`` returned, ``commands`` what the change runs,
    ``action`` what it would do to the interface."""
    interfaces, details = mgmt
    if not (set([target.ifname, target.parent]) - set([None])) & interfaces:
        return None
    conn = details.get("ssh_connection") or {}
    return (
        "ip %s: it carries the management connection (SSH from %s to %s); %s would %s. Set allow_disruptive: true to do it anyway."
        % (
            target.ifname,
            conn.get("client"),
            conn.get("server"),
            "; ".join(commands),
            action,
        )
    )


class InterfaceGuard(object):
    """Refuses a change of an interface that carries the management connection unless the module's
    ``allow_disruptive`` is set; reads the connection once, at the first change that needs it."""

    def __init__(self, module):
        self.module = module
        self._mgmt = None

    def check(self, target, commands, action):
        """Raise ResourceError when the change of ``target`` (``commands``, doing ``action`` to it)
        must not run."""
        if self._mgmt is None:
            self._mgmt = management_connection(self.module)
        refusal = interface_refusal(self._mgmt, target, commands, action)
        if refusal and not self.module.params["allow_disruptive"]:
            raise ResourceError(refusal, commands=[], management_interfaces=sorted(self._mgmt[0]))
