"""Why pods and claims are pending, and why allocated claims got their devices (pure).

:class:`Explainer` runs the scheduler's filters (:mod:`dractl.scheduler.schedule_one`) over a cluster's nodes
and returns :class:`Explained` blocks (a title, a one-line summary, readable lines and the explanation as
data): per node and per filter in the user's numbers (:func:`filter_lines`), then the allocator's story for
DynamicResources; :func:`brief_lines` shortens an :class:`~dractl.allocator.explain.Explanation` that tells
many node stories. Nothing here prints.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from dractl.allocator.core import Allocator, request_variants
from dractl.allocator.explain import Explanation
from dractl.model.objects import ResourceClaim
from dractl.model.parse import parse_object
from dractl.model.relations import Relations, claim_from_template, claim_keys, single_node
from dractl.model.views import capacity_text
from dractl.scheduler.framework import NO_NODES
from dractl.scheduler.schedule_one import Placement, SchedulingPass
from dractl.scheduler.volumes import VOLUME_FILTERS

if TYPE_CHECKING:
    from dractl.model.cluster import Cluster
    from dractl.model.objects import Pod


NOT_RETRIED = "the scheduler has not retried yet"


@dataclass
class Explained:
    """One explained claim or pending pod: what ``dractl claims --explain`` shows."""

    title: str
    summary: str
    lines: list[str] = field(default_factory=list)
    detail: Any = None  # Explanation.to_dict() when the allocator explained a failure
    pod: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def could_fit_now(self) -> bool:
        """The claims fit somewhere now: only a retry by the scheduler is missing."""
        return self.summary.endswith(NOT_RETRIED)

    def to_dict(self) -> dict[str, Any]:
        """The explanation as a JSON-ready dict."""
        d = {"summary": self.summary, "pod": self.pod, "lines": list(self.lines), "detail": self.detail}
        d.update(self.extra)
        return d


class Explainer:
    """Explains claims and pending pods of ``cluster``; one allocator, made when first needed."""

    def __init__(self, cluster: Cluster, features: Any, relations: Relations | None = None) -> None:
        self.cluster = cluster
        self.features = features
        self.relations = relations if relations is not None else Relations(cluster)
        self._alloc: Allocator | None = None
        self._pass: SchedulingPass | None = None
        self._pod_cache: dict[tuple[str, str], Explained] = {}

    @property
    def allocator(self) -> Allocator:
        """The allocator over the cluster, made on first use."""
        if self._alloc is None:
            self._alloc = Allocator(self.cluster, self.features)
        return self._alloc

    # -------------------------------------------------------- scheduled

    def node_choice(self, pod: Pod) -> Explained | None:
        """Why a scheduled pod is on its node, in the default profile's scores.

        That is the default profile's scores of the nodes that pass every filter,
        worked out on the cluster as it is now without the pod (its claims that no other pod uses deallocated),
        the pod's node against the runner-up, plugin by plugin. None for a pod not on a node.
        """
        from dataclasses import replace

        node = pod.node_name
        if not node:
            return None
        keys = {k for k in claim_keys(pod).values() if k}
        mine = [c for c in self.cluster.claims if (c.namespace, c.name) in keys]
        only_mine = {id(c) for c in mine if all(r.uid == pod.meta.uid for r in c.reserved_for)}
        claims = [replace(c, allocation=None, reserved_for=()) if id(c) in only_mine else c for c in mine]
        spec = {k: v for k, v in (pod.raw.get("spec") or {}).items() if k != "nodeName"}
        pending = replace(pod, node_name="", raw={**pod.raw, "spec": spec})
        without = replace(self.cluster, pods=[p for p in self.cluster.pods if p is not pod],
                          claims=[next((x for x in claims if x.key == c.key), c) for c in self.cluster.claims])
        p = SchedulingPass(Allocator(without, self.features), preemption=False).place(pending, claims, explain=True)
        title = f"Pod {pod.namespace}/{pod.name} on node {node}"
        intro = "the nodes as the scheduler would score them now, without this pod"
        if p.allocations is None:
            summary = f"no node would take it now: {p.message or p.error or ''}".strip()
            return Explained(title, summary, [summary])
        if node not in p.fits:
            summary = f"{node} would not take it now; the scheduler would choose {p.node}"
            return Explained(title, summary, [summary, f"{intro}:", *score_lines(p)])
        if not p.scores:
            summary = f"{node} is the only node that passes every filter now"
            return Explained(title, summary, [summary])
        mine_total = p.scores[node].total
        others = sorted((n for n in p.scores if n != node), key=lambda n: (-p.scores[n].total, n))
        runner = others[0]
        tied = [n for n in p.tied if n != node]
        if node in p.tied:
            summary = f"{node} has the top score, {mine_total}" + (
                f", tied with {', '.join(tied[:3])}{f' and {len(tied) - 3} more' if len(tied) > 3 else ''}"
                f" (the scheduler picks one of them at random)" if tied else "")
        else:
            summary = f"{node} scores {mine_total} now; {p.tied[0]} has the top score, {p.scores[p.tied[0]].total}"
        vs = ", ".join(f"{k} {v} vs {p.scores[runner].scores.get(k, 0)}" for k, v in p.scores[node].scores.items())
        lines = [summary, f"{node} {mine_total} against the runner-up {runner} {p.scores[runner].total}: {vs}",
                 f"{intro}:", *score_lines(p)]
        return Explained(title, summary, lines, pod=f"{pod.namespace}/{pod.name}",
                         extra={"scores": p.scores_dict(), "tiedNodes": list(p.tied)})

    # -------------------------------------------------------- pending

    def claim(self, c: ResourceClaim) -> Explained:
        """Why ``c`` is pending (as its waiting pod, if any), or how it got its devices."""
        if c.allocation is not None:
            return self._allocated(c)
        waiting = [p for p in self.relations.consumers(c) if not p.node_name]
        if waiting:
            pod = waiting[0]
            e = self.pod(pod, self.relations.missing_claims(pod))
            return Explained(f"Claim {c.key} (pending, for pod {pod.name})", e.summary, e.lines, e.detail, e.pod,
                             dict(e.extra))
        lines: list[str] = []
        if not self.relations.consumers(c):
            lines.append(
                "no pod uses this claim yet: the scheduler allocates a claim only for a pod that uses it;"
                " this is what it would find now"
            )
        summary, more, detail = self._run([c])
        return Explained(f"Claim {c.key} (pending)", summary, lines + more, detail)

    def pod(self, pod: Pod, missing: list[str]) -> Explained:
        """Explain a pending pod's claims together, as the scheduler tries them."""
        ns = pod.namespace
        key = (ns, pod.name)
        if key in self._pod_cache:
            return self._pod_cache[key]
        lines: list[str] = []
        claims: list[ResourceClaim] = []
        blocked = False
        keys = claim_keys(pod)
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
            raw = claim_from_template(t, f"{pod.name}-{rc.name}", pod=pod, pod_claim=rc.name)
            claims.append(parse_object(raw, validate=False))
        special = _extended_resources_claim(self.cluster, pod)
        if special is not None:
            lines.append(f"extended resources {special[1]}: no claim created yet; explained as the claim the "
                         "scheduler creates for them on a node without them in its allocatable")
            claims.append(special[0])
        status = _pod_condition(pod)
        if blocked:
            summary = status or "the pod waits for its claims to exist"
            detail = None
            if claims:
                _, more, detail = self._run(claims, pod)
                lines.extend(more)
        else:
            summary, more, detail = self._run(claims, pod)
            lines.extend(more)
            cond = pod.condition("PodScheduled")
            if (summary.endswith(NOT_RETRIED) and cond is not None and cond.status == "False"
                    and cond.reason == "SchedulerError" and cond.message):
                # The filters pass, but the scheduler's last attempt failed after it chose a node (a PreBind or
                # Bind error, e.g. the special claim refused by a quota): that is the reason, not a missed retry.
                # kube-scheduler (schedule_one.go handleSchedulingFailure) retries such a pod with back-off.
                summary = f"the scheduler chose a node, then failed: {cond.message}"
                lines = [line.removesuffix(f"; {NOT_RETRIED}") for line in lines]
                lines.append(f"{summary} (kube-scheduler retries with back-off)")
        title = f"Pod {ns}/{pod.name} (pending, claims not created)" if missing else f"Pod {ns}/{pod.name} (pending)"
        extra: dict[str, Any] = {}
        said = self.cluster.scheduler_message(ns, pod.name)  # read from a live cluster or its snapshot
        if said:
            lines.insert(0, f'kube-scheduler said (latest FailedScheduling event): "{said}"')
            extra["schedulerMessage"] = said
        e = Explained(title, summary, lines, detail, pod=f"{ns}/{pod.name}", extra=extra)
        self._pod_cache[key] = e
        return e

    @property
    def scheduling(self) -> SchedulingPass:
        """The scheduling pass over the cluster, made on first use."""
        if self._pass is None:
            self._pass = SchedulingPass(self.allocator)
        return self._pass

    def _run(self, claims: list[ResourceClaim], pod: Pod | None = None) -> tuple[str, list[str], Any]:
        """Try ``claims`` (``pod``'s) on every node as the scheduler does; (summary, lines, detail)."""
        p = self.scheduling.place(pod, claims, explain=True, first_fit=False)
        if p.nodes == 0:
            return NO_NODES, [NO_NODES, "the cluster has no Node objects and no node-local slices"], None
        if p.error is not None:
            ex = p.explanation or Explanation(error=p.error)
            return f"scheduler error: {p.error}", ex.lines(), ex.to_dict()
        notes = filter_lines(p)
        if p.fits:
            shown = ", ".join(p.fits[:3]) + (", ..." if len(p.fits) > 3 else "")
            what = "could schedule the pod" if pod is not None else "could allocate it"
            msg = f"{len(p.fits)}/{p.nodes} node(s) {what} now ({shown}); {NOT_RETRIED}"
            return msg, [msg, *notes], None
        explanation = p.explanation or Explanation()
        summary = p.message or ""
        lines = explanation.lines()
        detail = explanation.to_dict(lines)
        detail["nodeStatuses"] = p.node_details()
        if p.not_checked:
            detail["notChecked"] = {n: list(v) for n, v in p.not_checked.items()}
        if p.volumes:
            detail["volumesNotChecked"] = list(p.volumes)
        return summary, [summary, *notes, *brief_lines(explanation, lines=lines)], detail

    # -------------------------------------------------------- allocated

    def _allocated(self, c: ResourceClaim) -> Explained:
        alloc = c.allocation
        assert alloc is not None
        node = single_node(alloc.node_selector)
        if node is None:
            nodes = sorted({p.node_name for p in self.relations.consumers(c) if p.node_name})
            node = nodes[0] if nodes else (self.cluster.node_names[0] if self.cluster.node_names else None)
        lines: list[str] = []
        where = f"on node {node}" if node else "(no node)"
        summary = (f"allocated {where}: the scheduler takes, request by request, the first devices in its search "
                   "order that are free and satisfy all selectors")
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
            lines.append(f"search order {where}: pool{'s' if len(pools) > 1 else ''} {shown} sorted by driver/pool, "
                         "devices in slice-name order")
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
            picked = subs.get(r.request)
            why = _shape(picked, self.cluster) if picked is not None else ""
            before = view.devices[: cand.pos]
            matching = [b for b in before if picked is not None and self._matches(picked, b)]
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
                    bits.append(f"{len(free)} free now ({', '.join(b.key[2] for b in free[:3])}), in use or not yet "
                                "published when this claim was allocated")
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


def brief_lines(ex: Explanation, max_lines: int = MAX_LINES, *, lines: list[str] | None = None) -> list[str]:
    """The explanation's lines, summarised per request when the nodes tell too many different stories.

    When the nodes' devices are held by different claims, that is one summary per request
    across all nodes followed by the first node's own story; else ``Explanation.lines()`` (``lines``: what
    it gave, when the caller has it already).
    """
    lines = ex.lines() if lines is None else list(lines)
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
                {"nodes": 0, "matches": 0, "usable": 0, "needed": r.needed, "groups": {}, "holders": set(), "hints": [],
                 "problem": ""},
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


def _shape(sub: Any, cluster: Cluster) -> str:
    n = len(sub.selectors)
    cls = cluster.device_class(sub.device_class_name)
    cs = len(cls.selectors) if cls is not None else 0
    parts = [f"class {sub.device_class_name} ({cs} selector{'s' if cs != 1 else ''})"]
    if n:
        parts.append(f"{n} claim selector{'s' if n != 1 else ''}")
    return "matches " + " and ".join(parts)


def _pod_condition(pod: Pod) -> str | None:
    """The scheduler's message on the pod's PodScheduled=False condition, if any."""
    c = pod.condition("PodScheduled")
    return c.message if c is not None and c.status == "False" and c.message else None


def _extended_resources_claim(cluster: Any, pod: Pod) -> tuple[ResourceClaim, str] | None:
    """A pending pod's DRA extended resources (KEP-5004) that no claim holds yet.

    The special claim the scheduler would create for them (dractl.scheduler.extended), and the
    resources it serves.
    """
    from dractl.model.extendedresources import DeviceClassResolver
    from dractl.scheduler.extended import PodExtendedResources

    ext = PodExtendedResources.of(pod, cluster.claims, DeviceClassResolver.of(cluster.classes))
    if ext is None or ext.existing is not None:
        return None
    got = ext.node_claim({})
    if isinstance(got, str) or got[0] is None:
        return None
    served = ", ".join(f"{n}: {q}" for n, q in sorted(ext.scalars.items()) if ext.resolver.device_class(n))
    return got[0], served


MAX_NODES_PER_REASON = 3


def score_lines(p: Placement, max_nodes: int = 5) -> list[str]:
    """The best-scored nodes, one line each: ``node n1: 463 (TaintToleration 300, NodeResourcesFit 91, ...)``."""
    best = sorted(p.scores, key=lambda n: (-p.scores[n].total, n))
    out = [f"node {n}: {p.scores[n].total} (" + ", ".join(f"{k} {v}" for k, v in p.scores[n].scores.items()) + ")"
           for n in best[:max_nodes]]
    if len(best) > max_nodes:
        out.append(f"and {len(best) - max_nodes} more nodes")
    return out


def filter_lines(p: Placement, max_nodes: int = MAX_NODES_PER_REASON) -> list[str]:
    """The filters' side of a placement, in the user's numbers.

    Per node and per filter (DynamicResources' story is told by the allocator's explanation), nodes that could be
    checked for DRA only, volumes.
    """
    out: list[str] = []
    if p.pre_filter is not None:
        st = p.pre_filter
        out.append(f"{st.plugin or 'a PreFilter plugin'} rejected the pod before any node was tried: {st.message()}")
        out.extend(f"  {d}" for d in st.detail)
    groups: dict[tuple[str, tuple[str, ...]], list[str]] = {}
    for node, st in p.statuses.items():
        if st.plugin == "DynamicResources" or p.pre_filter is not None:
            continue
        groups.setdefault((st.plugin, st.reasons), []).append(node)
    for (plugin, reasons), nodes in groups.items():
        for node in nodes[:max_nodes]:
            st = p.statuses[node]
            if st.detail:
                out.extend(f"node {node}: {d}" for d in st.detail)
            else:
                out.append(f"node {node}: {st.message()} ({plugin})")
        if len(nodes) > max_nodes:
            out.append(f"{len(nodes) - max_nodes} more node(s): {', '.join(reasons)} ({plugin})")
    out.extend(not_checked_lines(p, max_nodes))
    return out


def not_checked_lines(p: Placement, max_nodes: int = MAX_NODES_PER_REASON) -> list[str]:
    """What dractl could not check for the pod: nodes known only from ResourceSlices, volumes."""
    out = []
    if p.not_checked:
        nodes = list(p.not_checked)
        shown = ", ".join(nodes[:max_nodes]) + (", ..." if len(nodes) > max_nodes else "")
        filters = next(iter(p.not_checked.values()))
        out.append(f"{len(nodes)} node(s) known only from ResourceSlices ({shown}), no Node object in this source: "
                   f"checked for DRA only; not checked: {', '.join(filters)}")
    if p.volumes:
        out.append(volumes_line(p.volumes))
    return out


def volumes_line(volumes: list[str]) -> str:
    """The line that says which volumes were not checked, and why."""
    return (f"volumes not checked: {', '.join(volumes)} (kube-scheduler's {', '.join(VOLUME_FILTERS)} are not "
            "modelled)")
