"""One scheduling pass: kube-scheduler's filter phase for each pod, in one place (schedule_one.go).

:class:`SchedulingPass` holds what one pass shares: the allocator, the :class:`Snapshot` (every node's pods and
their per-node sums, updated with :meth:`SchedulingPass.bind` as pods are bound, never summed again), and the
default profile's framework with DynamicResources wrapping the allocator. :meth:`SchedulingPass.place` runs
the filters for one pod and its claims and returns a :class:`Placement`: the node and its allocations, or
``0/N nodes are available: ...`` built as upstream's FitError from each node's first failing filter.

Every node is filtered (upstream stops once it has found ``numFeasibleNodesToFind`` feasible nodes in a
cluster of 100 nodes or more: percentageOfNodesToScore); the feasible nodes are scored by the default
profile's score plugins with their weights (framework.go RunScorePlugins, schedule_one.go prioritizeNodes),
and the pick is among the nodes with the top total. Upstream breaks that tie at random; dractl names the whole
tie set (``Placement.tied``) and takes its first node by name.

Speed: a DRA allocation per node is what costs. When the pod's scores cannot depend on which nodes pass
DynamicResources (no plugin whose NormalizeScore or PreScore reads the set of feasible nodes has anything to
say, and no claim has a prioritized list), the other filters and the scores run first and DynamicResources
runs on the nodes in the order of their totals, only until the top group is known.
"""

from __future__ import annotations

import json
from bisect import bisect_left
from collections.abc import Callable, Iterable, Mapping, Sequence
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
    NodeScore,
    PodInfo,
    Snapshot,
    Status,
    find_nodes_that_fit,
    fit_error,
)
from dractl.scheduler.plugins.dynamicresources import NAME as DRA
from dractl.scheduler.plugins.dynamicresources import DRAState, DynamicResources, has_prioritized_list
from dractl.scheduler.plugins.helper import go_div
from dractl.scheduler.preemption import PDB, Preemption
from dractl.scheduler.preemption import preempt as post_filter
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
    #: every node whose total score is the top total, ``node`` included, in name order (upstream picks one
    #: of them at random)
    tied: list[str] = field(default_factory=list)
    #: node -> its weighted score per plugin and total (empty when one node fits: upstream does not score)
    scores: dict[str, NodeScore] = field(default_factory=dict)
    #: what DefaultPreemption said for a pod that fits nowhere (its message is the tail of ``message``)
    preemption: Preemption | None = None

    @property
    def outcome(self) -> str:
        """scheduled, unschedulable or error."""
        if self.error is not None:
            return "error"
        return "scheduled" if self.allocations is not None else "unschedulable"

    def scores_dict(self) -> dict[str, dict[str, int]]:
        """The feasible nodes' scores as a JSON-ready dict."""
        return {n: sc.to_dict() for n, sc in self.scores.items()}

    def node_details(self) -> dict[str, dict[str, Any]]:
        """Per failing node: its filter, upstream's reasons and dractl's explanation (``-o json``)."""
        return {n: {"plugin": st.plugin, "reasons": list(st.reasons), "detail": list(st.detail)}
                for n, st in self.statuses.items()}


_NO_POD = Pod(meta=ObjectMeta(name="", namespace="default"))


class SchedulingPass:
    """What one scheduling pass shares: allocator, snapshot, framework (with DynamicResources)."""

    #: run DynamicResources after the scores where the answer cannot differ (see the module's docstring)
    score_lazily = True

    def __init__(
        self,
        allocator: Allocator,
        *,
        nodes: Sequence[str] | None = None,
        snapshot: Snapshot | None = None,
        pods: Sequence[Pod] | None = None,
        pdbs: Sequence[Mapping[str, Any]] | None = None,
        preemption: bool = True,
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
        from dractl.scheduler.plugins.podtopologyspread import PodTopologySpread

        # the system default spreading groups a pod with the pods of its Services and owner (DefaultSelector)
        spread = PodTopologySpread(controllers=[o.raw for o in getattr(cluster, "spread_owners", ())])
        self.framework = default_framework({DRA: self.dra, "NodeResourcesFit": self.fit, "PodTopologySpread": spread})
        self._dra_only = Framework([self.dra])
        self._infos = [self.snapshot.get(n) or NodeInfo(n) for n in self.nodes]
        #: whether DefaultPreemption runs for a pod that fits nowhere (its PostFilter)
        self.preemption = preemption
        for pod_ in (cluster.pods if pods is None else pods):
            nom = (pod_.raw.get("status") or {}).get("nominatedNodeName") if pod_.raw else None
            if nom and not pod_.node_name and pod_.phase not in ("Succeeded", "Failed") \
                    and not pod_.meta.deletion_timestamp:
                self.framework.nominated.setdefault(str(nom), []).append(PodInfo(pod_))
        every_pod = [p for ni in self._infos for p in ni.pods]
        self.pdbs = [b for raw in (pdbs if pdbs is not None else [o.raw for o in getattr(cluster, "pdbs", ())])
                     if (b := PDB.of(raw, every_pod)) is not None]
        self._bare = [ni for ni in self._infos if ni.node is None]
        self._last_scores: dict[str, NodeScore] = {}
        #: whether a pod with pod (anti-)affinity is on some node (InterPodAffinity then reads other nodes)
        self._with_affinity = any(ni.pods_with_affinity for ni in self._infos)
        #: per pod signature: node -> (NodeInfo.version, its scores or None where a filter failed); False for a
        #: signature whose scores depend on other nodes
        self._signatures: dict[tuple[Any, ...], _Signature | bool] = {}

    def bind(self, pod: Pod, node: str) -> None:
        """The pod is bound to ``node``: it counts in that node's sums from now on."""
        info = PodInfo(pod)
        self._with_affinity = self._with_affinity or info.has_affinity
        if self.framework.nominated:  # bound now: no longer nominated
            for noms in self.framework.nominated.values():
                noms[:] = [p for p in noms if p.key != info.key]
        self.snapshot.add_pod(info, node)

    def place(
        self,
        pod: Pod | None,
        claims: Sequence[ResourceClaim],
        *,
        nodes: Sequence[str] | None = None,
        explain: bool = False,
        first_fit: bool = False,
        remember: bool = True,
        node_claims: Callable[[str], Sequence[ResourceClaim] | Status] | None = None,
        shape_extra: tuple[Any, ...] = (),
        preempt: bool = True,
    ) -> Placement:
        """Run the filters for ``pod`` (and its ``claims``, allocated together) on ``nodes`` (default: all).

        ``node_claims`` gives the claims to allocate on one node when they depend on the node (a pod's DRA
        extended resources, dractl.scheduler.extended), or DynamicResources' status for a node that cannot
        run the pod; ``shape_extra`` is what else, besides the claims' specs, decides whether they fit (the
        nodes remembered not to fit are per shape). ``Placement.claims`` are the claims the chosen node's
        allocations are for.
        """
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
        else:
            first_fit = True  # claims nobody uses yet: no pod to score for
        dra: DRAState = self.dra.state_for(claims, explain=explain, remember=remember and not explain,
                                           node_claims=node_claims, shape_extra=shape_extra)
        if (self.score_lazily and pod is not None and not first_fit and not explain and nodes is None
                and len(infos) > 1 and node_claims is None and remember):
            fast = self._place_by_signature(p, info, claims, dra)
            if fast is not None:
                return fast
        lazy = self.score_lazily and not first_fit and not explain and len(infos) > 1 and (
            bool(claims) or node_claims is not None)
        state = self._state(dra)
        res = find_nodes_that_fit(fw, state, info, self.snapshot, infos, first_fit=first_fit,
                                  deferred=frozenset({DRA}) if lazy else frozenset())
        top: list[NodeInfo] | None = None  # the lazy path's tie set
        if lazy and res.error is None and res.feasible:
            picked = self._score_lazily(state, info, dra, res.feasible)
            if isinstance(picked, Status):
                res.error = picked
            else:
                top = picked
        if lazy and res.error is None and top is None:  # nothing fits: run every filter for the diagnosis
            state = self._state(dra)
            res = find_nodes_that_fit(fw, state, info, self.snapshot, infos)
        elif top is not None:
            res.feasible = top
        if pod is not None:
            skipped = [pl.name for pl in fw.filter_plugins if pl.needs_node and pl.name not in
                       state.skip_filter_plugins]
            bare = self._bare if nodes is None else [ni for ni in infos if ni.node is None]
            for ni in bare if skipped else ():
                p.not_checked[ni.name] = skipped
        if res.error is None and res.feasible and not first_fit and top is None:
            scored = self._score(state, info, res.feasible)
            if isinstance(scored, Status):
                res.error = scored
            else:
                p.tied = scored
        if res.error is not None:
            p.error = dra.error if dra.error is not None else res.error.message()
            p.node = dra.error_node
            p.explanation = dra.error_explanation or (Explanation(error=p.error) if explain else None)
            return p
        if res.feasible:
            if top is not None:
                p.tied = [n.name for n in top]
                p.scores = {n.name: self._last_scores[n.name] for n in top if n.name in self._last_scores}
            elif not first_fit:
                p.scores = dict(self._last_scores)
            if not p.tied:
                p.tied = [res.feasible[0].name]
            p.node = p.tied[0]
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
        if pod is not None and self.preemption and preempt:
            p.preemption = post_filter(self.framework, state, info, infos, d, self.pdbs)
            d.post_filter_msg = p.preemption.message
        p.message = fit_error(len(names), d)
        p.explanation = dra.explanation
        return p

    def _place_by_signature(
        self, p: Placement, info: PodInfo, claims: Sequence[ResourceClaim], dra: DRAState
    ) -> Placement | None:
        """Place a pod with the verdicts and scores cached for pods alike, where they still hold.

        Pods alike (the same spec, labels and claim shape: upstream's pod signature) get the same filter
        verdicts and scores on a node as long as its pods do not change (NodeInfo.version): both are kept per
        node and worked out again only where a pod was bound since. Only for pods whose scores cannot depend
        on other nodes (no pod affinity, no spread, no existing pod with affinity, see _score_lazily).
        Returns None where this does not apply or nothing fits (the caller then runs everything).
        """
        if (self._bare or self._with_affinity or any(self.framework.nominated.values()) or info.has_affinity
                or info.spec.get("topologySpreadConstraints")
                or (claims and dra.fits_memo is None) or has_prioritized_list(claims)):
            return None
        try:
            key = (tuple(id(c.spec) for c in claims), info.namespace, tuple(sorted(info.labels.items())),
                   json.dumps(info.spec, sort_keys=True))
        except (TypeError, ValueError):
            return None
        fw = self.framework
        sig = self._signatures.get(key)
        if sig is False:
            return None
        state = self._state(dra)
        if isinstance(sig, _Signature) and sig.state is not None:
            # PreFilter and PreScore said the same for the pods before: what they keep depends on the pod alone
            # here (no pod affinity anywhere, no spread constraint)
            data, skip_filter, skip_score = sig.state
            state.snapshot = self.snapshot
            state.data.update(data)
            state.skip_filter_plugins, state.skip_score_plugins = set(skip_filter), set(skip_score)
        else:
            pre, st, _ = fw.run_pre_filter_plugins(state, info, self.snapshot)
            if not st.is_success() or (pre is not None and not pre.all_nodes()):
                return None
            if not fw.run_pre_score_plugins(state, info, self._infos).is_success():
                return None
            if any(name not in state.skip_score_plugins for name in (*SET_DEPENDENT, "NodeAffinity")):
                return None
        if sig is None:
            tt = fw.plugin("TaintToleration")
            if tt is not None and "TaintToleration" not in state.skip_score_plugins and any(
                    tt.score(state, info, ni) for ni in self._infos if ni.node is not None):
                self._signatures[key] = False
                return None
            sig = self._signatures[key] = _Signature()
            sig.state = ({k: v for k, v in state.data.items() if k != DRA}, frozenset(state.skip_filter_plugins),
                         frozenset(state.skip_score_plugins))
            dirty: Iterable[NodeInfo] = self._infos
        else:
            assert isinstance(sig, _Signature)
            changes = self.snapshot.changes
            dirty = [ni for name in dict.fromkeys(changes[sig.seen:]) if (ni := self.snapshot.get(name)) is not None]
        assert isinstance(sig, _Signature)
        sig.seen = len(self.snapshot.changes)
        saved = state.skip_filter_plugins
        state.skip_filter_plugins = saved | {DRA}
        try:
            for ni in dirty:
                if not sig.update(fw, state, info, ni):
                    del self._signatures[key]
                    return None
        finally:
            state.skip_filter_plugins = saved
        uses_dra = DRA not in state.skip_filter_plugins
        failed = dra.memo or {}
        for total in sorted(sig.by_total, reverse=True):
            cands = sig.by_total[total]
            ok = sig.fit.setdefault(total, set())
            added = False
            for name in cands - ok:  # (a new set: cands shrinks in the loop)
                ni = sig.nodes[name][0]
                if uses_dra:
                    if name in failed:
                        cands.discard(name)  # until the node changes
                        continue
                    st = fw.run_one_filter(self.dra, state, info, ni)
                    if st.code == Code.ERROR:
                        return None
                    if not st.is_success():
                        cands.discard(name)
                        continue
                ok.add(name)
                added = True
            if not cands:
                del sig.by_total[total]
                sig.fit.pop(total, None)
                sig.ordered.pop(total, None)
                continue
            if ok:
                group = sig.ordered.get(total)
                if group is None or added:
                    group = sig.ordered[total] = sorted(ok)
                p.tied = list(group)
                p.node = group[0]
                p.scores = {p.node: sig.nodes[p.node][2]}
                if uses_dra:
                    known = dra.fits_memo.get(p.node) if dra.fits_memo is not None else None
                    p.allocations = known[1] if known is not None else dra.allocations.get(p.node, [])
                    p.claims = list(claims)
                else:
                    p.allocations, p.claims = [], []
                p.fits = list(group)
                return p
        return None

    @staticmethod
    def _state(dra: DRAState) -> CycleState:
        state = CycleState()
        state.data[DRA] = dra
        return state

    def _score(self, state: CycleState, info: PodInfo, feasible: list[NodeInfo]) -> list[str] | Status:
        """schedule_one.go prioritizeNodes and the pick: the tie set (every node with the top total, in name order).

        One feasible node is taken without scoring, as upstream.
        """
        self._last_scores = {}
        if len(feasible) == 1:
            return [feasible[0].name]
        fw = self.framework
        st = fw.run_pre_score_plugins(state, info, feasible)
        if not st.is_success():
            return st
        scores, st = fw.run_score_plugins(state, info, feasible)
        if not st.is_success():
            return st
        return self._tie_set(scores)

    def _tie_set(self, scores: list[NodeScore]) -> list[str]:
        self._last_scores = {ns.name: ns for ns in scores}
        top = max(ns.total for ns in scores)
        return sorted(ns.name for ns in scores if ns.total == top)

    def _score_lazily(
        self, state: CycleState, info: PodInfo, dra: DRAState, candidates: list[NodeInfo]
    ) -> list[NodeInfo] | Status | None:
        """The feasible nodes with the top total (DynamicResources run as late as it can be).

        Returns an error instead, or None when no candidate fits the claims.
        """
        self._last_scores = {}
        fw = self.framework
        order = {n.name: i for i, n in enumerate(candidates)}

        def fits(n: NodeInfo) -> bool | Status:
            st = fw.run_one_filter(self.dra, state, info, n)
            if st.code == Code.ERROR:
                return st
            return st.is_success()

        st = fw.run_pre_score_plugins(state, info, candidates)
        if not st.is_success():
            return st
        raw = fw.raw_scores(state, info, candidates)
        independent = (
            len(candidates) > 1
            and not any(name in raw for name in SET_DEPENDENT)
            and all(not any(raw.get(name, {}).values()) for name in ZERO_IS_CONSTANT)
            and not has_prioritized_list(dra.claims)
        )
        if not independent:
            feasible = []
            for n in candidates:
                ok = fits(n)
                if isinstance(ok, Status):
                    return ok
                if ok:
                    feasible.append(n)
            if not feasible:
                return None
            tied = self._score(state, info, feasible)
            if isinstance(tied, Status):
                return tied
            return [n for n in feasible if n.name in tied]
        scores, st = fw.normalize_scores(state, info, candidates, raw)
        if not st.is_success():
            return st
        by_total: dict[int, list[NodeScore]] = {}
        for ns in scores:
            by_total.setdefault(ns.total, []).append(ns)
        for total in sorted(by_total, reverse=True):
            group = []
            for ns in by_total[total]:
                n = candidates[order[ns.name]]
                ok = fits(n)
                if isinstance(ok, Status):
                    return ok
                if ok:
                    group.append(n)
            if group:
                self._last_scores = {ns.name: ns for ns in by_total[total] if ns.name in {n.name for n in group}}
                return sorted(group, key=lambda n: n.name)
        return None


class _Signature:
    """What pods of one signature got on each node (SchedulingPass._place_by_signature).

    It maps node -> (NodeInfo, its version then, its scores) for the nodes that pass every filter but
    DynamicResources, grouped by total (``by_total``), and among those the nodes DynamicResources let through at
    that version (``fit``).
    """

    def __init__(self) -> None:
        #: what PreFilter and PreScore left in the cycle state (DynamicResources' own aside), and the plugins
        #: they skipped
        self.state: tuple[dict[str, Any], frozenset[str], frozenset[str]] | None = None
        self.seen = 0  # how much of Snapshot.changes is accounted for
        self.nodes: dict[str, tuple[NodeInfo, int, NodeScore]] = {}
        self.by_total: dict[int, set[str]] = {}
        self.fit: dict[int, set[str]] = {}
        #: ``fit`` in name order (the tie set), kept as nodes leave it
        self.ordered: dict[int, list[str]] = {}

    def update(self, fw: Framework, state: CycleState, info: PodInfo, ni: NodeInfo) -> bool:
        """Work the node out again; False on an error (the general path says it)."""
        old = self.nodes.pop(ni.name, None)
        if old is not None:
            t = old[2].total
            self.by_total.get(t, set()).discard(ni.name)
            ok = self.fit.get(t)
            if ok is not None and ni.name in ok:
                ok.discard(ni.name)
                group = self.ordered.get(t)
                if group is not None:
                    i = bisect_left(group, ni.name)
                    if i < len(group) and group[i] == ni.name:
                        del group[i]
        st = fw.run_filter_plugins(state, info, ni)
        if st.code == Code.ERROR:
            return False
        if not st.is_success():
            return True
        scores, sst = fw.normalize_scores(state, info, [ni], fw.raw_scores(state, info, [ni]))
        if not sst.is_success():
            return False
        ns = scores[0]
        self.nodes[ni.name] = (ni, ni.version, ns)
        self.by_total.setdefault(ns.total, set()).add(ni.name)
        return True


#: score plugins whose NormalizeScore or PreScore reads the set of feasible nodes
SET_DEPENDENT = ("PodTopologySpread", "InterPodAffinity")
#: score plugins that give every node the same normalized score when every raw score is 0
ZERO_IS_CONSTANT = ("TaintToleration", "NodeAffinity")


MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5


def num_feasible_nodes_to_find(num_all_nodes: int, percentage: int = 0) -> int:
    """How many feasible nodes upstream looks for before it stops filtering.

    This is schedule_one.go numFeasibleNodesToFind with the default percentageOfNodesToScore (0: adaptive).
    """
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND:
        return num_all_nodes
    if percentage == 0:
        percentage = max(50 - go_div(num_all_nodes, 125), MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND)
    return max(go_div(num_all_nodes * percentage, 100), MIN_FEASIBLE_NODES_TO_FIND)


def fit_error_message(num_all_nodes: int, statuses: Mapping[str, Status]) -> str:
    """The scheduler's message for a pod no node fits, from each node's status."""
    return fit_error(num_all_nodes, Diagnosis(node_to_status=dict(statuses)))


__all__ = ["VOLUME_FILTERS", "Code", "Placement", "SchedulingPass", "fit_error_message", "unchecked_volumes"]
