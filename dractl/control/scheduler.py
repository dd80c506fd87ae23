"""kube-scheduler's node loop for one pod's claims: try every node, count the reasons.

The one place that turns per-node allocator outcomes into the scheduler's answer: the
node chosen, or ``0/N nodes are available: ...`` (pkg/scheduler/framework/types.go
``FitError.Error``), or upstream's ``no nodes available to schedule pods``
(pkg/scheduler/schedule_one.go ``ErrNoNodesAvailable``). The fake control plane,
``dractl check`` and the explanations' summary line all use it. Pure: takes an
:class:`~dractl.allocator.core.Allocator` (built from any Cluster, fake or live).

Nodes are tried in the order given (callers pass name order); the first that fits
wins. Upstream scores the feasible nodes instead; dractl's contract is the first.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field

from dractl.allocator.core import REASON_CANNOT_ALLOCATE, REASON_NOT_AVAILABLE, Allocator
from dractl.allocator.explain import Explanation, explained
from dractl.model.objects import AllocationResult, ResourceClaim

# pkg/scheduler/schedule_one.go: what the scheduler says when the cluster has no node.
NO_NODES = "no nodes available to schedule pods"


def fit_error(nodes: int, reasons: MutableMapping[str, int]) -> str:
    """``FitError.Error()``: ``0/N nodes are available: <count reason>, ....``

    The histogram entries are ``"<count> <reason>"`` sorted as strings, as upstream.
    """
    parts = sorted(f"{n} {r}" for r, n in reasons.items())
    return f"0/{nodes} nodes are available: {', '.join(parts)}."


@dataclass
class Placement:
    """Where one pod's claims fit, or why they fit nowhere.

    ``allocations`` has one entry per claim given (an allocated claim keeps its own).
    ``message`` is the scheduler's unschedulable message; ``error`` an allocation error
    (upstream aborts scheduling: reason SchedulerError). ``reasons`` maps each node that
    was tried and failed to its reason; ``fits`` lists every node that fits when all
    nodes were tried (``first_fit=False``).
    """

    node: str | None = None
    allocations: list[AllocationResult] | None = None
    message: str | None = None
    error: str | None = None
    nodes: int = 0
    reasons: dict[str, str] = field(default_factory=dict)
    fits: list[str] = field(default_factory=list)
    explanation: Explanation | None = None

    @property
    def outcome(self) -> str:
        """scheduled, unschedulable or error."""
        if self.error is not None:
            return "error"
        return "scheduled" if self.allocations is not None else "unschedulable"


def place(
    allocator: Allocator,
    nodes: Sequence[str],
    claims: Sequence[ResourceClaim],
    *,
    explain: bool = False,
    first_fit: bool = True,
    known: MutableMapping[str, str] | None = None,
    rejected: Mapping[str, str] | None = None,
) -> Placement:
    """Try ``claims`` (one pod's, together) on ``nodes`` in order.

    ``known`` remembers, per node, why claims of this same shape did not fit: a node
    that failed stays failed while nothing is released (one scheduling pass). Nodes in
    it are not tried again unless ``explain`` asks for their story. "resourceclaim not
    available on the node" comes from a claim allocated elsewhere, not from the shape,
    and is never remembered. ``rejected`` gives the nodes that the scheduler's filters before
    DynamicResources turn away for this pod (:mod:`dractl.allocator.nodefilter`): they are not
    tried and count under their own reason, as upstream stops at a node's first failing filter.
    """
    p = Placement(nodes=len(nodes))
    if not nodes:
        p.message = NO_NODES
        return p
    explanation = Explanation() if explain else None
    tried: dict[str, str] = {}
    skip = known if known is not None and not explain else None
    for node in nodes:
        if rejected and node in rejected:
            tried[node] = rejected[node]
            continue
        if skip is not None and node in skip:
            continue  # its reason is counted below, only if no node fits
        out = explained(allocator, node, claims) if explain else allocator.allocate(node, claims)
        if out.error is not None:
            p.error = out.error
            p.node = node
            p.explanation = out.explanation or (Explanation(error=out.error) if explain else None)
            return p
        if out.allocations is not None:
            if p.allocations is None:
                p.node, p.allocations = node, out.allocations
            p.fits.append(node)
            if first_fit:
                return p
            continue
        r = tried[node] = out.reason or REASON_CANNOT_ALLOCATE
        if known is not None and r != REASON_NOT_AVAILABLE:
            known[node] = r
        if explanation is not None and out.explanation is not None:
            explanation.merge(out.explanation)
    if p.allocations is not None:
        return p
    counts: dict[str, int] = {}
    for node in nodes:
        r = tried.get(node) or (skip or {})[node]
        p.reasons[node] = r
        counts[r] = counts.get(r, 0) + 1
    p.message = fit_error(len(nodes), counts)
    p.explanation = explanation
    return p
