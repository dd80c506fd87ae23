"""Who uses what: claims, the pods that own or consume them, templates and nodes (pure).

Derived from a :class:`Cluster`; nothing here prints or allocates.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dractl.model.cluster import Cluster
    from dractl.model.objects import Pod, ResourceClaim, ResourceClaimTemplate

# The annotation the claim controller puts on a claim generated for a pod's claim.
POD_CLAIM_NAME = "resource.kubernetes.io/pod-claim-name"

ClaimKey = tuple[str, str]  # (namespace, name)


def claim_from_template(
    t: ResourceClaimTemplate,
    name: str,
    *,
    pod: Pod | None = None,
    pod_claim: str = "",
    uid: str = "",
    created: str = "",
) -> dict[str, Any]:
    """The ResourceClaim (v1 dict) made from template ``t`` for ``pod``'s claim ``pod_claim``.

    As the resourceclaim controller makes it (pkg/controller/resourceclaim/controller.go
    handleClaim): the template's labels and annotations, the pod-claim-name annotation,
    and the pod as controlling owner. Without a pod: just the template's claim.
    """
    tspec = t.raw.get("spec") or {}
    tmeta = tspec.get("metadata") or {}
    md: dict[str, Any] = {"name": name, "namespace": t.namespace}
    if uid:
        md["uid"] = uid
    if created:
        md["creationTimestamp"] = created
    annotations = dict(tmeta.get("annotations") or {})
    if pod is not None:
        annotations[POD_CLAIM_NAME] = pod_claim
        md["ownerReferences"] = [
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "name": pod.name,
                "uid": pod.meta.uid,
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ]
    if annotations:
        md["annotations"] = annotations
    if tmeta.get("labels"):
        md["labels"] = dict(tmeta["labels"])
    # The spec is shared, not copied: stored objects are never changed in place.
    spec = tspec.get("spec") or {}
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": md, "spec": spec}


def single_node(sel: Any) -> str | None:
    """The node an allocation's nodeSelector pins to (metadata.name or hostname In [x]), if any."""
    if sel is None or len(sel.terms) != 1:
        return None
    t = sel.terms[0]
    for r in (*t.match_fields, *t.match_expressions):
        if r.operator == "In" and len(r.values) == 1 and r.key in ("metadata.name", "kubernetes.io/hostname"):
            return r.values[0]
    return None


def claim_keys(p: Pod) -> dict[str, ClaimKey | None]:
    """Pod claim name -> (namespace, claim name), None when not created yet."""
    ns = p.namespace
    statuses = {s.name: s.resource_claim_name for s in p.claim_statuses}
    out: dict[str, ClaimKey | None] = {}
    for rc in p.resource_claims:
        if rc.resource_claim_name:
            out[rc.name] = (ns, rc.resource_claim_name)
        else:
            n = statuses.get(rc.name)
            out[rc.name] = (ns, n) if n else None
    return out


class Relations:
    """Pods by name and uid, and which pods use which claim."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.pods: dict[ClaimKey, Pod] = {}
        self.pods_by_uid: dict[str, Pod] = {}
        self.users: dict[ClaimKey, list[Pod]] = {}
        for p in cluster.pods:
            ns = p.namespace
            self.pods[(ns, p.name)] = p
            if p.meta.uid:
                self.pods_by_uid[p.meta.uid] = p
            for key in claim_keys(p).values():
                if key is not None:
                    self.users.setdefault(key, []).append(p)

    def missing_claims(self, p: Pod) -> list[str]:
        """The pod's claim names whose ResourceClaim is not created yet or does not exist."""
        return [rc for rc, key in claim_keys(p).items() if key is None or self.cluster.claim(*key) is None]

    def owner(self, c: ResourceClaim) -> Pod | None:
        """The pod that controls ``c`` (a claim generated from a template), if it exists."""
        for o in c.meta.owner_references:
            if o.kind == "Pod" and o.controller:
                p = self.pods_by_uid.get(o.uid) if o.uid else None
                return p or self.pods.get((c.namespace, o.name))
        return None

    def origin(self, c: ResourceClaim) -> tuple[str | None, str | None]:
        """(pod, template) of a claim generated from a template."""
        owner = next((o for o in c.meta.owner_references if o.kind == "Pod" and o.controller), None)
        if owner is None:
            return None, None
        pod = self.owner(c)
        template = None
        pcn = c.meta.annotations.get(POD_CLAIM_NAME)
        if pod is not None and pcn:
            for rc in pod.resource_claims:
                if rc.name == pcn:
                    template = rc.resource_claim_template_name or None
        return owner.name, template

    def consumers(self, c: ResourceClaim) -> list[Pod]:
        """Pods that reference ``c`` or that it is reserved for."""
        key = (c.namespace, c.name)
        out = list(self.users.get(key, []))
        for r in c.reserved_for:
            p = self.pods.get((key[0], r.name)) if r.resource == "pods" else None
            if p is not None and p not in out:
                out.append(p)
        return out

    def node_of(self, c: ResourceClaim) -> str | None:
        """The node(s) of a claim: its allocation's single node, else its consumers' nodes."""
        if c.allocation is not None:
            n = single_node(c.allocation.node_selector)
            if n:
                return n
        names = sorted({p.node_name for p in self.consumers(c) if p.node_name})
        if names:
            return ",".join(names)
        if c.allocation is not None and c.allocation.node_selector is not None:
            return "<selector>"
        return None

    def pods_missing_claims(self, ns: str | None) -> list[tuple[Pod, list[str]]]:
        """Unscheduled pods (in ``ns``, or all namespaces) with claims that do not exist yet."""
        out = []
        for p in self.cluster.pods:
            if p.node_name or (ns is not None and p.namespace != ns):
                continue
            missing = self.missing_claims(p)
            if missing:
                out.append((p, missing))
        return out
