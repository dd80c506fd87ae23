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

from collections.abc import Callable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from dractl.allocator.core import REASON_CANNOT_ALLOCATE, REASON_NOT_AVAILABLE, Allocator
from dractl.allocator.explain import Explanation, explained
from dractl.model.objects import AllocationResult, ResourceClaim
from dractl.scheduler.framework import (
    NO_NODES,
    CycleState,
    Diagnosis,
    Framework,
    PodInfo,
    Snapshot,
    Status,
    unresolvable,
)
from dractl.scheduler.framework import fit_error as _fit_error
from dractl.scheduler.framework import unschedulable as _unschedulable

if TYPE_CHECKING:
    from dractl.model.objects import Pod

__all__ = ["NO_NODES", "Placement", "PodFilters", "fit_error", "place"]


def fit_error(nodes: int, reasons: Mapping[str, int]) -> str:
    """``FitError.Error()``: ``0/N nodes are available: <count reason>, ....``

    The histogram entries are ``"<count> <reason>"`` sorted as strings, as upstream.
    """
    parts = sorted(f"{n} {r}" for r, n in reasons.items())
    return f"0/{nodes} nodes are available: {', '.join(parts)}."


class PodFilters:
    """The scheduler's filters that run before DynamicResources, for one pod on one pass's nodes.

    PreFilter runs once here; :meth:`status` runs the filters on one node, in profile order, and gives the
    first failing status (None when the node passes them all).
    """

    def __init__(self, fw: Framework, snapshot: Snapshot, pod: Pod | None) -> None:
        self.fw = fw
        self.snapshot = snapshot
        self.pod = PodInfo(pod) if pod is not None else None
        self.state = CycleState()
        self.rejected: Status | None = None  # a PreFilter rejected the pod: every node gets this
        self.allowed: frozenset[str] | None = None
        self.absent: Status | None = None
        if self.pod is not None:
            pre, s, with_nodes = fw.run_pre_filter_plugins(self.state, self.pod, snapshot)
            if not s.is_success():
                self.rejected = s
            elif pre is not None and not pre.all_nodes():
                self.allowed = pre.node_names
                self.absent = unresolvable(f"node(s) didn't satisfy plugin(s) [{' '.join(sorted(with_nodes))}]")

    def status(self, node: str) -> Status | None:
        if self.pod is None:
            return None
        if self.rejected is not None:
            return self.rejected
        if self.allowed is not None and node not in self.allowed:
            return self.absent
        ni = self.snapshot.get(node)
        if ni is None:
            return None
        st = self.fw.run_filter_plugins(self.state, self.pod, ni)
        return None if st.is_success() else st

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
    statuses: dict[str, Status] = field(default_factory=dict)
    fits: list[str] = field(default_factory=list)
    explanation: Explanation | None = None
    claims: list[ResourceClaim] = field(default_factory=list)  # what ``allocations`` are for, in order

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
    filters: PodFilters | None = None,
    node_claims: Callable[[str], Sequence[ResourceClaim] | Status] | None = None,
) -> Placement:
    """Try ``claims`` (one pod's, together) on ``nodes`` in order.

    ``known`` remembers, per node, why claims of this same shape did not fit: a node
    that failed stays failed while nothing is released (one scheduling pass). Nodes in
    it are not tried again unless ``explain`` asks for their story. "resourceclaim not
    available on the node" comes from a claim allocated elsewhere, not from the shape,
    and is never remembered. ``filters`` are the scheduler's filters before DynamicResources
    for this pod (:class:`PodFilters`): a node they turn away is not tried and counts under
    their reasons, as upstream stops at a node's first failing filter. ``node_claims`` gives the claims
    to allocate on one node when they depend on the node (a pod's DRA extended resources add a claim whose
    requests depend on the node's allocatable, dractl.scheduler.extended), or DynamicResources' status
    for a node that cannot run the pod; ``Placement.claims`` are then the ones the chosen node allocated.
    """
    p = Placement(nodes=len(nodes))
    if not nodes:
        p.message = NO_NODES
        return p
    if filters is not None and filters.rejected is not None:
        # A PreFilter rejected the pod: no node is tried (schedule_one.go findNodesThatFitPod).
        st = filters.rejected
        p.message = _fit_error(len(nodes), Diagnosis(absent_nodes_status=st, pre_filter_msg=st.message()))
        for node in nodes:
            p.statuses[node] = st
            p.reasons[node] = st.message()
        return p
    explanation = Explanation() if explain else None
    tried: dict[str, Status] = {}
    skipped: list[str] = []
    skip = known if known is not None and not explain else None
    for node in nodes:
        if skip is not None and node in skip:
            skipped.append(node)
            continue  # its status is worked out below, only if no node fits
        fst = filters.status(node) if filters is not None else None
        if fst is not None:
            tried[node] = fst
            continue
        these = claims
        if node_claims is not None:
            got = node_claims(node)
            if isinstance(got, Status):
                tried[node] = got.with_plugin("DynamicResources")
                continue
            these = got
        out = explained(allocator, node, these) if explain else allocator.allocate(node, these)
        if out.error is not None:
            p.error = out.error
            p.node = node
            p.explanation = out.explanation or (Explanation(error=out.error) if explain else None)
            return p
        if out.allocations is not None:
            if p.allocations is None:
                p.node, p.allocations, p.claims = node, out.allocations, list(these)
            p.fits.append(node)
            if first_fit:
                return p
            continue
        r = out.reason or REASON_CANNOT_ALLOCATE
        tried[node] = _unschedulable(r).with_plugin("DynamicResources")
        if known is not None and r != REASON_NOT_AVAILABLE:
            known[node] = r
        if explanation is not None and out.explanation is not None:
            explanation.merge(out.explanation)
    if p.allocations is not None:
        return p
    for node in skipped:
        fst = filters.status(node) if filters is not None else None
        tried[node] = fst if fst is not None else _unschedulable((skip or {})[node]).with_plugin("DynamicResources")
    d = Diagnosis()
    for node in nodes:
        st = tried[node]
        d.node_to_status[node] = st
        p.statuses[node] = st
        p.reasons[node] = st.message()
    p.message = _fit_error(len(nodes), d)
    p.explanation = explanation
    return p
