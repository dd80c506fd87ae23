"""`dractl check -f FILE`: what-if allocation; output contracts and exit codes; nothing is written."""

from __future__ import annotations

import os

import pytest
from test_claims_cli import claim, pod, template


def _state_bytes() -> bytes | None:
    p = os.path.join(os.environ["DRACTL_STATE"], "cluster.json")
    return open(p, "rb").read() if os.path.exists(p) else None


@pytest.fixture
def write(tmp_path):
    n = [0]

    def run(*docs: str) -> str:
        n[0] += 1
        p = tmp_path / f"c{n[0]}.yaml"
        p.write_text("---\n".join(docs))
        return str(p)

    return run


def test_claim_allocated_json_contract(dractl, write):
    dractl("fake", "reset")
    before = _state_bytes()
    r = dractl("check", "-f", write(claim("want")), "-o", "json")
    assert r.code == 0, r.err
    doc = r.json()
    assert list(doc) == ["outcome", "node", "error", "claims", "explanation"]
    assert doc["outcome"] == "allocated" and doc["node"] == "dra-demo-worker"
    assert doc["error"] is None and doc["explanation"] is None
    assert doc["claims"] == [
        {
            "namespace": "default",
            "name": "want",
            "allocation": {
                "devices": {
                    "results": [{"request": "gpu", "driver": "gpu.example.com", "pool": "dra-demo-worker", "device": "gpu-0"}]
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
    assert dractl("claims", "-o", "json").json() == {"items": []}


def test_table_output(dractl, write):
    dractl("fake", "reset")
    r = dractl("check", "-f", write(claim("want")))
    assert r.code == 0
    head, row = r.out.splitlines()
    assert head.split() == ["CLAIM", "REQUEST", "DEVICE", "CAPACITY", "NODE"]
    assert row.split() == ["want", "gpu", "gpu.example.com/dra-demo-worker/gpu-0", "exclusive", "dra-demo-worker"]
    assert dractl("check", "-f", write(claim("want")), "-o", "name").out == "resourceclaim.resource.k8s.io/want\n"
    assert "outcome: allocated" in dractl("check", "-f", write(claim("want")), "-o", "yaml").out


def test_unschedulable_selector(dractl, write):
    dractl("fake", "reset", "--nodes", "2")
    expr = "device.capacity['gpu.example.com'].memory.compareTo(quantity('100Gi')) >= 0"
    f = write(claim("huge", selector=expr))
    r = dractl("check", "-f", f)
    assert r.code == 1
    assert r.out.startswith("unschedulable: the claims cannot be allocated on any node\n")
    assert "0/2 nodes are available: 2 cannot allocate all claims." in r.out
    assert "memory is 80Gi, needs >= 100Gi" in r.out
    doc = dractl("check", "-f", f, "-o", "json").json()
    assert doc["outcome"] == "unschedulable" and doc["node"] is None and doc["error"] is None
    assert doc["claims"] == [{"namespace": "default", "name": "huge", "allocation": None}]
    assert len(doc["explanation"]["nodes"]) == 2
    assert doc["explanation"]["notes"] == ["0/2 nodes are available: 2 cannot allocate all claims."]
    # the JSON carries the same sentences as the text output
    assert any("memory is 80Gi, needs >= 100Gi" in line for line in doc["explanation"]["lines"])


def test_unschedulable_already_allocated(dractl, write, tmp_path):
    dractl("fake", "reset", "--devices-per-node", "1")
    pods = tmp_path / "pods.yaml"
    pods.write_text("---\n".join([claim("held"), pod("user", claim_name="held")]))
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
    assert doc["outcome"] == "error" and "gpu.exmaple.com" in doc["error"]


def test_node_flag(dractl, write):
    dractl("fake", "reset", "--nodes", "3")
    doc = dractl("check", "-f", write(claim("want")), "--node", "dra-demo-worker3", "-o", "json").json()
    assert doc["outcome"] == "allocated" and doc["node"] == "dra-demo-worker3"
    assert doc["claims"][0]["allocation"]["devices"]["results"][0]["pool"] == "dra-demo-worker3"
    # without --node the first node in name order wins
    assert dractl("check", "-f", write(claim("want")), "-o", "json").json()["node"] == "dra-demo-worker"
    r = dractl("check", "-f", write(claim("want")), "--node", "nowhere")
    assert r.code == 1 and 'nodes "nowhere" not found' in r.err


def test_node_flag_unschedulable_names_the_node(dractl, write):
    dractl("fake", "reset", "--nodes", "2")
    expr = "device.attributes['gpu.example.com'].model == 'H100'"
    r = dractl("check", "-f", write(claim("h100", selector=expr)), "--node", "dra-demo-worker2")
    assert r.code == 1
    assert "cannot be allocated on node dra-demo-worker2" in r.out
    assert "dra-demo-worker2" in r.out and "all 8 fail selector #0" in r.out


def test_pod_with_template_from_the_file(dractl, write):
    dractl("fake", "reset")
    f = write(template("tpl", ns="dra-demo"), pod("p", template="tpl", ns="dra-demo"))
    doc = dractl("check", "-f", f, "-o", "json").json()
    assert doc["outcome"] == "allocated"
    assert [(c["namespace"], c["name"]) for c in doc["claims"]] == [("dra-demo", "p-gpu")]
    r = dractl("check", "-f", f)
    assert r.code == 0 and "p-gpu" in r.out


def test_pod_with_missing_template_is_an_error(dractl, write):
    dractl("fake", "reset")
    r = dractl("check", "-f", write(pod("p", template="nope")), "-o", "json")
    assert r.code == 1
    doc = r.json()
    assert doc["outcome"] == "error" and "ResourceClaimTemplate default/nope not found" in doc["error"]


def test_template_alone_and_namespace_default(dractl, write):
    dractl("fake", "reset")
    text = template("tpl").replace("  namespace: default\n", "")
    doc = dractl("-n", "team", "check", "-f", write(text), "-o", "json").json()
    assert doc["outcome"] == "allocated"
    assert doc["claims"][0]["namespace"] == "team" and doc["claims"][0]["name"] == "tpl"


def test_bad_input_exits_2(dractl, write, tmp_path):
    dractl("fake", "reset")
    r = dractl("check", "-f", str(tmp_path / "missing.yaml"))
    assert r.code == 2 and "no such file" in r.err
    cls = "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: x\nspec: {}\n"
    r = dractl("check", "-f", write(cls))
    assert r.code == 2 and "no ResourceClaim, ResourceClaimTemplate or Pod to check" in r.err
    r = dractl("check", "-f", write("kind: ResourceClaim\napiVersion: resource.k8s.io/v1\nmetadata: {name: x}\nspec: 3\n"))
    assert r.code == 2
    assert dractl("check").code == 2  # -f is required


def test_a_full_cluster_is_explained_in_a_few_lines(dractl, write):
    """30 nodes whose GPUs are all held by different claims: one line per request, not per node."""
    assert dractl("fake", "reset", "--nodes", "30", "--devices-per-node", "2").code == 0
    pods = [template("one")] + [pod(f"p{i:02d}", template="one") for i in range(60)]
    assert dractl("fake", "apply", "-f", write(*pods)).code == 0
    r = dractl("check", "-f", write(claim("more")))
    assert r.code == 1
    lines = r.out.splitlines()
    assert lines[1] == "0/30 nodes are available: 30 cannot allocate all claims."
    assert len(lines) == 3, r.out
    assert "on each of 30 nodes" in lines[2] and lines[2].endswith("all 2 already allocated to 2 claims")
    # a selector that no device could ever satisfy is named, not hidden behind "allocated"
    big = claim("big", selector="device.capacity['gpu.example.com'].memory.compareTo(quantity('100Gi')) >= 0")
    r = dractl("check", "-f", write(big))
    assert "all 2 fail selector #0" in r.out and "memory is 80Gi, needs >= 100Gi" in r.out
    assert "already allocated" not in r.out
    assert len(r.out.splitlines()) == 4  # outcome, scheduler line, request line, hint
