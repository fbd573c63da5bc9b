# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A Linux 7.x kernel with SMC over DIBS for the real-kernel image of Linux 7.x.

From 6.18 on, ``config SMC`` depends on ``DIBS`` (the Direct Internal Buffer Sharing layer that
ISM and the loopback device ``lo`` now belong to), and Debian builds its 7.x kernels with
``# CONFIG_DIBS is not set``: the stock kernel has no SMC at all, not just no loopback device.
Rebuilding the modules alone (as :mod:`zlab.smc_lo_module` does for 6.12) cannot add it: with
``CONFIG_SMC`` the kernel proper changes too (``struct tcp_sock`` gains ``syn_smc``, ``struct net``
gains ``struct netns_smc``, TCP's option code sends and parses the SMC option, and ``vmlinux``
exports ``tcp_have_smc``, which smc.ko links to). A stock kernel refuses such an smc.ko (unknown
symbol), and one that took it would read other fields than it writes.

So this builds a whole kernel from Debian's ``linux-source`` of exactly the packaged version, with
Debian's ``.config`` (from the ``linux-headers`` package) changed in :data:`CONFIG` only:
``DIBS=m``, ``DIBS_LO=y``, ``SMC=m``, ``SMC_DIAG=m``; the root disk's driver and file system
built in (the kernel boots without an initramfs); no debug information (no BTF: the build
takes a third of the time); modules signed with a key made for the build; and, to fit a
two-core machine, modules only for what a lab host uses (:data:`MODULES`), every other
module of Debian's configuration left out. Its release is the packaged one with ``-smc``
appended (:func:`smc_release`), so it sits in the image next to the stock kernel, each with
its own ``/lib/modules/<release>``.

The build is a cross build (``gcc-s390x-linux-gnu`` of this machine's Debian), cached under
``<ZLAB_CACHE_DIR>/smc-dibs-kernel/<package version>-<recipe>/`` (``vmlinuz``, ``modules/``
for ``/usr/lib/modules``, ``config``, ``build.json`` with release, compiler, the configuration
lines that differ from Debian's and the build time).
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

from . import debian_pool, image, s390tools, smc_lo_module

CROSS = smc_lo_module.CROSS
SUFFIX = "-smc"
# What changes in Debian's configuration: SMC over DIBS with the loopback device, the boot disk
# without an initramfs, a build key for module signatures, no debug information.
CONFIG = (
    "CONFIG_DIBS=m",
    "CONFIG_DIBS_LO=y",
    "CONFIG_SMC=m",
    "CONFIG_SMC_DIAG=m",
    "CONFIG_VIRTIO_BLK=y",
    "CONFIG_EXT4_FS=y",
    'CONFIG_MODULE_SIG_KEY="certs/signing_key.pem"',
    "CONFIG_DEBUG_INFO_NONE=y",
)
# Debian's =m options a lab host loads (everything else that is a module in Debian's
# configuration is left out of this build). Their dependencies follow from Kconfig.
MODULES = (
    "CONFIG_VIRTIO_NET",
    "CONFIG_VFIO",
    "CONFIG_VFIO_IOMMU_TYPE1",
    "CONFIG_VFIO_PCI_CORE",
    "CONFIG_VFIO_PCI",
    "CONFIG_INFINIBAND",
    "CONFIG_INFINIBAND_USER_MAD",
    "CONFIG_INFINIBAND_USER_ACCESS",
    "CONFIG_RDMA_RXE",
    "CONFIG_BRIDGE",
    "CONFIG_VLAN_8021Q",
    "CONFIG_BONDING",
    "CONFIG_DUMMY",
    "CONFIG_VETH",
    "CONFIG_MACVLAN",
    "CONFIG_TLS",
    "CONFIG_AUTOFS_FS",
    "CONFIG_INET_DIAG",
    "CONFIG_INET_TCP_DIAG",
    "CONFIG_INET_UDP_DIAG",
    "CONFIG_UNIX_DIAG",
    "CONFIG_PACKET_DIAG",
    "CONFIG_NETLINK_DIAG",
    "CONFIG_BLK_DEV_LOOP",
    "CONFIG_QETH",
    "CONFIG_QETH_L2",
    "CONFIG_QETH_L3",
    "CONFIG_CCWGROUP",
)
# Bump when the build steps change: part of the cache key.
RECIPE_VERSION = "1"
# modules the tier is about: the build fails without them
REQUIRED = ("kernel/drivers/dibs/dibs.ko", "kernel/net/smc/smc.ko", "kernel/net/smc/smc_diag.ko")


def recipe_key():
    h = hashlib.sha256()
    for item in (RECIPE_VERSION, CROSS, SUFFIX) + CONFIG + MODULES:
        h.update(item.encode() + b"\0")
    return h.hexdigest()[:8]


def smc_release(release):
    """The rebuilt kernel's release: the packaged one with :data:`SUFFIX`."""
    if not re.fullmatch(smc_lo_module.RELEASE_RE, release):
        raise ValueError("not a kernel release: %r" % release)
    return release + SUFFIX


def cache_path(version, cache_dir=None):
    if not re.fullmatch(smc_lo_module.VERSION_RE, version):
        raise ValueError("not a Debian package version: %r" % version)
    name = "%s-%s" % (version.replace(":", "_").replace("~", "_"), recipe_key())
    return os.path.join(cache_dir or image.CACHE_DIR, "smc-dibs-kernel", name)


def trim_config(debian_lines, keep=MODULES, config=CONFIG):
    """Debian's .config (lines) with :data:`CONFIG` set and every ``=m`` not in ``keep`` unset."""
    forced = dict(line.split("=", 1) for line in config)
    out = []
    for line in debian_lines:
        m = re.match(r"^(?:# )?(CONFIG_\w+)(?:=(.*)| is not set)$", line.rstrip("\n"))
        if m and m.group(1) in forced:
            continue
        if m and m.group(2) == "m" and m.group(1) not in keep:
            out.append("# %s is not set\n" % m.group(1))
            continue
        out.append(line if line.endswith("\n") else line + "\n")
    out += ["%s=%s\n" % kv for kv in forced.items()]
    return out


def missing_settings(config_lines, config=CONFIG, keep=MODULES):
    """What olddefconfig dropped of :data:`CONFIG` and :data:`MODULES` (a dependency is off)."""
    have = set(line.rstrip("\n") for line in config_lines)
    gone = [line for line in config if line not in have]
    gone += [name for name in keep if name + "=m" not in have and name + "=y" not in have]
    return gone


def _run(cmd, what, log, **kw):
    return image.run_step(cmd, "SMC kernel: " + what, log, **kw)


def _is_built(path):
    return os.path.isfile(os.path.join(path, "build.json")) and os.path.isfile(os.path.join(path, "vmlinuz"))


def build(release, version, mirror, sources, cache_dir=None, log=sys.stderr):
    """The directory of the cached kernel for Debian's kernel ``release`` of package ``version``
    (built if needed). ``sources``: the apt sources lines that list that version."""
    path = cache_path(version, cache_dir)
    if _is_built(path):
        return path
    with image.locked(path):
        if not _is_built(path):
            _build(path, release, version, mirror, sources, log)
    prune(cache_dir)
    return path


def _build(path, release, version, mirror, sources, log):
    new_release = smc_release(release)
    missing = smc_lo_module.install_packages(log)
    if missing:
        raise RuntimeError("building the SMC kernel needs the packages %s (make zlab-deps)" % ", ".join(missing))
    start = time.monotonic()
    # on disk, not in /dev/shm: the objects of a whole kernel would take the lab hosts' memory
    scratch = os.path.dirname(path)
    os.makedirs(scratch, exist_ok=True)
    tmp = os.path.join(scratch, "zlab-smc-dibs-kernel.tmp-%d" % os.getpid())
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    out = path + ".new-%d" % os.getpid()
    try:
        debs = os.path.join(tmp, "debs")
        os.makedirs(debs)
        opts = s390tools._apt_options(os.path.join(tmp, "apt"), sources)
        _run(["apt-get"] + opts + ["update"], "apt-get update", log)
        t0 = time.monotonic()
        debian_pool.download_pinned(
            opts, mirror + "/pool/main/l/linux", smc_lo_module.build_packages(release), version, debs, log
        )
        download_seconds = time.monotonic() - t0
        download_bytes = sum(os.path.getsize(p) for p in glob.glob(os.path.join(debs, "*.deb")))
        headers = os.path.join(tmp, "headers")
        hdr_deb = glob.glob(os.path.join(debs, "linux-headers-*.deb"))[0]
        _run(["dpkg-deb", "-x", hdr_deb, headers], "unpack headers", log)
        debian_config = os.path.join(headers, "usr", "src", "linux-headers-" + release, ".config")
        src_deb = glob.glob(os.path.join(debs, "linux-source-*.deb"))[0]
        _run(["dpkg-deb", "-x", src_deb, os.path.join(tmp, "source")], "unpack source", log)
        tarball = glob.glob(os.path.join(tmp, "source", "usr", "src", "linux-source-*.tar.*"))[0]
        src = os.path.join(tmp, "src")
        os.makedirs(src)
        _run(["tar", "-xf", tarball, "-C", src, "--strip-components=1"], "extract " + os.path.basename(tarball), log)
        shutil.rmtree(os.path.join(tmp, "source"))
        shutil.rmtree(debs)
        with open(debian_config, encoding="utf-8") as f:
            debian_lines = f.readlines()
        with open(os.path.join(src, ".config"), "w", encoding="utf-8") as f:
            f.writelines(trim_config(debian_lines))
        make = ["make", "-C", src, "ARCH=s390", "CROSS_COMPILE=" + CROSS, "KERNELRELEASE=" + new_release]
        make += ["-j%d" % max(1, os.cpu_count() or 1)]
        _run(make + ["olddefconfig"], "olddefconfig", log)
        with open(os.path.join(src, ".config"), encoding="utf-8") as f:
            built_lines = f.readlines()
        gone = missing_settings(built_lines)
        if gone:
            raise RuntimeError("the kernel configuration refuses %s" % ", ".join(gone))
        t0 = time.monotonic()
        _run(make + ["bzImage", "modules"], "make bzImage modules", log)
        compile_seconds = time.monotonic() - t0
        os.makedirs(out)
        _run(
            make + ["INSTALL_MOD_PATH=" + os.path.join(out, "root"), "INSTALL_MOD_STRIP=1", "modules_install"],
            "modules_install",
            log,
        )
        moddir = glob.glob(os.path.join(out, "root", "lib", "modules", new_release))
        moddir = moddir or glob.glob(os.path.join(out, "root", "usr", "lib", "modules", new_release))
        if not moddir:
            raise RuntimeError("modules_install left no modules for %s" % new_release)
        os.rename(moddir[0], os.path.join(out, "modules"))
        shutil.rmtree(os.path.join(out, "root"))
        for link in ("build", "source"):
            if os.path.lexists(os.path.join(out, "modules", link)):
                os.unlink(os.path.join(out, "modules", link))
        kos = {}
        for rel in REQUIRED:
            found = glob.glob(os.path.join(out, "modules", rel + "*"))
            if not found:
                raise RuntimeError("the build has no %s" % rel)
            kos[rel] = os.path.getsize(found[0])
        shutil.copy(os.path.join(src, "arch", "s390", "boot", "bzImage"), os.path.join(out, "vmlinuz"))
        shutil.copy(os.path.join(src, ".config"), os.path.join(out, "config"))
        cc = subprocess.run([CROSS + "gcc", "--version"], stdout=subprocess.PIPE, text=True, check=False)
        debian_set = set(line.rstrip("\n") for line in debian_lines if line.startswith(("CONFIG_", "# CONFIG_")))
        built_set = set(line.rstrip("\n") for line in built_lines if line.startswith(("CONFIG_", "# CONFIG_")))
        meta = {
            "release": new_release,
            "debian_release": release,
            "package_version": version,
            "mirror": mirror,
            "config_added": list(CONFIG),
            "config_added_by_olddefconfig": sorted(built_set - debian_set - set(CONFIG)),
            "modules_kept": list(MODULES),
            "modules_built": sum(
                1 for _ in glob.iglob(os.path.join(out, "modules", "kernel", "**", "*.ko*"), recursive=True)
            ),
            "compiler": cc.stdout.splitlines()[0] if cc.stdout else "",
            "download_bytes": download_bytes,
            "download_seconds": round(download_seconds, 1),
            "compile_seconds": round(compile_seconds, 1),
            "build_seconds": round(time.monotonic() - start, 1),
            "cpus": os.cpu_count(),
            "vmlinuz_bytes": os.path.getsize(os.path.join(out, "vmlinuz")),
            "bytes": kos,
        }
        with open(os.path.join(out, "build.json"), "w", encoding="utf-8") as f:
            json.dump(meta, f, indent=1)
    except BaseException:
        shutil.rmtree(out, ignore_errors=True)
        raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    shutil.rmtree(path, ignore_errors=True)
    os.rename(out, path)
    print(
        "zlab: kernel %s (SMC over DIBS) built in %.0f s" % (new_release, meta["build_seconds"]), file=log, flush=True
    )


def prune(cache_dir=None):
    """Remove cached builds of other recipes."""
    keep = "-" + recipe_key()
    for old in glob.glob(os.path.join(cache_dir or image.CACHE_DIR, "smc-dibs-kernel", "*")):
        if not old.endswith(keep) and os.path.isdir(old) and ".new-" not in old and ".tmp-" not in old:
            shutil.rmtree(old, ignore_errors=True)


def info(version, cache_dir=None):
    """build.json of the cached kernel, or None."""
    try:
        with open(os.path.join(cache_path(version, cache_dir), "build.json"), encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def install(root, built, log=sys.stderr):
    """Put the kernel of the build directory ``built`` into the image tree ``root``: its modules
    under ``/usr/lib/modules/<release>/`` (depmod run there), its image and configuration in
    ``/boot``. Returns the release."""
    with open(os.path.join(built, "build.json"), encoding="utf-8") as f:
        release = json.load(f)["release"]
    dest = os.path.join(root, "usr", "lib", "modules", release)
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(os.path.join(built, "modules"), dest, symlinks=True)
    shutil.copy(os.path.join(built, "vmlinuz"), os.path.join(root, "boot", "vmlinuz-" + release))
    shutil.copy(os.path.join(built, "config"), os.path.join(root, "boot", "config-" + release))
    # the image's own depmod (an s390x program: qemu-user through binfmt_misc)
    _run(["chroot", root, "depmod", "-a", release], "depmod " + release, log)
    return release
