"""`dractl claims`: claim -> device tables, and why a claim is pending (--explain)."""

from __future__ import annotations

import datetime as _dt
from typing import TYPE_CHECKING, Annotated, Any, TextIO

import typer

from dractl.cli import completers as _c
from dractl.cli.context import app_context
from dractl.cli.listing import WatchOption

if TYPE_CHECKING:
    from collections.abc import Callable

    from dractl.cli.context import AppContext
    from dractl.model.cluster import Cluster
    from dractl.model.objects import ResourceClaim
    from dractl.render.watch import Listing
    from dractl.scheduler.explain import Explained

NONE = "-"


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
    from dractl import DRACTL_API
    from dractl.errors import NotFoundError
    from dractl.model.relations import Relations
    from dractl.render.printers import Result, dractl_list
    from dractl.render.watch import Listing

    ns = app_ctx.namespace_filter()
    items = [
        c for c in cluster.claims
        if (ns is None or (c.namespace or "default") == ns) and (not name or c.name == name)
    ]
    items.sort(key=lambda c: (c.namespace, c.name))
    rel = Relations(cluster)
    if name and not items:
        about_pod = _pod_hint(rel, name, ns, app_ctx.hint)
        raise NotFoundError(f'resourceclaims.resource.k8s.io "{name}" not found' + about_pod)
    if name:
        from dractl.cli.names import one_by_name

        one_by_name("resourceclaim", name, [c.namespace or "default" for c in items])
    explanations: dict[str, Explained] = {}
    orphans: list[Explained] = []
    if explain:
        from dractl.render.events import with_reschedule_hint
        from dractl.scheduler.explain import Explainer

        ex = Explainer(cluster, app_ctx.features, rel)
        # "any 'dractl fake apply' reschedules" is true only of the fake cluster
        hint = with_reschedule_hint if app_ctx.source.description == "fake cluster" else (lambda e: e)
        for c in items:
            explanations[c.key] = hint(ex.claim(c))
        if not name:
            orphans = [hint(ex.pod(p, missing)) for p, missing in rel.pods_missing_claims(ns)]
    now = _dt.datetime.now(_dt.UTC)
    show_ns = ns is None
    from dractl.model import health as _health

    hidx = _health.build(cluster.pods, items)

    def table() -> Any:
        from dractl.render.printers import Table

        cols = ["NAMESPACE"] if show_ns else []
        cols += ["CLAIM", "STATE", "REQUEST", "DEVICE", "CAPACITY", "CONSUMERS", "NODE", "AGE"]
        has_health = bool(hidx.devices or hidx.unmapped)
        if has_health:
            cols.append("HEALTH")
        cols += ["DRIVER-STATUS", "POD", "TEMPLATE"]
        rows = []
        for c in items:
            state = c.state + (" (deleting)" if c.meta.deletion_timestamp else "")
            consumers = ",".join(r.name for r in c.reserved_for) or NONE
            node = rel.node_of(c) or NONE
            age = human_age(c.meta.creation_timestamp, now)
            pod, template = rel.origin(c)
            head = [c.namespace] if show_ns else []
            for req, dev, capacity, key in _result_cells(c):
                row = [*head, c.name, state, req, dev, capacity, consumers, node, age]
                if has_health:
                    row.append(_health_cell(hidx, c, key))
                row += [_driver_status_cell(c, key), pod or NONE, template or NONE]
                rows.append(row)
        return Table(cols, rows, wide={"POD", "TEMPLATE", "DRIVER-STATUS"},
                     drop=["CAPACITY", "REQUEST", "AGE", "CONSUMERS", "NODE", "HEALTH"])

    def document() -> dict[str, Any]:
        from dractl.model.serialize import result_to_dict

        out = []
        for c in items:
            results = []
            for r in c.allocation.results if c.allocation is not None else ():
                rd = result_to_dict(r)
                h = hidx.of(r.device_id)
                if h is not None:  # only when a kubelet reported it
                    rd["health"] = h.health
                    rd["healthMessage"] = h.message
                results.append(rd)
            d: dict[str, Any] = {
                "apiVersion": DRACTL_API,
                "kind": "Claim",
                "namespace": c.namespace,
                "name": c.name,
                "state": c.state,
                "results": results,
                "reservedFor": [r.name for r in c.reserved_for],
                "node": rel.node_of(c),
            }
            if c.device_statuses:  # the drivers' status.devices[], whole (conditions, data, networkData)
                d["devices"] = [st.raw for st in c.device_statuses]
            unmapped = hidx.claim_unmapped(c.key)
            if unmapped:
                d["claimHealth"] = [
                    {
                        "pod": u.reporter,
                        "summary": u.summary(),
                        "resources": [{"resourceID": rid, "health": h, "message": msg} for rid, h, msg in u.healths],
                    }
                    for u in unmapped
                ]
            if explain:
                d["explanation"] = explanations[c.key].to_dict()
            out.append(d)
        if name:  # a named get prints that one claim, as kubectl get KIND NAME
            return out[0]
        return dractl_list("ClaimList", out, **({"pendingPods": [o.to_dict() for o in orphans]} if orphans else {}))

    def epilogue(out: TextIO) -> None:
        blocks = [explanations[c.key] for c in items] + orphans
        for b in blocks:
            out.write("\n" + b.title + ":\n")
            for line in b.lines:
                out.write("  " + line + "\n")

    return Listing(
        Result(
            table=table,
            document=document,
            names=lambda: [f"resourceclaim.resource.k8s.io/{c.name}" for c in items],
            empty_message="No resources found." if ns is None else f"No resources found in {ns} namespace.",
        ),
        epilogue=epilogue if explain else None,
        keys=("NAMESPACE", "CLAIM"),
    )


def _pod_hint(rel: Any, name: str, ns: str | None, hint: Callable[[str, str], str]) -> str:
    """NAME is a pod's: say which claims it has and the command that explains them."""
    from dractl.model.relations import claim_keys

    pods = [p for (pns, pname), p in rel.pods.items() if pname == name and (ns is None or pns == ns)]
    if len(pods) != 1:
        return ""
    p = pods[0]
    pns = p.namespace or "default"
    names = [k[1] if k else f"{rc} (not created yet)" for rc, k in claim_keys(p).items()]
    has = f"its claims are {', '.join(names)}" if names else "it uses no ResourceClaims"
    from dractl.render.events import see

    return f"; {name} is a pod: {has} {see(hint(f'pods {name} --explain', pns))}"


# ---------------------------------------------------------------- cells


def _result_cells(c: ResourceClaim) -> list[tuple[str, str, str, tuple[str, str, str] | None]]:
    from dractl.model.views import capacity_text

    if c.allocation is None or not c.allocation.results:
        return [(r.name, NONE, NONE, None) for r in c.spec.requests] or [(NONE, NONE, NONE, None)]
    return [
        (r.request, f"{r.driver}/{r.pool}/{r.device}", capacity_text(r), r.device_id) for r in c.allocation.results
    ]


def _health_cell(hidx: Any, c: ResourceClaim, key: tuple[str, str, str] | None) -> str:
    """The kubelet's health for one allocated device (or, for CDI-only reports, for the claim)."""
    if key is None:
        return NONE
    h = hidx.of(key)
    if h is not None and h.health:
        return h.health + (f" ({h.message})" if h.message else "")
    unmapped = [u for u in hidx.claim_unmapped(c.key) if key in u.devices]
    if unmapped:
        return "per claim: " + "; ".join(u.summary() for u in unmapped)
    return NONE


def _driver_status_cell(c: ResourceClaim, key: tuple[str, str, str] | None) -> str:
    """What the driver wrote in status.devices[] for one device: conditions, network data, opaque data."""
    if key is None:
        return NONE
    parts: list[str] = []
    for st in c.device_statuses:
        if (st.driver, st.pool, st.device) != key:
            continue
        for cond in st.conditions:
            if isinstance(cond, dict):
                reason = f"({cond.get('reason')})" if cond.get("reason") and cond.get("status") != "True" else ""
                parts.append(f"{cond.get('type', '?')}={cond.get('status', '?')}{reason}")
        nd = st.network_data or {}
        if nd.get("interfaceName"):
            parts.append(f"if={nd['interfaceName']}")
        ips = nd.get("ips")
        if isinstance(ips, list) and ips:
            parts.append("ips=" + ",".join(str(i) for i in ips))
        if nd.get("hardwareAddress"):
            parts.append(f"hw={nd['hardwareAddress']}")
        if st.data is not None:
            parts.append("data=yes")
    return " ".join(parts) or NONE


def human_age(stamp: str, now: _dt.datetime | None = None) -> str:
    """kubectl's AGE (k8s.io/apimachinery/pkg/util/duration.HumanDuration)."""
    if not stamp:
        return "<unknown>"
    try:
        t = _dt.datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return "<unknown>"
    if t.tzinfo is None:
        t = t.replace(tzinfo=_dt.UTC)
    now = now or _dt.datetime.now(_dt.UTC)
    return human_duration((now - t).total_seconds())


def human_duration(secs: float) -> str:
    seconds = int(secs)
    if seconds < -1:
        return "<invalid>"
    if seconds < 0:
        return "0s"
    if seconds < 120:
        return f"{seconds}s"
    minutes = seconds // 60
    if minutes < 10:
        s = seconds % 60
        return f"{minutes}m" if s == 0 else f"{minutes}m{s}s"
    if minutes < 180:
        return f"{minutes}m"
    hours = seconds // 3600
    if hours < 8:
        m = minutes % 60
        return f"{hours}h" if m == 0 else f"{hours}h{m}m"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        h = hours % 24
        return f"{hours // 24}d" if h == 0 else f"{hours // 24}d{h}h"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        dy = (hours // 24) % 365
        return f"{hours // 24 // 365}y" if dy == 0 else f"{hours // 24 // 365}y{dy}d"
    return f"{hours // 24 // 365}y"
