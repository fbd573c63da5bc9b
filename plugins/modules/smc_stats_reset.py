#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: smc_stats_reset
short_description: Reset the SMC-D or SMC-R statistics counters, returning their values before the reset
version_added: 0.1.0
description:
  - Runs C(smcd -d stats reset) or C(smcr -d stats reset) (smc-tools 1.6.0 or later), which prints the
    counters and then resets them, for example before a workload whose SMC use a later
    M(s390x.network.smcd_info) checks.
  - Returns the counters before the reset with the fields of M(s390x.network.smcd_info).
  - smc-tools keeps the values of the last reset in a cache file per user (C(/tmp/.smcstats.u<UID>)) and shows later
    counts relative to them; the kernel's counters are not changed, and C(-a) still counts since the C(smc) module
    was loaded. Reset as the user that later reads the statistics.
  - The cache file holds the SMC-D and the SMC-R counters together, so a reset with either protocol resets the
    baseline of both (after C(smcd stats reset), C(smcr stats) shows zeros too, as seen with smc-tools 1.8.5).
  - Needs smc-tools 1.8.7 or later. Older releases keep that file at a path fixed in their code (C(TMPDIR) does
    not move it), which any local user can create first so that the reset fails or waits forever (a denial of
    service, fixed in 1.8.7); the module asks the tool for its release (C(-v)) and, for an older or unknown one,
    fails before running C(stats), also in check mode. A private C(/tmp) would lose the baseline with it. Compare
    absolute counters (M(s390x.network.smcd_info) with O(s390x.network.smcd_info#module:absolute=true)) taken
    before and after the workload instead.
author:
  - s390x.network contributors (@s390x-network)
attributes:
  check_mode:
    description: Reads the counters (C(stats show)) without resetting them and reports C(changed) as a reset would.
    support: full
  diff_mode:
    description: Returns no diff; the counters before the reset are in RV(stats).
    support: none
  idempotent:
    description: Every run resets the counters again and reports C(changed).
    support: none
options:
  protocol:
    description:
      - V(smcd) runs C(smcd) and returns the SMC-D counters before the reset, V(smcr) C(smcr) and the SMC-R
        counters; either resets the baseline of both.
    type: str
    choices: [smcd, smcr]
    default: smcd
seealso:
  - module: s390x.network.smcd_info
"""

EXAMPLES = r"""
- name: Reset the SMC-D counters before the workload
  s390x.network.smc_stats_reset:
  register: before_reset

- name: Reset the SMC-R counters
  s390x.network.smc_stats_reset:
    protocol: smcr
"""

RETURN = r"""
protocol:
  description: The protocol whose counters were reset.
  returned: always
  type: str
  sample: smcd
source:
  description: V(json+text) when C(stats json) refined the text, V(text) otherwise.
  returned: always
  type: str
  sample: json+text
stats:
  description: The counters before the reset, as RV(s390x.network.smcd_info#module:stats) returns them.
  returned: always
  type: dict
commands:
  description: The commands run.
  returned: always
  type: list
  elements: str
  sample: ["/usr/sbin/smcd -v", "/usr/sbin/smcd stats json", "/usr/sbin/smcd -d stats reset"]
tool_version:
  description: The smc-tools release C(-v) reported (C(unknown) when it named none).
  returned: always
  type: str
  sample: 1.8.7
"""

from ansible.module_utils.basic import AnsibleModule

import os

from ansible_collections.s390x.network.plugins.module_utils.smc.stats import (
    StatsError,
    baseline_is_safe,
    command_runner,
    read_stats,
    tool_version,
    unsafe_baseline_message,
    version_text,
)


def main():
    module = AnsibleModule(
        argument_spec=dict(protocol=dict(type="str", default="smcd", choices=["smcd", "smcr"])),
        supports_check_mode=True,
    )
    proto = module.params["protocol"]
    tool = module.get_bin_path(proto, opt_dirs=["/usr/sbin", "/sbin"])
    if tool is None:
        module.fail_json(msg="%s not found: install smc-tools (1.6.0 or later for stats)" % proto)
    commands = []
    run = command_runner(module, tool, commands)
    version = tool_version(run, proto)
    if not baseline_is_safe(version):
        module.fail_json(
            msg="%s; the module does not reset with it: install smc-tools 1.8.7 or later, or compare absolute "
            "counters (smcd_info absolute=true) taken before and after the workload"
            % unsafe_baseline_message(proto, version, os.getuid()),
            tool_version=version_text(version),
            commands=commands,
        )
    try:
        stats, source = read_stats(run, proto, reset=not module.check_mode)
    except StatsError as exc:
        # the reset command ran (and reset) even when its output cannot be read
        module.fail_json(
            msg=str(exc),
            stdout=getattr(exc, "stdout", None),
            commands=commands,
            changed=not module.check_mode,
            tool_version=version_text(version),
        )
    module.exit_json(
        changed=True, protocol=proto, source=source, stats=stats, commands=commands, tool_version=version_text(version)
    )


if __name__ == "__main__":
    main()
