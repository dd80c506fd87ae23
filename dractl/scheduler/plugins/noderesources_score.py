"""The node-resource scores of the default profile.

They are NodeResourcesFit's LeastAllocated strategy and NodeResourcesBalancedAllocation
(pkg/scheduler/framework/plugins/noderesources/{resource_allocation,
least_allocated,balanced_allocation,fit}.go, kube-scheduler v1.37.2).

Both score cpu and memory with weight 1 (the v1 defaults of NodeResourcesFitArgs.scoringStrategy and
NodeResourcesBalancedAllocationArgs.resources). LeastAllocated counts what the node's pods request with the
scheduler's non-zero defaults (100m cpu, 200Mi memory for a container that requests nothing); balanced
allocation counts the requests as they are. Extended resources backed by DRA (DRAExtendedResource) in the
scored resources are not modelled: the default profile scores only cpu and memory.

:class:`FitScore` holds NodeResourcesFit's PreScore and Score for the plugin class that has its filter.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from dractl.scheduler.framework import SKIP, CycleState, NodeInfo, Plugin, PodInfo, Status, as_error
from dractl.scheduler.plugins.helper import MAX_NODE_SCORE, go_div, go_int
from dractl.scheduler.resources import (
    CPU,
    EPHEMERAL_STORAGE,
    MEMORY,
    Options,
    apply_defaults,
    is_scalar_resource_name,
    milli_value,
    pod_requests,
    value,
)

FIT = "NodeResourcesFit"
BALANCED_ALLOCATION = "NodeResourcesBalancedAllocation"

# schedutil.DefaultMilliCPURequest, DefaultMemoryRequest
DEFAULT_MILLI_CPU_REQUEST = 100
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024

#: (resource name, weight): the v1 default scoring resources
DEFAULT_RESOURCES: tuple[tuple[str, int], ...] = ((CPU, 1), (MEMORY, 1))


@dataclass(frozen=True)
class ScoreFeatures:
    """The feature gates resource scoring reads, as v1.37 sets them."""

    in_place_pod_vertical_scaling: bool = True  # GA
    pod_level_resources: bool = True  # beta, on
    in_place_pod_level_resources_vertical_scaling: bool = True  # beta, on


def pod_request_list(pod: PodInfo, resources: Sequence[tuple[str, int]], use_requested: bool,
                     features: ScoreFeatures) -> list[int]:
    """The pod's requests per scored resource (resource_allocation.go calculatePodResourceRequestList).

    Containers that request no cpu or memory get the non-zero defaults, unless ``use_requested``.
    """
    non_missing = None if use_requested else {
        CPU: Fraction(DEFAULT_MILLI_CPU_REQUEST, 1000), MEMORY: Fraction(DEFAULT_MEMORY_REQUEST)}
    opts = Options(
        use_status_resources=features.in_place_pod_vertical_scaling,
        in_place_pod_level_resources_vertical_scaling_enabled=features.in_place_pod_level_resources_vertical_scaling,
        skip_pod_level_resources=not features.pod_level_resources,
        non_missing_container_requests=non_missing,
    )
    reqs = pod_requests(apply_defaults(pod.spec), pod.status, opts)
    out = []
    for name, _ in resources:
        q = reqs.get(name, Fraction(0))
        out.append(milli_value(q) if name == CPU else value(q))
    return out


def resource_allocatable_request(node: NodeInfo, resource: str, use_requested: bool) -> tuple[int, int]:
    """resource_allocation.go calculateResourceAllocatableRequest: (allocatable, requested by the node's pods)."""
    requested = node.requested if use_requested else node.non_zero_requested
    if resource == CPU:
        return node.allocatable.milli_cpu, requested.milli_cpu
    if resource == MEMORY:
        return node.allocatable.memory, requested.memory
    if resource == EPHEMERAL_STORAGE:
        return node.allocatable.ephemeral_storage, node.requested.ephemeral_storage
    if resource in node.allocatable.scalar:
        return node.allocatable.scalar[resource], node.requested.scalar.get(resource, 0)
    return 0, 0


Scorer = Callable[[list[int], list[int], list[int]], int]


def node_allocatable_request(node: NodeInfo, resources: Sequence[tuple[str, int]], pod_reqs: Sequence[int],
                             use_requested: bool) -> tuple[list[int], list[int], list[int]]:
    """resource_allocation.go calculateNodeAllocatableRequest: (requested with the pod, allocated, allocatable)."""
    n = len(resources)
    requested, allocated, allocatable = [0] * n, [0] * n, [0] * n
    for i, (name, _) in enumerate(resources):
        if pod_reqs[i] == 0 and is_scalar_resource_name(name):
            continue  # an extended resource the pod does not request is not scored
        alloc, used = resource_allocatable_request(node, name, use_requested)
        if alloc == 0:
            continue
        allocatable[i], allocated[i] = alloc, used
        requested[i] = used + pod_reqs[i]
    return requested, allocated, allocatable


def least_requested_score(requested: int, capacity: int) -> int:
    """least_allocated.go leastRequestedScore."""
    if capacity == 0 or requested > capacity:
        return 0
    return go_div((capacity - requested) * MAX_NODE_SCORE, capacity)


def least_resource_scorer(resources: Sequence[tuple[str, int]]) -> Scorer:
    """least_allocated.go leastResourceScorer: the weighted mean of each resource's free share."""
    def score(requested: list[int], _allocated: list[int], allocatable: list[int]) -> int:
        node_score = weight_sum = 0
        for i in range(len(requested)):
            if allocatable[i] == 0:
                continue
            w = resources[i][1]
            node_score += least_requested_score(requested[i], allocatable[i]) * w
            weight_sum += w
        return go_div(node_score, weight_sum) if weight_sum else 0
    return score


def balanced_resource_score(requested: Sequence[int], allocatable: Sequence[int]) -> int:
    """balanced_allocation.go balancedResourceScore: 100 * (1 - the standard deviation of the fractions)."""
    fractions: list[float] = []
    total = 0.0
    for r, a in zip(requested, allocatable, strict=True):
        if a == 0:
            continue
        f = min(float(r) / float(a), 1.0)
        total += f
        fractions.append(f)
    std = 0.0
    if len(fractions) == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif len(fractions) > 2:
        mean = total / float(len(fractions))
        s = 0.0
        for f in fractions:
            s = s + (f - mean) * (f - mean)
        std = math.sqrt(s / float(len(fractions)))
    return go_int((1 - std) * float(MAX_NODE_SCORE))


def balanced_resource_scorer(requested: list[int], allocated: list[int], allocatable: list[int]) -> int:
    """balanced_allocation.go balancedResourceScorer: 50 plus half of how much the pod improves the balance."""
    with_pod = balanced_resource_score(requested, allocatable)
    without_pod = balanced_resource_score(allocated, allocatable)
    return MAX_NODE_SCORE // 2 + go_div(MAX_NODE_SCORE // 2 + with_pod - without_pod, 2)


def _resources(spec: Any) -> tuple[tuple[str, int], ...]:
    if spec is None:
        return DEFAULT_RESOURCES
    out = []
    for r in spec:
        if isinstance(r, Mapping):
            out.append((str(r.get("name") or r.get("Name") or ""), int(r.get("weight") or r.get("Weight") or 0)))
        else:
            out.append((str(r[0]), int(r[1])))
    return tuple(out)


class FitScore(Plugin):
    """NodeResourcesFit's PreScore and Score with the LeastAllocated strategy (fit.go, least_allocated.go)."""

    name = FIT

    def __init__(self, *, scoring_resources: Any = None, score_features: ScoreFeatures | None = None) -> None:
        self.scoring_resources = _resources(scoring_resources)
        self.score_features = score_features or ScoreFeatures()
        self._scorer = least_resource_scorer(self.scoring_resources)

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Status | None:
        """Compute the pod's requests of the scored resources once."""
        state.data["PreScore" + FIT] = pod_request_list(pod, self.scoring_resources, False, self.score_features)
        return None

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int:
        """The LeastAllocated score of the node for the pod."""
        reqs = state.data.get("PreScore" + FIT)
        if not isinstance(reqs, list):
            reqs = pod_request_list(pod, self.scoring_resources, False, self.score_features)
        return self._scorer(*node_allocatable_request(node, self.scoring_resources, reqs, False))

    def score_status(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        """What upstream's Score returns besides the number: an error when no resource is scored."""
        return as_error("resources not found") if not self.scoring_resources else None


class NodeResourcesBalancedAllocation(Plugin):
    """balanced_allocation.go: favours nodes whose cpu and memory stay evenly used with the pod on them."""

    name = BALANCED_ALLOCATION

    def __init__(self, *, resources: Any = None, features: ScoreFeatures | None = None) -> None:
        self.resources = _resources(resources)
        self.features = features or ScoreFeatures()

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Status | None:
        """Compute the pod's requests once; Skip for a best-effort pod."""
        reqs = pod_request_list(pod, self.resources, True, self.features)
        if all(r == 0 for r in reqs):
            return SKIP  # a best-effort pod
        state.data["PreScore" + BALANCED_ALLOCATION] = reqs
        return None

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int:
        """The balanced-allocation score of the node for the pod."""
        reqs = state.data.get("PreScore" + BALANCED_ALLOCATION)
        if not isinstance(reqs, list):
            reqs = pod_request_list(pod, self.resources, True, self.features)
            if all(r == 0 for r in reqs):
                return 0
        return balanced_resource_scorer(*node_allocatable_request(node, self.resources, reqs, True))
