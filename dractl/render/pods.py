"""`dractl pods` as a table, documents (PodClaimsList) and explanations, from a neutral :class:`PodsView`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

from dractl import DRACTL_API
from dractl.render.claims import NONE, driver_status_cell, results_doc
from dractl.render.printers import Result, Table, dractl_list, nothing_found
from dractl.render.watch import Listing

if TYPE_CHECKING:
    from dractl.model.health import HealthIndex
    from dractl.model.objects import Pod, ResourceClaim
    from dractl.model.relations import Relations
    from dractl.scheduler.explain import Explained


@dataclass
class PodsView:
    """What the pods command found: the pods to list and what their rows and documents need."""

    pods: list[Pod]
    relations: Relations
    health: HealthIndex
    namespace: str | None  # the namespace listed; None: all of them (a NAMESPACE column)
    named: bool = False  # one pod asked for by name: its document alone
    #: per pod (namespace, name), with --explain (None without it)
    explanations: dict[tuple[str, str], list[Explained]] | None = None


def pods_listing(v: PodsView) -> Listing:
    """The pod listing: a table (and the explanations after it), PodClaimsList documents and names."""

    def epilogue(out: TextIO) -> None:
        from dractl.render.explain import write_blocks

        assert v.explanations is not None
        write_blocks(out, [b for p in v.pods for b in v.explanations[_key(p)]])

    def document() -> dict[str, Any]:
        ex = v.explanations
        docs = [pod_doc(v.relations, p, ex.get(_key(p)) if ex is not None else None, v.health) for p in v.pods]
        if v.named:
            return docs[0]
        return dractl_list("PodClaimsList", docs)

    return Listing(
        Result(
            table=lambda: pods_table(v),
            document=document,
            names=lambda: [f"pod/{p.name}" for p in v.pods],
            empty_message=nothing_found(v.namespace),
        ),
        epilogue=epilogue if v.explanations is not None else None,
        keys=("NAMESPACE", "POD"),
    )


def pods_table(v: PodsView) -> Table:
    """One row per device of each pod claim (a claim without devices, or a pod without claims, is one row)."""
    rel, hidx = v.relations, v.health
    show_ns = v.namespace is None
    has_health = bool(hidx.devices or hidx.unmapped)
    cols = ["NAMESPACE"] if show_ns else []
    cols += ["POD", "PHASE", "NODE", "CLAIM", "STATE", "DEVICES"]
    cols += ["HEALTH"] if has_health else []
    cols += ["SCHEDULED", "MESSAGE", "POD-CLAIM", "DRIVER-STATUS"]
    rows = []
    for p in v.pods:
        head = [p.namespace] if show_ns else []
        cond = scheduled_condition(p)
        sched = cond.get("status", NONE)
        if cond.get("reason"):
            sched += f" ({cond['reason']})"
        message = cond.get("message") or NONE
        node = p.node_name or NONE
        for c in claim_rows(rel, p):
            cells = [c["claim"], c["state"], c["devices"]]
            claim = rel.cluster.claim(p.namespace, c["claim"]) if c["state"] != NONE else None
            if has_health:
                cells.append(_claim_health(hidx, claim))
            cells += [sched, message, c["entry"], _claim_driver_status(claim)]
            rows.append([*head, p.name, p.phase, node, *cells])
    # To fit a terminal: which device each pod got is what the view is for, so DEVICES goes last
    return Table(cols, rows, wide={"POD-CLAIM", "DRIVER-STATUS"},
                 drop=["MESSAGE", "SCHEDULED", "HEALTH", "STATE", "PHASE", "NODE", "DEVICES"])


def _key(p: Pod) -> tuple[str, str]:
    return (p.namespace, p.name)


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


def _claim_health(hidx: HealthIndex, claim: ResourceClaim | None) -> str:
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


def _claim_driver_status(claim: ResourceClaim | None) -> str:
    """The driver's status.devices[] of a claim, one device after the other."""
    if claim is None or claim.allocation is None:
        return NONE
    cells = [driver_status_cell(claim, r.device_id) for r in claim.allocation.results]
    return "; ".join(cells) if any(c != NONE for c in cells) else NONE


def pod_doc(rel: Relations, p: Pod, explained: list[Explained] | None, hidx: HealthIndex | None = None
            ) -> dict[str, Any]:
    """The document of one pod as dractl sees it (kind PodClaims): its claims and their devices."""
    from dractl.model.relations import claim_keys

    keys = claim_keys(p)
    claims = []
    for rc in p.resource_claims:
        key = keys.get(rc.name)
        c = rel.cluster.claim(*key) if key else None
        entry: dict[str, Any] = {
            "name": rc.name,
            "resourceClaimName": c.name if c is not None else (key[1] if key else None),
            "resourceClaimTemplateName": rc.resource_claim_template_name or None,
            "state": c.state if c is not None else "missing",
            "results": results_doc(c, hidx),
        }
        if c is not None and c.device_statuses:  # the drivers' status.devices[], whole
            entry["devices"] = [st.raw for st in c.device_statuses]
        claims.append(entry)
    d: dict[str, Any] = {
        "apiVersion": DRACTL_API,
        "kind": "PodClaims",
        "namespace": p.namespace,
        "name": p.name,
        "phase": p.phase,
        "node": p.node_name or None,
        "scheduled": scheduled_condition(p),
        "claims": claims,
    }
    if explained is not None:
        d["explanations"] = [{"title": e.title, **e.to_dict()} for e in explained]
    return d
