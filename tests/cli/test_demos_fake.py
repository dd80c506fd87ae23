"""The blog post's three demos ("Your Scheduler Can Finally See Your GPUs: Kubernetes DRA"),
run through ``dractl fake apply -f`` on the default fake cluster (one kind worker, gpu-0..gpu-7).

The YAML below is copied verbatim from the post; only the Namespace object is added
(the post creates it with ``kubectl create namespace dra-demo``). Other objects come from
tests/builders.py.
"""

from __future__ import annotations

import json
import os
import re

import pytest
from builders import claim, docs_to_yaml, from_claim, from_template, namespace, pod, template, write_docs

NAMESPACE = docs_to_yaml(namespace("dra-demo"))

DEMO1 = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: single-gpu
  namespace: dra-demo
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.example.com
---
apiVersion: v1
kind: Pod
metadata:
  name: pod-a
  namespace: dra-demo
spec:
  containers:
  - name: ctr
    image: busybox:1.37
    command: ["sh", "-c", "env | grep GPU_DEVICE; trap 'exit 0' TERM; sleep 3600 & wait"]
    resources:
      claims:
      - name: gpu
  resourceClaims:
  - name: gpu
    resourceClaimTemplateName: single-gpu
---
apiVersion: v1
kind: Pod
metadata:
  name: pod-b
  namespace: dra-demo
spec:
  containers:
  - name: ctr
    image: busybox:1.37
    command: ["sh", "-c", "env | grep GPU_DEVICE; trap 'exit 0' TERM; sleep 3600 & wait"]
    resources:
      claims:
      - name: gpu
  resourceClaims:
  - name: gpu
    resourceClaimTemplateName: single-gpu
"""

DEMO2 = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: shared-gpu
  namespace: dra-demo
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
---
apiVersion: v1
kind: Pod
metadata:
  name: shared-1
  namespace: dra-demo
spec:
  containers:
  - name: ctr
    image: busybox:1.37
    command: ["sh", "-c", "env | grep GPU_DEVICE; trap 'exit 0' TERM; sleep 3600 & wait"]
    resources:
      claims:
      - name: gpu
  resourceClaims:
  - name: gpu
    resourceClaimName: shared-gpu
---
apiVersion: v1
kind: Pod
metadata:
  name: shared-2
  namespace: dra-demo
spec:
  containers:
  - name: ctr
    image: busybox:1.37
    command: ["sh", "-c", "env | grep GPU_DEVICE; trap 'exit 0' TERM; sleep 3600 & wait"]
    resources:
      claims:
      - name: gpu
  resourceClaims:
  - name: gpu
    resourceClaimName: shared-gpu
"""

DEMO3 = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: gpu-40gi
  namespace: dra-demo
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.example.com
          selectors:
          - cel:
              expression: "device.attributes['gpu.example.com'].model == 'LATEST-GPU-MODEL'"
          - cel:
              expression: "device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0"
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: gpu-100gi
  namespace: dra-demo
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.example.com
          selectors:
          - cel:
              expression: "device.capacity['gpu.example.com'].memory.compareTo(quantity('100Gi')) >= 0"
---
apiVersion: v1
kind: Pod
metadata:
  name: big-gpu
  namespace: dra-demo
spec:
  containers:
  - name: ctr
    image: busybox:1.37
    command: ["sh", "-c", "env | grep GPU_DEVICE; trap 'exit 0' TERM; sleep 3600 & wait"]
    resources:
      claims:
      - name: gpu
  resourceClaims:
  - name: gpu
    resourceClaimTemplateName: gpu-40gi
---
apiVersion: v1
kind: Pod
metadata:
  name: huge-gpu
  namespace: dra-demo
spec:
  containers:
  - name: ctr
    image: busybox:1.37
    command: ["sh", "-c", "env | grep GPU_DEVICE; trap 'exit 0' TERM; sleep 3600 & wait"]
    resources:
      claims:
      - name: gpu
  resourceClaims:
  - name: gpu
    resourceClaimTemplateName: gpu-100gi
"""

GENERATED = re.compile(r"^(?P<pod>[a-z0-9-]+)-gpu-[bcdfghjklmnpqrstvwxz2456789]{5}$")


def _state() -> dict:
    with open(os.path.join(os.environ["DRACTL_STATE"], "cluster.json")) as f:
        return json.load(f)


def _obj(kind: str, name: str, ns: str = "dra-demo") -> dict | None:
    for o in _state()["items"]:
        md = o.get("metadata") or {}
        if o["kind"] == kind and md.get("name") == name and md.get("namespace", "") == ns:
            return o
    return None


def _pod_ref(tmp_path, name: str) -> str:
    return write_docs(tmp_path / f"del-{name}.yaml", pod(name, "dra-demo"))


def _env(dractl, pod: str) -> dict[str, str]:
    r = dractl("-n", "dra-demo", "fake", "env", pod)
    assert r.code == 0, r.err
    return dict(line.split("=", 1) for line in r.out.splitlines())


def _claims(dractl) -> dict[str, dict]:
    r = dractl("-n", "dra-demo", "claims", "-o", "json")
    assert r.code == 0, r.err
    return {i["name"]: i for i in r.json()["items"]}


@pytest.fixture
def apply(dractl, tmp_path):
    assert dractl("fake", "reset").code == 0
    n = [0]

    def run(text: str):
        n[0] += 1
        p = tmp_path / f"apply-{n[0]}.yaml"
        p.write_text(text)
        r = dractl("fake", "apply", "-f", str(p))
        assert r.code == 0, r.err
        return r

    run(NAMESPACE)
    return run


def test_demo1_one_gpu_per_pod(dractl, apply, tmp_path):
    out = apply(DEMO1).out
    assert "pod/pod-a scheduled on dra-demo-worker" in out and "pod/pod-b scheduled on dra-demo-worker" in out
    claims = _claims(dractl)
    assert len(claims) == 2
    by_pod = {}
    for name, c in claims.items():
        m = GENERATED.match(name)
        assert m, name
        by_pod[m.group("pod")] = c
        assert c["state"] == "reserved"
        assert c["reservedFor"] == [m.group("pod")]
        assert c["node"] == "dra-demo-worker"
        assert len(c["results"]) == 1
    assert set(by_pod) == {"pod-a", "pod-b"}
    dev_a = by_pod["pod-a"]["results"][0]["device"]
    dev_b = by_pod["pod-b"]["results"][0]["device"]
    assert dev_a != dev_b

    env_a, env_b = _env(dractl, "pod-a"), _env(dractl, "pod-b")
    ident = dev_a.removeprefix("gpu-")
    uid_a = _obj("ResourceClaim", by_pod["pod-a"]["name"])["metadata"]["uid"]
    assert env_a[f"GPU_DEVICE_{ident}"] == dev_a
    # the claim's UID under the whole device name, as the driver's CDI spec sets it (cdi.go)
    assert env_a[f"GPU_DEVICE_GPU_{ident}_RESOURCE_CLAIM"] == uid_a
    assert env_a[f"GPU_DEVICE_{ident}_SHARING_STRATEGY"] == "TimeSlicing"
    assert env_a[f"GPU_DEVICE_{ident}_TIMESLICE_INTERVAL"] == "Default"
    # different claim UIDs for the two pods
    uid_b = next(v for k, v in env_b.items() if k.endswith("_RESOURCE_CLAIM"))
    assert uid_b != uid_a

    # the claims table: kubectl-like, one row per claim, template and pod in -o wide
    wide = dractl("-n", "dra-demo", "claims", "-o", "wide").out
    assert "single-gpu" in wide and "pod-a" in wide and "reserved" in wide

    # deleting pod-a deletes its generated claim and frees the GPU
    r = dractl("fake", "delete", "-f", _pod_ref(tmp_path, "pod-a"))
    # every object that goes is said, as kubectl delete words it; the garbage collector's too
    assert r.code == 0 and r.out.splitlines() == [
        'pod "pod-a" deleted from dra-demo namespace',
        f'resourceclaim.resource.k8s.io "{by_pod["pod-a"]["name"]}" deleted from dra-demo namespace '
        "(generated for pod pod-a, which is gone)",
    ], r.out
    claims = _claims(dractl)
    assert list(claims) == [by_pod["pod-b"]["name"]]
    devices = {d["device"]: d for d in dractl("devices", "-o", "json").json()["items"]}
    assert devices[dev_a]["status"] == "free" and devices[dev_a]["claims"] == []
    assert devices[dev_b]["claims"] == [f"dra-demo/{by_pod['pod-b']['name']}"]


def test_demo2_one_gpu_shared_by_two_pods(dractl, apply, tmp_path):
    out = apply(DEMO2).out
    assert "pod/shared-1 scheduled" in out and "pod/shared-2 scheduled" in out
    claim = _claims(dractl)["shared-gpu"]
    assert claim["state"] == "reserved"
    assert claim["reservedFor"] == ["shared-1", "shared-2"]
    assert len(claim["results"]) == 1
    env1, env2 = _env(dractl, "shared-1"), _env(dractl, "shared-2")
    dev1 = {k: v for k, v in env1.items() if k.startswith("GPU_DEVICE_")}
    dev2 = {k: v for k, v in env2.items() if k.startswith("GPU_DEVICE_")}
    assert dev1 == dev2  # same device, same claim UID
    uid = _obj("ResourceClaim", "shared-gpu")["metadata"]["uid"]
    assert uid in dev1.values()
    assert claim["results"][0]["device"] in dev1.values()
    table = dractl("-n", "dra-demo", "claims", "shared-gpu").out
    assert "shared-1,shared-2" in table

    # deleting the claim while in use only marks it; it goes with its last consumer
    claim_file = tmp_path / "claim.yaml"
    claim_file.write_text(DEMO2.split("---")[0])
    r = dractl("fake", "delete", "-f", str(claim_file))
    assert r.code == 0 and "marked for deletion (still in use by shared-1, shared-2)" in r.out
    assert "shared-gpu" in _claims(dractl)
    assert _obj("ResourceClaim", "shared-gpu")["metadata"].get("deletionTimestamp")
    dractl("fake", "delete", "-f", _pod_ref(tmp_path, "shared-1"))
    assert _claims(dractl)["shared-gpu"]["reservedFor"] == ["shared-2"]
    dractl("fake", "delete", "-f", _pod_ref(tmp_path, "shared-2"))
    assert "shared-gpu" not in _claims(dractl)
    assert all(d["status"] == "free" for d in dractl("devices", "-o", "json").json()["items"])


def test_deleting_demo2_says_the_shared_claim_goes_with_its_pods(dractl, apply, tmp_path):
    apply(DEMO2)
    f = tmp_path / "demo2.yaml"
    f.write_text(DEMO2)
    r = dractl("fake", "delete", "-f", str(f))
    assert r.code == 0, r.err
    assert r.out.splitlines() == [
        'resourceclaim.resource.k8s.io "shared-gpu" marked for deletion (still in use by shared-1, shared-2)',
        'pod "shared-1" deleted from dra-demo namespace',
        'pod "shared-2" deleted from dra-demo namespace',
        'resourceclaim.resource.k8s.io "shared-gpu" deleted from dra-demo namespace (no longer in use)',
    ]
    assert "shared-gpu" not in _claims(dractl)


def test_deleting_a_namespace_deletes_everything_in_it(dractl, apply, tmp_path):
    # as the namespace controller does; the file's other objects are still found (the namespace terminates)
    apply(DEMO1)
    apply(DEMO2)
    f = tmp_path / "demo2-with-namespace.yaml"
    f.write_text(NAMESPACE + "---\n" + DEMO2)
    r = dractl("fake", "delete", "-f", str(f))
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    assert lines[:4] == [
        'namespace "dra-demo" deleted',
        'resourceclaim.resource.k8s.io "shared-gpu" marked for deletion (still in use by shared-1, shared-2)',
        'pod "shared-1" deleted from dra-demo namespace',
        'pod "shared-2" deleted from dra-demo namespace',
    ]
    swept = {line.split('"')[1] for line in lines[4:] if line.endswith("(with its namespace)")}
    assert {"single-gpu", "pod-a", "pod-b", "shared-gpu"} <= swept and len(swept) == len(lines) - 4 == 6, lines
    left = [(o["kind"], o["metadata"]["name"]) for o in _state()["items"]
            if "dra-demo" in (o["metadata"].get("namespace"), o["metadata"]["name"])]
    assert left == []
    r = dractl("pods", "-A", "-o", "name")
    assert r.code == 0 and r.out == ""


def test_demo3_pick_a_gpu_by_its_attributes(dractl, apply):
    # as in the post: demo 3 runs after demos 1 and 2
    apply(DEMO1)
    apply(DEMO2)
    out = apply(DEMO3).out
    assert "pod/big-gpu scheduled on dra-demo-worker" in out
    assert "pod/huge-gpu pending: 0/1 nodes are available: 1 cannot allocate all claims." in out
    templates = sorted(o["metadata"]["name"] for o in _state()["items"] if o["kind"] == "ResourceClaimTemplate")
    assert templates == ["gpu-100gi", "gpu-40gi", "single-gpu"]
    big, huge = _obj("Pod", "big-gpu"), _obj("Pod", "huge-gpu")
    assert big["status"]["phase"] == "Running"
    assert huge["status"]["phase"] == "Pending"
    cond = huge["status"]["conditions"][0]
    assert cond["type"] == "PodScheduled" and cond["status"] == "False" and cond["reason"] == "Unschedulable"
    assert cond["message"] == ("0/1 nodes are available: 1 cannot allocate all claims. preemption: 0/1 nodes are "
                              "available: 1 Preemption is not helpful for scheduling.")
    claims = _claims(dractl)
    big_claim = next(c for n, c in claims.items() if n.startswith("big-gpu-gpu-"))
    huge_claim = next(c for n, c in claims.items() if n.startswith("huge-gpu-gpu-"))
    assert big_claim["state"] == "reserved" and huge_claim["state"] == "pending"

    r = dractl("-n", "dra-demo", "claims", "--explain")
    assert r.code == 0
    text = r.out
    block = text[text.index(f"Claim dra-demo/{huge_claim['name']}") :]
    assert "0/1 nodes are available: 1 cannot allocate all claims." in block
    assert "memory is 80Gi, needs >= 100Gi" in block
    assert "quantity('100Gi')" in block
    j = dractl("-n", "dra-demo", "claims", huge_claim["name"], "--explain", "-o", "json").json()
    ex = j["explanation"]
    assert ex["pod"] == "dra-demo/huge-gpu"
    assert any("80Gi" in line and "100Gi" in line for line in ex["lines"])


def test_scheduler_does_not_remember_not_available_as_a_shape_failure(dractl, tmp_path):
    """Regression (the fake scheduler): a pod that failed on a node only because a claim it
    shares is allocated elsewhere must not make that node "full" for the next pod of the
    same template within one reconcile."""
    assert dractl("fake", "reset", "--nodes", "2", "--devices-per-node", "1").code == 0
    def bare(name: str, *claims: dict) -> dict:
        return pod(name, None, claims, container="c", image="x", container_claims=False)

    p = write_docs(
        tmp_path / "pods.yaml",
        claim("shared", None),
        template("tpl", None),
        bare("s1", from_claim("shared", "shared")),
        bare("s2", from_claim("shared", "shared"), from_template("tpl")),
        bare("s3", from_template("tpl")),
    )
    out = dractl("fake", "apply", "-f", p).out
    assert "pod/s1 scheduled on dra-demo-worker\n" in out
    assert ("pod/s2 pending: 0/2 nodes are available: 1 cannot allocate all claims, "
            "1 resourceclaim not available on the node.") in out
    assert "pod/s3 scheduled on dra-demo-worker2" in out


def test_reapplying_the_demo_changes_nothing(dractl, tmp_path):
    """kubectl apply of the same file again keeps allocations, reservations and bindings."""
    demo = tmp_path / "demo.yaml"
    demo.write_text(NAMESPACE + "---\n" + DEMO1 + "---\n" + DEMO2)
    assert dractl("fake", "reset").code == 0
    assert dractl("fake", "apply", "-f", str(demo)).code == 0
    before = dractl("-A", "claims", "-o", "json").json()
    assert {i["state"] for i in before["items"]} == {"reserved"}
    again = dractl("fake", "apply", "-f", str(demo))
    assert again.code == 0 and "scheduled" not in again.out, again.out
    assert dractl("-A", "claims", "-o", "json").json() == before


def test_a_claim_being_deleted_takes_no_new_consumers(dractl, tmp_path):
    demo = tmp_path / "demo2.yaml"
    demo.write_text(NAMESPACE + "---\n" + DEMO2)
    assert dractl("fake", "reset").code == 0
    assert dractl("fake", "apply", "-f", str(demo)).code == 0
    claim = tmp_path / "claim.yaml"
    claim.write_text(DEMO2.split("---")[0])
    r = dractl("-n", "dra-demo", "fake", "delete", "-f", str(claim))
    assert "marked for deletion" in r.out
    third = tmp_path / "third.yaml"
    third.write_text(DEMO2.split("---")[1].replace("shared-1", "shared-3"))
    r = dractl("fake", "apply", "-f", str(third))
    assert 'pod/shared-3 pending: resourceclaim "shared-gpu" is being deleted' in r.out
