"""Schema and limit validation of DRA objects, following upstream Kubernetes v1.37.

:func:`validate_object` checks one object, given as a v1-shaped dict, against the
rules of ``pkg/apis/resource/validation/validation.go`` (plus the few core/v1 rules
DRA relies on for Pods, Nodes and Namespaces) and raises
:class:`dractl.errors.ValidationError` on the first problem found.  Field paths and
details are worded like the apiserver's (``spec.devices[3].attributes[model]``,
``Too many: 129: must have at most 128 items``); the caller adds file and object
names with :meth:`ValidationError.located`.

Deliberate differences from the apiserver:

* objects are validated as they appear in manifests, i.e. *before* defaulting:
  a missing ``allocationMode`` means ``ExactCount``, a missing ``count`` means 1,
  a missing toleration ``operator`` means ``Equal``; ``metadata.name`` may be
  replaced by ``generateName`` and ``metadata.namespace`` is never required;
* unknown fields are ignored (newer servers add fields), and so are unknown kinds;
* ``null`` is treated like an absent field;
* CEL expressions are only length-checked here, not compiled (see dractl.cel).

The ResourceSlice path is written for speed (a 10,000-device snapshot must
validate in well under 0.2 s): regexes are precompiled, field paths are only
formatted when an error is raised, and valid attribute/capacity keys, quantity
strings and version strings are remembered across calls.

The package: ``limits`` (upstream's constants; name formats are ``dractl.model.formats``),
``field_errors`` (errors worded as field.Error's), ``fields`` (typed accessors and field checks),
``metadata``, ``slices``, ``taints`` (taints and tolerations), ``node_selector``, ``claims`` (claims,
templates and claim status), ``device_classes``, ``taint_rules``, ``core_v1`` (Pod, Node, Namespace,
LimitRange, ResourceQuota), ``pod_spec`` (the pod fields scheduling reads: resources, ports, affinity,
spread constraints) and ``namespace_policy`` (LimitRange, ResourceQuota).
"""

from __future__ import annotations

from collections.abc import Callable

from dractl.model.validate.claims import _resource_claim, _resource_claim_template
from dractl.model.validate.core_v1 import (
    _limit_range,
    _namespace,
    _node,
    _pod,
    _priority_class,
    _resource_quota,
    _runtime_class,
)
from dractl.model.validate.device_classes import _device_class
from dractl.model.validate.field_errors import _required, _wrong_type
from dractl.model.validate.slices import _resource_slice
from dractl.model.validate.taint_rules import _device_taint_rule

__all__ = ["validate_object"]

_VALIDATORS: dict[str, Callable[[dict], None]] = {
    "DeviceClass": _device_class,
    "ResourceSlice": _resource_slice,
    "ResourceClaim": _resource_claim,
    "ResourceClaimTemplate": _resource_claim_template,
    "DeviceTaintRule": _device_taint_rule,
    "Pod": _pod,
    "Node": _node,
    "Namespace": _namespace,
    "LimitRange": _limit_range,
    "ResourceQuota": _resource_quota,
    "RuntimeClass": _runtime_class,
    "PriorityClass": _priority_class,
}

#: The kinds :func:`validate_object` knows; objects of other kinds pass unchecked.
KINDS: tuple[str, ...] = tuple(_VALIDATORS)


def validate_object(obj: dict) -> None:
    """Validate one v1-shaped object; raise ValidationError on the first problem.

    Args:
        obj: the object as a plain dict (as loaded from YAML or JSON), already
            converted to v1 shapes. ``apiVersion`` is not looked at.

    Raises:
        ValidationError: with the upstream-style field path and detail, e.g.
            ``spec.devices[3].attributes[model]`` /
            ``Invalid value: "x": must be a string compatible with semver.org spec 2.0.0``.
    """
    if not isinstance(obj, dict):
        raise _wrong_type("", obj, "an object")
    kind = obj.get("kind")
    if kind is None or kind == "":
        raise _required("kind")
    if not isinstance(kind, str):
        raise _wrong_type("kind", kind, "a string")
    validator = _VALIDATORS.get(kind)
    if validator is not None:
        validator(obj)
