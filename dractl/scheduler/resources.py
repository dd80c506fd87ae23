"""What a pod requests and what a node offers, as kube-scheduler counts them.

``pod_requests``/``pod_limits`` port k8s.io/component-helpers@v0.37.2/resource/helpers.go (PodRequests,
PodLimits and their helpers: init containers' max rule, sidecars that add up, overhead, pod-level resources,
resize status); :class:`Resource` ports pkg/scheduler/framework/types.go Resource; ``apply_defaults`` is the
apiserver's defaulting of requests (pkg/apis/core/v1/defaults.go SetDefaults_Pod, defaultPodRequests,
defaultHugePagePodLimits). A ResourceList here is ``dict[str, Fraction]``: resource name -> exact value.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Any

from dractl.model.formats import label_key_error
from dractl.quantity import Quantity, QuantityError

ResourceList = dict[str, Fraction]

CPU, MEMORY, PODS, EPHEMERAL_STORAGE = "cpu", "memory", "pods", "ephemeral-storage"
HUGEPAGES_PREFIX = "hugepages-"
DEFAULT_NAMESPACE_PREFIX = "kubernetes.io/"
ATTACHABLE_VOLUMES_PREFIX = "attachable-volumes-"
REQUESTS_PREFIX = "requests."
DEVICE_CLASS_PREFIX = "deviceclass.resource.kubernetes.io/"

# pkg/scheduler/util/pod_resources.go: what scoring assumes for a container that requests nothing.
DEFAULT_MILLI_CPU_REQUEST = 100
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024


@lru_cache(maxsize=4096)
def quantity_value(q: Any) -> Fraction:
    """A quantity's exact value (cached: pods repeat the same few strings).

    Read as Quantity.UnmarshalJSON reads it: null is zero, white space around a string is trimmed.
    """
    return Quantity.decoded(q).value


def resource_list(d: Any) -> ResourceList:
    """A core/v1 ResourceList mapping as exact values.

    Entries that do not parse are left out (validation reports them).
    """
    out: ResourceList = {}
    if isinstance(d, Mapping):
        for k, v in d.items():
            try:
                out[str(k)] = quantity_value(v)
            except (QuantityError, TypeError):
                continue
    return out


def value(v: Fraction) -> int:
    """Quantity.Value() of an exact value (rounds away from zero, as upstream)."""
    if v.denominator == 1:
        return v.numerator
    q = -(-abs(v.numerator) // v.denominator)
    return q if v > 0 else -q


def milli_value(v: Fraction) -> int:
    """Quantity.MilliValue()."""
    return value(v * 1000)


# ---------------------------------------------------------------- resource names (core/v1 helper)

def is_prefixed_native_resource(name: str) -> bool:
    """Whether a resource name has the ``kubernetes.io/`` prefix (v1helper IsPrefixedNativeResource)."""
    return DEFAULT_NAMESPACE_PREFIX in name


def is_native_resource(name: str) -> bool:
    """Whether a resource name is unprefixed or ``kubernetes.io/`` prefixed (v1helper IsNativeResource)."""
    return "/" not in name or is_prefixed_native_resource(name)


@lru_cache(maxsize=1024)
def is_extended_resource_name(name: str) -> bool:
    """pkg/apis/core/v1/helper IsExtendedResourceName."""
    if is_native_resource(name) or name.startswith(REQUESTS_PREFIX):
        return False
    return label_key_error(REQUESTS_PREFIX + name) is None  # IsQualifiedName


def is_hugepage_resource_name(name: str) -> bool:
    """Whether a resource name is a hugepages size (``hugepages-<size>``)."""
    return name.startswith(HUGEPAGES_PREFIX)


@lru_cache(maxsize=1024)
def is_scalar_resource_name(name: str) -> bool:
    """pkg/scheduler/util IsScalarResourceName: extended, hugepages, prefixed native, attachable volumes."""
    return (is_extended_resource_name(name) or is_hugepage_resource_name(name)
            or is_prefixed_native_resource(name) or name.startswith(ATTACHABLE_VOLUMES_PREFIX))


def is_dra_extended_resource_name(name: str) -> bool:
    """pkg/scheduler/util IsDRAExtendedResourceName."""
    return is_extended_resource_name(name) or name.startswith(DEVICE_CLASS_PREFIX)


def is_supported_pod_level_resource(name: str) -> bool:
    """Whether pod-level resources may name this resource (cpu, memory, hugepages)."""
    return name in (CPU, MEMORY) or name.startswith(HUGEPAGES_PREFIX)


def is_overcommit_allowed(name: str) -> bool:
    """Whether a resource may be overcommitted (native resources but hugepages)."""
    return is_native_resource(name) and not is_hugepage_resource_name(name)


# ---------------------------------------------------------------- Resource (framework/types.go)


@dataclass(slots=True)
class Resource:
    """Amounts of resources a pod requests or a node offers (framework/types.go Resource).

    It holds cpu in millicores, memory and ephemeral storage in bytes, pods, and every other scalar resource
    (extended, hugepages, ``*kubernetes.io/*``) by name.
    """

    milli_cpu: int = 0
    memory: int = 0
    ephemeral_storage: int = 0
    allowed_pod_number: int = 0
    scalar: dict[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, rl: Mapping[str, Fraction]) -> Resource:
        """A Resource holding the sums of ``rl``."""
        r = cls()
        r.add(rl)
        return r

    def add(self, rl: Mapping[str, Fraction]) -> None:
        """Resource.Add."""
        for name, q in rl.items():
            if name == CPU:
                self.milli_cpu += milli_value(q)
            elif name == MEMORY:
                self.memory += value(q)
            elif name == PODS:
                self.allowed_pod_number += value(q)
            elif name == EPHEMERAL_STORAGE:
                self.ephemeral_storage += value(q)
            elif is_scalar_resource_name(name):
                self.scalar[name] = self.scalar.get(name, 0) + value(q)

    def set_max_resource(self, rl: Mapping[str, Fraction]) -> None:
        """Resource.SetMaxResource (pods are not counted)."""
        for name, q in rl.items():
            if name == MEMORY:
                self.memory = max(self.memory, value(q))
            elif name == CPU:
                self.milli_cpu = max(self.milli_cpu, milli_value(q))
            elif name == EPHEMERAL_STORAGE:
                self.ephemeral_storage = max(self.ephemeral_storage, value(q))
            elif is_scalar_resource_name(name):
                self.scalar[name] = max(self.scalar.get(name, 0), value(q))

    def add_resource(self, other: Resource, sign: int = 1) -> None:
        """NodeInfo.update's sums (allowed pods are not summed)."""
        self.milli_cpu += sign * other.milli_cpu
        self.memory += sign * other.memory
        self.ephemeral_storage += sign * other.ephemeral_storage
        for k, v in other.scalar.items():
            self.scalar[k] = self.scalar.get(k, 0) + sign * v

    def clone(self) -> Resource:
        """An independent copy."""
        return Resource(self.milli_cpu, self.memory, self.ephemeral_storage, self.allowed_pod_number,
                        dict(self.scalar))

    def is_zero(self) -> bool:
        """Whether every amount is zero (the pod count aside)."""
        return not (self.milli_cpu or self.memory or self.ephemeral_storage or any(self.scalar.values()))


#: node_allocatable's answers by the allocatable's items, all strings (the nodes of a pool publish the same); bounded
_ALLOCATABLE_MEMO: dict[tuple[tuple[str, Any], ...], Resource] = {}


def node_allocatable(allocatable: Mapping[str, Any]) -> Resource:
    """NodeInfo.SetNode: ``Allocatable = NewResource(node.Status.Allocatable)``.

    Nodes that publish the same allocatable share one Resource: read only.
    """
    key = tuple(allocatable.items())
    if not all(type(k) is str and type(v) is str for k, v in key):  # what equal keys might parse apart
        return Resource.of(resource_list(allocatable))
    hit = _ALLOCATABLE_MEMO.get(key)
    if hit is None:
        hit = Resource.of(resource_list(allocatable))
        if len(_ALLOCATABLE_MEMO) >= 4096:
            _ALLOCATABLE_MEMO.clear()
        _ALLOCATABLE_MEMO[key] = hit
    return hit


# ---------------------------------------------------------------- helpers.go


@dataclass(frozen=True)
class Options:
    """How a pod's requests are added up (helpers.go PodResourcesOptions).

    Reuse and the DRA node-allocatable options are not ported: that gate, DRANodeAllocatableResources, is
    alpha and off in v1.37.
    """

    use_status_resources: bool = False
    in_place_pod_level_resources_vertical_scaling_enabled: bool = False
    exclude_overhead: bool = False
    non_missing_container_requests: Mapping[str, Fraction] | None = None
    skip_pod_level_resources: bool = False
    skip_container_level_resources: bool = False


NO_OPTIONS = Options()


def _d(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, Mapping) else {}


def _l(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def _add(into: ResourceList, new: Mapping[str, Fraction]) -> None:
    for k, v in new.items():
        into[k] = into.get(k, 0) + v


def _max_into(into: ResourceList, new: Mapping[str, Fraction]) -> None:
    for k, v in new.items():
        if k not in into or v > into[k]:
            into[k] = v


def _max(a: Mapping[str, Fraction] | None, *b: Mapping[str, Fraction] | None) -> ResourceList:
    out: ResourceList = dict(a or {})
    for o in b:
        _max_into(out, o or {})
    return out


def _requirements(spec: Mapping[str, Any], key: str) -> ResourceList | None:
    """spec.resources.<key> of a pod, or None when the pod has no spec.resources."""
    res = spec.get("resources")
    if not isinstance(res, Mapping):
        return None
    return resource_list(res.get(key))


def is_pod_level_requests_set(spec: Mapping[str, Any]) -> bool:
    """Whether the pod sets pod-level requests of a supported resource."""
    return any(is_supported_pod_level_resource(k) for k in _d(_d(spec.get("resources")).get("requests")))


def is_pod_level_limits_set(spec: Mapping[str, Any]) -> bool:
    """Whether the pod sets pod-level limits of a supported resource."""
    return any(is_supported_pod_level_resource(k) for k in _d(_d(spec.get("resources")).get("limits")))


def is_pod_level_resources_set(spec: Mapping[str, Any]) -> bool:
    """Whether the pod sets pod-level requests or limits."""
    return is_pod_level_requests_set(spec) or is_pod_level_limits_set(spec)


def is_pod_resize_infeasible(status: Mapping[str, Any]) -> bool:
    """Whether the pod's PodResizePending condition says Infeasible."""
    for c in _l(status.get("conditions")):
        if _d(c).get("type") == "PodResizePending":
            return _d(c).get("reason") == "Infeasible"
    return False


def _container_status(status: Mapping[str, Any], name: str) -> Mapping[str, Any] | None:
    for key in ("containerStatuses", "initContainerStatuses"):
        for cs in _l(status.get(key)):
            if _d(cs).get("name") == name:
                return _d(cs)
    return None


def _spec_requests(c: Mapping[str, Any], cs: Mapping[str, Any] | None, infeasible: bool) -> ResourceList:
    return resource_list(_d(c.get("resources")).get("requests"))


def _allocated_requests(c: Mapping[str, Any], cs: Mapping[str, Any] | None, infeasible: bool) -> ResourceList:
    if cs is not None and cs.get("allocatedResources") is not None:
        return resource_list(cs.get("allocatedResources"))
    if infeasible:
        return {}
    return _spec_requests(c, cs, infeasible)


def _actuated_requests(c: Mapping[str, Any], cs: Mapping[str, Any] | None, infeasible: bool) -> ResourceList:
    if cs is not None:
        res = cs.get("resources")
        if isinstance(res, Mapping) and res.get("requests") is not None:
            return resource_list(res.get("requests"))
        if cs.get("allocatedResources") is not None:
            return resource_list(cs.get("allocatedResources"))
    if infeasible:
        return {}
    return _spec_requests(c, cs, infeasible)


def _spec_limits(c: Mapping[str, Any], cs: Mapping[str, Any] | None, infeasible: bool) -> ResourceList:
    return resource_list(_d(c.get("resources")).get("limits"))


def _actuated_limits(c: Mapping[str, Any], cs: Mapping[str, Any] | None, infeasible: bool) -> ResourceList:
    if cs is not None:
        res = cs.get("resources")
        if isinstance(res, Mapping) and res.get("limits") is not None:
            return resource_list(res.get("limits"))
    if infeasible:
        return {}
    return _spec_limits(c, cs, infeasible)


def _is_restartable_init_container(c: Mapping[str, Any]) -> bool:
    return c.get("restartPolicy") == "Always"


def _apply_non_missing(reqs: ResourceList, non_missing: Mapping[str, Fraction]) -> ResourceList:
    out = dict(reqs)
    for k, v in non_missing.items():
        if k not in reqs:
            out[k] = out.get(k, 0) + v
    return out


def _aggregate_by(spec: Mapping[str, Any], status: Mapping[str, Any], opts: Options, get: Any) -> ResourceList:
    """A pod's container resources added up (helpers.go aggregateContainerResourcesByFn).

    Containers add up; each init container needs its own plus the sidecars (restartPolicy Always init
    containers) started before it; sidecars add to the total.
    """
    infeasible = is_pod_resize_infeasible(status) if opts.use_status_resources else False
    non_missing = opts.non_missing_container_requests
    result: ResourceList = {}
    for c in _l(spec.get("containers")):
        c = _d(c)
        cs = _container_status(status, c.get("name", "")) if opts.use_status_resources else None
        r = get(c, cs, infeasible)
        if non_missing:
            r = _apply_non_missing(r, non_missing)
        _add(result, r)
    restartable: ResourceList = {}
    init: ResourceList = {}
    for c in _l(spec.get("initContainers")):
        c = _d(c)
        cs = _container_status(status, c.get("name", "")) if opts.use_status_resources else None
        r = get(c, cs, infeasible)
        if non_missing:
            r = _apply_non_missing(r, non_missing)
        if _is_restartable_init_container(c):
            _add(result, r)
            _add(restartable, r)
            r = restartable
        else:
            combined: ResourceList = {}
            _add(combined, r)
            _add(combined, restartable)
            r = combined
        _max_into(init, r)
    _max_into(result, init)
    return result


def aggregate_container_requests(
    spec: Mapping[str, Any], status: Mapping[str, Any] | None = None, opts: Options = NO_OPTIONS
) -> ResourceList:
    """helpers.go AggregateContainerRequests."""
    status = status or {}
    if not opts.use_status_resources:
        return _aggregate_by(spec, status, opts, _spec_requests)
    infeasible = is_pod_resize_infeasible(status)
    spec_reqs = _aggregate_by(spec, status, opts, _spec_requests)
    st_res = _d(status.get("resources"))
    if (opts.in_place_pod_level_resources_vertical_scaling_enabled and status.get("allocatedResources") is not None
            and status.get("resources") is not None and st_res.get("requests") is not None):
        allocated = resource_list(status.get("allocatedResources"))
        actuated = resource_list(st_res.get("requests"))
    else:
        allocated = _aggregate_by(spec, status, opts, _allocated_requests)
        actuated = _aggregate_by(spec, status, opts, _actuated_requests)
    if infeasible:
        return _max(actuated, allocated)
    return _max(spec_reqs, actuated, allocated)


def _effective_pod_level(status: Mapping[str, Any], spec_rl: ResourceList | None,
                         *statuses: ResourceList | None) -> ResourceList:
    if is_pod_resize_infeasible(status):
        spec_rl = None
    return _max(spec_rl, *statuses)


def pod_requests(
    spec: Mapping[str, Any], status: Mapping[str, Any] | None = None, opts: Options = NO_OPTIONS
) -> ResourceList:
    """helpers.go PodRequests: the pod's total requests per the options."""
    status = status or {}
    reqs: ResourceList = {}
    if not opts.skip_container_level_resources:
        reqs = aggregate_container_requests(spec, status, opts)
    if not opts.skip_pod_level_resources and is_pod_level_requests_set(spec):
        effective = _requirements(spec, "requests") or {}
        st_res = status.get("resources")
        if opts.in_place_pod_level_resources_vertical_scaling_enabled and opts.use_status_resources and \
                isinstance(st_res, Mapping):
            effective = _effective_pod_level(status, effective, resource_list(st_res.get("requests")),
                                             resource_list(status.get("allocatedResources")))
        for k, v in effective.items():
            if is_supported_pod_level_resource(k):
                reqs[k] = v
    if not opts.exclude_overhead and isinstance(spec.get("overhead"), Mapping):
        _add(reqs, resource_list(spec.get("overhead")))
    return reqs


def aggregate_container_limits(
    spec: Mapping[str, Any], status: Mapping[str, Any] | None = None, opts: Options = NO_OPTIONS
) -> ResourceList:
    """helpers.go AggregateContainerLimits."""
    status = status or {}
    opts = Options(opts.use_status_resources, opts.in_place_pod_level_resources_vertical_scaling_enabled,
                   opts.exclude_overhead, None, opts.skip_pod_level_resources, opts.skip_container_level_resources)
    if not opts.use_status_resources:
        return _aggregate_by(spec, status, opts, _spec_limits)
    infeasible = is_pod_resize_infeasible(status)
    spec_limits = _aggregate_by(spec, status, opts, _spec_limits)
    st_res = _d(status.get("resources"))
    if opts.in_place_pod_level_resources_vertical_scaling_enabled and status.get("resources") is not None and \
            st_res.get("limits") is not None:
        actuated = resource_list(st_res.get("limits"))
    else:
        actuated = _aggregate_by(spec, status, opts, _actuated_limits)
    if infeasible:
        return dict(actuated)
    return _max(spec_limits, actuated)


def pod_limits(
    spec: Mapping[str, Any], status: Mapping[str, Any] | None = None, opts: Options = NO_OPTIONS
) -> ResourceList:
    """helpers.go PodLimits: overhead is added only to non-zero limits."""
    status = status or {}
    limits = aggregate_container_limits(spec, status, opts)
    if not opts.skip_pod_level_resources and is_pod_level_resources_set(spec):
        effective = _requirements(spec, "limits") or {}
        st_res = status.get("resources")
        if opts.in_place_pod_level_resources_vertical_scaling_enabled and opts.use_status_resources and \
                isinstance(st_res, Mapping):
            effective = _effective_pod_level(status, effective, resource_list(st_res.get("limits")))
        for k, v in effective.items():
            if is_supported_pod_level_resource(k):
                limits[k] = v
    if not opts.exclude_overhead and isinstance(spec.get("overhead"), Mapping):
        for k, v in resource_list(spec.get("overhead")).items():
            if k in limits and limits[k] != 0:
                limits[k] += v
    return limits


# ---------------------------------------------------------------- the apiserver's defaulting


def apply_defaults(spec: Mapping[str, Any]) -> Mapping[str, Any]:
    """The pod spec with the apiserver's request defaulting on create applied.

    The apiserver's request defaulting on create (pkg/apis/core/v1/defaults.go SetDefaults_Pod: a
    container's limits stand in for its unset requests; defaultHugePagePodLimits and defaultPodRequests for
    pod-level resources, which PodLevelResourcesFixDefaulting runs at create). Returns ``spec`` itself when
    nothing changes (a pod read from a cluster is already defaulted).
    """
    changed = False
    out = dict(spec)
    for key in ("containers", "initContainers"):
        items = _l(spec.get(key))
        new_items = []
        for c in items:
            c = _d(c)
            res = _d(c.get("resources"))
            limits = res.get("limits")
            if isinstance(limits, Mapping) and limits:
                reqs = dict(_d(res.get("requests")))
                missing = {k: v for k, v in limits.items() if k not in reqs}
                if missing:
                    reqs.update(missing)
                    c = {**c, "resources": {**res, "requests": reqs}}
                    changed = True
            new_items.append(c)
        if changed:
            out[key] = new_items
    pod_res = spec.get("resources")
    if isinstance(pod_res, Mapping) and (pod_res.get("limits") or pod_res.get("requests")):
        view = out if changed else spec
        new_res = _default_pod_level(view, pod_res)
        if new_res is not None:
            out["resources"] = new_res
            changed = True
    return out if changed else spec


def _default_pod_level(spec: Mapping[str, Any], pod_res: Mapping[str, Any]) -> dict[str, Any] | None:
    raw_limits = dict(_d(pod_res.get("limits")))
    raw_reqs = dict(_d(pod_res.get("requests")))
    changed = False
    # defaultHugePagePodLimits
    for k, v in aggregate_container_limits(spec).items():
        if not is_supported_pod_level_resource(k) or not is_hugepage_resource_name(k):
            continue
        if k in raw_reqs or k in raw_limits:
            continue
        raw_limits[k] = _fmt(v)
        changed = True
    # defaultPodRequests
    if raw_limits:
        for k, v in aggregate_container_requests(spec).items():
            if k not in raw_reqs and is_supported_pod_level_resource(k) and is_overcommit_allowed(k):
                raw_reqs[k] = _fmt(v)
                changed = True
        for k, lim in raw_limits.items():
            if k not in raw_reqs and is_supported_pod_level_resource(k):
                raw_reqs[k] = lim
                changed = True
    if not changed:
        return None
    out = dict(pod_res)
    if raw_limits:
        out["limits"] = raw_limits
    if raw_reqs:
        out["requests"] = raw_reqs
    return out


def _fmt(v: Fraction) -> str:
    return str(Quantity(v))


# ---------------------------------------------------------------- what the scheduler uses


# types.go CalculateResource with v1.37's gates: InPlacePodVerticalScaling (GA) -> status resources count;
# InPlacePodLevelResourcesVerticalScaling (beta, on); PodLevelResources (beta, on).
CACHE_OPTIONS = Options(use_status_resources=True, in_place_pod_level_resources_vertical_scaling_enabled=True)

_NON_MISSING_DEFAULTS: ResourceList = {CPU: Fraction(DEFAULT_MILLI_CPU_REQUEST, 1000),
                                       MEMORY: Fraction(DEFAULT_MEMORY_REQUEST)}


def _non_missing_container_requests(requests: ResourceList, pod_level_set: bool) -> ResourceList:
    """types.go getNonMissingContainerRequests."""
    if not pod_level_set:
        return dict(_NON_MISSING_DEFAULTS)
    return {k: v for k, v in _NON_MISSING_DEFAULTS.items() if k not in requests}


_RESIZE_FIELDS = ("resources", "allocatedResources")


def _has_resize_status(status: Mapping[str, Any]) -> bool:
    """Whether the status says anything PodRequests' status options read (else they give the spec's answer)."""
    if any(k in status for k in _RESIZE_FIELDS):
        return True
    for key in ("containerStatuses", "initContainerStatuses"):
        for cs in _l(status.get(key)):
            if isinstance(cs, Mapping) and any(k in cs for k in _RESIZE_FIELDS):
                return True
    return is_pod_resize_infeasible(status)


def _all_containers_request_cpu_and_memory(spec: Mapping[str, Any]) -> bool:
    for key in ("containers", "initContainers"):
        for c in _l(spec.get(key)):
            reqs = _d(_d(_d(c).get("resources")).get("requests"))
            if CPU not in reqs or MEMORY not in reqs:
                return False
    return True


#: pod_resource's answers by what of the spec they read (pods of one template share one); bounded
_POD_RESOURCE_MEMO: dict[str, tuple[Resource, int, int]] = {}
_POD_RESOURCE_MEMO_MAX = 4096


def resource_key(spec: Mapping[str, Any], status: Mapping[str, Any]) -> str | None:
    """All that pod_resource reads of a pod without resize status, as a string.

    That is its containers' and init containers' resources and restartPolicy, the pod-level resources and the
    overhead (not the status; the defaulting reads the same). None when the status counts or the spec is not
    plain JSON.
    """
    if _has_resize_status(status):
        return None
    try:
        return json.dumps([[[c.get("restartPolicy"), c.get("resources")] if isinstance(c, Mapping) else None
                            for c in _l(spec.get(k))] for k in ("containers", "initContainers")]
                          + [spec.get("resources"), spec.get("overhead")])
    except (TypeError, ValueError):
        return None


def pod_resource_memo(key: str | None, compute: Callable[[], tuple[Resource, int, int]]
                      ) -> tuple[Resource, int, int]:
    """pod_resource of the pod whose resource_key is ``key``, worked out by ``compute`` once per key.

    The Resource is shared: read only.
    """
    if key is None:
        return compute()
    hit = _POD_RESOURCE_MEMO.get(key)
    if hit is None:
        if len(_POD_RESOURCE_MEMO) >= _POD_RESOURCE_MEMO_MAX:
            _POD_RESOURCE_MEMO.clear()
        hit = _POD_RESOURCE_MEMO[key] = compute()
    return hit


def pod_resource(spec: Mapping[str, Any], status: Mapping[str, Any], *,
                 defaulted: bool = False) -> tuple[Resource, int, int]:
    """A pod's requests and non-zero cpu and memory, as the scheduler's NodeInfo sums them.

    types.go PodInfo.CalculateResource: (requests, non-zero cpu in millicores, non-zero memory) of a pod as
    the scheduler's NodeInfo sums it, after the apiserver's defaulting (``defaulted``: already applied).
    """
    if not defaulted:
        spec = apply_defaults(spec)
    # Without resize status the status options change nothing: one aggregation instead of three.
    opts = CACHE_OPTIONS if _has_resize_status(status) else NO_OPTIONS
    requests = pod_requests(spec, status, opts)
    pod_level = is_pod_level_requests_set(spec)
    non_missing = _non_missing_container_requests(requests, pod_level)
    non0 = requests
    # Every container already requesting cpu and memory: the non-missing defaults add nothing.
    if non_missing and (pod_level or not _all_containers_request_cpu_and_memory(spec)):
        non0 = pod_requests(spec, status, Options(
            opts.use_status_resources, opts.in_place_pod_level_resources_vertical_scaling_enabled,
            non_missing_container_requests=non_missing))
    return Resource.of(requests), milli_value(non0.get(CPU, Fraction(0))), value(non0.get(MEMORY, Fraction(0)))


def fit_request(spec: Mapping[str, Any]) -> Resource:
    """noderesources/fit.go computePodResourceRequest: what NodeResourcesFit checks for the incoming pod."""
    r = Resource()
    r.set_max_resource(pod_requests(apply_defaults(spec), None, NO_OPTIONS))
    return r
