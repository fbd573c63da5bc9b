"""The lab side's error (own module: host and guests both raise it, guests without importing host)."""


class LabError(Exception):
    pass
