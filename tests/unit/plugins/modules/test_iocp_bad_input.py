# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""iocp, bad input: refused with a message that names the object, the field and what is allowed,
before O(dest) is read or written."""

from __future__ import absolute_import, division, print_function

import pytest

from ansible_collections.s390x.network.plugins.modules import iocp
from ansible_collections.s390x.network.tests.unit.plugins.module_utils.cpc_samples import fixture_text, load_cpc
from ansible_collections.s390x.network.tests.unit.plugins.modules.host_guard import HostGuard

DEST = "/srv/iocds/ZLAB.iocp"


def cpc(change):
    """The lab CPC with ``change(cpc)`` applied; the module writes it to DEST."""

    def args():
        model = load_cpc("lab_cpc.yml")
        change(model)
        return {"cpc": model, "dest": DEST}

    return args


def part(index, **fields):
    return lambda c: c["partitions"][index].update(fields)


def iqd(**fields):
    return lambda c: c["hipersockets"][0].update(fields)


def fn(index, **fields):
    return lambda c: c["ism"][0]["functions"][index].update(fields)


def netx(entry_fields=None, machine="z17", **fields):
    """The lab CPC as a z17 with one Network Express port (PCHID 314, NETH); ``fields`` change its function."""

    def apply(c):
        func = {"fid": 0x10, "uid": 0x10, "vf": 1, "partition": "LPARA"}
        func.update(fields)
        entry = {"pchid": 0x314, "type": "NETH", "pnet_id": "NETWORK1", "functions": [func]}
        entry.update(entry_fields or {})
        c.update(machine=machine, network_express=[entry])

    return apply


def both(*changes):
    def apply(c):
        for change in changes:
            change(c)

    return apply


CASES = [
    # -- module options ------------------------------------------------------------------------
    ("rendered without cpc", lambda: {"dest": DEST}, ["state is rendered but all of the following are missing: cpc"]),
    ("validated without cpc", lambda: {"state": "validated"}, ["state is validated", "cpc"]),
    (
        "parsed without deck",
        lambda: {"state": "parsed"},
        ["state is parsed but all of the following are missing: deck"],
    ),
    ("compared without deck", lambda: {"state": "compared", "cpc": load_cpc("lab_cpc.yml")}, ["deck"]),
    ("state choice", lambda: {"state": "render", "cpc": {}}, ["state", "rendered, validated, parsed, compared"]),
    ("cpc not a mapping", lambda: {"cpc": "ZLAB"}, ["cpc", "dict"]),
    ("cpc a list", lambda: {"cpc": [{"name": "ZLAB"}]}, ["cpc", "dict"]),
    (
        "dest with state validated",
        lambda: {"state": "validated", "cpc": load_cpc("lab_cpc.yml"), "dest": DEST},
        ["dest is only used with state=rendered, not state=validated"],
    ),
    (
        "deck with state rendered",
        lambda: {"cpc": load_cpc("lab_cpc.yml"), "deck": fixture_text("lab.iocp"), "dest": DEST},
        ["deck is only used with state=parsed or state=compared, not state=rendered"],
    ),
    (
        "deck with state validated",
        lambda: {"state": "validated", "cpc": load_cpc("lab_cpc.yml"), "deck": "x"},
        ["deck is only used with state=parsed or state=compared, not state=validated"],
    ),
    (
        "cpc with state parsed",
        lambda: {"state": "parsed", "cpc": load_cpc("lab_cpc.yml"), "deck": fixture_text("lab.iocp")},
        ["cpc is not used with state=parsed", "deck"],
    ),
    ("dest empty", lambda: {"cpc": load_cpc("lab_cpc.yml"), "dest": ""}, ["dest: '' is not a path to a file"]),
    ("dest a directory", lambda: {"cpc": load_cpc("lab_cpc.yml"), "dest": "/srv/"}, ["dest: '/srv/' is not a path"]),
    (
        "mode not a mode",
        lambda: {"cpc": load_cpc("lab_cpc.yml"), "dest": DEST, "mode": "rw-r--r--"},
        ["mode: 'rw-r--r--' is not a file mode (octal such as 0644, or symbolic such as u=rw,g=r,o=r)"],
    ),
    ("mode not octal", lambda: {"cpc": load_cpc("lab_cpc.yml"), "dest": DEST, "mode": "0648"}, ["mode: '0648'"]),
    ("mode too big", lambda: {"cpc": load_cpc("lab_cpc.yml"), "dest": DEST, "mode": "107777"}, ["mode: '107777'"]),
    ("fail_on_error not a boolean", lambda: {"cpc": {}, "fail_on_error": "maybe"}, ["fail_on_error", "bool"]),
    ("unknown option", lambda: {"cpc": {}, "target": DEST}, ["Unsupported parameters", "target"]),
    # -- the CPC: top level --------------------------------------------------------------------
    ("name starting with a digit", cpc(lambda c: c.update(name="1ZLAB")), ["cpc: name '1ZLAB' is not a CPC name"]),
    ("name too long", cpc(lambda c: c.update(name="ZLABZLAB9")), ["cpc: name 'ZLABZLAB9' is not a CPC name (1-8"]),
    ("machine z14", cpc(lambda c: c.update(machine="z14")), ["cpc: machine 'z14' is not one of z15, z16, z17"]),
    ("css 6", cpc(lambda c: c.update(css=6)), ["cpc: css 6 is outside 0-5"]),
    ("css not a number", cpc(lambda c: c.update(css="zero")), ["cpc: css 'zero' is not a decimal number"]),
    ("no partitions", cpc(lambda c: c.pop("partitions")), ["cpc: partitions is required"]),
    (
        "uid_checking names an unknown partition",
        cpc(lambda c: c.update(uid_checking=["LPARX"])),
        ["cpc: uid_checking names partition LPARX which is not in cpc.partitions"],
    ),
    # -- partitions ----------------------------------------------------------------------------
    ("partition name", cpc(part(0, name="9LPAR")), ["partition 0: name '9LPAR' is not a partition name"]),
    ("partition mif_id 0", cpc(part(0, mif_id=0)), ["partition LPARA: mif_id 0 is not a MIF image id 1-F"]),
    ("partition mif_id 16", cpc(part(0, mif_id=16)), ["partition LPARA: mif_id 16 is not a MIF image id 1-F"]),
    ("partition host with a blank", cpc(part(0, host="lpar a")), ["partition LPARA: host 'lpar a' is not"]),
    (
        "one partition in two spellings",
        cpc(both(part(1, name="lpara"), lambda c: c.update(uid_checking=["LPARA"]))),
        ["partition LPARA: name is defined twice"],
    ),
    ("one MIF id twice", cpc(part(1, mif_id="1")), ["partition LPARB: mif_id 1 is already used by partition LPARA"]),
    # -- HiperSockets --------------------------------------------------------------------------
    ("chpid three digits", cpc(iqd(chpid="1F0")), ["HiperSockets 0: chpid '1F0' is not a hex number of at most 2"]),
    ("frame size 32K", cpc(iqd(frame_size="32K")), ["HiperSockets CHPID F0: frame_size '32K' is not one of 16K"]),
    ("devices count 0", cpc(iqd(devices={"first": "8200", "count": 0})), ["devices.count 0 is outside 1-256"]),
    ("devices count 257", cpc(iqd(devices={"first": "8200", "count": 257})), ["devices.count 257 is outside 1-256"]),
    ("devices past FFFF", cpc(iqd(devices={"first": "FFF0", "count": 32})), ["FFF0 + 32 runs past device number FFFF"]),
    ("devices range reversed", cpc(iqd(devices="820F-8200")), ["devices range '820F-8200' ends before it starts"]),
    ("control unit not hex", cpc(iqd(control_unit="F00G")), ["control_unit 'F00G' is not a hex number"]),
    ("no partitions on the CHPID", cpc(iqd(partitions=[])), ["HiperSockets CHPID F0: partitions must name at least"]),
    ("unknown partition on the CHPID", cpc(iqd(partitions=["LPARX"])), ["names partition LPARX which is not"]),
    ("pnet_id lower case", cpc(iqd(pnet_id="net1")), ["pnet_id 'net1' is not a valid PNET ID (1-16 characters, A-Z"]),
    ("pnet_id too long", cpc(iqd(pnet_id="N" * 17)), ["is not a valid PNET ID (1-16 characters"]),
    (
        "one CHPID in two spellings",
        cpc(lambda c: c["hipersockets"].append(dict(c["hipersockets"][0], chpid="f0", control_unit="F100"))),
        ["chpid F0 is already defined as"],
    ),
    (
        "overlapping device numbers",
        cpc(lambda c: c["hipersockets"].append(dict(c["hipersockets"][0], chpid="F1", control_unit="F100"))),
        ["overlap the device numbers of"],
    ),
    # -- ISM -----------------------------------------------------------------------------------
    (
        "vchid above FFF",
        cpc(lambda c: c["ism"][0].update(vchid=0x1000)),
        ["ISM 0: vchid 4096 is not a number in 0-FFF"],
    ),
    (
        "one VCHID in two spellings",
        cpc(lambda c: c["ism"].append({"vchid": "7c8", "functions": [{"fid": 0x607, "vf": 3, "partition": "LPARA"}]})),
        ["vchid is defined twice"],
    ),
    (
        "one FID in two spellings",
        cpc(lambda c: c["ism"][0]["functions"].append({"fid": "605", "vf": 3, "partition": "LPARA"})),
        ["fid is a duplicate FID, already defined in ISM VCHID 7C8 FID 0x605"],
    ),
    ("fid not hex", cpc(fn(0, fid="fid5")), ["function 0: fid 'fid5' is not a number in 0-FFFFFFFF"]),
    ("uid 0", cpc(fn(0, uid=0)), ["ISM VCHID 7C8 FID 0x605: uid 0x0 is outside 0001-FFFF"]),
    ("uid above FFFF", cpc(fn(0, uid=0x10000)), ["uid 0x10000 is outside 0001-FFFF"]),
    ("vf 0", cpc(fn(0, vf=0)), ["ISM VCHID 7C8 FID 0x605: vf 0 is outside 1-255"]),
    ("vf 256", cpc(fn(0, vf=256)), ["vf 256 is outside 1-255"]),
    ("vf twice in a VCHID", cpc(fn(1, vf="1")), ["vf 1 is duplicated within the VCHID"]),
    ("uid twice with UID checking", cpc(fn(1, uid="605", partition="LPARA")), ["uid 0x0605 is duplicated within"]),
    ("FID in two partitions", cpc(fn(0, partition=["LPARA", "LPARB"])), ["more than one partition"]),
    ("FID without partition", cpc(fn(0, partition=None)), ["partition is required"]),
    ("guest path", cpc(fn(0, guest="../../etc/g1")), ["guest '../../etc/g1' is not a KVM guest (libvirt domain) name"]),
    ("guest with a slash", cpc(fn(0, guest="g/1")), ["ISM VCHID 7C8 FID 0x605: guest 'g/1' is not a KVM guest"]),
    ("guest with a control character", cpc(fn(0, guest="g\x011")), ["guest 'g\\x011' is not a KVM guest"]),
    ("guest with a blank", cpc(fn(0, guest="g 1")), ["guest 'g 1' is not a KVM guest (libvirt domain) name"]),
    ("guest too long", cpc(fn(0, guest="g" * 49)), ["is not a KVM guest (libvirt domain) name (1-48 characters"]),
    ("smcd_peers of one", cpc(lambda c: c.update(smcd_peers=[["g1"]])), ["smcd_peers[0]: must be a list of at least"]),
    ("smcd_peers unknown", cpc(lambda c: c.update(smcd_peers=[["g1", "g9"]])), ["smcd_peers[0]: names g9 which is"]),
    # -- OSA and RoCE --------------------------------------------------------------------------
    (
        "OSA type",
        cpc(
            lambda c: c.update(
                osa=[
                    {
                        "chpid": "E0",
                        "pchid": 0x100,
                        "type": "OSE",
                        "partitions": ["LPARA"],
                        "control_unit": "E000",
                        "devices": {"first": "BD00", "count": 3},
                    }
                ]
            )
        ),
        ["OSA CHPID E0: type 'OSE' is not one of OSD"],
    ),
    (
        "RoCE port 3",
        cpc(
            lambda c: c.update(
                roce=[{"pchid": 0x15C, "functions": [{"fid": 0x20E, "vf": 1, "port": 3, "partition": "LPARA"}]}]
            )
        ),
        ["RoCE PCHID 15C FID 0x20e: port 3 is not 1 or 2"],
    ),
    (
        "RoCE type",
        cpc(lambda c: c.update(roce=[{"pchid": 0x15C, "type": "ROC3", "functions": []}])),
        ["RoCE PCHID 15C: type 'ROC3' is not one of ROCE, ROC2"],
    ),
    (
        "RoCE on z17",
        cpc(
            lambda c: c.update(
                machine="9176",
                roce=[{"pchid": 0x15C, "functions": [{"fid": 0x20E, "vf": 1, "port": 1, "partition": "LPARA"}]}],
            )
        ),
        ["RoCE PCHID 15C FID 0x20e: type ROC2 (RoCE Express) is not supported on z17 (machine type 9176)"],
    ),
    # -- Network Express -----------------------------------------------------------------------
    ("Network Express on z16", cpc(netx(machine="z16")), ["Network Express PCHID 314: type NETH (Network Express)"]),
    ("Network Express type", cpc(netx({"type": "OSH"})), ["PCHID 314: type 'OSH' is not NETH (hybrid mode) or"]),
    ("Network Express port", cpc(netx(port=2)), ["FID 0x10: port 2 is not allowed on TYPE=NETH"]),
    ("Network Express pf on NETH", cpc(netx(pf=True)), ["FID 0x10: pf true is not allowed on TYPE=NETH"]),
    ("Network Express pf and vf", cpc(netx({"type": "NETD"}, pf=True)), ["pf true and vf 1 exclude each other"]),
    ("Network Express no vf", cpc(netx(vf=None)), ["Network Express PCHID 314 FID 0x10: vf is required"]),
    ("Network Express fidparm", cpc(netx(fidparm="02")), ["FID 0x10: fidparm '02' is not 00 or 01"]),
    ("Network Express fidparm on NETD", cpc(netx({"type": "NETD"}, fidparm=1)), ["fidparm 01 is not allowed on"]),
    ("Network Express vf range", cpc(netx(vf=124)), ["FID 0x10: vf 124 is outside 0-123 per port for TYPE=NETH"]),
    ("Network Express pnet_id", cpc(netx(pnet_id="net1")), ["FID 0x10: pnet_id 'net1' is not a valid PNET ID"]),
    (
        "Network Express OSH on NETD",
        cpc(netx({"type": "NETD", "osh": {"chpid": "D0", "partitions": ["LPARB"]}})),
        ["PCHID 314 OSH CHPID D0: CHPID TYPE=OSH needs a port in hybrid mode"],
    ),
    (
        "Network Express OSH PNET ID",
        cpc(netx({"osh": {"chpid": "D0", "partitions": ["LPARB"], "pnet_id": "OTHER"}})),
        ["OSH CHPID D0: pnet_id OTHER differs from NETWORK1 of NETH FID 0x10"],
    ),
    ("Network Express card label", cpc(netx({"card": "a b"})), ["PCHID 314: card 'a b' is not a card label"]),
    # -- every problem in one message ----------------------------------------------------------
    (
        "all problems of the model",
        cpc(both(lambda c: c.update(machine="z14"), iqd(frame_size="32K"), fn(0, uid=0))),
        ["cpc has 3 validation error(s)", "machine 'z14'", "frame_size '32K'", "uid 0x0 is outside"],
    ),
]


@pytest.mark.parametrize("name,args,fragments", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_refused_before_dest_is_touched(monkeypatch, run_module, name, args, fragments):
    HostGuard(monkeypatch, run_module).refuses(iocp.main, args(), fragments)


@pytest.mark.parametrize("name,args,fragments", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_refused_in_check_mode_too(monkeypatch, run_module, name, args, fragments):
    HostGuard(monkeypatch, run_module).refuses(iocp.main, args(), fragments, check_mode=True)


@pytest.mark.parametrize("mode", ["0644", "644", 0o644, "u=rw,g=r,o=r", "u+rw-x,go=", "a+X"])
def test_modes_ansible_applies_are_accepted(run_module, tmp_path, mode):
    dest = tmp_path / "ZLAB.iocp"
    result = run_module(iocp.main, {"cpc": load_cpc("lab_cpc.yml"), "dest": str(dest), "mode": mode}).result
    assert not result["failed"], result["msg"]
    assert dest.exists()


def test_the_guard_sees_a_module_that_writes_dest(monkeypatch, run_module):
    guard = HostGuard(monkeypatch, run_module)
    with pytest.raises(AssertionError):
        guard.run(iocp.main, cpc(lambda c: None)())
    assert guard.accesses
