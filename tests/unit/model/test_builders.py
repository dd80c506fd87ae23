"""tests/builders.py writes the v1 API's field names: its objects equal real YAML.

dractl's parser ignores fields it does not know, so a misspelt builder field would make
tests quietly test less. Here each builder rebuilds objects published by real sources
(the blog post's demos, the dra-example-driver's DeviceClass and ResourceSlice, a
partitionable slice from the driver's code, an allocated claim) and must equal them.
"""

from __future__ import annotations

import yaml
from builders import (
    allocated,
    claim,
    counter_consumption,
    counter_set,
    device,
    device_class,
    docs_to_yaml,
    from_claim,
    from_template,
    memory_at_least,
    namespace,
    pod,
    request,
    slice_,
    template,
    version,
    write_docs,
)
from conftest import fixture_path
from test_demos_fake import DEMO1, DEMO2, DEMO3

DERIVED = ("dra-example-driver", "derived")
BLOG_CMD = ["sh", "-c", "env | grep GPU_DEVICE; trap 'exit 0' TERM; sleep 3600 & wait"]


def _docs(text: str) -> list[dict]:
    return [d for d in yaml.safe_load_all(text) if d]


def _fixture(*parts: str) -> list[dict]:
    with open(fixture_path(*parts)) as f:
        return _docs(f.read())


def _blog_pod(name: str, source: dict) -> dict:
    return pod(name, "dra-demo", [source], image="busybox:1.37", command=BLOG_CMD)


def test_the_blog_demos_rebuilt():
    assert _docs(DEMO1) == [
        template("single-gpu", "dra-demo"),
        _blog_pod("pod-a", from_template("single-gpu")),
        _blog_pod("pod-b", from_template("single-gpu")),
    ]
    assert _docs(DEMO2) == [
        claim("shared-gpu", "dra-demo"),
        _blog_pod("shared-1", from_claim("shared-gpu")),
        _blog_pod("shared-2", from_claim("shared-gpu")),
    ]
    model = "device.attributes['gpu.example.com'].model == 'LATEST-GPU-MODEL'"
    assert _docs(DEMO3) == [
        template("gpu-40gi", "dra-demo", selectors=[model, memory_at_least("40Gi")]),
        template("gpu-100gi", "dra-demo", selectors=[memory_at_least("100Gi")]),
        _blog_pod("big-gpu", from_template("gpu-40gi")),
        _blog_pod("huge-gpu", from_template("gpu-100gi")),
    ]


def test_the_example_drivers_class_and_slice_rebuilt():
    assert _fixture(*DERIVED, "deviceclass-gpu.example.com.rendered.yaml") == [device_class()]
    (real,) = _fixture(*DERIVED, "resourceslice-gpu-default.yaml")
    node = "dra-example-driver-cluster-worker"
    devices = [
        device(d["name"], {"driverVersion": version("1.0.0"), "index": i, "model": "LATEST-GPU-MODEL",
                           "uuid": d["attributes"]["uuid"]["string"]},
               {"compute": "100", "memory": "80Gi"}, allow_multiple_allocations=False)
        for i, d in enumerate(real["spec"]["devices"])
    ]
    built = slice_(node, "gpu.example.com", devices=devices, name=real["metadata"]["name"])
    real["metadata"] = {"name": real["metadata"]["name"]}  # generateName, ownerReferences: set by the apiserver
    assert built == real


def test_a_partitionable_slice_rebuilt():
    slices = _fixture(*DERIVED, "resourceslices-gpu-partitions.yaml")
    counters = next(s for s in slices if "sharedCounters" in s["spec"])
    real = counters["spec"]["sharedCounters"][0]
    assert counter_set(real["name"], **{k: v["value"] for k, v in real["counters"].items()}) == real
    devs = next(s for s in slices if s["spec"].get("devices"))
    part = next(d for d in devs["spec"]["devices"] if "consumesCounters" in d)
    (use,) = part["consumesCounters"]
    assert counter_consumption(use["counterSet"], **{k: v["value"] for k, v in use["counters"].items()}) == use
    assert slice_(counters["spec"]["nodeName"], counters["spec"]["driver"], counters["spec"]["pool"]["name"],
                  devices=None, name=counters["metadata"]["name"],
                  generation=counters["spec"]["pool"]["generation"],
                  slice_count=counters["spec"]["pool"]["resourceSliceCount"],
                  shared_counters=counters["spec"]["sharedCounters"])["spec"] == counters["spec"]


def test_an_allocated_shared_claim_rebuilt():
    (real,) = _fixture(*DERIVED, "resourceclaim-allocated-shared-gpu.yaml")
    req = real["spec"]["devices"]["requests"][0]
    ex = req["exactly"]
    built = claim(real["metadata"]["name"], real["metadata"]["namespace"], [
        request(req["name"], ex["deviceClassName"], mode=ex.get("allocationMode"), count=ex.get("count"),
                capacity_requests=ex["capacity"]["requests"]),
    ])
    assert built["spec"] == real["spec"]
    results = real["status"]["allocation"]["devices"]["results"]
    assert allocated(built, *results)["status"]["allocation"]["devices"] == real["status"]["allocation"]["devices"]


def test_files_load_as_written(dractl, tmp_path):
    """write_docs: one YAML stream that dractl applies object by object, in order."""
    f = write_docs(tmp_path / "objs.yaml", namespace("team-a"), claim("c", "team-a", count=2),
                   pod("p", "team-a", [from_claim("c")]))
    assert [d["kind"] for d in _docs(open(f).read())] == ["Namespace", "ResourceClaim", "Pod"]
    assert open(f).read() == docs_to_yaml(*_docs(open(f).read()))
    assert dractl("fake", "reset").code == 0
    r = dractl("fake", "apply", "-f", f)
    assert r.code == 0, r.err
    assert r.out.splitlines() == ["namespace/team-a created", "resourceclaim.resource.k8s.io/c created",
                                  "pod/p created", "pod/p scheduled on dra-demo-worker"]
    (c,) = dractl("-n", "team-a", "claims", "-o", "json").json()["items"]
    assert [x["device"] for x in c["results"]] == ["gpu-0", "gpu-1"] and c["reservedFor"] == ["p"]
