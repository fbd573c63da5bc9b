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
    assert a["pci"] == [{"fid": 0x605, "uid": 0x605, "pchid": 0x7C8, "pft": 0x05, "vfn": 1,
                         "port": 0, "pnet_id": None, "vendor": 0x1014, "device": 0x04ED,
                         "type": "ism"}]
    assert [p["fid"] for p in b["pci"]] == [0x606] and b["pci"][0]["vfn"] == 2
    assert m.chpids["F0"]["mtu"] == 32768
    assert m.hostvars["lpar-b"]["smc_buffer_size"] == "128K"
    spec = m.host_spec("lpar-a")
    assert set(spec) == {"name", "partition", "role", "kernel_profile", "uid_checking", "ccw",
                         "pci"}


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
  partitions: [{name: P1, host: h1}, {name: P2}]
  hipersockets:
    - {chpid: F1, frame_size: 64K, devices: {first: "7000", count: 3}, partitions: [P1, P2]}
"""


def test_inventory_outside_the_repo_and_partitions_without_host(reader, tmp_path):
    # pylint: disable=unused-argument
    m = model.load(_inventory(tmp_path, GOOD, host_vars={"h1": "zlab_kernel: sles15sp5\n"}))
    assert list(m.hosts) == ["h1"]
    assert m.hosts["h1"]["kernel_profile"] == "sles15sp5"
    assert [c["devno"] for c in m.hosts["h1"]["ccw"]] == ["0.0.7000", "0.0.7001", "0.0.7002"]
    assert m.chpids["F1"]["mtu"] == 57344


@pytest.mark.parametrize("bad, message", [
    (GOOD.replace("64K", "32K"), "cpc.hipersockets[0].frame_size: 32K not one of"),
    (GOOD.replace("[P1, P2]", "[P1, P9]"), "cpc.hipersockets[0].partitions: unknown partition P9"),
    (GOOD.replace('"7000"', '"7zzz"'), "cpc.hipersockets[0].devices.first"),
    (GOOD.replace("{name: P2}", "{name: P1}"), "cpc.partitions[1].name: duplicate P1"),
    ("other: 1\n", "cpc: the inventory defines no cpc"),
    (GOOD + "  ism:\n    - {vchid: 7C8, functions: [{fid: 0x10, partition: PX}]}\n",
     "cpc.ism[0].functions[0].partition: unknown partition PX"),
])
def test_bad_models_name_the_field(tmp_path, monkeypatch, bad, message):
    monkeypatch.setenv("ZLAB_NO_ANSIBLE_INVENTORY", "1")
    with pytest.raises(model.ModelError) as exc:
        model.load(_inventory(tmp_path, bad))
    assert message in str(exc.value)


def test_unknown_kernel_profile(tmp_path, monkeypatch):
    monkeypatch.setenv("ZLAB_NO_ANSIBLE_INVENTORY", "1")
    inv = _inventory(tmp_path, GOOD, host_vars={"h1": "zlab_kernel: rhel9\n"})
    with pytest.raises(model.ModelError, match="h1: zlab_kernel rhel9 not one of"):
        model.load(inv)


def test_guests_come_from_kvm_guests(tmp_path, monkeypatch):
    monkeypatch.setenv("ZLAB_NO_ANSIBLE_INVENTORY", "1")
    inv = _inventory(tmp_path, GOOD, host_vars={"h1": "kvm_guests:\n  - name: vm1\n  - vm2\n"})
    m = model.load(inv)
    assert list(m.hosts) == ["h1", "vm1", "vm2"]
    assert m.hosts["h1"]["role"] == "kvm_host"
    assert m.hosts["vm2"]["kvm_host"] == "h1" and m.hosts["vm2"]["ccw"] == []
    assert os.path.isabs(m.inventory)
