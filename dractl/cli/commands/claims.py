"""`dractl claims`: claim -> device tables, and why a claim is pending (--explain)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from dractl.cli import completers as _c
from dractl.cli.context import app_context
from dractl.cli.listing import WatchOption

if TYPE_CHECKING:
    from collections.abc import Callable

    from dractl.cli.context import AppContext
    from dractl.model.cluster import Cluster
    from dractl.render.watch import Listing


def claims(
    ctx: typer.Context,
    name: Annotated[str | None, typer.Argument(help="Only this claim.", autocompletion=_c.complete_claims)] = None,
    explain: Annotated[
        bool,
        typer.Option(
            "--explain",
            help="Say why each pending claim has no devices, and why allocated claims got theirs.",
        ),
    ] = False,
    watch: WatchOption = False,
) -> None:
    """List ResourceClaims with the devices they got, who uses them and where."""
    from dractl.cli.listing import show
    from dractl.sources.types import LISTING_NEEDS

    app_ctx = app_context(ctx)
    needs = None if explain else LISTING_NEEDS
    show(app_ctx, needs, lambda cluster: _claims(app_ctx, cluster, name, explain), watch=watch)


def _claims(app_ctx: AppContext, cluster: Cluster, name: str | None, explain: bool) -> Listing:
    """The claim listing of one state of the cluster."""
    from dractl.cli.names import select_named
    from dractl.errors import NotFoundError
    from dractl.model import health as _health
    from dractl.model.relations import Relations
    from dractl.render.claims import ClaimsView, claims_listing

    ns = app_ctx.namespace_filter()
    rel = Relations(cluster)
    items = select_named(cluster.claims, ns, name, "resourceclaim")
    if name and not items:
        about_pod = _pod_hint(rel, name, ns, app_ctx.hint)
        raise NotFoundError(f'resourceclaims.resource.k8s.io "{name}" not found' + about_pod)
    view = ClaimsView(items, rel, _health.build(cluster.pods, items), ns, named=bool(name))
    if explain:
        from dractl.scheduler.explain import Explainer

        ex = Explainer(cluster, app_ctx.features, rel)
        view.explanations = {c.key: ex.claim(c) for c in items}
        if not name:
            view.orphans = [ex.pod(p, missing) for p, missing in rel.pods_missing_claims(ns)]
        # "any 'dractl fake apply' reschedules" is true only of the fake cluster
        view.reschedule_hint = app_ctx.source.is_fake
    return claims_listing(view)


def _pod_hint(rel: Any, name: str, ns: str | None, hint: Callable[[str, str], str]) -> str:
    """NAME is a pod's: say which claims it has and the command that explains them."""
    from dractl.model.relations import claim_keys

    pods = [p for (pns, pname), p in rel.pods.items() if pname == name and (ns is None or pns == ns)]
    if len(pods) != 1:
        return ""
    p = pods[0]
    pns = p.namespace
    names = [k[1] if k else f"{rc} (not created yet)" for rc, k in claim_keys(p).items()]
    has = f"its claims are {', '.join(names)}" if names else "it uses no ResourceClaims"
    from dractl.render.events import see

    return f"; {name} is a pod: {has} {see(hint(f'pods {name} --explain', pns))}"
