"""DRA extended resources (KEP-5004) in the fake cluster and in `check`: the scheduler's special claim,
created as `<pod>-extended-resources-<5 random>` for the pod, shown and explained like any claim."""

from __future__ import annotations

import json
import os
from typing import Any

from builders import device_class, node, pod, write_docs

GPU = "example.com/gpu"
CLASS = device_class("gpu-ext", 'device.driver == "gpu.example.com"', extendedResourceName=GPU)


def _pod(name: str, **limits: str) -> dict[str, Any]:
    p = pod(name)
    p["spec"]["containers"][0]["resources"] = {"limits": {k.replace("__", "/").replace("_", "."): v
                                                          for k, v in limits.items()}}
    return p


def _items() -> list[dict[str, Any]]:
    return json.loads(open(os.path.join(os.environ["DRACTL_STATE"], "cluster.json")).read())["items"]


def test_fake_apply_creates_the_special_claim(dractl, tmp_path):
    assert dractl("fake", "reset").code == 0
    r = dractl("fake", "apply", "-f", write_docs(tmp_path / "a.yaml", CLASS, _pod("a", example_com__gpu="2")))
    assert r.code == 0, r.err
    (claim,) = [o for o in _items() if o["kind"] == "ResourceClaim"]
    name = claim["metadata"]["name"]
    assert name.startswith("a-extended-resources-") and len(name) == len("a-extended-resources-") + 5
    assert f"resourceclaim.resource.k8s.io/{name} created (for the extended resources of pod a)" in r.out
    assert "pod/a scheduled on dra-demo-worker" in r.out
    assert claim["metadata"]["ownerReferences"][0]["name"] == "a"
    assert claim["metadata"]["annotations"] == {"resource.kubernetes.io/extended-resource-claim": "true"}
    assert claim["spec"]["devices"]["requests"] == [{"name": "container-0-request-0", "exactly": {
        "deviceClassName": "gpu-ext", "allocationMode": "ExactCount", "count": 2}}]
    (a,) = [o for o in _items() if o["kind"] == "Pod"]
    assert a["status"]["extendedResourceClaimStatus"] == {"resourceClaimName": name, "requestMappings": [
        {"containerName": "ctr", "resourceName": GPU, "requestName": "container-0-request-0"}]}
    # shown like any claim, with its holder
    claims = dractl("claims", "-o", "json").json()["items"]
    assert [(c["name"], c["reservedFor"]) for c in claims] == [(name, ["a"])]
    held = [d for d in dractl("devices", "-o", "json").json()["items"] if d["claims"]]
    assert [(d["device"], d["claims"]) for d in held] == [("gpu-0", [f"default/{name}"]),
                                                         ("gpu-1", [f"default/{name}"])]
    rows = dractl("pods", "a", "-o", "json").json()["claims"]
    assert [(c["name"], c["resourceClaimName"]) for c in rows] == [("<extended-resources>", name)]
    assert "request container-0-request-0: gpu.example.com/dra-demo-worker/gpu-0" in dractl(
        "pods", "a", "--explain").out
    # the pod gone, the garbage collector deletes its claim
    r = dractl("fake", "delete", "-f", write_docs(tmp_path / "d.yaml", _pod("a", example_com__gpu="2")))
    assert f'resourceclaim.resource.k8s.io "{name}" deleted' in r.out
    assert not [o for o in _items() if o["kind"] == "ResourceClaim"]


def test_check_predicts_and_explains_it(dractl, tmp_path):
    assert dractl("fake", "reset").code == 0
    assert dractl("fake", "apply", "-f", write_docs(tmp_path / "c.yaml", CLASS)).code == 0
    implicit = _pod("b", deviceclass_resource_kubernetes_io__gpu_ext="1")
    implicit["spec"]["containers"][0]["resources"]["limits"] = {"deviceclass.resource.kubernetes.io/gpu-ext": "1"}
    doc = dractl("check", "-f", write_docs(tmp_path / "b.yaml", implicit), "-o", "json").json()
    (p,) = doc["pods"]
    assert p["outcome"] == "scheduled"
    assert [(c["name"], [r["request"] for r in c["allocation"]["devices"]["results"]]) for c in p["claims"]] == [
        ("b-extended-resources", ["container-0-request-0"])]
    r = dractl("check", "-f", write_docs(tmp_path / "big.yaml", _pod("big", example_com__gpu="9")))
    assert r.code == 1
    assert "0/1 nodes are available: 1 cannot allocate all claims." in r.out
    assert "request container-0-request-0: class gpu-ext matches 8 devices on node dra-demo-worker" in r.out
    out = dractl("fake", "apply", "-f", write_docs(tmp_path / "big.yaml", _pod("big", example_com__gpu="9"))).out
    assert ("pod/big pending: 0/1 nodes are available: 1 cannot allocate all claims. preemption: 0/1 nodes are "
            "available: 1 Preemption is not helpful for scheduling. "
            "(see 'dractl pods big --explain')") in out
    r = dractl("pods", "big", "--explain")
    assert "extended resources example.com/gpu: 9: no claim created yet" in r.out


def test_a_node_with_the_resource_in_its_allocatable_serves_it(dractl, tmp_path):
    """fit.go shouldDelegateResourceToDRA: a device plugin's node gives the pod its allocatable, no claim."""
    assert dractl("fake", "reset", "--nodes", "2").code == 0
    plugin_node = node("dra-demo-worker")
    plugin_node["status"] = {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110", GPU: "4"}}
    assert dractl("fake", "apply", "-f", write_docs(tmp_path / "n.yaml", CLASS, plugin_node)).code == 0
    f = write_docs(tmp_path / "p.yaml", _pod("p", example_com__gpu="1"))
    on_plugin = dractl("check", "-f", f, "--node", "dra-demo-worker", "-o", "json").json()["pods"][0]
    assert (on_plugin["outcome"], on_plugin["claims"]) == ("scheduled", [])
    on_dra = dractl("check", "-f", f, "--node", "dra-demo-worker2", "-o", "json").json()["pods"][0]
    assert on_dra["outcome"] == "scheduled"
    assert [c["name"] for c in on_dra["claims"]] == ["p-extended-resources"]


def test_quota_counts_the_pods_extended_resources(dractl, tmp_path):
    assert dractl("fake", "reset").code == 0
    q = {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "gpus", "namespace": "default"},
         "spec": {"hard": {f"requests.{GPU}": "1"}}}
    assert dractl("fake", "apply", "-f", write_docs(tmp_path / "q.yaml", CLASS, q)).code == 0
    f = write_docs(tmp_path / "p.yaml", _pod("p", example_com__gpu="2"))
    r = dractl("fake", "apply", "-f", f)
    assert r.code == 1
    assert r.err == (f'error: {f}: pods "p" is forbidden: exceeded quota: gpus, requested: requests.example.com/gpu=2, '
                     "used: requests.example.com/gpu=0, limited: requests.example.com/gpu=1\n")
    # one GPU fits the quota; the claim the scheduler creates does not count it twice
    r = dractl("fake", "apply", "-f", write_docs(tmp_path / "one.yaml", _pod("one", example_com__gpu="1")))
    assert r.code == 0 and "pod/one scheduled" in r.out


def test_a_special_claim_over_the_device_quota_is_a_scheduler_error(dractl, tmp_path):
    """The scheduler's PreBind cannot create the special claim: the pod stays Pending, reason SchedulerError,
    and `check` says so in the scheduler's words (schedule_one.go, extendeddynamicresources.go)."""
    assert dractl("fake", "reset").code == 0
    q = {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "quota", "namespace": "default"},
         "spec": {"hard": {"gpu-ext.deviceclass.resource.k8s.io/devices": "1"}}}
    assert dractl("fake", "apply", "-f", write_docs(tmp_path / "q.yaml", CLASS, q)).code == 0
    f = write_docs(tmp_path / "p.yaml", _pod("p", example_com__gpu="2"))
    want = ('running PreBind plugin "DynamicResources": create claim for extended resources default/: '
            'resourceclaims.resource.k8s.io "p-extended-resources" is forbidden: exceeded quota: quota, requested: '
            "gpu-ext.deviceclass.resource.k8s.io/devices=2, used: gpu-ext.deviceclass.resource.k8s.io/devices=0, "
            "limited: gpu-ext.deviceclass.resource.k8s.io/devices=1")
    r = dractl("check", "-f", f, "-o", "json")
    assert r.code == 1
    (entry,) = r.json()["pods"]
    assert (entry["outcome"], entry["error"]) == ("error", want)
    assert dractl("check", "-f", f).err == f"error: pod default/p: {want}\n"
    # applied, the pod stays Pending; --explain names the PreBind failure, not a missed retry
    assert dractl("fake", "apply", "-f", f).code == 0
    r = dractl("pods", "p", "--explain", "-o", "json")
    (ex,) = r.json()["explanations"]
    assert ex["summary"].startswith("the scheduler chose a node, then failed: running PreBind plugin")
    assert "exceeded quota: quota" in ex["summary"]
    assert not any("has not retried" in line for line in ex["lines"])
    assert "1/1 node(s) could schedule the pod now (dra-demo-worker)" in ex["lines"]
