"""One scheduling pass: kube-scheduler's filter phase for each pod, in one place (schedule_one.go).

:class:`SchedulingPass` holds what one pass shares: the allocator, the :class:`Snapshot` (every node's pods and
their per-node sums, updated with :meth:`SchedulingPass.bind` as pods are bound, never summed again), and the
default profile's framework with DynamicResources wrapping the allocator. :meth:`SchedulingPass.place` runs
the filters for one pod and its claims and returns a :class:`Placement`: the node and its allocations, or
``0/N nodes are available: ...`` built as upstream's FitError from each node's first failing filter.

Nodes are tried in the order given (callers pass name order); the first that passes every filter wins.
Upstream scores the feasible nodes instead; dractl's contract is the first (scoring comes with preemption).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from dractl.allocator.explain import Explanation
from dractl.model.objects import ObjectMeta, Pod
from dractl.scheduler.framework import (
    NO_NODES,
    Code,
    CycleState,
    Diagnosis,
    Framework,
    NodeInfo,
    PodInfo,
    Snapshot,
    Status,
    find_nodes_that_fit,
    fit_error,
)
from dractl.scheduler.plugins.dynamicresources import NAME as DRA
from dractl.scheduler.plugins.dynamicresources import DRAState, DynamicResources
from dractl.scheduler.volumes import VOLUME_FILTERS, unchecked_volumes

if TYPE_CHECKING:
    from dractl.allocator.core import Allocator
    from dractl.model.objects import AllocationResult, ResourceClaim

@dataclass
class Placement:
    """Where one pod's claims fit, or why they fit nowhere.

    ``allocations`` has one entry per claim given (an allocated claim keeps its own). ``message`` is the
    scheduler's unschedulable message; ``error`` an allocation error (upstream aborts scheduling: reason
    SchedulerError). ``statuses`` maps each node that was tried and failed to its first failing filter's
    status (``reasons`` to that status's message); ``fits`` lists every node that fits when all nodes were
    tried (``first_fit=False``). ``not_checked`` names, per node known only from ResourceSlices, the filters
    that could not run there; ``volumes`` the pod's volumes that the volume filters would check.
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
    not_checked: dict[str, list[str]] = field(default_factory=dict)
    volumes: list[str] = field(default_factory=list)
    pre_filter: Status | None = None
    claims: list[ResourceClaim] = field(default_factory=list)  # what ``allocations`` are for, in order

    @property
    def outcome(self) -> str:
        """scheduled, unschedulable or error."""
        if self.error is not None:
            return "error"
        return "scheduled" if self.allocations is not None else "unschedulable"

    def node_details(self) -> dict[str, dict[str, Any]]:
        """Per failing node: its filter, upstream's reasons and dractl's explanation (``-o json``)."""
        return {n: {"plugin": st.plugin, "reasons": list(st.reasons), "detail": list(st.detail)}
                for n, st in self.statuses.items()}


_NO_POD = Pod(meta=ObjectMeta(name="", namespace="default"))


class SchedulingPass:
    """What one scheduling pass shares: allocator, snapshot, framework (with DynamicResources)."""

    def __init__(
        self,
        allocator: Allocator,
        *,
        nodes: Sequence[str] | None = None,
        snapshot: Snapshot | None = None,
        pods: Sequence[Pod] | None = None,
    ) -> None:
        from dractl.scheduler.plugins.noderesources import NodeResourcesFit
        from dractl.scheduler.profile import default_framework

        self.allocator = allocator
        cluster = allocator.cluster
        self.nodes: list[str] = list(nodes) if nodes is not None else list(cluster.node_names)
        self.snapshot = snapshot if snapshot is not None else Snapshot.build(
            self.nodes, cluster.nodes, cluster.pods if pods is None else pods, cluster.namespaces)
        self.dra = DynamicResources(allocator)
        from dractl.scheduler.plugins.noderesources import extended_resource_classes

        self.extended_resources = extended_resource_classes(cluster.classes)
        self.fit = NodeResourcesFit(resolve_class=self.extended_resources.get)
        self.framework = default_framework({DRA: self.dra, "NodeResourcesFit": self.fit})
        self._dra_only = Framework([self.dra])
        self._infos = [self.snapshot.get(n) or NodeInfo(n) for n in self.nodes]
        self._bare = [ni for ni in self._infos if ni.node is None]

    def bind(self, pod: Pod, node: str) -> None:
        """The pod is bound to ``node``: it counts in that node's sums from now on."""
        self.snapshot.add_pod(PodInfo(pod), node)

    def place(
        self,
        pod: Pod | None,
        claims: Sequence[ResourceClaim],
        *,
        nodes: Sequence[str] | None = None,
        explain: bool = False,
        first_fit: bool = True,
        remember: bool = True,
        node_claims: Callable[[str], Sequence[ResourceClaim] | Status] | None = None,
        shape_extra: tuple[Any, ...] = (),
    ) -> Placement:
        """Run the filters for ``pod`` (and its ``claims``, allocated together) on ``nodes`` (default: all).

        ``node_claims`` gives the claims to allocate on one node when they depend on the node (a pod's DRA
        extended resources, dractl.scheduler.extended), or DynamicResources' status for a node that cannot
        run the pod; ``shape_extra`` is what else, besides the claims' specs, decides whether they fit (the
        nodes remembered not to fit are per shape). ``Placement.claims`` are the claims the chosen node's
        allocations are for."""
        names = self.nodes if nodes is None else list(nodes)
        p = Placement(nodes=len(names))
        if not names:
            p.message = NO_NODES
            return p
        infos = self._infos if nodes is None else [self.snapshot.get(n) or NodeInfo(n) for n in names]
        fw = self.framework if pod is not None else self._dra_only
        info = PodInfo(pod if pod is not None else _NO_POD)
        if pod is not None:
            p.volumes = unchecked_volumes(info.spec)
        state = CycleState()
        dra: DRAState = self.dra.state_for(claims, explain=explain, remember=remember and not explain,
                                           node_claims=node_claims, shape_extra=shape_extra)
        state.data[DRA] = dra
        res = find_nodes_that_fit(fw, state, info, self.snapshot, infos, first_fit=first_fit)
        if pod is not None:
            skipped = [pl.name for pl in fw.filter_plugins if pl.needs_node and pl.name not in
                       state.skip_filter_plugins]
            bare = self._bare if nodes is None else [ni for ni in infos if ni.node is None]
            for ni in bare if skipped else ():
                p.not_checked[ni.name] = skipped
        if res.error is not None:
            p.error = dra.error if dra.error is not None else res.error.message()
            p.node = dra.error_node
            p.explanation = dra.error_explanation or (Explanation(error=p.error) if explain else None)
            return p
        if res.feasible:
            p.node = res.feasible[0].name
            p.allocations = dra.allocations.get(p.node, [])
            p.claims = dra.claims_on.get(p.node, list(claims) if p.allocations else [])
            p.fits = [n.name for n in res.feasible]
            return p
        d = res.diagnosis
        if d.pre_filter_msg:
            p.pre_filter = d.absent_nodes_status
        for ni in infos:
            st = d.status_of(ni.name)
            if st is not None:
                p.statuses[ni.name] = st
                p.reasons[ni.name] = st.message()
        p.message = fit_error(len(names), d)
        p.explanation = dra.explanation
        return p


def fit_error_message(num_all_nodes: int, statuses: Mapping[str, Status]) -> str:
    return fit_error(num_all_nodes, Diagnosis(node_to_status=dict(statuses)))


__all__ = ["VOLUME_FILTERS", "Code", "Placement", "SchedulingPass", "fit_error_message", "unchecked_volumes"]
