# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The restore program of smc_pnet's boot unit (pnet_unit.program_text), run as the unit runs it:
a separate interpreter (this one and the oldest target, Python 3.6), isolated (-I: only the
standard library), with the data file as its one argument.

What is checked for real: the arguments, the data file, the refusal of hostile entries (named on
stderr, never sent), and - only where this kernel has no SMC, so that nothing reaches a real
table - the error path of the netlink client, which must name the missing family. The kernel's
answers to ADD (an entry already there, another PNET ID) are checked in-process against the fake
kernel the netlink backend's tests use. The program's text is the same when the module utils come
from a zip, as AnsiballZ ships them.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ast
import errno
import glob
import io
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile

import pytest

from ansible_collections.s390x.network.plugins.module_utils.smc import netlink as smc_netlink
from ansible_collections.s390x.network.plugins.module_utils.smc import pnet_cmd
from ansible_collections.s390x.network.plugins.module_utils.smc import pnet_restore
from ansible_collections.s390x.network.plugins.module_utils.smc import pnet_unit
from ansible_collections.s390x.network.tests.unit.plugins.module_utils.smc_netlink_fake import FakeSmcKernel


def _python36():
    roots = [os.environ.get("PYENV_ROOT") or "", os.path.expanduser("~/.pyenv")]
    found = sorted(
        p for root in roots if root for p in glob.glob(os.path.join(root, "versions", "3.6.*", "bin", "python3.6"))
    )
    return found[-1] if found else shutil.which("python3.6")


PY36 = _python36()
PYTHONS = [pytest.param(sys.executable, id="current")] + [
    pytest.param(PY36, id="py36", marks=pytest.mark.skipif(PY36 is None, reason="no Python 3.6 on this machine"))
]


def _kernel_has_smc():
    """Whether this machine's kernel has SMC or could load it: then the program would change its
    real PNET table, and the tests that reach netlink do not run."""
    if os.path.isdir("/sys/module/smc") or os.path.isdir("/proc/sys/net/smc"):
        return True
    release = os.uname()[2]
    for name in ("modules.dep", "modules.builtin"):
        try:
            with open(os.path.join("/lib/modules", release, name)) as handle:
                if re.search(r"(^|/)net/smc/smc\.ko", handle.read(), re.MULTILINE):
                    return True
        except (IOError, OSError):
            continue
    try:
        smc = smc_netlink.SmcNetlink()
    except smc_netlink.NetlinkError:
        return False
    try:
        smc.genl.family(smc_netlink.SMCR_GENL_FAMILY_NAME)
        return True
    except smc_netlink.NetlinkError:
        return False
    finally:
        smc.close()


NO_SMC_KERNEL = pytest.mark.skipif(_kernel_has_smc(), reason="this kernel has SMC: the program would change its table")


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    path = tmp_path_factory.mktemp("libexec") / "smc-pnet-restore"
    path.write_text(pnet_unit.program_text())
    return str(path)


def run_program(python, program, args, cwd):
    proc = subprocess.run(
        [python, "-I", program] + list(args),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        universal_newlines=True,
        cwd=str(cwd),
        timeout=60,
        check=False,
    )
    return proc.returncode, proc.stdout, proc.stderr


def write_data(tmp_path, document):
    path = tmp_path / "smc-pnet.json"
    if isinstance(document, bytes):
        path.write_bytes(document)
    elif isinstance(document, str):
        path.write_text(document)
    else:
        path.write_text(json.dumps(document))
    return str(path)


# -- arguments and the data file ---------------------------------------------------------------------
@pytest.mark.parametrize("python", PYTHONS)
@pytest.mark.parametrize(
    "args",
    [[], ["/a.json", "/b.json"], ["relative.json"], ["/x/../etc/passwd"], ["/tmp/a b.json"], ["/tmp/x\ny"], ["-h"]],
    ids=repr,
)
def test_arguments_other_than_one_plain_absolute_path_are_refused(python, program, tmp_path, args):
    rc, out, err = run_program(python, program, args, tmp_path)
    assert rc == 2 and out == "" and err.startswith("usage: smc-pnet-restore DATA"), err


@pytest.mark.parametrize("python", PYTHONS)
def test_a_missing_data_file_is_named(python, program, tmp_path):
    rc, out, err = run_program(python, program, [str(tmp_path / "none.json")], tmp_path)
    assert rc == 2 and "none.json: cannot read: No such file or directory" in err


@pytest.mark.parametrize("python", PYTHONS)
@pytest.mark.parametrize(
    "document",
    [
        "not json",
        b"\xff\xfe",
        [],
        {"format": 2, "entries": []},
        {"format": 1, "entries": {}},
        {"format": 1, "entries": [], "exec": "id"},
        {"entries": []},
    ],
    ids=repr,
)
def test_a_file_that_is_not_a_data_file_is_refused(python, program, tmp_path, document):
    rc, out, err = run_program(python, program, [write_data(tmp_path, document)], tmp_path)
    assert rc == 2 and "not a data file of smc_pnet" in err, err


# -- hostile entries: named, never sent --------------------------------------------------------------
HOSTILE = [
    ({"pnet_id": "NETA\n", "interface": "eth1"}, "entries[0].pnet_id"),
    ({"pnet_id": "NET;A", "interface": "eth1"}, "entries[1].pnet_id"),
    ({"pnet_id": "$(id)", "interface": "eth1"}, "entries[2].pnet_id"),
    ({"pnet_id": "A" * 17, "interface": "eth1"}, "entries[3].pnet_id"),
    ({"pnet_id": "NETA", "interface": "eth1\nExecStartPre=/bin/id"}, "entries[4].interface"),
    ({"pnet_id": "NETA", "interface": "a\x1bb"}, "entries[5].interface"),
    ({"pnet_id": "NETA", "interface": "a\x7f"}, "entries[6].interface"),
    ({"pnet_id": "NETA", "interface": "x" * 16}, "entries[7].interface"),
    ({"pnet_id": "NETA", "interface": "\u00fc" * 7}, "entries[8].interface"),
    ({"pnet_id": "NETA", "interface": "with space"}, "entries[9].interface"),
    ({"pnet_id": "NETA", "interface": "../etc"}, "entries[10].interface"),
    ({"pnet_id": "NETA", "ib_device": "m" * 64}, "entries[11].ib_device"),
    ({"pnet_id": "NETA", "ib_device": "mlx5_0\r"}, "entries[12].ib_device"),
    ({"pnet_id": "NETA", "ib_device": "mlx5_0", "port": 3}, "entries[13].port"),
    ({"pnet_id": "NETA", "ib_device": "mlx5_0", "port": True}, "entries[14].port"),
    ({"pnet_id": "NETA", "interface": "eth1", "command": "id"}, "entries[15]: unknown keys command"),
    ("smc_pnet -a NETA -I eth1", "entries[16]: expected a dict"),
    ({"pnet_id": "NETA"}, "entries[17]: needs interface"),
    ({"pnet_id": "NETA", "interface": "eth1", "ib_device": "x"}, "entries[18]: give either"),
    ({"pnet_id": 7, "interface": "eth1"}, "entries[19].pnet_id"),
    ({"pnet_id": "NETA", "interface": ["eth1"]}, "entries[20].interface"),
]


@pytest.mark.parametrize("python", PYTHONS)
def test_hostile_entries_are_named_and_never_sent(python, program, tmp_path):
    path = write_data(tmp_path, {"format": 1, "entries": [item for item, dummy in HOSTILE]})
    rc, out, err = run_program(python, program, [path], tmp_path)
    assert rc == 1 and out == ""
    lines = err.splitlines()
    for index, (dummy, where) in enumerate(HOSTILE):
        assert lines[index].startswith("%s: %s" % (path, where)) and lines[index].endswith("; not added"), lines[index]
    assert lines[-1] == "%s: %d of %d entries not added" % (path, len(HOSTILE), len(HOSTILE))
    assert len(lines) == len(HOSTILE) + 1  # a newline of a value is shown escaped, never as a line of its own
    assert "SMC_PNETID" not in err  # nothing was left to send: netlink was never opened


@NO_SMC_KERNEL
@pytest.mark.parametrize("python", PYTHONS)
def test_without_smc_in_the_kernel_the_error_names_the_missing_family(python, program, tmp_path):
    entries = [
        {"pnet_id": "neta", "interface": "v$(id>x)"},
        {"pnet_id": "NETB", "interface": "x;y"},
        {"pnet_id": "NETC", "ib_device": "mlx5_0", "port": 2},
        {"pnet_id": "NET;D", "interface": "eth1"},
    ]
    path = write_data(tmp_path, {"format": 1, "entries": entries})
    rc, out, err = run_program(python, program, [path], tmp_path)
    assert rc == 1 and out == ""
    lines = err.splitlines()
    assert lines[0].startswith("%s: entries[3].pnet_id: 'NET;D' is not a PNET ID" % path)
    assert lines[1].startswith("%s: 3 entries not added: generic netlink family SMC_PNETID not found" % path)
    assert "asked by name, the kernel did not load it either" in lines[1]
    assert len(lines) == 2
    assert sorted(os.listdir(str(tmp_path))) == ["smc-pnet.json"]  # no shell ran `id>x`


# -- the kernel's answers (the fake kernel of the netlink backend's tests) ---------------------------
def restore(tmp_path, entries, kernel):
    path = write_data(tmp_path, {"format": 1, "entries": entries})
    out, err = io.StringIO(), io.StringIO()
    rc = pnet_restore.restore_run([path], out, err, transport=kernel)
    return rc, out.getvalue().replace(path + ": ", ""), err.getvalue().replace(path + ": ", "")


def test_entries_are_added_and_a_second_run_finds_them_there(tmp_path):
    kernel = FakeSmcKernel(byteorder=sys.byteorder)
    entries = [{"pnet_id": "neta", "interface": "eth1"}, {"pnet_id": "NETA", "ib_device": "mlx5_0", "port": 2}]
    assert restore(tmp_path, entries, kernel) == (
        0,
        "entries[0] (NETA interface eth1) added\nentries[1] (NETA ib_device mlx5_0 port 2) added\n",
        "",
    )
    assert sorted(kernel.pnet, key=str) == sorted([["NETA", "eth1", None, 255], ["NETA", None, "mlx5_0", 2]], key=str)
    again = FakeSmcKernel(byteorder=sys.byteorder)
    again.pnet = [list(e) for e in kernel.pnet]
    rc, out, err = restore(tmp_path, entries, again)
    assert rc == 0 and err == "" and out.count(" added\n") == 2


def test_an_entry_the_kernel_refuses_is_named_and_the_others_are_added(tmp_path):
    kernel = FakeSmcKernel(byteorder=sys.byteorder)
    kernel.pnet = [["OTHER", "eth1", None, 255]]
    kernel.hw_pnet_ib = set(["mlx5_9"])
    entries = [
        {"pnet_id": "NETA", "interface": "eth1"},
        {"pnet_id": "NETA", "ib_device": "mlx5_9"},
        {"pnet_id": "NETA", "interface": "eth2"},
    ]
    rc, out, err = restore(tmp_path, entries, kernel)
    assert rc == 1 and out == "entries[2] (NETA interface eth2) added\n"
    lines = err.splitlines()
    assert lines[0].startswith(
        "entries[0] (NETA interface eth1) not added: SMC_PNETID_ADD failed: File exists (EEXIST)"
    )
    assert "belongs to another PNET ID" in lines[0]
    assert lines[1].startswith("entries[1] (NETA ib_device mlx5_9 port 1) not added: SMC_PNETID_ADD failed")
    assert lines[2] == "2 of 3 entries not added"
    assert ["NETA", "eth2", None, 255] in kernel.pnet


class LoadingKernel(FakeSmcKernel):
    """The fake kernel without smc loaded, whose controller answers a lookup by name as the kernel
    does: it loads smc when the kernel has it (``loadable``), else ENOENT."""

    def __init__(self, loadable):
        super(LoadingKernel, self).__init__(byteorder=sys.byteorder, loaded=False)
        self.loadable = loadable
        self.by_name = []

    def _answer(self, request):
        if request.family == "nlctrl" and request.flags & 0x300 != 0x300:
            name = request.attrs[2].split(b"\0")[0].decode("ascii")
            self.by_name.append(name)
            if self.loadable and name in ("SMC_PNETID", "SMC_GEN_NETLINK"):
                self.families.update({"SMC_PNETID": 0x1B, "SMC_GEN_NETLINK": 0x1C})
                return self._status(request, 0)
            return self._status(request, errno.ENOENT)
        return super(LoadingKernel, self)._answer(request)


def test_an_unloaded_smc_is_loaded_by_asking_for_the_family_by_name(tmp_path):
    kernel = LoadingKernel(loadable=True)
    rc, out, err = restore(tmp_path, [{"pnet_id": "NETA", "interface": "eth1"}], kernel)
    assert (rc, out, err) == (0, "entries[0] (NETA interface eth1) added\n", "")
    assert kernel.by_name == ["SMC_PNETID"] and kernel.pnet == [["NETA", "eth1", None, 255]]


def test_a_kernel_that_cannot_load_smc_is_named(tmp_path):
    kernel = LoadingKernel(loadable=False)
    rc, out, err = restore(tmp_path, [{"pnet_id": "NETA", "interface": "eth1"}], kernel)
    assert rc == 1 and out == "" and kernel.by_name == ["SMC_PNETID", "SMC_GEN_NETLINK"]
    assert err.startswith("1 entries not added: generic netlink family SMC_PNETID not found")
    assert err.rstrip().endswith("asked by name, the kernel did not load it either (no SMC in this kernel)")


# -- the data file and the program's text ------------------------------------------------------------
def test_the_data_file_round_trips_and_escapes():
    entries = [
        pnet_cmd.normalize_entry(item, index)
        for index, item in enumerate(
            [{"pnet_id": "NETB", "interface": 'q"q'}, {"pnet_id": "NETA", "ib_device": "x;$(id)%n", "port": 2}]
        )
    ]
    text = pnet_restore.restore_data_text(entries)
    assert text.endswith("}\n") and all(ord(c) < 128 for c in text)
    checked, refused = pnet_restore.restore_entries(text)
    assert refused == [] and sorted((e for dummy, e in checked), key=str) == sorted(entries, key=str)
    assert pnet_restore.restore_data_text([e for dummy, e in checked]) == text


def _top_level_names(module):
    tree = ast.parse(pnet_unit.module_source(module))
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(n.id for target in node.targets for n in ast.walk(target) if isinstance(n, ast.Name))
    return names


def test_the_sources_of_the_program_shadow_nothing_of_each_other():
    netlink, ifname, cmd, restore_names = [_top_level_names(m) for m in pnet_unit.PROGRAM_SOURCES]
    assert netlink & cmd == netlink & ifname == ifname & cmd == set(["__metaclass__"])
    assert restore_names & (netlink | ifname | cmd) == set()
    assert all(re.match(r"restore_|RESTORE_|Restore", name) for name in restore_names), restore_names


def test_the_program_is_the_sources_in_order():
    text = pnet_unit.program_text()
    names = ("smc/netlink", "ip/ifname", "smc/pnet_cmd", "smc/pnet_restore")
    positions = [text.index("# ---- module_utils/%s.py\n" % n) for n in names]
    assert positions == sorted(positions)
    assert "from __future__" not in text and "ansible_collections" in text  # only in the skipped import
    assert text.rstrip().endswith("raise SystemExit(restore_run(sys.argv[1:], sys.stdout, sys.stderr))")


ZIP_SCRIPT = """
import sys, zipimport
sys.path.insert(0, sys.argv[1])
from ansible_collections.s390x.network.plugins.module_utils.smc import pnet_unit
assert isinstance(pnet_unit.__loader__, zipimport.zipimporter), pnet_unit.__loader__
sys.stdout.write(pnet_unit.program_text())
"""


@pytest.mark.parametrize("python", PYTHONS)
def test_the_program_is_the_same_from_a_zip_as_ansiballz_ships_it(python, tmp_path):
    """The module utils in a zip, with an ``__init__.py`` per package as AnsiballZ adds them."""
    base = os.path.dirname(os.path.dirname(os.path.abspath(pnet_unit.__file__)))  # plugins/module_utils
    archive = str(tmp_path / "payload.zip")
    with zipfile.ZipFile(archive, "w") as zf:
        prefix = "ansible_collections/s390x/network/plugins/module_utils"
        for package in ("ansible_collections", "ansible_collections/s390x", "ansible_collections/s390x/network"):
            zf.writestr(package + "/__init__.py", "")
        zf.writestr("ansible_collections/s390x/network/plugins/__init__.py", "")
        zf.writestr(prefix + "/__init__.py", "")
        for sub in ("engine", "ip", "smc"):
            zf.writestr("%s/%s/__init__.py" % (prefix, sub), "")
            for name in sorted(os.listdir(os.path.join(base, sub))):
                if name.endswith(".py") and name != "__init__.py":
                    zf.write(os.path.join(base, sub, name), "%s/%s/%s" % (prefix, sub, name))
    proc = subprocess.run(
        [python, "-I", "-c", ZIP_SCRIPT, archive],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        universal_newlines=True,
        cwd=str(tmp_path),
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == pnet_unit.program_text()
