# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fixtures of the lab tests: a running built-in lab (inventories/lab) under its own name.

The lab tests need root (namespaces, mounts), mmdebstrap's images (built on first use into
/var/cache/zlab, a few minutes once) and the device emulator. They run as `make test-zlab-lab`.
"""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from labutil import LAB_INVENTORY, LAB_NAME, skip_reason, zlab  # noqa: E402  pylint: disable=wrong-import-position


@pytest.fixture(scope="session")
def images():
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    from zlab import image  # pylint: disable=import-outside-toplevel

    return image.build_all()


@pytest.fixture(scope="module")
def lab(images, tmp_path_factory):  # pylint: disable=redefined-outer-name,unused-argument
    """The built-in lab, up for the module; inventory file written for Ansible."""
    zlab("down", LAB_NAME, lab=None)
    up = zlab("up", LAB_INVENTORY, "--name", LAB_NAME, lab=None)
    inv = tmp_path_factory.mktemp("inv") / "zlab.yml"
    inv.write_text(zlab("inventory").stdout)
    from zlab.host import Lab  # pylint: disable=import-outside-toplevel

    info = Lab.load(LAB_NAME)
    yield {"inventory": str(inv), "up": up.stdout, "lab": info}
    zlab("down", LAB_NAME, lab=None, check=False)
