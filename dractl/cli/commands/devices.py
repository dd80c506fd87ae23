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

    from dractl.render.devicelist import devices_listing

    return devices_listing(views, wide=app_ctx.output == "wide")


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
    from dractl.render.slices import slices_result

    cluster = app_context(ctx).cluster(frozenset({"ResourceSlice"}))
    pools = {(p.driver, p.name): p for p in cluster.pools}
    items = [s for s in cluster.slices if not driver or s.driver == driver]
    app_context(ctx).print(slices_result(items, pools))


def classes(ctx: typer.Context) -> None:
    """List DeviceClasses, their selectors and how many devices each matches."""
    from dractl.render.slices import classes_result
    from dractl.sources.base import device_needs

    app_ctx = app_context(ctx)
    cluster = app_ctx.cluster(device_needs(classes=True))
    counts: dict[str, str] = {}

    def matched(name: str) -> str:  # counted only for the table
        if name not in counts:
            from dractl.cli.selectors import class_match_count

            counts[name] = class_match_count(app_ctx, cluster, name)
        return counts[name]

    app_ctx.print(classes_result(list(cluster.classes), matched))
