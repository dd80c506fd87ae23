"""Upstream's allocator test table (tests/upstream_allocator_cases.py), run through dractl's allocator.

Source of the table: kubernetes/dynamic-resource-allocation@3d03671
``structured/internal/allocatortesting/allocator_testing.go``; how it was ported and
what the model cannot express is described in the table's module. Each case builds a
Cluster from its classes, slices and allocated state, allocates its claims on its node
with its features, and must give upstream's error or upstream's results (in any order,
as upstream's ``ConsistOf``) and, where upstream counts them, its allocateOne steps.

Upstream passes the allocated state directly (``allocatedDevices`` and so on). dractl
reads it from allocated claims, so ``_allocated_claims`` builds one claim holding those
devices.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import pytest
from upstream_allocator_cases import (
    ATTRIBUTE_WITHOUT_VALUE_KEY,
    CASES,
    UpstreamCase,
    claim0,
    claim_with_requests,
    class_a,
    device,
    device1,
    device2,
    device_class,
    driver_a,
    driver_b,
    fixed_share_id,
    node,
    node1,
    normalize_allocation,
    obj,
    pool1,
    region1,
    req0,
    request,
    slice1,
    slice_with_devices,
    slice_with_one_device,
    taint_no_schedule,
)

from dractl.allocator import Allocator
from dractl.allocator.core import REASON_INVALID_POOLS
from dractl.model.cluster import Cluster
from dractl.model.objects import AttributeValue
from dractl.model.parse import parse_object
from dractl.model.serialize import allocation_to_dict

# ---------------------------------------------------------------- runner


def _allocated_claims(tc: UpstreamCase) -> list:
    """Upstream passes AllocatedState; dractl reads it from allocated claims."""
    results = []
    for driver, pool, dev in tc.allocated_devices:
        results.append({"request": "r", "driver": driver, "pool": pool, "device": dev})
    capacities = {tuple(k): v for k, v in tc.allocated_capacity_devices.items()}
    for (key, share_id) in tc.allocated_shared_device_ids:
        r = {"request": "r", "driver": key[0], "pool": key[1], "device": key[2], "shareID": share_id}
        if key in capacities:
            r["consumedCapacity"] = capacities.pop(key)
        results.append(r)
    for key, consumed in capacities.items():
        results.append({"request": "r", "driver": key[0], "pool": key[1], "device": key[2],
                        "shareID": "11111111-0000-0000-0000-000000000000", "consumedCapacity": consumed})
    if not results:
        return []
    c = obj(
        "ResourceClaim",
        {
            "metadata": {"name": "allocated", "namespace": "other"},
            "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "x"}}]}},
            "status": {"allocation": {"devices": {"results": results}}},
        },
    )
    return [parse_object(c, validate=False)]


def _parse_slice(s: dict) -> Any:
    """parse_object, except for attributes without a value (see attribute_without_value)."""
    s = copy.deepcopy(dict(s))
    no_value: dict[str, list[str]] = {}
    for d in s.get("spec", {}).get("devices") or []:
        for name, attr in list((d.get("attributes") or {}).items()):
            if ATTRIBUTE_WITHOUT_VALUE_KEY in attr:
                no_value.setdefault(d["name"], []).append(name)
                del d["attributes"][name]
    parsed = parse_object(s, validate=False)
    if not no_value:
        return parsed
    devices = []
    for d in parsed.devices:
        if d.name in no_value:
            attrs = dict(d.attributes)
            for name in no_value[d.name]:
                attrs[name] = AttributeValue("", None)
            d = dataclasses.replace(d, attributes=attrs)
        devices.append(d)
    return dataclasses.replace(parsed, devices=tuple(devices))


def _upstream_namespace(raw: dict, claim: Any) -> Any:
    """Upstream's table builds claims with no namespace (its messages then name them ``claim-0``, as klog.KObj
    does); dractl's parser puts such a claim in "default", so it is given back the empty namespace it had."""
    if (raw.get("metadata") or {}).get("namespace"):
        return claim
    return dataclasses.replace(claim, meta=dataclasses.replace(claim.meta, namespace=""))


def case_objects(tc: UpstreamCase) -> tuple[Cluster, list[Any]]:
    """The case's cluster (classes, slices, allocated state) and the claims it allocates."""
    cluster = Cluster(
        classes=[parse_object(c, validate=False) for c in tc.classes],
        slices=[_parse_slice(s) for s in tc.slices],
        claims=_allocated_claims(tc),
    )
    claims = [_upstream_namespace(c, parse_object(dict(c), validate=False)) for c in tc.claims_to_allocate]
    return cluster, claims


def run_case(tc: UpstreamCase) -> None:
    features = tc.features
    cluster, claims = case_objects(tc)
    allocator = Allocator(cluster, features.gates(), share_id=lambda: fixed_share_id)
    out = allocator.allocate(parse_object(tc.the_node, validate=False), claims)

    expect_error = tc.expect_error
    err = out.error
    if err is None and out.reason == REASON_INVALID_POOLS:
        err = out.reason
    if expect_error:
        assert err is not None and expect_error in err, f"error {err!r} does not contain {expect_error!r}"
    else:
        assert err is None, f"unexpected error: {err}"

    want = tc.expect_results
    got = out.allocations or []
    if err is not None:
        got = []
    assert len(got) == len(want), f"got {len(got)} results, want {len(want)}: {[allocation_to_dict(a) for a in got]}"
    got_n = sorted(repr(normalize_allocation(allocation_to_dict(a))) for a in got)
    want_n = sorted(repr(normalize_allocation(w)) for w in want)
    assert got_n == want_n, "\n got: " + "\n      ".join(got_n) + "\nwant: " + "\n      ".join(want_n)

    steps = tc.expect_num_allocate_one_invocations
    if steps:
        steps = (tc.expect_num_allocate_one_invocations_by_channel or {}).get("experimental", steps)
        assert out.steps == steps, f"allocateOne invocations: got {out.steps}, want {steps}"


@pytest.mark.parametrize("tc", CASES, ids=lambda tc: tc.name)
def test_upstream(tc: UpstreamCase) -> None:
    run_case(tc)


# ---------------------------------------------------------------- dractl-specific checks next to the table


def _allocate_one_claim(slices: list[dict], count: int, **cluster: Any) -> Any:
    c = Cluster(
        classes=[parse_object(device_class(class_a, driver_a), validate=False)],
        slices=[_parse_slice(s) for s in slices],
        **cluster,
    )
    claim_ = claim_with_requests(claim0, None, request(req0, class_a, count))
    return Allocator(c).allocate(
        parse_object(node(node1, region1), validate=False), [parse_object(dict(claim_), validate=False)]
    )


def test_broken_device_does_not_borrow_a_memoized_selector_result() -> None:
    # The selector reads only device.driver, so both devices share one memo entry.
    # Upstream converts all attributes of every device before evaluating and fails
    # on device-2. This used to allocate it.
    out = _allocate_one_claim(
        [
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, {"v": {'version': "1.0.0"}}),
                device(device2, None, {"v": {'version': "01.x"}}),
            )
        ],
        2,
    )
    assert out.error is not None
    assert ("selector #0 on device driver-a/pool-1/device-2: CEL runtime error: attribute v: parse semantic version"
            in out.error)


@pytest.mark.parametrize(
    ("selector", "tainted"),
    [
        (None, True),  # no deviceSelector: every device
        ({}, True),  # empty deviceSelector: every device
        ({'driver': driver_a}, True),
        ({'driver': driver_b}, False),
        ({'pool': pool1, 'device': device1}, True),
        ({'device': device2}, False),
    ],
)
def test_device_taint_rule_selector(selector: dict | None, tainted: bool) -> None:
    spec: dict[str, Any] = {'taint': taint_no_schedule}
    if selector is not None:
        spec['deviceSelector'] = selector
    rule = parse_object(
        {"apiVersion": "resource.k8s.io/v1beta2", "kind": "DeviceTaintRule", "metadata": {"name": "rule"}, "spec": spec}
    )
    out = _allocate_one_claim([slice_with_one_device(slice1, node1, pool1, driver_a)], 1, taint_rules=[rule])
    assert out.error is None
    assert (out.allocations is None) == tainted
