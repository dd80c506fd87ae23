"""Scheduling with scores (issue 17): `fake apply` of one-GPU pods with cpu/memory requests.

    python benchmarks/bench_scores.py [--nodes 500] [--devices-per-node 10] [--pods 5000] [--runs 1]

1. In this process: the control plane's reconcile of the pods (the scheduler alone: filters, scores, the pick,
   DynamicResources' allocation, binding), and the same with the shortcuts off (every node filtered, every
   feasible node allocated and scored: what the answers are checked against).
2. As a user runs it: ``dractl fake reset`` then ONE ``dractl fake apply -f`` of the pods, the whole command
   timed (parse, validate, admission, claim controller, scheduler, state write).

Goal (issue 17): >= 1,000 pods/s for 5,000 pods on 500 nodes x 10 GPUs (upstream's own DRA scheduler_perf
threshold for that case is 40-56 pods/s).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, ROOT)

import builders as b  # noqa: E402

GOAL = 1000


def pods(n: int, ns: str = "bench") -> list[dict]:
    out = []
    for i in range(n):
        p = b.pod(f"pod-{i:05d}", ns, [b.from_template("single-gpu")], image="busybox:1.37")
        p["spec"]["containers"][0]["resources"]["requests"] = {"cpu": "1", "memory": "2Gi"}
        out.append(p)
    return [b.namespace(ns), b.template("single-gpu", ns), *out]


def in_process(nodes: int, devices: int, n: int, shortcuts: bool) -> float:
    from dractl.control.plane import ControlPlane
    from dractl.model.cluster import cluster_from
    from dractl.model.parse import parse_object
    from dractl.scheduler.schedule_one import SchedulingPass

    objs = [b.device_class(), *(b.example_gpu_slice(node=f"n{i:04d}", n=devices) for i in range(nodes)),
            *(b.node(f"n{i:04d}", allocatable={"cpu": "64", "memory": "256Gi", "pods": "110"}) for i in range(nodes))]
    plane = ControlPlane.of(cluster_from([parse_object(o, validate=False) for o in objs]), random_names=False)
    plane.apply([parse_object(o, validate=False) for o in pods(n)], None)
    SchedulingPass.score_lazily = shortcuts
    try:
        t = time.perf_counter()
        events = plane.reconcile()
        dt = time.perf_counter() - t
    finally:
        SchedulingPass.score_lazily = True
    scheduled = sum(1 for e in events if e.verb == "scheduled")
    if scheduled != n:
        sys.exit(f"only {scheduled} of {n} pods scheduled")
    return dt


def cli(nodes: int, devices: int, n: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, DRACTL_STATE=os.path.join(tmp, "state"), NO_COLOR="1", HOME=tmp)
        env.pop("KUBECONFIG", None)
        path = os.path.join(tmp, "pods.yaml")
        with open(path, "w") as f:
            f.write(b.docs_to_yaml(*pods(n)))

        def run(*args: str) -> float:
            t = time.perf_counter()
            p = subprocess.run([sys.executable, "-m", "dractl", *args], capture_output=True, env=env, cwd=ROOT)
            if p.returncode != 0:
                sys.exit(f"dractl {' '.join(args)} failed: {p.stderr.decode()[-2000:]}")
            return time.perf_counter() - t

        run("--fake", "fake", "reset", "--nodes", str(nodes), "--devices-per-node", str(devices),
            "--node-cpu", "64", "--node-memory", "256Gi")
        return run("--fake", "fake", "apply", "-f", path)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=500)
    ap.add_argument("--devices-per-node", type=int, default=10)
    ap.add_argument("--pods", type=int, default=5000)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--plain", type=int, default=500, help="pods for the run without shortcuts (0: skip it)")
    a = ap.parse_args()
    from compiled import compile_dractl

    compile_dractl()  # as an installed dractl: no command compiles a module anew
    best = min(in_process(a.nodes, a.devices_per_node, a.pods, True) for _ in range(a.runs))
    print(f"reconcile of {a.pods} pods on {a.nodes}x{a.devices_per_node} GPUs, in process: {best:.2f} s, "
          f"{a.pods / best:.0f} pods/s")
    if a.plain:
        dt = in_process(a.nodes, a.devices_per_node, a.plain, False)
        print(f"  without the shortcuts ({a.plain} pods): {dt:.2f} s, {a.plain / dt:.0f} pods/s")
    best = min(cli(a.nodes, a.devices_per_node, a.pods) for _ in range(a.runs))
    rate = a.pods / best
    print(f"dractl fake apply of {a.pods} pods on {a.nodes}x{a.devices_per_node} GPUs: {best:.2f} s, {rate:.0f} pods/s"
          f"   goal >= {GOAL} pods/s: {'ok' if rate >= GOAL else 'MISSED'}")


if __name__ == "__main__":
    main()
