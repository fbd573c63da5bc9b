# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The machines the ``cpc`` model knows: generations, IOCP machine types and what each supports.

``cpc.machine`` is a generation (``z17``), its LinuxONE name (``LinuxONE 5``) or an IOCP machine
type (``9176``); the model keeps the generation (``machine``) and the type (``machine_type``) that
``ID SYSTEM=`` carries. Sources: docs/iocp-sources.md.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

GENERATIONS = ("z15", "z16", "z17")
# IOCP machine types per generation; the first is the default when only the generation is given.
MACHINE_TYPES = {"z15": ("8561", "8562"), "z16": ("3931", "3932"), "z17": ("9175", "9176")}
GENERATION_OF_TYPE = dict((mtype, gen) for gen, types in MACHINE_TYPES.items() for mtype in types)
# LinuxONE names of the same generations (LinuxONE III, 4 and 5 share the IBM Z machine types).
LINUXONE_NAMES = {"linuxone3": "z15", "linuxoneiii": "z15", "linuxone4": "z16", "linuxone5": "z17"}
# Generations with Network Express (FUNCTION TYPE=NETH/NETD, CHPID TYPE=OSH) and without RoCE Express.
NETWORK_EXPRESS_GENERATIONS = ("z17",)
ROCE_GENERATIONS = ("z15", "z16")

_SPACING = re.compile(r"[\s_-]+")


def accepted_names():
    """The ``cpc.machine`` values, for messages."""
    return "%s, %s or a machine type %s" % (
        ", ".join(GENERATIONS),
        ", ".join(sorted(LINUXONE_NAMES)),
        ", ".join(sorted(GENERATION_OF_TYPE)),
    )


def read_machine(value):
    """``(generation, machine type)`` of a ``cpc.machine`` value, or None when it names no machine."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return None
    text = _SPACING.sub("", str(value)).lower()
    if text in GENERATION_OF_TYPE:
        return GENERATION_OF_TYPE[text], text
    generation = LINUXONE_NAMES.get(text, text)
    if generation in MACHINE_TYPES:
        return generation, MACHINE_TYPES[generation][0]
    return None


def machine_label(generation, machine_type):
    """``z17 (machine type 9176)`` for messages."""
    return "%s (machine type %s)" % (generation, machine_type)
