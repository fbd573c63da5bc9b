#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: smc_services
short_description: Run systemd services with SMC through drop-ins that preload libsmc-preload.so
version_added: 0.1.0
description:
  - Writes for each listed unit the systemd drop-in C(/etc/systemd/system/UNIT.d/DROPIN_NAME) that sets
    C(LD_PRELOAD=libsmc-preload.so) (smc-tools), as C(smc_run) does for one command, so that the service's TCP
    sockets become SMC sockets; per-service buffer sizes become C(SMC_RCVBUF)/C(SMC_SNDBUF).
  - Resource-module style - O(config) lists the services, O(state) says what to do with the drop-ins named
    O(dropin_name); the module reads the drop-ins first and writes only those whose text differs.
  - Unit names are checked against systemd's unit-name grammar and O(dropin_name) as a C(*.conf) file name before
    anything is read, so every path stays below C(/etc/systemd/system); the files' lines are built with systemd's
    quoting, never from raw text.
  - Where systemd runs, a change is followed by C(systemctl daemon-reload) and, with O(restart), a restart of the
    changed services that are running. Elsewhere (an image being built, a container) only the files change.
  - Where the dynamic linker cannot find C(libsmc-preload.so), a service started with the drop-in runs with TCP;
    the module warns (or fails, O(missing_preload)) before it writes.
author:
  - s390x.network contributors (@s390x-network)
extends_documentation_fragment:
  - s390x.network.attributes
options:
  config:
    description:
      - The services. A unit name (C(.service) is added when it has no C(.service) or C(.socket) suffix), or a dict
        with C(name) and optionally C(rmem) and C(wmem) - bytes or a number with C(k), C(K), C(m) or C(M) (binary,
        as C(smc_run -r/-t) reads them), at least 16K.
    type: list
    elements: raw
    default: []
  state:
    description:
      - V(merged) writes the drop-ins of O(config) and leaves other drop-ins named O(dropin_name) alone.
      - V(overridden) also removes the drop-ins named O(dropin_name) of units not in O(config).
      - V(deleted) removes the drop-ins of O(config); empty O(config) removes every drop-in named O(dropin_name).
      - V(gathered) changes nothing and returns the services that have a drop-in named O(dropin_name) as RV(gathered).
    type: str
    choices: [merged, overridden, deleted, gathered]
    default: merged
  dropin_name:
    description:
      - The drop-in's file name, C([A-Za-z0-9_][A-Za-z0-9_.-]*.conf); the module owns the files of this name only.
    type: str
    default: 50-s390x-network-smc.conf
  restart:
    description:
      - Restart the running services whose drop-in changed, so that they run with the new environment now. Off, they
        get it at their next start.
    type: bool
    default: false
  missing_preload:
    description:
      - What to do when C(libsmc-preload.so) is neither in the dynamic linker's cache nor in a default library
        directory and a drop-in is to be written - V(warn), V(fail) before anything is written, or V(ignore).
    type: str
    choices: [warn, fail, ignore]
    default: warn
notes:
  - Needs root to write below C(/etc/systemd/system).
  - On kernels with C(IPPROTO_SMC) (6.11 and later) an application can also open SMC sockets itself, without the
    preload library - see the collection's docs/smc-sizing.md.
seealso:
  - module: s390x.network.smc_sysctl
"""

EXAMPLES = r"""
- name: Run db2 and a web server with SMC, the database with 1M receive buffers
  s390x.network.smc_services:
    config:
      - name: db2
        rmem: 1M
      - nginx.service
    state: overridden
    restart: true

- name: Which services run with SMC
  s390x.network.smc_services:
    state: gathered
  register: smc_units
"""

RETURN = r"""
before:
  description: The drop-ins named O(dropin_name) before the run, C(path) and C(text).
  returned: when O(state) is not V(gathered)
  type: list
  elements: dict
  sample: [{"path": "/etc/systemd/system/db2.service.d/50-s390x-network-smc.conf", "text": "..."}]
after:
  description: The drop-ins after the run (in check mode, as they would be).
  returned: when O(state) is not V(gathered)
  type: list
  elements: dict
gathered:
  description: The services with a drop-in named O(dropin_name), as O(config) (C(name), C(rmem), C(wmem)).
  returned: when O(state=gathered)
  type: list
  elements: dict
  sample: [{"name": "db2.service", "rmem": "1M"}]
commands:
  description:
    - What ran (in check mode, would run) - C(write PATH), C(rm PATH), C(systemctl daemon-reload),
      C(systemctl restart UNIT).
  returned: always
  type: list
  elements: str
drift:
  description:
    - One row per drop-in that differs (C(kind) V(dropin), C(object) the drop-in's path, C(scope) V(persistent),
      C(difference) C(missing), C(to remove) or the variables that differ, such as C(SMC_RCVBUF 256K -> 1M)).
  returned: when O(state) is not V(gathered)
  type: list
  elements: dict
restarted:
  description: The running services the module restarted (in check mode, would restart).
  returned: when O(state) is not V(gathered)
  type: list
  elements: str
services:
  description: The unit names of O(config), as checked (with their suffix).
  returned: when O(state) is not V(gathered)
  type: list
  elements: str
rollback:
  description: After a failed step, what ran to put the drop-ins back and whether that worked.
  returned: on failure after a change started
  type: dict
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.s390x.network.plugins.module_utils.engine import resource as resource_engine
from ansible_collections.s390x.network.plugins.module_utils.smc.services_resource import STATES, SmcServices


def main():
    module = AnsibleModule(
        argument_spec=dict(
            config=dict(type="list", elements="raw", default=[]),
            state=dict(type="str", default="merged", choices=list(STATES)),
            dropin_name=dict(type="str", default="50-s390x-network-smc.conf"),
            restart=dict(type="bool", default=False),
            missing_preload=dict(type="str", default="warn", choices=["warn", "fail", "ignore"]),
        ),
        supports_check_mode=True,
    )
    resource_engine.run(module, SmcServices(module))


if __name__ == "__main__":
    main()
