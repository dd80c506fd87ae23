"""`dractl snapshot`: everything dractl reads, as one List that --from reads back."""

from __future__ import annotations

import typer

from dractl.cli.context import app_context


def snapshot(ctx: typer.Context) -> None:
    """Write every object dractl reads as one List (YAML, or JSON with -o json) that --from reads back.

    Secrets and service-account tokens are never read; pods keep only what scheduling uses (no
    environment, volumes or last-applied annotations), so a dump can be attached to a bug report.
    """
    from dractl.errors import UsageError
    from dractl.render.printers import Result, to_yaml
    from dractl.sources.snapshot_doc import snapshot_document

    app_ctx = app_context(ctx)
    fmt = app_ctx.output
    if fmt not in ("table", "yaml", "json"):
        raise UsageError(f"snapshot writes yaml or json, not {fmt}")
    doc = snapshot_document(app_ctx.source)
    # a v1 List of the objects as the API server has them; YAML unless -o json
    app_ctx.print(Result(table=None, document=lambda: doc, text=lambda: to_yaml(doc)))
