# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the real host has of SMC, read from the kernel and systemd (not from a module result).

Runs on the host: ``read_smc.py NETLINK_DIR SERVICE``. NETLINK_DIR holds a copy of the
collection's smc_netlink.py (the PNET table lives in the kernel only and Debian has no smc_pnet
to show it). Prints one JSON object.
"""

import json
import shutil
import subprocess
import sys

PNET_UNIT = "s390x-network-smc-pnet.service"


def read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return None


def systemctl(*args):
    proc = subprocess.run(["systemctl"] + list(args), capture_output=True, text=True, check=False)
    return proc.stdout.strip()


def main():
    netlink_dir, service = sys.argv[1], sys.argv[2]
    unit = service + ".service"
    out = {
        "boot_id": (read("/proc/sys/kernel/random/boot_id") or "").strip(),
        "rmem": (read("/proc/sys/net/smc/rmem") or "").strip(),
        "wmem": (read("/proc/sys/net/smc/wmem") or "").strip(),
        "core_rmem_max": (read("/proc/sys/net/core/rmem_max") or "").strip(),
        "sysctl_file": read("/etc/sysctl.d/90-smc.conf") or "",
        "modules_load": read("/etc/modules-load.d/smc.conf") or "",
        "smc_loaded": any(line.split()[0] == "smc" for line in (read("/proc/modules") or "").splitlines()),
        "pnet_unit_enabled": systemctl("is-enabled", PNET_UNIT),
        "pnet_unit_active": systemctl("is-active", PNET_UNIT),
        "pnet_unit_show": systemctl("show", "-p", "ActiveState,SubState,Result", PNET_UNIT),
        "pnet_unit_log": subprocess.run(
            ["journalctl", "-b", "-u", PNET_UNIT, "--no-pager", "-o", "cat"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout,
        "smc_pnet_tool": shutil.which("smc_pnet"),
        "service_enabled": systemctl("is-enabled", unit),
        "service_active": systemctl("is-active", unit),
        "service_dropins": systemctl("show", "-p", "DropInPaths", "--value", unit),
        "service_env": systemctl("show", "-p", "Environment", "--value", unit),
    }
    pid = systemctl("show", "-p", "MainPID", "--value", unit)
    out["process_env"] = " ".join((read("/proc/%s/environ" % pid) or "").split("\0")) if pid not in ("", "0") else ""
    sys.path.insert(0, netlink_dir)
    import smc_netlink  # pylint: disable=import-outside-toplevel,import-error

    try:
        out["pnet"] = smc_netlink.SmcNetlink().pnet_table()
    except OSError as exc:  # smc not loaded: no SMC_PNETID family
        out["pnet"] = None
        out["pnet_error"] = str(exc)
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main()
