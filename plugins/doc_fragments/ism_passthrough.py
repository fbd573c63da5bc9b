# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations


class ModuleDocFragment(object):
    """Options shared by the ism_passthrough_config and ism_passthrough_report filters."""

    DOCUMENTATION = r"""
options:
  _input:
    description: The host's view from P(s390x.network.cpc_host#filter) (its C(passthrough) list).
    type: dict
    required: true
  mode:
    description: The role's C(ism_passthrough_mode).
    type: str
    required: true
    choices: [managed, static]
"""
