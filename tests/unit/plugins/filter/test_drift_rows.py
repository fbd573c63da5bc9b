from __future__ import annotations

from ansible_collections.s390x.network.plugins.filter.drift_rows import drift_rows as drift_rows_filter
from ansible_collections.s390x.network.plugins.plugin_utils.drift_report import drift_rows, result_drift

# which kind each result name of the old tests is
KINDS = {"smc_sysctl_result": "sysctl", "ism_passthrough_result": "zpci", "smc_ism_result": "zpci",
         "kvm_guest_network_result": "guest", "smc_pnet_result": "pnet", "qeth_result": "qeth"}


def reported(hostvars):
    """hostvars as the roles leave them: each registered result reported as <name>_drift."""
    out = {}
    for host, hvars in hostvars.items():
        out[host] = {"drift_expected": list(hvars)}
        out[host].update(("%s_drift" % var, result_drift(res, KINDS[var])) for var, res in hvars.items())
    return out


def test_the_filter_is_the_summary():
    assert drift_rows_filter is drift_rows


def test_unchanged_or_skipped_results_give_no_rows():
    assert result_drift({"changed": False, "commands": ["smc_pnet -d X"]}, "pnet") == []
    assert result_drift({"skipped": True, "changed": False}, "zpci") == []
    assert result_drift({"changed": False, "drift": []}, "qeth") == []


def test_a_missing_result_is_an_error_row_never_silence():
    # what a role reports when its register was renamed: result | default(none)
    assert result_drift(None, "qeth") == [
        {"object": "qeth", "scope": "error",
         "difference": "no result: the role registered none under the name it reports"}]


def test_module_drift_rows_are_taken_as_they_are():
    row = {"object": "qeth 0.0.8200:0.0.8201:0.0.8202", "scope": "active", "difference": "online 0 -> 1"}
    assert result_drift({"changed": True, "drift": [row], "commands": ["chzdev -e qeth x"]}, "qeth") == [row]
    # a qeth result without rows cannot be read from commands any more
    assert result_drift({"changed": True, "commands": ["chzdev -e qeth x"]}, "qeth")[0]["scope"] == "error"


def test_unknown_kind_is_refused():
    import pytest
    from ansible.errors import AnsibleFilterError
    with pytest.raises(AnsibleFilterError, match="kind must be one of"):
        result_drift({}, "qeht")


def test_reports_are_concatenated_per_host_in_host_order():
    hv = {"b": {"drift_expected": ["smc"], "smc_drift": [{"object": "x", "scope": "active", "difference": "1 -> 2"}]},
          "a": {"drift_expected": ["qeth", "smc"], "qeth_drift": [],
                "smc_drift": [{"object": "y", "scope": "persistent", "difference": "d"}],
                "other_drift": [{"object": "not expected", "scope": "active", "difference": "-"}]}}
    assert drift_rows(hv, ["b", "a", "zz"]) == [
        {"host": "b", "object": "x", "scope": "active", "difference": "1 -> 2"},
        {"host": "a", "object": "y", "scope": "persistent", "difference": "d"},
    ]


def test_an_expected_report_that_is_missing_is_an_error_row():
    hv = {"g1": {"drift_expected": ["qeth", "smc"], "qeth_drift": []},
          "g2": {"drift_expected": ["smc"], "smc_drift": []},
          "g3": {"drift_expected": ["qeth"]},
          "g4": {"qeth_drift": [{"object": "x", "scope": "active", "difference": "-"}]}}
    assert drift_rows(hv) == [
        {"host": "g1", "object": "role smc", "scope": "error",
         "difference": "reported nothing: host unreachable or the role did not finish (see the log above)"},
        {"host": "g3", "object": "role qeth", "scope": "error",
         "difference": "reported nothing: host unreachable or the role did not finish (see the log above)"},
    ]


def test_sysctl_file_and_live_differences_are_separate_rows():
    res = {
        "changed": True,
        "before": {"file": {"net.smc.rmem": "65536"}, "live": {"net.smc.rmem": "65536", "net.smc.wmem": "131072"}},
        "after": {"file": {"net.smc.rmem": "131072", "net.ipv4.tcp_rmem": "4096 262144 6291456"},
                  "live": {"net.smc.rmem": "131072", "net.smc.wmem": "131072"}},
    }
    rows = drift_rows(reported({"h": {"smc_sysctl_result": res}}))
    assert rows == [
        {"host": "h", "object": "net.ipv4.tcp_rmem", "difference": "- -> 4096 262144 6291456", "scope": "persistent"},
        {"host": "h", "object": "net.smc.rmem", "difference": "65536 -> 131072", "scope": "persistent"},
        {"host": "h", "object": "net.smc.rmem", "difference": "65536 -> 131072", "scope": "active"},
    ]


def test_zpci_sysfs_writes_are_active_and_files_persistent():
    res = {"changed": True, "commands": [
        "echo 0605:00:00.0 > /sys/bus/pci/drivers_probe",
        "write /etc/udev/rules.d/60-s390x-network-zpci.rules",
    ]}
    rows = drift_rows(reported({"kvm": {"ism_passthrough_result": res}}))
    assert [r["scope"] for r in rows] == ["active", "persistent"]
    assert rows[0]["object"] == "zpci /sys/bus/pci/drivers_probe"


def test_libvirt_loop_results_name_the_guest_and_device():
    res = {"changed": True, "results": [
        {"item": {"name": "g1"}, "changed": True, "changed_devices": [
            {"action": "attach", "live": False, "fields": [], "device": {"kind": "hostdev", "fid": 0x605}},
            {"action": "update", "live": True, "fields": ["mode"], "device": {"kind": "interface", "source": "enc8200"}},
        ]},
        {"item": {"name": "g2"}, "changed": False, "changed_devices": []},
    ]}
    rows = drift_rows(reported({"kvm": {"kvm_guest_network_result": res}}), ["kvm"])
    assert rows == [
        {"host": "kvm", "object": "guest g1 hostdev fid 0x605", "difference": "attach", "scope": "persistent"},
        {"host": "kvm", "object": "guest g1 interface enc8200", "difference": "update (mode)", "scope": "both"},
    ]


def test_failed_checks_are_error_rows_per_loop_item():
    res = {"changed": False, "failed": True, "msg": "One or more items failed", "results": [
        {"item": {"name": "g1"}, "failed": True, "msg": "enc8200 is offline"},
        {"item": {"name": "g2"}, "changed": False},
    ]}
    rows = drift_rows(reported({"kvm": {"kvm_guest_network_result": res}}))
    assert rows == [{"host": "kvm", "object": "guest g1",
                     "difference": "check failed: enc8200 is offline", "scope": "error"}]


def test_drift_table_aligns_columns_under_a_heading():
    from ansible_collections.s390x.network.plugins.filter.drift_table import drift_table
    lines = drift_table([
        {"host": "lpar-a", "object": "qeth 0.0.8200", "scope": "active", "difference": "layer2=1"},
        {"host": "b", "object": "net.smc.rmem", "scope": "persistent", "difference": "1 -> 2"},
    ])
    assert lines == [
        "HOST    OBJECT         SCOPE       DIFFERENCE",
        "lpar-a  qeth 0.0.8200  active      layer2=1",
        "b       net.smc.rmem   persistent  1 -> 2",
    ]


def test_zpci_without_before_after_falls_back_to_the_commands():
    res = {"changed": True, "commands": [
        "echo 1 > /sys/bus/pci/slots/00000606/power",
        "echo ism > /sys/bus/pci/devices/<address of FID 0x606>/driver_override",  # check mode
    ]}
    rows = drift_rows(reported({"lpar-b": {"smc_ism_result": res, "smc_sysctl_result": {"changed": False}}}))
    assert rows == [
        {"host": "lpar-b", "object": "zpci /sys/bus/pci/slots/00000606/power", "difference": "write 1",
         "scope": "active"},
        {"host": "lpar-b", "object": "zpci /sys/bus/pci/devices/<address of FID 0x606>/driver_override",
         "difference": "write ism", "scope": "active"},
    ]


def _fn(fid, **kw):
    fn = {"fid": fid, "slot": "%08x" % fid, "power": "on", "pci_address": "%04x:00:00.0" % fid,
          "driver": "ism", "driver_override": "ism", "pft": 5, "type": "ism"}
    fn.update(kw)
    return fn


def test_zpci_before_after_give_one_row_per_function_and_files_persistent():
    standby = dict(power="off", pci_address=None, driver=None, driver_override=None, type=None)
    res = {"changed": True,
           "commands": ["echo 1 > /sys/bus/pci/slots/00000606/power",
                        "echo ism > /sys/bus/pci/devices/<address of FID 0x606>/driver_override",
                        "echo <address of FID 0x606> > /sys/bus/pci/drivers_probe",
                        "echo vfio-pci > /sys/bus/pci/devices/0605:00:00.0/driver_override",
                        "write /etc/udev/rules.d/60-s390x-network-zpci.rules",
                        "rm /etc/modules-load.d/s390x-network-zpci.conf"],
           # check mode predicts no address for a function that is still in standby
           "before": [_fn(0x606, **standby), _fn(0x605), _fn(0x607)],
           "after": [_fn(0x606, pci_address=None), _fn(0x605, driver="vfio-pci", driver_override="vfio-pci"),
                     _fn(0x607)]}
    rows = [(r["object"], r["difference"], r["scope"]) for r in drift_rows(reported({"h": {"smc_ism_result": res}}))]
    assert rows == [
        ("zpci fid 0x606", "power off -> on, driver_override - -> ism, driver - -> ism", "active"),
        ("zpci fid 0x605", "driver_override ism -> vfio-pci, driver ism -> vfio-pci", "active"),
        ("/etc/udev/rules.d/60-s390x-network-zpci.rules", "file differs", "persistent"),
        ("/etc/modules-load.d/s390x-network-zpci.conf", "file to remove", "persistent"),
    ]


def test_zpci_only_a_file_differs():
    res = {"changed": True, "commands": ["write /etc/tmpfiles.d/s390x-network-zpci.conf"],
           "before": [_fn(0x605)], "after": [_fn(0x605)]}
    rows = drift_rows(reported({"kvm": {"ism_passthrough_result": res}}))
    assert rows == [{"host": "kvm", "object": "/etc/tmpfiles.d/s390x-network-zpci.conf",
                     "difference": "file differs", "scope": "persistent"}]
