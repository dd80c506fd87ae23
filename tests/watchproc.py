"""dractl running as a real process whose output is read as it comes (for -w), with waits that poll a condition."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).parent.parent


def wait_until(what: str, check: Callable[[], Any], timeout: float = 60, every: float = 0.05) -> Any:
    """Poll ``check`` until it returns something true; fail naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")
        time.sleep(every)


class Watch:
    """dractl ARGS running with piped stdout and stderr; both collected as they come."""

    def __init__(self, *args: str, env: dict[str, str] | None = None) -> None:
        e = dict(os.environ, PYTHONPATH=str(ROOT), **(env or {}))
        self.p = subprocess.Popen([sys.executable, "-m", "dractl", *args], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=e, cwd=ROOT)
        self._out: list[bytes] = []
        self._err: list[bytes] = []
        self._readers = [threading.Thread(target=self._read, args=(s, into), daemon=True)
                         for s, into in ((self.p.stdout, self._out), (self.p.stderr, self._err))]
        for t in self._readers:
            t.start()

    @staticmethod
    def _read(stream: Any, into: list[bytes]) -> None:
        for line in stream:
            into.append(line)

    @property
    def out(self) -> str:
        return b"".join(self._out).decode()

    @property
    def err(self) -> str:
        return b"".join(self._err).decode()

    def wait_for(self, text: str, timeout: float = 60, stream: str = "out") -> str:
        """Wait until ``text`` is on stdout (or stderr); fail early if dractl exits first."""
        def seen() -> str | None:
            got = self.out if stream == "out" else self.err
            if text in got:
                return got
            if self.p.poll() is not None:
                self.finish()
                raise AssertionError(f"dractl exited ({self.p.returncode}) before {text!r} was seen; "
                                     f"stdout:\n{self.out}\nstderr:\n{self.err}")
            return None

        try:
            return wait_until(f"{text!r} from dractl", seen, timeout)
        except AssertionError:
            if self.p.poll() is None:
                self.p.kill()  # not left running after a failed test
                raise AssertionError(f"{text!r} not seen; stdout:\n{self.out}\nstderr:\n{self.err}") from None
            raise

    def listed(self, timeout: float = 60) -> None:
        """Wait for the first listing: a header on stdout, or "No resources found" (kubectl's words; "No devices
        found" for devices) on stderr."""
        def check() -> bool:
            if self.out or re.search(r"^No \w+ found", self.err, re.M):
                return True
            if self.p.poll() is not None:
                self.finish()
                raise AssertionError(f"dractl exited ({self.p.returncode}) before its first listing; "
                                     f"stdout:\n{self.out}\nstderr:\n{self.err}")
            return False

        try:
            wait_until("the first listing", check, timeout)
        except AssertionError:
            if self.p.poll() is None:
                self.p.kill()
            raise

    def finish(self, timeout: float = 60) -> int:
        """Wait for dractl to exit on its own and for its output to be read; its exit status."""
        try:
            self.p.wait(timeout=timeout)
        finally:
            if self.p.poll() is None:
                self.p.kill()
        for t in self._readers:
            t.join(10)
        return self.p.returncode

    def interrupt(self) -> tuple[int, str]:
        """Ctrl-C (SIGINT); the exit status and stderr."""
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGINT)
        code = self.finish()
        return code, self.err
