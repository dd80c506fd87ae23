"""InterPodAffinity: required and preferred inter-pod affinity and anti-affinity.

Its PreFilter, Filter, the PreFilter extensions (AddPod/RemovePod) and PreScore, Score and
NormalizeScore are ported from pkg/scheduler/framework/plugins/interpodaffinity/{filtering,scoring,plugin}.go
(kube-scheduler v1.37.2).

InterPodAffinityHostnameFastPath is alpha and off in v1.37: this is the path with the gate off, where every
term, hostname-scoped or not, is counted per topology pair in PreFilter. InPlacePodVerticalScalingScheduler-
Preemption (alpha, off) is not modelled. Plugin args are the v1 defaults: hardPodAffinityWeight 1,
ignorePreferredTermsOfExistingPods false.

The incoming pod's namespaceSelector is resolved against the namespaces the snapshot knows
(``Snapshot.namespace_labels``) and merged into the term's namespaces, as mergeAffinityTermNamespacesIfNotEmpty
does with the namespace lister; existing pods' terms keep their namespaceSelector and are matched against the
labels of the incoming pod's namespace (an unknown namespace has no labels).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from dractl.scheduler.affinityterms import (
    AffinityTerm,
    PodAffinityTerms,
    WeightedAffinityTerm,
    pod_affinity_terms,
    term_text,
)
from dractl.scheduler.framework import (
    SKIP,
    CycleState,
    NodeInfo,
    Plugin,
    PodInfo,
    Snapshot,
    Status,
    as_error,
    unresolvable,
    unschedulable,
)

NAME = "InterPodAffinity"
# filtering.go
ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't satisfy existing pods anti-affinity rules"
ERR_REASON_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod affinity rules"
ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod anti-affinity rules"

MAX_NODE_SCORE = 100

_PRE_FILTER_KEY = "PreFilter" + NAME
_PRE_SCORE_KEY = "PreScore" + NAME

TopologyPair = tuple[str, str]


def terms_of(p: PodInfo) -> PodAffinityTerms:
    """The pod's parsed terms (framework.PodInfo's four lists), parsed once per PodInfo."""
    t = p.__dict__.get("_affinity_terms")
    if t is None:
        t = pod_affinity_terms(p.namespace, p.labels, p.affinity)
        p.__dict__["_affinity_terms"] = t
    return t


def _namespace_labels(snapshot: Any) -> Mapping[str, Mapping[str, str]]:
    nl = getattr(snapshot, "namespace_labels", None)
    return nl if isinstance(nl, Mapping) else {}


def _merge_namespaces(term: AffinityTerm, ns_labels: Mapping[str, Mapping[str, str]]) -> AffinityTerm:
    """Merge the namespaces a term's namespaceSelector matches into the term.

    Upstream: plugin.go mergeAffinityTermNamespacesIfNotEmpty.
    The namespaces the selector matches join the term's namespaces and the selector becomes "nothing". An
    empty selector ({}: all namespaces) is kept.
    """
    if term.namespace_selector.empty():
        return term
    names = frozenset(n for n, labels in ns_labels.items() if term.namespace_selector.matches(labels))
    return term.with_namespaces(names)


def pod_matches_all_affinity_terms(terms: Sequence[AffinityTerm], p: PodInfo) -> bool:
    """filtering.go podMatchesAllAffinityTerms: a non-empty list, every term matches (namespaces merged)."""
    if not terms:
        return False
    return all(t.matches(p.namespace, p.labels, None) for t in terms)


class _Who(NamedTuple):
    """An existing pod behind a count, for explanations."""

    pod: PodInfo
    node: str
    term_index: int
    term: AffinityTerm


def _add(m: dict[TopologyPair, int], pair: TopologyPair, v: int) -> None:
    n = m.get(pair, 0) + v
    if n == 0:
        m.pop(pair, None)  # topologyToMatchedTermCount.update deletes an entry down to zero
    else:
        m[pair] = n


@dataclass
class PreFilterState:
    """filtering.go preFilterState (the gate-off fields), plus which pods are behind the counts."""

    pod: PodInfo
    affinity_terms: tuple[AffinityTerm, ...]
    anti_affinity_terms: tuple[AffinityTerm, ...]
    namespace_labels: Mapping[str, str] | None
    existing_anti_affinity_counts: dict[TopologyPair, int] = field(default_factory=dict)
    affinity_counts: dict[TopologyPair, int] = field(default_factory=dict)
    anti_affinity_counts: dict[TopologyPair, int] = field(default_factory=dict)
    existing_who: dict[TopologyPair, list[_Who]] = field(default_factory=dict)
    anti_who: dict[TopologyPair, list[_Who]] = field(default_factory=dict)

    def clone(self) -> PreFilterState:
        """A copy whose counts can change without touching this one."""
        return replace(self,
                       existing_anti_affinity_counts=dict(self.existing_anti_affinity_counts),
                       affinity_counts=dict(self.affinity_counts),
                       anti_affinity_counts=dict(self.anti_affinity_counts),
                       existing_who={k: list(v) for k, v in self.existing_who.items()},
                       anti_who={k: list(v) for k, v in self.anti_who.items()})

    def update_with_pod(self, p: PodInfo, node: NodeInfo, multiplier: int) -> None:
        """preFilterState.updateWithPod with the fast path off."""
        labels = node.labels
        for i, t in enumerate(terms_of(p).required_anti_affinity):
            if t.matches(self.pod.namespace, self.pod.labels, self.namespace_labels) and t.topology_key in labels:
                pair = (t.topology_key, labels[t.topology_key])
                _add(self.existing_anti_affinity_counts, pair, multiplier)
                _track(self.existing_who, pair, _Who(p, node.name, i, t), multiplier)
        if pod_matches_all_affinity_terms(self.affinity_terms, p):
            for t in self.affinity_terms:
                if t.topology_key in labels:
                    _add(self.affinity_counts, (t.topology_key, labels[t.topology_key]), multiplier)
        for i, t in enumerate(self.anti_affinity_terms):
            if t.matches(p.namespace, p.labels, None) and t.topology_key in labels:
                pair = (t.topology_key, labels[t.topology_key])
                _add(self.anti_affinity_counts, pair, multiplier)
                _track(self.anti_who, pair, _Who(p, node.name, i, t), multiplier)


def _key(p: PodInfo) -> str:
    return f"{p.namespace}/{p.name}"


def _track(m: dict[TopologyPair, list[_Who]], pair: TopologyPair, who: _Who, multiplier: int) -> None:
    if multiplier > 0:
        m.setdefault(pair, []).append(who)
        return
    lst = m.get(pair)
    if lst:
        for i, w in enumerate(lst):
            if _key(w.pod) == _key(who.pod) and w.term_index == who.term_index:
                del lst[i]
                break
        if not lst:
            del m[pair]


@dataclass
class PreScoreState:
    """scoring.go preScoreState: topology key -> value -> summed weight."""

    topology_score: dict[str, dict[str, int]] = field(default_factory=dict)

    def clone(self) -> PreScoreState:
        """The state itself: scoring never changes it."""
        return self


class InterPodAffinity(Plugin):
    """The InterPodAffinity plugin: required and preferred pod (anti-)affinity."""
    name = NAME

    def __init__(self, *, hard_pod_affinity_weight: int = 1, ignore_preferred_terms_of_existing_pods: bool = False
                 ) -> None:
        self.hard_pod_affinity_weight = hard_pod_affinity_weight
        self.ignore_preferred_terms_of_existing_pods = ignore_preferred_terms_of_existing_pods

    # ------------------------------------------------------------------ PreFilter / Filter

    def pre_filter(self, state: CycleState, pod: PodInfo, snapshot: Snapshot) -> Status | None:
        """filtering.go PreFilter (fast path off)."""
        terms = terms_of(pod)
        if terms.errors:
            err = terms.errors[0] if len(terms.errors) == 1 else "[" + ", ".join(terms.errors) + "]"
            return unresolvable(f"parsing pod: {err}")
        all_ns = _namespace_labels(snapshot)
        s = PreFilterState(
            pod=pod,
            affinity_terms=tuple(_merge_namespaces(t, all_ns) for t in terms.required_affinity),
            anti_affinity_terms=tuple(_merge_namespaces(t, all_ns) for t in terms.required_anti_affinity),
            # GetNamespaceLabelsSnapshot: an unknown namespace has an empty set of labels
            namespace_labels=dict(all_ns.get(pod.namespace) or {}),
        )
        # getExistingAntiAffinityCounts over the nodes with pods with required anti-affinity
        ns, pod_labels, ns_labels = pod.namespace, pod.labels, s.namespace_labels
        for ni in snapshot.have_pods_with_required_anti_affinity:
            if ni.node is None:
                continue
            labels = ni.labels
            for existing in ni.pods_with_required_anti_affinity:
                for i, t in enumerate(terms_of(existing).required_anti_affinity):
                    if t.topology_key in labels and t.matches(ns, pod_labels, ns_labels):
                        pair = (t.topology_key, labels[t.topology_key])
                        _add(s.existing_anti_affinity_counts, pair, 1)
                        s.existing_who.setdefault(pair, []).append(_Who(existing, ni.name, i, t))
        # getIncomingAffinityAntiAffinityCounts over all nodes
        aff, anti = s.affinity_terms, s.anti_affinity_terms
        if aff or anti:
            for ni in snapshot.node_infos:
                if ni.node is None:
                    continue
                labels = ni.labels
                # the node's topology pair for each term (a term whose key the node lacks counts nothing here)
                aff_pairs = [(t.topology_key, labels[t.topology_key]) for t in aff if t.topology_key in labels]
                anti_pairs = [(i, t, (t.topology_key, labels[t.topology_key])) for i, t in enumerate(anti)
                              if t.topology_key in labels]
                if not aff_pairs and not anti_pairs:
                    continue
                for existing in ni.pods:
                    e_ns, e_labels = existing.namespace, existing.pod.meta.labels
                    if aff_pairs and all(t.matches(e_ns, e_labels, None) for t in aff):
                        for pair in aff_pairs:
                            _add(s.affinity_counts, pair, 1)
                    for i, t, pair in anti_pairs:
                        if t.matches(e_ns, e_labels, None):
                            _add(s.anti_affinity_counts, pair, 1)
                            s.anti_who.setdefault(pair, []).append(_Who(existing, ni.name, i, t))
        if not s.existing_anti_affinity_counts and not s.affinity_terms and not s.anti_affinity_terms:
            return SKIP
        state.data[_PRE_FILTER_KEY] = s
        return None

    def _state(self, state: CycleState) -> PreFilterState | None:
        s = state.data.get(_PRE_FILTER_KEY)
        return s if isinstance(s, PreFilterState) else None

    def add_pod(self, state: CycleState, pod: PodInfo, pod_to_add: PodInfo, node: NodeInfo) -> Status | None:
        """Count ``pod_to_add`` on ``node`` in the PreFilter state (filtering.go AddPod)."""
        s = self._state(state)
        if s is None:
            return as_error(f'error reading "{_PRE_FILTER_KEY}" from cycleState: not found')
        s.update_with_pod(pod_to_add, node, 1)
        return None

    def remove_pod(self, state: CycleState, pod: PodInfo, pod_to_remove: PodInfo, node: NodeInfo) -> Status | None:
        """Uncount ``pod_to_remove`` on ``node`` in the PreFilter state (filtering.go RemovePod)."""
        s = self._state(state)
        if s is None:
            return as_error(f'error reading "{_PRE_FILTER_KEY}" from cycleState: not found')
        s.update_with_pod(pod_to_remove, node, -1)
        return None

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        """Whether the node satisfies the pod's (anti-)affinity and existing pods' anti-affinity (filtering.go Filter).

        With the fast path off, it checks the pod's affinity (unresolvable), its anti-affinity, then the
        existing pods' anti-affinity.
        """
        s = self._state(state)
        if s is None:
            return as_error(f'error reading "{_PRE_FILTER_KEY}" from cycleState: not found')
        if node.node is None:
            return None
        labels = node.labels
        # nodeTopologyMatchesAffinity
        if s.affinity_terms:
            pods_exist = True
            missing: list[str] = []
            for i, t in enumerate(s.affinity_terms):
                v = labels.get(t.topology_key)
                if v is None:
                    return unresolvable(ERR_REASON_AFFINITY_RULES_NOT_MATCH, detail=(
                        f"podAffinity term {i} ({term_text(t)}): the node has no label {t.topology_key}",))
                if s.affinity_counts.get((t.topology_key, v), 0) <= 0:
                    pods_exist = False
                    missing.append(f"podAffinity term {i} ({term_text(t)}): no pod matching every term "
                                   f"runs in {t.topology_key}={v}")
            if not pods_exist and not (not s.affinity_counts
                                       and pod_matches_all_affinity_terms(s.affinity_terms, s.pod)):
                detail = missing
                if not s.affinity_counts:
                    detail = [*missing, "no pod in the cluster matches the terms and the pod does not match them "
                              "itself"]
                return unresolvable(ERR_REASON_AFFINITY_RULES_NOT_MATCH, detail=tuple(detail))
        # satisfyPodAntiAffinity
        if s.anti_affinity_counts:
            for i, t in enumerate(s.anti_affinity_terms):
                v = labels.get(t.topology_key)
                if v is not None and s.anti_affinity_counts.get((t.topology_key, v), 0) > 0:
                    who = [w for w in s.anti_who.get((t.topology_key, v), ()) if w.term_index == i]
                    return unschedulable(ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH, detail=(
                        f"podAntiAffinity term {i} ({term_text(t)}): {_pods_text(who)} in "
                        f"{t.topology_key}={v} {'match' if len(who) > 1 else 'matches'} it",))
        # satisfyExistingPodsAntiAffinity
        if s.existing_anti_affinity_counts:
            for k, v in labels.items():
                if s.existing_anti_affinity_counts.get((k, v), 0) > 0:
                    who = s.existing_who.get((k, v), [])
                    lines = tuple(f"pod {_key(w.pod)} on node {w.node} has podAntiAffinity term {w.term_index} "
                                  f"({term_text(w.term)}) that this pod matches, and the node is in the same "
                                  f"{k}={v}" for w in who[:3])
                    if len(who) > 3:
                        lines += (f"and {len(who) - 3} more pods",)
                    return unschedulable(ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH, detail=lines)
        return None

    # ------------------------------------------------------------------ scoring

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Status | None:
        """scoring.go PreScore."""
        aff = pod.affinity
        has_constraints = bool(
            (aff.get("podAffinity") or {}).get("preferredDuringSchedulingIgnoredDuringExecution")
            or (aff.get("podAntiAffinity") or {}).get("preferredDuringSchedulingIgnoredDuringExecution"))
        if self.ignore_preferred_terms_of_existing_pods and not has_constraints:
            return SKIP
        snapshot = state.snapshot
        if not isinstance(snapshot, Snapshot):
            return as_error("empty shared lister in InterPodAffinity PreScore")
        all_nodes = snapshot.node_infos if has_constraints else snapshot.have_pods_with_affinity
        terms = terms_of(pod)
        if terms.errors:
            return as_error(f"failed to parse pod: {terms.errors[0]}")
        all_ns = _namespace_labels(snapshot)
        pref_aff = [WeightedAffinityTerm(_merge_namespaces(w.term, all_ns), w.weight)
                    for w in terms.preferred_affinity]
        pref_anti = [WeightedAffinityTerm(_merge_namespaces(w.term, all_ns), w.weight)
                     for w in terms.preferred_anti_affinity]
        ns_labels = dict(all_ns.get(pod.namespace) or {})
        topo: dict[str, dict[str, int]] = {}

        def process(term: AffinityTerm, weight: int, namespace: str, labels: Mapping[str, str],
                    nsl: Mapping[str, str] | None, node_labels: Mapping[str, str], mult: int) -> None:
            if term.matches(namespace, labels, nsl):
                v = node_labels.get(term.topology_key)
                if v is not None:
                    m = topo.setdefault(term.topology_key, {})
                    m[v] = m.get(v, 0) + _int32(weight * mult)

        for ni in all_nodes:
            if ni.node is None:
                continue
            node_labels = ni.labels
            if not node_labels:
                continue  # processExistingPod: nothing to score against a node without labels
            for existing in (ni.pods if has_constraints else ni.pods_with_affinity):
                for w in pref_aff:
                    process(w.term, w.weight, existing.namespace, existing.labels, None, node_labels, 1)
                for w in pref_anti:
                    process(w.term, w.weight, existing.namespace, existing.labels, None, node_labels, -1)
                et = terms_of(existing)
                if self.hard_pod_affinity_weight > 0:
                    for t in et.required_affinity:
                        process(t, self.hard_pod_affinity_weight, pod.namespace, pod.labels, ns_labels,
                                node_labels, 1)
                for w in et.preferred_affinity:
                    process(w.term, w.weight, pod.namespace, pod.labels, ns_labels, node_labels, 1)
                for w in et.preferred_anti_affinity:
                    process(w.term, w.weight, pod.namespace, pod.labels, ns_labels, node_labels, -1)
        if not topo:
            return SKIP
        state.data[_PRE_SCORE_KEY] = PreScoreState(topo)
        return None

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int:
        """scoring.go Score: the summed weights of the node's topology values (negative for anti-affinity)."""
        s = state.data.get(_PRE_SCORE_KEY)
        if not isinstance(s, PreScoreState):
            return 0
        labels = node.labels
        total = 0
        for key, values in s.topology_score.items():
            v = labels.get(key)
            if v is not None:
                total += values.get(v, 0)
        return total

    def normalize_score(self, state: CycleState, pod: PodInfo, scores: dict[str, int]) -> None:
        """scoring.go NormalizeScore: min-max to 0..100, truncated."""
        s = state.data.get(_PRE_SCORE_KEY)
        if not isinstance(s, PreScoreState) or not s.topology_score or not scores:
            return
        lo, hi = min(scores.values()), max(scores.values())
        diff = hi - lo
        for name, sc in scores.items():
            scores[name] = int(float(MAX_NODE_SCORE) * ((sc - lo) / diff)) if diff > 0 else 0


def _int32(v: int) -> int:
    """Go int32 arithmetic (weight * multiplier is an int32 product)."""
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >= 1 << 31 else v


def _pods_text(who: Iterable[_Who]) -> str:
    who = list(who)
    names = ", ".join(f"{_key(w.pod)} (node {w.node})" for w in who[:3])
    if len(who) > 3:
        names += f" and {len(who) - 3} more"
    return ("pods " if len(who) > 1 else "pod ") + names if who else "pods"
