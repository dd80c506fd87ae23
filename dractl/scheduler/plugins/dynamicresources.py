"""DynamicResources' Filter (pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go), wrapping
dractl's structured allocator.

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

    def clone(self) -> DRAState:
        return DRAState(self.claims, None, self.explain, None, dict(self.allocations), node_claims=self.node_claims,
                        claims_on=dict(self.claims_on))


class DynamicResources(Plugin):
    name = NAME
    needs_node = False  # a node known only from ResourceSlices can still be checked

    def __init__(self, allocator: Allocator) -> None:
        self.allocator = allocator
        #: per claim shape, node -> the reason claims of that shape did not fit (one scheduling pass)
        self.failed: dict[tuple[int, ...], dict[str, str]] = {}

    def state_for(
        self,
        claims: Sequence[ResourceClaim],
        *,
        explain: bool = False,
        remember: bool = True,
        node_claims: Callable[[str], Sequence[ResourceClaim] | Status] | None = None,
        shape_extra: tuple[Any, ...] = (),
    ) -> DRAState:
        """The state for one pod's claims; ``shape_extra`` adds to the claims' shape what else decides the
        allocation (the pod's extended resources)."""
        shape: tuple[Any, ...] = (*(id(c.spec) for c in claims if c.allocation is None), *shape_extra)
        memo = self.failed.setdefault(shape, {}) if shape and remember else None
        return DRAState(list(claims), memo, explain, Explanation() if explain else None, node_claims=node_claims)

    def pre_filter(self, state: CycleState, pod: PodInfo, snapshot: Snapshot) -> Status | None:
        s = state.data.get(NAME)
        if not isinstance(s, DRAState) or (not s.claims and s.node_claims is None):
            return SKIP  # the pod uses no claim
        return None

    def known_failures(self, state: CycleState, pod: PodInfo) -> Container[str] | None:
        s = state.data.get(NAME)
        if isinstance(s, DRAState) and not s.explain and s.memo:
            return s.memo
        return None

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        s = state.data.get(NAME)
        if not isinstance(s, DRAState) or (not s.claims and s.node_claims is None):
            return None
        if not s.explain and s.memo is not None and node.name in s.memo:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (s.memo[node.name],))
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
            return None
        r = out.reason or REASON_CANNOT_ALLOCATE
        if s.memo is not None and r != REASON_NOT_AVAILABLE:
            s.memo[node.name] = r
        if s.explanation is not None and out.explanation is not None:
            s.explanation.merge(out.explanation)
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (r,))
