"""`dractl rbac`: the minimal read-only ClusterRole dractl needs."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from dractl.cli.context import app_context
from dractl.sources.snapshot_doc import PUBLISH_RULES, READ_RULES


def rbac(
    ctx: typer.Context,
    publish: Annotated[bool, typer.Option("--publish", help="Also the rules 'dractl fake publish' needs.")] = False,
    name: Annotated[str, typer.Option("--name", help="The ClusterRole's name.")] = "dractl-reader",
) -> None:
    """Print the minimal read-only ClusterRole dractl needs (apply it with kubectl, then bind it)."""
    from dractl.render.printers import Result, to_yaml

    rules: list[dict[str, Any]] = [dict(r) for r in READ_RULES]
    if publish:
        rules += [dict(r) for r in PUBLISH_RULES]
    doc = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": {"name": name, "labels": {"app.kubernetes.io/managed-by": "dractl"}},
        "rules": rules,
    }
    comment = (
        "# The read-only access dractl needs"
        + (" plus what 'dractl fake publish' writes" if publish else "")
        + f". Bind it with: kubectl create clusterrolebinding {name} --clusterrole={name} --user=NAME\n"
    )
    # -o json|yaml: the ClusterRole alone; by default the same YAML after a comment on how to bind it
    app_context(ctx).print(
        Result(
            table=None,
            document=lambda: doc,
            text=lambda: comment + to_yaml(doc),
            names=lambda: [f"clusterrole.rbac.authorization.k8s.io/{name}"],
        )
    )
