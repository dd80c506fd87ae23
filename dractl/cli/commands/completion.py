"""`dractl completion bash|zsh|fish|powershell`: print a shell completion script.

The scripts print without any shell detection (which fails in containers and CI).
"""

from __future__ import annotations

from typing import Annotated

import typer

from dractl.cli.completers import complete_shells


def completion(
    ctx: typer.Context,
    shell: Annotated[
        str, typer.Argument(metavar="SHELL", help="bash, zsh, fish or powershell.", autocompletion=complete_shells)
    ],
) -> None:
    """Print the shell completion script for SHELL (see completions/README.md to install it)."""
    from dractl.complete.scripts import SHELLS
    from dractl.errors import UsageError

    if shell == "pwsh":
        shell = "powershell"
    if shell not in SHELLS:
        raise UsageError(f"completion: unknown shell {shell!r} (choose from {', '.join(SHELLS)})")
    from dractl.cli.context import app_context

    app_context(ctx).stdout.write(script(shell))


def script(shell: str) -> str:
    """The completion script for ``shell``."""
    from dractl.complete.scripts import SCRIPTS

    return SCRIPTS[shell]
