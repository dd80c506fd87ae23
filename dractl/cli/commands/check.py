"""`dractl check -f FILE`: what would happen if FILE were applied? Nothing is written."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from dractl.cli import completers as _c
from dractl.cli.context import AppContext, app_context
from dractl.errors import ExitCode


def check(
    ctx: typer.Context,
    filename: Annotated[
        list[str],
        typer.Option(
            "-f",
            "--filename",
            metavar="FILE",
            help="ResourceClaims, ResourceClaimTemplates and/or Pods, with any DeviceClasses they use (- for stdin); "
            "repeat for several files.",
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
) -> None:
    """What-if: apply FILE to a copy of the cluster and schedule it pod by pod, without writing anything.

    Each pod of FILE gets its outcome: the node and devices, or the scheduler's reason.
    Claims made from a template are named <pod>-<claim>. Without pods, the file's
    claims (and one claim per template) are tried together. Exit 0 when every pod is
    scheduled, 1 when one is not, 2 for bad input.
    """
    from dractl.cli.files import read_files
    from dractl.control.whatif import CHECKED_KINDS
    from dractl.control.whatif import check as what_if
    from dractl.errors import InputError

    app_ctx = app_context(ctx)
    origin = ", ".join("<stdin>" if f == "-" else f for f in filename)
    used = []
    for f, objs in read_files(filename, app_ctx):
        for o in objs:
            if not isinstance(o, CHECKED_KINDS):
                kind = type(o).__name__
                uses = "check uses ResourceClaims, ResourceClaimTemplates, Pods, DeviceClasses and Namespaces"
                app_ctx.warn(f"{'<stdin>' if f == '-' else f}: ignoring {kind} {o.name}: {uses}")
                continue
            used.append(o)
    if not any(isinstance(o, CHECKED_KINDS[:3]) for o in used):
        raise InputError(f"{origin}: no ResourceClaim, ResourceClaimTemplate or Pod to check")
    cluster = app_ctx.cluster()
    from dractl.cli.names import require_node

    require_node(cluster, node)
    report = what_if(cluster, used, namespace=app_ctx.default_namespace(), node=node, features=app_ctx.features)
    from dractl.render.printers import Result, dractl_object

    app_ctx.print(
        Result(
            table=lambda: _table(report),
            footer=lambda: _lines(report, wide=app_ctx.output == "wide"),
            document=lambda: dractl_object("CheckReport", report.to_dict()),
            names=lambda: [f"resourceclaim.resource.k8s.io/{c.name}" for p in report.pods for c in p.claims],
        )
    )
    if app_ctx.output in ("table", "wide"):
        _print_errors(app_ctx, report)
    if report.outcome != "scheduled":
        raise typer.Exit(ExitCode.NEGATIVE)


def _scheduled_with_claims(report: Any) -> list[Any]:
    return [p for p in report.pods if p.outcome == "scheduled" and (p.name is None or p.claims)]


def _table(report: Any) -> Any:
    """The scheduled pods' claims and devices, one row per device."""
    from dractl.model.views import capacity_text
    from dractl.render.printers import Table

    scheduled = [p for p in report.pods if p.outcome == "scheduled"]
    with_pods = any(p.name is not None for p in report.pods)
    show_ns = len({c.namespace for p in scheduled for c in p.claims} | {p.namespace for p in scheduled if p.name}) > 1
    rows = []
    for p in _scheduled_with_claims(report):
        head = ([p.namespace] if show_ns else []) + ([p.name or "-"] if with_pods else [])
        results = [(c, r) for c in p.claims for r in (c.allocation.results if c.allocation is not None else ())]
        if not results:
            rows.append(
                [*head, *(c.name for c in p.claims[:1]), *(["-"] * (1 if p.claims else 2)), "-", "-", p.node or "-"]
            )
        for c, r in results:
            rows.append([*head, c.name, r.request, f"{r.driver}/{r.pool}/{r.device}", capacity_text(r), p.node or "-"])
    cols = (
        (["NAMESPACE"] if show_ns else [])
        + (["POD"] if with_pods else [])
        + ["CLAIM", "REQUEST", "DEVICE", "CAPACITY", "NODE"]
    )
    return Table(cols, rows, drop=["CAPACITY", "REQUEST", "NODE"])


def score_line(p: Any) -> str | None:
    """-o wide: the pick's score against the runner-up's (the best other node), plugin by plugin."""
    if p.node is None or p.node not in p.scores or len(p.scores) < 2:
        return None
    mine = p.scores[p.node]
    runner = min((n for n in p.scores if n != p.node), key=lambda n: (-p.scores[n]["total"], n))
    other = p.scores[runner]
    parts = ", ".join(f"{k} {v} vs {other.get(k, 0)}" for k, v in mine.items() if k != "total")
    who = f"pod {p.namespace}/{p.name}: " if p.name is not None else ""
    return f"{who}score on {p.node} {mine['total']}, runner-up {runner} {other['total']}: {parts}"


def _lines(report: Any, wide: bool = False) -> str:
    """After the table: each scheduled pod without claims, then each pod that is not scheduled with its reason."""
    out = []
    for p in report.pods:
        tied = [n for n in p.tied_nodes if n != p.node]
        also = f" (tied with {', '.join(tied[:3])}{f' and {len(tied) - 3} more' if len(tied) > 3 else ''})" \
            if tied else ""
        if p.preemption is not None:
            victims = ", ".join(f"{v} (priority {prio})" for v, prio in zip(p.preemption["victims"],
                                                                           p.victim_priorities, strict=False))
            others = [n for n in p.preemption["tiedNodes"] if n != p.preemption["node"]]
            more = f" and {len(others) - 3} more" if len(others) > 3 else ""
            out.append(f"pod {p.namespace}/{p.name}: would preempt {victims} on node {p.preemption['node']}, then "
                       f"schedule there" + (f" (as good: {', '.join(others[:3])}{more})" if others else ""))
        if p.outcome == "scheduled" and p.name is not None and not p.claims:
            out.append(f"pod {p.namespace}/{p.name} uses no ResourceClaims: scheduled on {p.node or '-'}{also}")
        elif p.outcome == "scheduled" and also:
            who = f"pod {p.namespace}/{p.name}: " if p.name is not None else ""
            out.append(f"{who}scheduled on {p.node}{also}")
        if wide and p.outcome == "scheduled" and (line := score_line(p)) is not None:
            out.append(line)
        if p.outcome == "scheduled" and p.notes:
            who = f"pod {p.namespace}/{p.name}: " if p.name is not None else ""
            out.extend(who + n for n in p.notes)
    from dractl.scheduler.schedule_one import num_feasible_nodes_to_find

    big = max((p.num_nodes for p in report.pods if p.outcome == "scheduled"), default=0)
    if num_feasible_nodes_to_find(big) < big:
        out.append(f"note: dractl filtered and scored all {big} nodes; kube-scheduler stops filtering once it has "
                   f"found {num_feasible_nodes_to_find(big)} feasible nodes (percentageOfNodesToScore), so it may "
                   "choose among fewer")
    # what the apiserver would refuse before any scheduling (LimitRanger, ResourceQuota), in its words
    for r in report.refused:
        out.append(f"refused: {r.kind.lower()} {r.namespace}/{r.name}: {r.message}")
    for p in report.pods:
        if p.outcome == "refused":
            out.append(f"refused: pod {p.namespace}/{p.name}: {p.message}")
    where = f"on node {report.node}" if report.node else "on any node"
    for p in report.pods:
        if p.outcome == "unschedulable":
            who = (
                "the claims cannot be allocated"
                if p.name is None
                else f"pod {p.namespace}/{p.name} cannot be scheduled"
            )
            # the scheduler's own summary first, as kube-scheduler's FailedScheduling event says it
            lines = p.explanation.lines() if p.explanation is not None else [p.message or ""]
            out.append(f"unschedulable: {who} {where}")
            if p.message and p.message not in lines:  # the scheduler's own summary, then why
                out.append(p.message)
            out.extend(lines)
            out.extend(n for n in p.notes if n not in lines)
    return "".join(line + "\n" for line in out)


def _print_errors(app_ctx: AppContext, report: Any) -> None:
    """A pod that hit an error (a class that does not exist...): on stderr, with the explanation's hints."""
    for p in report.pods:
        if p.outcome == "error":
            who = "" if p.name is None else f"pod {p.namespace}/{p.name}: "
            app_ctx.stderr.write(f"error: {who}{p.error}\n")
            if p.explanation is not None:
                for note in p.explanation.notes:
                    app_ctx.stderr.write(f"  hint: {note}\n")
