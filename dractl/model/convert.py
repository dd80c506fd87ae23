"""Convert older resource.k8s.io versions (v1alpha3, v1beta1, v1beta2) to the v1 shape.

The differences (see the API reference, "Version changes that trip clients"):

- v1alpha3 -> v1beta1: capacity was a bare quantity (``memory: 80Gi``), now ``{value: 80Gi}``.
- v1beta1 -> v1beta2/v1: device fields sat under ``basic:``; request fields sat inline on the
  request (``requests[].deviceClassName``) and now live under ``requests[].exactly``.

Conversion works on plain dicts and returns new dicts; the input is never modified.
"""

from __future__ import annotations

from typing import Any

RESOURCE_GROUP = "resource.k8s.io"
V1 = f"{RESOURCE_GROUP}/v1"
OLD_VERSIONS = ("v1alpha3", "v1beta1", "v1beta2")

# Request fields that v1alpha3/v1beta1 kept inline on the request and v1 moved into ``exactly``.
_INLINE_REQUEST_FIELDS = (
    "deviceClassName",
    "selectors",
    "allocationMode",
    "count",
    "adminAccess",
    "tolerations",
    "capacity",
)


def api_version_of(obj: dict[str, Any]) -> tuple[str, str]:
    """Split ``apiVersion`` into (group, version); the core group is ''."""
    av = obj.get("apiVersion") or ""
    if not isinstance(av, str):
        return "", ""
    group, _, version = av.rpartition("/")
    return group, version


def to_v1(obj: dict[str, Any]) -> dict[str, Any]:
    """Return ``obj`` in the v1 shape (``obj`` itself when it already is)."""
    group, version = api_version_of(obj)
    if group != RESOURCE_GROUP or version not in OLD_VERSIONS:
        return obj
    kind = obj.get("kind")
    out = dict(obj)
    out["apiVersion"] = V1
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return out
    if kind == "ResourceSlice":
        out["spec"] = _slice_spec(spec, version)
    elif kind == "ResourceClaim":
        out["spec"] = _claim_spec(spec, version)
        status = obj.get("status")
        if isinstance(status, dict):
            out["status"] = status  # results have the same shape in every version
    elif kind == "ResourceClaimTemplate":
        inner = spec.get("spec")
        if isinstance(inner, dict):
            out["spec"] = {**spec, "spec": _claim_spec(inner, version)}
    return out


def _slice_spec(spec: dict[str, Any], version: str) -> dict[str, Any]:
    devices = spec.get("devices")
    if version == "v1beta2" or not isinstance(devices, list):
        return spec
    new_devices = []
    for i, d in enumerate(devices):
        if not isinstance(d, dict):
            new_devices.append(d)
            continue
        basic = d.get("basic")
        flat = {k: v for k, v in d.items() if k != "basic"}
        if isinstance(basic, dict):
            flat.update(basic)
        elif basic is not None:  # the apiserver's decoder refuses it (a BasicDevice is an object)
            from dractl.model.validate.field_errors import _wrong_type

            raise _wrong_type(f"spec.devices[{i}].basic", basic, "an object")
        cap = flat.get("capacity")
        if version == "v1alpha3" and isinstance(cap, dict):
            flat["capacity"] = {k: (v if isinstance(v, dict) else {"value": v}) for k, v in cap.items()}
        new_devices.append(flat)
    return {**spec, "devices": new_devices}


def _claim_spec(spec: dict[str, Any], version: str) -> dict[str, Any]:
    devices = spec.get("devices")
    if version == "v1beta2" or not isinstance(devices, dict):
        return spec
    requests = devices.get("requests")
    if not isinstance(requests, list):
        return spec
    new_requests = []
    for r in requests:
        if not isinstance(r, dict) or "exactly" in r or "firstAvailable" in r and not any(
            f in r for f in _INLINE_REQUEST_FIELDS
        ):
            new_requests.append(r)
            continue
        exactly = {f: r[f] for f in _INLINE_REQUEST_FIELDS if f in r}
        rest = {k: v for k, v in r.items() if k not in _INLINE_REQUEST_FIELDS}
        if exactly:
            rest["exactly"] = exactly
        new_requests.append(rest)
    return {**spec, "devices": {**devices, "requests": new_requests}}
