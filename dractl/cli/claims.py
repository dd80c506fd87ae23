"""`dractl claims`: claim -> device tables, and why a claim is pending (--explain)."""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional

import typer

from dractl.cli import completion as _c

if TYPE_CHECKING:
    from dractl.allocator import Allocator
    from dractl.model.cluster import Cluster
    from dractl.model.objects import AllocationResult, DeviceRequestAllocationResult, Pod, ResourceClaim

POD_CLAIM_NAME = "resource.kubernetes.io/pod-claim-name"
NONE = "-"


def claims(
    ctx: typer.Context,
    name: Optional[str] = typer.Argument(None, help="Only this claim.", autocompletion=_c.complete_claims),
    explain: bool = typer.Option(
        False, "--explain", help="Say why each pending claim has no devices, and why allocated claims got theirs."
    ),
) -> None:
    """List ResourceClaims with the devices they got, who uses them and where."""
    from dractl.errors import NotFoundError
    from dractl.render.printers import Result

    app_ctx = ctx.obj
    cluster = app_ctx.cluster()
    ns = app_ctx.namespace_filter()
    items = [c for c in cluster.claims if (ns is None or (c.namespace or "default") == ns) and (not name or c.name == name)]
    items.sort(key=lambda c: (c.namespace, c.name))
    if name and not items:
        raise NotFoundError(f'resourceclaims.resource.k8s.io "{name}" not found')
    idx = _Index(cluster)
    explanations: dict[str, Explained] = {}
    orphans: list[Explained] = []
    if explain:
        ex = _Explainer(cluster, app_ctx.features, idx)
        for c in items:
            explanations[c.key] = ex.claim(c)
        if not name:
            orphans = [ex.pod(p, missing) for p, missing in idx.pods_missing_claims(ns)]
    now = _dt.datetime.now(_dt.timezone.utc)
    show_ns = ns is None

    def table() -> Any:
        from dractl.render.printers import Table

        cols = ["NAMESPACE"] if show_ns else []
        cols += ["CLAIM", "STATE", "REQUEST", "DEVICE", "CAPACITY", "CONSUMERS", "NODE", "AGE", "POD", "TEMPLATE"]
        rows = []
        for c in items:
            state = c.state + (" (deleting)" if c.meta.deletion_timestamp else "")
            consumers = ",".join(r.name for r in c.reserved_for) or NONE
            node = idx.node_of(c) or NONE
            age = human_age(c.meta.creation_timestamp, now)
            pod, template = idx.origin(c)
            head = [c.namespace] if show_ns else []
            for req, dev, capacity in _result_cells(c):
                rows.append([*head, c.name, state, req, dev, capacity, consumers, node, age, pod or NONE, template or NONE])
        return Table(cols, rows, wide={"POD", "TEMPLATE"})

    def document() -> dict[str, Any]:
        from dractl.allocator.serialize import result_to_dict

        out = []
        for c in items:
            d: dict[str, Any] = {
                "namespace": c.namespace,
                "name": c.name,
                "state": c.state,
                "results": [result_to_dict(r) for r in c.allocation.results] if c.allocation is not None else [],
                "reservedFor": [r.name for r in c.reserved_for],
                "node": idx.node_of(c),
            }
            if explain:
                d["explanation"] = explanations[c.key].to_dict()
            out.append(d)
        doc: dict[str, Any] = {"items": out}
        if orphans:
            doc["pendingPods"] = [o.to_dict() for o in orphans]
        return doc

    fmt = app_ctx.output
    app_ctx.print(
        Result(
            table=table,
            document=document,
            names=lambda: [f"resourceclaim.resource.k8s.io/{c.name}" for c in items],
            empty_message="No resources found." if ns is None else f"No resources found in {ns} namespace.",
        )
    )
    if explain and fmt in ("table", "wide"):
        blocks = [explanations[c.key] for c in items] + orphans
        out = app_ctx.stdout
        for b in blocks:
            out.write("\n" + b.title + ":\n")
            for line in b.lines:
                out.write("  " + line + "\n")


# ---------------------------------------------------------------- cells


def _result_cells(c: "ResourceClaim") -> list[tuple[str, str, str]]:
    if c.allocation is None or not c.allocation.results:
        return [(r.name, NONE, NONE) for r in c.spec.requests] or [(NONE, NONE, NONE)]
    return [(r.request, f"{r.driver}/{r.pool}/{r.device}", capacity_text(r)) for r in c.allocation.results]


def capacity_text(r: "DeviceRequestAllocationResult") -> str:
    if r.admin_access:
        return "admin access"
    if r.consumed_capacity:
        return " ".join(f"{k.rpartition('/')[2] if '/' in k else k}={q}" for k, q in r.consumed_capacity.items())
    if r.share_id:
        return "shared"
    return "exclusive"


def human_age(stamp: str, now: _dt.datetime | None = None) -> str:
    """kubectl's AGE (k8s.io/apimachinery/pkg/util/duration.HumanDuration)."""
    if not stamp:
        return "<unknown>"
    try:
        t = _dt.datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return "<unknown>"
    if t.tzinfo is None:
        t = t.replace(tzinfo=_dt.timezone.utc)
    now = now or _dt.datetime.now(_dt.timezone.utc)
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


# ---------------------------------------------------------------- who uses what


def single_node(sel: Any) -> str | None:
    """The node an allocation's nodeSelector pins to (metadata.name or hostname In [x]), if any."""
    if sel is None or len(sel.terms) != 1:
        return None
    t = sel.terms[0]
    for r in (*t.match_fields, *t.match_expressions):
        if r.operator == "In" and len(r.values) == 1 and r.key in ("metadata.name", "kubernetes.io/hostname"):
            return r.values[0]
    return None


class _Index:
    """Pods by name and uid, and which pods use which claim."""

    def __init__(self, cluster: "Cluster") -> None:
        self.cluster = cluster
        self.pods: dict[tuple[str, str], Pod] = {}
        self.pods_by_uid: dict[str, Pod] = {}
        self.users: dict[tuple[str, str], list[Pod]] = {}
        for p in cluster.pods:
            ns = p.namespace or "default"
            self.pods[(ns, p.name)] = p
            if p.meta.uid:
                self.pods_by_uid[p.meta.uid] = p
            for key in self.claim_keys(p).values():
                if key is not None:
                    self.users.setdefault(key, []).append(p)

    @staticmethod
    def claim_keys(p: "Pod") -> dict[str, tuple[str, str] | None]:
        """Pod claim name -> (namespace, claim name), None when not created yet."""
        ns = p.namespace or "default"
        statuses = {s.name: s.resource_claim_name for s in p.claim_statuses}
        out: dict[str, tuple[str, str] | None] = {}
        for rc in p.resource_claims:
            if rc.resource_claim_name:
                out[rc.name] = (ns, rc.resource_claim_name)
            else:
                n = statuses.get(rc.name)
                out[rc.name] = (ns, n) if n else None
        return out

    def owner(self, c: "ResourceClaim") -> "Pod | None":
        for o in c.meta.owner_references:
            if o.kind == "Pod" and o.controller:
                p = self.pods_by_uid.get(o.uid) if o.uid else None
                return p or self.pods.get((c.namespace or "default", o.name))
        return None

    def origin(self, c: "ResourceClaim") -> tuple[str | None, str | None]:
        """(pod, template) of a claim generated from a template."""
        owner = next((o for o in c.meta.owner_references if o.kind == "Pod" and o.controller), None)
        if owner is None:
            return None, None
        pod = self.owner(c)
        template = None
        pcn = c.meta.annotations.get(POD_CLAIM_NAME)
        if pod is not None and pcn:
            for rc in pod.resource_claims:
                if rc.name == pcn:
                    template = rc.resource_claim_template_name or None
        return owner.name, template

    def consumers(self, c: "ResourceClaim") -> list["Pod"]:
        key = (c.namespace or "default", c.name)
        out = list(self.users.get(key, []))
        for r in c.reserved_for:
            p = self.pods.get((key[0], r.name)) if r.resource == "pods" else None
            if p is not None and p not in out:
                out.append(p)
        return out

    def node_of(self, c: "ResourceClaim") -> str | None:
        if c.allocation is not None:
            n = single_node(c.allocation.node_selector)
            if n:
                return n
        names = sorted({p.node_name for p in self.consumers(c) if p.node_name})
        if names:
            return ",".join(names)
        if c.allocation is not None and c.allocation.node_selector is not None:
            return "<selector>"
        return None

    def pods_missing_claims(self, ns: str | None) -> list[tuple["Pod", list[str]]]:
        out = []
        for p in self.cluster.pods:
            if p.node_name or (ns is not None and (p.namespace or "default") != ns):
                continue
            missing = [
                rc
                for rc, key in self.claim_keys(p).items()
                if key is None or self.cluster.claim(*key) is None
            ]
            if missing:
                out.append((p, missing))
        return out


# ---------------------------------------------------------------- explanations


@dataclass
class Explained:
    title: str
    summary: str
    lines: list[str] = field(default_factory=list)
    detail: Any = None  # Explanation.to_dict() when the allocator explained a failure
    pod: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        d = {"summary": self.summary, "pod": self.pod, "lines": list(self.lines), "detail": self.detail}
        d.update(self.extra)
        return d


class _Explainer:
    def __init__(self, cluster: "Cluster", features: Any, idx: _Index) -> None:
        self.cluster = cluster
        self.features = features
        self.idx = idx
        self._alloc: "Allocator | None" = None
        self._pod_cache: dict[tuple[str, str], Explained] = {}

    @property
    def allocator(self) -> "Allocator":
        if self._alloc is None:
            from dractl.allocator import Allocator

            self._alloc = Allocator(self.cluster, self.features)
        return self._alloc

    # -------------------------------------------------------- pending

    def claim(self, c: "ResourceClaim") -> Explained:
        if c.allocation is not None:
            return self._allocated(c)
        waiting = [p for p in self.idx.consumers(c) if not p.node_name]
        if waiting:
            pod = waiting[0]
            e = self.pod(pod, [rc for rc, key in self.idx.claim_keys(pod).items() if key is None or self.cluster.claim(*key) is None])
            return Explained(f"Claim {c.key} (pending, for pod {pod.name})", e.summary, e.lines, e.detail, e.pod)
        lines: list[str] = []
        if not self.idx.consumers(c):
            lines.append(
                "no pod uses this claim yet: the scheduler allocates a claim only for a pod that uses it;"
                " this is what it would find now"
            )
        summary, more, detail = self._run([c])
        return Explained(f"Claim {c.key} (pending)", summary, lines + more, detail)

    def pod(self, pod: "Pod", missing: list[str]) -> Explained:
        """Explain a pending pod's claims together, as the scheduler tries them."""
        ns = pod.namespace or "default"
        key = (ns, pod.name)
        if key in self._pod_cache:
            return self._pod_cache[key]
        from dractl.model.objects import ObjectMeta, ResourceClaim

        lines: list[str] = []
        claims: list[ResourceClaim] = []
        blocked = False
        keys = self.idx.claim_keys(pod)
        for rc in pod.resource_claims:
            k = keys.get(rc.name)
            c = self.cluster.claim(*k) if k else None
            if c is not None:
                if all(x.key != c.key for x in claims):
                    claims.append(c)
                continue
            if rc.resource_claim_name:
                lines.append(f'pod claim {rc.name}: resourceclaim "{rc.resource_claim_name}" not found')
                blocked = True
                continue
            tname = rc.resource_claim_template_name
            t = self.cluster.template(ns, tname) if tname else None
            if t is None:
                lines.append(
                    f'pod claim {rc.name}: resourceclaimtemplate.resource.k8s.io "{tname}" not found'
                    " (no claim can be created for it, so the pod cannot be scheduled)"
                )
                blocked = True
                continue
            lines.append(f"pod claim {rc.name}: no claim created yet; explained from template {tname}")
            claims.append(
                ResourceClaim(meta=ObjectMeta(name=f"{pod.name}-{rc.name}", namespace=ns, labels=t.claim_labels), spec=t.spec)
            )
        status = _pod_condition(pod)
        if blocked:
            summary = status or "the pod waits for its claims to exist"
            detail = None
            if claims:
                _, more, detail = self._run(claims)
                lines.extend(more)
        else:
            summary, more, detail = self._run(claims)
            lines.extend(more)
        title = f"Pod {ns}/{pod.name} (pending, claims not created)" if missing else f"Pod {ns}/{pod.name} (pending)"
        e = Explained(title, summary, lines, detail, pod=f"{ns}/{pod.name}")
        self._pod_cache[key] = e
        return e

    def _run(self, claims: list["ResourceClaim"]) -> tuple[str, list[str], Any]:
        """Try ``claims`` on every node as the scheduler does; (summary, lines, detail)."""
        from dractl.allocator.explain import Explanation

        a = self.allocator
        nodes = self.cluster.node_names
        if not nodes:
            msg = "0/0 nodes are available (no Node objects and no node-local slices)"
            return msg, [msg], None
        explanation = Explanation()
        reasons: dict[str, int] = {}
        fits: list[str] = []
        for node in nodes:
            out = a.allocate(node, claims, explain=True)
            if out.error is not None:
                ex = out.explanation or Explanation(error=out.error)
                return f"scheduler error: {out.error}", ex.lines(), ex.to_dict()
            if out.allocations is not None:
                fits.append(node)
                continue
            r = out.reason or "cannot allocate all claims"
            reasons[r] = reasons.get(r, 0) + 1
            if out.explanation is not None:
                explanation.merge(out.explanation)
        if fits:
            shown = ", ".join(fits[:3]) + (", ..." if len(fits) > 3 else "")
            msg = (
                f"{len(fits)}/{len(nodes)} node(s) could allocate it now ({shown}); the scheduler has not retried yet"
                " (in the fake cluster, any 'dractl fake apply' reschedules)"
            )
            return msg, [msg], None
        parts = ", ".join(f"{n} {r}" for r, n in reasons.items())
        summary = f"0/{len(nodes)} nodes are available: {parts}."
        return summary, [summary, *brief_lines(explanation)], explanation.to_dict()

    # -------------------------------------------------------- allocated

    def _allocated(self, c: "ResourceClaim") -> Explained:
        from dractl.allocator.core import request_variants

        alloc = c.allocation
        assert alloc is not None
        node = single_node(alloc.node_selector)
        if node is None:
            nodes = sorted({p.node_name for p in self.idx.consumers(c) if p.node_name})
            node = nodes[0] if nodes else (self.cluster.node_names[:1] or [None])[0]
        lines: list[str] = []
        where = f"on node {node}" if node else "(no node)"
        summary = f"allocated {where}: the scheduler takes, request by request, the first devices in its search order that are free and satisfy all selectors"
        lines.append(summary)
        if node is None:
            return Explained(f"Claim {c.key} ({c.state})", summary, lines)
        a = self.allocator
        view = a.node_view(node)
        pos = {cand.key: cand for cand in view.devices}
        pools = []
        for p in view.pools:
            if not p.incomplete and not p.invalid:
                pools.append(p.id)
        if pools:
            shown = ", ".join(pools[:3]) + (", ..." if len(pools) > 3 else "")
            lines.append(f"search order {where}: pool{'s' if len(pools) > 1 else ''} {shown} sorted by driver/pool, devices in slice-name order")
        subs: dict[str, Any] = {}
        for parent, variants in request_variants(c):
            for sub in variants:
                subs[f"{parent}/{sub.name}" if parent else sub.name] = sub
        for r in alloc.results:
            cand = pos.get(r.device_id)
            dev = f"{r.driver}/{r.pool}/{r.device}"
            if cand is None:
                lines.append(f"request {r.request}: {dev} (not visible from {node} now)")
                continue
            sub = subs.get(r.request)
            why = _shape(sub, self.cluster) if sub is not None else ""
            before = view.devices[: cand.pos]
            matching = [b for b in before if sub is not None and self._matches(sub, b)]
            taken = [b for b in matching if b.key in a.allocated and b.key != r.device_id]
            mine = [b for b in taken if c.key in a.holders.get(b.key, [])]
            others = [b for b in taken if b not in mine]
            free = [b for b in matching if b not in taken]
            text = f"request {r.request}: {dev}, #{cand.pos + 1} of {len(view.devices)} in the search order"
            if why:
                text += f"; {why}"
            if not matching:
                text += "; it is the first device that matches"
            else:
                bits = []
                if mine:
                    bits.append(f"{len(mine)} taken by this claim's other results")
                if others:
                    holders = sorted({h for b in others for h in a.holders.get(b.key, [])})
                    bits.append(f"{len(others)} held by {', '.join(holders[:3])}{', ...' if len(holders) > 3 else ''}")
                if free:
                    bits.append(f"{len(free)} free now ({', '.join(b.key[2] for b in free[:3])}), in use or not yet published when this claim was allocated")
                text += f"; {len(matching)} matching device(s) come before it: " + "; ".join(bits)
            if r.consumed_capacity:
                text += f"; consumes {capacity_text(r)} of a shared device"
            lines.append(text)
        return Explained(f"Claim {c.key} ({c.state})", summary, lines)

    def _matches(self, sub: Any, cand: Any) -> bool:
        a = self.allocator
        cls = a.classes.get(sub.device_class_name)
        if cls is None:
            return False
        try:
            for expr in (*cls.selectors, *sub.selectors):
                if not a.selectors.matches(expr, cand.key[0], cand.device):
                    return False
        except Exception:
            return False
        return True


MAX_LINES = 12


def brief_lines(ex: Any, max_lines: int = MAX_LINES) -> list[str]:
    """``Explanation.lines()``, or, when nodes tell too many different stories (their
    devices are held by different claims), one summary per request across all nodes
    followed by the first node's own story."""
    lines = ex.lines()
    if len(lines) <= max_lines or len(ex.nodes) <= 1:
        return lines
    out: list[str] = []
    if ex.error:
        out.append(f"error: {ex.error}")
    out.extend(ex.notes)
    n_nodes = len(ex.nodes)
    node_notes: dict[str, int] = {}
    per_req: dict[tuple[str, str, str], dict[str, Any]] = {}
    multi = any(n.multiple_claims for n in ex.nodes)
    for n in ex.nodes:
        for note in n.notes:
            node_notes[note] = node_notes.get(note, 0) + 1
        for r in n.requests:
            agg = per_req.setdefault(
                (r.claim, r.request, r.device_class),
                {"nodes": 0, "matches": 0, "usable": 0, "needed": r.needed, "groups": {}, "holders": set(), "hints": [], "problem": ""},
            )
            agg["nodes"] += 1
            agg["matches"] += r.class_matches
            agg["usable"] += r.usable
            agg["problem"] = agg["problem"] or r.problem
            for h in r.notes:
                if h not in agg["hints"]:
                    agg["hints"].append(h)
            for g in r.groups:
                reason = g.reason
                if g.kind == "in-use" and reason.startswith("already allocated to "):
                    agg["holders"].update(reason[len("already allocated to ") :].split(", "))
                    reason = "already allocated"
                key = (g.kind, reason)
                agg["groups"][key] = agg["groups"].get(key, 0) + g.count
    for note, count in node_notes.items():
        out.append(f"{count} of {n_nodes} nodes: {note}")
    for (claim, request, cls), agg in per_req.items():
        who = f"claim {claim}, request {request}" if multi else f"request {request}"
        if agg["problem"]:
            out.append(f"{who}: {agg['problem']}")
            continue
        text = f"{who}: class {cls} matches {agg['matches']} devices on {agg['nodes']} nodes"
        parts = []
        for (kind, reason), count in sorted(agg["groups"].items(), key=lambda kv: -kv[1]):
            if kind == "in-use":
                holders = agg["holders"]
                parts.append(f"{count} {reason} (to {len(holders)} claim{'s' if len(holders) != 1 else ''})")
            else:
                parts.append(f"{count} {reason}")
        need = "all" if agg["needed"] is None else f"{agg['needed']} on one node"
        parts.append(f"{agg['usable']} usable, needs {need}")
        out.append(text + "; " + "; ".join(parts))
        out.extend(f"  hint: {h}" for h in agg["hints"][:5])
    # The node whose devices are least in use tells the most about the request itself.
    example = min(ex.nodes, key=lambda n: sum(g.count for r in n.requests for g in r.groups if g.kind == "in-use"))
    first = example.lines()
    if first:
        out.append(f"for example, node {example.node} ({n_nodes - 1} more nodes in -o json):")
        out.extend("  " + line for line in first[:max_lines])
    return out


def _shape(sub: Any, cluster: "Cluster") -> str:
    n = len(sub.selectors)
    cls = cluster.device_class(sub.device_class_name)
    cs = len(cls.selectors) if cls is not None else 0
    parts = [f"class {sub.device_class_name} ({cs} selector{'s' if cs != 1 else ''})"]
    if n:
        parts.append(f"{n} claim selector{'s' if n != 1 else ''}")
    return "matches " + " and ".join(parts)


def _pod_condition(pod: "Pod") -> str | None:
    status = (pod.raw or {}).get("status") or {}
    for c in status.get("conditions") or []:
        if c.get("type") == "PodScheduled" and c.get("status") == "False" and c.get("message"):
            return str(c["message"])
    return None
