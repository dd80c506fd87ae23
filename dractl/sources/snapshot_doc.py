"""What a snapshot holds (the RBAC rules that let dractl read it are in ``dractl.sources.apikinds``)."""

from __future__ import annotations

from typing import Any

# Pod fields the scheduler (and so dractl) reads; everything else (env, commands, secrets, most volumes) stays
# out of a dump. Containers keep their name, image, resources, ports, restartPolicy (sidecars) and
# restartPolicyRules; volumes only those kube-scheduler's volume filters look at, reduced to their kind.
_POD_SPEC_KEEP = ("nodeName", "nodeSelector", "affinity", "tolerations", "resourceClaims", "schedulerName",
                  "priority", "priorityClassName", "preemptionPolicy", "overhead", "resources",
                  "topologySpreadConstraints", "hostNetwork", "hostUsers", "schedulingGates", "runtimeClassName")
_POD_STATUS_KEEP = ("phase", "conditions", "resourceClaimStatuses", "nominatedNodeName", "extendedResourceClaimStatus",
                    "resources", "allocatedResources", "qosClass")
_CONTAINER_KEEP = ("name", "image", "restartPolicy", "restartPolicyRules")
_PORT_KEEP = ("containerPort", "hostPort", "hostIP", "protocol")
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
        kept: dict[str, Any] = {k: c[k] for k in _CONTAINER_KEEP if k in c}
        kept.setdefault("name", "")
        res = c.get("resources")
        if isinstance(res, dict):
            r = {k: res[k] for k in ("requests", "limits", "claims") if res.get(k)}
            if r:
                kept["resources"] = r
        ports = [{k: p[k] for k in _PORT_KEEP if k in p} for p in c.get("ports") or [] if isinstance(p, dict)]
        if ports:
            kept["ports"] = ports
        mounts = [{k: m[k] for k in ("name", "mountPath", "bindMountOptions") if k in m}
                  for m in c.get("volumeMounts") or [] if isinstance(m, dict) and m.get("bindMountOptions")]
        if mounts:  # NodeDeclaredFeatures reads bindMountOptions
            kept["volumeMounts"] = mounts
        out.append(kept)
    return out


def _volumes(vs: Any) -> list[dict[str, Any]]:
    """The volumes kube-scheduler's volume filters check, reduced to their name and kind (a claim's name)."""
    from dractl.scheduler.volumes import CHECKED_VOLUME_SOURCES

    out = []
    for v in vs if isinstance(vs, list) else []:
        if not isinstance(v, dict):
            continue
        for kind in CHECKED_VOLUME_SOURCES:
            if kind in v:
                src = v[kind] if isinstance(v[kind], dict) else {}
                kept = {"claimName": src["claimName"]} if kind == "persistentVolumeClaim" and "claimName" in src else {}
                out.append({"name": v.get("name", ""), kind: kept})
                break
    return out


def _container_statuses(cs: Any) -> list[dict[str, Any]]:
    """Container statuses reduced to device health and the resources the scheduler counts.

    That is allocatedResourcesStatus, and for a resized pod allocatedResources and resources.
    """
    out = []
    for c in cs if isinstance(cs, list) else []:
        if not isinstance(c, dict):
            continue
        kept = {k: c[k] for k in ("allocatedResourcesStatus", "allocatedResources", "resources") if c.get(k)}
        if kept:
            out.append({"name": c.get("name", ""), **kept})
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
        volumes = _volumes(spec.get("volumes"))
        if volumes:
            new_spec["volumes"] = volumes
        out["spec"] = new_spec
        status = out.get("status") or {}
        out["status"] = {k: status[k] for k in _POD_STATUS_KEEP if k in status}
        for key in ("initContainerStatuses", "containerStatuses", "ephemeralContainerStatuses"):
            kept = _container_statuses(status.get(key))
            if kept:
                out["status"][key] = kept
    elif out.get("kind") == "Node":
        status = dict(out.get("status") or {})
        if isinstance(status.get("images"), list):  # ImageLocality reads names and sizes
            status["images"] = [{k: i[k] for k in ("names", "sizeBytes") if k in i}
                                for i in status["images"] if isinstance(i, dict)]
        out["status"] = status
    return out


def snapshot_document(source: Any) -> dict[str, Any]:
    """Every object the source holds, as a ``kind: List`` that ``--from`` reads with the same answers."""
    return {"apiVersion": "v1", "kind": "List", "items": [clean(o) for o in source.snapshot_docs()]}
