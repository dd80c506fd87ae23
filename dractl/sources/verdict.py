"""A big snapshot's validation that is still under way, and what waits for it.

The first read of a big JSON snapshot is validated by a child process (``loader._Validator``) while this one
reads the file without validating; the command then works on the objects while the child finishes. Nothing
leaves the process before the child's verdict: the command's streams (``gated``), the fake cluster's state and
the exit status all ``settle()`` first. A bad file then raises the first error, as a validating read raises
it, before a byte of output is written; a good one has its index saved and its warnings said.

No imports: the CLI's entry point settles on every path, and --help must not pay for it.
"""

from __future__ import annotations

from typing import Any

#: what settles each verdict under way: waits for it, raises the bad input's error (a DractlError)
_pending: list[Any] = []


def defer(settle: Any, stop: Any) -> None:
    """Register a verdict under way: ``settle()`` waits for it (and raises if the file is bad), ``stop()`` drops it."""
    _pending.append((settle, stop))


def settle() -> None:
    """Wait for every verdict under way; raise the first bad input's error (nothing was written before)."""
    while _pending:
        work, stop = _pending.pop(0)  # taken off first: what it writes (a warning) must not wait for itself
        try:
            work()
        except BaseException:  # the file's error, or interrupted while waiting: its child is not left running
            stop()
            raise


def abandon() -> None:
    """Drop the verdicts under way (the command failed or was interrupted): stop their children."""
    while _pending:
        _, stop = _pending.pop(0)
        stop()


class Gated:
    """A text stream whose first write (or flush, or byte buffer) waits for the verdicts under way."""

    __slots__ = ("_stream",)

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, s: str) -> int:
        """Write ``s`` once the verdicts under way are in."""
        if _pending:
            settle()
        return self._stream.write(s)

    def __getattr__(self, name: str) -> Any:
        if _pending and name in ("writelines", "flush", "buffer", "close"):
            settle()
        return getattr(self._stream, name)


def gated(stream: Any) -> Any:
    """``stream``, writing only once the verdicts under way are in."""
    return stream if isinstance(stream, Gated) else Gated(stream)
