# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""PID 1 of an emulated host (runs inside the host, Debian's python3, stdlib only).

Started by the lab after pivot_root into the host's overlay root with /proc, /run/zlab/realsys,
/run/zlab/realproc, /opt/zlab (the repository's zlab/, read-only), /run/zlab/kernel (the kernel
state dir) and /run/zlab/lab (the lab's files for this host: config.json, logs, ready marker)
mounted. It boots the host: device emulator (FUSE) over /sys and parts of /proc, tool wrappers,
persistent configuration (udev rules, modules-load.d, sysctl.d via zlab.kernel.apply_persistent),
SSH host keys, libvirtd on KVM hosts, NetworkManager where the distribution uses it, the systemd
units enabled for network interfaces (start_device_units), sshd; then reaps children until it is
killed.
"""

import json
import os
import re
import signal
import subprocess
import sys
import time

LAB = "/run/zlab/lab"
STATE = "/run/zlab/kernel"
FS = "/run/zlab/fs"
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
# Debian's python3 of the image, outside PATH (zlab.syspython.ZLAB_PYTHON): zlab's programs keep it
# whatever python3 the host's distribution has (zlab_python)
ZLAB_PYTHON = "/usr/libexec/zlab/python3"

# Emulated tools (zlab.tools); s390-tools (chzdev, lszdev, lsqeth, znetconf, cio_ignore...) are the
# real ones, see install_s390_tools.
TOOLS = [
    "smc_rnics",
    "smcd",
    "smcr",
    "smc_pnet",
    "smcss",
    "smc_run",
    "lspci",
    "modprobe",
    "lsmod",
    "modinfo",
    "driverctl",
    "insmod",
    "rmmod",
    "depmod",
]
# where Debian (or the upstream Makefiles) put them besides /usr/sbin
ALSO_IN_BIN = {"smc_rnics", "smcd", "smcr", "smc_pnet", "smcss", "smc_run", "lspci", "lsmod"}

WRAPPER = """#!{python}
# zlab tool wrapper (emulated {name})
import os, sys
sys.path.insert(0, "/opt/zlab")
os.environ.setdefault("ZLAB_STATE_DIR", "/run/zlab/kernel")
from zlab.tools.{module} import main
sys.exit(main())
"""


def log(msg):
    sys.stderr.write("[zlab-init %.3f] %s\n" % (time.time(), msg))
    sys.stderr.flush()


def sh(cmd, check=True, **kw):
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, **kw)
    if proc.returncode != 0:
        msg = "%s -> %d: %s" % (" ".join(cmd), proc.returncode, proc.stderr.strip())
        if check:
            raise RuntimeError(msg)
        log(msg)
    return proc


def write(path, text, mode=None):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    if mode is not None:
        os.chmod(path, mode)


def wait_for(pred, timeout, what):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return
        time.sleep(0.05)
    raise RuntimeError("timeout waiting for " + what)


def setup_identity(cfg):
    name = cfg["name"]
    write("/etc/hostname", name + "\n")
    hosts = "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n"
    for h, ip in sorted(cfg.get("lab_hosts", {}).items()):
        hosts += "%s\t%s\n" % (ip, h)
    write("/etc/hosts", hosts)
    for path, text in sorted((cfg.get("files") or {}).items()):
        if os.path.islink(path):
            os.unlink(path)  # Debian's /etc/os-release -> ../usr/lib/os-release
        write(path, text)
    write("/etc/environment", "PATH=%s\nZLAB_STATE_DIR=%s\n" % (PATH, STATE))
    os.makedirs("/root/.ssh", mode=0o700, exist_ok=True)
    write("/root/.ssh/authorized_keys", cfg["authorized_key"] + "\n", 0o600)
    if not os.path.exists("/etc/ssh/ssh_host_ed25519_key"):
        sh(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", "/etc/ssh/ssh_host_ed25519_key"])
    if not os.path.exists("/etc/machine-id") or os.path.getsize("/etc/machine-id") == 0:
        write("/etc/machine-id", os.urandom(16).hex() + "\n")


REAL_WRAPPER = """#!{python}
# zlab tool wrapper (real {name} of s390-tools {version}: faults injected with zlab, then the tool)
import sys
sys.path.insert(0, "/opt/zlab")
from zlab.tools._real import main
sys.exit(main("{name}", "{real}"))
"""
S390_TOOLS = "/opt/s390-tools"


def install_s390_tools(release):
    """Link the real s390-tools of ``release`` (an /opt/s390-tools/<release> tree of the image,
    zlab.s390tools) into /usr: its programs, wrapped where zlab can inject faults, and its data
    directories (znetconf and the 2.16 scripts read /usr/lib/s390-tools by absolute path).
    Returns the names of the programs."""
    sys.path.insert(0, "/opt/zlab")
    from zlab import s390tools  # pylint: disable=import-outside-toplevel

    top = os.path.join(S390_TOOLS, release, "usr")
    if not os.path.isdir(top):
        raise RuntimeError("the host image has no s390-tools %s (%s)" % (release, top))
    with open(os.path.join(S390_TOOLS, release, "VERSION"), encoding="ascii") as f:
        version = f.read().strip()
    installed = []
    for sub in ("sbin", "bin"):
        for name in sorted(os.listdir(os.path.join(top, sub))):
            real = os.path.join(top, sub, name)
            dst = os.path.join("/usr", sub, name)
            if os.path.lexists(dst):
                os.unlink(dst)
            if name in s390tools.FAULTABLE:
                write(dst, REAL_WRAPPER.format(python=ZLAB_PYTHON, name=name, version=version, real=real), 0o755)
            else:
                os.symlink(real, dst)
            installed.append(name)
    for sub in ("lib/s390-tools", "share/s390-tools"):
        src, dst = os.path.join(top, sub), os.path.join("/usr", sub)
        if os.path.isdir(src):
            if os.path.islink(dst):
                os.unlink(dst)
            elif os.path.isdir(dst):
                sh(["rm", "-rf", dst])
            os.symlink(src, dst)
    return installed


def install_tools(skip=()):
    """/usr/sbin/<tool> wrappers for every emulated tool the tools helper provides, except the
    ``skip`` names (real tools)."""
    tooldir = "/opt/zlab/zlab/tools"
    installed = []
    for name in TOOLS:
        if name in skip:
            continue
        module = name.replace("-", "_")
        if not os.path.isfile(os.path.join(tooldir, module + ".py")):
            continue
        text = WRAPPER.format(python=ZLAB_PYTHON, name=name, module=module)
        targets = ["/usr/sbin/" + name]
        if name in ALSO_IN_BIN:
            targets.append("/usr/bin/" + name)
        for t in targets:
            if os.path.islink(t) or os.path.exists(t):
                os.unlink(t)
            write(t, text, 0o755)
        installed.append(name)
    if installed:
        # kmod's own links would shadow the shims in /sbin on merged-usr: keep one implementation
        for name in ("modprobe", "lsmod", "modinfo", "insmod", "rmmod", "depmod"):
            if name in installed:
                for d in ("/sbin", "/bin"):
                    p = os.path.join(d, name)
                    if os.path.islink(p) and not os.path.realpath(p).startswith("/usr/"):
                        os.unlink(p)
    return installed


UNAME_PY = '''"""zlab: the host's Python sees the emulated s390x kernel in os.uname() (so platform,
Ansible's ansible_architecture/ansible_kernel and the modules' version checks agree with
/proc/sys/kernel/osrelease of the kernel profile). ctypes.util (which maps the machine to
ldconfig's ABI to find shared libraries) and ZLAB_REAL_UNAME=1 processes see the real one."""
import os as _os
import sys as _sys

_real_uname = _os.uname


def _zlab_uname():
    r = _real_uname()
    try:
        caller = _sys._getframe(1).f_globals.get("__name__", "")
    except ValueError:
        caller = ""
    if caller == "ctypes.util":
        return r
    try:
        with open("/proc/sys/kernel/osrelease", encoding="ascii") as f:
            release = f.read().strip() or r.release
    except OSError:
        release = r.release
    return _os.uname_result((r.sysname, r.nodename, release, r.version, "s390x"))


if _os.environ.get("ZLAB_REAL_UNAME") != "1":
    _os.uname = _zlab_uname
'''

UNAME_SH = """#!/bin/sh
# zlab: uname of the emulated s390x kernel (release from /proc/sys/kernel/osrelease)
rel=$(cat /proc/sys/kernel/osrelease 2>/dev/null)
/usr/bin/uname "$@" | sed -e "s/@REAL@/${rel:-@REAL@}/g" -e "s/x86_64/s390x/g"
"""


def install_uname(sites=()):
    """s390x in `uname -m` and Python's os.uname(), the profile's release everywhere: Debian's
    python3 and the ``sites`` (site-packages) of the distribution's Python (zlab_python)."""
    with open("/run/zlab/realproc/sys/kernel/osrelease", encoding="ascii") as f:
        real = f.read().strip()
    import glob  # pylint: disable=import-outside-toplevel

    debian = glob.glob("/usr/local/lib/python3*/dist-packages") or ["/usr/local/lib/python3.11/dist-packages"]
    for site in debian + list(sites):
        write(os.path.join(site, "_zlab_uname.py"), UNAME_PY)
        write(os.path.join(site, "zlab-uname.pth"), "import _zlab_uname\n")
    write("/usr/local/bin/uname", UNAME_SH.replace("@REAL@", real.replace(".", "\\.")), 0o755)


# What the distribution's Python must do for Ansible's modules: start, load the C modules a module
# run needs (zlib for the payload, ctypes, ssl for module_utils.urls), and see the emulated s390x.
PYTHON_PROBE = (
    "import sys, os, json, zlib, ctypes, ssl, select, socket\n"
    "print(json.dumps({'version': '%d.%d.%d' % sys.version_info[:3], 'machine': os.uname()[4],"
    " 'prefix': sys.prefix, 'executable': sys.executable}))\n"
)


def check_python(layout):
    """Run the distribution's Python (zlab_python) as Ansible does, by its interpreter path;
    returns what it reports. RuntimeError (the boot fails) when it does not start."""
    env = {k: v for k, v in os.environ.items() if k != "ZLAB_REAL_UNAME"}
    proc = subprocess.run(
        [layout["interpreter"], "-c", PYTHON_PROBE],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        universal_newlines=True,
        env=env,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError("%s does not run: %s" % (layout["interpreter"], proc.stderr.strip()[-500:]))
    return json.loads(proc.stdout)


def start_emulator(cfg):
    """Start `python3 -m zlab.fusefs` and bind its outputs over /sys and /proc (contract)."""
    os.makedirs(FS, exist_ok=True)
    env = dict(os.environ, PYTHONPATH="/opt/zlab", ZLAB_STATE_DIR=STATE, PATH=PATH, ZLAB_REAL_UNAME="1")
    with open(os.path.join(LAB, "fuse.out"), "ab") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "zlab.fusefs",
                "--state-dir",
                STATE,
                "--mountpoint",
                FS,
                "--real-sys",
                "/run/zlab/realsys",
                "--real-proc-sys-net",
                "/run/zlab/realproc/sys/net",
                "--real-proc",
                "/run/zlab/realproc",
            ],
            env=env,
            stdout=out,
            stderr=out,
            stdin=subprocess.DEVNULL,
            cwd="/",
        )
    wait_for(lambda: os.path.isdir(FS + "/sys/bus") or proc.poll() is not None, 30, "the FUSE daemon")
    if proc.poll() is not None:
        raise RuntimeError("zlab.fusefs exited with %s (see fuse.out)" % proc.returncode)
    sh(["mount", "--bind", FS + "/sys", "/sys"])
    # procfs cannot get new entries (an s390 kernel's /proc/sysinfo, cio_ignore, cio_settle;
    # /proc/modules without CONFIG_MODULES): the daemon's /proc serves them and links every
    # other entry into realproc (same pid namespace); /proc/sys is realproc's mounted there
    # (procps' sysctl refuses a path whose realpath is not under /proc/sys/)
    proc_root = os.path.isdir(os.path.join(FS, "proc"))
    if proc_root:
        sh(["mount", "--bind", FS + "/proc", "/proc"])
        sh(["mount", "--bind", "/run/zlab/realproc/sys", "/proc/sys"])
    skipped = []
    for src, dst in (
        ("proc_sys_net", "/proc/sys/net"),
        ("proc_modules", "/proc/modules"),
        ("osrelease", "/proc/sys/kernel/osrelease"),
    ):
        if src == "proc_modules" and proc_root:
            continue  # served in the daemon's /proc
        if not os.path.exists(os.path.join(FS, src)):
            skipped.append(src)
        elif not os.path.exists(dst):
            # procfs cannot get new entries: a machine kernel without CONFIG_MODULES has no
            # /proc/modules to cover (lsmod/modprobe shims still work through zlab.kernel)
            skipped.append(dst)
        else:
            sh(["mount", "--bind", os.path.join(FS, src), dst])
    return proc, skipped


def apply_persistent():
    """What udev/systemd would do at boot from the persistent files under /."""
    sys.path.insert(0, "/opt/zlab")
    import zlab.kernel as kernel  # pylint: disable=import-outside-toplevel

    # the kernel profile's sysctl values first: the host's new netns has the build machine's
    kernel.apply_sysctl_defaults(STATE)
    sysctls = kernel.apply_persistent(STATE, "/") or []
    if isinstance(sysctls, dict):
        sysctls = sorted(sysctls.items())
    for item in sysctls:
        key, value = (
            item if isinstance(item, (list, tuple)) else (item.get("name") or item.get("key"), item.get("value"))
        )
        sh(["sysctl", "-q", "-w", "%s=%s" % (key, value)], check=False)
    return len(sysctls)


def apply_plain_sysctls():
    """Without the emulator: the real procps behaviour at boot (net.* only in this netns)."""
    sh(["sysctl", "-q", "--system"], check=False)


UNIT_DIRS = ("etc/systemd/system", "usr/lib/systemd/system", "lib/systemd/system")
_NET_WANTS = re.compile(r"^sys-subsystem-net-devices-(.+)\.device\.wants$")


_C_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "s": " ", "\\": "\\", '"': '"', "'": "'"}


def unit_words(value, dollars=True):
    """The words of a unit's ExecStart= (``dollars``: ``$$`` is ``$``) or Environment= value as
    systemd.syntax(7) splits them: blanks separate words, double or single quotes group them, C
    escapes (``\\n``, ``\\xNN``, ...) and ``%%`` stand for one character. Other specifiers and
    ``$VAR`` expansion are left as written (the collection's units never use them)."""
    words, word, quote, started, i = [], [], None, False, 0
    while i < len(value):
        c = value[i]
        if quote is None and c in " \t":
            if started:
                words.append("".join(word))
                word, started = [], False
            i += 1
            continue
        started = True
        if c == "\\" and i + 1 < len(value):
            hexa = value[i + 2 : i + 4]
            if value[i + 1] == "x" and re.fullmatch(r"[0-9a-fA-F]{2}", hexa):
                word.append(chr(int(hexa, 16)))
                i += 4
            else:
                word.append(_C_ESCAPES.get(value[i + 1], value[i + 1]))
                i += 2
            continue
        if quote is None and c in "\"'":
            quote = c
        elif c == quote:
            quote = None
        elif (c == "%" or (c == "$" and dollars)) and value[i + 1 : i + 2] == c:
            word.append(c)
            i += 1
        else:
            word.append(c)
        i += 1
    if started:
        words.append("".join(word))
    return words


def _unit_service(text):
    """(ExecStart= command lines, Environment= values) of a unit's [Service] section."""
    section, execs, env = None, [], {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            section = line
            continue
        if section != "[Service]" or "=" not in line:
            continue
        key, value = (x.strip() for x in line.split("=", 1))
        if key == "ExecStart":
            execs = execs + [value] if value else []  # an empty ExecStart= resets the list
        elif key == "Environment":
            env.update(item.split("=", 1) for item in unit_words(value, dollars=False) if "=" in item)
    return execs, env


def start_device_units(root="/", net="/sys/class/net", timeout=90):
    """What systemd does when a network interface appears: start the units enabled for its device
    unit (``systemctl enable`` of a unit with ``WantedBy=sys-subsystem-net-devices-IF.device``
    links it into ``/etc/systemd/system/sys-subsystem-net-devices-IF.device.wants/``), here once
    at boot for the interfaces that exist then. Each unit's ExecStart= commands run in order with
    its Environment= (a ``-`` prefix ignores a failure, as systemd does). Returns {unit: exit
    status of its last command, or a reason it did not run}."""
    etc = os.path.join(root, UNIT_DIRS[0])
    done = {}
    try:
        names = sorted(os.listdir(etc))
    except OSError:
        return done
    for name in names:
        match = _NET_WANTS.match(name)
        if not match or not os.path.isdir(os.path.join(etc, name)):
            continue
        ifname = re.sub(r"\\x([0-9a-fA-F]{2})", lambda m: chr(int(m.group(1), 16)), match.group(1))
        for unit in sorted(os.listdir(os.path.join(etc, name))):
            if not os.path.exists(net + "/" + ifname):
                done[unit] = "no interface %s" % ifname
                continue
            files = [os.path.join(root, d, unit) for d in UNIT_DIRS if os.path.isfile(os.path.join(root, d, unit))]
            if not files:
                done[unit] = "no unit file"
                continue
            with open(files[0], encoding="utf-8") as f:
                execs, env = _unit_service(f.read())
            done[unit] = 0
            for line in execs:
                ignore = line.startswith("-")
                argv = unit_words(line.lstrip("-@:+!"))
                try:
                    rc = subprocess.run(
                        argv, env=dict(os.environ, **env), capture_output=True, timeout=timeout, check=False
                    ).returncode
                except (OSError, subprocess.TimeoutExpired) as exc:
                    rc = str(exc)
                if rc != 0:
                    log("%s: %s -> %s" % (unit, line, rc))
                done[unit] = rc
                if rc != 0 and not ignore:
                    break
    return done


# NetworkManager as the distribution runs it, minus what the lab must keep for itself: mgmt0 (the
# lab's management link, Ansible's connection) stays unmanaged, no default profiles for new devices
# (a server installation configures its interfaces explicitly), no resolv.conf handling.
NM_CONF = """[main]
plugins=keyfile
no-auto-default=*
dns=none

[keyfile]
unmanaged-devices=interface-name:mgmt0

[logging]
level=WARN
"""


def start_networkmanager(cfg):
    """dbus-daemon (system bus) and NetworkManager, for hosts whose distribution uses it.

    NetworkManager runs in a mount namespace of its own with /sys read-only (zlab.daemons), so
    that it does not wait for a udev that never runs here.
    """
    if cfg.get("network") != "NetworkManager" or not os.path.exists("/usr/sbin/NetworkManager"):
        return False
    os.makedirs("/run/dbus", exist_ok=True)
    os.makedirs("/run/NetworkManager/conf.d", exist_ok=True)
    write("/run/NetworkManager/conf.d/90-zlab.conf", NM_CONF)
    sh(["dbus-daemon", "--system", "--fork"])
    sys.path.insert(0, "/opt/zlab")
    from zlab.daemons import start_with_readonly_sys  # pylint: disable=import-outside-toplevel

    start_with_readonly_sys(["/usr/sbin/NetworkManager", "--no-daemon"], os.path.join(LAB, "NetworkManager.log"))
    wait_for(
        lambda: subprocess.run(["nmcli", "-t", "-f", "RUNNING", "general"], capture_output=True, check=False).returncode
        == 0,
        60,
        "NetworkManager",
    )
    return True


def start_networkd(cfg):
    """systemd-networkd for hosts whose distribution uses netplan (zlab.networkd)."""
    sys.path.insert(0, "/opt/zlab")
    from zlab import networkd  # pylint: disable=import-outside-toplevel

    return networkd.start(cfg, LAB)


def start_sshd():
    os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
    sh(["/usr/sbin/sshd", "-E", os.path.join(LAB, "sshd.log")])


def start_libvirtd(cfg):
    for d in ("/run/libvirt", "/var/log/libvirt", "/var/lib/libvirt/qemu", "/var/cache/libvirt"):
        os.makedirs(d, exist_ok=True)
    sh(["/usr/sbin/libvirtd", "-d"], env=dict(os.environ, PATH=PATH))
    wait_for(lambda: os.path.exists("/run/libvirt/libvirt-sock"), 30, "libvirtd")
    for guest, xml in sorted(cfg.get("domains", {}).items()):
        have = sh(["virsh", "-q", "dominfo", guest], check=False)
        if have.returncode == 0:
            continue
        path = "/run/zlab/lab/domain-%s.xml" % guest
        write(path, xml)
        sh(["virsh", "-q", "define", path])


def boot(cfg):
    """The boot sequence (runs in a child of PID 1 so that PID 1 keeps reaping orphans, e.g.
    the qemu probes libvirtd daemonizes)."""
    ready = os.path.join(LAB, "ready")
    failed = os.path.join(LAB, "failed")
    emulated = cfg.get("emulator", False)
    try:
        sh(["hostname", cfg["name"]])
        setup_identity(cfg)
        notes = {}
        python = cfg.get("python")  # the distribution's Python (zlab_python), mounted by the lab
        if emulated:
            notes["s390_tools"] = cfg.get("s390_tools")
            real = install_s390_tools(cfg["s390_tools"]) if cfg.get("s390_tools") else []
            notes["tools"] = install_tools(skip=real)
            install_uname([python["site"]] if python else [])
            _fuse, notes["not_covered"] = start_emulator(cfg)
            notes["sysctls"] = apply_persistent()
        else:
            apply_plain_sysctls()
        if python:
            notes["python"] = check_python(python)
        if cfg.get("role") == "kvm_host":
            start_libvirtd(cfg)
        notes["networkmanager"] = start_networkmanager(cfg)
        notes["networkd"] = start_networkd(cfg)
        notes["device_units"] = start_device_units()
        start_sshd()
        write(ready, json.dumps(notes) + "\n")
        log("ready " + json.dumps(notes))
        return 0
    except Exception as exc:  # pylint: disable=broad-except
        write(failed, "%s\n" % exc)
        log("boot failed: %s" % exc)
        return 1


def main():
    os.environ["PATH"] = PATH
    os.environ["ZLAB_REAL_UNAME"] = "1"  # hostinit and what it starts see the real machine
    with open(os.path.join(LAB, "config.json"), encoding="utf-8") as f:
        cfg = json.load(f)

    def stop(signum, frame):  # pylint: disable=unused-argument
        sys.exit(0)  # PID 1 exits: the kernel ends every process of the host

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    pid = os.fork()
    if pid == 0:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os._exit(boot(cfg))  # pylint: disable=protected-access
    while True:  # PID 1: reap everything
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            time.sleep(1)
        except InterruptedError:
            continue


if __name__ == "__main__":
    main()
