"""``dractl check``: what would happen if this file were applied? Nothing is written.

The file's objects are applied to a copy of the cluster's objects with the control
plane's own rules (admission, the resourceclaim controller, the scheduler pod by pod in
creation order: pods already pending in the cluster first, then the file's pods in file
order), as ``dractl fake apply`` would, and the report gives each of the file's
pods its outcome: the node and the devices, or the scheduler's reason. Claims made from
a template are named ``<pod>-<claim>`` here (the real controller adds 5 random
characters). A pending pod the scheduler already found unschedulable is not tried again
(see :func:`parked`). A file without pods is checked as if one pod (per namespace) used all of
its claims, with one claim per template named after the template. Pure.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from dractl.allocator.explain import Explanation
from dractl.control import admission
from dractl.control.plane import ControlPlane
from dractl.features import DEFAULT_GATES, FeatureGates
from dractl.model.cluster import Cluster
from dractl.model.objects import (
    AllocationResult,
    DeviceClass,
    LimitRange,
    Namespace,
    Pod,
    ResourceClaim,
    ResourceClaimTemplate,
    ResourceQuota,
)
from dractl.model.parse import parse_object
from dractl.model.relations import claim_from_template
from dractl.model.serialize import allocation_to_dict

# DeviceClasses, Namespaces, LimitRanges and ResourceQuotas of the file are applied to the copy too: a what-if
# for a new class or a new quota.
CHECKED_KINDS = (ResourceClaim, ResourceClaimTemplate, Pod, DeviceClass, Namespace, LimitRange, ResourceQuota)


@dataclass
class CheckedClaim:
    """A claim of the checked file, with the allocation it would get."""
    namespace: str
    name: str
    allocation: AllocationResult | None = None

    def to_dict(self) -> dict[str, Any]:
        """The claim as a JSON-ready dict."""
        return {
            "namespace": self.namespace,
            "name": self.name,
            "allocation": allocation_to_dict(self.allocation) if self.allocation is not None else None,
        }


@dataclass
class PodOutcome:
    """One pod of the file (``name`` None: the claims of a file without pods, together)."""

    namespace: str
    name: str | None
    outcome: str  # scheduled | unschedulable | refused (by the apiserver's admission) | error
    node: str | None = None
    message: str | None = None  # the scheduler's message when not scheduled, the apiserver's when refused
    error: str | None = None
    claims: list[CheckedClaim] = field(default_factory=list)
    explanation: Explanation | None = None
    #: per node that turned the pod away: its filter, upstream's reasons and the explanation in numbers
    nodes: dict[str, Any] = field(default_factory=dict)
    #: what dractl could not check for this pod (volumes; nodes known only from ResourceSlices)
    notes: list[str] = field(default_factory=list)
    volumes_not_checked: list[str] = field(default_factory=list)
    not_checked: dict[str, list[str]] = field(default_factory=dict)
    #: every node with the top score, ``node`` included, in name order (the real scheduler picks one at random)
    tied_nodes: list[str] = field(default_factory=list)
    #: node -> {plugin -> weighted score, "total"} over the feasible nodes (none when one node fits)
    scores: dict[str, dict[str, int]] = field(default_factory=dict)
    #: the number of nodes the cluster has (upstream may filter fewer in a cluster of 100 or more)
    num_nodes: int = 0
    #: when the pod fits only once lower-priority pods are evicted: {node, victims: ["ns/name"], tiedNodes}
    preemption: dict[str, Any] | None = None
    #: the victims' priorities, in the order of ``preemption["victims"]`` (for the text)
    victim_priorities: list[int] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The pod's outcome as a JSON-ready dict."""
        return {
            "namespace": self.namespace,
            "name": self.name,
            "outcome": self.outcome,
            "node": self.node,
            "message": self.message,
            "error": self.error,
            "claims": [c.to_dict() for c in self.claims],
            "explanation": self.explanation.to_dict() if self.explanation is not None else None,
            "nodes": dict(self.nodes),
            "volumesNotChecked": list(self.volumes_not_checked),
            "notChecked": {n: list(v) for n, v in self.not_checked.items()},
            "tiedNodes": list(self.tied_nodes),
            "scores": {n: dict(v) for n, v in self.scores.items()},
            **({"preemption": dict(self.preemption)} if self.preemption is not None else {}),
        }


@dataclass(frozen=True)
class RefusedObject:
    """An object of the file (not a pod) that the apiserver would refuse, with its words."""

    kind: str
    namespace: str
    name: str
    message: str

    def to_dict(self) -> dict[str, Any]:
        """The refused object as a JSON-ready dict."""
        return {"kind": self.kind, "namespace": self.namespace, "name": self.name, "message": self.message}


@dataclass
class CheckReport:
    """What ``dractl check`` found: each pod's outcome and the objects the apiserver would refuse."""
    pods: list[PodOutcome] = field(default_factory=list)
    node: str | None = None  # --node
    refused: list[RefusedObject] = field(default_factory=list)  # the file's other objects admission refuses

    @property
    def outcome(self) -> str:
        """The overall outcome: scheduled, error, refused or unschedulable.

        It is scheduled when every pod is (and nothing is refused); else error if any pod hit an error; else
        refused if the apiserver refuses an object; else unschedulable.
        """
        outcomes = {p.outcome for p in self.pods}
        if outcomes <= {"scheduled"} and not self.refused:
            return "scheduled"
        if "error" in outcomes:
            return "error"
        return "refused" if "refused" in outcomes or self.refused else "unschedulable"

    def to_dict(self) -> dict[str, Any]:
        """The report as a JSON-ready dict."""
        doc: dict[str, Any] = {"outcome": self.outcome, "pods": [p.to_dict() for p in self.pods]}
        if self.refused:
            doc["refused"] = [r.to_dict() for r in self.refused]
        return doc


CHECK_POD = "dractl-check"  # the stand-in consumer of a file without pods


def _stand_ins(objects: Sequence[Any]) -> list[Any]:
    """Without pods: a claim per template (named after it) and one pod per namespace using all claims."""
    out: list[Any] = list(objects)
    by_ns: dict[str, list[str]] = {}
    for o in objects:
        if isinstance(o, ResourceClaimTemplate):
            out.append(parse_object(claim_from_template(o, o.name), validate=False))
    for o in out:
        if isinstance(o, ResourceClaim) and o.name not in by_ns.setdefault(o.namespace, []):
            by_ns[o.namespace].append(o.name)
    for ns, names in by_ns.items():
        raw = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": CHECK_POD, "namespace": ns},
            "spec": {
                "containers": [],
                "resourceClaims": [{"name": f"claim-{i}", "resourceClaimName": n} for i, n in enumerate(names)],
            },
        }
        out.append(parse_object(raw, validate=False))
    return out


def check(
    cluster: Cluster,
    objects: Sequence[Any],
    *,
    namespace: str | None = None,
    node: str | None = None,
    features: FeatureGates = DEFAULT_GATES,
    origin: Callable[[Any], str] | None = None,
) -> CheckReport:
    """Apply ``objects`` (claims, templates and pods; others are ignored) to a copy of ``cluster`` and schedule.

    Objects without a namespace go to ``namespace``. ``origin(o)``: the file ``o`` came from.

    Raises InputError when the apiserver would refuse an object (admission), naming its file.
    """
    # the file's own namespace, else ``namespace``: the model says "default" both for an object in "default" and
    # for one without a namespace, so the raw object tells them apart (defaulted returns it when it names one)
    files: dict[int, str] = {}
    kept = []
    for o in objects:
        if not isinstance(o, CHECKED_KINDS):
            continue
        raw = admission.defaulted(o.raw, namespace)
        new = o if raw is o.raw else parse_object(dict(raw), validate=False)
        if origin is not None:
            files[id(new)] = origin(o)
        kept.append(new)
    objects = kept
    pods = [o for o in objects if isinstance(o, Pod)]
    stand_in = not pods
    if stand_in:
        objects = _stand_ins(objects)
        pods = [o for o in objects if isinstance(o, Pod)]
    plane = ControlPlane.of(cluster, features=features, random_names=False)
    refused = {}
    report = CheckReport(node=node)
    for e in plane.apply(objects, namespace, origin=lambda o: files.get(id(o), "")):
        if e.verb == "refused":
            kind, _, name = e.ref.partition("/")
            if kind == "pod":
                refused[(e.namespace, name)] = e.message
            else:
                report.refused.append(RefusedObject(_KINDS.get(kind.partition(".")[0], kind), e.namespace, name,
                                                    e.message))
    keys = [(p.namespace, p.name) for p in pods]
    admitted = [k for k in keys if k not in refused]
    plane.reconcile(explain=admitted, pin=dict.fromkeys(admitted, node) if node else None,
                    hold=parked(cluster, objects))
    for ns, name in keys:
        if (ns, name) in refused:
            report.pods.append(PodOutcome(ns, None if stand_in else name, "refused", message=refused[(ns, name)]))
            continue
        report.pods.append(_outcome(plane, ns, name, len(plane.cluster().node_names) if node is None else 1, stand_in))
    return report


_KINDS = {k.__name__.lower(): k.__name__ for k in CHECKED_KINDS}


def parked(cluster: Cluster, objects: Sequence[Any]) -> set[tuple[str, str]]:
    """The pending pods of ``cluster`` that applying ``objects`` does not bring back to the scheduler.

    A pod the scheduler found unschedulable (PodScheduled False, reason Unschedulable) waits in kube-scheduler's
    unschedulable queue until an event its plugins' queueing hints accept. The file's pods and claims give no
    such event for it (an unscheduled pod's creation none at all; a new claim only to a pod that uses it:
    dynamicresources.go isSchedulableAfterClaimChange), so it is not tried before the file's pods, unless one of
    the file's claims or templates is one it names (its claim then appears, or the resourceclaim controller
    creates it).
    """
    named = {(o.meta.namespace, type(o).__name__, o.meta.name) for o in objects
             if isinstance(o, (ResourceClaim, ResourceClaimTemplate))}
    out = set()
    for p in cluster.pods:
        cond = p.condition("PodScheduled")
        if p.node_name or p.meta.deletion_timestamp or cond is None or cond.status != "False" \
                or cond.reason != "Unschedulable":
            continue
        ns = p.meta.namespace
        uses = {(ns, "ResourceClaim", rc.resource_claim_name) for rc in p.resource_claims if rc.resource_claim_name}
        uses |= {(ns, "ResourceClaimTemplate", rc.resource_claim_template_name) for rc in p.resource_claims
                 if rc.resource_claim_template_name}
        if not uses & named:
            out.add((ns, p.meta.name))
    return out


def _outcome(plane: ControlPlane, ns: str, name: str, n_nodes: int, stand_in: bool) -> PodOutcome:
    shown = None if stand_in else name
    res = plane.results.get((ns, name))
    pod = plane.get("Pod", ns, name)
    if res is None:  # bound before: already running on its node
        claims = _claims_of(plane, pod)
        return PodOutcome(ns, shown, "scheduled", pod.node_name or None, claims=claims)
    p = res.placement
    claims = [CheckedClaim(c.namespace, c.name, c.allocation) for c in res.claims]
    if p is None:  # waited for its claims
        return PodOutcome(ns, shown, "unschedulable", message=res.message, claims=claims)
    from dractl.scheduler.explain import filter_lines, not_checked_lines

    unchecked = not_checked_lines(p)
    extra: dict[str, Any] = {"notes": unchecked, "volumes_not_checked": list(p.volumes),
                             "not_checked": {n: list(v) for n, v in p.not_checked.items()}}
    if p.error is not None:
        return PodOutcome(ns, shown, "error", p.node, error=p.error, claims=claims, explanation=p.explanation,
                          **extra)
    if p.allocations is None:
        ex = p.explanation
        why = [line for line in filter_lines(p) if line not in unchecked]
        if ex is not None:
            ex.notes[:0] = [*([p.message] if n_nodes > 1 and p.message else []), *why]
        elif p.message:
            ex = Explanation(notes=[p.message, *why])
        return PodOutcome(
            ns,
            shown,
            "unschedulable",
            message=p.message,
            claims=[CheckedClaim(c.namespace, c.name) for c in res.claims],
            explanation=ex,
            nodes=p.node_details(),
            **extra,
        )
    out = PodOutcome(ns, shown, "scheduled", p.node, claims=claims, tied_nodes=list(p.tied),
                     scores=p.scores_dict(), num_nodes=n_nodes, **extra)
    if res.preempted is not None and res.preempted.preemption is not None:
        pre = res.preempted.preemption
        out.preemption = pre.to_dict()
        out.victim_priorities = [v.priority for v in pre.victims]
        out.message = res.preempted.message  # the attempt that preempted, as the pod's condition said it
    return out


def _claims_of(plane: ControlPlane, pod: Any) -> list[CheckedClaim]:
    out = []
    statuses = {s.name: s.resource_claim_name for s in pod.claim_statuses}
    for rc in pod.resource_claims:
        name = rc.resource_claim_name or statuses.get(rc.name, "")
        c = plane.get("ResourceClaim", pod.meta.namespace, name) if name else None
        if c is not None:
            out.append(CheckedClaim(c.namespace, c.name, c.allocation))
    return out
