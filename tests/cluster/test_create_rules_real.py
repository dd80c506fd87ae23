"""Rules the apiserver applies only when an object is created, judged by the real v1.37.2 apiserver.

Each object is sent with dryRun=All and given to dractl's `check -f`: the same answer, a refusal in the same words.
The same object in a snapshot is judged as the cluster holds it: a stored pod gets its ephemeral containers
through a subresource; a claim's status is dropped on create, so only its types are judged then.
"""

from __future__ import annotations

import pytest
from builders import claim, pod, write_docs

NS = "default"


def _ephemeral() -> dict:
    p = pod("cr-eph", NS)
    p["spec"]["ephemeralContainers"] = [{"name": "debug", "image": "busybox"}]
    return p


def _gated_on_a_node() -> dict:
    p = pod("cr-gated", NS)
    p["spec"]["nodeName"] = "dra-demo-worker"
    p["spec"]["schedulingGates"] = [{"name": "example.com/wait"}]
    return p


@pytest.mark.parametrize("make", [_ephemeral, _gated_on_a_node])
def test_a_create_only_rule_refuses_as_the_real_apiserver(control_plane, dractl_proc, tmp_path, make):
    doc = make()
    api = control_plane.api
    code, out = api.call("POST", api.path("Pod", NS) + "?dryRun=All", doc)
    assert code == 422, (code, out)
    (cause,) = out["details"]["causes"]
    real = f"{cause['field']}: {cause['message']}"
    f = write_docs(tmp_path / "pod.yaml", doc)
    r = dractl_proc("--fake", "check", "-f", f, env={"DRACTL_STATE": str(tmp_path / "state")})
    assert (r.code, r.out, r.err) == (2, "", f"error: {f}: Pod {NS}/{doc['metadata']['name']}: {real}\n"), r
    snap = write_docs(tmp_path / "snap.yaml", doc)
    assert dractl_proc("--from", snap, "pods").code == 0


STATUSES = {
    "a consumer without uid": {"reservedFor": [{"resource": "pods", "name": "p"}]},
    "a result for no request": {"allocation": {"devices": {"results": [
        {"request": "nope", "driver": "gpu.example.com", "pool": "w", "device": "gpu-0"}]}}},
    "a device status for no allocated device": {"devices": [
        {"driver": "gpu.example.com", "pool": "w", "device": "gpu-9"}]},
}


@pytest.mark.parametrize("status", list(STATUSES))
def test_a_claims_status_is_dropped_before_validation_as_the_real_apiserver_drops_it(
        control_plane, dractl_proc, tmp_path, status):
    doc = claim("cr-status", NS)
    doc["status"] = STATUSES[status]
    api = control_plane.api
    code, out = api.call("POST", api.path("ResourceClaim", NS) + "?dryRun=All", doc)
    assert code == 201, (code, out)
    assert not out.get("status"), out
    f = write_docs(tmp_path / "claim.yaml", doc)
    r = dractl_proc("--fake", "check", "-f", f, env={"DRACTL_STATE": str(tmp_path / "state")})
    assert (r.code, r.err) == (0, ""), r
    # read as a cluster's claim, the status is what the cluster holds: judged
    r = dractl_proc("--from", f, "claims")
    assert r.code == 2 and r.err.startswith(f"error: {f}: ResourceClaim {NS}/cr-status: status."), r


def test_a_claims_status_of_a_wrong_type_is_refused_as_the_real_apiserver_refuses_it(
        control_plane, dractl_proc, tmp_path):
    doc = claim("cr-status", NS)
    doc["status"] = {"reservedFor": "everyone"}
    api = control_plane.api
    code, out = api.call("POST", api.path("ResourceClaim", NS) + "?dryRun=All", doc)
    assert code == 400 and "status.reservedFor" in out["message"], (code, out)
    f = write_docs(tmp_path / "claim.yaml", doc)
    r = dractl_proc("--fake", "check", "-f", f, env={"DRACTL_STATE": str(tmp_path / "state")})
    assert (r.code, r.out) == (2, ""), r
    assert r.err.startswith(f"error: {f}: ResourceClaim {NS}/cr-status: status.reservedFor: "), r
