"""zlab command line: an emulated IBM Z CPC for the s390x.network collection."""

import argparse
import json
import os
import re
import shlex
import sys
import time

from . import guests, host, image, inventory, kernel, model, network, s390tools
from .host import Lab, LabError

EPILOG = """\
commands:
  up INVENTORY_DIR          build the CPC of an Ansible inventory (cpc: model, zlab_kernel,
                            kvm_guests): one host per partition with a host, one per KVM guest;
                            lab name: --lab/--name, else the directory's name; a lab that is up
                            with the same CPC keeps its hosts and takes the edited variables;
                            an inventory of several CPCs (cpc set per CPC group, also as
                            cpc: "{{ cpc_x }}") needs --cpc NAME (lab name DIR-NAME)
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
  image build [--force]     build the cached host images (/var/cache/zlab/images)

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
  zlab fault HOST write PATH ERRNO [--count N]
      the next N writes to PATH fail with ERRNO (EPERM, EINVAL, EBUSY, EIO, ... or a number)
  zlab fault HOST tool NAME EXIT [--count N] [--stderr MSG] [--after M]
      the next N runs of tool NAME (chzdev, lszdev, smc_rnics, ...) exit with EXIT
      (after M runs that work normally)
  zlab fault HOST ssh off|on
      stop sshd and end every SSH session (connections refused: Ansible reports the host
      UNREACHABLE at once), or start sshd again
  zlab fault HOST link off|on
      take the host's management link down (packets are dropped: connections time out; an
      open ControlPersist master hangs as with a crashed host), or up again

The lab to act on: --lab NAME, else $ZLAB_LAB, else the only running lab, else the built-in
lab "lab" (zlab up inventories/lab) when it is one of them.
"""
DEFAULT_LAB = "lab"


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
        name = "%s-%s" % (name[:19 - len(cpc)].rstrip("-"), cpc)
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
        if (lab.data.get("inventory") == mdl.inventory and lab.data.get("digest") == mdl.digest()
                and all(s == "running" for s in states.values())):
            # same CPC: the hosts stay as they are, `zlab inventory` gets the edited variables
            print("zlab: lab %s is already up (%d hosts); %s" % (
                name, len(states), "groups and host variables refreshed from " + mdl.inventory
                if lab.refresh_vars(mdl) else "inventory variables unchanged"))
            return 0
        print("zlab: lab %s differs from %s or is not running; rebuilding"
              % (name, args.inventory), file=sys.stderr)
        host.down(name)
    elif name in host.list_labs():
        host.down(name)
    variants = sorted({"kvm" if h["role"] == "kvm_host" else "base" for h in mdl.hosts.values()})
    for v in variants:
        image.build(v, force=args.rebuild_image)
    if args.emulator:
        s390tools.register_binfmt()  # the hosts' real s390-tools run through qemu-user
    lab = Lab.create(name, mdl, emulator=args.emulator)
    try:
        lab.up()
    except Exception:
        if not args.keep_on_error:
            host.down(name)
        raise
    print("zlab: lab %s up: %d hosts in %.1f s (emulator %s, management %s.0/24)" % (
        name, len(lab.hosts), time.monotonic() - start,
        "on" if lab.data["emulator"] else "OFF (plain /sys)", network.SUBNET_FMT % lab.slot))
    for hname, h in lab.hosts.items():
        print("  %-12s %-9s %-8s %-10s %s" % (hname, h["role"], h["partition"],
                                              h["kernel_profile"], h["ip"]))
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
    qeth = {gid: "online" if card.get("online") else "offline"
            for gid, card in sorted((st.get("qeth") or {}).items())}
    pci = {}
    for fid, ent in sorted((st.get("pci") or {}).items(), key=lambda kv: int(kv[0])):
        if ent.get("configured"):
            pci["%x" % int(fid)] = "%s %s" % (ent.get("addr"), ent.get("driver") or "-")
    return {"qeth": qeth, "pci": pci, "modules": list(st.get("modules") or [])}


def cmd_status(args):
    names = host.list_labs() if args.all else [args.name or _lab_name(args)]
    report = []
    for name in names:
        try:
            lab = Lab.load(name)
        except LabError:
            if not host.lab_exists(name):
                raise LabError("lab %s is not up (zlab up INVENTORY_DIR; zlab status --all "
                               "lists the labs)" % name) from None
            # no record, but namespaces or files of the lab are left
            report.append({"lab": name, "state": "crashed (zlab down %s)" % name})
            continue
        entry = {"lab": name, "inventory": lab.data["inventory"], "cpc": lab.data["cpc_name"],
                 "emulator": lab.data["emulator"], "hosts": {}}
        for hname, h in lab.hosts.items():
            spec = h["spec"]
            chp = sorted({c["chpid"] for c in spec["ccw"]})
            entry["hosts"][hname] = {
                "state": lab.host_state(hname), "role": h["role"], "partition": h["partition"],
                "kernel": h["kernel_profile"], "ip": h["ip"], "boots": h.get("boots", 0),
                "ccw": "%d devices on CHPID %s" % (len(spec["ccw"]), ",".join(chp)) if chp
                else "-",
                "pci": ["%#x (uid %#x)" % (p["fid"], p["uid"]) for p in spec["pci"]]
                if h["role"] != "guest" else
                ["%s -> fid %#x uid %#x" % (x["addr"], p["fid"], p["uid"])
                 for x, p in zip(h.get("held") or [], h.get("held_pci") or [])],
                "nics": [n["ifname"] + "@" + n["chpid"] for n in h.get("nics") or []],
                "kvm_host": h["kvm_host"],
                "active": _active_devices(lab, hname) if lab.running(hname) else {}}
        report.append(entry)
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    for entry in report:
        if "hosts" not in entry:
            print("lab %s: %s" % (entry["lab"], entry["state"]))
            continue
        print("lab %s: CPC %s from %s (emulator %s)" % (entry["lab"], entry["cpc"],
                                                        entry["inventory"],
                                                        "on" if entry["emulator"] else "off"))
        print("  %-10s %-8s %-9s %-8s %-11s %-13s %s" % ("HOST", "STATE", "ROLE", "LPAR",
                                                         "KERNEL", "ADDRESS", "DEVICES"))
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
            print("  %-10s %-8s %-9s %-8s %-11s %-13s %s" % (
                hname, h["state"], h["role"], h["partition"], h["kernel"], h["ip"], dev))
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
        print("zlab: guest %s of %s stays shut off:\n%s" % (guest, args.host, why),
              file=sys.stderr)
    return 0


def cmd_start_guest(args):
    lab = Lab.load(_lab_name(args))
    res = guests.start(lab, args.guest)
    print("Domain '%s' started" % args.guest)
    for p in res["pci"]:
        print("  zpci uid %#06x fid %#010x (PCHID %#06x PFT %#04x VF %d)" % (
            p["uid"], p["fid"], p["pchid"], p["pft"], p["vfn"]))
    for n in res["nics"]:
        print("  %s (mac %s) on CHPID %s via %s" % (n["ifname"], n["mac"], n["chpid"],
                                                    n["source"]))
    return 0


def cmd_stop_guest(args):
    lab = Lab.load(_lab_name(args))
    guests.stop(lab, args.guest)
    print("Domain '%s' destroyed" % args.guest)
    return 0


DRIFT = {
    "set": (2, 'printf "%s\\n" "$1" > "$2"', lambda a: [a[1], a[0]]),
    "rm": (1, 'rm -f -- "$1"', lambda a: a),
    "file": (2, 'printf "%s" "$2" > "$1"', lambda a: a),
    "unbind": (1, 'd=/sys/bus/pci/devices/$1; [ -e "$d/driver" ] || '
                  '{ echo "$1 is not bound to a driver" >&2; exit 1; }; '
                  'echo "$1" > "$d/driver/unbind"', lambda a: a),
    "bind": (2, 'd=/sys/bus/pci/devices/$1; echo "$2" > "$d/driver_override" && '
                '{ [ ! -e "$d/driver" ] || echo "$1" > "$d/driver/unbind"; } && '
                'echo "$1" > /sys/bus/pci/drivers_probe', lambda a: a),
    "offline": (1, 'echo 0 > "/sys/bus/ccwgroup/devices/$1/online"', lambda a: a),
    "online": (1, 'echo 1 > "/sys/bus/ccwgroup/devices/$1/online"', lambda a: a),
    "sysctl": (2, 'sysctl -w "$1=$2"', lambda a: a),
    "power": (2, 'echo "$2" > "/sys/bus/pci/slots/$(printf %08x 0x$1)/power"',
              lambda a: [a[0].lower().replace("0x", ""), a[1]]),
}


def cmd_drift(args):
    lab = Lab.load(_lab_name(args))
    if args.action not in DRIFT:
        raise LabError("drift: unknown action %s (one of %s)" % (args.action, ", ".join(DRIFT)))
    nargs, script, mangle = DRIFT[args.action]
    if len(args.args) != nargs:
        raise LabError("drift %s takes %d argument(s)" % (args.action, nargs))
    proc = lab.exec(args.host, ["/bin/bash", "-c", script, "zlab-drift"] + mangle(args.args))
    sys.stdout.write(proc.stdout)
    sys.stderr.write(proc.stderr)
    if proc.returncode == 0:
        print("zlab: drift on %s: %s %s" % (args.host, args.action, " ".join(
            shlex.quote(a) for a in args.args)), file=sys.stderr)
    return proc.returncode


def cmd_fault(args):
    lab = Lab.load(_lab_name(args))
    h = lab.host(args.host)
    a = args.args
    if args.kind in ("ssh", "link"):
        if len(a) != 1 or a[0] not in ("on", "off"):
            raise LabError("fault %s takes on|off" % args.kind)
        if args.kind == "link":
            network.set_mgmt_link(lab.name, h["index"], a[0] == "on")
            print("zlab: %s management link %s" % (args.host, "up" if a[0] == "on" else "down"))
            return 0
        if a[0] == "off":
            # sshd and every session end: connections are refused until `ssh on`
            lab.exec(args.host, ["/bin/sh", "-c", "pkill -KILL -x sshd; rm -f /run/sshd.pid; "
                                 "true"])
        else:
            lab.exec(args.host, ["/bin/sh", "-c", "pgrep -x sshd >/dev/null || /usr/sbin/sshd "
                                 "-E /run/zlab/lab/sshd.log"], check=True)
        print("zlab: %s sshd %s" % (args.host, "started" if a[0] == "on" else "stopped"))
        return 0
    if not lab.data["emulator"]:
        raise LabError("faults need the device emulator (lab runs with plain /sys)")
    sd = lab.state_dir(args.host)
    if args.kind == "write":
        if len(a) != 2:
            raise LabError("fault write takes PATH ERRNO")
        kernel.add_write_fault(sd, a[0], host.errno_value(a[1]), count=args.count)
        print("zlab: next %d write(s) to %s on %s fail with %s" % (args.count, a[0], args.host,
                                                                    a[1]))
        return 0
    if args.kind == "tool":
        if len(a) != 2:
            raise LabError("fault tool takes NAME EXIT")
        kernel.add_tool_fault(sd, a[0], int(a[1]), count=args.count, stderr=args.stderr or "",
                              after=args.after)
        print("zlab: next %d run(s) of %s on %s exit %s" % (args.count, a[0], args.host, a[1]))
        return 0
    raise LabError("fault: unknown kind %s (write, tool, ssh, link)" % args.kind)


def cmd_image(args):
    if args.action == "build":
        paths = image.build_all(force=args.force)
        s390tools.register_binfmt()
        for v, p in paths.items():
            print("%s %s" % (v, p))
        return 0
    for v in image.VARIANTS:
        print("%-5s %s %s" % (v, image.image_path(v), "built" if image.is_built(v)
                              else "not built"))
    return 0


def parser():
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--lab", "-l", default=argparse.SUPPRESS, help="lab name (default: $ZLAB_LAB or the only lab)")
    p = argparse.ArgumentParser(
        prog="zlab", description="zlab: an emulated IBM Z CPC (LPARs, KVM guests, "
        "HiperSockets, ISM) built from an Ansible inventory; hosts are Linux namespaces "
        "reachable over SSH.", epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
        parents=[common])
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    s = sub.add_parser("up", parents=[common], help="build and start a lab from an inventory")
    s.add_argument("inventory", help="Ansible inventory directory with the cpc model")
    s.add_argument("--name", help="lab name, as --lab (default: the inventory directory's name)")
    s.add_argument("--cpc", metavar="NAME", help="the CPC to emulate (cpc.name) when the inventory "
                   "has several")
    s.add_argument("--emulator", choices=["auto", "on", "off"], default=os.environ.get(
        "ZLAB_EMULATOR", "auto"), help="s390 device emulator over /sys (off: plain /sys)")
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
    drift_help = EPILOG[EPILOG.index("drift (changes"):EPILOG.index("faults:")]
    fault_help = EPILOG[EPILOG.index("faults:"):EPILOG.index("The lab to act on")]
    s = sub.add_parser("drift", parents=[common], help="change state behind Ansible's back",
                       epilog=drift_help, formatter_class=raw)
    s.add_argument("host")
    s.add_argument("action", choices=sorted(DRIFT))
    s.add_argument("args", nargs="*")
    s.set_defaults(func=cmd_drift)

    s = sub.add_parser("fault", parents=[common], help="inject a fault", epilog=fault_help,
                       formatter_class=raw)
    s.add_argument("host")
    s.add_argument("kind", choices=["write", "tool", "ssh", "link"])
    s.add_argument("args", nargs="+")
    s.add_argument("--count", type=int, default=1)
    s.add_argument("--stderr")
    s.add_argument("--after", type=int, default=0)
    s.set_defaults(func=cmd_fault)

    s = sub.add_parser("image", parents=[common], help="host images")
    s.add_argument("action", choices=["build", "list"], nargs="?", default="list")
    s.add_argument("--force", action="store_true")
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
        print("zlab: %s" % exc if not str(exc).startswith("error:") else str(exc),
              file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
