"""Every example and drivers' demo on the real control plane (tests/cluster: kube-apiserver, kube-scheduler,
kube-controller-manager v1.37.2, KWOK nodes), with the devices each needs published by `dractl fake publish`.

One control plane for all of them; each profile's demos run in one `demo run --context`, which polls for each
step's state and deletes each example's objects after its checks."""

from __future__ import annotations

import itertools
import json

from dractl.control import profiles
from dractl.demo.catalog import run_order, select


def test_every_demo_runs_on_the_real_control_plane(bare_control_plane, dractl, monkeypatch):
    cp = bare_control_plane
    monkeypatch.setenv("KUBECONFIG", str(cp.kubeconfig))
    ctx = json.loads(cp.kubeconfig.read_text())["current-context"]
    # without the devices it needs a demo says what to install (nothing is applied)
    r = dractl("--context", ctx, "demo", "run", "gpu-allow-multiple-allocations")
    assert r.code == 1
    assert (f"cannot run: cluster {ctx}: no DeviceClass gpu.example.com; no shared gpu.example.com devices (profile "
            "example-gpu-shared); install the dra-example-driver with --set gpuAllowMultipleAllocations=true (or "
            "publish fake devices: dractl fake reset --profile example-gpu-shared && dractl fake publish)") in r.out
    demos = run_order(select("examples") + select("drivers"))
    seen: dict[str, dict] = {}
    try:
        for profile, group in itertools.groupby(demos, key=lambda d: d.profile):
            ids = [d.id for d in group]
            gpus = 2 if "partitions" in profile else 8
            assert dractl("fake", "reset", "--profile", profile, "--devices-per-node", str(gpus)).code == 0
            # one node: the demos that share a device find both pods on it
            assert dractl("fake", "publish", "--nodes", cp.nodes[0], "--yes").code == 0
            r = dractl("--context", ctx, "demo", "run", ",".join(ids), "-o", "json", "--timeout", "60s")
            seen.update({d["id"]: d for d in r.json()["demos"]})
            assert dractl("fake", "unpublish", "--yes").code == 0
    finally:
        dractl("--context", ctx, "demo", "cleanup")
        dractl("fake", "unpublish", "--yes")
    failed = {k: [c["check"] for c in d["checks"] if not c["passed"]] + [p["reason"] for p in d["pods"]
                                                                        if p["reason"] and "cannot" not in p["reason"]]
              for k, d in seen.items() if not d["passed"]}
    assert failed == {}
    assert list(seen) == [d.id for d in demos]

    def checks(demo: str) -> list[str]:
        return [c["check"] for c in seen[demo]["checks"]]

    # what the real components did, as each example's README says
    assert "after binding-conditions.yaml: pod0 held (claim reserved, pod not bound)" in checks("binding-conditions")
    # pod-with-300s-toleration is still to go (the evicted one may still count while it terminates)
    assert any(c.startswith("the eviction controller: PodsPendingEviction: ") and " to be evicted in 1 namespace" in c
               for c in checks("device-taint-configurable-pod-eviction-time"))
    evicted = seen["device-taint-pod-noexecute"]["pods"][0]
    assert evicted["name"] == "pod-to-be-evicted" and evicted["phase"] in ("-", "Running (terminating)")
    assert seen["device-taint-pod-noexecute"]["pods"][1]["reason"].startswith(
        f"0/{len(cp.nodes)} nodes are available: ")
    shared = checks("gpu-allow-multiple-allocations")[0]
    assert shared.endswith("shared: pod0 memory=16Gi compute=20; pod1 memory=16Gi compute=20")
    pods = {p["name"]: p for p in seen["extended-resource-request"]["pods"]}
    assert all(len(p["devices"]) == 1 for p in pods.values()) and pods["pod0"]["devices"] != pods["pod1"]["devices"]
    assert any("on one PCIe root (pci0000:" in c for c in checks("gpu-nic-pcie-alignment"))
    assert any("can no longer be allocated whole" in c for c in checks("mig-by-profile"))
    # everything the demos created goes
    spaces = {d.namespace for d in demos}
    cp.api.wait("the demos' namespaces gone", lambda: not [
        n for n in cp.api.get("Namespace")["items"] if n["metadata"]["name"] in spaces], timeout=120)
    assert cp.api.get("ResourceSlice")["items"] == [] and cp.api.get("DeviceTaintRule")["items"] == []
    assert {p.name for p in profiles.all_profiles()} >= {d.profile for d in demos}
