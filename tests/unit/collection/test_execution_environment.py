# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The execution environment of execution-environment.yml, as far as it can be checked without a
container runtime: `ansible-builder create` makes a build context from the definition and the
collection tarball of this tree; the steps of the image build that matter here are then replayed
outside a container: the galaxy stage (ansible-galaxy installs the collection from the context's
requirements file, without Galaxy), the builder stage's introspection (the Python and bindep
requirements of the definition and of the installed collection, as bindep sees the Debian base),
the package manager wrapper the build calls on Debian (scripts/ee-pkgmgr.sh, run with stand-ins
for apt-get), and every module's documentation rendered from the installed copy. The image
itself is built and run (site.yml from inside it against the lab) by `make test-ee`
(scripts/ee-test.sh).

test_context_installs_the_collection_of_this_tree runs offline with the ansible-core of .venv.
test_clean_venv_installs_the_context_requirements also installs the context's Python
requirements and the EE's ansible-core and ansible-runner into a fresh venv of the base image's
Python version with pip, which needs the package index: by the network rule of
docs/contributing.md it only runs when S390X_NETWORK_EE_PIP=1 is set.
"""

from __future__ import annotations

import filecmp
import glob
import json
import os
import re
import subprocess
import sys

import pytest
import yaml

from bindep.depends import Depends
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import Version

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
BIN = os.path.dirname(sys.executable)
MODULES = sorted(
    name[:-3]
    for name in os.listdir(os.path.join(REPO, "plugins", "modules"))
    if name.endswith(".py") and not name.startswith("_")
)
# the EE's base image (Debian 12, scripts/ee-base-image.sh) as bindep sees it, and an RPM-based
# controller that installs bindep.txt itself; bindep.txt must give them these packages
DEBIAN_PROFILES = ["default", "platform:dpkg", "platform:debian", "platform:debian-12"]
RPM_PROFILES = ["default", "platform:rpm", "platform:redhat", "platform:fedora"]
BASE_IMAGE = "localhost/s390x-network-ee-base:bookworm"
# the base's Python (Debian 12)
BASE_PYTHON = "3.11"
PKGMGR = "/usr/local/sbin/ee-pkgmgr"
# libvirt_device runs on the KVM host and imports the libvirt bindings there, not in the EE
HOST_SIDE_PYTHON = {"libvirt-python", "libvirt"}
PIP_OPT_IN = "S390X_NETWORK_EE_PIP"


def _read(*parts):
    with open(os.path.join(REPO, *parts)) as handle:
        return handle.read()


def _read_file(path):
    with open(path) as handle:
        return handle.read()


def _run(argv, **kwargs):
    proc = subprocess.run(argv, capture_output=True, text=True, check=False, **kwargs)
    assert proc.returncode == 0, "%s failed (%s):\n%s\n%s" % (" ".join(argv), proc.returncode, proc.stdout, proc.stderr)
    return proc


def _working_tree_copy(dest):
    """The files of the working tree that git would commit (tracked and new, not ignored)."""
    files = _run(["git", "-C", REPO, "ls-files", "-z", "--cached", "--others", "--exclude-standard"]).stdout
    for rel in files.split("\0"):
        if rel and os.path.isfile(os.path.join(REPO, rel)):
            target = os.path.join(dest, rel)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(os.path.join(REPO, rel), "rb") as src, open(target, "wb") as out:
                out.write(src.read())


def _ansible_env(tmp):
    """Ansible sees only what the test installs: no ansible.cfg, collections path or ANSIBLE_HOME
    of the working tree or the user."""
    cfg = os.path.join(tmp, "ansible.cfg")
    with open(cfg, "w") as handle:
        handle.write("[defaults]\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANSIBLE_")}
    env.update(
        ANSIBLE_CONFIG=cfg,
        ANSIBLE_HOME=os.path.join(tmp, "ansible-home"),
        ANSIBLE_NOCOLOR="1",
        ANSIBLE_FORCE_COLOR="0",
        ANSIBLE_COLLECTIONS_SCAN_SYS_PATH="False",
    )
    return env


@pytest.fixture(scope="module")
def ee(tmp_path_factory):
    """The build context of the EE: tarball built from a copy of the working tree (where
    `make build` writes it, next to execution-environment.yml), then `ansible-builder create`."""
    tmp = tmp_path_factory.mktemp("ee")
    src = str(tmp / "src")
    _working_tree_copy(src)
    version = yaml.safe_load(_read("galaxy.yml"))["version"]
    tarball = os.path.join(src, "s390x-network-%s.tar.gz" % version)
    _run(
        [os.path.join(BIN, "ansible-galaxy"), "collection", "build", "--output-path", src, src],
        env=_ansible_env(str(tmp)),
    )
    assert os.path.isfile(tarball)
    context = str(tmp / "context")
    builder = os.path.join(BIN, "ansible-builder")
    assert os.path.exists(builder), "ansible-builder is pinned in requirements-dev.txt: run make venv"
    _run(
        [
            builder,
            "create",
            "-f",
            os.path.join(src, "execution-environment.yml"),
            "-c",
            context,
            "--output-filename",
            "Containerfile",
        ]
    )
    return {
        "tmp": str(tmp),
        "tarball": tarball,
        "context": context,
        "build": os.path.join(context, "_build"),
        "version": version,
    }


def _check_context(ee):
    build = ee["build"]
    with open(os.path.join(ee["context"], "Containerfile")) as handle:
        containerfile = handle.read().splitlines()
    # galaxy stage: the context's _build is /build, and ansible-galaxy installs from it
    assert "COPY _build /build" in containerfile and "WORKDIR /build" in containerfile
    assert any(
        re.match(r"RUN .*ansible-galaxy collection install .*-r requirements\.yml", line) for line in containerfile
    ), containerfile
    # builder stage: the definition's Python and bindep files are combined with the collections'
    assert "COPY _build/requirements.txt requirements.txt" in containerfile
    assert "COPY _build/bindep.txt bindep.txt" in containerfile
    assert any(
        "introspect.py introspect --user-pip=requirements.txt --user-bindep=bindep.txt" in line
        for line in containerfile
    ), containerfile
    # the local Debian base, its pip (no ensurepip step) and the apt wrapper as the package
    # manager, copied into the base stage that every later stage starts from
    assert 'ARG EE_BASE_IMAGE="%s"' % BASE_IMAGE in containerfile
    assert 'ARG PKGMGR="%s"' % PKGMGR in containerfile
    assert not [line for line in containerfile if "pip_install" in line], containerfile
    stages = [i for i, line in enumerate(containerfile) if line.startswith("FROM ")]
    assert containerfile[stages[0]] == "FROM $EE_BASE_IMAGE AS base"
    base_stage = containerfile[stages[0] : stages[1]]
    copy = base_stage.index("COPY _build/pkgmgr/ee-pkgmgr.sh %s" % PKGMGR)
    # executable whatever mode the checkout gave the file
    assert base_stage[copy + 1] == "RUN chmod 0755 %s" % PKGMGR, base_stage
    assert _read_file(os.path.join(build, "pkgmgr", "ee-pkgmgr.sh")) == _read("scripts", "ee-pkgmgr.sh")

    with open(os.path.join(build, "requirements.yml")) as handle:
        galaxy = yaml.safe_load(handle)
    tarball_name = os.path.basename(ee["tarball"])
    # only the tarball of this tree: nothing from Galaxy
    assert galaxy == {"collections": [{"name": "collections/" + tarball_name, "type": "file"}]}
    assert filecmp.cmp(os.path.join(build, "collections", tarball_name), ee["tarball"], shallow=False)
    assert _read_file(os.path.join(build, "requirements.txt")) == _read("requirements.txt")
    assert _read_file(os.path.join(build, "bindep.txt")) == _read("bindep.txt")


def _install_from_context(ee, bindir, dest, env):
    """The galaxy stage: ansible-galaxy in _build (the image's /build) with the context's file."""
    _run(
        [os.path.join(bindir, "ansible-galaxy"), "collection", "install", "-r", "requirements.yml", "-p", dest],
        cwd=ee["build"],
        env=env,
    )
    installed = os.path.join(dest, "ansible_collections", "s390x", "network")
    with open(os.path.join(installed, "MANIFEST.json")) as handle:
        manifest = json.load(handle)
    assert manifest["collection_info"]["version"] == ee["version"]
    return installed


def _introspect(ee, collections, python):
    """The builder stage's introspection: the Python and system requirements the image installs."""
    out = os.path.join(os.path.dirname(collections), "introspected")
    build = ee["build"]
    _run(
        [
            python,
            os.path.join(build, "scripts", "introspect.py"),
            "introspect",
            collections,
            "--user-pip=" + os.path.join(build, "requirements.txt"),
            "--user-bindep=" + os.path.join(build, "bindep.txt"),
            "--write-pip=" + os.path.join(out, "requirements.txt"),
            "--write-bindep=" + os.path.join(out, "bindep.txt"),
        ]
    )
    pip_reqs = os.path.join(out, "requirements.txt")
    # introspect.py writes no file when nothing is required
    lines = _read_file(pip_reqs).splitlines() if os.path.exists(pip_reqs) else []
    names = {Requirement(line.split("#")[0]).name.lower() for line in lines if line.split("#")[0].strip()}
    assert not names & HOST_SIDE_PYTHON, names
    bindep = Depends(_read_file(os.path.join(out, "bindep.txt")))
    assert set(bindep.list_all_packages(bindep.active_rules(DEBIAN_PROFILES))) == {"graphviz", "openssh-client"}
    assert set(bindep.list_all_packages(bindep.active_rules(RPM_PROFILES))) == {"graphviz", "openssh-clients"}
    return pip_reqs if lines else None


def _check_module_docs(bindir, collections, installed, env, cwd):
    """Every module of plugins/modules renders with ansible-doc from the installed copy."""
    env = dict(env, ANSIBLE_COLLECTIONS_PATH=collections)
    assert "iocp" in MODULES and "libvirt_device" in MODULES, MODULES
    failures = {}
    for module in MODULES:
        name = "s390x.network." + module
        proc = subprocess.run(
            [os.path.join(bindir, "ansible-doc"), "-t", "module", name],
            capture_output=True,
            text=True,
            check=False,
            env=env,
            cwd=cwd,
        )
        path = os.path.join(installed, "plugins", "modules", module + ".py")
        # the header of newer cores ("> MODULE name (path)") and of older ones ("> NAME    (path)")
        headers = ("> MODULE %s (%s)" % (name, path), "> %s    (%s)" % (name.upper(), path))
        out = proc.stdout
        # ansible-doc exits 0 with a warning when it cannot find or render a module
        if (
            proc.returncode
            or proc.stderr.strip()
            or not out.startswith(headers)
            or "EXAMPLES:" not in out
            or "RETURN VALUES:" not in out
        ):
            failures[name] = (proc.returncode, out[:300], proc.stderr[-1000:])
    assert failures == {}


@pytest.mark.slow
def test_context_installs_the_collection_of_this_tree(ee):
    _check_context(ee)
    env = _ansible_env(ee["tmp"])
    collections = os.path.join(ee["tmp"], "offline-collections")
    installed = _install_from_context(ee, BIN, collections, env)
    _introspect(ee, collections, sys.executable)
    _check_module_docs(BIN, collections, installed, env, ee["tmp"])


def _base_python():
    """An interpreter of the base image's Python version on this machine (pyenv or PATH)."""
    found = sorted(glob.glob("/root/.pyenv/versions/%s*/bin/python%s" % (BASE_PYTHON, BASE_PYTHON)))
    for candidate in found + ["/usr/bin/python" + BASE_PYTHON]:
        if os.access(candidate, os.X_OK):
            return candidate
    return None


@pytest.mark.slow
@pytest.mark.skipif(
    os.environ.get(PIP_OPT_IN) != "1", reason="installs from the package index; set %s=1 to run it" % PIP_OPT_IN
)
def test_clean_venv_installs_the_context_requirements(ee):
    """What the image's Python gets: the introspected requirements plus the definition's
    ansible-core and ansible-runner, in a venv of the base's Python version with nothing else."""
    _check_context(ee)
    python = _base_python()
    if python is None:
        pytest.skip("no Python %s on this machine" % BASE_PYTHON)
    deps = yaml.safe_load(_read("execution-environment.yml"))["dependencies"]
    pins = [deps["ansible_core"]["package_pip"], deps["ansible_runner"]["package_pip"]]

    tmp = os.path.join(ee["tmp"], "clean")
    os.makedirs(tmp)
    venv = os.path.join(tmp, "venv")
    _run([python, "-m", "venv", venv])
    vbin = os.path.join(venv, "bin")
    _run([os.path.join(vbin, "python"), "-m", "pip", "install", "-q"] + pins)
    env = _ansible_env(tmp)
    collections = os.path.join(tmp, "collections")
    installed = _install_from_context(ee, vbin, collections, env)
    pip_reqs = _introspect(ee, collections, os.path.join(vbin, "python"))
    _run([os.path.join(vbin, "python"), "-m", "pip", "install", "-q"] + pins + (["-r", pip_reqs] if pip_reqs else []))
    _run([os.path.join(vbin, "python"), "-m", "pip", "check"])
    _check_module_docs(vbin, collections, installed, env, tmp)


def test_definition_pins_a_core_the_collection_supports():
    """The EE's ansible-core and ansible-runner are exact versions, the collection declares
    support for that ansible-core (meta/runtime.yml), and that core still manages Python 3.6 hosts."""
    deps = yaml.safe_load(_read("execution-environment.yml"))["dependencies"]
    core = Requirement(deps["ansible_core"]["package_pip"])
    runner = Requirement(deps["ansible_runner"]["package_pip"])
    assert core.name == "ansible-core" and runner.name == "ansible-runner"
    for req in (core, runner):
        (spec,) = list(req.specifier)
        assert spec.operator == "==" and re.fullmatch(r"\d+\.\d+\.\d+", spec.version), str(req)
    core_version = next(iter(core.specifier)).version
    requires = yaml.safe_load(_read("meta", "runtime.yml"))["requires_ansible"]
    assert SpecifierSet(requires).contains(core_version), (requires, core_version)
    # the EE manages hosts whose only Python is 3.6 (RHEL 8, SLES 15): ansible-core 2.17 and
    # newer no longer run modules with it
    assert Version(core_version) < Version("2.17"), core_version
    assert deps["python_interpreter"]["python_path"] == "/usr/bin/python3"


@pytest.mark.skipif(_base_python() is None, reason="no Python %s on this machine" % BASE_PYTHON)
def test_controller_side_code_compiles_with_the_base_python(tmp_path):
    """The EE runs the filters, plugin_utils and the iocp module (on localhost) with the base's
    Python 3.11: every plugin file compiles with that version."""
    files = sorted(glob.glob(os.path.join(REPO, "plugins", "**", "*.py"), recursive=True))
    assert os.path.join(REPO, "plugins", "modules", "iocp.py") in files
    script = (
        "import sys\n"
        "bad = []\n"
        "for name in sys.argv[1:]:\n"
        "    with open(name, encoding='utf-8') as handle:\n"
        "        try:\n"
        "            compile(handle.read(), name, 'exec')\n"
        "        except SyntaxError as exc:\n"
        "            bad.append('%s:%s: %s' % (name, exc.lineno, exc.msg))\n"
        "print('\\n'.join(bad))\n"
        "sys.exit(1 if bad else 0)\n"
    )
    proc = subprocess.run([_base_python(), "-c", script] + files, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _pkgmgr(tmp_path, *args, apt_status=0):
    """Runs scripts/ee-pkgmgr.sh with stand-ins for apt-get and rm that log their arguments."""
    fake = tmp_path / "bin"
    fake.mkdir(exist_ok=True)
    log = tmp_path / "calls.log"
    for tool in ("apt-get", "rm"):
        path = fake / tool
        path.write_text(
            '#!/bin/sh\nprintf "%%s|%%s\\n" "$DEBIAN_FRONTEND" "%s $*" >> "%s"\n'
            'case "$1" in install) exit %d ;; esac\n' % (tool, log, apt_status)
        )
        path.chmod(0o755)
    env = dict(os.environ, PATH="%s:%s" % (fake, os.environ["PATH"]))
    env.pop("DEBIAN_FRONTEND", None)
    proc = subprocess.run(
        ["/bin/sh", os.path.join(REPO, "scripts", "ee-pkgmgr.sh")] + list(args),
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    calls = log.read_text().splitlines() if log.exists() else []
    log.unlink(missing_ok=True)
    return proc, calls


def test_pkgmgr_installs_with_apt(tmp_path):
    # ansible-builder's install-from-bindep: `$PKGMGR install -y $PKGMGR_OPTS $PACKAGES`
    proc, calls = _pkgmgr(tmp_path, "install", "-y", "graphviz", "openssh-client")
    assert proc.returncode == 0, proc.stderr
    assert calls == [
        "noninteractive|apt-get update -qq",
        "noninteractive|apt-get install -y -qq --no-install-recommends graphviz openssh-client",
    ]
    # dnf options, also `--setopt NAME=VALUE`, are not packages
    proc, calls = _pkgmgr(tmp_path, "install", "-y", "--nodocs", "--setopt", "install_weak_deps=0", "graphviz")
    assert proc.returncode == 0, proc.stderr
    assert calls[-1] == "noninteractive|apt-get install -y -qq --no-install-recommends graphviz"
    # nothing to install: apt is not called
    proc, calls = _pkgmgr(tmp_path, "install", "-y")
    assert proc.returncode == 0 and calls == []


def test_pkgmgr_fails_with_apt_and_on_unknown_commands(tmp_path):
    proc, calls = _pkgmgr(tmp_path, "install", "-y", "graphviz", apt_status=100)
    assert proc.returncode != 0
    assert calls[-1].endswith("apt-get install -y -qq --no-install-recommends graphviz")
    for command in (["remove", "graphviz"], []):
        proc, calls = _pkgmgr(tmp_path, *command)
        assert proc.returncode == 2 and calls == []
        assert "ee-pkgmgr: unsupported command '%s' (install, clean)" % (command[0] if command else "") in proc.stderr


def test_pkgmgr_clean_removes_the_package_lists(tmp_path):
    # assemble and install-from-bindep end with `$PKGMGR clean all`
    proc, calls = _pkgmgr(tmp_path, "clean", "all")
    assert proc.returncode == 0, proc.stderr
    assert calls[0] == "|apt-get clean"
    assert len(calls) == 2 and calls[1].startswith("|rm -rf /var/lib/apt/lists/"), calls
