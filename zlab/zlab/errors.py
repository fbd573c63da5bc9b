# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The lab side's error (own module: host and guests both raise it, guests without importing host)."""


class LabError(Exception):
    pass
