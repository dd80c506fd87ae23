"""DefaultPreemption, the default profile's PostFilter.

It answers, for a pod that fits no node, which lower-priority pods the scheduler would evict, and where the
pod would then go.

Ported from pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go (PodEligibleToPreemptOthers,
SelectVictimsOnNode, calculateNumCandidates) and pkg/scheduler/framework/preemption/preemption.go (Preempt,
findCandidates, DryRunPreemption, pickOneNodeForPreemption) and util.go (MoreImportantPod,
FilterVictimsWithPDBViolation), kube-scheduler v1.37.2, with GenericWorkload off (each pod is its own victim).

What upstream does not do, dractl does not either: DynamicResources has no PreFilterExtensions, so removing a
victim frees none of its devices in the dry run (a node that lacks devices stays ``cannot allocate all claims``,
and is not a candidate at all: that status is UnschedulableAndUnresolvable). Not modelled: pods nominated to a
node by an earlier preemption (RunFilterPluginsWithNominatedPods adds them), extenders.

Upstream looks at the candidate nodes from a random offset and takes, among the candidates as good as each
other after every criterion, the first it found; dractl looks at every node and names them all (``tied``), the
first by name being its pick. Pure: never prints.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dractl.model.namespaces import namespace_of
from dractl.scheduler.framework import (
    Code,
    CycleState,
    Diagnosis,
    Framework,
    NodeInfo,
    Plugin,
    PodInfo,
    Status,
    fit_error,
    unresolvable,
)

NAME = "DefaultPreemption"
NOT_HELPFUL = "Preemption is not helpful for scheduling"
NO_VICTIMS = "No preemption victims found for incoming pod"
NOT_ELIGIBLE_NEVER = "not eligible due to preemptionPolicy=Never."
MIN_CANDIDATE_NODES_PERCENTAGE = 10  # DefaultPreemptionArgs defaults
MIN_CANDIDATE_NODES_ABSOLUTE = 100
MAX_INT32 = 2**31 - 1


@dataclass
class Preemption:
    """What DefaultPreemption said.

    ``message`` is its status message with upstream's ``preemption: `` prefix (what follows the FitError in
    the pod's condition); ``node`` and ``victims`` when it found a placement.
    """

    message: str
    node: str | None = None
    victims: list[PodInfo] = field(default_factory=list)
    #: every candidate as good as ``node`` by pickOneNodeForPreemption's criteria, ``node`` included, by name
    tied: list[str] = field(default_factory=list)
    num_pdb_violations: int = 0
    #: per node looked at and not a candidate: why (its status after the victims were removed)
    statuses: dict[str, Status] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The pick as a JSON-ready dict: node, victims and the tied nodes."""
        return {"node": self.node, "victims": [v.key for v in self.victims], "tiedNodes": list(self.tied)}


@dataclass(frozen=True)
class PDB:
    """What preemption reads of a PodDisruptionBudget (policy/v1): its namespace, selector and status."""

    namespace: str
    selector: Any  # dractl.scheduler.labels.Selector, or None for an empty selector
    disruptions_allowed: int
    disrupted_pods: frozenset[str] = frozenset()

    @classmethod
    def of(cls, raw: Mapping[str, Any], pods: Sequence[PodInfo] = ()) -> PDB | None:
        """Read a PodDisruptionBudget from its API object; None when its selector does not parse.

        Without a status (nothing ran the disruption controller: the fake cluster) the disruptions allowed
        are worked out as it would for pods without a controller: ``minAvailable`` as a number against the
        matching running pods, else none.
        """
        from dractl.scheduler.labels import SelectorError, label_selector_as_selector

        md = raw.get("metadata") if isinstance(raw.get("metadata"), Mapping) else {}
        spec = raw.get("spec") if isinstance(raw.get("spec"), Mapping) else {}
        ns = namespace_of(md)
        try:
            parsed = label_selector_as_selector((spec or {}).get("selector"))
        except SelectorError:
            return None  # upstream skips a PDB whose selector does not parse
        # an empty selector matches no pod (FilterVictimsWithPDBViolation: selector.Empty())
        selector = None if parsed.empty() or parsed.nothing else parsed
        status = raw.get("status") if isinstance(raw.get("status"), Mapping) else None
        if status is not None and "disruptionsAllowed" in status:
            allowed = status.get("disruptionsAllowed")
            disrupted = status.get("disruptedPods")
            return cls(ns, selector, allowed if isinstance(allowed, int) else 0,
                       frozenset(disrupted) if isinstance(disrupted, Mapping) else frozenset())
        allowed = 0
        min_available = (spec or {}).get("minAvailable")
        if isinstance(min_available, int) and not isinstance(min_available, bool) and selector is not None:
            healthy = sum(1 for p in pods if p.namespace == ns and p.labels and selector.matches(p.labels))
            allowed = max(0, healthy - min_available)
        return cls(ns, selector, allowed)

    def matches(self, p: PodInfo) -> bool:
        """Whether the budget covers pod ``p``: same namespace, and its labels match the selector."""
        return self.namespace == p.namespace and self.selector is not None and bool(p.labels) and \
            self.selector.matches(p.labels)


_NOW = (float("inf"), 0)


def start_time(p: PodInfo) -> tuple[float, int]:
    """A pod's start time as (seconds, nanoseconds), for sorting (util.GetPodStartTime).

    It is status.startTime, or now for a pod without one (it sorts last).
    """
    st = p.status.get("startTime")
    if not isinstance(st, str) or not st:
        return _NOW
    m = re.fullmatch(r"([^.]+?)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)?", st)
    if m is None:
        return _NOW
    try:
        t = _dt.datetime.fromisoformat(m.group(1) + ("+00:00" if m.group(3) in (None, "Z") else m.group(3)))
    except ValueError:
        return _NOW
    frac = (m.group(2) or "")[:9].ljust(9, "0")
    return (t.timestamp(), int(frac))


def more_important(a: PodInfo, b: PodInfo) -> bool:
    """util.go MoreImportantPod: higher priority, then the earlier start."""
    if a.priority != b.priority:
        return a.priority > b.priority
    return start_time(a) < start_time(b)


def _importance_key(p: PodInfo) -> tuple[int, tuple[float, int]]:
    return (-p.priority, start_time(p))


def filter_victims_with_pdb_violation(
    victims: Sequence[PodInfo], pdbs: Sequence[PDB]
) -> tuple[list[PodInfo], list[PodInfo]]:
    """util.go FilterVictimsWithPDBViolation: (violating, non-violating), each in the victims' order."""
    allowed = [p.disruptions_allowed for p in pdbs]
    violating: list[PodInfo] = []
    non_violating: list[PodInfo] = []
    for v in victims:
        bad = False
        if v.labels:
            for i, pdb in enumerate(pdbs):
                if not pdb.matches(v):
                    continue
                if v.name in pdb.disrupted_pods:
                    continue
                allowed[i] -= 1
                if allowed[i] < 0:
                    bad = True
                    break
        (violating if bad else non_violating).append(v)
    return violating, non_violating


def _extensions(fw: Framework) -> list[Plugin]:
    return [p for p in fw.plugins if type(p).remove_pod is not Plugin.remove_pod]


def select_victims_on_node(
    fw: Framework, state: CycleState, pod: PodInfo, node: NodeInfo, pdbs: Sequence[PDB]
) -> tuple[list[PodInfo], int, Status]:
    """default_preemption.go SelectVictimsOnNode on a copy of the node and of the cycle state."""
    ext = [pl for pl in _extensions(fw) if pl.name not in state.skip_filter_plugins]
    potential = [p for p in node.pods if p.priority < pod.priority]
    if not potential:
        return [], 0, unresolvable(NO_VICTIMS)

    def remove(v: PodInfo) -> Status | None:
        node.remove_pod(v)
        for pl in ext:
            s = pl.remove_pod(state, pod, v, node)
            if s is not None and not s.is_success():
                return s
        return None

    def add(v: PodInfo) -> Status | None:
        node.add_pod(v)
        for pl in ext:
            s = pl.add_pod(state, pod, v, node)
            if s is not None and not s.is_success():
                return s
        return None

    for v in potential:
        s = remove(v)
        if s is not None:
            return [], 0, Status(Code.ERROR, s.reasons)
    st = fw.run_filter_plugins_with_nominated_pods(state, pod, node)
    if not st.is_success():
        return [], 0, st
    potential.sort(key=_importance_key)
    violating, non_violating = filter_victims_with_pdb_violation(potential, pdbs)
    victims: list[PodInfo] = []
    num_violating = 0

    def reprieve(v: PodInfo) -> bool | Status:
        s = add(v)
        if s is not None:
            return Status(Code.ERROR, s.reasons)
        fits = fw.run_filter_plugins_with_nominated_pods(state, pod, node).is_success()
        if not fits:
            s = remove(v)
            if s is not None:
                return Status(Code.ERROR, s.reasons)
            victims.append(v)
        return fits

    for v in violating:
        fits = reprieve(v)
        if isinstance(fits, Status):
            return [], 0, fits
        if not fits:
            num_violating += 1
    for v in non_violating:
        fits = reprieve(v)
        if isinstance(fits, Status):
            return [], 0, fits
    if violating and non_violating:
        victims.sort(key=_importance_key)
    return victims, num_violating, Status(Code.SUCCESS)


@dataclass
class _Candidate:
    name: str
    victims: list[PodInfo]
    num_pdb_violations: int


def pick_one_node_for_preemption(candidates: Sequence[_Candidate]) -> list[_Candidate]:
    """The candidates that pickOneNodeForPreemption's criteria leave, in order.

    The criteria, in order: fewest PDB violations; lowest highest victim priority;
    lowest sum of priorities; fewest victims; latest start of the highest-priority victims. Upstream takes
    the first of them in the order it happened to find them.
    """
    def earliest_start(c: _Candidate) -> tuple[float, int]:
        # util.GetEarliestPodStartTime: among the victims of the highest priority
        top = max(p.priority for p in c.victims)
        return min(start_time(p) for p in c.victims if p.priority == top)

    funcs = [
        lambda c: -c.num_pdb_violations,
        lambda c: -c.victims[0].priority,
        lambda c: -sum(p.priority + MAX_INT32 + 1 for p in c.victims),
        lambda c: -len(c.victims),
    ]
    left = list(candidates)
    for f in funcs:
        best = max(f(c) for c in left)
        left = [c for c in left if f(c) == best]
        if len(left) == 1:
            return left
    latest = max(earliest_start(c) for c in left)
    return [c for c in left if earliest_start(c) == latest]


def preempt(
    fw: Framework,
    state: CycleState,
    pod: PodInfo,
    nodes: Sequence[NodeInfo],
    diagnosis: Diagnosis,
    pdbs: Sequence[PDB] = (),
) -> Preemption:
    """What DefaultPreemption's PostFilter says for a pod that fits no node.

    That is the status message (prefixed ``preemption: ``) and, when some node would take the pod once lower-priority
    pods are gone, the pick and its victims.
    """
    if pod.spec.get("preemptionPolicy") == "Never":
        return Preemption("preemption: " + NOT_ELIGIBLE_NEVER)
    potential = [n for n in nodes if (st := diagnosis.status_of(n.name)) is not None and
                 st.code == Code.UNSCHEDULABLE]
    out = Preemption("")
    candidates: list[_Candidate] = []
    for n in potential:
        victims, violations, st = select_victims_on_node(fw, state.clone(), pod, n.clone(), pdbs)
        if st.is_success() and victims:
            candidates.append(_Candidate(n.name, victims, violations))
            continue
        if st.is_success():
            st = Status(Code.ERROR, (f'expected at least one victim pod on node "{n.name}"',))
        if st.code == Code.ERROR:
            out.message = "preemption: " + st.message()
            return out
        out.statuses[n.name] = st
    if not candidates:
        d = Diagnosis(node_to_status=dict(out.statuses), absent_nodes_status=unresolvable(NOT_HELPFUL))
        out.message = "preemption: " + fit_error(len(nodes), d)
        return out
    # DryRunPreemption keeps the non-violating candidates first; pickOneNodeForPreemption decides among all
    best = pick_one_node_for_preemption(candidates)
    best.sort(key=lambda c: c.name)
    pick = best[0]
    out.node, out.victims, out.num_pdb_violations = pick.name, pick.victims, pick.num_pdb_violations
    out.tied = [c.name for c in best]
    out.message = (f"preemption: found a potential placement for pod on node {pick.name}, "
                   f"preempting {len(pick.victims)} victims")
    return out
