# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""smc.ko with loopback-ism (``CONFIG_SMC_LO=y``) for the real-kernel image.

Debian builds its kernels without ``CONFIG_SMC_LO`` and ``CONFIG_ISM``, so a guest of
:mod:`zlab.image_s390x` has no SMC-D device. This builds the one module that changes, net/smc,
from Debian's ``linux-source`` of exactly the kernel package the image boots, with Debian's
``.config`` and ``Module.symvers`` (from the ``linux-headers`` package of the same version) and
``CONFIG_SMC_LO=y`` added: same release string (vermagic) and symbol versions, so the guest's
kernel loads it as its own. The image installs it as ``/lib/modules/<release>/updates/smc.ko``,
which depmod prefers over the packaged one, next to the ``smc_diag.ko`` of the same build.

The build is a cross build (``gcc-s390x-linux-gnu`` of this machine's Debian): the source tree is
configured and prepared (``modules_prepare``) and only ``M=net/smc`` is compiled. The prepared
tree's ``autoconf.h`` must equal Debian's but for toolchain facts (:data:`TOOLCHAIN_RE`): another
compiler may not change what the kernel's structures look like. The result is
cached under ``<ZLAB_CACHE_DIR>/smc-lo/<package version>-<recipe>/`` with a ``build.json``
(release, vermagic, compiler, the configuration lines that differ from Debian's, build time).
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

from . import debian_pool, image, s390tools

CROSS = "s390x-linux-gnu-"
# The configuration this adds to Debian's.
CONFIG = ("CONFIG_SMC_LO=y",)
# Bump when the build steps change: part of the cache key.
RECIPE_VERSION = "3"
# the modules of net/smc (smc_diag from the same build as the smc it links to)
MODULES = ("smc.ko", "smc_diag.ko")
# program -> the Debian package that provides it (this machine's)
TOOLS = {
    CROSS + "gcc": "gcc-s390x-linux-gnu",
    "gcc": "gcc",
    "make": "make",
    "flex": "flex",
    "bison": "bison",
    "bc": "bc",
    "xz": "xz-utils",
    "dpkg-deb": "dpkg",
    # without pahole Kconfig drops DEBUG_INFO_BTF_MODULES, and with it struct module's BTF fields:
    # its later fields would sit at other offsets than the kernel's (256-byte aligned, same size)
    "pahole": "dwarves",
}
# What may differ between Debian's autoconf.h and the rebuild's: the toolchain's own facts
# (versions, what the compiler can do). Anything else changes the code or layouts of the kernel's
# structures, and the build stops.
TOOLCHAIN_RE = (
    r"CONFIG_(SMC_LO|CC_VERSION_TEXT|(GCC|AS|LD|PAHOLE|RUSTC|RUSTC_LLVM|CLANG|LLD)_VERSION|CC_CAN_LINK\w*"
    r"|CC_HAS_\w+|GCC_ASM_GOTO_OUTPUT_BROKEN|PAHOLE_HAS_\w+|RUSTC_HAS_\w+|DEBUG_INFO_COMPRESSED_\w+)"
)
# headers a prepared tree needs on the build machine: libelf (objtool, resolve_btfids) and
# OpenSSL (sign-file)
HEADERS = {"/usr/include/gelf.h": "libelf-dev", "/usr/include/openssl/evp.h": "libssl-dev"}
SCRATCH = "/dev/shm"
SCRATCH_MIN = 4 << 30
VERSION_RE = r"[0-9][0-9A-Za-z.+~:-]*"
RELEASE_RE = r"[0-9]+\.[0-9]+\.[0-9]+[0-9A-Za-z.+_-]*"


def missing_packages():
    """The Debian packages (of this machine) the build needs that are not installed."""
    need = [p for t, p in TOOLS.items() if shutil.which(t) is None]
    need += [p for f, p in HEADERS.items() if not os.path.isfile(f)]
    return sorted(set(need))


def install_packages(log=sys.stderr):
    """apt-get install what :func:`missing_packages` lists (root only); returns what is left."""
    missing = missing_packages()
    if missing and os.geteuid() == 0 and shutil.which("apt-get"):
        print("zlab: installing %s for the smc.ko build" % " ".join(missing), file=log, flush=True)
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        for cmd in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", "--no-install-recommends"]):
            subprocess.run(cmd + (missing if cmd[1] == "install" else []), env=env, check=False)
        missing = missing_packages()
    return missing


def recipe_key():
    h = hashlib.sha256()
    for item in (RECIPE_VERSION, CROSS) + CONFIG:
        h.update(item.encode() + b"\0")
    return h.hexdigest()[:8]


def cache_path(version, cache_dir=None):
    if not re.fullmatch(VERSION_RE, version):
        raise ValueError("not a Debian package version: %r" % version)
    return os.path.join(cache_dir or image.CACHE_DIR, "smc-lo", "%s-%s" % (version.replace(":", "_"), recipe_key()))


def source_package(release):
    """linux-source-<major>.<minor> for a kernel release such as 6.12.107+deb13-s390x."""
    m = re.fullmatch(r"([0-9]+)\.([0-9]+)\.[0-9]+[0-9A-Za-z.+_-]*", release)
    if not m:
        raise ValueError("not a kernel release: %r" % release)
    return "linux-source-%s.%s" % m.groups()


def build_packages(release):
    """``[(name, arch)]`` of what a build from the source of kernel ``release`` downloads: its
    linux-source and Debian's linux-headers (the configuration and Module.symvers)."""
    return [(source_package(release), "all"), ("linux-headers-" + release, "s390x")]


def vermagic(ko):
    """The vermagic= string of a module file (its .modinfo section)."""
    with open(ko, "rb") as f:
        m = re.search(rb"vermagic=([^\0]*)\0", f.read())
    return m.group(1).decode() if m else None


def _run(cmd, what, log, **kw):
    return image.run_step(cmd, "smc.ko: " + what, log, **kw)


def _autoconf(path):
    """{CONFIG_NAME: value} of an include/generated/autoconf.h."""
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"#define (CONFIG_\w+) (.*)$", line.rstrip("\n"))
            if m:
                out[m.group(1)] = m.group(2)
    return out


def autoconf_differences(debian, rebuild):
    """The CONFIG_ names whose values differ and are not toolchain facts (:data:`TOOLCHAIN_RE`)."""
    names = set(debian) | set(rebuild)
    return sorted(n for n in names if debian.get(n) != rebuild.get(n) and not re.fullmatch(TOOLCHAIN_RE, n))


def _config_lines(path):
    with open(path, encoding="utf-8") as f:
        return set(line.rstrip("\n") for line in f if line.startswith(("CONFIG_", "# CONFIG_")))


def _scratch(cache):
    """Where the source tree goes: /dev/shm when it has room (the tree's ~80000 files are
    removed in a moment there, not one discard at a time), else next to the cache."""
    try:
        st = os.statvfs(SCRATCH)
        if st.f_bavail * st.f_frsize >= SCRATCH_MIN:
            return SCRATCH
    except OSError:
        pass
    os.makedirs(cache, exist_ok=True)
    return cache


def build(release, version, mirror, suite, cache_dir=None, log=sys.stderr):
    """The directory of the cached modules for kernel ``release`` of Debian package ``version``
    (built if needed)."""
    if not re.fullmatch(RELEASE_RE, release):
        raise ValueError("not a kernel release: %r" % release)
    path = cache_path(version, cache_dir)
    if os.path.isfile(os.path.join(path, "build.json")) and all(os.path.isfile(os.path.join(path, m)) for m in MODULES):
        return path
    missing = install_packages(log)
    if missing:
        raise RuntimeError("building smc.ko needs the packages %s (make zlab-deps)" % ", ".join(missing))
    start = time.monotonic()
    tmp = os.path.join(_scratch(os.path.dirname(path)), "zlab-smc-lo.tmp-%d" % os.getpid())
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    try:
        debs = os.path.join(tmp, "debs")
        os.makedirs(debs)
        opts = s390tools._apt_options(  # pylint: disable=protected-access
            os.path.join(tmp, "apt"),
            "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s %s main\n" % (mirror, suite),
        )
        _run(["apt-get"] + opts + ["update"], "apt-get update (%s s390x)" % suite, log)
        # a kernel older than the index lists (zlab.debian_pool): the same files from the pool
        debian_pool.download_pinned(opts, mirror + "/pool/main/l/linux", build_packages(release), version, debs, log)
        headers = os.path.join(tmp, "headers")
        src_deb = glob.glob(os.path.join(debs, "linux-source-*.deb"))[0]
        hdr_deb = glob.glob(os.path.join(debs, "linux-headers-*.deb"))[0]
        _run(["dpkg-deb", "-x", hdr_deb, headers], "unpack headers", log)
        hdir = os.path.join(headers, "usr", "src", "linux-headers-" + release)
        _run(["dpkg-deb", "-x", src_deb, os.path.join(tmp, "source")], "unpack linux-source", log)
        tarball = glob.glob(os.path.join(tmp, "source", "usr", "src", "linux-source-*.tar.*"))[0]
        src = os.path.join(tmp, "src")
        os.makedirs(src)
        _run(["tar", "-xf", tarball, "-C", src, "--strip-components=1"], "extract " + os.path.basename(tarball), log)
        shutil.rmtree(os.path.join(tmp, "source"))
        shutil.copy(os.path.join(hdir, ".config"), os.path.join(src, ".config"))
        with open(os.path.join(src, ".config"), "a", encoding="utf-8") as f:
            f.write("".join(line + "\n" for line in CONFIG))
        shutil.copy(os.path.join(hdir, "Module.symvers"), os.path.join(src, "Module.symvers"))
        make = ["make", "-C", src, "ARCH=s390", "CROSS_COMPILE=" + CROSS, "KERNELRELEASE=" + release]
        make += ["-j%d" % max(1, os.cpu_count() or 1)]
        _run(make + ["olddefconfig"], "olddefconfig", log)
        changed = sorted(_config_lines(os.path.join(src, ".config")) ^ _config_lines(os.path.join(hdir, ".config")))
        for line in CONFIG:
            if line not in _config_lines(os.path.join(src, ".config")):
                raise RuntimeError("the kernel configuration refuses %s" % line)
        _run(make + ["modules_prepare"], "modules_prepare", log)
        wrong = autoconf_differences(
            _autoconf(os.path.join(hdir, "include", "generated", "autoconf.h")),
            _autoconf(os.path.join(src, "include", "generated", "autoconf.h")),
        )
        if wrong:
            raise RuntimeError("the rebuild's configuration differs from Debian's in %s" % ", ".join(wrong))
        _run(make + ["M=net/smc", "modules"], "make M=net/smc modules", log)
        out = path + ".new-%d" % os.getpid()
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        for name in MODULES:
            built = os.path.join(src, "net", "smc", name)
            _run([CROSS + "strip", "--strip-debug", built], "strip " + name, log)
            magic = vermagic(built)
            if not magic or magic.split()[0] != release:
                raise RuntimeError("%s has vermagic %r, the kernel is %s" % (name, magic, release))
            shutil.copy(built, os.path.join(out, name))
        cc = subprocess.run([CROSS + "gcc", "--version"], stdout=subprocess.PIPE, text=True, check=False)
        meta = {
            "release": release,
            "package_version": version,
            "suite": suite,
            "mirror": mirror,
            "vermagic": magic,
            "config_added": list(CONFIG),
            "config_differs": changed,
            "compiler": cc.stdout.splitlines()[0] if cc.stdout else "",
            "build_seconds": round(time.monotonic() - start, 1),
            "bytes": dict((name, os.path.getsize(os.path.join(out, name))) for name in MODULES),
        }
        with open(os.path.join(out, "build.json"), "w", encoding="utf-8") as f:
            json.dump(meta, f, indent=1)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    shutil.rmtree(path, ignore_errors=True)
    os.rename(out, path)
    prune(cache_dir)
    print(
        "zlab: smc.ko with loopback-ism for %s built in %.0f s" % (release, meta["build_seconds"]), file=log, flush=True
    )
    return path


def prune(cache_dir=None):
    """Remove cached builds of other recipes."""
    keep = "-" + recipe_key()
    for old in glob.glob(os.path.join(cache_dir or image.CACHE_DIR, "smc-lo", "*")):
        if not old.endswith(keep) and os.path.isdir(old):
            shutil.rmtree(old, ignore_errors=True)


def info(release, version, cache_dir=None):
    """build.json of the cached module, or None."""
    try:
        with open(os.path.join(cache_path(version, cache_dir), "build.json"), encoding="utf-8") as f:
            meta = json.load(f)
    except (OSError, ValueError):
        return None
    return meta if meta.get("release") == release else None


def install(root, release, built, log=sys.stderr):
    """Put the modules of the build directory ``built`` into the image tree ``root`` under
    ``/lib/modules/<release>/updates/`` and run depmod there."""
    dest = os.path.join(root, "usr", "lib", "modules", release, "updates")
    os.makedirs(dest, exist_ok=True)
    for name in MODULES:
        shutil.copy(os.path.join(built, name), os.path.join(dest, name))
    # the image's own depmod (an s390x program: qemu-user through binfmt_misc)
    _run(["chroot", root, "depmod", "-a", release], "depmod", log)
