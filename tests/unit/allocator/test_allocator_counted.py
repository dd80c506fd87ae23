"""explained() decides some failing nodes by counting, without the search: it must give what the search gives.

Every case of upstream's allocator table (tests/upstream_allocator_cases.py), every scenario of the corpus
recorded from upstream's allocator and 400 seeded random scenarios of the oracle's generator are explained
twice, on their node and with their features: once as they come (counting first where it applies) and once
with the search run first every time. Outcome, error, reason and explanation must be equal.
"""

from __future__ import annotations

import random

import pytest
from oracle_cases import allocator_scenarios
from test_allocator_upstream import _parse_slice, case_objects
from test_allocator_upstream_corpus import corpus, scenario_objects
from upstream_allocator_cases import (
    CASES,
    UpstreamCase,
    claim0,
    claim_with_requests,
    class_a,
    device,
    device_class,
    driver_a,
    fixed_share_id,
    node,
    node1,
    obj,
    pool1,
    region1,
    req0,
    request,
    slice1,
    slice_with_devices,
)

from dractl.allocator import Allocator
from dractl.allocator.explain import explained
from dractl.features import DEFAULT_GATES
from dractl.model.cluster import Cluster
from dractl.model.parse import parse_object
from dractl.model.serialize import allocation_to_dict


def _story(out) -> tuple:
    ex = out.explanation
    return (
        None if out.allocations is None else [allocation_to_dict(a) for a in out.allocations],
        out.error, out.reason, None if ex is None else ex.to_dict(ex.lines()),
    )


def _both(cluster: Cluster, gates, the_node, claims) -> tuple[tuple, tuple, int]:
    counted = Allocator(cluster, gates, share_id=lambda: fixed_share_id)
    first = explained(counted, the_node, claims)
    searched = Allocator(cluster, gates, share_id=lambda: fixed_share_id)
    searched.explain_first = False
    second = explained(searched, the_node, claims)
    return _story(first), _story(second), counted.num_allocate_one


@pytest.mark.parametrize("tc", CASES, ids=lambda tc: tc.name)
def test_counting_gives_the_searchs_outcome(tc: UpstreamCase) -> None:
    cluster, claims = case_objects(tc)
    counted, searched, _ = _both(cluster, tc.features.gates(), parse_object(tc.the_node, validate=False), claims)
    assert counted == searched


@pytest.mark.parametrize("index", range(len(corpus()["scenarios"])))
def test_counting_gives_the_searchs_outcome_on_the_corpus(index: int) -> None:
    cluster, gates, node, claims = scenario_objects(corpus()["scenarios"][index])
    counted, searched, _ = _both(cluster, gates, node, claims)
    assert counted == searched


def test_counting_gives_the_searchs_outcome_on_random_scenarios() -> None:
    decided = 0
    for sc in allocator_scenarios(random.Random(18), 400):
        cluster, gates, node, claims = scenario_objects(sc)
        counted, searched, steps = _both(cluster, gates, node, claims)
        assert counted == searched, sc["name"]
        decided += steps == 0 and counted[2] is not None
    assert decided >= 10  # the generator still makes nodes that counting decides (16 with this seed)


def _one_request(devices: list, count: int, selector: str, allocated: tuple[str, ...] = ()) -> tuple:
    held = []
    if allocated:
        held.append(parse_object(obj("ResourceClaim", {
            "metadata": {"name": "held", "namespace": "other"},
            "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": class_a}}]}},
            "status": {"allocation": {"devices": {"results": [
                {"request": "r", "driver": driver_a, "pool": pool1, "device": d} for d in allocated]}}},
        }), validate=False))
    cluster = Cluster(classes=[parse_object(device_class(class_a, driver_a), validate=False)],
                      slices=[_parse_slice(slice_with_devices(slice1, node1, pool1, driver_a, *devices))],
                      claims=held)
    sel = {"cel": {"expression": selector}}
    claim = parse_object(dict(claim_with_requests(claim0, None, request(req0, class_a, count, sel))), validate=False)
    return _both(cluster, DEFAULT_GATES, parse_object(node(node1, region1), validate=False), [claim])


def _gpu(name: str, memory: str) -> dict:
    return device(name, {"memory": memory}, {})


def test_too_few_matching_devices_are_counted_without_a_search() -> None:
    devices = [_gpu(f"d{i}", "80Gi") for i in range(4)] + [_gpu("big", "160Gi")]
    big = "device.capacity['driver-a'].memory.compareTo(quantity('100Gi')) >= 0"
    counted, searched, steps = _one_request(devices, 2, big)
    assert counted == searched and counted[2] == "cannot allocate all claims"
    assert steps == 0  # no search ran


def test_a_cel_error_on_a_free_device_is_left_to_the_search() -> None:
    # "nosuch" is missing on every device: the search stops at the first free device with the error
    devices = [_gpu("d0", "80Gi"), _gpu("d1", "80Gi")]
    counted, searched, steps = _one_request(devices, 2, "device.attributes['driver-a'].nosuch == 1",
                                            allocated=("d0",))
    assert counted == searched and counted[1] is not None and "no such key" in counted[1]
    assert steps > 0


def test_devices_in_use_are_counted_and_enough_free_ones_are_searched() -> None:
    devices = [_gpu(f"d{i}", "80Gi") for i in range(3)]
    counted, searched, steps = _one_request(devices, 2, "device.driver == 'driver-a'", allocated=("d0", "d1"))
    assert counted == searched and counted[2] == "cannot allocate all claims" and steps == 0
    counted, searched, steps = _one_request(devices, 2, "device.driver == 'driver-a'", allocated=("d0",))
    assert counted == searched and counted[0] is not None and steps > 0
