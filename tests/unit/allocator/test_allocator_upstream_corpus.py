"""Differential corpus: dractl's allocator against upstream's, scenario by scenario.

``fixtures/allocator-upstream-corpus.json`` holds random but valid scenarios (v1
ResourceSlices, DeviceClasses, already allocated claims, one Node, the claims to
allocate, allocator feature overrides) together with the answer of
k8s.io/dynamic-resource-allocation's ``structured.NewAllocator(...).Allocate`` (the
module version is in the file's header). Features not named by a scenario are the
Kubernetes v1.37 defaults, which make upstream pick its "incubating" variant
(``ListTypeAttributes: true`` picks "experimental").

Upstream's AllocatedState was built from the allocated claims the way kube-scheduler
does: a result with a shareID (ConsumableCapacity on) is a shared device ID plus its
consumedCapacity, any other result an allocated device; adminAccess results are skipped.

Every scenario must give exactly upstream's answer: the same error text, or the same
allocation results in the same order (devices, requests, consumedCapacity, configs,
binding conditions, node selector). shareIDs are random UIDs upstream, so only their
presence is compared.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest

from dractl.allocator import Allocator
from dractl.allocator.core import REASON_INVALID_POOLS
from dractl.features import FeatureGates
from dractl.model.cluster import Cluster
from dractl.model.parse import parse_object
from dractl.model.serialize import allocation_to_dict
from dractl.quantity import Quantity

FIXTURE = Path(__file__).parents[2] / "fixtures" / "allocator-upstream-corpus.json"

# upstream allocator feature -> dractl feature gates
GATES = {
    "AdminAccess": ["DRAAdminAccess"],
    "PrioritizedList": ["DRAPrioritizedList"],
    "PartitionableDevices": ["DRAPartitionableDevices"],
    "DeviceTaints": ["DRADeviceTaints"],
    "DeviceBindingAndStatus": ["DRADeviceBindingConditions", "DRAResourceClaimDeviceStatus"],
    "ConsumableCapacity": ["DRAConsumableCapacity"],
    "ListTypeAttributes": ["DRAListTypeAttributes"],
    "FractionalCapacityRange": ["DRAFractionalCapacityRange"],
}


@lru_cache(maxsize=1)
def corpus() -> dict[str, Any]:
    return json.loads(FIXTURE.read_text())


def _clean(v: Any) -> Any:
    """Drop what Go's omitempty drops."""
    if isinstance(v, dict):
        return {k: _clean(x) for k, x in v.items() if x is not None and x != [] and x != {}}
    if isinstance(v, list):
        return [_clean(x) for x in v]
    return v


def normalize(results: list[dict] | None) -> list[dict] | None:
    if results is None:
        return None
    out = []
    for a in results:
        a = _clean(a)
        a.pop("allocationTimestamp", None)
        for r in a.get("devices", {}).get("results", []):
            if "shareID" in r:
                r["shareID"] = "<set>"
            if "consumedCapacity" in r:
                # exact values; the serialized form is checked separately below
                r["consumedCapacity"] = {k: str(Quantity.parse(v).value) for k, v in r["consumedCapacity"].items()}
        out.append(a)
    return out


def scenario_objects(sc: dict) -> tuple[Cluster, FeatureGates, Any, list[Any]]:
    """A scenario's cluster (classes, slices, allocated claims), gates, node and the claims to allocate."""
    gates: dict[str, bool] = {}
    for name, on in (sc.get("features") or {}).items():
        for g in GATES[name]:
            gates[g] = on
    cluster = Cluster(
        classes=[parse_object(c) for c in sc["classes"]],
        slices=[parse_object(s) for s in sc["slices"]],
        claims=[parse_object(c) for c in sc.get("allocated") or []],
    )
    return cluster, FeatureGates(gates), parse_object(sc["node"]), [parse_object(c) for c in sc["claims"]]


def run_dractl(sc: dict) -> dict:
    cluster, gates, node, claims = scenario_objects(sc)
    allocator = Allocator(cluster, gates, share_id=lambda: "00000000-0000-0000-0000-000000000000")
    out = allocator.allocate(node, claims)
    err = out.error
    if err is None and out.reason == REASON_INVALID_POOLS:
        err = out.reason
    results = None
    if err is None and out.allocations is not None:
        results = [allocation_to_dict(a) for a in out.allocations]
    return {"results": results, "error": err}


def test_corpus_header() -> None:
    header = corpus()["header"]
    assert header["module"] == "k8s.io/dynamic-resource-allocation@v0.37.2"
    assert len(corpus()["scenarios"]) >= 300


@pytest.mark.parametrize("index", range(len(corpus()["scenarios"])))
def test_matches_upstream(index: int) -> None:
    sc = corpus()["scenarios"][index]
    want = sc["expect"]
    got = run_dractl(sc)
    assert got["error"] == want["error"], f"{sc['name']}: error"
    assert normalize(got["results"]) == normalize(want["results"]), f"{sc['name']}: results"
    if want["results"]:
        # consumedCapacity is serialized as upstream serializes it
        for g, w in zip(got["results"], want["results"], strict=True):
            for gr, wr in zip(g["devices"]["results"], w["devices"]["results"], strict=True):
                assert (gr.get("consumedCapacity") or None) == (wr.get("consumedCapacity") or None), sc["name"]
