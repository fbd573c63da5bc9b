# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Real s390-tools in the lab hosts: Debian's s390x builds, run through qemu-user.

Debian builds s390-tools for s390x. On this x86 machine those binaries run through
qemu-user-static, registered with binfmt_misc with the F flag: the kernel opens the interpreter
when it is registered, so it also runs inside the hosts' mount namespaces, whose root file system
has no qemu. The packages are unpacked, not installed with dpkg: s390-tools:s390x depends on perl,
which cannot be installed for two architectures side by side.

The unpacked tree (:func:`tree`), copied into every host image, holds

- ``/usr/lib/s390x-linux-gnu`` and ``/usr/lib/ld64.so.1``: the s390x C library and the few
  libraries the zdev tools link, taken from the newest Debian release below (a newer glibc runs
  programs built against an older one);
- ``/opt/s390-tools/<release>/usr/...``: one s390-tools build per Debian release, its ``/sbin``
  and ``/lib`` folded under ``usr/`` as on a merged-/usr system, and a ``VERSION`` file.

A host links the release its kernel profile names into ``/usr`` at boot
(``zlab.hostinit.install_s390_tools``).
"""

import glob
import hashlib
import os
import shutil
import subprocess
import sys

from . import debian_pool

# Debian release -> the suites tried in order (a mirror can serve a codename's index files from
# different syncs while it updates; the `stable` alias of the same release is the fallback).
RELEASES = {
    "debian12": ("bookworm",),
    "debian13": ("trixie", "stable"),
}
TOOLS_PACKAGE = "s390-tools"
# s390x run-time libraries, from the newest release: glibc and what chzdev/lszdev of 2.3x link.
RUNTIME_RELEASE = "debian13"
RUNTIME_PACKAGES = ("libc6", "libgcc-s1", "libjson-c5")
# What of the packages the tree keeps (man pages, docs, locales and gconv modules are left out).
KEEP = (
    "usr/sbin/",
    "usr/bin/",
    "usr/lib/s390-tools/",
    "usr/lib/s390x-linux-gnu/",
    "usr/lib/ld64.so.1",
    "usr/share/s390-tools/",
)
SKIP = ("usr/lib/s390x-linux-gnu/gconv/",)
# Tools whose runs zlab can make fail (`zlab fault HOST tool NAME EXIT`): wrapped, not linked.
FAULTABLE = ("chzdev", "lszdev", "lsqeth", "znetconf", "cio_ignore", "chchp", "lscss")
OPT = "/opt/s390-tools"
KEY_VERSION = "1"

BINFMT_DIR = "/proc/sys/fs/binfmt_misc"
BINFMT_NAME = "qemu-s390x"
BINFMT_CONF = "/usr/lib/binfmt.d/qemu-s390x.conf"


def spec_key():
    """Changes when the releases, packages or the tree layout change (part of the image key)."""
    h = hashlib.sha256()
    for item in (
        [KEY_VERSION, TOOLS_PACKAGE, RUNTIME_RELEASE]
        + list(RUNTIME_PACKAGES)
        + ["%s=%s" % (r, ",".join(s)) for r, s in sorted(RELEASES.items())]
        + list(KEEP + SKIP)
    ):
        h.update(item.encode() + b"\0")
    return h.hexdigest()[:12]


def tree_path(cache_dir):
    return os.path.join(cache_dir, "s390-tools", "tree-" + spec_key())


def _apt_options(workdir, sources, arch="s390x"):
    """apt-get options for a private package index of ``arch`` under ``workdir``: the machine's own
    apt configuration (proxies) stays, its sources, status and architecture do not apply."""
    for d in ("state/lists/partial", "cache/archives/partial", "parts"):
        os.makedirs(os.path.join(workdir, d), exist_ok=True)
    status = os.path.join(workdir, "state", "status")
    open(status, "a", encoding="ascii").close()
    with open(os.path.join(workdir, "sources.list"), "w", encoding="ascii") as f:
        f.write(sources)
    return [
        "-q",
        "-o",
        "Dir::State=" + os.path.join(workdir, "state"),
        "-o",
        "Dir::State::status=" + status,
        "-o",
        "Dir::Cache=" + os.path.join(workdir, "cache"),
        "-o",
        "Dir::Etc::SourceList=" + os.path.join(workdir, "sources.list"),
        "-o",
        "Dir::Etc::SourceParts=" + os.path.join(workdir, "parts"),
        "-o",
        "APT::Architecture=" + arch,
        "-o",
        "APT::Architectures::=" + arch,
        "-o",
        "Acquire::Languages=none",
        "-o",
        "Debug::NoLocking=1",
        "-o",
        "APT::Sandbox::User=root",
    ]


def download(release, packages, dest, mirror, log=sys.stderr):
    """Download the s390x ``packages`` of a Debian ``release`` into ``dest``; returns the paths.
    Tries the release's suites in order."""
    errors = []
    for suite in RELEASES[release]:
        workdir = os.path.join(os.path.dirname(dest), "apt-" + suite)
        source = "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s %s main\n" % (mirror, suite)
        opts = _apt_options(workdir, source)
        shutil.rmtree(dest, ignore_errors=True)
        os.makedirs(dest)
        try:
            repo = debian_pool.LocalRepo(os.path.join(workdir, "fallback"))
            opts = debian_pool.resolve(
                opts, os.path.join(workdir, "sources.list"), source, packages, repo, log, command="download"
            )
        except RuntimeError as exc:
            errors.append("%s: %s" % (suite, exc))
            continue
        # resolve() left the index up to date for these options
        got = subprocess.run(
            ["apt-get"] + opts + ["download"] + list(packages), cwd=dest, capture_output=True, text=True, check=False
        )
        debs = sorted(glob.glob(os.path.join(dest, "*.deb")))
        if got.returncode == 0 and len(debs) == len(packages):
            print(
                "zlab: %s from %s: %s" % (release, suite, " ".join(os.path.basename(d) for d in debs)),
                file=log,
                flush=True,
            )
            return debs
        errors.append("%s: %s" % (suite, got.stderr.strip()[-500:]))
    raise RuntimeError("cannot download %s for s390x from %s:\n%s" % (" ".join(packages), mirror, "\n".join(errors)))


def _fold(path):
    """A package path on a merged-/usr system: /sbin, /bin and /lib live under /usr."""
    for top in ("sbin/", "bin/", "lib/"):
        if path.startswith(top):
            return "usr/" + path
    return path


def _kept(path):
    return path.startswith(KEEP) and not path.startswith(SKIP)


def unpack(debs, dest):
    """Unpack ``debs`` into ``dest`` with /sbin, /bin, /lib folded under usr/ and only the
    :data:`KEEP` paths kept; returns the package version of the first deb."""
    stage = dest + ".stage"
    version = None
    for deb in debs:
        shutil.rmtree(stage, ignore_errors=True)
        os.makedirs(stage)
        subprocess.run(["dpkg-deb", "-x", deb, stage], check=True)
        if version is None:
            version = subprocess.run(
                ["dpkg-deb", "-f", deb, "Version"], capture_output=True, text=True, check=True
            ).stdout.strip()
        for root, dirs, files in os.walk(stage):
            for name in files + [d for d in dirs if os.path.islink(os.path.join(root, d))]:
                src = os.path.join(root, name)
                rel = _fold(os.path.relpath(src, stage))
                if not _kept(rel):
                    continue
                dst = os.path.join(dest, rel)
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                if os.path.lexists(dst):
                    os.unlink(dst)
                os.rename(src, dst)
    shutil.rmtree(stage, ignore_errors=True)
    return version


def tree(cache_dir, mirror, log=sys.stderr):
    """The unpacked tree for the host images (built once per :func:`spec_key`)."""
    path = tree_path(cache_dir)
    if os.path.isfile(os.path.join(path, ".complete")):
        return path
    tmp = path + ".tmp-%d" % os.getpid()
    shutil.rmtree(tmp, ignore_errors=True)
    debdir = os.path.join(cache_dir, "s390-tools", "debs")
    unpack(download(RUNTIME_RELEASE, RUNTIME_PACKAGES, os.path.join(debdir, "runtime"), mirror, log), tmp)
    for release in sorted(RELEASES):
        dest = os.path.join(tmp, OPT.lstrip("/"), release)
        debs = download(release, [TOOLS_PACKAGE], os.path.join(debdir, release), mirror, log)
        version = unpack(debs, dest)
        with open(os.path.join(dest, "VERSION"), "w", encoding="ascii") as f:
            f.write(version + "\n")
    open(os.path.join(tmp, ".complete"), "w", encoding="ascii").close()
    shutil.rmtree(path, ignore_errors=True)
    os.rename(tmp, path)
    for old in glob.glob(os.path.join(cache_dir, "s390-tools", "tree-*")):
        if old != path:
            shutil.rmtree(old, ignore_errors=True)
    return path


def binfmt_registered():
    """True when s390x programs run here: qemu-s390x is registered and enabled with flag F."""
    try:
        with open(os.path.join(BINFMT_DIR, BINFMT_NAME), encoding="ascii") as f:
            text = f.read()
    except OSError:
        return False
    flags = [line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("flags:")]
    return text.startswith("enabled") and bool(flags) and "F" in flags[0]


def register_binfmt():
    """Register qemu-user-static's s390x interpreter with binfmt_misc (flag F) if it is not;
    mounts binfmt_misc when needed. Raises RuntimeError with what is missing."""
    if binfmt_registered():
        return False
    if not os.path.exists(os.path.join(BINFMT_DIR, "register")):
        subprocess.run(["mount", "-t", "binfmt_misc", "binfmt_misc", BINFMT_DIR], check=False)
    if not os.path.isfile(BINFMT_CONF):
        raise RuntimeError("%s is missing: install qemu-user-static (make zlab-deps)" % BINFMT_CONF)
    with open(BINFMT_CONF, encoding="ascii") as f:
        line = next((ln.strip() for ln in f if ln.startswith(":")), "")
    fields = line.split(":")
    if len(fields) < 8:
        raise RuntimeError("unexpected line in %s: %r" % (BINFMT_CONF, line))
    if "F" not in fields[7]:
        fields[7] += "F"
    if os.path.exists(os.path.join(BINFMT_DIR, BINFMT_NAME)):
        with open(os.path.join(BINFMT_DIR, BINFMT_NAME), "w", encoding="ascii") as f:
            f.write("-1")  # registered without F (or disabled): replace it
    with open(os.path.join(BINFMT_DIR, "register"), "w", encoding="ascii") as f:
        f.write(":".join(fields))
    if not binfmt_registered():
        raise RuntimeError("registering %s with binfmt_misc did not take" % BINFMT_NAME)
    return True
