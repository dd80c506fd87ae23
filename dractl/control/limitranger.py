"""kube-apiserver's LimitRanger admission plugin, for pods (plugin/pkg/admission/limitranger/admission.go).

Pure. :func:`mutate` fills in a LimitRange's ``default`` and ``defaultRequest`` (Container type) where a
container sets no value, and writes upstream's ``kubernetes.io/limit-ranger`` annotation; :func:`validate`
checks ``min``, ``max`` and ``maxLimitRequestRatio`` of the Container and Pod types and returns upstream's
error text (``minimum cpu usage per Container is 100m, but request is 50m``), or None.

One deliberate difference: upstream walks each ResourceList in Go's map order (random), so when one
LimitRange finds several problems the order inside ``[a, b]`` varies between runs; here it is the
LimitRange's own order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from dractl.model.objects import LimitRange, LimitRangeItem
from dractl.quantity import Quantity

ANNOTATION = "kubernetes.io/limit-ranger"
CONTAINER, POD, PVC = "Container", "Pod", "PersistentVolumeClaim"
_MAX_MILLI_VALUE = ((1 << 63) - 1) // 1000  # resource.MaxMilliValue

ResourceList = dict[str, Quantity]


def resource_list(d: Any) -> ResourceList:
    """A raw (already validated) ResourceList as quantities."""
    if not isinstance(d, Mapping):
        return {}
    return {str(k): Quantity.decoded(v) for k, v in d.items()}


# ------------------------------------------------------------------ mutation


def _default_requirements(lr: LimitRange) -> tuple[ResourceList, ResourceList]:
    """defaultContainerResourceRequirements: (requests, limits) of the Container items."""
    requests: ResourceList = {}
    limits: ResourceList = {}
    for item in lr.limits:
        if item.type == CONTAINER:
            requests.update(item.default_request)
            limits.update(item.default)
    return requests, limits


def _merge_container(ctr: dict[str, Any], requests: ResourceList, limits: ResourceList, prefix: str,
                     notes: list[str]) -> None:
    """mergeContainerResources: set what the container lacks; note it for the annotation."""
    resources = dict(ctr.get("resources") or {})
    have_lim = dict(resources.get("limits") or {})
    have_req = dict(resources.get("requests") or {})
    set_lim = [k for k in limits if k not in have_lim]
    set_req = [k for k in requests if k not in have_req]
    for k in set_lim:
        have_lim[k] = str(limits[k])
    for k in set_req:
        have_req[k] = str(requests[k])
    if set_lim or set_req:
        if have_lim:
            resources["limits"] = have_lim
        if have_req:
            resources["requests"] = have_req
        ctr["resources"] = resources
    name = ctr.get("name") or ""
    if set_req:
        notes.append(", ".join(sorted(set_req)) + f" request for {prefix} {name}")
    if set_lim:
        notes.append(", ".join(sorted(set_lim)) + f" limit for {prefix} {name}")


def mutate(pod: Mapping[str, Any], ranges: Sequence[LimitRange]) -> Mapping[str, Any]:
    """PodMutateLimitFunc for each LimitRange of the pod's namespace; returns ``pod`` itself when nothing changes."""
    out: dict[str, Any] | None = None
    changed = False
    for lr in ranges:
        requests, limits = _default_requirements(lr)
        if not requests and not limits:
            continue
        if out is None:
            out = {**pod, "spec": dict(pod.get("spec") or {})}
        spec = out["spec"]
        notes: list[str] = []
        for key, prefix in (("containers", "container"), ("initContainers", "init container")):
            if spec.get(key):
                spec[key] = [dict(c) for c in spec[key]]
                for c in spec[key]:
                    _merge_container(c, requests, limits, prefix, notes)
        if notes:
            changed = True
            md = dict(out.get("metadata") or {})
            md["annotations"] = {**(md.get("annotations") or {}),
                                 ANNOTATION: "LimitRanger plugin set: " + "; ".join(notes)}
            out["metadata"] = md
    return out if out is not None and changed else pod


# ------------------------------------------------------------------ validation


def _values(req: Quantity | None, lim: Quantity | None, enforced: Quantity) -> tuple[int, int, int]:
    """requestLimitEnforcedValues: milli-values when none overflows, else values."""
    zero = Quantity.parse("0")
    r, li = req or zero, lim or zero
    if max(r.value_int(), li.value_int(), enforced.value_int()) <= _MAX_MILLI_VALUE:
        return r.milli_value(), li.milli_value(), enforced.milli_value()
    return r.value_int(), li.value_int(), enforced.value_int()


def min_constraint(kind: str, name: str, enforced: Quantity, request: ResourceList, limit: ResourceList) -> str | None:
    """The LimitRange min violation for one resource (upstream minConstraint), or None."""
    req, lim = request.get(name), limit.get(name)
    r, li, e = _values(req, lim, enforced)
    if req is None:
        return f"minimum {name} usage per {kind} is {enforced}.  No request is specified"
    if r < e:
        return f"minimum {name} usage per {kind} is {enforced}, but request is {req}"
    if lim is not None and li < e:
        return f"minimum {name} usage per {kind} is {enforced}, but limit is {lim}"
    return None


def max_request_constraint(kind: str, name: str, enforced: Quantity, request: ResourceList) -> str | None:
    """The LimitRange max violation of a request alone (upstream maxRequestConstraint), or None."""
    req = request.get(name)
    r, _, e = _values(req, None, enforced)
    if req is None:
        return f"maximum {name} usage per {kind} is {enforced}.  No request is specified"
    if r > e:
        return f"maximum {name} usage per {kind} is {enforced}, but request is {req}"
    return None


def max_constraint(kind: str, name: str, enforced: Quantity, request: ResourceList, limit: ResourceList) -> str | None:
    """The LimitRange max violation of a limit or request (upstream maxConstraint), or None."""
    req, lim = request.get(name), limit.get(name)
    r, li, e = _values(req, lim, enforced)
    if lim is None:
        return f"maximum {name} usage per {kind} is {enforced}.  No limit is specified"
    if li > e:
        return f"maximum {name} usage per {kind} is {enforced}, but limit is {lim}"
    if req is not None and r > e:
        return f"maximum {name} usage per {kind} is {enforced}, but request is {req}"
    return None


def ratio_constraint(kind: str, name: str, enforced: Quantity, request: ResourceList,
                     limit: ResourceList) -> str | None:
    """The LimitRange maxLimitRequestRatio violation (upstream limitRequestRatioConstraint), or None."""
    req, lim = request.get(name), limit.get(name)
    r, li, _ = _values(req, lim, enforced)
    if req is None or r == 0:
        return (f"{name} max limit to request ratio per {kind} is {enforced}, "
                "but no request is specified or request is 0")
    if lim is None or li == 0:
        return (f"{name} max limit to request ratio per {kind} is {enforced}, "
                "but no limit is specified or limit is 0")
    observed = li / r
    shown = observed
    ceiling = float(enforced.value_int())
    if enforced.value_int() <= _MAX_MILLI_VALUE:
        observed *= 1000
        ceiling = float(enforced.milli_value())
    if observed > ceiling:
        return f"{name} max limit to request ratio per {kind} is {enforced}, but provided ratio is {shown:f}"
    return None


def _item_errors(item: LimitRangeItem, kind: str, requests: ResourceList, limits: ResourceList) -> list[str]:
    errs = [min_constraint(kind, k, v, requests, limits) for k, v in item.min.items()]
    errs += [max_constraint(kind, k, v, requests, limits) for k, v in item.max.items()]
    errs += [ratio_constraint(kind, k, v, requests, limits) for k, v in item.max_limit_request_ratio.items()]
    return [e for e in errs if e]


def _containers(spec: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    return [c for c in spec.get(key) or [] if isinstance(c, Mapping)]


def _add(into: ResourceList, more: ResourceList) -> None:
    for k, q in more.items():
        into[k] = into[k] + q if k in into else q


def _max(into: ResourceList, more: ResourceList) -> None:
    for k, q in more.items():
        if k not in into or q > into[k]:
            into[k] = q


def _pod_totals(spec: Mapping[str, Any], field: str) -> ResourceList:
    """This plugin's own podRequests / podLimits (spec only, no overhead; pod-level cpu and memory win)."""
    total: ResourceList = {}
    for c in _containers(spec, "containers"):
        _add(total, resource_list((c.get("resources") or {}).get(field)))
    sidecars: ResourceList = {}
    init: ResourceList = {}
    for c in _containers(spec, "initContainers"):
        own = resource_list((c.get("resources") or {}).get(field))
        if c.get("restartPolicy") == "Always":
            _add(total, own)
            _add(sidecars, own)
            this = dict(sidecars)
        else:
            this = {}
            _add(this, own)
            _add(this, sidecars)
        _max(init, this)
    _max(total, init)
    pod_level = resource_list((spec.get("resources") or {}).get(field))
    for k, q in pod_level.items():
        if k in ("cpu", "memory"):
            total[k] = q
    return total


def validate(pod: Mapping[str, Any], ranges: Iterable[LimitRange]) -> str | None:
    """The LimitRanger's refusal of a pod, or None (PodValidateLimitFunc for each LimitRange).

    The first LimitRange with errors gives the text (``utilerrors.NewAggregate``: one error
    alone, several as ``[a, b]``).
    """
    spec = pod.get("spec") or {}
    for lr in ranges:
        errs: list[str] = []
        for item in lr.limits:
            if item.type == CONTAINER:
                for key in ("containers", "initContainers"):
                    for c in _containers(spec, key):
                        res = c.get("resources") or {}
                        errs += _item_errors(item, CONTAINER, resource_list(res.get("requests")),
                                             resource_list(res.get("limits")))
            elif item.type == POD:
                errs += _item_errors(item, POD, _pod_totals(spec, "requests"), _pod_totals(spec, "limits"))
        text = aggregate(errs)
        if text:
            return text
    return None


def validate_claim_storage(pvc_requests: ResourceList, ranges: Iterable[LimitRange]) -> str | None:
    """PersistentVolumeClaimValidateLimitFunc (dractl stores no PVCs; kept for the upstream table)."""
    for lr in ranges:
        errs: list[str] = []
        for item in lr.limits:
            if item.type == PVC:
                errs += [e for k, v in item.min.items() if (e := min_constraint(PVC, k, v, pvc_requests, {}))]
                errs += [e for k, v in item.max.items() if (e := max_request_constraint(PVC, k, v, pvc_requests))]
        text = aggregate(errs)
        if text:
            return text
    return None


def aggregate(errs: Sequence[str]) -> str:
    """utilerrors.NewAggregate(errs).Error(): duplicates dropped; several in brackets."""
    seen = list(dict.fromkeys(errs))
    if not seen:
        return ""
    return seen[0] if len(seen) == 1 else "[" + ", ".join(seen) + "]"
