"""`dractl usage`: devices total / allocated / free per node, pool, driver, class or model."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from dractl.cli import completers as _c

_BY_HELP = "Group by node, pool, driver, class or model."


def usage(
    ctx: typer.Context,
    by: Annotated[
        str, typer.Option("--by", metavar="GROUP", help=_BY_HELP, autocompletion=_c.complete_usage_groups)
    ] = "node",
) -> None:
    """Show how full each node, pool, driver, class or model is.

    For each: devices, allocated, free, shared, counters, unhealthy and tainted.
    """
    from dractl.cli.selectors import class_membership
    from dractl.errors import UsageError
    from dractl.model.usage import GROUPINGS, group, total, total_compute
    from dractl.model.views import device_views
    from dractl.render.printers import use_bar
    from dractl.render.usage import UsageView, usage_result
    from dractl.sources.base import device_needs

    if by not in GROUPINGS:
        raise UsageError(f"--by {by!r}: unknown grouping (allowed: {', '.join(GROUPINGS)})")
    app_ctx = ctx.obj
    cluster = app_ctx.cluster(device_needs(classes=by == "class", health=True, node=by == "node"))
    views = device_views(cluster)
    pools = {(p.driver, p.name): p for p in cluster.pools}
    left_cache: dict[tuple[str, str], Any] = {}

    def counters_left(driver: str, pool: str) -> Any:
        if (driver, pool) not in left_cache:
            left_cache[(driver, pool)] = cluster.counters_left(pools[(driver, pool)])
        return left_cache[(driver, pool)]

    def counters_total(driver: str, pool: str) -> Any:
        return {name: dict(cs.counters) for name, cs in pools[(driver, pool)].counter_sets.items()}

    classes_of = class_membership(app_ctx, cluster) if by == "class" else None
    rows = group(views, by, counters_left, counters_total, classes_of)
    compute = _node_compute(cluster, rows) if by == "node" else {}
    app_ctx.print(usage_result(UsageView(by, rows, total(views), compute, total_compute(compute),
                                         bar=use_bar(app_ctx.stdout))))


def _node_compute(cluster: Any, rows: list[Any]) -> dict[str, Any]:
    """The requested and allocatable cpu, memory and pods of each node with a Node object.

    Requests are summed over its non-terminal pods, as the scheduler sums them; nodes without devices get a
    row too.
    """
    from dractl.model.usage import NodeCompute, UsageRow
    from dractl.scheduler.framework import Snapshot

    nodes = list(cluster.nodes)
    snap = Snapshot.build([n.name for n in nodes], nodes, cluster.pods)
    compute = {
        ni.name: NodeCompute({"cpu": ni.requested.milli_cpu, "memory": ni.requested.memory, "pods": len(ni.pods)},
                             {"cpu": ni.allocatable.milli_cpu, "memory": ni.allocatable.memory,
                              "pods": ni.allocatable.allowed_pod_number},
                             ni.has_allocatable)
        for ni in snap.node_infos
    }
    keys = {r.key for r in rows}
    rows.extend(UsageRow(name) for name in sorted(compute) if name not in keys)
    return compute
