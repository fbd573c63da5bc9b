# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Set SMC statistics counters in a zlab host's emulated kernel (run on the controller).

    smc_stats_set.py LAB HOST PROTO JSON

JSON has the layout of zlab.kernel.smc_stats (partial allowed), e.g.
{"SMCD": {"SMC_CLNT_V2_SUCC_CNT": 20}, "CLNT_FBACK_CNT": 10, "FBACK_RSN": {"clnt": [[50397184, 10]]}}.
Prints the counters after the change.
"""

import json
import os
import sys

from zlab import host, kernel


def main(argv):
    lab, name, proto, values = argv[1], argv[2], argv[3], json.loads(argv[4])
    state_dir = os.path.join(host.lab_dir(lab), "hosts", name, "kernel")
    if not os.path.isdir(state_dir):
        sys.exit("no kernel state for host %s in lab %s (%s)" % (name, lab, state_dir))
    kernel.smc_stats_set(state_dir, proto, values)
    print(json.dumps(kernel.smc_stats(state_dir, proto), sort_keys=True))


if __name__ == "__main__":
    main(sys.argv)
