# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A host whose link dies mid-play: the run ends, that host is UNREACHABLE, the others finish.

Without an SSH keepalive the run hangs on the dead host's ControlPersist master (packets are
dropped, nothing ever answers); the repository's ansible.cfg and zlab's inventory carry
ServerAliveInterval=5 / ServerAliveCountMax=3. The wall time is printed, not asserted: the
assertion is that the run ends at all (the subprocess timeout is far above the keepalive's bound).
"""

import os
import subprocess
import sys
import threading
import time

from labutil import BIN, REPO, zlab

PLAY = """\
- name: A task that runs while the link of lpar-b goes down
  hosts: lpar-a:lpar-b
  gather_facts: false
  tasks:
    - name: Open the SSH masters
      ansible.builtin.ping:

    - name: Long enough for the cut to happen while it runs
      ansible.builtin.command: sleep 20
      changed_when: false
"""


def test_a_host_that_loses_its_link_mid_play_ends_unreachable(lab, tmp_path):
    play = tmp_path / "play.yml"
    play.write_text(PLAY)
    env = dict(os.environ, ANSIBLE_FORCE_COLOR="0", ANSIBLE_NOCOLOR="1")
    cut = threading.Timer(8.0, lambda: zlab("fault", "lpar-b", "link", "off"))
    start = time.time()
    cut.start()
    try:
        res = subprocess.run(
            [os.path.join(BIN, "ansible-playbook"), "-i", lab["inventory"], str(play)],
            capture_output=True,
            text=True,
            timeout=240,
            env=env,
            check=False,
            cwd=REPO,
        )
    finally:
        cut.join()
        zlab("fault", "lpar-b", "link", "on")
    elapsed = time.time() - start
    sys.stdout.write("\nlink loss mid-play: the run ended after %.1f s (rc %d)\n" % (elapsed, res.returncode))
    out = res.stdout + res.stderr
    assert res.returncode == 4, out  # 4: a host was unreachable
    recap = out[out.rindex("PLAY RECAP") :]
    assert [line.split()[0] for line in recap.splitlines() if "unreachable=1" in line] == ["lpar-b"], recap
    assert any(
        line.startswith("lpar-a") and "failed=0" in line and "unreachable=0" in line for line in recap.splitlines()
    ), recap
