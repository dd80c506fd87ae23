"""What kube-apiserver does to an object on create or update, for the fake control plane.

Pure: raises :class:`~dractl.errors.InputError` for what the apiserver refuses, and
returns the object as the apiserver would store it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dractl.errors import InputError

ADMIN_ACCESS_LABEL = "resource.kubernetes.io/admin-access"
NAMESPACED = frozenset({"ResourceClaim", "ResourceClaimTemplate", "Pod"})


def defaulted(raw: Mapping[str, Any], namespace: str | None) -> Mapping[str, Any]:
    """Namespaced objects without a namespace go to ``namespace`` (else 'default'), as kubectl apply does.

    Returns ``raw`` itself when it needs no change."""
    if raw.get("kind") in NAMESPACED and not (raw.get("metadata") or {}).get("namespace"):
        return {**raw, "metadata": {**(raw.get("metadata") or {}), "namespace": namespace or "default"}}
    return raw


def admit(raw: Mapping[str, Any], old: Mapping[str, Any] | None, namespace_labels: Mapping[str, str]) -> None:
    """What kube-apiserver refuses on create/update of claims and templates.

    - adminAccess needs the namespace label ``resource.kubernetes.io/admin-access: "true"``
      (pkg/registry/resource/resourceclaim(template)/strategy.go);
    - a ResourceClaim's and a ResourceClaimTemplate's spec are immutable
      (pkg/apis/resource/validation: ValidateResourceClaimUpdate / ...TemplateUpdate).
    """
    kind = raw.get("kind")
    if kind not in ("ResourceClaim", "ResourceClaimTemplate"):
        return
    md = raw.get("metadata") or {}
    ns, name = md.get("namespace") or "default", md.get("name") or ""
    resource = "resourceclaims" if kind == "ResourceClaim" else "resourceclaimtemplates"
    spec = raw.get("spec") or {}
    claim_spec = spec if kind == "ResourceClaim" else spec.get("spec") or {}
    admin = any(
        ((r.get("exactly") or {}).get("adminAccess") is True)
        for r in ((claim_spec.get("devices") or {}).get("requests") or [])
    )
    if admin and namespace_labels.get(ADMIN_ACCESS_LABEL) != "true":
        raise InputError(
            f'{resource}.resource.k8s.io "{name}" is forbidden: admin access to devices requires the '
            f'`{ADMIN_ACCESS_LABEL}: true` label on the containing namespace "{ns}"'
        )
    if old is not None and (old.get("spec") or {}) != spec:
        raise InputError(f'{kind}.resource.k8s.io "{name}" is invalid: spec: Invalid value: field is immutable')


def updated(old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, Any]:
    """``new`` applied over ``old`` as the apiserver keeps it: apply never touches status,
    server-set metadata, or a bound pod's node."""
    out = dict(new)
    md = dict(new.get("metadata") or {})
    old_md = old.get("metadata") or {}
    for k in ("uid", "creationTimestamp", "finalizers", "ownerReferences", "deletionTimestamp"):
        if k in old_md and k not in md:
            md[k] = old_md[k]
    out["metadata"] = md
    if "status" in old:
        out["status"] = old["status"]
    node = (old.get("spec") or {}).get("nodeName")
    if old.get("kind") == "Pod" and node:
        out["spec"] = {**(new.get("spec") or {}), "nodeName": node}
    return out


def reference(raw: Mapping[str, Any]) -> str:
    """``kind.group/name`` as kubectl prints it (``pod/x``, ``resourceclaim.resource.k8s.io/y``)."""
    kind = raw.get("kind", "")
    group = (raw.get("apiVersion") or "").rpartition("/")[0]
    resource = kind.lower() + (f".{group}" if group else "")
    return f"{resource}/{(raw.get('metadata') or {}).get('name', '')}"
