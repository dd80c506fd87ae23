"""kube-scheduler's filters through `check`, `fake apply`, `pods --explain`, `usage` and `snapshot`:
upstream's verdict and words, explained per node in the user's numbers."""

from __future__ import annotations

import builders as b
import pytest
import yaml


@pytest.fixture
def write(tmp_path):
    n = [0]

    def run(*docs: dict) -> str:
        n[0] += 1
        return b.write_docs(tmp_path / f"f{n[0]}.yaml", *docs)

    return run


def ctr(name: str, requests: dict | None = None, limits: dict | None = None, **extra) -> dict:
    res = {k: v for k, v in (("requests", requests), ("limits", limits)) if v}
    return {"name": name, "image": "busybox", **({"resources": res} if res else {}), **extra}


def gpu_pod(name: str, requests: dict | None = None, **spec) -> dict:
    p = b.pod(name, claims=[b.from_template("gpu")], **spec)
    if requests:
        p["spec"]["containers"][0]["resources"]["requests"] = requests
    return p


GPU_TEMPLATE = b.template("gpu")


def four_nodes(write) -> str:
    """n1: 2 cpu; n2, n3: 4Gi memory; n4: roomy but with no free GPU (its one GPU is held). One GPU each."""
    held = b.allocated(b.claim("held"), {"request": "gpu", "driver": b.GPU, "pool": "n4", "device": "gpu-0"})
    return write(
        b.device_class(),
        *(b.example_gpu_slice(node=f"n{i}", n=1) for i in range(1, 5)),
        b.node("n1", allocatable={"cpu": "2", "memory": "64Gi", "pods": "110"}),
        b.node("n2", allocatable={"cpu": "16", "memory": "4Gi", "pods": "110"}),
        b.node("n3", allocatable={"cpu": "16", "memory": "4Gi", "pods": "110"}),
        b.node("n4"),
        held,
    )


def test_each_node_counts_under_every_reason_of_its_first_failing_filter(dractl, write):
    snap = four_nodes(write)
    r = dractl("--from", snap, "check", "-f", write(GPU_TEMPLATE, gpu_pod("p", {"cpu": "4", "memory": "8Gi"})))
    assert r.code == 1, r.err
    lines = r.out.splitlines()
    assert lines[:2] == [
        "unschedulable: pod default/p cannot be scheduled on any node",
        "0/4 nodes are available: 1 Insufficient cpu, 1 cannot allocate all claims, 2 Insufficient memory. "
        "preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling.",
    ]
    assert "node n1: Insufficient cpu: the pod requests 4, 2 allocatable, none requested by other pods" in lines
    assert "node n2: Insufficient memory: the pod requests 8Gi, 4Gi allocatable, none requested by other pods" in lines
    doc = dractl("--from", snap, "check", "-f", write(GPU_TEMPLATE, gpu_pod("p", {"cpu": "4", "memory": "8Gi"})),
                 "-o", "json").json()
    nodes = doc["pods"][0]["nodes"]
    assert nodes["n1"] == {"plugin": "NodeResourcesFit", "reasons": ["Insufficient cpu"],
                           "detail": ["Insufficient cpu: the pod requests 4, 2 allocatable, none requested by "
                                      "other pods"]}
    assert nodes["n4"]["plugin"] == "DynamicResources"
    assert nodes["n4"]["reasons"] == ["cannot allocate all claims"]


def test_one_node_lacking_cpu_and_memory_counts_twice(dractl, write):
    snap = four_nodes(write)
    r = dractl("--from", snap, "check", "--node", "n1", "-f",
               write(GPU_TEMPLATE, gpu_pod("p", {"cpu": "4", "memory": "100Gi"})))
    assert r.code == 1
    assert "0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory." in r.out


def test_pods_already_on_a_node_count_and_are_named(dractl, write):
    running = [b.pod(f"run-{i}", nodeName="n1", containers=[ctr("c", {"cpu": "4"})]) for i in range(4)]
    for p in running:
        p["status"] = {"phase": "Running"}
    snap = write(b.node("n1"), *running)
    big = b.pod("big", initContainers=[ctr("init", {"cpu": "12"})],
                containers=[ctr("a", {"cpu": "4"}), ctr("b", {"cpu": "4"})])
    r = dractl("--from", snap, "check", "-f", write(big))
    assert r.code == 1
    assert r.out.splitlines()[1:3] == [
        "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption "
        "victims found for incoming pod.",
        "node n1: Insufficient cpu: the pod requests 12 (init container init: 12; containers: 4 + 4), "
        "16 allocatable, 16 requested by 4 pods (run-0, run-1, run-2, ...)",
    ]


def test_a_node_without_allocatable_refuses_every_pod_and_says_why(dractl, write):
    snap = write(b.node("n1", allocatable=None), b.device_class(), b.example_gpu_slice(node="n1", n=1))
    r = dractl("--from", snap, "check", "-f", write(GPU_TEMPLATE, gpu_pod("p")))
    assert r.code == 1
    assert "0/1 nodes are available: 1 Too many pods." in r.out
    assert "Too many pods: node n1 has no allocatable in this source" in r.out


def test_a_node_known_only_from_slices_is_checked_for_dra_only(dractl, write):
    snap = write(b.device_class(), b.example_gpu_slice(node="n1", n=1))
    r = dractl("--from", snap, "check", "-f", write(GPU_TEMPLATE, gpu_pod("p", {"cpu": "1000"})))
    assert r.code == 0, r.out
    assert ("pod default/p: 1 node(s) known only from ResourceSlices (n1), no Node object in this source: checked "
            "for DRA only; not checked: NodeUnschedulable, TaintToleration, NodeResourcesFit") in r.out
    doc = dractl("--from", snap, "check", "-f", write(GPU_TEMPLATE, gpu_pod("p", {"cpu": "1000"})), "-o",
                 "json").json()
    assert doc["pods"][0]["notChecked"] == {"n1": ["NodeUnschedulable", "TaintToleration", "NodeResourcesFit"]}


def test_volumes_are_not_guessed_at(dractl, write):
    dractl("fake", "reset")
    p = gpu_pod("p", volumes=[{"name": "data", "persistentVolumeClaim": {"claimName": "data"}},
                              {"name": "cfg", "configMap": {"name": "cfg"}}])
    r = dractl("check", "-f", write(GPU_TEMPLATE, p))
    assert r.code == 0
    assert ("pod default/p: volumes not checked: data (kube-scheduler's VolumeRestrictions, NodeVolumeLimits, "
            "VolumeBinding, VolumeZone are not modelled)") in r.out
    assert dractl("check", "-f", write(GPU_TEMPLATE, p), "-o", "json").json()["pods"][0]["volumesNotChecked"] == [
        "data"]


def test_fake_nodes_have_allocatable_and_fake_apply_fills_them(dractl, write):
    assert dractl("fake", "reset", "--nodes", "2", "--node-cpu", "2", "--node-memory", "8Gi",
                  "--node-pods", "3").code == 0
    pods = [b.pod(f"p{i}", containers=[ctr("c", {"cpu": "1"})]) for i in range(5)]
    r = dractl("fake", "apply", "-f", write(*pods))
    assert r.code == 0, r.err
    # NodeResourcesFit (LeastAllocated) and BalancedAllocation score the emptier node higher; equal totals go
    # to the first node by name
    assert [line.split()[-1] for line in r.out.splitlines() if " scheduled on " in line] == [
        "dra-demo-worker", "dra-demo-worker2", "dra-demo-worker", "dra-demo-worker2"]
    assert "pod/p4 pending: 0/2 nodes are available: 2 Insufficient cpu." in r.out
    usage = dractl("usage", "--by", "node")
    assert usage.code == 0
    rows = {line.split()[0]: line.split() for line in usage.out.splitlines()[1:]}
    assert rows["dra-demo-worker"][5:8] == ["2/2", "0/8Gi", "2/3"]
    assert rows["TOTAL"][5:8] == ["4/4", "0/16Gi", "4/6"]
    doc = dractl("usage", "-o", "json").json()
    assert doc["items"][0]["cpu"] == {"requested": "2", "allocatable": "2"}


def test_fake_reset_refuses_a_bad_quantity_in_one_line(dractl):
    r = dractl("fake", "reset", "--node-memory", "lots")
    assert r.code == 2
    assert r.err.startswith("error: --node-memory: 'lots' is not a quantity") and r.err.count("\n") == 1


def test_host_ports_and_declared_features(dractl, write):
    dractl("fake", "reset")
    web = b.pod("web", containers=[ctr("c", ports=[{"containerPort": 80, "hostPort": 8080}])])
    web2 = b.pod("web2", containers=[ctr("c", ports=[{"containerPort": 81, "hostPort": 8080}])])
    r = dractl("fake", "apply", "-f", write(web, web2))
    assert "pod/web scheduled on dra-demo-worker" in r.out
    assert ("pod/web2 pending: 0/1 nodes are available: 1 node(s) didn't have free ports for the requested pod "
            "ports.") in r.out
    # (restart rules need the container's restartPolicy: the apiserver refuses them without it)
    rules = b.pod("rules", containers=[ctr("c", restartPolicy="Never", restartPolicyRules=[
        {"action": "RestartAllContainers", "exitCodes": {"operator": "In", "values": [42]}}])])
    r = dractl("check", "-f", write(rules))
    assert "0/1 nodes are available: 1 node(s) didn't match Pod's required features." in r.out
    assert ("node dra-demo-worker: the pod needs RestartAllContainersOnContainerExits, which the node does not "
            "declare (status.declaredFeatures)") in r.out


def test_explain_a_pod_pending_on_cpu(dractl, write):
    dractl("fake", "reset", "--node-cpu", "4")
    r = dractl("fake", "apply", "-f", write(b.pod("hungry", containers=[ctr("c", {"cpu": "6"})])))
    assert "pod/hungry pending: 0/1 nodes are available: 1 Insufficient cpu." in r.out
    r = dractl("pods", "hungry", "--explain")
    want = "node dra-demo-worker: Insufficient cpu: the pod requests 6, 4 allocatable, none requested by other pods"
    assert want in r.out


def test_snapshot_keeps_what_the_scheduler_reads_and_gives_the_same_answer(dractl, write, tmp_path):
    dractl("fake", "reset", "--nodes", "2", "--node-cpu", "4")
    sidecar = ctr("proxy", {"cpu": "1"}, restartPolicy="Always", env=[{"name": "TOKEN", "value": "s3cr3t"}])
    running = b.pod("running", initContainers=[sidecar], containers=[ctr("c", {"cpu": "2", "memory": "1Gi"},
                    {"memory": "2Gi"}, ports=[{"containerPort": 80, "hostPort": 80}])],
                    runtimeClassName="kata", topologySpreadConstraints=[
                        {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway",
                         "labelSelector": {"matchLabels": {"app": "x"}}}])
    # RuntimeClass admission gives the pod the class's overhead
    kata = {"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": "kata"}, "handler": "kata",
            "overhead": {"podFixed": {"cpu": "250m"}}}
    assert "pod/running scheduled on dra-demo-worker" in dractl("fake", "apply", "-f", write(kata, running)).out
    r = dractl("snapshot")
    assert r.code == 0
    snap = tmp_path / "snap.yaml"
    snap.write_text(r.out)
    (kept,) = [o for o in yaml.safe_load(r.out)["items"] if o["kind"] == "Pod"]
    spec = kept["spec"]
    assert spec["initContainers"][0]["restartPolicy"] == "Always"
    assert "env" not in spec["initContainers"][0] and "s3cr3t" not in r.out
    assert spec["containers"][0]["resources"] == {"requests": {"cpu": "2", "memory": "1Gi"},
                                                  "limits": {"memory": "2Gi"}}
    assert spec["containers"][0]["ports"] == [{"containerPort": 80, "hostPort": 80}]
    assert spec["overhead"] == {"cpu": "250m"} and spec["topologySpreadConstraints"]
    assert [o["metadata"]["name"] for o in yaml.safe_load(r.out)["items"] if o["kind"] == "RuntimeClass"] == ["kata"]
    (node,) = [o for o in yaml.safe_load(r.out)["items"] if o["kind"] == "Node"][:1]
    assert node["status"]["allocatable"]["cpu"] == "4"
    want = write(b.pod("want", containers=[ctr("c", {"cpu": "2"})]),
                 b.pod("more", containers=[ctr("c", {"cpu": "1500m"})]))
    live, dumped = dractl("check", "-f", want), dractl("--from", str(snap), "check", "-f", want)
    assert live.code == dumped.code == 0
    assert live.out == dumped.out
    # the running pod (2 + sidecar 1 + overhead 250m of dra-demo-worker's 4 cpu) is counted from the snapshot
    assert "pod default/more uses no ResourceClaims: scheduled on dra-demo-worker2" in dumped.out
