"""Commands added after the first release; registered by dractl.cli.app._register()."""

from __future__ import annotations

import typer

from dractl.cli import check, claims


def register(app: typer.Typer) -> None:
    app.command("claims")(claims.claims)
    app.command("check")(check.check)
