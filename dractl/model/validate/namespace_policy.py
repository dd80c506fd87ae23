"""core/v1 LimitRange and ResourceQuota as kube-apiserver validates them, after the metadata.

Upstream: pkg/apis/core/validation/validation.go ValidateLimitRange, ValidateResourceQuota.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dractl.model.formats import label_key_error
from dractl.model.validate.field_errors import _duplicate, _forbidden, _invalid, _required
from dractl.model.validate.fields import _list, _obj, _quantity, _str
from dractl.model.validate.pod_spec import (
    _HUGEPAGES,
    _REQUESTS,
    _resource_name,
    container_resource_name,
    overcommit_allowed,
    quantity_value,
)
from dractl.quantity import Quantity

_LIMIT_TYPES = ("Pod", "Container", "PersistentVolumeClaim")
# helper.standardQuotaResources
_QUOTA_RESOURCES = frozenset({
    "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.storage",
    "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods",
    "resourcequotas", "services", "replicationcontrollers", "secrets", "persistentvolumeclaims", "configmaps",
    "services.nodeports", "services.loadbalancers",
})
_QUOTA_SCOPES = ("Terminating", "NotTerminating", "BestEffort", "NotBestEffort", "PriorityClass",
                 "VolumeAttributesClass", "CrossNamespacePodAffinity")


def validate_limit_range(obj: Mapping[str, Any]) -> None:
    """ValidateLimitRange (after the metadata)."""
    seen: set[str] = set()
    for i, item in enumerate(_list(_obj(obj.get("spec"), "spec").get("limits"), "spec.limits")):
        p = f"spec.limits[{i}]"
        item = _obj(item, p)
        kind = _str(item.get("type"), f"{p}.type")
        err = label_key_error(kind)
        if err:
            raise _invalid(f"{p}.type", kind, err)
        if "/" not in kind and kind not in _LIMIT_TYPES:
            raise _invalid(f"{p}.type", kind, "must be a standard limit type or fully qualified")
        if kind in seen:
            raise _duplicate(f"{p}.type", kind)
        seen.add(kind)
        name_fn = container_resource_name if kind in ("Pod", "Container") else _resource_name
        lists: dict[str, dict[str, Quantity]] = {}
        for field in ("max", "min", "default", "defaultRequest", "maxLimitRequestRatio"):
            if kind == "Pod" and field in ("default", "defaultRequest"):
                if _obj(item.get(field), f"{p}.{field}"):
                    raise _forbidden(f"{p}.{field}", "may not be specified when `type` is 'Pod'")
                continue
            lists[field] = {}
            for k, v in _obj(item.get(field), f"{p}.{field}").items():
                name_fn(k, f"{p}.{field}[{k}]")
                lists[field][k] = _quantity(v, f"{p}.{field}[{k}]")
        if kind == "PersistentVolumeClaim" and "storage" not in lists["min"] and "storage" not in lists["max"]:
            raise _required(f"{p}.limits",
                            "either minimum or maximum storage value is required, but neither was provided")
        lo, hi = lists["min"], lists["max"]
        dflt, dreq = lists.get("default", {}), lists.get("defaultRequest", {})
        ratio = lists["maxLimitRequestRatio"]
        for k in dict.fromkeys([*hi, *lo, *dflt, *dreq, *ratio]):
            if k in lo and k in hi and lo[k] > hi[k]:
                raise _invalid(f"{p}.min[{k}]", str(lo[k]), f"min value {lo[k]} is greater than max value {hi[k]}")
            if k in dreq and k in lo and lo[k] > dreq[k]:
                raise _invalid(f"{p}.defaultRequest[{k}]", str(dreq[k]),
                               f"min value {lo[k]} is greater than default request value {dreq[k]}")
            if k in dreq and k in hi and dreq[k] > hi[k]:
                raise _invalid(f"{p}.defaultRequest[{k}]", str(dreq[k]),
                               f"default request value {dreq[k]} is greater than max value {hi[k]}")
            if k in dreq and k in dflt and dreq[k] > dflt[k]:
                raise _invalid(f"{p}.defaultRequest[{k}]", str(dreq[k]),
                               f"default request value {dreq[k]} is greater than default limit value {dflt[k]}")
            if k in dflt and k in lo and lo[k] > dflt[k]:
                raise _invalid(f"{p}.default[{k}]", str(lo[k]),
                               f"min value {lo[k]} is greater than default value {dflt[k]}")
            if k in dflt and k in hi and dflt[k] > hi[k]:
                raise _invalid(f"{p}.default[{k}]", str(hi[k]),
                               f"default value {dflt[k]} is greater than max value {hi[k]}")
            if k in ratio and ratio[k] < 1:
                raise _invalid(f"{p}.maxLimitRequestRatio[{k}]", str(ratio[k]), f"ratio {ratio[k]} is less than 1")
            if k in ratio and k in lo and k in hi and lo[k].milli_value():
                limit = hi[k].milli_value() / lo[k].milli_value()
                if ratio[k].milli_value() / 1000 > limit:
                    raise _invalid(f"{p}.maxLimitRequestRatio[{k}]", str(ratio[k]),
                                   f"ratio {ratio[k]} is greater than max/min = {limit:f}")
            if not overcommit_allowed(k) and k in dflt and k in dreq and dflt[k] != dreq[k]:
                raise _invalid(f"{p}.defaultRequest[{k}]", str(dreq[k]),
                               f"default value {dflt[k]} must equal to defaultRequest value {dreq[k]} in {k}")


def _quota_resource_name(name: str, path: str) -> None:
    """ValidateResourceQuotaResourceName."""
    err = label_key_error(name)
    if err:
        raise _invalid(path, name, err)
    if "/" not in name and name not in _QUOTA_RESOURCES and not name.startswith(_REQUESTS + _HUGEPAGES):
        raise _invalid(path, name, "must be a standard resource for quota")


def validate_resource_quota(obj: Mapping[str, Any]) -> None:
    """ValidateResourceQuota (after the metadata): hard and used names and values, scopes."""
    spec = _obj(obj.get("spec"), "spec")
    for where, rl in (("spec.hard", spec.get("hard")),
                      ("status.hard", _obj(obj.get("status"), "status").get("hard")),
                      ("status.used", _obj(obj.get("status"), "status").get("used"))):
        for k, v in _obj(rl, where).items():
            _quota_resource_name(k, f"{where}[{k}]")
            quantity_value(k, _quantity(v, f"{where}[{k}]"), v, f"{where}[{k}]")
    scopes = [_str(s, "spec.scopes") for s in _list(spec.get("scopes"), "spec.scopes")]
    for s in scopes:
        if s not in _QUOTA_SCOPES:
            raise _invalid("spec.scopes", scopes, "unsupported scope")
    sel = spec.get("scopeSelector")
    names = list(scopes)
    if sel is not None:
        mp = "spec.scopeSelector.matchExpressions"
        for r in _list(_obj(sel, "spec.scopeSelector").get("matchExpressions"), mp):
            r = _obj(r, mp)
            scope, op = _str(r.get("scopeName"), f"{mp}.scopeName"), _str(r.get("operator"), f"{mp}.operator")
            if scope not in _QUOTA_SCOPES:
                raise _invalid(f"{mp}.scopeName", scope, "unsupported scope")
            if scope not in ("PriorityClass", "VolumeAttributesClass") and op != "Exists":
                raise _invalid(f"{mp}.operator", op,
                               "must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, "
                               "ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, "
                               "ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity")
            values = _list(r.get("values"), f"{mp}.values")
            if op in ("In", "NotIn"):
                if not values:
                    raise _required(f"{mp}.values",
                                    "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector")
            elif op in ("Exists", "DoesNotExist"):
                if values:
                    raise _invalid(f"{mp}.values", values,
                                   "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector")
            else:
                raise _invalid(f"{mp}.operator", op, "not a valid selector operator")
            names.append(scope)
    for pair in (("BestEffort", "NotBestEffort"), ("Terminating", "NotTerminating")):
        if set(pair) <= set(names):
            raise _invalid("spec.scopes", scopes, "conflicting scopes")
