"""The structured allocator: upstream's "experimental" variant, first solution wins.

Follows k8s.io/dynamic-resource-allocation ``structured/internal/experimental/
allocator_experimental.go`` step by step, including its order of checks, its error
texts and its quirks (they decide which device gets picked). Checked against
k8s.io/dynamic-resource-allocation v0.37.2 (Kubernetes 1.37): upstream's own test
table and ~9,000 random scenarios give the same results (tests/unit/allocator/test_allocator_upstream*.py).
Long-lived inputs live in
:class:`Allocator`; each :meth:`Allocator.allocate` call works in a private
:class:`_Attempt`, like upstream's ``allocator`` struct.
"""

from __future__ import annotations

import uuid
from bisect import bisect_left
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, NamedTuple

from dractl.allocator import capacity as cap
from dractl.allocator.constraints import DistinctAttribute, MatchAttribute
from dractl.allocator.pools import Candidate, NodeView, PoolView, gather_pools
from dractl.cel.match import SelectorCache, SelectorFailure
from dractl.features import DEFAULT_GATES, AllocatorFeatures, FeatureGates
from dractl.model.cluster import Cluster
from dractl.model.objects import (
    AllocationResult,
    DeviceAllocationConfiguration,
    DeviceClass,
    DeviceKey,
    DeviceRequestAllocationResult,
    DeviceSubRequest,
    DeviceTaint,
    Node,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    ResourceClaim,
    ResourceSlice,
    Toleration,
    node_matches,
)

ALLOCATION_RESULTS_MAX_SIZE = 32  # resourceapi.AllocationResultsMaxSize

#: a counter's amount: an int when it is whole (int arithmetic is many times faster than Fraction's)
Number = int | Fraction


def _number(v: Fraction) -> Number:
    return v.numerator if v.denominator == 1 else v


_NUMBERS: dict[int, tuple[Mapping[str, Any], tuple[tuple[str, Number], ...]]] = {}


def counter_numbers(counters: Mapping[str, Any]) -> tuple[tuple[str, Number], ...]:
    """A device's consumption of one counter set as (name, amount) pairs.

    The parser shares one mapping between identical consumptions (a MIG placement on every GPU of every node), so
    they are kept per mapping.
    """
    hit = _NUMBERS.get(id(counters))
    if hit is not None and hit[0] is counters:
        return hit[1]
    out = tuple((n, _number(q.value)) for n, q in counters.items())
    if len(_NUMBERS) >= 65536:
        _NUMBERS.clear()
    _NUMBERS[id(counters)] = (counters, out)
    return out

# The scheduler's words for a node that does not fit (DynamicResources Filter).
REASON_CANNOT_ALLOCATE = "cannot allocate all claims"
REASON_NOT_AVAILABLE = "resourceclaim not available on the node"
REASON_INVALID_POOLS = "invalid resource pools were encountered"


def kobj(claim: ResourceClaim) -> str:
    """klog.KObj: ``namespace/name``, or ``name`` without a namespace."""
    ns, name = claim.meta.namespace, claim.meta.name
    return f"{ns}/{name}" if ns else name


def _uuid4() -> str:
    return str(uuid.uuid4())


@dataclass
class Outcome:
    """What one allocation attempt on one node gave.

    ``allocations`` has one entry per claim passed in (in order; an already allocated
    claim keeps its allocation), or is None when the node does not fit or on error.
    ``reason`` is the scheduler's unschedulable text for the node; ``error`` is
    upstream's error text (CEL errors, bad claims...), which aborts scheduling.
    ``explanation`` is filled in by :func:`dractl.allocator.explain.explained` (an
    ``Explanation``); the search itself never explains.
    """

    allocations: list[AllocationResult] | None
    node: str = ""
    error: str | None = None
    reason: str | None = None
    explanation: Any = None
    steps: int = 0  # allocateOne invocations (upstream's NumAllocateOneInvocations)

    @property
    def status(self) -> str:
        """The outcome in one word: ``allocated``, ``unschedulable`` or ``error``."""
        if self.error is not None:
            return "error"
        return "allocated" if self.allocations is not None else "unschedulable"


class ExplainMemo:
    """What explaining one node leaves for the next, the same for all (allocator/explain.py _Classifier).

    ``plans``: (id(selectors), label) -> per selector its index, expression, the selector cache's results and
    its failure texts by reason; ``parts``: a failed selector's reason text -> (head, detail).
    """

    __slots__ = ("plans", "parts")

    def __init__(self) -> None:
        self.plans: dict[tuple[int, str], tuple[Sequence[str], list[tuple[int, str, Any, Any]]]] = {}
        self.parts: dict[str, tuple[str, str]] = {}


class AllocationError(Exception):
    """An error that aborts Allocate (upstream returns it as ``err``)."""


class _MaxSizeExceeded(Exception):
    """errAllocationResultMaxSizeExceeded: backtrack further, try other subrequests."""


_MAX_SIZE = _MaxSizeExceeded()


# Which upstream implementation this follows (structured/allocator.go, read at
# kubernetes/dynamic-resource-allocation@3d03671 and v0.37.2):
# NewAllocator takes the first of stable, incubating, experimental whose
# SupportedFeatures cover every enabled allocator feature. kube-scheduler derives
# those features from its gates: AdminAccess, PrioritizedList, PartitionableDevices,
# DeviceTaints, DeviceBindingAndStatus (DRADeviceBindingConditions &&
# DRAResourceClaimDeviceStatus), ConsumableCapacity, ListTypeAttributes.
# DRADeviceTaintRules is not an allocator feature: the ResourceSlice tracker adds rule
# taints to the devices before the allocator sees them (see _taints_for).
#   stable:       AdminAccess, PrioritizedList, PartitionableDevices, DeviceTaints
#   incubating:   stable + DeviceBindingAndStatus, ConsumableCapacity
#   experimental: incubating + ListTypeAttributes
# With the v1.37 defaults (ConsumableCapacity and the binding conditions on,
# ListTypeAttributes off) upstream picks *incubating*. Incubating is experimental minus
# the ListTypeAttributes code; experimental keeps the scalar code paths for when that
# feature is off, and this port follows them (constraints.py takes f_list_types). So
# the defaults give the same results. Only DRAListTypeAttributes=true needs experimental.
# With all optional gates off upstream picks *stable*. It finds the same device sets,
# but it (a) returns pools in Go map order (random) instead of sorted by driver/pool,
# and does not sort slices by name. Ours is one of the orders stable can produce.
# (b) It restarts the device scan from the first device for every device of a request,
# where experimental starts after the previous pick. So it tries more permutations:
# more allocateOne calls (upstream's table records 32 against 26 in one case). Whether a
# set of devices fits does not depend on the order they are picked in, so the first
# solution has the same devices, possibly listed in a different order.
# (c) It builds the node selector from the slice's nodeName and ignores bindsToNode
# (that feature is off there anyway). Everything else, including the error texts,
# matches. (v0.37.2 also dropped older counter/constraint rollback quirks; see
# allocate_device.)
class Allocator:
    """Allocates claims on a node from a cluster's slices, classes and allocated devices.

    Reusable across pods: :meth:`commit` and :meth:`release` update the allocated state
    incrementally, and per-node pool views, CEL results and counters are cached.

    Args:
        cluster: slices, classes, nodes, taint rules and the claims already allocated.
        features: feature gates (v1.37 defaults).
        share_id: makes the shareID of a result on a device with allowMultipleAllocations
            (upstream: a random UID).
    """

    def __init__(
        self,
        cluster: Cluster,
        features: FeatureGates = DEFAULT_GATES,
        *,
        share_id: Callable[[], str] = _uuid4,
    ) -> None:
        self.cluster = cluster
        self.features = features
        self.share_id = share_id
        self.f: AllocatorFeatures = features.allocator_features()
        self.selectors = SelectorCache(features)
        self.explain_memo = ExplainMemo()
        self.classes: dict[str, DeviceClass] = {c.name: c for c in cluster.classes}
        self._node_labels: dict[str, Mapping[str, str]] = {n.name: n.labels for n in cluster.nodes}
        self.all_slices: list[ResourceSlice] = list(cluster.slices)
        self._slices_on_node: dict[str, list[ResourceSlice]] = {}
        self._slices_shared: list[ResourceSlice] = []
        for s in self.all_slices:
            if s.node_name:
                self._slices_on_node.setdefault(s.node_name, []).append(s)
            else:
                self._slices_shared.append(s)
        # what the shared slices' node selectors read: label keys, and the node's name (matchFields)
        selectors = [s.node_selector for s in self._slices_shared if s.node_selector is not None]
        self._shared_keys = tuple(sorted({r.key for ns in selectors for t in ns.terms for r in t.match_expressions}))
        self._shared_use_name = any(t.match_fields for ns in selectors for t in ns.terms)
        self._shared_by_sig: dict[tuple[Any, ...], list[ResourceSlice]] = {}  # what those read -> _shared_for
        self._views: dict[tuple[str, tuple[tuple[str, str], ...]], NodeView] = {}
        self._named_views: dict[str, NodeView] = {}  # a node named by a string: its labels are the cluster's
        self._shared_pools: dict[tuple[int, ...], tuple[list[ResourceSlice], PoolView]] = {}
        self._rule_taints: dict[DeviceKey, tuple[DeviceTaint, ...]] | None = None
        if self.f.device_taint_rules and cluster.taint_rules:
            self._rule_taints = {}
        # Allocated state (upstream AllocatedState): exclusive devices, shared devices
        # with their consumed capacity, and per claim what it holds (for release).
        self.allocated: set[DeviceKey] = set()
        self._allocated_count: dict[DeviceKey, int] = {}
        self._shared: dict[DeviceKey, int] = {}
        self.aggregated: dict[DeviceKey, dict[str, Fraction]] = {}
        self._held: dict[str, list[tuple[DeviceKey, bool, dict[str, Fraction] | None]]] = {}
        self.holders: dict[DeviceKey, list[str]] = {}
        # availableCounters: per pool ID (driver, pool), as upstream; never recomputed until the
        # allocated state changes.
        self.available_counters: dict[tuple[str, str], dict[str, dict[str, Number]]] = {}
        # fits_alone's answers: (id(requests), id(capacity)) -> (requests, capacity, answer)
        self._fits: dict[tuple[int, int], tuple[Any, Any, bool | cap.CapacityError]] = {}
        self.num_allocate_one = 0
        # explain.explained: try to decide a node by counting before searching (while searches keep failing)
        self.explain_first = True
        for c in cluster.claims:
            if c.allocation is not None:
                self.commit(c.key, c.allocation)

    # ------------------------------------------------------------ allocated state

    def commit(self, claim_key: str, allocation: AllocationResult) -> None:
        """Record ``allocation`` of claim ``claim_key`` as allocated (idempotent per claim)."""
        if claim_key in self._held:
            self.release(claim_key)
        held: list[tuple[DeviceKey, bool, dict[str, Fraction] | None]] = []
        for r in allocation.results:
            if r.admin_access:
                continue
            key = (r.driver, r.pool, r.device)
            self.holders.setdefault(key, []).append(claim_key)
            if self.f.consumable_capacity and r.share_id:
                consumed = {k: q.value for k, q in r.consumed_capacity.items()} if r.consumed_capacity else None
                self._shared[key] = self._shared.get(key, 0) + 1
                if consumed is not None:
                    agg = self.aggregated.setdefault(key, {})
                    for k, v in consumed.items():
                        agg[k] = agg.get(k, Fraction(0)) + v
                held.append((key, True, consumed))
            else:
                self._allocated_count[key] = self._allocated_count.get(key, 0) + 1
                self.allocated.add(key)
                held.append((key, False, None))
            self.available_counters.pop((r.driver, r.pool), None)
        self._held[claim_key] = held

    def release(self, claim_key: str) -> None:
        """Forget what :meth:`commit` recorded for ``claim_key``."""
        for key, shared, consumed in self._held.pop(claim_key, ()):
            hs = self.holders.get(key)
            if hs and claim_key in hs:
                hs.remove(claim_key)
                if not hs:
                    del self.holders[key]
            if shared:
                n = self._shared[key] - 1
                if n:
                    self._shared[key] = n
                else:
                    del self._shared[key]
                if consumed is not None:
                    agg = self.aggregated.get(key)
                    if agg is not None:
                        for k, v in consumed.items():
                            agg[k] = agg.get(k, Fraction(0)) - v
                        if n == 0:
                            del self.aggregated[key]
            else:
                n = self._allocated_count[key] - 1
                if n:
                    self._allocated_count[key] = n
                else:
                    del self._allocated_count[key]
                    self.allocated.discard(key)
            self.available_counters.pop(key[:2], None)

    def is_device_allocated(self, key: DeviceKey) -> bool:
        """internal.IsDeviceAllocated: exclusive, shared, or with consumed capacity."""
        return key in self.allocated or key in self._shared or key in self.aggregated

    def counters_available(self, pool: PoolView) -> dict[str, dict[str, Number]]:
        """``pool``'s counter sets less what its allocated devices consume: exact ints or Fractions.

        Upstream's availableCounters: cached per pool ID until the allocated state changes. Callers must not
        change it.
        """
        pid = (pool.driver, pool.name)
        avail = self.available_counters.get(pid)
        if avail is not None:
            return avail
        avail = {n: dict(counter_numbers(cs)) for n, cs in pool.counter_sets.items()}
        allocated, shared, aggregated = self.allocated, self._shared, self.aggregated
        for group in (pool.slices, pool.other_slices):
            for s in group:
                driver, pname = s.driver, s.pool.name
                for d in s.devices:
                    if not d.consumes_counters:
                        continue
                    key = (driver, pname, d.name)
                    if not (key in allocated or key in shared or key in aggregated):  # is_device_allocated
                        continue
                    for cc in d.consumes_counters:
                        have = avail.get(cc.counter_set)
                        if have is None:
                            continue
                        for name, v in counter_numbers(cc.counters):
                            if name in have:
                                have[name] -= v
        self.available_counters[pid] = avail
        return avail

    def fits(self, requests: Mapping[str, Any] | None, capacity: Mapping[str, Any], already: Any = None,
             taking: Any = None) -> bool:
        """:func:`capacity.check_fits` (raises CapacityError): ``already`` consumed, ``taking`` being allocated.

        A device nothing is consumed from yet is answered by :meth:`fits_alone`, kept per pair of mappings.
        """
        if already or taking:
            return cap.check_fits(already, requests, capacity, taking, self.f.fractional_capacity_range)
        return self.fits_alone(requests, capacity)

    def fits_alone(self, requests: Mapping[str, Any] | None, capacity: Mapping[str, Any]) -> bool:
        """:func:`capacity.check_fits` of a device nothing is consumed from yet (raises CapacityError).

        The answer depends only on the request's and the device's (immutable) capacity mappings, which the
        parser shares between identical devices, so it is kept per pair of mappings.
        """
        k = (id(requests), id(capacity))
        hit = self._fits.get(k)
        if hit is None or hit[0] is not requests or hit[1] is not capacity:
            answer: bool | cap.CapacityError
            try:
                answer = cap.check_fits(None, requests, capacity, None, self.f.fractional_capacity_range)
            except cap.CapacityError as e:
                answer = e
            if len(self._fits) >= 65536:
                self._fits.clear()
            hit = self._fits[k] = (requests, capacity, answer)
        answer = hit[2]
        if answer is True or answer is False:
            return answer
        raise cap.CapacityError(*answer.args)

    # ------------------------------------------------------------ nodes and pools

    def node_view(self, node: Node | str) -> NodeView:
        """The pools and devices visible from ``node`` (cached)."""
        if isinstance(node, str):
            view = self._named_views.get(node)
            if view is not None:
                return view
            name = node
            labels = self._node_labels.get(name, {})
        else:
            name, labels = node.name, node.labels
        ck = (name, tuple(sorted(labels.items())))
        view = self._views.get(ck)
        if view is None:
            slices = self._slices_on_node.get(name, []) + self._shared_for(name, labels)
            view = gather_pools(
                name,
                labels,
                slices,
                self.all_slices,
                self.f.partitionable_devices,
                self._taints_for if self._rule_taints is not None else None,
                self._shared_pools,
            )
            self._views[ck] = view
        if isinstance(node, str):
            self._named_views[node] = view
        return view

    def _shared_for(self, name: str, labels: Mapping[str, str]) -> list[ResourceSlice]:
        """The slices without a node name that may be visible from the node (gather_pools judges each again).

        All but those whose node selector leaves the node out. A selector's answer depends only on the labels
        it reads (and the node's name, for matchFields), so the answer for all of them is worked out once per
        combination of those values: on a cluster of racks, once per rack rather than once per node.
        """
        shared = self._slices_shared
        if not shared:
            return shared
        sig = (name if self._shared_use_name else None, *[labels.get(k) for k in self._shared_keys])
        got = self._shared_by_sig.get(sig)
        if got is None:
            got = [s for s in shared if s.node_selector is None or s.all_nodes
                   or s.node_selector.matches(name, labels)]
            if len(self._shared_by_sig) >= 4096:
                self._shared_by_sig.clear()
            self._shared_by_sig[sig] = got
        return got

    def _taints_for(self, key: DeviceKey) -> tuple[DeviceTaint, ...]:
        """The taints that DeviceTaintRules add to one device.

        This follows upstream resourceslice/tracker applyPatches. A rule without a
        deviceSelector, or with an empty one, taints every device. Each field that is
        set (driver, pool, device) must match exactly. Rule taints come after the
        device's own taints, in rule order. One difference: upstream compares a field set
        to "" and matches nothing, while the model parses "" as unset (a wildcard).
        Validation rejects "" ("Required value"), so only --no-validate input can tell.
        """
        cache = self._rule_taints
        assert cache is not None
        have = cache.get(key)
        if have is None:
            out = []
            for rule in self.cluster.taint_rules:
                if rule.taint is None:
                    continue
                if rule.driver and rule.driver != key[0]:
                    continue
                if rule.pool and rule.pool != key[1]:
                    continue
                if rule.device and rule.device != key[2]:
                    continue
                out.append(rule.taint)
            have = cache[key] = tuple(out)
        return have

    # ------------------------------------------------------------ allocate

    def allocate(self, node: Node | str, claims: Sequence[ResourceClaim]) -> Outcome:
        """Allocate ``claims`` (one pod's) on ``node``; already allocated claims are only checked.

        Nothing is committed: call :meth:`commit` for each result to keep it.
        """
        node_name = node if isinstance(node, str) else node.name
        labels = self._node_labels.get(node_name, {}) if isinstance(node, str) else node.labels
        unavailable = False
        pending: list[ResourceClaim] = []
        for c in claims:
            if c.allocation is None:
                pending.append(c)
            elif c.allocation.node_selector is not None and not c.allocation.node_selector.matches(
                node_name, labels
            ):
                unavailable = True
        view = self.node_view(node)
        results: list[AllocationResult] | None = []
        steps_before = self.num_allocate_one
        if pending:
            attempt = _Attempt(self, view, pending)
            try:
                results = attempt.run()
            except AllocationError as e:
                return Outcome(None, node_name, error=str(e), steps=self.num_allocate_one - steps_before)
            steps = self.num_allocate_one - steps_before
            if results is None:
                reason = REASON_INVALID_POOLS if attempt.invalid_pools else REASON_CANNOT_ALLOCATE
                return Outcome(None, node_name, reason=reason, steps=steps)
        steps = self.num_allocate_one - steps_before
        if unavailable:
            return Outcome(None, node_name, reason=REASON_NOT_AVAILABLE, steps=steps)
        it = iter(results or [])
        full = [c.allocation if c.allocation is not None else next(it) for c in claims]
        return Outcome(full, node_name, steps=steps)


# ---------------------------------------------------------------- per-call state


class RequestIndices(NamedTuple):
    """Which (sub)request: upstream's requestIndices (structured/internal/experimental/allocator_experimental.go)."""

    claim: int
    request: int
    sub_request: int


class DeviceIndices(NamedTuple):
    """Where the search stands: upstream's deviceIndices (requestIndices plus the device within the request)."""

    claim: int
    request: int
    sub_request: int
    device: int


class ReqData:
    """requestData: one (sub)request to allocate."""

    __slots__ = (
        "idx",
        "name",
        "parent",
        "class_",
        "selectors",
        "mode",
        "count",
        "admin",
        "tolerations",
        "capacity",
        "num_devices",
        "all_devices",
        "selected_sub",
        "class_name",
        "selectable",
        "positions",
    )

    def __init__(self, idx: RequestIndices, parent: str, sub: DeviceSubRequest) -> None:
        self.idx = idx
        self.name = sub.name
        self.parent = parent
        self.class_name = sub.device_class_name
        self.class_: DeviceClass | None = None
        self.selectors = sub.selectors
        self.mode = sub.allocation_mode
        self.count = sub.count
        self.admin = bool(sub.admin_access) and not parent
        self.tolerations: tuple[Toleration, ...] = sub.tolerations
        self.capacity = sub.capacity_requests or None
        self.num_devices = 0
        self.all_devices: list[Candidate] = []
        self.selected_sub = 0
        # Per device position of the node's view: is_selectable's answer, or False for a device the scan of an
        # ExactCount request without adminAccess skips as allocated (it stays so during an Allocate call);
        # None: not asked yet.
        self.selectable: list[bool | None] = []
        self.positions: list[int] | None = None  # once none is None: the positions that are True, in order

    @property
    def request_name(self) -> str:
        """The request's name as upstream reports it: ``request`` or ``request/subrequest``."""
        return f"{self.parent}/{self.name}" if self.parent else self.name

    @property
    def base_name(self) -> str:
        """The name of the claim's top-level request."""
        return self.parent or self.name

    @property
    def sub_name(self) -> str:
        """The subrequest's name, or "" for a top-level request."""
        return self.name if self.parent else ""


class _DevResult:
    __slots__ = ("rd", "cand", "share_id", "consumed", "admin")

    def __init__(self, rd: ReqData, cand: Candidate, share_id: str, consumed: dict | None, admin: bool) -> None:
        self.rd, self.cand, self.share_id, self.consumed, self.admin = rd, cand, share_id, consumed, admin


def request_variants(claim: ResourceClaim) -> list[tuple[str, list[DeviceSubRequest]]]:
    """Per request: (parent name or "", the (sub)requests to try)."""
    out = []
    for req in claim.spec.requests:
        if req.first_available:
            out.append((req.name, list(req.first_available)))
        elif req.exactly is not None:
            out.append(("", [req.exactly]))
        else:
            out.append(("", [DeviceSubRequest(name=req.name, device_class_name="")]))
    return out


class _Attempt:
    """One Allocate call (upstream's private ``allocator``)."""

    def __init__(self, a: Allocator, view: NodeView, claims: Sequence[ResourceClaim]) -> None:
        self.a = a
        self.view = view
        self.node_name = view.node_name
        self.labels = view.labels
        self.claims = list(claims)
        self.reqs: list[list[list[ReqData]]] = []
        self.constraints: list[list] = []
        self.allocating: dict[DeviceKey, set[int]] = {}
        self.allocating_capacity: dict[DeviceKey, dict[str, Fraction]] = {}
        self.consumed_counters: dict[tuple[str, str], dict[str, dict[str, Number]]] = {}
        self.result: list[list[_DevResult]] = [[] for _ in self.claims]
        self.invalid_pools = False

    # ------------------------------------------------------------ setup

    def run(self) -> list[AllocationResult] | None:
        a = self.a
        for ci, claim in enumerate(self.claims):
            min_claim = 0
            per_claim: list[list[ReqData]] = []
            for ri, (parent, subs) in enumerate(request_variants(claim)):
                rname = claim.spec.requests[ri].name
                if not a.f.prioritized_list and parent:
                    raise AllocationError(
                        f"claim {kobj(claim)}, request {rname}: has subrequests, but the DRAPrioritizedList feature "
                        "is disabled"
                    )
                if not a.f.consumable_capacity:
                    for sub in subs:
                        if sub.capacity_requests:
                            if parent:
                                raise AllocationError(
                                    f"claim {kobj(claim)}, subrequest {sub.name}: has capacity requests, but the "
                                    "DRAConsumableCapacity feature is disabled"
                                )
                            raise AllocationError(
                                f"claim {kobj(claim)}, request {rname}: has capacity requests, but the "
                                "DRAConsumableCapacity feature is disabled"
                            )
                datas = []
                for si, sub in enumerate(subs):
                    rd = ReqData(RequestIndices(ci, ri, si), parent, sub)
                    rd.selectable = [None] * len(self.view.devices)
                    self._validate(claim, rd)
                    datas.append(rd)
                per_claim.append(datas)
                min_req = min(rd.num_devices for rd in datas)
                if min_req > ALLOCATION_RESULTS_MAX_SIZE - min_claim:
                    raise AllocationError(
                        f"claim {kobj(claim)}, request {rname}: adding {min_req} devices exceeds the claim limit of "
                        f"{ALLOCATION_RESULTS_MAX_SIZE}, with {min_claim} already accounted for"
                    )
                min_claim += min_req
            self.reqs.append(per_claim)
            cons: list[MatchAttribute | DistinctAttribute] = []
            for i, c in enumerate(claim.spec.constraints):
                if c.match_attribute:
                    cons.append(MatchAttribute(i, c.requests, c.match_attribute, a.f.list_type_attributes))
                elif c.distinct_attribute:
                    cons.append(DistinctAttribute(i, c.requests, c.distinct_attribute, a.f.list_type_attributes))
                else:
                    raise AllocationError(
                        f"claim {kobj(claim)}, constraint #{i}: empty constraint (unsupported constraint type?)"
                    )
            self.constraints.append(cons)

        done = self.allocate_one(DeviceIndices(0, 0, 0, 0), False, 0)
        if not done:
            if any(p.invalid for p in self.view.pools):
                self.invalid_pools = True
            return None
        return [self._build(ci) for ci in range(len(self.claims))]

    def _validate(self, claim: ResourceClaim, rd: ReqData) -> None:
        a = self.a
        for i, sel in enumerate(rd.selectors):
            if not sel:
                raise AllocationError(
                    f"claim {kobj(claim)}, request {rd.name}, selector #{i}: CEL expression empty (unsupported "
                    "selector type?)"
                )
        if not a.f.admin_access and rd.admin:
            raise AllocationError(
                f"claim {kobj(claim)}, request {rd.name}: admin access is requested, but the feature is disabled"
            )
        if not rd.class_name:
            raise AllocationError(
                f"claim {kobj(claim)}, request {rd.name}: missing device class name (unsupported request type?)"
            )
        cls = a.classes.get(rd.class_name)
        if cls is None:
            raise AllocationError(
                f"claim {kobj(claim)}, request {rd.name}: could not retrieve device class {rd.class_name}: "
                f'deviceclass.resource.k8s.io "{rd.class_name}" not found'
            )
        rd.class_ = cls
        if rd.mode == "ExactCount":
            rd.num_devices = rd.count
        elif rd.mode == "All":
            # As upstream: pool by pool, so a selector error on an earlier pool's device
            # comes before the complaint about a later incomplete or invalid pool.
            by_pool: dict[int, list[Candidate]] = {}
            for cand in self.view.devices:
                by_pool.setdefault(id(cand.pool), []).append(cand)
            for pool in self.view.pools:
                if pool.incomplete:
                    raise AllocationError(
                        f"claim {kobj(claim)}, request {rd.name}: asks for all devices, but resource pool {pool.id} "
                        "is currently being updated"
                    )
                if pool.invalid:
                    raise AllocationError(
                        f"claim {kobj(claim)}, request {rd.name}: asks for all devices, but resource pool {pool.id} "
                        "is currently invalid"
                    )
                for cand in by_pool.get(id(pool), ()):
                    if not self.is_selectable(rd, cand):
                        continue
                    # Static capacity only: what is left gets checked in allocate_device,
                    # so a matching device without room stays in the list and All fails.
                    if a.f.consumable_capacity:
                        try:
                            ok = a.fits_alone(rd.capacity, cand.device.capacity)
                        except cap.CapacityError as e:
                            raise AllocationError(
                                f"claim {kobj(claim)}, request {rd.name}: checking capacity for device "
                                f"{cand.device.name}: {e}"
                            ) from None
                        if not ok:
                            continue
                    rd.all_devices.append(cand)
            rd.num_devices = len(rd.all_devices)
        else:
            raise AllocationError(f"claim {kobj(claim)}, request {rd.name}: unsupported count mode {rd.mode}")

    # ------------------------------------------------------------ search

    def allocate_one(self, r: DeviceIndices, alloc_sub: bool, start: int) -> bool:
        """allocateOne: True when everything from ``r`` on got allocated.

        Raises _MaxSizeExceeded (upstream's errAllocationResultMaxSizeExceeded) and
        AllocationError.
        """
        self.a.num_allocate_one += 1
        ci, ri, si, di = r
        if ci >= len(self.claims):
            return True
        reqs = self.reqs[ci]
        if ri >= len(reqs):
            try:
                return self.allocate_one(DeviceIndices(ci + 1, 0, 0, 0), False, 0)
            except _MaxSizeExceeded:
                return False
        variants = reqs[ri]
        rd = variants[si]
        if not alloc_sub and rd.parent:
            all_exceeded = True
            for sub_index in range(len(variants)):
                try:
                    ok = self.allocate_one(DeviceIndices(ci, ri, sub_index, di), True, 0)
                except _MaxSizeExceeded:
                    continue
                all_exceeded = False
                if ok:
                    variants[0].selected_sub = sub_index
                    return True
            if all_exceeded:
                raise _MAX_SIZE
            return False

        do_all = rd.mode == "All"
        if do_all and not rd.all_devices:
            return False
        if di >= rd.num_devices:
            return self.allocate_one(DeviceIndices(ci, ri + 1, 0, 0), False, 0)
        if len(self.result[ci]) + rd.num_devices - di > ALLOCATION_RESULTS_MAX_SIZE:
            raise _MAX_SIZE

        if do_all:
            cand = rd.all_devices[di]
            undo = self.allocate_device(rd, cand, True)
            if undo is None:
                return False
            try:
                done = self.allocate_one(DeviceIndices(ci, ri, si, di + 1), alloc_sub, 0)
            except BaseException:
                undo()
                raise
            if not done:
                undo()
                return False
            return True

        a = self.a
        allocated = a.allocated
        allocating = self.allocating
        admin = rd.admin
        devices = self.view.devices
        selectable = rd.selectable
        scan: Sequence[int]
        positions = rd.positions
        if positions is None and None not in selectable:
            # Every device is known: from now on skip those that are not candidates (same order, same checks).
            positions = rd.positions = [p for p, ok in enumerate(selectable) if ok]
        if positions is None:
            scan = range(start, len(devices))
        else:
            scan = positions[bisect_left(positions, start):]
        for pos in scan:
            cand = devices[pos]
            key = cand.key
            if admin:
                users = allocating.get(key)
                if users and ci in users:
                    continue
            elif key in allocated:
                selectable[pos] = False
                continue
            elif allocating.get(key):
                continue
            known = selectable[pos]
            if not (self.is_selectable(rd, cand) if known is None else known):
                continue
            if a.f.consumable_capacity:
                try:
                    ok = a.fits(rd.capacity, cand.device.capacity, a.aggregated.get(key),
                                self.allocating_capacity.get(key))
                except cap.CapacityError as e:
                    raise AllocationError(
                        f"claim {kobj(self.claims[ci])}, request {rd.name}: checking capacity for device {cand.id}: {e}"
                    ) from None
                if not ok:
                    continue
            undo = self.allocate_device(rd, cand, False)
            if undo is None:
                continue
            try:
                done = self.allocate_one(DeviceIndices(ci, ri, si, di + 1), alloc_sub, pos + 1)
            except BaseException:
                undo()
                raise
            if done:
                return True
            undo()
        return False

    def is_selectable(self, rd: ReqData, cand: Candidate) -> bool:
        """isSelectable: binding conditions, class and request selectors, per-device node selection."""
        hit = rd.selectable[cand.pos]
        if hit is not None:
            return hit
        device = cand.device
        if not self.a.f.binding_conditions and device.binding_conditions:
            rd.selectable[cand.pos] = False
            return False
        ok = self._selectors_match(rd, cand, rd.class_.selectors, True) if rd.class_ is not None else True
        if ok:
            ok = self._selectors_match(rd, cand, rd.selectors, False)
        if ok and cand.per_device_node_selection:
            ok = node_matches(self.node_name, self.labels, device.node_name, device.all_nodes, device.node_selector)
        rd.selectable[cand.pos] = ok
        return ok

    def _selectors_match(self, rd: ReqData, cand: Candidate, selectors: Sequence[str], is_class: bool) -> bool:
        cache = self.a.selectors
        device = cand.device
        for i, expr in enumerate(selectors):
            ok = cache.results(expr).get(id(device))
            if ok is None:
                ok = cache.result(expr, cand.key[0], device)
            if ok is True:
                continue
            if not isinstance(ok, SelectorFailure):
                return False
            who = (f"class {rd.class_.name}" if is_class and rd.class_
                   else f"claim {kobj(self.claims[rd.idx.claim])}")
            if ok.kind == "compile":
                raise AllocationError(f"{who}: selector #{i}: CEL compile error: {ok.message}")
            raise AllocationError(f"{who}: selector #{i} on device {cand.id}: CEL runtime error: {ok.message}")
        return True

    def allocate_device(self, rd: ReqData, cand: Candidate, must: bool) -> Callable[[], None] | None:
        """allocateDevice: returns the rollback function, or None when the device cannot be used.

        As upstream (v0.37 deviceRollbackState/rollbackDevice), every rejection after the
        counters were reserved gives back exactly what this call changed: counters,
        constraints, the in-use mark. The undo of a successful pick does the same and
        also removes its share of the allocating capacity, keeping an (empty) entry when
        an earlier share of the same device created it.
        """
        a = self.a
        ci = rd.idx.claim
        key = cand.key
        device = cand.device
        multi = a.f.consumable_capacity and device.allow_multiple_allocations
        users = self.allocating.get(key)
        if not multi and rd.admin and users and ci in users:
            return None
        if not rd.admin and (key in a.allocated or users):
            return None
        if not a.f.partitionable_devices and device.consumes_counters:
            return None
        # deviceCapacityInUse: aggregated capacity, a persisted share, or a share being allocated
        skip_counters = multi and (key in a.aggregated or key in a._shared or key in self.allocating_capacity)
        reserved = False
        if not skip_counters and device.consumes_counters:
            if not self.take_counters(cand):
                return None
            reserved = True
        base, sub = rd.base_name, rd.sub_name
        if a.f.device_taints and taint_prevents(cand.taints, rd.tolerations):
            if reserved:
                self.give_back_counters(cand)
            return None
        cons = self.constraints[ci]
        for i, c in enumerate(cons):
            if not c.add(base, sub, device, key):
                for e in range(i - 1, -1, -1):
                    cons[e].remove(base, sub, device, key)
                if reserved:
                    self.give_back_counters(cand)
                if must:
                    raise AllocationError(
                        f"claim {kobj(self.claims[ci])}, request {rd.name}: cannot add device {cand.id} because a "
                        "claim constraint would not be satisfied"
                    )
                return None
        if users is None:
            users = self.allocating[key] = set()
        marked = not multi
        if marked:
            users.add(ci)

        def rollback(consumed: dict | None, inserted: bool, existed: bool) -> None:
            if inserted:
                agg = self.allocating_capacity.get(key)
                if agg is not None:
                    for k, q in (consumed or {}).items():
                        agg[k] = agg.get(k, Fraction(0)) - q.value
                    # ConsumedCapacityCollection.Remove drops entries that reach zero
                    if all(v == 0 for v in agg.values()):
                        del self.allocating_capacity[key]
                if existed and key not in self.allocating_capacity:
                    self.allocating_capacity[key] = {}
            if marked:
                users.discard(ci)
            for c in reversed(cons):
                c.remove(base, sub, device, key)
            if reserved:
                self.give_back_counters(cand)

        consumed: dict | None = None
        share = ""
        inserted = existed = False
        if a.f.consumable_capacity:
            try:
                ok = a.fits(rd.capacity, device.capacity, a.aggregated.get(key), self.allocating_capacity.get(key))
            except cap.CapacityError as e:
                rollback(None, False, False)
                raise AllocationError(
                    f"claim {kobj(self.claims[ci])}, request {rd.name}: rechecking capacity for device {cand.id}: {e}"
                ) from None
            if not ok:
                rollback(None, False, False)
                return None
            if multi:
                try:
                    consumed = cap.consumed_from_request(rd.capacity, device.capacity, a.f.fractional_capacity_range)
                except cap.CapacityError as e:
                    rollback(None, False, False)
                    raise AllocationError(
                        f"claim {kobj(self.claims[ci])}, request {rd.name}: computing consumed capacity for device "
                        f"{cand.id}: {e}"
                    ) from None
                share = a.share_id()
                existed = key in self.allocating_capacity
                agg = self.allocating_capacity.setdefault(key, {})
                for k, q in consumed.items():
                    agg[k] = agg.get(k, Fraction(0)) + q.value
                inserted = True
        results = self.result[ci]
        n_before = len(results)
        results.append(_DevResult(rd, cand, share, consumed or None, rd.admin))

        def undo() -> None:
            del results[n_before:]
            rollback(consumed, inserted, existed)

        return undo

    # ------------------------------------------------------------ counters

    def take_counters(self, cand: Candidate) -> bool:
        """checkAvailableCounters: add the device's consumption; False (and undone) if anything goes short."""
        avail = self.a.counters_available(cand.pool)
        consumed = self.consumed_counters.setdefault((cand.pool.driver, cand.pool.name), {})
        touched = []
        for cc in cand.device.consumes_counters:
            cs = consumed.setdefault(cc.counter_set, {})
            touched.append(cc.counter_set)
            for name, v in counter_numbers(cc.counters):
                cs[name] = cs.get(name, 0) + v
        # Upstream compares every counter set of the pool; only the sets this device consumes from can have
        # gone short (every other set passed when it was last added to), so only they are compared.
        for set_name in touched:
            counters = avail.get(set_name)
            if not counters:
                continue
            used = consumed[set_name]
            for cname, value in counters.items():
                if value < used.get(cname, 0):
                    self.give_back_counters(cand)
                    return False
        return True

    def give_back_counters(self, cand: Candidate) -> None:
        consumed = self.consumed_counters.get((cand.pool.driver, cand.pool.name), {})
        for cc in cand.device.consumes_counters:
            cs = consumed.setdefault(cc.counter_set, {})
            for name, v in counter_numbers(cc.counters):
                cs[name] = cs.get(name, 0) - v

    # ------------------------------------------------------------ result

    def _build(self, ci: int) -> AllocationResult:
        a = self.a
        results = []
        for r in self.result[ci]:
            rd, cand = r.rd, r.cand
            d = cand.device
            results.append(
                DeviceRequestAllocationResult(
                    request=rd.request_name,
                    driver=cand.key[0],
                    pool=cand.key[1],
                    device=cand.key[2],
                    admin_access=True if r.admin else None,
                    tolerations=rd.tolerations,
                    binding_conditions=d.binding_conditions if a.f.binding_conditions else (),
                    binding_failure_conditions=d.binding_failure_conditions if a.f.binding_conditions else (),
                    share_id=r.share_id,
                    consumed_capacity=r.consumed or {},
                )
            )
        return AllocationResult(
            results=tuple(results),
            config=tuple(self._configs(ci)),
            node_selector=self._node_selector(ci),
        )

    def _chosen(self, ci: int, ri: int) -> ReqData:
        variants = self.reqs[ci][ri]
        return variants[variants[0].selected_sub] if variants[0].parent else variants[0]

    def _configs(self, ci: int) -> list[DeviceAllocationConfiguration]:
        claim = self.claims[ci]
        configs: list[list] = []  # [source, requests list, opaque]
        by_class: dict[str, tuple[int, int]] = {}
        for ri in range(len(claim.spec.requests)):
            rd = self._chosen(ci, ri)
            cls = rd.class_
            if cls is None:
                continue
            rng = by_class.get(cls.name)
            if rng is not None:
                for i in range(*rng):
                    configs[i][1].append(rd.request_name)
                continue
            start = len(configs)
            for opaque in cls.config:
                configs.append(["FromClass", [rd.request_name], opaque])
            by_class[cls.name] = (start, len(configs))
        for cfg in claim.spec.config:
            if not cfg.requests:
                configs.append(["FromClaim", [], cfg.opaque])
                continue
            for ri, req in enumerate(claim.spec.requests):
                if req.name in cfg.requests:
                    configs.append(["FromClaim", list(cfg.requests), cfg.opaque])
                    break
                rd = self._chosen(ci, ri)
                if not rd.parent:
                    continue
                if rd.request_name in cfg.requests:
                    configs.append(["FromClaim", list(cfg.requests), cfg.opaque])
                    break
        for c in configs:
            reqs = c[1]
            if not reqs:
                continue
            applies = True
            for ri, req in enumerate(claim.spec.requests):
                if req.name in reqs:
                    continue
                rd = self._chosen(ci, ri)
                if rd.parent and rd.request_name in reqs:
                    continue
                applies = False
                break
            if applies:
                c[1] = []
        return [DeviceAllocationConfiguration(source=s, requests=tuple(r), opaque=o) for s, r, o in configs]

    def _node_selector(self, ci: int) -> NodeSelector | None:
        fields: list[NodeSelectorRequirement] = []
        exprs: list[NodeSelectorRequirement] = []
        for r in self.result[ci]:
            s, d = r.cand.slice, r.cand.device
            if s.per_device_node_selection:
                node_name, sel = d.node_name, d.node_selector
            else:
                node_name, sel = s.node_name, s.node_selector
            if node_name or d.binds_to_node:
                return NodeSelector(
                    (
                        NodeSelectorTerm(
                            match_fields=(NodeSelectorRequirement("metadata.name", "In", (self.node_name,)),)
                        ),
                    )
                )
            if sel is not None:
                if len(sel.terms) == 1:
                    _add_requirements(sel.terms[0].match_fields, fields)
                    _add_requirements(sel.terms[0].match_expressions, exprs)
                elif len(sel.terms) > 1:
                    raise AllocationError(
                        f"create NodeSelector for claim {self.claims[ci].name}: unsupported "
                        f"ResourceSlice.NodeSelector with {len(sel.terms)} terms"
                    )
        if fields or exprs:
            return NodeSelector((NodeSelectorTerm(match_expressions=tuple(exprs), match_fields=tuple(fields)),))
        return None


def _add_requirements(src: Sequence[NodeSelectorRequirement], dst: list[NodeSelectorRequirement]) -> None:
    for req in src:
        vals = set(req.values)
        if not any(r.key == req.key and r.operator == req.operator and set(r.values) == vals for r in dst):
            dst.append(req)


def untolerated(taints: Sequence[DeviceTaint], tolerations: Sequence[Toleration]) -> list[DeviceTaint]:
    """The blocking taints (NoSchedule, NoExecute) that no toleration tolerates (taintTolerated)."""
    return [t for t in taints if t.blocks and not any(tol.tolerates(t) for tol in tolerations)]


def taint_prevents(taints: Sequence[DeviceTaint], tolerations: Sequence[Toleration]) -> bool:
    """taintPreventsAllocation: a NoSchedule/NoExecute taint without a matching toleration."""
    return any(t.blocks and not any(tol.tolerates(t) for tol in tolerations) for t in taints)
