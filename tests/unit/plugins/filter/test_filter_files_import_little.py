# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""To find one filter of a collection, ansible-core imports every file in plugins/filter, in every
worker process, from source. So a filter file imports the code behind its filter when the filter is
called, not when the file is imported: importing all filter files loads none of the collection's
plugin_utils or module_utils apart from plain_data."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import subprocess
import sys

FILTERS = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "plugins", "filter")
ALLOWED = {"ansible_collections.s390x.network.plugins.plugin_utils.plain_data"}

PROBE = """
import importlib, json, sys
names = sys.argv[1:]
for name in names:
    module = importlib.import_module("ansible_collections.s390x.network.plugins.filter." + name)
    assert module.FilterModule().filters()
loaded = sorted(m for m in sys.modules if m.startswith("ansible_collections.s390x.network.plugins.")
                and (".plugin_utils." in m or ".module_utils." in m))
print(json.dumps(loaded))
"""


def test_importing_every_filter_file_loads_no_helper_code():
    names = sorted(f[:-3] for f in os.listdir(FILTERS) if f.endswith(".py") and f != "__init__.py")
    assert len(names) > 15
    # a fresh interpreter: other tests of this session have imported the helpers already
    proc = subprocess.run(
        [sys.executable, "-c", PROBE] + names,
        capture_output=True,
        text=True,
        check=False,
        env=dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p)),
    )
    assert proc.returncode == 0, proc.stderr
    loaded = set(json.loads(proc.stdout))
    packages = set(m for m in loaded if m.rsplit(".", 1)[-1] in ("plugin_utils", "module_utils"))
    assert loaded - packages - ALLOWED == set()
