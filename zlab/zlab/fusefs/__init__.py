# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""FUSE frontend of the emulated s390 kernel (see ops.py; run with python3 -m zlab.fusefs)."""
