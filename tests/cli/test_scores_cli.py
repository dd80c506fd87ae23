"""`check` and `fake apply` choose a node as kube-scheduler scores them: the tie set in words and in `-o json`,
the note about percentageOfNodesToScore on a big cluster."""

from __future__ import annotations

import builders as b
import pytest


@pytest.fixture
def write(tmp_path):
    n = [0]

    def run(*docs: dict) -> str:
        n[0] += 1
        return b.write_docs(tmp_path / f"f{n[0]}.yaml", *docs)

    return run


def gpu_pod(name: str, cpu: str) -> dict:
    p = b.pod(name, claims=[b.from_template("gpu")])
    p["spec"]["containers"][0]["resources"]["requests"] = {"cpu": cpu, "memory": "1Gi"}
    return p


def test_check_names_the_nodes_tied_with_its_pick(dractl, write):
    snap = write(b.device_class(), *(b.example_gpu_slice(node=f"n{i}", n=1) for i in range(3)),
                 *(b.node(f"n{i}", allocatable={"cpu": c, "memory": "32Gi", "pods": "110"})
                   for i, c in enumerate(["8", "16", "16"])))
    pod_file = write(b.template("gpu"), gpu_pod("p", "2"))
    r = dractl("--from", snap, "check", "-f", pod_file)
    assert r.code == 0, r.err
    assert "pod default/p: scheduled on n1 (tied with n2)" in r.out.splitlines()
    doc = dractl("--from", snap, "check", "-f", pod_file, "-o", "json").json()
    (p,) = doc["pods"]
    assert (p["node"], p["tiedNodes"]) == ("n1", ["n1", "n2"])
    assert p["scores"]["n0"]["total"] < p["scores"]["n1"]["total"] == p["scores"]["n2"]["total"]
    assert "percentageOfNodesToScore" not in r.out
    wide = dractl("--from", snap, "check", "-f", pod_file, "-o", "wide").out.splitlines()
    assert ("pod default/p: score on n1 463, runner-up n2 463: TaintToleration 300 vs 300, NodeResourcesFit 91 vs 91, "
            "DynamicResources 0 vs 0, NodeResourcesBalancedAllocation 72 vs 72, ImageLocality 0 vs 0") in wide
    assert not any("runner-up" in line for line in r.out.splitlines())
    # a pod that only n0 can take is not scored
    r = dractl("--from", snap, "check", "--node", "n0", "-f", pod_file, "-o", "json")
    assert (r.json()["pods"][0]["tiedNodes"], r.json()["pods"][0]["scores"]) == (["n0"], {})


def test_fake_apply_spreads_pods_over_the_emptier_nodes_and_check_says_when_upstream_looks_at_fewer(dractl, write):
    assert dractl("fake", "reset", "--nodes", "150", "--devices-per-node", "1").code == 0
    r = dractl("fake", "apply", "-f", write(b.template("gpu"), gpu_pod("a", "1"), gpu_pod("b", "1")))
    assert r.code == 0, r.err
    nodes = [line.split()[-1] for line in r.out.splitlines() if " scheduled on " in line]
    assert nodes == ["dra-demo-worker", "dra-demo-worker10"]  # the first two by name
    r = dractl("check", "-f", write(b.template("gpu"), gpu_pod("c", "1")))
    assert r.code == 0, r.err
    # the 148 empty nodes tie; the line names three (-o json: tiedNodes has them all)
    assert ("pod default/c: scheduled on dra-demo-worker100 (tied with dra-demo-worker101, dra-demo-worker102, "
            "dra-demo-worker103 and 144 more)") in r.out
    assert ("note: dractl filtered and scored all 150 nodes; kube-scheduler stops filtering once it has found "
            "100 feasible nodes (percentageOfNodesToScore), so it may choose among fewer") in r.out


def test_check_from_a_snapshot_names_the_victims_and_keeps_disruption_budgets(dractl, write):
    low = b.pod("low", nodeName="n0", priorityClassName="low", priority=10)
    low["metadata"]["labels"] = {"app": "a"}
    low["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "3"}}
    low["status"] = {"phase": "Running", "startTime": "2026-01-01T00:00:00Z"}
    classes = [{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": n}, "value": v}
               for n, v in (("low", 10), ("high", 1000))]
    budget = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
              "metadata": {"name": "a", "namespace": "default"},
              "spec": {"maxUnavailable": 0, "selector": {"matchLabels": {"app": "a"}}},
              "status": {"disruptionsAllowed": 0}}
    snap = write(*classes, budget, b.node("n0", allocatable={"cpu": "4", "memory": "8Gi", "pods": "110"}), low)
    hi = b.pod("hi", priorityClassName="high")
    hi["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "2"}}
    r = dractl("--from", snap, "check", "-f", write(hi))
    assert r.code == 0, r.err
    assert "pod default/hi: would preempt default/low (priority 10) on node n0, then schedule there" in r.out
    doc = dractl("--from", snap, "check", "-f", write(hi), "-o", "json").json()
    assert doc["pods"][0]["preemption"] == {"node": "n0", "victims": ["default/low"], "tiedNodes": ["n0"]}
    kept = dractl("--from", snap, "snapshot", "-o", "json")
    assert kept.code == 0, kept.err
    assert [i["metadata"]["name"] for i in kept.json()["items"] if i["kind"] == "PodDisruptionBudget"] == ["a"]


def test_a_preemptor_takes_devices_that_were_free_not_its_victims_devices(dractl, write):
    """The victims' claims keep their devices until the resourceclaim controller deallocates them; the scheduler
    places the preemptor before that (the real kube-scheduler did so in realistic scenarios seed 53 #18)."""
    classes = [{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": n}, "value": v}
               for n, v in (("low", 10), ("high", 1000))]
    uid = "0b9c5c1e-3c1e-4c55-9d55-5a0e6e7b0001"
    low = b.pod("low", claims=[b.from_claim("low-gpus")], nodeName="n0", priorityClassName="low", priority=10)
    low["metadata"]["uid"] = uid
    low["spec"]["containers"][0]["resources"]["requests"] = {"cpu": "3"}
    low["status"] = {"phase": "Running", "startTime": "2026-01-01T00:00:00Z"}
    held = b.allocated(b.claim("low-gpus", count=2), *({"request": "gpu", "driver": b.GPU, "pool": "n0",
                                                         "device": f"gpu-{i}"} for i in (0, 1)))
    held["status"]["reservedFor"] = [{"resource": "pods", "name": "low", "uid": uid}]
    snap = write(*classes, b.device_class(), b.example_gpu_slice(node="n0", n=3),
                 b.node("n0", allocatable={"cpu": "4", "memory": "8Gi", "pods": "110"}), held, low)
    hi = b.pod("hi", claims=[b.from_claim("hi")], priorityClassName="high")
    hi["spec"]["containers"][0]["resources"]["requests"] = {"cpu": "2"}
    r = dractl("--from", snap, "check", "-f", write(b.claim("hi"), hi), "-o", "json")
    assert r.code == 0, r.err
    (p,) = r.json()["pods"]
    assert p["preemption"]["victims"] == ["default/low"]
    assert [res["device"] for c in p["claims"] for res in c["allocation"]["devices"]["results"]] == ["gpu-2"]


def test_a_waiting_pod_of_the_preemptors_priority_goes_before_its_retry(dractl, write):
    """The victim's deletion wakes the pods waiting; the queue puts those of the preemptor's priority (tried
    earlier) before the preemptor's retry, and lower ones after it (realistic scenarios seed 74 #97, seed 29 #50).
    """
    classes = [{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": n}, "value": v,
                **({"preemptionPolicy": "Never"} if n == "high-never" else {})}
               for n, v in (("low", 10), ("high", 1000), ("high-never", 1000))]
    low = b.pod("low", nodeName="n0", priorityClassName="low", priority=10)
    low["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "3"}}
    low["status"] = {"phase": "Running", "startTime": "2026-01-01T00:00:00Z"}
    unschedulable = {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False",
                                                         "reason": "Unschedulable", "message": "0/1 nodes"}]}

    def waiting(name: str, cls: str, priority: int) -> dict:
        w = b.pod(name, claims=[b.from_claim(name)], priorityClassName=cls, priority=priority,
                  preemptionPolicy="Never")
        w["spec"]["containers"][0]["resources"]["requests"] = {"cpu": "2"}
        w["status"] = unschedulable
        return w

    hi = b.pod("hi", claims=[b.from_claim("hi")], priorityClassName="high")
    hi["spec"]["containers"][0]["resources"]["requests"] = {"cpu": "2"}
    base = [*classes, b.device_class(), b.example_gpu_slice(node="n0", n=3),
            b.node("n0", allocatable={"cpu": "4", "memory": "8Gi", "pods": "110"}), low]
    for cls, priority, devices in (("high-never", 1000, ["gpu-2"]), ("low", 10, ["gpu-0"])):
        snap = write(*base, b.claim("w", count=2), waiting("w", cls, priority))
        r = dractl("--from", snap, "check", "-f", write(b.claim("hi"), hi), "-o", "json")
        assert r.code == 0, r.err
        (p,) = r.json()["pods"]
        assert p["preemption"]["victims"] == ["default/low"]
        assert [res["device"] for c in p["claims"] for res in c["allocation"]["devices"]["results"]] == devices


def test_image_locality_moves_the_pick_and_snapshot_keeps_the_images(dractl, write):
    images = [{"names": ["registry.example.com/ml/train@sha256:0f0f", "registry.example.com/ml/train:2.1"],
               "sizeBytes": 800 * 1024 * 1024, "extra": "dropped"}]
    with_image = b.node("n1")
    with_image["status"]["images"] = images
    snap = write(b.node("n0"), with_image)
    p = b.pod("p", image="registry.example.com/ml/train:2.1")
    doc = dractl("--from", snap, "check", "-f", write(p), "-o", "json").json()
    (out,) = doc["pods"]
    assert (out["node"], out["tiedNodes"]) == ("n1", ["n1"])
    # ImageLocality: 800Mi scaled by 1 of 2 nodes, (400Mi - 23Mi) * 100 / (1000Mi - 23Mi) = 38
    assert (out["scores"]["n1"]["ImageLocality"], out["scores"]["n0"]["ImageLocality"]) == (38, 0)
    kept = dractl("--from", snap, "snapshot", "-o", "json").json()
    node = next(i for i in kept["items"] if i["kind"] == "Node" and i["metadata"]["name"] == "n1")
    assert node["status"]["images"] == [{k: v for k, v in images[0].items() if k != "extra"}]
    pod = dractl("--from", write(p | {"spec": p["spec"] | {"nodeName": "n1"}}), "snapshot", "-o", "json").json()
    assert pod["items"][0]["spec"]["containers"][0]["image"] == "registry.example.com/ml/train:2.1"


def test_explain_says_why_a_scheduled_pod_is_on_its_node(dractl, write):
    assert dractl("fake", "reset", "--nodes", "3", "--devices-per-node", "2").code == 0
    r = dractl("fake", "apply", "-f", write(b.template("gpu"), gpu_pod("a", "1"), gpu_pod("b", "1")))
    assert [line.split()[-1] for line in r.out.splitlines() if " scheduled on " in line] == [
        "dra-demo-worker", "dra-demo-worker2"]
    lines = [line.strip() for line in dractl("pods", "b", "--explain").out.splitlines()]
    i = lines.index("Pod default/b on node dra-demo-worker2:")
    assert lines[i + 1] == ("dra-demo-worker2 has the top score, 471, tied with dra-demo-worker3 (the scheduler picks "
                            "one of them at random)")
    assert lines[i + 2].startswith("dra-demo-worker2 471 against the runner-up dra-demo-worker3 471: "
                                   "TaintToleration 300 vs 300, NodeResourcesFit 97 vs 97")
    # the node with pod a on it scores lower (LeastAllocated)
    assert lines[i + 6].startswith("node dra-demo-worker: 469 (TaintToleration 300, NodeResourcesFit 95")
    doc = dractl("pods", "b", "--explain", "-o", "json").json()
    choice = next(e for e in doc["explanations"] if e["title"] == "Pod default/b on node dra-demo-worker2")
    assert choice["tiedNodes"] == ["dra-demo-worker2", "dra-demo-worker3"]
    assert choice["scores"]["dra-demo-worker"]["total"] == 469
