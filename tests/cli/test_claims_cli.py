"""`dractl claims`: table and JSON contracts, exit codes, and --explain texts."""

from __future__ import annotations

import datetime as dt

import pytest
import yaml
from builders import claim, docs_to_yaml, from_claim, from_template, namespace, pod, request, template, write_docs
from conftest import fixture_path

SHARED_FIXTURE = fixture_path("dra-example-driver", "derived", "resourceclaim-allocated-shared-gpu.yaml")


@pytest.fixture
def apply(dractl, tmp_path):
    n = [0]

    def run(*docs: dict):
        n[0] += 1
        p = tmp_path / f"a{n[0]}.yaml"
        p.write_text(docs_to_yaml(*docs))
        r = dractl("fake", "apply", "-f", str(p))
        assert r.code == 0, r.err
        return r

    return run


def test_empty_and_not_found(dractl):
    dractl("fake", "reset")
    r = dractl("claims")
    assert r.code == 0 and r.out == "" and "No resources found in default namespace." in r.err
    assert dractl("claims", "-o", "json").json() == {"apiVersion": "dractl/v1", "kind": "ClaimList", "items": []}
    r = dractl("claims", "nope")
    assert r.code == 1
    assert r.err.strip().splitlines()[-1] == 'error: resourceclaims.resource.k8s.io "nope" not found'
    assert dractl("claims", "nope", "-o", "json").code == 1


def test_json_contract_and_table(dractl, apply):
    dractl("fake", "reset")
    apply(claim("solo"), pod("user", claims=[from_claim("solo")]), claim("idle"))
    doc = dractl("claims", "-o", "json").json()
    assert list(doc) == ["apiVersion", "kind", "items"] and doc["kind"] == "ClaimList"
    items = {i["name"]: i for i in doc["items"]}
    assert set(items) == {"solo", "idle"}
    solo = items["solo"]
    assert set(solo) == {"apiVersion", "kind", "namespace", "name", "state", "results", "reservedFor", "node"}
    assert (solo["apiVersion"], solo["kind"]) == ("dractl/v1", "Claim")
    assert solo["namespace"] == "default" and solo["state"] == "reserved"
    assert solo["results"] == [{"request": "gpu", "driver": "gpu.example.com", "pool": "dra-demo-worker",
                                "device": "gpu-0"}]
    assert solo["reservedFor"] == ["user"] and solo["node"] == "dra-demo-worker"
    idle = items["idle"]
    assert idle == {"apiVersion": "dractl/v1", "kind": "Claim", "namespace": "default", "name": "idle",
                    "state": "pending", "results": [], "reservedFor": [],
                    "node": None}

    lines = dractl("claims").out.splitlines()
    assert lines[0].split() == ["CLAIM", "STATE", "REQUEST", "DEVICE", "CAPACITY", "CONSUMERS", "NODE", "AGE"]
    row = {line.split()[0]: line.split() for line in lines[1:]}
    assert row["solo"][1:7] == ["reserved", "gpu", "gpu.example.com/dra-demo-worker/gpu-0", "exclusive", "user",
                                "dra-demo-worker"]
    assert row["idle"][1:7] == ["pending", "gpu", "-", "-", "-", "-"]
    assert row["solo"][7].endswith("s")  # just created: "0s", "1s"...
    assert dractl("claims", "-o", "name").out.splitlines() == [
        "resourceclaim.resource.k8s.io/idle",
        "resourceclaim.resource.k8s.io/solo",
    ]
    # a named get prints that one claim, as the listing has it (yaml: the same document)
    assert dractl("claims", "solo", "-o", "json").json() == solo
    assert yaml.safe_load(dractl("claims", "solo", "-o", "yaml").out) == solo


def test_all_namespaces_and_wide(dractl, apply):
    dractl("fake", "reset")
    apply(namespace("team-a"), namespace("team-b"),
          template("one", "team-a"), pod("p1", "team-a", [from_template("one")]), claim("c", "team-b"))
    assert dractl("claims").err.strip().splitlines()[-1] == "No resources found in default namespace."
    r = dractl("claims", "-A")
    assert r.out.splitlines()[0].split()[:2] == ["NAMESPACE", "CLAIM"]
    assert "team-a" in r.out and "team-b" in r.out
    wide = dractl("-n", "team-a", "claims", "-o", "wide").out.splitlines()
    assert wide[0].split()[-2:] == ["POD", "TEMPLATE"]
    assert wide[1].split()[-2:] == ["p1", "one"]
    assert "POD" not in dractl("-n", "team-a", "claims").out
    assert [i["namespace"] for i in dractl("claims", "-A", "-o", "json").json()["items"]] == ["team-a", "team-b"]


def test_shared_capacity_age_unknown_and_node_from_snapshot(dractl):
    r = dractl("--from", SHARED_FIXTURE, "-n", "gpu-allow-multiple-allocations", "claims")
    assert r.code == 0, r.err
    head, row = r.out.splitlines()
    cols = head.split()
    assert cols == ["CLAIM", "STATE", "REQUEST", "DEVICE", "CAPACITY", "CONSUMERS", "NODE", "AGE"]
    cells = dict(zip(cols, [c for c in row.split("   ") if c.strip()], strict=True))
    assert {k: v.strip() for k, v in cells.items()} == {
        "CLAIM": "shared-gpu-pod0",
        "STATE": "reserved",
        "REQUEST": "gpu",
        "DEVICE": "gpu.example.com/dra-example-driver-cluster-worker/gpu-0",
        "CAPACITY": "memory=16Gi compute=20",
        "CONSUMERS": "pod0",
        "NODE": "dra-example-driver-cluster-worker",
        "AGE": "<unknown>",
    }
    doc = dractl("--from", SHARED_FIXTURE, "-A", "claims", "-o", "json").json()
    res = doc["items"][0]["results"][0]
    assert res["shareID"] == "22222222-2222-2222-2222-222222222222"
    assert res["consumedCapacity"] == {"memory": "16Gi", "compute": "20"}


@pytest.mark.parametrize(
    "secs, text",
    [
        (-5, "<invalid>"), (-1, "0s"), (0, "0s"), (119, "119s"), (120, "2m"), (150, "2m30s"), (600, "10m"),
        (3 * 3600, "3h"), (3 * 3600 + 60 * 5, "3h5m"), (9 * 3600, "9h"), (48 * 3600, "2d"), (50 * 3600, "2d2h"),
        (10 * 86400, "10d"), (800 * 86400, "2y70d"), (3000 * 86400, "8y"),
    ],
)
def test_human_duration_is_kubectls(secs, text):
    from dractl.render.claims import human_age, human_duration

    assert human_duration(secs) == text
    now = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    stamp = (now - dt.timedelta(seconds=secs)).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert human_age(stamp, now) == text
    assert human_age("", now) == "<unknown>"


# ---------------------------------------------------------------- --explain


def test_explain_selector(dractl, apply):
    dractl("fake", "reset")
    expr = "device.attributes['gpu.example.com'].model == 'H100'"
    apply(claim("picky", selectors=[expr]), pod("p", claims=[from_claim("picky")]))
    r = dractl("claims", "--explain")
    assert r.code == 0
    text = r.out
    assert "Claim default/picky (pending, for pod p):" in text
    assert "0/1 nodes are available: 1 cannot allocate all claims." in text
    assert "all 8 fail selector #0" in text and "LATEST-GPU-MODEL" in text
    doc = dractl("claims", "picky", "--explain", "-o", "json").json()
    ex = doc["explanation"]
    assert ex["summary"] == ("0/1 nodes are available: 1 cannot allocate all claims. preemption: 0/1 nodes are "
                             "available: 1 Preemption is not helpful for scheduling.")
    assert ex["pod"] == "default/p"
    reasons = ex["detail"]["nodes"][0]["requests"][0]["reasons"]
    assert reasons[0]["kind"] == "selector" and reasons[0]["count"] == 8
    # without --explain there is no explanation key
    assert "explanation" not in dractl("claims", "picky", "-o", "json").json()


def test_explain_already_allocated_and_why_chosen(dractl, apply):
    dractl("fake", "reset", "--devices-per-node", "2")
    apply(claim("first"), pod("p1", claims=[from_claim("first")]),
          claim("second"), pod("p2", claims=[from_claim("second")]))
    apply(claim("third"), pod("p3", claims=[from_claim("third")]))
    text = dractl("claims", "--explain").out
    third = text[text.index("Claim default/third"):]
    # devices held by different claims are one group that names the holders
    assert "all 2 already allocated to 2 claims (default/first, default/second)" in third
    assert "class gpu.example.com matches 2 devices on node dra-demo-worker" in third
    first = text[text.index("Claim default/first") : text.index("Claim default/second")]
    assert "allocated on node dra-demo-worker" in first
    assert "gpu-0, #1 of 2 in the search order" in first and "it is the first device that matches" in first
    second = text[text.index("Claim default/second") : text.index("Claim default/third")]
    assert "gpu-1, #2 of 2" in second and "1 held by default/first" in second
    ex = dractl("claims", "second", "--explain", "-o", "json").json()["explanation"]
    assert ex["summary"].startswith("allocated on node dra-demo-worker")


def test_explain_counts_the_devices_before_a_result_with_its_own_request(dractl, apply):
    # request "one" wants gpu-1 only; "any" takes gpu-0, which comes first in the search order but does not
    # match "one": for "one", gpu-1 is the first device that matches (not "1 taken by this claim's other results")
    dractl("fake", "reset", "--devices-per-node", "2")
    one = request("one", selectors=['device.attributes["gpu.example.com"].index == 1'])
    apply(claim("two", requests=[one, request("any")]), pod("p", claims=[from_claim("two")]))
    doc = dractl("claims", "two", "-o", "json").json()
    assert [(r["request"], r["device"]) for r in doc["results"]] == [("one", "gpu-1"), ("any", "gpu-0")]
    text = dractl("claims", "two", "--explain").out
    line = next(x for x in text.splitlines() if "request one:" in x)
    assert "gpu-1, #2 of 2 in the search order" in line and "it is the first device that matches" in line
    assert "matching device(s) come before it" not in line


def memory_claim(name: str, memory: str) -> dict:
    return claim(name, requests=[request("gpu", capacity_requests={"memory": memory})])


def test_explain_names_the_default_a_claim_did_not_ask_for(dractl, apply):
    # shared GPUs: compute and memory have a requestPolicy default of all of it (100, 80Gi)
    dractl("fake", "reset", "--profile", "example-gpu-shared", "--devices-per-node", "2")
    apply(*(doc for i in (1, 2) for doc in (memory_claim(f"m{i}", "10Gi"), pod(f"p{i}", claims=[from_claim(f"m{i}")]))))
    apply(memory_claim("m3", "10Gi"), pod("p3", claims=[from_claim("m3")]))
    for args in (("claims", "m3", "--explain"), ("pods", "p3", "--explain")):
        text = dractl(*args).out
        # 70Gi of memory is left on each GPU: only compute, which the claim did not ask for, is short
        assert ("all 2 devices: capacity compute: 0 left of 100, needs 100 (the device's requestPolicy default, "
                "as the claim does not ask for compute)") in text, text
        assert "hint: ask for compute in capacity.requests to take less" in text
        assert "all 2 capacity" not in text


def test_explain_lists_every_capacity_that_is_short(dractl, apply, tmp_path):
    dractl("fake", "reset", "--profile", "example-gpu-shared", "--devices-per-node", "2")
    apply(*(doc for i in (1, 2) for doc in (memory_claim(f"m{i}", "70Gi"), pod(f"p{i}", claims=[from_claim(f"m{i}")]))))
    f = write_docs(tmp_path / "third.yaml", memory_claim("m3", "70Gi"), pod("p3", claims=[from_claim("m3")]))
    r = dractl("check", "-f", f)
    assert r.code == 1
    assert ("all 2 devices: capacity memory: 10Gi left of 80Gi, needs 70Gi, and compute: 0 left of 100, needs 100 "
            "(the device's requestPolicy default, as the claim does not ask for compute)") in r.out + r.err


def test_explain_class_not_found(dractl, apply):
    dractl("fake", "reset")
    apply(claim("typo", cls="gpu.exmaple.com"), pod("p", claims=[from_claim("typo")]))
    text = dractl("claims", "--explain").out
    assert 'deviceclass.resource.k8s.io "gpu.exmaple.com" not found' in text
    ex = dractl("claims", "typo", "--explain", "-o", "json").json()["explanation"]
    assert ex["summary"].startswith("scheduler error:")


def test_explain_claim_without_pod(dractl, apply):
    dractl("fake", "reset")
    apply(claim("lonely"))
    text = dractl("claims", "lonely", "--explain").out
    assert "no pod uses this claim yet" in text and "could allocate it now" in text
    assert "the scheduler has not retried yet (in the fake cluster, any 'dractl fake apply' reschedules)" in text
    ex = dractl("claims", "lonely", "--explain", "-o", "json").json()["explanation"]
    assert ex["summary"].endswith("'dractl fake apply' reschedules)") and ex["lines"][-1] == ex["summary"]


def test_explain_pod_with_missing_template(dractl, apply):
    dractl("fake", "reset")
    apply(pod("orphan", claims=[from_template("nope")]), template("ok"), pod("fine", claims=[from_template("ok")]))
    r = dractl("claims", "--explain")
    assert r.code == 0
    assert "Pod default/orphan (pending, claims not created):" in r.out
    assert 'resourceclaimtemplate.resource.k8s.io "nope" not found' in r.out
    doc = dractl("claims", "--explain", "-o", "json").json()
    assert [p["pod"] for p in doc["pendingPods"]] == ["default/orphan"]
    # without --explain, no pendingPods: the ClaimList alone
    assert list(dractl("claims", "-o", "json").json()) == ["apiVersion", "kind", "items"]


def test_explain_pod_explained_from_template_when_claim_not_created(dractl, tmp_path):
    """A snapshot where the claim controller has not run yet: the pod is explained from its template."""
    snap = tmp_path / "snap.yaml"
    snap.write_text(
        "---\n".join(
            [
                open(fixture_path("dra-example-driver", "derived", "deviceclass-gpu.example.com.rendered.yaml")).read(),
                open(fixture_path("dra-example-driver", "derived", "resourceslice-gpu-default.yaml")).read(),
                docs_to_yaml(template("later"), pod("waiting", claims=[from_template("later")])),
            ]
        )
    )
    r = dractl("--from", str(snap), "claims", "--explain")
    assert r.code == 0, r.err
    assert "Pod default/waiting (pending, claims not created):" in r.out
    assert "explained from template later" in r.out


def test_objects_without_a_namespace_in_a_snapshot_are_in_default(dractl, tmp_path):
    # as the API server stores them (kubectl reads a manifest without -n so): the pod finds its claim there
    snap = write_docs(tmp_path / "snap.yaml", claim("solo", ns=None), pod("user", None, [from_claim("solo")]))
    claims = dractl("--from", snap, "claims", "-A", "-o", "json").json()["items"]
    assert [(c["namespace"], c["name"]) for c in claims] == [("default", "solo")]
    assert dractl("--from", snap, "claims", "-A").out.splitlines()[1].split()[:2] == ["default", "solo"]
    pods = dractl("--from", snap, "pods", "-A", "-o", "json").json()["items"]
    assert pods[0]["namespace"] == "default"
    assert [(c["resourceClaimName"], c["state"]) for c in pods[0]["claims"]] == [("solo", "pending")]
