"""`dractl rbac`: the ClusterRole dractl needs, from the table of kinds the live source reads."""

from __future__ import annotations

from typing import Annotated

import typer

from dractl.cli.context import app_context


def rbac(
    ctx: typer.Context,
    publish: Annotated[bool, typer.Option("--publish", help="Also the rules 'dractl fake publish' needs.")] = False,
    name: Annotated[str, typer.Option("--name", help="The ClusterRole's name.")] = "dractl-reader",
) -> None:
    """Print the minimal read-only ClusterRole dractl needs (apply it with kubectl, then bind it)."""
    from dractl import MANAGED_BY_LABEL
    from dractl.render.printers import Result, to_yaml
    from dractl.sources import apikinds

    rules = apikinds.read_rules() + (apikinds.publish_rules() if publish else [])
    doc = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": {"name": name, "labels": {MANAGED_BY_LABEL: "dractl"}},
        "rules": rules,
    }
    lines = [
        "# The access dractl needs" + (" to read a cluster and to publish devices into it" if publish else
                                         " to read a cluster") + ". Bind it with:",
        f"#   kubectl create clusterrolebinding {name} --clusterrole={name} --user=NAME",
        f"# list: {apikinds.READ_COMMANDS}",
        f"# watch: {apikinds.WATCH_COMMANDS}",
    ]
    if publish:
        lines.append(f"# {', '.join(apikinds.PUBLISH_VERBS)} on "
                     f"{', '.join(apikinds.KINDS[k].plural for k in apikinds.PUBLISH_KINDS)}: fake publish, "
                     "fake unpublish")
    lines.append("# What each resource is read for:")
    lines += [f"#   {k.resource}: {k.why}" for k in apikinds.KINDS.values()]
    comment = "\n".join(lines) + "\n"
    # -o json|yaml: the ClusterRole alone; by default the same YAML after comments on what needs what
    app_context(ctx).print(
        Result(
            table=None,
            document=lambda: doc,
            text=lambda: comment + to_yaml(doc),
            names=lambda: [f"clusterrole.rbac.authorization.k8s.io/{name}"],
        )
    )
