"""`dractl check -f FILE`: what would happen if FILE were applied? Nothing is written."""

from __future__ import annotations

from typing import Any

import typer

from dractl.cli import completion as _c
from dractl.cli.context import AppContext, app_context


def check(
    ctx: typer.Context,
    filename: str = typer.Option(
        ...,
        "-f",
        "--filename",
        metavar="FILE",
        help="ResourceClaims, ResourceClaimTemplates and/or Pods, with any DeviceClasses they use (- for stdin).",
        autocompletion=_c.complete_files,
    ),
    node: str | None = typer.Option(
        None,
        "--node",
        help="Only try this node for the file's pods (default: every node, in name order).",
        autocompletion=_c.complete_nodes,
    ),
) -> None:
    """What-if: apply FILE to a copy of the cluster and schedule it pod by pod, without writing anything.

    Each pod of FILE gets its outcome: the node and devices, or the scheduler's reason.
    Claims made from a template are named <pod>-<claim>. Without pods, the file's
    claims (and one claim per template) are tried together. Exit 0 when every pod is
    scheduled, 1 when one is not, 2 for bad input.
    """
    from dractl.control.whatif import CHECKED_KINDS
    from dractl.control.whatif import check as what_if
    from dractl.errors import InputError
    from dractl.sources.loader import parse_objects, read_bytes

    app_ctx = app_context(ctx)
    origin = "<stdin>" if filename == "-" else filename
    objs = parse_objects(read_bytes(filename), origin, warn=app_ctx.warn)
    used = []
    for o in objs:
        if not isinstance(o, CHECKED_KINDS):
            kind = type(o).__name__
            uses = "check uses ResourceClaims, ResourceClaimTemplates, Pods, DeviceClasses and Namespaces"
            app_ctx.warn(f"{origin}: ignoring {kind} {o.name}: {uses}")
            continue
        used.append(o)
    if not any(isinstance(o, CHECKED_KINDS[:3]) for o in used):
        raise InputError(f"{origin}: no ResourceClaim, ResourceClaimTemplate or Pod to check")
    cluster = app_ctx.cluster()
    from dractl.cli.names import require_node

    require_node(cluster, node)
    report = what_if(cluster, used, namespace=app_ctx.default_namespace(), node=node, features=app_ctx.features)
    fmt = app_ctx.output
    out = app_ctx.stdout
    if fmt in ("json", "yaml"):
        from dractl.render.printers import to_json, to_yaml

        out.write((to_json if fmt == "json" else to_yaml)(report.to_dict()))
    elif fmt == "name":
        for p in report.pods:
            for c in p.claims:
                out.write(f"resourceclaim.resource.k8s.io/{c.name}\n")
    else:
        _print_report(app_ctx, report)
    if report.outcome != "scheduled":
        raise typer.Exit(1)


def _print_report(app_ctx: AppContext, report: Any) -> None:
    """The scheduled pods as one table, then each pod that is not scheduled with its reason."""
    from dractl.model.views import capacity_text
    from dractl.render.printers import Table, print_table

    out = app_ctx.stdout
    scheduled = [p for p in report.pods if p.outcome == "scheduled"]
    with_pods = any(p.name is not None for p in report.pods)
    show_ns = len({c.namespace for p in scheduled for c in p.claims} | {p.namespace for p in scheduled if p.name}) > 1
    rows = []
    no_claims = [p for p in scheduled if p.name is not None and not p.claims]
    scheduled = [p for p in scheduled if p not in no_claims]
    for p in scheduled:
        head = ([p.namespace] if show_ns else []) + ([p.name or "-"] if with_pods else [])
        results = [(c, r) for c in p.claims for r in (c.allocation.results if c.allocation is not None else ())]
        if not results:
            rows.append(
                [*head, *(c.name for c in p.claims[:1]), *(["-"] * (1 if p.claims else 2)), "-", "-", p.node or "-"]
            )
        for c, r in results:
            rows.append([*head, c.name, r.request, f"{r.driver}/{r.pool}/{r.device}", capacity_text(r), p.node or "-"])
    if rows:
        cols = (
            (["NAMESPACE"] if show_ns else [])
            + (["POD"] if with_pods else [])
            + ["CLAIM", "REQUEST", "DEVICE", "CAPACITY", "NODE"]
        )
        print_table(Table(cols, rows, drop=["CAPACITY", "REQUEST", "NODE"]), no_headers=app_ctx.no_headers, out=out,
                    fit=app_ctx.output != "wide")
    for p in no_claims:
        out.write(f"pod {p.namespace}/{p.name} uses no ResourceClaims: scheduled on {p.node or '-'}\n")
    where = f"on node {report.node}" if report.node else "on any node"
    for p in report.pods:
        if p.outcome == "unschedulable":
            who = (
                "the claims cannot be allocated"
                if p.name is None
                else f"pod {p.namespace}/{p.name} cannot be scheduled"
            )
            out.write(f"unschedulable: {who} {where}\n")
            lines = p.explanation.lines() if p.explanation is not None else [p.message or ""]
            for line in lines:
                out.write(line + "\n")
        elif p.outcome == "error":
            who = "" if p.name is None else f"pod {p.namespace}/{p.name}: "
            app_ctx.stderr.write(f"error: {who}{p.error}\n")
            if p.explanation is not None:
                for note in p.explanation.notes:
                    app_ctx.stderr.write(f"  hint: {note}\n")
