"""Pod requests and limits as k8s.io/component-helpers/resource computes them (dractl.scheduler.resources).

The cases are every call upstream's own helpers_test.go makes, with upstream's answers, recorded by running
those tests (tests/fixtures/upstream/component-helpers-resource-helpers.json says how).
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from dractl.quantity import Quantity
from dractl.scheduler import resources as r

DATA = json.loads((Path(__file__).parents[2] / "fixtures/upstream/component-helpers-resource-helpers.json").read_text())
FUNCS = {
    "PodRequests": r.pod_requests,
    "PodLimits": r.pod_limits,
    "AggregateContainerRequests": r.aggregate_container_requests,
    "AggregateContainerLimits": r.aggregate_container_limits,
}


def _options(o: dict) -> r.Options:
    nm = o.get("NonMissingContainerRequests")
    return r.Options(
        use_status_resources=bool(o.get("UseStatusResources")),
        in_place_pod_level_resources_vertical_scaling_enabled=bool(o.get("InPlacePodLevelResourcesVerticalScalingEnabled")),
        exclude_overhead=bool(o.get("ExcludeOverhead")),
        non_missing_container_requests={k: Quantity.parse(v).value for k, v in nm.items()} if nm else None,
        skip_pod_level_resources=bool(o.get("SkipPodLevelResources")),
        skip_container_level_resources=bool(o.get("SkipContainerLevelResources")),
    )


def test_the_recorded_table_covers_each_upstream_test():
    tests = {c["test"] for c in DATA["cases"]}
    assert {"TestPodResourceRequests", "TestPodResourceLimits", "TestPodLevelResourceRequests",
            "TestPodRequestsAndLimits", "TestPodRequestsAndLimitsWithoutOverhead",
            "TestAggregateContainerRequestsAndLimits"} <= tests
    assert len(DATA["cases"]) >= 100


@pytest.mark.parametrize("case", DATA["cases"], ids=lambda c: f"{c['test']}-{c['func']}")
def test_upstream_case(case):
    got = FUNCS[case["func"]](case["spec"], case["status"], _options(case["options"]))
    want = {k: Quantity.parse(v).value for k, v in case["result"].items()}
    assert {k: Fraction(v) for k, v in got.items()} == want


def _ctr(name, requests=None, limits=None, **extra):
    res = {}
    if requests:
        res["requests"] = requests
    if limits:
        res["limits"] = limits
    return {"name": name, "resources": res, **extra}


def test_init_containers_take_the_max_and_sidecars_add_up():
    spec = {
        "initContainers": [
            _ctr("sidecar", {"cpu": "1"}, restartPolicy="Always"),
            _ctr("init", {"cpu": "12"}),
        ],
        "containers": [_ctr("a", {"cpu": "4", "memory": "1Gi"}), _ctr("b", {"cpu": "4"})],
        "overhead": {"cpu": "250m"},
    }
    got = r.pod_requests(spec)
    # max(containers 8 + sidecar 1, init 12 + sidecar 1) + overhead 0.25
    assert got == {"cpu": Fraction(53, 4), "memory": 1 << 30}


def test_limits_stand_in_for_unset_requests_as_the_apiserver_defaults_them():
    spec = {"containers": [_ctr("a", limits={"cpu": "2", "example.com/gpu": "1"})]}
    assert r.pod_requests(spec) == {}
    res, non0_cpu, non0_mem = r.pod_resource(spec, {})
    assert (res.milli_cpu, res.scalar, non0_cpu, non0_mem) == (2000, {"example.com/gpu": 1}, 2000,
                                                               r.DEFAULT_MEMORY_REQUEST)


def test_pod_level_requests_win_for_cpu_and_memory():
    spec = {"resources": {"requests": {"cpu": "3"}, "limits": {"memory": "2Gi"}},
            "containers": [_ctr("a", {"cpu": "1", "memory": "1Gi"})]}
    res, _, _ = r.pod_resource(spec, {})
    # defaultPodRequests fills memory from the containers (1Gi), cpu stays the pod's 3
    assert (res.milli_cpu, res.memory) == (3000, 1 << 30)


def test_scalar_resource_names_are_upstreams():
    assert r.is_scalar_resource_name("example.com/gpu")
    assert r.is_scalar_resource_name("hugepages-2Mi")
    assert r.is_scalar_resource_name("kubernetes.io/batch-cpu")
    assert r.is_scalar_resource_name("attachable-volumes-csi-x")
    assert not r.is_scalar_resource_name("cpu")
    assert not r.is_scalar_resource_name("requests.example.com/gpu")
