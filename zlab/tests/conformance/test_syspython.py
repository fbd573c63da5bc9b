# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""``zlab_python``: the distribution's Python 3.6 of a RHEL 8 or SLES 15 host (zlab.syspython).

The model accepts it where the distribution has Python 3.6 and refuses it elsewhere, naming the host
and the allowed values; the 3.6 build is found on the controller; `zlab inventory` leaves the
interpreter to Ansible's discovery on such a host. With root, the built host image and a Python 3.6
build on this machine, the first stage's lines run for real on an overlay of the image (in a mount
namespace of their own, as a host's first stage does): what interpreter discovery finds on PATH,
the versions and prefixes of both interpreters, what Python 3.6 takes the distribution for."""

import json
import os
import shutil
import subprocess

import pytest

from zlab import hostinit, image, inventory, model, syspython
from zlab.errors import LabError

CPC = """cpc:
  name: X
  machine: z16
  partitions: [{name: P1, mif_id: 1, host: h1}]
  hipersockets:
    - {chpid: F1, frame_size: 64K, control_unit: F100, devices: {first: "7000", count: 3}, partitions: [P1]}
"""


def _load(tmp_path, host_vars):
    (tmp_path / "group_vars" / "all").mkdir(parents=True)
    (tmp_path / "hosts.yml").write_text("all:\n  hosts:\n    h1:\n")
    (tmp_path / "group_vars" / "all" / "cpc.yml").write_text(CPC)
    (tmp_path / "host_vars").mkdir()
    (tmp_path / "host_vars" / "h1.yml").write_text(host_vars)
    return model.load(str(tmp_path))


@pytest.fixture(autouse=True)
def _yaml_reader(monkeypatch):
    monkeypatch.setenv("ZLAB_NO_ANSIBLE_INVENTORY", "1")


@pytest.mark.parametrize("profile", ["rhel8.8", "sles15sp5", "sles15sp6"])
def test_python36_on_the_distributions_that_ship_it(tmp_path, profile):
    m = _load(tmp_path, 'zlab_kernel: %s\nzlab_python: "3.6"\n' % profile)
    assert m.hosts["h1"]["python"] == "3.6"
    # an unquoted 3.6 is YAML's float: the same choice
    m2 = _load(tmp_path / "f", "zlab_kernel: %s\nzlab_python: 3.6\n" % profile)
    assert m2.hosts["h1"]["python"] == "3.6"
    assert m2.digest() == m.digest()


def test_default_keeps_the_model_and_its_digest(tmp_path):
    plain = _load(tmp_path / "a", "zlab_kernel: rhel8.8\n")
    debian = _load(tmp_path / "b", "zlab_kernel: rhel8.8\nzlab_python: debian\n")
    py36 = _load(tmp_path / "c", 'zlab_kernel: rhel8.8\nzlab_python: "3.6"\n')
    assert "python" not in plain.hosts["h1"] and "python" not in debian.hosts["h1"]
    # a lab that is up from an inventory without zlab_python is not rebuilt by this change
    assert plain.digest() == debian.digest() != py36.digest()


@pytest.mark.parametrize(
    "host_vars, message",
    [
        ('zlab_kernel: rhel8.8\nzlab_python: "3.11"\n', "h1: zlab_python 3.11 not one of debian, 3.6"),
        (
            'zlab_kernel: rhel9.4\nzlab_python: "3.6"\n',
            "h1: zlab_python 3.6: Python 3.6 is the system Python of rhel8.8, sles15sp5, sles15sp6, "
            "not of kernel profile rhel9.4",
        ),
        (
            'zlab_python: "3.6"\n',
            "h1: zlab_python 3.6: Python 3.6 is the system Python of rhel8.8, sles15sp5, sles15sp6, "
            "not of kernel profile linux6.12",
        ),
        (
            'zlab_kernel: rhel8.8\nzlab_kind: debian13-s390x\nzlab_python: "3.6"\n',
            "h1: zlab_python 3.6 is for namespace hosts, not zlab_kind debian13-s390x",
        ),
    ],
)
def test_refused_where_there_is_no_python36(tmp_path, host_vars, message):
    with pytest.raises(model.ModelError) as err:
        _load(tmp_path, host_vars)
    assert str(err.value) == message


def _fake_build(root, version):
    prefix = root / "versions" / version
    (prefix / "bin").mkdir(parents=True)
    (prefix / "lib" / "python3.6").mkdir(parents=True)
    (prefix / "bin" / "python3.6").write_text("#!/bin/sh\n")
    (prefix / "bin" / "python3.6").chmod(0o755)
    (prefix / "lib" / "python3.6" / "os.py").write_text("")
    return str(prefix)


def test_find_build_takes_the_newest_pyenv_36(tmp_path):
    root = tmp_path / ".pyenv"
    _fake_build(root, "3.6.9")
    newest = _fake_build(root, "3.6.15")  # 15 > 9: by number, not by text
    _fake_build(root, "3.6.15-debug")  # not a 3.6.N release
    (root / "versions" / "3.7.17" / "bin").mkdir(parents=True)
    (root / "versions" / "3.6.20").mkdir()  # no interpreter in it: not a build
    assert syspython.find_build({"PYENV_ROOT": str(root)}) == newest
    assert syspython.find_build({"HOME": str(tmp_path)}) == newest  # ~/.pyenv


def test_find_build_honours_zlab_python36(tmp_path):
    given = _fake_build(tmp_path / "other", "3.6.8")
    _fake_build(tmp_path, "3.6.15")
    assert syspython.find_build({"ZLAB_PYTHON36": given, "PYENV_ROOT": str(tmp_path)}) == given
    with pytest.raises(LabError, match="ZLAB_PYTHON36=%s is not a Python 3.6 prefix" % (tmp_path / "nope")):
        syspython.find_build({"ZLAB_PYTHON36": str(tmp_path / "nope")})


def test_find_build_says_what_to_do_without_one(tmp_path):
    (tmp_path / "versions" / "3.11.7").mkdir(parents=True)
    with pytest.raises(LabError) as err:
        syspython.find_build({"HOME": str(tmp_path / "h"), "PYENV_ROOT": str(tmp_path)})
    assert "no Python 3.6 build on this machine" in str(err.value)
    assert "set ZLAB_PYTHON36 to its prefix" in str(err.value)


class _Lab:
    name = "t"

    def __init__(self, python):
        self.hosts = {"h1": {"ip": "10.209.9.10", "role": "lpar", "partition": "P1", "python": python}}

    @staticmethod
    def key_file():
        return "/var/lib/zlab/t/ssh/id_ed25519"


def test_inventory_leaves_the_interpreter_to_discovery():
    assert inventory.connection_vars(_Lab(None), "h1")["ansible_python_interpreter"] == "/usr/bin/python3"
    assert "ansible_python_interpreter" not in inventory.connection_vars(_Lab("3.6"), "h1")


def test_zlab_programs_name_their_interpreter():
    assert hostinit.ZLAB_PYTHON == syspython.ZLAB_PYTHON
    assert hostinit.WRAPPER.format(python=hostinit.ZLAB_PYTHON, name="lspci", module="lspci").startswith(
        "#!/usr/libexec/zlab/python3\n"
    )
    assert hostinit.REAL_WRAPPER.format(python=hostinit.ZLAB_PYTHON, name="x", version="2", real="/r").startswith(
        "#!/usr/libexec/zlab/python3\n"
    )


# ---------------------------------------------------------------------------------------------- real


def _real_parts():
    if os.geteuid() != 0 or not shutil.which("unshare"):
        pytest.skip("needs root (mount namespace, overlay)")
    if not image.is_built("base"):
        pytest.skip("the base host image is not built (zlab image build)")
    try:
        build = syspython.find_build()
    except LabError as exc:
        pytest.skip(str(exc))
    return image.image_path("base"), build


PROBE = r"""
for p in python3.12 python3.11 python3.10 python3.9 python3.8 python3.7 python3.6 /usr/bin/python3 \
         /usr/libexec/platform-python; do
  command -v "$p" || true
done
"""
PY = (
    "import json, os, sys, zlib, ctypes, ssl, platform; "
    "d = getattr(platform, 'dist', None); "
    "print(json.dumps([list(sys.version_info[:2]), sys.prefix, d() if d else None]))"
)


def _run_stage1(tmp_path, lower, lines, checks):
    """Mount an overlay of the image at R, run the stage-1 lines and then each check command in a
    chroot of R, all in one mount namespace; returns the checks' [rc, stdout]."""
    for d in ("upper", "work", "root"):
        (tmp_path / d).mkdir()
    script = "\n".join(
        [
            "set -e",
            'R="%s"' % (tmp_path / "root"),
            'mount -t overlay overlay -o lowerdir=%s,upperdir=%s,workdir=%s "$R"'
            % (lower, tmp_path / "upper", tmp_path / "work"),
        ]
        + lines
        + ["set +e"]
    )
    for i, argv in enumerate(checks):
        script += '\nchroot "$R" %s > "%s/out%d" 2>&1; echo $? > "%s/rc%d"' % (
            " ".join("'%s'" % a.replace("'", "'\\''") for a in argv),
            tmp_path,
            i,
            tmp_path,
            i,
        )
    subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script], check=True)
    return [
        [int((tmp_path / ("rc%d" % i)).read_text()), (tmp_path / ("out%d" % i)).read_text()] for i in range(len(checks))
    ]


def test_sles15_host_for_real(tmp_path):
    lower, build = _real_parts()
    lines = syspython.stage1(lower, "3.6", "sles15sp6", build)
    found, py3, zlab_py, version = _run_stage1(
        tmp_path,
        lower,
        lines,
        [
            ["/bin/sh", "-c", PROBE],
            ["/usr/bin/python3", "-c", PY],
            [syspython.ZLAB_PYTHON, "-c", PY + "; import mfusepy"],
            ["/bin/sh", "-c", "python3.6 -V; ls /etc/debian_version"],
        ],
    )
    # what interpreter discovery's `command -v` finds, in its order: python3.6 first, nothing newer
    assert found == [0, "/usr/bin/python3.6\n/usr/bin/python3\n"]
    # the distribution's python3 is 3.6 with /usr as its prefix; platform.dist() finds no Debian
    assert py3[0] == 0, py3[1]
    assert json.loads(py3[1]) == [[3, 6], "/usr", ["", "", ""]]
    # zlab's own programs keep Debian's Python (and its packages: the emulator's mfusepy)
    assert zlab_py[0] == 0, zlab_py[1]
    assert json.loads(zlab_py[1])[:2] == [[3, _debian_minor(lower)], "/usr"]
    assert version[0] != 0 and version[1].startswith("Python 3.6.") and "No such file" in version[1]


def test_rhel8_host_for_real(tmp_path):
    lower, build = _real_parts()
    lines = syspython.stage1(lower, "3.6", "rhel8.8", build)
    found, platform_python = _run_stage1(
        tmp_path, lower, lines, [["/bin/sh", "-c", PROBE], ["/usr/libexec/platform-python", "-c", PY]]
    )
    newest = "/usr/bin/python3.%d" % _debian_minor(lower)
    # RHEL 8: discovery takes platform-python by its table; Debian's python3 stays (as an AppStream one)
    assert found == [0, "%s\n/usr/bin/python3\n/usr/libexec/platform-python\n" % newest]
    assert platform_python[0] == 0, platform_python[1]
    assert json.loads(platform_python[1])[:2] == [[3, 6], "/usr"]


def test_default_host_for_real(tmp_path):
    lower, _build = _real_parts()
    lines = syspython.stage1(lower)
    assert all("python3.6" not in line for line in lines)
    found, zlab_py = _run_stage1(tmp_path, lower, lines, [["/bin/sh", "-c", PROBE], [syspython.ZLAB_PYTHON, "-c", PY]])
    assert found == [0, "/usr/bin/python3.%d\n/usr/bin/python3\n" % _debian_minor(lower)]
    assert json.loads(zlab_py[1])[:2] == [[3, _debian_minor(lower)], "/usr"]


def _debian_minor(lower):
    return int(syspython.image_python(lower).rsplit(".", 1)[1])
