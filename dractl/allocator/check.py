"""What-if for ``dractl check``: would these objects get devices, and where?

Pure: takes model objects, returns a :class:`CheckReport`. A Pod's claims are tried
together on one node (templates resolved from the file first, then the cluster; a
claim made from a template is named ``<pod>-<claim>``). Bare claims in the file are
tried together, in file order, as if one pod used them all. Nodes are tried in name
order; the first that fits is reported (dractl's contract; the scheduler would score).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from dractl.allocator.core import Allocator, Outcome
from dractl.allocator.explain import Explanation
from dractl.allocator.serialize import allocation_to_dict
from dractl.features import DEFAULT_GATES, FeatureGates
from dractl.model.cluster import Cluster
from dractl.model.objects import (
    AllocationResult,
    ObjectMeta,
    Pod,
    ResourceClaim,
    ResourceClaimTemplate,
)


@dataclass
class CheckedClaim:
    namespace: str
    name: str
    allocation: AllocationResult | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "namespace": self.namespace,
            "name": self.name,
            "allocation": allocation_to_dict(self.allocation) if self.allocation is not None else None,
        }


@dataclass
class CheckReport:
    outcome: str  # allocated | unschedulable | error
    node: str | None = None
    error: str | None = None
    claims: list[CheckedClaim] = field(default_factory=list)
    explanation: Explanation | None = None
    reasons: dict[str, str] = field(default_factory=dict)  # node -> scheduler's reason

    def to_dict(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome,
            "node": self.node,
            "error": self.error,
            "claims": [c.to_dict() for c in self.claims],
            "explanation": self.explanation.to_dict() if self.explanation is not None else None,
        }


class CheckInputError(ValueError):
    """The objects cannot be checked (a template or claim the pod names is missing)."""


def _claims_for(
    cluster: Cluster, objects: Sequence[Any]
) -> list[ResourceClaim]:
    file_claims = {(c.namespace, c.name): c for c in objects if isinstance(c, ResourceClaim)}
    file_templates = {(t.namespace, t.name): t for t in objects if isinstance(t, ResourceClaimTemplate)}
    pods = [o for o in objects if isinstance(o, Pod)]
    out: list[ResourceClaim] = []
    used: set[tuple[str, str]] = set()
    for pod in pods:
        ns = pod.namespace or "default"
        for pc in pod.resource_claims:
            if pc.resource_claim_template_name:
                t = file_templates.get((ns, pc.resource_claim_template_name)) or cluster.template(
                    ns, pc.resource_claim_template_name
                )
                if t is None:
                    raise CheckInputError(
                        f"pod {ns}/{pod.name}: ResourceClaimTemplate {ns}/{pc.resource_claim_template_name} not found"
                    )
                out.append(
                    ResourceClaim(
                        meta=ObjectMeta(name=f"{pod.name}-{pc.name}", namespace=ns, labels=t.claim_labels),
                        spec=t.spec,
                    )
                )
            elif pc.resource_claim_name:
                key = (ns, pc.resource_claim_name)
                c = file_claims.get(key) or cluster.claim(*key)
                if c is None:
                    raise CheckInputError(f"pod {ns}/{pod.name}: ResourceClaim {ns}/{pc.resource_claim_name} not found")
                if key not in used:
                    used.add(key)
                    out.append(c)
    if not pods:
        for o in objects:
            if isinstance(o, ResourceClaim):
                out.append(o)
    return out


def check(
    cluster: Cluster,
    objects: Sequence[Any],
    node: str | None = None,
    features: FeatureGates = DEFAULT_GATES,
    *,
    allocator: Allocator | None = None,
) -> CheckReport:
    """Try the objects' claims on ``node`` (or every node in name order)."""
    try:
        claims = _claims_for(cluster, objects)
    except CheckInputError as e:
        return CheckReport("error", node=node, error=str(e))
    # A claim of the file that is also in the cluster is checked as the file has it.
    file_keys = {c.key for c in claims}
    base = cluster
    if any(c.key in file_keys for c in cluster.claims):
        base = replace(cluster, claims=[c for c in cluster.claims if c.key not in file_keys])
    alloc = allocator or Allocator(base, features)
    nodes = [node] if node else cluster.node_names
    report_claims = [CheckedClaim(c.namespace, c.name) for c in claims]
    if not nodes:
        ex = Explanation(notes=["no nodes: the cluster has no Node objects and no node-local slices"])
        return CheckReport("unschedulable", node=node, claims=report_claims, explanation=ex)
    explanation = Explanation()
    reasons: dict[str, str] = {}
    for name in nodes:
        out: Outcome = alloc.allocate(name, claims)
        if out.status == "error":
            return CheckReport(
                "error", node=name, error=out.error, claims=report_claims, explanation=out.explanation, reasons=reasons
            )
        if out.allocations is not None:
            done = [CheckedClaim(c.namespace, c.name, a) for c, a in zip(claims, out.allocations)]
            return CheckReport("allocated", node=name, claims=done, reasons=reasons)
        reasons[name] = out.reason or ""
        if out.explanation is not None:
            explanation.merge(out.explanation)
    if len(nodes) > 1:
        n = len(nodes)
        counts: dict[str, int] = {}
        for r in reasons.values():
            counts[r] = counts.get(r, 0) + 1
        parts = ", ".join(f"{c} {r}" for r, c in counts.items())
        explanation.notes.insert(0, f"0/{n} nodes are available: {parts}.")
    return CheckReport("unschedulable", node=node, claims=report_claims, explanation=explanation, reasons=reasons)
