# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the Galaxy import (galaxy-importer with its ansible-lint, `make galaxy-import`) needs of the
collection, checked without the importer: every role has its README.md, meta/main.yml and
meta/argument_specs.yml, and the ansible-core floor of meta/runtime.yml is one parseable floor that
the README's support matrix, the roles' metadata and the ansible-lint run of the import agree on."""

import os
import re
import shutil
import subprocess
import sys
from fnmatch import fnmatch

import pytest
import yaml
from packaging.specifiers import SpecifierSet

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
ROLES_DIR = os.path.join(REPO, "roles")
ROLES = sorted(d for d in os.listdir(ROLES_DIR) if os.path.isdir(os.path.join(ROLES_DIR, d)))


def _read(*parts):
    with open(os.path.join(REPO, *parts)) as handle:
        return handle.read()


def _yaml(*parts):
    return yaml.safe_load(_read(*parts))


def _tested_cores():
    """(major, minor) of every ansible-core the tests run: the development venv's and the support
    matrix's (tests/matrix/core-X.Y.txt, mk/matrix.mk)."""
    pins = [_read("requirements-dev.txt")]
    matrix = os.path.join(REPO, "tests", "matrix")
    if os.path.isdir(matrix):
        pins += [_read("tests", "matrix", f) for f in sorted(os.listdir(matrix)) if re.fullmatch(r"core-.*\.txt", f)]
    cores = []
    for text in pins:
        found = re.search(r"^ansible-core==(\d+)\.(\d+)\.\d+$", text, re.M)
        assert found, "every pin file names its ansible-core"
        cores.append((int(found.group(1)), int(found.group(2))))
    return cores


def _floor():
    """(major, minor) of meta/runtime.yml's requires_ansible, which must be one floor >=X.Y.0."""
    requires = _yaml("meta", "runtime.yml")["requires_ansible"]
    SpecifierSet(requires)  # raises on what pip and ansible-galaxy cannot parse
    found = re.fullmatch(r">=(\d+)\.(\d+)\.0", requires)
    assert found, "requires_ansible %r is not one floor '>=X.Y.0'" % requires
    return int(found.group(1)), int(found.group(2))


def test_the_roles_are_found():
    assert "qeth" in ROLES and "interfaces" in ROLES


@pytest.mark.parametrize("role", ROLES)
def test_every_role_has_readme_meta_and_argument_specs(role):
    missing = [
        rel
        for rel in ("README.md", "meta/main.yml", "meta/argument_specs.yml")
        if not os.path.isfile(os.path.join(ROLES_DIR, role, rel))
    ]
    assert missing == [], "role %s lacks %s" % (role, ", ".join(missing))

    info = _yaml("roles", role, "meta", "main.yml")["galaxy_info"]
    assert (info["namespace"], info["role_name"]) == ("s390x", role)
    options = _yaml("roles", role, "meta", "argument_specs.yml")["argument_specs"]["main"]["options"]
    assert options, "role %s: meta/argument_specs.yml has no options" % role

    readme = _read("roles", role, "README.md")
    assert "s390x.network.%s" % role in readme.splitlines()[0], "the README's title names the role"
    assert "meta/argument_specs.yml" in readme, "the README points to the argument specs"
    assert re.search(r"^## Example", readme, re.M), "the README has an example"
    assert "role: s390x.network.%s" % role in readme, "the example playbook uses the role"
    # every variable a table row of the README describes is one the role takes
    rows = re.findall(r"^\| `([a-z_][a-z0-9_]*)` \|", readme, re.M)
    assert sorted(set(rows) - set(options)) == []


def test_requires_ansible_is_the_oldest_tested_core():
    cores = _tested_cores()
    assert _floor() == min(cores), "requires_ansible is the oldest ansible-core the tests run: %s" % sorted(cores)
    # RHEL 9 ships ansible-core 2.14 for its whole life
    assert _floor() <= (2, 14)
    requires = SpecifierSet(_yaml("meta", "runtime.yml")["requires_ansible"])
    assert all(requires.contains("%d.%d.0" % core) for core in cores), "the claim admits every tested core"


def test_the_readme_support_matrix_names_the_floor():
    row = re.search(r"^\| ansible-core \(controller\) \|([^|\n]*)\|", _read("README.md"), re.M)
    assert row, "README.md's support matrix has an ansible-core (controller) row"
    versions = [tuple(int(n) for n in v.split(".")) for v in re.findall(r"\b(\d+\.\d+)(?:\.\d+)?\b", row.group(1))]
    assert versions and versions[0] == _floor(), "the row starts with the floor of meta/runtime.yml"
    assert min(versions) == _floor(), "the row names no core older than the floor"


@pytest.mark.parametrize("role", ROLES)
def test_every_role_claims_the_same_floor(role):
    claimed = _yaml("roles", role, "meta", "main.yml")["galaxy_info"]["min_ansible_version"]
    assert claimed == "%d.%d" % _floor()


def test_the_import_lint_accepts_the_floor(tmp_path):
    """galaxy-importer runs ansible-lint inside the unpacked artifact, so the artifact carries the
    ansible-lint configuration; its meta-runtime rule counts only some cores as supported."""
    build_ignore = _yaml("galaxy.yml").get("build_ignore", [])
    assert [p for p in build_ignore if fnmatch(".ansible-lint", p)] == [], "the artifact ships .ansible-lint"
    lint = shutil.which("ansible-lint", path=os.path.dirname(sys.executable))
    assert lint, "ansible-lint is in the venv"
    for rel in (".ansible-lint", "galaxy.yml", "meta/runtime.yml"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(os.path.join(REPO, rel), str(tmp_path / rel))
    (tmp_path / "README.md").write_text("# s390x.network\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANSIBLE_", "GALAXY_"))}
    env["HOME"] = str(tmp_path / "home")
    env["PATH"] = os.path.dirname(lint) + os.pathsep + env.get("PATH", "")
    proc = subprocess.run(
        [lint, "--offline", "--profile", "production", "--nocolor", "--format=pep8", "meta/runtime.yml"],
        cwd=str(tmp_path),
        env=env,
        check=False,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        universal_newlines=True,
    )
    assert "meta-runtime" not in proc.stdout, proc.stdout
    assert proc.returncode == 0, proc.stdout
