"""The apiserver's check of the CEL selectors of a new object (a file that ``check -f`` or ``fake apply`` creates).

Upstream: pkg/apis/resource/validation/validation.go validateCELExpression. A new expression is compiled in the
NewExpressions environment; a compile error is ``Invalid value``, a worst-case cost over the limit ``Forbidden:
too complex, exceeds cost limit``. Stored objects (snapshots, the fake cluster's state) are not compiled here: their
selectors were valid when stored, and the scheduler reports one that no longer compiles when it uses it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from dractl.errors import ValidationError
from dractl.features import FeatureGates
from dractl.model.objects import DeviceClass, DeviceRequest, ResourceClaim, ResourceClaimTemplate


def selector_paths(obj: Any) -> Iterator[tuple[str, str]]:
    """(field path of ``cel.expression``, expression) of every selector of a DeviceClass, claim or template."""
    if isinstance(obj, DeviceClass):
        for j, e in enumerate(obj.selectors):
            yield f"spec.selectors[{j}].cel.expression", e
        return
    if isinstance(obj, ResourceClaim):
        prefix, requests = "spec.devices.requests", obj.spec.requests
    elif isinstance(obj, ResourceClaimTemplate):
        prefix, requests = "spec.spec.devices.requests", obj.spec.requests
    else:
        return
    for i, r in enumerate(requests):
        yield from _request_paths(f"{prefix}[{i}]", r)


def _request_paths(path: str, r: DeviceRequest) -> Iterator[tuple[str, str]]:
    if r.exactly is not None:
        for j, e in enumerate(r.exactly.selectors):
            yield f"{path}.exactly.selectors[{j}].cel.expression", e
    for k, sub in enumerate(r.first_available):
        for j, e in enumerate(sub.selectors):
            yield f"{path}.firstAvailable[{k}].selectors[{j}].cel.expression", e


def new_selector_error(obj: Any, features: FeatureGates) -> ValidationError | None:
    """The first selector of ``obj`` the apiserver would refuse to create, as its validation says it; else None.

    An expression dractl cannot evaluate exactly is not refused here (upstream compiles it): using it says so.
    """
    from dractl.cel.errors import CELCompileError
    from dractl.cel.selector import get_or_compile
    from dractl.model.validate.field_errors import _forbidden, _invalid

    for path, expr in selector_paths(obj):
        got = get_or_compile(expr, features, stored=False)
        if not isinstance(got, CELCompileError) or got.unsupported:
            continue
        if got.message.startswith("Forbidden: too complex"):
            return _forbidden(path, "too complex, exceeds cost limit")
        # (an expression too long never gets here: the structural validation refused it first)
        return _invalid(path, expr, got.message)
    return None
