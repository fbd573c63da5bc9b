# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Galaxy artifact holds the collection only: no lab output, lab, tests or build tooling, even
when a playbook run left its output in the working tree."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
# what a user of the collection gets; everything else stays in the repository
SHIPPED_TOP = {
    ".ansible-lint",
    "MANIFEST.json",
    "FILES.json",
    "README.md",
    "LICENSE",
    "COPYING",
    "plugins",
    "roles",
    "playbooks",
    "meta",
    "docs",
    "changelogs",
    "inventories",
    "bindep.txt",
    "requirements.txt",
    "requirements.yml",
    "execution-environment.yml",
    "CHANGELOG.md",
    "CHANGELOG.rst",
}
# output a run of the playbooks or a test leaves in the working tree
RUN_LEFTOVERS = (
    "playbooks/iocds-output/CPCA.iocp",
    "iocds-output/CPCA.md",
    "inventories/lab/hosts.yml",
    "playbooks/site.retry",
    "plugins/modules/__pycache__/x.cpython-313.pyc",
)


def _tracked_copy(dest):
    files = subprocess.run(["git", "-C", REPO, "ls-files", "-z"], check=True, capture_output=True).stdout
    for rel in files.decode().split("\0"):
        if rel and os.path.isfile(os.path.join(REPO, rel)):
            target = os.path.join(dest, rel)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copy2(os.path.join(REPO, rel), target)


def test_artifact_holds_only_the_collection(tmp_path):
    src = tmp_path / "src"
    _tracked_copy(str(src))
    for rel in RUN_LEFTOVERS:
        path = src / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("left by a run\n")
    out = tmp_path / "out"
    galaxy = os.path.join(os.path.dirname(sys.executable), "ansible-galaxy")
    subprocess.run(
        [galaxy, "collection", "build", "--output-path", str(out), str(src)], check=True, capture_output=True
    )
    (artifact,) = list(out.iterdir())
    with tarfile.open(str(artifact)) as tar:
        names = tar.getnames()
    assert "plugins/modules/qeth_device.py" in names and "roles/qeth/tasks/main.yml" in names
    assert sorted(set(n.split("/")[0] for n in names) - SHIPPED_TOP) == []
    leftovers = [
        n
        for n in names
        if "iocds-output" in n
        or n.startswith("inventories/lab")
        or n.endswith((".retry", ".pyc"))
        or "__pycache__" in n
    ]
    assert leftovers == []
