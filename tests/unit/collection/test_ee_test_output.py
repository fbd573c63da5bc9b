# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""scripts/ee-test.sh shows the base image's output on the stderr it was given and keeps what
that stderr already holds: `make test > log 2>&1` writes the earlier tiers into the same file.
`tee /dev/stderr` opened the file again, which truncated it; the script's to_stderr_too writes to
the descriptor that is already open."""

from __future__ import annotations

import os
import re
import subprocess

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
SCRIPT = os.path.join(REPO, "scripts", "ee-test.sh")


def _script():
    with open(SCRIPT, encoding="utf-8") as handle:
        return handle.read()


def _function(name):
    match = re.search(r"^%s\(\) \{\n.*?^\}\n" % name, _script(), re.M | re.S)
    assert match, "%s() is not defined in scripts/ee-test.sh" % name
    return match.group(0)


def _run_into_log(tmp_path, copy):
    """bash with its stderr a log file that holds earlier output: ``out="$(printf ... | COPY)"``.
    Returns (what the substitution captured, the log afterwards)."""
    log = tmp_path / "make-test.log"
    with open(log, "w", encoding="utf-8") as handle:
        handle.write("=== tier lint\nearlier output\n")
        handle.flush()
        proc = subprocess.run(
            [
                "bash",
                "-c",
                '%s\nout="$(printf \'built\\nno newline at the end\' | %s)"; printf "%%s" "$out"'
                % (
                    _function("to_stderr_too"),
                    copy,
                ),
            ],
            stdout=subprocess.PIPE,
            stderr=handle,
            universal_newlines=True,
            check=True,
        )
    return proc.stdout, log.read_text()


def test_the_copy_to_stderr_keeps_what_the_log_held(tmp_path):
    out, log = _run_into_log(tmp_path, "to_stderr_too")
    assert out == "built\nno newline at the end"
    assert log == "=== tier lint\nearlier output\nbuilt\nno newline at the end\n"


def test_tee_to_dev_stderr_loses_it(tmp_path):
    # the construct the script used: the file is opened again and truncated
    out, log = _run_into_log(tmp_path, "tee /dev/stderr")
    assert out == "built\nno newline at the end"
    assert "earlier output" not in log


def test_the_script_opens_no_standard_stream_again():
    assert re.findall(r"/dev/std(?:err|out)|/dev/fd/[12]\b|/proc/self/fd/[12]\b", _script()) == []
    assert 'out="$(scripts/ee-base-image.sh "$base_image" | to_stderr_too)"' in _script()
