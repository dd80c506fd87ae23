"""``dractl check``'s answer: the devices the file's pods and claims would get, then each pod's outcome in words."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dractl.render.printers import Result, dractl_object

if TYPE_CHECKING:
    from dractl.control.whatif import CheckReport


def check_result(report: CheckReport, *, wide: bool = False) -> Result:
    """The printable result of a :class:`dractl.control.whatif.CheckReport` (table, text after it, document)."""
    return Result(
        table=lambda: table(report),
        footer=lambda: lines(report, wide=wide),
        document=lambda: dractl_object("CheckReport", report.to_dict()),
        names=lambda: [f"resourceclaim.resource.k8s.io/{c.name}" for p in report.pods for c in p.claims],
    )


def _scheduled_with_claims(report: CheckReport) -> list[Any]:
    return [p for p in report.pods if p.outcome == "scheduled" and (p.name is None or p.claims)]


def table(report: CheckReport) -> Any:
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


def lines(report: CheckReport, wide: bool = False) -> str:
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
