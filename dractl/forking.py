"""Children forked to work beside this process (a snapshot's validator, a JSON list's writer).

A child shares the parent's memory (fork copies a page only when one side writes it), says what it found by
its exit status or a file, and leaves with ``os._exit``, never flushing what the parent had buffered.
"""

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


def fork_beside() -> int | None:
    """``os.fork()`` where :func:`can_fork_beside`: 0 in the child, its pid here; None where not, or if it fails."""
    if not can_fork_beside():
        return None
    try:
        return os.fork()
    except OSError:
        return None


class Child:
    """A forked child of this process: its exit status once it is done, or stopped."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self._status: int | None = None

    def status(self) -> int:
        """Wait for the child: its wait status (0: it exited with 0; -1: reaped by someone else)."""
        if self._status is None:
            try:
                _, status = os.waitpid(self.pid, 0)
            except ChildProcessError:
                status = -1
            self._status = status
        return self._status

    def stop(self) -> None:
        """Kill the child if it still runs (what it would say is not wanted), and reap it."""
        if self._status is None:
            import contextlib
            import signal

            with contextlib.suppress(OSError):
                os.kill(self.pid, signal.SIGKILL)
            self.status()
