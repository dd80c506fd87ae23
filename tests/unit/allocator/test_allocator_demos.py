"""The blog post's demos at allocator level (8 simulated 80Gi GPUs on one kind worker)."""

from __future__ import annotations

from typing import Any

from builders import GPU as DRIVER
from builders import (
    NODE,
    claim,
    device_class,
    example_gpu_slice,
    from_claim,
    from_template,
    memory_at_least,
    node,
    pod,
    template,
)

from dractl.allocator import Allocator
from dractl.control.whatif import check
from dractl.model.cluster import Cluster
from dractl.model.parse import parse_object
from dractl.model.serialize import allocation_to_dict

NS = "dra-demo"


def demo_pod(name: str, source: dict[str, Any]) -> dict[str, Any]:
    """A pod of the blog's demos: one busybox container using claim "gpu" from ``source``."""
    return pod(name, NS, [source], image="busybox:1.37")


def cluster(*extra: dict[str, Any]) -> Cluster:
    objs = [parse_object(d, validate=False) for d in (example_gpu_slice(), device_class(), node(), *extra)]
    c = Cluster()
    for o in objs:
        kind = type(o).__name__
        {
            "ResourceSlice": c.slices,
            "DeviceClass": c.classes,
            "Node": c.nodes,
            "ResourceClaimTemplate": c.templates,
            "ResourceClaim": c.claims,
        }[kind].append(o)
    return c


def devices_of(report: Any) -> list[str]:
    return [r.device for p in report.pods for c in p.claims for r in c.allocation.results]


def test_demo1_one_gpu_per_pod_gets_different_gpus() -> None:
    c = cluster(template("single-gpu", NS))
    pods = [demo_pod(name, from_template("single-gpu")) for name in ("pod-a", "pod-b")]
    rep = check(c, [parse_object(p, validate=False) for p in pods])
    assert rep.outcome == "scheduled"
    assert [(p.name, p.node, [x.name for x in p.claims]) for p in rep.pods] == [
        ("pod-a", NODE, ["pod-a-gpu"]),
        ("pod-b", NODE, ["pod-b-gpu"]),
    ]
    assert devices_of(rep) == ["gpu-0", "gpu-1"]  # upstream's first fit, in slice order


def test_demo2_shared_claim_one_device_for_both_pods() -> None:
    c = cluster(claim("shared-gpu", NS))
    objs = [parse_object(demo_pod(n, from_claim("shared-gpu")), validate=False) for n in ("shared-1", "shared-2")]
    rep = check(c, objs)
    assert rep.outcome == "scheduled"
    assert [[(x.namespace, x.name) for x in p.claims] for p in rep.pods] == [[("dra-demo", "shared-gpu")]] * 2
    d = rep.to_dict()
    assert d["pods"][0]["claims"] == d["pods"][1]["claims"]  # one allocation, two consumers
    alloc = d["pods"][0]["claims"][0]["allocation"]
    alloc.pop("allocationTimestamp")
    assert alloc["devices"]["results"] == [
        {"request": "gpu", "driver": DRIVER, "pool": NODE, "device": "gpu-0"}
    ]
    assert alloc["nodeSelector"] == {
        "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [NODE]}]}]
    }


def test_demo3_40gi_selector_fits() -> None:
    c = cluster(
        template(
            "gpu-40gi",
            NS,
            selectors=["device.attributes['gpu.example.com'].model == 'LATEST-GPU-MODEL'", memory_at_least("40Gi")],
        )
    )
    rep = check(c, [parse_object(demo_pod("big-gpu", from_template("gpu-40gi")), validate=False)])
    assert rep.outcome == "scheduled"
    assert devices_of(rep) == ["gpu-0"]


def test_demo3_100gi_selector_is_unschedulable_and_names_memory() -> None:
    expr = memory_at_least("100Gi")
    c = cluster(template("gpu-100gi", NS, selectors=[expr]))
    rep = check(c, [parse_object(demo_pod("huge-gpu", from_template("gpu-100gi")), validate=False)])
    assert rep.outcome == "unschedulable"
    assert rep.pods[0].message == ("0/1 nodes are available: 1 cannot allocate all claims. preemption: 0/1 nodes "
                                   "are available: 1 Preemption is not helpful for scheduling.")
    lines = rep.pods[0].explanation.lines()
    text = "\n".join(lines)
    assert f"request gpu: class {DRIVER} matches 8 devices on node {NODE}; all 8 fail selector #0 ({expr})" in text
    assert "80Gi" in text  # the largest memory on offer
    d = rep.to_dict()
    assert d["outcome"] == "unschedulable" and d["pods"][0]["claims"][0]["name"] == "huge-gpu-gpu"
    req = d["pods"][0]["explanation"]["nodes"][0]["requests"][0]
    assert req["classMatches"] == 8 and req["usable"] == 0 and req["reasons"][0]["count"] == 8


def test_allocation_serializes_in_v1_shape() -> None:
    c = cluster(claim("one", NS))
    out = Allocator(c).allocate(NODE, [c.claims[0]])
    assert out.status == "allocated"
    assert allocation_to_dict(out.allocations[0]) == {
        "devices": {"results": [{"request": "gpu", "driver": DRIVER, "pool": NODE, "device": "gpu-0"}]},
        "nodeSelector": {
            "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [NODE]}]}]
        },
    }
