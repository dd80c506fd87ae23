"""DRA extended resources (KEP-5004): a pod's ``example.com/gpu: 1`` served by DRA devices.

Ported from k8s.io/kubernetes v1.37.2 pkg/scheduler/framework/plugins/dynamicresources/
extendeddynamicresources.go (the DynamicResources plugin's extended-resource part) and the delegation rule
of noderesources/fit.go (``shouldDelegateResourceToDRA``). Pure.

A resource name the :class:`~dractl.model.extendedresources.DeviceClassResolver` maps to a DeviceClass
(the class's ``spec.extendedResourceName`` or its implicit ``deviceclass.resource.kubernetes.io/<class>``)
is served on a node whose allocatable has it (a device plugin) by NodeResourcesFit, as any extended
resource; on a node without it, DynamicResources builds the pod's special claim: one request per
container and resource, named ``container-<i>-request-<j>``, for ``count`` devices of the class, and the
mappings the pod's ``status.extendedResourceClaimStatus`` records. The claim is created on binding as
``<pod>-extended-resources-<5 random>``, owned by the pod, annotated
``resource.kubernetes.io/extended-resource-claim: "true"``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dractl.model.extendedresources import IMPLICIT_PREFIX, DeviceClassResolver
from dractl.model.objects import EXTENDED_RESOURCES_ENTRY, Pod, ResourceClaim
from dractl.quantity import Quantity, QuantityError

EXTENDED_CLAIM_ANNOTATION = "resource.kubernetes.io/extended-resource-claim"
SPECIAL_CLAIM_NAME = EXTENDED_RESOURCES_ENTRY  # specialClaimInMemName: the claim before it is created
GENERATE_NAME_SUFFIX = "-extended-resources-"


def is_native(name: str) -> bool:
    """Whether a resource name is in the kubernetes.io namespace (v1helper.IsNativeResource)."""
    return "/" not in name or "kubernetes.io/" in name


def is_extended(name: str) -> bool:
    """v1helper.IsExtendedResourceName."""
    from dractl.model.formats import label_key_error

    if is_native(name) or name.startswith("requests."):
        return False
    return label_key_error("requests." + name) is None


def is_dra_extended(name: str) -> bool:
    """schedutil.IsDRAExtendedResourceName: an extended resource name, or a class's implicit name."""
    return is_extended(name) or name.startswith(IMPLICIT_PREFIX)


def has_mapped_extended_resource(requests: Mapping[str, int], resolver: DeviceClassResolver) -> bool:
    """hasDeviceClassMappedExtendedResource: the pod requests a name some DeviceClass serves."""
    return any(q and is_dra_extended(n) and resolver.device_class(n) is not None for n, q in requests.items())


def _resource_names(spec: Mapping[str, Any]) -> set[str]:
    """Every resource name PodRequests can return for the pod.

    Its containers' and pod-level requests and limits (defaulting copies limits to requests) and its overhead.
    """
    names: set[str] = set()

    def add(r: Any) -> None:
        if isinstance(r, Mapping):
            for k in ("requests", "limits"):
                v = r.get(k)
                if isinstance(v, Mapping):
                    names.update(str(n) for n in v)

    for key in ("containers", "initContainers"):
        cs = spec.get(key)
        for c in cs if isinstance(cs, list) else ():
            if isinstance(c, Mapping):
                add(c.get("resources"))
    add(spec.get("resources"))
    overhead = spec.get("overhead")
    if isinstance(overhead, Mapping):
        names.update(str(n) for n in overhead)
    return names


def delegated_to_dra(name: str, allocatable: Mapping[str, int], resolver: DeviceClassResolver) -> bool:
    """Whether NodeResourcesFit leaves extended resource ``name`` to DynamicResources on this node.

    fit.go shouldDelegateResourceToDRA: not in the node's allocatable, and a class maps it; then
    NodeResourcesFit leaves it to DynamicResources.
    """
    if allocatable.get(name, 0) > 0:
        return False
    return resolver.device_class(name) is not None


def find_extended_resource_claim(pod: Pod, claims: Iterable[ResourceClaim]) -> ResourceClaim | None:
    """findExtendedResourceClaim: the pod's special claim, once created."""
    for c in claims:
        if c.meta.annotations.get(EXTENDED_CLAIM_ANNOTATION) == "true":
            for r in c.meta.owner_references:
                if r.name == pod.name and r.controller and r.uid == pod.meta.uid:
                    return c
    return None


@dataclass(frozen=True)
class NodeExtendedResources:
    """What one node leaves to DRA of the pod's extended resources (filterExtendedResources)."""

    resources: Mapping[str, int]  # name -> count, for the special claim
    unfit: str = ""  # a requested name neither allocatable nor served by a class: "cannot fit resource"


def node_extended_resources(pod_scalars: Mapping[str, int], allocatable: Mapping[str, int],
                            resolver: DeviceClassResolver) -> NodeExtendedResources:
    """Which of the pod's DRA extended resources DRA serves on a node (first half of filterExtendedResources).

    Per requested DRA extended resource, DRA serves it when a
    class maps it and the node's allocatable has none; a name the node lacks and no class serves stops
    here (upstream: Unschedulable "cannot fit resource", which NodeResourcesFit will already have said).
    """
    out: dict[str, int] = {}
    for name in sorted(pod_scalars):
        q = pod_scalars[name]
        if not is_dra_extended(name) or q == 0:
            continue
        have = allocatable.get(name)
        if resolver.device_class(name) is not None and not have:
            out[name] = q
        elif have is None:
            return NodeExtendedResources({}, unfit=name)
    return NodeExtendedResources(out)


@dataclass(frozen=True)
class RequestMapping:
    """v1.ContainerExtendedResourceRequest."""

    container: str
    resource: str
    request: str

    def to_dict(self) -> dict[str, str]:
        """The mapping as API JSON."""
        return {"containerName": self.container, "resourceName": self.resource, "requestName": self.request}


def _count(q: Any) -> int | None:
    """AsInt64 of a container's request (None when not a whole int64)."""
    try:
        v = Quantity.decoded(q)
    except QuantityError:
        return None
    return v.value.numerator if v.value.denominator == 1 else None


def _container_request(index: int, ctr: Mapping[str, Any], resource: str, class_name: str,
                       reusable: Sequence[dict[str, Any] | None]) -> tuple[dict[str, Any] | None, list[RequestMapping]]:
    """createResourceRequestAndMappings: this container's devices of ``resource``.

    An init container first reuses the requests of the long-lived containers after it.
    """
    requests = ((ctr.get("resources") or {}).get("requests")) or {}
    if resource not in requests:
        return None, []
    want = _count(requests[resource])
    if not want:
        return None, []
    name = str(ctr.get("name") or "")
    mappings: list[RequestMapping] = []
    total = 0
    for r in reusable:
        if r is not None:
            total += r["exactly"]["count"]
            mappings.append(RequestMapping(name, resource, r["name"]))
            if total >= want:
                return None, mappings
    keys = sorted(str(k) for k in requests)
    request_name = f"container-{index}-request-{keys.index(resource)}"
    req = {"name": request_name, "exactly": {"deviceClassName": class_name, "allocationMode": "ExactCount",
                                             "count": want - total}}
    mappings.append(RequestMapping(name, resource, request_name))
    return req, mappings


def create_requests_and_mappings(spec: Mapping[str, Any], extended: Mapping[str, int],
                                 resolver: DeviceClassResolver) -> tuple[list[dict[str, Any]], list[RequestMapping]]:
    """createRequestsAndMappings: the special claim's requests (sorted by name) and the container mappings.

    Init containers come first in the index (``container-<i>``); the long-lived containers (regular ones and
    sidecars) each get their own request; the short-lived init containers share the largest of theirs,
    after reusing the long-lived requests that follow them.
    """
    inits = [c for c in spec.get("initContainers") or [] if isinstance(c, Mapping)]
    containers = inits + [c for c in spec.get("containers") or [] if isinstance(c, Mapping)]
    long_lived = [i for i, c in enumerate(containers) if i >= len(inits) or c.get("restartPolicy") == "Always"]
    short_lived = [i for i in range(len(inits)) if i not in long_lived]
    requests: list[dict[str, Any]] = []
    mappings: list[RequestMapping] = []
    for resource in sorted(extended):
        cls = resolver.device_class(resource)
        if cls is None:
            continue
        long_reqs: list[dict[str, Any] | None] = [None] * len(containers)
        long_maps: list[RequestMapping] = []
        for i in long_lived:
            req, maps = _container_request(i, containers[i], resource, cls.name, [])
            long_reqs[i] = req
            long_maps += maps
        short_maps: list[RequestMapping] = []
        biggest: dict[str, Any] | None = None
        short_names: set[str] = set()
        for i in short_lived:
            req, maps = _container_request(i, containers[i], resource, cls.name, long_reqs[i:])
            if req is not None:
                short_names.add(req["name"])
                if biggest is None or biggest["exactly"]["count"] < req["exactly"]["count"]:
                    biggest = req
            short_maps += maps
        if biggest is not None and len(short_names) > 1:
            short_names.discard(biggest["name"])
            short_maps = [RequestMapping(m.container, m.resource, biggest["name"]) if m.request in short_names else m
                          for m in short_maps]
        if biggest is not None:
            requests.append(biggest)
        requests += [r for r in long_reqs if r is not None]
        mappings += long_maps + short_maps
    requests.sort(key=lambda r: r["name"])
    return requests, mappings


def special_claim(pod: Pod, name: str, requests: Sequence[Mapping[str, Any]], *, uid: str = "",
                  created: str = "") -> dict[str, Any]:
    """The claim the scheduler creates for the pod on binding (createExtendedResourceClaimInAPI)."""
    md: dict[str, Any] = {
        "name": name,
        "generateName": pod.name + GENERATE_NAME_SUFFIX,
        "namespace": pod.meta.namespace,
        "annotations": {EXTENDED_CLAIM_ANNOTATION: "true"},
        "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": pod.name, "uid": pod.meta.uid,
                             "controller": True}],
    }
    if uid:
        md["uid"] = uid
    if created:
        md["creationTimestamp"] = created
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": md,
            "spec": {"devices": {"requests": [dict(r) for r in requests]}}}


def claim_status(name: str, mappings: Sequence[RequestMapping]) -> dict[str, Any]:
    """The pod's status.extendedResourceClaimStatus."""
    return {"requestMappings": [m.to_dict() for m in mappings], "resourceClaimName": name}


@dataclass
class PodExtendedResources:
    """One pod's DRA extended resources for one scheduling attempt (DynamicResources' PreFilter part).

    ``existing`` is the pod's special claim when it was created before (then it is allocated like a user
    claim); otherwise :meth:`node_claim` builds, per node, the claim the node would need.
    """

    pod: Pod
    spec: Mapping[str, Any]  # the pod's spec after the apiserver's defaulting
    scalars: Mapping[str, int]  # the pod's requests of scalar resources (PodRequests)
    resolver: DeviceClassResolver
    existing: ResourceClaim | None = None
    _claims: dict[tuple[tuple[str, int], ...], tuple[ResourceClaim, list[RequestMapping]]] | None = None

    @classmethod
    def of(cls, pod: Pod, claims: Iterable[ResourceClaim],
           resolver: DeviceClassResolver) -> PodExtendedResources | None:
        """preFilterExtendedResources: None when no class serves any resource the pod requests."""
        from dractl.scheduler.resources import Resource, apply_defaults, pod_requests

        raw_spec = (pod.raw or {}).get("spec") or {}
        if not any(resolver.device_class(n) is not None for n in _resource_names(raw_spec)):
            return None  # no name the pod requests or limits is a class's: PodRequests cannot give one
        spec = apply_defaults(raw_spec)
        scalars = Resource.of(pod_requests(spec)).scalar
        if not has_mapped_extended_resource(scalars, resolver):
            return None
        return cls(pod, spec, scalars, resolver, find_extended_resource_claim(pod, claims))

    def node_claim(self, allocatable: Mapping[str, int]) -> tuple[ResourceClaim | None, list[RequestMapping]] | str:
        """The special claim for one node, or the reason the node cannot run the pod (filterExtendedResources).

        The claim holds this node's requests; None when the node serves every name from its allocatable,
        or the claim exists already.
        """
        if self.existing is not None:
            return None, []
        split = node_extended_resources(self.scalars, allocatable, self.resolver)
        if split.unfit:
            return "cannot fit resource"
        if not split.resources:
            return None, []
        key = tuple(sorted(split.resources.items()))
        if self._claims is None:
            self._claims = {}
        if key not in self._claims:
            from dractl.model.parse import parse_object

            requests, mappings = create_requests_and_mappings(self.spec, split.resources, self.resolver)
            claim = parse_object(special_claim(self.pod, SPECIAL_CLAIM_NAME, requests), validate=False)
            self._claims[key] = (claim, mappings)
        return self._claims[key]

    @property
    def shape(self) -> tuple[Any, ...]:
        """What the nodes' special claims depend on, as a cache key.

        That is the pod's requests of names a class serves, and whether the claim exists (for the per-shape
        cache of nodes known not to fit).
        """
        served = tuple(sorted((n, q) for n, q in self.scalars.items() if self.resolver.device_class(n) is not None))
        return (served, self.existing.name if self.existing is not None else "")
