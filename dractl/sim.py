"""The fake cluster's control plane: what kube-controller-manager and kube-scheduler would do.

``reconcile`` runs over the fake cluster's state document (raw v1 dicts) after every
``dractl fake apply`` / ``delete``:

1. garbage collection: claims owned by a deleted pod go; consumers that no longer
   exist leave ``reservedFor``; a claim nobody reserves is deallocated (the
   resourceclaim controller does this upstream); a claim marked for deletion goes
   once its consumers are gone;
2. the resourceclaim controller: a pod's ``resourceClaimTemplateName`` entries get a
   claim ``<pod>-<claim>-<5 random>`` owned by the pod, recorded in the pod's
   ``status.resourceClaimStatuses``;
3. the scheduler: every unbound pod, in creation order, tries the nodes in name order
   with the allocator; the first node where all of its claims fit wins (upstream
   scores nodes; dractl's fake cluster takes the first), its claims are allocated and
   reserved, and the pod is bound and Running. Otherwise it stays Pending with the
   scheduler's condition message.

Pure: no I/O; returns lines for the user (kubectl-style).
"""

from __future__ import annotations

import datetime as _dt
import json
import random
import uuid
from typing import Any

from dractl.features import DEFAULT_GATES, FeatureGates
from dractl.model.relations import POD_CLAIM_NAME

_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"  # apimachinery's utilrand alphabet


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _md(o: dict[str, Any]) -> dict[str, Any]:
    return o.setdefault("metadata", {})


def _key(o: dict[str, Any]) -> tuple[str, str]:
    md = o.get("metadata") or {}
    return (md.get("namespace") or "default", md.get("name") or "")


def reconcile(doc: dict[str, Any], *, features: FeatureGates = DEFAULT_GATES, rng: random.Random | None = None) -> list[str]:
    rng = rng or random.Random()
    items: list[dict[str, Any]] = doc["items"]
    for o in items:
        md = _md(o)
        md.setdefault("uid", str(uuid.UUID(int=rng.getrandbits(128), version=4)))
        md.setdefault("creationTimestamp", _now())
    lines: list[str] = []
    _collect_garbage(items)
    _create_claims(items, rng, lines)
    _schedule(doc, features, lines)
    return lines


# ---------------------------------------------------------------- admission

ADMIN_ACCESS_LABEL = "resource.kubernetes.io/admin-access"


def admit(raw: dict[str, Any], items: list[dict[str, Any]]) -> None:
    """What kube-apiserver refuses on create/update of claims and templates.

    - adminAccess needs the namespace label ``resource.kubernetes.io/admin-access: "true"``
      (pkg/registry/resource/resourceclaim(template)/strategy.go);
    - a ResourceClaim's and a ResourceClaimTemplate's spec are immutable
      (pkg/apis/resource/validation: ValidateResourceClaimUpdate / ...TemplateUpdate).
    """
    from dractl.errors import InputError

    kind = raw.get("kind")
    if kind not in ("ResourceClaim", "ResourceClaimTemplate"):
        return
    ns, name = _key(raw)
    resource = "resourceclaims" if kind == "ResourceClaim" else "resourceclaimtemplates"
    spec = raw.get("spec") or {}
    claim_spec = spec if kind == "ResourceClaim" else spec.get("spec") or {}
    admin = any(
        ((r.get("exactly") or {}).get("adminAccess") is True)
        for r in ((claim_spec.get("devices") or {}).get("requests") or [])
    )
    if admin:
        labels = {}
        for o in items:
            if o.get("kind") == "Namespace" and (o.get("metadata") or {}).get("name") == ns:
                labels = (o.get("metadata") or {}).get("labels") or {}
        if labels.get(ADMIN_ACCESS_LABEL) != "true":
            raise InputError(
                f'{resource}.resource.k8s.io "{name}" is forbidden: admin access to devices requires the '
                f'`{ADMIN_ACCESS_LABEL}: true` label on the containing namespace "{ns}"'
            )
    for o in items:
        if o.get("kind") == kind and _key(o) == (ns, name) and (o.get("spec") or {}) != spec:
            raise InputError(
                f'{kind}.resource.k8s.io "{name}" is invalid: spec: Invalid value: field is immutable'
            )


def updated(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """``new`` applied over ``old`` as the apiserver keeps it: apply never touches status,
    server-set metadata, or a bound pod's node."""
    out = dict(new)
    md = dict(new.get("metadata") or {})
    for k in ("uid", "creationTimestamp", "finalizers", "ownerReferences", "deletionTimestamp"):
        if k in (old.get("metadata") or {}) and k not in md:
            md[k] = old["metadata"][k]
    out["metadata"] = md
    if "status" in old:
        out["status"] = old["status"]
    node = (old.get("spec") or {}).get("nodeName")
    if old.get("kind") == "Pod" and node:
        out["spec"] = {**(new.get("spec") or {}), "nodeName": node}
    return out


# ---------------------------------------------------------------- garbage collection


def _collect_garbage(items: list[dict[str, Any]]) -> None:
    pods = {(_key(p), _md(p).get("uid")) for p in items if p.get("kind") == "Pod"}
    pod_uids = {uid for _, uid in pods}
    pod_names = {k for k, _ in pods}
    keep = []
    for o in items:
        if o.get("kind") == "ResourceClaim":
            owners = [r for r in _md(o).get("ownerReferences") or [] if r.get("kind") == "Pod" and r.get("controller")]
            if owners and not any(r.get("uid") in pod_uids for r in owners):
                continue  # generated for a pod that is gone
            status = o.get("status") or {}
            reserved = status.get("reservedFor") or []
            ns = _key(o)[0]
            alive = [r for r in reserved if r.get("resource") != "pods" or (ns, r.get("name")) in pod_names]
            if len(alive) != len(reserved):
                status["reservedFor"] = alive
                if not alive:
                    status.pop("reservedFor", None)
                    status.pop("allocation", None)  # deallocated once nobody uses it
                    status.pop("devices", None)
                o["status"] = status
            if _md(o).get("deletionTimestamp") and not alive:
                continue
        keep.append(o)
    items[:] = keep


# ---------------------------------------------------------------- claim controller


def _create_claims(items: list[dict[str, Any]], rng: random.Random, lines: list[str]) -> None:
    templates = {_key(t): t for t in items if t.get("kind") == "ResourceClaimTemplate"}
    claims = {_key(c): c for c in items if c.get("kind") == "ResourceClaim"}
    for pod in [p for p in items if p.get("kind") == "Pod"]:
        md = _md(pod)
        ns = md.get("namespace") or "default"
        status = pod.setdefault("status", {})
        statuses = {s.get("name"): s for s in status.get("resourceClaimStatuses") or []}
        for rc in (pod.get("spec") or {}).get("resourceClaims") or []:
            tname = rc.get("resourceClaimTemplateName")
            if not tname or rc.get("name") in statuses:
                continue
            template = templates.get((ns, tname))
            if template is None:
                continue  # the scheduler reports it
            while True:
                suffix = "".join(rng.choice(_ALPHABET) for _ in range(5))
                name = f"{md.get('name')}-{rc.get('name')}-{suffix}"[:253]
                if (ns, name) not in claims:
                    break
            tspec = template.get("spec") or {}
            tmeta = tspec.get("metadata") or {}
            claim = {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "ResourceClaim",
                "metadata": {
                    "name": name,
                    "namespace": ns,
                    "uid": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
                    "creationTimestamp": _now(),
                    "annotations": {**(tmeta.get("annotations") or {}), POD_CLAIM_NAME: rc.get("name")},
                    "ownerReferences": [
                        {
                            "apiVersion": "v1",
                            "kind": "Pod",
                            "name": md.get("name"),
                            "uid": md.get("uid"),
                            "controller": True,
                            "blockOwnerDeletion": True,
                        }
                    ],
                    **({"labels": dict(tmeta["labels"])} if tmeta.get("labels") else {}),
                },
                "spec": json.loads(json.dumps(tspec.get("spec") or {})),
            }
            items.append(claim)
            claims[(ns, name)] = claim
            statuses[rc.get("name")] = {"name": rc.get("name"), "resourceClaimName": name}
            lines.append(f"resourceclaim.resource.k8s.io/{name} created (from template {tname} for pod {md.get('name')})")
        if statuses:
            status["resourceClaimStatuses"] = list(statuses.values())


# ---------------------------------------------------------------- scheduler


def _pod_claim_keys(pod: dict[str, Any]) -> tuple[list[tuple[str, str]], str | None]:
    """The (namespace, name) of every claim the pod uses, or a reason it must wait."""
    md = _md(pod)
    ns = md.get("namespace") or "default"
    statuses = {s.get("name"): s.get("resourceClaimName") for s in (pod.get("status") or {}).get("resourceClaimStatuses") or []}
    keys = []
    for rc in (pod.get("spec") or {}).get("resourceClaims") or []:
        if rc.get("resourceClaimName"):
            keys.append((ns, rc["resourceClaimName"]))
        elif rc.get("resourceClaimTemplateName"):
            name = statuses.get(rc.get("name"))
            if not name:
                return [], f'resourceclaimtemplate.resource.k8s.io "{rc["resourceClaimTemplateName"]}" not found'
            keys.append((ns, name))
    return keys, None


def _schedule(doc: dict[str, Any], features: FeatureGates, lines: list[str]) -> None:
    items: list[dict[str, Any]] = doc["items"]
    pending = [
        p
        for p in items
        if p.get("kind") == "Pod" and not (p.get("spec") or {}).get("nodeName") and not _md(p).get("deletionTimestamp")
    ]
    if not pending:
        return
    from dractl.allocator import REASON_CANNOT_ALLOCATE, REASON_NOT_AVAILABLE, Allocator
    from dractl.allocator.serialize import allocation_to_dict
    from dractl.model.parse import parse_object
    from dractl.sources.loader import cluster_from, objects_from_docs

    cluster = cluster_from(objects_from_docs(items, "fake cluster", validate=False))
    allocator = Allocator(cluster, features)
    nodes = cluster.node_names
    raw_claims = {_key(c): c for c in items if c.get("kind") == "ResourceClaim"}
    model_claims = {(c.meta.namespace or "default", c.name): c for c in cluster.claims}
    # A node that failed a claim shape stays failed until something on it is released;
    # nothing is released during one reconcile, so a failure is remembered per shape
    # (with its reason). Only failures of the pending claims themselves are remembered:
    # "resourceclaim not available on the node" comes from a claim the pod shares that
    # is allocated elsewhere, and says nothing about the shape.
    failed: dict[str, dict[str, str]] = {}
    # Creation order; objects of one apply share a timestamp, so their file order decides.
    order = {id(o): i for i, o in enumerate(items)}
    pending.sort(key=lambda p: (_md(p).get("creationTimestamp") or "", order[id(p)]))
    for pod in pending:
        md = _md(pod)
        name = md.get("name")
        keys, wait = _pod_claim_keys(pod)
        missing = [k for k in keys if k not in raw_claims]
        # kube-scheduler's DynamicResources PreFilter: a claim being deleted cannot be used.
        deleting = [k for k in keys if k in raw_claims and _md(raw_claims[k]).get("deletionTimestamp")]
        if wait or missing or deleting:
            if wait or missing:
                msg = wait or f'resourceclaim "{missing[0][1]}" not found'
            else:
                msg = f'resourceclaim "{deleting[0][1]}" is being deleted'
            _unschedulable(pod, msg)
            lines.append(f"pod/{name} pending: {msg}")
            continue
        claims = [model_claims[k] for k in keys]
        if not claims:
            node = nodes[0] if nodes else None
            if node is None:
                _unschedulable(pod, "0/0 nodes are available")
                lines.append(f"pod/{name} pending: no nodes")
                continue
            _bind(pod, node)
            lines.append(f"pod/{name} scheduled on {node}")
            continue
        shape = json.dumps([raw_claims[k].get("spec") for k in keys if not (raw_claims[k].get("status") or {}).get("allocation")], sort_keys=True)
        chosen = None
        error = None
        reasons: dict[str, int] = {}
        for node in nodes:
            known = failed.get(shape)
            if known is not None and node in known:  # known not to fit
                r = known[node]
                reasons[r] = reasons.get(r, 0) + 1
                continue
            out = allocator.allocate(node, claims, explain=False)
            if out.error is not None:
                error = out.error
                break
            if out.allocations is not None:
                chosen = (node, out.allocations)
                break
            r = out.reason or REASON_CANNOT_ALLOCATE
            reasons[r] = reasons.get(r, 0) + 1
            if shape != "[]" and r != REASON_NOT_AVAILABLE:
                failed.setdefault(shape, {})[node] = r
        if error is not None:
            _unschedulable(pod, error, reason="SchedulerError")
            lines.append(f"pod/{name} pending: {error}")
            continue
        if chosen is None:
            parts = ", ".join(f"{n} {r}" for r, n in reasons.items())
            msg = f"0/{len(nodes)} nodes are available: {parts}." if nodes else "0/0 nodes are available."
            _unschedulable(pod, msg)
            lines.append(f"pod/{name} pending: {msg} (see 'dractl claims --explain')")
            continue
        node, allocations = chosen
        stamp = _now()
        for key, claim, alloc in zip(keys, claims, allocations):
            raw = raw_claims[key]
            status = raw.setdefault("status", {})
            if claim.allocation is None:
                d = allocation_to_dict(alloc)
                if features.binding_conditions:
                    d.setdefault("allocationTimestamp", stamp)
                status["allocation"] = d
                allocator.commit(claim.key, alloc)
                finalizers = _md(raw).setdefault("finalizers", [])
                if "resource.kubernetes.io/delete-protection" not in finalizers:
                    finalizers.append("resource.kubernetes.io/delete-protection")
            reserved = status.setdefault("reservedFor", [])
            if not any(r.get("uid") == md.get("uid") for r in reserved):
                reserved.append({"resource": "pods", "name": name, "uid": md.get("uid")})
            # Later pods sharing this claim see it as allocated.
            model_claims[key] = parse_object(raw, validate=False)
        _bind(pod, node)
        lines.append(f"pod/{name} scheduled on {node}")


def _bind(pod: dict[str, Any], node: str) -> None:
    pod.setdefault("spec", {})["nodeName"] = node
    status = pod.setdefault("status", {})
    status["phase"] = "Running"
    status["conditions"] = [
        {"type": "PodScheduled", "status": "True"},
        {"type": "Ready", "status": "True"},
    ]
    status.setdefault("startTime", _now())


def _unschedulable(pod: dict[str, Any], message: str, reason: str = "Unschedulable") -> None:
    status = pod.setdefault("status", {})
    status["phase"] = "Pending"
    status["conditions"] = [{"type": "PodScheduled", "status": "False", "reason": reason, "message": message}]


# ---------------------------------------------------------------- the example driver's container env


def container_env(items: list[dict[str, Any]], namespace: str, pod_name: str) -> dict[str, dict[str, str]]:
    """Per container, the variables the dra-example-driver's CDI spec would set.

    From kubernetes-sigs/dra-example-driver cmd/dra-example-kubeletplugin (cdi.go,
    state.go): GPU_DEVICE_<ID>=<device>, ..._RESOURCE_CLAIM=<claim uid>, and the
    sharing settings from the opaque GpuConfig (default TimeSlicing, interval Default).
    """
    pods = [p for p in items if p.get("kind") == "Pod" and _key(p) == (namespace, pod_name)]
    if not pods:
        from dractl.errors import NotFoundError

        raise NotFoundError(f'pod "{pod_name}" not found in namespace "{namespace}"')
    pod = pods[0]
    node = (pod.get("spec") or {}).get("nodeName")
    if not node:
        return {}
    keys, _ = _pod_claim_keys(pod)
    by_pod_claim = {}
    for rc, key in zip((pod.get("spec") or {}).get("resourceClaims") or [], keys):
        by_pod_claim[rc.get("name")] = key
    claims = {_key(c): c for c in items if c.get("kind") == "ResourceClaim"}
    out: dict[str, dict[str, str]] = {}
    spec = pod.get("spec") or {}
    for c in (spec.get("initContainers") or []) + (spec.get("containers") or []):
        env: dict[str, str] = {}
        for ref in (c.get("resources") or {}).get("claims") or []:
            key = by_pod_claim.get(ref.get("name"))
            claim = claims.get(key) if key else None
            alloc = ((claim or {}).get("status") or {}).get("allocation")
            if not alloc:
                continue
            uid = _md(claim).get("uid", "")
            configs = (alloc.get("devices") or {}).get("config") or []
            for r in (alloc.get("devices") or {}).get("results") or []:
                if ref.get("request") and r.get("request").split("/")[0] != ref["request"]:
                    continue
                driver = r.get("driver", "")
                profile = driver.split(".")[0].upper()
                env.setdefault("KUBERNETES_NODE_NAME", node)
                env.setdefault("DRA_RESOURCE_DRIVER_NAME", driver)
                dev = r.get("device", "")
                ident = dev.removeprefix(driver.split(".")[0] + "-").upper().replace("-", "_")
                base = f"{profile}_DEVICE_{ident}"
                env[base] = dev
                env[f"{base}_RESOURCE_CLAIM"] = uid
                sharing = _sharing(configs, r.get("request", ""))
                env[f"{base}_SHARING_STRATEGY"] = sharing.get("strategy", "TimeSlicing")
                if sharing.get("strategy", "TimeSlicing") == "TimeSlicing":
                    env[f"{base}_TIMESLICE_INTERVAL"] = (sharing.get("timeSlicingConfig") or {}).get("interval", "Default")
                else:
                    env[f"{base}_PARTITION_COUNT"] = str((sharing.get("spacePartitioningConfig") or {}).get("partitionCount", ""))
                for cap, q in (r.get("consumedCapacity") or {}).items():
                    env[f"{base}_{cap.rpartition('/')[2].upper()}"] = str(q)
                env["DRA_ADMIN_ACCESS"] = "true" if r.get("adminAccess") else "false"
        if env:
            out[c.get("name", "")] = dict(sorted(env.items()))
    return out


def _sharing(configs: list[dict[str, Any]], request: str) -> dict[str, Any]:
    """The GpuConfig sharing block that applies to ``request`` (claim config wins over class)."""
    chosen: dict[str, Any] = {}
    for src in ("FromClass", "FromClaim"):
        for c in configs:
            if c.get("source") != src:
                continue
            reqs = c.get("requests") or []
            if reqs and request not in reqs and request.split("/")[0] not in reqs:
                continue
            params = ((c.get("opaque") or {}).get("parameters")) or {}
            if isinstance(params, dict) and params.get("kind") == "GpuConfig" and isinstance(params.get("sharing"), dict):
                chosen = params["sharing"]
    return chosen
