"""DRA extended resources (KEP-5004) against the real kube-scheduler v1.37.2: the special claim dractl predicts
for the scheduler's node is the claim the scheduler creates (requests, devices, the pod's mappings), and a pod
that fits nowhere gets the scheduler's words.

The state before each pod is taken with `dractl snapshot`, and dractl answers from that snapshot.
"""

from __future__ import annotations

import json
from typing import Any

from builders import device_class, namespace, pod, write_docs

NS = "extended-real"
CLASS = "gpu-ext"
GPU = "example.com/gpu"
IMPLICIT = f"deviceclass.resource.kubernetes.io/{CLASS}"


def _pod(name: str, main: dict[str, str], init: dict[str, str] | None = None) -> dict[str, Any]:
    p = pod(name, NS)
    p["spec"]["containers"][0]["resources"] = {"limits": dict(main)}
    if init:
        p["spec"]["initContainers"] = [{"name": "init", "image": "busybox", "resources": {"limits": dict(init)}}]
    return p


def _decision(api: Any, name: str) -> dict[str, Any]:
    def decided() -> dict[str, Any] | None:
        p = api.get("Pod", name, NS)
        if p["spec"].get("nodeName"):
            return p
        conds = {c["type"]: c for c in p["status"].get("conditions", [])}
        return p if conds.get("PodScheduled", {}).get("reason") == "Unschedulable" else None

    return api.wait(f"the scheduler's decision on {name}", decided, timeout=60)


def test_the_special_claim_is_the_schedulers(control_plane, dractl_proc, tmp_path):
    api = control_plane.api
    cls = device_class(CLASS, 'device.driver == "gpu.example.com"', extendedResourceName=GPU)
    api.create(cls)
    api.create(namespace(NS))
    try:
        steps = [
            _pod("explicit", {GPU: "2", "cpu": "100m"}),
            _pod("implicit-and-init", {IMPLICIT: "1"}, init={GPU: "1"}),
            _pod("too-many", {GPU: "9"}),
        ]
        env = control_plane.env()
        for i, doc in enumerate(steps):
            name = doc["metadata"]["name"]
            snap = tmp_path / f"{i}-before.yaml"
            r = dractl_proc("snapshot", env=env)
            assert r.code == 0, r.err
            snap.write_text(r.out)
            f = write_docs(tmp_path / f"{i}-{name}.yaml", doc)
            api.create(doc)
            real = _decision(api, name)
            node = real["spec"].get("nodeName")
            args = ["--from", str(snap), "-n", NS, "check", "-f", f, "-o", "json"] + (["--node", node] if node else [])
            r = dractl_proc(*args)
            assert r.out, r.err
            report = json.loads(r.out)["pods"][0]
            if node is None:
                said = real["status"]["conditions"][0]["message"]  # DefaultPreemption's tail included
                assert report["outcome"] == "unschedulable"
                assert report["message"] == said
                continue
            assert report["outcome"] == "scheduled", report
            status = real["status"]["extendedResourceClaimStatus"]
            claim = api.get("ResourceClaim", status["resourceClaimName"], NS)
            assert claim["metadata"]["name"].startswith(f"{name}-extended-resources-")
            assert claim["metadata"]["ownerReferences"][0]["name"] == name
            assert claim["metadata"]["annotations"]["resource.kubernetes.io/extended-resource-claim"] == "true"
            (mine,) = [c for c in report["claims"] if c["name"] == f"{name}-extended-resources"]
            got = sorted((r["request"], r["pool"], r["device"])
                         for r in claim["status"]["allocation"]["devices"]["results"])
            want = sorted((r["request"], r["pool"], r["device"]) for r in mine["allocation"]["devices"]["results"])
            assert want == got, name
            assert [r["name"] for r in claim["spec"]["devices"]["requests"]] == sorted({x[0] for x in got})
            # the mappings dractl records in the fake cluster are the scheduler's
            state = tmp_path / f"state-{i}"
            dractl_proc("fake", "load", str(snap), env={"DRACTL_STATE": str(state)})
            r = dractl_proc("fake", "apply", "-f", f, env={"DRACTL_STATE": str(state)})
            assert r.code == 0, r.err
            fake = json.loads((state / "cluster.json").read_text())
            (fake_pod,) = [o for o in fake["items"] if o["kind"] == "Pod" and o["metadata"]["name"] == name]
            mappings = fake_pod["status"]["extendedResourceClaimStatus"]["requestMappings"]
            assert sorted(map(json.dumps, mappings)) == sorted(map(json.dumps, status["requestMappings"]))
    finally:
        api.delete("Namespace", NS)
        api.delete("DeviceClass", CLASS)
