"""Consumable capacity: requests against a device's capacity, with upstream's rounding.

Ported from upstream ``consumable_capacity.go`` (k8s.io/dynamic-resource-allocation v0.37.2,
``structured/internal/incubating`` and ``experimental``, which agree).

Amounts are exact ``Fraction``s. The step rounding of ``requestPolicy.validRange`` uses
upstream's int64 arithmetic: with DRAFractionalCapacityRange on (``fractional``) and a range
whose min/max/step are all representable in milli units (step >= 1m), on milli values
(``MilliValue()``); otherwise on ``Value()`` (each amount rounded up, away from zero), as
before the gate. Both paths report a request that cannot be represented (or whose rounded
value passes the int64 range) as a :class:`CapacityError`, and so does a negative consumed
capacity; the allocator aborts on those instead of skipping the device.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from dractl.model.objects import DeviceCapacity, RequestPolicy
from dractl.quantity import Format, Quantity

# capacity name -> amount
Amounts = dict[str, Fraction]

MAX_INT64 = (1 << 63) - 1
_MIN_INT64 = -(1 << 63)

# errCapacityRequestNotRepresentable and errNegativeCapacity
ERR_NOT_REPRESENTABLE = "capacity request cannot be represented in the device's range arithmetic"
ERR_NEGATIVE = "capacity value is negative"


class CapacityError(Exception):
    """A fatal capacity error: upstream's ``capacity %q: %w`` (the allocator aborts)."""


class _NotRepresentable(Exception):
    """errCapacityRequestNotRepresentable with its detail (before the capacity name)."""


def _wrap(v: int) -> int:
    """Go int64 wrap-around."""
    return ((v - _MIN_INT64) % (1 << 64)) + _MIN_INT64


def _go_quo(a: int, b: int) -> int:
    """Go's int64 ``/`` (truncated division; MinInt64 / -1 wraps)."""
    q = abs(a) // abs(b)
    return _wrap(q if (a < 0) == (b < 0) else -q)


def _go_mod(a: int, b: int) -> int:
    """Go's ``%`` (truncated division)."""
    r = abs(a) % abs(b)
    return -r if a < 0 else r


def _go_quote(s: str) -> str:
    """Go's ``%q`` for the (ASCII) capacity names."""
    return json.dumps(s)


def int_quantity(v: int) -> Quantity:
    """``resource.NewQuantity(v, resource.BinarySI)``."""
    return Quantity.from_value(v, Format.BINARY_SI)


def safe_milli_value(q: Quantity) -> int | None:
    """``safeMilliValue``: ``q`` in milli units if that is lossless, else None (the error).

    ``MilliValue()`` rounds up and ``NewMilliQuantity`` holds an int64, so the round trip
    keeps ``q`` exactly when ``q * 1000`` is a whole number within int64.
    """
    m = q.value * 1000
    if m.denominator != 1 or not _MIN_INT64 <= m.numerator <= MAX_INT64:
        return None
    return m.numerator


def use_milli(policy: RequestPolicy, fractional: bool) -> bool:
    """Whether the valid-range rounding takes upstream's milli path (``useMilli``).

    ``useMilli``: milli arithmetic when the gate is on, every bound of the range has a
    lossless milli value, and the step is at least 1m. (Upstream no longer requires one of
    them to be fractional: whole-number ranges take the milli path too.)
    """
    if not fractional:
        return False
    for i, q in enumerate((policy.valid_range_min, policy.valid_range_max, policy.valid_range_step)):
        if q is None:
            continue
        m = safe_milli_value(q)
        if m is None:
            return False
        if i == 2 and m < 1:
            return False
    return True


def consumed_for(requested: Quantity | None, cap: DeviceCapacity, fractional: bool = True) -> Quantity:
    """``calculateConsumedCapacity``: what one allocation consumes of ``cap``.

    Raises :class:`_NotRepresentable` (see :func:`check_fits` for the wrapped form).
    """
    policy = cap.request_policy
    if requested is None:
        if policy is not None and policy.default is not None:
            return policy.default
        return cap.value
    if policy is None:
        return requested
    if policy.valid_range_min is not None:
        return _round_up_range(requested, policy, fractional)
    if policy.valid_values:
        for v in policy.valid_values:
            if requested.value <= v.value:
                return v
        return requested
    return requested


def _round_up_range(requested: Quantity, policy: RequestPolicy, fractional: bool) -> Quantity:
    """``roundUpRange``."""
    mn = policy.valid_range_min
    assert mn is not None
    if requested.value < mn.value:
        return mn
    step = policy.valid_range_step
    if step is None:
        return requested
    if use_milli(policy, fractional):
        req = safe_milli_value(requested)
        if req is None:
            raise _NotRepresentable(f"{ERR_NOT_REPRESENTABLE}: request {requested} is not a representable milli value")
        step_m, min_m = step.milli_value(), mn.milli_value()
        added = _wrap(req - min_m)
        n = _go_quo(added, step_m)
        if _go_mod(added, step_m) != 0:
            n += 1
        if n > _go_quo(_wrap(MAX_INT64 - min_m), step_m):
            raise _NotRepresentable(
                f"{ERR_NOT_REPRESENTABLE}: rounding request {requested} up to the next step passes the milli-value "
                "range"
            )
        val_m = _wrap(min_m + _wrap(step_m * n))
        # NewQuantity(valMilli/1000, format) for whole numbers, else NewMilliQuantity
        return Quantity.from_value(Fraction(val_m, 1000), step.format)
    # Integer arithmetic path.
    if requested.value > MAX_INT64:
        raise _NotRepresentable(f"{ERR_NOT_REPRESENTABLE}: request {requested} exceeds MaxInt64")
    req, step_i, low = requested.value_int(), step.value_int(), mn.value_int()
    added = _wrap(req - low)
    n = _go_quo(added, step_i)
    if _go_mod(added, step_i) != 0:
        n += 1
    if low >= 0 and n > _go_quo(MAX_INT64 - low, step_i):
        raise _NotRepresentable(f"{ERR_NOT_REPRESENTABLE}: rounding request {requested} up to the next step passes "
                                "MaxInt64")
    # resource.NewQuantity(minInt+stepInt*n, validRange.Step.Format)
    return Quantity.from_value(_wrap(low + _wrap(step_i * n)), step.format)


def violates_policy(consumed: Quantity, policy: RequestPolicy | None, fractional: bool = True) -> bool:
    """``violatesPolicy``."""
    if policy is None:
        return False
    if policy.default is not None and consumed.value == policy.default.value:
        return False
    if policy.valid_range_min is not None:
        if policy.valid_range_max is not None and consumed.value > policy.valid_range_max.value:
            return True
        step = policy.valid_range_step
        if step is not None:
            if use_milli(policy, fractional):
                req = safe_milli_value(consumed)
                if req is None:
                    return True
                step_v, min_v = step.milli_value(), policy.valid_range_min.milli_value()
            else:
                req, step_v, min_v = consumed.value_int(), step.value_int(), policy.valid_range_min.value_int()
            # must be a multiple of step from min
            if _go_mod(_wrap(req - min_v), step_v) != 0:
                return True
        return False
    if policy.valid_values:
        return not any(consumed.value == v.value for v in policy.valid_values)
    return False


def _resolve(
    requests: Mapping[str, Quantity] | None, capacity: Mapping[str, DeviceCapacity], fractional: bool
) -> dict[str, Quantity]:
    """The first loop of ``CmpRequestOverCapacity``: every consumed amount, or the fatal error.

    All capacities are resolved before any soft check, so an unrepresentable request or a
    negative amount is reported whatever the order of the capacities.
    """
    consumed: dict[str, Quantity] = {}
    for name, cap in capacity.items():
        req = requests.get(name) if requests else None
        try:
            q = consumed_for(req, cap, fractional)
        except _NotRepresentable as e:
            raise CapacityError(f"capacity {_go_quote(name)}: {e}") from None
        if q.value < 0:
            raise CapacityError(f"capacity {_go_quote(name)}: {ERR_NEGATIVE}")
        consumed[name] = q
    return consumed


def check_fits(
    already: Mapping[str, Fraction] | None,
    requests: Mapping[str, Quantity] | None,
    capacity: Mapping[str, DeviceCapacity],
    allocating: Mapping[str, Fraction] | None,
    fractional: bool = True,
) -> bool:
    """``CmpRequestOverCapacity``: True if the request fits, False to skip the device.

    Raises :class:`CapacityError` for upstream's fatal errors (the allocation aborts).
    A requested capacity that the device lacks is a plain False, checked first.
    """
    if requests:
        for name in requests:
            if name not in capacity:
                return False
    consumed = _resolve(requests, capacity, fractional)
    for name, cap in capacity.items():
        q = consumed[name]
        if violates_policy(q, cap.request_policy, fractional):
            return False
        total = q.value
        if already and name in already:
            total += already[name]
        if allocating and name in allocating:
            total += allocating[name]
        if total > cap.value.value:
            return False
    return True


def fits(
    already: Mapping[str, Fraction] | None,
    requests: Mapping[str, Quantity] | None,
    capacity: Mapping[str, DeviceCapacity],
    allocating: Mapping[str, Fraction] | None,
    fractional: bool = True,
) -> bool | None:
    """:func:`check_fits` without exceptions: True, False, or None for an error.

    None stands for upstream's "some requested capacity has not been defined" (the
    device lacks a requested capacity) and for the fatal errors of :func:`check_fits`;
    :func:`why_not` tells them apart.
    """
    if requests:
        for name in requests:
            if name not in capacity:
                return None
    try:
        return check_fits(already, requests, capacity, allocating, fractional)
    except CapacityError:
        return None


def why_not(
    already: Mapping[str, Fraction] | None,
    requests: Mapping[str, Quantity] | None,
    capacity: Mapping[str, DeviceCapacity],
    fractional: bool = True,
) -> tuple[str, str] | None:
    """Explain a False/None from :func:`fits` (no allocating state): (kind, text)."""
    if requests:
        for name in requests:
            if name not in capacity:
                return "capacity-missing", f"have no capacity {name}"
    try:
        consumed = _resolve(requests, capacity, fractional)
    except CapacityError as e:
        return "capacity-error", str(e)
    # Capacities the claim asks for first: those are the ones the user knows about.
    order = sorted(capacity, key=lambda n: not (requests and n in requests))
    for name in order:
        q = consumed[name]
        if violates_policy(q, capacity[name].request_policy, fractional):
            return "capacity-policy", f"{name}: {q} is not allowed by the device's requestPolicy"
    short = shortfalls(already, requests, capacity, consumed)
    if short:
        kind = "capacity-left" if short[0].used else "capacity-size"
        return kind, ", and ".join(s.text() for s in short)
    return None


@dataclass(frozen=True)
class Shortfall:
    """One capacity a request would overdraw: what it consumes, and why that amount."""

    name: str
    consumed: Quantity
    total: Quantity
    used: Fraction  # already consumed by other allocations
    requested: Quantity | None  # None: the request does not name this capacity
    has_default: bool  # the device's requestPolicy has a default (used when not requested)

    @property
    def source(self) -> str:
        """"request", "rounded" (by the requestPolicy), "default" or "whole" (no default: all of it)."""
        if self.requested is None:
            return "default" if self.has_default else "whole"
        return "rounded" if self.consumed.value != self.requested.value else "request"

    def text(self) -> str:
        """"compute: 0 left of 100, needs 100 (the device's requestPolicy default, ...)"."""
        if self.used:
            left = Quantity.from_value(self.total.value - self.used, Format.BINARY_SI)
            head = f"{self.name}: {left} left of {self.total}, needs {self.consumed}"
        else:
            head = f"{self.name}: asks for {self.consumed}, the device has {self.total}"
        why = {
            "default": f" (the device's requestPolicy default, as the claim does not ask for {self.name})",
            "whole": f" (all of it: the claim does not ask for {self.name} and the device has no requestPolicy "
                     "default)",
            "rounded": f" (the claim's {self.requested}, rounded up by the device's requestPolicy)",
        }.get(self.source, "")
        return head + why


def shortfalls(
    already: Mapping[str, Fraction] | None,
    requests: Mapping[str, Quantity] | None,
    capacity: Mapping[str, DeviceCapacity],
    consumed: Mapping[str, Quantity],
) -> list[Shortfall]:
    """Every capacity the consumed amounts overdraw, the requested ones first."""
    out = []
    for name in sorted(capacity, key=lambda n: not (requests and n in requests)):
        cap, q = capacity[name], consumed[name]
        used = already.get(name, Fraction(0)) if already else Fraction(0)
        if q.value + used > cap.value.value:
            policy = cap.request_policy
            out.append(Shortfall(name, q, cap.value, used, requests.get(name) if requests else None,
                                 policy is not None and policy.default is not None))
    return out


def unrequested_shortfalls(
    already: Mapping[str, Fraction] | None,
    requests: Mapping[str, Quantity] | None,
    capacity: Mapping[str, DeviceCapacity],
    fractional: bool = True,
) -> list[str]:
    """Names of the capacities a request overdraws without naming them (their default or all of it)."""
    try:
        consumed = _resolve(requests, capacity, fractional)
    except CapacityError:
        return []
    return [s.name for s in shortfalls(already, requests, capacity, consumed) if s.requested is None]


def consumed_from_request(
    requests: Mapping[str, Quantity] | None, capacity: Mapping[str, DeviceCapacity], fractional: bool = True
) -> dict[str, Quantity]:
    """``GetConsumedCapacityFromRequest``: every capacity of the device, even 0.

    Raises :class:`CapacityError` (unreachable after :func:`check_fits` accepted the device).
    """
    out: dict[str, Quantity] = {}
    for name, cap in capacity.items():
        req = requests.get(name) if requests else None
        try:
            out[name] = consumed_for(req, cap, fractional)
        except _NotRepresentable as e:
            raise CapacityError(f"capacity {_go_quote(name)}: {e}") from None
    return out
