# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""zlab's command line without a lab: which lab a command names, `up` of a lab that is up,
`status` of a lab that does not exist, `start-guest` of a running guest. lab.json lives in a temp
STATE_ROOT; nothing is started."""

import json
import os

import pytest

from zlab import cli, guests, host, inventory, model


class FakeModel:
    """What cmd_up reads of a zlab.model.Model."""

    def __init__(self, inventory, digest="d1", hostvars=None):
        self.inventory = inventory
        self._digest = digest
        self.warnings = ["HiperSockets CHPID 0A control unit F200: devices count 1 is below 3"]
        self.groups = {
            "all": {"hosts": [], "children": ["lpars"], "vars": {"cpc": {"name": "Z"}}},
            "lpars": {"hosts": ["solo"], "children": [], "vars": {}},
        }
        self.own_hostvars = {"solo": dict(hostvars or {"qeth_devices": [{"id": "0.0.9000"}]})}
        self.cpc = {"name": "Z"}

    def digest(self):
        return self._digest


SOLO = {
    "index": 0,
    "role": "lpar",
    "partition": "LP01",
    "kernel_profile": "linux6.12",
    "ip": "10.209.7.10",
    "kvm_host": None,
    "spec": {"ccw": [], "pci": []},
}


@pytest.fixture
def state(tmp_path, monkeypatch):
    """A temp STATE_ROOT without namespaces; returns a function that writes a lab record."""
    monkeypatch.setattr(host, "STATE_ROOT", str(tmp_path))
    monkeypatch.setattr(host.network, "netns_list", lambda: [])
    # nothing here may build a lab for real
    monkeypatch.setattr(host, "down", lambda name: pytest.fail("zlab down %s" % name))
    monkeypatch.setattr(cli.image, "build", lambda *a, **k: pytest.fail("image build"))
    monkeypatch.setattr(host.Lab, "create", lambda *a, **k: pytest.fail("Lab.create"))

    def make_lab(name, inventory, digest="d1"):
        mdl = FakeModel(inventory, digest)
        os.makedirs(os.path.join(str(tmp_path), name))
        host.Lab(
            name,
            {
                "name": name,
                "slot": 7,
                "digest": digest,
                "inventory": inventory,
                "cpc_name": "Z",
                "hosts": {"solo": dict(SOLO)},
                "groups": mdl.groups,
                "own_hostvars": mdl.own_hostvars,
            },
        ).save()

    return make_lab


def _up(monkeypatch, argv, mdl):
    monkeypatch.setattr(model, "load", lambda inv, cpc=None: mdl)
    return cli.cmd_up(cli.parser().parse_args(argv))


def test_up_takes_the_lab_name_from_lab_option(state, monkeypatch, capsys):
    state("fx-named", "/inv/rvi2")
    monkeypatch.setattr(host.Lab, "host_state", lambda self, h: "running")
    # `zlab --lab NAME up DIR` and `zlab up DIR --lab NAME` act on NAME, not on "rvi2"
    for argv in (
        ["--lab", "fx-named", "up", "/inv/rvi2"],
        ["up", "/inv/rvi2", "--lab", "fx-named"],
        ["up", "/inv/rvi2", "--name", "fx-named"],
    ):
        assert _up(monkeypatch, argv, FakeModel("/inv/rvi2")) == 0
        assert "lab fx-named is already up (1 hosts)" in capsys.readouterr().out
    with pytest.raises(host.LabError, match="--name fx-a and --lab fx-b name two labs"):
        _up(monkeypatch, ["--lab", "fx-b", "up", "/inv/rvi2", "--name", "fx-a"], FakeModel("/inv/rvi2"))


@pytest.mark.parametrize(
    "argv, name",
    [
        (["up", "/inv/example"], "example"),
        (["up", "/inv/example", "--cpc", "PRODA"], "example-proda"),  # one lab per CPC
        (["up", "/srv/Data Centre 1/inventory", "--cpc", "Z 16"], "data-centre-1-z-16"),
        (["up", "/inv/a-very-long-inventory-name", "--cpc", "PRODUCTION-A"], "a-very-long-producti"),
        (["up", "/inv/example", "--cpc", "PRODA", "--name", "mine"], "mine"),
    ],
)
def test_default_lab_name_of_a_cpc_of_a_multi_cpc_inventory(argv, name):
    assert cli._up_name(cli.parser().parse_args(argv)) == name  # pylint: disable=protected-access


def test_up_of_an_unchanged_lab_refreshes_its_variables(state, monkeypatch, capsys):
    state("fx-up", "/inv/x")
    monkeypatch.setattr(host.Lab, "host_state", lambda self, h: "running")
    edited = FakeModel("/inv/x", hostvars={"qeth_devices": [{"id": "0.0.9000", "layer2": False}]})
    assert _up(monkeypatch, ["--lab", "fx-up", "up", "/inv/x"], edited) == 0
    out = capsys.readouterr()
    assert "lab fx-up is already up (1 hosts); groups and host variables refreshed from /inv/x" in out.out
    assert "zlab: warning: HiperSockets CHPID 0A control unit F200: devices count 1" in out.err
    lab = host.Lab.load("fx-up")
    assert lab.data["own_hostvars"]["solo"]["qeth_devices"] == [{"id": "0.0.9000", "layer2": False}]
    assert lab.data["hosts"]["solo"] == SOLO  # hosts untouched
    # the inventory `zlab inventory` prints has the edited variable
    assert inventory.build(lab)["all"]["hosts"]["solo"]["qeth_devices"][0]["layer2"] is False
    assert _up(monkeypatch, ["--lab", "fx-up", "up", "/inv/x"], edited) == 0
    assert "already up (1 hosts); inventory variables unchanged" in capsys.readouterr().out


class Rebuilt(Exception):
    pass


@pytest.mark.parametrize(
    "inventory, digest, state_of_hosts",
    [
        ("/inv/x", "d2", "running"),  # the CPC changed
        ("/inv/y", "d1", "running"),  # another inventory
        ("/inv/x", "d1", "stopped"),  # a host is not running
    ],
)
def test_up_of_a_changed_lab_rebuilds_it(state, monkeypatch, capsys, inventory, digest, state_of_hosts):
    state("fx-up", "/inv/x")
    monkeypatch.setattr(host.Lab, "host_state", lambda self, h: state_of_hosts)
    downs = []

    def down(name):
        downs.append(name)
        raise Rebuilt()

    monkeypatch.setattr(host, "down", down)
    with pytest.raises(Rebuilt):
        _up(monkeypatch, ["--lab", "fx-up", "up", inventory], FakeModel(inventory, digest))
    assert downs == ["fx-up"]
    assert "differs from %s or is not running; rebuilding" % inventory in capsys.readouterr().err


def test_status_of_a_lab_that_does_not_exist(state, capsys):  # pylint: disable=unused-argument
    assert cli.main(["--lab", "fx-none", "status"]) == 1
    out = capsys.readouterr()
    assert out.out == "" and "zlab: lab fx-none is not up" in out.err
    assert cli.main(["status", "fx-none", "--json"]) == 1
    assert "lab fx-none is not up" in capsys.readouterr().err


def test_status_of_a_crashed_lab(state, tmp_path, monkeypatch, capsys):
    # pylint: disable=unused-argument
    os.makedirs(str(tmp_path / "fx-dir" / "hosts"))  # files left, record gone
    monkeypatch.setattr(host.network, "netns_list", lambda: ["zlab-fx-ns-sw"])  # namespaces left
    for name in ("fx-dir", "fx-ns"):
        assert cli.main(["--lab", name, "status"]) == 0
        assert capsys.readouterr().out == "lab %s: crashed (zlab down %s)\n" % (name, name)


def test_status_of_a_lab_that_is_up(state, monkeypatch, capsys):
    state("fx-up", "/inv/x")
    monkeypatch.setattr(host.Lab, "host_state", lambda self, h: "stopped")
    monkeypatch.setattr(host.Lab, "running", lambda self, h: False)
    lab = host.Lab.load("fx-up")
    lab.data["emulator"] = True
    lab.save()
    assert cli.main(["--lab", "fx-up", "status", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["hosts"]["solo"]["state"] == "stopped"


class RunningGuestLab:
    def host(self, name):
        return {"name": name, "role": "guest", "kvm_host": "kvm-a"}

    def running(self, name):  # pylint: disable=unused-argument
        return True


def test_start_of_a_running_guest_says_what_to_do():
    with pytest.raises(host.LabError) as exc:
        guests.start(RunningGuestLab(), "g1")
    assert str(exc.value).startswith("g1 is already running (zlab up starts every guest")
    assert "zlab stop-guest g1 first" in str(exc.value)
