"""`dractl devices`, `dractl slices`, `dractl classes`: what the ResourceSlices publish."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from dractl.cli import completers as _c
from dractl.cli.context import app_context
from dractl.cli.listing import WatchOption

if TYPE_CHECKING:
    from dractl.cli.context import AppContext
    from dractl.model.cluster import Cluster
    from dractl.render.watch import Listing

def devices(
    ctx: typer.Context,
    node: Annotated[
        str | None, typer.Option("--node", help="Only devices usable from this node.", autocompletion=_c.complete_nodes)
    ] = None,
    driver: Annotated[
        str | None, typer.Option("--driver", help="Only devices of this driver.", autocompletion=_c.complete_drivers)
    ] = None,
    pool: Annotated[
        str | None, typer.Option("--pool", help="Only devices of this pool.", autocompletion=_c.complete_pools)
    ] = None,
    available: Annotated[bool, typer.Option("--available", help="Only devices a new claim could get now.")] = False,
    selector: Annotated[
        str | None, typer.Option("--selector", "-l", metavar="EXPR", help="Only devices this CEL selector matches.")
    ] = None,
    device_class: Annotated[
        str | None,
        typer.Option(
            "--class",
            help="Only devices this DeviceClass selects.",
            autocompletion=_c.complete_classes,
        ),
    ] = None,
    unhealthy: Annotated[
        bool, typer.Option("--unhealthy", help="Only devices the kubelet reports Unhealthy in a pod using them.")
    ] = False,
    watch: WatchOption = False,
) -> None:
    """List every device from the ResourceSlices, with attributes, capacity and who holds it (and its health)."""
    from dractl.cli.listing import show
    from dractl.cli.names import check_node_name
    from dractl.sources.base import device_needs

    app_ctx = app_context(ctx)
    check_node_name(node)
    needs = device_needs(node=bool(node), classes=bool(device_class), health=True)
    from dractl.sources.base import Scope

    show(app_ctx, needs, lambda cluster: _devices(app_ctx, cluster, node, driver, pool, available, selector,
                                                  device_class, unhealthy), watch=watch,
         scope=Scope(node, driver, pool))


def _devices(app_ctx: AppContext, cluster: Cluster, node: str | None, driver: str | None, pool: str | None,
             available: bool, selector: str | None, device_class: str | None, unhealthy: bool) -> Listing:
    """The device listing of one state of the cluster."""
    from dractl.cli.names import require_node
    from dractl.model.views import device_filter, device_views
    from dractl.render.printers import Result, dractl_list
    from dractl.render.watch import Listing

    require_node(cluster, node)

    def slice_kept(s: Any) -> bool:  # whole slices of another node, driver or pool are passed over
        return ((not driver or s.driver == driver) and (not pool or s.pool.name == pool)
                and (not node or not s.node_name or s.node_name == node))

    views = device_views(cluster, slices=slice_kept if node or driver or pool else None,
                         devices=device_filter(cluster, node))
    if unhealthy:
        views = [v for v in views if v.health_state == "Unhealthy"]
    if available:
        views = [v for v in views if v.available()]
    if selector or device_class:
        from dractl.cli.selectors import filter_views

        views = filter_views(app_ctx, cluster, views, selector, device_class)

    from dractl.render.devicelist import DeviceDocs

    def stream() -> tuple[dict[str, Any], Any]:
        return dractl_list("DeviceList", []), DeviceDocs().docs(views)

    return Listing(
        Result(
            table=lambda: _devices_table(views, wide=app_ctx.output == "wide"),
            document=lambda: dractl_list("DeviceList", list(DeviceDocs().docs(views))),
            stream=stream,
            names=lambda: [f"device/{v.pd.driver}/{v.pd.pool}/{v.device.name}" for v in views],
            empty_message="No devices found.",
        ),
        keys=("DRIVER", "POOL", "DEVICE"),
    )


def _devices_table(views: list[Any], wide: bool = True):
    from dractl.render.devicelist import DeviceRows
    from dractl.render.printers import Table

    rows = DeviceRows(views, wide)
    mains_up = [m.upper() for m in rows.mains]
    # To fit a terminal: the less telling attributes go first; NODE, DEVICE and STATUS (who holds the
    # device: what the view is for) stay, STATUS whole as long as dropping columns makes room for it.
    drop = [*reversed(mains_up[1:]), "COUNTERS", "POOL", "CAPACITY", *mains_up[:1], "DRIVER"]
    return Table(rows.columns(), [rows.row(v) for v in views], wide={"ATTRIBUTES", "TAINTS"}, drop=drop,
                 whole={"STATUS"})


def slices(
    ctx: typer.Context, driver: Annotated[
                            str | None,
                            typer.Option(
                                "--driver",
                                help="Only slices of this driver.",
                                autocompletion=_c.complete_drivers,
                            ),
                        ] = None
) -> None:
    """List ResourceSlices with their pool, generation and completeness."""
    from dractl.model.views import slice_node_text
    from dractl.render.printers import Result, Table, kube_list

    cluster = app_context(ctx).cluster(frozenset({"ResourceSlice"}))
    pools = {(p.driver, p.name): p for p in cluster.pools}
    items = [s for s in cluster.slices if not driver or s.driver == driver]

    def state(s: Any) -> str:
        p = pools[(s.driver, s.pool.name)]
        if s.pool.generation < p.generation:
            return f"stale (generation {p.generation} is current)"
        if p.incomplete:
            return f"incomplete ({len(p.slices)}/{p.resource_slice_count} slices)"
        return "complete"

    def table() -> Table:
        rows = [
            [
                s.name,
                s.driver,
                s.pool.name,
                str(s.pool.generation),
                slice_node_text(s),
                str(len(s.devices)),
                str(len(s.shared_counters)),
                state(s),
            ]
            for s in items
        ]
        return Table(["NAME", "DRIVER", "POOL", "GENERATION", "NODE", "DEVICES", "COUNTERSETS", "POOL STATUS"], rows,
                     drop=["COUNTERSETS", "GENERATION", "POOL", "DRIVER", "DEVICES"])

    app_context(ctx).print(
        Result(
            table=table,
            document=lambda: kube_list([dict(s.raw) for s in items]),
            names=lambda: [f"resourceslice.resource.k8s.io/{s.name}" for s in items],
        )
    )


def classes(ctx: typer.Context) -> None:
    """List DeviceClasses, their selectors and how many devices each matches."""
    from dractl.render.printers import Result, Table, kube_list
    from dractl.sources.base import device_needs

    app_ctx = app_context(ctx)
    cluster = app_ctx.cluster(device_needs(classes=True))
    items = list(cluster.classes)
    counts: dict[str, str] = {}

    def matched(name: str) -> str:
        if name not in counts:
            from dractl.cli.selectors import class_match_count

            counts[name] = class_match_count(app_ctx, cluster, name)
        return counts[name]

    def table() -> Table:
        rows = [
            [
                c.name,
                str(len(c.selectors)) if len(c.selectors) != 1 else c.selectors[0],
                matched(c.name),
                c.extended_resource_name or "<none>",
            ]
            for c in items
        ]
        return Table(["NAME", "SELECTORS", "DEVICES", "EXTENDED RESOURCE"], rows, drop=["EXTENDED RESOURCE"])

    app_ctx.print(
        Result(
            table=table,
            # the DeviceClasses as the API server has them: the DEVICES count is dractl's, in the table only
            document=lambda: kube_list([dict(c.raw) for c in items]),
            names=lambda: [f"deviceclass.resource.k8s.io/{c.name}" for c in items],
        )
    )
