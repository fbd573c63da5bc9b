# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""systemd-networkd in the hosts of the profiles whose distribution configures interfaces with
netplan (Ubuntu server: netplan renders for systemd-networkd). Runs inside the host (hostinit,
Debian's python3, stdlib only).

The hosts run hostinit as PID 1, not systemd, so ``netplan apply`` cannot run there: it stops at
``systemctl daemon-reload`` ("System has not been booted with systemd"). What it does for networkd
after that works without systemd, and the module takes that path on such a host: ``netplan
generate`` (writes /run/systemd/network/10-netplan-*), ``networkctl reload`` and ``networkctl
reconfigure IF``. networkd talks to networkctl over the D-Bus system bus; it runs, like the lab's
NetworkManager, in a mount namespace of its own with /sys read-only (zlab.daemons), so that it takes
the links for initialized instead of waiting for a udev that never runs here. The lab's own link
mgmt0 matches no .network file (networkd leaves it unmanaged), and networkd does not remove the
routes and rules it did not make (ManageForeignRoutes/ManageForeignRoutingPolicyRules off), which
keep the lab's connection.
"""

import grp
import os
import pwd
import subprocess
import time

from zlab.daemons import start_with_readonly_sys

NETWORKD = "/lib/systemd/systemd-networkd"
NETPLAN = "/usr/sbin/netplan"
CONF_DIR = "/run/systemd/networkd.conf.d"
CONF = """[Network]
ManageForeignRoutes=no
ManageForeignRoutingPolicyRules=no
"""


def start(cfg, log_dir, timeout=60):
    """Start dbus-daemon (system bus) and systemd-networkd for a netplan host; False when the host's
    profile does not use netplan or the image lacks networkd or netplan."""
    if cfg.get("network") != "netplan" or not (os.path.exists(NETWORKD) and os.path.exists(NETPLAN)):
        return False
    os.makedirs("/run/dbus", exist_ok=True)
    os.makedirs(CONF_DIR, exist_ok=True)
    with open(os.path.join(CONF_DIR, "90-zlab.conf"), "w", encoding="utf-8") as f:
        f.write(CONF)
    netif = "/run/systemd/netif"
    os.makedirs(netif, exist_ok=True)
    os.chown(netif, pwd.getpwnam("systemd-network").pw_uid, grp.getgrnam("systemd-network").gr_gid)
    if not os.path.exists("/run/dbus/system_bus_socket"):
        subprocess.run(["dbus-daemon", "--system", "--fork"], check=True)
    start_with_readonly_sys([NETWORKD], os.path.join(log_dir, "networkd.log"))
    deadline = time.time() + timeout
    while time.time() < deadline:
        probe = subprocess.run(["networkctl", "--no-pager", "list"], capture_output=True, check=False)
        if probe.returncode == 0 and b"not running" not in probe.stderr:
            return True
        time.sleep(0.5)
    raise RuntimeError("systemd-networkd did not start within %ds" % timeout)
