# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every failure path of the changing modules, driven by `zlab fault` on the built-in lab.

Each case brings an object into a known old state with the module itself, injects one fault,
runs the module towards a new state and asserts, read from the host (not from the module's
result): the exact state after the failure (old or new, never a mix), what the module says it
ran and restored, the state after a reboot (what persists is consistent with what is active),
and that a clean re-run converges and a second one changes nothing. Tests run in file order
on one lab; each case starts by setting its own old state.
"""

import json
import re

import pytest

from labutil import in_host, playbook_run, run_module, zlab

RULES = "/etc/udev/rules.d"
ZPCI_RULES = RULES + "/60-s390x-network-zpci.rules"
ZPCI_TMPFILES = "/etc/tmpfiles.d/s390x-network-zpci.conf"
ZPCI_MODULES = "/etc/modules-load.d/s390x-network-zpci.conf"


@pytest.fixture(scope="module")
def run(lab):
    def _run(host, module, **args):
        return run_module(lab["inventory"], host, "s390x.network." + module, args)

    return _run


def _ok(result):
    assert not result.get("failed"), result.get("msg")
    return result


def _failed(result, *texts):
    assert result.get("failed"), result
    for text in texts:
        assert text in result["msg"], result["msg"]
    return result


def _no_faults(host):
    assert zlab("fault", host, "list").stdout.splitlines() == ["%s: no pending faults" % host]


def _reboot(host):
    zlab("reboot", host)


def _converges(run, host, module, args, read, new):
    """A clean run reaches ``new``, a second run changes nothing, ``new`` survives a reboot."""
    _no_faults(host)
    assert _ok(run(host, module, **args))["changed"] is True
    assert read() == new
    assert _ok(run(host, module, **args))["changed"] is False
    _reboot(host)
    assert read() == new


# -- zpci_function -------------------------------------------------------------------------------


def _zpci(host, fid):
    """FID's power, driver and driver_override; the driver its udev rule binds, whether tmpfiles
    powers it on at boot, and the modules loaded at boot for the binding."""
    slot = "/sys/bus/pci/slots/%08x" % fid
    out = in_host(
        host,
        "cat %s/power; a=$(cat %s/address 2>/dev/null); d=/sys/bus/pci/devices/$a.0; "
        "if [ -n \"$a\" ] && [ -e $d ]; then basename $(readlink $d/driver 2>/dev/null || echo -); "
        "cat $d/driver_override; else echo -; echo -; fi" % (slot, slot),
    ).stdout.split()
    rules = in_host(host, "cat %s 2>/dev/null || true" % ZPCI_RULES).stdout
    rule = re.search(r'ATTR\{function_id\}=="0x%08x", ATTR\{driver_override\}="([^"]*)"' % fid, rules)
    tmpfiles = in_host(host, "cat %s 2>/dev/null || true" % ZPCI_TMPFILES).stdout
    modules = in_host(host, "cat %s 2>/dev/null || true" % ZPCI_MODULES).stdout
    return {
        "power": {"1": "on", "0": "off"}[out[0]],
        "driver": None if out[1] == "-" else out[1],
        "override": None if out[2] in ("-", "(null)") else out[2],
        "boot_driver": rule.group(1) if rule else None,
        "boot_power": "w %s/power - - - - 1" % slot in tmpfiles,
        "boot_modules": [m.strip() for m in modules.splitlines() if m.strip() and not m.startswith("#")],
    }


ISM = {"power": "on", "driver": "ism", "override": "ism", "boot_driver": "ism", "boot_power": True, "boot_modules": []}
VFIO = dict(ISM, driver="vfio-pci", override="vfio-pci", boot_driver="vfio-pci", boot_modules=["vfio-pci"])
OFF = {"power": "off", "driver": None, "override": None, "boot_driver": None, "boot_power": False, "boot_modules": []}


def _zpci_args(fid, power="on", driver="ism"):
    entry = {"fid": "0x%x" % fid, "power": power}
    if power == "on":
        entry["driver"] = driver
    return {"config": [entry], "persistent": True}


def _fault_case(run, host, module, read, old, new, fault, *texts):
    """``old`` and ``new``: (module arguments, state read from the host). Sets ``old``, injects
    ``fault`` (``zlab fault HOST ...`` arguments), runs towards ``new``: the run fails naming
    ``texts``, the host stays ``old``, also after a reboot; then a clean run converges to ``new``.
    Returns the failed run's result for the case's own assertions."""
    (old_args, old_state), (new_args, new_state) = old, new
    _ok(run(host, module, **old_args))
    assert read() == old_state
    zlab("fault", host, *fault)
    res = _failed(run(host, module, **new_args), *texts)
    assert read() == old_state, res
    _reboot(host)
    assert read() == old_state
    _converges(run, host, module, new_args, read, new_state)
    return res


def _zpci_case(old, new, fault, *texts, run):
    """lpar-b's FID 0x606 between the states ``ism``, ``vfio`` and ``off``."""
    states = {
        "ism": (_zpci_args(0x606), ISM),
        "vfio": (_zpci_args(0x606, driver="vfio-pci"), VFIO),
        "off": (_zpci_args(0x606, power="off"), OFF),
    }
    read = lambda: _zpci("lpar-b", 0x606)  # noqa: E731
    return _fault_case(run, "lpar-b", "zpci_function", read, states[old], states[new], fault, *texts)


def test_zpci_modprobe_failing_leaves_the_old_driver_and_no_override(run):
    # lpar-b has never loaded vfio-pci: the binding needs modprobe, which fails
    fault = ("tool", "modprobe", "1", "--stderr", "modprobe: FATAL: Module vfio-pci not found")
    res = _zpci_case("ism", "vfio", fault, "modprobe vfio-pci failed", run=run)
    assert res["rollback"]["ok"] is True


def test_zpci_probe_failing_after_the_unbind_rebinds_the_old_driver(run):
    res = _zpci_case("ism", "vfio", ("write", "/sys/bus/pci/drivers_probe", "EIO"), "Input/output error", run=run)
    assert res["rollback"]["ok"] is True
    assert "echo 0606:00:00.0 > /sys/bus/pci/drivers_probe" in res["rollback"]["commands"]


def test_zpci_unbind_refused_keeps_the_old_binding(run):
    fault = ("write", "/sys/bus/pci/drivers/ism/unbind", "EBUSY")
    res = _zpci_case("ism", "vfio", fault, "Device or resource busy", run=run)
    assert res["rollback"]["ok"] is True


@pytest.mark.parametrize(
    "path, errno, text",
    [
        (ZPCI_RULES, "EROFS", "Read-only file system"),
        (ZPCI_MODULES, "ENOSPC", "No space left on device"),
    ],
)
def test_zpci_boot_file_that_cannot_be_written_changes_no_function(run, path, errno, text):
    # the files come first: the rules file fails (nothing written) or the modules-load file fails
    # after the rules file was written (the rules file is put back); no function is touched
    res = _zpci_case("ism", "vfio", ("write", path, errno), text, run=run)
    assert res["changed"] is False
    assert not any(c.startswith("echo") for c in res["commands"]), res["commands"]


def test_zpci_power_on_failing_keeps_the_function_in_standby_at_boot_too(run):
    fault = ("write", "/sys/bus/pci/slots/00000606/power", "EIO")
    res = _zpci_case("off", "ism", fault, "Input/output error", run=run)
    assert res["rollback"]["ok"] is True


def test_zpci_tmpfiles_failing_after_the_rules_file_keeps_both_files_old(run):
    res = _zpci_case("off", "ism", ("write", ZPCI_TMPFILES, "EIO"), "Input/output error", run=run)
    assert res["changed"] is False


def test_zpci_power_off_refused_keeps_the_function_on_and_bound(run):
    fault = ("write", "/sys/bus/pci/slots/00000606/power", "EBUSY")
    res = _zpci_case("ism", "off", fault, "Device or resource busy", run=run)
    assert res["rollback"]["ok"] is True


# -- qeth_device -----------------------------------------------------------------------------------


def _qeth(host, devno):
    """The group device's online, layer2 and buffer_count, and the settings of its chzdev udev rule
    (None: no rule); None when the device is not grouped."""
    d = "/sys/bus/ccwgroup/devices/0.0.%s" % devno
    out = in_host(host, "if [ -e %s ]; then cat %s/online %s/layer2 %s/buffer_count; fi" % (d, d, d, d)).stdout
    rule = in_host(host, "cat %s/41-qeth-0.0.%s.rules 2>/dev/null || true" % (RULES, devno)).stdout
    settings = dict(re.findall(r'ATTR\{\[ccwgroup/0\.0\.%s\]([a-z_0-9]+)\}="([^"]*)"' % devno, rule))
    active = out.split()
    if not active:
        return {"grouped": False, "rule": settings or None}
    return {
        "grouped": True,
        "online": active[0],
        "layer2": active[1],
        "buffer_count": active[2],
        "rule": settings or None,
    }


QETH_OLD = {
    "grouped": True,
    "online": "1",
    "layer2": "1",
    "buffer_count": "64",
    "rule": {"layer2": "1", "buffer_count": "64", "online": "1"},
}
QETH_NEW = {
    "grouped": True,
    "online": "1",
    "layer2": "0",
    "buffer_count": "128",
    "rule": {"layer2": "0", "buffer_count": "128", "online": "1"},
}
QETH_OLD_ARGS = {"config": [{"id": "0.0.8200", "layer2": True, "buffer_count": 64}]}
QETH_NEW_ARGS = {"config": [{"id": "0.0.8200", "layer2": False, "buffer_count": 128}]}


def _qeth_case(fault, *texts, run):
    """lpar-b's 0.0.8200 from QETH_OLD towards QETH_NEW; the rollback says it restored."""
    read = lambda: _qeth("lpar-b", "8200")  # noqa: E731
    old, new = (QETH_OLD_ARGS, QETH_OLD), (QETH_NEW_ARGS, QETH_NEW)
    res = _fault_case(run, "lpar-b", "qeth_device", read, old, new, fault, "previous state restored", *texts)
    assert res["rollback"]["ok"] is True, res["rollback"]
    return res


def test_qeth_chzdev_failing_half_way_through_the_settings_is_rolled_back(run):
    # the offline works, the configuring chzdev sets half the attributes (active and persistent) and fails
    _qeth_case(
        ("tool", "chzdev", "17", "--half-way", "--after", "1", "--stderr", "chzdev: cut"), "chzdev: cut", run=run
    )


def test_qeth_chzdev_failing_on_the_rollback_too_is_put_back_through_sysfs(run):
    res = _qeth_case(("tool", "chzdev", "17", "--half-way", "--after", "1", "--count", "2"), run=run)
    assert any(c.startswith("echo 1 > ") and c.endswith("/online") for c in res["rollback"]["commands"]), res


def test_qeth_online_failing_after_the_reconfiguration_is_rolled_back(run):
    # chzdev sets the device offline (first write works), changes layer2, and online=1 fails
    _qeth_case(("write", "/sys/bus/ccwgroup/devices/0.0.8200/online", "EIO", "--after", "1"), run=run)


def test_qeth_udev_rule_that_cannot_be_written_is_rolled_back(run):
    _qeth_case(("write", RULES + "/41-qeth-0.0.8200.rules", "EROFS"), run=run)


QETH_8203_ARGS = {"config": [{"id": "0.0.8203", "layer2": True, "buffer_count": 64}]}
QETH_8203 = {
    "grouped": True,
    "online": "1",
    "layer2": "1",
    "buffer_count": "64",
    "rule": {"layer2": "1", "buffer_count": "64", "online": "1"},
}
UNGROUPED = {"grouped": False, "rule": None}


@pytest.mark.parametrize(
    "fault",
    [
        # chzdev groups the device, sets layer2 (active and in a new rule), sets it online, fails
        ("tool", "chzdev", "17", "--half-way"),
        # the kernel refuses the grouping: nothing changed
        ("write", "/sys/bus/ccwgroup/drivers/qeth/group", "EIO"),
    ],
    ids=["chzdev-half-way", "group-refused"],
)
def test_qeth_new_device_that_fails_is_neither_grouped_nor_in_a_rule(run, fault):
    read = lambda: _qeth("lpar-b", "8203")  # noqa: E731
    old = ({"state": "deleted", "config": [{"id": "0.0.8203"}]}, UNGROUPED)
    _fault_case(run, "lpar-b", "qeth_device", read, old, (QETH_8203_ARGS, QETH_8203), fault)


def test_qeth_two_new_devices_in_one_chzdev_call_that_fails_for_the_second_are_both_put_back(run):
    # one chzdev call for both (same settings); the kernel groups the first, refuses the second;
    # chzdev configures the first and fails: the module puts the first back, so both stay new
    read = lambda: (_qeth("lpar-b", "8203"), _qeth("lpar-b", "8206"))  # noqa: E731
    gone = {"state": "deleted", "config": [{"id": "0.0.8203"}, {"id": "0.0.8206"}]}
    both = {
        "config": [
            {"id": "0.0.8203", "layer2": True, "buffer_count": 64},
            {"id": "0.0.8206", "layer2": True, "buffer_count": 64},
        ]
    }
    fault = ("write", "/sys/bus/ccwgroup/drivers/qeth/group", "EIO", "--after", "1")
    res = _fault_case(
        run, "lpar-b", "qeth_device", read, (gone, (UNGROUPED, UNGROUPED)), (both, (QETH_8203, QETH_8203)), fault
    )
    group_ids = "0.0.8203:0.0.8204:0.0.8205,0.0.8206:0.0.8207:0.0.8208"
    assert res["commands"][0] == "chzdev -e qeth %s layer2=1 buffer_count=64" % group_ids, res["commands"]
    assert (
        res["rollback"]["ok"] is True
        and "chzdev -d -a -y qeth 0.0.8203:0.0.8204:0.0.8205" in res["rollback"]["commands"]
    )
    _ok(run("lpar-b", "qeth_device", **gone))


def test_qeth_delete_that_fails_keeps_the_device(run):
    read = lambda: _qeth("lpar-b", "8200")  # noqa: E731
    deleted = ({"state": "deleted", "config": [{"id": "0.0.8200"}]}, UNGROUPED)
    fault = ("tool", "chzdev", "1", "--stderr", "chzdev: refused")
    _fault_case(run, "lpar-b", "qeth_device", read, (QETH_NEW_ARGS, QETH_NEW), deleted, fault, "chzdev: refused")


# -- smc_sysctl (the lab's hosts imitate RHEL 8.8: SMC buffers through net.ipv4.tcp_[rw]mem) ------

SYSCTL_FILE = "/etc/sysctl.d/90-smc.conf"


def _sysctl(host):
    """Live tcp_rmem/tcp_wmem, the values 90-smc.conf sets, and whether smc is loaded at boot."""
    live = in_host(host, "cat /proc/sys/net/ipv4/tcp_rmem /proc/sys/net/ipv4/tcp_wmem").stdout.splitlines()
    text = in_host(host, "cat %s 2>/dev/null || true" % SYSCTL_FILE).stdout
    boot = dict(
        (k.strip(), " ".join(v.split()))
        for k, v in (line.split("=", 1) for line in text.splitlines() if "=" in line and not line.startswith("#"))
    )
    loads = in_host(host, "cat /etc/modules-load.d/smc.conf 2>/dev/null || true").stdout.split()
    return {
        "tcp_rmem": " ".join(live[0].split()),
        "tcp_wmem": " ".join(live[1].split()),
        "boot": boot or None,
        "smc_at_boot": "smc" in loads,
    }


def _sysctl_state(rmem, wmem):
    values = {"tcp_rmem": "4096 %d 6291456" % rmem, "tcp_wmem": "4096 %d 4194304" % wmem}
    boot = {"net.ipv4.tcp_rmem": values["tcp_rmem"], "net.ipv4.tcp_wmem": values["tcp_wmem"]}
    return dict(values, boot=boot, smc_at_boot=True)


# 128K buffers: tcp_[rw]mem default 256K (SMC uses half); 256K buffers: 512K
SYSCTL_OLD = _sysctl_state(262144, 262144)
SYSCTL_NEW = _sysctl_state(524288, 524288)
SYSCTL_NEW_ARGS = {"rmem": "256K", "wmem": "256K"}


def _sysctl_case(fault, *texts, run):
    """lpar-b's SMC buffers from 128K towards 256K; the live values are put back, no file changed."""
    old, new = ({"rmem": "128K", "wmem": "128K"}, SYSCTL_OLD), (SYSCTL_NEW_ARGS, SYSCTL_NEW)
    res = _fault_case(run, "lpar-b", "smc_sysctl", lambda: _sysctl("lpar-b"), old, new, fault, *texts)
    assert res["rollback"]["ok"] is True, res["rollback"]
    assert res["changed"] is False
    return res


def test_sysctl_kernel_refusing_the_second_value_puts_the_first_back_and_writes_no_file(run):
    fault = ("write", "/proc/sys/net/ipv4/tcp_wmem", "EINVAL")
    res = _sysctl_case(fault, "net.ipv4.tcp_wmem", "EINVAL", run=run)
    assert not any(c.startswith("write ") for c in res["commands"]), res["commands"]


def test_sysctl_file_that_cannot_be_written_puts_the_live_values_back(run):
    _sysctl_case(("write", SYSCTL_FILE, "EROFS"), "Read-only file system", run=run)


def test_sysctl_first_run_whose_modules_load_file_fails_leaves_nothing_for_the_next_boot(run):
    # g1 has never had smc: the module loads it (that stays: changed), sets the values, and the
    # modules-load file cannot be created; values and 90-smc.conf are put back
    defaults = _sysctl("g1")
    assert defaults["boot"] is None and defaults["smc_at_boot"] is False
    in_host("g1", "mkdir -p /etc/modules-load.d")  # as every distribution ships it
    zlab("fault", "g1", "write", "/etc/modules-load.d/smc.conf", "ENOSPC")
    res = _failed(run("g1", "smc_sysctl", **SYSCTL_NEW_ARGS), "No space left on device")
    assert res["changed"] is True and res["commands"][0] == "modprobe smc"
    assert res["rollback"]["ok"] is True, res["rollback"]
    assert _sysctl("g1") == defaults
    _reboot("g1")
    assert _sysctl("g1") == defaults
    _converges(run, "g1", "smc_sysctl", SYSCTL_NEW_ARGS, lambda: _sysctl("g1"), SYSCTL_NEW)


# -- smc_pnet (the software PNET table lives in the kernel: empty after a reboot) ------------------


def _pnet(host):
    out = in_host(host, "smc_pnet").stdout
    return sorted(tuple(line.split()) for line in out.splitlines() if line.strip())


def test_pnet_move_whose_add_fails_puts_the_old_table_back(run):
    # lpar-b's smc is loaded (smc_sysctl above); eth0 is the management interface, lo exists everywhere
    old = [("NETA", "eth0", "n/a", "255"), ("NETA", "lo", "n/a", "255")]
    _ok(
        run(
            "lpar-b",
            "smc_pnet",
            state="overridden",
            config=[{"pnet_id": "NETA", "interface": i} for i in ("eth0", "lo")],
        )
    )
    assert _pnet("lpar-b") == old
    move = {"config": [{"pnet_id": "NETB", "interface": "lo"}]}
    # smc_pnet runs: show the table, delete NETA, add NETA eth0 back, add NETB lo (refused)
    zlab("fault", "lpar-b", "tool", "smc_pnet", "1", "--after", "3", "--stderr", "smc_pnet: add failed")
    res = _failed(run("lpar-b", "smc_pnet", **move), "smc_pnet: add failed")
    assert res["rollback"]["ok"] is True, res["rollback"]
    assert _pnet("lpar-b") == old
    _reboot("lpar-b")
    assert _pnet("lpar-b") == []
    _no_faults("lpar-b")
    assert _ok(run("lpar-b", "smc_pnet", **move))["changed"] is True
    assert _pnet("lpar-b") == [("NETB", "lo", "n/a", "255")]
    assert _ok(run("lpar-b", "smc_pnet", **move))["changed"] is False


# -- libvirt_device ----------------------------------------------------------------------------


def _domain(host, name):
    """The persistent domain definition's zPCI hostdevs (their uid/fid) and whether it is running."""
    xml = in_host(host, "cat /etc/libvirt/qemu/%s.xml" % name).stdout
    zpci = sorted(re.findall(r"<zpci uid='(0x[0-9a-f]+)' fid='(0x[0-9a-f]+)'/>", xml))
    running = in_host(host, "virsh -q list --name").stdout.split()
    return {"zpci": zpci, "running": name in running}


LIBVIRT_ARGS = {"domain": "g1", "hostdevs": [{"fid": "0x605"}]}
G1_OLD = {"zpci": [], "running": False}
G1_NEW = {"zpci": [("0x0605", "0x00000605")], "running": False}


def _g1_old(run):
    _ok(run("lpar-a", "zpci_function", **_zpci_args(0x605, driver="vfio-pci")))
    if _domain("lpar-a", "g1") != G1_OLD:
        _ok(run("lpar-a", "libvirt_device", domain="g1", state="deleted", hostdevs=[{"fid": "0x605"}]))
    assert _domain("lpar-a", "g1") == G1_OLD


def test_libvirt_daemon_down_fails_cleanly_and_changes_nothing(run):
    _g1_old(run)
    zlab("fault", "lpar-a", "service", "libvirtd", "stop")
    res = _failed(run("lpar-a", "libvirt_device", **LIBVIRT_ARGS))
    assert res["changed"] is False
    assert "libvirt" in res["msg"].lower(), res["msg"]
    zlab("fault", "lpar-a", "service", "libvirtd", "start")
    assert _domain("lpar-a", "g1") == G1_OLD
    _reboot("lpar-a")
    assert _domain("lpar-a", "g1") == G1_OLD
    _converges(run, "lpar-a", "libvirt_device", LIBVIRT_ARGS, lambda: _domain("lpar-a", "g1"), G1_NEW)


def test_libvirt_definition_that_cannot_be_saved_stays_old(run):
    _g1_old(run)
    zlab("fault", "lpar-a", "write", "/etc/libvirt/qemu/g1.xml", "EIO", "--count", "2")
    res = _failed(run("lpar-a", "libvirt_device", **LIBVIRT_ARGS))
    assert res["changed"] is False, res
    zlab("fault", "lpar-a", "clear")
    assert _domain("lpar-a", "g1") == G1_OLD
    _reboot("lpar-a")
    assert _domain("lpar-a", "g1") == G1_OLD
    _converges(run, "lpar-a", "libvirt_device", LIBVIRT_ARGS, lambda: _domain("lpar-a", "g1"), G1_NEW)


QETH_ROLE_TASK = "s390x.network.qeth : Configure the qeth devices (one module call for all of them)"
QETH_INSTALL_TASK = "s390x.network.qeth : Install s390-tools and configure the qeth devices (chzdev was missing)"
QETH_STOP_TASK = (
    "s390x.network.qeth : Stop on the module's failure unless chzdev was missing and the role may install it"
)
QETH_VALIDATE_TASK = (
    "s390x.network.qeth : Validating arguments against arg spec 'main'"
    " - Configure HiperSockets and OSA-Express (qeth) network devices"
)


def _buffer_count(host):
    return in_host(host, "cat /sys/bus/ccwgroup/devices/0.0.8200/buffer_count").stdout.strip()


def test_the_qeth_role_needs_chzdev_only_for_a_change(lab, run, tmp_path):
    """Without chzdev: a run with nothing to change passes and installs nothing; a change fails
    naming the package (qeth_install_packages false) and leaves the device as it was."""
    _ok(run("lpar-b", "qeth_device", **QETH_OLD_ARGS))
    playbook = tmp_path / "qeth.yml"
    playbook.write_text("- hosts: lpar-b\n  gather_facts: false\n  roles: [s390x.network.qeth]\n")

    def role(devices, **extra):
        return playbook_run(lab["inventory"], str(playbook), "-e", json.dumps(dict(qeth_devices=devices, **extra)))

    chzdev = in_host("lpar-b", "command -v chzdev").stdout.strip()
    in_host("lpar-b", "mv %s %s.hidden" % (chzdev, chzdev))
    try:
        rc, tasks = role(QETH_OLD_ARGS["config"])
        assert rc == 0, tasks
        assert tasks[QETH_ROLE_TASK]["lpar-b"]["changed"] is False
        assert sorted(tasks) == sorted([QETH_VALIDATE_TASK, QETH_ROLE_TASK]), sorted(tasks)  # no rescue, no install

        rc, tasks = role(QETH_NEW_ARGS["config"], qeth_install_packages=False)
        res = tasks[QETH_ROLE_TASK]["lpar-b"]
        assert rc != 0 and res.get("failed"), res
        assert res["missing_tool"] == "chzdev" and re.search(r"s390utils-base|s390-tools", res["msg"]), res
        # the rescue stops the host with the module's message instead of installing
        stop = tasks[QETH_STOP_TASK]["lpar-b"]
        assert stop.get("failed") and stop["msg"] == res["msg"], stop
        assert QETH_INSTALL_TASK not in tasks
        assert _buffer_count("lpar-b") == "64"
    finally:
        in_host("lpar-b", "mv %s.hidden %s" % (chzdev, chzdev))
    rc, tasks = role(QETH_NEW_ARGS["config"])
    assert rc == 0 and tasks[QETH_ROLE_TASK]["lpar-b"]["changed"], tasks
    assert _buffer_count("lpar-b") == "128"
