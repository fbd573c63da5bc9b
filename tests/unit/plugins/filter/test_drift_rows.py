from __future__ import annotations

from ansible_collections.s390x.network.plugins.filter.drift_rows import drift_rows

QETH = {
    "changed": True,
    "commands": [
        "chzdev -a qeth 0.0.8200:0.0.8201:0.0.8202 online=0",
        "chzdev -p qeth 0.0.8300:0.0.8301:0.0.8302 layer2=1 buffer_count=128",
        "chzdev -e qeth 0.0.8400:0.0.8401:0.0.8402 layer2=1",
        "chzdev -d qeth 0.0.8500:0.0.8501:0.0.8502",
    ],
}


def test_qeth_commands_give_scope_per_chzdev_option():
    rows = drift_rows({"lpar-a": {"qeth_result": QETH}})
    assert [(r["object"], r["scope"]) for r in rows] == [
        ("qeth 0.0.8200:0.0.8201:0.0.8202", "active"),
        ("qeth 0.0.8300:0.0.8301:0.0.8302", "persistent"),
        ("qeth 0.0.8400:0.0.8401:0.0.8402", "both"),
        ("qeth 0.0.8500:0.0.8501:0.0.8502", "both"),
    ]
    assert rows[1]["difference"] == "layer2=1 buffer_count=128"
    assert rows[3]["difference"] == "deconfigured"
    assert {r["host"] for r in rows} == {"lpar-a"}


def test_unchanged_or_skipped_results_give_no_rows():
    hv = {
        "a": {"qeth_result": dict(QETH, changed=False)},
        "b": {"qeth_result": {"skipped": True, "changed": False}},
        "c": {"unrelated": 1},
    }
    assert drift_rows(hv) == []


def test_sysctl_file_and_live_differences_are_separate_rows():
    res = {
        "changed": True,
        "before": {"file": {"net.smc.rmem": "65536"}, "live": {"net.smc.rmem": "65536", "net.smc.wmem": "131072"}},
        "after": {"file": {"net.smc.rmem": "131072", "net.ipv4.tcp_rmem": "4096 262144 6291456"},
                  "live": {"net.smc.rmem": "131072", "net.smc.wmem": "131072"}},
    }
    rows = drift_rows({"h": {"smc_sysctl_result": res}})
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
    rows = drift_rows({"kvm": {"ism_passthrough_result": res}})
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
    rows = drift_rows({"kvm": {"kvm_guest_network_result": res}}, ["kvm"])
    assert rows == [
        {"host": "kvm", "object": "guest g1 hostdev fid 0x605", "difference": "attach", "scope": "persistent"},
        {"host": "kvm", "object": "guest g1 interface enc8200", "difference": "update (mode)", "scope": "both"},
    ]


def test_host_order_follows_the_hosts_argument_and_missing_hosts_are_skipped():
    hv = {"b": {"smc_pnet_result": {"changed": True, "commands": ["smc_pnet -a NET1 -I enc8200"]}},
          "a": {"smc_pnet_result": {"changed": True, "commands": ["smc_pnet -d NET2"]}}}
    rows = drift_rows(hv, ["b", "a", "zz"])
    assert [r["host"] for r in rows] == ["b", "a"]


def test_failed_checks_are_error_rows_per_loop_item():
    res = {"changed": False, "failed": True, "msg": "One or more items failed", "results": [
        {"item": {"name": "g1"}, "failed": True, "msg": "enc8200 is offline"},
        {"item": {"name": "g2"}, "changed": False},
    ]}
    rows = drift_rows({"kvm": {"kvm_guest_network_result": res}})
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
    rows = drift_rows({"lpar-b": {"smc_ism_result": res, "smc_sysctl_result": {"changed": False}}})
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
    rows = [(r["object"], r["difference"], r["scope"]) for r in drift_rows({"h": {"smc_ism_result": res}})]
    assert rows == [
        ("zpci fid 0x606", "power off -> on, driver_override - -> ism, driver - -> ism", "active"),
        ("zpci fid 0x605", "driver_override ism -> vfio-pci, driver ism -> vfio-pci", "active"),
        ("/etc/udev/rules.d/60-s390x-network-zpci.rules", "file differs", "persistent"),
        ("/etc/modules-load.d/s390x-network-zpci.conf", "file to remove", "persistent"),
    ]


def test_zpci_only_a_file_differs():
    res = {"changed": True, "commands": ["write /etc/tmpfiles.d/s390x-network-zpci.conf"],
           "before": [_fn(0x605)], "after": [_fn(0x605)]}
    rows = drift_rows({"kvm": {"ism_passthrough_result": res}})
    assert rows == [{"host": "kvm", "object": "/etc/tmpfiles.d/s390x-network-zpci.conf",
                     "difference": "file differs", "scope": "persistent"}]


def _dev(busid, **kw):
    dev = {"id": busid, "exists": True, "if_name": "enc8200", "card_type": "HiperSockets", "online": True,
           "layer2": True, "buffer_count": 128, "portno": 0, "isolation": None, "attributes": {},
           "persistent": {"online": True, "layer2": True, "buffer_count": 128}}
    dev.update(kw)
    return dev


def test_qeth_before_after_name_what_differs():
    ids = "0.0.8200:0.0.8201:0.0.8202"
    res = {"changed": True,
           "commands": ["chzdev -e qeth %s layer2=1 buffer_count=128" % ids],
           "before": [_dev(ids, online=False, persistent=None),
                      _dev("0.0.8300", buffer_count=64, persistent={"online": True, "layer2": True, "buffer_count": 64}),
                      _dev("0.0.8400")],
           "after": [_dev(ids), _dev("0.0.8300"), _dev("0.0.8400")]}
    rows = [(r["object"], r["difference"], r["scope"]) for r in drift_rows({"h": {"qeth_result": res}})]
    assert rows == [
        ("qeth " + ids, "online 0 -> 1", "active"),
        ("qeth " + ids, "udev rule missing", "persistent"),
        ("qeth 0.0.8300", "buffer_count 64 -> 128", "active"),
        ("qeth 0.0.8300", "udev rule buffer_count 64 -> 128", "persistent"),
    ]


def test_qeth_hidden_now_and_at_boot_are_rows_of_their_scope():
    ids = "0.0.8200:0.0.8201:0.0.8202"
    hidden = ids.split(":")
    res = {"changed": True,
           "commands": ["chzdev -e -p --force qeth %s layer2=1 buffer_count=128" % ids],
           "before": [_dev(ids, exists=False, online=None, hidden=hidden, hidden_at_boot=hidden),
                      _dev("0.0.8300", hidden=[], hidden_at_boot=["0.0.8300", "0.0.8301", "0.0.8302"])],
           "after": [_dev(ids, hidden=[], hidden_at_boot=[]), _dev("0.0.8300", hidden=[], hidden_at_boot=[])]}
    rows = [(r["object"], r["difference"], r["scope"]) for r in drift_rows({"h": {"qeth_result": res}})]
    assert rows == [
        ("qeth " + ids, "exists 0 -> 1, hidden 0.0.8200,0.0.8201,0.0.8202 -> none, online - -> 1", "active"),
        ("qeth " + ids, "cio_ignore hides 0.0.8200,0.0.8201,0.0.8202 at boot (not freed in 41-cio-ignore.rules)",
         "persistent"),
        ("qeth 0.0.8300", "cio_ignore hides 0.0.8300,0.0.8301,0.0.8302 at boot (not freed in 41-cio-ignore.rules)",
         "persistent"),
    ]


def test_qeth_without_before_after_falls_back_to_the_commands():
    res = dict(QETH, before=[], after=[])
    assert len(drift_rows({"h": {"qeth_result": res}})) == 4


def test_host_that_did_not_finish_a_play_is_an_error_row():
    hv = {"g1": {"drift_started": ["qeth", "smc"], "drift_finished": ["qeth"]},
          "g2": {"drift_started": ["smc"], "drift_finished": ["smc"]},
          "g3": {}}
    assert drift_rows(hv) == [{"host": "g1", "object": "SMC check", "scope": "error",
                               "difference": "did not finish: host unreachable or the play failed (see the log above)"}]
