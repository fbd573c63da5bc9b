# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Root file system images of the lab hosts (Debian bookworm, built with mmdebstrap).

Two variants: ``base`` (every LPAR and guest) and ``kvm`` (KVM hosts: adds a real libvirtd and
qemu-system-s390x). An image is built once into ``/var/cache/zlab/images/<variant>-<hash>`` where
the hash covers the package list and the build recipe, so it is rebuilt only when they change.
Hosts run on an overlayfs whose lower layer is the image (read-only, shared by all hosts).
"""

import contextlib
import fcntl
import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time

from zlab import s390tools

CACHE_DIR = os.environ.get("ZLAB_CACHE_DIR", "/var/cache/zlab")
SUITE = "bookworm"
DEFAULT_MIRROR = "http://deb.debian.org/debian"

BASE_PACKAGES = [
    "python3",
    "python3-pip",
    "openssh-server",
    "iproute2",
    "procps",
    "kmod",
    "udev",
    "fuse3",
    "libfuse3-3",
    "iputils-ping",
    "netcat-openbsd",
    "socat",
    "ca-certificates",
    "util-linux",
    "less",
    # the interface configuration of the distributions that use NetworkManager (hostinit starts
    # it with its own D-Bus system bus)
    "network-manager",
    "dbus",
    # on every target distribution: nic_tuning reads and sets the NICs with it
    "ethtool",
    # Ubuntu's interface configuration (hostinit starts systemd-networkd on netplan hosts)
    "netplan.io",
]
KVM_PACKAGES = BASE_PACKAGES + [
    "libvirt-daemon-system",
    "libvirt-clients",
    "python3-libvirt",
    "python3-lxml",
    "qemu-system-misc",
    "libxml2-utils",
]
VARIANTS = {"base": BASE_PACKAGES, "kvm": KVM_PACKAGES}
# Python packages installed with pip into the image (the FUSE daemon needs mfusepy).
PIP_PACKAGES = ["mfusepy"]
# Bump when the customize steps below change: part of the cache key.
RECIPE_VERSION = "3"

WHEEL_DIR = os.path.join(CACHE_DIR, "wheels")
CUSTOMIZE_HOOKS = [
    # mfusepy for the device emulator (Debian 12 has no package of it): the wheel is fetched on
    # the controller (whose pip has the machine's index/CA settings) and installed offline.
    'mkdir -p "$1"/tmp/zlab-wheels && cp ' + WHEEL_DIR + '/*.whl "$1"/tmp/zlab-wheels/',
    'chroot "$1" env -u PIP_FIND_LINKS python3 -m pip install --quiet --no-cache-dir --no-index '
    '--find-links /tmp/zlab-wheels --break-system-packages ' + " ".join(PIP_PACKAGES),
    'rm -rf "$1"/tmp/zlab-wheels',
    # host keys are made per host at `zlab up`
    'rm -f "$1"/etc/ssh/ssh_host_*',
    # libvirtd needs these (Debian's packages create them; make sure on every variant)
    'chroot "$1" sh -c "getent group kvm >/dev/null || groupadd -r kvm"',
    'if [ -x "$1"/usr/sbin/libvirtd ]; then chroot "$1" sh -c "getent passwd libvirt-qemu >/dev/null'
    ' || useradd -r -g kvm -d /var/lib/libvirt -s /usr/sbin/nologin libvirt-qemu"; fi',
    # sshd: keys only, no DNS lookups, quick logins
    'printf "PermitRootLogin prohibit-password\\nPasswordAuthentication no\\nUseDNS no\\n'
    'PrintMotd no\\n" > "$1"/etc/ssh/sshd_config.d/zlab.conf',
    'mkdir -p "$1"/run/sshd "$1"/opt/zlab "$1"/root/.ssh',
    'chmod 700 "$1"/root/.ssh',
    'rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin "$1"/usr/share/doc/* '
    '"$1"/usr/share/man/* "$1"/usr/share/locale/*',
    # the real s390-tools (s390x, run through qemu-user) and their C library (zlab.s390tools)
    'cp -a @S390TOOLS@/usr @S390TOOLS@/opt "$1"/',
]


@contextlib.contextmanager
def locked(path):
    """Hold ``path``.lock: a second build of the same cached thing waits for the first, then finds it."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".lock", "w", encoding="ascii") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def run_step(cmd, what, log, **kw):
    """Run one build step (its output captured), raise RuntimeError with the output's tail when it
    fails, log ``zlab: WHAT: N s``; returns the output."""
    start = time.monotonic()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=False, **kw)
    if proc.returncode != 0:
        raise RuntimeError("%s failed (%d):\n%s" % (what, proc.returncode, proc.stdout[-4000:]))
    print("zlab: %s: %.0f s" % (what, time.monotonic() - start), file=log, flush=True)
    return proc.stdout


def packages(variant):
    return VARIANTS[variant]


def image_key(variant):
    h = hashlib.sha256()
    h.update(SUITE.encode())
    h.update(RECIPE_VERSION.encode())
    for item in sorted(packages(variant)) + PIP_PACKAGES + CUSTOMIZE_HOOKS + [s390tools.spec_key()]:
        h.update(item.encode() + b"\0")
    return "%s-%s" % (variant, h.hexdigest()[:12])


def image_path(variant, cache_dir=CACHE_DIR):
    return os.path.join(cache_dir, "images", image_key(variant))


def is_built(variant, cache_dir=CACHE_DIR):
    return os.path.isfile(os.path.join(image_path(variant, cache_dir), ".zlab-image"))


def machine_mirrors():
    """The Debian mirror (and security mirror) the machine's apt is configured with."""
    mirror, security = None, None
    texts = []
    for path in ["/etc/apt/sources.list"] + sorted(glob.glob("/etc/apt/sources.list.d/*")):
        if path.endswith((".list", ".sources")) and os.path.isfile(path):
            with open(path, encoding="utf-8", errors="replace") as f:
                texts.append(f.read())
    uris = []
    for text in texts:
        for m in re.finditer(r"^\s*deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+(\S+)", text, re.M):
            uris.append((m.group(1), m.group(2)))
        for stanza in re.split(r"\n\s*\n", text):
            if not re.search(r"^Types:.*\bdeb\b", stanza, re.M | re.I):
                continue
            um = re.search(r"^URIs:\s*(.+)$", stanza, re.M | re.I)
            sm = re.search(r"^Suites:\s*(.+)$", stanza, re.M | re.I)
            if um and sm:
                for uri in um.group(1).split():
                    for suite in sm.group(1).split():
                        uris.append((uri, suite))
    for uri, suite in uris:
        uri = uri.rstrip("/")
        if suite == SUITE and mirror is None and "debian" in uri:
            mirror = uri
        if suite == SUITE + "-security" and security is None:
            security = uri
    return mirror or DEFAULT_MIRROR, security


def fetch_wheels():
    """Download the image's pip packages for Debian 12's Python 3.11 into the cache."""
    os.makedirs(WHEEL_DIR, exist_ok=True)
    have = [f for f in os.listdir(WHEEL_DIR) if f.endswith(".whl")]
    if all(any(w.lower().startswith(p.lower() + "-") for w in have) for p in PIP_PACKAGES):
        return
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--quiet",
        "--no-deps",
        "--only-binary=:all:",
        "--python-version",
        "3.11",
        "--implementation",
        "py",
        "-d",
        WHEEL_DIR,
    ] + PIP_PACKAGES
    subprocess.run(cmd, check=True)


def build(variant, cache_dir=CACHE_DIR, force=False, log=sys.stderr):
    """Build the image if it is not cached; returns its path."""
    path = image_path(variant, cache_dir)
    if is_built(variant, cache_dir) and not force:
        return path
    if shutil.which("mmdebstrap") is None:
        raise RuntimeError("mmdebstrap is not installed (make zlab-deps)")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fetch_wheels()
    mirror, security = machine_mirrors()
    tools_tree = s390tools.tree(cache_dir, mirror, log)
    tmp = path + ".tmp-%d" % os.getpid()
    shutil.rmtree(tmp, ignore_errors=True)
    sources = ["deb %s %s main" % (mirror, SUITE), "deb %s %s-updates main" % (mirror, SUITE)]
    if security:
        sources.append("deb %s %s-security main" % (security, SUITE))
    cmd = [
        "mmdebstrap",
        "--mode=root",
        "--variant=minbase",
        "--format=directory",
        "--include=" + ",".join(packages(variant)),
        "--dpkgopt=path-exclude=/usr/share/doc/*",
        "--dpkgopt=path-exclude=/usr/share/man/*",
    ]
    for hook in CUSTOMIZE_HOOKS:
        cmd.append("--customize-hook=" + hook.replace("@S390TOOLS@", tools_tree))
    cmd += [SUITE, tmp] + sources
    env = {k: v for k, v in os.environ.items() if k != "PIP_FIND_LINKS"}
    print("zlab: building image %s (%s) from %s" % (os.path.basename(path), variant, mirror), file=log, flush=True)
    start = time.monotonic()
    proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=False)
    if proc.returncode != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        raise RuntimeError("mmdebstrap failed (%d):\n%s" % (proc.returncode, proc.stdout[-4000:]))
    with open(os.path.join(tmp, ".zlab-image"), "w", encoding="utf-8") as f:
        f.write("%s\n%s\n" % (image_key(variant), " ".join(packages(variant))))
    if os.path.exists(path):
        shutil.rmtree(path)
    os.rename(tmp, path)
    print("zlab: image %s built in %.0f s" % (os.path.basename(path), time.monotonic() - start), file=log, flush=True)
    prune(variant, cache_dir)
    return path


def prune(variant, cache_dir=CACHE_DIR):
    """Remove cached images of this variant with another key (old package lists)."""
    keep = image_key(variant)
    for old in glob.glob(os.path.join(cache_dir, "images", variant + "-*")):
        name = os.path.basename(old)
        if name != keep and re.fullmatch(r"%s-[0-9a-f]{12}" % re.escape(variant), name):
            shutil.rmtree(old, ignore_errors=True)


def build_all(variants=("base", "kvm"), cache_dir=CACHE_DIR, force=False, log=sys.stderr):
    return {v: build(v, cache_dir, force, log) for v in variants}
