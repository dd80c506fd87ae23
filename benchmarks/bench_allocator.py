"""Allocator benchmarks (run by hand: ``python benchmarks/bench_allocator.py``).

1. 5,000 single-GPU pods placed one after another onto 500 nodes x 10 GPUs. Like
   kube-scheduler, the search for a node starts where the previous pod's search
   stopped (nextStartNodeIndex) and each placement is committed to the allocator.
   Target: >= 560 pods/s.
2. Explaining one pending claim (asks for 100Gi; every GPU has 80Gi) over 10,000
   devices (1,000 nodes x 10 GPUs) with ``check``. Target: < 1 s.
"""

from __future__ import annotations

import time

from dractl.allocator import Allocator
from dractl.control.whatif import check
from dractl.model.cluster import Cluster
from dractl.model.parse import parse_object

DRIVER = "gpu.example.com"
V1 = "resource.k8s.io/v1"


def make_cluster(nodes: int, gpus: int) -> Cluster:
    c = Cluster()
    c.classes.append(
        parse_object(
            {
                "apiVersion": V1,
                "kind": "DeviceClass",
                "metadata": {"name": DRIVER},
                "spec": {"selectors": [{"cel": {"expression": f"device.driver == '{DRIVER}'"}}]},
            },
            validate=False,
        )
    )
    for n in range(nodes):
        name = f"node-{n:04d}"
        c.nodes.append(parse_object({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}}, validate=False))
        c.slices.append(
            parse_object(
                {
                    "apiVersion": V1,
                    "kind": "ResourceSlice",
                    "metadata": {"name": f"{name}-{DRIVER}"},
                    "spec": {
                        "driver": DRIVER,
                        "nodeName": name,
                        "pool": {"name": name, "generation": 1, "resourceSliceCount": 1},
                        "devices": [
                            {
                                "name": f"gpu-{i}",
                                "attributes": {"index": {"int": i}, "model": {"string": "LATEST-GPU-MODEL"}},
                                "capacity": {"memory": {"value": "80Gi"}},
                            }
                            for i in range(gpus)
                        ],
                    },
                },
                validate=False,
            )
        )
    return c


def pod_claim(i: int, selectors: tuple[str, ...] = ()):
    exactly: dict = {"deviceClassName": DRIVER}
    if selectors:
        exactly["selectors"] = [{"cel": {"expression": s}} for s in selectors]
    return parse_object(
        {
            "apiVersion": V1,
            "kind": "ResourceClaim",
            "metadata": {"name": f"pod-{i}-gpu", "namespace": "bench"},
            "spec": {"devices": {"requests": [{"name": "gpu", "exactly": exactly}]}},
        },
        validate=False,
    )


def bench_placement(nodes: int = 500, gpus: int = 10, pods: int = 5000) -> float:
    c = make_cluster(nodes, gpus)
    names = c.node_names
    claims = [pod_claim(i) for i in range(pods)]
    t0 = time.perf_counter()
    alloc = Allocator(c)
    start = 0
    placed = 0
    for claim in claims:
        for k in range(len(names)):
            idx = (start + k) % len(names)
            out = alloc.allocate(names[idx], [claim])
            if out.allocations is not None:
                alloc.commit(claim.key, out.allocations[0])
                placed += 1
                start = (idx + 1) % len(names)
                break
    dt = time.perf_counter() - t0
    assert placed == pods, placed
    return pods / dt


def bench_explain(nodes: int = 1000, gpus: int = 10) -> float:
    c = make_cluster(nodes, gpus)
    claim = pod_claim(0, ("device.capacity['gpu.example.com'].memory.compareTo(quantity('100Gi')) >= 0",))
    t0 = time.perf_counter()
    rep = check(c, [claim])
    dt = time.perf_counter() - t0
    assert rep.outcome == "unschedulable"
    lines = rep.pods[0].explanation.lines()
    assert len(lines) <= 4, lines
    return dt


if __name__ == "__main__":
    rate = bench_placement()
    print(f"placement: 5000 pods on 500 nodes x 10 GPUs: {rate:,.0f} pods/s (target >= 560)")
    dt = bench_explain()
    print(f"explain: one pending claim over 10,000 devices: {dt:.3f} s (target < 1 s)")
