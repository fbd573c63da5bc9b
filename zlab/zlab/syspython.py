# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Python of a host's distribution (inventory variable ``zlab_python``).

Every host image runs Debian 12's Python 3.11 as ``/usr/bin/python3``. RHEL 8 and SLES 15 ship
Python 3.6 as their system Python, and Ansible's interpreter discovery finds it there: on RHEL 8
``/usr/libexec/platform-python`` (ansible-core's table for ``redhat`` 8), on SLES 15 the first of
its fallback list that exists (``python3.12`` ... ``python3.6``, then ``/usr/bin/python3``), which
on a SLES 15 base is ``/usr/bin/python3.6``. ``zlab_python: "3.6"`` gives a host of such a profile
that interpreter: a Python 3.6 build of the controller (``$ZLAB_PYTHON36``, else the newest
3.6.x of pyenv), mounted read-only where the distribution has it, with ``/usr`` as its prefix:

- ``/usr/lib/python3.6`` the standard library (its ``site-packages`` a tmpfs: empty at boot but
  for zlab's ``os.uname()`` hook), ``/usr/lib/libpython3.6m.so.1.0`` the shared library of a
  ``--enable-shared`` build (``/usr/lib`` is on the image's default library path);
- ``rhel8.8``: ``/usr/libexec/platform-python3.6`` and the link ``platform-python`` to it;
  ``/usr/bin/python3`` stays Debian's (as a RHEL 8 with an AppStream python3.11 selected);
- ``sles15sp5``, ``sles15sp6``: ``/usr/bin/python3.6`` and ``/usr/bin/python3`` -> ``python3.6``;
  the image's newer ``/usr/bin/python3.N`` are removed from the host's root, so that no newer
  ``python3.N`` is on PATH, as on a SLES 15 base;
- the image's ``/etc/debian_version`` is removed: discovery asks the first Python it finds for
  the distribution, and Python 3.6's ``platform.dist()`` reads the first ``/etc/*_version`` or
  ``*-release`` file of a known distribution, so a SLES host would be taken for Debian (and be
  given ``/usr/bin/python3`` by the ``debian`` entry of the table). A real SLES 15 has no such file
  (``platform.dist()`` is empty there and ``/etc/os-release`` decides), RHEL 8 ``redhat-release``.

zlab's own programs in a host (hostinit, the device emulator, the tool wrappers, the fault
passthrough) keep Debian's Python by absolute path, :data:`ZLAB_PYTHON`, outside PATH (on every
host, whatever its ``zlab_python``): the image's interpreter bind-mounted read-only.
"""

import glob
import os
import re
import shlex

from .errors import LabError

# Debian's python3 of the image for zlab's programs in every host: not on PATH, so interpreter
# discovery never sees it (its prefix is found from /usr/lib/python3.N above it).
ZLAB_PYTHON = "/usr/libexec/zlab/python3"
DEFAULT = "debian"
CHOICES = (DEFAULT, "3.6")
STDLIB = "/usr/lib/python3.6"
SITE = STDLIB + "/site-packages"
LIBPYTHON = "libpython3.6m.so.1.0"
LIBDIR = "/usr/lib"

# Where each distribution has its Python 3.6: the program, the links to it, and whether the
# image's newer python3.N leave PATH (a SLES 15 base has no newer one; discovery would take it).
# Files of the Debian image that Python 3.6 takes for the distribution's identity (platform.dist()).
DEBIAN_IDENTITY = ("/etc/debian_version",)
LAYOUTS = {
    "rhel8.8": {
        "program": "/usr/libexec/platform-python3.6",
        "links": {"/usr/libexec/platform-python": "platform-python3.6"},
        "interpreter": "/usr/libexec/platform-python",
        "hide_newer": False,
    },
    "sles15sp5": {
        "program": "/usr/bin/python3.6",
        "links": {"/usr/bin/python3": "python3.6"},
        "interpreter": "/usr/bin/python3.6",
        "hide_newer": True,
    },
    "sles15sp6": {
        "program": "/usr/bin/python3.6",
        "links": {"/usr/bin/python3": "python3.6"},
        "interpreter": "/usr/bin/python3.6",
        "hide_newer": True,
    },
}


def check(name, value, profile, kind=None):
    """The host's ``zlab_python`` as stored in the model (None for the default); ``ValueError``
    with a message naming the host and the allowed values otherwise."""
    if value is None or value == DEFAULT:
        return None
    value = str(value)
    if value not in CHOICES:
        raise ValueError("%s: zlab_python %s not one of %s" % (name, value, ", ".join(CHOICES)))
    if kind:
        raise ValueError("%s: zlab_python %s is for namespace hosts, not zlab_kind %s" % (name, value, kind))
    if profile not in LAYOUTS:
        raise ValueError(
            "%s: zlab_python %s: Python 3.6 is the system Python of %s, not of kernel profile %s"
            % (name, value, ", ".join(sorted(LAYOUTS)), profile)
        )
    return value


def layout(profile):
    """The layout of the profile's Python 3.6 (a copy of :data:`LAYOUTS`' entry, with ``site``)."""
    out = dict(LAYOUTS[profile])
    out["links"] = dict(out["links"])
    out["site"] = SITE
    return out


def _version_key(path):
    return tuple(int(x) for x in re.findall(r"\d+", os.path.basename(path)))


def is_build(prefix):
    """A Python 3.6 installation prefix: bin/python3.6 and the standard library."""
    return os.access(os.path.join(prefix, "bin", "python3.6"), os.X_OK) and os.path.isfile(
        os.path.join(prefix, "lib", "python3.6", "os.py")
    )


def find_build(environ=None):
    """The prefix of the controller's Python 3.6 build: ``$ZLAB_PYTHON36``, else the newest
    ``versions/3.6.*`` of pyenv (``$PYENV_ROOT``, else ``~/.pyenv``). LabError when none is."""
    environ = os.environ if environ is None else environ
    given = environ.get("ZLAB_PYTHON36")
    if given:
        if not is_build(given):
            raise LabError("ZLAB_PYTHON36=%s is not a Python 3.6 prefix (no bin/python3.6 and lib/python3.6)" % given)
        return os.path.abspath(given)
    root = environ.get("PYENV_ROOT") or os.path.join(environ.get("HOME") or os.path.expanduser("~"), ".pyenv")
    found = [
        p for p in glob.glob(os.path.join(root, "versions", "3.6.*")) if re.fullmatch(r"3\.6\.\d+", os.path.basename(p))
    ]
    for prefix in sorted(found, key=_version_key, reverse=True):
        if is_build(prefix):
            return prefix
    raise LabError(
        "zlab_python 3.6: no Python 3.6 build on this machine (looked for %s/versions/3.6.*); "
        "install one (pyenv install 3.6.15) or set ZLAB_PYTHON36 to its prefix" % root
    )


def image_python(lower):
    """The image's Debian interpreter ``/usr/bin/python3.N`` (what its python3 link names)."""
    target = os.readlink(os.path.join(lower, "usr", "bin", "python3"))
    name = os.path.basename(target)
    if not re.fullmatch(r"python3\.\d+", name):
        raise LabError("image %s: /usr/bin/python3 -> %s is not a python3.N" % (lower, target))
    return "/usr/bin/" + name


def newer_pythons(lower):
    """The image's /usr/bin/python3.N with N > 6, as host paths."""
    out = []
    for path in glob.glob(os.path.join(lower, "usr", "bin", "python3.*")):
        m = re.fullmatch(r"python3\.(\d+)", os.path.basename(path))
        if m and int(m.group(1)) > 6:
            out.append("/usr/bin/" + os.path.basename(path))
    return sorted(out, key=_version_key)


def _mount_file(src, dst):
    """Shell lines: bind-mount the file src read-only at dst of the host root ($R)."""
    d = shlex.quote(dst)
    return [
        'mkdir -p "$R"%s' % shlex.quote(os.path.dirname(dst)),
        '[ -e "$R"%s ] || : > "$R"%s' % (d, d),
        'mount -o bind,ro %s "$R"%s' % (shlex.quote(src), d),
    ]


def stage1(lower, python=None, profile=None, build=None):
    """Shell lines for the host's first stage (``$R`` = its root, before pivot_root): zlab's own
    interpreter for every host, and with ``python`` "3.6" the profile's Python 3.6 from ``build``."""
    lines = ["# zlab's own interpreter (zlab.syspython)"] + _mount_file(lower + image_python(lower), ZLAB_PYTHON)
    if python is None:
        return lines
    lay = LAYOUTS[profile]
    q = shlex.quote
    lines.append("# the distribution's Python 3.6 (zlab_python)")
    lines.append('mkdir -p "$R"%s' % q(STDLIB))
    lines.append('mount -o bind,ro %s "$R"%s' % (q(os.path.join(build, "lib", "python3.6")), q(STDLIB)))
    lines.append('mount -t tmpfs -o mode=755,size=16m tmpfs "$R"%s' % q(SITE))
    lib = os.path.join(build, "lib", LIBPYTHON)
    if os.path.exists(lib):  # a --enable-shared build (pyenv's): its RUNPATH is not in the host
        lines += _mount_file(lib, LIBDIR + "/" + LIBPYTHON)
    lines += _mount_file(os.path.join(build, "bin", "python3.6"), lay["program"])
    for link, target in sorted(lay["links"].items()):
        lines.append('ln -sfn %s "$R"%s' % (q(target), q(link)))
    for path in DEBIAN_IDENTITY:
        lines.append('rm -f "$R"%s' % q(path))
    if lay["hide_newer"]:
        for path in newer_pythons(lower):
            lines.append('rm -f "$R"%s' % q(path))
    return lines
