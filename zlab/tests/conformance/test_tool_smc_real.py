# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The emulated smc-tools against the real smc-tools 1.8.5 on a real 6.12 kernel: layouts from
tests/unit/fixtures/smc/real-6.12 (headers, labels, column positions), values from the emulated
host's state."""

import io
import os
import re
import sys

import pytest

from zlab import kernel
from zlab.tools import _smc, _smccmd

import toolrun

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
REAL = os.path.join(REPO, "tests", "unit", "fixtures", "smc", "real-6.12")
VALUE_COLUMN = len("SMC Version:      ")
ISM = {"pchid": 0x7C8, "vfn": 1, "port": 0, "vendor": 0x1014, "device": 0x04ED, "type": "ism"}


def real(name):
    with open(os.path.join(REAL, name), encoding="ascii") as f:
        return f.read()


def run(h, *args):
    os.makedirs(os.path.join(h.zroot, "tmp"), exist_ok=True)
    return toolrun.run(h, *args)


def info_fields(text):
    """``smcd info`` as (label, value) per line: section titles and blank lines have value None,
    the others their label (up to the colon) and the text from the fixed value column."""
    out = []
    for line in text.split("\n")[:-1]:
        if ":" not in line:
            out.append((line, None))
            continue
        label = line[: line.index(":") + 1]
        assert line[len(label) : VALUE_COLUMN].strip() == "", line
        out.append((label, line[VALUE_COLUMN:]))
    return out


def real_info_fields():
    text = real("smcd-info.txt")
    assert real("smcr-info.txt") == text  # one info.c in both tools
    fields = info_fields(text)
    assert fields[0] == ("Kernel Capabilities", None) and ("Hardware Capabilities", None) in fields
    return fields


def boot_612(boot_host, fids=(0x605,)):
    """A linux6.12 LPAR (ism built in, not needing smc) with ISM functions powered on."""
    h = boot_host(kernel_profile="linux6.12", pci=[dict(ISM, fid=f, uid=f) for f in fids])
    for f in fids:
        h.write("/sys/bus/pci/slots/%08x/power" % f, "1")
    return h


# ---- smcd info / smcr info -----------------------------------------------------------------------


@pytest.mark.parametrize("argv", [("smcd", "info"), ("smcr", "info"), ("smcd", "-d", "info", "show"), ("smcr", "i")])
def test_info_has_the_real_layout_and_the_hosts_values(boot_host, argv):
    h = boot_612(boot_host)
    kernel.load_module(h.state_dir, "smc")
    r = run(h, *argv)
    assert (r.returncode, r.stderr) == (0, "")
    fields = info_fields(r.stdout)
    reference = real_info_fields()
    assert [label for label, _ in fields] == [label for label, _ in reference]
    got, want = dict(fields), dict(reference)
    # the kernel's 32-byte hostname field, blank padded, as on the real host ("solo")
    assert len(got["SMC Hostname:"]) == len(want["SMC Hostname:"]) == 32
    assert got["SMC Hostname:"] == "lpar-a".ljust(32)
    # a 6.12 kernel: the same versions and features as the real one
    for label in ("SMC Version:", "SMC-D Features:", "SMC-R Features:"):
        assert got[label] == want[label], label
    seid, enabled = kernel.seid_show(h.state_dir)
    assert enabled == 1 and got["SEID:"] == seid
    assert len(seid) == len(want["SEID:"]) and seid[:24] == want["SEID:"][:24] == "IBM-SYSZ-ISMSEID00000000"
    # an ISM device (the real host had loopback-ism only, which 6.12 leaves out of the dump)
    assert (want["ISM:"], got["ISM:"]) == ("n/a", "v1 v2")
    assert got["RoCE:"] == want["RoCE:"] == "n/a"


def test_info_without_ism_has_no_seid(boot_host):
    h = boot_host(kernel_profile="linux6.12", pci=[])
    kernel.load_module(h.state_dir, "smc")
    got = dict(info_fields(run(h, "smcd", "info").stdout))
    assert (got["SEID:"], got["ISM:"], got["RoCE:"]) == ("n/a", "n/a", "n/a")


@pytest.mark.parametrize(
    "profile,version,smcr",
    [
        ("rhel8.8", "2.0", "v1 v2"),  # 4.18 with the SMC-Rv2 backport
        ("sles15sp5", "2.0", "v1 v2"),
        ("ubuntu23.04", "2.0", "v1 v2"),  # 6.2
        ("rhel9.4", "2.1", "v1 v2"),  # the SMC-R v2.1 sysctls: the v2.1 code
        ("ubuntu24.04", "2.1", "v1 v2"),
    ],
)
def test_info_versions_follow_the_profile(boot_host, profile, version, smcr):
    h = boot_host(kernel_profile=profile)
    kernel.load_module(h.state_dir, "smc")
    got = dict(info_fields(run(h, "smcd", "info").stdout))
    assert (got["SMC Version:"], got["SMC-D Features:"], got["SMC-R Features:"]) == (version, "v1 v2", smcr)


def test_info_errors(host):
    r = run(host, "smcd", "info")
    assert (r.returncode, r.stdout, r.stderr) == (1, "", "Error: SMC module not loaded\n")
    kernel.load_module(host.state_dir, "smc")
    for argv in (("smcd", "info", "help"), ("smcr", "info", "show", "show"), ("smcd", "info", "x")):
        r = run(host, *argv)
        assert (r.returncode, r.stdout, r.stderr) == (255, "", "Usage: %s info [show]\n" % argv[0]), argv


class _FakeKernel:
    def __init__(self, version, roce=(), ism=0, seid=None):
        self.answers = {
            "profile": {"version": version, "family": "Debian", "smc_sysctls": {}},
            "state": {"spec": {"name": "a-host-name-longer-than-thirty-two-characters"}},
            "smcd_devices": [{}] * ism,
            "smcr_devices": [{"device": d} for d in roce],
            "seid_show": (seid, 1 if seid else None),
        }

    def __call__(self, name, *args):
        return self.answers[name]


@pytest.mark.parametrize(
    "roce,ism,seid,lines",
    [
        ((0x1004,), 0, None, ["SEID:             n/a", "ISM:              n/a", "RoCE:             v1 "]),
        (
            (0x1004, 0x101E),
            1,
            "S" * 32,
            ["SEID:             " + "S" * 32, "ISM:              v1 v2", "RoCE:             v1 v2"],
        ),
        ((0x1016, 0x1234), 1, None, ["SEID:             n/a", "ISM:              v1", "RoCE:             v1 v2"]),
    ],
)
def test_info_hardware_lines_follow_info_c(monkeypatch, roce, ism, seid, lines):
    """info.c's ISM and RoCE lines ("v1 " alone for RoCE Express only), the hostname cut to the
    kernel's 32 bytes, and a kernel before 5.11 (no sys info dump)."""
    monkeypatch.setattr(_smccmd._paths, "kcall", _FakeKernel((6, 12), roce, ism, seid))
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    assert _smccmd.Tool("smcd").info([]) == 0
    text = out.getvalue().split("\n")
    assert text[2] == "SMC Hostname:     a-host-name-longer-than-thirty-t"
    assert text[7:10] == lines


def test_info_on_a_kernel_without_the_sys_info_dump(monkeypatch, capsys):
    monkeypatch.setattr(_smccmd._paths, "kcall", _FakeKernel((5, 10)))
    assert _smc.smc_level() == (5, 10)
    assert _smccmd.Tool("smcr").info([]) == 255
    out, err = capsys.readouterr()
    assert (out, err) == ("", "Error: Operation not supported by kernel\nError: Failed to retrieve ISM device count\n")


# ---- smcd ueid show / smcd seid show -------------------------------------------------------------


def test_ueid_and_seid_show_have_the_real_layout(boot_host):
    h = boot_612(boot_host)
    kernel.load_module(h.state_dir, "smc")
    for tool in ("smcd", "smcr"):
        r = run(h, tool, "ueid", "show")
        assert (r.returncode, r.stdout, r.stderr) == (0, real("smcd-ueid.txt"), ""), tool  # empty table
    want_seid, _, want_state = real("smcd-seid.txt").rstrip("\n").rpartition(" ")
    r = run(h, "smcd", "seid", "show")
    assert r.returncode == 0 and r.stdout.endswith("\n") and r.stdout.count("\n") == 1
    seid, _, state = r.stdout.rstrip("\n").rpartition(" ")
    assert want_state == "[enabled]"
    assert (seid, state) == (kernel.seid_show(h.state_dir)[0], want_state)
    assert len(seid) == len(want_seid) and re.fullmatch(r"IBM-SYSZ-ISMSEID00000000[0-9A-F]{8}", want_seid)
    assert re.fullmatch(r"IBM-SYSZ-ISMSEID00000000[0-9A-F]{8}", seid)
    # with UEIDs: one kernel entry (32 characters, blank padded) a line, in both tools
    assert run(h, "smcd", "ueid", "add", "PLEX1.PROD").returncode == 0
    assert run(h, "smcd", "seid", "disable").returncode == 0
    for tool in ("smcd", "smcr"):
        assert run(h, tool, "ueid").stdout == "PLEX1.PROD".ljust(32) + "\n"
    assert run(h, "smcd", "seid").stdout == seid + " [disabled]\n"


def test_ueid_usage_names_smcd_in_both_tools(host):
    kernel.load_module(host.state_dir, "smc")
    for tool in ("smcd", "smcr"):
        r = run(host, tool, "ueid", "help")
        assert r.returncode == 255 and r.stderr.startswith("Usage: smcd ueid [show]\n"), tool


# ---- smcss without the smc module ----------------------------------------------------------------


@pytest.mark.parametrize(
    "args,fixture",
    [
        ((), "smcss.txt"),
        (("-a",), "smcss-a.txt"),
        (("-l",), "smcss-l.txt"),
        (("-a", "-d"), "smcss-a-d.txt"),
        (("-a", "-D"), "smcss-a-D.txt"),
        (("-R",), None),
    ],
)
def test_smcss_without_smc_prints_the_header_then_fails(host, args, fixture):
    assert not kernel.module_present(host.state_dir, "smc")
    r = run(host, "smcss", *args)
    assert (r.returncode, r.stderr) == (1, "RTNETLINK answers: Success\n")
    assert r.stdout.count("\n") == 1
    if fixture:
        assert r.stdout == real(fixture).split("\n")[0] + "\n"
    # the same header once smc is loaded
    kernel.load_module(host.state_dir, "smc")
    loaded = run(host, "smcss", *args)
    assert (loaded.returncode, loaded.stdout, loaded.stderr) == (0, r.stdout, "")


# ---- smc_rnics without the smc module ------------------------------------------------------------


def test_smc_rnics_without_smc_passes_on_what_smc_pnet_says(boot_host):
    # 0x606 has its PNET ID from the IOCDS: no smc_pnet lookup for its row
    h = boot_host(
        kernel_profile="linux6.12",
        pci=[
            dict(ISM, fid=0x605, uid=0x605),
            dict(ISM, fid=0x606, uid=0x606, pnet_id="NETA"),
            dict(ISM, fid=0x607, uid=0x607),
        ],
    )
    for f in (0x605, 0x606, 0x607):
        h.write("/sys/bus/pci/slots/%08x/power" % f, "1")
    assert not kernel.module_present(h.state_dir, "smc")
    pnet = run(h, "smc_pnet")
    assert (pnet.returncode, pnet.stdout, pnet.stderr) == (1, "", "smc_pnet: SMC module not loaded\n")
    r = run(h, "smc_rnics")
    assert (r.returncode, r.stderr) == (0, pnet.stderr * 2)
    rows = r.stdout.splitlines()[2:]
    assert [row.split()[0] for row in rows] == ["605", "606", "607"]
    assert [row.split()[8] for row in rows] == ["n/a", "NETA", "n/a"]
    kernel.load_module(h.state_dir, "smc")
    loaded = run(h, "smc_rnics")
    assert (loaded.returncode, loaded.stdout, loaded.stderr) == (0, r.stdout, "")
