"""Consumable capacity and DRAFractionalCapacityRange (milli-unit validRange rounding).

Unit tests ported from k8s.io/dynamic-resource-allocation@v0.37.2
``structured/internal/experimental/consumable_capacity_test.go`` (identical in
``internal/incubating``; Apache-2.0): testSafeMilliValue, testUseMilli,
testViolateCapacityRequestPolicy, testCalculateConsumedCapacity,
testCmpRequestOverCapacityFatalBeatsSoft and get-consumed-capacity-from-request.
The allocator cases come from ``structured/internal/allocatortesting/allocator_testing.go``
of the same version (names kept); their expected error texts and results were checked
against upstream's allocator (a Go differential run on v0.37.2).
"""

from __future__ import annotations

import copy

import pytest
from builders import claim, device, device_class, node, request, slice_

from dractl.allocator import Allocator
from dractl.allocator import capacity as cap
from dractl.allocator.explain import explained
from dractl.features import FeatureGates
from dractl.model.cluster import Cluster
from dractl.model.objects import DeviceCapacity, RequestPolicy
from dractl.model.parse import parse_object
from dractl.model.serialize import allocation_to_dict
from dractl.quantity import Quantity

Q = Quantity.parse
MAX_INT64 = (1 << 63) - 1

one, two, three, zero = Q("1"), Q("2"), Q("3"), Q("0")
max_int64_q = Q("9223372036854775807")
max_int64_p1 = Q("9223372036854775808")
two_pow64_p3 = Q("18446744073709551619")
max_int64_m1 = Q("9223372036854775806")
point_two_five, point_four, point_three, point_two, point_one = Q("250m"), Q("400m"), Q("300m"), Q("200m"), Q("100m")
too_big_for_milli = Q("9224372036854776E3")


def rng(mn=None, mx=None, step=None, default=None):
    return RequestPolicy(default=default, valid_range_min=mn, valid_range_max=mx, valid_range_step=step)


# ---------------------------------------------------------------- testSafeMilliValue


@pytest.mark.parametrize(
    "q,expect",
    [(one, 1000), (point_one, 100), (too_big_for_milli, None)],
    ids=["whole number", "fractional milli", "too large for milli (overflows int64)"],
)
def test_safe_milli_value(q, expect):
    assert cap.safe_milli_value(q) == expect


def test_safe_milli_value_sub_milli_and_bounds():
    assert cap.safe_milli_value(Q("1u")) is None
    assert cap.safe_milli_value(Q("0.0005")) is None
    assert cap.safe_milli_value(Q("1m")) == 1
    assert cap.safe_milli_value(Quantity.from_value(Quantity.parse("9223372036854775807m").value)) == MAX_INT64
    assert cap.safe_milli_value(Q("9223372036854775808m")) is None


# ---------------------------------------------------------------- testUseMilli


@pytest.mark.parametrize(
    "policy,fractional,expect",
    [
        (rng(point_two, one, point_one), False, False),
        (rng(point_two, one, point_one), True, True),
        (rng(one, three, one), True, True),
        (rng(too_big_for_milli, None, one), True, False),
        (rng(one, None, Q("0")), True, False),
    ],
    ids=[
        "fractional disabled",
        "all fractional, fits in milli",
        "all integer, fits in milli (no hasFractional gate any more)",
        "min overflows milli, falls back to integer",
        "step too small (sub-milli)",
    ],
)
def test_use_milli(policy, fractional, expect):
    assert cap.use_milli(policy, fractional) is expect


# ---------------------------------------------------------------- testViolateCapacityRequestPolicy

_FRAC = rng(point_two, one, point_one, default=point_two)


@pytest.mark.parametrize(
    "requested,policy,fractional,expect",
    [
        (one, None, False, False),
        (one, rng(one, two, default=one), False, False),
        (two, rng(one, one, default=one), False, True),
        (one, RequestPolicy(default=one, valid_values=(one,)), False, False),
        (two, RequestPolicy(default=one, valid_values=(one,)), False, True),
        (point_three, _FRAC, True, False),
        (point_two_five, _FRAC, True, True),
        (too_big_for_milli, rng(one, None, one, default=one), True, True),
    ],
    ids=[
        "no constraint",
        "less than maximum",
        "more than maximum",
        "in set",
        "not in set",
        "fractional step aligned (0.3 = min+1*step)",
        "fractional step not aligned (0.25 is not a multiple of 0.1 from 0.2)",
        "requested value overflows milli representation",
    ],
)
def test_violates_policy(requested, policy, fractional, expect):
    assert cap.violates_policy(requested, policy, fractional) is expect


def test_violates_policy_gate_off_uses_value():
    # Value() rounds 250m, 200m and 100m up to 1: aligned on the integer path.
    assert cap.violates_policy(point_two_five, _FRAC, False) is False


# ---------------------------------------------------------------- testCalculateConsumedCapacity

_ERR = object()


@pytest.mark.parametrize(
    "requested,value,policy,fractional,expect",
    [
        (None, one, RequestPolicy(), False, one),
        (two_pow64_p3, two_pow64_p3, rng(zero, None, three, default=zero), False, _ERR),
        (max_int64_q, max_int64_p1, rng(zero, None, two, default=zero), False, _ERR),
        (max_int64_m1, max_int64_q, rng(one, None, two, default=one), False, max_int64_q),
        (None, two, rng(one, default=one), False, one),
        (None, two, RequestPolicy(default=one, valid_values=(one,)), False, one),
        (two, two, rng(one, default=one), False, two),
        (one, two, rng(two, default=one), False, two),
        (two, three, rng(one, None, two, default=one), False, three),
        (two, two, rng(one, None, one, default=one), False, two),
        (point_two_five, Q("1"), _FRAC, True, Q("300m")),
        (point_four, Q("1"), _FRAC, True, Q("400m")),
        (two, three, RequestPolicy(default=one, valid_values=(one, two, three)), False, two),
        (two, three, RequestPolicy(default=one, valid_values=(one, three)), False, three),
        (three, three, RequestPolicy(default=one, valid_values=(one, two)), False, three),
        (too_big_for_milli, too_big_for_milli, rng(point_one, None, point_one, default=one), True, _ERR),
        (
            Quantity.from_value(Q("9223372036854775806m").value),
            Q("9223372036854775807m"),
            rng(point_one, None, point_one, default=point_one),
            True,
            _ERR,
        ),
    ],
    ids=[
        "empty",
        "request-above-maxint64-is-rejected",
        "rounded-value-above-maxint64-is-rejected",
        "max-safe-boundary-rounds-to-maxint64",
        "min in range",
        "default in set",
        "more than min in range",
        "less than min in range",
        "with step (round up)",
        "with step (no remaining)",
        "fractional step round up (0.25 to 0.3)",
        "fractional step already aligned (0.4 = min+2*step)",
        "valid value in set",
        "set (round up)",
        "larger than set",
        "fractional-step-request-not-milli-representable-is-rejected",
        "fractional-step-rounded-value-passes-milli-range-is-rejected",
    ],
)
def test_calculate_consumed_capacity(requested, value, policy, fractional, expect):
    c = DeviceCapacity(value=value, request_policy=policy)
    if expect is _ERR:
        with pytest.raises(cap.CapacityError, match=cap.ERR_NOT_REPRESENTABLE):
            cap.consumed_from_request({"c": requested} if requested is not None else None, {"c": c}, fractional)
    else:
        assert cap.consumed_for(requested, c, fractional) == expect


# Beyond upstream's table: the exact numbers and formats of the milli path.
@pytest.mark.parametrize(
    "requested,mn,step,fractional,expect",
    [
        ("1.25", "0.5", "250m", True, "1250m"),
        ("1.3", "0.5", "250m", True, "1500m"),
        ("1.3", "0.5", "250m", False, "2"),  # Value(): min 1, step 1, request 2
        ("100m", "0.5", "250m", True, "500m"),  # below min: min itself
        ("1500m", "0.5", "0.5", True, "1500m"),
        ("2", "0.5", "0.5", True, "2"),  # whole result: NewQuantity, so "2", not "2000m"
        ("1.1Gi", "1Gi", "512Mi", True, "1536Mi"),  # BinarySI step keeps its format
        ("2100m", "1200m", "333m", True, "2199m"),
        ("2100m", "1200m", "333m", False, "3"),
        ("3", "1", "2", True, "3"),
    ],
)
def test_round_up_range_milli(requested, mn, step, fractional, expect):
    c = DeviceCapacity(value=Q("100Gi"), request_policy=rng(Q(mn), None, Q(step)))
    got = cap.consumed_for(Q(requested), c, fractional)
    assert str(got) == expect


def test_not_representable_messages():
    c = DeviceCapacity(value=Q("4"), request_policy=rng(Q("0"), None, Q("250m")))
    # below min, a request is not rounded, so it need not be representable
    assert cap.check_fits(None, {"bw": Q("500u")},
                          {"bw": DeviceCapacity(value=Q("4"), request_policy=rng(Q("0.5"), None, Q("250m")))}, None,
                          True)
    with pytest.raises(cap.CapacityError) as e:
        cap.check_fits(None, {"bw": Q("500u")}, {"bw": c}, None, True)
    assert str(e.value) == (
        'capacity "bw": capacity request cannot be represented in the device\'s range arithmetic: '
        "request 500u is not a representable milli value"
    )
    c = DeviceCapacity(value=Q("4"), request_policy=rng(Q("2"), None, Q("2")))
    with pytest.raises(cap.CapacityError) as e:
        cap.check_fits(None, {"mem": Q("18446744073709551619")}, {"mem": c}, None, False)
    assert str(e.value).endswith(": request 18446744073709551619 exceeds MaxInt64")
    with pytest.raises(cap.CapacityError) as e:
        cap.check_fits(None, {"mem": max_int64_q}, {"mem": c}, None, False)
    assert str(e.value).endswith(": rounding request 9223372036854775807 up to the next step passes MaxInt64")
    c = DeviceCapacity(value=Q("4"), request_policy=rng(point_one, None, point_one))
    with pytest.raises(cap.CapacityError) as e:
        cap.check_fits(None, {"mem": Quantity.from_value(Q("9223372036854775806m").value)}, {"mem": c}, None, True)
    assert "passes the milli-value range" in str(e.value)


def test_negative_capacity_is_an_error():
    with pytest.raises(cap.CapacityError, match='capacity "c": capacity value is negative'):
        cap.check_fits(None, {"c": Q("-5")}, {"c": DeviceCapacity(value=Q("10"))}, None, True)
    # fits() (used by explain) reports it as None, why_not names it
    assert cap.fits(None, {"c": Q("-5")}, {"c": DeviceCapacity(value=Q("10"))}, None) is None
    assert cap.why_not(None, {"c": Q("-5")}, {"c": DeviceCapacity(value=Q("10"))})[0] == "capacity-error"


def test_why_not_says_where_an_amount_the_claim_did_not_ask_for_comes_from():
    from fractions import Fraction

    gi = Fraction(1 << 30)
    devcap = {
        "compute": DeviceCapacity(value=Q("100")),  # no requestPolicy: a request without compute takes all of it
        "memory": DeviceCapacity(value=Q("80Gi"), request_policy=rng(Q("1Gi"), Q("80Gi"), Q("8Gi"))),
    }
    kind, text = cap.why_not({"compute": Fraction(10), "memory": 20 * gi}, {"memory": Q("60Gi")}, devcap)
    assert kind == "capacity-left"
    # the requested capacity first; 60Gi rounds up to the next 8Gi step from 1Gi
    assert text == (
        "memory: 60Gi left of 80Gi, needs 65Gi (the claim's 60Gi, rounded up by the device's requestPolicy), "
        "and compute: 90 left of 100, needs 100 (all of it: the claim does not ask for compute and the device has "
        "no requestPolicy default)"
    )
    assert cap.unrequested_shortfalls({"compute": Fraction(10)}, {"memory": Q("60Gi")}, devcap) == ["compute"]


# ---------------------------------------------------------------- testCmpRequestOverCapacityFatalBeatsSoft


@pytest.mark.parametrize("order", [0, 1])
def test_cmp_request_over_capacity_fatal_beats_soft(order):
    capacity = {
        "capacity-0": DeviceCapacity(value=one),
        "capacity-1": DeviceCapacity(value=max_int64_p1, request_policy=rng(zero, None, two)),
    }
    if order:
        capacity = dict(reversed(list(capacity.items())))
    with pytest.raises(cap.CapacityError, match=cap.ERR_NOT_REPRESENTABLE):
        cap.check_fits(None, {"capacity-0": two, "capacity-1": max_int64_q}, capacity, None, False)


def test_get_consumed_capacity_from_request():
    capacity = {
        "capacity-0": DeviceCapacity(value=two, request_policy=rng(one, default=two)),
        "capacity-1": DeviceCapacity(value=two, request_policy=rng(one, default=one)),
        "dummy": DeviceCapacity(value=one),
    }
    got = cap.consumed_from_request({"capacity-0": one, "dummy": one}, capacity, False)
    assert sorted(got) == ["capacity-0", "capacity-1", "dummy"]
    assert all(v == one for v in got.values())


# ---------------------------------------------------------------- allocator cases


def _slice(devices):
    return slice_("node-1", "driver-a", "pool-1", devices, name="slice-1")


def _device(name, capacity):
    return device(name, capacity=capacity, allow_multiple_allocations=True)


_CLASS = device_class("class-a", 'device.driver == "driver-a" && device.allowMultipleAllocations == true')


def _claim(requests, mode="ExactCount"):
    req = request("req-0", "class-a", mode=mode, count=1 if mode == "ExactCount" else None, capacity_requests=requests)
    return claim("claim-0", "default", [req], uid="uid-0")


def _allocate(devices, claim, gates):
    cluster = Cluster(classes=[parse_object(_CLASS)], slices=[parse_object(_slice(devices), validate=False)], claims=[])
    a = Allocator(cluster, FeatureGates(gates), share_id=lambda: "00000000-0000-0000-0000-000000000000")
    node_ = node("node-1", {"region": "region-1"})
    out = explained(a, parse_object(node_, validate=False), [parse_object(copy.deepcopy(claim), validate=False)])
    results = None if out.allocations is None else [allocation_to_dict(x) for x in out.allocations]
    return out.error, results


def _consumed(results):
    return [r.get("consumedCapacity") for a in results for r in a["devices"]["results"]]


_FRACTIONAL_RANGE = {"value": "1",
                     "requestPolicy": {"default": "200m", "validRange": {"min": "200m", "step": "100m", "max": "1"}}}
_RANGE = {"value": "4", "requestPolicy": {"default": "2", "validRange": {"min": "2", "step": "2", "max": "4"}}}


def test_consumable_capacity_fractional_range_gate_disabled():
    err, res = _allocate([_device("device-1", {"capacity-0": _FRACTIONAL_RANGE})], _claim({"capacity-0": "200m"}),
                         {"DRAFractionalCapacityRange": False})
    assert err is None
    assert _consumed(res) == [{"capacity-0": "1"}]


def test_consumable_capacity_fractional_range_gate_enabled_round_up():
    err, res = _allocate([_device("device-1", {"capacity-0": _FRACTIONAL_RANGE})], _claim({"capacity-0": "250m"}),
                         {"DRAFractionalCapacityRange": True})
    assert err is None
    assert _consumed(res) == [{"capacity-0": "300m"}]


@pytest.mark.parametrize("fractional", [True, False])
@pytest.mark.parametrize("mode", ["ExactCount", "All"])
def test_consumable_capacity_range_policy_request_above_int64_rejected(mode, fractional):
    # also: consumable-capacity-range-policy-allocation-mode-all-overflow-aborts.
    # With the gate on, the whole-number range fits in milli units, so the milli path reports it.
    err, res = _allocate([_device("device-1", {"capacity-0": _RANGE})],
                         _claim({"capacity-0": "18446744073709551616"}, mode),
                         {"DRAFractionalCapacityRange": fractional})
    device = "driver-a/pool-1/device-1" if mode == "ExactCount" else "device-1"
    why = "is not a representable milli value" if fractional else "exceeds MaxInt64"
    assert err == (
        f"claim default/claim-0, request req-0: checking capacity for device {device}: capacity \"capacity-0\": "
        f"capacity request cannot be represented in the device's range arithmetic: request 18446744073709551616 {why}"
    )
    assert res is None


def test_consumable_capacity_range_policy_rounded_value_overflow_rejected():
    # the range is whole-number and fits in milli units, so with the gate on the milli path reports it
    err, _ = _allocate([_device("device-1", {"capacity-0": _RANGE})], _claim({"capacity-0": "9223372036854775807"}),
                       {"DRAFractionalCapacityRange": True})
    assert err.endswith("request 9223372036854775807 is not a representable milli value")
    err, _ = _allocate([_device("device-1", {"capacity-0": _RANGE})], _claim({"capacity-0": "9223372036854775807"}),
                       {"DRAFractionalCapacityRange": False})
    assert err.endswith("rounding request 9223372036854775807 up to the next step passes MaxInt64")


def test_consumable_capacity_range_policy_overflow_aborts_not_skip():
    devices = [
        _device("device-1", {"capacity-0": _RANGE}),
        _device("device-2", {"capacity-0": {"value": "36893488147419103232"}}),
    ]
    err, res = _allocate(devices, _claim({"capacity-0": "18446744073709551616"}), {})
    assert "cannot be represented" in err and res is None


def test_consumable_capacity_negative_request_aborts():
    err, res = _allocate([_device("device-1", {"capacity-0": {"value": "10"}})], _claim({"capacity-0": "-5"}), {})
    assert err == (
        "claim default/claim-0, request req-0: checking capacity for device driver-a/pool-1/device-1: "
        'capacity "capacity-0": capacity value is negative'
    )
    assert res is None
