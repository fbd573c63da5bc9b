# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every emulated tool consults zlab.kernel.consume_tool_fault first (zlab fault HOST tool ...)."""

import pytest

from zlab import kernel
from zlab.tools import TOOLS

from toolrun import run


@pytest.mark.parametrize("tool", sorted(TOOLS))
def test_injected_tool_fault_wins_once(host, tool):
    kernel.add_tool_fault(host.state_dir, tool, 42, count=1, stderr="%s: injected failure" % tool)
    r = run(host, tool, "--version" if tool not in ("lsmod", "driverctl") else "list-devices")
    assert (r.returncode, r.stdout, r.stderr) == (42, "", "%s: injected failure\n" % tool)
    r = run(host, tool, "--version" if tool not in ("lsmod", "driverctl") else "list-devices")
    assert r.returncode != 42
