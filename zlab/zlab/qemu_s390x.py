# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Real-kernel lab hosts: a Debian s390x kernel under qemu-system-s390x (TCG).

A host whose inventory sets ``zlab_kind: debian13-s390x`` (or another kind of
:data:`zlab.image_s390x.KINDS`: ``debian13-linux7-s390x``, ``debian13-linux7-smc-s390x``) is not a
set of namespaces over the emulated kernel but a QEMU guest booting an image of
:mod:`zlab.image_s390x`:

```
root netns             zlab-<lab>-sw (switch)          zlab-<lab>-<host>               QEMU guest
zlab<N> 10.209.N.1 --- mgmt (bridge) ─ m<i> --------- mgmt0 ┐                          (s390x)
                                                       br0 ─ tap0 = virtio-net-ccw 0.0.0001
                                                                     10.209.N.(10+i)
```

QEMU runs in the host's network namespace, so ``zlab down`` ends it with the namespace's other
processes and the namespace takes its tap and bridge along; the host's directory holds its qcow2
overlay (``disk.qcow2``), the serial console (``console.log``, SCLP console ``ttysclp0``) and
QEMU's own messages (``qemu.log``). The guest has the address and MAC the namespace host would
have had (the MAC moves from ``mgmt0`` to the guest's NIC), no default route and nothing else on
the management network, as every lab host. The CPC model's PCI functions of the host's partition
become zPCI functions: ``-device zpci,uid=U,fid=F,target=zpciN`` on a ``virtio-net-pci`` whose
netdev is a hub with no other port (its packets go nowhere), so the guest sees PCI function
``UUUU:00:00.0`` with its FID and UID, slot ``%08x``, power control and an IOMMU group; the
function is a virtio NIC, not an ISM device (QEMU emulates neither ISM nor qeth).

``zlab exec`` and everything that runs a command in a host go over SSH (root, the lab's key);
``zlab reboot`` is ``systemctl reboot`` in the guest and waits for SSH with a new boot ID; stopping
a host powers it off through SSH, then ends QEMU. ``zlab drift`` and ``zlab fault`` (except ``link
off|on``, which acts on the switch port) act on the emulated kernel and are refused.

The 6.12 kind runs under the machine's ``qemu-system-s390x``, the Linux 7.x kinds under the newer
QEMU of :mod:`zlab.qemu_newer` (fetched on first use). Settings: ``ZLAB_QEMU_MEMORY`` (guest memory, MiB, default 1024), ``ZLAB_QEMU_TB_SIZE`` (TCG's
translation cache, MiB, default 256), ``ZLAB_QEMU_BOOT_TIMEOUT`` (s, default 900: a TCG boot takes
half a minute to a few minutes on a loaded two-core machine), ``ZLAB_QEMU_S390X`` (a QEMU
program for every kind) and ``ZLAB_QEMU_DATADIR`` (its firmware directory, ``-L``).
"""

import os
import shlex
import shutil
import signal
import socket
import subprocess
import time

from . import image_s390x, network, qemu_newer
from .errors import LabError
from .processes import pid_alive

KIND = image_s390x.KIND  # the first zlab_kind value of real-kernel hosts (zlab.model.HOST_KINDS)
KINDS = tuple(image_s390x.KINDS)
MACHINE_QEMU = "qemu-system-s390x"
# one QEMU for every kind, instead of the machine's and zlab.qemu_newer's
QEMU = os.environ.get("ZLAB_QEMU_S390X", "")
QEMU_DATADIR = os.environ.get("ZLAB_QEMU_DATADIR", "")  # its firmware directory (-L), if not its own
MEMORY_MB = int(os.environ.get("ZLAB_QEMU_MEMORY", "1024"))
# TCG's translation cache (MiB): QEMU's default of 1 GiB ends up resident after a boot
TB_SIZE_MB = int(os.environ.get("ZLAB_QEMU_TB_SIZE", "256"))
BOOT_TIMEOUT = float(os.environ.get("ZLAB_QEMU_BOOT_TIMEOUT", "900"))
# The vector facility stays off: with it, TCG computes wrong TCP checksums and no connection forms
# (its enhancements need it).
CPU = "max,vx=off,vxeh=off"
MGMT_DEVNO = "fe.0.0001"  # the guest's 0.0.0001: interface enc1
DISK_DEVNO = "fe.0.0000"
SSH_OPTS = [
    "-o",
    "BatchMode=yes",
    "-o",
    "StrictHostKeyChecking=no",
    "-o",
    "UserKnownHostsFile=/dev/null",
    "-o",
    "LogLevel=ERROR",
    "-o",
    "ConnectTimeout=5",
    "-o",
    "ServerAliveInterval=5",
    "-o",
    "ServerAliveCountMax=3",
]


def is_real(h):
    """True for a host record (lab.json) or model host of a real-kernel kind."""
    return (h or {}).get("kind") in KINDS


def missing():
    """Why real-kernel hosts cannot run here, or None."""
    for tool, pkg in ((QEMU or MACHINE_QEMU, "qemu-system-misc"), ("qemu-img", "qemu-utils")):
        if shutil.which(tool) is None:
            return "%s is missing (Debian package %s; make zlab-deps)" % (tool, pkg)
    return None


def refuse(lab, hname, what):
    """LabError for commands that act on the emulated kernel, which a real-kernel host has not."""
    h = lab.host(hname)
    if is_real(h):
        raise LabError(
            "%s: %s is not supported on real-kernel hosts (zlab_kind %s): it acts on the emulated "
            "kernel; run the change in the host (zlab exec %s -- ...) instead" % (hname, what, h["kind"], hname)
        )


def boot_timeout(lab, names, default):
    return max(default, BOOT_TIMEOUT) if any(is_real(lab.hosts[n]) for n in names) else default


# ---------------------------------------------------------------------------- network


def _ns_run(ns, cmd, check=True):
    return network.run(["ip", "netns", "exec", ns] + cmd, check=check)


def _setup_nic(lab, hname):
    """The host netns with mgmt0 on the management bridge (network.attach_host), turned into a
    bridge br0 of mgmt0 and the guest's tap0; returns (netns, the guest's MAC)."""
    h = lab.hosts[hname]
    ns = network.attach_host(lab.name, lab.slot, h["index"], hname)
    out = network.run(["ip", "-n", ns, "-o", "link", "show", "mgmt0"]).stdout
    mac = out.split("link/ether", 1)[1].split()[0]
    for key in ("all", "default"):
        _ns_run(ns, ["sysctl", "-q", "-w", "net.ipv6.conf.%s.disable_ipv6=1" % key], check=False)
    network.run(["ip", "-n", ns, "addr", "flush", "dev", "mgmt0"])
    # the guest's NIC takes the MAC the namespace host has on mgmt0 (ARP entries stay valid)
    network.run(["ip", "-n", ns, "link", "set", "mgmt0", "address", "02:5b" + mac[5:]])
    network.run(["ip", "-n", ns, "link", "add", "br0", "type", "bridge", "stp_state", "0", "forward_delay", "0"])
    network.run(["ip", "-n", ns, "tuntap", "add", "dev", "tap0", "mode", "tap"])
    for dev in ("mgmt0", "tap0"):
        network.run(["ip", "-n", ns, "link", "set", dev, "master", "br0", "up"])
    network.run(["ip", "-n", ns, "link", "set", "br0", "up"])
    return ns, mac


# ---------------------------------------------------------------------------- QEMU


def qemu_program(kind):
    """(program, firmware directory or "") of the QEMU a host of ``kind`` runs under."""
    if QEMU:
        return QEMU, QEMU_DATADIR
    if image_s390x.KINDS[kind]["qemu"] == "newer":
        return qemu_newer.ensure()
    return MACHINE_QEMU, ""


def qemu_argv(lab, hname, mac, disk):
    """The qemu-system-s390x command line of a host."""
    h = lab.hosts[hname]
    files = image_s390x.files(kind=h.get("kind", KIND))
    program, datadir = qemu_program(h.get("kind", KIND))
    with open(lab.key_file() + ".pub", encoding="ascii") as f:
        key = f.read().split()[1]
    append = " ".join(
        [
            "root=/dev/vda",
            "rw",
        ]
        # without an initramfs the kernel mounts the disk itself, once its driver has found it
        + ([] if files["initrd"] else ["rootwait"])
        + [
            "console=ttysclp0",
            "systemd.ssh_auto=no",
            "systemd.hostname=" + hname,
            "zlab.ip=%s/24" % h["ip"],
            "zlab.mac=" + mac,
            "zlab.key=" + key,
        ]
    )
    argv = [program] + (["-L", datadir] if datadir else [])
    argv += [
        "-name",
        # the guest's /proc/sysinfo shows it as "VM00 Name" (8 characters)
        "guest=%s,process=zlab-%s-%s" % (hname, lab.name, hname),
        "-machine",
        "s390-ccw-virtio",
        "-accel",
        "tcg,tb-size=%d" % TB_SIZE_MB,
        "-cpu",
        CPU,
        "-m",
        str(MEMORY_MB),
        "-smp",
        "1",
        "-nodefaults",
        "-no-user-config",
        "-display",
        "none",
        "-chardev",
        "file,id=console,path=" + lab.hdir(hname, "console.log"),
        "-device",
        "sclpconsole,chardev=console",
        "-kernel",
        files["kernel"],
    ]
    argv += ["-initrd", files["initrd"]] if files["initrd"] else []
    argv += [
        "-append",
        append,
        "-drive",
        "file=%s,if=none,id=root,format=qcow2" % disk,
        "-device",
        "virtio-blk-ccw,drive=root,devno=" + DISK_DEVNO,
        "-netdev",
        "tap,id=mgmt,ifname=tap0,script=no,downscript=no",
        "-device",
        "virtio-net-ccw,netdev=mgmt,mac=%s,devno=%s" % (mac, MGMT_DEVNO),
    ]
    for i, fn in enumerate(zpci_functions(h)):
        argv += [
            "-netdev",
            "hubport,id=zpcinet%d,hubid=%d" % (i, 100 + i),
            "-device",
            "zpci,uid=%#x,fid=%#x,target=zpci%d" % (fn["uid"], fn["fid"], i),
            "-device",
            "virtio-net-pci,id=zpci%d,netdev=zpcinet%d,romfile=" % (i, i),
        ]
    return argv


def zpci_functions(h):
    """[{"fid", "uid"}] of the host's partition (the CPC model's ISM and RoCE functions)."""
    return [{"fid": p["fid"], "uid": p["uid"]} for p in (h.get("spec") or {}).get("pci") or []]


def start(lab, hname):
    """Start a host's QEMU (does not wait for it: :func:`poll`)."""
    h = lab.hosts[hname]
    if lab.running(hname):
        raise LabError("%s is already running" % hname)
    kind = h.get("kind", KIND)
    why = missing()
    if why:
        raise LabError("%s (zlab_kind %s): %s" % (hname, kind, why))
    if not image_s390x.is_built(kind=kind):
        raise LabError("image %s is not built (zlab image build --kind %s)" % (kind, kind))
    labfiles = lab.hdir(hname, "lab")
    os.makedirs(labfiles, exist_ok=True)
    for f in ("ready", "failed"):
        if os.path.exists(os.path.join(labfiles, f)):
            os.unlink(os.path.join(labfiles, f))
    disk = lab.hdir(hname, "disk.qcow2")
    if not os.path.exists(disk):
        image_s390x.overlay(disk, kind=kind)
    ns, mac = _setup_nic(lab, hname)
    argv = qemu_argv(lab, hname, mac, disk)
    with open(lab.hdir(hname, "qemu.log"), "ab") as out:
        out.write(("\n# %s\n%s\n" % (time.ctime(), shlex.join(argv))).encode())
        out.flush()
        proc = subprocess.Popen(
            ["nsenter", "--net=/run/netns/" + ns, "--"] + argv,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=out,
            start_new_session=True,
            cwd=lab.hdir(hname),
        )
    h["pid"] = proc.pid
    h["pid1"] = None
    h["boots"] = h.get("boots", 0) + 1
    h["started"] = time.time()
    h["mac"] = mac
    lab.save()
    return proc


def _tail(path, n=20):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return "".join(f.readlines()[-n:])
    except OSError:
        return ""


def _ssh_banner(ip, timeout=2.0):
    try:
        with socket.create_connection((ip, 22), timeout=timeout) as s:
            s.settimeout(timeout)
            return s.recv(64).startswith(b"SSH-")
    except OSError:
        return False


def ssh_argv(lab, hname, argv, env=None, tty=False):
    """ssh root@HOST running ``argv`` (a remote shell joins the words: they are quoted)."""
    h = lab.host(hname)
    tty = tty and os.isatty(0)  # an interactive shell (zlab exec HOST) gets a terminal
    cmd = ["ssh", "-i", lab.key_file()] + SSH_OPTS + (["-t"] if tty else ["-T"]) + ["root@" + h["ip"]]
    words = list(argv)
    if env:
        words = ["env"] + ["%s=%s" % kv for kv in env.items()] + words
    if words:
        cmd += ["--", shlex.join(words)]
    return cmd


def ssh(lab, hname, script, timeout=60):
    try:
        return subprocess.run(
            ssh_argv(lab, hname, ["/bin/sh", "-c", script]),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess([], 255, "", "timeout")


def boot_id(lab, hname):
    proc = ssh(lab, hname, "cat /proc/sys/kernel/random/boot_id", timeout=20)
    return proc.stdout.strip() if proc.returncode == 0 else None


def poll(lab, hname, changed_from=None):
    """True once the host answers over SSH with a boot ID other than ``changed_from`` (marks it
    ready); LabError when QEMU ended."""
    h = lab.hosts[hname]
    if not pid_alive(h.get("pid")):
        raise LabError(
            "%s: QEMU ended while booting:\n%s\nconsole (%s):\n%s"
            % (
                hname,
                _tail(lab.hdir(hname, "qemu.log")),
                lab.hdir(hname, "console.log"),
                _tail(lab.hdir(hname, "console.log")),
            )
        )
    if not _ssh_banner(h["ip"]):
        return False
    bid = boot_id(lab, hname)
    if not bid or bid == changed_from:
        return False
    h["boot_id"] = bid
    h["boot_seconds"] = round(time.time() - h["started"], 1)
    with open(os.path.join(lab.hdir(hname, "lab"), "ready"), "w", encoding="ascii") as f:
        f.write("%s\n" % bid)
    return True


def wait(lab, hname, timeout=BOOT_TIMEOUT, changed_from=None):
    """Wait until the host answers over SSH (with a boot ID other than ``changed_from``)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if poll(lab, hname, changed_from):
            return
        time.sleep(1)
    raise LabError(
        "timeout (%d s) waiting for %s to answer over SSH; console: %s"
        % (timeout, hname, lab.hdir(hname, "console.log"))
    )


def reboot(lab, hname, timeout=BOOT_TIMEOUT):
    """A real reboot: systemctl reboot in the guest (QEMU stays), then SSH with a new boot ID."""
    h = lab.host(hname)
    if not lab.running(hname):
        raise LabError("%s is not running" % hname)
    before = boot_id(lab, hname)
    if before is None:
        raise LabError("%s does not answer over SSH" % hname)
    start = time.time()
    if os.path.exists(os.path.join(lab.hdir(hname, "lab"), "ready")):
        os.unlink(os.path.join(lab.hdir(hname, "lab"), "ready"))
    ssh(lab, hname, "systemctl reboot --no-block", timeout=30)
    h["started"] = start
    wait(lab, hname, timeout, changed_from=before)
    h["reboot_seconds"] = h["boot_seconds"]
    h["boots"] = h.get("boots", 0) + 1
    lab.save()
    return {}


def stop(lab, hname, timeout=90):
    """Power the guest off through SSH (QEMU exits), else end QEMU (SIGTERM, then SIGKILL).
    Returns how it ended: "poweroff", "SIGTERM", "SIGKILL", or None when it was not running."""
    pid = lab.hosts[hname].get("pid")
    if not pid_alive(pid):
        return None
    if _ssh_banner(lab.hosts[hname]["ip"], timeout=1):
        ssh(lab, hname, "systemctl poweroff --no-block", timeout=20)
        end = time.monotonic() + timeout
        while time.monotonic() < end and pid_alive(pid):
            time.sleep(0.5)
    how = "poweroff"
    for sig, wait_s in ((signal.SIGTERM, 10), (signal.SIGKILL, 5)):
        if not pid_alive(pid):
            break
        how = sig.name
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            break
        end = time.monotonic() + wait_s
        while time.monotonic() < end and pid_alive(pid):
            time.sleep(0.1)
    return how


def memory_kib(lab, hname):
    """VmRSS of the host's QEMU (KiB), or None."""
    try:
        with open("/proc/%d/status" % lab.hosts[hname]["pid"], encoding="ascii") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except (OSError, TypeError):
        pass
    return None
