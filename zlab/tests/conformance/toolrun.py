# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run an emulated tool as a process, as the tool conformance tests (test_tool_*.py) do."""

import subprocess
import sys


def run(h, tool, *args, stdin=None, env=None):
    """``python3 -m zlab.tools.TOOL ARGS`` with host ``h``'s env (``LC_ALL=C``, plus ``env``);
    the CompletedProcess with text stdout/stderr."""
    e = h.env
    e["LC_ALL"] = "C"
    e.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "zlab.tools." + tool] + list(args),
        capture_output=True,
        text=True,
        env=e,
        input=stdin,
        timeout=120,
    )
