"""FUSE frontend of the emulated s390 kernel (see ops.py; run with python3 -m zlab.fusefs)."""
