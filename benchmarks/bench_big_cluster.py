"""A big cluster as a snapshot: 5,000 nodes x 8 MIG-capable GPUs published as partitionable devices.

    python benchmarks/bench_big_cluster.py [--nodes 5000] [--gpus 8] [--pods 20000] [--runs 3] [--keep DIR]

Each node publishes what NVIDIA's DRA driver publishes with dynamic MIG: one pool per node, a slice of shared
counter sets (one per GPU: memory, multiprocessors, memory-slice-0..7) and a slice of 64 devices (each GPU
whole, and its MIG placements) consuming them. Beside them, network-attached devices: one slice per rack
with a ``nodeSelector`` on the rack label, and one ``allNodes`` pool. 20,000 pods (four per node, each
holding one GPU or one MIG placement through a claim made from a template, and requesting cpu and memory) are
bound and running; one more pod is pending (it asks for eight whole GPUs on one node). Every object has the uid
and creationTimestamp the apiserver gives it, every node its allocatable, as in a snapshot of a real cluster.
Then each command runs as its own process on that snapshot: its wall time, CPU time and peak RSS, median of
``--runs``. ``--keep`` a snapshot written by an older version of this file: delete it to have it written anew.
Each run of a command is a first read of the snapshot (an empty cache: everything is validated); the row
"later read" is ``devices --node N`` once the first read has cached the snapshot's index; ``--later`` times
every command's later read too.

Goals (issue 18): each command <= 10 s and <= 2 GiB peak RSS; ``devices --node N`` <= 1 s (a later read).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nvidia_local as nvidia  # noqa: E402  (the shared dractl.control NVIDIA profile once it lands)
from forks import wait_for_forks  # noqa: E402

FABRIC = "fabric.example.com"
STORAGE = "storage.example.com"
RACK_LABEL = "topology.example.com/rack"
NODES_PER_RACK = 100
NAMESPACES = 20

# Per node: four pods (what each holds; the placements do not overlap on any memory slice).
HOLDINGS = ("gpu-0", "gpu-1", "gpu-2-mig-3g40gb-4", "gpu-3-mig-3g40gb-4")


def node_name(i: int) -> str:
    return f"gpu-node-{i:05d}"


def _node(name: str, rack: str) -> dict[str, Any]:
    # What a real node reports (the scheduler's NodeResourcesFit reads its allocatable; a node without one
    # fits no pod: "Too many pods").
    resources = {"cpu": "128", "memory": "1056Gi", "pods": "110", "ephemeral-storage": "3500Gi"}
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "uid": f"uid-{name}",
                         "labels": {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
                                    "nvidia.com/gpu.present": "true", RACK_LABEL: rack}},
            "status": {"capacity": resources, "allocatable": resources}}


def _network_slices(nodes: int) -> list[dict[str, Any]]:
    """A fabric pool per rack (nodeSelector on the rack label), a storage pool on every node (allNodes)."""
    out = []
    for r in range((nodes + NODES_PER_RACK - 1) // NODES_PER_RACK):
        rack = f"rack-{r:03d}"
        out.append({
            "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
            "metadata": {"name": f"{FABRIC}-{rack}"},
            "spec": {"driver": FABRIC, "pool": {"name": rack, "generation": 1, "resourceSliceCount": 1},
                     "nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [
                         {"key": RACK_LABEL, "operator": "In", "values": [rack]}]}]},
                     "devices": [{"name": f"nic-{j}", "attributes": {
                         "rdma": {"bool": True}, "linkSpeed": {"string": "400G"}, "rack": {"string": rack}},
                                  "capacity": {"bandwidth": {"value": "400G"}}} for j in range(16)]}})
    out.append({
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
        "metadata": {"name": f"{STORAGE}-shared"},
        "spec": {"driver": STORAGE, "pool": {"name": "shared", "generation": 1, "resourceSliceCount": 1},
                 "allNodes": True,
                 "devices": [{"name": f"vol-{j}", "attributes": {"tier": {"string": "nvme"}},
                              "capacity": {"size": {"value": "10Ti"}}} for j in range(32)]}})
    return out


def _classes() -> list[dict[str, Any]]:
    def dc(name: str, expr: str) -> dict[str, Any]:
        return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name},
                "spec": {"selectors": [{"cel": {"expression": expr}}]}}

    return [dc(n, e) for n, e in nvidia.device_class_selectors().items()] + [
        dc(FABRIC, f"device.driver == '{FABRIC}'"), dc(STORAGE, f"device.driver == '{STORAGE}'")]


def _template(ns: str, name: str, cls: str, selector: str | None = None, count: int = 1) -> dict[str, Any]:
    exactly: dict[str, Any] = {"deviceClassName": cls}
    if count != 1:
        exactly["count"] = count
    if selector:
        exactly["selectors"] = [{"cel": {"expression": selector}}]
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
            "metadata": {"name": name, "namespace": ns},
            "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "exactly": exactly}]}}}}


def _pod(ns: str, name: str, template: str, node: str | None) -> dict[str, Any]:
    pod: dict[str, Any] = {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": ns, "uid": f"uid-{ns}-{name}"},
        "spec": {"containers": [{"name": "main", "image": "cuda:12",
                                 "resources": {"requests": {"cpu": "8", "memory": "64Gi"},
                                               "claims": [{"name": "gpu"}]}}],
                 "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": template}]},
        "status": {"phase": "Pending", "resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": f"{name}-gpu"}],
                   "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                                   "message": "0/5000 nodes are available: 5000 cannot allocate all claims."}]}}
    if node:
        pod["spec"]["nodeName"] = node
        pod["status"] = {"phase": "Running", "resourceClaimStatuses": pod["status"]["resourceClaimStatuses"]}
    return pod


def _claim(ns: str, pod: str, spec: dict[str, Any], node: str | None, device: str | None) -> dict[str, Any]:
    claim: dict[str, Any] = {
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
        "metadata": {"name": f"{pod}-gpu", "namespace": ns, "uid": f"uid-{ns}-{pod}-gpu",
                     "annotations": {"resource.kubernetes.io/pod-claim-name": "gpu"},
                     "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": pod,
                                          "uid": f"uid-{ns}-{pod}", "controller": True,
                                          "blockOwnerDeletion": True}]},
        "spec": spec}
    if node and device:
        claim["status"] = {
            "allocation": {"devices": {"results": [
                {"request": "gpu", "driver": nvidia.DRIVER, "pool": node, "device": device}]},
                "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                    {"key": "metadata.name", "operator": "In", "values": [node]}]}]}},
            "reservedFor": [{"resource": "pods", "name": pod, "uid": f"uid-{ns}-{pod}"}]}
    return claim


CREATED = "2026-11-30T12:00:00Z"


def build(nodes: int, gpus: int, pods: int) -> Iterator[dict[str, Any]]:
    """Every object of the big cluster, one at a time, each with the uid and creationTimestamp the apiserver
    gives every object (as a snapshot of a real cluster has them)."""
    for o in _objects(nodes, gpus, pods):
        md = o["metadata"] = dict(o["metadata"])
        where = "/".join((o["kind"], md.get("namespace", ""), md["name"]))
        md.setdefault("uid", str(uuid.uuid5(uuid.NAMESPACE_URL, where)))
        md.setdefault("creationTimestamp", CREATED)
        yield o


def _objects(nodes: int, gpus: int, pods: int) -> Iterator[dict[str, Any]]:
    """Every object of the big cluster (the pending pod is ``team-00/pending-8-gpus``)."""
    namespaces = [f"team-{i:02d}" for i in range(NAMESPACES)]
    for ns in namespaces:
        yield {"apiVersion": "v1", "kind": "Namespace",
               "metadata": {"name": ns, "labels": {"kubernetes.io/metadata.name": ns}}}
    yield from _classes()
    whole = _template("x", "whole-gpu", "gpu.nvidia.com")
    mig = _template("x", "mig-3g40gb", "mig.nvidia.com",
                    f"device.attributes['{nvidia.DRIVER}'].profile == '3g.40gb'")
    for ns in namespaces:
        for t in (whole, mig):
            yield {**t, "metadata": {**t["metadata"], "namespace": ns}}
    names = [node_name(i) for i in range(nodes)]
    for i, n in enumerate(names):
        yield _node(n, f"rack-{i // NODES_PER_RACK:03d}")
        yield from nvidia.gpu_slices(n, gpus)
    yield from _network_slices(nodes)
    for k in range(pods):
        n = names[(k // len(HOLDINGS)) % nodes]
        device = HOLDINGS[k % len(HOLDINGS)]
        ns = namespaces[k % NAMESPACES]
        tmpl = whole if "mig" not in device else mig
        name = f"job-{k:05d}"
        yield _pod(ns, name, tmpl["metadata"]["name"], n)
        yield _claim(ns, name, tmpl["spec"]["spec"], n, device)
    eight = _template("team-00", "eight-gpus", "gpu.nvidia.com", count=8)
    yield eight
    yield _pod("team-00", "pending-8-gpus", "eight-gpus", None)
    yield _claim("team-00", "pending-8-gpus", eight["spec"]["spec"], None, None)


def write(path: str, nodes: int, gpus: int, pods: int) -> None:
    """The snapshot as one ``kind: List`` JSON document, written item by item; a summary beside it."""
    kinds: dict[str, int] = {}
    devices = 0
    with open(path, "w") as f:
        f.write('{"apiVersion":"v1","kind":"List","items":[')
        for i, o in enumerate(build(nodes, gpus, pods)):
            f.write(("," if i else "") + json.dumps(o, separators=(",", ":")))
            kinds[o["kind"]] = kinds.get(o["kind"], 0) + 1
            if o["kind"] == "ResourceSlice":
                devices += len(o["spec"].get("devices") or [])
        f.write("]}")
    with open(path + ".summary", "w") as f:
        f.write(f"{devices} devices, " + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())) + "\n")


ONE_POD = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-mig, namespace: team-01}
spec:
  spec:
    devices:
      requests:
      - name: mig
        exactly:
          deviceClassName: mig.nvidia.com
          selectors:
          - cel: {expression: "device.attributes['gpu.nvidia.com'].profile == '1g.10gb'"}
---
apiVersion: v1
kind: Pod
metadata: {name: one-pod, namespace: team-01}
spec:
  containers:
  - name: main
    image: cuda:12
    resources:
      requests: {cpu: "2", memory: 16Gi}
      claims: [{name: mig}]
  resourceClaims:
  - {name: mig, resourceClaimTemplateName: one-mig}
"""


def measure(cmd: list[str], env: dict[str, str], runs: int, cache: str | None = None) -> dict[str, float]:
    """Medians of ``runs`` runs; each run in a fresh child whose rusage is its own.

    ``cache``: dractl's cache directory (XDG_CACHE_HOME) of every run; None: an empty one for each run.
    """
    import shutil

    walls, cpus, rss = [], [], []
    code = nbytes = 0
    for _ in range(runs):
        fresh = None if cache else tempfile.mkdtemp(prefix="dractl-cache-")
        try:
            r = _child_run(cmd, dict(env, XDG_CACHE_HOME=cache or fresh or ""))
        finally:
            if fresh:
                shutil.rmtree(fresh, ignore_errors=True)
        walls.append(r[0])
        cpus.append(r[1])
        rss.append(r[2])
        code, nbytes = r[3], r[4]
    return {"wall": statistics.median(walls), "wall_min": min(walls), "wall_max": max(walls),
            "cpu": statistics.median(cpus), "rss": max(rss), "exit": code, "bytes": nbytes}


def _child_run(cmd: list[str], env: dict[str, str]) -> tuple[float, float, float, int, int]:
    # Popen + wait4 on the pid gives this child's own rusage (RUSAGE_CHILDREN would sum every child).
    t = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        # Not in a checkout: ``python -m dractl`` puts the working directory before PYTHONPATH.
        p = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.PIPE, cwd=tempfile.gettempdir())
        assert p.stderr is not None
        err = p.stderr.read()
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - t
        out.seek(0, os.SEEK_END)
        nbytes = out.tell()
    if p.returncode not in (0, 1):
        sys.exit(f"{' '.join(cmd)} exited {p.returncode}: {err.decode()[-800:]}")
    wait_for_forks(cmd)
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024, p.returncode, nbytes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--gpus", type=int, default=8)
    ap.add_argument("--pods", type=int, default=20000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--keep", help="write the snapshot here (and reuse it when it is there)")
    ap.add_argument("--write", metavar="PATH", help=argparse.SUPPRESS)
    ap.add_argument("--only", help="comma-separated labels of the commands to run (default: all)")
    ap.add_argument("--later", action="store_true",
                    help="also time each command's later read (the snapshot's index cached by a first read)")
    a = ap.parse_args()
    from compiled import compile_dractl

    compile_dractl()  # as an installed dractl: no command compiles a module anew
    tmp = tempfile.mkdtemp()
    snap = os.path.abspath(a.keep) if a.keep else os.path.join(tmp, "big.json")
    if a.write:
        write(a.write, a.nodes, a.gpus, a.pods)
        return
    if not (a.keep and os.path.exists(snap)):
        # In a child: this process stays small, and each command's child with it (Linux carries the peak RSS
        # of the process that forks into the child's own rusage).
        t = time.perf_counter()
        subprocess.run([sys.executable, __file__, "--write", snap, "--nodes", str(a.nodes), "--gpus", str(a.gpus),
                        "--pods", str(a.pods)], check=True)
        print(f"snapshot written in {time.perf_counter() - t:.0f}s")
    with open(snap + ".summary") as f:
        print(f"snapshot {snap}: {os.path.getsize(snap) / 2**20:.0f} MiB, {f.read().strip()}")
    one_pod = os.path.join(tmp, "one-pod.yaml")
    with open(one_pod, "w") as f:
        f.write(ONE_POD)
    env = dict(os.environ, NO_COLOR="1", DRACTL_STATE=os.path.join(tmp, "state"))
    env.setdefault("PYTHONPATH", ROOT)  # another checkout of dractl: PYTHONPATH=THERE
    env.pop("KUBECONFIG", None)
    d = [sys.executable, "-m", "dractl", "--from", snap]
    node = node_name(a.nodes // 2)
    commands = [
        ("start-up (dractl version)", [sys.executable, "-m", "dractl", "version"]),
        ("devices", d + ["devices"]),
        ("devices -o json", d + ["devices", "-o", "json"]),
        (f"devices --node {node}", d + ["devices", "--node", node]),
        (f"devices --node {node}, later read", d + ["devices", "--node", node]),
        ("usage --by node", d + ["usage", "--by", "node"]),
        ("claims -A", d + ["claims", "-A"]),
        ("check -f one-pod.yaml", d + ["check", "-f", one_pod]),
        ("pods pending-8-gpus --explain", d + ["-n", "team-00", "pods", "pending-8-gpus", "--explain"]),
        ("claims pending-8-gpus-gpu --explain", d + ["-n", "team-00", "claims", "pending-8-gpus-gpu", "--explain"]),
    ]
    only = set(a.only.split(",")) if a.only else None
    load = os.getloadavg()[0]
    print(f"load average at start {load:.1f}; medians of {a.runs} runs")
    print(f"{'command':<44} {'wall s':>8} {'(min-max)':>13} {'cpu s':>7} {'peak MiB':>9} {'exit':>5} {'out KiB':>8}")
    for label, cmd in commands:
        if only and label.split()[0] not in only and label not in only:
            continue
        cache = None
        if label.endswith("later read"):  # the first read caches the snapshot's index
            cache = os.path.join(tmp, "cache")
            _child_run(cmd, dict(env, XDG_CACHE_HOME=cache))
        r = measure(cmd, env, a.runs, cache)
        goal = 1.0 if label.endswith("later read") else 10.0
        flag = "" if r["wall"] <= goal and r["rss"] <= 2048 else f"   MISSED (goal <= {goal:g} s, <= 2 GiB)"
        if label.startswith("start-up"):
            flag = ""
        print(f"{label:<44} {r['wall']:8.2f} {r['wall_min']:6.2f}-{r['wall_max']:<6.2f} {r['cpu']:7.2f} "
              f"{r['rss']:9.0f} {r['exit']:5d} {r['bytes'] / 1024:8.0f}{flag}", flush=True)
        if a.later and not label.startswith("start-up") and not label.endswith("later read"):
            cache = os.path.join(tmp, "cache")
            _child_run(cmd, dict(env, XDG_CACHE_HOME=cache))  # caches the index, if no earlier run did
            r = measure(cmd, env, a.runs, cache)
            later = f"{label}, later read"
            print(f"{later:<44} {r['wall']:8.2f} {r['wall_min']:6.2f}-{r['wall_max']:<6.2f} {r['cpu']:7.2f} "
                  f"{r['rss']:9.0f} {r['exit']:5d} {r['bytes'] / 1024:8.0f}", flush=True)
    print(f"load average at end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
