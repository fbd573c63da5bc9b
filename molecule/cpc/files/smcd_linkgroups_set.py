# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Set the SMC-D link groups of a zlab host's emulated kernel (run on the controller).

    smcd_linkgroups_set.py LAB HOST JSON

JSON is a list of link groups as zlab.kernel.linkgroups holds them, e.g.
[{"id": 6912, "vlan": 0, "conns": 3, "pnet_id": "", "device": "0606:00:00.0"}]; [] clears them.
The lab cannot open real SMC-D connections, so this is how a host "uses" an ISM function.
"""

import json
import os
import sys

from zlab import host, kernel


def main(argv):
    lab, name, groups = argv[1], argv[2], json.loads(argv[3])
    state_dir = os.path.join(host.lab_dir(lab), "hosts", name, "kernel")
    if not os.path.isdir(state_dir):
        sys.exit("no kernel state for host %s in lab %s (%s)" % (name, lab, state_dir))
    kernel.linkgroups_set(state_dir, "SMCD", groups)
    print(json.dumps(kernel.linkgroups(state_dir, "SMCD"), sort_keys=True))


if __name__ == "__main__":
    main(sys.argv)
