"""`dractl check -f FILE`: would these claims / pods get devices now, and which? Nothing is written."""

from __future__ import annotations

from typing import Any

import typer

from dractl.cli import completion as _c


def check(
    ctx: typer.Context,
    filename: str = typer.Option(..., "-f", "--filename", help="ResourceClaims, ResourceClaimTemplates and/or Pods (- for stdin).", autocompletion=_c.complete_files),
    node: str | None = typer.Option(None, "--node", help="Only try this node (default: every node, in name order).", autocompletion=_c.complete_nodes),
) -> None:
    """What-if: allocate the claims (or pods) in FILE against the current devices, without writing anything.

    A Pod's claims are tried together on one node; claims made from a template are
    named <pod>-<claim>. Without pods, the file's claims (and one claim per template)
    are tried together. Exit 0 allocated, 1 unschedulable or error, 2 bad input.
    """
    from dataclasses import replace

    from dractl.allocator.check import check as run_check
    from dractl.errors import InputError, NotFoundError
    from dractl.model.objects import ObjectMeta, Pod, ResourceClaim, ResourceClaimTemplate
    from dractl.sources.loader import parse_objects, read_bytes

    app_ctx = ctx.obj
    origin = "<stdin>" if filename == "-" else filename
    objs = parse_objects(read_bytes(filename), origin, warn=app_ctx.warn)
    default_ns = app_ctx.default_namespace()
    kinds = (ResourceClaim, ResourceClaimTemplate, Pod)
    used: list[Any] = []
    for o in objs:
        if not isinstance(o, kinds):
            app_ctx.warn(f"{origin}: ignoring {type(o).__name__} {o.name}: check uses ResourceClaims, ResourceClaimTemplates and Pods")
            continue
        if not o.meta.namespace:
            o = replace(o, meta=replace(o.meta, namespace=default_ns))
        used.append(o)
    if not used:
        raise InputError(f"{origin}: no ResourceClaim, ResourceClaimTemplate or Pod to check")
    if not any(isinstance(o, Pod) for o in used):
        # Templates without pods: check one claim per template, named after it.
        for t in [o for o in used if isinstance(o, ResourceClaimTemplate)]:
            used.append(
                ResourceClaim(
                    meta=ObjectMeta(name=t.name, namespace=t.namespace, labels=t.claim_labels),
                    spec=t.spec,
                )
            )
    cluster = app_ctx.cluster()
    if node:
        known = cluster.node_names
        if known and node not in known:
            raise NotFoundError(f'nodes "{node}" not found')
    report = run_check(cluster, used, node=node, features=app_ctx.features)
    fmt = app_ctx.output
    out = app_ctx.stdout
    if fmt in ("json", "yaml"):
        from dractl.render.printers import to_json, to_yaml

        out.write((to_json if fmt == "json" else to_yaml)(report.to_dict()))
    elif fmt == "name":
        for c in report.claims:
            out.write(f"resourceclaim.resource.k8s.io/{c.name}\n")
    elif report.outcome == "allocated":
        _print_allocated(app_ctx, report)
    elif report.outcome == "unschedulable":
        where = f"on node {report.node}" if report.node else "on any node"
        out.write(f"unschedulable: the claims cannot be allocated {where}\n")
        if report.explanation is not None:
            for line in report.explanation.lines():
                out.write(line + "\n")
    else:
        app_ctx.stderr.write(f"error: {report.error}\n")
        if report.explanation is not None:
            for note in report.explanation.notes:
                app_ctx.stderr.write(f"  hint: {note}\n")
    if report.outcome != "allocated":
        raise typer.Exit(1)


def _print_allocated(app_ctx: Any, report: Any) -> None:
    from dractl.model.views import capacity_text
    from dractl.render.printers import Table, print_table

    rows = []
    show_ns = len({c.namespace for c in report.claims}) > 1
    for c in report.claims:
        head = [c.namespace] if show_ns else []
        results = c.allocation.results if c.allocation is not None else ()
        if not results:
            rows.append([*head, c.name, "-", "-", "-", report.node or "-"])
        for r in results:
            rows.append([*head, c.name, r.request, f"{r.driver}/{r.pool}/{r.device}", capacity_text(r), report.node or "-"])
    cols = (["NAMESPACE"] if show_ns else []) + ["CLAIM", "REQUEST", "DEVICE", "CAPACITY", "NODE"]
    print_table(Table(cols, rows), no_headers=app_ctx.no_headers, out=app_ctx.stdout)
