# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""smc_services: the drop-ins that run services with SMC, written, read back, removed and reported
by the module on a host tree; systemd reload and restarts only where systemd runs."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.s390x.network.plugins.modules import smc_services
from ansible_collections.s390x.network.tests.unit.plugins.module_utils.test_unit_syntax import (
    environment_of,
    read_unit,
)

NAME = "50-s390x-network-smc.conf"
UNITS = "etc/systemd/system"
LDCONFIG_WITH = (
    "3 libs found in cache `/etc/ld.so.cache'\n\tlibsmc-preload.so (libc6,64bit) => /usr/lib64/libsmc-preload.so\n"
)


class Host(object):
    """Answers systemctl and ldconfig; records what ran."""

    def __init__(self, running=(), preload=True, fail_restart=()):
        self.running = set(running)
        self.preload = preload
        self.fail_restart = set(fail_restart)
        self.ran = []

    def __call__(self, argv):
        self.ran.append(argv)
        if argv[1:2] == ["-p"]:
            return 0, LDCONFIG_WITH if self.preload else "1 libs found\n", ""
        if argv[1] == "is-active":
            return (0 if argv[-1] in self.running else 3), "", ""
        if argv[1] == "restart" and argv[-1] in self.fail_restart:
            return 1, "", "Job for %s failed." % argv[-1]
        if argv[1] in ("daemon-reload", "restart"):
            return 0, "", ""
        raise AssertionError("unexpected %r" % (argv,))


def run(run_module, host=None, check=False, diff=False, **args):
    return run_module(smc_services.main, args, run_command=host or Host(), check_mode=check, diff=diff)


def dropin(root, unit):
    path = root / UNITS / ("%s.d" % unit) / NAME
    return path.read_text() if path.exists() else None


def env(text):
    """The environment systemd sets from a drop-in (an independent reader of its syntax)."""
    out = {}
    for section, key, value in read_unit(text):
        assert (section, key) == ("Service", "Environment"), (section, key)
        out.update(environment_of(value))
    return out


def test_writes_each_drop_in_and_a_second_run_changes_nothing(run_module, host_root):
    config = [{"name": "db2", "rmem": "1M", "wmem": "256K"}, "web.socket"]
    res = run(run_module, config=config)
    assert not res.failed and res.result["changed"], res.result
    assert res.result["services"] == ["db2.service", "web.socket"]
    assert env(dropin(host_root, "db2.service")) == {
        "LD_PRELOAD": "libsmc-preload.so",
        "SMC_RCVBUF": "1M",
        "SMC_SNDBUF": "256K",
    }
    assert env(dropin(host_root, "web.socket")) == {"LD_PRELOAD": "libsmc-preload.so"}
    assert [r["difference"] for r in res.result["drift"]] == ["missing", "missing"]
    again = run(run_module, config=config)
    assert not again.result["changed"] and again.result["commands"] == [] and again.result["drift"] == []


def test_a_changed_size_is_one_row_and_is_put_back(run_module, host_root):
    run(run_module, config=[{"name": "db2", "rmem": "1M"}])
    path = host_root / UNITS / "db2.service.d" / NAME
    path.write_text(path.read_text().replace("SMC_RCVBUF=1M", "SMC_RCVBUF=256K"))
    report = run(run_module, check=True, config=[{"name": "db2", "rmem": "1M"}])
    assert report.result["changed"] and "256K" in path.read_text()
    assert [(r["kind"], r["object"], r["scope"], r["difference"]) for r in report.result["drift"]] == [
        ("dropin", "/etc/systemd/system/db2.service.d/%s" % NAME, "persistent", "SMC_RCVBUF 256K -> 1M")
    ]
    fixed = run(run_module, config=[{"name": "db2", "rmem": "1M"}])
    assert fixed.result["commands"] == ["write /etc/systemd/system/db2.service.d/%s" % NAME]
    assert env(path.read_text())["SMC_RCVBUF"] == "1M"


def test_overridden_removes_the_drop_ins_of_units_no_longer_listed_and_nothing_else(run_module, host_root):
    run(run_module, config=["db2", "old", "keep@x.service"])
    other = host_root / UNITS / "old.service.d" / "10-other.conf"
    other.write_text("[Service]\nNice=5\n")
    merged = run(run_module, config=["db2"], state="merged")
    assert not merged.result["changed"]
    res = run(run_module, config=["db2"], state="overridden")
    assert sorted(res.result["commands"]) == sorted(
        ["rm /etc/systemd/system/old.service.d/%s" % NAME, "rm /etc/systemd/system/keep@x.service.d/%s" % NAME]
    )
    assert dropin(host_root, "old.service") is None and other.exists() and dropin(host_root, "db2.service")
    assert sorted(r["difference"] for r in res.result["drift"]) == ["to remove", "to remove"]


def test_deleted_removes_the_listed_or_every_drop_in(run_module, host_root):
    run(run_module, config=["a", "b", "c"])
    res = run(run_module, config=["b"], state="deleted")
    assert res.result["commands"] == ["rm /etc/systemd/system/b.service.d/%s" % NAME]
    res = run(run_module, state="deleted")
    assert len(res.result["commands"]) == 2
    assert run(run_module, state="gathered").result["gathered"] == []


def test_gathered_reads_the_services_and_sizes_back(run_module, host_root):
    run(run_module, config=[{"name": "db2", "wmem": "64K"}, "x.socket"])
    res = run(run_module, state="gathered")
    assert not res.result["changed"]
    assert res.result["gathered"] == [{"name": "db2.service", "wmem": "64K"}, {"name": "x.socket"}]


@pytest.mark.parametrize(
    "args, field",
    [
        ({"config": ["../../etc/passwd"]}, "config[0].name"),
        ({"config": ["a b"]}, "config[0].name"),
        ({"config": ["ok", {"name": "$(id)"}]}, "config[1].name"),
        ({"config": [{"name": "x", "rmem": "1G; rm"}]}, "config[0].rmem"),
        ({"config": [{"name": "x", "rmem": "8K"}]}, "config[0].rmem"),
        ({"config": [{"name": "x", "nice": 5}]}, "config[0]"),
        ({"config": ["x"], "dropin_name": "../x.conf"}, "dropin_name"),
        ({"config": ["x"], "dropin_name": "*.conf"}, "dropin_name"),
        ({"config": ["x", "x.service"]}, "config: x.service is listed twice"),
    ],
)
def test_bad_input_is_refused_naming_the_field_before_anything_is_read(run_module, host_root, args, field):
    host = Host()
    res = run(run_module, host=host, **args)
    assert res.failed and res.result["msg"].startswith(field), res.result["msg"]
    assert host.ran == [] and not (host_root / "etc").exists()


def test_check_mode_writes_nothing_and_predicts(run_module, host_root):
    res = run(run_module, check=True, diff=True, config=["db2"])
    assert res.result["changed"] and not (host_root / "etc").exists()
    assert "LD_PRELOAD: libsmc-preload.so" in res.result["diff"]["after"]
    assert res.result["after"][0]["path"] == "/etc/systemd/system/db2.service.d/%s" % NAME


def test_where_systemd_runs_it_reloads_and_restarts_only_running_changed_services(run_module, host_root):
    (host_root / "run" / "systemd" / "system").mkdir(parents=True)
    host = Host(running=["db2.service", "idle.service"])
    run(run_module, host=host, config=["idle"], restart=True)
    host.ran = []
    res = run(run_module, host=host, config=["db2", "idle", "stopped"], restart=True)
    assert res.result["commands"] == [
        "write /etc/systemd/system/db2.service.d/%s" % NAME,
        "write /etc/systemd/system/stopped.service.d/%s" % NAME,
        "systemctl daemon-reload",
        "systemctl restart db2.service",
    ]
    assert res.result["restarted"] == ["db2.service"]
    quiet = run(run_module, host=Host(running=["db2.service"]), config=["db2", "idle", "stopped"], restart=True)
    assert quiet.result["commands"] == [] and quiet.result["restarted"] == []


def test_without_systemd_running_only_the_files_change(run_module, host_root):
    host = Host(running=["db2.service"])
    res = run(run_module, host=host, config=["db2"], restart=True)
    assert res.result["commands"] == ["write /etc/systemd/system/db2.service.d/%s" % NAME]
    assert [a[1] for a in host.ran] == ["-p"]


def test_a_failed_restart_puts_the_drop_ins_back(run_module, host_root):
    (host_root / "run" / "systemd" / "system").mkdir(parents=True)
    run(run_module, config=[{"name": "db2", "rmem": "64K"}])
    before = dropin(host_root, "db2.service")
    host = Host(running=["db2.service"], fail_restart=["db2.service"])
    res = run(run_module, host=host, config=[{"name": "db2", "rmem": "1M"}], restart=True)
    assert res.failed and "systemctl restart db2.service failed" in res.result["msg"]
    assert res.result["rollback"]["ok"] and dropin(host_root, "db2.service") == before
    assert res.result["rollback"]["commands"][-1] == "systemctl daemon-reload"


def test_a_missing_preload_library_warns_or_fails_before_writing(run_module, host_root):
    warned = run(run_module, host=Host(preload=False), config=["db2"])
    assert any("libsmc-preload.so" in w for w in warned.result["warnings"]) and dropin(host_root, "db2.service")
    failed = run(run_module, host=Host(preload=False), config=["web"], missing_preload="fail")
    assert failed.failed and "smc-tools" in failed.result["msg"] and dropin(host_root, "web.service") is None
    (host_root / "usr" / "lib" / "s390x-linux-gnu").mkdir(parents=True)
    (host_root / "usr" / "lib" / "s390x-linux-gnu" / "libsmc-preload.so").write_text("")
    found = run(run_module, host=Host(preload=False), config=["web"], missing_preload="fail")
    assert not found.failed and not found.result["warnings"]


def test_a_drop_in_edited_by_hand_is_rewritten(run_module, host_root):
    run(run_module, config=["db2"])
    path = host_root / UNITS / "db2.service.d" / NAME
    path.write_text(path.read_text() + "ExecStartPre=/bin/true\n")
    res = run(run_module, check=True, config=["db2"])
    assert [r["difference"] for r in res.result["drift"]] == ["other lines yes -> no"]
    run(run_module, config=["db2"])
    assert "ExecStartPre" not in path.read_text()
