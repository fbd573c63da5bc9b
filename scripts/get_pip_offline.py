# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Stand-in for pypa's get-pip.py, used by ansible-test to put pip into its sanity venvs.

ansible-test downloads get-pip.py from a host that this workplace cannot reach. This script does
the same job from what is reachable: it seeds pip with the interpreter's bundled ensurepip wheel,
then lets that pip install the requested pip version from the package index. It accepts the
get-pip.py options ansible-test passes (`--no-setuptools`, `--no-wheel` are get-pip specific).
"""

import subprocess
import sys


def main(argv):
    pip_args = [a for a in argv if a not in ("--no-setuptools", "--no-wheel")]
    subprocess.check_call([sys.executable, "-m", "ensurepip", "--upgrade", "--default-pip"], stdout=subprocess.DEVNULL)
    if pip_args:
        subprocess.check_call([sys.executable, "-m", "pip", "install", "--quiet"] + pip_args)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
