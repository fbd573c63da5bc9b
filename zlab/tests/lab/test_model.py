# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The CPC model read from inventories (no root needed): both readers, validation messages."""

import os

import pytest

from zlab import model

from labutil import LAB_INVENTORY


@pytest.fixture(params=["ansible-inventory", "yaml"])
def reader(request, monkeypatch):
    if request.param == "yaml":
        monkeypatch.setenv("ZLAB_NO_ANSIBLE_INVENTORY", "1")
    elif model._ansible_inventory_bin() is None:  # pylint: disable=protected-access
        pytest.skip("ansible-inventory not installed")
    return request.param


def test_builtin_lab_is_the_studys_environment(reader):  # pylint: disable=unused-argument
    m = model.load(LAB_INVENTORY)
    assert list(m.hosts) == ["lpar-a", "lpar-b", "g1"]
    a, b, g = m.hosts["lpar-a"], m.hosts["lpar-b"], m.hosts["g1"]
    assert (a["role"], b["role"], g["role"]) == ("kvm_host", "lpar", "guest")
    assert g["kvm_host"] == "lpar-a" and a["guests"] == ["g1"]
    assert all(h["kernel_profile"] == "rhel8.8" for h in m.hosts.values())
    assert a["uid_checking"] and b["uid_checking"]
    devs = [c["devno"] for c in a["ccw"]]
    assert devs[0] == "0.0.8200" and devs[-1] == "0.0.820f" and len(devs) == 16
    assert {c["chpid"] for c in a["ccw"]} == {"F0"} and a["ccw"][0]["frame_size"] == "40K"
    assert a["pci"] == [
        {
            "fid": 0x605,
            "uid": 0x605,
            "pchid": 0x7C8,
            "pft": 0x05,
            "vfn": 1,
            "port": 0,
            "pnet_id": None,
            "vendor": 0x1014,
            "device": 0x04ED,
            "type": "ism",
        }
    ]
    assert [p["fid"] for p in b["pci"]] == [0x606] and b["pci"][0]["vfn"] == 2
    assert m.chpids["F0"]["mtu"] == 32768
    assert m.hostvars["lpar-b"]["smc_buffer_size"] == "128K"
    spec = m.host_spec("lpar-a")
    assert set(spec) == {
        "name",
        "partition",
        "role",
        "kernel_profile",
        "uid_checking",
        "ccw",
        "pci",
        "cio_ignore",
        "lpar_number",
        "cpc",
    }
    # /proc/sysinfo: the CPC, the partition's number (MIF image ID); a guest shows its host's
    assert (spec["cpc"], spec["lpar_number"], spec["cio_ignore"]) == ({"name": "ZLAB", "machine": "z16"}, 1, None)
    assert (m.host_spec("lpar-b")["lpar_number"], m.host_spec("g1")["lpar_number"]) == (2, 1)


def _inventory(tmp_path, cpc, hosts="all:\n  hosts:\n    h1:\n", host_vars=None):
    (tmp_path / "group_vars" / "all").mkdir(parents=True)
    (tmp_path / "hosts.yml").write_text(hosts)
    (tmp_path / "group_vars" / "all" / "cpc.yml").write_text(cpc)
    for name, text in (host_vars or {}).items():
        (tmp_path / "host_vars").mkdir(exist_ok=True)
        (tmp_path / "host_vars" / (name + ".yml")).write_text(text)
    return str(tmp_path)


GOOD = """cpc:
  name: X
  machine: z16
  partitions: [{name: P1, mif_id: 1, host: h1}, {name: P2, mif_id: 2}]
  hipersockets:
    - {chpid: F1, frame_size: 64K, control_unit: F100, devices: {first: "7000", count: 3},
       partitions: [P1, P2]}
"""


OSA = """  osa:
    - {chpid: "20", pchid: 1D4, type: OSD, partitions: [P1], control_unit: "2000",
       devices: {first: "2000", count: 3}}
"""


def test_inventory_outside_the_repo_and_partitions_without_host(reader, tmp_path):
    # pylint: disable=unused-argument
    m = model.load(_inventory(tmp_path, GOOD, host_vars={"h1": "zlab_kernel: sles15sp5\n"}))
    assert list(m.hosts) == ["h1"]
    assert m.hosts["h1"]["kernel_profile"] == "sles15sp5"
    assert [c["devno"] for c in m.hosts["h1"]["ccw"]] == ["0.0.7000", "0.0.7001", "0.0.7002"]
    assert m.chpids["F1"]["mtu"] == 57344


# zlab rejects what the collection's normaliser (cpc_model.normalize_cpc) rejects, with its messages
@pytest.mark.parametrize(
    "bad, message",
    [
        (GOOD.replace("64K", "32K"), "HiperSockets CHPID F1: frame_size '32K' is not one of"),
        (
            GOOD.replace("[P1, P2]", "[P1, P9]"),
            "HiperSockets CHPID F1: partitions names partition P9 which is not in cpc.partitions",
        ),
        (GOOD.replace('"7000"', '"7zzz"'), "HiperSockets CHPID F1 control unit F100: devices.first"),
        (GOOD.replace("{name: P2, mif_id: 2}", "{name: p1, mif_id: 2}"), "partition P1: name is defined twice"),
        (GOOD.replace("machine: z16", "machine: z14"), "cpc: machine 'z14' is not one of"),
        ("other: 1\n", "cpc: the inventory defines no cpc"),
        (
            GOOD + "  ism:\n    - {vchid: 7C8, functions: [{fid: 0x10, vf: 1, partition: PX}]}\n",
            "ISM VCHID 7C8 FID 0x10: partition names partition PX which is not in cpc.partitions",
        ),
        # an unquoted CHPID is hex (10 = 0A) and then clashes with OSA CHPID 0A, as in the iocds role
        (
            GOOD.replace("chpid: F1", "chpid: 10") + OSA.replace("chpid: \"20\"", "chpid: \"0A\""),
            "OSA CHPID 0A: chpid 0A is already defined as HiperSockets CHPID 0A",
        ),
    ],
)
def test_bad_models_name_the_field(tmp_path, monkeypatch, bad, message):
    monkeypatch.setenv("ZLAB_NO_ANSIBLE_INVENTORY", "1")
    with pytest.raises(model.ModelError) as exc:
        model.load(_inventory(tmp_path, bad))
    assert message in str(exc.value)


def _ccw(m, host):
    return [(c["devno"], c["chpid"], c["chpid_type"]) for c in m.hosts[host]["ccw"]]


@pytest.mark.parametrize(
    "devices",
    [
        'devices: "7000-7002"',  # range string
        'devices: {first: "0.0.7000", count: 3}',  # bus-ID form
        'devices: {first: "0x7000", count: "3"}',
    ],
)
def test_device_forms_of_the_model_docs(reader, tmp_path, devices):
    # pylint: disable=unused-argument
    cpc = GOOD.replace('devices: {first: "7000", count: 3}', devices)
    m = model.load(_inventory(tmp_path, cpc))
    assert _ccw(m, "h1") == [("0.0.7000", "F1", "IQD"), ("0.0.7001", "F1", "IQD"), ("0.0.7002", "F1", "IQD")]
    assert m.warnings == []


def test_control_units_list_gives_every_devices_range(reader, tmp_path):
    # pylint: disable=unused-argument
    cpc = GOOD.replace(
        'control_unit: F100, devices: {first: "7000", count: 3}',
        'control_units: [{number: F100, devices: {first: "7000", count: 3}}, ' '{number: F101, devices: "7100-7102"}]',
    )
    cpc += OSA.replace(
        'control_unit: "2000",\n       devices: {first: "2000", count: 3}',
        'control_units: [{number: "2000", devices: {first: "2000", count: 3}}]',
    )
    m = model.load(_inventory(tmp_path, cpc))
    assert [d for d, _c, _t in _ccw(m, "h1")] == [
        "0.0.7000",
        "0.0.7001",
        "0.0.7002",
        "0.0.7100",
        "0.0.7101",
        "0.0.7102",
        "0.0.2000",
        "0.0.2001",
        "0.0.2002",
    ]
    assert {c: t for _d, c, t in _ccw(m, "h1")} == {"F1": "IQD", "20": "OSD"}
    assert m.chpids["20"]["mtu"] == 1500 and m.chpids["F1"]["mtu"] == 57344


def test_partition_names_in_any_case(reader, tmp_path):
    # pylint: disable=unused-argument
    cpc = GOOD.replace("[P1, P2]", "[p1, P2]").replace("{name: P2,", "{name: p2,") + (
        "  uid_checking: [p1]\n"
        "  ism:\n    - {vchid: 7C8, functions: [{fid: 0x605, vf: 1, partition: p1, guest: g1}]}\n"
    )
    m = model.load(_inventory(tmp_path, cpc))
    h1 = m.hosts["h1"]
    assert h1["partition"] == "P1" and h1["uid_checking"] and h1["role"] == "kvm_host"
    assert len(h1["ccw"]) == 3 and [p["fid"] for p in h1["pci"]] == [0x605]
    assert m.hosts["g1"]["kvm_host"] == "h1" and m.hosts["g1"]["partition"] == "P1"
    assert m.hosts["h1"]["pci"][0]["uid"] == 0x605  # no uid: the FID, as before


def test_unquoted_chpid_is_hex_and_count_defaults_to_one(reader, tmp_path):
    # pylint: disable=unused-argument
    # docs/cpc-model.md: an unquoted 10 is the YAML int 10 = CHPID 0A; devices.count default 1
    cpc = GOOD.replace("chpid: F1", "chpid: 10").replace(', count: 3}', '}')
    m = model.load(_inventory(tmp_path, cpc))
    assert _ccw(m, "h1") == [("0.0.7000", "0A", "IQD")]
    assert list(m.chpids) == ["0A"]
    assert any("chpid was given as the integer 10 and is read as hex 0A" in w for w in m.warnings)
    assert any("devices count 1 is below 3" in w for w in m.warnings)


def test_osa_ports_are_zlabs_own_key(tmp_path, monkeypatch):
    monkeypatch.setenv("ZLAB_NO_ANSIBLE_INVENTORY", "1")
    m = model.load(_inventory(tmp_path, GOOD + OSA.replace("type: OSD", "type: OSD, ports: 2")))
    assert {c["chpid"]: c["ports"] for c in m.hosts["h1"]["ccw"]} == {"F1": 1, "20": 2}
    assert m.warnings == []  # cpc_model's "ports is not a known field" is not shown
    with pytest.raises(model.ModelError, match=r"cpc.osa\[0\].ports: 0 out of range 1..16"):
        model.load(_inventory(tmp_path / "x", GOOD + OSA.replace("type: OSD", "type: OSD, ports: 0")))


def test_unknown_kernel_profile(tmp_path, monkeypatch):
    monkeypatch.setenv("ZLAB_NO_ANSIBLE_INVENTORY", "1")
    inv = _inventory(tmp_path, GOOD, host_vars={"h1": "zlab_kernel: rhel9\n"})
    with pytest.raises(model.ModelError, match="h1: zlab_kernel rhel9 not one of"):
        model.load(inv)


def test_cio_ignore_is_the_kernel_parameter(tmp_path, monkeypatch):
    monkeypatch.setenv("ZLAB_NO_ANSIBLE_INVENTORY", "1")
    inv = _inventory(tmp_path, GOOD, host_vars={"h1": 'zlab_cio_ignore: "all,!condev,!zz"\n'})
    m = model.load(inv)
    assert m.host_spec("h1")["cio_ignore"] == "all,!condev,!zz"
    # the kernel skips an item it cannot parse (and says so)
    assert m.warnings == ["h1: zlab_cio_ignore: zz is not a valid device for the cio_ignore " "kernel parameter"]
    (tmp_path / "host_vars" / "h1.yml").write_text("zlab_cio_ignore: [all]\n")
    with pytest.raises(model.ModelError, match="h1: zlab_cio_ignore must be a string"):
        model.load(inv)


def test_guests_come_from_kvm_guests(tmp_path, monkeypatch):
    monkeypatch.setenv("ZLAB_NO_ANSIBLE_INVENTORY", "1")
    inv = _inventory(tmp_path, GOOD, host_vars={"h1": "kvm_guests:\n  - name: vm1\n  - vm2\n"})
    m = model.load(inv)
    assert list(m.hosts) == ["h1", "vm1", "vm2"]
    assert m.hosts["h1"]["role"] == "kvm_host"
    assert m.hosts["vm2"]["kvm_host"] == "h1" and m.hosts["vm2"]["ccw"] == []
    assert os.path.isabs(m.inventory)


EXAMPLE_INVENTORY = os.path.join(os.path.dirname(LAB_INVENTORY), "example")


def _two_cpc_inventory(tmp_path, ref_a='"{{ cpc_a }}"'):
    """Two CPC groups whose group_vars set ``cpc`` by reference, as inventories/example does."""
    (tmp_path / "group_vars" / "all").mkdir(parents=True)
    (tmp_path / "hosts.yml").write_text(
        "all:\n  children:\n    cpc_a:\n      hosts:\n        h1:\n"
        "    cpc_b:\n      hosts:\n        h2:\n        h3:\n"
    )
    (tmp_path / "group_vars" / "all" / "cpcs.yml").write_text(
        GOOD.replace("cpc:", "cpc_a:", 1)
        + GOOD.replace("cpc:", "cpc_b:", 1)
        .replace("name: X", "name: Y")
        .replace("host: h1}, {name: P2, mif_id: 2}", "host: h2}, {name: P2, mif_id: 2, host: h3}")
    )
    (tmp_path / "group_vars" / "cpc_a.yml").write_text("cpc: %s\n" % ref_a)
    (tmp_path / "group_vars" / "cpc_b.yml").write_text('cpc: "{{cpc_b}}"\n')
    return str(tmp_path)


def test_an_inventory_of_two_cpcs_needs_the_choice_of_one(reader, tmp_path):
    # pylint: disable=unused-argument
    inv = _two_cpc_inventory(tmp_path)
    with pytest.raises(model.ModelError) as exc:
        model.load(inv)
    assert str(exc.value) == (
        "cpc: the inventory has 2 CPCs (X: h1; Y: h2, h3); a lab emulates " "one: zlab up --cpc NAME"
    )
    m = model.load(inv, "y")
    assert list(m.hosts) == ["h2", "h3"] and m.cpc["name"] == "Y"
    assert [h["partition"] for h in m.hosts.values()] == ["P1", "P2"]
    assert list(model.load(inv, "X").hosts) == ["h1"]
    with pytest.raises(model.ModelError, match=r"--cpc Z: the inventory has CPC\(s\) X: h1; Y: h2"):
        model.load(inv, "Z")


@pytest.mark.parametrize(
    "ref, message",
    [
        (
            '"{{ cpc_a | default({}) }}"',
            "cpc of host h1 is '{{ cpc_a | default({}) }}': zlab follows " "only a plain reference",
        ),
        ('"{{ cpc_c }}"', "cpc of host h1 refers to cpc_c, which is not defined"),
        ('"{{ cpc }}"', "cpc of host h1 refers to cpc, which refers back to itself"),
        ("[1, 2]", "cpc of host h1: a mapping is required (docs/cpc-model.md), got list"),
    ],
)
def test_cpc_references_zlab_cannot_follow(tmp_path, monkeypatch, ref, message):
    monkeypatch.setenv("ZLAB_NO_ANSIBLE_INVENTORY", "1")
    with pytest.raises(model.ModelError) as exc:
        model.load(_two_cpc_inventory(tmp_path, ref), "Y")
    assert message in str(exc.value)


@pytest.mark.parametrize(
    "cpc, hosts",
    [
        ("PRODA", ["kvmp1", "dbp1", "app1", "app2"]),
        ("prodb", ["kvmp2", "dbp2", "app3"]),
    ],
)
def test_each_cpc_of_the_example_inventory(reader, cpc, hosts):
    # pylint: disable=unused-argument
    m = model.load(EXAMPLE_INVENTORY, cpc)
    assert list(m.hosts) == hosts
    guests = [h for h in hosts if h.startswith("app")]
    assert [m.hosts[g]["role"] for g in guests] == ["guest"] * len(guests)
    assert m.warnings == []
