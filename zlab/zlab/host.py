# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Lab lifecycle on the controller: hosts as Linux namespaces on overlay roots.

State of a lab lives under ``/var/lib/zlab/<lab>/`` (``ZLAB_STATE_ROOT``):

```
lab.json                    model, slot (management subnet), per host index/ip/pids/netns
ssh/id_ed25519[.pub]        the key Ansible uses (root@every host)
hosts/<h>/upper, work       overlay layers (the host's "disk": survives `zlab reboot`)
hosts/<h>/root              overlay mount point (mounted only inside the host's mount ns)
hosts/<h>/kernel            zlab.kernel state dir, /run/zlab/kernel inside the host
hosts/<h>/lab               /run/zlab/lab inside: config.json, ready|failed, logs
hosts/<h>/console.log       output of the host's init
```

A host is ``nsenter --net=<named netns> unshare --pid --mount --uts --ipc --fork`` running a shell
stage that mounts the overlay and the pseudo file systems, pivots into the root and execs
``zlab/hostinit.py`` (PID 1 of the host). Killing PID 1 ends the PID namespace and with it every
mount of the host (overlay, FUSE), so `down` works after a crash too: it kills whatever runs in a
zlab network namespace, deletes the namespaces, links and directories.
"""

import errno as errno_mod
import fcntl
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time

from . import guests, image, kernel, model as model_mod, network, profiles, qemu_s390x, syspython
from .errors import LabError
from .processes import pid_alive

STATE_ROOT = os.environ.get("ZLAB_STATE_ROOT", "/var/lib/zlab")
ZLAB_SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the repo's zlab/
LAB_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,19}$")
EXEC_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
BOOT_TIMEOUT = float(os.environ.get("ZLAB_BOOT_TIMEOUT", "120"))


def lab_dir(lab):
    return os.path.join(STATE_ROOT, lab)


def list_labs():
    try:
        names = sorted(os.listdir(STATE_ROOT))
    except FileNotFoundError:
        names = []
    labs = [n for n in names if os.path.isfile(os.path.join(STATE_ROOT, n, "lab.json"))]
    # crashed labs may have left only namespaces
    for ns in network.netns_list():
        if ns.startswith(network.NETNS_PREFIX) and ns.endswith("-sw"):
            name = ns[len(network.NETNS_PREFIX) : -3]
            if name not in labs:
                labs.append(name)
    return labs


def lab_exists(name):
    """A lab with a record, a state directory or namespaces left (a crashed lab included)."""
    return os.path.isdir(lab_dir(name)) or name in list_labs()


def emulator_available():
    """The kernel and the FUSE daemon are in the zlab/ that hosts mount (ZLAB_SRC)."""
    k = os.path.join(ZLAB_SRC, "zlab", "kernel", "__init__.py")
    f = os.path.join(ZLAB_SRC, "zlab", "fusefs", "__main__.py")
    return os.path.isfile(k) and os.path.isfile(f)


def profile_files(profile):
    """Files a kernel profile puts in the host's root: /etc (os-release, redhat-release...), the
    module index in /lib/modules/<release>, and the profile's extra files."""
    prof = profiles.get(profile)
    files = {"/etc/os-release": prof["os_release"]}
    files.update(profiles.module_index_files(prof))
    files.update(prof["extra_files"])
    return files


def _children(pid):
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid), encoding="ascii") as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def _netns_inode(path):
    try:
        return os.stat(path).st_ino
    except OSError:
        return None


def processes_in_netns(ns_names):
    """PIDs (root pid ns) of processes whose network namespace is one of these named netns."""
    inodes = {_netns_inode("/run/netns/" + n) for n in ns_names} - {None}
    pids = []
    if not inodes:
        return pids
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if os.stat("/proc/%s/ns/net" % entry).st_ino in inodes:
                pids.append(int(entry))
        except OSError:
            continue
    return pids


def processes_of_lab(lab):
    """Host supervisors (unshare) whose command line names the lab's directory."""
    marker = lab_dir(lab) + "/"
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open("/proc/%s/cmdline" % entry, "rb") as f:
                cmd = f.read().decode(errors="replace")
        except OSError:
            continue
        if marker in cmd and "unshare" in cmd:
            pids.append(int(entry))
    return pids


STAGE1 = r"""
set -e
R={root}
mount -t overlay overlay -o lowerdir={lower},upperdir={upper},workdir={work} "$R"
mount -t tmpfs -o mode=755,size=128m tmpfs "$R/run"
mkdir -p "$R/run/zlab/kernel" "$R/run/zlab/lab" "$R/run/zlab/realsys" "$R/run/zlab/realproc" \
         "$R/run/zlab/fs" "$R/run/lock" "$R/run/sshd" "$R/opt/zlab"
touch "$R/run/zlab/switch.netns"
mount --bind {kernel} "$R/run/zlab/kernel"
mount --bind {labfiles} "$R/run/zlab/lab"
mount --bind /run/netns/{switch} "$R/run/zlab/switch.netns"
mount -o bind,ro {src} "$R/opt/zlab"
{python}
mount -t proc proc "$R/proc"
mount -t sysfs sysfs "$R/sys"
mount -t sysfs sysfs "$R/run/zlab/realsys"
mount -t proc proc "$R/run/zlab/realproc"
mount -t tmpfs -o mode=755,size=8m tmpfs "$R/dev"
mknod -m 666 "$R/dev/null" c 1 3; mknod -m 666 "$R/dev/zero" c 1 5
mknod -m 666 "$R/dev/full" c 1 7; mknod -m 666 "$R/dev/random" c 1 8
mknod -m 666 "$R/dev/urandom" c 1 9; mknod -m 666 "$R/dev/tty" c 5 0
mknod -m 666 "$R/dev/fuse" c 10 229
mkdir -p "$R/dev/net" "$R/dev/pts" "$R/dev/shm" "$R/dev/vfio"
mknod -m 666 "$R/dev/net/tun" c 10 200
mknod -m 666 "$R/dev/vfio/vfio" c 10 196 2>/dev/null || true
mount -t devpts -o newinstance,ptmxmode=0666,mode=620 devpts "$R/dev/pts"
ln -s pts/ptmx "$R/dev/ptmx"; ln -s /proc/self/fd "$R/dev/fd"
ln -s /proc/self/fd/0 "$R/dev/stdin"; ln -s /proc/self/fd/1 "$R/dev/stdout"
ln -s /proc/self/fd/2 "$R/dev/stderr"
mount -t tmpfs -o mode=1777 tmpfs "$R/dev/shm"
mount -t tmpfs -o mode=1777,size=256m tmpfs "$R/tmp"
mkdir -p "$R/.zlab-oldroot"
cd "$R"
pivot_root . .zlab-oldroot
cd /
umount -l /.zlab-oldroot
rmdir /.zlab-oldroot 2>/dev/null || true
exec {zlab_python} -u /opt/zlab/zlab/hostinit.py
"""

DOMAIN_XML = """<domain type='qemu'>
  <name>{name}</name>
  <uuid>{uuid}</uuid>
  <memory unit='MiB'>2048</memory>
  <vcpu>2</vcpu>
  <os>
    <type arch='s390x' machine='s390-ccw-virtio'>hvm</type>
  </os>
  <on_poweroff>destroy</on_poweroff>
  <on_reboot>restart</on_reboot>
  <on_crash>destroy</on_crash>
  <devices>
    <emulator>/usr/bin/qemu-system-s390x</emulator>
    <disk type='file' device='disk'>
      <driver name='qemu' type='qcow2'/>
      <source file='/var/lib/libvirt/images/{name}.qcow2'/>
      <target dev='vda' bus='virtio'/>
    </disk>
    <console type='pty'>
      <target type='sclp' port='0'/>
    </console>
  </devices>
</domain>
"""


def guest_uuid(slot, index):
    """The UUID of a guest's libvirt domain."""
    return "5a1ab000-0000-4000-8000-%012x" % ((slot << 16) + index)


def _merge_unchanged(ours, base, disk):
    """Take from ``disk`` every host record and top-level key that ``ours`` left as in ``base``."""
    for key, value in disk.items():
        if key == "hosts":
            continue
        if ours.get(key) == base.get(key):
            ours[key] = value
    hosts, base_hosts = ours.setdefault("hosts", {}), base.get("hosts", {})
    for hname, record in disk.get("hosts", {}).items():
        mine = hosts.get(hname)
        if mine is None:
            if hname not in base_hosts:
                hosts[hname] = record
        elif mine == base_hosts.get(hname):
            mine.clear()
            mine.update(record)


class Lab:
    """One lab: load an existing one with Lab.load(name), create with Lab.create(...)."""

    def __init__(self, name, data):
        self.name = name
        self.data = data
        self._saved = json.loads(json.dumps(data))  # as last read or written, to merge on save

    # ------------------------------------------------------------------ persistence
    @property
    def dir(self):
        return lab_dir(self.name)

    @classmethod
    def load(cls, name):
        path = os.path.join(lab_dir(name), "lab.json")
        try:
            with open(path, encoding="utf-8") as f:
                return cls(name, json.load(f))
        except FileNotFoundError:
            raise LabError("lab %s is not up (no %s)" % (name, path)) from None

    def save(self):
        """Write lab.json, merged with what other zlab processes wrote since we read it.

        Two commands on one lab (`zlab reboot lpar-a` and `zlab reboot lpar-b` at once) each load
        the whole file and change one host: under the lock, records this process did not change
        are taken from the disk (updated in place, so callers' references stay valid) and only
        our changed records are written over them.
        """
        path = os.path.join(self.dir, "lab.json")
        with open(path + ".lock", "w", encoding="ascii") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                with open(path, encoding="utf-8") as f:
                    disk = json.load(f)
            except (FileNotFoundError, ValueError):
                disk = None
            if disk is not None:
                _merge_unchanged(self.data, self._saved, disk)
            tmp = path + ".tmp%d" % os.getpid()
            with open(tmp, "w", encoding="utf-8") as f:
                json.dump(self.data, f, indent=1)
            os.replace(tmp, path)
        self._saved = json.loads(json.dumps(self.data))

    @property
    def hosts(self):
        """name -> host record, in the model's order (partitions, then guests)."""
        hosts = self.data["hosts"]
        if list(hosts) != sorted(hosts, key=lambda n: hosts[n]["index"]):
            self.data["hosts"] = {n: hosts[n] for n in sorted(hosts, key=lambda n: hosts[n]["index"])}
        return self.data["hosts"]

    @property
    def slot(self):
        return self.data["slot"]

    def host(self, name):
        if name not in self.hosts:
            raise LabError("no host %s in lab %s (hosts: %s)" % (name, self.name, ", ".join(self.hosts)))
        return self.hosts[name]

    def hdir(self, host, *parts):
        return os.path.join(self.dir, "hosts", host, *parts)

    def state_dir(self, host):
        return self.hdir(host, "kernel")

    def key_file(self):
        return os.path.join(self.dir, "ssh", "id_ed25519")

    # ------------------------------------------------------------------ creation
    @classmethod
    def create(cls, name, mdl, emulator="auto", log=sys.stderr):
        if not LAB_NAME_RE.match(name):
            raise LabError("lab name %r: lowercase letters, digits, '-', at most 20" % name)
        os.makedirs(STATE_ROOT, exist_ok=True)
        lock = open(os.path.join(STATE_ROOT, ".lock"), "w", encoding="ascii")  # noqa: SIM115
        fcntl.flock(lock, fcntl.LOCK_EX)  # slot allocation of labs started at the same time
        used = set()
        for other in list_labs():
            try:
                used.add(Lab.load(other).slot)
            except (LabError, ValueError, KeyError):
                pass
        slot = next(i for i in range(1, 250) if i not in used)
        if emulator == "auto":
            emulator = emulator_available()
        else:
            emulator = emulator in (True, "on", "1", "yes")
            if emulator and not emulator_available():
                raise LabError("--emulator on: zlab.kernel/zlab.fusefs are not usable yet")
        hosts = {}
        for i, (hname, h) in enumerate(mdl.hosts.items()):
            spec = mdl.host_spec(hname)
            if h["role"] == "guest":
                spec["uuid"] = guest_uuid(slot, i)  # QEMU's -uuid shows in /proc/sysinfo
            hosts[hname] = {
                "index": i,
                "role": h["role"],
                "partition": h["partition"],
                "kernel_profile": h.get("kind") or h["kernel_profile"],
                "kvm_host": h["kvm_host"],
                "guests": h["guests"],
                "ip": network.host_ip(slot, i),
                "netns": network.host_ns(name, hname),
                "image": "kvm" if h["role"] == "kvm_host" else "base",
                "kind": h.get("kind", "namespace"),
                "python": h.get("python"),
                "spec": spec,
                "guest_config": mdl.guest_config(hname) if h["role"] == "guest" else None,
                "pid": None,
                "pid1": None,
                "boots": 0,
            }
        data = {
            "name": name,
            "slot": slot,
            "emulator": emulator,
            "digest": mdl.digest(),
            "inventory": mdl.inventory,
            "cpc_name": mdl.cpc.get("name"),
            "chpids": mdl.chpids,
            "hosts": hosts,
            "groups": mdl.groups,
            "own_hostvars": mdl.own_hostvars,
            "created": time.time(),
        }
        lab = cls(name, data)
        os.makedirs(os.path.join(lab.dir, "ssh"), exist_ok=True)
        lab.save()
        lock.close()
        if not os.path.exists(lab.key_file()):
            subprocess.run(
                ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "zlab-" + name, "-f", lab.key_file()], check=True
            )
        return lab

    def refresh_vars(self, mdl):
        """Take the inventory's groups and host variables (what `zlab inventory` prints) from a
        model whose CPC is the lab's (same digest); True when they changed."""
        new = json.loads(
            json.dumps({"groups": mdl.groups, "own_hostvars": mdl.own_hostvars, "cpc_name": mdl.cpc.get("name")})
        )
        if all(self.data.get(k) == v for k, v in new.items()):
            return False
        self.data.update(new)
        self.save()
        return True

    # ------------------------------------------------------------------ hosts
    def host_config(self, hname):
        h = self.hosts[hname]
        with open(self.key_file() + ".pub", encoding="ascii") as f:
            pub = f.read().strip()
        cfg = {
            "name": hname,
            "role": h["role"],
            "emulator": self.data["emulator"],
            "authorized_key": pub,
            "files": profile_files(h["kernel_profile"]),
            "lab_hosts": {n: x["ip"] for n, x in self.hosts.items()},
            "domains": {},
            "s390_tools": profiles.get(h["kernel_profile"])["s390_tools"],
            "network": profiles.get(h["kernel_profile"])["network"],
            # the distribution's Python 3.6 (zlab_python), or None: Debian's python3 only
            "python": syspython.layout(h["kernel_profile"]) if h.get("python") else None,
        }
        for g in h.get("guests") or []:
            cfg["domains"][g] = DOMAIN_XML.format(name=g, uuid=guest_uuid(self.slot, self.hosts[g]["index"]))
        return cfg

    def boot_kernel(self, hname, spec=None):
        """Fresh kernel state of a freshly IPLed host (zlab.kernel.boot) + the netdev hooks."""
        sd = self.state_dir(hname)
        os.makedirs(sd, exist_ok=True)
        if self.data["emulator"]:
            spec = spec or self.hosts[hname]["spec"]
            kernel.boot(sd, kernel.HostSpec.from_dict(spec))
        network.write_hooks(
            sd, self.hosts[hname]["index"], netns=self.hosts[hname]["netns"], switch=network.switch_ns(self.name)
        )

    def start_host(self, hname, spec=None, before_init=None):
        """Create the host's netns + namespaces and launch its init (does not wait)."""
        h = self.hosts[hname]
        if qemu_s390x.is_real(h):
            return qemu_s390x.start(self, hname)
        if pid_alive(h.get("pid1")) or pid_alive(h.get("pid")):
            raise LabError("%s is already running" % hname)
        for d in ("upper", "work", "root", "kernel", "lab"):
            os.makedirs(self.hdir(hname, d), exist_ok=True)
        labfiles = self.hdir(hname, "lab")
        for f in ("ready", "failed"):
            if os.path.exists(os.path.join(labfiles, f)):
                os.unlink(os.path.join(labfiles, f))
        with open(os.path.join(labfiles, "config.json"), "w", encoding="utf-8") as f:
            json.dump(self.host_config(hname), f, indent=1)
        network.attach_host(self.name, self.slot, h["index"], hname)
        self.boot_kernel(hname, spec)
        if before_init is not None:
            before_init()
        lower = image.image_path(h["image"])
        if not image.is_built(h["image"]):
            raise LabError("image %s is not built (zlab image build)" % h["image"])
        if h["role"] == "kvm_host":
            self._seed_libvirt_caps(hname, lower)
        script = STAGE1.format(
            root=shlex.quote(self.hdir(hname, "root")),
            lower=lower,
            upper=self.hdir(hname, "upper"),
            work=self.hdir(hname, "work"),
            kernel=shlex.quote(self.state_dir(hname)),
            labfiles=shlex.quote(labfiles),
            switch=network.switch_ns(self.name),
            src=shlex.quote(ZLAB_SRC),
            python="\n".join(
                syspython.stage1(
                    lower,
                    h.get("python"),
                    h["kernel_profile"],
                    syspython.find_build() if h.get("python") else None,
                )
            ),
            zlab_python=syspython.ZLAB_PYTHON,
        )
        with open(self.hdir(hname, "console.log"), "ab") as out:
            proc = subprocess.Popen(
                [
                    "nsenter",
                    "--net=/run/netns/" + h["netns"],
                    "--",
                    "unshare",
                    "--pid",
                    "--mount",
                    "--uts",
                    "--ipc",
                    "--fork",
                    "--kill-child",
                    "--propagation",
                    "private",
                    "--",
                    "/bin/sh",
                    "-c",
                    script,
                    "zlab-host:" + self.hdir(hname) + "/",
                ],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=out,
                start_new_session=True,
                env={"PATH": EXEC_PATH, "LANG": "C.UTF-8"},
            )
        h["pid"] = proc.pid
        h["pid1"] = None
        h["boots"] = h.get("boots", 0) + 1
        h["started"] = time.time()
        self.save()
        return proc

    def _caps_cache(self, lower):
        return os.path.join(image.CACHE_DIR, "libvirt-caps", os.path.basename(lower))

    def _seed_libvirt_caps(self, hname, lower):
        """libvirtd probes qemu-system-s390x for ~40 s on first use; its capabilities cache is
        valid for every host of the same image (same binaries, same kernel), so it is kept in
        the image cache and copied into each KVM host's disk."""
        src = self._caps_cache(lower)
        dst = self.hdir(hname, "upper", "var", "cache", "libvirt", "qemu", "capabilities")
        if os.path.isdir(src) and not os.path.isdir(dst):
            shutil.copytree(src, dst)

    def _save_libvirt_caps(self, hname):
        lower = image.image_path(self.hosts[hname]["image"])
        dst = self._caps_cache(lower)
        src = self.hdir(hname, "upper", "var", "cache", "libvirt", "qemu", "capabilities")
        have = os.listdir(dst) if os.path.isdir(dst) else []
        if os.path.isdir(src) and len(os.listdir(src)) > len(have):
            tmp = dst + ".tmp%d" % os.getpid()
            shutil.copytree(src, tmp)
            shutil.rmtree(dst, ignore_errors=True)
            os.replace(tmp, dst)

    def wait_ready(self, names, timeout=BOOT_TIMEOUT):
        """Wait for hosts' init to report ready and sshd to accept connections."""
        end = time.monotonic() + qemu_s390x.boot_timeout(self, names, timeout)
        pending = list(names)
        while pending and time.monotonic() < end:
            for hname in list(pending):
                h = self.hosts[hname]
                if qemu_s390x.is_real(h):
                    if qemu_s390x.poll(self, hname):
                        pending.remove(hname)
                    continue
                lf = self.hdir(hname, "lab")
                if h.get("pid1") is None and h.get("pid"):
                    kids = _children(h["pid"])
                    if kids:
                        h["pid1"] = kids[0]
                if os.path.exists(os.path.join(lf, "failed")):
                    with open(os.path.join(lf, "failed"), encoding="utf-8") as f:
                        why = f.read().strip()
                    raise LabError("%s failed to boot: %s (see %s)" % (hname, why, self.hdir(hname, "console.log")))
                if not pid_alive(h.get("pid")):
                    raise LabError(
                        "%s died while booting; console: %s" % (hname, self._tail(self.hdir(hname, "console.log")))
                    )
                if os.path.exists(os.path.join(lf, "ready")) and _port_open(h["ip"], 22):
                    pending.remove(hname)
                    if h["role"] == "kvm_host":
                        self._save_libvirt_caps(hname)
            if pending:
                time.sleep(0.1)
        self.save()
        if pending:
            raise LabError("timeout waiting for %s to boot" % ", ".join(pending))

    @staticmethod
    def _tail(path, n=15):
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                return "".join(f.readlines()[-n:])
        except OSError:
            return ""

    def stop_host(self, hname, timeout=10):
        h = self.hosts[hname]
        if qemu_s390x.is_real(h):
            h["stopped_by"] = qemu_s390x.stop(self, hname)  # a clean poweroff first
        pids = [p for p in (h.get("pid1"), h.get("pid")) if p]
        pids += processes_in_netns([h["netns"]])
        for p in pids:
            try:
                os.kill(p, signal.SIGKILL)
            except ProcessLookupError:
                pass
        end = time.monotonic() + timeout
        while time.monotonic() < end and any(pid_alive(p) for p in pids):
            time.sleep(0.05)
        network.detach_host(self.name, h["index"], hname)
        h["pid"] = h["pid1"] = None
        self.save()

    def running(self, hname):
        h = self.hosts[hname]
        return pid_alive(h.get("pid1")) or pid_alive(h.get("pid"))

    def host_state(self, hname):
        if not self.running(hname):
            return "stopped"
        lf = self.hdir(hname, "lab")
        if os.path.exists(os.path.join(lf, "failed")):
            return "failed"
        if os.path.exists(os.path.join(lf, "ready")):
            return "running"
        return "booting"

    # ------------------------------------------------------------------ exec
    def nsenter_argv(self, hname, argv, env=None):
        h = self.host(hname)
        if not self.running(hname):
            raise LabError("%s is not running" % hname)
        if qemu_s390x.is_real(h):
            return qemu_s390x.ssh_argv(self, hname, argv, env, tty=argv == ["/bin/bash", "-l"])
        if not h.get("pid1"):
            kids = _children(h["pid"])
            if not kids:
                raise LabError("%s has no init yet" % hname)
            h["pid1"] = kids[0]
            self.save()
        envl = [
            "PATH=" + EXEC_PATH,
            "HOME=/root",
            "LANG=C.UTF-8",
            "TERM=" + os.environ.get("TERM", "dumb"),
            "ZLAB_STATE_DIR=/run/zlab/kernel",
            "USER=root",
            "LOGNAME=root",
        ]
        for k, v in (env or {}).items():
            envl.append("%s=%s" % (k, v))
        return (
            ["nsenter", "-t", str(h["pid1"]), "-m", "-u", "-i", "-n", "-p", "-r", "-w", "--", "env", "-i"]
            + envl
            + list(argv)
        )

    def exec(self, hname, argv, capture=True, check=False, input_text=None, timeout=120):
        cmd = self.nsenter_argv(hname, argv)
        proc = subprocess.run(
            cmd, capture_output=capture, text=True, input=input_text, check=False, timeout=timeout, cwd="/"
        )
        if check and proc.returncode != 0:
            raise LabError("%s: %s -> %d: %s" % (hname, " ".join(argv), proc.returncode, (proc.stderr or "").strip()))
        return proc

    def sh(self, hname, script, check=False, *args):
        return self.exec(hname, ["/bin/bash", "-c", script, "zlab"] + list(args), check=check)

    # ------------------------------------------------------------------ up / reboot
    def up(self, log=sys.stderr):
        network.setup_switch(self.name, self.slot, self.data["chpids"])
        order = list(self.hosts)
        for hname in order:
            self.start_host(hname)
        self.wait_ready(order)

    def reboot(self, hname, log=sys.stderr):
        h = self.host(hname)
        if qemu_s390x.is_real(h):
            return qemu_s390x.reboot(self, hname)
        if h["role"] == "guest":
            guests.restart(self, hname)
            return {}
        # a KVM host's reboot takes its guests down; zlab starts again those that were running,
        # as libvirt-guests.service does at boot (ON_BOOT=start); stopped guests stay stopped
        was_running = [g for g in h.get("guests") or [] if g in self.hosts and self.running(g)]
        self.stop_host(hname)
        self.start_host(hname)
        self.wait_ready([hname])
        failed = {}
        for g in was_running:
            try:
                guests.restart(self, g)
            except LabError as exc:
                failed[g] = str(exc)
        return failed


def _port_open(ip, port, timeout=0.3):
    try:
        with socket.create_connection((ip, port), timeout=timeout):
            return True
    except OSError:
        return False


def down(name, log=sys.stderr):
    """Remove everything of a lab (also after a crash); idempotent."""
    d = lab_dir(name)
    data = {}
    try:
        with open(os.path.join(d, "lab.json"), encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        pass
    prefix = network.NETNS_PREFIX + name + "-"
    our_ns = [n for n in network.netns_list() if n.startswith(prefix)]
    known = {h["netns"] for h in data.get("hosts", {}).values()}
    if data:
        our_ns = [n for n in our_ns if n in known or n == network.switch_ns(name)]
    else:
        # crashed without lab.json: lab names may share a prefix ("m" and "m-smc"), so leave
        # every namespace another lab claims
        claimed = set()
        for other in list_labs():
            if other == name:
                continue
            claimed.add(network.switch_ns(other))
            try:
                claimed.update(h["netns"] for h in Lab.load(other).hosts.values())
            except (LabError, ValueError, KeyError):
                pass
        our_ns = [n for n in our_ns if n not in claimed]
    pids = set(processes_in_netns(our_ns)) | set(processes_of_lab(name))
    for h in data.get("hosts", {}).values():
        for p in (h.get("pid1"), h.get("pid")):
            if p and pid_alive(p):
                pids.add(p)
    for p in pids:
        try:
            os.kill(p, signal.SIGKILL)
        except ProcessLookupError:
            pass
    end = time.monotonic() + 10
    while time.monotonic() < end and any(pid_alive(p) for p in pids):
        time.sleep(0.05)
    # mounts that leaked into the root mount namespace (should be none)
    with open("/proc/self/mountinfo", encoding="utf-8") as f:
        mounts = [line.split()[4] for line in f]
    for m in sorted((m for m in mounts if m.startswith(d + "/")), key=len, reverse=True):
        subprocess.run(["umount", "-l", m], check=False)
    for ns in our_ns:
        if not ns.endswith("-sw"):
            network.del_ns(ns)
    network.teardown_switch(name, data.get("slot"))
    shutil.rmtree(d, ignore_errors=True)
    if os.path.exists(d):
        raise LabError("could not remove %s" % d)
    return sorted(pids)


def errno_value(text):
    """EPERM / eperm / 1 -> 1."""
    s = str(text).strip()
    if s.isdigit():
        return int(s)
    val = getattr(errno_mod, s.upper(), None)
    if not isinstance(val, int):
        raise LabError("unknown errno %s" % text)
    return val


def load_model(inv_dir):
    return model_mod.load(inv_dir)
