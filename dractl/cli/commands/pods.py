"""`dractl pods [NAME] [--explain]`: pod -> claims -> devices, with phase, node and the scheduler's condition."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from dractl.cli import completers as _c
from dractl.cli.context import app_context
from dractl.cli.listing import WatchOption

if TYPE_CHECKING:
    from dractl.cli.context import AppContext
    from dractl.model.cluster import Cluster
    from dractl.model.objects import Pod
    from dractl.model.relations import Relations
    from dractl.render.watch import Listing
    from dractl.scheduler.explain import Explained, Explainer


def pods(
    ctx: typer.Context,
    name: Annotated[str | None, typer.Argument(help="Only this pod.", autocompletion=_c.complete_pods)] = None,
    explain: Annotated[
        bool,
        typer.Option(
            "--explain",
            help="Explain every claim of the pod: why it is pending, or why it got its devices.",
        ),
    ] = False,
    watch: WatchOption = False,
) -> None:
    """List pods with their ResourceClaims, the devices they got, and the scheduler's condition."""
    from dractl.cli.listing import show
    from dractl.sources.types import LISTING_NEEDS

    app_ctx = app_context(ctx)
    needs = None if explain else LISTING_NEEDS
    show(app_ctx, needs, lambda cluster: _pods(app_ctx, cluster, name, explain), watch=watch)


def _pods(app_ctx: AppContext, cluster: Cluster, name: str | None, explain: bool) -> Listing:
    """The pod listing of one state of the cluster."""
    from dractl.cli.names import select_named
    from dractl.errors import NotFoundError
    from dractl.model import health as _health
    from dractl.model.relations import Relations
    from dractl.render.pods import PodsView, pods_listing

    ns = app_ctx.namespace_filter()
    items = select_named(cluster.pods, ns, name, "pod")
    if name and not items:
        raise NotFoundError(f'pods "{name}" not found' + (f" in namespace {ns}" if ns else ""))
    rel = Relations(cluster)
    view = PodsView(items, rel, _health.build(cluster.pods, cluster.claims), ns, named=bool(name))
    if explain:
        from dractl.scheduler.explain import Explainer

        ex = Explainer(cluster, app_ctx.features, rel)
        view.explanations = {(p.namespace, p.name): explain_pod(ex, rel, p) for p in items}
    return pods_listing(view)


def explain_pod(ex: Explainer, rel: Relations, p: Pod) -> list[Explained]:
    """A pending pod: its claims together, as the scheduler tries them; a scheduled one: each claim."""
    from dractl.model.relations import claim_keys
    from dractl.scheduler.explain import Explained

    ns = p.namespace
    if not p.node_name:
        return [ex.pod(p, rel.missing_claims(p))]
    choice = ex.node_choice(p)  # why this node: its score against the runner-up
    if not p.resource_claims:
        return [Explained(f"Pod {ns}/{p.name}", "no claims", ["this pod uses no ResourceClaims"]),
                *([choice] if choice is not None else [])]
    out = [choice] if choice is not None else []
    for key in claim_keys(p).values():
        c = rel.cluster.claim(*key) if key else None
        if c is not None:
            out.append(ex.claim(c))
    return out
