"""The blog post's demos at allocator level (8 simulated 80Gi GPUs on one kind worker)."""

from __future__ import annotations

from typing import Any

from dractl.allocator import Allocator
from dractl.control.whatif import check
from dractl.model.cluster import Cluster
from dractl.model.parse import parse_object
from dractl.model.serialize import allocation_to_dict

NODE = "dra-demo-worker"
DRIVER = "gpu.example.com"
V1 = "resource.k8s.io/v1"


def gpu_slice(node: str = NODE, n: int = 8, memory: str = "80Gi") -> dict[str, Any]:
    return {
        "apiVersion": V1,
        "kind": "ResourceSlice",
        "metadata": {"name": f"{node}-{DRIVER}-abcde"},
        "spec": {
            "driver": DRIVER,
            "nodeName": node,
            "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
            "devices": [
                {
                    "name": f"gpu-{i}",
                    "attributes": {
                        "index": {"int": i},
                        "uuid": {"string": f"gpu-{i:08d}-0000-0000-0000-000000000000"},
                        "model": {"string": "LATEST-GPU-MODEL"},
                        "driverVersion": {"version": "1.0.0"},
                    },
                    "capacity": {"memory": {"value": memory}, "compute": {"value": "100"}},
                }
                for i in range(n)
            ],
        },
    }


def gpu_class() -> dict[str, Any]:
    return {
        "apiVersion": V1,
        "kind": "DeviceClass",
        "metadata": {"name": DRIVER},
        "spec": {"selectors": [{"cel": {"expression": f"device.driver == '{DRIVER}'"}}]},
    }


def template(name: str, *selectors: str) -> dict[str, Any]:
    exactly: dict[str, Any] = {"deviceClassName": DRIVER}
    if selectors:
        exactly["selectors"] = [{"cel": {"expression": s}} for s in selectors]
    return {
        "apiVersion": V1,
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": name, "namespace": "dra-demo"},
        "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "exactly": exactly}]}}},
    }


def claim(name: str) -> dict[str, Any]:
    return {
        "apiVersion": V1,
        "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": "dra-demo"},
        "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": DRIVER}}]}},
    }


def pod(name: str, *, template_name: str = "", claim_name: str = "") -> dict[str, Any]:
    rc: dict[str, Any] = {"name": "gpu"}
    if template_name:
        rc["resourceClaimTemplateName"] = template_name
    else:
        rc["resourceClaimName"] = claim_name
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "dra-demo"},
        "spec": {
            "containers": [{"name": "ctr", "image": "busybox:1.37", "resources": {"claims": [{"name": "gpu"}]}}],
            "resourceClaims": [rc],
        },
    }


def node(name: str = NODE) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}}


def cluster(*extra: dict[str, Any]) -> Cluster:
    objs = [parse_object(d, validate=False) for d in (gpu_slice(), gpu_class(), node(), *extra)]
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
    c = cluster(template("single-gpu"))
    rep = check(c, [parse_object(pod(name, template_name="single-gpu"), validate=False) for name in ("pod-a", "pod-b")])
    assert rep.outcome == "scheduled"
    assert [(p.name, p.node, [x.name for x in p.claims]) for p in rep.pods] == [
        ("pod-a", NODE, ["pod-a-gpu"]),
        ("pod-b", NODE, ["pod-b-gpu"]),
    ]
    assert devices_of(rep) == ["gpu-0", "gpu-1"]  # upstream's first fit, in slice order


def test_demo2_shared_claim_one_device_for_both_pods() -> None:
    c = cluster(claim("shared-gpu"))
    objs = [parse_object(pod(n, claim_name="shared-gpu"), validate=False) for n in ("shared-1", "shared-2")]
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
            "device.attributes['gpu.example.com'].model == 'LATEST-GPU-MODEL'",
            "device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0",
        )
    )
    rep = check(c, [parse_object(pod("big-gpu", template_name="gpu-40gi"), validate=False)])
    assert rep.outcome == "scheduled"
    assert devices_of(rep) == ["gpu-0"]


def test_demo3_100gi_selector_is_unschedulable_and_names_memory() -> None:
    expr = "device.capacity['gpu.example.com'].memory.compareTo(quantity('100Gi')) >= 0"
    c = cluster(template("gpu-100gi", expr))
    rep = check(c, [parse_object(pod("huge-gpu", template_name="gpu-100gi"), validate=False)])
    assert rep.outcome == "unschedulable"
    assert rep.pods[0].message == "0/1 nodes are available: 1 cannot allocate all claims."
    lines = rep.pods[0].explanation.lines()
    text = "\n".join(lines)
    assert f"request gpu: class {DRIVER} matches 8 devices on node {NODE}; all 8 fail selector #0 ({expr})" in text
    assert "80Gi" in text  # the largest memory on offer
    d = rep.to_dict()
    assert d["outcome"] == "unschedulable" and d["pods"][0]["claims"][0]["name"] == "huge-gpu-gpu"
    req = d["pods"][0]["explanation"]["nodes"][0]["requests"][0]
    assert req["classMatches"] == 8 and req["usable"] == 0 and req["reasons"][0]["count"] == 8


def test_allocation_serializes_in_v1_shape() -> None:
    c = cluster(claim("one"))
    out = Allocator(c).allocate(NODE, [c.claims[0]])
    assert out.status == "allocated"
    assert allocation_to_dict(out.allocations[0]) == {
        "devices": {"results": [{"request": "gpu", "driver": DRIVER, "pool": NODE, "device": "gpu-0"}]},
        "nodeSelector": {
            "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [NODE]}]}]
        },
    }
