# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""zlab command line: an emulated IBM Z CPC for the s390x.network collection."""

import argparse
import json
import os
import re
import shlex
import sys
import time

from . import (
    guests,
    host,
    image,
    image_s390x,
    inventory,
    kernel,
    model,
    network,
    qemu_s390x,
    s390tools,
    syspython,
    tools,
)
from .host import Lab, LabError
from .kernel import faults
from .tools import _real as real_tools

EPILOG = """\
commands:
  up INVENTORY_DIR          build the CPC of an Ansible inventory (cpc: model, zlab_kernel,
                            kvm_guests): one host per partition with a host, one per KVM guest;
                            lab name: --lab/--name, else the directory's name; a lab that is up
                            with the same CPC keeps its hosts and takes the edited variables;
                            an inventory of several CPCs (cpc set per CPC group, also as
                            cpc: "{{ cpc_x }}") needs --cpc NAME (lab name DIR-NAME)
                            a host with zlab_kind: debian13-s390x boots a real Debian s390x
                            kernel under qemu-system-s390x (debian13-linux7-s390x: Debian's
                            Linux 7.x, no SMC; debian13-linux7-smc-s390x: the same rebuilt
                            with DIBS and SMC) (LPARs; drift and faults but
                            `fault HOST link` are not supported on it); a host of rhel8.8 or
                            sles15sp5/sp6 with zlab_python: "3.6" gets its distribution's
                            Python 3.6 ($ZLAB_PYTHON36, else pyenv's 3.6.x)
  down [LAB] [--all]        remove everything of a lab (namespaces, mounts, FUSE daemons,
                            bridges, processes, overlays); also after a crash; idempotent
  status [LAB] [--json]     hosts, roles, addresses, devices, state
  inventory [--format yaml|ini]
                            Ansible inventory of the lab (source groups/vars + connection vars):
                            ansible -i <(zlab inventory) all -m ping
  exec HOST [-- CMD...]     run a command inside a host (no command: a login shell)
  reboot HOST               reboot: processes stop, active device state is discarded and rebuilt
                            only from what persists on the host (chzdev udev rules, sysctl.d,
                            sysctl.conf, modules-load.d, driver_override rules, driverctl)
  start-guest GUEST         start a KVM guest as its KVM host's persistent domain XML says
                            (up starts every guest: stop-guest it first, or reboot it)
  stop-guest GUEST          stop a KVM guest (managed hostdevs go back to their host driver)
  image build [--force] [--kind KIND]
                            build the cached host images (/var/cache/zlab/images); --kind
                            debian13-s390x, debian13-linux7-s390x (and -smc-, the same
                            image): the disk and kernels of real-kernel hosts

drift (changes state behind Ansible's back):
  zlab drift HOST set PATH VALUE      write VALUE to a sysfs/procfs file (as `echo VALUE > PATH`)
      e.g. zlab drift lpar-a set /sys/devices/qeth/0.0.8200/buffer_count 64
  zlab drift HOST rm PATH             delete a file, e.g. /etc/udev/rules.d/41-qeth-0.0.8200.rules
  zlab drift HOST file PATH CONTENT   replace a file's content
  zlab drift HOST unbind PCI_ADDR     unbind a PCI function from its driver (0605:00:00.0)
  zlab drift HOST bind PCI_ADDR DRV   bind it to DRV (sets driver_override, drivers_probe)
  zlab drift HOST offline BUSID       set a qeth group device offline (0.0.8200)
  zlab drift HOST online BUSID        set it online
  zlab drift HOST sysctl KEY VALUE    sysctl -w KEY=VALUE (e.g. net.smc.rmem 65536)
  zlab drift HOST power FID 0|1       slot power of a PCI function (FID in hex)

faults:
  (each fires --count N times, default 1, after --after M writes or runs that work)
  zlab fault HOST write PATH ERRNO [--count N] [--after M]
      writes to PATH fail with ERRNO (EPERM, EBUSY, EIO, ENOSPC, EROFS, ... or a number).
      /sys and the emulated /proc files: a write is one write(2). Any other file (/etc/...):
      its directory is served through FUSE until no fault is left in it; a write is an open
      of PATH for writing, a rename onto PATH (the end of a temp file + rename write such as
      Ansible's atomic_move; the temp file stays), a link/symlink/mknod creating it or a
      truncate by path; PATH keeps its content. Meanwhile a rename into that directory from
      outside it fails with EXDEV (atomic_move then copies into a temp file there)
  zlab fault HOST tool NAME [EXIT] [--count N] [--after M] [--stderr MSG] [--sleep S]
                           [--half-way]
      runs of tool NAME (chzdev, lszdev, smc_rnics, ...) print MSG and exit with EXIT;
      --sleep S: each first waits S seconds (without EXIT: then runs normally);
      --half-way: each first does part of its work (chzdev: only the first half of its
      ATTR=VALUE settings, rounded up; with fewer than two, only the active configuration)
  zlab fault HOST service NAME stop|start
      stop a daemon of the host (the processes NAME whose parent is init: SIGTERM, SIGKILL
      after 10 s; sshd's open sessions stay), or start it again (libvirtd, sshd, or the
      command line recorded at stop) and wait until it is up
  zlab fault HOST ssh off|on
      stop sshd and end every SSH session (connections refused: Ansible reports the host
      UNREACHABLE at once), or start sshd again
  zlab fault HOST link off|on
      take the host's management link down (packets are dropped: connections time out; an
      open ControlPersist master hangs as with a crashed host), or up again
  zlab fault HOST list
      the pending faults: write, tool, service stopped, ssh off, link off
  zlab fault HOST clear
      remove every pending fault (stopped services, sshd and the link come back); prints each

The lab to act on: --lab NAME, else $ZLAB_LAB, else the only running lab, else the built-in
lab "lab" (zlab up inventories/lab) when it is one of them.
"""
DEFAULT_LAB = "lab"
FAULT_KINDS = ["write", "tool", "service", "ssh", "link", "list", "clear"]


def _lab_name(args):
    if getattr(args, "lab", None):
        return args.lab
    if os.environ.get("ZLAB_LAB"):
        return os.environ["ZLAB_LAB"]
    labs = host.list_labs()
    if len(labs) == 1:
        return labs[0]
    if not labs:
        raise LabError("no lab is up (zlab up INVENTORY_DIR)")
    if DEFAULT_LAB in labs:
        return DEFAULT_LAB  # the built-in lab (make lab-up)
    raise LabError("several labs are up (%s): say which with --lab" % ", ".join(labs))


def _default_name(inv):
    base = os.path.basename(os.path.abspath(inv.rstrip("/")))
    if base in ("inventory", "inventories", "molecule"):
        base = os.path.basename(os.path.dirname(os.path.abspath(inv.rstrip("/")))) or base
    return _slug(base)[:20] or "lab"


def _slug(text):
    """Lower case, runs of anything but letters, digits and '-' as one '-' (lab names)."""
    return re.sub(r"[^a-z0-9-]+", "-", text.lower()).strip("-")


def _up_name(args):
    """`zlab up DIR --name NAME` or `zlab --lab NAME up DIR`; else the inventory's name."""
    lab = getattr(args, "lab", None)
    if args.name and lab and args.name != lab:
        raise LabError("--name %s and --lab %s name two labs: give one" % (args.name, lab))
    if args.name or lab:
        return args.name or lab
    name = _default_name(args.inventory)
    if args.cpc:
        # one lab per CPC of a multi-CPC inventory, so they can be up side by side (20 chars)
        cpc = _slug(args.cpc)[:8] or "cpc"
        name = "%s-%s" % (name[: 19 - len(cpc)].rstrip("-"), cpc)
    return name


def cmd_up(args):
    name = _up_name(args)
    mdl = model.load(args.inventory, args.cpc)
    for warning in mdl.warnings:
        print("zlab: warning: %s" % warning, file=sys.stderr)
    start = time.monotonic()
    if os.path.exists(os.path.join(host.lab_dir(name), "lab.json")):
        lab = Lab.load(name)
        states = {h: lab.host_state(h) for h in lab.hosts}
        if (
            lab.data.get("inventory") == mdl.inventory
            and lab.data.get("digest") == mdl.digest()
            and all(s == "running" for s in states.values())
        ):
            # same CPC: the hosts stay as they are, `zlab inventory` gets the edited variables
            print(
                "zlab: lab %s is already up (%d hosts); %s"
                % (
                    name,
                    len(states),
                    (
                        "groups and host variables refreshed from " + mdl.inventory
                        if lab.refresh_vars(mdl)
                        else "inventory variables unchanged"
                    ),
                )
            )
            return 0
        print("zlab: lab %s differs from %s or is not running; rebuilding" % (name, args.inventory), file=sys.stderr)
        host.down(name)
    elif name in host.list_labs():
        host.down(name)
    variants = sorted({"kvm" if h["role"] == "kvm_host" else "base" for h in mdl.hosts.values() if not h.get("kind")})
    for v in variants:
        image.build(v, force=args.rebuild_image)
    for kind in sorted({h["kind"] for h in mdl.hosts.values() if qemu_s390x.is_real(h)}):
        image_s390x.build(force=args.rebuild_image, kind=kind)  # real-kernel hosts (zlab_kind)
    if args.emulator:
        s390tools.register_binfmt()  # the hosts' real s390-tools run through qemu-user
    if any(h.get("python") for h in mdl.hosts.values()):
        syspython.find_build()  # zlab_python 3.6: the build the hosts mount, before anything starts
    lab = Lab.create(name, mdl, emulator=args.emulator)
    try:
        lab.up()
    except Exception:
        if not args.keep_on_error:
            host.down(name)
        raise
    print(
        "zlab: lab %s up: %d hosts in %.1f s (emulator %s, management %s.0/24)"
        % (
            name,
            len(lab.hosts),
            time.monotonic() - start,
            "on" if lab.data["emulator"] else "OFF (plain /sys)",
            network.SUBNET_FMT % lab.slot,
        )
    )
    for hname, h in lab.hosts.items():
        print("  %-12s %-9s %-8s %-10s %s" % (hname, h["role"], h["partition"], h["kernel_profile"], h["ip"]))
    return 0


def cmd_down(args):
    names = host.list_labs() if args.all else [args.name or _lab_name(args)]
    for name in names:
        pids = host.down(name)
        print("zlab: lab %s down (%d processes stopped)" % (name, len(pids)))
    if not names:
        print("zlab: no lab is up")
    return 0


def _active_devices(lab, hname):
    """Grouped/online qeth devices and configured PCI functions of the running kernel."""
    if not lab.data["emulator"]:
        return {}
    try:
        st = kernel.state(lab.state_dir(hname))
    except Exception:  # pylint: disable=broad-except
        return {}
    qeth = {gid: "online" if card.get("online") else "offline" for gid, card in sorted((st.get("qeth") or {}).items())}
    pci = {}
    for fid, ent in sorted((st.get("pci") or {}).items(), key=lambda kv: int(kv[0])):
        if ent.get("configured"):
            pci["%x" % int(fid)] = "%s %s" % (ent.get("addr"), ent.get("driver") or "-")
    return {"qeth": qeth, "pci": pci, "modules": list(st.get("modules") or [])}


def _kernel_faults(lab, hname):
    """The pending write, tool and service faults of a host (`zlab fault HOST list` also shows
    ssh and link)."""
    if not lab.data["emulator"]:
        return []
    try:
        pend = kernel.pending_faults(lab.state_dir(hname))
    except (OSError, ValueError):
        return []
    return [faults.describe(kind, key, rec) for kind in faults.KINDS for key, rec in sorted(pend[kind].items())]


def cmd_status(args):
    names = host.list_labs() if args.all else [args.name or _lab_name(args)]
    report = []
    for name in names:
        try:
            lab = Lab.load(name)
        except LabError:
            if not host.lab_exists(name):
                raise LabError(
                    "lab %s is not up (zlab up INVENTORY_DIR; zlab status --all " "lists the labs)" % name
                ) from None
            # no record, but namespaces or files of the lab are left
            report.append({"lab": name, "state": "crashed (zlab down %s)" % name})
            continue
        entry = {
            "lab": name,
            "inventory": lab.data["inventory"],
            "cpc": lab.data["cpc_name"],
            "emulator": lab.data["emulator"],
            "hosts": {},
        }
        for hname, h in lab.hosts.items():
            spec = h["spec"]
            chp = sorted({c["chpid"] for c in spec["ccw"]})
            entry["hosts"][hname] = {
                "state": lab.host_state(hname),
                "role": h["role"],
                "partition": h["partition"],
                "kernel": h["kernel_profile"],
                "ip": h["ip"],
                "boots": h.get("boots", 0),
                "ccw": "%d devices on CHPID %s" % (len(spec["ccw"]), ",".join(chp)) if chp else "-",
                "pci": (
                    ["%#x (uid %#x)" % (p["fid"], p["uid"]) for p in spec["pci"]]
                    if h["role"] != "guest"
                    else [
                        "%s -> fid %#x uid %#x" % (x["addr"], p["fid"], p["uid"])
                        for x, p in zip(h.get("held") or [], h.get("held_pci") or [])
                    ]
                ),
                "nics": [n["ifname"] + "@" + _nic_segment(n) for n in h.get("nics") or []],
                "kvm_host": h["kvm_host"],
                "active": _active_devices(lab, hname) if lab.running(hname) else {},
                "faults": _kernel_faults(lab, hname) if lab.running(hname) else [],
            }
        report.append(entry)
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    for entry in report:
        if "hosts" not in entry:
            print("lab %s: %s" % (entry["lab"], entry["state"]))
            continue
        print(
            "lab %s: CPC %s from %s (emulator %s)"
            % (entry["lab"], entry["cpc"], entry["inventory"], "on" if entry["emulator"] else "off")
        )
        print(
            "  %-10s %-8s %-9s %-8s %-11s %-13s %s" % ("HOST", "STATE", "ROLE", "LPAR", "KERNEL", "ADDRESS", "DEVICES")
        )
        for hname, h in entry["hosts"].items():
            dev = h["ccw"]
            if h["pci"]:
                dev += "; PCI " + ", ".join(h["pci"])
            if h["nics"]:
                dev += "; NIC " + ", ".join(h["nics"])
            if h["kvm_host"]:
                dev += "; on " + h["kvm_host"]
            act = h.get("active") or {}
            if act.get("qeth"):
                dev += "; qeth " + ", ".join("%s %s" % kv for kv in act["qeth"].items())
            if act.get("pci"):
                dev += "; FID " + ", ".join("%s %s" % kv for kv in act["pci"].items())
            print(
                "  %-10s %-8s %-9s %-8s %-11s %-13s %s"
                % (hname, h["state"], h["role"], h["partition"], h["kernel"], h["ip"], dev)
            )
    return 0


def cmd_inventory(args):
    lab = Lab.load(_lab_name(args))
    sys.stdout.write(inventory.to_ini(lab) if args.format == "ini" else inventory.to_yaml(lab))
    return 0


def cmd_exec(args):
    lab = Lab.load(_lab_name(args))
    argv = list(args.cmd)
    if argv and argv[0] == "--":
        argv = argv[1:]
    if not argv:
        argv = ["/bin/bash", "-l"]
    full = lab.nsenter_argv(args.host, argv)
    sys.stdout.flush()
    os.execvp(full[0], full)
    return 127  # not reached


def cmd_reboot(args):
    lab = Lab.load(_lab_name(args))
    start = time.monotonic()
    failed = lab.reboot(args.host) or {}
    print("zlab: %s rebooted in %.1f s" % (args.host, time.monotonic() - start))
    for guest, why in failed.items():
        print("zlab: guest %s of %s stays shut off:\n%s" % (guest, args.host, why), file=sys.stderr)
    return 0


def cmd_start_guest(args):
    lab = Lab.load(_lab_name(args))
    res = guests.start(lab, args.guest)
    print("Domain '%s' started" % args.guest)
    for p in res["pci"]:
        print(
            "  zpci uid %#06x fid %#010x (PCHID %#06x PFT %#04x VF %d)"
            % (p["uid"], p["fid"], p["pchid"], p["pft"], p["vfn"])
        )
    for n in res["nics"]:
        print("  %s (mac %s) on %s via %s" % (n["ifname"], n["mac"], _nic_segment(n, long=True), n["source"]))
    return 0


def _nic_segment(nic, long=False):
    """Where a guest's NIC is: its source's CHPID (``F0``), or a Network Express port (``PCHID 0314``)."""
    if nic.get("chpid"):
        return ("CHPID " if long else "") + nic["chpid"]
    return "PCHID %04x" % nic["pchid"] if long else "pchid%04x" % nic["pchid"]


def cmd_stop_guest(args):
    lab = Lab.load(_lab_name(args))
    guests.stop(lab, args.guest)
    print("Domain '%s' destroyed" % args.guest)
    return 0


DRIFT = {
    "set": (2, 'printf "%s\\n" "$1" > "$2"', lambda a: [a[1], a[0]]),
    "rm": (1, 'rm -f -- "$1"', lambda a: a),
    "file": (2, 'printf "%s" "$2" > "$1"', lambda a: a),
    "unbind": (
        1,
        'd=/sys/bus/pci/devices/$1; [ -e "$d/driver" ] || '
        '{ echo "$1 is not bound to a driver" >&2; exit 1; }; '
        'echo "$1" > "$d/driver/unbind"',
        lambda a: a,
    ),
    "bind": (
        2,
        'd=/sys/bus/pci/devices/$1; echo "$2" > "$d/driver_override" && '
        '{ [ ! -e "$d/driver" ] || echo "$1" > "$d/driver/unbind"; } && '
        'echo "$1" > /sys/bus/pci/drivers_probe',
        lambda a: a,
    ),
    "offline": (1, 'echo 0 > "/sys/bus/ccwgroup/devices/$1/online"', lambda a: a),
    "online": (1, 'echo 1 > "/sys/bus/ccwgroup/devices/$1/online"', lambda a: a),
    "sysctl": (2, 'sysctl -w "$1=$2"', lambda a: a),
    "power": (
        2,
        'echo "$2" > "/sys/bus/pci/slots/$(printf %08x 0x$1)/power"',
        lambda a: [a[0].lower().replace("0x", ""), a[1]],
    ),
}


def cmd_drift(args):
    lab = Lab.load(_lab_name(args))
    qemu_s390x.refuse(lab, args.host, "zlab drift")
    if args.action not in DRIFT:
        raise LabError("drift: unknown action %s (one of %s)" % (args.action, ", ".join(DRIFT)))
    nargs, script, mangle = DRIFT[args.action]
    if len(args.args) != nargs:
        raise LabError("drift %s takes %d argument(s)" % (args.action, nargs))
    proc = lab.exec(args.host, ["/bin/bash", "-c", script, "zlab-drift"] + mangle(args.args))
    sys.stdout.write(proc.stdout)
    sys.stderr.write(proc.stderr)
    if proc.returncode == 0:
        print(
            "zlab: drift on %s: %s %s" % (args.host, args.action, " ".join(shlex.quote(a) for a in args.args)),
            file=sys.stderr,
        )
    return proc.returncode


# How hostinit starts the daemons `zlab fault HOST service NAME start` knows without a record
# (sshd rewrites its command line), and when one is ready after a start.
SERVICES = {"sshd": ["/usr/sbin/sshd", "-E", "/run/zlab/lab/sshd.log"], "libvirtd": ["/usr/sbin/libvirtd", "-d"]}
SERVICE_READY = {
    "libvirtd": "virsh -q list >/dev/null 2>&1",
    "sshd": "ss -Hltn 'sport = :22' | grep -q .",
}  # it listens after forking
# The daemon NAME: the process of its pid file (/run/NAME.pid, e.g. sshd's listener), else the
# processes NAME whose parent is init (daemonized, or started by it). sshd's sessions are not
# the listener and survive a stop, as with systemctl.
DAEMON_PIDS = r"""
daemon_pids() {
  p=$(cat "/run/$1.pid" 2>/dev/null)
  if [ -n "$p" ] && [ "$(cat "/proc/$p/comm" 2>/dev/null)" = "$1" ]; then echo "$p"; return; fi
  pgrep -x -P 1 -- "$1"
}
"""
SERVICE_STOP = DAEMON_PIDS + r"""
pids=$(daemon_pids "$1") || { echo "$1 is not running" >&2; exit 3; }
set -- $pids
tr '\0' '\n' < "/proc/$1/cmdline"
kill -TERM $pids 2>/dev/null
for _ in $(seq 100); do kill -0 $pids 2>/dev/null || exit 0; sleep 0.1; done
kill -KILL $pids 2>/dev/null; sleep 0.2; exit 0
"""
# up: ready (when the daemon has a check) or running
SERVICE_START = DAEMON_PIDS + r"""
name=$1; ready=$2; shift 2
up() { if [ -n "$ready" ]; then sh -c "$ready"; else daemon_pids "$name" >/dev/null; fi; }
up || setsid -f "$@" </dev/null >>"/run/zlab/lab/service-$name.out" 2>&1 || exit $?
for _ in $(seq 600); do up && exit 0; sleep 0.1; done
echo "$name did not come up in 60 s" >&2; exit 1
"""
# the real machine in os.uname(): mfusepy lays out struct stat by platform.machine()
FAULTDIR = ["env", "PYTHONPATH=/opt/zlab", "ZLAB_REAL_UNAME=1", syspython.ZLAB_PYTHON, "-m", "zlab.fusefs.faultdir"]


def _sshd(lab, hname, on):
    if on:
        _service_start(lab, hname, "sshd", SERVICES["sshd"])
    else:
        # sshd and every session end: connections are refused until `ssh on`
        lab.exec(hname, ["/bin/sh", "-c", "pkill -KILL -x sshd; rm -f /run/sshd.pid; true"])


def _service_start(lab, hname, name, argv):
    proc = lab.exec(
        hname, ["/bin/bash", "-c", SERVICE_START, "zlab-service", name, SERVICE_READY.get(name, "")] + list(argv)
    )
    if proc.returncode != 0:
        raise LabError("%s: starting %s (%s): %s" % (hname, name, " ".join(argv), proc.stderr.strip()))


def _fault_service(lab, hname, a):
    if len(a) != 2 or a[1] not in ("stop", "start"):
        raise LabError("fault service takes NAME stop|start")
    name, action = a
    sd = lab.state_dir(hname) if lab.data["emulator"] else None
    if action == "stop":
        proc = lab.exec(hname, ["/bin/bash", "-c", SERVICE_STOP, "zlab-service", name])
        if proc.returncode != 0:
            raise LabError("%s: %s" % (hname, proc.stderr.strip()))
        if sd:
            kernel.record_service_fault(sd, name, [x for x in proc.stdout.split("\n") if x])
        print("zlab: %s %s stopped" % (hname, name))
        return 0
    rec = kernel.pending_faults(sd)["service"].get(name) if sd else None
    argv = SERVICES.get(name) or (rec or {}).get("argv")
    if not argv:
        raise LabError(
            "%s: no command known to start %s (only one that `zlab fault %s service "
            "%s stop` stopped)" % (hname, name, hname, name)
        )
    _service_start(lab, hname, name, argv)
    if sd:
        kernel.forget_service_fault(sd, name)
    print("zlab: %s %s started" % (hname, name))
    return 0


def _pending(lab, hname):
    """[(kind, key, record)] of what `zlab fault` left on a host: the kernel's write, tool and
    service faults, sshd stopped by `ssh off`, the link taken down by `link off`."""
    out = []
    if lab.data["emulator"]:
        pend = kernel.pending_faults(lab.state_dir(hname))
        for kind in faults.KINDS:
            out += [(kind, key, rec) for key, rec in sorted(pend[kind].items())]
    services = {key for kind, key, _ in out if kind == "service"}
    if "sshd" not in services and lab.exec(hname, ["/bin/sh", "-c", SERVICE_READY["sshd"]]).returncode:
        out.append(("ssh", "off", None))
    if network.mgmt_link_up(lab.name, lab.host(hname)["index"]) is False:
        out.append(("link", "off", None))
    return out


def _describe(kind, key, rec):
    return "%s %s" % (kind, key) if rec is None else faults.describe(kind, key, rec)


def _fault_list(lab, hname, clear):
    if not lab.running(hname):
        raise LabError("%s is not running" % hname)
    pending = _pending(lab, hname)
    if not clear:
        for item in pending:
            print("%s: %s" % (hname, _describe(*item)))
        if not pending:
            print("%s: no pending faults" % hname)
        return 0
    if lab.data["emulator"]:
        kernel.clear_faults(lab.state_dir(hname))
        proc = lab.exec(hname, FAULTDIR + ["release"])
        if proc.returncode != 0:
            print("zlab: %s: %s" % (hname, proc.stderr.strip()), file=sys.stderr)
        released = json.loads(proc.stdout) if proc.returncode == 0 else []
    else:
        released = []
    for kind, key, rec in pending:
        if kind == "service":
            _service_start(lab, hname, key, SERVICES.get(key) or rec["argv"])
            print("zlab: %s: cleared service %s (started again)" % (hname, key))
        elif kind == "ssh":
            _sshd(lab, hname, True)
            print("zlab: %s: cleared ssh off (sshd started)" % hname)
        elif kind == "link":
            network.set_mgmt_link(lab.name, lab.host(hname)["index"], True)
            print("zlab: %s: cleared link off (management link up)" % hname)
        else:
            print("zlab: %s: cleared %s" % (hname, faults.describe(kind, key, rec)))
    for d in released:
        print(
            "zlab: %s: %s no longer served for write faults%s"
            % (hname, d["dir"], " (%s)" % d["error"] if d.get("error") else "")
        )
    if not pending and not released:
        print("zlab: %s: no pending faults" % hname)
    return 0


def _fault_write(lab, hname, a, count, after):
    if len(a) != 2:
        raise LabError("fault write takes PATH ERRNO")
    path, code = a[0], host.errno_value(a[1])
    try:
        faults.new_write(code, count=count, after=after)
        target = faults.write_target(path)
    except ValueError as exc:
        raise LabError("fault write: %s" % exc) from None
    note = ""
    if target == "faultdir":
        # the file's directory is served by a FUSE passthrough inside the host (faultdir.py)
        proc = lab.exec(hname, FAULTDIR + ["serve", path])
        if proc.returncode != 0:
            raise LabError("%s: %s" % (hname, proc.stderr.strip()))
        served = json.loads(proc.stdout)
        path = served["path"]
        note = " (%s served through FUSE)" % served["dir"]
    kernel.add_write_fault(lab.state_dir(hname), path, code, count=count, after=after)
    print(
        "zlab: next %d write(s) to %s on %s fail with %s%s%s"
        % (count, path, hname, faults.errno_name(code), " after %d that work" % after if after else "", note)
    )
    return 0


def _fault_tool(lab, hname, a, args):
    if len(a) not in (1, 2):
        raise LabError("fault tool takes NAME [EXIT]")
    name = a[0]
    wrapped = sorted(set(tools.TOOLS) | set(s390tools.FAULTABLE))
    if name not in wrapped:
        raise LabError("fault tool: zlab wraps %s, not %s" % (", ".join(wrapped), name))
    if args.half_way and name not in real_tools.HALF_WAY:
        raise LabError("fault tool: --half-way is defined for %s" % ", ".join(sorted(real_tools.HALF_WAY)))
    if len(a) == 2 and not re.match(r"^-?[0-9]+$", a[1]):
        raise LabError("fault tool: EXIT is a number, not %s" % a[1])
    exit_code = int(a[1]) if len(a) == 2 else None
    count = 1 if args.count is None else args.count
    try:
        kernel.add_tool_fault(
            lab.state_dir(hname),
            name,
            exit_code,
            count=count,
            stderr=args.stderr or "",
            after=args.after or 0,
            sleep=args.sleep or 0,
            half_way=args.half_way,
        )
    except ValueError as exc:
        raise LabError(str(exc)) from None
    what = []
    if args.sleep:
        what.append("sleep %g s" % args.sleep)
    if exit_code is None:
        what.append("then run normally")
    else:
        what.append("%sexit %d" % ("do half the work, " if args.half_way else "", exit_code))
    print(
        "zlab: next %d run(s) of %s on %s %s%s"
        % (count, name, hname, ", ".join(what), " (after %d that work)" % args.after if args.after else "")
    )
    return 0


def cmd_fault(args):
    lab = Lab.load(_lab_name(args))
    h = lab.host(args.host)
    a = args.args
    if args.kind != "link":  # link off|on acts on the lab's switch port, any host kind
        qemu_s390x.refuse(lab, args.host, "zlab fault " + args.kind)
    for opt, kinds in (
        ("count", ("write", "tool")),
        ("after", ("write", "tool")),
        ("stderr", ("tool",)),
        ("sleep", ("tool",)),
        ("half_way", ("tool",)),
    ):
        if getattr(args, opt) not in (None, False) and args.kind not in kinds:
            raise LabError("fault %s takes no --%s" % (args.kind, opt.replace("_", "-")))
    if args.kind in ("ssh", "link"):
        if len(a) != 1 or a[0] not in ("on", "off"):
            raise LabError("fault %s takes on|off" % args.kind)
        if args.kind == "link":
            network.set_mgmt_link(lab.name, h["index"], a[0] == "on")
            print("zlab: %s management link %s" % (args.host, "up" if a[0] == "on" else "down"))
            return 0
        _sshd(lab, args.host, a[0] == "on")
        print("zlab: %s sshd %s" % (args.host, "started" if a[0] == "on" else "stopped"))
        return 0
    if args.kind == "service":
        return _fault_service(lab, args.host, a)
    if args.kind in ("list", "clear"):
        if a:
            raise LabError("fault %s takes no arguments" % args.kind)
        return _fault_list(lab, args.host, clear=args.kind == "clear")
    if not lab.data["emulator"]:
        raise LabError("faults need the device emulator (lab runs with plain /sys)")
    if args.kind == "write":
        return _fault_write(lab, args.host, a, 1 if args.count is None else args.count, args.after or 0)
    return _fault_tool(lab, args.host, a, args)


def cmd_image(args):
    if args.action == "build" and args.kind in image_s390x.KINDS:
        print("%s %s" % (args.kind, image_s390x.build(force=args.force, kind=args.kind)))
        return 0
    if args.action == "build":
        paths = image.build_all(force=args.force)
        s390tools.register_binfmt()
        for v, p in paths.items():
            print("%s %s" % (v, p))
        return 0
    for v in image.VARIANTS:
        print("%-5s %s %s" % (v, image.image_path(v), "built" if image.is_built(v) else "not built"))
    for kind in image_s390x.KINDS:
        built = image_s390x.is_built(kind=kind)
        print("%s %s %s" % (kind, image_s390x.image_path(kind=kind), "built" if built else "not built (--kind)"))
    return 0


def parser():
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--lab", "-l", default=argparse.SUPPRESS, help="lab name (default: $ZLAB_LAB or the only lab)")
    p = argparse.ArgumentParser(
        prog="zlab",
        description="zlab: an emulated IBM Z CPC (LPARs, KVM guests, "
        "HiperSockets, ISM) built from an Ansible inventory; hosts are Linux namespaces "
        "reachable over SSH.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        parents=[common],
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    s = sub.add_parser("up", parents=[common], help="build and start a lab from an inventory")
    s.add_argument("inventory", help="Ansible inventory directory with the cpc model")
    s.add_argument("--name", help="lab name, as --lab (default: the inventory directory's name)")
    s.add_argument("--cpc", metavar="NAME", help="the CPC to emulate (cpc.name) when the inventory " "has several")
    s.add_argument(
        "--emulator",
        choices=["auto", "on", "off"],
        default=os.environ.get("ZLAB_EMULATOR", "auto"),
        help="s390 device emulator over /sys (off: plain /sys)",
    )
    s.add_argument("--rebuild-image", action="store_true")
    s.add_argument("--keep-on-error", action="store_true", help="leave a failed lab for debugging")
    s.set_defaults(func=cmd_up)

    s = sub.add_parser("down", parents=[common], help="remove a lab (idempotent)")
    s.add_argument("name", nargs="?")
    s.add_argument("--all", action="store_true", help="every lab on this machine")
    s.set_defaults(func=cmd_down)

    s = sub.add_parser("status", parents=[common], help="hosts, devices, state")
    s.add_argument("name", nargs="?")
    s.add_argument("--all", action="store_true")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_status)

    s = sub.add_parser("inventory", parents=[common], help="print an Ansible inventory")
    s.add_argument("--format", choices=["yaml", "ini"], default="yaml")
    s.set_defaults(func=cmd_inventory)

    s = sub.add_parser("exec", parents=[common], help="run a command in a host")
    s.add_argument("host")
    s.add_argument("cmd", nargs=argparse.REMAINDER)
    s.set_defaults(func=cmd_exec)

    s = sub.add_parser("reboot", parents=[common], help="reboot a host or guest")
    s.add_argument("host")
    s.set_defaults(func=cmd_reboot)

    s = sub.add_parser("start-guest", parents=[common], help="start a KVM guest from its XML")
    s.add_argument("guest")
    s.set_defaults(func=cmd_start_guest)

    s = sub.add_parser("stop-guest", parents=[common], help="stop a KVM guest")
    s.add_argument("guest")
    s.set_defaults(func=cmd_stop_guest)

    raw = argparse.RawDescriptionHelpFormatter
    drift_help = EPILOG[EPILOG.index("drift (changes") : EPILOG.index("faults:")]
    fault_help = EPILOG[EPILOG.index("faults:") : EPILOG.index("The lab to act on")]
    s = sub.add_parser(
        "drift", parents=[common], help="change state behind Ansible's back", epilog=drift_help, formatter_class=raw
    )
    s.add_argument("host")
    s.add_argument("action", choices=sorted(DRIFT))
    s.add_argument("args", nargs="*")
    s.set_defaults(func=cmd_drift)

    s = sub.add_parser("fault", parents=[common], help="inject a fault", epilog=fault_help, formatter_class=raw)
    s.add_argument("host")
    s.add_argument("kind", choices=FAULT_KINDS)
    s.add_argument("args", nargs="*")
    s.add_argument("--count", type=int, help="faulty writes or runs (default 1)")
    s.add_argument("--after", type=int, help="writes or runs that work first (default 0)")
    s.add_argument("--stderr", help="tool: message on stderr")
    s.add_argument("--sleep", type=float, help="tool: seconds to wait first")
    s.add_argument("--half-way", action="store_true", help="tool: do part of the work first")
    s.set_defaults(func=cmd_fault)

    s = sub.add_parser("image", parents=[common], help="host images")
    s.add_argument("action", choices=["build", "list"], nargs="?", default="list")
    s.add_argument("--force", action="store_true")
    s.add_argument(
        "--kind",
        choices=["namespace"] + list(image_s390x.KINDS),
        default="namespace",
        help="namespace: the base and kvm images (default); %s: the disks of real-kernel hosts"
        % ", ".join(image_s390x.KINDS),
    )
    s.set_defaults(func=cmd_image)
    return p


def main(argv=None):
    args = parser().parse_args(argv)
    if os.geteuid() != 0 and args.command not in ("inventory", "status"):
        print("zlab: must run as root (namespaces, mounts)", file=sys.stderr)
        return 1
    try:
        return args.func(args) or 0
    except BrokenPipeError:
        return 0
    except (LabError, model.ModelError, network.NetError, RuntimeError) as exc:
        print("zlab: %s" % exc if not str(exc).startswith("error:") else str(exc), file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
