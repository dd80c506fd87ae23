"""Why claims do not fit a node: per node, per request, grouped and counted.

The explanation is computed apart from the search, only after it failed. Each
candidate device is classified per (sub)request with the allocator's checks against
the cluster's allocated state: binding conditions, class selectors, request
selectors, per-device node selection, then in use, capacity, counters, taints.
Upstream checks "in use" first; the explanation names the permanent reason first,
so a device that is allocated and would not match anyway is not blamed on the
allocation. That gives a true reason for every device a request cannot use on its
own. When every request has enough usable devices on its own, the
explanation says so and looks at what joins them (constraints, shared devices),
without inventing a per-device reason.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from dractl.allocator import capacity as cap
from dractl.allocator.constraints import lookup_attribute
from dractl.allocator.core import (
    ALLOCATION_RESULTS_MAX_SIZE,
    REASON_CANNOT_ALLOCATE,
    REASON_INVALID_POOLS,
    REASON_NOT_AVAILABLE,
    Allocator,
    Outcome,
    ReqData,
    RequestIndices,
    counter_numbers,
    kobj,
    request_variants,
    taint_prevents,
    untolerated,
)
from dractl.allocator.pools import Candidate, NodeView
from dractl.cel.match import SelectorCache, SelectorFailure, attribute_hint, closest, published_names
from dractl.model.objects import Node, ResourceClaim, node_matches
from dractl.quantity import Format, Quantity

MAX_EXAMPLES = 3


@dataclass
class ReasonGroup:
    """Devices a request cannot use for one and the same reason."""

    # in-use, binding-conditions, class-selector, selector, node-selection, capacity, counters, taint, cel-error,
    # usable
    kind: str
    reason: str
    count: int = 0
    examples: list[str] = field(default_factory=list)
    summary: str = ""  # the reason without names of this node's claims, to tell nodes with the same story once
    head: str = ""  # for a failed selector: "fail selector #0 (EXPR)", the part shared by every value
    detail: str = ""  # ... and what this device offers ("memory is 20Gi, needs >= 100Gi")

    @property
    def brief(self) -> str:
        """The reason as told once for all nodes: the summary when there is one, else the reason."""
        return self.summary or self.reason

    def to_dict(self) -> dict[str, Any]:
        """The group as a JSON-ready dict."""
        return {"kind": self.kind, "reason": self.reason, "count": self.count, "examples": list(self.examples)}


@dataclass
class RequestExplanation:
    """Why one request of a claim can or cannot be satisfied on one node."""
    claim: str
    request: str  # "gpu" or "gpu/sub"
    device_class: str
    needed: int | None  # None for allocationMode All
    class_matches: int = 0
    usable: int = 0
    groups: list[ReasonGroup] = field(default_factory=list)  # devices of the class that cannot be used
    other_class: list[ReasonGroup] = field(default_factory=list)  # devices the class selectors reject
    notes: list[str] = field(default_factory=list)
    problem: str = ""  # set when the request cannot be evaluated at all (unknown class...)

    @property
    def fits_alone(self) -> bool:
        """Whether the node's devices satisfy this request on its own (ignoring other requests and constraints)."""
        if self.problem:
            return False
        if self.needed is None:
            return self.usable > 0 and self.usable == self.class_matches
        return self.usable >= self.needed

    def to_dict(self) -> dict[str, Any]:
        """The request's explanation as a JSON-ready dict."""
        return {
            "claim": self.claim,
            "request": self.request,
            "deviceClass": self.device_class,
            "needed": self.needed if self.needed is not None else "All",
            "classMatches": self.class_matches,
            "usable": self.usable,
            "reasons": [g.to_dict() for g in self.groups],
            "notMatchingClass": [g.to_dict() for g in self.other_class],
            "notes": list(self.notes),
            "problem": self.problem,
        }


@dataclass
class NodeExplanation:
    """Why the claims do not fit on one node: node-level notes and one explanation per request."""
    node: str
    reason: str  # the scheduler's text: cannot allocate all claims, ...
    notes: list[str] = field(default_factory=list)  # node-level: no slices, pools, combination, constraints
    requests: list[RequestExplanation] = field(default_factory=list)
    multiple_claims: bool = False

    def lines(self, where: str | None = None, detail: bool = True) -> list[str]:
        """The node's story; without ``detail``, no device or claim names (to compare nodes)."""
        where = where or f"node {self.node}"
        out = [f"{where}: {n}" for n in self.notes]
        for r in self.requests:
            out.append(_request_line(r, where, self.multiple_claims, detail))
            out.extend(f"  hint: {n}" for n in r.notes)
        return out

    def to_dict(self) -> dict[str, Any]:
        """The node's explanation as a JSON-ready dict."""
        return {
            "node": self.node,
            "reason": self.reason,
            "notes": list(self.notes),
            "requests": [r.to_dict() for r in self.requests],
        }


@dataclass
class Explanation:
    """The explanation tree: node -> request -> reason groups."""

    nodes: list[NodeExplanation] = field(default_factory=list)
    error: str | None = None
    notes: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        """A few readable lines; nodes with the same story are told once."""
        out: list[str] = []
        if self.error:
            out.append(f"error: {self.error}")
        out.extend(self.notes)
        groups: dict[tuple[str, ...], list[NodeExplanation]] = {}
        for n in self.nodes:
            sig = tuple(n.lines(where="\0", detail=False))
            groups.setdefault(sig, []).append(n)
        for sig, nodes in groups.items():
            if len(nodes) == 1:
                out.extend(nodes[0].lines())
            else:
                names = ", ".join(n.node for n in nodes[:MAX_EXAMPLES])
                more = ", ..." if len(nodes) > MAX_EXAMPLES else ""
                where = f"each of {len(nodes)} nodes ({names}{more})"
                out.extend(line.replace("node \0", where).replace("\0", where) for line in sig)
        return out

    def to_dict(self, lines: list[str] | None = None) -> dict[str, Any]:
        """The structured explanation, plus ``lines``: the same sentences the table output prints.

        ``lines``: what :meth:`lines` gave, when the caller has it already.
        """
        return {
            "error": self.error,
            "notes": list(self.notes),
            "nodes": [n.to_dict() for n in self.nodes],
            "lines": self.lines() if lines is None else list(lines),
        }

    def merge(self, other: Explanation) -> None:
        """Add another explanation's nodes and its notes not already present."""
        self.nodes.extend(other.nodes)
        self.notes.extend(n for n in other.notes if n not in self.notes)


# ---------------------------------------------------------------- rendering


def _examples(g: ReasonGroup) -> str:
    if not g.examples:
        return ""
    more = ", ..." if g.count > len(g.examples) else ""
    return f" ({', '.join(g.examples)}{more})"


def _request_line(r: RequestExplanation, where: str, multiple_claims: bool, detail: bool = True) -> str:
    who = f"claim {r.claim}, request {r.request}" if multiple_claims else f"request {r.request}"
    if r.problem:
        return f"{who}: {r.problem}"
    on = "on " + where if not where.startswith("each of") else "on " + where
    if where == "\0":
        on = "on node \0"
    n = r.class_matches
    head = f"{who}: class {r.device_class} matches {n} device{'s' if n != 1 else ''} {on}"
    if n == 0:
        rej = sum(g.count for g in r.other_class)
        if rej:
            others = "; ".join(
                f"{g.count} {g.reason if detail else g.brief}{_examples(g) if detail else ''}" for g in r.other_class
            )
            return f"{head} ({rej} other device{'s' if rej != 1 else ''}: {others})"
        return head
    parts = []
    bad = sum(g.count for g in r.groups)
    for g in r.groups:
        reason = g.reason if detail else g.brief
        # Most reasons read as what the devices do ("3 already allocated to ..."); a reason
        # that names a thing ("capacity compute: 0 left ...") is said of the devices.
        if _names_a_thing(reason):
            count = f"{g.count} device{'s' if g.count != 1 else ''}"
            reason = ": " + reason
        else:
            count, reason = str(g.count), " " + reason
        if len(r.groups) == 1 and g.count == n and n > 1:
            parts.append(f"all {count}{reason}")
        else:
            parts.append(f"{count}{reason}{_examples(g) if detail and (g.count < n or n == 1) else ''}")
    need = "all" if r.needed is None else str(r.needed)
    if bad and r.usable:
        parts.append(f"{r.usable} usable, needs {need}")
    elif not bad:
        parts.append(f"{r.usable} usable, needs {need}")
    return head + "; " + "; ".join(parts)


def _names_a_thing(reason: str) -> bool:
    """A reason that starts with what is short (capacity, a counter set, a taint), not with a verb."""
    return reason.startswith(("capacity ", "counter set ", "taint "))


# ---------------------------------------------------------------- classification


def _q(v: Fraction) -> str:
    try:
        return str(Quantity.from_value(v, Format.BINARY_SI))
    except Exception:
        return str(float(v))


class _Classifier:
    def __init__(self, a: Allocator, view: NodeView, claims: Sequence[ResourceClaim]) -> None:
        self.a = a
        self.view = view
        self.claims = list(claims)
        memo = a.explain_memo  # kept by the allocator: the same for every node it explains
        # A failed selector's reason text -> (head, detail), so that grouping never
        # has to take the text apart (an expression can contain ")" and ": ").
        self.parts: dict[str, tuple[str, str]] = memo.parts
        # (id(selectors), label) -> what _selectors walks for them (the selectors are kept: the id stays theirs)
        self._plans: dict[tuple[int, str], tuple[Sequence[str], list[tuple[int, str, Any, Any]]]] = memo.plans

    def classify(self, rd: ReqData, cand: Candidate, claim: ResourceClaim) -> tuple[str, str]:
        """The first check that rules ``cand`` out for ``rd`` alone: (kind, reason)."""
        a = self.a
        key, d = cand.key, cand.device
        multi = a.f.consumable_capacity and d.allow_multiple_allocations
        # Upstream checks "in use" first. The explanation checks what never changes first
        # (selectors, node selection), so that a device that is allocated AND would not
        # match anyway is reported by the permanent reason: freeing it would not help.
        # A CEL error on an in-use device is not reported: the scheduler never evaluates it.
        in_use = not rd.admin and key in a.allocated
        if not a.f.binding_conditions and d.binding_conditions:
            return "binding-conditions", "have bindingConditions, but DRADeviceBindingConditions is off"
        if rd.class_ is not None:
            r = self._selectors(rd.class_.selectors, cand, "class selector")
            if r is not None and not (in_use and r[0] == "cel-error"):
                return ("class-selector",) + r[1:] if r[0] == "selector" else r
        r = self._selectors(rd.selectors, cand, "selector")
        if r is not None and not (in_use and r[0] == "cel-error"):
            return r
        if cand.per_device_node_selection and not node_matches(
            self.view.node_name, self.view.labels, d.node_name, d.all_nodes, d.node_selector
        ):
            return "node-selection", "are not available on this node (per-device node selection)"
        if in_use:
            holders = sorted(set(a.holders.get(key, [])))
            return "in-use", "already allocated to " + (", ".join(holders) or "another claim")
        if a.f.consumable_capacity:
            already = a.aggregated.get(key)
            if already:
                ok = cap.fits(already, rd.capacity, d.capacity, None, a.f.fractional_capacity_range)
            else:  # the same answer, kept per capacity map
                try:
                    ok = a.fits_alone(rd.capacity, d.capacity)
                except cap.CapacityError:
                    ok = None
            if not ok:
                why = cap.why_not(a.aggregated.get(key), rd.capacity, d.capacity, a.f.fractional_capacity_range)
                if why is None:
                    return "capacity", "capacity does not fit"
                if why[0] in ("capacity-missing", "capacity-error"):
                    return "capacity", why[1]
                return "capacity", f"capacity {why[1]}"
        elif rd.capacity:
            return "capacity", "capacity requests need DRAConsumableCapacity"
        if d.consumes_counters:
            if not a.f.partitionable_devices:
                return "counters", "consume counters, but DRAPartitionableDevices is off"
            if not (multi and (key in a.aggregated)):
                r2 = self._counter_shortage(cand)
                if r2:
                    return "counters", r2
        if a.f.device_taints and taint_prevents(cand.taints, rd.tolerations):
            bad = untolerated(cand.taints, rd.tolerations)
            return "taint", "taint " + ", ".join(str(t) for t in bad) + " not tolerated"
        return "usable", "usable"

    def _selectors(self, selectors: Sequence[str], cand: Candidate, label: str) -> tuple[str, str] | None:
        plan = self._plans.get((id(selectors), label))
        if plan is None or plan[0] is not selectors:
            plan = self._plan(selectors, label)
        cache = self.a.selectors
        device = cand.device
        did = id(device)
        for i, expr, results, texts in plan[1]:
            ok = results.get(did)  # what the search found, else evaluated (once) now
            if ok is None:
                ok = cache.result(expr, cand.key[0], device)
            if ok is True:
                continue
            if isinstance(ok, SelectorFailure):
                return "cel-error", f"hit a CEL {ok.kind} error in {label} #{i} ({expr}): {ok.message}"
            why = cache.explain(expr, cand.key[0], device)
            text = texts.get(why)
            if text is None:
                head = f"fail {label} #{i} ({expr})"
                text = texts[why] = f"{head}: {why}" if why else head
                self.parts[text] = (head, why or "")
            return "selector", text
        return None

    def _plan(self, selectors: Sequence[str], label: str) -> tuple[Sequence[str], list[tuple[int, str, Any, Any]]]:
        """Per selector: its index, expression, the cache's results for it and its failure texts by reason."""
        cache = self.a.selectors
        plan: tuple[Sequence[str], list[tuple[int, str, Any, Any]]] = (
            selectors, [(i, expr, cache.results(expr), {}) for i, expr in enumerate(selectors)])
        self._plans[(id(selectors), label)] = plan
        return plan

    def _counter_shortage(self, cand: Candidate) -> str | None:
        # The allocator's available counters (exact ints or Fractions), cached per pool ID like upstream's.
        avail = self.a.counters_available(cand.pool)
        for cc in cand.device.consumes_counters:
            have = avail.get(cc.counter_set, {})
            for name, v in counter_numbers(cc.counters):
                left = have.get(name, 0)
                if left < v:
                    return (f"counter set {cc.counter_set}: {name} {_q(max(Fraction(left), Fraction(0)))} left, "
                            f"needs {cc.counters[name]}")
        # another counter of the pool may already be overdrawn by allocated devices
        for set_name, counters in avail.items():
            for name, left in counters.items():
                if left < 0:
                    return f"counter set {set_name}: {name} is overcommitted by allocated devices"
        return None


def _hints_for_selector(expr: str, cands: Sequence[Candidate], cache: SelectorCache) -> list[str]:
    """The nearest fix: the largest capacity on offer, the attribute that exists elsewhere.

    What the selector reads comes from its checked AST (CompiledSelector.references).
    """
    sel = cache.compiled(expr)
    if isinstance(sel, SelectorFailure):
        return []
    refs = sorted(sel.references())
    notes: list[str] = []
    for dom, name in ((d, n) for section, d, n in refs if section == "capacity"):
        best: Quantity | None = None
        seen: set[tuple[str, int]] = set()
        for c in cands:
            # identical devices share one capacity mapping (the parser's): a mapping seen before has nothing larger
            seen_key = (c.key[0], id(c.device.capacity))
            if seen_key in seen:
                continue
            seen.add(seen_key)
            for k, v in c.device.capacity.items():
                kd, sep, kn = k.partition("/")
                if not sep:
                    kd, kn = c.key[0], k
                if kd == dom and kn == name and (best is None or v.value.value > best.value):
                    best = v.value
        if best is not None:
            notes.append(f"the largest {name} on offer is {best}")
    for dom, name in ((d, n) for section, d, n in refs if section == "attributes"):
        notes.extend(_attribute_hints(dom, name, cands))
    return notes


def _attribute_hints(dom: str, name: str, cands: Sequence[Candidate]) -> list[str]:
    h = attribute_hint(dom, name, published_names((c.key[0], c.device.attributes) for c in cands))
    if h.published:
        return []
    notes = []
    if h.elsewhere:
        other = h.elsewhere[0].rpartition("/")[0]
        notes.append(
            f"no device publishes {h.full}, but {', '.join(h.elsewhere)} exists"
            f" (use device.attributes['{other}'].{name})"
        )
    if h.close:
        notes.append(f"no device publishes {h.full}; did you mean {' or '.join(h.close)}?")
    elif not h.elsewhere and h.known:
        notes.append(f"no device publishes {h.full}; {dom} attributes are: {', '.join(h.known)}")
    return notes


def _add(
    groups: dict[tuple[str, str], ReasonGroup],
    kind: str,
    reason: str,
    cand: Candidate,
    full_id: bool,
    parts: tuple[str, str] | None = None,
) -> None:
    """Count ``cand`` in its group.

    Its name (the device's, or ``driver/pool/device`` with ``full_id``) is an example while the group has
    fewer than MAX_EXAMPLES.
    """
    g = groups.get((kind, reason))
    if g is None:
        g = groups[(kind, reason)] = ReasonGroup(kind, reason)
        if parts is not None:
            g.head, g.detail = parts
        if kind == "in-use":
            n = reason.count(", ") + 1
            g.summary = f"already allocated to {n} claim{'s' if n != 1 else ''}"
    g.count += 1
    if len(g.examples) < MAX_EXAMPLES:
        g.examples.append(cand.id if full_id else cand.key[2])


def _merge_selector_groups(groups: list[ReasonGroup]) -> list[ReasonGroup]:
    """Fold "fail selector #i (...): a" and ": b" into one group listing the values."""
    out: list[ReasonGroup] = []
    by_head: dict[str, list[ReasonGroup]] = {}
    for g in groups:
        if g.kind in ("selector", "class-selector") and g.head and g.detail:
            by_head.setdefault(g.head, []).append(g)
        else:
            out.append(g)
    for head, gs in by_head.items():
        if len(gs) == 1:
            out.append(gs[0])
            continue
        total = sum(g.count for g in gs)
        details = "; ".join(f"{g.detail} ({g.count})" for g in sorted(gs, key=lambda g: -g.count))
        merged = ReasonGroup(
            gs[0].kind, f"{head}: {details}", total, [e for g in gs for e in g.examples][:MAX_EXAMPLES], head=head
        )
        out.append(merged)
    out.sort(key=lambda g: -g.count)
    return out


def _merge_in_use_groups(groups: list[ReasonGroup]) -> list[ReasonGroup]:
    """Devices held by several different claims: one group ("already allocated to 10 claims")."""
    in_use = [g for g in groups if g.kind == "in-use"]
    if len(in_use) <= 1:
        return groups
    holders = sorted({h for g in in_use for h in g.reason.removeprefix("already allocated to ").split(", ")})
    merged = ReasonGroup(
        "in-use",
        f"already allocated to {len(holders)} claims ({', '.join(holders[:MAX_EXAMPLES])}"
        + (", ..." if len(holders) > MAX_EXAMPLES else "") + ")",
        sum(g.count for g in in_use),
        [e for g in in_use for e in g.examples][:MAX_EXAMPLES],
        summary=f"already allocated to {len(holders)} claims",
    )
    out = [g for g in groups if g.kind != "in-use"] + [merged]
    out.sort(key=lambda g: -g.count)
    return out


def _fill_selectors(cl: _Classifier, rd: ReqData) -> None:
    """Evaluate ``rd``'s class and request selectors for the node's devices in one call each.

    Only where classify will ask (each selector on the devices every earlier one accepted), so that it finds
    each answer kept; the answers are the same (SelectorCache).
    """
    a = cl.a
    cache = a.selectors
    todo = [(c.key[0], c.device) for c in cl.view.devices]
    if not a.f.binding_conditions:
        todo = [t for t in todo if not t[1].binding_conditions]
    for expr in (*(rd.class_.selectors if rd.class_ is not None else ()), *rd.selectors):
        if not todo:
            return
        results = cache.fill(expr, todo)
        todo = [t for t in todo if results.get(id(t[1])) is True]


def explain_request(
    cl: _Classifier, claim: ResourceClaim, rd: ReqData, multi_claims: bool
) -> RequestExplanation:
    """Explain one request on one node: the devices of its class grouped by why they cannot be used."""
    a = cl.a
    needed = rd.count if rd.mode == "ExactCount" else None
    rx = RequestExplanation(kobj(claim), rd.request_name, rd.class_name, needed)
    if not rd.class_name:
        rx.problem = "no device class name"
        return rx
    rd.class_ = a.classes.get(rd.class_name)
    if rd.class_ is None:
        rx.problem = f"device class {rd.class_name} not found"
        rx.notes.extend(_class_hints(a, rd.class_name))
        return rx
    if needed is not None and needed > ALLOCATION_RESULTS_MAX_SIZE:
        rx.notes.append(f"asks for {needed} devices; a claim can get at most {ALLOCATION_RESULTS_MAX_SIZE}")
    bad: dict[tuple[str, str], ReasonGroup] = {}
    other: dict[tuple[str, str], ReasonGroup] = {}
    matching: list[Candidate] = []
    selector_failed: set[str] = set()
    unasked: set[str] = set()  # capacities the request overdraws without naming them
    full_id = len(cl.view.pools) > 1
    _fill_selectors(cl, rd)
    classify = cl.classify
    for cand in cl.view.devices:
        kind, reason = classify(rd, cand, claim)
        if kind == "class-selector":
            _add(other, kind, reason, cand, full_id, cl.parts.get(reason))
            continue
        if kind == "cel-error" and reason.startswith("class selector"):
            _add(other, kind, reason, cand, full_id)
            continue
        rx.class_matches += 1
        matching.append(cand)
        if kind == "usable":
            rx.usable += 1
        else:
            g = bad.get((kind, reason))
            if g is not None and len(g.examples) >= MAX_EXAMPLES:
                g.count += 1  # what _add does for a group that has all its examples
            else:
                _add(bad, kind, reason, cand, full_id, cl.parts.get(reason))
            if kind == "capacity":
                unasked.update(cap.unrequested_shortfalls(a.aggregated.get(cand.key), rd.capacity,
                                                          cand.device.capacity, a.f.fractional_capacity_range))
            if kind == "selector" and reason in cl.parts:
                head = cl.parts[reason][0]
                selector_failed.add(head[head.index("(") + 1 : -1])
    rx.groups = _merge_in_use_groups(_merge_selector_groups(list(bad.values())))
    rx.other_class = _merge_selector_groups(list(other.values()))
    if not rx.fits_alone:
        for expr in sorted(selector_failed):
            rx.notes.extend(_hints_for_selector(expr, matching, cl.a.selectors))
        if unasked:
            names = " and ".join(sorted(unasked))
            rx.notes.append(f"ask for {names} in capacity.requests to take less: a request that does not name a "
                            "capacity consumes the device's requestPolicy default of it, or all of it without one")
        if rx.class_matches == 0 and not cl.view.devices:
            pass
        if needed is None and rx.class_matches and rx.usable < rx.class_matches:
            rx.notes.append("allocationMode All needs every matching device to be usable")
    if needed is not None and rx.usable < needed and rx.class_matches >= needed and rx.usable:
        pass
    return rx


def explain_node(
    a: Allocator, view: NodeView, claims: Sequence[ResourceClaim], reason: str
) -> NodeExplanation:
    """Why ``claims`` (one pod's) cannot be allocated on the node of ``view``."""
    nx = NodeExplanation(view.node_name, reason)
    if reason == REASON_NOT_AVAILABLE:
        for c in claims:
            if c.allocation is not None and c.allocation.node_selector is not None:
                if not c.allocation.node_selector.matches(view.node_name, view.labels):
                    nx.notes.append(f"claim {kobj(c)} is already allocated, for other nodes")
    pending = [c for c in claims if c.allocation is None]
    nx.multiple_claims = len(pending) > 1
    # Pools as the node sees them.
    if not view.pools:
        nx.notes.append("no slices (no ResourceSlice publishes devices for this node)")
    for p in view.pools:
        if p.incomplete:
            gen_slices = [s for s in a.all_slices if s.driver == p.driver and s.pool.name == p.name]
            if gen_slices:
                gen = max(s.pool.generation for s in gen_slices)
                have = [s for s in gen_slices if s.pool.generation == gen]
                want = have[0].pool.resource_slice_count
                nx.notes.append(
                    f"pool {p.id} is incomplete ({len(have)} of {want} slices published); its devices are not used"
                )
            else:
                nx.notes.append(f"pool {p.id} is incomplete; its devices are not used")
        elif p.invalid:
            nx.notes.append(f"pool {p.id} is invalid ({p.invalid_reason}); its devices are not used")
    if reason == REASON_INVALID_POOLS and not any(p.invalid for p in view.pools):
        nx.notes.append(REASON_INVALID_POOLS)
    cl = _Classifier(a, view, pending)
    per_request: list[list[RequestExplanation]] = []
    for ci, claim in enumerate(pending):
        for ri, (parent, subs) in enumerate(request_variants(claim)):
            alts = []
            for si, sub in enumerate(subs):
                rd = ReqData(RequestIndices(ci, ri, si), parent, sub)
                rx = explain_request(cl, claim, rd, nx.multiple_claims)
                alts.append(rx)
                nx.requests.append(rx)
            per_request.append(alts)
    if not pending or reason == REASON_NOT_AVAILABLE:
        return nx
    alone = all(any(rx.fits_alone for rx in alts) for alts in per_request)
    if alone:
        nx.notes.extend(_combination_notes(a, cl, pending, per_request))
    return nx


def _combination_notes(
    a: Allocator, cl: _Classifier, claims: Sequence[ResourceClaim], per_request: list[list[RequestExplanation]]
) -> list[str]:
    """Every request can be satisfied alone; say what joins them, and only what is true."""
    notes: list[str] = []
    # Devices every request could use (first fitting alternative), and the demand.
    usable_by: dict[str, set[tuple[str, str, str]]] = {}
    demand = 0
    view = cl.view
    idx = 0
    for ci, claim in enumerate(claims):
        for ri, (parent, subs) in enumerate(request_variants(claim)):
            alts = per_request[idx]
            idx += 1
            for si, sub in enumerate(subs):
                if not alts[si].fits_alone:
                    continue
                rd = ReqData(RequestIndices(ci, ri, si), parent, sub)
                rd.class_ = a.classes.get(rd.class_name)
                keys = {c.key for c in view.devices if cl.classify(rd, c, claim)[0] == "usable"}
                usable_by[f"{kobj(claim)}/{rd.request_name}"] = keys
                demand += rd.count if rd.mode == "ExactCount" else len(keys)
                break
    union: set = set().union(*usable_by.values()) if usable_by else set()
    total = sum(len(claim.spec.requests) for claim in claims)
    exclusive = not any(
        c.device.allow_multiple_allocations and a.f.consumable_capacity for c in view.devices if c.key in union
    )
    if exclusive and demand > len(union) and total > 1:
        notes.append(
            f"each request can be satisfied on its own, but together they need {demand} devices"
            f" and only {len(union)} distinct devices are usable"
        )
    for ci, claim in enumerate(claims):
        for con in claim.spec.constraints:
            note = _constraint_note(a, cl, ci, claim, con)
            if note:
                notes.append(note)
    if not notes:
        notes.append(
            "each request can be satisfied on its own, but no combination satisfies all requests"
            " and constraints together (shared counters, capacity or the 32-device limit)"
        )
    return notes


def _constraint_note(a: Allocator, cl: _Classifier, ci: int, claim: ResourceClaim, con: Any) -> str | None:
    attr = con.match_attribute or con.distinct_attribute
    kind = "matchAttribute" if con.match_attribute else "distinctAttribute"
    names = set(con.requests)
    need = 0
    devices: dict[tuple[str, str, str], Any] = {}
    for ri, (parent, subs) in enumerate(request_variants(claim)):
        for si, sub in enumerate(subs):
            rname = claim.spec.requests[ri].name
            full = f"{parent}/{sub.name}" if parent else rname
            if names and rname not in names and full not in names:
                continue
            rd = ReqData(RequestIndices(ci, ri, si), parent, sub)
            rd.class_ = a.classes.get(rd.class_name)
            if rd.class_ is None:
                continue
            if si == 0:
                need += rd.count if rd.mode == "ExactCount" else 0
            for c in cl.view.devices:
                if cl.classify(rd, c, claim)[0] == "usable":
                    devices[c.key] = c
    if need < 2 and kind == "matchAttribute":
        return None
    values: dict[str, int] = {}
    lacking = 0
    for key, c in devices.items():
        v = lookup_attribute(c.device, key[0], attr)
        if v is None:
            lacking += 1
        else:
            values[str(v)] = values.get(str(v), 0) + 1
    lack = f"; {lacking} lack the attribute" if lacking else ""
    shown = ", ".join(f"{v} on {n}" for v, n in sorted(values.items(), key=lambda x: -x[1])[:4])
    if kind == "matchAttribute":
        best = max(values.values(), default=0)
        if best < need:
            return (f"constraint matchAttribute {attr}: no {need} devices share a value (values: "
                    f"{shown or 'none'}{lack})")
    else:
        if len(values) < need:
            return (f"constraint distinctAttribute {attr}: only {len(values)} distinct values among usable devices, "
                    f"needs {need}{lack}")
    return None


def explained(a: Allocator, node: Node | str, claims: Sequence[ResourceClaim]) -> Outcome:
    """:meth:`Allocator.allocate`, and when the claims do not fit (or fail), why: ``outcome.explanation``.

    Where the explanation alone proves that the search must fail (:func:`_counted`), the search is not run:
    the outcome is the one it would give.
    """
    nx: NodeExplanation | None = None
    if a.explain_first:
        counted = _counted(a, node, claims)
        if isinstance(counted, Outcome):
            return counted
        nx = counted
    out = a.allocate(node, claims)
    a.explain_first = out.allocations is None
    if out.error is not None:
        out.explanation = explain_error(a, a.node_view(node), claims, out.error)
    elif out.allocations is None:
        reason = out.reason or ""
        if nx is None or nx.reason != reason:
            nx = explain_node(a, a.node_view(node), claims, reason)
        out.explanation = Explanation(nodes=[nx])
    return out


def _counted(a: Allocator, node: Node | str, claims: Sequence[ResourceClaim]) -> Outcome | NodeExplanation | None:
    """The search's outcome on ``node`` where counting decides it; else the explanation made to find out, if any.

    One pending claim with one request for ExactCount devices, no constraints, no adminAccess, no capacity
    requests, on a node whose pools are all complete and valid: a device the search can take is one the
    explanation calls usable. Each reason in ``_COUNTED`` rules a device out for the search too (in use, a
    false selector, counters short even for it alone, an untolerated taint, per-device node selection,
    binding conditions while they are off). With fewer usable devices than asked for, and no device out for
    another reason (a CEL error, capacity: there the search may stop with an error), the search ends in
    "cannot allocate all claims".
    """
    if len(claims) != 1 or claims[0].allocation is not None:
        return None
    claim = claims[0]
    spec = claim.spec
    if len(spec.requests) != 1 or spec.constraints:
        return None
    sub = spec.requests[0].exactly
    if (sub is None or sub.allocation_mode != "ExactCount" or not 1 <= sub.count <= ALLOCATION_RESULTS_MAX_SIZE
            or sub.admin_access or sub.capacity_requests or not all(sub.selectors)):
        return None
    try:
        view = a.node_view(node)
    except Exception:  # noqa: BLE001 - the search says what is wrong
        return None
    if any(p.incomplete or p.invalid for p in view.pools):
        return None
    nx = explain_node(a, view, claims, REASON_CANNOT_ALLOCATE)
    rx = nx.requests[0]
    if (rx.problem or rx.usable >= sub.count or any(g.kind not in _COUNTED for g in rx.groups)
            or any(g.kind != "class-selector" for g in rx.other_class)):
        return nx
    return Outcome(None, view.node_name, reason=REASON_CANNOT_ALLOCATE, explanation=Explanation(nodes=[nx]))


#: the reasons a device is not usable under which the search cannot take it either, nor stops with an error
_COUNTED = frozenset({"in-use", "selector", "counters", "taint", "node-selection", "binding-conditions"})


def explain_error(a: Allocator, view: NodeView | None, claims: Sequence[ResourceClaim], error: str) -> Explanation:
    """An error aborts allocation; add the nearest fix where one is clear."""
    ex = Explanation(error=error)
    m = re.search(r"no such key: (\w+)", error)
    if m and view is not None:
        ex.notes.extend(_attribute_hints_from_error(error, m.group(1), view))
    m = _CLASS_NOT_FOUND_RE.search(error)
    if m:
        ex.notes.extend(_class_hints(a, m.group(1)))
    if "exceeds the claim limit" in error:
        ex.notes.append(f"a claim can get at most {ALLOCATION_RESULTS_MAX_SIZE} devices; split the request over "
                        "several claims")
    return ex


# core._Attempt._validate's text for a request whose DeviceClass does not exist.
_CLASS_NOT_FOUND_RE = re.compile(r'could not retrieve device class \S+: deviceclass\.resource\.k8s\.io "([^"]+)" not '
                                 r'found')


def _class_hints(a: Allocator, name: str) -> list[str]:
    """The hint for an unknown class name: the closest existing class, if one is close."""
    close = closest(name, a.classes, cutoff=0.6)
    return [f"did you mean {close[0]}?"] if close else []


def _attribute_hints_from_error(error: str, name: str, view: NodeView) -> list[str]:
    doms = {c.key[0] for c in view.devices}
    out: list[str] = []
    for dom in sorted(doms):
        out.extend(_attribute_hints(dom, name, view.devices))
    return out
