"""Consumable capacity: upstream ``consumable_capacity.go``.

Amounts are exact ``Fraction``s; where upstream calls ``Quantity.Value()`` (rounding
up to an integer) so do we, so the step rounding gives the same numbers.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Mapping

from dractl.model.objects import DeviceCapacity, RequestPolicy
from dractl.quantity import Quantity

# capacity name -> amount
Amounts = dict[str, Fraction]


def _ceil(v: Fraction) -> int:
    return math.ceil(v)


def _go_mod(a: int, b: int) -> int:
    """Go's ``%`` (truncated division)."""
    r = abs(a) % abs(b)
    return -r if a < 0 else r


def int_quantity(v: int) -> Quantity:
    """``resource.NewQuantity(v, resource.BinarySI)``."""
    return Quantity.from_value(v, "BinarySI")


def consumed_for(requested: Quantity | None, cap: DeviceCapacity) -> Quantity:
    """``calculateConsumedCapacity``: what one allocation consumes of ``cap``."""
    policy = cap.request_policy
    if requested is None:
        if policy is not None and policy.default is not None:
            return policy.default
        return cap.value
    if policy is None:
        return requested
    if policy.valid_range_min is not None:
        return _round_up_range(requested, policy)
    if policy.valid_values:
        for v in policy.valid_values:
            if requested.value <= v.value:
                return v
        return requested
    return requested


def _round_up_range(requested: Quantity, policy: RequestPolicy) -> Quantity:
    mn = policy.valid_range_min
    assert mn is not None
    if requested.value < mn.value:
        return mn
    if policy.valid_range_step is None:
        return requested
    req, step, low = _ceil(requested.value), _ceil(policy.valid_range_step.value), _ceil(mn.value)
    added = req - low
    n = added // step if added >= 0 else -((-added) // step)
    if _go_mod(added, step) != 0:
        n += 1
    # resource.NewQuantity(minInt+stepInt*n, validRange.Step.Format)
    return Quantity.from_value(low + step * n, policy.valid_range_step.format)


def violates_policy(consumed: Quantity, policy: RequestPolicy | None) -> bool:
    if policy is None:
        return False
    if policy.default is not None and consumed.value == policy.default.value:
        return False
    if policy.valid_range_min is not None:
        if policy.valid_range_max is not None and consumed.value > policy.valid_range_max.value:
            return True
        if policy.valid_range_step is not None:
            added = _ceil(consumed.value) - _ceil(policy.valid_range_min.value)
            if _go_mod(added, _ceil(policy.valid_range_step.value)) != 0:
                return True
        return False
    if policy.valid_values:
        return not any(consumed.value == v.value for v in policy.valid_values)
    return False


def fits(
    already: Mapping[str, Fraction] | None,
    requests: Mapping[str, Quantity] | None,
    capacity: Mapping[str, DeviceCapacity],
    allocating: Mapping[str, Fraction] | None,
) -> bool | None:
    """``CmpRequestOverCapacity``: True if the request fits, False if not, None on error.

    None stands for upstream's error "some requested capacity has not been defined"
    (the device lacks a requested capacity), which the search treats as "skip".
    """
    if requests:
        for name in requests:
            if name not in capacity:
                return None
    for name, cap in capacity.items():
        req = requests.get(name) if requests else None
        consumed = consumed_for(req, cap)
        if violates_policy(consumed, cap.request_policy):
            return False
        total = consumed.value
        if already and name in already:
            total += already[name]
        if allocating and name in allocating:
            total += allocating[name]
        if total > cap.value.value:
            return False
    return True


def why_not(
    already: Mapping[str, Fraction] | None,
    requests: Mapping[str, Quantity] | None,
    capacity: Mapping[str, DeviceCapacity],
) -> tuple[str, str] | None:
    """Explain a False/None from :func:`fits` (no allocating state): (kind, text)."""
    if requests:
        for name in requests:
            if name not in capacity:
                return "capacity-missing", f"has no capacity {name}"
    for name, cap in capacity.items():
        req = requests.get(name) if requests else None
        consumed = consumed_for(req, cap)
        if violates_policy(consumed, cap.request_policy):
            return "capacity-policy", f"{name}: {consumed} is not allowed by the device's requestPolicy"
        used = already.get(name, Fraction(0)) if already else Fraction(0)
        if consumed.value + used > cap.value.value:
            if used:
                left = cap.value.value - used
                return "capacity-left", f"{name}: {Quantity.from_value(left, 'BinarySI')} left of {cap.value}, needs {consumed}"
            return "capacity-size", f"{name}: asks for {consumed}; device has {cap.value}"
    return None


def consumed_from_request(
    requests: Mapping[str, Quantity] | None, capacity: Mapping[str, DeviceCapacity]
) -> dict[str, Quantity]:
    """``GetConsumedCapacityFromRequest``: every capacity of the device, even 0."""
    out: dict[str, Quantity] = {}
    for name, cap in capacity.items():
        req = requests.get(name) if requests else None
        out[name] = consumed_for(req, cap)
    return out
