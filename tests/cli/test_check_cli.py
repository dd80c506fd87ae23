"""`dractl check -f FILE`: what-if allocation; output contracts and exit codes; nothing is written."""

from __future__ import annotations

import os

import pytest
from builders import claim, device_class, docs_to_yaml, from_claim, from_template, memory_at_least, pod, template


def _state_bytes() -> bytes | None:
    p = os.path.join(os.environ["DRACTL_STATE"], "cluster.json")
    return open(p, "rb").read() if os.path.exists(p) else None


@pytest.fixture
def write(tmp_path):
    n = [0]

    def run(*docs: dict | str) -> str:
        """Objects from tests/builders.py, or YAML text as it is."""
        n[0] += 1
        p = tmp_path / f"c{n[0]}.yaml"
        p.write_text("---\n".join(d if isinstance(d, str) else docs_to_yaml(d) for d in docs))
        return str(p)

    return run


def test_claim_allocated_json_contract(dractl, write):
    dractl("fake", "reset")
    before = _state_bytes()
    r = dractl("check", "-f", write(claim("want")), "-o", "json")
    assert r.code == 0, r.err
    doc = r.json()
    assert list(doc) == ["apiVersion", "kind", "outcome", "pods"]
    assert (doc["apiVersion"], doc["kind"]) == ("dractl/v1", "CheckReport")
    assert doc["outcome"] == "scheduled"
    (p,) = doc["pods"]
    assert list(p) == ["namespace", "name", "outcome", "node", "message", "error", "claims", "explanation", "nodes",
                       "volumesNotChecked", "notChecked", "tiedNodes", "scores"]
    # a file without pods is checked as one pod using its claims; that pod has no name
    assert p["name"] is None and p["outcome"] == "scheduled" and p["node"] == "dra-demo-worker"
    assert p["message"] is None and p["error"] is None and p["explanation"] is None
    # what the scheduler would write, including the allocation time (binding conditions are on in 1.37)
    assert p["claims"][0]["allocation"].pop("allocationTimestamp").endswith("Z")
    assert p["claims"] == [
        {
            "namespace": "default",
            "name": "want",
            "allocation": {
                "devices": {
                    "results": [{"request": "gpu", "driver": "gpu.example.com", "pool": "dra-demo-worker",
                                 "device": "gpu-0"}]
                },
                "nodeSelector": {
                    "nodeSelectorTerms": [
                        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["dra-demo-worker"]}]}
                    ]
                },
            },
        }
    ]
    assert _state_bytes() == before  # nothing written
    assert dractl("claims", "-o", "json").json()["items"] == []


def test_table_output(dractl, write):
    dractl("fake", "reset")
    r = dractl("check", "-f", write(claim("want")))
    assert r.code == 0
    head, row = r.out.splitlines()
    assert head.split() == ["CLAIM", "REQUEST", "DEVICE", "CAPACITY", "NODE"]
    assert row.split() == ["want", "gpu", "gpu.example.com/dra-demo-worker/gpu-0", "exclusive", "dra-demo-worker"]
    assert dractl("check", "-f", write(claim("want")), "-o", "name").out == "resourceclaim.resource.k8s.io/want\n"
    assert "outcome: scheduled" in dractl("check", "-f", write(claim("want")), "-o", "yaml").out


def test_unschedulable_selector(dractl, write):
    dractl("fake", "reset", "--nodes", "2")
    f = write(claim("huge", selectors=[memory_at_least("100Gi")]))
    r = dractl("check", "-f", f)
    assert r.code == 1
    assert r.out.startswith("unschedulable: the claims cannot be allocated on any node\n")
    assert "0/2 nodes are available: 2 cannot allocate all claims." in r.out
    assert "memory is 80Gi, needs >= 100Gi" in r.out
    doc = dractl("check", "-f", f, "-o", "json").json()
    assert doc["outcome"] == "unschedulable"
    (p,) = doc["pods"]
    assert p["outcome"] == "unschedulable" and p["node"] is None and p["error"] is None
    assert p["message"] == ("0/2 nodes are available: 2 cannot allocate all claims. preemption: 0/2 nodes are "
                            "available: 2 Preemption is not helpful for scheduling.")
    assert p["claims"] == [{"namespace": "default", "name": "huge", "allocation": None}]
    assert len(p["explanation"]["nodes"]) == 2
    assert p["explanation"]["notes"] == [p["message"]]
    # the JSON carries the same sentences as the text output
    assert any("memory is 80Gi, needs >= 100Gi" in line for line in p["explanation"]["lines"])


def test_unschedulable_already_allocated(dractl, write, tmp_path):
    dractl("fake", "reset", "--devices-per-node", "1")
    pods = tmp_path / "pods.yaml"
    pods.write_text(docs_to_yaml(claim("held"), pod("user", claims=[from_claim("held")])))
    assert dractl("fake", "apply", "-f", str(pods)).code == 0
    before = _state_bytes()
    r = dractl("check", "-f", write(claim("want")))
    assert r.code == 1
    assert "already allocated to default/held" in r.out
    assert _state_bytes() == before


def test_error_class_not_found(dractl, write):
    dractl("fake", "reset")
    f = write(claim("typo", cls="gpu.exmaple.com"))
    r = dractl("check", "-f", f)
    assert r.code == 1
    assert 'deviceclass.resource.k8s.io "gpu.exmaple.com" not found' in r.err
    doc = dractl("check", "-f", f, "-o", "json").json()
    assert doc["outcome"] == "error" and "gpu.exmaple.com" in doc["pods"][0]["error"]


def test_node_flag(dractl, write):
    dractl("fake", "reset", "--nodes", "3")
    (p,) = dractl("check", "-f", write(claim("want")), "--node", "dra-demo-worker3", "-o", "json").json()["pods"]
    assert p["outcome"] == "scheduled" and p["node"] == "dra-demo-worker3"
    assert p["claims"][0]["allocation"]["devices"]["results"][0]["pool"] == "dra-demo-worker3"
    # without --node the first node in name order wins
    assert dractl("check", "-f", write(claim("want")), "-o", "json").json()["pods"][0]["node"] == "dra-demo-worker"
    r = dractl("check", "-f", write(claim("want")), "--node", "nowhere")
    assert r.code == 1 and 'nodes "nowhere" not found' in r.err


def test_node_flag_unschedulable_names_the_node(dractl, write):
    dractl("fake", "reset", "--nodes", "2")
    expr = "device.attributes['gpu.example.com'].model == 'H100'"
    r = dractl("check", "-f", write(claim("h100", selectors=[expr])), "--node", "dra-demo-worker2")
    assert r.code == 1
    assert "cannot be allocated on node dra-demo-worker2" in r.out
    assert "dra-demo-worker2" in r.out and "all 8 fail selector #0" in r.out


def test_pod_with_template_from_the_file(dractl, write):
    dractl("fake", "reset")
    f = write(template("tpl", "dra-demo"), pod("p", "dra-demo", [from_template("tpl")]))
    doc = dractl("check", "-f", f, "-o", "json").json()
    assert doc["outcome"] == "scheduled"
    (p,) = doc["pods"]
    assert (p["namespace"], p["name"], p["node"]) == ("dra-demo", "p", "dra-demo-worker")
    assert [(c["namespace"], c["name"]) for c in p["claims"]] == [("dra-demo", "p-gpu")]
    r = dractl("check", "-f", f)
    assert r.code == 0
    head, row = r.out.splitlines()
    assert head.split() == ["POD", "CLAIM", "REQUEST", "DEVICE", "CAPACITY", "NODE"]
    assert row.split() == ["p", "p-gpu", "gpu", "gpu.example.com/dra-demo-worker/gpu-0", "exclusive", "dra-demo-worker"]


def test_pod_with_missing_template_waits(dractl, write):
    """As in a cluster: no claim can be made, so the scheduler leaves the pod pending."""
    dractl("fake", "reset")
    r = dractl("check", "-f", write(pod("p", claims=[from_template("nope")])), "-o", "json")
    assert r.code == 1
    (p,) = r.json()["pods"]
    assert p["outcome"] == "unschedulable" and p["claims"] == []
    assert p["message"] == 'resourceclaimtemplate.resource.k8s.io "nope" not found'
    r = dractl("check", "-f", write(pod("p", claims=[from_template("nope")])))
    assert r.out == (
        "unschedulable: pod default/p cannot be scheduled on any node\n"
        'resourceclaimtemplate.resource.k8s.io "nope" not found\n'
    )


def test_template_alone_and_namespace_default(dractl, write):
    dractl("fake", "reset")
    doc = dractl("-n", "team", "check", "-f", write(template("tpl", ns=None)), "-o", "json").json()
    assert doc["outcome"] == "scheduled"
    claim_ = doc["pods"][0]["claims"][0]
    assert claim_["namespace"] == "team" and claim_["name"] == "tpl"


def test_bad_input_exits_2(dractl, write, tmp_path):
    dractl("fake", "reset")
    r = dractl("check", "-f", str(tmp_path / "missing.yaml"))
    assert r.code == 2 and "no such file" in r.err
    r = dractl("check", "-f", write(device_class("x", expr=())))
    assert r.code == 2 and "no ResourceClaim, ResourceClaimTemplate or Pod to check" in r.err
    # what was skipped is told in the same one line
    f = write("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {}\n")
    r = dractl("check", "-f", f)
    assert (r.code, r.out) == (2, "")
    assert r.err.splitlines() == [f"error: {f}: no ResourceClaim, ResourceClaimTemplate or Pod to check; skipping "
                                  "Deployment web (apps/v1, Kind=Deployment): not a kind dractl uses"]
    r = dractl("check", "-f",
               write("kind: ResourceClaim\napiVersion: resource.k8s.io/v1\nmetadata: {name: x}\nspec: 3\n"))
    assert r.code == 2
    assert dractl("check").code == 2  # -f is required


def test_a_full_cluster_is_explained_in_a_few_lines(dractl, write):
    """30 nodes whose GPUs are all held by different claims: one line per request, not per node."""
    assert dractl("fake", "reset", "--nodes", "30", "--devices-per-node", "2").code == 0
    pods = [template("one")] + [pod(f"p{i:02d}", claims=[from_template("one")]) for i in range(60)]
    assert dractl("fake", "apply", "-f", write(*pods)).code == 0
    r = dractl("check", "-f", write(claim("more")))
    assert r.code == 1
    lines = r.out.splitlines()
    assert lines[1] == ("0/30 nodes are available: 30 cannot allocate all claims. preemption: 0/30 nodes are "
                        "available: 30 Preemption is not helpful for scheduling.")
    assert len(lines) == 3, r.out
    assert "on each of 30 nodes" in lines[2] and lines[2].endswith("all 2 already allocated to 2 claims")
    # a selector that no device could ever satisfy is named, not hidden behind "allocated"
    big = claim("big", selectors=[memory_at_least("100Gi")])
    r = dractl("check", "-f", write(big))
    assert "all 2 fail selector #0" in r.out and "memory is 80Gi, needs >= 100Gi" in r.out
    assert "already allocated" not in r.out
    assert len(r.out.splitlines()) == 4  # outcome, scheduler line, request line, hint


def test_check_answers_what_apply_would_do_pod_by_pod(dractl, write):
    """Two pods asking for 5 GPUs each, 2 nodes of 8 GPUs: check and apply agree (one pod
    per node); check once said "together they need 10 devices" and failed both."""
    assert dractl("fake", "reset", "--nodes", "2").code == 0
    f = write(template("five", count=5), *(pod(p, claims=[from_template("five")]) for p in ("p1", "p2")))
    before = _state_bytes()
    r = dractl("check", "-f", f, "-o", "json")
    assert r.code == 0, r.out
    doc = r.json()
    assert doc["outcome"] == "scheduled"
    got = {
        p["name"]: (p["outcome"], p["node"], len(p["claims"][0]["allocation"]["devices"]["results"]))
        for p in doc["pods"]
    }
    assert got == {"p1": ("scheduled", "dra-demo-worker", 5), "p2": ("scheduled", "dra-demo-worker2", 5)}
    assert _state_bytes() == before  # nothing written
    out = dractl("fake", "apply", "-f", f).out
    assert "pod/p1 scheduled on dra-demo-worker\n" in out and "pod/p2 scheduled on dra-demo-worker2\n" in out
    # a third such pod fits nowhere now; check names the reason in the scheduler's words
    r = dractl("check", "-f", write(template("five", count=5), pod("p3", claims=[from_template("five")])))
    assert r.code == 1
    assert r.out.splitlines()[:2] == [
        "unschedulable: pod default/p3 cannot be scheduled on any node",
        "0/2 nodes are available: 2 cannot allocate all claims. preemption: 0/2 nodes are available: 2 Preemption "
        "is not helpful for scheduling.",
    ]


def test_check_blog_demo3_reports_each_pod(dractl, write):
    """The blog's demo 3: big-gpu schedules, huge-gpu does not, and big-gpu is not blamed for it."""
    from test_demos_fake import DEMO3, NAMESPACE

    assert dractl("fake", "reset").code == 0
    f = write(NAMESPACE, DEMO3)
    r = dractl("check", "-f", f, "-o", "json")
    assert r.code == 1
    doc = r.json()
    assert doc["outcome"] == "unschedulable"
    big, huge = doc["pods"]
    assert (big["name"], big["outcome"], big["node"]) == ("big-gpu", "scheduled", "dra-demo-worker")
    assert big["message"] is None
    assert [res["device"] for res in big["claims"][0]["allocation"]["devices"]["results"]] == ["gpu-0"]
    assert big["claims"][0]["name"] == "big-gpu-gpu" and big["explanation"] is None
    assert (huge["name"], huge["outcome"], huge["node"]) == ("huge-gpu", "unschedulable", None)
    assert huge["message"] == ("0/1 nodes are available: 1 cannot allocate all claims. preemption: 0/1 nodes are "
                               "available: 1 Preemption is not helpful for scheduling.")
    assert any("memory is 80Gi, needs >= 100Gi" in line for line in huge["explanation"]["lines"])
    text = dractl("check", "-f", f)
    assert text.code == 1
    lines = text.out.splitlines()
    assert lines[0].split() == ["POD", "CLAIM", "REQUEST", "DEVICE", "CAPACITY", "NODE"]
    device = "gpu.example.com/dra-demo-worker/gpu-0"
    assert lines[1].split() == ["big-gpu", "big-gpu-gpu", "gpu", device, "exclusive", "dra-demo-worker"]
    assert lines[2] == "unschedulable: pod dra-demo/huge-gpu cannot be scheduled on any node"
    assert lines[3] == ("0/1 nodes are available: 1 cannot allocate all claims. preemption: 0/1 nodes are "
                        "available: 1 Preemption is not helpful for scheduling.")  # the scheduler's words, then why
    assert "big-gpu" not in "\n".join(lines[2:])
    assert "memory is 80Gi, needs >= 100Gi" in text.out
    # and apply does the same
    out = dractl("fake", "apply", "-f", f).out
    assert "pod/big-gpu scheduled on dra-demo-worker" in out and "pod/huge-gpu pending: 0/1" in out


def test_pod_node_selector_is_honoured_like_the_scheduler(dractl, write):
    """kube-scheduler's NodeAffinity filter runs before DynamicResources: nodes the pod's
    nodeSelector excludes are counted with its reason, not tried for devices."""
    assert dractl("fake", "reset", "--nodes", "3").code == 0
    on2 = pod("on2", claims=[from_template("tpl")], node_selector={"kubernetes.io/hostname": "dra-demo-worker2"})
    (p,) = dractl("check", "-f", write(template("tpl"), on2), "-o", "json").json()["pods"]
    assert (p["outcome"], p["node"]) == ("scheduled", "dra-demo-worker2")
    big = template("tpl", count=9)
    r = dractl("check", "-f", write(big, on2), "-o", "json")
    assert r.code == 1
    assert r.json()["pods"][0]["message"] == (
        "0/3 nodes are available: 1 cannot allocate all claims, 2 node(s) didn't match Pod's node affinity/selector."
        " preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
    )
    out = dractl("fake", "apply", "-f", write(big, on2)).out
    assert "pod/on2 pending: 0/3 nodes are available: 1 cannot allocate all claims, 2 node(s) didn't match" in out


def test_check_refuses_what_apply_refuses(dractl, write):
    """A claim's spec is immutable: applying a changed one fails, so check says so (exit 2) and writes nothing."""
    dractl("fake", "reset")
    assert dractl("fake", "apply", "-f", write(claim("c"))).code == 0
    before = _state_bytes()
    r = dractl("check", "-f", write(claim("c", cls="other.example.com")))
    assert r.code == 2
    assert 'ResourceClaim.resource.k8s.io "c" is invalid: spec: Invalid value: field is immutable' in r.err
    assert _state_bytes() == before
    # the unchanged claim is fine (nobody uses it yet: check allocates it for a stand-in pod)
    r = dractl("check", "-f", write(claim("c")), "-o", "json")
    assert r.code == 0 and r.json()["pods"][0]["claims"][0]["name"] == "c"


def _parked_snapshot(write) -> str:
    """One node with one free GPU, and a pod the scheduler found unschedulable before that GPU was freed."""
    from builders import example_gpu_slice, node

    parked = pod("waiting", claims=[from_claim("waiting-gpu")])
    parked["status"] = {"phase": "Pending", "conditions": [
        {"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
         "message": "0/1 nodes are available: 1 cannot allocate all claims."}]}
    return write(node("worker"), example_gpu_slice("worker", n=1), device_class(), claim("waiting-gpu"), parked)


def test_a_pod_found_unschedulable_waits_for_an_event(dractl, write):
    # kube-scheduler parks an unschedulable pod until an event its plugins' queueing hints accept; a new pod and
    # its new claim are none for it (dynamicresources.go isSchedulableAfterClaimChange: not its claim), so the
    # checked pod is scheduled first and takes the free GPU
    snap = _parked_snapshot(write)
    r = dractl("--from", snap, "check", "-f", write(claim("mine"), pod("new", claims=[from_claim("mine")])),
               "-o", "json")
    assert r.code == 0, r.err
    (p,) = r.json()["pods"]
    assert (p["name"], p["outcome"], p["node"]) == ("new", "scheduled", "worker")


def test_a_file_with_the_claim_a_parked_pod_names_brings_it_back(dractl, write):
    # the file's claim is the parked pod's own: its creation requeues that pod, which was created first
    # and so is tried first; it takes the GPU and the checked pod finds none
    snap = write(*[d for d in _docs(_parked_snapshot(write)) if d["metadata"]["name"] != "waiting-gpu"])
    r = dractl("--from", snap, "check", "-f", write(claim("waiting-gpu"), claim("mine"),
                                                    pod("new", claims=[from_claim("mine")])), "-o", "json")
    assert r.code == 1, r.err
    (p,) = r.json()["pods"]
    assert (p["name"], p["outcome"]) == ("new", "unschedulable")


def _docs(path: str) -> list[dict]:
    import yaml

    with open(path) as f:
        return [d for d in yaml.safe_load_all(f) if d]
