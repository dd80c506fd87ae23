"""ResourceQuota: what the quota controller counts and what kube-apiserver's ResourceQuota admission refuses.

Pure. Ported from k8s.io/kubernetes pkg/quota/v1/evaluator/core (pods.go, resource_claims.go), the
generic object-count evaluator and the admission check of k8s.io/apiserver
pkg/admission/plugin/resourcequota/controller.go (``CheckRequest``), with upstream's words:
``exceeded quota: gpus, requested: gpu.example.com.deviceclass.resource.k8s.io/devices=2, used: ...=7,
limited: ...=8``.

A quota's ``used`` is what the quota controller would write from the objects stored
(pkg/controller/resourcequota: ``CalculateUsage``), recomputed on every admission; resources no
evaluator here tracks (services, configmaps...) keep the figure the quota's status had.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from dractl.control.limitranger import ResourceList, resource_list
from dractl.model.extendedresources import IMPLICIT_PREFIX, DeviceClassResolver
from dractl.model.objects import ResourceQuota, ScopedResourceSelectorRequirement
from dractl.quantity import Quantity

# k8s.io/api/core/v1 types.go and resource/v1 types.go
REQUESTS_PREFIX = "requests."
LIMITS_PREFIX = "limits."
HUGEPAGES_PREFIX = "hugepages-"
PER_CLASS_SUFFIX = ".deviceclass.resource.k8s.io/devices"  # ResourceClaimsPerClass
IMPLICIT_QUOTA_PREFIX = REQUESTS_PREFIX + IMPLICIT_PREFIX  # ResourceImplicitExtendedClaimsPerClass
EXTENDED_CLAIM_ANNOTATION = "resource.kubernetes.io/extended-resource-claim"
ALLOCATION_RESULTS_MAX_SIZE = 32  # resourceapi.AllocationResultsMaxSize: an "All" request counts this many

POD_COUNT = "count/pods"
CLAIM_COUNT = "count/resourceclaims.resource.k8s.io"

_POD_RESOURCES = frozenset({
    POD_COUNT, "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory",
    "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods",
})
_POD_PREFIXES = (HUGEPAGES_PREFIX, REQUESTS_PREFIX + HUGEPAGES_PREFIX)
_CONSTRAINED = ("cpu", "limits.cpu", "limits.memory", "memory", "requests.cpu", "requests.memory")  # validationSet

#: the quota's group-resource of each kind dractl stores (object-count quota ``count/<resource>``)
RESOURCES = {
    "Pod": "pods",
    "ResourceClaim": "resourceclaims.resource.k8s.io",
    "ResourceClaimTemplate": "resourceclaimtemplates.resource.k8s.io",
    "LimitRange": "limitranges",
    "ResourceQuota": "resourcequotas",
}


def _zero() -> Quantity:
    return Quantity.parse("0")


def _one() -> Quantity:
    return Quantity.parse("1")


def add(a: Mapping[str, Quantity], b: Mapping[str, Quantity]) -> ResourceList:
    """quota.Add."""
    out = {k: (v + b[k] if k in b else v) for k, v in a.items()}
    for k, v in b.items():
        out.setdefault(k, v)
    return out


def mask(a: Mapping[str, Quantity], names: Iterable[str]) -> ResourceList:
    """The entries of ``a`` named in ``names``."""
    keep = set(names)
    return {k: v for k, v in a.items() if k in keep}


def pretty(rl: Mapping[str, Quantity]) -> str:
    """prettyPrint: name=value, sorted by name."""
    return ",".join(f"{k}={rl[k]}" for k in sorted(rl))


# ------------------------------------------------------------------ resource names (core/v1 helper)


def is_native(name: str) -> bool:
    """Whether a resource name is in the kubernetes.io namespace (v1helper.IsNativeResource)."""
    return "/" not in name or "kubernetes.io/" in name


def is_extended(name: str) -> bool:
    """v1helper.IsExtendedResourceName."""
    from dractl.model.formats import label_key_error

    if is_native(name) or name.startswith(REQUESTS_PREFIX):
        return False
    return label_key_error(REQUESTS_PREFIX + name) is None


def is_dra_extended(name: str) -> bool:
    """schedutil.IsDRAExtendedResourceName."""
    return is_extended(name) or name.startswith(IMPLICIT_PREFIX)


def _is_extended_for_quota(name: str) -> bool:
    """Whether a quota resource name is an extended resource's requests (isExtendedResourceNameForQuota)."""
    return (not is_native(name) or name.startswith(IMPLICIT_QUOTA_PREFIX)) and name.startswith(REQUESTS_PREFIX)


# ------------------------------------------------------------------ pods (pods.go)


def _containers(spec: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    return [c for c in spec.get(key) or [] if isinstance(c, Mapping)]


def _aggregate(spec: Mapping[str, Any], field: str) -> ResourceList:
    """A pod's container requests or limits added up (component-helpers AggregateContainerRequests / ...Limits).

    Containers add up, an init container counts with the sidecars started before it, the largest wins;
    sidecars add up.
    """
    total: ResourceList = {}
    for c in _containers(spec, "containers"):
        total = add(total, resource_list((c.get("resources") or {}).get(field)))
    sidecars: ResourceList = {}
    init: ResourceList = {}
    for c in _containers(spec, "initContainers"):
        own = resource_list((c.get("resources") or {}).get(field))
        if c.get("restartPolicy") == "Always":
            total = add(total, own)
            sidecars = add(sidecars, own)
            this = sidecars
        else:
            this = add(own, sidecars)
        for k, q in this.items():
            if k not in init or q > init[k]:
                init[k] = q
    for k, q in init.items():
        if k not in total or q > total[k]:
            total[k] = q
    return total


def _pod_level(name: str) -> bool:
    return name in ("cpu", "memory") or name.startswith(HUGEPAGES_PREFIX)


def pod_requests(spec: Mapping[str, Any]) -> ResourceList:
    """component-helpers PodRequests (spec resources): containers, pod-level requests, overhead."""
    reqs = _aggregate(spec, "requests")
    for k, q in resource_list((spec.get("resources") or {}).get("requests")).items():
        if _pod_level(k):
            reqs[k] = q
    overhead = resource_list(spec.get("overhead"))
    return add(reqs, overhead) if overhead else reqs


def pod_limits(spec: Mapping[str, Any]) -> ResourceList:
    """component-helpers PodLimits: containers, pod-level limits; overhead only where a limit is set."""
    limits = _aggregate(spec, "limits")
    pod_level = (spec.get("resources") or {})
    if any(_pod_level(k) for k in list(pod_level.get("requests") or {}) + list(pod_level.get("limits") or {})):
        for k, q in resource_list(pod_level.get("limits")).items():
            if _pod_level(k):
                limits[k] = q
    for k, q in resource_list(spec.get("overhead")).items():
        if k in limits:
            limits[k] = limits[k] + q
    return limits


def _compute_usage(requests: Mapping[str, Quantity], limits: Mapping[str, Quantity]) -> ResourceList:
    """The quota usage of a pod's requests and limits (podComputeUsageHelper)."""
    out: ResourceList = {"pods": _one()}
    for name in ("cpu", "memory", "ephemeral-storage"):
        if name in requests:
            out[name] = requests[name]
            out[REQUESTS_PREFIX + name] = requests[name]
        if name in limits:
            out[LIMITS_PREFIX + name] = limits[name]
    for name, q in requests.items():
        if name.startswith(HUGEPAGES_PREFIX):
            out[name] = q
            out[REQUESTS_PREFIX + name] = q
        if is_dra_extended(name):
            out[REQUESTS_PREFIX + name] = q
    return out


def counts_for_quota(pod: Mapping[str, Any], now: datetime | None = None) -> bool:
    """Whether a pod counts against quota (QuotaV1Pod).

    A pod that has finished no longer counts, nor one being deleted whose grace period is over at
    ``now`` (without ``now``, a pod being deleted still counts).
    """
    if (pod.get("status") or {}).get("phase") in ("Failed", "Succeeded"):
        return False
    md = pod.get("metadata") or {}
    grace = md.get("deletionGracePeriodSeconds")
    if now is not None and md.get("deletionTimestamp") and isinstance(grace, int):
        try:
            deleted = datetime.fromisoformat(str(md["deletionTimestamp"]).replace("Z", "+00:00"))
        except ValueError:
            return True
        if now > deleted + timedelta(seconds=grace):
            return False
    return True


def pod_usage(pod: Mapping[str, Any], now: datetime | None = None) -> ResourceList:
    """PodUsageFunc."""
    out: ResourceList = {POD_COUNT: _one()}
    if not counts_for_quota(pod, now):
        return out
    spec = pod.get("spec") or {}
    return add(out, _compute_usage(pod_requests(spec), pod_limits(spec)))


def _has_pod_level(spec: Mapping[str, Any]) -> bool:
    """IsPodLevelResourcesSet."""
    res = spec.get("resources") or {}
    return any(_pod_level(k) for k in list(res.get("requests") or {}) + list(res.get("limits") or {}))


def pod_constraints(required: Iterable[str], pod: Mapping[str, Any]) -> str | None:
    """podEvaluator.Constraints: every container must set what a quota limits (cpu, memory...)."""
    spec = pod.get("spec") or {}
    if _has_pod_level(spec):
        return None
    need = set(required) & set(_CONSTRAINED)
    missing: dict[str, set[str]] = {}
    for key in ("containers", "initContainers"):
        for c in _containers(spec, key):
            res = c.get("resources") or {}
            have = set(_compute_usage(resource_list(res.get("requests")), resource_list(res.get("limits"))))
            for name in need - have:
                missing.setdefault(name, set()).add(str(c.get("name") or ""))
    if not missing:
        return None
    return "must specify " + "; ".join(f"{r} for: {','.join(sorted(missing[r]))}" for r in sorted(missing))


def _qos_best_effort(spec: Mapping[str, Any]) -> bool:
    """qos.GetPodQOS(pod) == BestEffort: no positive cpu or memory request or limit anywhere."""
    lists = [(spec.get("resources") or {}).get(f) for f in ("requests", "limits")]
    for key in ("containers", "initContainers"):
        for c in _containers(spec, key):
            lists += [(c.get("resources") or {}).get(f) for f in ("requests", "limits")]
    for rl in lists:
        for k, q in resource_list(rl).items():
            if k in ("cpu", "memory") and q.sign() > 0:
                return False
    return True


def _cross_namespace_affinity(spec: Mapping[str, Any]) -> bool:
    aff = spec.get("affinity") or {}
    for kind in ("podAffinity", "podAntiAffinity"):
        a = aff.get(kind) or {}
        terms = list(a.get("requiredDuringSchedulingIgnoredDuringExecution") or [])
        preferred = a.get("preferredDuringSchedulingIgnoredDuringExecution") or []
        terms += [(w or {}).get("podAffinityTerm") or {} for w in preferred]
        if any((t or {}).get("namespaces") or (t or {}).get("namespaceSelector") is not None for t in terms):
            return True
    return False


def pod_matches_scope(sel: ScopedResourceSelectorRequirement, pod: Mapping[str, Any]) -> bool:
    """Whether a pod matches a quota scope selector (podMatchesScopeFunc)."""
    spec = pod.get("spec") or {}
    scope = sel.scope_name
    terminating = isinstance(spec.get("activeDeadlineSeconds"), int) and spec["activeDeadlineSeconds"] >= 0
    if scope == "Terminating":
        return terminating
    if scope == "NotTerminating":
        return not terminating
    if scope == "BestEffort":
        return _qos_best_effort(spec)
    if scope == "NotBestEffort":
        return not _qos_best_effort(spec)
    if scope == "PriorityClass":
        pc = spec.get("priorityClassName") or ""
        if sel.operator == "Exists":
            return bool(pc)
        # ScopedResourceSelectorRequirementsAsSelector: a label selector on {PriorityClass: name}
        value = pc if pc else None
        if sel.operator == "In":
            return value is not None and value in sel.values
        if sel.operator == "NotIn":
            return value is None or value not in sel.values
        if sel.operator == "DoesNotExist":
            return value is None
        return False
    if scope == "CrossNamespacePodAffinity":
        return _cross_namespace_affinity(spec)
    return False


def pod_matching(names: Iterable[str]) -> list[str]:
    """podEvaluator.MatchingResources."""
    out = []
    for n in names:
        if n in _POD_RESOURCES or n.startswith(_POD_PREFIXES) or _is_extended_for_quota(n):
            out.append(n)
    return out


# ------------------------------------------------------------------ claims (resource_claims.go)


def claim_matching(names: Iterable[str], ext: DeviceClassResolver) -> list[str]:
    """claimEvaluator.MatchingResources."""
    out = []
    for n in names:
        if n == CLAIM_COUNT or n.endswith(PER_CLASS_SUFFIX):
            out.append(n)
            continue
        if n.startswith(IMPLICIT_QUOTA_PREFIX):
            if ext.extended_resource(n[len(IMPLICIT_QUOTA_PREFIX):]):
                out.append(n)
                continue
        if _is_extended_for_quota(n) and ext.device_class(n[len(REQUESTS_PREFIX):]) is not None:
            out.append(n)
    return out


def _devices(sub: Mapping[str, Any]) -> int:
    mode = sub.get("allocationMode") or "ExactCount"
    if mode == "ExactCount":
        return int(sub.get("count") or 1)
    return ALLOCATION_RESULTS_MAX_SIZE if mode == "All" else 0


def claim_usage(claim: Mapping[str, Any], ext: DeviceClassResolver,
                owner_usage: Callable[[Mapping[str, Any]], ResourceList | None]) -> ResourceList:
    """The quota usage of a ResourceClaim (claimEvaluator.Usage).

    It counts one claim, devices per class (the largest ``firstAvailable`` alternative per class), and for a pod's
    extended-resource claim its classes' extended names minus what the pod already counts
    (``owner_usage``: getVerifiedPodUsage).
    """
    out: ResourceList = {CLAIM_COUNT: _one()}
    for r in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or []:
        r = r or {}
        if r.get("firstAvailable"):
            best: dict[str, int] = {}
            for sub in r["firstAvailable"]:
                key = str((sub or {}).get("deviceClassName") or "") + PER_CLASS_SUFFIX
                best[key] = max(best.get(key, 0), _devices(sub or {}))
            for key, n in best.items():
                out[key] = out.get(key, _zero()) + Quantity.parse(n)
        elif r.get("exactly"):
            ex = r["exactly"]
            key = str(ex.get("deviceClassName") or "") + PER_CLASS_SUFFIX
            out[key] = out.get(key, _zero()) + Quantity.parse(_devices(ex))
    pod = owner_usage(claim)
    extended: ResourceList = {}
    for name, q in list(out.items()):
        cls_name = name[: -len(PER_CLASS_SUFFIX)] if name.endswith(PER_CLASS_SUFFIX) else ""
        if not cls_name:
            continue
        extended[IMPLICIT_QUOTA_PREFIX + cls_name] = q
        ern = ext.extended_resource(cls_name)
        if ern:
            extended[REQUESTS_PREFIX + ern] = q
    for name, q in extended.items():
        if pod and name in pod:
            q = q - pod[name]
        if q.sign() > 0:
            out[name] = q
    return out


# ------------------------------------------------------------------ admission (CheckRequest)


@dataclass
class QuotaStatus:
    """One quota with the ``used`` figures admission compares against (updated as objects are admitted)."""

    quota: ResourceQuota
    used: ResourceList

    @property
    def name(self) -> str:
        """The quota's name."""
        return self.quota.name

    def selectors(self) -> list[ScopedResourceSelectorRequirement]:
        """The quota's scopes and scope selector as requirements (getScopeSelectorsFromQuota)."""
        out = [ScopedResourceSelectorRequirement(s, "Exists") for s in self.quota.scopes]
        return out + list(self.quota.scope_selector or ())


@dataclass(frozen=True)
class Evaluator:
    """One kind's quota rules: which quota resources it tracks, scopes, constraints and usage."""

    matching: Callable[[Iterable[str]], list[str]]
    usage: Callable[[Mapping[str, Any]], ResourceList]
    scope: Callable[[ScopedResourceSelectorRequirement, Mapping[str, Any]], bool] | None = None
    constraints: Callable[[Iterable[str], Mapping[str, Any]], str | None] | None = None

    def matches(self, q: QuotaStatus, obj: Mapping[str, Any]) -> bool:
        """Whether the quota applies to the object (generic.Matches).

        The quota limits something this kind uses, and every scope matches (a kind without scopes
        matches no scoped quota).
        """
        if not self.matching(q.quota.hard):
            return False
        for sel in q.selectors():
            if self.scope is None or not self.scope(sel, obj):
                return False
        return True


def object_count(resource: str) -> Evaluator:
    """generic.NewObjectCountEvaluator: ``count/<resource>``."""
    name = "count/" + resource
    return Evaluator(matching=lambda names: [n for n in names if n == name],
                     usage=lambda obj: {name: _one()})


def used_by(q: ResourceQuota, ev: Evaluator, objects: Iterable[Mapping[str, Any]]) -> ResourceList:
    """What the objects use of the quota's tracked resources (CalculateUsageStats for one evaluator).

    The matching objects' usage summed, tracked names only (zero when nothing counts).
    """
    names = ev.matching(q.hard)
    if not names:
        return {}
    total: ResourceList = {n: _zero() for n in names}
    selectors = QuotaStatus(q, {}).selectors()
    for obj in objects:
        if all(ev.scope is not None and ev.scope(s, obj) for s in selectors):
            total = add(total, ev.usage(obj))
    return mask(total, names)


def check_request(quotas: Sequence[QuotaStatus], ev: Evaluator, obj: Mapping[str, Any]) -> str | None:
    """The quota refusal of creating ``obj``, or None (CheckRequest).

    The refusal's text (without ``<resource> "<name>" is forbidden: ``), or None, after which each
    matching quota's ``used`` includes ``obj``.
    """
    interesting: list[QuotaStatus] = []
    for q in quotas:
        if not ev.matches(q, obj):
            continue
        restricted = ev.matching(q.quota.hard)
        if ev.constraints is not None:
            err = ev.constraints(restricted, obj)
            if err:
                return f"failed quota: {q.name}: {err}"
        missing = [n for n in q.quota.hard if n in restricted and n not in q.used]
        if missing:
            return f"status unknown for quota: {q.name}, resources: {','.join(sorted(restricted))}"
        interesting.append(q)
    if not interesting:
        return None
    usage = ev.usage(obj)
    negative = sorted(k for k, v in usage.items() if v.sign() < 0)
    if negative:
        return f"quota usage is negative for resource(s): {','.join(negative)}"
    delta = {k: v for k, v in usage.items() if not v.is_zero()}
    if not delta:
        return None
    updates = []
    for q in interesting:
        requested = mask(delta, q.quota.hard)
        new = add(q.used, requested)
        exceeded = sorted(k for k, hard in q.quota.hard.items() if k in requested and new[k] > hard)
        if exceeded:
            return (f"exceeded quota: {q.name}, requested: {pretty(mask(requested, exceeded))}, "
                    f"used: {pretty(mask(q.used, exceeded))}, limited: {pretty(mask(q.quota.hard, exceeded))}")
        updates.append((q, new))
    for q, new in updates:
        q.used = new
    return None
