"""`dractl taint` against the real v1.37.2 control plane: the preview names the pods that the real
device-taint eviction controller (in kube-controller-manager) then evicts, and the kubelet's health as a test
writes it into pod status shows in `devices`."""

from __future__ import annotations

import re

import pytest
import yaml
from conftest import FIXTURES

DEMO = FIXTURES / "dra-example-driver" / "demo-examples" / (
    "device-taints-tolerations__device-taint-configurable-pod-eviction-time__1-basic-resourceclaimtemplate.yaml"
)
NS = "live-taints"
TAINT = "gpu.example.com/unhealthy=true:NoExecute"


@pytest.fixture
def live(control_plane, monkeypatch):
    monkeypatch.setenv("KUBECONFIG", str(control_plane.kubeconfig))
    return control_plane


@pytest.fixture(scope="module")
def running(control_plane):
    """The eviction-time demo's three pods (no toleration, forever, 300s) Running in their own namespace."""
    api = control_plane.api
    api.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}})
    docs = [d for d in yaml.safe_load_all(DEMO.read_text()) if d and d["kind"] != "Namespace"]
    for d in docs:
        d["metadata"]["namespace"] = NS
    api.apply(docs)

    def devices():
        pods = api.get("Pod", namespace=NS)["items"]
        if len([p for p in pods if p["status"].get("phase") == "Running"]) != 3:
            return None
        out = {}
        for c in api.get("ResourceClaim", namespace=NS)["items"]:
            res = c["status"]["allocation"]["devices"]["results"][0]
            out[c["status"]["reservedFor"][0]["name"]] = (res["driver"], res["pool"], res["device"])
        return out if len(out) == 3 else None

    held = api.wait("the three demo pods Running with their claims", devices, timeout=90)
    yield held
    for rule in api.get("DeviceTaintRule")["items"]:
        if rule["metadata"].get("labels", {}).get("app.kubernetes.io/managed-by") == "dractl":
            api.delete("DeviceTaintRule", rule["metadata"]["name"])
    api.delete("Namespace", NS)


def _taint(dractl, dev, name, *extra):
    driver, pool, device = dev
    return dractl("taint", TAINT, "--driver", driver, "--pool", pool, "--device", device, "--name", name, *extra)


def test_preview_matches_the_real_eviction_controller(live, running, dractl, tmp_path):
    api = live.api
    doomed, kept = running["pod-no-toleration"], running["pod-with-toleration"]
    r = _taint(dractl, doomed, "live-doomed", "--dry-run", "-o", "json")
    assert r.code == 0, r.err
    assert r.json()["evicted"] == [f"{NS}/pod-no-toleration"]
    r = _taint(dractl, kept, "live-kept", "--dry-run", "-o", "json")
    assert r.json()["evicted"] == []  # a NoExecute toleration without tolerationSeconds: tolerated forever
    assert [p["metadata"]["name"] for p in api.get("Pod", namespace=NS)["items"]] != []  # dry run wrote nothing
    assert api.get("DeviceTaintRule")["items"] == [] or all(
        not x["metadata"]["name"].startswith("live-") for x in api.get("DeviceTaintRule")["items"])

    for dev, name in ((doomed, "live-doomed"), (kept, "live-kept")):
        r = _taint(dractl, dev, name, "--yes")
        assert r.code == 0, r.err
        assert f"devicetaintrule.resource.k8s.io/{name} created" in r.out

    def gone():
        names = {p["metadata"]["name"] for p in api.get("Pod", namespace=NS)["items"]
                 if not p["metadata"].get("deletionTimestamp")}
        return names if "pod-no-toleration" not in names else None

    api.wait("the real controller to evict pod-no-toleration", gone, timeout=60)
    listed = {i["metadata"]["name"]: i for i in dractl("taints", "-o", "json").json()["items"]}
    assert "matchingDevices" not in (listed["live-doomed"].get("status") or {})  # as the API server has it

    # The real controller's EvictionInProgress condition (it settles within its 10 s status period) is the
    # one the fake cluster's controller writes after the same steps, and `taints` shows it.
    def conditions(doc) -> dict | None:
        out = {}
        for rule in doc["items"]:
            conds = [c for c in (rule.get("status") or {}).get("conditions") or []
                     if c["type"] == "EvictionInProgress"]
            if rule["metadata"]["name"] in ("live-doomed", "live-kept") and conds:
                out[rule["metadata"]["name"]] = (conds[0]["status"], conds[0]["reason"], conds[0]["message"])
        return out

    want = {"live-doomed": ("False", "Completed", "1 pod evicted since starting the controller."),
            "live-kept": ("False", "NotStarted", "")}
    api.wait("the real controller's EvictionInProgress conditions",
             lambda: conditions(api.get("DeviceTaintRule")) == want or None, timeout=60)
    # Once both rules say their eviction is complete or never started, the controller evicts no more.
    left = {p["metadata"]["name"] for p in api.get("Pod", namespace=NS)["items"]
            if not p["metadata"].get("deletionTimestamp")}
    assert left == {"pod-with-toleration", "pod-with-300s-toleration"}
    assert conditions(dractl("taints", "-o", "json").json()) == want
    rows = {line.split()[0]: line.split() for line in dractl("taints").out.splitlines()[1:]}
    assert "Completed" in rows["live-doomed"] and "NotStarted" in rows["live-kept"]
    fake = ("--fake", "--state-dir", str(tmp_path / "fake"))
    assert dractl(*fake, "fake", "reset").code == 0
    assert dractl(*fake, "fake", "apply", "-f", str(DEMO)).code == 0
    pods = {p["name"]: p["claims"][0]["results"][0] for p in dractl(*fake, "-A", "pods", "-o", "json").json()["items"]}
    for pod, name in (("pod-no-toleration", "live-doomed"), ("pod-with-toleration", "live-kept")):
        res = pods[pod]
        dev = (res["driver"], res["pool"], res["device"])
        assert _taint(lambda *a: dractl(*fake, *a), dev, name, "--yes").code == 0
    assert conditions(dractl(*fake, "taints", "-o", "json").json()) == want
    (row,) = [line for line in dractl("taints").out.splitlines() if line.startswith("live-doomed ")]
    assert re.search(rf"\s1\s+{re.escape(doomed[1])}/{re.escape(doomed[2])}\s", row + " ")  # DEVICES, MATCHES
    r = dractl("taint", "--remove", "live-doomed", "--yes")
    assert r.code == 0 and "devicetaintrule.resource.k8s.io \"live-doomed\" deleted" in r.out
    assert dractl("taint", "--remove", "live-kept", "--yes").code == 0
    assert not any(x["metadata"]["name"].startswith("live-") for x in api.get("DeviceTaintRule")["items"])


def test_kubelet_health_written_to_pod_status_shows_in_devices(live, running, dractl):
    api = live.api
    dev = running["pod-with-toleration"]
    pod = api.get("Pod", "pod-with-toleration", namespace=NS)
    claim_ref = pod["spec"]["containers"][0]["resources"]["claims"][0]["name"]
    status = {"containerStatuses": [{
        "name": pod["spec"]["containers"][0]["name"], "ready": True, "restartCount": 0, "image": "ubuntu:22.04",
        "imageID": "", "state": {"running": {"startedAt": "2026-01-01T00:00:00Z"}},
        # as the v1.37.2 kubelet writes it for a driver that returned no CDI IDs
        "allocatedResourcesStatus": [{"name": f"claim:{claim_ref}",
                                      "resources": [{"resourceID": "/".join(dev), "health": "Unhealthy"}]}],
    }]}
    api.ok("PATCH", api.path("Pod", NS, "pod-with-toleration") + "/status", {"status": status},
           content_type="application/merge-patch+json")
    got = api.get("Pod", "pod-with-toleration", namespace=NS)["status"]["containerStatuses"][0]
    assert got["allocatedResourcesStatus"][0]["resources"][0]["health"] == "Unhealthy"  # the apiserver kept it
    r = dractl("devices", "--unhealthy", "-o", "json")
    assert r.code == 0, r.err
    assert [(d["driver"], d["pool"], d["device"]) for d in r.json()["items"]] == [dev]


def test_preview_names_pending_pods_that_lose_candidates(live, running, dractl):
    api = live.api
    api.apply([
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "too-many", "namespace": NS},
         "spec": {"devices": {"requests": [{"name": "gpus", "exactly": {"deviceClassName": "gpu.example.com",
                                                                        "count": 32}}]}}},
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "waits", "namespace": NS},
         "spec": {"containers": [{"name": "c", "image": "x", "resources": {"claims": [{"name": "gpus"}]}}],
                  "resourceClaims": [{"name": "gpus", "resourceClaimName": "too-many"}]}},
    ])
    api.wait("the scheduler to leave waits pending", lambda: api.get(
        "Event", namespace=NS, fieldSelector="involvedObject.name=waits,reason=FailedScheduling")["items"], timeout=60)
    driver, pool, device = running["pod-with-toleration"]
    r = dractl("taint", "example.com/drain:NoSchedule", "--driver", driver, "--pool", pool, "--device", device,
               "--dry-run", "-o", "json")
    assert r.code == 0, r.err
    assert r.json()["unschedulable"] == [f"{NS}/waits"] and r.json()["evicted"] == []
