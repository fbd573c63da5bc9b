# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Set SMC-R link groups and statistics in a zlab host's emulated kernel (run on the controller).

    smcr_state_set.py LAB HOST JSON

JSON: {"linkgroups": [... as zlab.kernel.linkgroups_set takes for SMCR ...], "stats": {... partial
zlab.kernel.smc_stats layout for SMCR ...}}. Prints the link groups and counters after the change.
"""

import json
import os
import sys

from zlab import host, kernel


def main(argv):
    lab, name, values = argv[1], argv[2], json.loads(argv[3])
    state_dir = os.path.join(host.lab_dir(lab), "hosts", name, "kernel")
    if not os.path.isdir(state_dir):
        sys.exit("no kernel state for host %s in lab %s (%s)" % (name, lab, state_dir))
    if "linkgroups" in values:
        kernel.linkgroups_set(state_dir, "SMCR", values["linkgroups"])
    if "stats" in values:
        kernel.smc_stats_set(state_dir, "SMCR", values["stats"])
    print(
        json.dumps({"linkgroups": kernel.linkgroups(state_dir, "SMCR"), "stats": kernel.smc_stats(state_dir, "SMCR")})
    )


if __name__ == "__main__":
    main(sys.argv)
