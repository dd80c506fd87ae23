"""PodTopologySpread: hard and soft topology spread constraints.

Its PreFilter, Filter, the PreFilter extensions (AddPod/RemovePod) and PreScore, Score and
NormalizeScore are ported from pkg/scheduler/framework/plugins/podtopologyspread/{common,filtering,scoring,plugin}.go
(kube-scheduler v1.37.2).

Feature gates as in v1.37: NodeInclusionPolicyInPodTopologySpread (GA, locked on), MatchLabelKeysInPodTopologySpread
(beta, on). The constructor takes both so that upstream's test tables, which turn them off, run unchanged.
InPlacePodVerticalScalingSchedulerPreemption (alpha, off) is not modelled.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dractl.model.namespaces import namespace_of
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
from dractl.scheduler.labels import (
    Selector,
    SelectorError,
    label_selector_as_selector,
    selector_from_set,
    selector_text,
)
from dractl.scheduler.plugins.tainttoleration import untolerated_taint

NAME = "PodTopologySpread"
# plugin.go
ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"

LABEL_HOSTNAME = "kubernetes.io/hostname"
LABEL_TOPOLOGY_ZONE = "topology.kubernetes.io/zone"
DO_NOT_SCHEDULE, SCHEDULE_ANYWAY = "DoNotSchedule", "ScheduleAnyway"
HONOR, IGNORE = "Honor", "Ignore"
MAX_NODE_SCORE = 100

# plugin.go systemDefaultConstraints (used when the profile's defaultingType is System, the default)
SYSTEM_DEFAULT_CONSTRAINTS: tuple[Mapping[str, Any], ...] = (
    {"topologyKey": LABEL_HOSTNAME, "whenUnsatisfiable": SCHEDULE_ANYWAY, "maxSkew": 3},
    {"topologyKey": LABEL_TOPOLOGY_ZONE, "whenUnsatisfiable": SCHEDULE_ANYWAY, "maxSkew": 5},
)

_PRE_FILTER_KEY = "PreFilter" + NAME
_PRE_SCORE_KEY = "PreScore" + NAME


def _d(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, Mapping) else {}


def _int(v: Any, default: int) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) else default


@dataclass(frozen=True)
class TopologySpreadConstraint:
    """common.go topologySpreadConstraint: the constraint with its selector parsed."""

    max_skew: int
    topology_key: str
    selector: Selector
    min_domains: int
    node_affinity_policy: str
    node_taints_policy: str
    #: position in the pod's spec.topologySpreadConstraints (-1 for a default constraint)
    index: int = -1

    def describe(self) -> str:
        """The constraint as messages name it: where it comes from, its selector and maxSkew."""
        where = f"topologySpreadConstraints[{self.index}]" if self.index >= 0 else "a default constraint"
        return f"{where} (selector {selector_text(self.selector)}, maxSkew {self.max_skew})"


class _Controllers:
    """What helper.DefaultSelector reads: Services, ReplicationControllers, ReplicaSets, StatefulSets (raw)."""

    def __init__(self, objs: Iterable[Mapping[str, Any]]) -> None:
        self.services: list[Mapping[str, Any]] = []
        self.by_kind: dict[tuple[str, str, str], Mapping[str, Any]] = {}
        for o in objs:
            kind = o.get("kind")
            meta = _d(o.get("metadata"))
            ns, name = namespace_of(meta), str(meta.get("name") or "")
            if kind == "Service":
                self.services.append(o)
            elif kind in ("ReplicationController", "ReplicaSet", "StatefulSet"):
                self.by_kind[(str(kind), ns, name)] = o

    def default_selector(self, pod: PodInfo) -> Selector:
        """pkg/scheduler/framework/plugins/helper/spread.go DefaultSelector."""
        label_set: dict[str, str] = {}
        for svc in self.services:
            if namespace_of(svc.get("metadata")) != pod.namespace:
                continue
            sel = _d(svc.get("spec")).get("selector")
            if not isinstance(sel, Mapping):
                continue  # services with nil selectors match nothing, not everything
            if selector_from_set(sel).matches(pod.labels):
                label_set.update({str(k): str(v) for k, v in sel.items()})
        selector = selector_from_set(label_set)
        owner = next((r for r in pod.pod.raw.get("metadata", {}).get("ownerReferences") or ()
                      if isinstance(r, Mapping) and r.get("controller") is True), None)
        if owner is None:
            return selector
        api_version, kind = str(owner.get("apiVersion") or ""), str(owner.get("kind") or "")
        group = api_version.rpartition("/")[0] if "/" in api_version else ""
        version = api_version.rpartition("/")[2]
        obj = None
        if (group, version, kind) == ("", "v1", "ReplicationController"):
            obj = self.by_kind.get((kind, pod.namespace, str(owner.get("name") or "")))
            if obj is not None:
                sel = _d(_d(obj.get("spec")).get("selector"))
                label_set.update({str(k): str(v) for k, v in sel.items()})
                selector = selector_from_set(label_set)
        elif (group, version) == ("apps", "v1") and kind in ("ReplicaSet", "StatefulSet"):
            obj = self.by_kind.get((kind, pod.namespace, str(owner.get("name") or "")))
            if obj is not None:
                try:
                    other = label_selector_as_selector(_d(obj.get("spec")).get("selector"))
                except SelectorError:
                    return selector
                if not other.nothing:
                    selector = selector.add(*other.requirements)
        return selector


def _merge_label_set_with_selector(match_labels: Mapping[str, str], s: Selector) -> Selector:
    """common.go mergeLabelSetWithSelector (a nothing selector has no requirements to merge: kept as is)."""
    if s.nothing:
        return s
    return selector_from_set(match_labels).add(*s.requirements)


class CriticalPaths:
    """filtering.go criticalPaths: the two topology values with the fewest matching pods (paths[0] the min)."""

    __slots__ = ("paths",)

    def __init__(self, paths: list[list[Any]] | None = None) -> None:
        self.paths: list[list[Any]] = paths or [["", math.inf], ["", math.inf]]

    def update(self, tp_val: str, num: int) -> None:
        p = self.paths
        i = 0 if tp_val == p[0][0] else 1 if tp_val == p[1][0] else -1
        if i >= 0:
            p[i][1] = num
            if p[0][1] > p[1][1]:
                p[0], p[1] = p[1], p[0]
        elif num < p[0][1]:
            p[1] = p[0]
            p[0] = [tp_val, num]
        elif num < p[1][1]:
            p[1] = [tp_val, num]

    def clone(self) -> CriticalPaths:
        return CriticalPaths([list(self.paths[0]), list(self.paths[1])])


@dataclass
class PreFilterState:
    """filtering.go preFilterState."""

    constraints: list[TopologySpreadConstraint] = field(default_factory=list)
    critical_paths: list[CriticalPaths] = field(default_factory=list)
    tp_value_to_match_num: list[dict[str, int]] = field(default_factory=list)

    def min_match_num(self, i: int, min_domains: int) -> int:
        """preFilterState.minMatchNum: the global minimum, 0 when fewer domains than minDomains."""
        m = self.critical_paths[i].paths[0][1]
        if len(self.tp_value_to_match_num[i]) < min_domains:
            return 0
        return int(m) if m != math.inf else 0

    def clone(self) -> PreFilterState:
        """A copy whose counts can change without touching this one."""
        return PreFilterState(self.constraints, [p.clone() for p in self.critical_paths],
                              [dict(m) for m in self.tp_value_to_match_num])


@dataclass
class PreScoreState:
    """scoring.go preScoreState."""

    constraints: list[TopologySpreadConstraint] = field(default_factory=list)
    ignored_nodes: set[str] = field(default_factory=set)
    topology_value_to_pod_counts: list[dict[str, int]] = field(default_factory=list)
    topology_normalizing_weight: list[float] = field(default_factory=list)

    def clone(self) -> PreScoreState:
        """The state itself: scoring never changes it."""
        return self


def node_labels_match_spread_constraints(labels: Mapping[str, str],
                                         constraints: Sequence[TopologySpreadConstraint]) -> bool:
    """common.go nodeLabelsMatchSpreadConstraints: every topology key is a label of the node."""
    return all(c.topology_key in labels for c in constraints)


def count_pods_match_selector(pods: Iterable[PodInfo], selector: Selector, ns: str) -> int:
    """How many pods of ``ns`` match the selector (common.go countPodsMatchSelector).

    Terminating pods do not count, and an empty selector counts nothing.
    """
    if selector.empty():
        return 0
    n = 0
    matches = selector.matches
    for p in pods:
        if p.namespace != ns or p.pod.meta.deletion_timestamp:
            continue
        if matches(p.pod.meta.labels):
            n += 1
    return n


def _required_node_affinity_matches(pod: PodInfo, node: NodeInfo) -> bool:
    """Whether the node matches the pod's nodeSelector and required node affinity.

    Upstream: component-helpers nodeaffinity GetRequiredNodeAffinity(pod).Match(node).
    """
    labels = node.labels
    for k, v in pod.node_selector.items():
        if labels.get(k) != v:
            return False
    req = pod.required_node_affinity
    return req is None or req.matches(node.name, labels)


class PodTopologySpread(Plugin):
    """The PodTopologySpread plugin: hard and soft topology spread constraints."""
    name = NAME

    def __init__(
        self,
        *,
        default_constraints: Sequence[Mapping[str, Any]] | None = None,
        system_defaulting: bool = True,
        controllers: Iterable[Mapping[str, Any]] = (),
        enable_node_inclusion_policy: bool = True,
        enable_match_label_keys: bool = True,
    ) -> None:
        # plugin.go New: DefaultingType System uses systemDefaultConstraints, List uses the given ones.
        self.system_defaulted = system_defaulting
        self.default_constraints = list(SYSTEM_DEFAULT_CONSTRAINTS if system_defaulting
                                        else default_constraints or ())
        self.controllers = _Controllers(controllers)
        self.enable_node_inclusion_policy = enable_node_inclusion_policy
        self.enable_match_label_keys = enable_match_label_keys

    # ------------------------------------------------------------------ constraints

    def filter_topology_spread_constraints(
        self, constraints: Sequence[Any], pod_labels: Mapping[str, str], action: str, *, indexed: bool
    ) -> list[TopologySpreadConstraint]:
        """common.go filterTopologySpreadConstraints (raises SelectorError)."""
        out = []
        for i, c in enumerate(constraints):
            c = _d(c)
            if c.get("whenUnsatisfiable") != action:
                continue
            selector = label_selector_as_selector(c.get("labelSelector"))
            keys = c.get("matchLabelKeys") or ()
            if self.enable_match_label_keys and keys:
                match = {k: pod_labels[k] for k in keys if k in pod_labels}
                if match:
                    selector = _merge_label_set_with_selector(match, selector)
            aff, taints = HONOR, IGNORE
            if self.enable_node_inclusion_policy:
                aff = c.get("nodeAffinityPolicy") or HONOR
                taints = c.get("nodeTaintsPolicy") or IGNORE
            out.append(TopologySpreadConstraint(
                max_skew=_int(c.get("maxSkew"), 0), topology_key=str(c.get("topologyKey") or ""),
                selector=selector, min_domains=_int(c.get("minDomains"), 1),
                node_affinity_policy=aff, node_taints_policy=taints, index=i if indexed else -1))
        return out

    def build_default_constraints(self, pod: PodInfo, action: str) -> list[TopologySpreadConstraint]:
        """common.go buildDefaultConstraints."""
        constraints = self.filter_topology_spread_constraints(self.default_constraints, pod.labels, action,
                                                              indexed=False)
        if not constraints:
            return []
        selector = self.controllers.default_selector(pod)
        if selector.empty():
            return []
        return [TopologySpreadConstraint(c.max_skew, c.topology_key, selector, c.min_domains,
                                         c.node_affinity_policy, c.node_taints_policy, c.index)
                for c in constraints]

    def get_constraints(self, pod: PodInfo, action: str = DO_NOT_SCHEDULE) -> list[TopologySpreadConstraint]:
        """plugin.go getConstraints: the pod's own constraints, or the default ones when it has none."""
        own = pod.spec.get("topologySpreadConstraints")
        if isinstance(own, list) and own:
            return self.filter_topology_spread_constraints(own, pod.labels, action, indexed=True)
        return self.build_default_constraints(pod, action)

    def _match_node_inclusion_policies(self, c: TopologySpreadConstraint, pod: PodInfo, node: NodeInfo) -> bool:
        """common.go matchNodeInclusionPolicies."""
        if c.node_affinity_policy == HONOR and not _required_node_affinity_matches(pod, node):
            return False
        if c.node_taints_policy == HONOR and untolerated_taint(node, pod.tolerations) is not None:
            return False
        return True

    # ------------------------------------------------------------------ PreFilter / Filter

    def cal_pre_filter_state(self, pod: PodInfo, all_nodes: Sequence[NodeInfo]) -> PreFilterState:
        """filtering.go calPreFilterState."""
        constraints = self.get_constraints(pod)
        if not constraints:
            return PreFilterState()
        s = PreFilterState(constraints, [], [{} for _ in constraints])
        for ni in all_nodes:
            if ni.node is None:
                continue
            if not self.enable_node_inclusion_policy and not _required_node_affinity_matches(pod, ni):
                continue
            labels = ni.labels
            if not node_labels_match_spread_constraints(labels, constraints):
                continue
            for i, c in enumerate(constraints):
                if self.enable_node_inclusion_policy and not self._match_node_inclusion_policies(c, pod, ni):
                    continue
                value = labels[c.topology_key]
                counts = s.tp_value_to_match_num[i]
                counts[value] = counts.get(value, 0) + count_pods_match_selector(ni.pods, c.selector, pod.namespace)
        for i in range(len(constraints)):
            cp = CriticalPaths()
            for value, num in s.tp_value_to_match_num[i].items():
                cp.update(value, num)
            s.critical_paths.append(cp)
        return s

    def pre_filter(self, state: CycleState, pod: PodInfo, snapshot: Snapshot) -> Status | None:
        """Count matching pods per topology domain for the hard constraints; Skip without any."""
        try:
            s = self.cal_pre_filter_state(pod, snapshot.node_infos)
        except SelectorError as e:
            return as_error(f"get constraints from pod: obtaining pod's hard topology spread constraints: {e}")
        if not s.constraints:
            return SKIP
        state.data[_PRE_FILTER_KEY] = s
        return None

    def _update_with_pod(self, state: CycleState, updated: PodInfo, preemptor: PodInfo, node: NodeInfo,
                         delta: int) -> Status | None:
        """filtering.go updateWithPod (AddPod/RemovePod)."""
        s = state.data.get(_PRE_FILTER_KEY)
        if not isinstance(s, PreFilterState):
            return as_error(f'reading "{_PRE_FILTER_KEY}" from cycleState: not found')
        if updated.namespace != preemptor.namespace or node.node is None:
            return None
        labels = node.labels
        if not node_labels_match_spread_constraints(labels, s.constraints):
            return None
        if not self.enable_node_inclusion_policy and not _required_node_affinity_matches(preemptor, node):
            return None
        for i, c in enumerate(s.constraints):
            if not c.selector.matches(updated.labels):
                continue
            if self.enable_node_inclusion_policy and not self._match_node_inclusion_policies(c, preemptor, node):
                continue
            v = labels[c.topology_key]
            counts = s.tp_value_to_match_num[i]
            counts[v] = counts.get(v, 0) + delta
            s.critical_paths[i].update(v, counts[v])
        return None

    def add_pod(self, state: CycleState, pod: PodInfo, pod_to_add: PodInfo, node: NodeInfo) -> Status | None:
        """Count ``pod_to_add`` on ``node`` in the PreFilter state."""
        return self._update_with_pod(state, pod_to_add, pod, node, 1)

    def remove_pod(self, state: CycleState, pod: PodInfo, pod_to_remove: PodInfo, node: NodeInfo) -> Status | None:
        """Uncount ``pod_to_remove`` on ``node`` in the PreFilter state."""
        return self._update_with_pod(state, pod_to_remove, pod, node, -1)

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        """filtering.go Filter."""
        s = state.data.get(_PRE_FILTER_KEY)
        if not isinstance(s, PreFilterState):
            return as_error(f'reading "{_PRE_FILTER_KEY}" from cycleState: not found')
        if not s.constraints or node.node is None:
            return None
        labels = node.labels
        for i, c in enumerate(s.constraints):
            tp_val = labels.get(c.topology_key)
            if tp_val is None:
                return unresolvable(ERR_REASON_NODE_LABEL_NOT_MATCH, detail=(
                    f"{c.describe()}: the node has no label {c.topology_key}",))
            min_match = s.min_match_num(i, c.min_domains)
            self_match = 1 if c.selector.matches(pod.labels) else 0
            match_num = s.tp_value_to_match_num[i].get(tp_val, 0)
            skew = match_num + self_match - min_match
            if skew > c.max_skew:
                return unschedulable(ERR_REASON_CONSTRAINTS_NOT_MATCH,
                                     detail=(self._skew_detail(s, i, c, tp_val, self_match, min_match, skew),))
        return None

    def _skew_detail(self, s: PreFilterState, i: int, c: TopologySpreadConstraint, tp_val: str, self_match: int,
                     min_match: int, skew: int) -> str:
        """Why a node breaks constraint ``i``, in numbers.

        ``<constraint>: zone: zone-a has 3 matching pods, zone-b 1; placing here makes skew 3 > maxSkew 1
        (3 + 1 for the pod itself - 1 in zone-b)``.
        """
        counts = s.tp_value_to_match_num[i]
        here = counts.get(tp_val, 0)
        others = sorted(((v, n) for v, n in counts.items() if v != tp_val), key=lambda vn: (vn[1], vn[0]))
        text = f"{c.describe()}: {c.topology_key}: {tp_val} has {here} matching pod{'' if here == 1 else 's'}"
        if len(others) <= 4:
            text += "".join(f", {v} {n}" for v, n in others)
        else:
            text += f", {others[0][0]} {others[0][1]} (the fewest of {len(counts)} domains)"
        if len(counts) < c.min_domains:
            where = (f"the global minimum counts as 0: only {len(counts)} domain{'' if len(counts) == 1 else 's'}, "
                     f"fewer than minDomains {c.min_domains}")
        else:
            where = f"the fewest, in {s.critical_paths[i].paths[0][0]}"
        how = f"{here}{' + 1 for the pod itself' if self_match else ''} - {min_match}, {where}"
        return f"{text}; placing here makes skew {skew} > maxSkew {c.max_skew} ({how})"

    # ------------------------------------------------------------------ scoring

    def _init_pre_score_state(self, s: PreScoreState, pod: PodInfo, filtered: Sequence[NodeInfo],
                              require_all_topologies: bool) -> None:
        """scoring.go initPreScoreState."""
        s.constraints = self.get_constraints(pod, SCHEDULE_ANYWAY)
        if not s.constraints:
            return
        s.topology_value_to_pod_counts = [{} for _ in s.constraints]
        topo_size = [0] * len(s.constraints)
        for ni in filtered:
            labels = ni.labels
            if require_all_topologies and not node_labels_match_spread_constraints(labels, s.constraints):
                s.ignored_nodes.add(ni.name)
                continue
            for i, c in enumerate(s.constraints):
                if c.topology_key == LABEL_HOSTNAME:
                    continue  # per-node counts are calculated during Score
                value = labels.get(c.topology_key, "")
                if value not in s.topology_value_to_pod_counts[i]:
                    s.topology_value_to_pod_counts[i][value] = 0
                    topo_size[i] += 1
        for i, c in enumerate(s.constraints):
            sz = topo_size[i]
            if c.topology_key == LABEL_HOSTNAME:
                sz = len(filtered) - len(s.ignored_nodes)
            s.topology_normalizing_weight.append(go_log(sz + 2))  # topologyNormalizingWeight

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Status | None:
        """Count matching pods over all nodes for the soft constraints (scoring.go PreScore).

        The soft constraints are the ScheduleAnyway ones, or the system default constraints for a pod
        without constraints.
        """
        snapshot = state.snapshot
        all_nodes = [n for n in (snapshot.node_infos if isinstance(snapshot, Snapshot) else nodes)
                     if n.node is not None]
        if not all_nodes:
            return SKIP
        s = PreScoreState()
        own = pod.spec.get("topologySpreadConstraints")
        require_all = bool(isinstance(own, list) and own) or not self.system_defaulted
        try:
            self._init_pre_score_state(s, pod, nodes, require_all)
        except SelectorError as e:
            return as_error(f"calculating preScoreState: obtaining pod's soft topology spread constraints: {e}")
        if not s.constraints:
            return SKIP
        for ni in all_nodes:
            if not self.enable_node_inclusion_policy and not _required_node_affinity_matches(pod, ni):
                continue
            labels = ni.labels
            if require_all and not node_labels_match_spread_constraints(labels, s.constraints):
                continue
            for i, c in enumerate(s.constraints):
                if self.enable_node_inclusion_policy and not self._match_node_inclusion_policies(c, pod, ni):
                    continue
                value = labels.get(c.topology_key, "")
                counts = s.topology_value_to_pod_counts[i]
                if value not in counts:
                    continue
                counts[value] += count_pods_match_selector(ni.pods, c.selector, pod.namespace)
        state.data[_PRE_SCORE_KEY] = s
        return None

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int:
        """scoring.go Score: the node's weighted matching-pod count (lower is better; normalized later)."""
        s = state.data.get(_PRE_SCORE_KEY)
        if not isinstance(s, PreScoreState) or node.name in s.ignored_nodes:
            return 0
        labels = node.labels
        score = 0.0
        for i, c in enumerate(s.constraints):
            tp_val = labels.get(c.topology_key)
            if tp_val is None:
                continue
            if c.topology_key == LABEL_HOSTNAME:
                cnt = count_pods_match_selector(node.pods, c.selector, pod.namespace)
            else:
                cnt = s.topology_value_to_pod_counts[i][tp_val]
            # scoreForCount
            score += cnt * s.topology_normalizing_weight[i] + (c.max_skew - 1)
        return _round_half_away(score)

    def normalize_score(self, state: CycleState, pod: PodInfo, scores: dict[str, int]) -> None:
        """scoring.go NormalizeScore: MaxNodeScore * (max + min - score) / max; ignored nodes get 0."""
        s = state.data.get(_PRE_SCORE_KEY)
        if not isinstance(s, PreScoreState):
            return
        min_score: int | None = None
        max_score = 0
        for name, sc in scores.items():
            if name in s.ignored_nodes:
                continue
            min_score = sc if min_score is None or sc < min_score else min_score
            max_score = max(max_score, sc)
        lo = min_score if min_score is not None else 0
        for name, sc in scores.items():
            if name in s.ignored_nodes:
                scores[name] = 0
            elif max_score == 0:
                scores[name] = MAX_NODE_SCORE
            else:
                scores[name] = _go_div(MAX_NODE_SCORE * (max_score + lo - sc), max_score)


def go_log(x: float) -> float:
    """Go's math.Log, so that scores round as upstream's do.

    Upstream: math/log.go (amd64's log_amd64.s computes the same steps). The C library's log differs from it in the
    last bit for some arguments (log(3)).
    """
    if math.isnan(x) or x == math.inf:
        return x
    if x < 0:
        return math.nan
    if x == 0:
        return -math.inf
    ln2_hi, ln2_lo = 6.93147180369123816490e-01, 1.90821492927058770002e-10
    l1, l2, l3, l4 = 6.666666666666735130e-01, 3.999999999940941908e-01, 2.857142874366239149e-01, \
        2.222219843214978396e-01
    l5, l6, l7 = 1.818357216161805012e-01, 1.531383769920937332e-01, 1.479819860511658591e-01
    f1, ki = math.frexp(x)
    if f1 < math.sqrt(2) / 2:
        f1 *= 2
        ki -= 1
    f = f1 - 1
    k = float(ki)
    s = f / (2 + f)
    s2 = s * s
    s4 = s2 * s2
    t1 = s2 * (l1 + s4 * (l3 + s4 * (l5 + s4 * l7)))
    t2 = s4 * (l2 + s4 * (l4 + s4 * l6))
    r = t1 + t2
    hfsq = 0.5 * f * f
    return k * ln2_hi - ((hfsq - (s * (hfsq + r) + k * ln2_lo)) - f)


def _round_half_away(x: float) -> int:
    """Go math.Round: half away from zero."""
    return int(math.floor(x + 0.5)) if x >= 0 else -int(math.floor(-x + 0.5))


def _go_div(a: int, b: int) -> int:
    """Go integer division (truncates toward zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


__all__ = [
    "ERR_REASON_CONSTRAINTS_NOT_MATCH",
    "ERR_REASON_NODE_LABEL_NOT_MATCH",
    "NAME",
    "PodTopologySpread",
    "PreFilterState",
    "PreScoreState",
    "TopologySpreadConstraint",
    "count_pods_match_selector",
]

