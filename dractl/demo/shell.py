"""Running the external tools (kubectl, kind, helm, git): one place that spawns processes.

Every command goes through :class:`Shell`, which tells a listener what it runs (the progress
line), raises :class:`ToolError` with the tool's own last words when a command fails, and
never leaves a child running when the user presses Ctrl-C (``subprocess.run`` kills it).
"""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from dractl.errors import SourceError


class ToolError(SourceError):
    """An external command failed (exit 1: the cluster or a tool said no)."""


def quote(argv: Sequence[str], env: Mapping[str, str] | None = None) -> str:
    """The command as a user would type it in a POSIX shell."""
    prefix = " ".join(f"{k}={shlex.quote(v)}" for k, v in (env or {}).items())
    cmd = " ".join(shlex.quote(a) for a in argv)
    return f"{prefix} {cmd}" if prefix else cmd


@dataclass
class Shell:
    """Runs external commands (kind, kubectl, helm, git) and tells ``on_command`` about each."""
    #: called with the quoted command before it runs (progress display)
    on_command: Callable[[str], None] = lambda cmd: None
    #: extra environment for every command (e.g. KIND_EXPERIMENTAL_PROVIDER=podman for kind)
    env: dict[str, str] = field(default_factory=dict)

    def run(self, argv: Sequence[str], *, input: str | None = None, check: bool = True,
            env: Mapping[str, str] | None = None, timeout: float | None = None) -> subprocess.CompletedProcess[str]:
        """Run ``argv`` with output captured; a SetupMissing error when the command is missing or fails."""
        extra = {**self.env, **(env or {})}
        self.on_command(quote(argv, extra))
        try:
            p = subprocess.run(list(argv), input=input, capture_output=True, text=True, timeout=timeout,
                               env={**os.environ, **extra} if extra else None)
        except FileNotFoundError:
            raise ToolError(f"{argv[0]}: command not found") from None
        except subprocess.TimeoutExpired:
            raise ToolError(f"{quote(argv)}: no answer after {timeout:.0f}s") from None
        if check and p.returncode != 0:
            raise ToolError(f"{quote(argv)} failed (exit {p.returncode}): {last_words(p)}")
        return p


def last_words(p: subprocess.CompletedProcess[str]) -> str:
    """The last non-empty line a failed command wrote (its error)."""
    for text in (p.stderr, p.stdout):
        lines = [ln.strip() for ln in (text or "").splitlines() if ln.strip()]
        if lines:
            return lines[-1]
    return "no output"
