"""The test control plane itself: a real kube-apiserver, scheduler and controller-manager v1.37.2 with KWOK
nodes, started by tests/cluster/control-plane. These tests check that what the live tests stand on behaves as
a kind cluster with the dra-example-driver does.
"""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

from conftest import CLUSTER, blog_demo_docs, start_control_plane, stop_control_plane
from watchproc import wait_until


def test_serves_kubernetes_v1_37_with_dra_v1(control_plane):
    api = control_plane.api
    assert api.ok("GET", "/version")["gitVersion"] == "v1.37.2"
    versions = [v["version"] for g in api.ok("GET", "/apis")["groups"] if g["name"] == "resource.k8s.io"
                for v in g["versions"]]
    assert "v1" in versions
    nodes = api.get("Node")["items"]
    assert sorted(n["metadata"]["name"] for n in nodes) == ["dra-demo-worker", "dra-demo-worker2"]
    for n in nodes:
        conds = {c["type"]: c["status"] for c in n["status"]["conditions"]}
        assert conds["Ready"] == "True"
        assert not n["spec"].get("taints")
    slices = api.get("ResourceSlice")["items"]
    assert sorted(len(s["spec"]["devices"]) for s in slices) == [8, 8]


def test_real_scheduler_runs_the_blog_demos(control_plane):
    """Claims come from the real resourceclaim controller, allocation from the real scheduler, Running from
    KWOK; huge-gpu stays Pending with the scheduler's own words."""
    api = control_plane.api
    ns = "harness-demos"
    api.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
    api.apply(blog_demo_docs(), namespace=ns)

    def settled():
        pods = {p["metadata"]["name"]: p for p in api.get("Pod", namespace=ns)["items"]}
        running = [n for n, p in pods.items() if p["status"].get("phase") == "Running"]
        return pods if len(running) == 5 else None

    pods = api.wait("five demo pods Running", settled, timeout=60)
    assert pods["huge-gpu"]["status"]["phase"] == "Pending"
    claims = {c["metadata"]["name"]: c for c in api.get("ResourceClaim", namespace=ns)["items"]}
    # claims generated from templates: <pod>-<claim>-<5 random>, owned by the pod
    generated = {n: c for n, c in claims.items() if n != "shared-gpu"}
    assert sorted(n.rsplit("-", 1)[0] for n in generated) == [
        "big-gpu-gpu", "huge-gpu-gpu", "pod-a-gpu", "pod-b-gpu"]
    for c in generated.values():
        assert c["metadata"]["ownerReferences"][0]["kind"] == "Pod"
    shared = claims["shared-gpu"]
    assert sorted(r["name"] for r in shared["status"]["reservedFor"]) == ["shared-1", "shared-2"]
    a, b = (claims[pods[p]["status"]["resourceClaimStatuses"][0]["resourceClaimName"]] for p in ("pod-a", "pod-b"))
    dev = lambda c: c["status"]["allocation"]["devices"]["results"][0]  # noqa: E731
    assert (dev(a)["pool"], dev(a)["device"]) != (dev(b)["pool"], dev(b)["device"])

    def huge_event():
        evs = api.get("Event", namespace=ns, fieldSelector="involvedObject.name=huge-gpu,reason=FailedScheduling")
        return evs["items"]

    ev = api.wait("huge-gpu's FailedScheduling event", huge_event, timeout=30)
    assert ev[-1]["message"] == (
        "0/2 nodes are available: 2 cannot allocate all claims. preemption: 0/2 nodes are available: "
        "2 Preemption is not helpful for scheduling.")
    api.delete("Namespace", ns)


def _port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def _running(pid: int) -> bool:
    """Whether ``pid`` runs (not gone, not a zombie); reaped between two looks is gone too."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][:1] != "Z"
    except (OSError, IndexError):
        return False


def test_down_stops_exactly_what_up_started(tmp_path):
    d = tmp_path / "cp"
    cp = start_control_plane(d, "--nodes", "1")
    pids = [int(line.split()[1]) for line in (d / "pids").read_text().splitlines()]
    assert len(pids) == 5
    port = int(cp.server.rsplit(":", 1)[1])
    assert _port_open(port)
    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        stop_control_plane(d)
        # down waits for each process to end (or kills it after a grace period): gone, or a zombie until reaped
        wait_until("every process up started to end", lambda: not any(_running(pid) for pid in pids), timeout=10)
        assert not _port_open(port)
        assert bystander.poll() is None
        assert not (d / "pids").exists()
        # down again is harmless
        p = subprocess.run([sys.executable, str(CLUSTER / "control-plane"), "down", str(d)], capture_output=True,
                           text=True)
        assert p.returncode == 0 and "nothing running" in p.stderr
    finally:
        bystander.kill()


def test_down_leaves_a_process_that_took_a_gone_ones_pid(tmp_path):
    """Pids are reused: down stops a pid (and its process group) only while it still runs what up started."""
    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)
    d = tmp_path / "cp"
    d.mkdir()
    (d / "pids").write_text(f"etcd {bystander.pid}\n")
    try:
        p = subprocess.run([sys.executable, str(CLUSTER / "control-plane"), "down", str(d)], capture_output=True,
                           text=True)
        assert p.returncode == 0, p.stderr
        assert bystander.poll() is None
        assert not (d / "pids").exists()
    finally:
        bystander.kill()
