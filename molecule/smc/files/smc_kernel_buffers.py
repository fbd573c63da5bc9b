# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Ask a zlab host's emulated kernel which SMC-D buffer sizes a new SMC socket gets (controller).

    smc_kernel_buffers.py LAB HOST TCP_RMEM TCP_WMEM

TCP_RMEM/TCP_WMEM are the host's live net.ipv4.tcp_rmem/tcp_wmem (read on the host: the kernel
state does not hold them). Uses the emulator's own rule for the host's kernel profile (request
= net.smc.rmem/wmem where the profile has them, else half of the TCP default; then 16 KiB x 2^n,
capped), independent of the collection's smc_sizing. Prints {"rmem": N, "wmem": N, "smc_sysctl": {...}}.
"""

import json
import os
import sys

from zlab import host, kernel, profiles


def main(argv):
    lab, name = argv[1], argv[2]
    tcp = {"rmem": int(argv[3].split()[1]), "wmem": int(argv[4].split()[1])}
    state_dir = os.path.join(host.lab_dir(lab), "hosts", name, "kernel")
    if not os.path.isdir(state_dir):
        sys.exit("no kernel state for host %s in lab %s (%s)" % (name, lab, state_dir))
    prof = kernel.profile(state_dir)
    smc_sysctl = kernel.smc_sysctl(state_dir)
    if smc_sysctl is None:
        sys.exit("smc is not loaded on %s" % name)
    out = {
        d: profiles.smc_buffer_size(prof, d, "SMCD", smc_sysctl=smc_sysctl, tcp_mem1=tcp[d]) for d in ("rmem", "wmem")
    }
    out["smc_sysctl"] = smc_sysctl
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main(sys.argv)
