"""`dractl demo` on the dra-example-driver's examples and the real drivers' demos, in the fake cluster: the
catalog, what each run checks, the kind plan with each example's Helm values."""

from __future__ import annotations

import os
import re

import pytest
import yaml
from conftest import FIXTURES

from dractl.demo.catalog import DEMOS, EXAMPLES

EXAMPLES_DIR = FIXTURES / "dra-example-driver" / "demo-examples"
RUNNABLE = [d.id for d in DEMOS if d.skipped is None and d.group != "blog"]


def _fixture(name: str) -> str:
    """The example's file as upstream has it (tests/fixtures copies), by dractl's manifest name."""
    for f in os.listdir(EXAMPLES_DIR):
        parts = f[:-5].split("__")
        mine = f"{parts[1]}-{parts[2]}.yaml" if parts[0] == "device-taints-tolerations" else f"{parts[0]}.yaml"
        if mine == name:
            return (EXAMPLES_DIR / f).read_text()
    raise KeyError(name)


def test_every_example_of_the_driver_is_in_the_catalog():
    upstream = {f.split("__")[0] if not f.startswith("device-taints") else f.split("__")[1]
                for f in os.listdir(EXAMPLES_DIR)}
    assert upstream == {d.id for d in EXAMPLES}
    # the shipped manifests are the examples' files; a '# dractl:' comment says what changed and why
    for d in EXAMPLES:
        for f in d.manifests:
            if f.startswith("admin-access-0"):
                continue  # dractl's own addition
            ours, theirs = d.manifest(f), _fixture(f)
            if ours != theirs:
                changed = [line for line in ours.splitlines() if line not in theirs.splitlines()]
                assert changed and changed[0].startswith("# dractl:"), (f, changed)
                assert [yaml.safe_load_all(ours)] and all(o["apiVersion"] in ("v1", "resource.k8s.io/v1")
                                                          for o in yaml.safe_load_all(ours) if o)


def test_list_groups_gates_and_the_examples_not_run(dractl):
    r = dractl("demo", "list", "-o", "wide")
    assert r.code == 0
    rows = {line.split()[1]: line for line in r.out.splitlines()[1:]}
    assert rows["1"].startswith("blog ") and rows["admin-access"].startswith("examples ")
    assert rows["mig-by-profile"].startswith("drivers ")
    assert "DRAConsumableCapacity (beta, on)" in rows["net-consumable-capacity"]
    assert "example-net" in rows["net-consumable-capacity"]
    assert "not run: DRANodeAllocatableResources is alpha and off by default" in rows["native-resource-request"]
    assert "not run: its gates are off by default in Kubernetes 1.37" in rows["podgroup-resourceclaimtemplate"]
    doc = {d["id"]: d for d in dractl("demo", "list", "-o", "json").json()["items"]}
    assert doc["binding-conditions"]["helmValues"] == ["kubeletPlugin.bindingConditions=true",
                                                      "controller.plugins={BindingConditions}"]
    assert doc["podgroup-resourceclaimtemplate"]["runs"] is False
    r = dractl("--fake", "demo", "run", "native-resource-request")
    assert r.code == 2 and r.err.count("\n") == 1 and "DRANodeAllocatableResources" in r.err


def test_show_prints_each_step(dractl):
    r = dractl("demo", "show", "device-taint-pod-noexecute", "--step", "3")
    assert r.code == 0
    rule = yaml.safe_load(r.out)
    assert rule["kind"] == "DeviceTaintRule" and rule["apiVersion"] == "resource.k8s.io/v1"
    assert rule["spec"]["taint"]["effect"] == "NoExecute"
    whole = list(yaml.safe_load_all(dractl("demo", "show", "device-taint-pod-noexecute").out))
    assert [o["kind"] for o in whole if o] == ["Namespace", "ResourceClaimTemplate", "Pod", "DeviceTaintRule", "Pod"]
    assert dractl("demo", "show", "admin-access", "--step", "3").code == 2


@pytest.mark.parametrize("demo", RUNNABLE)
def test_each_demo_shows_its_effect_on_the_fake_cluster(demo, dractl):
    r = dractl("--fake", "demo", "run", demo, "-o", "json")
    doc = r.json()["demos"][0]
    assert r.code == 0, r.out
    assert doc["passed"] and all(c["passed"] for c in doc["checks"])
    # the example deleted its objects after its checks, as its README's Cleanup does
    d = next(x for x in DEMOS if x.id == demo)
    assert dractl("-n", d.namespace, "pods", "-o", "name").out == ""


def test_examples_check_what_they_demonstrate(dractl):
    # --keep leaves every example's objects: room for all of them on one worker, as the examples assume (their
    # sharing examples put two pods on one device; on several nodes kube-scheduler's scores spread the pods)
    assert dractl("fake", "reset", "--nodes", "1", "--devices-per-node", "16").code == 0
    r = dractl("--fake", "demo", "run", "examples", "--keep")
    out = r.out
    assert "Demo prioritized-alternatives: Prioritized alternatives (firstAvailable) (firstAvailable subrequests): " \
           "PASS" in out
    assert "ok   pod0 got its GPU through subrequest gpu/older-gpu" in out
    assert "ok   after binding-conditions.yaml: pod0 held (claim reserved, pod not bound)" in out
    assert "ok   after device-taint-pod-noexecute-3-device-taint-rule.yaml: pod-to-be-evicted evicted" in out
    assert re.search(r"ok   one GPU \(gpu.example.com/dra-demo-worker/gpu-\d+\) shared: pod0 memory=16Gi "
                     r"compute=20; pod1 memory=16Gi compute=20\n", out)
    assert re.search(r"ok   pod0 holds all 16 GPUs of dra-demo-worker with adminAccess, including gpu-\d+ that "
                     r"gpu-user already holds\n", out)
    assert re.search(r"ok   gpu-(\d+)-partition-\d+, gpu-\1-partition-\d+ use up shared counters: gpu-\1-full can no "
                     r"longer be allocated\n", out)
    assert "NET_DEVICE_0_INGRESS_RATE=10000000000" in out
    assert "the eviction controller: PodsPendingEviction: 1 pod needs to be evicted in 1 namespace." in out
    # --keep: the last example of a namespace stays (each removes what an earlier run left first)
    assert dractl("-n", "net-consumable-capacity", "pods", "-o", "name").out.split() == ["pod/pod0", "pod/pod1"]
    assert re.search(r"ok   pod1 \(example.com/gpu: 1\) got claim pod1-extended-resources-\w{5} with gpu-\d+\n", out)
    assert f"{len(RUNNABLE) - 2}/{len(RUNNABLE) - 2} demos show what each demonstrates" in out


def test_a_demo_fails_when_its_effect_is_missing(dractl, tmp_path):
    # one GPU on the node: the admin pod gets it although gpu-user holds it
    assert dractl("fake", "reset", "--devices-per-node", "1").code == 0
    r = dractl("--fake", "demo", "run", "admin-access")
    assert r.code == 0, r.out
    # with DRADeviceBindingConditions off, devices with binding conditions are not allocated: never held
    r = dractl("--fake", "--feature-gates", "DRADeviceBindingConditions=false", "demo", "run", "binding-conditions",
               "-o", "json")
    doc = r.json()["demos"][0]
    assert r.code == 1 and not doc["passed"]
    assert doc["checks"][0]["check"].startswith("after binding-conditions.yaml: pod0 held (claim reserved, pod not "
                                                "bound) (failed: pod0: claim pod0-gpu-")
    assert "is not allocated" in doc["checks"][0]["check"] and not doc["checks"][0]["passed"]


def test_drivers_demos_on_the_fake_cluster(dractl):
    r = dractl("--fake", "demo", "run", "drivers")
    assert r.code == 0, r.out
    out = r.out
    assert "ok   worker-0: gpu gpu-0, efa pci-0000-10-1b-0 on one PCIe root (pci0000:10)" in out
    assert "ok   worker-1: gpu gpu-2, efa pci-0000-20-1b-0 on one PCIe root (pci0000:20)" in out
    assert "ok   inference-0: gpu-0-mig-3g20gb-9-0, a 3g.20gb MIG device" in out
    assert "gpu-0-counter-set: inference-0 memory slices 0-3, inference-1 memory slices 4-7" in out
    assert "ok   gpu-0 can no longer be allocated whole (counters used up)" in out


def test_kind_plan_installs_each_example_s_helm_values(dractl):
    r = dractl("demo", "run", "all", "--dry-run")
    assert r.code == 0
    lines = r.out.splitlines()
    helm = [line.split("   # ")[0] for line in lines if line.startswith("helm ")]
    assert any(h.endswith("--set gpuAllowMultipleAllocations=true") for h in helm)
    assert any("--set kubeletPlugin.bindingConditions=true --set 'controller.plugins={BindingConditions}'" in h
               for h in helm)
    assert any(" upgrade -i dra-example-driver-net " in h and h.endswith("--set deviceProfile=net") for h in helm)
    assert any("--set deviceClass.extendedResourceName=example.com/gpu" in h for h in helm)
    # every step of every demo that runs is applied from 'dractl demo show'
    for d in DEMOS:
        if d.skipped is None:
            for i, _ in enumerate(d.manifests, 1):
                step = f" --step {i}" if len(d.manifests) > 1 else ""
                assert any(line.startswith(f"dractl demo show {d.id}{step} | kubectl --context kind-dra-demo "
                                           "apply -f -") for line in lines), d.id
    # NVIDIA's and dranet's devices: dractl's fake ones, published with dractl in a state folder of its own
    assert any("fake reset --profile nvidia-dranet" in line for line in lines)
    assert any(line.startswith("dractl --state-dir") and " --context kind-dra-demo fake publish --yes" in line
               for line in lines)
    # the blog's demos last: their objects stay
    assert lines[-1].startswith("dractl demo show 3 | kubectl")
