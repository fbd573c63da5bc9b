# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The QEMU that boots Debian's Linux 7.x: Debian 12's backport of QEMU 10, unpacked, not installed.

Under Debian 12's own ``qemu-system-s390x`` (QEMU 7.2, TCG) Debian's 7.2.11 kernel takes an Oops
at the root file system's first ``fsync`` and panics (README, "Linux 7.x"); QEMU 10.0.2 boots it.
Installing the backport would replace the machine's QEMU for everything else (libvirt, the 6.12
hosts), so its two packages (the program and its firmware, ``s390-ccw.img``) are unpacked into
``<ZLAB_CACHE_DIR>/qemu/<version>/`` and named on the host's command line with ``-L``. The
backport links only libraries of Debian 12; a library it misses is reported, not worked around.
"""

import glob
import os
import shutil
import subprocess
import sys

from . import debian_pool, image, s390tools

SUITE = "bookworm-backports"
VERSION = "1:10.0.2+ds-2+deb13u1~bpo12+1"
PACKAGES = (("qemu-system-s390x", "amd64"), ("qemu-system-data", "all"))
PROGRAM = "usr/bin/qemu-system-s390x"
DATADIR = "usr/share/qemu"


def cache_path(cache_dir=None):
    return os.path.join(cache_dir or image.CACHE_DIR, "qemu", VERSION.split(":", 1)[-1].replace("~", "_"))


def paths(cache_dir=None):
    """(program, firmware directory) of the unpacked QEMU; it need not be there yet."""
    path = cache_path(cache_dir)
    return os.path.join(path, PROGRAM), os.path.join(path, DATADIR)


def _ready(path):
    return os.path.isfile(os.path.join(path, ".zlab-qemu"))


def _download(workdir, mirror, log):
    """The two packages of :data:`VERSION` into ``workdir``/debs: from the signed index, else from
    the pool (a version the index no longer lists)."""
    debs = os.path.join(workdir, "debs")
    os.makedirs(debs)
    source = "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s %s main\n" % (mirror, SUITE)
    opts = s390tools._apt_options(
        os.path.join(workdir, "apt"), source, arch="amd64"
    )  # pylint: disable=protected-access
    image.run_step(["apt-get"] + opts + ["update"], "QEMU: apt-get update", log)
    debian_pool.download_pinned(opts, mirror + "/pool/main/q/qemu", PACKAGES, VERSION, debs, log)
    return sorted(glob.glob(os.path.join(debs, "*.deb")))


def not_found(ldd_output):
    """The libraries of ldd's "<name> => not found" lines."""
    return sorted(
        line.split("=>")[0].strip() for line in ldd_output.splitlines() if line.rstrip().endswith("=> not found")
    )


def unresolved_libraries(program):
    """The shared libraries ``program`` needs that the machine lacks."""
    return not_found(subprocess.run(["ldd", program], capture_output=True, text=True, check=False).stdout)


def ensure(cache_dir=None, log=sys.stderr):
    """The unpacked QEMU's (program, firmware directory), fetched on first use."""
    path = cache_path(cache_dir)
    if not _ready(path):
        with image.locked(path):
            if not _ready(path):
                _fetch(path, log)
    return paths(cache_dir)


def _fetch(path, log):
    mirror, _security = image.machine_mirrors()
    tmp = path + ".tmp-%d" % os.getpid()
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    try:
        for deb in _download(tmp, mirror, log):
            image.run_step(
                ["dpkg-deb", "-x", deb, os.path.join(tmp, "root")], "QEMU: unpack " + os.path.basename(deb), log
            )
        root = os.path.join(tmp, "root")
        program = os.path.join(root, PROGRAM)
        if not os.path.isfile(os.path.join(root, DATADIR, "s390-ccw.img")):
            raise RuntimeError("QEMU %s: its packages have no s390-ccw.img" % VERSION)
        missing = unresolved_libraries(program)
        if missing:
            raise RuntimeError(
                "QEMU %s of %s needs libraries this machine lacks: %s" % (VERSION, SUITE, ", ".join(missing))
            )
        version = subprocess.run([program, "--version"], capture_output=True, text=True, check=True).stdout
        with open(os.path.join(root, ".zlab-qemu"), "w", encoding="utf-8") as f:
            f.write(version)
        shutil.rmtree(path, ignore_errors=True)
        os.rename(root, path)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("zlab: %s" % version.splitlines()[0], file=log, flush=True)
