"""Process liveness, for the modules that start and watch lab processes (hosts, QEMU)."""


def pid_alive(pid):
    """True while ``pid`` runs (a zombie counts as ended)."""
    if not pid:
        return False
    try:
        with open("/proc/%d/status" % pid, encoding="ascii") as f:
            for line in f:
                if line.startswith("State:"):
                    return "Z" not in line.split()[1]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return True
