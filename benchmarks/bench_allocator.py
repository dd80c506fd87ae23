"""Allocator benchmarks (run by hand: ``python benchmarks/bench_allocator.py``).

1. 5,000 single-GPU pods placed one after another onto 500 nodes x 10 GPUs. Like
   kube-scheduler, the search for a node starts where the previous pod's search
   stopped (nextStartNodeIndex) and each placement is committed to the allocator.
   Target: >= 560 pods/s.
2. Explaining one pending claim (asks for 100Gi; every GPU has 80Gi) over 10,000
   devices (1,000 nodes x 10 GPUs) with ``check``. Target: < 1 s.
"""

from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests"))

from builders import GPU, claim, device, device_class, memory_at_least, node, slice_

from dractl.allocator import Allocator
from dractl.control.whatif import check
from dractl.model.cluster import Cluster
from dractl.model.parse import parse_object


def make_cluster(nodes: int, gpus: int) -> Cluster:
    c = Cluster()
    c.classes.append(parse_object(device_class(GPU), validate=False))
    for n in range(nodes):
        name = f"node-{n:04d}"
        c.nodes.append(parse_object(node(name), validate=False))
        attrs = ({"index": i, "model": "LATEST-GPU-MODEL"} for i in range(gpus))
        devices = [device(f"gpu-{i}", a, {"memory": "80Gi"}) for i, a in enumerate(attrs)]
        c.slices.append(parse_object(slice_(name, GPU, devices=devices), validate=False))
    return c


def pod_claim(i: int, selectors: tuple[str, ...] = ()):
    return parse_object(claim(f"pod-{i}-gpu", "bench", selectors=selectors), validate=False)


def bench_placement(nodes: int = 500, gpus: int = 10, pods: int = 5000) -> float:
    c = make_cluster(nodes, gpus)
    names = c.node_names
    claims = [pod_claim(i) for i in range(pods)]
    t0 = time.perf_counter()
    alloc = Allocator(c)
    start = 0
    placed = 0
    for c_ in claims:
        for k in range(len(names)):
            idx = (start + k) % len(names)
            out = alloc.allocate(names[idx], [c_])
            if out.allocations is not None:
                alloc.commit(c_.key, out.allocations[0])
                placed += 1
                start = (idx + 1) % len(names)
                break
    dt = time.perf_counter() - t0
    assert placed == pods, placed
    return pods / dt


def bench_explain(nodes: int = 1000, gpus: int = 10) -> float:
    c = make_cluster(nodes, gpus)
    pending = pod_claim(0, (memory_at_least("100Gi"),))
    t0 = time.perf_counter()
    rep = check(c, [pending])
    dt = time.perf_counter() - t0
    assert rep.outcome == "unschedulable"
    explanation = rep.pods[0].explanation
    assert explanation is not None
    lines = explanation.lines()
    assert len(lines) <= 4, lines
    return dt


if __name__ == "__main__":
    rate = bench_placement()
    print(f"placement: 5000 pods on 500 nodes x 10 GPUs: {rate:,.0f} pods/s (target >= 560)")
    dt = bench_explain()
    print(f"explain: one pending claim over 10,000 devices: {dt:.3f} s (target < 1 s)")
