"""Rules the apiserver applies only when a pod is created, judged by the real v1.37.2 apiserver.

Each pod is sent with dryRun=All and given to dractl's `check -f`: the same refusal in the same words. The same
pod in a snapshot is read: a stored pod gets its ephemeral containers through a subresource.
"""

from __future__ import annotations

import pytest
from builders import pod, write_docs

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
