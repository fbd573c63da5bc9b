# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The execution environment of execution-environment.yml, as far as it can be checked without a
container runtime: `ansible-builder create` makes a build context from the definition and the
collection tarball of this tree; the steps of the image build that matter here are then replayed
outside a container: the galaxy stage (ansible-galaxy installs the collection from the context's
requirements file, without Galaxy), the builder stage's introspection (the Python and bindep
requirements of the definition and of the installed collection), and every module's
documentation rendered from the installed copy.

test_context_installs_the_collection_of_this_tree runs offline with the ansible-core of .venv.
test_clean_venv_installs_the_context_requirements also installs the context's Python
requirements and ansible-core into a fresh venv with pip, which needs the package index: by the
network rule of docs/contributing.md it only runs when S390X_NETWORK_EE_PIP=1 is set.
"""

from __future__ import annotations

import filecmp
import json
import os
import re
import subprocess
import sys

import pytest
import yaml

from bindep.depends import Depends
from packaging.requirements import Requirement

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
BIN = os.path.dirname(sys.executable)
MODULES = sorted(
    name[:-3]
    for name in os.listdir(os.path.join(REPO, "plugins", "modules"))
    if name.endswith(".py") and not name.startswith("_")
)
# the EE's base image (Fedora) as bindep sees it; bindep.txt must give it these packages
FEDORA_PROFILES = ["default", "platform:rpm", "platform:redhat", "platform:fedora"]
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
    assert set(bindep.list_all_packages(bindep.active_rules(FEDORA_PROFILES))) == {"graphviz", "openssh-clients"}
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
        header = "> MODULE %s (%s)" % (name, os.path.join(installed, "plugins", "modules", module + ".py"))
        out = proc.stdout
        # ansible-doc exits 0 with a warning when it cannot find or render a module
        if (
            proc.returncode
            or proc.stderr.strip()
            or not out.startswith(header)
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


@pytest.mark.slow
@pytest.mark.skipif(
    os.environ.get(PIP_OPT_IN) != "1", reason="installs from the package index; set %s=1 to run it" % PIP_OPT_IN
)
def test_clean_venv_installs_the_context_requirements(ee):
    """What the image's Python gets: the introspected requirements plus the tested ansible-core
    (the pin of requirements-dev.txt, which the definition's ansible_core must admit), in a venv
    of the same Python as .venv with nothing else in it."""
    _check_context(ee)
    core = re.search(r"^ansible-core==(\S+)$", _read("requirements-dev.txt"), re.M).group(1)
    ee_core = Requirement(
        yaml.safe_load(_read("execution-environment.yml"))["dependencies"]["ansible_core"]["package_pip"]
    )
    assert ee_core.name == "ansible-core" and ee_core.specifier.contains(core)

    tmp = os.path.join(ee["tmp"], "clean")
    os.makedirs(tmp)
    venv = os.path.join(tmp, "venv")
    _run([sys.executable, "-m", "venv", venv])
    vbin = os.path.join(venv, "bin")
    _run([os.path.join(vbin, "python"), "-m", "pip", "install", "-q", "ansible-core==" + core])
    env = _ansible_env(tmp)
    collections = os.path.join(tmp, "collections")
    installed = _install_from_context(ee, vbin, collections, env)
    pip_reqs = _introspect(ee, collections, os.path.join(vbin, "python"))
    _run(
        [os.path.join(vbin, "python"), "-m", "pip", "install", "-q", "ansible-core==" + core]
        + (["-r", pip_reqs] if pip_reqs else [])
    )
    _run([os.path.join(vbin, "python"), "-m", "pip", "check"])
    _check_module_docs(vbin, collections, installed, env, tmp)
