"""`dractl pods [NAME] [--explain]`: pod -> claims -> devices, with phase, node and the scheduler's condition."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, TextIO

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
    from dractl.scheduler.explain import Explained

NONE = "-"


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
    from dractl.errors import NotFoundError
    from dractl.model.relations import Relations
    from dractl.render.printers import Result, dractl_list
    from dractl.render.watch import Listing

    ns = app_ctx.namespace_filter()
    items = [
        p for p in cluster.pods if (ns is None or (p.namespace or "default") == ns) and (not name or p.name == name)
    ]
    items.sort(key=lambda p: (p.namespace or "default", p.name))
    if name and not items:
        raise NotFoundError(f'pods "{name}" not found' + (f" in namespace {ns}" if ns else ""))
    if name:
        from dractl.cli.names import one_by_name

        one_by_name("pod", name, [p.namespace or "default" for p in items])
    rel = Relations(cluster)
    explained: dict[tuple[str, str], list[Explained]] = {}
    if explain:
        from dractl.scheduler.explain import Explainer

        ex = Explainer(cluster, app_ctx.features, rel)
        for p in items:
            explained[_key(p)] = explain_pod(ex, rel, p)
    show_ns = ns is None
    from dractl.model import health as _health

    hidx = _health.build(cluster.pods, cluster.claims)
    has_health = bool(hidx.devices or hidx.unmapped)

    def table() -> Any:
        from dractl.render.printers import Table

        cols = ["NAMESPACE"] if show_ns else []
        cols += ["POD", "PHASE", "NODE", "CLAIM", "STATE", "DEVICES"]
        cols += ["HEALTH"] if has_health else []
        cols += ["SCHEDULED", "MESSAGE", "POD-CLAIM", "DRIVER-STATUS"]
        rows = []
        for p in items:
            head = [p.namespace or "default"] if show_ns else []
            cond = scheduled_condition(p)
            sched = cond.get("status", NONE)
            if cond.get("reason"):
                sched += f" ({cond['reason']})"
            message = cond.get("message") or NONE
            node = p.node_name or NONE
            for c in claim_rows(rel, p):
                cells = [c["claim"], c["state"], c["devices"]]
                claim = rel.cluster.claim(p.namespace or "default", c["claim"]) if c["state"] != NONE else None
                if has_health:
                    cells.append(_claim_health(hidx, claim))
                cells += [sched, message, c["entry"], _claim_driver_status(claim)]
                rows.append([*head, p.name, p.phase, node, *cells])
        return Table(cols, rows, wide={"POD-CLAIM", "DRIVER-STATUS"},
                     drop=["DEVICES", "SCHEDULED", "MESSAGE", "HEALTH", "NODE", "PHASE"])

    def document() -> dict[str, Any]:
        docs = [pod_doc(rel, p, explained.get(_key(p)) if explain else None, hidx) for p in items]
        if name:
            return docs[0]
        return dractl_list("PodClaimsList", docs)

    def epilogue(out: TextIO) -> None:
        for p in items:
            for b in explained[_key(p)]:
                out.write("\n" + b.title + ":\n")
                for line in b.lines:
                    out.write("  " + line + "\n")

    return Listing(
        Result(
            table=table,
            document=document,
            names=lambda: [f"pod/{p.name}" for p in items],
            empty_message="No resources found." if ns is None else f"No resources found in {ns} namespace.",
        ),
        epilogue=epilogue if explain else None,
        keys=("NAMESPACE", "POD"),
    )


def _key(p: Pod) -> tuple[str, str]:
    return (p.namespace or "default", p.name)


def scheduled_condition(p: Pod) -> dict[str, str]:
    """The pod's PodScheduled condition as the API server has it ({} when there is none)."""
    c = p.condition("PodScheduled")
    if c is not None:
        return {k: v for k, v in (("status", c.status), ("reason", c.reason), ("message", c.message)) if v}
    if p.node_name:
        return {"status": "True"}
    return {}


def claim_rows(rel: Relations, p: Pod) -> list[dict[str, str]]:
    """One row per device of each pod claim (a claim without devices is one row)."""
    from dractl.model.relations import claim_keys

    keys = claim_keys(p)
    if not p.resource_claims:
        return [{"entry": NONE, "claim": "<none>", "state": NONE, "devices": NONE}]
    rows = []
    for rc in p.resource_claims:
        key = keys.get(rc.name)
        c = rel.cluster.claim(*key) if key else None
        if c is None:
            if key is not None:
                what = "<not found>"
            elif rc.resource_claim_template_name:
                what = "<not created>"
            else:
                what = "<not found>"
            rows.append({"entry": rc.name, "claim": key[1] if key else what, "state": what if key else NONE,
                         "devices": NONE})
            continue
        devs = ",".join(f"{r.driver}/{r.pool}/{r.device}" for r in c.allocation.results) if c.allocation else ""
        rows.append({"entry": rc.name, "claim": c.name, "state": c.state, "devices": devs or NONE})
    return rows


def _claim_health(hidx: Any, claim: Any) -> str:
    """The kubelet's health per device of a claim, in result order ("Healthy", "Unhealthy,Healthy")."""
    if claim is None or claim.allocation is None:
        return NONE
    unmapped = hidx.claim_unmapped(claim.key)
    if unmapped:
        return "per claim: " + "; ".join(u.summary() for u in unmapped)
    cells = []
    for r in claim.allocation.results:
        h = hidx.of(r.device_id)
        cells.append((h.health + (f" ({h.message})" if h.message else "")) if h is not None and h.health else NONE)
    return ",".join(cells) if any(c != NONE for c in cells) else NONE


def _claim_driver_status(claim: Any) -> str:
    """The driver's status.devices[] of a claim, one device after the other."""
    from dractl.cli.commands.claims import _driver_status_cell

    if claim is None or claim.allocation is None:
        return NONE
    cells = [_driver_status_cell(claim, r.device_id) for r in claim.allocation.results]
    return "; ".join(cells) if any(c != NONE for c in cells) else NONE


def pod_doc(rel: Relations, p: Pod, explained: list[Explained] | None, hidx: Any = None) -> dict[str, Any]:
    """dractl's view of one pod (kind PodClaims): its claims and their devices, computed by dractl."""
    from dractl import DRACTL_API
    from dractl.model.relations import claim_keys
    from dractl.model.serialize import result_to_dict

    keys = claim_keys(p)
    claims = []
    for rc in p.resource_claims:
        key = keys.get(rc.name)
        c = rel.cluster.claim(*key) if key else None
        results = []
        for r in c.allocation.results if c is not None and c.allocation else ():
            rd = result_to_dict(r)
            h = hidx.of(r.device_id) if hidx is not None else None
            if h is not None:  # only when a kubelet reported it
                rd["health"] = h.health
                rd["healthMessage"] = h.message
            results.append(rd)
        entry: dict[str, Any] = {
            "name": rc.name,
            "resourceClaimName": c.name if c is not None else (key[1] if key else None),
            "resourceClaimTemplateName": rc.resource_claim_template_name or None,
            "state": c.state if c is not None else "missing",
            "results": results,
        }
        if c is not None and c.device_statuses:  # the drivers' status.devices[], whole
            entry["devices"] = [st.raw for st in c.device_statuses]
        claims.append(entry)
    d: dict[str, Any] = {
        "apiVersion": DRACTL_API,
        "kind": "PodClaims",
        "namespace": p.namespace or "default",
        "name": p.name,
        "phase": p.phase,
        "node": p.node_name or None,
        "scheduled": scheduled_condition(p),
        "claims": claims,
    }
    if explained is not None:
        d["explanations"] = [{"title": e.title, **e.to_dict()} for e in explained]
    return d


def explain_pod(ex: Any, rel: Relations, p: Pod) -> list[Explained]:
    """A pending pod: its claims together, as the scheduler tries them; a scheduled one: each claim."""
    from dractl.model.relations import claim_keys
    from dractl.scheduler.explain import Explained

    ns = p.namespace or "default"
    if not p.node_name:
        return [ex.pod(p, rel.missing_claims(p))]
    if not p.resource_claims:
        return [Explained(f"Pod {ns}/{p.name}", "no claims", ["this pod uses no ResourceClaims"])]
    out = []
    for key in claim_keys(p).values():
        c = rel.cluster.claim(*key) if key else None
        if c is not None:
            out.append(ex.claim(c))
    return out
