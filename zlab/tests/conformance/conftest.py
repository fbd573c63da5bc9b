"""Conformance tests import their helper modules (toolrun) from this directory, whatever pytest's
import mode."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)
