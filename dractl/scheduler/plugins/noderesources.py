"""NodeResourcesFit's PreFilter and Filter (pkg/scheduler/framework/plugins/noderesources/fit.go).

The pod's request (computePodResourceRequest: PodRequests' max per resource) against the node's allocatable
minus what the node's pods already request (NodeInfo sums): one reason per missing resource, ``Too many pods``
when the node has no room for one more pod. The status is UnschedulableAndUnresolvable when the pod asks for
more than the node has at all (no preemption could help), else Unschedulable.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from dractl.quantity import Format, Quantity
from dractl.scheduler import resources as res
from dractl.scheduler.framework import Code, CycleState, NodeInfo, PodInfo, Snapshot, Status
from dractl.scheduler.plugins.noderesources_score import FitScore

NAME = "NodeResourcesFit"
REASON_TOO_MANY_PODS = "Too many pods"


def insufficient_reason(name: str) -> str:
    """fit.go getErrReason: ``Insufficient <resource>``."""
    return f"Insufficient {name}"


@dataclass(frozen=True)
class InsufficientResource:
    """fit.go InsufficientResource."""

    resource_name: str
    reason: str
    requested: int
    used: int
    capacity: int
    unresolvable: bool = False


# --------------------------------------------------------------- KEP-5004 (DRA extended resources)


def should_delegate_resource_to_dra(name: str, node: NodeInfo | None,
                                    resolve_class: Callable[[str], Any] | None) -> bool:
    """Whether DynamicResources, not NodeResourcesFit, checks extended resource ``name`` on the node.

    Upstream: fit.go shouldDelegateResourceToDRA.
    A resource the node's allocatable does not have (no device plugin) and a DeviceClass maps
    (``extendedResourceName`` or ``deviceclass.resource.kubernetes.io/<class>``) is DynamicResources' to
    check. ``resolve_class`` is the DeviceClass resolver (None: no DRA manager).
    """
    if node is not None and node.allocatable.scalar.get(name, 0) > 0:
        return False
    if resolve_class is None:
        return False
    return resolve_class(name) is not None


def extended_resource_classes(classes: Iterable[Any]) -> dict[str, Any]:
    """The DRA manager's DeviceClassResolver as a map: extended resource name -> DeviceClass.

    It is k8s.io/dynamic-resource-allocation@v0.37.2
    deviceclass/extendedresourcecache): ``deviceclass.resource.kubernetes.io/<class>`` for every class, and
    each ``spec.extendedResourceName``; when several classes map one name the newest (creationTimestamp)
    wins, then the smaller name.
    """
    out: dict[str, Any] = {}
    for c in classes:
        out[res.DEVICE_CLASS_PREFIX + c.name] = c
    named: dict[str, Any] = {}
    for c in classes:
        ern = getattr(c, "extended_resource_name", "")
        if not ern:
            continue
        old = named.get(ern)
        if old is not None:
            a, b = c.meta.creation_timestamp or "", old.meta.creation_timestamp or ""
            if a < b or (a == b and c.name >= old.name):
                continue
        named[ern] = c
    out.update(named)
    return out


# --------------------------------------------------------------- the plugin


class NodeResourcesFit(FitScore):
    """PreFilter and Filter here; PreScore and Score (LeastAllocated) in noderesources_score.py."""

    name = NAME

    def __init__(
        self,
        *,
        enable_pod_level_resources: bool = True,
        ignored_resources: Iterable[str] = (),
        ignored_resource_groups: Iterable[str] = (),
        resolve_class: Callable[[str], Any] | None = None,
    ) -> None:
        super().__init__()
        self.enable_pod_level_resources = enable_pod_level_resources
        self.ignored_resources = frozenset(ignored_resources)
        self.ignored_resource_groups = frozenset(ignored_resource_groups)
        #: the DRA manager's DeviceClass resolver for extended resource names (DRAExtendedResource, GA in v1.37)
        self.resolve_class = resolve_class

    def pre_filter(self, state: CycleState, pod: PodInfo, snapshot: Snapshot) -> Status | None:
        """Compute the pod's requests once per cycle."""
        state.data[NAME] = pod_fit_request(pod, self.enable_pod_level_resources)
        return None

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        """Whether the node has room for the pod's requests; the insufficient resources otherwise."""
        request = state.data.get(NAME)
        if request is None:
            return Status(Code.ERROR, (f'error reading "PreFilter{NAME}" from cycleState: not found',))
        insufficient = self.fits_request(request, node)
        if not insufficient:
            return None
        code = Code.UNSCHEDULABLE_AND_UNRESOLVABLE if any(i.unresolvable for i in insufficient) else \
            Code.UNSCHEDULABLE
        return Status(code, tuple(i.reason for i in insufficient), detail=tuple(explain(pod, node, insufficient)))

    def fits_request(self, request: res.Resource, node: NodeInfo) -> list[InsufficientResource]:
        """The resources the node cannot give the pod (fit.go fitsRequest).

        Cache-discrepancy deltas are not ported: they need InPlacePodVerticalScalingSchedulerPreemption,
        alpha and off in v1.37.
        """
        out: list[InsufficientResource] = []
        alloc = node.allocatable
        allowed = alloc.allowed_pod_number
        if len(node.pods) + 1 > allowed:
            out.append(InsufficientResource(res.PODS, REASON_TOO_MANY_PODS, 1, len(node.pods), allowed))
        if not (request.milli_cpu or request.memory or request.ephemeral_storage or request.scalar):
            return out
        used = node.requested  # summed on first read: a pod that requests nothing never needs it
        if request.milli_cpu > 0 and request.milli_cpu > alloc.milli_cpu - used.milli_cpu:
            out.append(InsufficientResource(res.CPU, insufficient_reason(res.CPU), request.milli_cpu,
                                            used.milli_cpu, alloc.milli_cpu, request.milli_cpu > alloc.milli_cpu))
        if request.memory > 0 and request.memory > alloc.memory - used.memory:
            out.append(InsufficientResource(res.MEMORY, insufficient_reason(res.MEMORY), request.memory,
                                            used.memory, alloc.memory, request.memory > alloc.memory))
        if request.ephemeral_storage > 0 and request.ephemeral_storage > alloc.ephemeral_storage - \
                used.ephemeral_storage:
            out.append(InsufficientResource(
                res.EPHEMERAL_STORAGE, insufficient_reason(res.EPHEMERAL_STORAGE), request.ephemeral_storage,
                used.ephemeral_storage, alloc.ephemeral_storage, request.ephemeral_storage > alloc.ephemeral_storage))
        for name in sorted(request.scalar):
            q = request.scalar[name]
            if q == 0:
                continue
            if res.is_extended_resource_name(name) and (
                    name in self.ignored_resources or name.split("/")[0] in self.ignored_resource_groups):
                continue
            if should_delegate_resource_to_dra(name, node, self.resolve_class):
                continue
            have, taken = alloc.scalar.get(name, 0), used.scalar.get(name, 0)
            if q > 0 and q > have - taken:
                out.append(InsufficientResource(name, insufficient_reason(name), q, taken, have, q > have))
        return out


def pod_fit_request(pod: PodInfo, enable_pod_level_resources: bool = True) -> res.Resource:
    """fit.go computePodResourceRequest for ``pod`` (cached on the PodInfo)."""
    key = "_fit_request" if enable_pod_level_resources else "_fit_request_no_pod_level"
    cached = pod.__dict__.get(key)
    if cached is None:
        opts = res.NO_OPTIONS if enable_pod_level_resources else res.Options(skip_pod_level_resources=True)
        cached = res.Resource()
        cached.set_max_resource(res.pod_requests(pod.defaulted_spec, None, opts))
        pod.__dict__[key] = cached
    return cached


# --------------------------------------------------------------- explanations in the user's numbers


def amount_text(name: str, v: int) -> str:
    """A Resource amount as the user writes it: cpu in cores or millicores, memory-like sizes in binary SI."""
    if name == res.CPU:
        return str(v // 1000) if v % 1000 == 0 else f"{v}m"
    if name in (res.MEMORY, res.EPHEMERAL_STORAGE) or res.is_hugepage_resource_name(name):
        return str(Quantity(Fraction(v), Format.BINARY_SI))
    return str(v)


def _value_text(name: str, v: Fraction) -> str:
    return amount_text(name, res.milli_value(v) if name == res.CPU else res.value(v))


def request_breakdown(spec: Mapping[str, Any], name: str) -> str:
    """Where a pod's request of ``name`` comes from: ``init container init: 12; containers: 4 + 4``."""
    spec = res.apply_defaults(spec)

    def req(c: Any) -> Fraction | None:
        r = res.resource_list(((c or {}).get("resources") or {}).get("requests") if isinstance(c, Mapping)
                              else None)
        return r.get(name)

    parts: list[str] = []
    pod_level = res.resource_list(((spec.get("resources") or {}) if isinstance(spec.get("resources"), Mapping)
                                   else {}).get("requests"))
    if name in pod_level and res.is_supported_pod_level_resource(name):
        parts.append(f"pod-level: {_value_text(name, pod_level[name])}")
    inits: list[Any] = spec.get("initContainers") or []
    for c in inits if isinstance(inits, list) else []:
        v = req(c)
        if v:
            kind = "sidecar" if isinstance(c, Mapping) and c.get("restartPolicy") == "Always" else "init container"
            parts.append(f"{kind} {c.get('name', '')}: {_value_text(name, v)}")
    ctrs: list[Any] = spec.get("containers") or []
    values = [v for v in (req(c) for c in (ctrs if isinstance(ctrs, list) else [])) if v]
    if values:
        word = "container" if len(values) == 1 else "containers"
        parts.append(f"{word}: {' + '.join(_value_text(name, v) for v in values)}")
    overhead = res.resource_list(spec.get("overhead"))
    if overhead.get(name):
        parts.append(f"overhead: {_value_text(name, overhead[name])}")
    return "; ".join(parts)


def _pods_text(pods: list[PodInfo]) -> str:
    names = [p.name for p in pods]
    shown = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
    return f"{len(names)} pod{'s' if len(names) != 1 else ''} ({shown})" if names else "no pod"


def explain(pod: PodInfo, node: NodeInfo, insufficient: list[InsufficientResource]) -> list[str]:
    """One line per missing resource, in the user's numbers."""
    out = []
    for i in insufficient:
        if i.resource_name == res.PODS:
            if not node.has_allocatable and node.node is not None:
                out.append(f"{i.reason}: node {node.name} has no allocatable in this source")
            else:
                out.append(f"{i.reason}: {i.used} of {i.capacity}")
            continue
        name = i.resource_name
        why = request_breakdown(pod.spec, name)
        text = f"{i.reason}: the pod requests {amount_text(name, i.requested)}"
        if why and ("+" in why or ";" in why or "init" in why or "sidecar" in why or "overhead" in why
                    or "pod-level" in why):
            text += f" ({why})"
        if not node.has_allocatable and node.node is not None:
            text += f"; node {node.name} has no allocatable in this source"
        else:
            holders = [p for p in node.pods if _requested(p, name) > 0]
            text += f", {amount_text(name, i.capacity)} allocatable"
            text += f", {amount_text(name, i.used)} requested by {_pods_text(holders)}" if holders else \
                ", none requested by other pods"
        out.append(text)
    return out


def _requested(p: PodInfo, name: str) -> int:
    r = p.requests
    if name == res.CPU:
        return r.milli_cpu
    if name == res.MEMORY:
        return r.memory
    if name == res.EPHEMERAL_STORAGE:
        return r.ephemeral_storage
    return r.scalar.get(name, 0)
