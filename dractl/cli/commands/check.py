"""`dractl check -f FILE`: what would happen if FILE were applied? Nothing is written."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from dractl.cli import completers as _c
from dractl.cli.context import AppContext, app_context
from dractl.cli.listing import RecursiveOption
from dractl.errors import ExitCode


def check(
    ctx: typer.Context,
    filename: Annotated[
        list[str],
        typer.Option(
            "-f",
            "--filename",
            metavar="FILE",
            help="ResourceClaims, ResourceClaimTemplates and/or Pods, with any DeviceClasses they use (- for stdin, "
            "a directory for its .json, .yaml and .yml files); repeat for several files.",
            autocompletion=_c.complete_files,
        ),
    ],
    node: Annotated[
        str | None,
        typer.Option(
            "--node",
            help="Only try this node for the file's pods (default: every node, in name order).",
            autocompletion=_c.complete_nodes,
        ),
    ] = None,
    recursive: RecursiveOption = False,
) -> None:
    """What-if: apply FILE to a copy of the cluster and schedule it pod by pod, without writing anything.

    Each pod of FILE gets its outcome: the node and devices, or the scheduler's reason.
    Claims made from a template are named <pod>-<claim>. Without pods, the file's
    claims (and one claim per template) are tried together. Exit 0 when every pod is
    scheduled, 1 when one is not, 2 for bad input.
    """
    from dractl.cli.files import origins, read_files
    from dractl.control.whatif import CHECKED_KINDS
    from dractl.control.whatif import check as what_if
    from dractl.errors import InputError

    app_ctx = app_context(ctx)
    used = []
    said: list[str] = []  # what was skipped: told with the error if nothing is left to check (one line)
    files = read_files(filename, app_ctx, new=True, warn=said.append, recursive=recursive)
    origin = ", ".join("<stdin>" if f == "-" else f for f, _ in files)
    for f, objs in files:
        for o in objs:
            if not isinstance(o, CHECKED_KINDS):
                kind = type(o).__name__
                uses = "check uses ResourceClaims, ResourceClaimTemplates, Pods, DeviceClasses and Namespaces"
                said.append(f"{'<stdin>' if f == '-' else f}: ignoring {kind} {o.name}: {uses}")
                continue
            used.append(o)
    if not any(isinstance(o, CHECKED_KINDS[:3]) for o in used):
        why = "".join(f"; {w.removeprefix(origin + ': ')}" for w in said)
        raise InputError(f"{origin}: no ResourceClaim, ResourceClaimTemplate or Pod to check{why}")
    for w in said:
        app_ctx.warn(w)
    cluster = app_ctx.cluster()
    from dractl.cli.names import require_node

    require_node(cluster, node)
    report = what_if(cluster, used, namespace=app_ctx.default_namespace(), node=node, features=app_ctx.features,
                     origin=origins(files))
    from dractl.render.check import check_result

    app_ctx.print(check_result(report, wide=app_ctx.output == "wide"))
    if app_ctx.output in ("table", "wide"):
        _print_errors(app_ctx, report)
    if report.outcome != "scheduled":
        raise typer.Exit(ExitCode.NEGATIVE)


def _print_errors(app_ctx: AppContext, report: Any) -> None:
    """A pod that hit an error (a class that does not exist...): on stderr, with the explanation's hints."""
    for p in report.pods:
        if p.outcome == "error":
            who = "" if p.name is None else f"pod {p.namespace}/{p.name}: "
            app_ctx.stderr.write(f"error: {who}{p.error}\n")
            if p.explanation is not None:
                for note in p.explanation.notes:
                    app_ctx.stderr.write(f"  hint: {note}\n")
