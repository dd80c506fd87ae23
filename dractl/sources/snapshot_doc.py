"""What a snapshot holds (the RBAC rules that let dractl read it are in ``dractl.sources.apikinds``)."""

from __future__ import annotations

from typing import Any

# Pod fields scheduling (and so dractl) uses; everything else (env, volumes, commands) stays out of a dump.
_POD_SPEC_KEEP = ("nodeName", "nodeSelector", "affinity", "tolerations", "resourceClaims", "schedulerName",
                  "priority", "priorityClassName", "topologySpreadConstraints")
_POD_STATUS_KEEP = ("phase", "conditions", "resourceClaimStatuses", "nominatedNodeName")
_DROP_ANNOTATIONS = ("kubectl.kubernetes.io/last-applied-configuration",)


def _clean_meta(md: dict[str, Any]) -> dict[str, Any]:
    md = {k: v for k, v in md.items() if k != "managedFields"}
    ann = md.get("annotations")
    if isinstance(ann, dict) and any(a in ann for a in _DROP_ANNOTATIONS):
        md["annotations"] = {k: v for k, v in ann.items() if k not in _DROP_ANNOTATIONS}
    return md


def _containers(cs: Any) -> list[dict[str, Any]]:
    out = []
    for c in cs if isinstance(cs, list) else []:
        if not isinstance(c, dict):
            continue
        kept: dict[str, Any] = {"name": c.get("name", "")}
        claims = (c.get("resources") or {}).get("claims")
        if claims:
            kept["resources"] = {"claims": claims}
        out.append(kept)
    return out


def _container_health(cs: Any) -> list[dict[str, Any]]:
    """Container statuses reduced to the device health the kubelet reports (allocatedResourcesStatus)."""
    out = []
    for c in cs if isinstance(cs, list) else []:
        if isinstance(c, dict) and c.get("allocatedResourcesStatus"):
            out.append({"name": c.get("name", ""), "allocatedResourcesStatus": c["allocatedResourcesStatus"]})
    return out


def clean(obj: dict[str, Any]) -> dict[str, Any]:
    """One object as a snapshot keeps it."""
    out = dict(obj)
    if isinstance(out.get("metadata"), dict):
        out["metadata"] = _clean_meta(out["metadata"])
    if out.get("kind") == "Pod":
        spec = out.get("spec") or {}
        new_spec = {k: spec[k] for k in _POD_SPEC_KEEP if k in spec}
        for key in ("initContainers", "containers"):
            if spec.get(key):
                new_spec[key] = _containers(spec[key])
        out["spec"] = new_spec
        status = out.get("status") or {}
        out["status"] = {k: status[k] for k in _POD_STATUS_KEEP if k in status}
        for key in ("initContainerStatuses", "containerStatuses", "ephemeralContainerStatuses"):
            health = _container_health(status.get(key))
            if health:
                out["status"][key] = health
    elif out.get("kind") == "Node":
        status = dict(out.get("status") or {})
        status.pop("images", None)
        out["status"] = status
    return out


def snapshot_document(source: Any) -> dict[str, Any]:
    """Every object the source holds, as a ``kind: List`` that ``--from`` reads with the same answers."""
    docs = getattr(source, "snapshot_docs", None)
    if docs is not None:
        raws = docs()
    else:
        c = source.load()
        raws = [dict(o.raw) for group in (c.classes, c.slices, c.taint_rules, c.claims, c.templates, c.pods,
                                           c.nodes, c.namespaces, c.events, c.limit_ranges, c.resource_quotas)
                for o in group]
    return {"apiVersion": "v1", "kind": "List", "items": [clean(o) for o in raws]}
