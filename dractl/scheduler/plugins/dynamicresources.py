"""DynamicResources' Filter, wrapping dractl's structured allocator.

Upstream: pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go.

The control plane resolves the pod's claims (and waits when one is missing) before the framework runs, and
writes them into the cycle state as :class:`DRAState`; this plugin's Filter allocates them on each node:
``cannot allocate all claims`` (UnschedulableAndUnresolvable, as upstream's statusUnschedulable),
``resourceclaim not available on the node`` for a claim allocated elsewhere, or an error that aborts the
attempt. Allocations found are kept per node in the state, for the node the scheduler picks.

Speed: within one scheduling pass nothing is released, so a node on which claims of one shape (the specs of
the claims still to allocate) did not fit will not fit them later in the pass either. The plugin remembers
those nodes per shape (:attr:`DynamicResources.failed`) and tells the framework so through
:meth:`known_failures`, which lets it skip them while it looks for the first node that fits.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from dractl.allocator.core import REASON_CANNOT_ALLOCATE, REASON_NOT_AVAILABLE
from dractl.allocator.explain import Explanation, explained
from dractl.scheduler.framework import (
    SKIP,
    Code,
    CycleState,
    NodeInfo,
    Plugin,
    PodInfo,
    Snapshot,
    Status,
)
from dractl.scheduler.plugins.helper import MAX_NODE_SCORE, default_normalize_score

if TYPE_CHECKING:
    from dractl.allocator.core import Allocator
    from dractl.model.objects import AllocationResult, ResourceClaim

NAME = "DynamicResources"


@dataclass
class DRAState:
    """One pod's claims for this attempt, and what the Filter found per node."""

    claims: Sequence[ResourceClaim]
    #: the nodes known not to fit claims of this shape in this pass (None: do not remember)
    memo: dict[str, str] | None = None
    explain: bool = False
    explanation: Explanation | None = None
    allocations: dict[str, list[AllocationResult]] = field(default_factory=dict)
    #: the claims to allocate on one node when they depend on the node (a pod's DRA extended resources add
    #: the special claim, whose requests depend on the node's allocatable: dractl.scheduler.extended), or
    #: DynamicResources' status for a node that cannot run the pod
    node_claims: Callable[[str], Sequence[ResourceClaim] | Status] | None = None
    #: per node that fits: the claims its allocations are for, in order
    claims_on: dict[str, list[ResourceClaim]] = field(default_factory=dict)
    error: str | None = None
    error_node: str | None = None
    error_explanation: Explanation | None = None
    #: the nodes known to fit claims of this shape: node -> (NodeInfo.version, allocations, claims); only
    #: where a node's devices change only with the node's pods (every slice local to one node)
    fits_memo: dict[str, tuple[int, list[AllocationResult]]] | None = None

    def clone(self) -> DRAState:
        """A copy for a what-if cycle: the allocations found so far, without the memos or the explanation."""
        return DRAState(self.claims, None, self.explain, None, dict(self.allocations), node_claims=self.node_claims,
                        claims_on=dict(self.claims_on))


class DynamicResources(Plugin):
    """The DynamicResources plugin: allocates the pod's claims on each node with dractl's allocator."""
    name = NAME
    needs_node = False  # a node known only from ResourceSlices can still be checked

    def __init__(self, allocator: Allocator) -> None:
        self.allocator = allocator
        #: per claim shape, node -> the reason claims of that shape did not fit (one scheduling pass)
        self.failed: dict[tuple[int, ...], dict[str, str]] = {}
        #: per claim shape, the nodes they fit (DRAState.fits_memo)
        self.fitted: dict[tuple[Any, ...], dict[str, tuple[int, list[AllocationResult]]]] = {}
        self.node_local = all(s.node_name and not s.per_device_node_selection for s in allocator.cluster.slices)

    def state_for(
        self,
        claims: Sequence[ResourceClaim],
        *,
        explain: bool = False,
        remember: bool = True,
        node_claims: Callable[[str], Sequence[ResourceClaim] | Status] | None = None,
        shape_extra: tuple[Any, ...] = (),
    ) -> DRAState:
        """The state for one pod's claims.

        ``shape_extra`` adds to the claims' shape what else decides the allocation (the pod's extended
        resources).
        """
        shape: tuple[Any, ...] = (*(id(c.spec) for c in claims if c.allocation is None), *shape_extra)
        memo = self.failed.setdefault(shape, {}) if shape and remember else None
        fits_memo = None
        if memo is not None and self.node_local and node_claims is None and all(c.allocation is None for c in claims):
            fits_memo = self.fitted.setdefault(shape, {})
        return DRAState(list(claims), memo, explain, Explanation() if explain else None, node_claims=node_claims,
                        fits_memo=fits_memo)

    def pre_filter(self, state: CycleState, pod: PodInfo, snapshot: Snapshot) -> Status | None:
        """Skip the plugin for a pod that uses no claim."""
        s = state.data.get(NAME)
        if not isinstance(s, DRAState) or (not s.claims and s.node_claims is None):
            return SKIP  # the pod uses no claim
        return None

    def known_failures(self, state: CycleState, pod: PodInfo) -> Container[str] | None:
        """The nodes claims of this shape are known not to fit in this pass (unless explaining)."""
        s = state.data.get(NAME)
        if isinstance(s, DRAState) and not s.explain and s.memo:
            return s.memo
        return None

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        """Whether the pod's claims can be allocated on ``node``; the allocations are kept in the state."""
        s = state.data.get(NAME)
        if not isinstance(s, DRAState) or (not s.claims and s.node_claims is None):
            return None
        if not s.explain and s.memo is not None and node.name in s.memo:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (s.memo[node.name],))
        if s.fits_memo is not None:
            known = s.fits_memo.get(node.name)
            if known is not None and known[0] == node.version:
                s.allocations[node.name], s.claims_on[node.name] = known[1], list(s.claims)
                return None
        claims: Sequence[ResourceClaim] = s.claims
        if s.node_claims is not None:
            got = s.node_claims(node.name)
            if isinstance(got, Status):
                return got
            claims = got
            if not claims:
                s.allocations[node.name], s.claims_on[node.name] = [], []
                return None
        out = explained(self.allocator, node.name, claims) if s.explain else \
            self.allocator.allocate(node.name, claims)
        if out.error is not None:
            s.error, s.error_node = out.error, node.name
            s.error_explanation = out.explanation or (Explanation(error=out.error) if s.explain else None)
            return Status(Code.ERROR, (out.error,))
        if out.allocations is not None:
            s.allocations[node.name] = out.allocations
            s.claims_on[node.name] = list(claims)
            if s.fits_memo is not None:
                s.fits_memo[node.name] = (node.version, out.allocations)
            return None
        r = out.reason or REASON_CANNOT_ALLOCATE
        if s.memo is not None and r != REASON_NOT_AVAILABLE:
            s.memo[node.name] = r
        if s.explanation is not None and out.explanation is not None:
            s.explanation.merge(out.explanation)
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (r,))

    # What Filter records: for a node that fails, the reason in the pass's memo and the node's explanation; for
    # a node that fits, its allocations and the claims they are for (and the pass's memo of nodes that fit).
    # An error is filtered again in the parent.
    def filter_mark(self, state: CycleState) -> Any:
        """How many explanation nodes and notes, and which memo entries, the state has now."""
        s = state.data.get(NAME)
        if not isinstance(s, DRAState):
            return None
        ex = s.explanation
        return (len(ex.nodes) if ex else 0, len(ex.notes) if ex else 0,
                None if s.memo is None else frozenset(s.memo), len(s.allocations),
                None if s.fits_memo is None else dict(s.fits_memo))

    def filter_delta(self, state: CycleState, mark: Any) -> Any:
        """The explanation nodes, notes and memo entries added since ``mark``."""
        s = state.data.get(NAME)
        if not isinstance(s, DRAState) or mark is None:
            return None
        nodes, notes, memo, allocated, fits = mark
        ex = s.explanation
        claims = list(s.claims)
        fitted = []
        for name in list(s.allocations)[allocated:]:  # the nodes that fit, in the order they were filtered
            on = s.claims_on.get(name)
            # the pod's own claims by position (the same objects here), the claims of one node (its DRA
            # extended resources' special claim) as they are
            fitted.append((name, s.allocations[name], None if on == claims and all(
                a is b for a, b in zip(on, claims, strict=True)) else on))
        return (ex.nodes[nodes:] if ex else [], ex.notes[notes:] if ex else [],
                {} if s.memo is None or memo is None else {k: v for k, v in s.memo.items() if k not in memo},
                fitted,
                {} if s.fits_memo is None or fits is None else
                {k: v for k, v in s.fits_memo.items() if fits.get(k) is not v})

    def merge_filter_delta(self, state: CycleState, delta: Any) -> None:
        """Add them as Filter would have, node after node."""
        s = state.data.get(NAME)
        if not isinstance(s, DRAState) or delta is None:
            return
        nodes, notes, memo, fitted, fits = delta
        if s.explanation is not None:
            s.explanation.merge(Explanation(nodes=nodes, notes=notes))
        if s.memo is not None:
            s.memo.update(memo)
        for name, allocations, on in fitted:
            s.allocations[name] = allocations
            s.claims_on[name] = list(s.claims) if on is None else on
        if s.fits_memo is not None:
            s.fits_memo.update(fits)

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int:
        """Score a node by the firstAvailable subrequests its allocation uses (dynamicresources.go Score).

        dynamicresources.go Score (DRAPrioritizedList, GA): per claim, each allocated subrequest of a
        firstAvailable request scores FirstAvailableDeviceRequestMaxSize minus its index.
        """
        s = state.data.get(NAME)
        if not isinstance(s, DRAState):
            return 0
        allocations = s.allocations.get(node.name)
        if allocations is None:
            return 0
        return compute_score(s.claims_on.get(node.name, s.claims), allocations)

    def normalize_score(self, state: CycleState, pod: PodInfo, scores: dict[str, int]) -> None:
        """Scale the scores to 0..100 by the highest."""
        default_normalize_score(MAX_NODE_SCORE, False, scores)


FIRST_AVAILABLE_DEVICE_REQUEST_MAX_SIZE = 8  # k8s.io/api resource/v1 FirstAvailableDeviceRequestMaxSize


def has_prioritized_list(claims: Sequence[ResourceClaim]) -> bool:
    """Whether any claim has a firstAvailable request (the only thing DynamicResources scores)."""
    return any(r.first_available for c in claims for r in c.spec.requests)


def compute_score(claims: Sequence[ResourceClaim], allocations: Sequence[AllocationResult]) -> int:
    """dynamicresources.go computeScore; ``allocations`` has one entry per claim (an allocated claim's own)."""
    score = 0
    for claim, alloc in zip(claims, allocations, strict=False):
        sub = {r.request for r in alloc.results if "/" in r.request}
        for req in claim.spec.requests:
            if req.exactly is not None:
                continue
            for i, s in enumerate(req.first_available):
                if f"{req.name}/{s.name}" in sub:
                    score += FIRST_AVAILABLE_DEVICE_REQUEST_MAX_SIZE - i
    return score
