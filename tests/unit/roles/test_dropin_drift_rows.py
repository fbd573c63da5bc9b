# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The drift rows of the smc role's drop-ins, from results the real ansible-playbook registers.

The role writes its drop-ins with an ``ansible.builtin.template`` loop over the service plan
(dicts) and removes stale ones with an ``ansible.builtin.file`` loop; drift.yml runs them in check
mode (report) or not (correct), with diff. The rows must name a drop-in by its path in both modes
(a check mode template result has no ``dest``: the row showed the loop item's dict), and a drop-in
that was deleted is ``drop-in missing``, one whose text differs ``drop-in differs``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from ansible_collections.s390x.network.plugins.filter.drift_table import drift_table
from ansible_collections.s390x.network.plugins.plugin_utils.drift_report import result_drift

TEMPLATE = os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", "..", "..", "roles", "smc", "templates", "smc-dropin.conf.j2")
)

PLAY = textwrap.dedent("""\
    - name: drop-ins, {mode}
      hosts: localhost
      connection: local
      gather_facts: false
      check_mode: {check}
      diff: true
      vars:
        plan:
          - name: app.service
            dir: "{{{{ d }}}}/app.service.d"
            path: "{{{{ d }}}}/app.service.d/50-smc.conf"
            dropin: "[Service]\\nEnvironment=LD_PRELOAD=libsmc-preload.so\\n"
          - name: db.service
            dir: "{{{{ d }}}}/db.service.d"
            path: "{{{{ d }}}}/db.service.d/50-smc.conf"
            dropin: "[Service]\\nEnvironment=LD_PRELOAD=libsmc-preload.so\\n"
        stale:
          - name: old.service
            path: "{{{{ d }}}}/old.service.d/50-smc.conf"
      tasks:
        - name: Write the drop-ins
          ansible.builtin.template:
            src: {template}
            dest: "{{{{ item.path }}}}"
            mode: "0644"
          loop: "{{{{ plan }}}}"
          loop_control:
            label: "{{{{ item.name }}}}"
          register: dropins

        - name: Remove the stale drop-ins
          ansible.builtin.file:
            path: "{{{{ item.path }}}}"
            state: absent
          loop: "{{{{ stale }}}}"
          register: removed

        - name: Save the results
          ansible.builtin.copy:
            content: "{{{{ {{'dropins': dropins, 'removed': removed}} | to_json }}}}"
            dest: "{{{{ out }}}}/{mode}.json"
            mode: "0600"
          check_mode: false
          diff: false
    """)


def host_tree(root):
    """app's drop-in deleted, db's edited by hand, old's left over from a service no longer listed."""
    d = root / "system"
    for unit in ("app", "db", "old"):
        (d / ("%s.service.d" % unit)).mkdir(parents=True)
    (d / "db.service.d" / "50-smc.conf").write_text("[Service]\nEnvironment=SMC_RCVBUF=1M\n")
    (d / "old.service.d" / "50-smc.conf").write_text("[Service]\n")
    return d


def run_playbook(root, mode):
    d = host_tree(root / mode)
    (root / "play.yml").write_text(PLAY.format(mode=mode, check=str(mode == "report").lower(), template=TEMPLATE))
    env = dict(
        os.environ,
        ANSIBLE_LOCALHOST_WARNING="false",
        ANSIBLE_INVENTORY_UNPARSED_WARNING="false",
        ANSIBLE_PYTHON_INTERPRETER=sys.executable,
    )
    playbook = os.path.join(os.path.dirname(sys.executable), "ansible-playbook")
    proc = subprocess.run(
        [playbook, "-i", "localhost,", str(root / "play.yml"), "-e", "d=%s" % d, "-e", "out=%s" % root],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        universal_newlines=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout
    results = json.loads((root / ("%s.json" % mode)).read_text())
    return d, result_drift(results["dropins"], "dropin") + result_drift(results["removed"], "dropin_removed")


@pytest.mark.slow
def test_report_and_correct_name_each_drop_in_alike_and_a_deleted_one_is_missing(tmp_path):
    report_dir, report = run_playbook(tmp_path, "report")
    correct_dir, correct = run_playbook(tmp_path, "correct")

    def expected(d):
        rows = [
            {"object": "%s/app.service.d/50-smc.conf" % d, "scope": "persistent", "difference": "drop-in missing"},
            {"object": "%s/db.service.d/50-smc.conf" % d, "scope": "persistent", "difference": "drop-in differs"},
            {"object": "%s/old.service.d/50-smc.conf" % d, "scope": "persistent", "difference": "drop-in to remove"},
        ]
        return [dict(row, kind="dropin") for row in rows]

    assert report == expected(report_dir)
    assert correct == expected(correct_dir)
    # a plain name: a line of the table is not twice as long as the path (the loop item's dict
    # repr holds the path twice and the drop-in's text)
    widest = max(len(line) for line in drift_table([dict(r, host="lpar-a") for r in report]))
    assert widest < 2 * len(report[0]["object"])


def test_rows_without_a_diff_still_name_the_path():
    """A template result of a run without --diff: the path, and "differs" (absence not known)."""
    item = {"name": "app.service", "path": "/etc/systemd/system/app.service.d/50-smc.conf", "dropin": "x"}
    res = {"changed": True, "results": [{"changed": True, "item": item, "ansible_loop_var": "item"}]}
    assert result_drift(res, "dropin") == [
        {"kind": "dropin", "object": item["path"], "scope": "persistent", "difference": "drop-in differs"}
    ]
