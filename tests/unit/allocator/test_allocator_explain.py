"""Explanations: one test per failure reason, and the text must name the real reason."""

from __future__ import annotations

from typing import Any

from builders import GPU as DRIVER
from builders import NODE, V1, allocated, claim, counter_consumption, counter_set, device, device_class, node, slice_
from builders import example_gpu_slice as gpu_slice

from dractl.allocator import Allocator
from dractl.allocator.explain import explained
from dractl.model.cluster import Cluster
from dractl.model.parse import parse_object

NS = "dra-demo"


def build(*dicts: dict[str, Any]) -> Cluster:
    c = Cluster()
    for d in dicts:
        o = parse_object(d, validate=False)
        {
            "ResourceSlice": c.slices,
            "DeviceClass": c.classes,
            "Node": c.nodes,
            "ResourceClaim": c.claims,
            "DeviceTaintRule": c.taint_rules,
        }[type(o).__name__].append(o)
    return c


def pending(name: str = "want", count: int = 1, **exactly: Any) -> Any:
    d = claim(name, NS)
    ex = d["spec"]["devices"]["requests"][0]["exactly"]
    ex["count"] = count
    ex.update(exactly)
    return parse_object(d, validate=False)


def explain(c: Cluster, *claims: Any, node_name: str = NODE) -> str:
    out = explained(Allocator(c), node_name, list(claims))
    assert out.status != "allocated", out
    return "\n".join(out.explanation.lines())


def held(name: str, devices: list[str]) -> dict[str, Any]:
    """A claim in dra-demo that holds ``devices`` of the node's pool."""
    results = [{"request": "gpu", "driver": DRIVER, "pool": NODE, "device": x} for x in devices]
    return allocated(claim(name, NS), *results)


def test_devices_already_allocated_name_the_holder() -> None:
    c = build(gpu_slice(n=4), device_class(), node(), held("pod-a-gpu-x7k2q", ["gpu-0", "gpu-1", "gpu-2", "gpu-3"]))
    text = explain(c, pending())
    assert "all 4 already allocated to dra-demo/pod-a-gpu-x7k2q" in text


def test_not_enough_devices_counts_usable() -> None:
    c = build(gpu_slice(n=4), device_class(), node(), held("a", ["gpu-0", "gpu-1"]))
    text = explain(c, pending(count=3))
    assert "2 already allocated to dra-demo/a" in text and "2 usable, needs 3" in text


def test_match_attribute_constraint_when_each_device_is_usable() -> None:
    s = gpu_slice(n=2)
    s["spec"]["devices"][1]["attributes"]["model"] = {"string": "OLD-GPU-MODEL"}
    d = claim("pair", NS)
    d["spec"]["devices"]["requests"][0]["exactly"]["count"] = 2
    d["spec"]["devices"]["constraints"] = [{"matchAttribute": f"{DRIVER}/model"}]
    c = build(s, device_class(), node())
    text = explain(c, parse_object(d, validate=False))
    assert f"constraint matchAttribute {DRIVER}/model: no 2 devices share a value" in text
    assert "2 usable, needs 2" in text  # never blames the devices themselves


def test_no_slices_on_node() -> None:
    c = build(gpu_slice(), device_class(), node(), node("worker-3"))
    text = explain(c, pending(), node_name="worker-3")
    assert "node worker-3: no slices" in text


def test_taint_not_tolerated() -> None:
    s = gpu_slice(n=1)
    s["spec"]["devices"][0]["taints"] = [{"key": f"{DRIVER}/unhealthy", "value": "true", "effect": "NoSchedule"}]
    c = build(s, device_class(), node())
    text = explain(c, pending())
    assert f"taint {DRIVER}/unhealthy=true:NoSchedule not tolerated" in text


def test_taint_from_device_taint_rule() -> None:
    rule = {
        "apiVersion": V1,
        "kind": "DeviceTaintRule",
        "metadata": {"name": "r"},
        "spec": {"deviceSelector": {"driver": DRIVER}, "taint": {"key": "maintenance", "effect": "NoExecute"}},
    }
    c = build(gpu_slice(n=1), device_class(), node(), rule)
    assert "taint maintenance:NoExecute not tolerated" in explain(c, pending())


def test_incomplete_pool() -> None:
    s = gpu_slice(n=2)
    s["spec"]["pool"]["resourceSliceCount"] = 2
    c = build(s, device_class(), node())
    text = explain(c, pending())
    assert f"pool {DRIVER}/{NODE} is incomplete (1 of 2 slices published)" in text


def test_counters_exhausted() -> None:
    counters = slice_(NODE, DRIVER, devices=None, name="a-counters", slice_count=2,
                      shared_counters=[counter_set("gpu-0-counters", memory="40Gi")])
    parts = [device(f"gpu-0-partition-{j}", consumes_counters=[counter_consumption("gpu-0-counters", memory="20Gi")])
             for j in range(3)]
    devs = slice_(NODE, DRIVER, devices=parts, name="b-devices", slice_count=2)
    holder = held("held", [f"gpu-0-partition-{j}" for j in (0, 1)])
    c = build(counters, devs, device_class(), node(), holder)
    text = explain(c, pending())
    assert "counter set gpu-0-counters: memory 0 left, needs 20Gi" in text


def test_capacity_request_too_large() -> None:
    c = build(gpu_slice(), device_class(), node())
    text = explain(c, pending(capacity={"requests": {"memory": "100Gi"}}))
    assert "all 8 devices: capacity memory: asks for 100Gi, the device has 80Gi" in text


def test_a_selector_every_device_fails_with_a_cel_error_is_one_line() -> None:
    c = build(gpu_slice(), device_class(), node())
    bad = {"cel": {"expression": f"device.attributes['{DRIVER}'].nosuch > 1"}}
    # the first request cannot fit, so the second is explained without the allocator aborting on it
    d = claim("want")
    d["spec"]["devices"]["requests"] = [
        {"name": "many", "exactly": {"deviceClassName": DRIVER, "count": 9}},
        {"name": "gpu", "exactly": {"deviceClassName": DRIVER, "selectors": [bad]}},
    ]
    lines = explain(c, parse_object(d, validate=False)).splitlines()
    gpu = [line for line in lines if line.startswith("request gpu:")]
    assert len(gpu) == 1 and gpu[0].count("no such key: nosuch") == 1
    assert "all 8 hit a CEL runtime error in selector #0" in gpu[0]


def test_class_not_found_is_an_error_with_a_hint() -> None:
    c = build(gpu_slice(), device_class(), node())
    out = explained(Allocator(c), NODE, [pending(deviceClassName="gpu.example.org")])
    assert out.status == "error"
    assert "could not retrieve device class gpu.example.org" in out.error


def test_class_not_found_error_names_the_closest_class() -> None:
    c = build(gpu_slice(), device_class(), node())
    out = explained(Allocator(c), NODE, [pending(deviceClassName="gpu.exmaple.com")])
    assert out.status == "error"
    lines = out.explanation.lines()
    assert lines[0].startswith("error: claim ")
    assert 'deviceclass.resource.k8s.io "gpu.exmaple.com" not found' in lines[0]
    assert "did you mean gpu.example.com?" in lines
    # nothing close: no guess
    out = explained(Allocator(c), NODE, [pending(deviceClassName="fpga.vendor.io")])
    assert out.status == "error"
    assert not any("did you mean" in line for line in out.explanation.lines())


def test_class_not_found_explained_per_request() -> None:
    from dractl.allocator.explain import explain_node

    c = build(gpu_slice(), device_class(), node())
    a = Allocator(c)
    nx = explain_node(a, a.node_view(NODE), [pending(deviceClassName="gpu.example.org")], "x")
    text = "\n".join(nx.lines())
    assert "device class gpu.example.org not found" in text and "did you mean gpu.example.com?" in text


def test_the_32_limit() -> None:
    c = build(gpu_slice(n=40), device_class(), node())
    out = explained(Allocator(c), NODE, [pending(count=33)])
    assert out.status == "error"
    assert "adding 33 devices exceeds the claim limit of 32, with 0 already accounted for" in out.error
    assert any("at most 32 devices" in n for n in out.explanation.lines())


def test_attribute_under_another_domain_is_suggested() -> None:
    from dractl.allocator.explain import _attribute_hints

    s = gpu_slice(n=1)
    s["spec"]["devices"][0]["attributes"] = {"gpu.nvidia.com/model": {"string": "A100"},
                                             "productName": {"string": "A100"}}
    c = build(s, device_class(), node())
    a = Allocator(c)
    notes = _attribute_hints(DRIVER, "model", a.node_view(NODE).devices)
    assert any("gpu.nvidia.com/model exists" in n for n in notes)
    notes = _attribute_hints(DRIVER, "productname", a.node_view(NODE).devices)
    assert any("did you mean gpu.example.com/productName" in n for n in notes)


def test_many_nodes_collapse_into_one_line() -> None:
    from dractl.control.whatif import check

    dicts: list[dict[str, Any]] = [device_class()]
    for i in range(50):
        dicts += [gpu_slice(node=f"n{i:02d}", n=10), node(f"n{i:02d}")]
    c = build(*dicts)
    rep = check(c, [pending(count=11)])
    assert rep.outcome == "unschedulable"
    lines = rep.pods[0].explanation.lines()
    assert lines[0] == ("0/50 nodes are available: 50 cannot allocate all claims. preemption: 0/50 nodes are "
                        "available: 50 Preemption is not helpful for scheduling.")
    assert len(lines) == 2
    assert "on each of 50 nodes (n00, n01, n02, ...)" in lines[1] and "10 usable, needs 11" in lines[1]
