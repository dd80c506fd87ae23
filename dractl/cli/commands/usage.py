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
    """Show how full each node, pool, driver, class or model is: devices, allocated, free, shared, counters,
    unhealthy and tainted."""
    from dractl.errors import UsageError
    from dractl.model.usage import GROUPINGS, group, total
    from dractl.model.views import device_views
    from dractl.render.printers import Result, Table, dractl_list, use_bar
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

    classes_of = _class_membership(app_ctx, cluster) if by == "class" else None
    rows = group(views, by, counters_left, counters_total, classes_of)
    tot = total(views)
    bar = use_bar(app_ctx.stdout)
    compute = _node_compute(cluster, rows) if by == "node" else {}
    total_compute = None
    if compute:
        from dractl.model.usage import NodeCompute

        total_compute = NodeCompute(
            {k: sum(c.requested[k] for c in compute.values()) for k in ("cpu", "memory", "pods")},
            {k: sum(c.allocatable[k] for c in compute.values()) for k in ("cpu", "memory", "pods")},
            all(c.has_allocatable for c in compute.values()))

    def table() -> Table:
        cols = [by.upper(), "DEVICES", "ALLOCATED", "FREE", "USED", "SHARED", "COUNTERS LEFT", "UNHEALTHY", "TAINTED"]
        if compute:
            cols[5:5] = ["CPU", "MEMORY", "PODS"]
        out = []
        for r in [*rows, tot] if rows else []:
            used = f"{round(r.share * 100)}%"
            if bar:
                used = _bar(r.share) + " " + used
            shared = "-"
            if r.shared:
                shared = f"{len(r.shared)}: " + ", ".join(
                    f"{d.rpartition('/')[2]} x{n}" + (f" ({c})" if c else "") for d, n, c in r.shared
                )
            counters = r.counters_text() if r is not tot else "-"
            row = [r.key, str(r.devices), str(r.allocated), str(r.free), used, shared, counters, str(r.unhealthy),
                   str(r.tainted)]
            if compute:
                c = compute.get(r.key) if r is not tot else total_compute
                row[5:5] = [c.text(k) for k in ("cpu", "memory", "pods")] if c is not None else ["-", "-", "-"]
            out.append(row)
        return Table(cols, out, drop=["SHARED", "COUNTERS LEFT", "TAINTED", "UNHEALTHY", "ALLOCATED", "FREE"])

    def document() -> dict[str, Any]:
        docs = []
        for r in rows:
            d = r.document()
            if r.key in compute:
                d.update(compute[r.key].document())
            docs.append(d)
        return dractl_list("UsageList", docs)

    app_ctx.print(
        Result(
            table=table,
            document=document,
            names=lambda: [f"{by}/{r.key}" for r in rows],
            empty_message="No devices found.",
        )
    )


def _node_compute(cluster: Any, rows: list[Any]) -> dict[str, Any]:
    """Per node with a Node object: cpu, memory and pods requested (by its non-terminal pods, as the scheduler
    sums them) and allocatable; nodes without devices get a row too."""
    from dractl.model.usage import UsageRow, node_compute

    compute = node_compute(cluster.nodes, cluster.pods)
    keys = {r.key for r in rows}
    rows.extend(UsageRow(name) for name in sorted(compute) if name not in keys)
    return compute


def _bar(share: float, width: int = 10) -> str:
    full = round(share * width)
    return "\u2588" * full + "\u2591" * (width - full)


def _class_membership(app_ctx: Any, cluster: Any) -> Any:
    """Which DeviceClasses select a device (each class's selectors compiled once)."""
    from dractl.cel.match import compile_all

    compiled = []
    for c in cluster.classes:
        try:
            compiled.append((c.name, compile_all(list(c.selectors), app_ctx.features)))
        except Exception as e:  # a class whose selector does not compile selects nothing, as in the scheduler
            app_ctx.warn(f"deviceclass {c.name}: {e}")

    def classes_of(v: Any) -> list[str]:
        out = []
        for name, sels in compiled:
            try:
                if all(s.matches(v.pd.driver, v.device) for s in sels):
                    out.append(name)
            except Exception:
                continue
        return out

    return classes_of
