# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations


class ModuleDocFragment(object):
    """Shared C(attributes) blocks for the modules of this collection.

    Use C(s390x.network.attributes) for modules that change the managed host and
    C(s390x.network.attributes.info_module) for read-only modules. A module that supports an
    attribute only in part overrides that attribute in its own DOCUMENTATION.
    """

    # Modules that change state.
    DOCUMENTATION = r"""
attributes:
  check_mode:
    description: Can run in check mode and return the changed status it predicts, without modifying the target.
    support: full
  diff_mode:
    description: Returns details on what has changed (or would change in check mode) when run with C(--diff).
    support: full
  idempotent:
    description: A second run with the same arguments reports no change and, where documented, runs no command that changes the target.
    support: full
"""

    # Modules that only read state.
    INFO_MODULE = r"""
attributes:
  check_mode:
    description: Reads state only, so it runs unchanged in check mode.
    support: full
  diff_mode:
    description: Changes nothing, so there is no diff to return.
    support: none
  idempotent:
    description: Never changes the target.
    support: full
"""
