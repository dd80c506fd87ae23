"""Children forked to work beside this process (a snapshot's validator, a JSON list's writer).

A child shares the parent's memory (fork copies a page only when one side writes it), says what it found by
its exit status or a file, and leaves with ``os._exit``, never flushing what the parent had buffered.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable


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


def run_detached(work: Callable[[], None], *, beside: bool = True) -> None:
    """Run ``work`` (the writing of a cache) where it does not hold up the command that asked for it.

    ``beside``: in a child forked for it, at a lower priority, its streams and every other file it was given
    closed (a pipe's reader, a harness, waits for their ends), this process going on at once; no child where
    none can be forked (nothing is done). Not ``beside`` (a test, a program that runs dractl's main): here and
    now. Either way a failure of ``work`` is no one's error: a cache that cannot be written is no cache.
    """
    import contextlib

    if not beside:
        with contextlib.suppress(Exception):
            work()
        return
    pid = fork_beside()
    if pid != 0:
        return  # this process (or no child could be made)
    try:
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.closerange(3, 1 << 20)
        with contextlib.suppress(OSError, AttributeError):
            os.setsid()
        with contextlib.suppress(OSError, AttributeError):
            os.nice(10)
        work()
    finally:
        os._exit(0)
