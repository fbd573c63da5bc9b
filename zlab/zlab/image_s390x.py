# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The disk images of real-kernel lab hosts: Debian 13 for s390x, booted by qemu-system-s390x.

Built once with mmdebstrap (foreign architecture: the maintainer scripts run through the
qemu-user-static interpreter zlab registers with binfmt_misc for the real s390-tools) into
``/var/cache/zlab/images/debian13-s390x-<hash>/`` (``ZLAB_CACHE_DIR``), next to the namespace
images and with their conventions: the hash covers the suite, the package list and the recipe, a
``.zlab-image`` stamp marks a finished build, a build goes to ``<dir>.tmp-<pid>`` and is renamed,
older builds of the same kind are pruned. The directory holds

- ``disk.qcow2``: the root file system (ext4 on the whole disk, ``/dev/vda``), never written to:
  every lab host boots from its own qcow2 overlay on top of it (:func:`overlay`);
- ``vmlinuz`` and ``initrd.img``: the image's kernel and initramfs for ``-kernel``/``-initrd``;
- ``image.json``: kernel release, package list, build time and sizes.

Host kinds (:data:`KINDS`, the inventory's ``zlab_kind``) and the images they boot:

- ``debian13-s390x``: Debian 13's own kernel (6.12, ``linux-image-s390x`` of ``stable``) with an
  ``smc.ko`` rebuilt with loopback-ism (:mod:`zlab.smc_lo_module`);
- ``debian13-linux7-smc-s390x``: Debian 13 with the trixie-backports kernel pinned in
  :data:`LINUX7_RELEASE` / :data:`LINUX7_VERSION` and, next to it, the kernel that
  :mod:`zlab.smc_dibs_kernel` rebuilds from that version's source with DIBS, its loopback device
  and SMC (release ``<LINUX7_RELEASE>-smc``, booted without an initramfs). Built only when a host
  of a Linux 7.x kind is asked for: the kernel build takes long on a small machine;
- ``debian13-linux7-s390x`` boots Debian's 7.x kernel as Debian ships it from that same image: no
  SMC (``# CONFIG_DIBS is not set``, and SMC depends on DIBS). One image for both 7.x kinds: the
  stock kernel's modules and the rebuilt kernel's live in their own ``/usr/lib/modules/<release>``.

Both Linux 7.x kinds run under the newer QEMU of :mod:`zlab.qemu_newer`.

A host learns who it is from the kernel command line (``zlab.ip=``, ``zlab.mac=``, ``zlab.key=``,
``systemd.hostname=``): ``zlab-guest-setup.service`` writes root's ``authorized_keys`` and makes
the SSH host key before sshd starts; a udev rule gives the management NIC (found by its MAC) its
address when it appears. Nothing else is configured: no default route, no name servers.
"""

import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time

from . import image, smc_dibs_kernel, smc_lo_module

KIND = "debian13-s390x"
LINUX7 = "debian13-linux7-s390x"
LINUX7_SMC = "debian13-linux7-smc-s390x"
# The `stable` alias, not the codename: a mirror can serve a codename's index files from
# different syncs while it updates. The main suite only: its Release file has no Valid-Until,
# while those of -updates and -security expire a week after a mirror stopped syncing.
SUITE = "stable"
ARCH = "s390x"
# The Linux 7.x kernel: the newest build of trixie-backports whose s390x packages the pool
# served when it was pinned (7.3.4 and 7.2.12 were listed, not served). Codenames here, not
# aliases: the pin is a trixie build.
LINUX7_SUITES = ("trixie", "trixie-backports")
LINUX7_RELEASE = "7.2.11+deb13-s390x"
LINUX7_VERSION = "7.2.11-1~bpo13+1"
# the packages that make up that kernel (linux-image-<release> depends on the others by version)
LINUX7_PACKAGES = ("linux-image", "linux-binary", "linux-modules", "linux-base")
# its pre-dependency linux-base (>= 4.17~): trixie has 4.12.1
LINUX7_LINUX_BASE = "linux-base=4.17~bpo13+1"
BASE_PACKAGES = [
    "initramfs-tools",
    "zstd",
    "systemd",
    "systemd-sysv",
    "udev",
    "dbus",
    "openssh-server",
    "python3",
    "python3-apt",
    "s390-tools",
    "iproute2",
    "kmod",
    "ethtool",
    "pciutils",
    "procps",
    "iputils-ping",
    "netbase",
    "rdma-core",
    "ibverbs-utils",
    "ibverbs-providers",
]
PACKAGES = ["linux-image-s390x"] + BASE_PACKAGES
_LINUX7_KERNEL = ["%s-%s=%s" % (p, LINUX7_RELEASE, LINUX7_VERSION) for p in LINUX7_PACKAGES] + [LINUX7_LINUX_BASE]
# zlab_kind -> the suites of its image's sources, the kernel packages it installs, how the host gets
# SMC: "lo-module" (smc_lo_module), "none" (Debian's 7.x kernel has none), "dibs-kernel"
# (smc_dibs_kernel, which the host boots); the QEMU it runs under ("machine" or "newer":
# zlab.qemu_newer); "image": the kind whose image it boots, when not its own
KINDS = {
    KIND: {"suites": (SUITE,), "kernel": ["linux-image-s390x"], "smc": "lo-module", "qemu": "machine"},
    LINUX7: {"suites": LINUX7_SUITES, "kernel": _LINUX7_KERNEL, "smc": "none", "qemu": "newer", "image": LINUX7_SMC},
    LINUX7_SMC: {"suites": LINUX7_SUITES, "kernel": _LINUX7_KERNEL, "smc": "dibs-kernel", "qemu": "newer"},
}
# Bump when the steps of :func:`_customize` change: part of the cache key.
RECIPE_VERSION = "3"
DISK_SIZE = "4G"
LABEL = "zlabroot"

SETUP_SCRIPT = r"""#!/bin/sh
# zlab: root's SSH key from the kernel command line (zlab.key=), the host key on first boot.
key=
for arg in $(cat /proc/cmdline); do
    case "$arg" in zlab.key=*) key=${arg#zlab.key=} ;; esac
done
if [ -n "$key" ]; then
    mkdir -p /root/.ssh && chmod 700 /root/.ssh
    printf 'ssh-ed25519 %s zlab\n' "$key" > /root/.ssh/authorized_keys
    chmod 600 /root/.ssh/authorized_keys
fi
[ -s /etc/ssh/ssh_host_ed25519_key ] || ssh-keygen -q -t ed25519 -N '' -f /etc/ssh/ssh_host_ed25519_key
# the management NIC may have appeared before udev ran our rule (it only acts on its MAC)
/usr/local/sbin/zlab-guest-net
exit 0
"""

NET_SCRIPT = r"""#!/bin/sh
# zlab: the management address (zlab.ip=) on the NIC with the MAC zlab.mac= (run by udev for
# every new network interface and once by zlab-guest-setup.service). No route but the subnet's.
ip= mac=
for arg in $(cat /proc/cmdline); do
    case "$arg" in
        zlab.ip=*) ip=${arg#zlab.ip=} ;;
        zlab.mac=*) mac=${arg#zlab.mac=} ;;
    esac
done
[ -n "$ip" ] && [ -n "$mac" ] || exit 0
for d in /sys/class/net/*; do
    if [ "$(cat "$d/address" 2>/dev/null)" = "$mac" ]; then
        dev=${d##*/}
        ip link set "$dev" up
        ip addr replace "$ip" dev "$dev"
        exit 0
    fi
done
exit 0
"""

SETUP_UNIT = """[Unit]
Description=zlab lab host identity (SSH keys, management address)
DefaultDependencies=no
After=local-fs.target
Before=ssh.service network.target

[Service]
Type=oneshot
ExecStart=/usr/local/sbin/zlab-guest-setup
RemainAfterExit=yes

[Install]
WantedBy=multi-user.target
"""

UDEV_RULE = 'ACTION=="add", SUBSYSTEM=="net", RUN+="/usr/local/sbin/zlab-guest-net"\n'

SSHD_CONFIG = (
    "PermitRootLogin prohibit-password\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
    "UseDNS no\nPrintMotd no\nHostKey /etc/ssh/ssh_host_ed25519_key\n"
)
# Units a lab host has no use for and that cost boot time under TCG.
MASKED = [
    "apt-daily.timer",
    "apt-daily-upgrade.timer",
    "dpkg-db-backup.timer",
    "e2scrub_all.timer",
    "e2scrub_reap.service",
    "fstrim.timer",
    "man-db.timer",
    "systemd-networkd-wait-online.service",
    # registers python3's .pyc binfmt handler; waits for binfmt_misc, before sshd can start
    "systemd-binfmt.service",
]
UPDATED = (
    "# This file was created by systemd-update-done. Its only \n# purpose is to hold a timestamp of "
    "the time this directory\n# was updated. See man:systemd-update-done.service(8).\nTIMESTAMP_NSEC=%d\n"
)
FSTAB = "LABEL=%s / ext4 defaults,errors=remount-ro 0 0\n" % LABEL
JOURNALD = "[Journal]\nStorage=volatile\nRuntimeMaxUse=16M\n"


def _spec(kind):
    if kind not in KINDS:
        raise ValueError("zlab_kind %s is not one of %s" % (kind, ", ".join(KINDS)))
    return KINDS[kind]


def image_kind(kind):
    """The kind whose image a host of ``kind`` boots."""
    return _spec(kind).get("image", kind)


def packages(kind=KIND):
    """The packages of a kind's image (the kernel's first)."""
    return _spec(kind)["kernel"] + BASE_PACKAGES


def _smc_recipe(kind):
    how = _spec(kind)["smc"]
    if how == "lo-module":
        return [smc_lo_module.recipe_key()]
    return [how, smc_dibs_kernel.recipe_key()] if how == "dibs-kernel" else [how]


def image_key(kind=KIND):
    kind = image_kind(kind)
    h = hashlib.sha256()
    for item in (
        list(_spec(kind)["suites"])
        + [ARCH, RECIPE_VERSION, DISK_SIZE, LABEL, SETUP_SCRIPT, NET_SCRIPT, SETUP_UNIT, UDEV_RULE]
        + [SSHD_CONFIG, FSTAB, JOURNALD, UPDATED]
        + sorted(packages(kind))
        + MASKED
        + _smc_recipe(kind)
    ):
        h.update(item.encode() + b"\0")
    return "%s-%s" % (kind, h.hexdigest()[:12])


def image_path(cache_dir=None, kind=KIND):
    return os.path.join(cache_dir or image.CACHE_DIR, "images", image_key(kind))


def is_built(cache_dir=None, kind=KIND):
    return os.path.isfile(os.path.join(image_path(cache_dir, kind), ".zlab-image"))


def info(cache_dir=None, kind=KIND):
    """image.json of the built image (kernel release, sizes, build time), or None."""
    try:
        with open(os.path.join(image_path(cache_dir, kind), "image.json"), encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def files(cache_dir=None, kind=KIND):
    """{"disk", "kernel", "initrd"}: the paths a host boots from (initrd None: the kernel boots
    without one)."""
    path = image_path(cache_dir, kind)
    if _spec(kind)["smc"] == "dibs-kernel":
        return {"disk": os.path.join(path, "disk.qcow2"), "kernel": os.path.join(path, "vmlinuz-smc"), "initrd": None}
    return {
        "disk": os.path.join(path, "disk.qcow2"),
        "kernel": os.path.join(path, "vmlinuz"),
        "initrd": os.path.join(path, "initrd.img"),
    }


def missing_tools():
    """The programs a build needs that are not installed (Debian package in brackets)."""
    need = {
        "mmdebstrap": "mmdebstrap",
        "mkfs.ext4": "e2fsprogs",
        "qemu-img": "qemu-utils",
        "arch-test": "arch-test",
    }
    return ["%s (%s)" % (t, p) for t, p in need.items() if shutil.which(t) is None]


def _write(root, rel, text, mode=0o644):
    path = os.path.join(root, rel.lstrip("/"))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.islink(path):
        os.unlink(path)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(path, mode)


def _link(root, rel, target):
    path = os.path.join(root, rel.lstrip("/"))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.lexists(path):
        os.unlink(path)
    os.symlink(target, path)


def _customize(root):
    """The recipe's changes to the unpacked tree (file operations only; nothing runs in it)."""
    _write(root, "/usr/local/sbin/zlab-guest-setup", SETUP_SCRIPT, 0o755)
    _write(root, "/usr/local/sbin/zlab-guest-net", NET_SCRIPT, 0o755)
    _write(root, "/etc/systemd/system/zlab-guest-setup.service", SETUP_UNIT)
    _link(root, "/etc/systemd/system/multi-user.target.wants/zlab-guest-setup.service", "../zlab-guest-setup.service")
    _write(root, "/etc/udev/rules.d/90-zlab-net.rules", UDEV_RULE)
    _write(root, "/etc/ssh/sshd_config.d/zlab.conf", SSHD_CONFIG)
    for key in glob.glob(os.path.join(root, "etc/ssh/ssh_host_*")):
        os.unlink(key)  # made per host at its first boot
    for unit in MASKED:
        _link(root, "/etc/systemd/system/" + unit, "/dev/null")
    _write(root, "/etc/fstab", FSTAB)
    _write(root, "/etc/hostname", "localhost\n")
    _write(root, "/etc/systemd/journald.conf.d/zlab.conf", JOURNALD)
    os.makedirs(os.path.join(root, "root/.ssh"), mode=0o700, exist_ok=True)
    for rel in ("var/lib/apt/lists", "var/cache/apt/archives"):
        for path in glob.glob(os.path.join(root, rel, "*")):
            if os.path.isfile(path):
                os.unlink(path)
    # what systemd-update-done writes after the first boot: /etc and /var are up to date with
    # /usr, so ldconfig and the catalog and hwdb rebuilds (ConditionNeedsUpdate) do not run
    usr = os.stat(os.path.join(root, "usr")).st_mtime_ns
    for rel in ("etc/.updated", "var/.updated"):
        _write(root, rel, UPDATED % usr)
        os.utime(os.path.join(root, rel), ns=(usr, usr))


def _du(path):
    total = 0
    for dirpath, _dirs, names in os.walk(path):
        for n in names:
            try:
                total += os.lstat(os.path.join(dirpath, n)).st_size
            except OSError:
                pass
    return total


def _versions(root, names=None):
    """{package: version} of ``names`` (:data:`PACKAGES`) from the tree's dpkg status file."""
    names = [n.split("=", 1)[0] for n in (names or PACKAGES)]
    out = {}
    with open(os.path.join(root, "var/lib/dpkg/status"), encoding="utf-8") as f:
        for stanza in f.read().split("\n\n"):
            pkg = re.search(r"^Package: (\S+)$", stanza, re.M)
            ver = re.search(r"^Version: (\S+)$", stanza, re.M)
            if pkg and ver and pkg.group(1) in names:
                out[pkg.group(1)] = ver.group(1)
    return out


def _kernel_package_version(root, release):
    """The Debian version of the package linux-image-<release> in the tree."""
    with open(os.path.join(root, "var/lib/dpkg/status"), encoding="utf-8") as f:
        for stanza in f.read().split("\n\n"):
            if re.search(r"^Package: linux-image-%s$" % re.escape(release), stanza, re.M):
                ver = re.search(r"^Version: (\S+)$", stanza, re.M)
                if ver:
                    return ver.group(1)
    raise RuntimeError("the image has no package linux-image-%s" % release)


def apt_sources(mirror, suites):
    """sources.list lines of the mirror's main component for ``suites``."""
    return "".join(
        "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s %s main\n" % (mirror, s) for s in suites
    )


def _pool_fallback(workdir, mirror, log, suites=(SUITE,), names=None):
    """mmdebstrap arguments that pin, from a local repository, older builds of the packages the
    mirror lists but does not serve (zlab.debian_pool); none when it serves them all."""
    from . import debian_pool, s390tools  # pylint: disable=import-outside-toplevel

    source = apt_sources(mirror, suites)
    opts = s390tools._apt_options(workdir, source)  # pylint: disable=protected-access
    repo = debian_pool.LocalRepo(os.path.join(workdir, "fallback"))
    # what mmdebstrap's minbase installs (the Essential set and apt) and the image's packages
    debian_pool.resolve(
        opts, os.path.join(workdir, "sources.list"), source, ["?essential", "apt"] + list(names or PACKAGES), repo, log
    )
    if not repo:
        return []
    pref = repo.preferences_path
    return ['--setup-hook=mkdir -p "$1/etc/apt/preferences.d" && cp %s "$1/etc/apt/preferences.d/"' % pref]


def _smc(kind, root, release, mirror, cache_dir, log):
    """The image's SMC (:data:`KINDS`): for Debian 13's kernel, smc.ko with loopback-ism in
    ``updates/``; for the Linux 7.x SMC image, the rebuilt kernel with DIBS and SMC next to
    Debian's. Returns what image.json records of it."""
    how = _spec(kind)["smc"]
    if how == "none":
        return {}
    kernel_version = _kernel_package_version(root, release)
    if how == "lo-module":
        # smc.ko with loopback-ism (SMC-D without ISM hardware), built from the same kernel's source
        built = smc_lo_module.build(release, kernel_version, mirror, SUITE, cache_dir, log)
        smc_lo_module.install(root, release, built, log)
        return {"smc_ko": smc_lo_module.info(release, kernel_version, cache_dir)}
    sources = apt_sources(mirror, _spec(kind)["suites"])
    built = smc_dibs_kernel.build(release, kernel_version, mirror, sources, cache_dir, log)
    smc_release = smc_dibs_kernel.install(root, built, log)
    return {"smc_kernel": smc_dibs_kernel.info(kernel_version, cache_dir), "smc_kernel_release": smc_release}


def build(cache_dir=None, force=False, log=sys.stderr, kind=KIND):
    """Build the image of host kind ``kind`` if it is not cached; returns its directory."""
    kind = image_kind(kind)
    cache_dir = cache_dir or image.CACHE_DIR
    path = image_path(cache_dir, kind)
    if is_built(cache_dir, kind) and not force:
        return path
    # a second build of the same image (make test's background build and a test) waits for the
    # first, then finds it
    with image.locked(path):
        if is_built(cache_dir, kind) and not force:
            return path
        return _build(cache_dir, path, kind, log)


def _build(cache_dir, path, kind, log):
    missing = missing_tools()
    if missing:
        raise RuntimeError("building the %s image needs %s (make zlab-deps)" % (kind, ", ".join(missing)))
    from . import s390tools  # pylint: disable=import-outside-toplevel

    s390tools.register_binfmt()  # the s390x maintainer scripts run through qemu-user
    os.makedirs(os.path.dirname(path), exist_ok=True)
    mirror, _security = image.machine_mirrors()
    suites = _spec(kind)["suites"]
    names = packages(kind)
    tmp = path + ".tmp-%d" % os.getpid()
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    root = os.path.join(tmp, "root")
    start = time.monotonic()
    print(
        "zlab: building image %s (Debian %s %s) from %s" % (os.path.basename(path), " ".join(suites), ARCH, mirror),
        file=log,
    )
    try:
        pool_args = _pool_fallback(os.path.join(tmp, "apt"), mirror, log, suites, names)
        image.run_step(
            [
                "mmdebstrap",
                "--mode=root",
                "--variant=minbase",
                "--architectures=" + ARCH,
                "--format=directory",
                "--include=" + ",".join(names),
                "--dpkgopt=path-exclude=/usr/share/doc/*",
                "--dpkgopt=path-exclude=/usr/share/man/*",
                "--dpkgopt=path-exclude=/usr/share/locale/*",
            ]
            + pool_args
            + [suites[0], root]
            + ["deb %s %s main" % (mirror, s) for s in suites]
            + (["deb [trusted=yes] copy://%s ./" % os.path.join(tmp, "apt", "fallback")] if pool_args else []),
            "mmdebstrap",
            log,
            env={k: v for k, v in os.environ.items() if k != "PIP_FIND_LINKS"},
        )
        if kind == KIND:
            kernels = sorted(glob.glob(os.path.join(root, "boot", "vmlinuz-*")))
            if not kernels:
                raise RuntimeError("the image has no kernel in /boot")
            release = os.path.basename(kernels[-1])[len("vmlinuz-") :]
        else:
            release = LINUX7_RELEASE
        kernel = os.path.join(root, "boot", "vmlinuz-" + release)
        initrd = os.path.join(root, "boot", "initrd.img-" + release)
        if not os.path.isfile(kernel) or not os.path.isfile(initrd):
            raise RuntimeError("the image has no kernel or initramfs for %s" % release)
        shutil.copy(kernel, os.path.join(tmp, "vmlinuz"))
        shutil.copy(initrd, os.path.join(tmp, "initrd.img"))
        smc = _smc(kind, root, release, mirror, cache_dir, log)
        if "smc_kernel_release" in smc:
            shutil.copy(
                os.path.join(root, "boot", "vmlinuz-" + smc["smc_kernel_release"]), os.path.join(tmp, "vmlinuz-smc")
            )
        _customize(root)
        used = _du(root)
        raw = os.path.join(tmp, "disk.raw")
        image.run_step(
            ["mkfs.ext4", "-q", "-F", "-L", LABEL, "-d", root, "-E", "root_owner=0:0", raw, DISK_SIZE], "mkfs.ext4", log
        )
        image.run_step(
            ["qemu-img", "convert", "-O", "qcow2", raw, os.path.join(tmp, "disk.qcow2")], "qemu-img convert", log
        )
        os.unlink(raw)
        versions = _versions(root, names)
        shutil.rmtree(root)
        seconds = time.monotonic() - start
        meta = {
            "key": image_key(kind),
            "kind": kind,
            "suite": suites[0] if kind == KIND else list(suites),
            "kernel_release": release,
            "packages": versions,
            "build_seconds": round(seconds, 1),
            "root_bytes": used,
            "disk_bytes": os.path.getsize(os.path.join(tmp, "disk.qcow2")),
            "kernel_bytes": os.path.getsize(os.path.join(tmp, "vmlinuz")),
            "initrd_bytes": os.path.getsize(os.path.join(tmp, "initrd.img")),
            "built": time.time(),
        }
        meta.update(smc)
        with open(os.path.join(tmp, "image.json"), "w", encoding="utf-8") as f:
            json.dump(meta, f, indent=1)
        with open(os.path.join(tmp, ".zlab-image"), "w", encoding="utf-8") as f:
            f.write("%s\n%s\n" % (image_key(kind), " ".join(names)))
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if os.path.exists(path):
        shutil.rmtree(path)
    os.rename(tmp, path)
    print(
        "zlab: image %s built in %.0f s (kernel %s, disk %.0f MiB)"
        % (os.path.basename(path), seconds, release, meta["disk_bytes"] / 2**20),
        file=log,
        flush=True,
    )
    prune(cache_dir, kind)
    return path


def prune(cache_dir=None, kind=KIND):
    """Remove cached images of this kind's image with another key (old package lists or recipes)."""
    kind = image_kind(kind)
    keep = image_key(kind)
    prefix = kind
    for old in glob.glob(os.path.join(cache_dir or image.CACHE_DIR, "images", prefix + "-*")):
        name = os.path.basename(old)
        if name != keep and re.fullmatch(r"%s-[0-9a-f]{12}" % re.escape(prefix), name):
            shutil.rmtree(old, ignore_errors=True)


def overlay(path, cache_dir=None, kind=KIND):
    """A qcow2 overlay at ``path`` over the cached disk (the host's own disk)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    base = files(cache_dir, kind)["disk"]
    subprocess.run(
        ["qemu-img", "create", "-q", "-f", "qcow2", "-F", "qcow2", "-b", base, path],
        check=True,
        capture_output=True,
        text=True,
    )
    return path
