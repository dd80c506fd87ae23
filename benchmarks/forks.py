"""What a benchmark waits for after a command: the children it forked to work on after it ended."""

from __future__ import annotations

import os
import time


def wait_for_forks(cmd: list[str], timeout: float = 300) -> None:
    """Wait until no process has ``cmd``'s command line (a child forked by it, e.g. the writer of a big snapshot's
    slice cache, dractl.sources.modelcache): its work is not timed, and not left to slow the next run."""
    want = "\0".join(cmd).encode() + b"\0"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not any(_cmdline(pid) == want for pid in os.listdir("/proc") if pid.isdigit()):
            return
        time.sleep(0.05)


def _cmdline(pid: str) -> bytes:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read()
    except OSError:
        return b""
