"""`dractl snapshot` (everything dractl reads, for --from) and `dractl rbac` (the ClusterRole dractl needs)."""

from __future__ import annotations

from typing import Any

import typer

from dractl.sources.snapshot_doc import PUBLISH_RULES, READ_RULES


def register(app: typer.Typer) -> None:
    app.command("snapshot")(snapshot)
    app.command("rbac")(rbac)


def snapshot(ctx: typer.Context) -> None:
    """Write every object dractl reads as one List (YAML, or JSON with -o json) that --from reads back.

    Secrets and service-account tokens are never read; pods keep only what scheduling uses (no
    environment, volumes or last-applied annotations), so a dump can be attached to a bug report.
    """
    from dractl.errors import UsageError
    from dractl.render.printers import to_json, to_yaml
    from dractl.sources.snapshot_doc import snapshot_document

    app_ctx = ctx.obj
    fmt = app_ctx.output
    if fmt not in ("table", "yaml", "json"):
        raise UsageError(f"snapshot writes yaml or json, not {fmt}")
    doc = snapshot_document(app_ctx.source)
    app_ctx.stdout.write(to_json(doc) if fmt == "json" else to_yaml(doc))


def rbac(
    ctx: typer.Context,
    publish: bool = typer.Option(False, "--publish", help="Also the rules 'dractl fake publish' needs."),
    name: str = typer.Option("dractl-reader", "--name", help="The ClusterRole's name."),
) -> None:
    """Print the minimal read-only ClusterRole dractl needs (apply it with kubectl, then bind it)."""
    from dractl.render.printers import to_json, to_yaml

    rules: list[dict[str, Any]] = [dict(r) for r in READ_RULES]
    if publish:
        rules += [dict(r) for r in PUBLISH_RULES]
    doc = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": {"name": name, "labels": {"app.kubernetes.io/managed-by": "dractl"}},
        "rules": rules,
    }
    app_ctx = ctx.obj
    if app_ctx.output == "json":
        app_ctx.stdout.write(to_json(doc))
        return
    app_ctx.stdout.write(
        "# The read-only access dractl needs"
        + (" plus what 'dractl fake publish' writes" if publish else "")
        + f". Bind it with: kubectl create clusterrolebinding {name} --clusterrole={name} --user=NAME\n"
    )
    app_ctx.stdout.write(to_yaml(doc))
