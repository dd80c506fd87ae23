"""Errors and exit codes shared by every layer of dractl.

The core (model, CEL, allocator) raises these; only the CLI's single error
handler (``dractl.cli.main``) turns them into a line on stderr and an exit code.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """Process exit codes, as documented in the README."""

    SUCCESS = 0
    NEGATIVE = 1  # a negative answer (no match, unschedulable) or a cluster that cannot be reached
    USAGE = 2  # bad input or bad usage
    INTERRUPTED = 130  # Ctrl-C (as a shell reports SIGINT: 128 + 2)


class DractlError(Exception):
    """Base class: a known failure with a one-line message."""

    exit_code: ExitCode = ExitCode.NEGATIVE


class InputError(DractlError):
    """Bad input: a file, an object or a flag that cannot be used."""

    exit_code = ExitCode.USAGE


class ValidationError(InputError):
    """An object violates the resource.k8s.io schema or its upstream limits.

    The message names the origin (file), the object (Kind name) and the field path.
    """

    def __init__(self, field: str, detail: str, *, obj: str = "", origin: str = "") -> None:
        self.field = field
        self.detail = detail
        self.obj = obj
        self.origin = origin
        super().__init__(self._text())

    def located(self, *, obj: str | None = None, origin: str | None = None) -> ValidationError:
        """Return a copy that also names the object and/or the file."""
        return ValidationError(
            self.field,
            self.detail,
            obj=obj if obj is not None else self.obj,
            origin=origin if origin is not None else self.origin,
        )

    def _text(self) -> str:
        where = ": ".join(p for p in (self.origin, self.obj) if p)
        field = f"{self.field}: " if self.field else ""
        return f"{where}: {field}{self.detail}" if where else f"{field}{self.detail}"


class UsageError(InputError):
    """Bad command-line usage."""


class SourceError(DractlError):
    """A source could not be read or reached (cluster down, state unreadable)."""

    exit_code = ExitCode.NEGATIVE


class StateUnreadableError(SourceError):
    """The fake cluster's state file exists but is not a state document (the CLI adds how to recreate it)."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"fake cluster state {path} is unreadable ({reason})")


class NotFoundError(DractlError):
    """A named object does not exist in the source."""

    exit_code = ExitCode.NEGATIVE
