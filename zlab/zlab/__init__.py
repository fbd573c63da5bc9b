# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""zlab: an emulated IBM Z CPC on one Linux machine.

Lab side (controller): cli, model, image, host, network, guests, inventory.
Host side (inside every emulated host, Debian's python3): kernel, fusefs, tools, hostinit.
Keep this file free of imports: it is imported by both.
"""

__version__ = "0.1.0"
