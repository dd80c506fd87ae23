"""Whether this process may fork a helper that works beside it (a snapshot's validator, a JSON list's writer)."""

from __future__ import annotations

import os
import sys


def can_fork_beside() -> bool:
    """Whether a forked child can run beside this process: no other thread (its locks would be held), two CPUs."""
    threading = sys.modules.get("threading")  # not imported: no other thread
    if not hasattr(os, "fork") or (threading is not None and threading.active_count() != 1):
        return False
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return cpus >= 2
