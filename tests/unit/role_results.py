# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The results a role registers, as the drift report reads them, for tests that build a host's
variables: taken from ``ROLE_RESULTS``, so that a module added to a role needs no edit here."""

from __future__ import annotations

from ansible_collections.s390x.network.plugins.plugin_utils.drift_report import ROLE_RESULTS


def clean_results(role, **results):
    """Every result ``role`` registers as a run that changed nothing and found no drift, with
    ``results`` in place of some of them."""
    clean = dict((name, {"changed": False, "drift": []}) for name, _kind in ROLE_RESULTS[role])
    clean.update(results)
    return clean


def results_after(role, name):
    """``(name, kind)`` of the results ``role`` registers after the result ``name``."""
    names = [n for n, _kind in ROLE_RESULTS[role]]
    return list(ROLE_RESULTS[role][names.index(name) + 1 :])
