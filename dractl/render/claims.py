"""`dractl claims` as a table, documents (ClaimList) and explanations, from a neutral :class:`ClaimsView`."""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TextIO

from dractl import DRACTL_API
from dractl.render.printers import Result, Table, dractl_list, nothing_found
from dractl.render.watch import Listing

if TYPE_CHECKING:
    from dractl.model.health import HealthIndex
    from dractl.model.objects import DeviceKey, ResourceClaim
    from dractl.model.relations import Relations
    from dractl.scheduler.explain import Explained

NONE = "-"


@dataclass
class ClaimsView:
    """What the claims command found: the claims to list and what their rows and documents need."""

    claims: list[ResourceClaim]
    relations: Relations
    health: HealthIndex
    namespace: str | None  # the namespace listed; None: all of them (a NAMESPACE column)
    named: bool = False  # one claim asked for by name: its document alone, as kubectl get KIND NAME
    #: per claim key, with --explain (None without it); orphans: pending pods whose claims do not exist yet
    explanations: dict[str, Explained] | None = None
    orphans: list[Explained] = field(default_factory=list)
    reschedule_hint: bool = False  # the fake cluster: claims that fit now are rescheduled by any fake apply
    now: _dt.datetime = field(default_factory=lambda: _dt.datetime.now(_dt.UTC))


def claims_listing(v: ClaimsView) -> Listing:
    """The claim listing: a table (and the explanations after it), ClaimList documents and names."""
    explanations: dict[str, Explained] = {}
    orphans: list[Explained] = []
    if v.explanations is not None:
        from dractl.render.explain import with_reschedule_hint

        hint = with_reschedule_hint if v.reschedule_hint else (lambda e: e)
        explanations = {k: hint(e) for k, e in v.explanations.items()}
        orphans = [hint(e) for e in v.orphans]

    def epilogue(out: TextIO) -> None:
        from dractl.render.explain import write_blocks

        write_blocks(out, [explanations[c.key] for c in v.claims] + orphans)

    def document() -> dict[str, Any]:
        out = [claim_doc(v, c, explanations.get(c.key)) for c in v.claims]
        if v.named:  # a named get prints that one claim, as kubectl get KIND NAME
            return out[0]
        return dractl_list("ClaimList", out, **({"pendingPods": [o.to_dict() for o in orphans]} if orphans else {}))

    return Listing(
        Result(
            table=lambda: claims_table(v),
            document=document,
            names=lambda: [f"resourceclaim.resource.k8s.io/{c.name}" for c in v.claims],
            empty_message=nothing_found(v.namespace),
        ),
        epilogue=epilogue if v.explanations is not None else None,
        keys=("NAMESPACE", "CLAIM"),
    )


def claims_table(v: ClaimsView) -> Table:
    """One row per allocated device of each claim (a claim without devices is one row)."""
    show_ns = v.namespace is None
    rel, hidx = v.relations, v.health
    cols = ["NAMESPACE"] if show_ns else []
    cols += ["CLAIM", "STATE", "REQUEST", "DEVICE", "CAPACITY", "CONSUMERS", "NODE", "AGE"]
    has_health = bool(hidx.devices or hidx.unmapped)
    if has_health:
        cols.append("HEALTH")
    cols += ["DRIVER-STATUS", "POD", "TEMPLATE"]
    rows = []
    for c in v.claims:
        state = c.state + (" (deleting)" if c.meta.deletion_timestamp else "")
        consumers = ",".join(r.name for r in c.reserved_for) or NONE
        node = rel.node_of(c) or NONE
        age = human_age(c.meta.creation_timestamp, v.now)
        pod, template = rel.origin(c)
        head = [c.namespace] if show_ns else []
        for req, dev, capacity, key in _result_cells(c):
            row = [*head, c.name, state, req, dev, capacity, consumers, node, age]
            if has_health:
                row.append(_health_cell(hidx, c, key))
            row += [driver_status_cell(c, key), pod or NONE, template or NONE]
            rows.append(row)
    return Table(cols, rows, wide={"POD", "TEMPLATE", "DRIVER-STATUS"},
                 drop=["CAPACITY", "REQUEST", "AGE", "CONSUMERS", "NODE", "HEALTH"])


def claim_doc(v: ClaimsView, c: ResourceClaim, explained: Explained | None) -> dict[str, Any]:
    """The document of one claim as dractl sees it (kind Claim): its results with their health, consumers and node."""
    hidx = v.health
    d: dict[str, Any] = {
        "apiVersion": DRACTL_API,
        "kind": "Claim",
        "namespace": c.namespace,
        "name": c.name,
        "state": c.state,
        "results": results_doc(c, hidx),
        "reservedFor": [r.name for r in c.reserved_for],
        "node": v.relations.node_of(c),
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
    if explained is not None:
        d["explanation"] = explained.to_dict()
    return d


def results_doc(c: ResourceClaim | None, hidx: HealthIndex | None) -> list[dict[str, Any]]:
    """A claim's allocation results as documents, each with the kubelet's health when one reported it."""
    from dractl.model.serialize import result_to_dict

    out = []
    for r in c.allocation.results if c is not None and c.allocation is not None else ():
        rd = result_to_dict(r)
        h = hidx.of(r.device_id) if hidx is not None else None
        if h is not None:  # only when a kubelet reported it
            rd["health"] = h.health
            rd["healthMessage"] = h.message
        out.append(rd)
    return out


def _result_cells(c: ResourceClaim) -> list[tuple[str, str, str, DeviceKey | None]]:
    from dractl.model.views import capacity_text

    if c.allocation is None or not c.allocation.results:
        return [(r.name, NONE, NONE, None) for r in c.spec.requests] or [(NONE, NONE, NONE, None)]
    return [
        (r.request, f"{r.driver}/{r.pool}/{r.device}", capacity_text(r), r.device_id) for r in c.allocation.results
    ]


def _health_cell(hidx: HealthIndex, c: ResourceClaim, key: DeviceKey | None) -> str:
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


def driver_status_cell(c: ResourceClaim, key: DeviceKey | None) -> str:
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
    """An age as kubectl's AGE column shows it (k8s.io/apimachinery/pkg/util/duration.HumanDuration)."""
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
    """``secs`` seconds as kubectl's duration.HumanDuration writes them."""
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
